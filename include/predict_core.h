/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PREDICT (hystart=predict): a slow start that knows where to stop before it
 * gets there. A pure core: numbers in, decisions out, no kernel types and no
 * I/O; the same source goes into the BPF object and the host unit tests
 * (tests/unit/test_predict.c). bpf/rule_predict.bpf.h (predict_ack()) keeps the
 * state in socket storage and feeds it the slow-start ACKs of a flow's first
 * slow start (ssthresh still unset), in Open or Disorder.
 *
 * Why another rule. Our evaluation (docs/EVALUATION.md) shows that no rule
 * that watches a slow start which doubles unpaced can exit inside the ideal
 * band (BDP <= exit cwnd <= BDP + buffer, no loss) on buffers below about
 * half a BDP: a round that starts at W queues about W packets at its peak,
 * and every signal (delay, ACK train, SEARCH's delivery deficit) arrives one
 * RTT after the cause. So the exit point has to be known early, and the
 * last rounds must not burst.
 *
 * The rule, in two phases:
 *
 *  1. MEASURE (the first rounds, unpaced, as the kernel sends them). The
 *     packets of a round leave the sender back to back and queue at the
 *     bottleneck, so their ACKs come back spaced by the bottleneck's
 *     serialisation time: the "packet pair" or dispersion estimate of the
 *     bottleneck rate (Keshav 1991; Hoe, "Improving the start-up behavior of
 *     a congestion control scheme for TCP", SIGCOMM 1996, which set ssthresh
 *     from it). Per round (a round ends when snd_una passes the snd_nxt of
 *     its start, HyStart's round), the ACKs form a train:
 *       - the first `skip` packets of the round are not fitted: a token
 *         bucket at the bottleneck lets a burst through at line rate (our
 *         emulator's TBF: about 3 packets at 100 Mbit/s);
 *       - each later ACK adds the point (us since the train's first point,
 *         bytes acked since it);
 *       - an ACK that comes within 1/PREDICT_BUNCH of the train's mean gap
 *         after the last point replaces it: ACKs handed to TCP in bunches
 *         (a batch of the receiver's, GRO, interrupt moderation; on our VMs
 *         3-7 at a time, 150-350 us apart, at 200 Mbit/s) give one point
 *         per bunch, at its last ACK, and the line runs through the
 *         bunches' corners;
 *       - a gap longer than both `gap_us` and four times the train's mean
 *         gap is the round's tail (a delayed ACK, the sender's data ran
 *         out), a loss, or ACKs held and released in bunches (Wi-Fi, DOCSIS
 *         and LTE aggregation: on eval's agg50_20_4 bunches every 4 ms, on
 *         wifi50_20 every 2-6 ms). A bunch's corner lies on the
 *         bottleneck's line whatever the period, so the train goes on
 *         across a gap below delay_min / 2: if everything before it came
 *         in less time than the gap and is not yet a train to judge (one
 *         bunch), the train starts again at its corner; else the step
 *         across the gap is judged when the bunch after it is complete,
 *         and one that went below half the train's mean rate (a tail's one
 *         or two segments) takes the train back to before the gap and ends
 *         it there (predict_step_settle()). A longer gap ends the train,
 *         and so does, in a train of bunches, a gap above 1.5 periods (a
 *         bunch missing: the bottleneck idled);
 *       - at the round's end the rate is the least-squares slope of those
 *         points. It is accepted when the train has at least
 *         PREDICT_MIN_POINTS points, lasts `min_train_us`, and the slope
 *         agrees with the train's mean rate (last point) within `tolerance`
 *         per mille. Within twice the tolerance the lower of the two is
 *         the estimate (an end of the train off the line moves the mean
 *         far more than the fit; `disagreed` in the verdict); beyond, the
 *         train is not believed: a train bunched by ACK jitter or broken
 *         by a loss fails that test;
 *       - and the slope is known to within half the tolerance: its
 *         relative standard error, sqrt((1 - r^2) / ((n - 2) r^2)) for n
 *         points whose (time, bytes) have the squared correlation r^2, at
 *         most tolerance / 2000 (predict_line_ok()). A bottleneck spaces
 *         the ACKs evenly (clean trains of our emulator: errors of
 *         0.5-4 %); an ACK path that holds each ACK a random time (jitter)
 *         bunches them into a few scattered points and stretches the train
 *         as a whole, so slope and mean agree and both read low (every
 *         jittered train believed below 0.8 x the rate at the full
 *         tolerance had an error of 6.8-9.9 %). Such a round fails:
 *         HyStart decides instead of an exit below the BDP (docs/RULES.md,
 *         "The slope known to half the tolerance").
 *     A round the sender did not fill (in flight at its start below 3/4 of
 *     cwnd: application-limited) is not measured and does not count.
 *     A round whose train stayed shorter than `min_train_us` is not yet
 *     measurable: it does not count either, and the next round, twice as
 *     long, is measured. The ACK clock is noisy by tens to hundreds of
 *     microseconds (interrupt moderation, GRO, a timer's wake-up; on our
 *     VMs the emulator's delay line releases p50 60 us, p99 up to 0.5 ms
 *     late), and the first ACKs of a train tend to come late, so a short
 *     train reads a rate too high by as much as its length is short: at
 *     200 Mbit/s the initial window's train lasted 50-110 us and read 5-8 x
 *     the bottleneck, the next round's 0.5-0.7 ms read 1.3-2.4 x, the one
 *     after (1.8-2 ms) 1.10-1.14 x (tools/eval, s2011; 250 us was the
 *     default before and believed a 352 us train at 1.45 x). Hence 1 ms.
 *     After `rounds` counted rounds without an estimate, PREDICT gives up
 *     and Linux HyStart decides the rest of the slow start (Linux HyStart's
 *     two detectors run all through the measuring, too).
 *  2. FILL. With the rate R and delay_min (the smallest RTT seen, which
 *     includes no queue), the target is
 *       target = ceil(R x delay_min / mss x (1000 + margin) / 1000)
 *     packets. The glue then sets ssthresh = target (slow start continues,
 *     RFC 5681's slow start up to ssthresh) and turns on the kernel's own
 *     pacing (sk_pacing_status = SK_PACING_NEEDED) if nothing paces the
 *     flow. Linux paces at tcp_pacing_ss_ratio (200 %) x cwnd / srtt below
 *     ssthresh / 2 and at tcp_pacing_ca_ratio (120 %) above
 *     (tcp_update_pacing_rate()), so with ssthresh at the BDP the sending
 *     rate stays at or below the bottleneck's until cwnd is past 5/6 of the
 *     target, and the queue at the exit is about target - BDP packets. Slow
 *     start ends when cwnd reaches ssthresh: that is the exit (the record's
 *     reason "predict"). When the target is not above cwnd, the flow is
 *     past it already: it exits at once with cwnd = ssthresh = target.
 *     During the fill the glue keeps HyStart's delay test as a backstop
 *     (the ACK train means nothing once paced).
 *
 * Limits, said plainly: the estimate is of the bottleneck's rate as the
 * first rounds see it. Cross traffic that shares the bottleneck, ACK
 * compression, or a path whose RTT rises after the first rounds (delay_min
 * is then the old RTT) make it wrong; aggregated ACKs are measured across
 * their bunches once a round spans five of them (with fewer the round is
 * too short to judge), the standard error rejects scattered trains (RTT
 * jitter), nothing catches a rate that is simply shared. A flow
 * paced from its start (fq, or SO_MAX_PACING_RATE) has no dispersion to
 * measure: its trains are the pacing's.
 *
 * Integers only: the sums are u64 and bounded so that no product overflows
 * (at most PREDICT_MAX_POINTS points, x below 2^22 us, y below 2^26 bytes:
 * n x sum(x y) < 2^7 x 2^7 x 2^22 x 2^26 = 2^62); every loop has a
 * compile-time bound.
 */
#ifndef PREDICT_CORE_H
#define PREDICT_CORE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Tunables' limits and defaults (include/cubic_tunables.h repeats them; the
 * BPF program's static asserts tie the two). */
#define PREDICT_DEF_SKIP	 1
#define PREDICT_MAX_SKIP	 64
#define PREDICT_DEF_MIN_TRAIN	 1000 /* us */
#define PREDICT_MIN_MIN_TRAIN	 50
#define PREDICT_MAX_MIN_TRAIN	 1000000
#define PREDICT_DEF_TOLERANCE	 100 /* per mille */
#define PREDICT_MAX_TOLERANCE	 1000
#define PREDICT_DEF_MARGIN	 30 /* per mille */
#define PREDICT_MAX_MARGIN	 1000
#define PREDICT_DEF_ROUNDS	 3
#define PREDICT_MAX_ROUNDS	 16
#define PREDICT_DEF_GAP		 2000 /* us: hystart_ack_delta_us's default */

#define PREDICT_DEF_JUMP	 0 /* per mille of the target; 0: no jump */
#define PREDICT_MAX_JUMP	 1000
#define PREDICT_DEF_RISE_US	 100 /* us over the handshake's RTT, and a packet (predict_rose()) */

#define PREDICT_IW	      10 /* packets: TCP's initial window (RFC 6928) */
#define PREDICT_RETREAT_FLOOR PREDICT_IW

#define PREDICT_MIN_POINTS 5
/* r^2's sums count bytes in units of 2^PREDICT_LINE_SHIFT (bounded products) */
#define PREDICT_LINE_SHIFT 2
/* an ACK this many times closer than the train's mean gap joins the last point's bunch */
#define PREDICT_BUNCH	   8
/* a train must span this much of its round's bytes, per mille (see predict_judge()) */
#define PREDICT_MIN_COVER  750
#define PREDICT_HEAD	   8 /* the train's first points, kept to trim a leading burst */
#define PREDICT_MAX_POINTS 128
#define PREDICT_MAX_X	   (1U << 22) /* us */
#define PREDICT_MAX_Y	   (1U << 26) /* bytes */
#define PREDICT_MAX_TARGET 0x7ffffffeU /* below TCP_INFINITE_SSTHRESH */

enum predict_phase {
	PREDICT_PH_MEASURE = 0, /* zeroed storage is a flow about to measure */
	PREDICT_PH_FILL = 1,	/* ssthresh = target; slow start runs up to it */
	PREDICT_PH_DONE = 2,	/* exited, gave up, or another rule ended slow start */
};

enum predict_action {
	PREDICT_ACT_NONE = 0,
	PREDICT_ACT_TARGET = 1,	 /* set ssthresh = v->target, pace: the fill begins */
	PREDICT_ACT_EXIT = 2,	 /* cwnd = ssthresh = v->target: slow start is over */
	PREDICT_ACT_GIVE_UP = 3, /* no estimate in `rounds` rounds: HyStart decides */
	PREDICT_ACT_PACE = 4,	 /* the round's train is long enough: pace what it sends in reply */
};

struct predict_params {
	__u32 skip;	    /* packets at the start of each round not fitted */
	__u32 min_train_us; /* shortest train accepted */
	__u32 tolerance;    /* per mille: |fit - mean rate| <= tolerance x mean */
	__u32 margin;	    /* per mille added to the BDP estimate */
	__u32 rounds;	    /* counted rounds without an estimate before giving up */
	__u32 gap_us;	    /* an ACK gap above this (and 4 x the mean) is long */
	__u32 pace;	    /* pace once a round's train is long enough to judge (then one round only) */
	__u32 jump;	    /* at the target: cwnd jumps to this per mille of it (0: no jump) */
};

/* What the core reads of one ACK (after the kernel processed it). */
struct predict_ack {
	__u32 now_us;	 /* tcp_mstamp, low 32 bits */
	__u32 snd_una;	 /* after this ACK */
	__u32 snd_nxt;	 /* before this ACK's transmissions */
	__u32 acked;	 /* packets this ACK acked or SACKed */
	__u32 cwnd;	 /* packets */
	__u32 inflight;	 /* packets in flight after this ACK */
	__u32 mss;	 /* bytes */
	__u32 delay_min; /* us, the smallest RTT sample so far (0: none) */
	__u32 paced;	 /* something other than PREDICT paces the flow */
};

/* The estimate and what it rested on: the record's predict_* fields. */
struct predict_verdict {
	__u64 rate;	     /* bytes/s, the estimate: the fit's slope (or the mean: disagreed) */
	__u64 mean_rate;     /* bytes/s, the train's last point over its length */
	__u32 target;	     /* packets */
	__u32 train_us;	     /* the train's length */
	__u32 train_acks;    /* its points */
	__u32 train_bytes;   /* bytes acked along it */
	__u32 round;	     /* the round it came from (1: the initial window's) */
	__u32 delay_min;     /* us, the RTT of the BDP */
	__u32 cwnd;	     /* cwnd when it was accepted */
	__u32 failed_rounds; /* counted rounds whose train was not accepted */
	__u32 covered;	     /* per mille of its round's bytes the train spanned */
	__u32 line;	     /* per mille: r^2 of its points (predict_line_ok()) */
	__u32 gaps;	     /* long ACK gaps it went on across (predict_point()) */
	__u32 jump;	     /* cwnd to jump to at the target (0: none; see predict_params.jump) */
	__u32 disagreed;     /* fit and mean differed by 1-2 x the tolerance: rate is the lower */
};

/*
 * Sums over a train's points (x us, y bytes): sum(x), sum(y), sum(x^2),
 * sum(x y) for the slope, and of u = y >> PREDICT_LINE_SHIFT sum(u),
 * sum(u^2), sum(x u) for r^2. predict_sums_add() adds a point (sign 1) or
 * takes it out again (sign -1: a bunch's last point replaced, a leading
 * burst trimmed).
 */
struct predict_sums {
	__u64 sx, sy, sxx, sxy;
	__u64 su, suu, sxu;
};

static inline void predict_sums_add(struct predict_sums *m, __u64 x, __u64 y, int sign)
{
	__u64 u = y >> PREDICT_LINE_SHIFT;

	if (sign < 0) {
		m->sx -= x;
		m->sy -= y;
		m->sxx -= x * x;
		m->sxy -= x * y;
		m->su -= u;
		m->suu -= u * u;
		m->sxu -= x * u;
		return;
	}
	m->sx += x;
	m->sy += y;
	m->sxx += x * x;
	m->sxy += x * y;
	m->su += u;
	m->suu += u * u;
	m->sxu += x * u;
}

struct predict_state {
	struct predict_sums m;	/* the current round's train: sums of its points */
	__u32 round_start;	/* sequence where this round's data begins */
	__u32 round_end;	/* the round ends when snd_una passes this */
	__u32 ref_us, ref_pos;	/* the train's first point: time, bytes into the round */
	__u32 last_us;		/* time of the train's last point */
	__u32 last_x, last_y;	/* the last point */
	__u32 n;		/* points */
	__u32 head_x[PREDICT_HEAD], head_y[PREDICT_HEAD]; /* points 1.. (point 0 is (0, 0)) */
	struct predict_sums snap_m; /* the train before its last long gap (predict_point()) */
	__u32 snap_n, snap_x, snap_y;
	__u8 phase;		/* enum predict_phase */
	__u8 started;		/* a round is under way */
	__u8 ref_set;		/* the train has its first point */
	__u8 ended;		/* the train ended: 1 full (a bound), 2 cut by a gap */
	__u8 app_limited;	/* this round is not measured (application-limited, or paced) */
	__u8 rounds;		/* rounds begun, app-limited ones included (saturates) */
	__u8 failed;		/* counted rounds without an estimate */
	__u8 pacing;		/* PREDICT_ACT_PACE was returned */
	__u8 short_rounds;	/* rounds whose train was too short to judge (saturates) */
	__u8 gaps;		/* long gaps the train went on across */
	__u8 bunched;		/* the train starts at a bunch's corner (predict_point()) */
	__u8 pending;		/* the step after the last long gap is not yet judged */
	struct predict_verdict v; /* the accepted estimate (phase FILL and after) */
};

static inline void predict_reset(struct predict_state *s)
{
	__builtin_memset(s, 0, sizeof(*s));
}

static inline __u32 predict_clamp(__u32 v, __u32 lo, __u32 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Branch-free arithmetic for the verifier. A branch on a value the verifier
 * cannot know splits its walk in two, and a loop of them (a sort, a halving
 * loop) multiplies the walks of everything after it, in every caller. In
 * Linux 6.1's log of bc_pkts_acked (the exact datapath, predict-jump), the
 * insertion sort that predict_burst() was took about half of the
 * instructions walked and the halving loops of predict_slope() and
 * predict_line() a tenth: with these, which compute the same numbers with
 * shifts and masks (tests/unit/test_predict.c checks them against the
 * loops), it verifies in 430,278 instructions instead of 952,348, of the
 * 1,000,000 the verifier allows. PREDICT_OPAQUE() hides a value's range from
 * the compiler, which would otherwise fold (a - b) >> 63 back into a
 * comparison; BPF has no conditional move, so a comparison's result is a
 * branch.
 */
#define PREDICT_OPAQUE(v) asm volatile("" : "+r"(v))
#ifdef __clang__
/* a loop kept a loop: unrolled, its values are spilled to the stack */
#define PREDICT_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define PREDICT_NO_UNROLL
#endif

/* 1 if a < b, else 0; a and b below 2^63 */
static inline __u64 predict_lt(__u64 a, __u64 b)
{
	PREDICT_OPAQUE(a);
	PREDICT_OPAQUE(b);
	return (a - b) >> 63;
}

/* the number of bits of x (0 for 0, 64 for 2^63 and above), with no branch */
static inline __u64 predict_bitlen(__u64 x)
{
	__u64 r = 0, b;

	/* halve the bits left to look at: 32, 16, ... 1 (x >> sh nonzero: they are x's) */
	for (__u64 sh = 32; sh; sh >>= 1) {
		b = predict_lt(0, x >> sh) * sh;
		r += b;
		x >>= b;
	}
	return r + x;
}

/* how many halvings take x below 2^bits: max(0, bitlen(x) - bits), with no branch */
static inline __u64 predict_halvings(__u64 x, __u64 bits)
{
	__u64 len = predict_bitlen(x);

	return (len - bits) & (0 - predict_lt(bits, len));
}

/* The parameters as the core uses them: clamped again on every use. */
static inline void predict_params_clamp(struct predict_params *p)
{
	p->skip = predict_clamp(p->skip, 0, PREDICT_MAX_SKIP);
	p->min_train_us = predict_clamp(p->min_train_us, PREDICT_MIN_MIN_TRAIN, PREDICT_MAX_MIN_TRAIN);
	p->tolerance = predict_clamp(p->tolerance, 0, PREDICT_MAX_TOLERANCE);
	p->margin = predict_clamp(p->margin, 0, PREDICT_MAX_MARGIN);
	p->rounds = predict_clamp(p->rounds, 1, PREDICT_MAX_ROUNDS);
	p->gap_us = predict_clamp(p->gap_us, 1, 100000);
	p->pace = !!p->pace;
	p->jump = predict_clamp(p->jump, 0, PREDICT_MAX_JUMP);
	if (p->pace)
		p->rounds = 1; /* a paced round's ACKs are the pacing's, not the bottleneck's */
}

/*
 * The least-squares slope of the train, bytes/s, or 0. Centred sums (times
 * n): Sxx = n sum(x^2) - sum(x)^2 > 0, Sxy = n sum(xy) - sum(x) sum(y); both
 * are halved together until Sxy x 10^6 fits in 64 bits (Sxy below 2^43).
 */
static inline __u64 predict_slope(__u64 n, const struct predict_sums *m)
{
	__u64 sxx, sxy, k;

	if (n < 2 || n * m->sxx <= m->sx * m->sx || n * m->sxy <= m->sx * m->sy)
		return 0;
	sxx = n * m->sxx - m->sx * m->sx;
	sxy = n * m->sxy - m->sx * m->sy;
	k = predict_halvings(sxy, 43);
	sxy >>= k;
	sxx >>= k;
	if (!sxx)
		return 0;
	return sxy * 1000000ULL / sxx;
}

/* target = ceil(rate x delay_min / mss x (1000 + margin) / 1000), in [2, MAX] */
static inline __u32 predict_target_of(__u64 rate, __u32 delay_min, __u32 mss, __u32 margin)
{
	__u64 bytes, den, t;

	if (rate > (1ULL << 38))
		rate = 1ULL << 38; /* 275 GB/s */
	if (delay_min > (1U << 24))
		delay_min = 1U << 24; /* 16.7 s */
	if (!mss)
		mss = 1;
	/* rate x delay_min < 2^62; x (1000 + margin) after the division by 10^6 */
	bytes = rate * delay_min / 1000000ULL;
	den = (__u64)mss * 1000;
	t = (bytes * (1000 + (__u64)margin) + den - 1) / den;
	if (t < 2)
		t = 2;
	if (t > PREDICT_MAX_TARGET)
		t = PREDICT_MAX_TARGET;
	return (__u32)t;
}

/*
 * r^2 of the train's points, per mille: Sxy^2 / (Sxx Syy) with the centred
 * sums (times n) Sxx = n sum(x^2) - sum(x)^2, Syy = n sum(u^2) - sum(u)^2,
 * Sxy = n sum(x u) - sum(x) sum(u), u = y >> PREDICT_LINE_SHIFT. Bounds: x <
 * 2^22, u < 2^24, n <= 2^7, so every n x sum < 2^63. The three are halved
 * together (r^2 does not change) until each is below 2^26, so that 1000 x
 * Sxy^2 and Sxx x Syy fit in 64 bits: by as many bits as the largest has
 * above 26, counted with no branch (predict_halvings()). Microseconds and 4-byte units
 * keep Sxx and Syy within 2^16 of each other from 125 kbit/s to 8 Gbit/s;
 * where one of them is left below 2^8 by the halving, r^2 cannot be read to
 * a per mille and the train is not judged by it (1000). 0 if not defined.
 */
static inline __u32 predict_line(__u64 n, const struct predict_sums *m)
{
	__u64 sxx, suu, sxu, num, den, k;

	if (n < 3 || n * m->sxx <= m->sx * m->sx || n * m->suu <= m->su * m->su ||
	    n * m->sxu <= m->sx * m->su)
		return 0;
	sxx = n * m->sxx - m->sx * m->sx;
	suu = n * m->suu - m->su * m->su;
	sxu = n * m->sxu - m->sx * m->su;
	k = predict_halvings(sxx | suu | sxu, 26);
	sxx >>= k;
	suu >>= k;
	sxu >>= k;
	if (k && (sxx < (1U << 8) || suu < (1U << 8)))
		return 1000;
	num = sxu * sxu;
	den = sxx * suu;
	num = num * 1000 / den;
	return num > 1000 ? 1000 : (__u32)num;
}

/*
 * The slope of n points whose r^2 is line per mille is known to within
 * tolerance per mille: its relative standard error, sqrt((1 - r^2) / ((n -
 * 2) r^2)), at most tolerance / 1000; in integers, (1000 - line) x 10^6 <=
 * tolerance^2 x (n - 2) x line (at most 10^6 x 126 x 1000 < 2^37).
 */
static inline int predict_line_ok(__u32 n, __u32 line, __u32 tolerance)
{
	if (n < 3 || line > 1000)
		return 0;
	return (__u64)(1000 - line) * 1000000ULL <= (__u64)tolerance * tolerance * (n - 2) * line;
}

/*
 * The round that just ended: is its train an estimate? Fills v (rate,
 * train_*) whether or not, and returns 1 if accepted.
 */
/* the gap before point i + 1 of the train (head_x[i] - head_x[i - 1]; point 0 is at 0) */
static inline __u32 predict_head_gap(const struct predict_state *s, __u32 i)
{
	i &= PREDICT_HEAD - 1;
	return s->head_x[i] - (i ? s->head_x[(i - 1) & (PREDICT_HEAD - 1)] : 0);
}

/*
 * How many of the train's first points are a burst: a token bucket at the
 * bottleneck lets a few packets through at line rate, their ACKs bunched
 * (our emulator's TBF: 3-4 packets at 100 Mbit/s, gaps of 2-60 us where the
 * others are 120). The reference is the median of the first gaps (at most
 * PREDICT_HEAD of them; the burst is a minority of them); the train starts
 * at the first point whose next gap is at least 2/3 of it. At most
 * PREDICT_HEAD - 1 points go.
 */
static inline __u32 predict_burst(const struct predict_state *s)
{
	__u64 m = 0, med = 0, going = 1, drop = 0;
	__u32 i, j;

	/*
	 * With no branch on the points (see PREDICT_OPAQUE()), and no copy of
	 * them on the stack (the subprogram calls' 512 bytes): the m gaps
	 * there are (i + 1 < n, so gap i is there when i < m), and their
	 * median, the gap of rank m / 2 (ascending; equal gaps sharing their
	 * ranks): the one with fewer than m / 2 + 1 below it and more than
	 * m / 2 at or below it. Equal gaps that qualify are the same number,
	 * so or-ing them gives it.
	 */
	for (i = 0; i < PREDICT_HEAD; i++)
		m += predict_lt(i + 1, s->n);
PREDICT_NO_UNROLL
	for (i = 0; i < PREDICT_HEAD; i++) {
		__u64 below = 0, upto = 0, gi = predict_head_gap(s, i);

PREDICT_NO_UNROLL
		for (j = 0; j < PREDICT_HEAD; j++) {
			__u64 ok = predict_lt(j, m), gj = predict_head_gap(s, j);

			below += ok & predict_lt(gj, gi);
			upto += ok & (1 - predict_lt(gi, gj));
		}
		med |= gi & (0 - (predict_lt(i, m) & predict_lt(below, (m >> 1) + 1) &
				  predict_lt(m >> 1, upto)));
	}
	/*
	 * The first point (i < PREDICT_HEAD - 1, i + 2 < n: i + 1 < m) whose
	 * next gap is at least 2/3 of the median starts the train; the count
	 * of points before it is how many go (the last one checked, or the
	 * last there is, when none is).
	 */
	for (i = 0; i < PREDICT_HEAD - 1; i++) {
		__u64 a = (__u32)(predict_head_gap(s, i) * 3), b = (__u32)(med * 2);

		going &= predict_lt(i + 1, m) & predict_lt(a, b);
		drop += going;
	}
	/* fewer than 3 gaps: no median to trust, nothing goes */
	return (__u32)(drop & (0 - predict_lt(2, m)));
}

/*
 * Where the train starts once a leading burst is trimmed: points 0 .. drop - 1
 * go (drop: predict_burst()) and point `drop` starts it, at
 * predict_start_x(), predict_start_y() ((0, 0) when nothing is trimmed).
 * predict_train_long() and predict_judge() trim the same points.
 */
static inline __u32 predict_start_x(const struct predict_state *s, __u32 drop)
{
	return drop ? s->head_x[(drop - 1) & (PREDICT_HEAD - 1)] : 0;
}

static inline __u32 predict_start_y(const struct predict_state *s, __u32 drop)
{
	return drop ? s->head_y[(drop - 1) & (PREDICT_HEAD - 1)] : 0;
}

/*
 * The train so far is long enough to be judged: at least PREDICT_MIN_POINTS
 * points and min_train_us once a leading burst is trimmed. Cheap until the
 * untrimmed train is that long. Always inlined into its caller
 * (predict_point()): a subprogram of its own, its frame took bc_pkts_acked's
 * deepest call chain past the 512 bytes of stack Linux 6.1's verifier allows
 * (544).
 */
static inline __attribute__((always_inline)) int
predict_train_long(const struct predict_state *s, const struct predict_params *p)
{
	__u32 drop;

	if (!s->ref_set || s->n < PREDICT_MIN_POINTS || s->last_x < p->min_train_us)
		return 0;
	drop = predict_burst(s);
	return s->n - drop >= PREDICT_MIN_POINTS &&
	       s->last_x - predict_start_x(s, drop) >= p->min_train_us;
}

static inline int predict_judge(const struct predict_state *s, const struct predict_params *p,
				struct predict_verdict *v)
{
	struct predict_sums m = s->m;
	__u64 rate, mean, diff;
	__u32 drop, x0, y0, n = s->n;

	v->train_acks = s->n;
	v->train_us = s->last_x;
	v->train_bytes = s->last_y;
	v->gaps = s->gaps;
	v->rate = v->mean_rate = 0;
	if (!s->ref_set || s->n < 2 || !s->last_x)
		return 0;
	/*
	 * A leading burst: points 0 .. drop - 1 go, point `drop` starts the
	 * train. Point 0 (0, 0) added nothing to the sums; points 1 .. drop - 1
	 * are head[0 .. drop - 2]; point `drop` (head[drop - 1]) stays in the
	 * fit, and the mean rate is taken from it.
	 */
	drop = predict_burst(s);
	x0 = predict_start_x(s, drop);
	y0 = predict_start_y(s, drop);
	for (__u32 i = 0; i < PREDICT_HEAD; i++) {
		if (i + 1 >= drop)
			break;
		predict_sums_add(&m, s->head_x[i], s->head_y[i], -1);
	}
	n -= drop;
	v->train_acks = n;
	v->train_us = s->last_x - x0;
	v->train_bytes = s->last_y - y0;
	/*
	 * The train must span most of its round: the round's packets left back
	 * to back (or two per ACK of a train), so their ACKs come as one train.
	 * A train that a gap ended well before the round's last byte was cut by
	 * a gap the bottleneck did not make: ACKs held and released in bunches (Wi-Fi,
	 * DOCSIS, LTE aggregation), whose one bunch would be timed at the speed
	 * the receiver's ACKs are processed, not the bottleneck's; or a loss.
	 * Such a round is not believed: PREDICT measures another, or gives up
	 * and Linux HyStart decides (never an exit from a fragment).
	 */
	if (s->round_end != s->round_start)
		v->covered = (__u32)((__u64)(s->ref_pos + s->last_y) * 1000 /
				     (s->round_end - s->round_start));
	if (n < PREDICT_MIN_POINTS || v->train_us < p->min_train_us || !v->train_us ||
	    (s->ended == 2 && v->covered < PREDICT_MIN_COVER))
		return 0;
	rate = predict_slope(n, &m);
	mean = (__u64)v->train_bytes * 1000000ULL / v->train_us;
	v->rate = rate;
	v->mean_rate = mean;
	if (!rate || !mean)
		return 0;
	diff = rate > mean ? rate - mean : mean - rate;
	v->line = predict_line(n, &m);
	/*
	 * The slope must be known to half the tolerance. A bottleneck spaces
	 * the ACKs evenly: clean trains' standard errors were 0.5-4 % (5.2 %
	 * once, a train that read 0.80 x), aggregated ACKs' bunch corners
	 * 1.4-4.1 %. An ACK path that holds ACKs a random time stretches a
	 * round (the sender's next bursts leave as the held ACKs come, and the
	 * bottleneck idles between them) and scatters its points: every
	 * jittered train believed below 0.8 x the rate had an error of
	 * 6.8-9.9 % (j60_30_15: 7 points at r^2 0.953, 9.9 %, 0.63 x;
	 * j100_60_3ms: 8 at 0.967, 7.5 %, 0.46 x), and so had an
	 * application-limited round (app100_40_1: 6 at 0.965, 9.5 %, 0.41 x)
	 * and a medium won at random times (wifi50_20: 5 at 0.980, 8.2 %).
	 * diff / mean <= tolerance / 1000 below; mean < 2^46, x 1000 < 2^56.
	 */
	if (!predict_line_ok(n, v->line, p->tolerance / 2))
		return 0;
	if (diff * 1000 <= mean * p->tolerance)
		return 1;
	/*
	 * On a line, but the fit and the mean disagree by more than the
	 * tolerance: an end of the train is off the line, and an end moves
	 * the mean (its two ends) far more than the fit (all the points). A
	 * first point held back shortens the train and the mean reads high
	 * (s2011_q25 at 200 Mbit/s, a full evaluation on a busy host: fit
	 * 1.12-1.18 x the rate, mean 1.27-1.31 x, r^2 0.968, 30 points; the
	 * train was refused and HyStart's loss came at 1.36 x the BDP); a last
	 * point held back stretches it and the mean reads low. Up to twice
	 * the tolerance the lower of the two is believed (v->disagreed):
	 * never more than the line says. Beyond it, the train is not
	 * believed (tolerance <= 1000: mean x 2000 < 2^57).
	 */
	if (diff * 1000 > mean * p->tolerance * 2)
		return 0;
	v->disagreed = 1;
	if (mean < rate)
		v->rate = mean;
	return 1;
}

/* A new round begins on this ACK (the first one a flow shows, or snd_una past round_end). */
static inline void predict_new_round(struct predict_state *s, const struct predict_ack *a)
{
	if (s->started)
		s->round_start = s->round_end;
	else
		s->round_start = a->snd_una - a->acked * a->mss;
	s->round_end = a->snd_nxt;
	s->started = 1;
	__builtin_memset(&s->m, 0, sizeof(s->m));
	s->ref_set = s->ended = 0;
	s->gaps = s->pending = s->bunched = 0;
	s->n = 0;
	s->last_x = s->last_y = 0;
	if (s->rounds < 255)
		s->rounds++;
	/* what the previous round sent is in flight now (and this ACK's share) */
	s->app_limited = a->paced || (__u64)(a->inflight + a->acked) * 4 < (__u64)a->cwnd * 3;
}

/*
 * The step across the train's last long gap (from the point before it to the
 * last point, the corner of the bunch after it) is the bottleneck's when it
 * went at least half the train's mean rate: a bunch carries what the
 * bottleneck delivered while it was held (about the mean rate), the round's
 * tail one or two segments after a long wait (on a clean 50 Mbit/s path a
 * 1448-byte step over 3 ms is a twelfth of it).
 */
static inline int predict_step_ok(const struct predict_state *s)
{
	__u64 dx = s->last_x - s->snap_x, dy = s->last_y - s->snap_y;

	/* dy / dx >= last_y / last_x / 2; x < 2^22, y < 2^26 */
	return dy * s->last_x * 2 >= (__u64)s->last_y * dx;
}

/*
 * Judge the step after the last long gap, if one is pending: a step that is
 * not the bottleneck's takes the train back to before the gap. Returns 1 if
 * the train stands as it is.
 */
static inline int predict_step_settle(struct predict_state *s)
{
	if (!s->pending)
		return 1;
	s->pending = 0;
	if (predict_step_ok(s))
		return 1;
	s->m = s->snap_m;
	s->n = s->snap_n;
	s->last_x = s->snap_x;
	s->last_y = s->snap_y;
	s->gaps--;
	return 0;
}

/* This ACK's point on the round's train. */
static inline void predict_point(struct predict_state *s, const struct predict_params *p,
				 const struct predict_ack *a)
{
	__u32 pos = a->snd_una - s->round_start, x, y, gap, limit, mean;

	if (s->ended || (__s32)pos < 0)
		return;
	if (!s->ref_set) {
		if (pos < p->skip * a->mss)
			return;
		s->ref_set = 1;
		s->ref_us = a->now_us;
		s->ref_pos = pos;
		s->last_us = a->now_us;
		s->n = 1; /* the point (0, 0): nothing to add to the sums */
		return;
	}
	if (pos - s->ref_pos <= s->last_y)
		return; /* no progress (a duplicate, or SACK only) */
	gap = a->now_us - s->last_us;
	/* the train's mean gap between points (in a train of bunches, the period) */
	mean = s->n > 1 ? s->last_x / (s->n - 1) : 0;
	limit = mean * 4 > p->gap_us ? mean * 4 : p->gap_us;
	if (s->bunched && s->n > 2 && (__u64)gap * 2 > (__u64)mean * 3) {
		/*
		 * A train of bunches (each a point, a period apart) whose next
		 * bunch comes more than 1.5 periods on: a bunch is missing, the
		 * bottleneck had nothing to deliver for a while (the data the
		 * previous round's ACKs clocked out had a hole), and the rate
		 * across it would read low (agg50_20_4: a gap of 8.0 ms among
		 * 3.8 ms ones, a train at 0.66 x). The train ends before it.
		 */
		s->ended = 2;
		return;
	}
	if (gap > limit) {
		/*
		 * A long gap: the round's tail (the sender's data ran out, a
		 * delayed ACK), a loss, or ACKs that reach the sender in bunches
		 * (Wi-Fi and DOCSIS aggregation, a cellular scheduler, an ACK
		 * path that holds them): a bottleneck that delivers at rate R
		 * and a receiver whose ACKs are held and released together put
		 * each bunch's last ACK (its corner: the bunch rule below keeps
		 * that one) on the line bytes = R x time, whatever the period.
		 * So a gap shorter than half of delay_min does not end the
		 * train; the step across it is judged once the bunch after it
		 * is complete (predict_step_ok()), and a step that is not the
		 * bottleneck's takes the train back to before the gap and ends
		 * it there.
		 */
		if (!predict_step_settle(s) || !a->delay_min || gap > a->delay_min / 2) {
			s->ended = 2;
			return;
		}
		if (s->last_x < gap && !predict_train_long(s, p)) {
			/*
			 * Everything so far came in less time than this gap, and
			 * is not yet a train to judge: one bunch. The train starts
			 * again at its corner (its last ACK), as later bunches
			 * count only theirs. (A train long enough to judge stays:
			 * r100_10_q25 once had one of 15 points cut to 2 here.)
			 */
			s->ref_us = s->last_us;
			s->ref_pos += s->last_y;
			__builtin_memset(&s->m, 0, sizeof(s->m));
			s->n = 1;
			s->last_x = s->last_y = 0;
			s->bunched = 1;
		} else {
			s->snap_m = s->m;
			s->snap_n = s->n;
			s->snap_x = s->last_x;
			s->snap_y = s->last_y;
			s->pending = 1;
		}
		if (s->gaps < 255)
			s->gaps++;
	}
	x = a->now_us - s->ref_us;
	y = pos - s->ref_pos;
	if (x >= PREDICT_MAX_X || y >= PREDICT_MAX_Y) {
		s->ended = 1;
		return;
	}
	/* (a bunched train's mean gap is a bunch's period from its second point) */
	if ((s->n >= 3 || (s->bunched && s->n >= 2)) && (__u64)gap * PREDICT_BUNCH < mean) {
		/*
		 * A bunch: this ACK came within 1/PREDICT_BUNCH of the train's
		 * mean gap after the last point, so both were handed to TCP
		 * together (a batch of the receiver's ACKs, GRO, interrupt
		 * moderation, the emulator's delay line), not spaced by the
		 * bottleneck. It replaces the last point: one point per bunch,
		 * at its last ACK, so the line runs through the bunches'
		 * corners and neither the fit nor the mean depends on where in
		 * a bunch the train starts or ends.
		 */
		predict_sums_add(&s->m, s->last_x, s->last_y, -1);
		s->n--;
	}
	if (s->n < PREDICT_HEAD + 1) {
		s->head_x[(s->n - 1) & (PREDICT_HEAD - 1)] = x;
		s->head_y[(s->n - 1) & (PREDICT_HEAD - 1)] = y;
	}
	s->n++;
	predict_sums_add(&s->m, x, y, 1);
	s->last_x = x;
	s->last_y = y;
	s->last_us = a->now_us;
	if (s->n >= PREDICT_MAX_POINTS)
		s->ended = 1;
}

/*
 * One slow-start ACK while measuring (the glue calls it only in phase
 * MEASURE, with ssthresh unset). Returns a PREDICT_ACT_*; on TARGET and
 * EXIT, v is the estimate (also kept in s->v) and the phase is FILL or DONE.
 */
/* a BPF subprogram of its own: its frame does not add to its caller's */
#ifdef __bpf__
#define PREDICT_SUBPROG static __attribute__((noinline))
#else
#define PREDICT_SUBPROG static inline
#endif

PREDICT_SUBPROG __u8 predict_on_ack(struct predict_state *s, const struct predict_params *p,
				    const struct predict_ack *a, struct predict_verdict *v)
{
	if (s->phase != PREDICT_PH_MEASURE)
		return PREDICT_ACT_NONE;
	if (s->started && (__s32)(a->snd_una - s->round_end) <= 0) {
		predict_point(s, p, a);
		if (p->pace && !s->pacing && !s->app_limited && predict_train_long(s, p)) {
			/*
			 * This round's train will be judged: what its ACKs release
			 * from now on is paced (the next round's ACKs are then the
			 * pacing's, so this is the one round measured). A round
			 * too short to judge leaves the next one unpaced, to be
			 * measured instead.
			 */
			s->pacing = 1;
			return PREDICT_ACT_PACE;
		}
		/*
		 * With the jump on, the round is over on the ACK of its last
		 * byte, not on the next one (HyStart's round): the estimate of
		 * the initial window's round comes an RTT sooner, and so does
		 * the jump. Without it, PREDICT's rounds are HyStart's.
		 */
		if (!p->jump || a->snd_una != s->round_end)
			return PREDICT_ACT_NONE;
	}
	/* the round before this ACK is over */
	if (s->started && !s->app_limited) {
		/* the step after a long gap at the round's end: its tail, or a bunch */
		if (!predict_step_settle(s))
			s->ended = 2;
		/* v may be &s->v */
		__builtin_memset(v, 0, sizeof(*v));
		if (predict_judge(s, p, v) && a->delay_min) {
			v->round = s->rounds;
			v->delay_min = a->delay_min;
			v->cwnd = a->cwnd;
			v->failed_rounds = s->failed;
			v->target = predict_target_of(v->rate, a->delay_min, a->mss, p->margin);
			/*
			 * The jump (Careful Resume's, draft-ietf-tsvwg-careful-resume: at
			 * most half of the capacity it trusts, then slow start validates the
			 * rest): the glue sets cwnd to it at once, paced at the estimated
			 * rate, so the next round carries it without a burst.
			 */
			v->jump = (__u32)((__u64)v->target * p->jump / 1000);
			if (v->jump <= a->cwnd || v->jump >= v->target)
				v->jump = 0;
			if (v != &s->v)
				s->v = *v;
			if (v->target > a->cwnd) {
				s->phase = PREDICT_PH_FILL;
				return PREDICT_ACT_TARGET;
			}
			s->phase = PREDICT_PH_DONE;
			return PREDICT_ACT_EXIT;
		}
		if (v != &s->v)
			s->v = *v; /* the last train judged, for the records */
		if (!s->pacing &&
		    (v->train_acks < PREDICT_MIN_POINTS || v->train_us < p->min_train_us)) {
			/*
			 * Too short to judge, not a failure: measure the next round.
			 * So is a short train that a gap ended: a fragment is only
			 * a failure (a bunch, predict_judge()) once it is long
			 * enough to have been believed.
			 */
			if (s->short_rounds < 255)
				s->short_rounds++;
			s->v.failed_rounds = s->failed;
			goto next;
		}
		s->v.failed_rounds = ++s->failed;
		if (s->failed >= p->rounds) {
			s->phase = PREDICT_PH_DONE;
			return PREDICT_ACT_GIVE_UP;
		}
	}
next:
	if (p->jump && s->started && a->snd_una == s->round_end) {
		/*
		 * Judged on its last byte's ACK; the next round begins on the
		 * next ACK, as HyStart's does. Begun here, it would leave out
		 * what this ACK releases (the end of the next flight) and
		 * take in the first packets of the flight after it: its train
		 * would span two bursts an RTT apart, cut by the gap between
		 * them (s2011 at 200 Mbit/s: every round from the third cut at
		 * 24-47 % of its bytes, and HyStart decided at 1.4 x the BDP).
		 */
		s->started = 0;
		return PREDICT_ACT_NONE;
	}
	predict_new_round(s, a);
	predict_point(s, p, a);
	return PREDICT_ACT_NONE;
}

/*
 * The jump's cwnd as the glue applies it: the core's v->jump (at most half
 * the target: the tunable's limit, Careful Resume's "at most half"), below
 * half of ssthresh (the target) so that Linux paces it at its slow-start
 * ratio (tcp_update_pacing_rate(): 2 x cwnd / srtt below ssthresh / 2, which
 * is the estimated rate there when srtt is delay_min and less once srtt has
 * grown: 0.6 x on 50 Mbit/s x 40 ms; the fill's cap holds it at most at the
 * estimate), and within the socket's clamp. 0: no jump (nothing above cwnd).
 */
static inline __u32 predict_jump_cwnd(__u32 jump, __u32 target, __u32 cwnd, __u32 clamp)
{
	if (jump && (__u64)jump * 2 >= target)
		jump = target ? (target - 1) / 2 : 0;
	if (jump > clamp)
		jump = clamp;
	return jump > cwnd ? jump : 0;
}

/*
 * The jump's queue check. The jump outruns HyStart's delay test, which takes
 * the first samples of each round: a round that starts before the jump sees
 * none of the jumped packets, and the next one starts about when cwnd reaches
 * the target. So during the fill after a jump every RTT sample counts: when
 * PREDICT_JUMP_SAMPLES of them in a row (HyStart's N_RTT_SAMPLE: their
 * minimum) exceed thresh (the delay test's, delay_min + clamp(delay_min / 8,
 * 4 ms, 16 ms)), a queue built that the estimate did not foresee (a shared
 * bottleneck: the estimate was the link's, not the share's), and slow start
 * ends there. *n counts the samples in a row, *least keeps their minimum.
 * Returns 1 when it fires. A sample of 0 (none) changes nothing.
 */
#define PREDICT_JUMP_SAMPLES 8

static inline int predict_jump_delayed(__u8 *n, __u32 *least, __u32 rtt, __u32 thresh)
{
	if (!rtt)
		return 0;
	if (rtt <= thresh) {
		*n = 0;
		return 0;
	}
	if (!*n || rtt < *least)
		*least = rtt;
	if (*n < 255)
		(*n)++;
	return *n >= PREDICT_JUMP_SAMPLES;
}

/*
 * The jump's share check (issue 20, a shared bottleneck). The estimate is
 * the bottleneck's rate as an unpaced burst sees it: the round's packets
 * reach the queue back to back, ahead of what other flows send meanwhile, so
 * their ACKs come back at the link's rate whether the link is shared or not.
 * The jumped window is paced, at a rate p up to the estimate R; with other
 * flows sending into the same FIFO at a rate A, a paced stream leaves the
 * bottleneck at p x R / (p + A) when p + A is above R (p = A = R, a link the
 * others keep full: half its sending rate), and on a free link at p. So once
 * the ACKs of packets sent after the jump come back, the delivery rate over
 * a window of them says which: below PREDICT_SHARE_PERMILLE of the rate they
 * were sent at (est, the glue's: the pacing rate, at most the estimate), the
 * estimate was the link's, not the share's, and the fill ends at the rate
 * the flow got (its BDP, with the margin) instead of growing into the
 * others' queue until a loss.
 *
 * The window: half the time the jumped packets take at the estimate
 * ((jump - from) packets), at least min_train_us (a shorter one reads ACK
 * bunches, not a rate), at most half of delay_min.
 */
#define PREDICT_SHARE_PERMILLE 750

static inline __u32 predict_share_window(__u32 jump, __u32 from, __u32 mss, __u64 rate,
					 __u32 min_train_us, __u32 delay_min)
{
	__u64 w;

	if (!rate || jump <= from)
		return min_train_us;
	w = (__u64)(jump - from) * mss * 1000000ULL / rate / 2;
	if (w > delay_min / 2)
		w = delay_min / 2;
	if (w < min_train_us)
		w = min_train_us;
	return (__u32)w;
}

/*
 * The window over the jumped packets' ACKs (tcp clock, us; tp->delivered,
 * packets): its start (t0 0: not begun), the last ACK, the time and the
 * packets left out of it (gaps), and its length.
 */
struct predict_share_win {
	__u32 t0, d0;
	__u32 prev_t, prev_d;
	__u32 skip_t, skip_d;
	__u32 w;
};

static inline void predict_share_begin(struct predict_share_win *sw, __u32 now, __u32 delivered, __u32 w)
{
	sw->t0 = sw->prev_t = now ? now : 1;
	sw->d0 = sw->prev_d = delivered;
	sw->skip_t = sw->skip_d = 0;
	sw->w = w;
}

/*
 * One ACK of the window: 1 when the window is judged on it, with *got the
 * bytes/s delivered; 0 to go on. The window ends on the first ACK past w of
 * the link's time. A gap between two ACKs longer than half the window is not
 * the link's time: nothing was acknowledged in it because nothing was sent in
 * it an RTT earlier (the sender's pacing paused) or its ACKs were held (a host
 * stall), and a window that counted it would read a slow link (eval,
 * r100_40_q25, a free 100 Mbit/s link: 2.50 MB/s read for 7.35 sent, and
 * predict-jump left slow start at 0.22 x the BDP). So such a gap, and the
 * packets the ACK after it acknowledges, are left out, wherever in the
 * window it falls. Gaps of half the window or less are the link's (ACK
 * aggregation shorter than that reads right over the window).
 */
static inline int predict_share_sample(struct predict_share_win *sw, __u32 now, __u32 delivered,
				       __u32 mss, __u64 *got)
{
	__u32 el;

	if (now - sw->prev_t > sw->w / 2) {
		sw->skip_t += now - sw->prev_t;
		sw->skip_d += delivered - sw->prev_d;
	}
	sw->prev_t = now;
	sw->prev_d = delivered;
	el = now - sw->t0 - sw->skip_t;
	if (el < sw->w || !el)
		return 0;
	*got = (__u64)(delivered - sw->d0 - sw->skip_d) * mss * 1000000ULL / el;
	return 1;
}

/* Whether got (bytes/s, the jumped packets' delivery) is a share of est (their sending rate). */
static inline int predict_jump_shared(__u64 est, __u64 got)
{
	return est && got * 1000 < est * PREDICT_SHARE_PERMILLE;
}

/*
 * Careful Resume's Safe Retreat (RFC 9959, draft-ietf-tsvwg-careful-resume,
 * "Safe Retreat Phase"): a loss while the jumped window is unvalidated means
 * the estimate was wrong (a shared or policed bottleneck, a bunched train);
 * cwnd goes to half the PipeSize, the packets the path is known to have
 * delivered: the flight at the jump plus what was acknowledged since. Never
 * below `floor` (the initial window), never above `ssthresh` (CUBIC's own
 * reduction, when that is lower). Returns the new ssthresh.
 */
static inline __u32 predict_retreat(__u32 pipe, __u32 floor, __u32 ssthresh)
{
	__u32 r = pipe / 2;

	if (r < floor)
		r = floor;
	return r < ssthresh ? r : ssthresh;
}

/*
 * A queue while the jumped window is unvalidated (the jump's queue check,
 * predict_jump_delayed(), before the ACKs of as many packets as the jump
 * added have come back: pipe, the PipeSize, still below jump, the cwnd it
 * set). On a free path the jumped window, at most half the target, cannot
 * build a queue of its own before it is acknowledged; one seen then is
 * another flow's (a shared bottleneck, issue 20). In the full evaluation of
 * 2026-12-06 and ten paths it had not seen, the check fired on 3 of 68
 * jumps, all three beside one competing flow (cross50_40_c1, cross50_40_b1,
 * u_c1), after 11-27 of the 61-114 packets the jump added, and on no free
 * path. Holding cwnd there (HyStart's delay exit) keeps the unvalidated
 * packets in the queue the other flow needs: 32-33 retransmitted, 92-160 on
 * the path, where the kernel's cubic lost 0-55. So slow start ends at the
 * PipeSize, what the path is known to have delivered (not halved: no packet
 * was lost), never below `floor`, never above cwnd. Returns the window slow
 * start ends at: cwnd itself once the jumped window is validated.
 */
static inline __u32 predict_queue_retreat(__u32 pipe, __u32 jump, __u32 floor, __u32 cwnd)
{
	__u32 r = pipe;

	if (pipe >= jump)
		return cwnd;
	if (r < floor)
		r = floor;
	return r < cwnd ? r : cwnd;
}

/*
 * A policer (issue 20): a token bucket that lets a burst through at line rate
 * and drops what exceeds its rate, with no queue. The first rounds measure the
 * line rate; the losses then come with no queueing delay, and what is
 * delivered collapses to the policed rate. At the first loss of a slow start
 * (the glue calls this before the reduction) the signs are: this ACK's RTT
 * within 1/8 of delay_min (no queue built), and the delivery rate over the
 * last RTT (the kernel's rate sample) times delay_min well under the window
 * in flight (below half), and several packets lost at once (at least
 * PREDICT_POLICER_LOST marked lost when the loss is detected: a policer drops
 * everything above its rate; one random loss marks one, and in slow start the
 * last RTT's delivery is about half the window anyway, so without this a
 * random loss would pass for a policer: 1 of 6 flows at 0.2 % loss did, at
 * 100 Mbit/s x 40 ms). Then the flow settles at the policed rate's BDP:
 * the returned target (packets, with the margin), which the glue makes both
 * cwnd and ssthresh instead of CUBIC's beta x cwnd. 0: not a policer (a queue
 * built, or the delivery kept up), CUBIC's own reduction applies.
 */
#define PREDICT_POLICER_LOST 4

/*
 * A policed rate's BDP as a window: never below TCP's initial window (as the
 * Safe Retreat's floor). A flow among four competing ones that lost in its
 * first round delivered 150 kbit/s of a 50 Mbit/s link with no queue of its
 * own (the standing queue was in its delay_min), was taken for a policer, and
 * the next flow's target from it was 2 packets: it cut cwnd from 19 to 2.
 */
static inline __u32 predict_policer_floor(__u32 target)
{
	return target && target < PREDICT_IW ? PREDICT_IW : target;
}

/* The window of a policed rate (bytes/s) at delay_min: its target, floored. */
static inline __u32 predict_policer_bdp(__u64 rate_Bps, __u32 delay_min, __u32 mss, __u32 margin)
{
	return predict_policer_floor(predict_target_of(rate_Bps, delay_min, mss, margin));
}

static inline __u32 predict_policer_target(__u64 delivery_Bps, __u32 rtt_us, __u32 delay_min,
					   __u32 cwnd, __u32 mss, __u32 margin, __u32 lost)
{
	__u32 target;

	if (!delivery_Bps || !rtt_us || !delay_min || !mss || lost < PREDICT_POLICER_LOST ||
	    (__u64)rtt_us * 8 > (__u64)delay_min * 9)
		return 0;
	target = predict_policer_bdp(delivery_Bps, delay_min, mss, margin);
	return (__u64)target * 2 < cwnd ? target : 0;
}

/*
 * The same policer met after PREDICT's exit: a fill that reached the line
 * rate's target before the bucket ran dry (a bucket of several policed BDPs,
 * or a policed rate above half the line's: eval's pol100_40_b300 and
 * pol100_40_r50) loses in its first round of congestion avoidance, where
 * the window is no longer twice the policed BDP. Then the signs are: no
 * queue (as above), several packets lost at once, and a delivery below 3/4
 * of the rate PREDICT believed (estimate): a path whose rate PREDICT
 * measured delivers it until a queue builds. Returns 1 then (the glue
 * settles at the delivery's BDP), else 0 (CUBIC's reduction).
 */
static inline int predict_policer_after_exit(__u64 delivery_Bps, __u32 rtt_us, __u32 delay_min,
					     __u64 estimate, __u32 lost)
{
	return delivery_Bps && rtt_us && delay_min && estimate && lost >= PREDICT_POLICER_LOST &&
	       (__u64)rtt_us * 8 <= (__u64)delay_min * 9 && delivery_Bps < (1ULL << 40) &&
	       delivery_Bps * 4 < estimate * 3;
}

/*
 * The policer remembered (issue 20, 3c): what a policer costs is the first
 * loss. Nothing before it tells a token bucket from the link's own rate (the
 * bucket passes the first rounds at line rate, with no queue), and a paced
 * fill sees that loss at a larger window than slow start's bursts do (they
 * empty a small bucket a round earlier: docs/RULES.md, "The jump and the
 * policer"). So the second flow to a destination whose first flow met a
 * policer starts where the first one settled, as Careful Resume (RFC 9959)
 * resumes from a previous connection's capacity: the glue keeps the policed
 * rate that predict_policer_target() answered, per network namespace and
 * destination address, for PREDICT_POLMEM_S seconds; a later flow whose
 * believed estimate is well above it (at least 4/3 of it: the line rate the
 * bucket let through) and whose delay_min is within a factor of 2 of the
 * one it was measured at takes its target from the remembered rate instead
 * (and its pacing cap); so does a flow that believed no train (estimate 0:
 * HyStart would decide). Returns that target (packets, with the margin), or 0:
 * nothing remembered applies, the estimate (or HyStart) stands.
 */
#define PREDICT_POLMEM_S 300

struct predict_polmem {
	/* bytes/s, the delivery the policer answer settled at (0: not measured, no jump) */
	__u64 rate;
	__u64 at_ns;	 /* when (bpf_ktime_get_ns()) */
	__u32 delay_min; /* us, the flow's delay_min then */
	__u32 flows;	 /* flows that met the policer here (the first is 1) */
};

/*
 * A remembered entry (made at at_ns by a flow with delay_min then) still in
 * force (life_s), and of this path: delay_min within a factor of 2 of then's,
 * not another path to the same address. The policer's and the busy path's.
 */
static inline int predict_memory_applies(__u64 at_ns, __u32 then, __u64 now_ns, __u32 delay_min,
					 __u32 life_s)
{
	if (!then || !delay_min || now_ns < at_ns || now_ns - at_ns > (__u64)life_s * 1000000000ULL)
		return 0;
	return (__u64)delay_min * 2 >= then && delay_min <= (__u64)then * 2;
}

/* A policer entry still in force (PREDICT_POLMEM_S), and of this path. */
static inline int predict_polmem_applies(const struct predict_polmem *m, __u64 now_ns,
					 __u32 delay_min)
{
	return m && predict_memory_applies(m->at_ns, m->delay_min, now_ns, delay_min,
					   PREDICT_POLMEM_S);
}

static inline __u32 predict_polmem_target(const struct predict_polmem *m, __u64 now_ns,
					  __u64 estimate, __u32 delay_min, __u32 mss,
					  __u32 margin)
{
	if (!predict_polmem_applies(m, now_ns, delay_min) || !m->rate ||
	    m->rate >= (1ULL << 40) || estimate >= (1ULL << 40))
		return 0;
	if (estimate && m->rate * 4 > estimate * 3)
		return 0; /* the estimate is the policed rate already, or near it */
	return predict_policer_bdp(m->rate, delay_min, mss, margin);
}

/*
 * An entry with no rate: a flow that jumped met a policer at this
 * destination, and its recovery could not measure the policed rate (its
 * window was below the policed BDP, predict_policer_jump_keeps(), or the
 * policer did not bind it, predict_policer_bound()). A later
 * flow there within PREDICT_POLMEM_S and on the same path (delay_min within
 * a factor of 2) does not jump: its fill doubles to the estimate, meets the
 * policer a round or more later with a smaller window, and its answer (no
 * jump: the loss's sample reads 1.0-1.5 of the policed rate) puts a rate in
 * the entry. After a jump into pol100_40_b30's 30 kB bucket a flow lost
 * 94-106 packets where the kernel's cubic lost 53-55 and PREDICT without the
 * jump 5. Returns 1 when the flow is not to jump.
 */
static inline int predict_polmem_no_jump(const struct predict_polmem *m, __u64 now_ns,
					 __u32 delay_min)
{
	return m && !m->rate && predict_polmem_applies(m, now_ns, delay_min);
}

/*
 * A loss with no queue of its own, as a policer's: its RTT within 1/20 of
 * delay_min. Behind eval's policers 1.000-1.029 x; a drop-tail buffer that
 * overflows reads more: 1.06-1.13 x delay_min at 0.1 BDP, 1.17-1.2 x behind
 * competing flows' standing queue. The test that remembers a policer
 * (predict_polmem_worthy()), and the glue's for a loss after a jump that the
 * policer answer did not claim (its sample's BDP not under half the window:
 * the burst's tokens were in it, 1.5 x the policed rate behind a 10 Mbit/s
 * policer with a 50 kB bucket on a 20 ms path, a path of 2026-12-07's run
 * the evaluation had not seen). There the glue remembers the destination
 * without a rate (predict_polmem_no_jump()): the next flow does not jump,
 * doubles to its estimate, and its policer answer, without a jump's low
 * sample, puts a rate in the entry. Before, the second flow jumped again
 * and lost 93 packets (the kernel's cubic 71-82). 1 then.
 */
static inline int predict_unqueued(__u32 rtt_us, __u32 delay_min)
{
	return rtt_us && delay_min && (__u64)rtt_us * 20 <= (__u64)delay_min * 21;
}

/*
 * What the answer saw is remembered only when it is strong evidence of a
 * policer: the loss's RTT within 1/20 of delay_min (a policer has no queue
 * of its own: 1.000-1.029 x delay_min behind eval's policers; a 0.1-BDP
 * buffer overflowing read 1.06-1.13, and the answer's 1/8 let one such loss
 * pass, r100_100_q1, whose rate then ended later flows at 0.27 of the BDP),
 * and a rate that collapsed after the first burst: PREDICT believed an
 * estimate (the burst's rate, which the bucket let through at line rate), and
 * the delivery is at least 1/16 of it (a flow among four competing ones read
 * 1/70 of the link as it lost), unless the flow jumped (after_jump: the
 * sample at the loss reads low after a jump, and the recovery's measure
 * answers for the rate). Without an estimate there is no collapse to see: a
 * flow that lost in its first round behind four competing ones, whose
 * standing queue was all of its delay_min, read like a policer of 150 kbit/s.
 */
static inline int predict_polmem_worthy(__u64 delivery_Bps, __u32 rtt_us, __u32 delay_min,
					__u64 estimate, int after_jump)
{
	if (!delivery_Bps || !predict_unqueued(rtt_us, delay_min) || delivery_Bps >= (1ULL << 40) ||
	    !estimate || estimate >= (1ULL << 40))
		return 0;
	return after_jump || delivery_Bps * 16 >= estimate;
}

/*
 * The first loss of a flow whose target came from a remembered policer: the
 * rate remembered is the delivery the first flow's loss saw, which still
 * carries part of the bucket's burst (3.7 MB/s behind a 2.5 MB/s policer on
 * eval's pol100_40). When this loss too came with no queue (RTT within 1/8
 * of delay_min) and less was delivered than remembered, the policer is
 * confirmed at the lower rate: returns the rate to keep instead (bytes/s; its
 * BDP is the ssthresh), else 0 (CUBIC's own reduction, and the memory
 * stands). One rate sample is what it goes by, so one flow halves the
 * memory at most: a sample that read far below the policed rate (a jump's
 * read 0.32-0.57 of it) would otherwise hold every flow to the destination
 * below its rate for PREDICT_POLMEM_S, since a flow that fills to a low
 * target and never loses does not raise it.
 */
static inline __u64 predict_polmem_refine(__u64 delivery_Bps, __u32 rtt_us, __u32 delay_min,
					  __u64 remembered)
{
	if (!delivery_Bps || !rtt_us || !delay_min || delivery_Bps >= remembered ||
	    (__u64)rtt_us * 8 > (__u64)delay_min * 9)
		return 0;
	return delivery_Bps > remembered / 2 ? delivery_Bps : remembered / 2;
}

/*
 * What the recovery the policer answer's loss began delivered, measured when
 * it ends (Recovery left for Open, no undo): ACKs of packets that went
 * through the policer after its bucket ran dry (its first drop is what began
 * the recovery). delivered: packets over dur_us (at least delay_min / 2: a
 * recovery waits for the window in flight at the loss, about an RTT).
 * Returns bytes/s, 0 when it measured nothing.
 */
static inline __u64 predict_policer_measure(__u32 delivered, __u64 dur_us, __u32 delay_min,
					    __u32 mss)
{
	if (!delivered || !mss || !delay_min || dur_us < delay_min / 2 || dur_us > (1ULL << 32))
		return 0;
	return (__u64)delivered * mss * 1000000ULL / dur_us;
}

/*
 * The recovery's measure is the policed rate only when the policer bound the
 * flow: a bucket run dry drops what the window sends above its rate, so over
 * the recovery about the window at the loss (cwnd) less the measure's BDP is
 * lost. Behind a small bucket a slow start's burst loses a few packets while
 * its delivery is still its own, half the window (pol100_40_b30: 3-5 lost of
 * cwnd 61, 32 delivered in 49 ms, 0.94 MB/s behind a 2.5 MB/s policer, where
 * a bound flow loses 82 of 150 on pol50_80 and 130 or more of about 250 on
 * pol100_40). Returns 1 when at least half of that excess was lost.
 */
static inline int predict_policer_bound(__u32 lost, __u32 cwnd, __u64 measure, __u32 delay_min,
					__u32 mss)
{
	__u32 bdp;

	if (!measure || !cwnd)
		return 0;
	bdp = predict_target_of(measure, delay_min, mss, 0);
	return bdp && bdp < cwnd && (__u64)lost * 2 >= cwnd - bdp;
}

/*
 * A policer met by a flow with no estimate believed (PREDICT gave up before
 * the loss, or set the estimate aside): there is no collapse from the
 * burst's rate to see (predict_polmem_worthy()), and the answer's rate, the
 * sample at the loss, still carries the bucket's tokens. The recovery's
 * measure answers for the rate, as after a jump: kept when the policer bound
 * the flow (predict_policer_bound()), the window at the loss was four
 * initial windows or more (two rounds past the first: a loss in the first
 * round behind four competing flows read 18,690 B/s with their standing
 * queue all of its delay_min), and the measure's BDP is an initial window or
 * more (a memory holds later flows to it). The loss's own RTT still had to
 * say no queue (predict_unqueued()). Beside a qemu guest, a flow behind
 * pol100_40 found no estimate, lost 145 packets and left nothing for the
 * next flow, which met the policer afresh. Returns the rate to keep, else 0.
 */
static inline __u64 predict_polmem_unbelieved(__u64 measure, int bound, __u32 cwnd,
					      __u32 delay_min, __u32 mss)
{
	if (!bound || !measure || measure >= (1ULL << 40) || cwnd < 4 * PREDICT_IW)
		return 0;
	return predict_target_of(measure, delay_min, mss, 0) >= PREDICT_IW ? measure : 0;
}

/*
 * A flow that jumped remembers the recovery's measure only when the policer
 * limited it: its BDP (with the margin) below ssthresh, the window the
 * recovery ran with (the answer's target, or CUBIC's own reduction when the
 * answer waited). A window below the policed BDP delivers its own size per
 * RTT instead, plus the flight at the loss, and the measure reads low:
 * after a jump the answer's target came from the loss's sample (0.35-0.6 of
 * the policed rate), and pol100_40_b30's recovery at ssthresh 23 read 0.42 of
 * its 2.5 MB/s (BDP 30, above 23), pol50_80's at 41 read 0.6 (43), where
 * pol100_40's at 69 read 0.92 (66). Returns 1 to keep it.
 */
static inline int predict_policer_jump_keeps(__u64 measure, __u32 delay_min, __u32 mss,
					     __u32 margin, __u32 ssthresh)
{
	__u32 bdp;

	if (!measure || !ssthresh)
		return 0;
	bdp = predict_target_of(measure, delay_min, mss, margin);
	return bdp && bdp < ssthresh;
}

/*
 * The policer remembered, raised (issue 20, 3c). The rate a first flow
 * remembers is what it saw in slow start, where its flight leaves in bursts
 * or paced at the line rate and then waits for its ACKs: a bucket small
 * against the policed BDP passes its tokens plus the policed rate over the
 * time the flight took to send, not over the round. Behind a 5 Mbit/s
 * policer with a 20 kB bucket on an 80 ms path (a path of 2026-12-07's run
 * the evaluation had not seen) the loss's sample read 400 kB/s of its
 * 625, every later flow left slow start at 0.70 of the policed BDP, and no
 * flow raised it: one that fills to its target and loses later only ever
 * lowered the memory (predict_polmem_refine()). Its congestion avoidance
 * does measure the policer: its first loss there (PREDICT_POL_RAISE), with
 * no queue and a delivery above the rate remembered, comes where the window
 * outgrew the policed rate, and the recovery after it runs at CUBIC's
 * reduced window, about the policed BDP, with the bucket dry. When that
 * recovery's measure (predict_policer_measure()) is the policer's
 * (predict_policer_bound()) and above the memory, the memory takes it, at
 * most doubled by one flow. Returns the rate to keep, else 0.
 */
#define PREDICT_POL_RAISE 3 /* predict_store.pol_pending: a raise, measured at the recovery's end */
/* predict_store.pol_pending: a loss after a jump and the exit that the answer did not claim */
#define PREDICT_POL_UNCLAIMED 4

static inline __u64 predict_polmem_raised(__u64 measure, __u64 kept)
{
	if (!measure || !kept || measure <= kept || kept >= (1ULL << 40))
		return 0;
	return measure < kept * 2 ? measure : kept * 2;
}

/*
 * The policer answer's rate, measured again at the recovery's end
 * (predict_policer_measure()). The rate sample at the loss, over the round
 * before it, still carried the bucket's tokens: 6.2 MB/s behind a 2.5 MB/s
 * policer with a 300 kB bucket, after PREDICT's exit. rate: the measure
 * (bytes/s, 0: none). Returns the rate to keep instead (bytes/s) when it is
 * lower than kept, at most halving it (one measure), else 0.
 */
static inline __u64 predict_policer_recovered(__u64 rate, __u64 kept)
{
	if (!rate || !kept || rate >= kept)
		return 0;
	return rate > kept / 2 ? rate : kept / 2;
}

/*
 * An answer left pending at the loss: every sign of a policer but the count
 * lost (fewer than PREDICT_POLICER_LOST marked as the kernel asked for
 * ssthresh: RACK had not marked more yet; eval's pol50_80 met it in 3 of 4
 * flows). Decided when the recovery ends, from the whole recovery: at least
 * PREDICT_POLICER_LOST lost over it (lost), and a delivery over it (rate,
 * predict_policer_measure(); sample: the rate at the loss) whose BDP is still
 * under half the window at the loss (cwnd), or, after PREDICT's own exit
 * (estimate: the rate it believed), below 3/4 of that estimate. A random loss
 * loses one or two, and its recovery delivers the window in flight at the
 * path's rate. Returns the rate to settle at (bytes/s), else 0.
 */
static inline __u64 predict_policer_pending(__u32 lost, __u64 rate, __u32 delay_min, __u32 mss,
					    __u32 margin, __u64 sample, __u32 cwnd, __u64 estimate)
{
	if (lost < PREDICT_POLICER_LOST || !rate || sample >= (1ULL << 40))
		return 0;
	if (estimate ? rate * 4 >= estimate * 3 :
		       (__u64)predict_target_of(rate, delay_min, mss, margin) * 2 >= cwnd)
		return 0;
	/* the lower of the two, at most halving the sample (as above) */
	if (rate >= sample)
		return sample;
	return rate > sample / 2 ? rate : sample / 2;
}

/*
 * And its end: that first loss came with a queue (RTT above 9/8 of
 * delay_min). What limits the path now is a bottleneck's buffer, not a
 * token bucket (the policer is gone, or was never the limit); the glue
 * forgets the rate, and the next flow measures the path afresh. Returns 1
 * then.
 */
static inline int predict_polmem_stale(__u32 rtt_us, __u32 delay_min)
{
	return rtt_us && delay_min && (__u64)rtt_us * 8 > (__u64)delay_min * 9;
}

/*
 * The busy path remembered (issue 20, 3d). PREDICT's estimate is the link's
 * rate as an unpaced burst sees it, and delay_min is the path's RTT plus
 * whatever queue other flows keep standing: behind four competing cubic
 * flows on eval's cross50_40_c4 (50 Mbit/s, 40 ms, a 1-BDP buffer) a flow's
 * train read the link's 6.1 MB/s with a delay_min of 70-75 ms, and its
 * target was about 10 x its fair share's BDP. Nothing in the first rounds
 * tells that path from a free one with a 75 ms RTT (the burst's ACKs come
 * back at the link's rate either way, and no flow sees its RTT without the
 * others' queue), so the first flow there overshoots: with the jump it lost
 * 107-119 packets on the path in slow start where the kernel's cubic lost 37.
 * What it learns is remembered, as the policer is: a fill that ended below
 * its own estimate's target by a queue (HyStart's delay test, the jump's
 * queue test, a loss that came with a queue: predict_loss_queued()) or that the
 * jump's share check judged shared marks the destination busy, per network
 * namespace and address, for PREDICT_BUSY_S seconds. A later flow there, on
 * the same path (delay_min within a factor of 2), measures as before but
 * sets no target and does not jump: Linux HyStart decides its slow start, as
 * for a flow whose train was not believed (the record says predict_busy).
 * Such a flow's exit renews the entry when it too came below the estimate's
 * target by a queue, and forgets it when it reached that target: the path
 * had room for the estimate after all.
 */
#define PREDICT_BUSY_S 300

struct predict_busy {
	__u64 at_ns;	 /* when (bpf_ktime_get_ns()) the last flow found it busy */
	__u32 delay_min; /* us, that flow's delay_min */
	__u32 flows;	 /* flows that found it busy here (the first is 1) */
};

/* An entry in force (PREDICT_BUSY_S since the last flow that found it busy) and of this path. */
static inline int predict_busy_applies(const struct predict_busy *m, __u64 now_ns,
				       __u32 delay_min)
{
	return m && predict_memory_applies(m->at_ns, m->delay_min, now_ns, delay_min,
					   PREDICT_BUSY_S);
}

/*
 * A queue that rose since the handshake (issue 20, a shared bottleneck). A
 * loss-based flow probes for bandwidth by growing the queue it keeps: between
 * their losses, flows that share the bottleneck add to its queue every round.
 * So a newcomer's RTT rises between its handshake and its first round even
 * before its own packets queue: the least RTT of the estimate's rounds
 * (delay_min, the least sample since the flow began) above the handshake's
 * (syn_rtt_us, the SYN/SYN-ACK sample the flow began with) by more than
 * rise_us and one packet's time at the estimated rate (a full packet takes that
 * much longer than the SYN through the bottleneck). On eval's cross50_40_c4
 * (four cubic flows, 50 Mbit/s, 40 ms) delay_min read 0.18-1.79 ms above the
 * handshake's RTT in 12 kernel cubic flows, 11 of them more than 0.1 ms and
 * one packet (0.24 ms); on the 17 clean paths and the SUSS path (72 flows) at
 * most 0.07 ms, and at most 0.08 ms on a policer's or an ACK-aggregation path
 * (12 flows). An RTT that falls says nothing (ACK aggregation, jitter or
 * another flow's loss delayed the handshake's sample). The estimate is then the link's, not
 * this flow's: it is set aside, as a busy path remembered sets it aside
 * (predict_busy_applies()). 0 for any unknown (0) argument or rise_us 0 (off).
 */
static inline int predict_rose(__u32 syn_rtt_us, __u32 delay_min, __u64 rate, __u32 mss,
			       __u32 rise_us)
{
	__u64 pkt_us;

	if (!rise_us || !syn_rtt_us || !delay_min || !rate || !mss)
		return 0;
	pkt_us = (__u64)mss * 1000000ULL / rate;
	return (__u64)delay_min > (__u64)syn_rtt_us + rise_us + pkt_us;
}

/*
 * A loss that came with a queue: its RTT (the last delivered packet's, RACK's)
 * above 33/32 of delay_min. A policer has no queue of its own: its losses read
 * 1.000-1.025 x delay_min behind eval's six policers (predict_polmem_worthy()),
 * and the glue asks this only of a loss the policer answer did not claim. The
 * fills that lost among competing flows read 1.037-1.224 x: their delay_min
 * already holds the others' standing queue, so a buffer that was nearly full
 * then adds little by the loss (cross50_40_c4's 1-BDP buffer: 80 ms at most
 * on a delay_min of 69-77).
 */
static inline int predict_loss_queued(__u32 rtt_us, __u32 delay_min)
{
	return rtt_us && delay_min && (__u64)rtt_us * 32 > (__u64)delay_min * 33;
}

/* Why the glue set an estimate aside (predict_store.busy; 0: it did not). */
#define PREDICT_ASIDE_BUSY 1 /* a busy path remembered (predict_busy_applies()) */
#define PREDICT_ASIDE_ROSE 2 /* a queue that rose since the handshake (predict_rose()) */

/* The glue's steps from a first slow start's end to the memory (predict_store.busy_step). */
#define PREDICT_BUSY_NOTED 1
#define PREDICT_BUSY_TOLD  2

/* How a first slow start ended below its target (predict_busy_evidence()). */
#define PREDICT_BUSY_QUEUED 1 /* by a queue: HyStart's delay test, the jump's, a loss with one */
#define PREDICT_BUSY_SHARED 2 /* the jump's share check judged the link shared */

/*
 * How a first slow start ended, against the target of the flow's own
 * estimate (target: packets; 0, none believed, says nothing): 1 when the
 * path was busy (how: PREDICT_BUSY_SHARED, or PREDICT_BUSY_QUEUED below the
 * target), -1 when it was not (cwnd reached the target), 0 when it does not
 * say (below the target with no queue: a policer's loss, HyStart's ACK
 * train).
 */
static inline int predict_busy_evidence(__u32 cwnd, __u32 target, int how)
{
	if (!target)
		return 0;
	if (how == PREDICT_BUSY_SHARED)
		return 1;
	if (cwnd >= target)
		return -1;
	return how == PREDICT_BUSY_QUEUED ? 1 : 0;
}

#endif /* PREDICT_CORE_H */
