/* SPDX-License-Identifier: GPL-2.0 */
/* cubicctl: what the command files share. */
#ifndef CUBICCTL_H
#define CUBICCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <limits.h>
#include "cubic_abi.h"
#include "json.h"
#include "vocab.h"
#include "opts.h"

/* Exit codes (documented in README.md and `cubicctl help`). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_NOT_LOADED = 3,
};

struct global_opts {
	bool json;
	bool verbose;
	const char *cmd;   /* the command being run, for messages */
	bool json_written; /* a JSON document is (being) written on stdout */
};
extern struct global_opts g_opts;

/*
 * "cubicctl: <command>: <message>" on stderr; under --json also
 * {"error": "<message>"} on stdout, unless a document is already there.
 */
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An informational line on stderr, same prefix. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Start a JSON document on stdout (one per command with -j). */
struct json *json_stdout(void);

/* Checks that print their own message and return an exit code (0: fine). */
int require_root(void);
int require_btf(void);
int require_bpffs(void);
int check_instance_name(const char *name);
/* The usual preamble: a valid name (if given), root, bpffs. */
int require_env(const char *name);

/* Takes an exclusive flock on CUBIC_PIN_ROOT (created if needed); returns the fd or -1. */
int lock_pin_root(void);
/* require_env(name), then lock_pin_root() into *lock: what a mutating command starts with. */
int require_env_locked(const char *name, int *lock);
void unlock_pin_root(int fd);

/* Kernel congestion-control sysctls. */
bool ca_name_registered(const char *name);
int read_default_ca(char *buf, size_t len);
int write_default_ca(const char *name);
/* What 'unload --force' makes the default: cubic, or reno where cubic may not be. */
const char *fallback_default_ca(void);
int allow_ca(const char *name);

/* Option parsers for the option tables (opts.h): "--ring-size BYTES" and the like. */
int parse_datapath(const char *val, void *field, char *err, size_t errlen);
const char *datapath_choices(char *buf, size_t len);

/*
 * Whether stdout took everything written to it (a full disk, a closed pipe):
 * false after one sentence on stderr.
 */
bool stdout_ok(void);

/* libbpf messages go through here; shown with -v. */
void setup_libbpf_logging(void);

#include "instance.h"

/* Commands. */
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_flows(int argc, char **argv);
int cmd_policers(int argc, char **argv);
int cmd_upgrade(int argc, char **argv);

/* Their option tables (opts.h). */
extern const struct command cmd_load_def, cmd_unload_def, cmd_status_def, cmd_set_def,
	cmd_get_def, cmd_trace_def, cmd_flows_def, cmd_policers_def, cmd_attach_def, cmd_detach_def, cmd_upgrade_def,
	cmd_help_def;

#endif /* CUBICCTL_H */
