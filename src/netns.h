/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespaces cubicctl reads: its own and every one named under
 * /run/netns (ip netns), each once (cmd_flows.c, cmd_policers.c).
 */
#ifndef CUBICCTL_NETNS_H
#define CUBICCTL_NETNS_H

#include <limits.h>
#include <linux/types.h>

#define NETNS_DIR "/run/netns"
#define MAX_NETNS 256

struct netns {
	char name[NAME_MAX + 1]; /* "" for cubicctl's own */
	int fd;
};

/*
 * Namespaces to read: cubicctl's own, then each under /run/netns that is a
 * network namespace now and not one already taken (the same inode: two names
 * of one namespace, or cubicctl's own). With only, that one; -ENOENT if there
 * is no such name, -EINVAL if it is not a network namespace. Their count, or
 * -errno (/run/netns unreadable; -E2BIG: more than max), with nothing left
 * open; the caller closes each fd.
 */
int netns_list(struct netns *ns, int max, const char *only);

/*
 * The kernel's cookie of each (SO_NETNS_COOKIE, Linux 5.14; 0 where it can't
 * be read), entering each with setns() and returning to self_fd; 0, or -errno
 * when cubicctl could not return to its own namespace.
 */
int netns_cookies(const struct netns *ns, int n, int self_fd, __u64 *cookies);

#endif /* CUBICCTL_NETNS_H */
