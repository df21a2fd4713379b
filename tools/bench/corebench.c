// SPDX-License-Identifier: GPL-2.0
/*
 * corebench: what each slow-start exit rule's core costs per ACK, side by
 * side in one run (make bench prints it before bench.sh's flows).
 *
 * The cores of include/cubic_core.h (Linux HyStart, HyStart++) and
 * include/search_core.h (SEARCH) and include/predict_core.h (PREDICT, kept
 * measuring: every ACK goes to its train) are compiled here with -O2, as the host
 * sees them; the BPF program runs the same source JIT-ed, plus what the glue
 * adds (map lookups: for SEARCH one more, of its socket storage). Each rule
 * gets the same synthetic slow start: ACKs every ACK_GAP_US, one segment
 * each, a 20 ms RTT with a little noise, and delivery one RTT behind sending,
 * so that no rule fires and every ACK takes the rule's common path (SEARCH
 * crosses a bin boundary every 7 ms, HyStart a round every 20 ms). Rounds of
 * the three rules alternate; the median of the rounds is printed, with each
 * rule's ratio to Linux HyStart.
 *
 * usage: corebench [ACKS_PER_ROUND [ROUNDS]]   (default 2000000, 9)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cubic_core.h"
#include "search_core.h"
#include "predict_core.h"
#include "verdict_core.h"

#define ACK_GAP_US 12 /* 1 Gbit/s of 1500-byte packets */
#define RTT_US	   20000
#define MSS	   1448

enum { R_LINUX, R_HSPP, R_SEARCH, R_PREDICT, R_VERDICT, R_COUNT };
static const char *const rule_names[R_COUNT] = { "linux (HyStart)", "hystart++", "search",
						 "predict (measuring)",
						 "verdict (after the exit, measuring)" };

static volatile __u32 sink; /* keeps the results alive */
static long search_reasons[SEARCH_R_COUNT]; /* of the last SEARCH round */
static long predict_judged;		     /* trains PREDICT judged, last round */
static long verdict_samples;		     /* rate samples the verdict kept, last round */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The same pseudo-random RTT noise for every rule: 0..255 us. */
static __u32 noise(__u32 *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0xff;
}

static double run(int rule, long acks)
{
	struct cubic_tunables t;
	struct cubic_state s;
	struct search_state ss;
	struct search_params p;
	struct predict_state ps;
	struct predict_params pp = { .skip = PREDICT_DEF_SKIP, .min_train_us = PREDICT_DEF_MIN_TRAIN,
				     .tolerance = PREDICT_DEF_TOLERANCE, .margin = PREDICT_DEF_MARGIN,
				     .rounds = PREDICT_MAX_ROUNDS, .gap_us = PREDICT_DEF_GAP, .pace = 0 };
	struct verdict_state vs;
	struct verdict_params vp;
	__u32 seed = 1, fired = 0;
	double t0, t1;

	cubic_tunables_defaults(&t);
	t.hystart = rule == R_HSPP ? CUBIC_HYSTART_PP : CUBIC_HYSTART_LINUX;
	memset(&s, 0, sizeof(s));
	memset(&ss, 0, sizeof(ss));
	predict_reset(&ps);
	predict_params_clamp(&pp);
	if (rule == R_SEARCH)
		memset(search_reasons, 0, sizeof(search_reasons));
	if (rule == R_PREDICT)
		predict_judged = 0;
	search_params_default(&p);
	cubic_init(&s, &t, 0, 0);
	verdict_params_default(&vp);
	verdict_start(&vs, 1000, 0, 0, 1000, RTT_US, 0);

	t0 = now_ns();
	for (long i = 1; i <= acks; i++) {
		__u64 now = (__u64)i * ACK_GAP_US;
		__u32 rtt = RTT_US + noise(&seed);

		if (rule == R_VERDICT) {
			/* every ACK after an exit until a congestion event:
			 * a rate sample (delivered over its interval) and an RTT */
			struct verdict_ack a = {
				.now_us = now,
				.delivered = (__u64)i,
				.packets_out = 1000,
				.rtt_us = rtt,
				.rs_delivered = 1000 + (noise(&seed) & 7),
				.rs_interval_us = RTT_US + (rtt & 0xff),
				.cwnd_limited = 1,
			};

			fired |= verdict_on_ack(&vs, &vp, &a);
		} else if (rule == R_PREDICT) {
			struct predict_verdict v;
			struct predict_ack a = {
				.now_us = (__u32)now,
				.snd_una = (__u32)(i * MSS),
				.snd_nxt = (__u32)((i + RTT_US / ACK_GAP_US) * MSS),
				.acked = 1,
				.cwnd = 1000,
				.inflight = 1000,
				.mss = MSS,
				.delay_min = RTT_US,
			};

			fired |= predict_on_ack(&ps, &pp, &a, &v);
			/* keep it measuring: a believed round starts it over */
			if (ps.phase != PREDICT_PH_MEASURE) {
				predict_judged++;
				predict_reset(&ps);
			}
		} else if (rule == R_SEARCH) {
			struct search_verdict v;
			struct search_ack a = {
				.now_us = now,
				.delivered = (__u64)i * MSS,
				/* what was delivered one RTT later: sent one RTT ahead */
				.sent = (__u64)(i + RTT_US / ACK_GAP_US) * MSS,
				.rtt_us = rtt,
				.cwnd = 1000,
				.inflight = 1000,
				.acked = 1,
				.mss = MSS,
			};

			fired |= search_on_ack(&ss, &p, &a, &v);
			search_reasons[v.reason]++;
		} else {
			struct hystart_verdict v;
			struct cubic_ack a = {
				.now_us = (__u32)now,
				.snd_una = (__u32)(i * MSS),
				.snd_nxt = (__u32)((i + RTT_US / ACK_GAP_US) * MSS),
				.cwnd = 1000,
				.ssthresh = 0x7fffffffU,
			};
			__u32 delay = cubic_rtt_sample(&s, (__s32)rtt, (__u32)(now / 4000), 250);

			memset(&v, 0, sizeof(v));
			fired |= cubic_hystart_ack(&s, &t, &a, delay, &v);
			s.found = 0; /* keep every rule on its common path */
		}
	}
	t1 = now_ns();
	sink = fired;
	if (rule == R_VERDICT)
		verdict_samples = vs.phase == VERDICT_MEASURING ? (long)vs.samples : -1;
	return (t1 - t0) / (double)acks;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long acks = argc > 1 ? atol(argv[1]) : 2000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 9;
	double ns[R_COUNT][64], med[R_COUNT];

	if (acks <= 0 || rounds <= 0 || rounds > 64) {
		fprintf(stderr, "usage: corebench [ACKS_PER_ROUND [ROUNDS (1-64)]]\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < R_COUNT; k++) {
			int rule = (k + r) % R_COUNT; /* the order rotates */

			ns[rule][r] = run(rule, acks);
		}
	printf("## The exit rules' cores, per ACK (host, -O2; %ld ACKs x %d rounds)\n\n", acks,
	       rounds);
	printf("| rule | ns per ACK (median) | min | max | ratio to linux |\n");
	printf("|---|---:|---:|---:|---:|\n");
	for (int k = 0; k < R_COUNT; k++) {
		qsort(ns[k], (size_t)rounds, sizeof(double), cmp);
		med[k] = ns[k][rounds / 2];
	}
	for (int k = 0; k < R_COUNT; k++)
		printf("| %s | %.1f | %.1f | %.1f | %.2f |\n", rule_names[k], med[k], ns[k][0],
		       ns[k][rounds - 1], med[k] / med[R_LINUX]);
	printf("\nSEARCH, last round: %ld ACKs inside a bin, %ld evaluated at a bin boundary "
	       "(continue), %ld exits, %ld other.\n",
	       search_reasons[SEARCH_R_NONE], search_reasons[SEARCH_R_CONTINUE],
	       search_reasons[SEARCH_R_EXIT],
	       acks - search_reasons[SEARCH_R_NONE] - search_reasons[SEARCH_R_CONTINUE] -
		       search_reasons[SEARCH_R_EXIT]);
	if (search_reasons[SEARCH_R_EXIT] || !search_reasons[SEARCH_R_CONTINUE]) {
		fprintf(stderr, "corebench: SEARCH left its common path: the figures are not its\n");
		return 1;
	}
	printf("\nPREDICT, last round: %ld trains judged (one per round of %d ACKs, at most %d points "
	       "each).\n",
	       predict_judged, RTT_US / ACK_GAP_US, PREDICT_MAX_POINTS);
	if (!predict_judged) {
		fprintf(stderr, "corebench: PREDICT judged no train: the figures are not its\n");
		return 1;
	}
	printf("\nThe verdict, last round: %ld rate samples counted, still measuring.\n",
	       verdict_samples);
	if (verdict_samples != acks) {
		fprintf(stderr, "corebench: the verdict stopped measuring: the figures are not its\n");
		return 1;
	}
	printf("\nThe rules' common path in slow start, no rule firing. In BPF, SEARCH and PREDICT "
	       "each add one bpf_sk_storage_get() per slow-start ACK (their state); PREDICT measures "
	       "only its one round and then only reads its phase; after slow start no rule runs. The verdict runs after the exit "
	       "instead, until a round after a congestion event (or 30 s, or 4 rounds not cwnd-limited), "
	       "plus one bpf_sk_storage_get() per ACK; then one byte is read per ACK.\n");
	return 0;
}
