// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the PREDICT core (include/predict_core.h) on synthetic ACK
 * trains. Every expected number is worked out in the comments.
 *
 * Set-up: MSS 1000 bytes, delay_min 100 ms. A round is fed as the ACKs of
 * its packets, one packet each, at the given gaps; the next round's first
 * ACK ends it (that is where PREDICT judges a round). With 1000 us between
 * ACKs the bottleneck rate is 1000 B / 1000 us = 1,000,000 B/s, the BDP
 * 1,000,000 x 0.1 s / 1000 = 100 packets, and the target with the default
 * margin (30 per mille) ceil(100 x 1.03) = 103.
 */
#include <string.h>
#include "predict_core.h"
#include "cubic_tunables.h"
#include "unit.h"

#define MSS  1000U
#define DMIN 100000U
/* predict_policer_measure(): packets delivered over us */
#define MEAS(d, us)		  predict_policer_measure(d, us, DMIN, 1448)

struct feeder {
	struct predict_state s;
	struct predict_params p;
	struct predict_verdict v;
	__u32 now, una, nxt, cwnd;
	__u8 paced;
	int acts[8]; /* how often each action came */
};

static void params_default(struct predict_params *p)
{
	p->skip = PREDICT_DEF_SKIP;
	p->min_train_us = PREDICT_DEF_MIN_TRAIN;
	p->tolerance = PREDICT_DEF_TOLERANCE;
	p->margin = PREDICT_DEF_MARGIN;
	p->rounds = PREDICT_DEF_ROUNDS;
	p->gap_us = PREDICT_DEF_GAP;
	p->pace = 1;
	predict_params_clamp(p);
}

static void feeder_init(struct feeder *f)
{
	memset(f, 0, sizeof(*f));
	predict_reset(&f->s);
	params_default(&f->p);
	f->now = 5000000;
	f->una = 100000;
	f->cwnd = 10;
}

/* One ACK of one packet; inflight is what the round has left out. */
static __u8 ack(struct feeder *f, __u32 inflight)
{
	struct predict_ack a = {
		.now_us = f->now,
		.snd_una = f->una,
		.snd_nxt = f->nxt,
		.acked = 1,
		.cwnd = f->cwnd,
		.inflight = inflight,
		.mss = MSS,
		.delay_min = DMIN,
		.paced = f->paced,
	};
	__u8 act = predict_on_ack(&f->s, &f->p, &a, &f->v);

	f->acts[act & 7]++;
	return act;
}

/*
 * A round of n packets sent back to back (nxt moves past them first), ACKed
 * at the given gaps (gaps[i] before ACK i + 1). Returns the action of its
 * first ACK, which ends the previous round.
 */
static __u8 round_of(struct feeder *f, int n, const __u32 *gaps, int full)
{
	__u8 first;

	f->nxt = f->una + n * MSS;
	f->una += MSS;
	first = ack(f, full ? n - 1 : 0);
	for (int i = 1; i < n; i++) {
		f->now += gaps[i - 1];
		f->una += MSS;
		ack(f, n - 1 - i);
	}
	f->now += DMIN; /* the next round's first ACK, an RTT on */
	f->cwnd += n;
	return first;
}

/* The next round's first ACK: the end of the last one, judged. */
static __u8 end_round(struct feeder *f)
{
	f->nxt = f->una + 2 * f->cwnd * MSS;
	f->una += MSS;
	return ack(f, f->cwnd);
}

static void uniform(__u32 *g, int n, __u32 gap)
{
	for (int i = 0; i < n; i++)
		g[i] = gap;
}

/*
 * A fresh flow's round of 40 packets whose ACKs come in bunches of EVERY, 30
 * us apart within a bunch and PERIOD_GAP from a bunch's last ACK to the next
 * one's first; the gap before ACK AT (0: none) is AT_GAP instead.
 */
static void bunched_round(struct feeder *f, __u32 *g, int every, __u32 period_gap, int at,
			  __u32 at_gap)
{
	feeder_init(f);
	for (int k = 1; k < 40; k++)
		g[k - 1] = k % every ? 30 : k == at ? at_gap : period_gap;
	round_of(f, 40, g, 1);
}

TEST(defaults_are_the_tunables)
{
	CHECK_EQ(CUBIC_DEF_predict_skip, PREDICT_DEF_SKIP);
	CHECK_EQ(CUBIC_DEF_predict_min_train_us, PREDICT_DEF_MIN_TRAIN);
	CHECK_EQ(CUBIC_DEF_predict_tolerance, PREDICT_DEF_TOLERANCE);
	CHECK_EQ(CUBIC_DEF_predict_margin, PREDICT_DEF_MARGIN);
	CHECK_EQ(CUBIC_DEF_predict_rounds, PREDICT_DEF_ROUNDS);
	CHECK_EQ(CUBIC_MAX_predict_skip, PREDICT_MAX_SKIP);
	CHECK_EQ(CUBIC_MAX_predict_rounds, PREDICT_MAX_ROUNDS);
	CHECK_EQ(CUBIC_DEF_predict_rise_us, PREDICT_DEF_RISE_US);
}

TEST(params_clamp)
{
	struct predict_params p = { .skip = 1000, .min_train_us = 1, .tolerance = 5000,
				    .margin = 5000, .rounds = 0, .gap_us = 0, .pace = 7 };

	predict_params_clamp(&p);
	CHECK_EQ(p.skip, PREDICT_MAX_SKIP);
	CHECK_EQ(p.min_train_us, PREDICT_MIN_MIN_TRAIN);
	CHECK_EQ(p.tolerance, PREDICT_MAX_TOLERANCE);
	CHECK_EQ(p.margin, PREDICT_MAX_MARGIN);
	CHECK_EQ(p.gap_us, 1);
	/* paced: only the one round whose data left unpaced can be measured */
	CHECK_EQ(p.pace, 1);
	CHECK_EQ(p.rounds, 1);
	p.pace = 0;
	p.rounds = 99;
	predict_params_clamp(&p);
	CHECK_EQ(p.rounds, PREDICT_MAX_ROUNDS);
}

TEST(target_arithmetic)
{
	/* 1e6 B/s x 0.1 s = 100000 B = 100 packets; x 1.03 = 103 */
	CHECK_EQ(predict_target_of(1000000, DMIN, MSS, 30), 103);
	CHECK_EQ(predict_target_of(1000000, DMIN, MSS, 0), 100);
	/* ceil: 100001 B is 100.001 packets -> 101 */
	CHECK_EQ(predict_target_of(1000010, DMIN, MSS, 0), 101);
	/* at least 2; at most below TCP_INFINITE_SSTHRESH */
	CHECK_EQ(predict_target_of(1, 1, MSS, 0), 2);
	CHECK_EQ(predict_target_of(~0ULL, ~0U, 1, 1000), PREDICT_MAX_TARGET);
	/* a zero mss is taken as 1 rather than divided by */
	CHECK_EQ(predict_target_of(1000, 1000000, 0, 0), 1000);
}

TEST(clean_initial_window)
{
	struct feeder f;
	__u32 g[9];

	feeder_init(&f);
	uniform(g, 9, 1000);
	/*
	 * The initial window left unpaced; pacing begins on the ACK where the
	 * train is long enough to judge (5 points and min_train_us 1000): the
	 * train's first point is the 2nd ACK (skip 1), its 5th the 6th ACK, at
	 * 4000 us. The round's first ACK only begins it.
	 */
	CHECK_EQ(round_of(&f, 10, g, 1), PREDICT_ACT_NONE);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 1);
	CHECK_EQ(f.s.pacing, 1);
	CHECK_EQ(f.s.phase, PREDICT_PH_MEASURE);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.s.phase, PREDICT_PH_FILL);
	/* 10 points, 9000 us, 9000 bytes: exactly 1e6 B/s both ways */
	CHECK_EQ(f.v.train_acks, 10);
	CHECK_EQ(f.v.train_us, 9000);
	CHECK_EQ(f.v.train_bytes, 9000);
	CHECK_EQ(f.v.rate, 1000000);
	CHECK_EQ(f.v.mean_rate, 1000000);
	/* points on a line: r^2 = 1 (1000 per mille, up to the u sums' rounding) */
	CHECK(f.v.line >= 999, "line %u", f.v.line);
	CHECK_EQ(f.v.target, 103);
	CHECK_EQ(f.v.round, 1);
	CHECK_EQ(f.v.delay_min, DMIN);
	CHECK_EQ(f.v.cwnd, 20);
	CHECK_EQ(f.v.failed_rounds, 0);
	/* kept in the state for the records, and nothing more happens */
	CHECK_EQ(f.s.v.target, 103);
	CHECK_EQ(end_round(&f), PREDICT_ACT_NONE);
}

TEST(leading_burst_is_trimmed)
{
	struct feeder f;
	/* a token bucket lets 3 packets through at once: ACK gaps 5, 3 us */
	__u32 g[9] = { 5, 3, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };

	feeder_init(&f);
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	/* points 0 and 1 go; point 2 starts a train of 8 points, 7000 us */
	CHECK_EQ(f.v.train_acks, 8);
	CHECK_EQ(f.v.train_us, 7000);
	CHECK_EQ(f.v.rate, 1000000);
	CHECK_EQ(f.v.target, 103);
}

TEST(burst_threshold_is_two_thirds_of_the_median)
{
	struct feeder f;
	/* median of the first 8 gaps is 1000; 667 x 3 >= 2000 stays, 666 goes */
	__u32 keep[9] = { 667, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
	__u32 drop[9] = { 666, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };

	feeder_init(&f);
	round_of(&f, 10, keep, 1);
	end_round(&f);
	CHECK_EQ(f.v.train_acks, 10);
	feeder_init(&f);
	round_of(&f, 10, drop, 1);
	end_round(&f);
	CHECK_EQ(f.v.train_acks, 9);
	CHECK_EQ(f.v.train_us, 8000);
	CHECK_EQ(f.v.rate, 1000000);
}

TEST(bunched_tail_fails_the_tolerance)
{
	struct feeder f;
	/*
	 * Four ACKs bunched at the end: mean rate 9000 B / 6030 us = 1.49e6,
	 * the fit's slope lower; they differ by more than 10 %, and the
	 * points are too few and too far off a line to give the slope to
	 * 10 % (below): no estimate.
	 */
	__u32 g[9] = { 1000, 1000, 1000, 1000, 1000, 1000, 10, 10, 10 };

	feeder_init(&f);
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.s.phase, PREDICT_PH_DONE);
	CHECK_EQ(f.v.target, 0);
	CHECK_EQ(f.s.v.failed_rounds, 1);
	CHECK_EQ(f.v.mean_rate, 9000ULL * 1000000 / 6030);
	CHECK(f.v.rate < f.v.mean_rate * 9 / 10, "fit %llu mean %llu",
	      (unsigned long long)f.v.rate, (unsigned long long)f.v.mean_rate);
	/*
	 * With a tolerance of 1000 per mille it would have been believed: 6
	 * points 1000 us apart and the bunch's one point (it replaced the
	 * 7th; x 0 .. 5000, 6030; y 0 .. 5000, 9000) have r^2 0.913, a slope
	 * known to 15 % (predict_line_ok()), within 100 %.
	 */
	feeder_init(&f);
	f.p.tolerance = 1000;
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK(f.v.line >= 905 && f.v.line <= 920, "line %u", f.v.line);
}

/*
 * A train on a line whose fit and mean disagree by 10-20 % (1-2 x the
 * tolerance): believed, at the lower of the two (v.disagreed); beyond twice
 * it is not. The fit alone is what a tolerance of 1000 per mille believes.
 */
TEST(disagreeing_ends_give_the_lower)
{
	struct feeder f;
	__u64 fit;
	/*
	 * Six ACKs bunched at the end (20 gaps of 1000 us, 6 of 10): the
	 * bunch's one point lies above the others' line, the mean (26000 B over
	 * 20060 us) reads 1.30e6 B/s, the fit 1.08e6: 16.9 % apart. The 21
	 * points are on a line to a standard error of 4.1 %, within half the
	 * tolerance.
	 */
	__u32 g[26];

	uniform(g, 26, 1000);
	for (int i = 20; i < 26; i++)
		g[i] = 10;
	feeder_init(&f);
	f.p.tolerance = 1000;
	round_of(&f, 27, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.disagreed, 0);
	fit = f.v.rate;
	CHECK_EQ(f.v.mean_rate, 26000ULL * 1000000 / 20060);
	CHECK(fit * 1000 < f.v.mean_rate * 900 && fit * 1000 >= f.v.mean_rate * 800, "fit %llu mean %llu",
	      (unsigned long long)fit, (unsigned long long)f.v.mean_rate);
	CHECK(predict_line_ok(f.v.train_acks, f.v.line, PREDICT_DEF_TOLERANCE / 2), "n %u line %u",
	      f.v.train_acks, f.v.line);
	feeder_init(&f);
	round_of(&f, 27, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.disagreed, 1);
	CHECK_EQ(f.v.rate, fit);
	CHECK_EQ(f.v.target, predict_target_of(fit, DMIN, MSS, PREDICT_DEF_MARGIN));
	/*
	 * Both ends held back: the gap after the first ACK 1900 us, before
	 * the last 4000 (below the 4 x mean gap that would end the train),
	 * 17 of 1000 us between: the mean (19000 B over 22900 us) reads low,
	 * the fit less so: the mean is the estimate.
	 */
	uniform(g, 19, 1000);
	g[0] = 1900;
	g[18] = 4000;
	feeder_init(&f);
	f.p.tolerance = 1000;
	round_of(&f, 20, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	fit = f.v.rate;
	feeder_init(&f);
	round_of(&f, 20, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.disagreed, 1);
	CHECK_EQ(f.v.mean_rate, 19000ULL * 1000000 / 22900);
	CHECK_EQ(f.v.rate, f.v.mean_rate);
	CHECK(fit * 1000 > f.v.mean_rate * 1100, "fit %llu mean %llu", (unsigned long long)fit,
	      (unsigned long long)f.v.mean_rate);
	/*
	 * Beyond twice the tolerance. The last ACK held back 2600 us (21 gaps
	 * of 1000 us, then 3600): its points give the slope to 1.6 % and fit
	 * and mean are 8.2 % apart. With a tolerance of 50 per mille that is
	 * within twice it: believed, at the mean; with 40 it is beyond, and the
	 * train is refused although its points are on a line (within half of
	 * 40 per mille): the disagreement's refusal alone.
	 */
	uniform(g, 22, 1000);
	g[21] = 3600;
	feeder_init(&f);
	f.p.tolerance = 50;
	round_of(&f, 23, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.disagreed, 1);
	CHECK_EQ(f.v.rate, f.v.mean_rate);
	feeder_init(&f);
	f.p.tolerance = 40;
	round_of(&f, 23, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.v.target, 0);
	CHECK_EQ(f.v.disagreed, 0);
	CHECK(predict_line_ok(f.v.train_acks, f.v.line, 40 / 2), "n %u line %u", f.v.train_acks,
	      f.v.line);
	CHECK(f.v.rate * 1000 > f.v.mean_rate * 1080 && f.v.rate * 1000 <= f.v.mean_rate * 1100,
	      "fit %llu mean %llu", (unsigned long long)f.v.rate, (unsigned long long)f.v.mean_rate);
	/* within the tolerance: the fit, not flagged */
	uniform(g, 19, 1000);
	g[18] = 1500;
	feeder_init(&f);
	round_of(&f, 20, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.disagreed, 0);
	CHECK(f.v.rate > f.v.mean_rate, "fit %llu mean %llu", (unsigned long long)f.v.rate,
	      (unsigned long long)f.v.mean_rate);
}

TEST(jittered_train_is_not_on_a_line)
{
	struct feeder f;
	/*
	 * ACKs held a random time on their way back (jitter, never reordered)
	 * come in clusters: 100 us apart, with a 1000 us hole after the 4th
	 * and at the end. The train is stretched as a whole, so its fit and
	 * its mean agree (3,246,206 and 3,333,333 B/s: 2.6 %, within the
	 * tolerance) and both read a third of the 1e7 B/s of its 100 us
	 * gaps; its points are not on a line: r^2 0.909 (x 0, 100, 200, 300,
	 * 1300, 1400, ..., 1700, 2700; y 0 .. 9000), so its 10 points give
	 * the slope to sqrt(0.091 / (8 x 0.909)) = 11 %, beyond the 10 %
	 * tolerance. Not believed: HyStart decides, rather than an exit at a
	 * third of the BDP. Spread evenly over the same 2700 us, the train is
	 * believed.
	 */
	__u32 g[9] = { 100, 100, 100, 1000, 100, 100, 100, 100, 1000 };

	feeder_init(&f);
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.v.target, 0);
	CHECK_EQ(f.v.mean_rate, 9000ULL * 1000000 / 2700);
	CHECK(f.v.rate * 1000 > f.v.mean_rate * 950 && f.v.rate < f.v.mean_rate, "fit %llu mean %llu",
	      (unsigned long long)f.v.rate, (unsigned long long)f.v.mean_rate);
	CHECK(f.v.line >= 900 && f.v.line <= 918, "line %u", f.v.line);
	feeder_init(&f);
	uniform(g, 9, 300);
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK(f.v.line >= 999, "line %u", f.v.line);
}

/*
 * A scattered train: ACKs in clumps (an ACK path that holds them a random
 * time, never reordering), 19 packets whose 8 points (a clump is one
 * point, at its last ACK) give the slope to 7.3 % (r^2 0.969), with fit
 * and mean 2.8 % apart. Every jittered train the evaluation believed
 * below 0.8 x the rate had an error of 6.8-9.9 %; the slope must be known
 * to half the tolerance (5 % by default), so this one is refused and
 * HyStart decides. Twice the tolerance believes it.
 */
TEST(scattered_train_needs_half_the_tolerance)
{
	static const __u32 g[18] = { 1500, 40, 40, 40, 1200, 40, 40, 40, 1800,
				     40, 40, 40, 300, 40, 1800, 40, 300, 40 };
	struct feeder f;

	feeder_init(&f);
	round_of(&f, 19, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.v.target, 0);
	CHECK_EQ(f.v.train_acks, 8);
	CHECK(f.v.line >= 965 && f.v.line <= 972, "line %u", f.v.line);
	CHECK_EQ(predict_line_ok(8, f.v.line, PREDICT_DEF_TOLERANCE), 1);
	CHECK_EQ(predict_line_ok(8, f.v.line, PREDICT_DEF_TOLERANCE / 2), 0);
	feeder_init(&f);
	f.p.tolerance = 2 * PREDICT_DEF_TOLERANCE;
	round_of(&f, 19, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.disagreed, 0);
}

/* predict_line() of n points' sums sum(x), sum(x^2), sum(u), sum(u^2), sum(x u) */
static __u32 line_of(__u64 n, __u64 sx, __u64 sxx, __u64 su, __u64 suu, __u64 sxu)
{
	struct predict_sums m = { .sx = sx, .sxx = sxx, .su = su, .suu = suu, .sxu = sxu };

	return predict_line(n, &m);
}

TEST(line_arithmetic)
{
	/*
	 * predict_line_ok(): the trains of eval's runs. j100_20_2 (4 ms of
	 * jitter): 5 points at r^2 0.953 (an error of 12.8 %) and 9 at 0.934
	 * (10.05 %) fail; clean paths (20 points at 0.967, 8 at 0.989) pass.
	 */
	CHECK_EQ(predict_line_ok(5, 953, 100), 0);
	CHECK_EQ(predict_line_ok(9, 934, 100), 0);
	CHECK_EQ(predict_line_ok(20, 967, 100), 1);
	CHECK_EQ(predict_line_ok(8, 989, 100), 1);
	/* 12 points, tolerance 10 %: r^2 >= 1000 / 1.1 = 909.09 per mille */
	CHECK_EQ(predict_line_ok(12, 910, 100), 1);
	CHECK_EQ(predict_line_ok(12, 909, 100), 0);
	/* a looser tolerance admits more scatter; none, a perfect line only */
	CHECK_EQ(predict_line_ok(5, 953, 150), 1);
	CHECK_EQ(predict_line_ok(5, 999, 0), 0);
	CHECK_EQ(predict_line_ok(5, 1000, 0), 1);
	CHECK_EQ(predict_line_ok(2, 1000, 100), 0);

	/* (x, u): (0, 0), (1, 1), (2, 2): a line */
	CHECK_EQ(line_of(3, 3, 5, 3, 5, 5), 1000);
	/* (0, 0), (1, 2), (2, 1): Sxx = 3 x 5 - 9 = 6, Suu = 3 x 5 - 9 = 6, Sxu = 3 x 4 - 9 = 3: r^2 = 9 / 36 */
	CHECK_EQ(line_of(3, 3, 5, 3, 5, 4), 250);
	/* falling or flat: undefined, 0 */
	CHECK_EQ(line_of(3, 3, 5, 3, 5, 1), 0);
	CHECK_EQ(line_of(3, 3, 5, 3, 3, 3), 0);
	CHECK_EQ(line_of(2, 1, 1, 1, 1, 1), 0);
	/*
	 * At the bounds (128 points, x up to 2^22 us, u up to 2^24): the
	 * centred sums reach 2^55-2^62 and are halved together below 2^26; a
	 * line stays 1000. x_i = i 2^15, u_i = i 2^17 (i = 0..127): sum i =
	 * 8128, sum i^2 = 690,880.
	 */
	{
		__u64 n = 128, si = 8128, sii = 690880;

		CHECK_EQ(line_of(n, si << 15, sii << 30, si << 17, sii << 34, sii << 32), 1000);
	}
	/*
	 * A slow link: 10 packets of 1448 bytes at 1 Mbit/s, 11,584 us apart
	 * (u_i = 362 i): Sxx is 1000 x Suu, and both keep enough bits.
	 */
	{
		__u64 n = 10, si = 45, sii = 285;

		CHECK_EQ(line_of(n, si * 11584, sii * 11584 * 11584, si * 362, sii * 362 * 362,
				 sii * 11584 * 362), 1000);
	}
	/* too far apart to be read to a per mille (Suu halved below 2^8): not judged, 1000 */
	{
		__u64 n = 10, si = 45, sii = 285;

		CHECK_EQ(line_of(n, si << 20, sii << 40, si, sii, sii << 20), 1000);
	}
}

/*
 * The branch-free arithmetic (predict_burst(), predict_slope(),
 * predict_line(): see PREDICT_OPAQUE()) against the loops it replaced,
 * kept here as written before: the same numbers on every input, ties,
 * wrapped gaps and short trains included.
 */
static __u32 ref_burst(const struct predict_state *s)
{
	__u32 g[PREDICT_HEAD], m = 0, prev = 0, med, i, j;

	for (i = 0; i < PREDICT_HEAD; i++) {
		__u32 v;

		if (i + 1 >= s->n)
			break;
		v = s->head_x[i] - prev;
		prev = s->head_x[i];
		for (j = m; j > 0 && j <= PREDICT_HEAD - 1; j--) {
			if (g[j - 1] <= v)
				break;
			g[j] = g[j - 1];
		}
		g[j & (PREDICT_HEAD - 1)] = v;
		m++;
	}
	if (m < 3)
		return 0;
	med = g[(m / 2) & (PREDICT_HEAD - 1)];
	prev = 0;
	for (i = 0; i < PREDICT_HEAD - 1 && i + 2 < s->n; i++) {
		__u32 x = s->head_x[i];

		if ((x - prev) * 3 >= med * 2)
			return i;
		prev = x;
	}
	return i;
}

static __u64 ref_halved(__u64 *a, __u64 *b, __u64 *c, __u64 limit)
{
	__u64 k = 0;

	for (int i = 0; i < 64 && (*a | *b | *c) >= limit; i++) {
		*a >>= 1;
		*b >>= 1;
		*c >>= 1;
		k++;
	}
	return k;
}

static __u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

TEST(branch_free_arithmetic_matches_the_loops)
{
	struct predict_state s;
	int bad = 0, drops[PREDICT_HEAD] = { 0 };

	for (int t = 0; t < 200000; t++) {
		__u32 x = 0, spread = (t % 4 == 0) ? 4 : (t % 4 == 1) ? 200 : 1u << (rnd() % 32);

		memset(&s, 0, sizeof(s));
		s.n = rnd() % 12;
		for (int i = 0; i < PREDICT_HEAD; i++) {
			/* gaps with ties (a small spread), bursts, and wrapped values */
			x += (__u32)(rnd() % spread) * ((t % 3) ? 1 : (__u32)(rnd() % 3));
			if (t % 7 == 0 && i == 3)
				x = (__u32)rnd();
			s.head_x[i] = x;
		}
		if (predict_burst(&s) != ref_burst(&s) && bad++ < 5)
			printf("  n %u: predict_burst %u, the loops %u\n", s.n, predict_burst(&s),
			       ref_burst(&s));
		drops[ref_burst(&s) & (PREDICT_HEAD - 1)]++;
	}
	CHECK_EQ(bad, 0);
	/* the inputs reached every answer the loops give */
	for (int i = 0; i < PREDICT_HEAD; i++)
		CHECK(drops[i] > 0, "  no input gave drop %d\n", i);

	bad = 0;
	for (int t = 0; t < 200000; t++) {
		__u64 a = rnd() >> (rnd() % 64), b = rnd() >> (rnd() % 64), c = rnd() >> (rnd() % 64);
		__u64 ra = a, rb = b, rc = c, k;

		if (t < 128) /* every power of 2, and one less */
			a = b = c = t < 64 ? (1ULL << t) - 1 : 1ULL << (t - 64);
		ra = a, rb = b, rc = c;
		k = ref_halved(&ra, &rb, &rc, 1ULL << 26);
		if (predict_halvings(a | b | c, 26) != k || (a >> k) != ra || (c >> k) != rc)
			bad++;
		ra = a, rb = b, rc = 0;
		k = ref_halved(&ra, &rb, &rc, 1ULL << 43);
		if (predict_halvings(a | b, 43) != k)
			bad++;
		if (predict_bitlen(a) != (a ? 64 - (__u64)__builtin_clzll(a) : 0))
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(predict_bitlen(0), 0);
	CHECK_EQ(predict_bitlen(1), 1);
	CHECK_EQ(predict_bitlen(~0ULL), 64);
	CHECK_EQ(predict_halvings(1ULL << 26, 26), 1);
	CHECK_EQ(predict_halvings((1ULL << 26) - 1, 26), 0);
	CHECK_EQ(predict_lt(3, 5), 1);
	CHECK_EQ(predict_lt(5, 5), 0);
	CHECK_EQ(predict_lt(0xffffffffULL, 0), 0);
}

TEST(short_train_is_not_believed)
{
	struct feeder f;
	__u32 g[9];

	/*
	 * 9 gaps of 111 us: 999 us < min_train_us 1000. Not a failure, and not
	 * paced: the next round (twice as long) is measured instead.
	 */
	feeder_init(&f);
	uniform(g, 9, 111);
	round_of(&f, 10, g, 1);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 0);
	CHECK_EQ(end_round(&f), PREDICT_ACT_NONE);
	CHECK_EQ(f.v.train_us, 999);
	CHECK_EQ(f.s.failed, 0);
	CHECK_EQ(f.s.short_rounds, 1);
	CHECK_EQ(f.s.phase, PREDICT_PH_MEASURE);
	/* 112 us: 1008 us, paced at its 10th ACK, believed: 1000 B / 112 us */
	feeder_init(&f);
	uniform(g, 9, 112);
	round_of(&f, 10, g, 1);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.rate, 9000ULL * 1000000 / 1008);
	CHECK_EQ(f.v.round, 1);
}

/*
 * A fast path: the initial window's train (9 gaps of 60 us: 200 Mbit/s at
 * 1500 bytes) is too short; the next round's 19 gaps (1140 us) are judged,
 * and pacing begins in that round, once its train is 1000 us long.
 */
/*
 * Bunched ACKs: 2,000,000 B/s delivered, but the ACKs reach TCP three at a
 * time (2 us apart, a bunch every 1500 us), as a batch of the receiver's ACKs
 * or the emulator's delay line hands them over. Each ACK closer than 1/8 of
 * the mean gap replaces the last point: one point per bunch, at its last ACK.
 * The first bunch (the ref point and 2 ACKs 2 us apart, no mean gap yet) is
 * the leading burst, trimmed up to its last ACK (4 us, 2000 bytes); then 9
 * corners 1500 us and 3000 bytes apart: exactly the rate, fit and mean agree.
 */
TEST(bunched_acks_are_one_point_each)
{
	struct feeder f;
	__u32 g[29];

	feeder_init(&f);
	for (int i = 0; i < 29; i++)
		g[i] = i % 3 == 2 ? 1496 : 2;
	f.cwnd = 30;
	round_of(&f, 30, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.train_acks, 10);
	CHECK_EQ(f.v.train_us, 13500);
	CHECK_EQ(f.v.train_bytes, 27000);
	CHECK_EQ(f.v.rate, 2000000);
	CHECK_EQ(f.v.mean_rate, 2000000);
	CHECK_EQ(f.v.target, 206);
}

TEST(a_short_round_then_a_long_one)
{
	struct feeder f;
	__u32 g[19];

	feeder_init(&f);
	uniform(g, 19, 60);
	CHECK_EQ(round_of(&f, 10, g, 1), PREDICT_ACT_NONE);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 0);
	f.cwnd = 20;
	CHECK_EQ(round_of(&f, 20, g, 1), PREDICT_ACT_NONE); /* round 1: too short */
	CHECK_EQ(f.s.short_rounds, 1);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.round, 2);
	CHECK_EQ(f.v.failed_rounds, 0);
	CHECK_EQ(f.v.train_us, 1140); /* 19 gaps: the round's first ACK acked its first packet */
	CHECK_EQ(f.v.rate, 1000ULL * 1000000 / 60);
	/* a train that reached min_train_us and was then not believed is a failure */
	feeder_init(&f);
	uniform(g, 19, 1000);
	for (int i = 11; i < 19; i++)
		g[i] = 10; /* a bunched tail: its points too far off a line (12 at r^2 0.85) */
	f.cwnd = 20;
	round_of(&f, 20, g, 1);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.s.short_rounds, 0);
}

TEST(a_gap_ends_the_train)
{
	struct feeder f;
	/* a 5 ms gap (> gap_us 2000 and > 4 x the mean 1000) after 8 points */
	__u32 g[9] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 5000, 1000 };

	feeder_init(&f);
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.train_acks, 8);
	CHECK_EQ(f.v.train_us, 7000);
	CHECK_EQ(f.v.rate, 1000000);
	/* the train reached 8 of the round's 10 packets: 800 per mille */
	CHECK_EQ(f.v.covered, 800);
	/*
	 * The gap itself did not end it (5 ms is below delay_min / 2): the
	 * step across it did. The 2 packets after it came at 2000 B / 6000 us,
	 * below half the train's mean (9000 B / 13000 us): the round's tail,
	 * taken back.
	 */
	CHECK_EQ(f.v.gaps, 0);
	/* a gap longer than delay_min / 2 (50 ms) ends it at once */
	feeder_init(&f);
	g[7] = 60000;
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.train_acks, 8);
	CHECK_EQ(f.v.covered, 800);
	/*
	 * a gap longer than the train before it (10 ms after 7 ms of 8 points)
	 * leaves a train long enough to judge as it is (a bunch's is started
	 * again at its corner, aggregated_acks_are_measured_across_bunches):
	 * the step after it is the tail, taken back, and the 8 points believed
	 */
	feeder_init(&f);
	g[7] = 10000;
	round_of(&f, 10, g, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.train_acks, 8);
	CHECK_EQ(f.v.train_us, 7000);
	CHECK_EQ(f.v.rate, 1000000);
	CHECK_EQ(f.v.gaps, 0);
	/* a gap of 4 x the mean but below gap_us does not */
	feeder_init(&f);
	g[7] = 1999;
	round_of(&f, 10, g, 1);
	end_round(&f);
	CHECK_EQ(f.v.train_acks, 10);
	CHECK_EQ(f.v.covered, 1000);
	/*
	 * After the 5 ms gap, a bunch that brings what the bottleneck delivered
	 * meanwhile: 5 packets 10 us apart, one point at its last ACK (12040,
	 * 12000), a step of 5000 B in 5040 us, the train's own rate. The train
	 * goes on across the gap: 9 points, 12 of the round's 14 packets after
	 * the first, slope and mean 1,000,000 B/s within 1 %.
	 */
	{
		__u32 h[12] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 5000, 10, 10, 10, 10 };

		feeder_init(&f);
		round_of(&f, 13, h, 1);
		CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
		CHECK_EQ(f.v.gaps, 1);
		CHECK_EQ(f.v.train_acks, 9);
		CHECK_EQ(f.v.train_us, 12040);
		CHECK_EQ(f.v.train_bytes, 12000);
		CHECK(f.v.rate > 990000 && f.v.rate < 1010000, "rate %llu", (unsigned long long)f.v.rate);
	}
}

/*
 * ACK aggregation measured across bunches: a bottleneck of 1,000,000 B/s
 * delivers a packet every 1000 us and the ACK path holds the ACKs and
 * releases them every 4 ms, four at a time, 30 us apart (as the receiver's
 * ACKs are processed). The first bunch (3 points in 90 us, 33 MB/s) is
 * shorter than the 3910 us gap after it: the train starts again at its
 * corner; each later bunch gives one point, at its last ACK, and those
 * corners lie on the bottleneck's line (4000 B every 4000 us). 40 packets:
 * 9 corners after the first, 36,000 B in 36,000 us; slope and mean exactly
 * the rate, r^2 1, target 103 as on an even train.
 */
TEST(aggregated_acks_are_measured_across_bunches)
{
	struct feeder f;
	__u32 g[39];

	bunched_round(&f, g, 4, 3910, 0, 0);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.gaps, 1);
	CHECK_EQ(f.v.train_acks, 10);
	CHECK_EQ(f.v.train_us, 36000);
	CHECK_EQ(f.v.train_bytes, 36000);
	CHECK_EQ(f.v.rate, 1000000);
	CHECK_EQ(f.v.mean_rate, 1000000);
	CHECK_EQ(f.v.line, 1000);
	CHECK_EQ(f.v.covered, 1000);
	CHECK_EQ(f.v.target, 103);
	/*
	 * The same bunches 8 ms apart (eight ACKs each): what was a fragment
	 * of the first bunch, cut at 8 of the round's 40 packets, before this
	 */
	bunched_round(&f, g, 8, 7790, 0, 0);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.train_acks, 5);
	CHECK_EQ(f.v.rate, 1000000);
	CHECK_EQ(f.v.target, 103);
	/*
	 * A bunch missing: the bottleneck had nothing to deliver for a period
	 * (the data the previous round's ACKs clocked out had a hole), so the
	 * gap before the sixth bunch is 7910 us among 3910s. The train of
	 * bunches ends before it: 5 points (the first bunch's corner and the
	 * next four), 20 of the round's 40 packets: not believed (500 per mille).
	 */
	bunched_round(&f, g, 4, 3910, 20, 7910);
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.v.train_acks, 5);
	CHECK_EQ(f.v.covered, 500);
	/*
	 * 5.8 ms, under 1.5 periods (a late bunch, not a missing one): the
	 * train goes on over the whole round, its 10 corners at r^2 0.998, and
	 * the 1.9 ms more read 0.93 x the rate: believed
	 */
	bunched_round(&f, g, 4, 3910, 20, 5800);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.train_acks, 10);
	CHECK_EQ(f.v.covered, 1000);
	CHECK_EQ(f.v.line, 998);
	CHECK_EQ(f.v.rate, 931860);
	/*
	 * Bunches every 4 ms that carry 4, 6, 2, 6, 2, 6, 2 packets: their
	 * corners lie off the line, r^2 0.986 over 7 points, a slope known to
	 * 5.3 %. A train of ACKs spaced by the bottleneck with that r^2 would be
	 * believed (tolerance 10 %); one across bunches must be known to half
	 * of it, as jitter and a medium won at random leave their corners near
	 * the line with a slope read low. Not believed: PREDICT gives up (its
	 * one paced round), HyStart decides.
	 */
	{
		static const int sizes[7] = { 4, 6, 2, 6, 2, 6, 2 };
		int k = 0;

		feeder_init(&f);
		for (int b = 0; b < 7; b++)
			for (int i = 0; i < sizes[b]; i++, k++)
				if (k)
					g[k - 1] = i ? 30 : 4000 - 30 * (sizes[b - 1] - 1);
		round_of(&f, k, g, 1);
		CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
		CHECK_EQ(f.v.gaps, 1);
		CHECK_EQ(f.v.train_acks, 7);
		CHECK_EQ(f.v.line, 986);
		CHECK_EQ(predict_line_ok(7, 986, PREDICT_DEF_TOLERANCE), 1);
		CHECK_EQ(predict_line_ok(7, 986, PREDICT_DEF_TOLERANCE / 2), 0);
		CHECK(f.v.mean_rate > 990000 && f.v.mean_rate < 1010000, "mean %llu",
		      (unsigned long long)f.v.mean_rate);
	}
}

/*
 * ACK aggregation on a round too short to measure across bunches: the first
 * bunch (6 of the 10 packets, 30 us apart as the receiver's ACKs are
 * processed) looks like a train of 33 MB/s, 33 x the bottleneck's; then a 4 ms
 * gap, and the rest, another bunch. Never an exit from a bunch. With
 * min_train_us at 100 us the first bunch is a train long enough to judge, so
 * it is not started again at its corner: the step after the gap (3 packets
 * in 4090 us) went below half its mean rate, is taken back, and the train
 * ends at the gap with 600 per mille of its round: not believed, whatever its
 * slope; three such rounds and PREDICT gives up (Linux HyStart decides).
 * With the default min_train_us (1 ms) the bunch is not long enough: the
 * train starts again at its corner, the second bunch is one point, and 2
 * points are too few to judge (not a failure: the next round, twice as
 * long, has more bunches).
 */
TEST(a_bunch_is_not_a_train)
{
	struct feeder f;
	__u32 g[9] = { 30, 30, 30, 30, 30, 4000, 30, 30, 30 };
	int r;

	feeder_init(&f);
	f.p.min_train_us = 100;
	f.p.pace = 0; /* unpaced, every round can be measured: three are */
	f.p.rounds = 3;
	predict_params_clamp(&f.p);
	/* each round's first ACK judges the one before; the cwnd stays 10 (full rounds) */
	for (r = 0; r < 3; r++) {
		__u8 act;

		f.cwnd = 10;
		act = round_of(&f, 10, g, 1);
		CHECK_EQ(act, PREDICT_ACT_NONE);
	}
	f.cwnd = 10;
	__u8 last = end_round(&f);
	CHECK_EQ(last, PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.v.covered, 600);
	CHECK_EQ(f.v.gaps, 0);
	CHECK_EQ(f.s.v.failed_rounds, 3);
	/* with min_train_us 1000 the bunch (150 us) is too short to judge: never a failure */
	feeder_init(&f);
	f.p.pace = 0;
	for (r = 0; r < 4; r++) {
		f.cwnd = 10;
		round_of(&f, 10, g, 1);
	}
	CHECK_EQ(end_round(&f), PREDICT_ACT_NONE);
	CHECK_EQ(f.v.train_acks, 2);
	CHECK_EQ(f.v.gaps, 1);
	CHECK_EQ(f.s.failed, 0);
	CHECK_EQ(f.s.short_rounds, 4);
	CHECK_EQ(f.s.phase, PREDICT_PH_MEASURE);
}

/*
 * The jump: at the target, cwnd goes to jump per mille of it at once (the
 * glue paces it at the estimated rate). Target 103 (the set-up's), jump 500:
 * 51; not below the cwnd the flow has (10 here), never at or above the target.
 * With the jump on, the round is judged on the ACK of its last byte (the
 * round's 10th ACK), not on the next round's first: an RTT sooner.
 */
TEST(the_jump)
{
	struct feeder f;
	__u32 g[9];

	feeder_init(&f);
	f.p.jump = 500;
	uniform(g, 9, 1000);
	CHECK_EQ(round_of(&f, 10, g, 1), PREDICT_ACT_NONE);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 1);
	CHECK_EQ(f.acts[PREDICT_ACT_TARGET], 1); /* on the round's last ACK */
	CHECK_EQ(f.s.phase, PREDICT_PH_FILL);
	CHECK_EQ(f.v.target, 103);
	CHECK_EQ(f.v.jump, 51);
	CHECK_EQ(f.v.train_acks, 10); /* the train is the whole round's, as without the jump */
	CHECK_EQ(end_round(&f), PREDICT_ACT_NONE); /* in the fill: nothing more */
	/* without the jump the same round is judged one ACK later (HyStart's round) */
	feeder_init(&f);
	uniform(g, 9, 1000);
	round_of(&f, 10, g, 1);
	CHECK_EQ(f.acts[PREDICT_ACT_TARGET], 0);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.target, 103);
	CHECK_EQ(f.v.train_acks, 10);
	/*
	 * a round judged early and not believed (a bunched train, cut by its
	 * first 3 ms gap: too short to judge) is counted once
	 */
	feeder_init(&f);
	f.p.jump = 500;
	f.p.pace = 0;
	f.p.rounds = 3;
	for (int i = 0; i < 9; i++)
		g[i] = i % 3 ? 10 : 3000;
	round_of(&f, 10, g, 1);
	CHECK_EQ(f.acts[PREDICT_ACT_TARGET], 0);
	CHECK_EQ(f.s.failed, 0);
	CHECK_EQ(f.s.short_rounds, 1);
	CHECK_EQ(f.s.phase, PREDICT_PH_MEASURE);
	/*
	 * and the next round begins on the next ACK, HyStart's round, with what
	 * the last byte's ACK released in it; begun on that ACK it would have
	 * left that out and spanned two flights an RTT apart
	 */
	CHECK_EQ(f.s.started, 0);
	CHECK_EQ(f.s.rounds, 1);
	CHECK_EQ(end_round(&f), PREDICT_ACT_NONE);
	CHECK_EQ(f.s.started, 1);
	CHECK_EQ(f.s.rounds, 2);
	CHECK_EQ(f.s.round_start, f.una - MSS);
	CHECK_EQ(f.s.round_end, f.nxt);
	CHECK_EQ(f.s.short_rounds, 1);
	/* jump 0 (the default): none */
	feeder_init(&f);
	uniform(g, 9, 1000);
	round_of(&f, 10, g, 1);
	end_round(&f);
	CHECK_EQ(f.v.jump, 0);
	/* a jump below the cwnd the flow has is none: 50 per mille of 103 is 5 < 10 */
	feeder_init(&f);
	f.p.jump = 50;
	uniform(g, 9, 1000);
	round_of(&f, 10, g, 1);
	end_round(&f);
	CHECK_EQ(f.v.jump, 0);
	/* clamped to 1000: at the target itself it is no jump (the exit does it) */
	f.p.jump = 5000;
	predict_params_clamp(&f.p);
	CHECK_EQ(f.p.jump, 1000);
}

/*
 * The jump's cwnd as the glue applies it: below half the target (Linux then
 * paces at 2 x cwnd / srtt, about the estimate), within the clamp, above cwnd.
 * Target 103: 51 stays 51 (51 x 2 < 103); target 102: 51 x 2 >= 102, so 50.
 */
TEST(the_jump_cwnd)
{
	CHECK_EQ(predict_jump_cwnd(51, 103, 20, 10000), 51);
	CHECK_EQ(predict_jump_cwnd(51, 102, 20, 10000), 50);
	CHECK_EQ(predict_jump_cwnd(51, 103, 51, 10000), 0);
	CHECK_EQ(predict_jump_cwnd(51, 103, 20, 40), 40);
	CHECK_EQ(predict_jump_cwnd(51, 103, 40, 40), 0);
	CHECK_EQ(predict_jump_cwnd(0, 103, 20, 10000), 0);
	CHECK_EQ(predict_jump_cwnd(5, 0, 2, 10000), 0);
}

/*
 * The jump's queue check: 8 samples in a row above the threshold (112.5 ms
 * here) fire it, their least is kept; one at or below starts the count again;
 * no sample (0) changes nothing.
 */
TEST(the_jump_queue)
{
	__u32 least = 0, rtt[] = { 120000, 0, 118000, 130000, 119000, 125000, 121000, 122000 };
	__u8 n = 0;

	for (int i = 0; i < 7; i++)
		CHECK_EQ(predict_jump_delayed(&n, &least, 113000 + i * 1000, 112500), 0);
	CHECK_EQ(n, 7);
	CHECK_EQ(predict_jump_delayed(&n, &least, 112500, 112500), 0); /* at it: not above */
	CHECK_EQ(n, 0);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(predict_jump_delayed(&n, &least, rtt[i], 112500), 0);
	CHECK_EQ(n, 7); /* the 0 did not count */
	CHECK_EQ(least, 118000);
	CHECK_EQ(predict_jump_delayed(&n, &least, 117000, 112500), 1);
	CHECK_EQ(least, 117000);
}

/*
 * Careful Resume's Safe Retreat: ssthresh at half the PipeSize, at least the
 * initial window, at most CUBIC's own. PipeSize 120: 60 (CUBIC's 84 is
 * higher); 300: CUBIC's 84; 12: the floor 10; the floor never above CUBIC's.
 */
TEST(the_retreat)
{
	CHECK_EQ(predict_retreat(120, PREDICT_RETREAT_FLOOR, 84), 60);
	CHECK_EQ(predict_retreat(300, PREDICT_RETREAT_FLOOR, 84), 84);
	CHECK_EQ(predict_retreat(12, PREDICT_RETREAT_FLOOR, 84), 10);
	CHECK_EQ(predict_retreat(12, PREDICT_RETREAT_FLOOR, 7), 7);
}

/*
 * A queue in the jumped window: u_c1's flow jumped from 20 to 134 and met a
 * queue with 48 delivered to the PipeSize: slow start ends at 48, not at its
 * cwnd 161. Once the PipeSize reaches the jump (the jumped window validated:
 * a free path's fill reaching the queue at the BDP) cwnd stays. Never below
 * the initial window, never above cwnd.
 */
TEST(the_queue_retreat)
{
	CHECK_EQ(predict_queue_retreat(48, 134, PREDICT_RETREAT_FLOOR, 161), 48);
	CHECK_EQ(predict_queue_retreat(133, 134, PREDICT_RETREAT_FLOOR, 246), 133);
	CHECK_EQ(predict_queue_retreat(134, 134, PREDICT_RETREAT_FLOOR, 247), 247);
	CHECK_EQ(predict_queue_retreat(300, 134, PREDICT_RETREAT_FLOOR, 413), 413);
	CHECK_EQ(predict_queue_retreat(6, 134, PREDICT_RETREAT_FLOOR, 140), 10);
	CHECK_EQ(predict_queue_retreat(40, 134, PREDICT_RETREAT_FLOOR, 30), 30);
}

/*
 * The policer: delay_min 100 ms, MSS 1000. An ACK with RTT 105 ms (no queue:
 * within 1/8) while the delivery rate is 250,000 B/s: 25 packets a delay_min,
 * target ceil(25 x 1.03) = 26, against 120 in flight: a policer; settle at 26.
 * A queue (RTT above 112.5 ms), a delivery that kept up (a target of at
 * least half the window) or fewer than 4 packets lost (a random loss; 8 in
 * the others) is not.
 */
TEST(the_policer)
{
	CHECK_EQ(predict_policer_target(250000, 105000, DMIN, 120, MSS, 30, 8), 26);
	CHECK_EQ(predict_policer_target(250000, 112500, DMIN, 120, MSS, 30, 8), 26);
	CHECK_EQ(predict_policer_target(250000, 112501, DMIN, 120, MSS, 30, 8), 0);
	CHECK_EQ(predict_policer_target(250000, 120000, DMIN, 120, MSS, 30, 8), 0);
	CHECK_EQ(predict_policer_target(600000, 100000, DMIN, 120, MSS, 30, 8), 0);
	CHECK_EQ(predict_policer_target(0, 100000, DMIN, 120, MSS, 30, 8), 0);
	CHECK_EQ(predict_policer_target(250000, 100000, 0, 120, MSS, 30, 8), 0);
	CHECK_EQ(predict_policer_target(250000, 105000, DMIN, 120, MSS, 30, 4), 26);
	CHECK_EQ(predict_policer_target(250000, 105000, DMIN, 120, MSS, 30, 3), 0);
	CHECK_EQ(predict_policer_target(250000, 105000, DMIN, 120, MSS, 30, 1), 0);
}

/*
 * The policer after PREDICT's exit: estimate 1,000,000 B/s, delay_min
 * 100 ms. A loss with no queue and 8 lost while 500,000 B/s was delivered
 * (half the estimate): a policer (its BDP 52). 750,000 (3/4 of it) is what a
 * measured path delivers near a queue: not; nor a queue, 3 lost, or no
 * estimate.
 */
TEST(the_policer_after_the_exit)
{
	CHECK_EQ(predict_policer_after_exit(500000, 105000, DMIN, 1000000, 8), 1);
	CHECK_EQ(predict_target_of(500000, DMIN, MSS, 30), 52);
	CHECK_EQ(predict_policer_after_exit(749999, 105000, DMIN, 1000000, 8), 1);
	CHECK_EQ(predict_policer_after_exit(750000, 105000, DMIN, 1000000, 8), 0);
	CHECK_EQ(predict_policer_after_exit(500000, 112501, DMIN, 1000000, 8), 0);
	CHECK_EQ(predict_policer_after_exit(500000, 105000, DMIN, 1000000, 3), 0);
	CHECK_EQ(predict_policer_after_exit(500000, 105000, DMIN, 0, 8), 0);
}

/*
 * Worth remembering: delay_min 100 ms; an RTT of 105 ms (1/20 above) or
 * less, with 250,000 B/s delivered against an estimate of 1,000,000 (or
 * none); not at 105.001 ms (a 0.1-BDP buffer's overflow reads 106-113), nor
 * a delivery under 1/16 of the estimate (62,499).
 */
TEST(the_policer_worth_remembering)
{
	CHECK_EQ(predict_polmem_worthy(250000, 105000, DMIN, 1000000, 0), 1);
	CHECK_EQ(predict_polmem_worthy(250000, 105001, DMIN, 1000000, 0), 0);
	CHECK_EQ(predict_polmem_worthy(62500, 100000, DMIN, 1000000, 0), 1);
	CHECK_EQ(predict_polmem_worthy(62499, 100000, DMIN, 1000000, 0), 0);
	CHECK_EQ(predict_polmem_worthy(0, 100000, DMIN, 1000000, 0), 0);
	CHECK_EQ(predict_polmem_worthy(250000, 100000, 0, 1000000, 0), 0);
	/* after a jump the share of the estimate is not asked; the RTT still is */
	CHECK_EQ(predict_polmem_worthy(62499, 100000, DMIN, 1000000, 1), 1);
	CHECK_EQ(predict_polmem_worthy(62499, 105001, DMIN, 1000000, 1), 0);
	/*
	 * no estimate believed, no collapse to see: never remembered (a flow
	 * that lost in its first round behind four competing ones, 18690 B/s)
	 */
	CHECK_EQ(predict_polmem_worthy(250000, 100000, DMIN, 0, 0), 0);
	CHECK_EQ(predict_polmem_worthy(18690, 58713, 58713, 0, 0), 0);
	CHECK_EQ(predict_polmem_worthy(18690, 58713, 58713, 0, 1), 0);
}

/*
 * No estimate believed: the recovery's measure is remembered when the policer
 * bound the flow, the window at the loss was 40 packets or more, and the
 * measure's BDP is 10 packets or more. 2.5 MB/s at 40 ms is a BDP of 70
 * (pol100_40's policer); 325,825 B/s at 40 ms is 13,033 bytes, 10 packets
 * of 1448 rounded up (predict_target_of()), 325,824 B/s is 13,032, 9 packets
 * exactly. Not: unbound, a first round's window (39), a
 * measure of nothing, or the first round behind four competing flows
 * (18,690 B/s at 58.7 ms, under a packet).
 */
TEST(the_policer_without_an_estimate)
{
	CHECK_EQ(predict_polmem_unbelieved(2500000, 1, 218, 40000, 1448), 2500000);
	CHECK_EQ(predict_polmem_unbelieved(2500000, 0, 218, 40000, 1448), 0);
	CHECK_EQ(predict_polmem_unbelieved(2500000, 1, 40, 40000, 1448), 2500000);
	CHECK_EQ(predict_polmem_unbelieved(2500000, 1, 39, 40000, 1448), 0);
	CHECK_EQ(predict_polmem_unbelieved(325825, 1, 218, 40000, 1448), 325825);
	CHECK_EQ(predict_polmem_unbelieved(325824, 1, 218, 40000, 1448), 0);
	CHECK_EQ(predict_polmem_unbelieved(0, 1, 218, 40000, 1448), 0);
	CHECK_EQ(predict_polmem_unbelieved(18690, 1, 218, 58713, 1448), 0);
	CHECK_EQ(predict_polmem_unbelieved(1ULL << 40, 1, 218, 40000, 1448), 0);
}

/*
 * The policer remembered: 250,000 B/s at delay_min 100 ms, 10 s ago. A new
 * flow's estimate of 1,000,000 B/s (the line rate the bucket let through)
 * takes the remembered rate's target, 26 at delay_min 100 ms and 13 at
 * 50 ms (a factor of 2 either way is still the path). Not: an estimate
 * under 4/3 of it (333,332: the policed rate measured, or near it; 333,334
 * is above; no estimate at all takes it too), a delay_min beyond a factor of 2 (49.999 ms, 200.001 ms:
 * another path to the address), a memory older than PREDICT_POLMEM_S, or
 * one from the future (a clock that went back), or nothing remembered.
 */
TEST(the_policer_remembered)
{
	const __u64 s = 1000000000ULL;
	struct predict_polmem m = { .rate = 250000, .at_ns = 100 * s, .delay_min = DMIN, .flows = 1 };

	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN, MSS, 30), 26);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN / 2, MSS, 30), 13);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN * 2, MSS, 30), 52);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 333334, DMIN, MSS, 30), 26);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 333332, DMIN, MSS, 30), 0);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 0, DMIN, MSS, 30), 26);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN / 2 - 1, MSS, 30), 0);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN * 2 + 1, MSS, 30), 0);
	CHECK_EQ(predict_polmem_target(&m, (100 + PREDICT_POLMEM_S) * s, 1000000, DMIN, MSS, 30),
		 26);
	CHECK_EQ(predict_polmem_target(&m, (100 + PREDICT_POLMEM_S) * s + 1, 1000000, DMIN, MSS,
				       30),
		 0);
	CHECK_EQ(predict_polmem_target(&m, 99 * s, 1000000, DMIN, MSS, 30), 0);
	CHECK_EQ(predict_polmem_target(NULL, 110 * s, 1000000, DMIN, MSS, 30), 0);
	m.rate = 0;
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN, MSS, 30), 0);
	/*
	 * Never below the initial window: 18690 B/s x 58.7 ms is 1.1 of
	 * these packets (the target 2 that cut a flow's cwnd from 19 to 2)
	 */
	m.rate = 18690;
	m.delay_min = 58713;
	CHECK_EQ(predict_target_of(18690, 58713, MSS, 30), 2);
	CHECK_EQ(predict_polmem_target(&m, 110 * s, 0, 58713, MSS, 30), PREDICT_RETREAT_FLOOR);
	/* the answer at a loss too: and then only below half the window */
	CHECK_EQ(predict_policer_target(18690, 58713, 58713, 11, MSS, 30, PREDICT_POLICER_LOST), 0);
	CHECK_EQ(predict_policer_target(18690, 58713, 58713, 21, MSS, 30, PREDICT_POLICER_LOST),
		 PREDICT_RETREAT_FLOOR);
}

/*
 * Remembered without a rate (a policer met after a jump, not measured): no
 * target, and the next flow on the same path within PREDICT_POLMEM_S does
 * not jump; a delay_min beyond a factor of 2, an old memory, one from the
 * future, one with a rate (its target decides, and no jump then either) or
 * nothing remembered: the jump stands.
 */
TEST(a_policer_remembered_without_a_rate_holds_the_jump_back)
{
	const __u64 s = 1000000000ULL;
	struct predict_polmem m = { .rate = 0, .at_ns = 100 * s, .delay_min = DMIN, .flows = 1 };

	CHECK_EQ(predict_polmem_target(&m, 110 * s, 1000000, DMIN, MSS, 30), 0);
	CHECK_EQ(predict_polmem_no_jump(&m, 110 * s, DMIN), 1);
	CHECK_EQ(predict_polmem_no_jump(&m, 110 * s, DMIN / 2), 1);
	CHECK_EQ(predict_polmem_no_jump(&m, 110 * s, DMIN * 2), 1);
	CHECK_EQ(predict_polmem_no_jump(&m, 110 * s, DMIN / 2 - 1), 0);
	CHECK_EQ(predict_polmem_no_jump(&m, 110 * s, DMIN * 2 + 1), 0);
	CHECK_EQ(predict_polmem_no_jump(&m, (100 + PREDICT_POLMEM_S) * s, DMIN), 1);
	CHECK_EQ(predict_polmem_no_jump(&m, (100 + PREDICT_POLMEM_S) * s + 1, DMIN), 0);
	CHECK_EQ(predict_polmem_no_jump(&m, 99 * s, DMIN), 0);
	CHECK_EQ(predict_polmem_no_jump(NULL, 110 * s, DMIN), 0);
	m.rate = 250000;
	CHECK_EQ(predict_polmem_no_jump(&m, 110 * s, DMIN), 0);
}

/*
 * Its confirmation at the remembering flow's first loss: no queue (RTT
 * within 1/8 of delay_min) and less delivered than remembered (200,000
 * against 250,000 B/s): the lower rate is kept, its BDP (21) the ssthresh.
 * Far less (100,000): half the memory, 125,000, a step at most per flow.
 * As much as remembered or more, or a queue: 0, CUBIC's reduction; and with
 * a queue the memory goes.
 */
/*
 * The answer's rate measured again over its recovery: 200 packets of 1448
 * bytes delivered in 100 ms is 2,896,000 B/s, below the 4,000,000 the answer
 * went by: kept. Half of it or less: half (2,000,000). As much or more, a
 * recovery shorter than half of delay_min (100 ms: 50 ms), nothing
 * delivered or nothing kept: 0.
 */
TEST(the_policer_measured_over_its_recovery)
{
	CHECK_EQ(predict_policer_recovered(MEAS(200, 100000), 4000000), 2896000);
	CHECK_EQ(predict_policer_recovered(MEAS(50, 100000), 4000000), 2000000);
	CHECK_EQ(predict_policer_recovered(MEAS(300, 100000), 4000000), 0);
	CHECK_EQ(predict_policer_recovered(MEAS(100, 49999), 4000000), 0);
	CHECK_EQ(predict_policer_recovered(MEAS(100, 50000), 4000000), 2896000);
	CHECK_EQ(predict_policer_recovered(MEAS(0, 100000), 4000000), 0);
	CHECK_EQ(predict_policer_recovered(MEAS(200, 100000), 0), 0);
	CHECK_EQ(predict_policer_recovered(predict_policer_measure(200, 100000, 0, 1448), 4000000), 0);
}

/*
 * The recovery's measure itself, which a flow that jumped remembers: no
 * bound by the rate at the loss (300 packets in 100 ms is 4,344,000 B/s,
 * above any kept), but nothing from a recovery shorter than half of
 * delay_min, from nothing delivered, or without an MSS or delay_min.
 */
TEST(the_recoverys_measure_after_a_jump)
{
	CHECK_EQ(predict_policer_measure(300, 100000, DMIN, 1448), 4344000);
	CHECK_EQ(predict_policer_measure(200, 100000, DMIN, 1448), 2896000);
	CHECK_EQ(predict_policer_measure(100, 50000, DMIN, 1448), 2896000);
	CHECK_EQ(predict_policer_measure(100, 49999, DMIN, 1448), 0);
	CHECK_EQ(predict_policer_measure(0, 100000, DMIN, 1448), 0);
	CHECK_EQ(predict_policer_measure(200, 100000, DMIN, 0), 0);
	CHECK_EQ(predict_policer_measure(200, 100000, 0, 1448), 0);
	CHECK_EQ(predict_policer_measure(200, (1ULL << 32) + 1, DMIN, 1448), 0);
}

/*
 * Kept after a jump only when the policer, not the recovery's window, limited
 * it: 2,896,000 B/s over 100 ms with 3 % margin is 206 packets, so a
 * recovery at ssthresh 207 keeps it and one at 206 or below does not (it
 * delivered what its window let through); nothing measured, or no window: 0.
 */
TEST(the_jumps_measure_is_kept_only_when_the_policer_limited_it)
{
	__u32 bdp = predict_target_of(2896000, DMIN, 1448, 30);

	CHECK_EQ(bdp, 206);
	CHECK_EQ(predict_policer_jump_keeps(2896000, DMIN, 1448, 30, 207), 1);
	CHECK_EQ(predict_policer_jump_keeps(2896000, DMIN, 1448, 30, 206), 0);
	CHECK_EQ(predict_policer_jump_keeps(2896000, DMIN, 1448, 30, 100), 0);
	CHECK_EQ(predict_policer_jump_keeps(0, DMIN, 1448, 30, 207), 0);
	CHECK_EQ(predict_policer_jump_keeps(2896000, DMIN, 1448, 30, 0), 0);
}

/*
 * The measure is the policer's when the recovery lost at least half the
 * window's excess over its BDP: 1,448,000 B/s at 100 ms is 100 packets, so
 * from cwnd 300, 100 lost or more (eval's policers: 82 of 150, 130 of 250);
 * 99 lost, or a slow start's few behind a small bucket (3 of 61 with its own
 * delivery, half its window): not bound. A measure at or above the window,
 * none, or no window: 0.
 */
TEST(the_policer_bound_the_flow)
{
	CHECK_EQ(predict_policer_bound(100, 300, 1448000, DMIN, 1448), 1);
	CHECK_EQ(predict_policer_bound(250, 300, 1448000, DMIN, 1448), 1);
	CHECK_EQ(predict_policer_bound(99, 300, 1448000, DMIN, 1448), 0);
	CHECK_EQ(predict_policer_bound(3, 61, 434400, DMIN, 1448), 0);
	CHECK_EQ(predict_policer_bound(16, 61, 434400, DMIN, 1448), 1);
	CHECK_EQ(predict_policer_bound(500, 100, 1448000, DMIN, 1448), 0);
	CHECK_EQ(predict_policer_bound(500, 300, 0, DMIN, 1448), 0);
	CHECK_EQ(predict_policer_bound(500, 0, 1448000, DMIN, 1448), 0);
}

/*
 * An answer left pending at the loss (3 marked lost then), decided over the
 * recovery: 200 packets in 100 ms (2,896,000 B/s, BDP 200 with margin 30:
 * predict_target_of) against a window of 500 at the loss and a sample of
 * 4,000,000: 2,896,000. Fewer than 4 lost over the recovery, a delivery
 * whose BDP is half the window or more, a recovery under delay_min / 2:
 * 0. After PREDICT's exit (estimate 8,000,000): below 3/4 of it, settled;
 * at 3/4 or more, not. A delivery above the sample: the sample; far below
 * it: half of it.
 */
TEST(the_policer_decided_over_its_recovery)
{
	__u32 t = predict_target_of(2896000, DMIN, 1448, 30);

	CHECK_EQ(predict_policer_pending(4, MEAS(200, 100000), DMIN, 1448, 30, 4000000, 500, 0), 2896000);
	CHECK_EQ(predict_policer_pending(3, MEAS(200, 100000), DMIN, 1448, 30, 4000000, 500, 0), 0);
	CHECK_EQ(predict_policer_pending(4, MEAS(200, 100000), DMIN, 1448, 30, 4000000, t * 2, 0), 0);
	CHECK_EQ(predict_policer_pending(4, MEAS(200, 100000), DMIN, 1448, 30, 4000000, t * 2 + 1, 0),
		 2896000);
	CHECK_EQ(predict_policer_pending(4, MEAS(200, 49999), DMIN, 1448, 30, 4000000, 500, 0), 0);
	CHECK_EQ(predict_policer_pending(4, MEAS(200, 100000), DMIN, 1448, 30, 4000000, 0, 8000000),
		 2896000);
	CHECK_EQ(predict_policer_pending(4, MEAS(200, 100000), DMIN, 1448, 30, 4000000, 0, 3861333), 0);
	CHECK_EQ(predict_policer_pending(4, MEAS(200, 100000), DMIN, 1448, 30, 2000000, 5000, 0), 2000000);
	CHECK_EQ(predict_policer_pending(4, MEAS(50, 100000), DMIN, 1448, 30, 4000000, 500, 0), 2000000);
	CHECK_EQ(predict_policer_pending(4, MEAS(0, 100000), DMIN, 1448, 30, 4000000, 500, 0), 0);
}

TEST(the_policer_confirmed_lower)
{
	CHECK_EQ(predict_polmem_refine(200000, 105000, DMIN, 250000), 200000);
	CHECK_EQ(predict_target_of(200000, DMIN, MSS, 30), 21);
	CHECK_EQ(predict_polmem_refine(100000, 105000, DMIN, 250000), 125000);
	CHECK_EQ(predict_polmem_refine(125001, 105000, DMIN, 250000), 125001);
	CHECK_EQ(predict_polmem_refine(250000, 105000, DMIN, 250000), 0);
	CHECK_EQ(predict_polmem_refine(200000, 112501, DMIN, 250000), 0);
	CHECK_EQ(predict_polmem_refine(0, 105000, DMIN, 250000), 0);
	/* a queue at that loss (above 112.5 ms): the memory is forgotten */
	CHECK_EQ(predict_polmem_stale(112501, DMIN), 1);
	CHECK_EQ(predict_polmem_stale(112500, DMIN), 0);
	CHECK_EQ(predict_polmem_stale(0, DMIN), 0);
	CHECK_EQ(predict_polmem_stale(200000, 0), 0);
}

/*
 * The memory raised by a later flow's recovery in congestion avoidance
 * (the 2026-12-07 path: 400 kB/s remembered behind a 625 kB/s policer).
 * A measure above the memory is kept, at most doubled by one flow; one at
 * or below it, nothing measured, or no memory: nothing changes.
 */
TEST(the_policer_raised)
{
	/* 44 packets of 1448 in 100 ms: 637,120 B/s */
	CHECK_EQ(predict_polmem_raised(predict_policer_measure(44, 100000, DMIN, 1448), 400000),
		 637120);
	CHECK_EQ(predict_polmem_raised(900000, 400000), 800000);
	CHECK_EQ(predict_polmem_raised(800000, 400000), 800000);
	CHECK_EQ(predict_polmem_raised(400001, 400000), 400001);
	CHECK_EQ(predict_polmem_raised(400000, 400000), 0);
	CHECK_EQ(predict_polmem_raised(300000, 400000), 0);
	CHECK_EQ(predict_polmem_raised(0, 400000), 0);
	CHECK_EQ(predict_polmem_raised(637120, 0), 0);
	CHECK_EQ(predict_polmem_raised(1ULL << 41, 1ULL << 40), 0);
	/* the raise is a pending answer of its own, never one of the two before */
	CHECK(PREDICT_POL_RAISE != 1 && PREDICT_POL_RAISE != 2, "PREDICT_POL_RAISE is %d", PREDICT_POL_RAISE);
}

/*
 * A jump's loss with no queue (within 1/20 of delay_min, 100 ms here:
 * 105 ms and below) leaves the destination remembered without a rate; a
 * 0.1-BDP buffer overflowing (1.06 x) or an unknown RTT does not.
 */
TEST(a_jumps_loss_with_no_queue)
{
	CHECK_EQ(predict_unqueued(100000, DMIN), 1);
	CHECK_EQ(predict_unqueued(105000, DMIN), 1);
	CHECK_EQ(predict_unqueued(105001, DMIN), 0);
	CHECK_EQ(predict_unqueued(106000, DMIN), 0);
	CHECK_EQ(predict_unqueued(0, DMIN), 0);
	CHECK_EQ(predict_unqueued(100000, 0), 0);
}

/*
 * The jump's share check. Estimate 1,000,000 B/s, MSS 1000, delay_min
 * 100 ms: a jump of 40 packets (from 10 to 50) takes 40 ms at the
 * estimate, so the window is 20 ms; a jump of 1 packet is held to
 * min_train_us, one of 400 to delay_min / 2. The jumped packets got half the
 * estimate (a link the others keep full): a share; 3/4 of it or more: not.
 */
TEST(the_share_check)
{
	CHECK_EQ(predict_share_window(50, 10, MSS, 1000000, 1000, DMIN), 20000);
	CHECK_EQ(predict_share_window(11, 10, MSS, 1000000, 1000, DMIN), 1000);
	CHECK_EQ(predict_share_window(410, 10, MSS, 1000000, 1000, DMIN), 50000);
	CHECK_EQ(predict_share_window(10, 10, MSS, 1000000, 1000, DMIN), 1000);
	CHECK_EQ(predict_share_window(50, 10, MSS, 0, 1000, DMIN), 1000);
	CHECK(predict_jump_shared(1000000, 500000), "half");
	CHECK(predict_jump_shared(1000000, 749999), "just under 3/4");
	CHECK(!predict_jump_shared(1000000, 750000), "3/4");
	CHECK(!predict_jump_shared(1000000, 1100000), "above");
	CHECK(!predict_jump_shared(0, 0), "no estimate");
}

/* acks(): ACKs of one packet each, every `every` us from t to `until` (exclusive); 1 if judged */
static int share_acks(struct predict_share_win *sw, __u32 *t, __u32 *d, __u32 every, __u32 until,
		      __u64 *got)
{
	for (; *t < until; *t += every) {
		(*d)++;
		if (predict_share_sample(sw, *t, *d, MSS, got))
			return 1;
	}
	return 0;
}

/*
 * One ACK per 200 us from 1.2 ms up to `until` (exclusive) in an 8 ms window
 * begun at 1 ms, then an ACK at `after` (a gap before it), then one per 200
 * us again: 0 if the window was judged before the gap or on its ACK, else
 * the time of the ACK it was judged on (*got its rate, *sw as it ended).
 */
static __u32 share_gap(struct predict_share_win *sw, __u32 until, __u32 after, __u64 *got)
{
	__u32 t = 1200, d = 0;

	predict_share_begin(sw, 1000, 0, 8000);
	if (share_acks(sw, &t, &d, 200, until, got) || predict_share_sample(sw, after, ++d, MSS, got))
		return 0;
	t = after + 200;
	return share_acks(sw, &t, &d, 200, after + 20000, got) ? t : 0;
}

TEST(the_share_window_reads_around_a_gap)
{
	struct predict_share_win sw;
	__u64 got = 0, sent = (__u64)MSS * 1000000 / 200; /* one packet per 200 us */
	__u32 t, d;

	/* a free link: one ACK per 200 us, judged on the first past 8 ms, at the rate sent */
	predict_share_begin(&sw, 1000, 0, 8000);
	t = 1200, d = 0;
	CHECK(share_acks(&sw, &t, &d, 200, 20000, &got), "judged");
	CHECK_EQ(t, 9000);
	CHECK_EQ(got, sent);
	CHECK(!predict_jump_shared(sent, got), "a free link is not shared");
	/* a third of it (others in the FIFO): a share */
	predict_share_begin(&sw, 1000, 0, 8000);
	t = 1600, d = 0;
	CHECK(share_acks(&sw, &t, &d, 600, 20000, &got), "judged");
	CHECK(predict_jump_shared(sent, got), "a third is a share");
	/*
	 * 6 ms of ACKs, then a 6 ms gap (the sender paused an RTT earlier): the
	 * gap and the ACK after it are left out, and the window reads the link
	 * over 8 ms of ACKs (the ACK after the gap would have read 31 packets in
	 * 12 ms, half the rate sent: "shared")
	 */
	CHECK_EQ(share_gap(&sw, 7001, 13000, &got), 15000);
	CHECK_EQ(sw.skip_t, 6000);
	CHECK_EQ(sw.skip_d, 1);
	CHECK_EQ(got, sent);
	CHECK(!predict_jump_shared(sent, got), "a pause is not a share");
	/* the gap early in the window: the same */
	CHECK_EQ(share_gap(&sw, 2001, 12000, &got), 19000);
	CHECK_EQ(got, sent);
	/*
	 * a 5 ms gap in the middle of the window: left out too (counted, the
	 * window would close 1 ms after it reading 16 packets in 8 ms, 40 % of
	 * the rate sent)
	 */
	CHECK_EQ(share_gap(&sw, 3001, 8000, &got), 14000);
	CHECK_EQ(got, sent);
	CHECK(!predict_jump_shared(sent, got), "a pause is not a share");
	/* gaps under half the window (ACKs two at a time, 400 us apart) are the link's */
	predict_share_begin(&sw, 1000, 0, 8000);
	t = 1400, d = 0;
	for (; t < 20000; t += 400) {
		d += 2;
		if (predict_share_sample(&sw, t, d, MSS, &got))
			break;
	}
	CHECK_EQ(t, 9000);
	CHECK_EQ(got, sent);
}

TEST(application_limited_round_is_not_measured)
{
	struct feeder f;
	__u32 g[9];

	feeder_init(&f);
	uniform(g, 9, 1000);
	/* in flight + acked = 1 < 3/4 of cwnd 10: not a full round */
	CHECK_EQ(round_of(&f, 10, g, 0), PREDICT_ACT_NONE);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 0);
	CHECK(f.s.app_limited, "round 1 should be application-limited");
	/* judged? no: the next full round is the measured one, not a failure */
	f.cwnd = 10;
	CHECK_EQ(round_of(&f, 10, g, 1), PREDICT_ACT_NONE);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 1);
	CHECK_EQ(f.s.failed, 0);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET);
	CHECK_EQ(f.v.round, 2);
}

TEST(paced_flow_is_never_measured)
{
	struct feeder f;
	__u32 g[9];

	feeder_init(&f);
	f.paced = 1; /* fq, SO_MAX_PACING_RATE: the trains are the pacing's */
	uniform(g, 9, 1000);
	for (int r = 0; r < 5; r++) {
		f.cwnd = 10;
		CHECK_EQ(round_of(&f, 10, g, 1), PREDICT_ACT_NONE);
	}
	CHECK_EQ(f.s.phase, PREDICT_PH_MEASURE);
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 0);
	CHECK_EQ(f.s.failed, 0);
}

TEST(past_the_target_exits_at_once)
{
	struct feeder f;
	__u32 g[9];

	feeder_init(&f);
	uniform(g, 9, 1000);
	round_of(&f, 10, g, 1);
	f.cwnd = 200; /* above the target 103 already */
	CHECK_EQ(end_round(&f), PREDICT_ACT_EXIT);
	CHECK_EQ(f.s.phase, PREDICT_PH_DONE);
	CHECK_EQ(f.v.target, 103);
}

TEST(unpaced_rounds_until_one_is_believed)
{
	struct feeder f;
	__u32 shortg[19], g[19];

	feeder_init(&f);
	f.p.pace = 0;
	f.p.rounds = 3;
	predict_params_clamp(&f.p);
	/* long enough (19 gaps of 1000 us) but a bunched tail, its points too far off a line */
	uniform(shortg, 19, 1000);
	for (int i = 11; i < 19; i++)
		shortg[i] = 10;
	uniform(g, 19, 1000);
	f.cwnd = 20;
	CHECK_EQ(round_of(&f, 20, shortg, 1), PREDICT_ACT_NONE); /* no PACE when unpaced */
	CHECK_EQ(f.acts[PREDICT_ACT_PACE], 0);
	f.cwnd = 20;
	CHECK_EQ(round_of(&f, 20, shortg, 1), PREDICT_ACT_NONE); /* round 1 failed */
	CHECK_EQ(f.s.failed, 1);
	f.cwnd = 20;
	CHECK_EQ(round_of(&f, 20, g, 1), PREDICT_ACT_NONE); /* round 2 failed */
	CHECK_EQ(f.s.failed, 2);
	CHECK_EQ(end_round(&f), PREDICT_ACT_TARGET); /* round 3 believed */
	CHECK_EQ(f.v.round, 3);
	CHECK_EQ(f.v.failed_rounds, 2);
	CHECK_EQ(f.v.rate, 1000000);
	/* all three not believed: give up at the end of the third */
	feeder_init(&f);
	f.p.pace = 0;
	f.p.rounds = 3;
	for (int r = 0; r < 3; r++) {
		f.cwnd = 20;
		round_of(&f, 20, shortg, 1);
	}
	CHECK_EQ(end_round(&f), PREDICT_ACT_GIVE_UP);
	CHECK_EQ(f.s.v.failed_rounds, 3);
	/* trains too short to judge never count: measuring goes on, HyStart meanwhile */
	feeder_init(&f);
	f.p.pace = 0;
	f.p.rounds = 3;
	uniform(shortg, 19, 12);
	for (int r = 0; r < 6; r++) {
		f.cwnd = 20;
		round_of(&f, 20, shortg, 1);
	}
	CHECK_EQ(end_round(&f), PREDICT_ACT_NONE);
	CHECK_EQ(f.s.failed, 0);
	CHECK_EQ(f.s.short_rounds, 6);
	CHECK_EQ(f.s.phase, PREDICT_PH_MEASURE);
}

TEST(no_delay_min_no_estimate)
{
	struct feeder f;
	__u32 g[9];
	struct predict_ack a;

	feeder_init(&f);
	uniform(g, 9, 1000);
	round_of(&f, 10, g, 1);
	f.nxt = f.una + 20 * MSS;
	f.una += MSS;
	a = (struct predict_ack){ .now_us = f.now, .snd_una = f.una, .snd_nxt = f.nxt, .acked = 1,
				  .cwnd = 20, .inflight = 19, .mss = MSS, .delay_min = 0 };
	CHECK_EQ(predict_on_ack(&f.s, &f.p, &a, &f.v), PREDICT_ACT_GIVE_UP);
}

TEST(long_train_stops_at_its_bounds)
{
	struct feeder f;
	static __u32 g[199];

	/*
	 * 200 packets of a round 30 ms apart: the train ends at 128 points
	 * (x = 127 x 30000 = 3.81e6 us < 2^22); slope 1000 B / 30000 us.
	 */
	feeder_init(&f);
	uniform(g, 199, 30000);
	f.p.gap_us = 100000;
	round_of(&f, 200, g, 1);
	/* 33333 B/s x 0.1 s is 3.3 packets: target 4, below cwnd 210: exit */
	CHECK_EQ(end_round(&f), PREDICT_ACT_EXIT);
	CHECK_EQ(f.v.target, 4);
	CHECK_EQ(f.v.train_acks, PREDICT_MAX_POINTS);
	CHECK_EQ(f.v.train_us, 127 * 30000);
	CHECK_EQ(f.v.rate, 1000000 / 30);
	/* x past 2^22 us ends it earlier: 40 ms apart, 105 x 40000 = 4.2e6 */
	feeder_init(&f);
	uniform(g, 199, 40000);
	f.p.gap_us = 100000;
	round_of(&f, 200, g, 1);
	end_round(&f);
	CHECK_EQ(f.v.train_acks, 105);
	CHECK_EQ(f.v.rate, 1000000 / 40);
}

/*
 * The busy path remembered: an entry is in force for PREDICT_BUSY_S from
 * the last flow that found the path busy, on the same path (delay_min within
 * a factor of 2), and not from the future; nothing remembered, nothing.
 */
TEST(a_busy_path_remembered)
{
	const __u64 s = 1000000000ULL;
	struct predict_busy m = { .at_ns = 100 * s, .delay_min = DMIN, .flows = 1 };

	CHECK_EQ(predict_busy_applies(&m, 110 * s, DMIN), 1);
	CHECK_EQ(predict_busy_applies(&m, 110 * s, DMIN / 2), 1);
	CHECK_EQ(predict_busy_applies(&m, 110 * s, DMIN * 2), 1);
	CHECK_EQ(predict_busy_applies(&m, 110 * s, DMIN / 2 - 1), 0);
	CHECK_EQ(predict_busy_applies(&m, 110 * s, DMIN * 2 + 1), 0);
	CHECK_EQ(predict_busy_applies(&m, (100 + PREDICT_BUSY_S) * s, DMIN), 1);
	CHECK_EQ(predict_busy_applies(&m, (100 + PREDICT_BUSY_S) * s + 1, DMIN), 0);
	CHECK_EQ(predict_busy_applies(&m, 99 * s, DMIN), 0);
	CHECK_EQ(predict_busy_applies(&m, 110 * s, 0), 0);
	CHECK_EQ(predict_busy_applies(NULL, 110 * s, DMIN), 0);
	m.delay_min = 0;
	CHECK_EQ(predict_busy_applies(&m, 110 * s, DMIN), 0);
}

/*
 * What a first slow start's end says about the path. The losses of eval's
 * policers read 1.000-1.025 x delay_min, the fills that lost among
 * competing flows 1.037-1.224 x (cross50_40_c4's jump: 80,056 us on a
 * delay_min of 74,869; another's 78,980 on 75,830); 33/32 is the line. Below the estimate's target
 * (327, that flow's) by a queue or judged shared: busy; at the target or
 * past it: not (the entry goes); below it with no queue (a policer, an ACK
 * train): nothing said; and nothing without a target.
 */
TEST(a_busy_paths_evidence)
{
	CHECK_EQ(predict_loss_queued(80056, 74869), 1);
	CHECK_EQ(predict_loss_queued(78980, 75830), 1);
	CHECK_EQ(predict_loss_queued(40980, 39977), 0); /* pol100_40_b30's retreat, 1.025 x */
	CHECK_EQ(predict_loss_queued(33000, 32000), 0);
	CHECK_EQ(predict_loss_queued(33001, 32000), 1);
	CHECK_EQ(predict_loss_queued(0, 20000), 0);
	CHECK_EQ(predict_loss_queued(21001, 0), 0);

	CHECK_EQ(predict_busy_evidence(182, 327, PREDICT_BUSY_QUEUED), 1);
	CHECK_EQ(predict_busy_evidence(182, 327, 0), 0);
	CHECK_EQ(predict_busy_evidence(327, 327, 0), -1);
	CHECK_EQ(predict_busy_evidence(327, 327, PREDICT_BUSY_QUEUED), -1);
	CHECK_EQ(predict_busy_evidence(400, 327, PREDICT_BUSY_QUEUED), -1);
	/* the share check judges before cwnd reaches anything: shared is busy */
	CHECK_EQ(predict_busy_evidence(400, 327, PREDICT_BUSY_SHARED), 1);
	CHECK_EQ(predict_busy_evidence(182, 0, PREDICT_BUSY_QUEUED), 0);
	CHECK_EQ(predict_busy_evidence(182, 0, PREDICT_BUSY_SHARED), 0);
}

/*
 * A queue that rose since the handshake. The figures are eval's (tcp_probe's
 * srtt, the first sample against the least one of the initial window's
 * round): cross50_40_c4's flow of 74.91 ms at the handshake and 0.90 ms more
 * at the least of its first round, at the link's 6.1 MB/s (a 1448-byte
 * packet takes 237 us): risen. Its 0.18 ms (another flow's) is not, nor an
 * ACK-aggregation path's +0.08, nor the one whose handshake's sample
 * was held 3.83 ms (an RTT that falls). The line is rise_us (100 us) and one
 * packet at the estimate, exactly; on a 10 Mbit/s link a packet's time is
 * 1158 us.
 */
TEST(a_queue_that_rose_since_the_handshake)
{
	const __u32 syn = 74910, mss = 1448, rise = PREDICT_DEF_RISE_US;
	const __u64 rate = 6100000; /* bytes/s: 237 us a packet */

	CHECK_EQ(PREDICT_DEF_RISE_US, 100);
	CHECK_EQ(predict_rose(syn, syn + 900, rate, mss, rise), 1);
	CHECK_EQ(predict_rose(syn, syn + 180, rate, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, syn + 80, rate, mss, rise), 0);
	CHECK_EQ(predict_rose(47890, 47890 - 3830, rate, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, syn + 100 + 237, rate, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, syn + 100 + 237 + 1, rate, mss, rise), 1);
	/* slower links: one packet's time is part of the line */
	CHECK_EQ(predict_rose(syn, syn + 1200, 1250000, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, syn + 1300, 1250000, mss, rise), 1);
	/* off, or anything unknown: nothing said */
	CHECK_EQ(predict_rose(syn, syn + 5000, rate, mss, 0), 0);
	CHECK_EQ(predict_rose(0, syn + 5000, rate, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, 0, rate, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, syn + 5000, 0, mss, rise), 0);
	CHECK_EQ(predict_rose(syn, syn + 5000, rate, 0, rise), 0);
	/* no overflow at the extremes */
	CHECK_EQ(predict_rose(0xffffffffu, 0xffffffffu, 1, 0xffffffffu, 0xffffffffu), 0);
	CHECK_EQ(predict_rose(1, 0xffffffffu, ~0ULL, mss, 1), 1);
}

int main(void)
{
	RUN(defaults_are_the_tunables);
	RUN(params_clamp);
	RUN(target_arithmetic);
	RUN(clean_initial_window);
	RUN(leading_burst_is_trimmed);
	RUN(burst_threshold_is_two_thirds_of_the_median);
	RUN(bunched_tail_fails_the_tolerance);
	RUN(disagreeing_ends_give_the_lower);
	RUN(scattered_train_needs_half_the_tolerance);
	RUN(jittered_train_is_not_on_a_line);
	RUN(line_arithmetic);
	RUN(branch_free_arithmetic_matches_the_loops);
	RUN(short_train_is_not_believed);
	RUN(a_short_round_then_a_long_one);
	RUN(bunched_acks_are_one_point_each);
	RUN(a_gap_ends_the_train);
	RUN(aggregated_acks_are_measured_across_bunches);
	RUN(a_bunch_is_not_a_train);
	RUN(the_jump);
	RUN(the_jump_cwnd);
	RUN(the_jump_queue);
	RUN(the_retreat);
	RUN(the_queue_retreat);
	RUN(the_policer);
	RUN(the_policer_after_the_exit);
	RUN(the_policer_worth_remembering);
	RUN(the_policer_without_an_estimate);
	RUN(the_policer_remembered);
	RUN(a_policer_remembered_without_a_rate_holds_the_jump_back);
	RUN(the_policer_measured_over_its_recovery);
	RUN(the_recoverys_measure_after_a_jump);
	RUN(the_jumps_measure_is_kept_only_when_the_policer_limited_it);
	RUN(the_policer_bound_the_flow);
	RUN(the_policer_decided_over_its_recovery);
	RUN(the_policer_confirmed_lower);
	RUN(the_policer_raised);
	RUN(a_jumps_loss_with_no_queue);
	RUN(the_share_check);
	RUN(a_busy_path_remembered);
	RUN(a_busy_paths_evidence);
	RUN(a_queue_that_rose_since_the_handshake);
	RUN(the_share_window_reads_around_a_gap);
	RUN(application_limited_round_is_not_measured);
	RUN(paced_flow_is_never_measured);
	RUN(past_the_target_exits_at_once);
	RUN(unpaced_rounds_until_one_is_believed);
	RUN(no_delay_min_no_estimate);
	RUN(long_train_stops_at_its_bounds);
	return unit_done("test_predict");
}
