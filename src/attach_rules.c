// SPDX-License-Identifier: GPL-2.0
/*
 * An attachment's rules (--dst, --port; attach= lines of a config file): pure,
 * no libbpf, so loadconf.c and the unit tests use them too (attach.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"

int attach_add_prefix(struct attach_rules *r, const char *s, char *err, size_t errlen)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned char buf[16];
	long plen = -1;
	bool v6;

	if (alen == 0 || alen >= sizeof(addr))
		goto bad;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, buf) == 1)
		v6 = false;
	else if (inet_pton(AF_INET6, addr, buf) == 1)
		v6 = true;
	else
		goto bad;
	if (slash) {
		char *end;

		errno = 0;
		plen = strtol(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || plen < 0 || plen > (v6 ? 128 : 32))
			goto bad;
	} else {
		plen = v6 ? 128 : 32;
	}
	if (v6) {
		if (r->ndst6 >= ATTACH_MAX_PREFIXES)
			goto full;
		r->dst6[r->ndst6].prefixlen = (__u32)plen;
		memcpy(r->dst6[r->ndst6].addr, buf, 16);
		r->ndst6++;
	} else {
		if (r->ndst4 >= ATTACH_MAX_PREFIXES)
			goto full;
		r->dst4[r->ndst4].prefixlen = (__u32)plen;
		memcpy(&r->dst4[r->ndst4].addr, buf, 4);
		r->ndst4++;
	}
	return 0;
bad:
	snprintf(err, errlen, "--dst '%s' is not an IPv4 or IPv6 prefix (10.0.0.0/8, 2001:db8::/32)",
		 s);
	return -EINVAL;
full:
	snprintf(err, errlen, "--dst: at most %d prefixes of each family", ATTACH_MAX_PREFIXES);
	return -EINVAL;
}

int attach_add_port(struct attach_rules *r, const char *s, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535 || s[0] == '+' || s[0] == '-') {
		snprintf(err, errlen, "--port '%s' is not a port number (1..65535)", s);
		return -EINVAL;
	}
	if (r->nports >= ATTACH_MAX_PORTS) {
		snprintf(err, errlen, "--port: at most %d ports", ATTACH_MAX_PORTS);
		return -EINVAL;
	}
	r->ports[r->nports++] = (__u16)v;
	return 0;
}

void attach_rules_str(const struct attach_rules *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->ndst4 && off < len; i++) {
		inet_ntop(AF_INET, &r->dst4[i].addr, a, sizeof(a));
		off += snprintf(buf + off, len - off, "%sdst %s/%u", off ? " " : "", a,
				r->dst4[i].prefixlen);
	}
	for (i = 0; i < r->ndst6 && off < len; i++) {
		inet_ntop(AF_INET6, r->dst6[i].addr, a, sizeof(a));
		off += snprintf(buf + off, len - off, "%sdst %s/%u", off ? " " : "", a,
				r->dst6[i].prefixlen);
	}
	for (i = 0; i < r->nports && off < len; i++)
		off += snprintf(buf + off, len - off, "%sport %u", off ? " " : "", r->ports[i]);
	if (!off)
		snprintf(buf, len, "all");
}

