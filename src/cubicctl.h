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
	const char *cmd; /* the command being run, for messages */
};
extern struct global_opts g_opts;

/* "cubicctl: <command>: <message>" on stderr. */
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
void unlock_pin_root(int fd);

/* Kernel congestion-control sysctls. */
bool ca_name_registered(const char *name);
int read_default_ca(char *buf, size_t len);
int write_default_ca(const char *name);
int allow_ca(const char *name);

/* Helpers for argument parsing: "--name NAME" or "--name=NAME". */
bool opt_value(int argc, char **argv, int *i, const char *opt, const char **val);
bool is_help(const char *arg);

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

#endif /* CUBICCTL_H */
