/* SPDX-License-Identifier: GPL-2.0 */
/* Routes that name a congestion control (`ip route ... congctl NAME`): routes.c */
#ifndef CUBICCTL_ROUTES_H
#define CUBICCTL_ROUTES_H

#include <stdbool.h>

#define ROUTE_CC_MAX 16 /* TCP_CA_NAME_MAX */

struct route_ref {
	char cc[ROUTE_CC_MAX];
	char route[96]; /* "10.66.0.0/24 dev eth0", "default dev eth1 table 100" */
	bool locked;	/* congctl lock: the route's choice overrides setsockopt() */
};

/*
 * The routes of every table of this network namespace whose congctl is name
 * (or any, with NULL); returns how many there are (out holds at most max),
 * or -errno.
 */
int routes_naming(const char *name, struct route_ref *out, int max);

#endif /* CUBICCTL_ROUTES_H */
