/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUBIC + HyStart algorithm core of bpf_cubic: numbers in, decisions out.
 * No kernel types and no I/O, so the same source is compiled into the BPF
 * object (bpf/bpf_cubic.bpf.c reads the socket and calls these) and into the
 * host unit tests (tests/unit/).
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
 * HyStart++ (hystart=2) is not in Linux; it follows RFC 9406 section 4.2 with
 * Linux's round tracking (a round ends when snd_una passes the snd_nxt of its
 * start), in packets rather than bytes (cwnd += min(acked, L) per ACK, and a
 * quarter of that in CSS, the remainder carried to the next ACK). As section
 * 4.3 advises it runs only in the initial slow start (ssthresh unset), and
 * after an idle restart if hspp_after_idle is set. The RTT thresholds are the
 * delay tunables (MIN/MAX_RTT_THRESH, MIN_RTT_DIVISOR = 1 << shift), and the
 * RFC tests on the N_RTT_SAMPLE-th sample of a round (Linux HyStart on the
 * one after it).
 *
 * SEARCH (hystart=3) is include/search_core.h; the glue runs it from the
 * socket storage, so cubic_hystart_ack() does nothing in that mode (a flow
 * without storage runs Linux HyStart: cubic_hystart_ack_as()).
 */
#ifndef CUBIC_CORE_H
#define CUBIC_CORE_H

#include "cubic_abi.h"

#define CUBIC_BETA_SCALE 1024 /* beta is in 1/1024 */
#define CUBIC_TIME_SHIFT 10   /* BICTCP_HZ: the cubic function's time is in 1/1024 s */
#define CUBIC_USEC_PER_SEC 1000000ULL
#define CUBIC_ACK_DELAY_MAX_US 1000 /* cap of the TSO/GRO cushion, Linux USEC_PER_MSEC */

/* cubic_state.flags */
#define CUBIC_SF_INIT 0x1 /* our init ran for this flow */
/* the fast datapath's view of the ACK that begins a reduction (bpf/bpf_cubic.bpf.c) */
#define CUBIC_SF_PRE_SS	      0x2 /* slow start (HyStart pending) when the last reduction began */
#define CUBIC_SF_UNDO_TO_CWND 0x4 /* HyStart ended that slow start on the same ACK */
#define CUBIC_SF_FRESH_EPOCH  0x8 /* that ACK's RTT sample falls in the second after a reduction */
/* SEARCH (hystart=search, bpf/bpf_cubic.bpf.c) */
#define CUBIC_SF_SEARCH_HOLD	 0x10 /* this ACK: no slow-start growth (SEARCH drains cwnd) */
#define CUBIC_SF_SEARCH_FALLBACK 0x20 /* no socket storage: Linux HyStart decides instead */
#define CUBIC_SF_PREDICT_FILL	  0x40 /* PREDICT set ssthresh = target: its exit is cwnd reaching it */
#define CUBIC_SF_PREDICT_FALLBACK 0x80 /* no socket storage for PREDICT: Linux HyStart decides */

/* cubic_state.hspp_phase: HyStart++ (RFC 9406) */
#define CUBIC_HSPP_SS	0 /* standard slow start, watching the RTT */
#define CUBIC_HSPP_CSS	1 /* Conservative Slow Start */
#define CUBIC_HSPP_DONE 2 /* not (or no longer) in HyStart++ */

/*
 * Per-flow state, kept in inet_csk_ca(sk) (104 bytes on 6.18; the BPF side
 * asserts the size). The first block mirrors struct bictcp.
 */
struct cubic_state {
	/* CUBIC; cubic_reset() clears cnt .. tcp_cwnd, as bictcp_reset() */
	__u32 cnt;		/* increase cwnd by 1 after this many ACKed packets */
	__u32 last_max_cwnd;	/* Wmax: cwnd before the last reduction */
	__u32 last_cwnd;	/* cwnd at the last cubic_update() */
	__u32 last_time;	/* jiffies of the last cubic_update() */
	__u32 bic_origin_point; /* origin point of the cubic function */
	__u32 bic_K;		/* time from epoch start to origin, 1/1024 s */
	__u32 delay_min;	/* minimum RTT, us */
	__u32 epoch_start;	/* jiffies at the start of the epoch, 0: none */
	__u32 ack_cnt;		/* packets ACKed in this epoch */
	__u32 tcp_cwnd;		/* estimated Reno cwnd */
	/* HyStart */
	__u32 round_start; /* us, when this round began */
	__u32 end_seq;	   /* the round ends when snd_una passes this */
	__u32 last_ack;	   /* us, last ACK that continued the train */
	__u32 curr_rtt;	   /* us, minimum RTT of this round's samples */
	__u8 sample_cnt;   /* RTT samples in this round */
	__u8 found;	   /* CUBIC_HYSTART_* bits that ended slow start */
	__u8 flags;	   /* CUBIC_SF_* */
	__u8 pre_hspp_phase; /* hspp_phase before the last .ssthresh call */
	/* telemetry */
	__u32 rounds;	/* HyStart rounds since the flow began */
	__u64 start_us; /* tcp clock (us) when the flow began */
	/* HyStart++ (RFC 9406); curr_rtt and sample_cnt serve it too */
	__u32 last_round_min_rtt; /* lastRoundMinRTT, us (~0: none yet) */
	__u32 css_baseline;	  /* cssBaselineMinRtt, us (~0: none) */
	__u32 css_accum;	  /* CSS growth not yet applied, packets */
	__u8 hspp_phase;	  /* CUBIC_HSPP_* */
	__u8 css_rounds;	  /* CSS rounds so far, the partial first one included */
	__u8 seen_state;	  /* ca_state after the last .set_state we saw (the guard) */
	__u8 pad2;
	/* the fast datapath (.cong_control): see include/tcp_ack_core.h */
	__u32 prr_delivered; /* PRR: packets delivered since the reduction began */
	__u32 cwnd_used;     /* RFC 2861: most in flight while not cwnd-limited */
	__u32 reduction_us;  /* tcp clock (us, low 32 bits) of the last .ssthresh call */
	__u32 reduction_seq; /* snd_nxt at that call: the high_seq of the reduction it began */
};

/* The window fields of tcp_sock that the core reads and writes. */
struct cubic_win {
	__u32 cwnd;
	__u32 cwnd_cnt;
	__u32 ssthresh;
	__u32 clamp;
};

/* What HyStart needs to know about one ACK (cubic_rtt_sample() took its RTT). */
struct cubic_ack {
	__u32 now_us;	      /* tcp_mstamp, truncated to 32 bits as Linux */
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 cwnd;
	__u32 ssthresh;
	__u64 pacing_rate;    /* sk_pacing_rate, bytes/s; 0 if unset */
	__u32 gso_max_size;   /* sk_gso_max_size, bytes */
	__u8 paced;	      /* sk_pacing_status != SK_PACING_NONE */
};

/* Why HyStart fired on this ACK, for telemetry. */
struct hystart_verdict {
	__u8 found;	      /* CUBIC_HYSTART_* bits that fired on this ACK */
	__u32 train_len;      /* us, ACK train length when the train fired */
	__u32 train_thresh;   /* us, the threshold it crossed */
	__u32 rtt;	      /* us, the round's minimum RTT when the delay test fired */
	__u32 rtt_thresh;     /* us, delay_min + clamped threshold it crossed */
	/* HyStart++ */
	__u32 last_rtt;	      /* lastRoundMinRTT at the decision */
	__u32 baseline;	      /* cssBaselineMinRtt at the decision */
	__u32 css_rounds;     /* CSS rounds at the decision */
};

static inline int cubic_before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define cubic_after(seq2, seq1) cubic_before(seq1, seq2)

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

/* bictcp_hystart_reset(): a new HyStart round starts now and ends at snd_nxt. */
static inline void hystart_reset_round(struct cubic_state *s, __u32 now_us, __u32 snd_nxt)
{
	s->round_start = now_us;
	s->last_ack = now_us;
	s->end_seq = snd_nxt;
	s->curr_rtt = ~0U;
	s->sample_cnt = 0;
}

/* HyStart++ starts over: standard slow start, no RTT history. */
static inline void hspp_arm(struct cubic_state *s)
{
	s->hspp_phase = CUBIC_HSPP_SS;
	s->last_round_min_rtt = ~0U;
	s->css_baseline = ~0U;
	s->css_accum = 0;
	s->css_rounds = 0;
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
		     CUBIC_SF_SEARCH_HOLD | CUBIC_SF_SEARCH_FALLBACK | CUBIC_SF_PREDICT_FILL |
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

/*
 * HyStart++ slow-start growth (RFC 9406 section 4.2): cwnd += min(N, L x SMSS),
 * L unlimited when paced; in CSS a CSS_GROWTH_DIVISOR-th of that. Returns the
 * ACKed packets left over once ssthresh is reached, as tcp_slow_start().
 */
static inline __u32 hspp_slow_start(struct cubic_state *s, const struct cubic_tunables *t,
				    struct cubic_win *w, __u32 acked, int paced)
{
	__u32 inc = acked, lim = cubic_tun_hspp_ack_limit(t), used;

	if (!paced && inc > lim)
		inc = lim;
	if (s->hspp_phase == CUBIC_HSPP_CSS) {
		__u32 div = cubic_tun_css_growth_divisor(t);

		s->css_accum += inc;
		inc = s->css_accum / div;
		s->css_accum -= inc * div;
	}
	if (inc >= w->ssthresh - w->cwnd) {
		used = w->ssthresh - w->cwnd;
		w->cwnd = w->ssthresh < w->clamp ? w->ssthresh : w->clamp;
		return acked > used ? acked - used : 0;
	}
	w->cwnd += inc;
	if (w->cwnd > w->clamp)
		w->cwnd = w->clamp;
	return 0;
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

/* cubictcp_recalc_ssthresh(): Wmax with fast convergence, then cwnd x beta. */
/* The ssthresh bictcp_recalc_ssthresh() returns for a cwnd: cwnd x beta, at least 2. */
static inline __u32 cubic_ssthresh_of(const struct cubic_tunables *t, __u32 cwnd)
{
	__u32 ssthresh = (cwnd * cubic_tun_beta(t)) / CUBIC_BETA_SCALE;

	return ssthresh > 2 ? ssthresh : 2;
}

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
 * hystart_ack_delay(): the TSO/GRO cushion added to the ACK-train threshold,
 * the time to send 4 GSO packets at the pacing rate, at most 1 ms.
 */
static inline __u32 hystart_ack_delay(const struct cubic_ack *a)
{
	__u64 d;

	if (!a->pacing_rate)
		return 0;
	d = (__u64)a->gso_max_size * 4 * CUBIC_USEC_PER_SEC / a->pacing_rate;
	return d < CUBIC_ACK_DELAY_MAX_US ? (__u32)d : CUBIC_ACK_DELAY_MAX_US;
}

/* The delay test's threshold above delay_min: clamp(delay_min >> shift, min, max). */
static inline __u32 hystart_delay_thresh(const struct cubic_tunables *t, __u32 delay_min)
{
	__u32 x = delay_min >> cubic_tun_delay_thresh_shift(t);
	__u32 lo = cubic_tun_delay_thresh_min_us(t);
	__u32 hi = cubic_tun_delay_thresh_max_us(t);

	if (x > hi)
		x = hi;
	if (x < lo)
		x = lo;
	return x;
}

/* The ACK-train threshold, us (departure 2). */
static inline __u32 hystart_train_thresh(const struct cubic_tunables *t, __u32 delay_min,
					 const struct cubic_ack *a)
{
	__u64 base = (__u64)delay_min + hystart_ack_delay(a);
	__u64 thr = (base << (a->paced ? 4 : 3)) >> cubic_tun_ack_train_shift(t);

	return thr > 0xffffffffULL ? 0xffffffffU : (__u32)thr;
}

/*
 * hystart_update(), with only the detectors of detect: one RTT sample during
 * slow start. Returns the detector bits that fired (the caller then sets
 * ssthresh = cwnd) and fills v.
 */
static inline __attribute__((always_inline)) __u8
hystart_update_with(struct cubic_state *s, const struct cubic_tunables *t, const struct cubic_ack *a,
		    __u32 delay, struct hystart_verdict *v, __u32 detect)
{
	__u8 fired = 0;

	/* Rounds follow snd_una, even below the low window (Linux 2021, 2025). */
	if (cubic_after(a->snd_una, s->end_seq)) {
		hystart_reset_round(s, a->now_us, a->snd_nxt);
		s->rounds++;
	}

	if (a->cwnd < cubic_tun_hystart_low_window(t))
		return 0;

	if (detect & CUBIC_HYSTART_ACK_TRAIN) {
		__u32 now = a->now_us;

		/* Only ACKs closer than hystart_ack_delta_us continue the train. */
		if ((__s32)(now - s->last_ack) <= (__s32)cubic_tun_hystart_ack_delta_us(t)) {
			__u32 threshold = hystart_train_thresh(t, s->delay_min, a);

			s->last_ack = now;
			/* Linux: "(s32)(now - round_start) > threshold", an unsigned compare */
			if (now - s->round_start > threshold) {
				fired |= CUBIC_HYSTART_ACK_TRAIN;
				v->train_len = now - s->round_start;
				v->train_thresh = threshold;
			}
		}
	}

	if (detect & CUBIC_HYSTART_DELAY) {
		/* The round's minimum over hystart_min_samples samples, then test it. */
		if (s->curr_rtt > delay)
			s->curr_rtt = delay;
		if (s->sample_cnt < cubic_tun_hystart_min_samples(t)) {
			s->sample_cnt++;
		} else {
			__u64 thresh = (__u64)s->delay_min + hystart_delay_thresh(t, s->delay_min);

			if ((__u64)s->curr_rtt > thresh) {
				fired |= CUBIC_HYSTART_DELAY;
				v->rtt = s->curr_rtt;
				v->rtt_thresh = thresh > 0xffffffffULL ? 0xffffffffU : (__u32)thresh;
			}
		}
	}

	s->found |= fired;
	v->found = fired;
	return fired;
}

/*
 * HyStart++ on one RTT sample (RFC 9406 section 4.2). Returns the CUBIC_EV_CSS_*
 * bit of a phase change, if any, and fills v; on CUBIC_EV_CSS_EXIT the caller
 * sets ssthresh = cwnd.
 */
static inline __u8 hspp_update(struct cubic_state *s, const struct cubic_tunables *t,
			       const struct cubic_ack *a, __u32 delay, struct hystart_verdict *v)
{
	__u8 fired = 0;

	if (s->hspp_phase == CUBIC_HSPP_DONE)
		return 0;

	/* A new round: lastRoundMinRTT = currentRoundMinRTT, then start over. */
	if (cubic_after(a->snd_una, s->end_seq)) {
		s->last_round_min_rtt = s->curr_rtt;
		hystart_reset_round(s, a->now_us, a->snd_nxt);
		s->rounds++;
		if (s->hspp_phase == CUBIC_HSPP_CSS) {
			/* CSS lasts CSS_ROUNDS rounds, the partial first one included */
			if (s->css_rounds >= cubic_tun_css_rounds(t)) {
				s->hspp_phase = CUBIC_HSPP_DONE;
				fired = CUBIC_EV_CSS_EXIT;
				goto out;
			}
			s->css_rounds++;
		}
	}

	if (s->curr_rtt > delay)
		s->curr_rtt = delay;
	if (s->sample_cnt < 255)
		s->sample_cnt++;
	if (s->sample_cnt < cubic_tun_hystart_min_samples(t))
		return 0;

	if (s->hspp_phase == CUBIC_HSPP_SS) {
		__u64 thresh;

		if (s->last_round_min_rtt == ~0U)
			return 0;
		/* RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / 8, MAX_RTT_THRESH)) */
		thresh = (__u64)s->last_round_min_rtt +
			 hystart_delay_thresh(t, s->last_round_min_rtt);
		if ((__u64)s->curr_rtt >= thresh) {
			s->css_baseline = s->curr_rtt;
			s->hspp_phase = CUBIC_HSPP_CSS;
			s->css_rounds = 1;
			s->css_accum = 0;
			v->rtt_thresh = thresh > 0xffffffffULL ? 0xffffffffU : (__u32)thresh;
			fired = CUBIC_EV_CSS_ENTER;
		}
	} else if (s->curr_rtt < s->css_baseline) {
		/* the RTT went back down: the exit was spurious, resume slow start */
		v->baseline = s->css_baseline;
		s->css_baseline = ~0U;
		s->hspp_phase = CUBIC_HSPP_SS;
		fired = CUBIC_EV_CSS_RESUME;
	}
out:
	if (fired) {
		v->found = fired;
		v->rtt = s->curr_rtt;
		v->last_rtt = s->last_round_min_rtt;
		if (fired != CUBIC_EV_CSS_RESUME)
			v->baseline = s->css_baseline;
		v->css_rounds = s->css_rounds;
		if (fired == CUBIC_EV_CSS_EXIT)
			s->found |= CUBIC_EV_CSS_EXIT;
	}
	return fired;
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

/* Whether HyStart (either kind) may still act: in slow start, not yet fired. */
static inline int cubic_hystart_pending(const struct cubic_state *s, __u32 cwnd, __u32 ssthresh)
{
	return !s->found && cwnd < ssthresh;
}

/*
 * The second half, only while cubic_hystart_pending(): run the selected
 * HyStart on the sample. Returns the CUBIC_EV_* bits of what happened on this
 * ACK: a HyStart detector or a HyStart++ CSS exit (then the caller sets
 * ssthresh = cwnd), or a HyStart++ CSS entry or resume.
 */
/* always inlined: six arguments are one more than a BPF call may pass */
/*
 * detect: the Linux HyStart detectors that may fire, within the
 * hystart_detect tunable's (PREDICT's fill keeps the delay test alone).
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
	default: /* off; SEARCH and PREDICT are the glue's (they need socket storage) */
		return 0;
	}
}

static inline __attribute__((always_inline)) __u8 cubic_hystart_ack_as(struct cubic_state *s, const struct cubic_tunables *t,
					__u32 mode, const struct cubic_ack *a, __u32 delay,
					struct hystart_verdict *v)
{
	return cubic_hystart_ack_with(s, t, mode, a, delay, v, ~0U);
}

static inline __u8 cubic_hystart_ack(struct cubic_state *s, const struct cubic_tunables *t,
				     const struct cubic_ack *a, __u32 delay,
				     struct hystart_verdict *v)
{
	return cubic_hystart_ack_as(s, t, cubic_tun_hystart(t), a, delay, v);
}

#endif /* CUBIC_CORE_H */
