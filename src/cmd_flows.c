// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl flows: the TCP sockets using an instance now, one line each as
 * ss -ti shows them, with the rule's state and the exit and verdict once
 * known. bpf/flows.bpf.c's iter/tcp program (its own small object) writes one
 * struct cubic_flow per socket of the instance; it reads the instance's own
 * socket-storage maps, found through its programs (instance_prog_map_fd())
 * and handed over before load with bpf_map__reuse_fd().
 *
 * An iter/tcp iterator walks the network namespace of the thread that
 * creates its file (bpf_iter_create(): the kernel takes current's netns when
 * it prepares the seq_file, not when the link is made), so cubicctl, one
 * thread, makes one link and creates a file in its own namespace and then in
 * each one named under /run/netns (ip netns), entered with setns(); --netns
 * NAME reads that one only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"
#include "flows_abi.h"
#include "netns.h"
#include "flows.skel.h"

#define MAX_INSTANCES 64
/* tcp_sock.snd_ssthresh before the first reduction (TCP_INFINITE_SSTHRESH) */
#define INFINITE_SSTHRESH 0x7fffffffU

struct flows_opts {
	const char *name;
	const char *netns;
};

static const struct opt flows_opts[] = {
	OPT_STR("name", "NAME", struct flows_opts, name,
		"only this instance's sockets (default: every instance cubicctl loaded)"),
	OPT_STR("netns", "NETNS", struct flows_opts, netns,
		"only network namespace NETNS (" NETNS_DIR "/NETNS; default: this one and every "
		"one there)"),
	OPT_END
};

static void describe(FILE *f)
{
	fprintf(f,
		"Lists the TCP sockets whose congestion control is an instance, one line each\n"
		"as 'ss -ti' shows them: addresses and ports, cwnd, ssthresh, whether in slow\n"
		"start, the rule's state (HyStart's round and delay_min; PREDICT's estimate and\n"
		"target), and the exit and its verdict once known. Reads the sockets of this\n"
		"network namespace and of every one in " NETNS_DIR " (ip netns). Under --json one\n"
		"document: {\"flows\": [...]}.\n");
}

struct flow_row {
	struct cubic_flow f;
	int instance; /* index into the names */
	int netns;    /* index into the namespaces */
	__u32 premature_pm;
};

struct rows {
	struct flow_row *v;
	size_t n, cap;
};

static int add_row(struct rows *r, const struct cubic_flow *f, int inst, int ns, __u32 pm)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct flow_row *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct flow_row){ .f = *f, .instance = inst, .netns = ns,
					  .premature_pm = pm };
	return 0;
}

/* Reads one iterator's records into rows; -errno on failure. */
static int read_iter(int link_fd, struct rows *rows, int inst, int ns, __u32 pm)
{
	struct cubic_flow f;
	size_t got = 0;
	int fd = bpf_iter_create(link_fd), rc = 0;
	ssize_t len;

	if (fd < 0)
		return -errno;
	for (;;) {
		len = read(fd, (char *)&f + got, sizeof(f) - got);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0) {
			rc = -errno;
			break;
		}
		if (len == 0)
			break;
		got += (size_t)len;
		if (got == sizeof(f)) {
			got = 0;
			rc = add_row(rows, &f, inst, ns, pm);
			if (rc)
				break;
		}
	}
	close(fd);
	return rc ?: got ? -EIO : 0;
}

/*
 * One instance's sockets in every namespace: the iterator loaded with its name
 * and storage maps, then created once per namespace.
 */
static int read_instance(struct instance *in, int inst, struct netns *ns, int nns, int self_fd,
			 struct rows *rows)
{
	struct cubic_tunables t = {};
	const char *maps[] = { CUBIC_MAP_PREDICT_STORE, CUBIC_MAP_VERDICT_STORE };
	struct flows_bpf *skel;
	struct bpf_link *link = NULL;
	int rc = 0, fd;

	instance_read_tunables(in, &t);
	skel = flows_bpf__open();
	if (!skel) {
		errmsg("can't open the flows iterator: %s", strerror(errno));
		return EXIT_FAIL;
	}
	memcpy((char *)skel->rodata->ca_name, in->name, CUBIC_NAME_MAX);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj, maps[i]);

		/* an instance without the map: the iterator's own, empty, says "no storage" */
		fd = instance_prog_map_fd(in, maps[i]);
		if (fd < 0)
			continue;
		rc = m ? bpf_map__reuse_fd(m, fd) : -ENOENT;
		close(fd);
		if (rc) {
			errmsg("%s: can't use its %s map: %s", in->name, maps[i], strerror(-rc));
			rc = EXIT_FAIL;
			goto out;
		}
	}
	rc = flows_bpf__load(skel);
	if (rc) {
		errmsg("can't load the flows iterator (iter/tcp, Linux 5.9+): %s%s", strerror(-rc),
		       g_opts.verbose ? "" : " (-v shows the verifier's log)");
		rc = EXIT_FAIL;
		goto out;
	}
	link = bpf_program__attach_iter(skel->progs.cubic_flows, NULL);
	if (!link) {
		errmsg("can't attach the flows iterator: %s", strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	for (int i = 0; i < nns; i++) {
		if (ns[i].name[0] && setns(ns[i].fd, CLONE_NEWNET)) {
			errmsg("can't enter network namespace %s: %s", ns[i].name, strerror(errno));
			rc = EXIT_FAIL;
			break;
		}
		rc = read_iter(bpf_link__fd(link), rows, inst, i, cubic_tun_premature_ratio(&t));
		if (ns[i].name[0] && setns(self_fd, CLONE_NEWNET)) {
			errmsg("can't return to cubicctl's network namespace: %s", strerror(errno));
			rc = EXIT_FAIL;
			break;
		}
		if (rc) {
			errmsg("can't read the sockets of %s%s: %s",
			       ns[i].name[0] ? "network namespace " : "this network namespace",
			       ns[i].name, strerror(-rc));
			rc = EXIT_FAIL;
			break;
		}
	}
out:
	bpf_link__destroy(link);
	flows_bpf__destroy(skel);
	return rc;
}

struct read_ctx {
	struct netns *ns;
	int nns, self_fd;
	struct rows *rows;
};

static int read_one(struct instance *in, int idx, void *ctx)
{
	struct read_ctx *c = ctx;

	return read_instance(in, idx, c->ns, c->nns, c->self_fd, c->rows);
}

static const char *tcp_state_str(__u8 st)
{
	static const char *const names[] = {
		"UNKNOWN", "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2",
		"TIME-WAIT", "UNCONN", "CLOSE-WAIT", "LAST-ACK", "LISTEN", "CLOSING",
	};

	return st < sizeof(names) / sizeof(names[0]) ? names[st] : "UNKNOWN";
}

static void addr_port(const struct cubic_flow *f, const __u8 *a, __u16 port, bool json,
		      char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	bool v6 = f->family == AF_INET6;

	inet_ntop(v6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip));
	if (json)
		snprintf(buf, len, "%s", ip);
	else
		snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", ip, port);
}

static bool in_slow_start(const struct cubic_flow *f)
{
	return f->cwnd < f->ssthresh; /* tcp_in_slow_start() */
}

static const char *predict_phase_str(__u8 ph)
{
	return ph == PREDICT_PH_MEASURE ? "measure" : ph == PREDICT_PH_FILL ? "fill" : "done";
}

/* The exit as the verdict's storage keeps it; else HyStart's own bits (0: none yet). */
static __u32 exit_flags(const struct cubic_flow *f)
{
	if ((f->flags & CUBIC_FLOW_VERDICT) && f->verdict.exit_ts_ns)
		return f->verdict.exit_flags;
	return f->ca.found;
}

/* The verdict's word once its measurement ended; NULL while none. */
static const char *verdict_of(const struct flow_row *r, __u32 *ratio_pm)
{
	const struct verdict_state *v = &r->f.verdict.v;
	struct verdict_params p;

	*ratio_pm = 0;
	if (!(r->f.flags & CUBIC_FLOW_VERDICT) || !r->f.verdict.exit_ts_ns)
		return NULL;
	if (v->phase == VERDICT_MEASURING)
		return "measuring";
	if (v->end == VERDICT_END_NONE)
		return NULL;
	verdict_params_default(&p);
	p.premature_pm = r->premature_pm;
	*ratio_pm = verdict_ratio_pm(v);
	return verdict_word_str(verdict_word(v, &p));
}

static void print_json(struct json *j, const struct flow_row *r, char (*names)[CUBIC_NAME_MAX],
		       const struct netns *ns)
{
	const struct cubic_flow *f = &r->f;
	const char *word;
	char buf[64];
	__u32 ratio, ex = exit_flags(f);

	json_obj_open(j, NULL);
	json_str(j, "instance", names[r->instance]);
	json_str_or_null(j, "netns", ns[r->netns].name[0] ? ns[r->netns].name : NULL);
	json_str(j, "state", tcp_state_str(f->state));
	json_str(j, "family", f->family == AF_INET6 ? "ipv6" : "ipv4");
	addr_port(f, f->saddr, f->sport, true, buf, sizeof(buf));
	json_str(j, "saddr", buf);
	json_u64(j, "sport", f->sport);
	addr_port(f, f->daddr, f->dport, true, buf, sizeof(buf));
	json_str(j, "daddr", buf);
	json_u64(j, "dport", f->dport);
	json_u64(j, "uid", f->uid);
	json_u64(j, "cwnd", f->cwnd);
	if (f->ssthresh >= INFINITE_SSTHRESH)
		json_null(j, "ssthresh");
	else
		json_u64(j, "ssthresh", f->ssthresh);
	json_bool(j, "slow_start", in_slow_start(f));
	json_u64(j, "rtt_us", f->srtt_us);
	json_u64(j, "rttvar_us", f->rttvar_us);
	json_u64(j, "min_rtt_us", f->min_rtt_us == ~0U ? 0 : f->min_rtt_us);
	json_u64(j, "mss", f->mss);
	json_u64(j, "unacked", f->packets_out);
	json_u64(j, "retrans", f->retrans_out);
	json_u64(j, "total_retrans", f->total_retrans);
	json_u64(j, "lost", f->lost_out);
	json_u64(j, "bytes_acked", f->bytes_acked);
	json_u64(j, "delivered", f->delivered);
	json_obj_open(j, "hystart");
	json_u64(j, "round", f->ca.rounds);
	if (f->ca.delay_min && f->ca.delay_min != ~0U)
		json_u64(j, "delay_min_us", f->ca.delay_min);
	else
		json_null(j, "delay_min_us");
	json_u64(j, "curr_rtt_us", f->ca.curr_rtt);
	json_u64(j, "sample_cnt", f->ca.sample_cnt);
	json_obj_close(j);
	if (f->flags & CUBIC_FLOW_PREDICT) {
		json_obj_open(j, "predict");
		json_str(j, "phase", predict_phase_str(f->predict.phase));
		json_u64(j, "rounds", f->predict.rounds);
		/* a busy path remembered, or a queue that rose since the
		 * handshake, set the estimate aside: HyStart decides */
		json_bool(j, "busy", f->busy == PREDICT_ASIDE_BUSY);
		json_bool(j, "rose", f->busy == PREDICT_ASIDE_ROSE);
		if (f->predict.v.target) {
			json_u64(j, "rate", f->predict.v.rate);
			json_u64(j, "target", f->predict.v.target);
			json_u64(j, "round", f->predict.v.round);
			json_u64(j, "delay_min_us", f->predict.v.delay_min);
		} else {
			json_null(j, "rate");
			json_null(j, "target");
		}
		/*
		 * the policer answer: null until it settled the flow (or waits for
		 * its recovery), or a policer remembered without a rate held its
		 * jump back
		 */
		if (f->policer_ssthresh || f->policer_memory || f->policer_pending ||
		    f->policer_no_jump) {
			json_obj_open(j, "policer");
			if (f->policer_ssthresh)
				json_u64(j, "ssthresh", f->policer_ssthresh);
			else
				json_null(j, "ssthresh");
			json_u64(j, "memory", f->policer_memory);
			json_bool(j, "pending", f->policer_pending);
			json_bool(j, "no_jump", f->policer_no_jump);
			json_obj_close(j);
		} else {
			json_null(j, "policer");
		}
		json_obj_close(j);
	} else {
		json_null(j, "predict");
	}
	if (ex) {
		json_obj_open(j, "exit");
		json_str(j, "reason", reason_str(ex, buf, sizeof(buf)));
		if ((f->flags & CUBIC_FLOW_VERDICT) && f->verdict.exit_ts_ns) {
			json_u64(j, "flow_id", f->verdict.flow_id);
			json_u64(j, "cwnd", f->verdict.v.exit_cwnd);
		}
		json_obj_close(j);
	} else {
		json_null(j, "exit");
	}
	word = verdict_of(r, &ratio);
	if (word) {
		const struct verdict_state *v = &f->verdict.v;

		json_obj_open(j, "verdict");
		json_str(j, "verdict", word);
		if (ratio)
			json_double(j, "exit_ratio", ratio / 1000.0, 3);
		else
			json_null(j, "exit_ratio");
		json_u64(j, "bdp_est", verdict_bdp(v));
		json_u64(j, "min_rtt_us", v->min_rtt_us);
		if (v->phase != VERDICT_MEASURING)
			json_str(j, "end", verdict_end_str(v->end));
		if (v->cong_cwnd)
			json_u64(j, "cong_cwnd", v->cong_cwnd);
		else
			json_null(j, "cong_cwnd");
		json_obj_close(j);
	} else {
		json_null(j, "verdict");
	}
	json_obj_close(j);
}

static void print_text(const struct flow_row *r, char (*names)[CUBIC_NAME_MAX],
		       const struct netns *ns)
{
	const struct cubic_flow *f = &r->f;
	char src[64], dst[64], sst[16] = "-", buf[64], dmin[24] = "-";
	const char *word;
	__u32 ratio, ex = exit_flags(f);

	addr_port(f, f->saddr, f->sport, false, src, sizeof(src));
	addr_port(f, f->daddr, f->dport, false, dst, sizeof(dst));
	if (f->ssthresh < INFINITE_SSTHRESH)
		snprintf(sst, sizeof(sst), "%u", f->ssthresh);
	if (f->ca.delay_min && f->ca.delay_min != ~0U)
		snprintf(dmin, sizeof(dmin), "%.3fms", f->ca.delay_min / 1000.0);
	printf("%s %s %s %s %s cwnd:%u ssthresh:%s %s rtt:%.3f/%.3f mss:%u unacked:%u "
	       "retrans:%u/%u hystart:round:%u,delay_min:%s",
	       names[r->instance], ns[r->netns].name[0] ? ns[r->netns].name : "-",
	       tcp_state_str(f->state), src, dst, f->cwnd, sst,
	       in_slow_start(f) ? "slow_start" : "cong_avoid", f->srtt_us / 1000.0,
	       f->rttvar_us / 1000.0, f->mss, f->packets_out, f->retrans_out, f->total_retrans,
	       f->ca.rounds, dmin);
	if (f->flags & CUBIC_FLOW_PREDICT) {
		if (f->predict.v.target)
			printf(" predict:%s,%.1fMbit/s,target:%u", predict_phase_str(f->predict.phase),
			       (double)f->predict.v.rate * 8 / 1e6, f->predict.v.target);
		else
			printf(" predict:%s,round:%u", predict_phase_str(f->predict.phase),
			       f->predict.rounds);
		if (f->busy == PREDICT_ASIDE_BUSY)
			printf(",busy(hystart)");
		else if (f->busy == PREDICT_ASIDE_ROSE)
			printf(",rose(hystart)");
		if (f->policer_memory)
			printf(",policer_memory:%.2fMbit/s", (double)f->policer_memory * 8 / 1e6);
		else if (f->policer_no_jump)
			printf(",policer_memory:unmeasured(no-jump)");
		if (f->policer_ssthresh)
			printf(",policer:%u", f->policer_ssthresh);
		else if (f->policer_pending)
			printf(",policer:pending");
	}
	if (ex) {
		printf(" exit:%s", reason_str(ex, buf, sizeof(buf)));
		if ((f->flags & CUBIC_FLOW_VERDICT) && f->verdict.exit_ts_ns)
			printf(",cwnd:%u", f->verdict.v.exit_cwnd);
	}
	word = verdict_of(r, &ratio);
	if (word && ratio)
		printf(" verdict:%s,ratio:%.2f", word, ratio / 1000.0);
	else if (word)
		printf(" verdict:%s", word);
	printf("\n");
}

int cmd_flows(int argc, char **argv)
{
	static char names[MAX_INSTANCES][CUBIC_NAME_MAX];
	static struct netns ns[MAX_NETNS];
	struct flows_opts o = { NULL, NULL };
	struct rows rows = { NULL, 0, 0 };
	int nns, rc, nargs;

	rc = opts_parse(&cmd_flows_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	if (o.netns && (!o.netns[0] || strchr(o.netns, '/') || !strcmp(o.netns, ".") ||
			!strcmp(o.netns, ".."))) {
		errmsg("--netns: '%s' is not a namespace name (see 'ip netns list')", o.netns);
		return EXIT_USAGE;
	}
	rc = require_env(o.name);
	if (rc)
		return rc;
	nns = netns_list(ns, MAX_NETNS, o.netns);
	if (nns < 0) {
		if (o.netns && nns == -ENOENT) {
			errmsg("--netns: no network namespace named '%s' (see 'ip netns list')",
			       o.netns);
			rc = EXIT_USAGE;
		} else if (o.netns && nns == -EINVAL) {
			errmsg("--netns: " NETNS_DIR "/%s is not a network namespace now", o.netns);
			rc = EXIT_USAGE;
		} else {
			errmsg("can't open a network namespace: %s", strerror(-nns));
			rc = EXIT_FAIL;
		}
		goto out;
	}
	{
		struct read_ctx c = { ns, nns, -1, &rows };

		c.self_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (c.self_fd < 0) {
			errmsg("can't open /proc/self/ns/net: %s", strerror(errno));
			rc = EXIT_FAIL;
			goto out;
		}
		rc = instance_each_loaded(o.name, names, MAX_INSTANCES, read_one, &c);
		close(c.self_fd);
	}
	if (rc)
		goto out;
	if (g_opts.json) {
		struct json *j = json_stdout();

		json_obj_open(j, NULL);
		json_arr_open(j, "flows");
		for (size_t i = 0; i < rows.n; i++)
			print_json(j, &rows.v[i], names, ns);
		json_arr_close(j);
		json_obj_close(j);
		json_end(j);
	} else {
		for (size_t i = 0; i < rows.n; i++)
			print_text(&rows.v[i], names, ns);
		if (!rows.n)
			note("no socket uses %s now", o.name ? o.name : "an instance");
	}
out:
	for (int i = 0; i < nns; i++)
		close(ns[i].fd);
	free(rows.v);
	return rc;
}

const struct command cmd_flows_def = {
	.name = "flows",
	.run = cmd_flows,
	.opts = flows_opts,
	.max_args = 0,
	.summary = "the TCP sockets using an instance now, as ss -ti shows them",
	.describe = describe,
};
