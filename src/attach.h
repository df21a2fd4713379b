/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attachments (cubicctl attach/detach): a cgroup sock_ops program that puts
 * the cgroup's TCP connections on an instance (bpf/attach.bpf.c). Each one is
 * pinned under ATTACH_ROOT/ID/: its cgroup link (the attachment lives as long
 * as that pin), its maps, and a file naming the cgroup. attach.c does the
 * work; the command file parses and prints.
 */
#ifndef CUBICCTL_ATTACH_H
#define CUBICCTL_ATTACH_H

#include <limits.h>
#include <stdbool.h>
#include "attach_abi.h"
#include "cubic_abi.h"

/* Beside CUBIC_PIN_ROOT, not in it: an instance's folder holds only its own maps. */
#define ATTACH_ROOT "/sys/fs/bpf/cubicctl-attach"

struct attach_rules {
	int ndst4, ndst6, nports;
	struct attach_lpm4 dst4[ATTACH_MAX_PREFIXES];
	struct attach_lpm6 dst6[ATTACH_MAX_PREFIXES];
	__u16 ports[ATTACH_MAX_PORTS];
};

struct attach_info {
	int id;
	char name[CUBIC_NAME_MAX];	/* the instance */
	char cgroup[PATH_MAX];		/* as given, made absolute */
	struct attach_rules rules;
	__u64 c[ATTACH_CNT_MAX];	/* its counters, summed over CPUs */
	bool attached;			/* the link still holds its cgroup */
};

/* "10.0.0.0/8", "2001:db8::/32", "192.0.2.1" (a host): adds to r; message in err, -EINVAL */
int attach_add_prefix(struct attach_rules *r, const char *s, char *err, size_t errlen);
/* "443": adds to r; -EINVAL with a message */
int attach_add_port(struct attach_rules *r, const char *s, char *err, size_t errlen);
/* One line of rules, "dst 10.0.0.0/8 port 443", or "all" */
void attach_rules_str(const struct attach_rules *r, char *buf, size_t len);

/*
 * The cgroup v2 folder of PATH: an absolute path on the cgroup2 mount, or a
 * path relative to that mount (wherever it is: /sys/fs/cgroup on Debian 12,
 * /sys/fs/cgroup/unified on a hybrid layout); -ENOENT, -ENOTDIR (not a cgroup
 * v2 folder) with a message.
 */
int attach_resolve_cgroup(const char *path, char *out, size_t outlen, char *err, size_t errlen);

/*
 * Attaches; returns an exit code (one sentence on stderr if not EXIT_OK) and
 * the new attachment's id. Refuses (EXIT_USAGE) rules that overlap an
 * existing attachment on the same cgroup. Nothing is left on failure.
 */
int attach_create(const char *name, const char *cgroup, const struct attach_rules *r, int *id);
/* Detaches and removes everything attachment id made; -ENOENT if none. */
int attach_destroy(int id);
/* Every attachment, by id; returns the count (at most max). */
int attach_list(struct attach_info *out, int max);
/* Detaches every attachment of instance name (cmd_attach.c): how many, or -errno. */
int attach_detach_instance(const char *name, bool quiet);

#endif /* CUBICCTL_ATTACH_H */
