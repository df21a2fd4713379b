// SPDX-License-Identifier: GPL-2.0
/* Network namespaces cubicctl reads (netns.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include "netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* include/uapi/asm-generic/socket.h, Linux 5.14 */
#endif

/*
 * fd is a network namespace. A name under /run/netns is an empty file until
 * `ip netns add` has bind-mounted the namespace on it, and again once `ip
 * netns del` has unmounted it: setns() on such a file fails (EINVAL). Once
 * this holds, the open fd keeps the namespace alive, whatever happens to its
 * name meanwhile.
 */
static bool is_netns(int fd)
{
	return ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWNET;
}

int netns_list(struct netns *ns, int max, const char *only)
{
	struct stat st, seen[MAX_NETNS];
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, err = 0;
	DIR *d;

	if (only) {
		snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, only);
		ns[0].fd = open(path, O_RDONLY | O_CLOEXEC);
		if (ns[0].fd < 0)
			return -errno;
		if (!is_netns(ns[0].fd)) {
			close(ns[0].fd);
			return -EINVAL;
		}
		snprintf(ns[0].name, sizeof(ns[0].name), "%s", only);
		return 1;
	}
	ns[0].fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns[0].fd < 0 || fstat(ns[0].fd, &seen[0]))
		return -errno;
	ns[0].name[0] = '\0';
	n = 1;
	/*
	 * No /run/netns: no namespace was ever named. Any other failure to read
	 * it is said, not taken for an empty list (a listing that leaves some
	 * namespaces out without a word would lose their sockets).
	 */
	d = opendir(NETNS_DIR);
	if (!d) {
		err = -errno;
		if (err == -ENOENT)
			return n;
		close(ns[0].fd);
		return err;
	}
	for (;;) {
		bool dup = false;
		int fd;

		errno = 0;
		de = readdir(d);
		if (!de) {
			err = -errno;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if (n == max) {
			err = -E2BIG;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT) {
			err = -errno;
			break;
		}
		if (fd < 0 || fstat(fd, &st) || !is_netns(fd)) {
			if (fd >= 0)
				close(fd);
			continue; /* gone meanwhile, being added or deleted, or not a namespace */
		}
		for (int i = 0; i < n && !dup; i++)
			dup = seen[i].st_dev == st.st_dev && seen[i].st_ino == st.st_ino;
		if (dup) {
			close(fd);
			continue;
		}
		seen[n] = st;
		ns[n].fd = fd;
		snprintf(ns[n].name, sizeof(ns[n].name), "%s", de->d_name);
		n++;
	}
	closedir(d);
	if (err) {
		/* the caller has nothing to close */
		for (int i = 0; i < n; i++)
			close(ns[i].fd);
		return err;
	}
	return n;
}

/* This namespace's cookie, 0 if it can't be read. */
static __u64 own_cookie(void)
{
	__u64 c = 0;
	socklen_t len = sizeof(c);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len))
		c = 0;
	close(fd);
	return c;
}

int netns_cookies(const struct netns *ns, int n, int self_fd, __u64 *cookies)
{
	for (int i = 0; i < n; i++) {
		cookies[i] = 0;
		if (!ns[i].name[0]) {
			cookies[i] = own_cookie();
			continue;
		}
		if (setns(ns[i].fd, CLONE_NEWNET))
			continue;
		cookies[i] = own_cookie();
		if (setns(self_fd, CLONE_NEWNET))
			return -errno;
	}
	return 0;
}
