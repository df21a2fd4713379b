/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HyStart++ (hystart=hystart++) is not in Linux; it follows RFC 9406 section 4.2 with
 * Linux's round tracking (a round ends when snd_una passes the snd_nxt of its
 * start), in packets rather than bytes (cwnd += min(acked, L) per ACK, and a
 * quarter of that in CSS, the remainder carried to the next ACK). As section
 * 4.3 advises it runs only in the initial slow start (ssthresh unset), and
 * after an idle restart if hspp_after_idle is set. The RTT thresholds are the
 * delay tunables (MIN/MAX_RTT_THRESH, MIN_RTT_DIVISOR = 1 << shift), and the
 * RFC tests on the N_RTT_SAMPLE-th sample of a round (Linux HyStart on the
 * one after it).
 *
 * It is HyStart with another decision: the round and the delay threshold are
 * include/hystart_core.h's, the state is struct cubic_state's hspp fields.
 */
#ifndef HSPP_CORE_H
#define HSPP_CORE_H

#include "hystart_core.h"

/* cubic_state.hspp_phase: HyStart++ (RFC 9406) */
#define CUBIC_HSPP_SS	0 /* standard slow start, watching the RTT */
#define CUBIC_HSPP_CSS	1 /* Conservative Slow Start */
#define CUBIC_HSPP_DONE 2 /* not (or no longer) in HyStart++ */

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

#endif /* HSPP_CORE_H */
