/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SEARCH, "Slow start Exit At Right CHokepoint" (draft-chung-ccwg-search-09,
 * section 3.2), as a pure core: numbers in, decisions out. No kernel types
 * and no I/O; the same source goes into the BPF object and into the host unit
 * tests (tests/unit/test_search.c). bpf/rule_search.bpf.h (search_ack()) keeps the
 * state in a BPF_MAP_TYPE_SK_STORAGE value (it does not fit icsk_ca_priv) and
 * feeds it every ACK of a slow start in Open or Disorder: tcp_mstamp,
 * tp->bytes_acked (delivered: cumulatively ACKed bytes, so SACKed bytes count
 * once the hole is filled; slow start ends at the first loss anyway),
 * tp->bytes_sent (retransmissions included), the ACK's RTT sample, cwnd,
 * packets in flight, packets ACKed and the MSS. It resets the state at every
 * reduction (.ssthresh), the Loss state and a restart after idle.
 *
 * The rule (draft 3.2; the section's pseudocode and text):
 *
 *  - Time is cut into bins of BIN_DURATION = WINDOW_SIZE / W, WINDOW_SIZE =
 *    3.5 x INITIAL_RTT, W = 10, INITIAL_RTT the first RTT sample. The grid is
 *    fixed at initialisation (on the first ACK with an RTT sample).
 *  - Each bin keeps the running totals of bytes delivered (ACKed) and bytes
 *    sent when the bin closed: one acked bin per bin for W + 1 bins, one sent
 *    bin per bin for W + 1 + EXTRA_BINS bins (EXTRA_BINS = 15), so that the
 *    sent window can be looked up one RTT back.
 *  - Only on the first ACK after the current bin's end ("now > bin_end") are
 *    the bins advanced: passed_bins = (now - bin_end) / BIN_DURATION + 1; the
 *    bins no ACK closed take the totals of the last one (nothing was counted
 *    meanwhile); the newest takes the current totals.
 *  - Then, with prev_idx = curr_idx - floor(rtt / BIN_DURATION) (rtt: this
 *    ACK's sample), when prev_idx > W and curr_idx - prev_idx < EXTRA_BINS:
 *      curr_delv = delivered in bins (curr_idx - W, curr_idx]
 *      prev_sent = sent in the W bins ending one RTT earlier, interpolated
 *                  between the bins at prev_idx and prev_idx - 1 by the
 *                  fraction (rtt mod BIN_DURATION) / BIN_DURATION
 *      norm_diff = (prev_sent - curr_delv) / prev_sent
 *    and slow start ends when norm_diff >= THRESH (0.26). Below the
 *    bottleneck every byte sent is delivered one RTT later, so the two
 *    windows hold the same bytes and norm_diff is about 0; past it, delivery
 *    stops keeping up with what was sent.
 *  - At the exit, the draft drains cwnd (3.2, paragraph 17) toward the bytes
 *    delivered in the last INITIAL_RTT (an empty-queue BDP estimate), letting
 *    one packet out per 3 ACKed, and sets ssthresh when it gets there.
 *  - Missed bins (the draft's "Handling Missed Bins (Optional)" part; its
 *    section number could not be read): when more bins pass without an ACK
 *    than a limit, the history is stale and SEARCH restarts.
 *
 * Sources and how far they were verified: only the opening pages of -09 and
 * -10 could be read here; the rule above is the -09 text as the
 * implementations that cite it give it (Mozilla neqo's cc/search.rs, which
 * links -09 section 3.2, paragraph 17 of it, and "Handling Missed Bins
 * (Optional)"; the authors' own SEARCH 4.0 code for Linux and FreeBSD: sent
 * bins, drain; FreeBSD's THRESH 26/100 and missed-bin limit ALPHA = 2, their
 * Linux module still defaulting to 35/100), checked against the full text
 * of the authors' 2024 (SEARCH 3) draft source for the parts that did not change
 * (window, W, EXTRA_BINS, bin update, "now > bin_end", ">= THRESH"). The
 * -09 change from SEARCH 3: the sender's own sent bytes one RTT back replace
 * "2 x the bytes delivered one RTT back" (the -08 and -09 abstracts: "the
 * delivered bytes compared to the sent bytes"; -05's: "to the expected
 * delivered bytes"), and THRESH went from 0.35 to 0.26.
 *
 * Where this core departs, and why:
 *
 *  1. Integers only: WINDOW_SIZE in 1/100 of INITIAL_RTT (350), THRESH in
 *     per mille (260), compared exactly (diff x 1000 >= thresh x prev_sent,
 *     no rounding); the interpolation fraction is exact (neqo and the
 *     authors round it to 1/100).
 *  2. Bins hold the low 32 bits of the byte totals and windows are u32
 *     differences, exact while fewer than 4 GiB pass in W + 1 + EXTRA_BINS
 *     bins (the draft instead shifts 16-bit bins right by a scale factor).
 *  3. The rings have compile-time sizes (16 acked, 64 sent, powers of two,
 *     indexed by mask), so W <= 15 and W + 1 + EXTRA_BINS <= 64; every loop
 *     has a compile-time bound.
 *  4. W is latched at initialisation with BIN_DURATION (a live change of the
 *     tunable applies from the next initialisation); THRESH, EXTRA_BINS, the
 *     missed-bin limit and the rollback mode are read on every ACK.
 *  5. The missed-bin limit is ALPHA x ceil(INITIAL_RTT / BIN_DURATION) bins
 *     (authors, ALPHA = 2; 0 turns the reset off); after a reset SEARCH
 *     starts again at once, on the same ACK, with that ACK's RTT sample as
 *     the new INITIAL_RTT (neqo waits for the next ACK; FreeBSD keeps the
 *     old grid for gaps of at most W bins).
 *  6. Rollback is a mode: 0 none (ssthresh = cwnd at detection: neqo),
 *     1 the draft's drain (default), 2 straight to the target. The target has
 *     a floor (min_cwnd, TCP_INIT_CWND) and never raises cwnd; the drain never
 *     raises cwnd either (the authors' max(inflight + n, target) could).
 *  7. An ACK without an RTT sample still advances the bins but is not
 *     evaluated (the authors skip the whole ACK).
 *
 * Units: bytes for the bins (the draft's unit), packets for cwnd, us for time
 * (the tcp_mstamp clock).
 */
#ifndef SEARCH_CORE_H
#define SEARCH_CORE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SEARCH_ACKED_RING 16 /* acked bins kept: W + 1 <= this */
#define SEARCH_SENT_RING  64 /* sent bins kept: W + 1 + EXTRA_BINS <= this */
#define SEARCH_MAX_BINS	  (SEARCH_ACKED_RING - 1)

_Static_assert((SEARCH_ACKED_RING & (SEARCH_ACKED_RING - 1)) == 0, "ring size: a power of 2");
_Static_assert((SEARCH_SENT_RING & (SEARCH_SENT_RING - 1)) == 0, "ring size: a power of 2");
_Static_assert(SEARCH_SENT_RING >= SEARCH_ACKED_RING, "the sent ring is the longer");

#define SEARCH_WINDOW_SCALE 100	 /* window: 1/100 of INITIAL_RTT */
#define SEARCH_THRESH_SCALE 1000 /* thresh and norm_diff: per mille */
#define SEARCH_DRAIN_ACKED  3	 /* drain: one packet out per this many ACKed */
#define SEARCH_MAX_IDX	    0x7fffffffU /* curr_idx past this: start over */

/* Defaults: the draft's (window, W, EXTRA_BINS, THRESH), the authors' ALPHA. */
#define SEARCH_DEF_WINDOW     350 /* WINDOW_SIZE = 3.5 x INITIAL_RTT */
#define SEARCH_DEF_BINS	      10  /* W */
#define SEARCH_DEF_EXTRA_BINS 15  /* EXTRA_BINS */
#define SEARCH_DEF_THRESH     260 /* THRESH = 0.26 */
#define SEARCH_DEF_MISSED     2	  /* ALPHA: reset after 2 initial RTTs of bins without an ACK */
#define SEARCH_DEF_MIN_CWND   10  /* rollback floor: TCP_INIT_CWND */

/* The limits the parameters are clamped to (the tunables table should match). */
#define SEARCH_MIN_WINDOW   10	  /* 0.1 x INITIAL_RTT */
#define SEARCH_MAX_WINDOW   10000 /* 100 x INITIAL_RTT */
#define SEARCH_MAX_MISSED   100
#define SEARCH_MAX_MIN_CWND 65535

/* search_params.rollback */
enum search_rollback {
	SEARCH_ROLLBACK_OFF = 0,   /* exit at the cwnd of the detection */
	SEARCH_ROLLBACK_DRAIN = 1, /* the draft: drain toward the target, then exit */
	SEARCH_ROLLBACK_JUMP = 2,  /* exit at the target at once */
};

/*
 * What the tunables feed in. Out-of-range values are clamped on every use,
 * as cubic_tun_*() do: the map can be written directly.
 */
struct search_params {
	__u32 window;	  /* WINDOW_SIZE, 1/100 of INITIAL_RTT: 350 */
	__u32 bins;	  /* W: 10, 1..SEARCH_MAX_BINS */
	__u32 extra_bins; /* EXTRA_BINS: 15, 1..SEARCH_SENT_RING - 1 - W */
	__u32 thresh;	  /* THRESH, per mille: 260, 0..1000 */
	__u32 rollback;	  /* SEARCH_ROLLBACK_*: 1 */
	__u32 missed;	  /* ALPHA, initial RTTs of missed bins before a reset: 2; 0 never */
	__u32 min_cwnd;	  /* floor of the rollback target, packets: 10 */
};

/* search_state.phase */
enum search_phase {
	SEARCH_PH_OFF = 0,    /* not initialised: waiting for an ACK with an RTT sample */
	SEARCH_PH_ACTIVE = 1, /* collecting bins, evaluating at each bin boundary */
	SEARCH_PH_DRAIN = 2,  /* detected; draining cwnd toward target_cwnd */
	SEARCH_PH_DONE = 3,   /* exited; nothing until search_reset() */
};

/*
 * Per-flow state, 352 bytes (tests/unit/test_search.c pins it). All zero is a
 * valid state (SEARCH_PH_OFF), which is what a new sk_storage value is.
 */
struct search_state {
	__u64 bin_end_us;      /* bin_end: when the current bin closes (tcp clock) */
	__u32 bin_duration_us; /* BIN_DURATION */
	__u32 initial_rtt_us;  /* INITIAL_RTT */
	__u32 curr_idx;	       /* bins since initialisation; slot = curr_idx & (ring - 1) */
	__u32 target_cwnd;     /* drain target, packets */
	__u32 drain_acked;     /* packets ACKed in the drain not yet let out (< 3) */
	__u16 resets;	       /* missed-bin resets since the flow began (telemetry) */
	__u8 phase;	       /* SEARCH_PH_* */
	__u8 bins;	       /* W, latched at initialisation */
	__u32 acked[SEARCH_ACKED_RING]; /* bytes delivered, low 32 bits of the total */
	__u32 sent[SEARCH_SENT_RING];	/* bytes sent, low 32 bits of the total */
};

/* One ACK, as the glue reads it from the socket. */
struct search_ack {
	__u64 now_us;	 /* tcp_mstamp */
	__u64 delivered; /* running total of bytes delivered: tp->bytes_acked */
	__u64 sent;	 /* running total of bytes sent: tp->bytes_sent */
	__u32 rtt_us;	 /* this ACK's RTT sample, 0 if it has none */
	__u32 cwnd;	 /* packets */
	__u32 inflight;	 /* packets in flight (the drain) */
	__u32 acked;	 /* packets this ACK delivered (the drain) */
	__u32 mss;	 /* bytes per packet (the rollback target); 0: no target */
};

/*
 * Why: X(ID, name, help). The names are for telemetry (trace) and tests; one
 * line per reason.
 */
#define SEARCH_REASONS(X)                                                                          \
	X(NONE, "none", "inside the current bin: nothing to do")                                   \
	X(NO_RTT, "no_rtt", "no RTT sample: not initialised, or a boundary not evaluated")         \
	X(INIT, "init", "initialised on this ACK (bin 0)")                                         \
	X(RESET, "reset", "too many bins without an ACK: started over on this ACK")                \
	X(WARMING_UP, "warming_up", "not yet W bins one RTT back")                                 \
	X(RTT_INFLATED, "rtt_inflated", "the RTT looks back EXTRA_BINS bins or more")              \
	X(ZERO_SENT, "zero_sent", "nothing sent in the window one RTT back")                       \
	X(CONTINUE, "continue", "evaluated: norm_diff below THRESH")                               \
	X(EXIT, "exit", "evaluated: norm_diff >= THRESH, slow start ends (or drains)")             \
	X(DRAIN, "drain", "draining cwnd toward the target")                                       \
	X(DONE, "done", "SEARCH has exited; nothing until reset")

enum search_reason {
#define SEARCH_X_ID(ID, name, help) SEARCH_R_##ID,
	SEARCH_REASONS(SEARCH_X_ID)
#undef SEARCH_X_ID
	SEARCH_R_COUNT
};

/* What the glue does with this ACK. */
enum search_action {
	SEARCH_ACT_NONE = 0, /* nothing */
	SEARCH_ACT_HOLD = 1, /* cwnd = cwnd_after, and no slow-start growth on this ACK */
	SEARCH_ACT_EXIT = 2, /* cwnd = cwnd_after, ssthresh = cwnd_after: slow start is over */
};

/* The values that decided, for the exit record and the tests. */
struct search_verdict {
	__u8 reason;	       /* SEARCH_R_* */
	__u8 action;	       /* SEARCH_ACT_* */
	__u16 bins_back;       /* floor(rtt / BIN_DURATION): the lookback in bins */
	__u32 curr_idx;	       /* after this ACK */
	__u32 passed_bins;     /* bin boundaries this ACK crossed (0: inside the bin) */
	__u32 curr_delv;       /* bytes delivered in the last W bins */
	__u32 prev_sent;       /* bytes sent in the W bins one RTT earlier */
	__u32 norm_diff;       /* (prev_sent - curr_delv) / prev_sent, per mille, floor, >= 0 */
	__u32 bin_duration_us; /* BIN_DURATION */
	__u32 cwnd_before;     /* packets, as passed in */
	__u32 cwnd_after;      /* packets: what to set when action != NONE */
	__u32 target_cwnd;     /* packets: the rollback target (0: none) */
};

#ifndef __bpf__
static const char *const search_reason_names[SEARCH_R_COUNT] = {
#define SEARCH_X_NAME(ID, name, help) [SEARCH_R_##ID] = name,
	SEARCH_REASONS(SEARCH_X_NAME)
#undef SEARCH_X_NAME
};
#endif

static inline __u32 search_clamp(__u32 v, __u32 lo, __u32 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static inline void search_params_default(struct search_params *p)
{
	p->window = SEARCH_DEF_WINDOW;
	p->bins = SEARCH_DEF_BINS;
	p->extra_bins = SEARCH_DEF_EXTRA_BINS;
	p->thresh = SEARCH_DEF_THRESH;
	p->rollback = SEARCH_ROLLBACK_DRAIN;
	p->missed = SEARCH_DEF_MISSED;
	p->min_cwnd = SEARCH_DEF_MIN_CWND;
}

/*
 * The parameters as used: each clamped; extra_bins also to the room the sent
 * ring has left with W bins (w: the latched W, or p->bins before init).
 */
static inline void search_params_clamp(struct search_params *out, const struct search_params *in,
				       __u32 w)
{
	out->window = search_clamp(in->window, SEARCH_MIN_WINDOW, SEARCH_MAX_WINDOW);
	out->bins = search_clamp(in->bins, 1, SEARCH_MAX_BINS);
	w = search_clamp(w, 1, SEARCH_MAX_BINS);
	out->extra_bins = search_clamp(in->extra_bins, 1, SEARCH_SENT_RING - 1 - w);
	out->thresh = search_clamp(in->thresh, 0, SEARCH_THRESH_SCALE);
	out->rollback = search_clamp(in->rollback, SEARCH_ROLLBACK_OFF, SEARCH_ROLLBACK_JUMP);
	out->missed = search_clamp(in->missed, 0, SEARCH_MAX_MISSED);
	out->min_cwnd = search_clamp(in->min_cwnd, 1, SEARCH_MAX_MIN_CWND);
}

static inline __u32 search_acked_at(const struct search_state *s, __u32 idx)
{
	return s->acked[idx & (SEARCH_ACKED_RING - 1)];
}

static inline __u32 search_sent_at(const struct search_state *s, __u32 idx)
{
	return s->sent[idx & (SEARCH_SENT_RING - 1)];
}

/*
 * Forget everything: the next ACK with an RTT sample initialises again
 * (loss, idle restart, a new slow start). The rings are not cleared: no slot
 * is read before it is written again (the guards of search_evaluate()).
 */
static inline void search_reset(struct search_state *s)
{
	s->phase = SEARCH_PH_OFF;
	s->curr_idx = 0;
	s->target_cwnd = 0;
	s->drain_acked = 0;
}

/*
 * Initialization (draft 3.2): BIN_DURATION from INITIAL_RTT, bin 0 holds the
 * totals now, and the first bin ends BIN_DURATION from now. Returns 0 (and
 * leaves the state) without an RTT sample.
 */
static inline int search_init(struct search_state *s, const struct search_params *pin, __u64 now_us,
			      __u32 rtt_us, __u64 delivered, __u64 sent)
{
	struct search_params p;
	__u64 bd;

	if (!rtt_us)
		return 0;
	search_params_clamp(&p, pin, pin->bins);
	/* BIN_DURATION = WINDOW_SIZE / W; at least 1 us so that it divides */
	bd = (__u64)rtt_us * p.window / ((__u64)SEARCH_WINDOW_SCALE * p.bins);
	if (!bd)
		bd = 1;
	s->bin_duration_us = bd > 0xffffffffULL ? 0xffffffffU : (__u32)bd;
	s->initial_rtt_us = rtt_us;
	s->bins = (__u8)p.bins;
	s->curr_idx = 0;
	s->bin_end_us = now_us + s->bin_duration_us;
	s->acked[0] = (__u32)delivered;
	s->sent[0] = (__u32)sent;
	s->target_cwnd = 0;
	s->drain_acked = 0;
	s->phase = SEARCH_PH_ACTIVE;
	return 1;
}

/* ceil(INITIAL_RTT / BIN_DURATION): the bins of one initial RTT, at least 1. */
static inline __u32 search_rtt_bins(const struct search_state *s)
{
	__u32 n = (__u32)(((__u64)s->initial_rtt_us + s->bin_duration_us - 1) / s->bin_duration_us);

	return n ? n : 1;
}

/*
 * update_bins() (draft 3.2), on the first ACK after bin_end. Returns the bins
 * passed, or 0 when SEARCH must start over (missed bins, or an index that
 * would outgrow SEARCH_MAX_IDX).
 */
static inline __u32 search_update_bins(struct search_state *s, const struct search_params *p,
				       const struct search_ack *a)
{
	/* passed_bins = (now - bin_end) / BIN_DURATION + 1 */
	__u64 passed = (a->now_us - s->bin_end_us) / s->bin_duration_us + 1;
	__u32 last_acked = search_acked_at(s, s->curr_idx);
	__u32 last_sent = search_sent_at(s, s->curr_idx);
	__u32 i, n;

	/* "Handling Missed Bins (Optional)": more than ALPHA initial RTTs of bins */
	if (p->missed && passed > (__u64)p->missed * search_rtt_bins(s))
		return 0;
	if (passed > SEARCH_MAX_IDX - s->curr_idx)
		return 0;
	n = (__u32)passed;

	/*
	 * The skipped bins take the totals of the last bin an ACK closed. Only
	 * the newest SEARCH_SENT_RING - 1 of them can still be read, newest
	 * first; the loop's bound is the ring's size.
	 */
	for (i = 1; i < SEARCH_SENT_RING; i++) {
		__u32 idx;

		if (i >= n)
			break;
		idx = s->curr_idx + n - i;
		s->acked[idx & (SEARCH_ACKED_RING - 1)] = last_acked;
		s->sent[idx & (SEARCH_SENT_RING - 1)] = last_sent;
	}

	s->curr_idx += n;
	s->bin_end_us += (__u64)n * s->bin_duration_us;
	s->acked[s->curr_idx & (SEARCH_ACKED_RING - 1)] = (__u32)a->delivered;
	s->sent[s->curr_idx & (SEARCH_SENT_RING - 1)] = (__u32)a->sent;
	return n;
}

/*
 * The rollback target: bytes delivered in the last ceil(INITIAL_RTT /
 * BIN_DURATION) bins (the delivery rate times INITIAL_RTT, a BDP with empty
 * queues), in packets, at least min_cwnd. 0 when the bins do not reach back
 * that far or the MSS is unknown.
 */
static inline __u32 search_target_cwnd(const struct search_state *s, const struct search_params *p,
				       __u32 mss)
{
	__u32 n = search_rtt_bins(s), bytes, t;

	if (!mss || n > s->curr_idx || n >= SEARCH_ACKED_RING)
		return 0;
	bytes = search_acked_at(s, s->curr_idx) - search_acked_at(s, s->curr_idx - n);
	t = bytes / mss;
	return t > p->min_cwnd ? t : p->min_cwnd;
}

/* The exit (draft 3.2): what to set, by rollback mode. */
static inline __u8 search_exit(struct search_state *s, const struct search_params *p,
			       const struct search_ack *a, struct search_verdict *v)
{
	__u32 target = search_target_cwnd(s, p, a->mss);
	int below = target && target < a->cwnd; /* the target never raises cwnd */

	v->reason = SEARCH_R_EXIT;
	v->target_cwnd = target;
	if (p->rollback == SEARCH_ROLLBACK_DRAIN && below) {
		/* freeze growth now; the drain starts with the next ACK */
		s->phase = SEARCH_PH_DRAIN;
		s->target_cwnd = target;
		s->drain_acked = 0;
		v->cwnd_after = a->cwnd;
		v->action = SEARCH_ACT_HOLD;
		return v->action;
	}
	if (p->rollback == SEARCH_ROLLBACK_JUMP && below)
		v->cwnd_after = target;
	else
		v->cwnd_after = a->cwnd;
	s->phase = SEARCH_PH_DONE;
	v->action = SEARCH_ACT_EXIT;
	return v->action;
}

/*
 * The draft's drain (3.2, paragraph 17), one ACK: cwnd = max(inflight + one
 * packet per 3 ACKed, target), never above cwnd; when it reaches the target,
 * ssthresh = cwnd and slow start is over.
 */
static inline __u8 search_drain(struct search_state *s, const struct search_ack *a,
				struct search_verdict *v)
{
	__u64 cwnd;
	__u32 add;

	s->drain_acked += a->acked;
	if (s->drain_acked < a->acked) /* wrapped */
		s->drain_acked = 0xffffffffU;
	add = s->drain_acked / SEARCH_DRAIN_ACKED;
	s->drain_acked -= add * SEARCH_DRAIN_ACKED;

	cwnd = (__u64)a->inflight + add;
	if (cwnd < s->target_cwnd)
		cwnd = s->target_cwnd;
	if (cwnd > a->cwnd)
		cwnd = a->cwnd;
	v->reason = SEARCH_R_DRAIN;
	v->target_cwnd = s->target_cwnd;
	v->cwnd_after = (__u32)cwnd;
	if (v->cwnd_after <= s->target_cwnd) {
		s->phase = SEARCH_PH_DONE;
		v->action = SEARCH_ACT_EXIT;
	} else {
		v->action = SEARCH_ACT_HOLD;
	}
	return v->action;
}

/*
 * The SEARCH check (draft 3.2) at a bin boundary: curr_delv against the
 * bytes sent one RTT earlier.
 */
static inline __u8 search_evaluate(struct search_state *s, const struct search_params *p,
				   const struct search_ack *a, struct search_verdict *v)
{
	__u32 w = search_clamp(s->bins, 1, SEARCH_MAX_BINS), curr = s->curr_idx;
	__u32 bd = s->bin_duration_us;
	__u32 back, frac, prev, high, low;
	__u64 sent, diff;

	if (!a->rtt_us) {
		v->reason = SEARCH_R_NO_RTT;
		return SEARCH_ACT_NONE;
	}
	/* prev_idx = curr_idx - rtt / BIN_DURATION, and the remainder */
	back = a->rtt_us / bd;
	frac = a->rtt_us % bd;
	v->bins_back = back > 0xffff ? 0xffff : (__u16)back;

	/* prev_idx > W: the window one RTT back, and its bin before, exist */
	if ((__u64)back + w >= curr) {
		v->reason = SEARCH_R_WARMING_UP;
		return SEARCH_ACT_NONE;
	}
	/* curr_idx - prev_idx < EXTRA_BINS: still in the sent ring */
	if (back >= p->extra_bins) {
		v->reason = SEARCH_R_RTT_INFLATED;
		return SEARCH_ACT_NONE;
	}
	prev = curr - back;

	v->curr_delv = search_acked_at(s, curr) - search_acked_at(s, curr - w);
	/*
	 * The window one RTT back ends frac/bd of a bin before prev_idx: take
	 * (1 - f) of the window ending at prev_idx and f of the one ending a bin
	 * earlier (neqo; the -09 pseudocode's "+ 1" is forward, which neqo says
	 * the authors agree is a mistake). Both terms < 2^32 x bd: no overflow.
	 */
	high = search_sent_at(s, prev) - search_sent_at(s, prev - w);
	low = search_sent_at(s, prev - 1) - search_sent_at(s, prev - 1 - w);
	sent = ((__u64)low * frac + (__u64)high * (bd - frac)) / bd;
	v->prev_sent = (__u32)sent;
	if (!sent) {
		v->reason = SEARCH_R_ZERO_SENT;
		return SEARCH_ACT_NONE;
	}

	diff = sent > v->curr_delv ? sent - v->curr_delv : 0;
	v->norm_diff = (__u32)(diff * SEARCH_THRESH_SCALE / sent);
	/* norm_diff >= THRESH, exactly: diff / sent >= thresh / 1000 */
	if (diff * SEARCH_THRESH_SCALE >= (__u64)p->thresh * sent)
		return search_exit(s, p, a, v);
	v->reason = SEARCH_R_CONTINUE;
	return SEARCH_ACT_NONE;
}

/*
 * ACK_arrived() (draft 3.2): call on every ACK while search_wants_ack().
 * Fills v (zeroed first) and returns v->action.
 */
static inline __u8 search_on_ack(struct search_state *s, const struct search_params *pin,
				 const struct search_ack *a, struct search_verdict *v)
{
	struct search_params p;
	__u32 n;

	__builtin_memset(v, 0, sizeof(*v));
	v->cwnd_before = a->cwnd;
	v->cwnd_after = a->cwnd;
	search_params_clamp(&p, pin, s->phase == SEARCH_PH_OFF ? pin->bins : s->bins);

	switch (s->phase) {
	case SEARCH_PH_OFF:
		v->reason = search_init(s, &p, a->now_us, a->rtt_us, a->delivered, a->sent)
				    ? SEARCH_R_INIT
				    : SEARCH_R_NO_RTT;
		v->bin_duration_us = s->bin_duration_us;
		return SEARCH_ACT_NONE;
	case SEARCH_PH_DRAIN:
		v->curr_idx = s->curr_idx;
		v->bin_duration_us = s->bin_duration_us;
		return search_drain(s, a, v);
	case SEARCH_PH_ACTIVE:
		break;
	default:
		v->reason = SEARCH_R_DONE;
		return SEARCH_ACT_NONE;
	}

	/* only search_init() makes a state ACTIVE, with a bin of at least 1 us */
	if (!s->bin_duration_us) {
		search_reset(s);
		v->reason = SEARCH_R_NO_RTT;
		return SEARCH_ACT_NONE;
	}
	v->bin_duration_us = s->bin_duration_us;
	v->curr_idx = s->curr_idx;
	/* Check if passed bin boundary: "now > bin_end" */
	if (a->now_us <= s->bin_end_us) {
		v->reason = SEARCH_R_NONE;
		return SEARCH_ACT_NONE;
	}
	n = search_update_bins(s, &p, a);
	if (!n) {
		__u64 passed = (a->now_us - s->bin_end_us) / s->bin_duration_us + 1;

		v->passed_bins = passed > 0xffffffffULL ? 0xffffffffU : (__u32)passed;
		if (s->resets < 0xffff)
			s->resets++;
		search_reset(s);
		search_init(s, &p, a->now_us, a->rtt_us, a->delivered, a->sent);
		v->reason = SEARCH_R_RESET;
		v->curr_idx = s->curr_idx;
		v->bin_duration_us = s->bin_duration_us;
		return SEARCH_ACT_NONE;
	}
	v->passed_bins = n;
	v->curr_idx = s->curr_idx;
	return search_evaluate(s, &p, a, v);
}

/*
 * Whether the glue should call search_on_ack() for this ACK: in slow start
 * (cwnd < ssthresh) until SEARCH has exited, and always while it drains.
 */
static inline int search_wants_ack(const struct search_state *s, __u32 cwnd, __u32 ssthresh)
{
	if (s->phase == SEARCH_PH_DRAIN)
		return 1;
	return s->phase != SEARCH_PH_DONE && cwnd < ssthresh;
}

#endif /* SEARCH_CORE_H */
