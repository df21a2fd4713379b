// SPDX-License-Identifier: GPL-2.0
/*
 * Routes that name a congestion control (`ip route ... congctl NAME`): the
 * kernel takes any registered name, a bpf_cubic instance's too, and a
 * connection on such a route starts on it. An instance unloaded under such
 * a route leaves the route holding a key nothing answers to: connections on it
 * fall back to the default, and Debian 12's `ip route show` (iproute2 6.1)
 * crashes on a `congctl lock` route of that kind. So status lists the routes
 * that name an instance, and unload refuses while there are any.
 *
 * A dump of every IPv4 and IPv6 route of every table in cubicctl's network
 * namespace over rtnetlink, reading RTA_METRICS' RTAX_CC_ALGO.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "routes.h"

static void describe(struct rtmsg *rt, int len, char *out, size_t outlen)
{
	char dst[INET6_ADDRSTRLEN] = "default", dev[32] = "", tab[24] = "";
	struct rtattr *a;
	__u32 table = rt->rtm_table;

	for (a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_DST)
			inet_ntop(rt->rtm_family, RTA_DATA(a), dst, sizeof(dst));
		else if (a->rta_type == RTA_OIF) {
			char ifname[IF_NAMESIZE];
			__u32 oif = *(__u32 *)RTA_DATA(a);

			if (if_indextoname(oif, ifname))
				snprintf(dev, sizeof(dev), " dev %s", ifname);
			else
				snprintf(dev, sizeof(dev), " oif %u", oif);
		}
		else if (a->rta_type == RTA_TABLE)
			table = *(__u32 *)RTA_DATA(a);
	}
	if (table != RT_TABLE_MAIN)
		snprintf(tab, sizeof(tab), " table %s", table == RT_TABLE_LOCAL ? "local" : "");
	if (table != RT_TABLE_MAIN && table != RT_TABLE_LOCAL)
		snprintf(tab, sizeof(tab), " table %u", table);
	if (strcmp(dst, "default"))
		snprintf(out, outlen, "%s/%u%s%s", dst, rt->rtm_dst_len, dev, tab);
	else
		snprintf(out, outlen, "default%s%s", dev, tab);
}

/* The congestion control a route's metrics name, or NULL. */
static const char *route_cc(struct rtmsg *rt, int len, bool *locked)
{
	struct rtattr *a;

	for (a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		struct rtattr *m;
		int mlen;

		if (a->rta_type != RTA_METRICS)
			continue;
		mlen = RTA_PAYLOAD(a);
		for (m = RTA_DATA(a); RTA_OK(m, mlen); m = RTA_NEXT(m, mlen)) {
			if (m->rta_type == RTAX_LOCK && RTA_PAYLOAD(m) >= 4)
				*locked = *(__u32 *)RTA_DATA(m) & (1u << RTAX_CC_ALGO);
			if (m->rta_type == RTAX_CC_ALGO && RTA_PAYLOAD(m) > 0)
				return RTA_DATA(m);
		}
	}
	return NULL;
}

static int dump(int fd, int family, const char *name, struct route_ref *out, int max, int *n)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
	} req = {
		.nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)), .nlmsg_type = RTM_GETROUTE,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.rt = { .rtm_family = (unsigned char)family, .rtm_table = RT_TABLE_UNSPEC },
	};
	static char buf[65536];

	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t got = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (got < 0)
			return -errno;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)got); nh = NLMSG_NEXT(nh, got)) {
			struct rtmsg *rt = NLMSG_DATA(nh);
			const char *cc;
			bool locked = false;
			int len;

			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			if (nh->nlmsg_type != RTM_NEWROUTE)
				continue;
			len = (int)RTM_PAYLOAD(nh);
			cc = route_cc(rt, len, &locked);
			if (!cc || (name && strncmp(cc, name, ROUTE_CC_MAX)))
				continue;
			if (*n < max) {
				snprintf(out[*n].cc, sizeof(out[*n].cc), "%s", cc);
				describe(rt, len, out[*n].route, sizeof(out[*n].route));
				out[*n].locked = locked;
			}
			(*n)++;
		}
	}
}

int routes_naming(const char *name, struct route_ref *out, int max)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), n = 0, err;

	if (fd < 0)
		return -errno;
	err = dump(fd, AF_INET, name, out, max, &n);
	if (!err)
		err = dump(fd, AF_INET6, name, out, max, &n);
	close(fd);
	return err ? err : n;
}
