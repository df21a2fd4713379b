// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the algorithm core (include/cubic_core.h): CUBIC against
 * RFC 9438's arithmetic and HyStart's rules on synthetic ACK/RTT sequences.
 * The HyStart cases pin the exact ACK or sample on which a detector fires, so
 * a detector that fires one ACK early or late fails.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include "cubic_core.h"
#include "unit.h"

#define HZ 250
#define C_OF(bic_scale) ((double)(bic_scale) * 10.0 / 1024.0)

static void setup(struct cubic_state *s, struct cubic_tunables *t)
{
	memset(s, 0, sizeof(*s));
	cubic_tunables_defaults(t);
	cubic_init(s, t, 0, 1000);
}

#define NOW_JIFFIES 100000

/* An ACK with an RTT sample, as pkts_acked sees it. */
struct test_ack {
	__s32 rtt_us;
	struct cubic_ack a;
};

/* An ACK inside the current round (snd_una before end_seq), slow start. */
static struct test_ack ack_at(__u32 now_us, __s32 rtt_us, __u32 cwnd)
{
	struct test_ack a = {
		.rtt_us = rtt_us,
		.a.now_us = now_us,
		.a.snd_una = 500,
		.a.snd_nxt = 900,
		.a.cwnd = cwnd,
		.a.ssthresh = 0x7fffffff,
	};
	return a;
}

/* cubictcp_acked() as the BPF glue runs it: both halves of the core. */
static __u8 cubic_pkts_acked(struct cubic_state *s, const struct cubic_tunables *t,
			     const struct test_ack *ta, struct hystart_verdict *v)
{
	__u32 delay = cubic_rtt_sample(s, ta->rtt_us, NOW_JIFFIES, HZ);

	v->found = 0;
	if (!delay || !cubic_hystart_pending(s, ta->a.cwnd, ta->a.ssthresh))
		return 0;
	return cubic_hystart_ack(s, t, &ta->a, delay, v);
}

/* ---- CUBIC ---- */

/*
 * The reference for cubic_root(): Linux's cubic_root() (net/ipv4/tcp_cubic.c)
 * transcribed independently of the core, with its own copy of the table and
 * the compiler's count of leading zeros for fls64(), so that a slip in
 * either copy shows up as a difference.
 */
static __u32 linux_cubic_root(__u64 a)
{
	static const unsigned char v[64] = {
		/* 0x00 */ 0,   54,	 54,  54,  118, 118, 118, 118,
		/* 0x08 */ 123, 129, 134, 138, 143, 147, 151, 156,
		/* 0x10 */ 157, 161, 164, 168, 170, 173, 176, 179,
		/* 0x18 */ 181, 185, 187, 190, 192, 194, 197, 199,
		/* 0x20 */ 200, 202, 204, 206, 209, 211, 213, 215,
		/* 0x28 */ 217, 219, 221, 222, 224, 225, 227, 229,
		/* 0x30 */ 231, 232, 234, 236, 237, 239, 240, 242,
		/* 0x38 */ 244, 245, 246, 248, 250, 251, 252, 254,
	};
	unsigned int b = a ? 64 - (unsigned int)__builtin_clzll(a) : 0;
	unsigned int shift, x;

	if (b < 7)
		return ((unsigned int)v[(unsigned int)a] + 35) >> 6;
	b = ((b * 84) >> 8) - 1;
	shift = (unsigned int)(a >> (b * 3));
	x = ((unsigned int)(((unsigned int)v[shift] + 10) << b)) >> 6;
	x = 2 * x + (unsigned int)(a / ((unsigned long long)x * (unsigned long long)(x - 1)));
	x = (x * 341) >> 10;
	return x;
}

static __u64 xorshift(__u64 *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 7;
	*seed ^= *seed << 17;
	return *seed;
}

/* K = cubic_root(cube_factor x (Wmax - cwnd)) is the kernel's for every input. */
TEST(cube_root_is_the_kernels)
{
	struct cubic_tunables t;
	__u64 seed = 0x9e3779b97f4a7c15ULL, bad = 0, first_bad = 0, n = 0;
	__u32 scales[] = { 41, 10, 1024 };

	cubic_tunables_defaults(&t);
	/* every a below 2^20 (the table-only range and the first Newton steps) */
	for (__u64 a = 0; a < (1ULL << 20); a++, n++)
		if (cubic_root(a) != linux_cubic_root(a) && !bad++)
			first_bad = a;
	/* every Wmax - cwnd up to 10^7, for the default C and two others */
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		t.bic_scale = scales[i];
		__u64 f = cubic_cube_factor(&t);
		for (__u64 d = 1; d <= (i == 0 ? 10000000ULL : 1000000ULL); d++, n++)
			if (cubic_root(f * d) != linux_cubic_root(f * d) && !bad++)
				first_bad = f * d;
	}
	/* random 64-bit inputs of every magnitude, and the edges of each power of 2 */
	for (int i = 0; i < 2000000; i++, n++) {
		__u64 r = xorshift(&seed), a = r >> (r % 64);

		if (i < 64 * 3)
			a = (1ULL << (i / 3)) + (__u64)(i % 3) - 1;
		if (i == 0)
			a = ~0ULL;
		if (cubic_root(a) != linux_cubic_root(a) && !bad++)
			first_bad = a;
	}
	CHECK(bad == 0, "%llu of %llu inputs differ from the kernel's, first a = %llu (ours %u, "
		  "kernel %u)", (unsigned long long)bad, (unsigned long long)n,
	      (unsigned long long)first_bad, cubic_root(first_bad), linux_cubic_root(first_bad));
	/* the audit's example: Wmax - cwnd = 1 gives K = 1388/1024 s, not 1389 */
	t.bic_scale = 41;
	CHECK_EQ(cubic_root(cubic_cube_factor(&t) * 1), 1388);
	CHECK_EQ(cubic_root(0), 0);
	CHECK_EQ(cubic_root(~0ULL), linux_cubic_root(~0ULL));
}

/* The kernel's root is an approximation: within 0.5% of cbrt() for a >= 2^27. */
TEST(cube_root_close_to_cbrt)
{
	__u64 seed = 12345;
	double worst = 0;

	for (int i = 0; i < 200000; i++) {
		__u64 r = xorshift(&seed), a = r >> (r % 37);
		long double c;

		if (a < (1ULL << 27))
			continue;
		c = cbrtl((long double)a);
		if ((double)(fabsl((long double)cubic_root(a) - c) / c) > worst)
			worst = (double)(fabsl((long double)cubic_root(a) - c) / c);
	}
	CHECK(worst < 0.005, "worst relative error %.4f%%", worst * 100);
}

/* RFC 9438 eq. 2: K = cbrt(Wmax (1 - beta) / C) seconds. */
TEST(k_matches_rfc)
{
	struct cubic_tunables t;
	__u32 scales[] = { 41, 10, 200, 1024 };

	cubic_tunables_defaults(&t);
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		t.bic_scale = scales[i];
		for (__u32 d = 1; d < 200000; d = d * 3 + 7) {
			double k = cubic_root(cubic_cube_factor(&t) * d) / 1024.0;
			double want = cbrt(d / C_OF(scales[i]));

			CHECK(fabs(k - want) <= 0.005 * want + 1.0 / 1024,
			      "bic_scale %u d %u: K %.4f s, RFC %.4f s", scales[i], d, k, want);
		}
	}
}

/* RFC 9438 eq. 1: W(t) = C (t - K)^3 + Wmax, before and after the plateau. */
TEST(target_window_matches_rfc)
{
	struct cubic_state s;
	struct cubic_tunables t;
	const __u32 wmax = 1000, cwnd = 700;

	setup(&s, &t);
	s.last_max_cwnd = wmax;
	cubic_update(&s, &t, cwnd, 1, 5000, HZ); /* starts the epoch: K, origin */
	CHECK_EQ(s.bic_origin_point, wmax);
	CHECK_EQ(s.epoch_start, 5000);

	for (__u64 tt = 0; tt <= 3 * (__u64)s.bic_K; tt += s.bic_K / 16) {
		double sec = tt / 1024.0, k = s.bic_K / 1024.0;
		double want = C_OF(41) * pow(sec - k, 3) + wmax;
		__u32 got = cubic_target(&s, &t, tt);

		CHECK(fabs(got - want) <= 1.0 + 0.001 * want, "t=%.3f s: W %u, RFC %.2f", sec, got,
		      want);
	}
	/* At t = 0 the window is Wmax - (Wmax - cwnd) = cwnd, give or take K's rounding. */
	CHECK(abs((int)cubic_target(&s, &t, 0) - (int)cwnd) <= 1, "W(0) %u",
	      cubic_target(&s, &t, 0));
}

/* Before any loss (Wmax = 0), cnt is at most 20: at least 5% growth per RTT. */
TEST(first_epoch_grows_five_percent)
{
	struct cubic_state s;
	struct cubic_tunables t;

	setup(&s, &t);
	cubic_update(&s, &t, 100, 1, 1000, HZ);
	CHECK(s.cnt <= 20 && s.cnt >= 2, "cnt %u", s.cnt);
}

/* Drive cong_avoid over n RTTs of rtt_j jiffies; returns the final cwnd. */
static __u32 simulate_ca(struct cubic_state *s, const struct cubic_tunables *t, __u32 cwnd,
			 int rtts, __u32 rtt_j)
{
	struct cubic_win w = { .cwnd = cwnd, .ssthresh = cwnd, .clamp = 100000 };
	__u32 now = 1000;

	for (int r = 0; r < rtts; r++) {
		__u32 n = w.cwnd;

		for (__u32 k = 0; k < n; k++)
			cubic_cong_avoid(s, t, &w, 1, now + k * rtt_j / n, HZ, 0);
		now += rtt_j;
	}
	return w.cwnd;
}

/*
 * RFC 9438 section 4.3: in the Reno-friendly region cwnd follows W_est, which
 * grows by alpha = 3 (1 - beta) / (1 + beta) = 0.53 packets per RTT.
 */
TEST(reno_friendly_growth)
{
	struct cubic_state s;
	struct cubic_tunables t;
	double alpha = 3.0 * (1 - 717 / 1024.0) / (1 + 717 / 1024.0);
	__u32 end;

	setup(&s, &t);
	t.bic_scale = 1; /* C tiny: the cubic term is negligible, Reno leads */
	s.delay_min = 100000;
	s.last_max_cwnd = 100;
	end = simulate_ca(&s, &t, 100, 40, 25);
	CHECK(fabs((end - 100) - 40 * alpha) <= 3.0, "grew %u in 40 RTTs, want %.1f", end - 100,
	      40 * alpha);

	setup(&s, &t);
	t.bic_scale = 1;
	t.tcp_friendliness = 0;
	s.delay_min = 100000;
	s.last_max_cwnd = 100;
	end = simulate_ca(&s, &t, 100, 40, 25);
	CHECK(end - 100 <= 3, "without friendliness grew %u in 40 RTTs", end - 100);
}

/* Concave then convex: after a loss cwnd climbs back to Wmax in about K. */
TEST(recovers_to_wmax_in_k)
{
	struct cubic_state s;
	struct cubic_tunables t;
	__u32 ssthresh, end;

	setup(&s, &t);
	s.delay_min = 40000;
	ssthresh = cubic_recalc_ssthresh(&s, &t, 1000);
	CHECK_EQ(ssthresh, 700);
	/* K = cbrt(300 / 0.4) = 9.08 s = 227 RTTs of 40 ms; at K, W = Wmax */
	end = simulate_ca(&s, &t, ssthresh, 227, 10);
	CHECK(end >= 985 && end <= 1015, "cwnd %u at t = K, want about 1000", end);
}

TEST(window_after_loss)
{
	struct cubic_state s;
	struct cubic_tunables t;

	setup(&s, &t);
	CHECK_EQ(cubic_recalc_ssthresh(&s, &t, 1000), 1000 * 717 / 1024);
	CHECK_EQ(s.last_max_cwnd, 1000);
	CHECK_EQ(s.epoch_start, 0);
	/* fast convergence: a loss below Wmax remembers cwnd x (1 + beta) / 2 */
	CHECK_EQ(cubic_recalc_ssthresh(&s, &t, 800), 800 * 717 / 1024);
	CHECK_EQ(s.last_max_cwnd, 800 * (1024 + 717) / 2048);
	t.fast_convergence = 0;
	cubic_recalc_ssthresh(&s, &t, 600);
	CHECK_EQ(s.last_max_cwnd, 600);
	/* never below 2 */
	CHECK_EQ(cubic_recalc_ssthresh(&s, &t, 2), 2);
	/* beta is live and clamped */
	t.beta = 512;
	CHECK_EQ(cubic_recalc_ssthresh(&s, &t, 1000), 500);
	t.beta = 0; /* a raw 0 written into the map reads as the minimum, 1 */
	CHECK_EQ(cubic_recalc_ssthresh(&s, &t, 100000), 97);
	t.beta = 5000; /* ... and too large as 1023 */
	CHECK_EQ(cubic_recalc_ssthresh(&s, &t, 1024), 1023);
}

TEST(slow_start_and_ai)
{
	struct cubic_win w = { .cwnd = 10, .ssthresh = 15, .clamp = 1000 };

	CHECK_EQ(cubic_slow_start(&w, 8), 3);
	CHECK_EQ(w.cwnd, 15);
	w = (struct cubic_win){ .cwnd = 10, .ssthresh = 100, .clamp = 12 };
	CHECK_EQ(cubic_slow_start(&w, 8), 0);
	CHECK_EQ(w.cwnd, 12);
	w = (struct cubic_win){ .cwnd = 10, .cwnd_cnt = 0, .clamp = 1000 };
	cubic_cong_avoid_ai(&w, 5, 12);
	CHECK_EQ(w.cwnd, 12);
	CHECK_EQ(w.cwnd_cnt, 2);
	w = (struct cubic_win){ .cwnd = 10, .cwnd_cnt = 7, .clamp = 1000 };
	cubic_cong_avoid_ai(&w, 5, 1); /* credit from a larger w applies first */
	CHECK_EQ(w.cwnd, 11);
	CHECK_EQ(w.cwnd_cnt, 1);
}

TEST(idle_shifts_epoch)
{
	struct cubic_state s = { .epoch_start = 1000 };

	cubic_on_tx_start(&s, 1500, 1400);
	CHECK_EQ(s.epoch_start, 1100);
	s.epoch_start = 1450;
	cubic_on_tx_start(&s, 1500, 1400); /* never into the future */
	CHECK_EQ(s.epoch_start, 1500);
	s.epoch_start = 0;
	cubic_on_tx_start(&s, 1500, 1400); /* no epoch, nothing to shift */
	CHECK_EQ(s.epoch_start, 0);
}

TEST(initial_ssthresh_only_without_hystart)
{
	struct cubic_state s = {};
	struct cubic_tunables t;

	cubic_tunables_defaults(&t);
	t.initial_ssthresh = 50;
	CHECK_EQ(cubic_init(&s, &t, 0, 0), 0);
	t.hystart = CUBIC_HYSTART_OFF;
	CHECK_EQ(cubic_init(&s, &t, 0, 0), 50);
	CHECK(s.flags & CUBIC_SF_INIT, "init flag");
}

/* ---- HyStart ---- */

/*
 * ACKs every gap_us from t=0 with RTT rtt_us; returns the index (1-based) of
 * the ACK on which HyStart fired, or 0.
 */
static int train_fires_at(struct cubic_tunables *t, __u32 cwnd, __u32 gap_us, __u32 rtt_us,
			  __u64 pacing_rate, __u8 paced, int max_acks, struct hystart_verdict *v)
{
	struct cubic_state s;
	struct cubic_tunables saved = *t;

	setup(&s, t);
	*t = saved;
	for (int k = 0; k <= max_acks; k++) {
		struct test_ack a = ack_at(k * gap_us, (__s32)rtt_us, cwnd);

		a.a.pacing_rate = pacing_rate;
		a.a.gso_max_size = 65536;
		a.a.paced = paced;
		if (cubic_pkts_acked(&s, t, &a, v))
			return k;
	}
	return 0;
}

TEST(ack_train_fires_on_exact_ack)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart_detect = CUBIC_HYSTART_ACK_TRAIN;
	/* delay_min 10 ms, unpaced: threshold (10000 x 8) >> 4 = 5000 us; the ACK at
	 * 5000 us is not past it, the one at 5100 us is. */
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 0, 0, 200, &v), 51);
	CHECK_EQ(v.found, CUBIC_HYSTART_ACK_TRAIN);
	CHECK_EQ(v.train_thresh, 5000);
	CHECK_EQ(v.train_len, 5100);
	/* the 2011 patch: 2 x delay_min */
	t.ack_train_shift = 2;
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 0, 0, 400, &v), 201);
	CHECK_EQ(v.train_thresh, 20000);
}

TEST(ack_train_low_window)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart_detect = CUBIC_HYSTART_ACK_TRAIN;
	CHECK_EQ(train_fires_at(&t, 15, 100, 10000, 0, 0, 300, &v), 0);
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 0, 0, 300, &v), 51);
	t.hystart_low_window = 100;
	CHECK_EQ(train_fires_at(&t, 99, 100, 10000, 0, 0, 300, &v), 0);
}

TEST(ack_train_gap)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart_detect = CUBIC_HYSTART_ACK_TRAIN;
	/* a 2000 us gap still continues the train (fires at 6000 > 5000), 2001 does not */
	CHECK_EQ(train_fires_at(&t, 16, 2000, 10000, 0, 0, 300, &v), 3);
	CHECK_EQ(train_fires_at(&t, 16, 2001, 10000, 0, 0, 300, &v), 0);
	t.hystart_ack_delta_us = 3000;
	CHECK_EQ(train_fires_at(&t, 16, 2001, 10000, 0, 0, 300, &v), 3);
}

TEST(ack_train_pacing_and_cushion)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart_detect = CUBIC_HYSTART_ACK_TRAIN;
	/* paced: no halving, threshold = delay_min = 10000 */
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 0, 1, 300, &v), 101);
	CHECK_EQ(v.train_thresh, 10000);
	/* cushion 65536 x 4 x 1e6 / 1e9 = 262 us: (10262 x 8) >> 4 = 5131 */
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 1000000000ULL, 0, 300, &v), 52);
	CHECK_EQ(v.train_thresh, 5131);
	/* a slow pacing rate caps the cushion at 1 ms: 11000 / 2 = 5500 */
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 1000, 0, 300, &v), 56);
	CHECK_EQ(v.train_thresh, 5500);
}

/*
 * Delay test: one ACK sets delay_min, then a new round of samples of rtt_us.
 * Returns the 1-based sample of the new round on which HyStart fired, or 0.
 */
static int delay_fires_at(struct cubic_tunables *t, __u32 delay_min, __u32 rtt_us, int max,
			  struct hystart_verdict *v)
{
	struct cubic_state s;
	struct cubic_tunables saved = *t;
	struct test_ack a;

	setup(&s, t);
	*t = saved;
	a = ack_at(0, (__s32)delay_min, 100);
	cubic_pkts_acked(&s, t, &a, v);
	for (int k = 1; k <= max; k++) {
		/* far apart: no ACK train; the first one starts a new round */
		a = ack_at(k * 10000, (__s32)rtt_us, 100);
		a.a.snd_una = 1001;
		a.a.snd_nxt = 5000;
		if (cubic_pkts_acked(&s, t, &a, v))
			return k;
		if (k == 1 && t->hystart == CUBIC_HYSTART_LINUX && (t->hystart_detect & CUBIC_HYSTART_DELAY))
			CHECK(s.rounds == 1 && s.sample_cnt == 1, "new round: rounds %u samples %u",
			      s.rounds, s.sample_cnt);
	}
	return 0;
}

TEST(delay_fires_on_exact_sample)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart_detect = CUBIC_HYSTART_DELAY;
	/* delay_min 10 ms: threshold 10000 + clamp(1250, 4000, 16000) = 14000; the
	 * first 8 samples only build the round's minimum, the 9th is tested. */
	CHECK_EQ(delay_fires_at(&t, 10000, 14001, 20, &v), 9);
	CHECK_EQ(v.found, CUBIC_HYSTART_DELAY);
	CHECK_EQ(v.rtt, 14001);
	CHECK_EQ(v.rtt_thresh, 14000);
	CHECK_EQ(delay_fires_at(&t, 10000, 14000, 20, &v), 0);
	t.hystart_min_samples = 4;
	CHECK_EQ(delay_fires_at(&t, 10000, 14001, 20, &v), 5);
}

TEST(delay_clamp)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart_detect = CUBIC_HYSTART_DELAY;
	/* small delay_min: 1000 >> 3 = 125 is raised to 4000 */
	CHECK_EQ(delay_fires_at(&t, 1000, 4999, 20, &v), 0);
	CHECK_EQ(delay_fires_at(&t, 1000, 5001, 20, &v), 9);
	CHECK_EQ(v.rtt_thresh, 5000);
	/* large delay_min: 200000 >> 3 = 25000 is cut to 16000 */
	CHECK_EQ(delay_fires_at(&t, 200000, 216001, 20, &v), 9);
	CHECK_EQ(v.rtt_thresh, 216000);
	/* the 2011 patch: rtt > 2 x delay_min, unclamped */
	t.delay_thresh_shift = 0;
	t.delay_thresh_min_us = 0;
	t.delay_thresh_max_us = CUBIC_MAX_delay_thresh_max_us;
	CHECK_EQ(delay_fires_at(&t, 10000, 20000, 20, &v), 0);
	CHECK_EQ(delay_fires_at(&t, 10000, 20001, 20, &v), 9);
}

TEST(hystart_off_or_no_detectors)
{
	struct cubic_tunables t;
	struct hystart_verdict v;

	cubic_tunables_defaults(&t);
	t.hystart = CUBIC_HYSTART_OFF;
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 0, 0, 300, &v), 0);
	CHECK_EQ(delay_fires_at(&t, 10000, 50000, 20, &v), 0);
	cubic_tunables_defaults(&t);
	t.hystart_detect = 0;
	CHECK_EQ(train_fires_at(&t, 16, 100, 10000, 0, 0, 300, &v), 0);
	CHECK_EQ(delay_fires_at(&t, 10000, 50000, 20, &v), 0);
}

/* Linux 2025: rounds restart on snd_una even while cwnd is below the low window. */
TEST(rounds_tracked_below_low_window)
{
	struct cubic_state s;
	struct cubic_tunables t;
	struct hystart_verdict v;
	struct test_ack a;

	setup(&s, &t);
	a = ack_at(7000, 10000, 4);
	a.a.snd_una = 1001;
	a.a.snd_nxt = 3000;
	cubic_pkts_acked(&s, &t, &a, &v);
	CHECK_EQ(s.rounds, 1);
	CHECK_EQ(s.round_start, 7000);
	CHECK_EQ(s.end_seq, 3000);
	CHECK_EQ(s.curr_rtt, ~0U);
}

/* No HyStart outside slow start, and none once it has fired. */
TEST(hystart_only_in_slow_start)
{
	struct cubic_state s;
	struct cubic_tunables t;
	struct hystart_verdict v;
	struct test_ack a;
	int fired = 0;

	setup(&s, &t);
	for (int k = 0; k < 300; k++) {
		a = ack_at(k * 100, 10000, 100);
		a.a.ssthresh = 50; /* cwnd >= ssthresh: congestion avoidance */
		fired |= cubic_pkts_acked(&s, &t, &a, &v);
	}
	CHECK_EQ(fired, 0);
	CHECK_EQ(s.delay_min, 10000);
}

/* Samples for a second after a reduction are ignored (fast recovery noise). */
TEST(samples_discarded_after_reduction)
{
	struct cubic_state s;
	struct cubic_tunables t;
	struct hystart_verdict v;
	struct test_ack a;

	setup(&s, &t);
	s.delay_min = 10000;
	s.epoch_start = 100000 - HZ + 1;
	a = ack_at(0, 5000, 100); /* now_jiffies 100000: less than HZ after epoch start */
	cubic_pkts_acked(&s, &t, &a, &v);
	CHECK_EQ(s.delay_min, 10000);
	s.epoch_start = 100000 - HZ;
	cubic_pkts_acked(&s, &t, &a, &v);
	CHECK_EQ(s.delay_min, 5000);
}

TEST(loss_state_resets)
{
	struct cubic_state s;
	struct cubic_tunables t;

	setup(&s, &t);
	s.found = CUBIC_HYSTART_DELAY;
	s.last_max_cwnd = 500;
	s.delay_min = 1234;
	s.rounds = 7;
	cubic_on_loss_state(&s, 99, 4242);
	CHECK_EQ(s.found, 0);
	CHECK_EQ(s.last_max_cwnd, 0);
	CHECK_EQ(s.delay_min, 0);
	CHECK_EQ(s.end_seq, 4242);
	CHECK_EQ(s.rounds, 7); /* telemetry survives */
}


/* ---- HyStart++ (RFC 9406 section 4) ---- */

struct hspp_sim {
	struct cubic_state s;
	struct cubic_tunables t;
	__u32 now, una, nxt;
};

static void hspp_setup(struct hspp_sim *h)
{
	memset(h, 0, sizeof(*h));
	cubic_tunables_defaults(&h->t);
	h->t.hystart = CUBIC_HYSTART_PP;
	cubic_init(&h->s, &h->t, 0, 1000);
	h->now = 0;
	h->una = 500;
	h->nxt = 1000;
}

/*
 * One round of n ACKs with RTT rtt_us (the first ACK starts the round).
 * Returns the CUBIC_EV_* bits seen and the 1-based ACK of the first one.
 */
static __u8 hspp_round(struct hspp_sim *h, int n, __u32 rtt_us, int *at, struct hystart_verdict *v)
{
	__u8 all = 0;

	*at = 0;
	h->una = h->nxt + 1; /* past the end of the previous round */
	h->nxt += 100000;
	for (int k = 1; k <= n; k++) {
		struct test_ack a = ack_at(h->now += 3000, (__s32)rtt_us, 100);
		__u8 f;

		a.a.snd_una = k == 1 ? h->una : h->una + (__u32)k;
		a.a.snd_nxt = h->nxt;
		f = cubic_pkts_acked(&h->s, &h->t, &a, v);
		if (f && !*at)
			*at = k;
		all |= f;
	}
	return all;
}

TEST(hspp_css_entry_exact)
{
	struct hspp_sim h;
	struct hystart_verdict v;
	int at;

	/* lastRoundMinRTT 10 ms: RttThresh = max(4, min(10/8, 16)) = 4 ms; entry when the
	 * round's min is >= 14 ms, tested from the 8th sample of the round on */
	hspp_setup(&h);
	CHECK_EQ(hspp_round(&h, 10, 10000, &at, &v), 0);
	CHECK_EQ(hspp_round(&h, 10, 14000, &at, &v), CUBIC_EV_CSS_ENTER);
	CHECK_EQ(at, 8);
	CHECK_EQ(v.rtt, 14000);
	CHECK_EQ(v.last_rtt, 10000);
	CHECK_EQ(v.rtt_thresh, 14000);
	CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_CSS);
	CHECK_EQ(h.s.css_baseline, 14000);

	hspp_setup(&h);
	hspp_round(&h, 10, 10000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 13999, &at, &v), 0);
	CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_SS);

	/* fewer than N_RTT_SAMPLE samples: no decision */
	hspp_setup(&h);
	hspp_round(&h, 10, 10000, &at, &v);
	CHECK_EQ(hspp_round(&h, 7, 50000, &at, &v), 0);
	/* no lastRoundMinRTT yet (first round): no decision */
	hspp_setup(&h);
	CHECK_EQ(hspp_round(&h, 20, 50000, &at, &v), 0);
}

TEST(hspp_threshold_clamped_both_ends)
{
	struct hspp_sim h;
	struct hystart_verdict v;
	int at;

	/* small: 1 ms / 8 = 125 us is raised to MIN_RTT_THRESH 4 ms */
	hspp_setup(&h);
	hspp_round(&h, 10, 1000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 4999, &at, &v), 0);
	hspp_setup(&h);
	hspp_round(&h, 10, 1000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 5000, &at, &v), CUBIC_EV_CSS_ENTER);
	/* large: 200 ms / 8 = 25 ms is cut to MAX_RTT_THRESH 16 ms */
	hspp_setup(&h);
	hspp_round(&h, 10, 200000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 215999, &at, &v), 0);
	hspp_setup(&h);
	hspp_round(&h, 10, 200000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 216000, &at, &v), CUBIC_EV_CSS_ENTER);
	CHECK_EQ(v.rtt_thresh, 216000);
	/* in between: 64 ms / 8 = 8 ms */
	hspp_setup(&h);
	hspp_round(&h, 10, 64000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 72000, &at, &v), CUBIC_EV_CSS_ENTER);
}

TEST(hspp_resume_on_rtt_drop)
{
	struct hspp_sim h;
	struct hystart_verdict v;
	int at;

	hspp_setup(&h);
	hspp_round(&h, 10, 10000, &at, &v);
	hspp_round(&h, 10, 15000, &at, &v); /* CSS, baseline 15 ms */
	/* a CSS round whose min stays at the baseline: still CSS */
	CHECK_EQ(hspp_round(&h, 10, 15000, &at, &v), 0);
	/* one below it: spurious exit, back to slow start on the 8th sample */
	CHECK_EQ(hspp_round(&h, 10, 14999, &at, &v), CUBIC_EV_CSS_RESUME);
	CHECK_EQ(at, 8);
	CHECK_EQ(v.baseline, 15000);
	CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_SS);
	CHECK_EQ(h.s.css_baseline, ~0U);
}

TEST(hspp_exit_after_exactly_css_rounds)
{
	for (__u32 rounds = 1; rounds <= 6; rounds++) {
		struct hspp_sim h;
		struct hystart_verdict v;
		int at, css_round = 0;
		__u8 f = 0;

		hspp_setup(&h);
		h.t.css_rounds = rounds;
		hspp_round(&h, 10, 10000, &at, &v);
		CHECK_EQ(hspp_round(&h, 10, 15000, &at, &v), CUBIC_EV_CSS_ENTER);
		/* the entry round counts as CSS round 1; the exit comes on the first ACK
		 * of the round after CSS round `rounds` */
		for (int r = 2; r <= 10 && !(f & CUBIC_EV_CSS_EXIT); r++) {
			f = hspp_round(&h, 10, 15000, &at, &v);
			css_round = r;
		}
		CHECK(f == CUBIC_EV_CSS_EXIT, "css_rounds %u: no exit", rounds);
		CHECK(css_round == (int)rounds + 1 && at == 1,
		      "css_rounds %u: exit in round %d ACK %d, want round %u ACK 1", rounds,
		      css_round, at, rounds + 1);
		CHECK_EQ(v.css_rounds, rounds);
		CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_DONE);
		/* and nothing more happens in this flow */
		CHECK_EQ(hspp_round(&h, 10, 50000, &at, &v), 0);
	}
}

TEST(hspp_growth_limit_and_css_divisor)
{
	struct hspp_sim h;
	struct cubic_win w = { .cwnd = 100, .ssthresh = 0x7fffffff, .clamp = 100000 };

	hspp_setup(&h);
	/* slow start: min(acked, L = 8) per ACK unless paced */
	CHECK_EQ(hspp_slow_start(&h.s, &h.t, &w, 20, 0), 0);
	CHECK_EQ(w.cwnd, 108);
	hspp_slow_start(&h.s, &h.t, &w, 20, 1);
	CHECK_EQ(w.cwnd, 128);
	h.t.hspp_ack_limit = 2;
	hspp_slow_start(&h.s, &h.t, &w, 5, 0);
	CHECK_EQ(w.cwnd, 130);
	h.t.hspp_ack_limit = 8;
	/* CSS: a quarter of it, the remainder carried over */
	h.s.hspp_phase = CUBIC_HSPP_CSS;
	hspp_slow_start(&h.s, &h.t, &w, 8, 0);
	CHECK_EQ(w.cwnd, 132);
	hspp_slow_start(&h.s, &h.t, &w, 3, 0); /* 3/4: nothing yet */
	CHECK_EQ(w.cwnd, 132);
	hspp_slow_start(&h.s, &h.t, &w, 3, 0); /* 6/4: one, 2 carried */
	CHECK_EQ(w.cwnd, 133);
	hspp_slow_start(&h.s, &h.t, &w, 2, 0); /* 4/4 */
	CHECK_EQ(w.cwnd, 134);
	/* never past ssthresh; the rest goes on to congestion avoidance */
	h.s.hspp_phase = CUBIC_HSPP_SS;
	w = (struct cubic_win){ .cwnd = 100, .ssthresh = 103, .clamp = 100000 };
	CHECK_EQ(hspp_slow_start(&h.s, &h.t, &w, 5, 0), 2);
	CHECK_EQ(w.cwnd, 103);
}

/* Loss or ECN ends HyStart++; it runs only in the initial slow start (RFC 9406 4.3). */
TEST(hspp_initial_slow_start_only)
{
	struct hspp_sim h;
	struct hystart_verdict v;
	int at;

	hspp_setup(&h);
	hspp_round(&h, 10, 10000, &at, &v);
	cubic_recalc_ssthresh(&h.s, &h.t, 100); /* a loss in slow start */
	cubic_on_loss_state(&h.s, 0, h.nxt);	/* then an RTO */
	CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_DONE);
	CHECK_EQ(hspp_round(&h, 10, 10000, &at, &v), 0);
	CHECK_EQ(hspp_round(&h, 10, 50000, &at, &v), 0);
	/* an idle restart re-arms it only with hspp_after_idle */
	cubic_on_cwnd_restart(&h.s, &h.t, 0, h.nxt);
	CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_DONE);
	h.t.hspp_after_idle = 1;
	cubic_on_cwnd_restart(&h.s, &h.t, 0, h.nxt);
	CHECK_EQ(h.s.hspp_phase, CUBIC_HSPP_SS);
	hspp_round(&h, 10, 10000, &at, &v);
	CHECK_EQ(hspp_round(&h, 10, 15000, &at, &v), CUBIC_EV_CSS_ENTER);
}

/* cong_avoid uses HyStart++ growth only in that mode and phase. */
TEST(hspp_cong_avoid_dispatch)
{
	struct hspp_sim h;
	struct cubic_win w = { .cwnd = 100, .ssthresh = 0x7fffffff, .clamp = 100000 };

	hspp_setup(&h);
	cubic_cong_avoid(&h.s, &h.t, &w, 20, 1000, HZ, 0);
	CHECK_EQ(w.cwnd, 108);
	h.t.hystart = CUBIC_HYSTART_LINUX; /* Linux slow start: no L limit */
	cubic_cong_avoid(&h.s, &h.t, &w, 20, 1000, HZ, 0);
	CHECK_EQ(w.cwnd, 128);
}

int main(void)
{
	RUN(cube_root_is_the_kernels);
	RUN(cube_root_close_to_cbrt);
	RUN(k_matches_rfc);
	RUN(target_window_matches_rfc);
	RUN(first_epoch_grows_five_percent);
	RUN(reno_friendly_growth);
	RUN(recovers_to_wmax_in_k);
	RUN(window_after_loss);
	RUN(slow_start_and_ai);
	RUN(idle_shifts_epoch);
	RUN(initial_ssthresh_only_without_hystart);
	RUN(ack_train_fires_on_exact_ack);
	RUN(ack_train_low_window);
	RUN(ack_train_gap);
	RUN(ack_train_pacing_and_cushion);
	RUN(delay_fires_on_exact_sample);
	RUN(delay_clamp);
	RUN(hystart_off_or_no_detectors);
	RUN(rounds_tracked_below_low_window);
	RUN(hystart_only_in_slow_start);
	RUN(samples_discarded_after_reduction);
	RUN(loss_state_resets);
	RUN(hspp_css_entry_exact);
	RUN(hspp_threshold_clamped_both_ends);
	RUN(hspp_resume_on_rtt_drop);
	RUN(hspp_exit_after_exactly_css_rounds);
	RUN(hspp_growth_limit_and_css_divisor);
	RUN(hspp_initial_slow_start_only);
	RUN(hspp_cong_avoid_dispatch);
	return unit_done("test_core");
}
