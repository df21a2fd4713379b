/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cubicctl attach: what the cgroup sock_ops program (bpf/attach.bpf.c) and
 * cubicctl share. Each attachment is one copy of that program, attached to a
 * cgroup v2 through a bpf_link, with maps of its own, all pinned under
 * CUBIC_PIN_ROOT/NAME/attach-ID/ (NAME the instance it selects).
 */
#ifndef ATTACH_ABI_H
#define ATTACH_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define ATTACH_PIN_PREFIX "attach-" /* + a number: CUBIC_PIN_ROOT/NAME/attach-N/ */
#define ATTACH_PIN_LINK	  "link"    /* the cgroup link: the attachment lives while it is pinned */
#define ATTACH_PIN_CONF	  "conf"
#define ATTACH_PIN_DST4	  "dst4"
#define ATTACH_PIN_DST6	  "dst6"
#define ATTACH_PIN_PORTS  "ports"
#define ATTACH_PIN_COUNT  "counters"

#define ATTACH_MAX_PREFIXES 64
#define ATTACH_MAX_PORTS    64

/* attach_conf.flags: which rules apply (none: every connection) */
#define ATTACH_F_DST  0x1 /* the peer's address must be in dst4/dst6 */
#define ATTACH_F_PORT 0x2 /* the local or the peer's port must be in ports */

#define ATTACH_CGROUP_MAX 512

struct attach_conf {
	char cc[16]; /* the congestion control: the instance's name (TCP_CA_NAME_MAX) */
	__u32 flags;
	__u32 abi;   /* CUBIC_ABI_VERSION of the object that made it */
	/* for cubicctl only (bpffs holds no plain files): the cgroup, as attached */
	char cgroup[ATTACH_CGROUP_MAX];
};

struct attach_lpm4 {
	__u32 prefixlen;
	__u32 addr; /* network order */
};

struct attach_lpm6 {
	__u32 prefixlen;
	__u8 addr[16];
};

/* X(ID, key, help): per-CPU counters of one attachment */
#define ATTACH_COUNTERS(X)                                                                         \
	X(SEEN, "seen", "TCP connections made or accepted in the cgroup")                            \
	X(SWITCHED, "switched", "connections put on the instance")                                  \
	X(SKIPPED, "skipped", "connections the rules left alone")                                   \
	X(FAILED, "failed", "connections the kernel refused to switch (they keep theirs)")

enum {
#define ATTACH_X_CNT(ID, ...) ATTACH_CNT_##ID,
	ATTACH_COUNTERS(ATTACH_X_CNT)
#undef ATTACH_X_CNT
	ATTACH_CNT_MAX
};

struct attach_counters {
	__u64 c[ATTACH_CNT_MAX];
};

#endif /* ATTACH_ABI_H */
