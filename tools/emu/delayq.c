// SPDX-License-Identifier: GPL-2.0
/*
 * delayq - constant-delay FIFO line on an NFQUEUE queue.
 *
 * Every packet the kernel queues to us is held (the kernel keeps the skb,
 * we only get its id: copy mode META) and accepted again at
 * arrival + delay, in arrival order, from an absolute CLOCK_MONOTONIC
 * timerfd.  Because the delay is constant, release order equals arrival
 * order, so one NFQNL_MSG_VERDICT_BATCH ("accept every id <= n") releases
 * all packets that are due.  Reads are batched with recvmmsg().
 *
 * Nothing is dropped silently: a full line, a netlink overrun (ENOBUFS)
 * and the kernel's own queue counters are reported in the stats file,
 * written on SIGUSR1 and at exit.  SIGUSR2 resets the release-error
 * histogram (to skip a warm-up).
 *
 * A delay schedule (-S AFTER:DELAY[:RAMP]) changes the delay during a flow:
 * AFTER microseconds after the last TCP SYN-ACK seen (the receiver accepting
 * a new connection: the start of a flow, seen on the ACK path we hold) the
 * delay moves to DELAY, at once or linearly over RAMP.  Every SYN-ACK starts
 * the schedule again from -d, so each flow sees the same change.  Due times
 * never decrease, so a falling delay bunches packets instead of reordering
 * them.  Only then do we need the packet's headers (copy mode PACKET, 80
 * bytes); otherwise metadata is enough.
 *
 * ACK aggregation (-A PERIOD): every due time is rounded up to the next
 * multiple of PERIOD on CLOCK_MONOTONIC, so what arrives within one period
 * leaves together at its end, as a Wi-Fi, DOCSIS or LTE uplink hands the
 * sender ACKs in bunches.  FIFO is kept (the rounding never lowers a due time).
 *
 * A trace-driven link (-T FILE -b PKTS): instead of a delay, each packet
 * leaves at a delivery opportunity of a Mahimahi trace: one line per
 * 1500-byte opportunity, the milliseconds since the start at which it comes;
 * the trace repeats with a period of its last line.  One packet per
 * opportunity; an opportunity with nothing queued is lost, as on a real link
 * whose slot goes unused.  The queue holds at most PKTS packets; an arrival
 * beyond that is dropped and counted (link_dropped).  The delay stays on the
 * ACK path (another delayq).
 * With -R FILE, every TCP SYN (a new connection; not a SYN-ACK) that enters
 * the link starts the trace again at the offset FILE holds (milliseconds into
 * the trace, read at each SYN; no FILE: no restart), as Mahimahi starts its
 * trace with each shell: every flow after it meets the same stretch of the
 * trace, so flows of different congestion controls can be compared pair by
 * pair.
 *
 * A policer (-P RATE:BURST) comes before all of that: a token bucket of BURST
 * bytes filled at RATE bit/s; a packet longer than the tokens left is dropped
 * at once (police_dropped), as a provider's policer does, instead of queued.
 * It reads each packet's IP length (copy mode PACKET, 20 bytes).  nft's byte
 * limit cannot stand in: its bucket holds a whole second of the rate on top of
 * the burst, and this kernel has no tc police action.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libnetfilter_queue/libnetfilter_queue.h>
#include <libnfnetlink/libnfnetlink.h>

#include "../lib/keepawake.h"

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_USEC 1000ULL
#define RECV_BATCH 64
#define RECV_BUFSZ 512 /* metadata only: headers, no payload */
#define HIST_BUCKETS 1000000 /* 1 us buckets up to 1 s; above goes to the last */
#define HDR_COPY 80 /* IPv4 header (with options) + TCP flags, for the schedule */

struct pkt {
	uint32_t id;
	uint64_t due; /* CLOCK_MONOTONIC ns */
};

static struct {
	/* configuration */
	unsigned int qnum;
	uint64_t delay_ns;
	uint64_t jitter_ns; /* extra delay, uniform in [0, jitter): RTT noise */
	uint64_t last_due;  /* jitter and the schedule never reorder: due times only grow */
	uint64_t rng;
	/* delay schedule (-S): after_ns past the last SYN-ACK, step_ns over ramp_ns */
	bool sched;
	uint64_t after_ns, step_ns, ramp_ns;
	uint64_t sched_t0; /* arrival of the last SYN-ACK; 0: none yet */
	/* the same moment on CLOCK_REALTIME, for the stats: tools that stamp packets in
	 * wall-clock time (ping -D) measure the schedule from it, not from when they began */
	struct timespec sched_t0_real;
	uint64_t synacks;
	uint64_t agg_ns; /* -A: due times rounded up to a multiple of this */
	/* -T: a trace-driven link; opp_ns[i] the i-th opportunity's offset in a period */
	uint64_t *opp_ns;
	uint32_t nopp, link_limit;
	uint64_t period_ns, trace_t0;
	uint64_t cur_cycle; /* the last opportunity given to a packet: cycle and index */
	int64_t cur_idx;
	uint64_t link_dropped, link_used;
	const char *phasefile; /* -R: the offset each SYN restarts the trace at */
	uint64_t link_restarts, link_phase_ms;
	/* -P: the policer's rate (bytes per second), bucket size and state */
	uint64_t police_Bps, police_burst, police_tokens_nB, police_last;
	uint64_t police_dropped, police_passed;
	const char *tracefile;
	uint32_t maxlen;
	const char *pidfile;
	const char *statsfile;
	int rtprio;
	int cpu;
	bool daemonize;
	bool pmqos;
	bool spin; /* -W: a SCHED_IDLE spinner on every CPU */
	int spinners; /* how many -W started */

	/* FIFO ring of held packets */
	struct pkt *ring;
	uint32_t cap, head, len, max_len;
	uint64_t now; /* time of the current recv batch */

	/* counters */
	uint64_t received, released, batches, dropped_full, enobufs, verdict_err, flushed;
	uint64_t err_max_ns, err_samples;
	uint32_t *hist; /* release error, 1 us buckets */

	struct nfq_handle *h;
	struct nfq_q_handle *qh;
} g = {
	.qnum = 0,
	.maxlen = 65536,
	.rtprio = 50,
	.cpu = -1,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The packet's IPv4 total length, from the copied header; 0 if none. */
static uint32_t ip_len(struct nfq_data *nfa)
{
	unsigned char *p;
	int len = nfq_get_payload(nfa, &p);

	if (len < 4 || (p[0] >> 4) != 4)
		return 0;
	return (uint32_t)p[2] << 8 | p[3];
}

/*
 * The token bucket, in nanobyte units so that a slow rate still fills it
 * between two packets: true if the packet may pass.
 */
static bool police_pass(uint32_t len)
{
	uint64_t cap = g.police_burst * NSEC_PER_SEC, dt = g.now - g.police_last;

	/* a long idle time refills the bucket; its product could overflow */
	if (dt >= cap / g.police_Bps)
		g.police_tokens_nB = cap;
	else if ((g.police_tokens_nB += dt * g.police_Bps) > cap)
		g.police_tokens_nB = cap;
	g.police_last = g.now;
	if ((uint64_t)len * NSEC_PER_SEC > g.police_tokens_nB)
		return false;
	g.police_tokens_nB -= (uint64_t)len * NSEC_PER_SEC;
	return true;
}

/* The TCP flags of an IPv4 TCP segment, from the copied header; -1 if none. */
static int tcp_flags(struct nfq_data *nfa)
{
	unsigned char *p;
	int len = nfq_get_payload(nfa, &p);
	int ihl;

	if (len < 20 || (p[0] >> 4) != 4 || p[9] != 6)
		return -1;
	ihl = (p[0] & 0x0f) * 4;
	if (len < ihl + 14)
		return -1;
	return p[ihl + 13];
}

/* A TCP segment with SYN and ACK set (IPv4; the path is IPv4 only). */
static bool is_synack(struct nfq_data *nfa)
{
	int f = tcp_flags(nfa);

	return f >= 0 && (f & 0x12) == 0x12;
}

/* A connection's first segment: SYN without ACK. */
static bool is_syn(struct nfq_data *nfa)
{
	int f = tcp_flags(nfa);

	return f >= 0 && (f & 0x12) == 0x02;
}

/* The delay for a packet arriving at NOW: -d, or the schedule's value. */
static uint64_t delay_at(uint64_t now)
{
	uint64_t e;

	if (!g.sched || !g.sched_t0)
		return g.delay_ns;
	e = now - g.sched_t0;
	if (e < g.after_ns)
		return g.delay_ns;
	if (g.ramp_ns && e < g.after_ns + g.ramp_ns) {
		/* linear from delay_ns to step_ns; either may be the larger */
		double f = (double)(e - g.after_ns) / (double)g.ramp_ns;

		return g.delay_ns + (uint64_t)(((double)g.step_ns - (double)g.delay_ns) * f);
	}
	return g.step_ns;
}

/*
 * The trace link: the first opportunity after the one the previous packet
 * took, or, if that one is already past, the first at or after NOW (the
 * opportunities in between went unused).
 */
static uint64_t next_opportunity(uint64_t now)
{
	uint64_t cycle = g.cur_cycle, t;
	int64_t idx = g.cur_idx + 1;

	if (idx >= (int64_t)g.nopp) {
		idx = 0;
		cycle++;
	}
	t = g.trace_t0 + cycle * g.period_ns + g.opp_ns[idx];
	if (t < now) {
		uint64_t e = now - g.trace_t0, off;
		uint32_t lo = 0, hi = g.nopp;

		cycle = e / g.period_ns;
		off = e % g.period_ns;
		while (lo < hi) { /* first opportunity at or after off */
			uint32_t mid = (lo + hi) / 2;

			if (g.opp_ns[mid] < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		idx = lo;
		if (idx == (int64_t)g.nopp) {
			idx = 0;
			cycle++;
		}
		t = g.trace_t0 + cycle * g.period_ns + g.opp_ns[idx];
	}
	g.cur_cycle = cycle;
	g.cur_idx = idx;
	g.link_used++;
	return t;
}

/*
 * -R FILE: a new connection starts the trace again at FILE's offset
 * (milliseconds, modulo the period); FILE missing or empty: the trace runs on.
 * The next packet takes the first opportunity at or after the offset.
 */
static void trace_restart(void)
{
	unsigned long long ms;
	uint64_t off;
	char extra;
	FILE *f = fopen(g.phasefile, "r");
	int n;

	if (!f)
		return;
	n = fscanf(f, "%llu %c", &ms, &extra);
	fclose(f);
	if (n != 1)
		return;
	off = ms * 1000000ULL % g.period_ns;
	if (g.now < off)
		return;
	g.trace_t0 = g.now - off;
	g.cur_cycle = 0;
	g.cur_idx = -1;
	g.link_restarts++;
	g.link_phase_ms = ms;
}

/* -T FILE: one opportunity per line, whole milliseconds, non-decreasing */
static int load_trace(const char *path)
{
	unsigned long long ms, prev = 0;
	uint32_t cap = 1024;
	char line[64];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "delayq: can't open trace '%s': %s\n", path, strerror(errno));
		return -1;
	}
	g.opp_ns = malloc(cap * sizeof(*g.opp_ns));
	while (g.opp_ns && fgets(line, sizeof(line), f)) {
		char *end;

		if (line[0] == '\n' || line[0] == '#')
			continue;
		errno = 0;
		ms = strtoull(line, &end, 10);
		if (errno || end == line || (*end != '\n' && *end != '\0') || ms < prev ||
		    ms > 3600000ULL) {
			fprintf(stderr, "delayq: trace '%s': bad line %u: '%.20s' (milliseconds, "
				"non-decreasing, one per line)\n", path, g.nopp + 1, line);
			fclose(f);
			return -1;
		}
		prev = ms;
		if (g.nopp == cap) {
			cap *= 2;
			g.opp_ns = realloc(g.opp_ns, cap * sizeof(*g.opp_ns));
			if (!g.opp_ns)
				break;
		}
		g.opp_ns[g.nopp++] = ms * 1000000ULL;
	}
	fclose(f);
	if (!g.opp_ns) {
		fprintf(stderr, "delayq: out of memory\n");
		return -1;
	}
	if (!g.nopp || !prev) {
		fprintf(stderr, "delayq: trace '%s' has no opportunity after 0 ms\n", path);
		return -1;
	}
	/* Mahimahi: the trace repeats, its last line is the period */
	g.period_ns = prev * 1000000ULL;
	g.cur_idx = -1;
	return 0;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa,
		     void *data)
{
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	uint64_t due;
	uint32_t id;

	(void)msg;
	(void)data;
	if (!ph)
		return 0;
	id = ntohl(ph->packet_id);
	g.received++;
	if (g.police_Bps) {
		if (!police_pass(ip_len(nfa))) {
			g.police_dropped++;
			if (nfq_set_verdict(qh, id, NF_DROP, 0, NULL) < 0)
				g.verdict_err++;
			return 0;
		}
		g.police_passed++;
	}
	if (g.opp_ns && g.len >= g.link_limit) {
		/* the link's buffer is full: tail drop, as the bottleneck's queue would */
		g.link_dropped++;
		if (nfq_set_verdict(qh, id, NF_DROP, 0, NULL) < 0)
			g.verdict_err++;
		return 0;
	}
	if (g.len == g.cap) {
		/* Line full: drop now, visibly, rather than let the kernel time out. */
		g.dropped_full++;
		if (nfq_set_verdict(qh, id, NF_DROP, 0, NULL) < 0)
			g.verdict_err++;
		return 0;
	}
	if (g.sched && is_synack(nfa)) {
		/* a new flow: its schedule starts now, from -d */
		g.sched_t0 = g.now;
		clock_gettime(CLOCK_REALTIME, &g.sched_t0_real);
		g.synacks++;
	}
	if (g.opp_ns) {
		if (g.phasefile && is_syn(nfa))
			trace_restart();
		due = next_opportunity(g.now);
		goto queue;
	}
	due = g.now + delay_at(g.now);
	if (g.jitter_ns) {
		/* xorshift64: cheap, and reproducible from the seed */
		g.rng ^= g.rng << 13;
		g.rng ^= g.rng >> 7;
		g.rng ^= g.rng << 17;
		due += g.rng % g.jitter_ns;
	}
	/* FIFO: a packet held longer holds back those behind it (ACK bunching).
	 * With a constant delay and no jitter due times grow anyway. */
	if (due < g.last_due)
		due = g.last_due;
	if (g.agg_ns)
		due = (due + g.agg_ns - 1) / g.agg_ns * g.agg_ns;
	g.last_due = due;
queue:
	g.ring[(g.head + g.len) % g.cap] = (struct pkt){ .id = id, .due = due };
	g.len++;
	if (g.len > g.max_len)
		g.max_len = g.len;
	return 0;
}

static void record_err(uint64_t err)
{
	uint64_t us = err / NSEC_PER_USEC;

	if (us >= HIST_BUCKETS)
		us = HIST_BUCKETS - 1;
	g.hist[us]++;
	g.err_samples++;
	if (err > g.err_max_ns)
		g.err_max_ns = err;
}

/* Accept every packet that is due; one batch verdict covers them all. */
static void release_due(void)
{
	uint64_t t = now_ns();
	uint32_t last = 0;
	int n = 0;

	while (g.len) {
		struct pkt *p = &g.ring[g.head];

		if (p->due > t)
			break;
		record_err(t - p->due);
		last = p->id;
		g.head = (g.head + 1) % g.cap;
		g.len--;
		n++;
	}
	if (!n)
		return;
	if (nfq_set_verdict_batch(g.qh, last, NF_ACCEPT) < 0)
		g.verdict_err++;
	g.released += n;
	g.batches++; /* packets that left together: a bunch, with -A */
}

static void arm_timer(int tfd)
{
	struct itimerspec its = { 0 };

	if (g.len) {
		uint64_t due = g.ring[g.head].due;

		its.it_value.tv_sec = due / NSEC_PER_SEC;
		its.it_value.tv_nsec = due % NSEC_PER_SEC;
	}
	/* all-zero disarms */
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static uint64_t hist_pct(double pct)
{
	uint64_t want, acc = 0;
	uint32_t i;

	if (!g.err_samples)
		return 0;
	want = (uint64_t)(pct / 100.0 * g.err_samples);
	if (want >= g.err_samples)
		want = g.err_samples - 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		acc += g.hist[i];
		if (acc > want)
			return i;
	}
	return HIST_BUCKETS - 1;
}

/* /proc/net/netfilter/nfnetlink_queue: qnum portid total mode range dropped user_dropped seq 1 */
static void kernel_counters(uint64_t *qdrop, uint64_t *udrop, uint64_t *total)
{
	unsigned int q, portid, mode, range, tot;
	unsigned long long d, u, seq;
	char line[256];
	FILE *f;

	*qdrop = *udrop = *total = 0;
	f = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %u %u %u %u %llu %llu %llu", &q, &portid, &tot, &mode, &range,
			   &d, &u, &seq) == 8 && q == g.qnum) {
			*qdrop = d;
			*udrop = u;
			*total = tot;
		}
	}
	fclose(f);
}

static void write_stats(void)
{
	uint64_t qdrop, udrop, total;
	char tmp[PATH_MAX];
	FILE *f;

	kernel_counters(&qdrop, &udrop, &total);
	if (!g.statsfile) {
		f = stderr;
	} else {
		snprintf(tmp, sizeof(tmp), "%s.tmp", g.statsfile);
		f = fopen(tmp, "w");
		if (!f) {
			fprintf(stderr, "delayq: can't write stats '%s': %s\n", tmp, strerror(errno));
			return;
		}
	}
	fprintf(f,
		"queue=%u\ndelay_us=%.3f\nreceived=%" PRIu64 "\nreleased=%" PRIu64 "\nbatches=%" PRIu64
		"\nheld=%u\nmax_held=%u\ncapacity=%u\ndropped_full=%" PRIu64
		"\nnetlink_enobufs=%" PRIu64 "\nverdict_errors=%" PRIu64
		"\nflushed_at_exit=%" PRIu64 "\nkernel_queue_dropped=%" PRIu64
		"\nkernel_user_dropped=%" PRIu64 "\nkernel_queue_total=%" PRIu64
		"\ndrops=%" PRIu64 "\nrelease_err_samples=%" PRIu64
		"\nrelease_err_p50_us=%" PRIu64 "\nrelease_err_p99_us=%" PRIu64
		"\nrelease_err_p999_us=%" PRIu64 "\nrelease_err_max_us=%.1f\n"
		"schedule=%d\nschedule_starts=%" PRIu64 "\nschedule_t0_unix_s=%lld.%06ld\n"
		"delay_now_us=%.3f\nack_agg_us=%.3f\nlink_trace=%s\nlink_opportunities=%u\n"
		"link_period_ms=%.3f\nlink_limit=%u\nlink_used=%" PRIu64 "\nlink_dropped=%" PRIu64 "\n"
		"link_restarts=%" PRIu64 "\nlink_phase_ms=%" PRIu64 "\n"
		"police_rate_bps=%" PRIu64 "\npolice_burst_bytes=%" PRIu64 "\npolice_passed=%" PRIu64
		"\npolice_dropped=%" PRIu64 "\nspinners=%d\n",
		g.qnum, g.delay_ns / 1000.0, g.received, g.released, g.batches, g.len, g.max_len, g.cap,
		g.dropped_full, g.enobufs, g.verdict_err, g.flushed, qdrop, udrop, total,
		g.dropped_full + qdrop + udrop, g.err_samples, hist_pct(50), hist_pct(99),
		hist_pct(99.9), g.err_max_ns / 1000.0, g.sched, g.synacks,
		(long long)g.sched_t0_real.tv_sec, g.sched_t0_real.tv_nsec / 1000,
		delay_at(now_ns()) / 1000.0, g.agg_ns / 1000.0, g.tracefile ? g.tracefile : "",
		g.nopp, g.period_ns / 1e6, g.link_limit, g.link_used, g.link_dropped,
		g.link_restarts, g.link_phase_ms,
		g.police_Bps * 8, g.police_burst, g.police_passed, g.police_dropped,
		g.spinners);
	if (f == stderr)
		return;
	fclose(f);
	if (rename(tmp, g.statsfile) < 0)
		fprintf(stderr, "delayq: can't rename stats to '%s': %s\n", g.statsfile,
			strerror(errno));
}

static void reset_stats(void)
{
	memset(g.hist, 0, HIST_BUCKETS * sizeof(*g.hist));
	g.err_samples = 0;
	g.err_max_ns = 0;
	g.max_len = g.len;
}

/* Read everything pending; returns false on a fatal socket error. */
static bool drain(int fd)
{
	static char bufs[RECV_BATCH][RECV_BUFSZ];
	struct mmsghdr msgs[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	int i, n;

	for (i = 0; i < RECV_BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = RECV_BUFSZ };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	for (;;) {
		n = recvmmsg(fd, msgs, RECV_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return true;
			if (errno == ENOBUFS) {
				/* kernel counts the lost packets as user_dropped */
				g.enobufs++;
				continue;
			}
			fprintf(stderr, "delayq: recv: %s\n", strerror(errno));
			return false;
		}
		g.now = now_ns();
		for (i = 0; i < n; i++)
			nfq_handle_packet(g.h, bufs[i], msgs[i].msg_len);
		if (n < RECV_BATCH)
			return true;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: delayq -d DELAY_US [-q QUEUE] [-n MAXLEN] [-p PIDFILE] [-s STATSFILE]\n"
		"              [-r RTPRIO] [-c CPU] [-j JITTER_US] [-S AFTER:DELAY[:RAMP]]\n"
		"              [-A PERIOD_US] [-T TRACE -b PKTS [-R FILE]] [-P RATE_BPS:BURST_BYTES] [-L] [-W] [-D]\n"
		"Hold every packet of NFQUEUE QUEUE for DELAY_US microseconds, FIFO.\n"
		"  -d US      constant delay in microseconds (fractions allowed)\n"
		"  -j US      add a uniform random delay in [0, US) per packet, never\n"
		"             reordering: a packet held longer holds back those behind it\n"
		"  -S A:D[:R] delay schedule, microseconds: A after the last TCP SYN-ACK\n"
		"             seen, the delay becomes D (linearly over R if given); each\n"
		"             SYN-ACK starts it again from -d; never reorders\n"
		"  -A US      ACK aggregation: release at the next multiple of US, together\n"
		"  -T FILE    a trace-driven link instead of the delay: a packet leaves at the\n"
		"             next delivery opportunity of FILE (Mahimahi: ms per line)\n"
		"  -b PKTS    with -T: the link's buffer, packets (tail drop beyond it)\n"
		"  -R FILE    with -T: each TCP SYN starts the trace again at the offset\n"
		"             FILE holds (ms; read at each SYN; no FILE: no restart)\n"
		"  -P R:B     police first: a token bucket of B bytes at R bit/s; a packet\n"
		"             beyond it is dropped at once\n"
		"  -q N       queue number (default 0)\n"
		"  -n N       kernel queue maxlen and line capacity (default 65536)\n"
		"  -p FILE    write pid here once the queue is bound\n"
		"  -s FILE    stats file (key=value), written on SIGUSR1 and at exit;\n"
		"             default stderr\n"
		"  -r PRIO    SCHED_FIFO priority, 0 = normal scheduling (default 50)\n"
		"  -c CPU     pin to this CPU (default: not pinned)\n"
		"  -L         hold /dev/cpu_dma_latency at 0 while running: idle CPUs poll\n"
		"             instead of halting (where a cpuidle driver honours it)\n"
		"  -W         keep every CPU awake: a SCHED_IDLE thread spins on each, so\n"
		"             a vCPU never halts and its timers fire on time (a halted\n"
		"             vCPU's wake-up waits on the host: ms late on a busy one);\n"
		"             it runs only when nothing else wants the CPU\n"
		"  -D         daemonize once the queue is bound\n"
		"Signals: USR1 dump stats, USR2 reset release-error stats, TERM/INT exit.\n");
}

/* microseconds (fractions allowed, 0..10 s) to ns; false if bad */
static bool parse_us(const char *s, char **end, uint64_t *ns)
{
	double d;

	errno = 0;
	d = strtod(s, end);
	if (errno || *end == s || d < 0 || d > 10e6)
		return false;
	*ns = (uint64_t)(d * 1000.0 + 0.5);
	return true;
}

/* -S AFTER:DELAY[:RAMP] */
static bool parse_schedule(const char *s)
{
	char *end;

	if (!parse_us(s, &end, &g.after_ns) || *end != ':')
		return false;
	if (!parse_us(end + 1, &end, &g.step_ns))
		return false;
	g.ramp_ns = 0;
	if (*end == ':' && !parse_us(end + 1, &end, &g.ramp_ns))
		return false;
	g.sched = true;
	return *end == '\0';
}

static int parse_args(int argc, char **argv)
{
	bool have_delay = false;
	char *end;
	double d;
	int c;

	while ((c = getopt(argc, argv, "d:j:S:A:T:b:R:P:q:n:p:s:r:c:LWDh")) != -1) {
		switch (c) {
		case 'P': {
			unsigned long long r, b;
			char extra;

			if (sscanf(optarg, "%llu:%llu%c", &r, &b, &extra) != 2 || r < 8000 ||
			    r > 100000000000ULL || b < 64 || b > 1000000000ULL) {
				fprintf(stderr, "delayq: bad policer '%s' (RATE_BPS:BURST_BYTES)\n",
					optarg);
				return -1;
			}
			g.police_Bps = r / 8;
			g.police_burst = b;
			break;
		}
		case 'A':
			if (!parse_us(optarg, &end, &g.agg_ns) || *end || !g.agg_ns) {
				fprintf(stderr, "delayq: bad aggregation period '%s'\n", optarg);
				return -1;
			}
			break;
		case 'T':
			g.tracefile = optarg;
			break;
		case 'R':
			g.phasefile = optarg;
			break;
		case 'b':
			g.link_limit = strtoul(optarg, &end, 10);
			if (*end || !g.link_limit || g.link_limit > 1000000) {
				fprintf(stderr, "delayq: bad link buffer '%s'\n", optarg);
				return -1;
			}
			break;
		case 'S':
			if (!parse_schedule(optarg)) {
				fprintf(stderr, "delayq: bad schedule '%s' (AFTER:DELAY[:RAMP], us)\n",
					optarg);
				return -1;
			}
			break;
		case 'j':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno || *end || d < 0 || d > 10e6) {
				fprintf(stderr, "delayq: bad jitter '%s'\n", optarg);
				return -1;
			}
			g.jitter_ns = (uint64_t)(d * 1000.0 + 0.5);
			g.rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
			break;
		case 'd':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno || *end || d < 0 || d > 10e6) {
				fprintf(stderr, "delayq: bad delay '%s'\n", optarg);
				return -1;
			}
			g.delay_ns = (uint64_t)(d * 1000.0 + 0.5);
			have_delay = true;
			break;
		case 'q':
			g.qnum = strtoul(optarg, &end, 10);
			if (*end || g.qnum > 65535) {
				fprintf(stderr, "delayq: bad queue '%s'\n", optarg);
				return -1;
			}
			break;
		case 'n':
			g.maxlen = strtoul(optarg, &end, 10);
			if (*end || g.maxlen < 16 || g.maxlen > (1u << 22)) {
				fprintf(stderr, "delayq: bad maxlen '%s'\n", optarg);
				return -1;
			}
			break;
		case 'p':
			g.pidfile = optarg;
			break;
		case 's':
			g.statsfile = optarg;
			break;
		case 'r':
			g.rtprio = strtol(optarg, &end, 10);
			if (*end || g.rtprio < 0 || g.rtprio > 99) {
				fprintf(stderr, "delayq: bad rtprio '%s'\n", optarg);
				return -1;
			}
			break;
		case 'c':
			g.cpu = strtol(optarg, &end, 10);
			if (*end || g.cpu < 0 || g.cpu >= CPU_SETSIZE) {
				fprintf(stderr, "delayq: bad cpu '%s'\n", optarg);
				return -1;
			}
			break;
		case 'L':
			g.pmqos = true;
			break;
		case 'W':
			g.spin = true;
			break;
		case 'D':
			g.daemonize = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (!have_delay || optind != argc) {
		usage(stderr);
		return -1;
	}
	if (!g.tracefile != !g.link_limit) {
		fprintf(stderr, "delayq: -T and -b go together\n");
		return -1;
	}
	if (g.phasefile && !g.tracefile) {
		fprintf(stderr, "delayq: -R restarts a trace: it needs -T\n");
		return -1;
	}
	if (g.tracefile && (g.sched || g.jitter_ns || g.agg_ns || g.delay_ns)) {
		fprintf(stderr, "delayq: -T is a link of its own: -d 0, and no -j, -S or -A\n");
		return -1;
	}
	if (g.tracefile && load_trace(g.tracefile) < 0)
		return -1;
	return 0;
}

static int setup_queue(void)
{
	g.h = nfq_open();
	if (!g.h) {
		fprintf(stderr, "delayq: nfq_open: %s\n", strerror(errno));
		return -1;
	}
	g.qh = nfq_create_queue(g.h, g.qnum, on_packet, NULL);
	if (!g.qh) {
		fprintf(stderr, "delayq: can't bind queue %u: %s (another listener?)\n", g.qnum,
			strerror(errno));
		return -1;
	}
	/* the schedule and -R read TCP flags, the policer the IP length; without
	 * them the kernel copies nothing */
	if (nfq_set_mode(g.qh,
			 g.sched || g.phasefile || g.police_Bps ? NFQNL_COPY_PACKET : NFQNL_COPY_META,
			 g.sched || g.phasefile ? HDR_COPY : g.police_Bps ? 20 : 0) < 0) {
		fprintf(stderr, "delayq: can't set copy mode: %s\n", strerror(errno));
		return -1;
	}
	if (nfq_set_queue_maxlen(g.qh, g.maxlen) < 0) {
		fprintf(stderr, "delayq: can't set queue maxlen: %s\n", strerror(errno));
		return -1;
	}
	/* Room for a burst of queue messages before we get to read them. */
	nfnl_rcvbufsiz(nfq_nfnlh(g.h), 64u << 20);
	return 0;
}

int main(int argc, char **argv)
{
	int nlfd, tfd, sfd, ep, ready_pipe[2] = { -1, -1 };
	struct epoll_event ev, evs[4];
	sigset_t mask;
	bool run = true;
	char ok = 1;
	int i, n;

	if (parse_args(argc, argv) < 0)
		return 2;

	g.cap = g.maxlen;
	g.ring = calloc(g.cap, sizeof(*g.ring));
	g.hist = calloc(HIST_BUCKETS, sizeof(*g.hist));
	if (!g.ring || !g.hist) {
		fprintf(stderr, "delayq: out of memory\n");
		return 1;
	}

	if (g.daemonize) {
		pid_t pid;

		if (pipe(ready_pipe) < 0) {
			perror("delayq: pipe");
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("delayq: fork");
			return 1;
		}
		if (pid > 0) {
			/* parent: exit 0 only once the child has bound the queue */
			close(ready_pipe[1]);
			if (read(ready_pipe[0], &ok, 1) != 1 || ok != 0)
				return 1;
			return 0;
		}
		close(ready_pipe[0]);
		setsid();
		ok = 1;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || tfd < 0 || ep < 0) {
		perror("delayq: setup");
		goto fail;
	}
	if (setup_queue() < 0)
		goto fail;
	nlfd = nfq_fd(g.h);
	g.trace_t0 = now_ns(); /* the trace link's first period begins now */
	/* the policer's bucket starts full: a flow's first burst passes at line rate */
	g.police_last = g.trace_t0;
	g.police_tokens_nB = g.police_burst * NSEC_PER_SEC;

	/* Timer slack would add up to 50 us to every wake-up of a normal task. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		fprintf(stderr, "delayq: mlockall: %s (continuing)\n", strerror(errno));
	/* on every CPU, so before the daemon pins itself to one */
	if (g.spin)
		g.spinners = keepawake_start("delayq: -W");
	if (g.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(g.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			fprintf(stderr, "delayq: can't pin to cpu %d: %s (continuing)\n", g.cpu,
				strerror(errno));
	}
	if (g.pmqos) {
		/* The request lasts as long as the fd is open, i.e. until we exit. */
		int32_t zero = 0;
		int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, &zero, sizeof(zero)) != sizeof(zero))
			fprintf(stderr, "delayq: /dev/cpu_dma_latency: %s (continuing)\n",
				strerror(errno));
	}
	if (g.rtprio) {
		struct sched_param sp = { .sched_priority = g.rtprio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "delayq: SCHED_FIFO: %s (continuing)\n", strerror(errno));
	}

	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = nlfd };
	epoll_ctl(ep, EPOLL_CTL_ADD, nlfd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = tfd };
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = sfd };
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);

	if (g.pidfile) {
		FILE *f = fopen(g.pidfile, "w");

		if (!f) {
			fprintf(stderr, "delayq: can't write pidfile '%s': %s\n", g.pidfile,
				strerror(errno));
			goto fail;
		}
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
	if (g.daemonize) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			close(fd);
		}
		ok = 0;
		if (write(ready_pipe[1], &ok, 1) != 1)
			return 1;
		close(ready_pipe[1]);
	}

	while (run) {
		uint32_t head_before = g.len ? g.ring[g.head].id : 0;
		bool was_empty = !g.len;

		n = epoll_wait(ep, evs, 4, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("delayq: epoll_wait");
			break;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == nlfd) {
				if (!drain(nlfd))
					run = false;
			} else if (evs[i].data.fd == tfd) {
				uint64_t exp;

				if (read(tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
					perror("delayq: timerfd");
			} else if (evs[i].data.fd == sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGUSR1)
					write_stats();
				else if (si.ssi_signo == SIGUSR2)
					reset_stats();
				else
					run = false;
			}
		}
		release_due();
		/* Re-arm only when the head changed: fewer syscalls per packet. */
		if (was_empty != !g.len || (g.len && g.ring[g.head].id != head_before))
			arm_timer(tfd);
	}

	/* Let the held packets go rather than have the kernel drop them on unbind. */
	if (g.len) {
		g.flushed = g.len;
		nfq_set_verdict_batch(g.qh, g.ring[(g.head + g.len - 1) % g.cap].id, NF_ACCEPT);
		g.len = 0;
	}
	write_stats();
	nfq_destroy_queue(g.qh);
	nfq_close(g.h);
	if (g.pidfile)
		unlink(g.pidfile);
	return 0;

fail:
	if (g.daemonize && ready_pipe[1] >= 0) {
		ok = 1;
		if (write(ready_pipe[1], &ok, 1) < 0)
			return 1;
	}
	return 1;
}
