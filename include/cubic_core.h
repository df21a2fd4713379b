/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUBIC algorithm core of bpf_cubic: numbers in, decisions out. No kernel
 * types and no I/O, so the same source is compiled into the BPF object
 * (bpf/bpf_cubic.bpf.c reads the socket and calls these) and into the host
 * unit tests (tests/unit/). The slow-start rules it runs itself are cores of
 * their own, included here: Linux HyStart (include/hystart_core.h, the base
 * of the others) and HyStart++ (include/hspp_core.h). SEARCH and PREDICT
 * (include/search_core.h, include/predict_core.h) keep their state in socket
 * storage and are run by their glue (bpf/rule_search.bpf.h, rule_predict.bpf.h).
 *
 * It follows Linux net/ipv4/tcp_cubic.c as of 6.18 (RFC 9438 semantics with
 * Linux's integer arithmetic: time in 1/1024 s, beta and C scaled by 1024,
 * HyStart on the microsecond clock, the [4 ms, 16 ms] delay clamp, the TSO/GRO
 * cushion, no halving of the ACK-train threshold for paced flows, HyStart
 * rounds restarted when snd_una passes the round's end, round tracking below
 * hystart_low_window, and the kernel's own cube root, a table lookup plus one
 * Newton step). Where it departs, and why:
 *
 *  1. Every tunable is read (and clamped) on each callback, so beta and
 *     bic_scale take effect live. Linux precomputes beta_scale, cube_rtt_scale
 *     and cube_factor at module init; with default values they are equal.
 *  2. ack_train_shift generalises Linux's "threshold >>= 1 unless paced": the
 *     train must last longer than ((delay_min + cushion) x 8) >> shift for an
 *     unpaced flow and twice that for a paced one. shift 4 is Linux exactly;
 *     shift 2 is the 2011 patch (2 x delay_min).
 *  3. The delay threshold is clamp(delay_min >> delay_thresh_shift, min, max)
 *     (Linux: shift 3, [4000, 16000] us), compared in 64 bits so that large
 *     tunable values cannot wrap. hystart_min_samples replaces the constant 8.
 *     With min > max, min wins.
 *  4. The HyStart round is started at init whatever the mode, so a flow that
 *     began with hystart=off detects correctly when it is switched on live.
 *  5. The Reno-friendly "while (ack_cnt > delta)" loop is one division with the
 *     same result (the verifier wants bounded loops), and delta is at least 1
 *     (Linux would loop forever for cwnd x beta_scale < 8, which only tunable
 *     values Linux cannot set at runtime reach).
 *  6. found keeps which detectors fired (Linux stores 1), for telemetry, and
 *     the state carries a round counter and the flow's start time.
 *  7. tcp_slow_start() and tcp_cong_avoid_ai() are re-done here with the same
 *     arithmetic, so the core owns every cwnd change.
 *  8. usecs_to_jiffies() rounds up for any HZ; Linux's is exact for HZ that
 *     divide 1000000 (100, 250, 1000) and approximate otherwise.
 *
 * HyStart++'s departures are in include/hspp_core.h.
 */
#ifndef CUBIC_CORE_H
#define CUBIC_CORE_H

#include "flow_core.h"
#include "hystart_core.h"
#include "hspp_core.h"

#define CUBIC_BETA_SCALE 1024 /* beta is in 1/1024 */
#define CUBIC_TIME_SHIFT 10   /* BICTCP_HZ: the cubic function's time is in 1/1024 s */

/* Position of the highest set bit, 1-based; 0 for 0 (the kernel's fls64). */
static inline __u32 cubic_fls64(__u64 x)
{
	__u32 n = 1;

	if (!x)
		return 0;
	if (x >> 32) {
		n += 32;
		x >>= 32;
	}
	if (x >> 16) {
		n += 16;
		x >>= 16;
	}
	if (x >> 8) {
		n += 8;
		x >>= 8;
	}
	if (x >> 4) {
		n += 4;
		x >>= 4;
	}
	if (x >> 2) {
		n += 2;
		x >>= 2;
	}
	if (x >> 1)
		n += 1;
	return n;
}

/*
 * Linux's cubic_root() (net/ipv4/tcp_cubic.c), bit for bit: a first guess
 * from the top six bits of a, then one Newton-Raphson step. Average error
 * 0.195%; K follows the kernel's value exactly, which the cwnd trajectory
 * after a loss depends on (tests/unit/test_core.c compares every
 * Wmax - cwnd up to 10^7 with an independent transcription).
 *
 * cubic_cbrt_msb[i], for i in [0, 63], is about cbrt(i << 18) - 1: the
 * root's leading bits, scaled by 64. The values are the kernel's (computed,
 * then adjusted by hand by Willy Tarreau); they are data, not derivable.
 */
static const __u8 cubic_cbrt_msb[64] = {
	0,   54,  54,  54,  118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
	157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
	200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
	231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
};

static inline __u32 cubic_root(__u64 a)
{
	__u32 bits = cubic_fls64(a), e, x;

	/* a < 64: the table alone, rounded (cbrt(a) = (v + 35) / 64) */
	if (bits < 7)
		return ((__u32)cubic_cbrt_msb[a & 63] + 35) >> 6;
	/*
	 * e = floor(bits / 3) - 1 (84/256 is just above 1/3 for bits <= 64):
	 * a >> 3e keeps the top 6 or so bits, whose root, shifted back by e,
	 * is the first guess.
	 */
	e = ((bits * 84) >> 8) - 1;
	x = (((__u32)cubic_cbrt_msb[(a >> (e * 3)) & 63] + 10) << e) >> 6;
	/*
	 * One Newton step, x' = (2x + a / x^2) / 3, with the kernel's
	 * x (x - 1) for x^2 and 341/1024 for 1/3, all in its 32-bit
	 * arithmetic. x >= 4 here, so x (x - 1) is never 0.
	 */
	x = 2 * x + (__u32)(a / ((__u64)x * (__u64)(x - 1)));
	return (x * 341) >> 10;
}

/* Linux usecs_to_jiffies(), rounding up. */
static inline __u32 cubic_usecs_to_jiffies(__u32 us, __u32 hz)
{
	return (__u32)(((__u64)us * hz + CUBIC_USEC_PER_SEC - 1) / CUBIC_USEC_PER_SEC);
}

/* 1024 x C / RTT with Linux's reference RTT of 100 ms: bic_scale x 10. */
static inline __u32 cubic_cube_rtt_scale(const struct cubic_tunables *t)
{
	return cubic_tun_bic_scale(t) * 10;
}

/* 2^40 / (bic_scale x 10): turns (Wmax - cwnd) into K^3 in (1/1024 s)^3. */
static inline __u64 cubic_cube_factor(const struct cubic_tunables *t)
{
	return (1ULL << (10 + 3 * CUBIC_TIME_SHIFT)) / ((__u64)cubic_tun_bic_scale(t) * 10);
}

/* Reno-friendly slope, x8: 8 x (1 + beta) / 3 / (1 - beta) in 1/1024 units. */
static inline __u32 cubic_beta_scale(const struct cubic_tunables *t)
{
	__u32 beta = cubic_tun_beta(t);

	return 8 * (CUBIC_BETA_SCALE + beta) / 3 / (CUBIC_BETA_SCALE - beta);
}

/* bictcp_reset(): forget the window history (init and RTO). */
static inline void cubic_reset(struct cubic_state *s)
{
	s->cnt = 0;
	s->last_max_cwnd = 0;
	s->last_cwnd = 0;
	s->last_time = 0;
	s->bic_origin_point = 0;
	s->bic_K = 0;
	s->delay_min = 0;
	s->epoch_start = 0;
	s->ack_cnt = 0;
	s->tcp_cwnd = 0;
	s->found = 0;
}


/*
 * cubictcp_init(). Returns the initial ssthresh to set, or 0 to leave it.
 * The whole state is zero here (the kernel clears icsk_ca_priv).
 */
static inline __u32 cubic_init(struct cubic_state *s, const struct cubic_tunables *t,
			       __u64 now_us, __u32 snd_nxt)
{
	cubic_reset(s);
	hystart_reset_round(s, (__u32)now_us, snd_nxt); /* departure 4 */
	s->rounds = 0;
	s->start_us = now_us;
	s->flags = (s->flags | CUBIC_SF_INIT) &
		   ~(CUBIC_SF_PRE_SS | CUBIC_SF_UNDO_TO_CWND | CUBIC_SF_FRESH_EPOCH |
		     CUBIC_SF_HOLD | CUBIC_SF_SEARCH_FALLBACK | CUBIC_SF_PREDICT_FILL |
		     CUBIC_SF_PREDICT_FALLBACK);
	hspp_arm(s);
	if (cubic_tun_hystart(t) == CUBIC_HYSTART_OFF)
		return cubic_tun_initial_ssthresh(t);
	return 0;
}

/* tcp_slow_start(): returns the ACKed packets left over for the CA phase. */
static inline __u32 cubic_slow_start(struct cubic_win *w, __u32 acked)
{
	__u32 cwnd = w->cwnd + acked;

	if (cwnd > w->ssthresh)
		cwnd = w->ssthresh;
	acked -= cwnd - w->cwnd;
	w->cwnd = cwnd < w->clamp ? cwnd : w->clamp;
	return acked;
}

/* tcp_cong_avoid_ai(): cwnd grows by 1 every w ACKed packets. */
static inline void cubic_cong_avoid_ai(struct cubic_win *win, __u32 w, __u32 acked)
{
	if (win->cwnd_cnt >= w) {
		win->cwnd_cnt = 0;
		win->cwnd++;
	}
	win->cwnd_cnt += acked;
	if (win->cwnd_cnt >= w) {
		__u32 delta = win->cwnd_cnt / w;

		win->cwnd_cnt -= delta * w;
		win->cwnd += delta;
	}
	if (win->cwnd > win->clamp)
		win->cwnd = win->clamp;
}

/*
 * W_cubic(t) = C (t - K)^3 + Wmax (RFC 9438 eq. 1) in packets, for t in 1/1024 s
 * since the epoch began; C/rtt x (t - K)^3 with Linux's scaling.
 */
static inline __u32 cubic_target(const struct cubic_state *s, const struct cubic_tunables *t,
				 __u64 tt)
{
	__u64 offs = tt < s->bic_K ? s->bic_K - tt : tt - s->bic_K;
	__u32 delta = (__u32)((cubic_cube_rtt_scale(t) * offs * offs * offs) >>
			      (10 + 3 * CUBIC_TIME_SHIFT));

	return tt < s->bic_K ? s->bic_origin_point - delta : s->bic_origin_point + delta;
}

/*
 * bictcp_update(): set s->cnt, the number of ACKed packets per cwnd increment,
 * from the cubic function W(t) = C (t - K)^3 + Wmax (RFC 9438 section 4.2) and
 * the Reno-friendly estimate (section 4.3). now is in jiffies.
 */
static inline void cubic_update(struct cubic_state *s, const struct cubic_tunables *t, __u32 cwnd,
				__u32 acked, __u32 now, __u32 hz)
{
	__u32 delta, bic_target, max_cnt;
	__u64 tt;

	s->ack_cnt += acked;

	/* Recompute at most every HZ/32 unless cwnd changed. */
	if (s->last_cwnd == cwnd && (__s32)(now - s->last_time) <= (__s32)(hz / 32))
		return;

	/* The cubic part at most once per jiffy; a reduction clears epoch_start. */
	if (s->epoch_start && now == s->last_time)
		goto tcp_friendliness;

	s->last_cwnd = cwnd;
	s->last_time = now;

	if (s->epoch_start == 0) {
		s->epoch_start = now;
		s->ack_cnt = acked;
		s->tcp_cwnd = cwnd;

		if (s->last_max_cwnd <= cwnd) {
			s->bic_K = 0;
			s->bic_origin_point = cwnd;
		} else {
			/* K = cbrt((Wmax - cwnd) / C), RFC 9438 eq. 2 */
			s->bic_K = cubic_root(cubic_cube_factor(t) * (s->last_max_cwnd - cwnd));
			s->bic_origin_point = s->last_max_cwnd;
		}
	}

	/* t is one RTT ahead (delay_min): the target for when this ACK's data returns */
	tt = (__u64)(__s64)(__s32)(now - s->epoch_start);
	tt += cubic_usecs_to_jiffies(s->delay_min, hz);
	tt <<= CUBIC_TIME_SHIFT;
	tt /= hz;
	bic_target = cubic_target(s, t, tt);

	if (bic_target > cwnd)
		s->cnt = cwnd / (bic_target - cwnd);
	else
		s->cnt = 100 * cwnd; /* very small increment */

	/* Before the first loss, grow at least 5% per RTT. */
	if (s->last_max_cwnd == 0 && s->cnt > 20)
		s->cnt = 20;

tcp_friendliness:
	if (cubic_tun_tcp_friendliness(t)) {
		__u32 n;

		delta = (cwnd * cubic_beta_scale(t)) >> 3;
		if (!delta)
			delta = 1; /* departure 5 */
		if (s->ack_cnt > delta) {
			/* "while (ack_cnt > delta) { ack_cnt -= delta; tcp_cwnd++; }" */
			n = (s->ack_cnt - 1) / delta;
			s->ack_cnt -= n * delta;
			s->tcp_cwnd += n;
		}
		if (s->tcp_cwnd > cwnd) { /* Reno would be ahead: keep up with it */
			delta = s->tcp_cwnd - cwnd;
			max_cnt = cwnd / delta;
			if (s->cnt > max_cnt)
				s->cnt = max_cnt;
		}
	}

	/* At most 1 packet per 2 ACKed: cwnd grows at most 1.5x per RTT. */
	if (s->cnt < 2)
		s->cnt = 2;
}

/* cubictcp_cong_avoid(), once the caller has checked tcp_is_cwnd_limited(). */
static inline void cubic_cong_avoid(struct cubic_state *s, const struct cubic_tunables *t,
				    struct cubic_win *w, __u32 acked, __u32 now, __u32 hz, int paced)
{
	if (w->cwnd < w->ssthresh) { /* tcp_in_slow_start() */
		if (cubic_tun_hystart(t) == CUBIC_HYSTART_PP && s->hspp_phase != CUBIC_HSPP_DONE)
			acked = hspp_slow_start(s, t, w, acked, paced);
		else
			acked = cubic_slow_start(w, acked);
		if (!acked)
			return;
	}
	cubic_update(s, t, w->cwnd, acked, now, hz);
	cubic_cong_avoid_ai(w, s->cnt, acked);
}

/* The ssthresh bictcp_recalc_ssthresh() returns for a cwnd: cwnd x beta, at least 2. */
static inline __u32 cubic_ssthresh_of(const struct cubic_tunables *t, __u32 cwnd)
{
	__u32 ssthresh = (cwnd * cubic_tun_beta(t)) / CUBIC_BETA_SCALE;

	return ssthresh > 2 ? ssthresh : 2;
}

/* cubictcp_recalc_ssthresh(): Wmax with fast convergence, then cwnd x beta. */
static inline __u32 cubic_recalc_ssthresh(struct cubic_state *s, const struct cubic_tunables *t,
					  __u32 cwnd)
{
	__u32 beta = cubic_tun_beta(t);

	s->epoch_start = 0; /* end of epoch */
	/* RFC 9406 4.2: loss or ECN ends HyStart++; the normal response follows */
	s->hspp_phase = CUBIC_HSPP_DONE;

	if (cwnd < s->last_max_cwnd && cubic_tun_fast_convergence(t))
		s->last_max_cwnd = (cwnd * (CUBIC_BETA_SCALE + beta)) / (2 * CUBIC_BETA_SCALE);
	else
		s->last_max_cwnd = cwnd;

	return cubic_ssthresh_of(t, cwnd);
}

/*
 * A reduction (loss, RTO, ECN) while still in slow start and before HyStart
 * fired: slow start ended without HyStart. Asked before ssthresh changes.
 */
static inline int cubic_loss_ends_slow_start(const struct cubic_state *s, __u32 cwnd,
					     __u32 ssthresh)
{
	return cwnd < ssthresh && !s->found;
}

/* cubictcp_state(TCP_CA_Loss): start over, including HyStart. */
static inline void cubic_on_loss_state(struct cubic_state *s, __u32 now_us, __u32 snd_nxt)
{
	cubic_reset(s);
	hystart_reset_round(s, now_us, snd_nxt);
}

/*
 * CA_EVENT_CWND_RESTART: slow start again after idle. RFC 9406 4.3 allows
 * HyStart++ for it; only with hspp_after_idle.
 */
static inline void cubic_on_cwnd_restart(struct cubic_state *s, const struct cubic_tunables *t,
					 __u32 now_us, __u32 snd_nxt)
{
	if (cubic_tun_hystart(t) != CUBIC_HYSTART_PP || !cubic_tun_hspp_after_idle(t))
		return;
	s->found = 0;
	hspp_arm(s);
	hystart_reset_round(s, now_us, snd_nxt);
}

/* cubictcp_cwnd_event(CA_EVENT_TX_START): shift the epoch over the idle time. */
static inline void cubic_on_tx_start(struct cubic_state *s, __u32 now, __u32 lsndtime)
{
	__s32 delta = (__s32)(now - lsndtime);

	if (s->epoch_start && delta > 0) {
		s->epoch_start += delta;
		if (cubic_after(s->epoch_start, now))
			s->epoch_start = now;
	}
}

/*
 * The first half of cubictcp_acked(), run on every ACK: keep delay_min.
 * Returns the RTT sample (us, at least 1) for HyStart, or 0 to ignore it.
 */
static inline __u32 cubic_rtt_sample(struct cubic_state *s, __s32 rtt_us, __u32 now_jiffies,
				     __u32 hz)
{
	__u32 delay;

	/* Some calls are for duplicates without timestamps. */
	if (rtt_us < 0)
		return 0;

	/* Discard delay samples for a second after a reduction (fast recovery). */
	if (s->epoch_start && (__s32)(now_jiffies - s->epoch_start) < (__s32)hz)
		return 0;

	delay = rtt_us ? (__u32)rtt_us : 1;
	if (s->delay_min == 0 || s->delay_min > delay)
		s->delay_min = delay;
	return delay;
}

/*
 * The second half of cubictcp_acked(), only while cubic_hystart_pending():
 * run HyStart of the given kind (mode: CUBIC_HYSTART_LINUX or _PP; any other
 * runs none) on the sample. detect: the Linux HyStart detectors that may
 * fire, within the hystart_detect tunable's (PREDICT's fill keeps the delay
 * test alone). Returns the CUBIC_EV_* bits of what happened on this ACK: a
 * HyStart detector or a HyStart++ CSS exit (then the caller sets ssthresh =
 * cwnd), or a HyStart++ CSS entry or resume. Always inlined: seven arguments
 * are two more than a BPF call may pass.
 */
static inline __attribute__((always_inline)) __u8
cubic_hystart_ack_with(struct cubic_state *s, const struct cubic_tunables *t, __u32 mode,
		       const struct cubic_ack *a, __u32 delay, struct hystart_verdict *v, __u32 detect)
{
	switch (mode) {
	case CUBIC_HYSTART_LINUX:
		return hystart_update_with(s, t, a, delay, v, detect & cubic_tun_hystart_detect(t));
	case CUBIC_HYSTART_PP:
		return hspp_update(s, t, a, delay, v);
	default: /* off; SEARCH and PREDICT run in their glue (socket storage) */
		return 0;
	}
}

/*
 * The HyStart a mode runs: HyStart++ for hystart++, Linux HyStart for the
 * others, whose rules run it beside them or fall back to it (the glue asks
 * only when the rule says so; hystart=off never does).
 */
static inline __u32 cubic_hystart_kind(__u32 mode)
{
	return mode == CUBIC_HYSTART_PP ? CUBIC_HYSTART_PP : CUBIC_HYSTART_LINUX;
}

/* The same with every detector, for the flow's own mode (the unit tests, corebench). */
static inline __u8 cubic_hystart_ack(struct cubic_state *s, const struct cubic_tunables *t,
				     const struct cubic_ack *a, __u32 delay,
				     struct hystart_verdict *v)
{
	return cubic_hystart_ack_with(s, t, cubic_tun_hystart(t), a, delay, v, ~0U);
}

#endif /* CUBIC_CORE_H */
