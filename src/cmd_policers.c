// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl policers: the policers PREDICT remembers, per instance, network
 * namespace and destination (bpf/rule_predict.bpf.h's policer_memory, an LRU
 * map found through the instance's programs: it is not pinned), and the busy
 * paths (busy_memory, the same key), and --forget to drop them. A remembered
 * policer caps the next flows to its destination at its rate for
 * PREDICT_POLMEM_S seconds (predict_polmem_target()); a busy path leaves
 * them to HyStart for PREDICT_BUSY_S (predict_busy_applies()). An entry
 * older than that is in the map until the LRU evicts it but no longer used,
 * and is not listed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cubicctl.h"
#include "cubic_stores.h"
#include "netns.h"

#define MAX_INSTANCES 64

struct policers_opts {
	const char *name;
	const char *forget;
};

static const struct opt policers_opts[] = {
	OPT_STR("name", "NAME", struct policers_opts, name,
		"only this instance's (default: every instance cubicctl loaded)"),
	OPT_STR("forget", "ADDR", struct policers_opts, forget,
		"forget what is remembered for destination ADDR (IPv4 or IPv6, every network "
		"namespace), or everything with 'all'"),
	OPT_END
};

static void describe(FILE *f)
{
	fprintf(f,
		"Lists the policers PREDICT (hystart=predict with predict_policer=1) remembers:\n"
		"when a flow's first loss showed a token-bucket policer, the next flows to that\n"
		"destination, in that network namespace, fill to the policed rate instead of\n"
		"the line rate, for %d s. One line each: instance, network namespace ('-':\n"
		"cubicctl's own; 'cookie:N' for one not named in " NETNS_DIR "), destination,\n"
		"the policed rate, the delay_min it was met at, its age, the seconds it has left\n"
		"and how many flows met it there. A rate 'unmeasured(no-jump)' is a policer a\n"
		"flow met after a jump (predict_jump) and could not measure: the next flows\n"
		"there do not jump, and the first to meet it without one sets the rate.\n"
		"It lists the busy paths too (predict_busy=1): a destination where a flow's\n"
		"fill ended below its estimate's target by a queue, or was judged shared, so\n"
		"that the estimate was the link's and not the flow's share; the next flows there\n"
		"leave slow start to HyStart, for %d s from the last flow that found it busy.\n"
		"Their lines say 'busy' where a policer's say its rate.\n"
		"--forget ADDR drops a destination's entries of both kinds ('all': every one),\n"
		"so that its next flow measures the path afresh. Under --json one document:\n"
		"{\"policers\": [...]} (each with \"kind\": \"policer\" or \"busy\"), or\n"
		"{\"forgot\": N, \"forgot_busy\": M}.\n",
		PREDICT_POLMEM_S, PREDICT_BUSY_S);
}

/* a busy path's row holds its entry in m: rate 0, at_ns, delay_min and flows */
struct pol_row {
	struct polmem_key k;
	struct predict_polmem m;
	int instance;
	bool busy;
};

struct pol_rows {
	struct pol_row *v;
	size_t n, cap;
};

static int add_row(struct pol_rows *r, const struct polmem_key *k, const struct predict_polmem *m,
		   int inst, bool busy)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct pol_row *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct pol_row){ .k = *k, .m = *m, .instance = inst, .busy = busy };
	return 0;
}

/* bpf_ktime_get_ns()'s clock */
static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* an entry with no rate is in force too: it holds the jump back (predict_polmem_no_jump()) */
static bool in_force(const struct predict_polmem *m, __u64 now, bool busy)
{
	return now >= m->at_ns &&
	       now - m->at_ns <= (__u64)(busy ? PREDICT_BUSY_S : PREDICT_POLMEM_S) * 1000000000ULL;
}

/* A destination to forget: the family and the 16 bytes the key holds. */
struct dest {
	bool all;
	__u32 family;
	__u8 addr[16];
};

static int parse_dest(const char *s, struct dest *d)
{
	memset(d, 0, sizeof(*d));
	if (!strcmp(s, "all")) {
		d->all = true;
		return 0;
	}
	if (inet_pton(AF_INET, s, d->addr) == 1) {
		d->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, d->addr) == 1) {
		d->family = AF_INET6;
		return 0;
	}
	errmsg("--forget: '%s' is not an IPv4 or IPv6 address, nor 'all'", s);
	return EXIT_USAGE;
}

static bool dest_match(const struct dest *d, const struct polmem_key *k)
{
	return d->all || (k->family == d->family &&
			  !memcmp(k->daddr, d->addr, d->family == AF_INET ? 4 : 16));
}

/* A busy path's entry as a row's: no rate. */
static int lookup_entry(int fd, const struct polmem_key *key, bool busy, struct predict_polmem *m)
{
	struct predict_busy b;

	if (!busy)
		return bpf_map_lookup_elem(fd, key, m);
	if (bpf_map_lookup_elem(fd, key, &b))
		return -1;
	*m = (struct predict_polmem){ .rate = 0, .at_ns = b.at_ns, .delay_min = b.delay_min,
				      .flows = b.flows };
	return 0;
}

/*
 * One instance's map (busy: the busy paths', else the policers'): its
 * entries in force into rows, or (forget) those of the destination deleted,
 * counted in *forgot. 1 when the instance has no such map (programs older
 * than it), 0, or EXIT_FAIL.
 */
static int read_map(struct instance *in, int inst, bool busy, const struct dest *forget,
		    struct pol_rows *rows, unsigned int *forgot)
{
	struct polmem_key key, next, *del = NULL;
	struct predict_polmem m;
	size_t ndel = 0, cap = 0;
	__u64 now = now_ns();
	int fd = instance_prog_map_fd(in, busy ? CUBIC_MAP_BUSY_MEMORY : CUBIC_MAP_POLICER_MEMORY);
	int rc = 0;
	bool first = true;

	if (fd < 0)
		return 1;
	/* keys first, deleted after: a delete in the walk would restart it */
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (lookup_entry(fd, &key, busy, &m))
			continue; /* evicted meanwhile */
		if (forget) {
			if (!dest_match(forget, &key))
				continue;
			if (ndel == cap) {
				struct polmem_key *v;

				cap = cap ? cap * 2 : 16;
				v = realloc(del, cap * sizeof(*v));
				if (!v) {
					rc = -ENOMEM;
					break;
				}
				del = v;
			}
			del[ndel++] = key;
		} else if (in_force(&m, now, busy)) {
			rc = add_row(rows, &key, &m, inst, busy);
			if (rc)
				break;
		}
	}
	for (size_t i = 0; !rc && i < ndel; i++) {
		if (!bpf_map_delete_elem(fd, &del[i]))
			(*forgot)++;
		else if (errno != ENOENT)
			rc = -errno;
	}
	if (rc) {
		errmsg("%s: can't %s its %s memory: %s", in->name, forget ? "change" : "read",
		       busy ? "busy path" : "policer", strerror(-rc));
		rc = EXIT_FAIL;
	}
	free(del);
	close(fd);
	return rc;
}

/* The namespace's name ("" for cubicctl's own), or NULL if none has that cookie. */
static const char *netns_name(__u64 cookie, const struct netns *ns, const __u64 *cookies,
			      int nns)
{
	for (int i = 0; cookie && i < nns; i++)
		if (cookies[i] == cookie)
			return ns[i].name;
	return NULL;
}

static void dest_str(const struct polmem_key *k, char *buf, size_t len)
{
	if (!inet_ntop(k->family == AF_INET6 ? AF_INET6 : AF_INET, k->daddr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

static void print_text(const struct pol_row *r, char (*names)[CUBIC_NAME_MAX],
		       const char *nsname, __u64 now)
{
	char dst[INET6_ADDRSTRLEN], nsbuf[40], rate[40];
	double age = (double)(now - r->m.at_ns) / 1e9;
	int life = r->busy ? PREDICT_BUSY_S : PREDICT_POLMEM_S;

	if (!nsname)
		snprintf(nsbuf, sizeof(nsbuf), "cookie:%llu", (unsigned long long)r->k.net_cookie);
	dest_str(&r->k, dst, sizeof(dst));
	/* no rate: met after a jump and not measured; the next flows do not jump */
	if (r->busy) {
		printf("%s %s %s busy delay_min:%.3fms age:%.0fs expires_in:%.0fs flows:%u\n",
		       names[r->instance], !nsname ? nsbuf : nsname[0] ? nsname : "-", dst,
		       r->m.delay_min / 1000.0, age, life - age > 0 ? life - age : 0, r->m.flows);
		return;
	}
	if (r->m.rate)
		snprintf(rate, sizeof(rate), "%.2fMbit/s", (double)r->m.rate * 8 / 1e6);
	else
		snprintf(rate, sizeof(rate), "unmeasured(no-jump)");
	printf("%s %s %s rate:%s delay_min:%.3fms age:%.0fs expires_in:%.0fs flows:%u\n",
	       names[r->instance], !nsname ? nsbuf : nsname[0] ? nsname : "-", dst, rate,
	       r->m.delay_min / 1000.0, age, life - age > 0 ? life - age : 0, r->m.flows);
}

static void print_json(struct json *j, const struct pol_row *r, char (*names)[CUBIC_NAME_MAX],
		       const char *nsname, __u64 now)
{
	char dst[INET6_ADDRSTRLEN];
	double age = (double)(now - r->m.at_ns) / 1e9;
	int life = r->busy ? PREDICT_BUSY_S : PREDICT_POLMEM_S;

	dest_str(&r->k, dst, sizeof(dst));
	json_obj_open(j, NULL);
	json_str(j, "instance", names[r->instance]);
	json_str(j, "kind", r->busy ? "busy" : "policer");
	json_str_or_null(j, "netns", nsname && nsname[0] ? nsname : NULL);
	json_u64(j, "netns_cookie", r->k.net_cookie);
	json_str(j, "family", r->k.family == AF_INET6 ? "ipv6" : "ipv4");
	json_str(j, "daddr", dst);
	json_u64(j, "rate", r->m.rate);
	json_bool(j, "no_jump", !r->m.rate);
	json_u64(j, "delay_min_us", r->m.delay_min);
	json_double(j, "age_s", age, 1);
	json_double(j, "expires_in_s", life - age > 0 ? life - age : 0, 1);
	json_u64(j, "flows", r->m.flows);
	json_obj_close(j);
}

struct map_ctx {
	const struct dest *forget;
	struct pol_rows *rows;
	unsigned int forgot, forgot_busy;
	bool named;
	char (*names)[CUBIC_NAME_MAX];
};

static int map_one(struct instance *in, int idx, void *ctx)
{
	struct map_ctx *c = ctx;
	int r = read_map(in, idx, false, c->forget, c->rows, &c->forgot);

	if (r == 1 && c->named)
		note("%s's programs keep no policer memory (they predate it: 'cubicctl upgrade "
		     "--name %s' adds it)", c->names[idx], c->names[idx]);
	if (r != 0 && r != 1)
		return r;
	/* programs older than the busy memory have none: nothing to list */
	r = read_map(in, idx, true, c->forget, c->rows, &c->forgot_busy);
	return r == 1 ? 0 : r;
}

int cmd_policers(int argc, char **argv)
{
	static char names[MAX_INSTANCES][CUBIC_NAME_MAX];
	static struct netns ns[MAX_NETNS];
	static __u64 cookies[MAX_NETNS];
	struct policers_opts o = { NULL, NULL };
	struct pol_rows rows = { NULL, 0, 0 };
	struct dest d;
	unsigned int forgot = 0, forgot_busy = 0;
	int nns = 0, rc, nargs, lock = -1, self_fd = -1;
	__u64 now;

	rc = opts_parse(&cmd_policers_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	if (o.forget) {
		rc = parse_dest(o.forget, &d);
		if (rc)
			return rc;
		rc = require_env_locked(o.name, &lock);
	} else {
		rc = require_env(o.name);
	}
	if (rc)
		return rc;
	{
		struct map_ctx c = { o.forget ? &d : NULL, &rows, 0, 0, o.name != NULL, names };

		rc = instance_each_loaded(o.name, names, MAX_INSTANCES, map_one, &c);
		forgot = c.forgot;
		forgot_busy = c.forgot_busy;
	}
	if (rc)
		goto out;
	if (o.forget) {
		if (g_opts.json) {
			struct json *j = json_stdout();

			json_obj_open(j, NULL);
			json_u64(j, "forgot", forgot);
			json_u64(j, "forgot_busy", forgot_busy);
			json_obj_close(j);
			json_end(j);
		} else {
			printf("forgot %u remembered polic%s and %u busy path%s%s%s\n", forgot,
			       forgot == 1 ? "er" : "ers", forgot_busy, forgot_busy == 1 ? "" : "s",
			       d.all ? "" : " of ", d.all ? "" : o.forget);
		}
		goto out;
	}
	/* the namespaces' names, by cookie (the map's key holds the cookie) */
	self_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	nns = self_fd < 0 ? 0 : netns_list(ns, MAX_NETNS, NULL);
	if (nns < 0)
		nns = 0;
	if (self_fd >= 0) {
		int err = netns_cookies(ns, nns, self_fd, cookies);

		if (err) {
			errmsg("can't return to cubicctl's network namespace: %s", strerror(-err));
			rc = EXIT_FAIL;
			goto out;
		}
	}
	now = now_ns();
	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_arr_open(j, "policers");
		for (size_t i = 0; i < rows.n; i++)
			print_json(j, &rows.v[i], names,
				   netns_name(rows.v[i].k.net_cookie, ns, cookies, nns), now);
		json_arr_close(j);
		json_obj_close(j);
		json_end(j);
	} else {
		for (size_t i = 0; i < rows.n; i++)
			print_text(&rows.v[i], names,
				   netns_name(rows.v[i].k.net_cookie, ns, cookies, nns), now);
		if (!rows.n)
			note(o.name ? "%s remembers no policer and no busy path now"
				    : "%sno instance remembers a policer or a busy path now",
			     o.name ? o.name : "");
	}
out:
	for (int i = 0; i < nns; i++)
		close(ns[i].fd);
	if (self_fd >= 0)
		close(self_fd);
	unlock_pin_root(lock);
	free(rows.v);
	return rc;
}

const struct command cmd_policers_def = {
	.name = "policers",
	.run = cmd_policers,
	.opts = policers_opts,
	.max_args = 0,
	.summary = "the policers and busy paths PREDICT remembers; --forget them",
	.describe = describe,
};
