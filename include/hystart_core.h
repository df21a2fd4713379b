/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linux HyStart (net/ipv4/tcp_cubic.c, hystart_update()): the round, the
 * ACK-train and delay detectors, and the delay threshold. It is the base of
 * the other slow-start rules: HyStart++ counts in its rounds and uses its
 * delay threshold (include/hspp_core.h), PREDICT runs its detectors beside
 * its own, SEARCH and PREDICT fall back to it without socket storage. Its
 * departures from Linux are in include/cubic_core.h's list (2, 3, 4, 6).
 */
#ifndef HYSTART_CORE_H
#define HYSTART_CORE_H

#include "flow_core.h"

#define CUBIC_ACK_DELAY_MAX_US 1000 /* cap of the TSO/GRO cushion, Linux USEC_PER_MSEC */

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

/* bictcp_hystart_reset(): a new HyStart round starts now and ends at snd_nxt. */
static inline void hystart_reset_round(struct cubic_state *s, __u32 now_us, __u32 snd_nxt)
{
	s->round_start = now_us;
	s->last_ack = now_us;
	s->end_seq = snd_nxt;
	s->curr_rtt = ~0U;
	s->sample_cnt = 0;
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

/* Whether HyStart (either kind) may still act: in slow start, not yet fired. */
static inline int cubic_hystart_pending(const struct cubic_state *s, __u32 cwnd, __u32 ssthresh)
{
	return !s->found && cwnd < ssthresh;
}

#endif /* HYSTART_CORE_H */
