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

/* Instances: maps pinned under CUBIC_PIN_ROOT/NAME. */
struct instance {
	char name[CUBIC_NAME_MAX];
	char dir[PATH_MAX];
	int ops_fd;
	int tunables_fd;
	int counters_fd;
	int info_fd;
	int events_fd;
	__u32 abi_version; /* from the info map at open; 0: unreadable */
	char ops_ca_name[CUBIC_NAME_MAX]; /* the name its ops map holds (instance_state) */
};

/* The datapath of an opened instance, -1 if unknown. */
int instance_datapath(const struct instance *in);

enum instance_state {
	INST_ABSENT,	 /* no pin folder */
	INST_REGISTERED, /* pinned and registered in the kernel */
	INST_LEFTOVER,	 /* pinned but not registered: an interrupted load */
	INST_FOREIGN,	 /* the ops pin is not provably this instance: never touched */
};

void instance_path(char *buf, size_t len, const char *name, const char *pin);
int instance_open(struct instance *in, const char *name);
void instance_close(struct instance *in);
enum instance_state instance_state(struct instance *in);
const char *instance_state_str(enum instance_state st);
int instance_read_tunables(struct instance *in, struct cubic_tunables *t);
int instance_read_counters(struct instance *in, struct cubic_counters *sum);
int instance_remove_pins(const char *name);
int instance_list(char (*names)[CUBIC_NAME_MAX], int max);
/* Says (one sentence) why an INST_FOREIGN instance is left alone. */
void instance_foreign_msg(const struct instance *in);
/* Unregisters the ops map only if it is proven to be instance name (-ESRCH if not). */
int instance_unregister(int ops_fd, const char *name);
/* Whether the instance's info map says this cubicctl's CUBIC_ABI_VERSION. */
bool instance_abi_ok(const struct instance *in);
/*
 * Opens a registered instance of this ABI, or says why not (one sentence) and
 * returns EXIT_NOT_LOADED or EXIT_FAIL; EXIT_OK when in is open.
 */
int instance_open_loaded(struct instance *in, const char *name);
/* A registered instance of ours under name whose pins are gone: its ops map fd, or -ENOENT. */
int instance_find_unpinned(const char *name);
/* Registers a new instance; on failure leaves nothing behind. */
int instance_load(const char *name, const struct cubic_tunables *t, __u32 ring_size,
		  enum datapath dp);

/* libbpf messages go through here; shown with -v. */
void setup_libbpf_logging(void);

/* Commands. */
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_get(int argc, char **argv);

#endif /* CUBICCTL_H */
