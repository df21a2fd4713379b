// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl trace [--name NAME] [--count N] [--duration SECONDS] [--port P]
 *                [--addr A]
 *
 * Streams the instance's slow-start exit records from its ring buffer, one
 * line per record, flushed as it arrives. The ring has one consumer, so a
 * second tracer of the same instance is refused (flock on its pin folder).
 */
#include <arpa/inet.h>
#include <sys/socket.h> /* AF_INET*: the kernel's values too */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cubicctl.h"

static volatile sig_atomic_t stop_signal;

struct trace {
	const char *name;
	long long max_count; /* 0: no limit */
	int port;	     /* -1: any */
	int addr_family;     /* 0: any */
	unsigned char addr[16];
	long long shown, filtered;
	long long foreign; /* records of another build's layout: skipped */
	long long mono_to_real_ns;
	struct json *j;
	bool header_done;
	bool write_failed; /* stdout refused a record: stop */
};

struct trace_opts {
	const char *name;
	long long count;
	double duration;
	int port;
	int family;
	unsigned char addr[16];
};

static int parse_count(const char *s, void *field, char *err, size_t errlen)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || s[0] == '+') {
		snprintf(err, errlen, "'%s' is not a positive whole number", s);
		return -1;
	}
	*(long long *)field = v;
	return 0;
}

static int parse_duration(const char *s, void *field, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || !isfinite(v) || s[0] == '+') {
		snprintf(err, errlen, "'%s' is not a positive number of seconds", s);
		return -1;
	}
	*(double *)field = v;
	return 0;
}

static int parse_port(const char *s, void *field, char *err, size_t errlen)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > 65535 || s[0] == '+' || s[0] == '-') {
		snprintf(err, errlen, "'%s' is not a port number (0..65535)", s);
		return -1;
	}
	*(int *)field = (int)v;
	return 0;
}

/* field: the family, followed by the address (struct trace_opts) */
static int parse_addr(const char *s, void *field, char *err, size_t errlen)
{
	struct trace_opts *o =
		(struct trace_opts *)((char *)field - offsetof(struct trace_opts, family));

	if (inet_pton(AF_INET, s, o->addr) == 1) {
		o->family = AF_INET;
	} else if (inet_pton(AF_INET6, s, o->addr) == 1) {
		o->family = AF_INET6;
	} else {
		snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", s);
		return -1;
	}
	return 0;
}

static const struct opt trace_opts[] = {
	OPT_NAME(struct trace_opts, name),
	OPT_PARSED("count", "N", struct trace_opts, count, parse_count, "stop after N records"),
	OPT_PARSED("duration", "SECONDS", struct trace_opts, duration, parse_duration,
		   "stop after SECONDS"),
	OPT_PARSED("port", "P", struct trace_opts, port, parse_port,
		   "only flows whose local or remote port is P"),
	OPT_PARSED("addr", "A", struct trace_opts, family, parse_addr,
		   "only flows whose local or remote address is A (IPv4 or IPv6)"),
	OPT_END
};

static void describe(FILE *f)
{
	char reasons[256];

	fprintf(f,
		"Shows each slow-start exit of the instance's flows as it happens: why slow start\n"
		"ended (%s), cwnd,\n"
		"ssthresh, delay_min, the round's minimum RTT and the threshold crossed; then,\n"
		"once measured, its verdict: the exit cwnd against the path's BDP (premature,\n"
		"ok, overshoot or unknown), joined to the exit by the flow id; and where\n"
		"PREDICT's policer answer took a loss, what the recovery after it measured\n"
		"and remembered (docs/RULES.md). With --json one object per line (\"record\":\n"
		"\"exit\", \"verdict\" or \"policer\"). Ends on SIGINT or SIGTERM, after N records or\n"
		"SECONDS, or when the instance is unloaded (exit 0); when its output can't be\n"
		"written (exit %d). An instance loaded with another ABI version is refused\n"
		"(exit %d): reload it.\n",
		reasons_help(reasons, sizeof(reasons)), EXIT_FAIL, EXIT_FAIL);
}

const struct command cmd_trace_def = {
	.name = "trace",
	.run = cmd_trace,
	.opts = trace_opts,
	.max_args = 0,
	.summary = "live slow-start exits",
	.describe = describe,
};

static void on_signal(int sig)
{
	(void)sig;
	stop_signal = 1;
}

static void addr_str(const struct cubic_event *e, const __u8 *a, __u16 port, char *buf,
		     size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (e->family == AF_INET6) {
		inet_ntop(AF_INET6, a, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, port);
	} else {
		inet_ntop(AF_INET, a, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, port);
	}
}

static double ms(__u32 us)
{
	return us / 1000.0;
}

/* "12.34" ms, or "-" for no sample (~0) */
static const char *ms_str(__u32 us, char *buf, size_t len)
{
	if (us == ~0U)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", ms(us));
	return buf;
}

/* The threshold crossed and the value that crossed it, us (0, 0 for a loss). */
static void decided_by(const struct cubic_event *e, __u32 *thresh, __u32 *value)
{
	*thresh = *value = 0;
	if (e->flags & CUBIC_EV_ACK_TRAIN) {
		*thresh = e->train_thresh_us;
		*value = e->train_len_us;
	} else if (e->flags & (CUBIC_EV_DELAY | CUBIC_EV_CSS_ENTER)) {
		*thresh = e->delay_thresh_us; /* the round's min RTT crossed it */
		*value = e->round_min_rtt_us;
	} else if (e->flags & CUBIC_EV_CSS_RESUME) {
		*thresh = e->css_baseline_us; /* the round's min RTT fell below it */
		*value = e->round_min_rtt_us;
	}
}

/*
 * What decided a SEARCH exit, for the text line: the windows compared, their
 * normalised difference against the threshold, and the rollback.
 */
static void search_str(const struct cubic_event *e, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!(e->flags & CUBIC_EV_SEARCH))
		return;
	snprintf(buf, len,
		 " search: delivered %u B of %u B sent an RTT earlier (%u.%u%% >= %u.%u%%), "
		 "cwnd %u -> %u in %.1f ms",
		 e->search_delivered, e->search_sent, e->search_norm_diff / 10,
		 e->search_norm_diff % 10, e->search_thresh / 10, e->search_thresh % 10,
		 e->search_cwnd_detect, e->cwnd, ms(e->search_drain_us));
}

/*
 * PREDICT's estimate, for the text line of any record of a flow that has one:
 * the rate, the train it came from, the BDP and the target, and the fill.
 */
static void predict_str(const struct cubic_event *e, char *buf, size_t len)
{
	size_t off;

	buf[0] = '\0';
	if (!(e->flags & CUBIC_EV_PREDICT_RAN))
		return;
	if (!e->predict_target && (e->flags & (CUBIC_EV_PREDICT_BUSY | CUBIC_EV_PREDICT_ROSE))) {
		const char *why = "an earlier flow found this destination busy";
		char rose[128];

		if (!(e->flags & CUBIC_EV_PREDICT_BUSY)) {
			snprintf(rose, sizeof(rose),
				 "delay_min rose %.2f ms above the handshake's RTT of %.2f ms, "
				 "others' queue grew",
				 ms(e->predict_delay_min_us - e->predict_syn_rtt_us),
				 ms(e->predict_syn_rtt_us));
			why = rose;
		}
		snprintf(buf, len,
			 " predict: %.1f Mbit/s from round %u's train of %u ACKs x delay_min %.2f ms, "
			 "set aside: %s (HyStart decided)",
			 (double)e->predict_rate * 8 / 1e6, e->predict_round, e->predict_train_acks,
			 ms(e->predict_delay_min_us), why);
		return;
	}
	if (!e->predict_target) {
		if (e->predict_failed_rounds)
			snprintf(buf, len, " predict: no estimate in %u rounds (HyStart decided)",
				 e->predict_failed_rounds);
		return;
	}
	off = (size_t)snprintf(buf, len,
		 " predict: %.1f Mbit/s%s from round %u's train of %u ACKs%s over %.2f ms x delay_min "
		 "%.2f ms -> target %u (set at cwnd %u, %.1f ms ago)%s",
		 (double)e->predict_rate * 8 / 1e6,
		 e->flags & CUBIC_EV_PREDICT_DISAGREED ? " (the lower of its fit and mean, which disagreed)"
						       : "",
		 e->predict_round, e->predict_train_acks,
		 e->predict_train_gaps ? " (bunch corners, across long ACK gaps)" : "",
		 ms(e->predict_train_us), ms(e->predict_delay_min_us), e->predict_target,
		 e->predict_cwnd_set, ms(e->predict_fill_us),
		 e->flags & CUBIC_EV_PREDICT_CAPPED && e->predict_policer_memory
			 ? ", paced by PREDICT, capped at the remembered policer's rate"
		 : e->flags & CUBIC_EV_PREDICT_CAPPED ? ", paced by PREDICT, capped at the estimate"
		 : e->flags & CUBIC_EV_PREDICT_PACED ? ", paced by PREDICT"
						    : "");
	/* the policer remembered: the target is the policed rate's BDP, not the estimate's */
	if (off < len && e->predict_policer_memory)
		off += (size_t)snprintf(buf + off, len - off,
					", a policer met before: target from its %.1f Mbit/s",
					(double)e->predict_policer_memory * 8 / 1e6);
	/* the jump (predict_jump) and its retreat */
	if (off < len && e->predict_jump_from)
		off += (size_t)snprintf(buf + off, len - off, ", jump %u -> %u",
					e->predict_jump_from, e->predict_jump);
	else if (off < len && e->predict_jump)
		off += (size_t)snprintf(buf + off, len - off, ", jump to %u not made (not paced)",
					e->predict_jump);
	else if (off < len && e->flags & CUBIC_EV_PREDICT_NO_JUMP)
		off += (size_t)snprintf(buf + off, len - off,
					", no jump: a policer met before, after a jump");
	if (off < len && e->predict_jump_rtt_us)
		off += (size_t)snprintf(buf + off, len - off,
					", a queue in the jump: 8 RTTs in a row above %.2f ms",
					ms(e->delay_thresh_us));
	/* the jump's share check: the rate its packets got, and whether it was a share */
	if (off < len && e->predict_share_rate)
		off += (size_t)snprintf(buf + off, len - off,
					", the jump got %.1f Mbit/s, sent at %.1f Mbit/s%s",
					(double)e->predict_share_rate * 8 / 1e6,
					(double)e->predict_share_pace * 8 / 1e6,
					e->predict_share ? ": a shared link" : "");
	if (off < len && e->predict_share)
		off += (size_t)snprintf(buf + off, len - off, ", target %u", e->predict_share);
	/* the retreat: at a loss in the jump, or at the queue above before it was acknowledged */
	if (off < len && e->predict_retreat)
		off += (size_t)snprintf(buf + off, len - off, "%s: retreat to %u (pipe %u)",
					e->predict_jump_rtt_us ? ", not yet acknowledged"
							       : ", loss in the jump",
					e->predict_retreat, e->predict_retreat_pipe);
	/* predict_policer: the loss's delivery and RTT, and whether they looked policed */
	if (off < len && e->predict_policer_rate)
		off += (size_t)snprintf(buf + off, len - off, ", loss: %.1f Mbit/s delivered at RTT %.2f ms",
					(double)e->predict_policer_rate * 8 / 1e6,
					ms(e->predict_policer_rtt_us));
	if (off < len && e->predict_policer)
		snprintf(buf + off, len - off, ": a policer, ssthresh %u", e->predict_policer);
}

/* Whether the filters keep a flow (either record's addresses and ports). */
static bool keep(const struct trace *tr, __u16 family, const __u8 *saddr, __u16 sport,
		 const __u8 *daddr, __u16 dport)
{
	size_t alen;

	if (tr->port >= 0 && sport != tr->port && dport != tr->port)
		return false;
	if (tr->addr_family) {
		if (family != tr->addr_family)
			return false;
		alen = tr->addr_family == AF_INET6 ? 16 : 4;
		if (memcmp(saddr, tr->addr, alen) && memcmp(daddr, tr->addr, alen))
			return false;
	}
	return true;
}

/*
 * How trace's JSON shows each row of CUBIC_EVENT_FIELDS (its "show" column),
 * in the table's order. The context is print_json()'s.
 */
#define JSON_NUM(f, src) json_u64(j, #f, e->f);
#define JSON_NUM_OR_NULL(f, src)                                                                   \
	if (e->f == ~0U)                                                                           \
		json_null(j, #f);                                                                  \
	else                                                                                       \
		json_u64(j, #f, e->f);
/* a SEARCH exit's own numbers: null in every other record */
#define JSON_SEARCH(f, src)                                                                        \
	if (e->flags & CUBIC_EV_SEARCH)                                                            \
		json_u64(j, #f, e->f);                                                             \
	else                                                                                       \
		json_null(j, #f);
/*
 * PREDICT's estimate, or the train it did not accept, or a policer it answered
 * or remembered before it had either (a loss in the first round), or an
 * estimate a busy path remembered or a queue that rose set aside
 * (predict_busy, predict_rose): null unless the flow ran PREDICT and one of
 * those is there
 */
#define JSON_PREDICT(f, src)                                                                       \
	if ((e->flags & CUBIC_EV_PREDICT_RAN) &&                                                   \
	    (e->predict_target || e->predict_failed_rounds || e->predict_policer ||                \
	     e->predict_policer_memory ||                                                          \
	     (e->flags & (CUBIC_EV_PREDICT_BUSY | CUBIC_EV_PREDICT_ROSE))))                        \
		json_u64(j, #f, e->f);                                                             \
	else                                                                                       \
		json_null(j, #f);
#define JSON_TIME(f, src)                                                                          \
	json_double(j, "time", (double)((long long)e->f + tr->mono_to_real_ns) / 1e9, 6);
#define JSON_STR(f, src)    json_str(j, #f, e->f);
#define JSON_BUILD(f, src)  json_str(j, #f, build_id_str(e->f, buf, sizeof(buf)));
#define JSON_FAMILY(f, src) json_str(j, #f, e->f == AF_INET6 ? "ipv6" : "ipv4");
#define JSON_IP(f, src)                                                                            \
	inet_ntop(e->family == AF_INET6 ? AF_INET6 : AF_INET, e->f, ip, sizeof(ip));               \
	json_str(j, #f, ip);
#define JSON_REASON(f, src) json_str(j, #f, reason_str(e->flags, buf, sizeof(buf)));
#define JSON_REASON_BOOLS(f, src)                                                                  \
	for (int i = 0; i < EXIT_REASON_COUNT; i++)                                                \
		json_bool(j, exit_reasons[i].name, e->flags & exit_reasons[i].bit);
#define JSON_THRESHOLD(f, src)	 json_u64(j, #f, thresh);
#define JSON_VALUE(f, src)	 json_u64(j, #f, value);
#define JSON_FLAG(f, src)	 json_bool(j, #f, e->flags & (src));
#define JSON_HIDDEN(f, src)
#define JSON_FIELD(f, show, src) JSON_##show(f, src)

static void print_json(struct trace *tr, const struct cubic_event *e)
{
	char buf[64], ip[INET6_ADDRSTRLEN];
	__u32 thresh, value;
	struct json *j = tr->j;

	decided_by(e, &thresh, &value);
	json_obj_open(j, NULL);
	json_str(j, "record", "exit");
	CUBIC_EVENT_FIELDS(JSON_FIELD, JSON_FIELD, JSON_FIELD, JSON_FIELD, JSON_FIELD, JSON_FIELD,
			   JSON_FIELD)
	json_obj_close(j);
	json_end(j);
}

static void print_text(struct trace *tr, const struct cubic_event *e)
{
	char reason[64], src[64], dst[64], flow[140], when[32], ctx[144], dmin[16], rrtt[16];
	char sch[160], prd[320];
	long long real = (long long)e->ts_ns + tr->mono_to_real_ns;
	time_t sec = (time_t)(real / 1000000000LL);
	__u32 thresh, value;
	struct tm tm;
	size_t off;

	if (!tr->header_done) {
		printf("%-12s %-44s %-15s %7s %8s %8s %8s %9s %8s  %s\n", "TIME", "FLOW", "REASON",
		       "CWND", "SSTHRESH", "DMIN_ms", "RRTT_ms", "THRESH_ms", "VALUE_ms", "CONTEXT");
		tr->header_done = true;
	}
	localtime_r(&sec, &tm);
	snprintf(when, sizeof(when), "%02d:%02d:%02d.%03lld", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (real % 1000000000LL) / 1000000);
	addr_str(e, e->saddr, e->sport, src, sizeof(src));
	addr_str(e, e->daddr, e->dport, dst, sizeof(dst));
	snprintf(flow, sizeof(flow), "%s > %s", src, dst);
	decided_by(e, &thresh, &value);
	off = (size_t)snprintf(ctx, sizeof(ctx), " flow %llu build %08x%s%s%s%s",
			       (unsigned long long)e->flow_id, e->build_id,
			       e->flags & CUBIC_EV_CWND_LIMITED ? " cwnd-limited" : "",
			       e->flags & CUBIC_EV_RWND_LIMITED ? " rwnd-limited" : "",
			       e->flags & CUBIC_EV_PACED ? " paced" : "",
			       e->flags & CUBIC_EV_INITIAL ? "" : " after-loss");
	/* "search-no-storage": a rule's flow without socket storage (the rules' storage) */
	for (int i = 0; i < RULE_COUNT && off < sizeof(ctx); i++)
		if (rules[i].storage_flag && (e->flags & rules[i].storage_flag))
			off += (size_t)snprintf(ctx + off, sizeof(ctx) - off, " %s-no-storage",
						rules[i].name);
	search_str(e, sch, sizeof(sch));
	predict_str(e, prd, sizeof(prd));
	printf("%-12s %-44s %-15s %7u %8u %8s %8s ", when, flow,
	       reason_str(e->flags, reason, sizeof(reason)), e->cwnd, e->ssthresh,
	       ms_str(e->delay_min_us, dmin, sizeof(dmin)),
	       ms_str(e->round_min_rtt_us, rrtt, sizeof(rrtt)));
	if (thresh)
		printf("%9.2f %8.2f %s%s%s\n", ms(thresh), ms(value), ctx, sch, prd);
	else
		printf("%9s %8s %s%s%s\n", "-", "-", ctx, sch, prd);
	fflush(stdout);
}

/* A record's flow: family, addresses and ports (host order) */
static void json_flow(struct json *j, __u16 family, const __u8 *saddr, __u16 sport,
		      const __u8 *daddr, __u16 dport)
{
	char ip[INET6_ADDRSTRLEN];
	int af = family == AF_INET6 ? AF_INET6 : AF_INET;

	json_str(j, "family", af == AF_INET6 ? "ipv6" : "ipv4");
	inet_ntop(af, saddr, ip, sizeof(ip));
	json_str(j, "saddr", ip);
	json_u64(j, "sport", sport);
	inet_ntop(af, daddr, ip, sizeof(ip));
	json_str(j, "daddr", ip);
	json_u64(j, "dport", dport);
}

/* The verdict: one object, joined to its exit's by flow_id (and exit_time). */
static void print_verdict_json(struct trace *tr, const struct cubic_verdict *v)
{
	char buf[64];
	struct json *j = tr->j;

	json_obj_open(j, NULL);
	json_str(j, "record", "verdict");
	json_double(j, "time", (double)((long long)v->ts_ns + tr->mono_to_real_ns) / 1e9, 6);
	json_str(j, "instance", v->instance);
	json_u64(j, "flow_id", v->flow_id);
	json_double(j, "exit_time", (double)((long long)v->exit_ts_ns + tr->mono_to_real_ns) / 1e9,
		    6);
	json_flow(j, v->family, v->saddr, v->sport, v->daddr, v->dport);
	json_str(j, "verdict", verdict_word_str(v->word));
	json_str(j, "exit_reason", reason_str(v->exit_flags, buf, sizeof(buf)));
	json_u64(j, "exit_cwnd", v->exit_cwnd);
	if (v->ratio_pm)
		json_double(j, "exit_ratio", v->ratio_pm / 1000.0, 3);
	else
		json_null(j, "exit_ratio");
	/* bdp_est a lower bound, the ratio an upper one (an instance loaded by an
	 * older cubicctl leaves bound 0: no congestion event says it too) */
	json_bool(j, "bound", v->bound || v->end != VERDICT_END_CONGESTION);
	json_u64(j, "bdp_est", v->bdp_est);
	json_u64(j, "max_bw", v->max_bw);
	json_u64(j, "bw_delivered", v->bw_delivered);
	json_u64(j, "bw_interval_us", v->bw_interval_us);
	json_u64(j, "min_rtt_us", v->min_rtt_us);
	if (v->cong_cwnd) {
		json_u64(j, "cong_cwnd", v->cong_cwnd);
		json_u64(j, "cong_after_us", v->cong_after_us);
	} else {
		json_null(j, "cong_cwnd");
		json_null(j, "cong_after_us");
	}
	json_str(j, "end", verdict_end_str(v->end));
	json_u64(j, "rounds", v->rounds);
	json_u64(j, "samples", v->samples);
	json_u64(j, "skipped", v->skipped);
	json_u64(j, "mss", v->mss);
	json_obj_close(j);
	json_end(j);
}

/*
 * The verdict as a line under its exit's: "premature: left at 0.31 x the
 * path's BDP (94.2 Mbit/s x 20.1 ms = 163 pkts)", then the congestion event.
 */
static void print_verdict_text(struct trace *tr, const struct cubic_verdict *v)
{
	char when[32], what[200], cong[96];
	long long real = (long long)v->exit_ts_ns + tr->mono_to_real_ns;
	time_t sec = (time_t)(real / 1000000000LL);
	bool bound = v->bound || v->end != VERDICT_END_CONGESTION;
	struct tm tm;

	localtime_r(&sec, &tm);
	snprintf(when, sizeof(when), "%02d:%02d:%02d.%03lld", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (real % 1000000000LL) / 1000000);
	if (v->ratio_pm)
		snprintf(what, sizeof(what),
			 "left at %s%.2f x the path's BDP (%s%.1f Mbit/s x %.1f ms = %u pkts)",
			 bound ? "<= " : "", v->ratio_pm / 1000.0, bound ? ">= " : "",
			 (double)v->max_bw * 8 / 1e6, ms(v->min_rtt_us), v->bdp_est);
	else
		snprintf(what, sizeof(what), "no valid rate sample (%u skipped)", v->skipped);
	if (v->cong_cwnd)
		snprintf(cong, sizeof(cong), "; congestion at cwnd %u, %.1f ms after the exit",
			 v->cong_cwnd, ms(v->cong_after_us));
	else
		snprintf(cong, sizeof(cong), "; no congestion event (%s after %u rounds)",
			 verdict_end_str(v->end), v->rounds);
	printf("%-12s   flow %llu, exit at %s cwnd %u: %s: %s%s\n", "", (unsigned long long)v->flow_id,
	       when, v->exit_cwnd, verdict_word_str(v->word), what, cong);
	fflush(stdout);
}

/* the ring's three records are told apart by their sizes */
_Static_assert(sizeof(struct cubic_policer) != sizeof(struct cubic_event) &&
		       sizeof(struct cubic_policer) != sizeof(struct cubic_verdict) &&
		       sizeof(struct cubic_verdict) != sizeof(struct cubic_event),
	       "records of the events ring have distinct sizes");

static double mbit(__u64 bytes_per_s)
{
	return (double)bytes_per_s * 8 / 1e6;
}

/* The policer record: one object, joined to its exit's by flow_id. */
static void print_policer_json(struct trace *tr, const struct cubic_policer *p)
{
	struct json *j = tr->j;

	json_obj_open(j, NULL);
	json_str(j, "record", "policer");
	json_double(j, "time", (double)((long long)p->ts_ns + tr->mono_to_real_ns) / 1e9, 6);
	json_str(j, "instance", p->instance);
	json_u64(j, "flow_id", p->flow_id);
	json_flow(j, p->family, p->saddr, p->sport, p->daddr, p->dport);
	json_str(j, "kind", pol_kind_str(p->kind));
	json_bool(j, "jumped", p->jumped);
	json_bool(j, "unbelieved", p->unbelieved);
	json_u64(j, "loss_cwnd", p->loss_cwnd);
	json_u64(j, "loss_rate", p->loss_rate);
	json_u64(j, "loss_rtt_us", p->loss_rtt_us);
	json_u64(j, "delay_min_us", p->delay_min_us);
	if (p->target)
		json_u64(j, "target", p->target);
	else
		json_null(j, "target");
	json_u64(j, "recovery_us", p->recovery_us);
	json_u64(j, "delivered", p->delivered);
	json_u64(j, "lost", p->lost);
	json_u64(j, "measure", p->measure);
	json_bool(j, "bound", p->bound);
	json_arr_open(j, "actions");
#define CUBIC_X_ACT(ID, bit, name, help)                                                           \
	if (p->actions & (bit))                                                                    \
		json_str(j, NULL, name);
	CUBIC_POL_ACTS(CUBIC_X_ACT)
#undef CUBIC_X_ACT
	json_arr_close(j);
	if (p->stored_rate)
		json_u64(j, "stored_rate", p->stored_rate);
	else
		json_null(j, "stored_rate");
	json_u64(j, "ssthresh", p->ssthresh);
	json_obj_close(j);
	json_end(j);
}

/*
 * The policer record as a line under its flow's exit: "policer (answer),
 * loss at cwnd 282: 86.20 Mbit/s, RTT 20.16 ms over 19.95; recovery 75.0 ms:
 * 355 delivered, 184 lost, 56.03 Mbit/s, bound: stored 56.03 Mbit/s; ssthresh 104"
 */
static void print_policer_text(const struct cubic_policer *p)
{
	char acts[96], stored[48];

	pol_acts_str(p->actions, acts, sizeof(acts));
	if (p->stored_rate)
		snprintf(stored, sizeof(stored), " %.2f Mbit/s", mbit(p->stored_rate));
	else
		stored[0] = '\0';
	printf("%-12s   flow %llu, policer (%s%s), loss at cwnd %u: %.2f Mbit/s, RTT %.2f ms over "
	       "%.2f; recovery %.1f ms: %u delivered, %u lost, %.2f Mbit/s, %s: %s%s; ssthresh %u\n",
	       "", (unsigned long long)p->flow_id, pol_kind_str(p->kind),
	       p->jumped ? ", jumped" : "", p->loss_cwnd, mbit(p->loss_rate), ms(p->loss_rtt_us),
	       ms(p->delay_min_us), ms(p->recovery_us), p->delivered, p->lost, mbit(p->measure),
	       p->bound ? "bound" : "not bound", acts[0] ? acts : "nothing remembered", stored,
	       p->ssthresh);
	fflush(stdout);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct trace *tr = ctx;
	const struct cubic_event *e = data;
	const struct cubic_verdict *v = data;
	const struct cubic_policer *pol = data;

	if (size == sizeof(*pol)) {
		if (!keep(tr, pol->family, pol->saddr, pol->sport, pol->daddr, pol->dport)) {
			tr->filtered++;
			return 0;
		}
		if (tr->j)
			print_policer_json(tr, pol);
		else
			print_policer_text(pol);
	} else if (size == sizeof(*v)) {
		if (!keep(tr, v->family, v->saddr, v->sport, v->daddr, v->dport)) {
			tr->filtered++;
			return 0;
		}
		if (tr->j)
			print_verdict_json(tr, v);
		else
			print_verdict_text(tr, v);
	} else if (size != sizeof(*e)) {
		/*
		 * Another build's record (the instance was loaded, or its open
		 * flows began, under another cubicctl): its fields are not where
		 * this one's are. Skipped, and said once.
		 */
		if (!tr->foreign++)
			note("%s wrote a record of another bpf_cubic build (%zu bytes; this cubicctl "
			     "reads %zu): skipped; 'cubicctl upgrade --name %s' gives new flows this "
			     "build",
			     tr->name, size, sizeof(*e), tr->name);
		return 0;
	} else {
		if (!keep(tr, e->family, e->saddr, e->sport, e->daddr, e->dport)) {
			tr->filtered++;
			return 0;
		}
		if (tr->j)
			print_json(tr, e);
		else
			print_text(tr, e);
	}
	if (ferror(stdout)) {
		tr->write_failed = true;
		return -EIO; /* stdout_ok() says why */
	}
	tr->shown++;
	/* stop consuming here: later records stay in the ring */
	return tr->max_count && tr->shown >= tr->max_count ? -ECANCELED : 0;
}

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_opts o = { .name = CUBIC_DEFAULT_NAME, .port = -1 };
	struct trace tr = { .port = -1 };
	struct cubic_counters c0 = {}, c1 = {};
	struct ring_buffer *rb = NULL;
	struct sigaction sa = {};
	struct instance in;
	double limit_s, start, last_check;
	struct timespec mono, real;
	int rc, lock_fd = -1, err, nargs;
	bool unloaded = false;

	rc = opts_parse(&cmd_trace_def, argc, argv, &o, &nargs);
	if (rc)
		return rc == OPTS_HELP ? EXIT_OK : rc;
	tr.name = o.name;
	tr.max_count = o.count;
	tr.port = o.port;
	tr.addr_family = o.family;
	memcpy(tr.addr, o.addr, sizeof(tr.addr));
	limit_s = o.duration;
	rc = require_env(tr.name);
	if (rc)
		return rc;

	rc = instance_open_loaded(&in, tr.name);
	if (rc)
		return rc;
	if (in.events_fd < 0) {
		errmsg("%s has no events ring pinned (loaded by an older cubicctl?); reload it",
		       tr.name);
		rc = EXIT_FAIL;
		goto out;
	}
	lock_fd = open(in.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			errmsg("another 'cubicctl trace' is already reading %s's events; a ring "
			       "buffer has one consumer", tr.name);
		else
			errmsg("can't lock %s: %s", in.dir, strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}

	tr.j = g_opts.json ? json_stdout() : NULL;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	tr.mono_to_real_ns = ((long long)real.tv_sec - mono.tv_sec) * 1000000000LL +
			     (real.tv_nsec - mono.tv_nsec);

	rb = ring_buffer__new(in.events_fd, on_event, &tr, NULL);
	if (!rb) {
		errmsg("can't open the events ring: %s", strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	instance_read_counters(&in, &c0);
	/* an idle trace is not a broken one */
	note("waiting for %s's slow-start exits and their verdicts (Ctrl-C to stop)", tr.name);

	start = last_check = now_s(CLOCK_MONOTONIC);
	while (!stop_signal) {
		double t;

		err = ring_buffer__poll(rb, 100);
		if (err == -ECANCELED)
			break; /* --count reached */
		if (tr.write_failed) {
			rc = EXIT_FAIL; /* main's stdout_ok() says why */
			goto out;
		}
		if (err < 0 && err != -EINTR) {
			errmsg("reading the events ring failed: %s", strerror(-err));
			rc = EXIT_FAIL;
			goto out;
		}
		t = now_s(CLOCK_MONOTONIC);
		if (limit_s && t - start >= limit_s)
			break;
		if (t - last_check >= 0.5) {
			last_check = t;
			if (instance_state(&in) != INST_REGISTERED) {
				unloaded = true;
				break;
			}
		}
	}
	if (!unloaded && !(tr.max_count && tr.shown >= tr.max_count))
		ring_buffer__consume(rb); /* what arrived before the end */
	instance_read_counters(&in, &c1);
	if (unloaded)
		note("%s was unloaded; stopping", tr.name);
	{
		char extra[96] = "";
		unsigned long long dropped = c1.c[CUBIC_CNT_EVENT_DROPS] - c0.c[CUBIC_CNT_EVENT_DROPS];
		int n = 0;

		if (tr.filtered)
			n = snprintf(extra, sizeof(extra), ", %lld filtered out", tr.filtered);
		if (tr.foreign && n >= 0 && (size_t)n < sizeof(extra))
			snprintf(extra + n, sizeof(extra) - n, ", %lld of another build skipped",
				 tr.foreign);
		note("%lld records shown, %llu dropped%s%s", tr.shown, dropped,
		     dropped ? " (ring full)" : "", extra);
	}
	rc = EXIT_OK;
out:
	ring_buffer__free(rb);
	if (lock_fd >= 0)
		close(lock_fd);
	instance_close(&in);
	return rc;
}
