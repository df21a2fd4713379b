/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit verdict (issue 21): after a flow leaves slow start, how large was
 * the pipe it left in? A pure core, numbers in and decisions out, like the
 * rules' cores; the glue feeds it every ACK after the exit until it says the
 * measurement is over, then writes the verdict record. Host tests:
 * tests/unit/test_verdict.c.
 *
 * What it keeps: the largest delivery rate the kernel's rate sampler reports
 * (struct rate_sample's delivered / interval_us, or tp->rate_delivered /
 * tp->rate_interval_us where the datapath has no rate sample) and the
 * smallest RTT. bdp_est = max_bw x min_rtt, in packets; the exit ratio is
 * exit cwnd / bdp_est.
 *
 * Which samples count: not those the sampler marks application-limited (the
 * sender had nothing to send, so the rate says nothing of the path), nor
 * those taken while the receive window limited the flow (the peer's rate),
 * nor those with no interval. A sample below the best does no harm: only the
 * maximum is kept.
 *
 * When it ends, and why there. A flow that left early stays cwnd-limited
 * below the pipe: every rate it measures is cwnd / RTT, so a few rounds after
 * the exit bdp_est would be the exit cwnd itself and every exit would look
 * right. The pipe shows only once the window has grown to fill it, and the
 * first congestion event after the exit (loss, ECN or RTO) is the moment the
 * window is known to have filled it: the bottleneck queue overflowed (or was
 * marked), so the delivery rate then is the bottleneck's. So the measurement
 * runs until that event (CONGESTION), and one round past it: the packets in
 * flight at the event, sent while the window was at its largest, are
 * delivered (or SACKed) over that round at the bottleneck's rate, and their
 * rate samples are the best the flow will take (without that round, on a
 * 0.5-BDP buffer at 200 ms, bdp_est was 15 % low on the clean grid).
 *
 * An event within `overshoot_rounds` of the exit is not that moment: the exit
 * itself overfilled the buffer, and on a shallow one the queue it built
 * cannot keep the bottleneck busy for a whole RTT once the window is cut, so
 * no rate sample (each spans an RTT) is the bottleneck's: on the clean grid's
 * 0.25-BDP buffer such flows measured 9-18 % low even over three rounds
 * after the event. Its cwnd and time are recorded (the distance to the ideal
 * exit) and the word is overshoot, but the measurement goes on to the next
 * congestion event, which comes once CUBIC has grown the window through the
 * pipe again. It is cut short only:
 *  - when the flow stops being cwnd-limited for `idle_rounds` rounds in a row
 *    (APP_LIMITED: the application, not the path, sets the pace now; nothing
 *    more can be learnt);
 *  - at `max_ms` after the exit (TIMEOUT; a bound on the time it touches the
 *    flow);
 *  - when the flow closes (CLOSED).
 * Ended without a congestion event, max_bw is only a lower bound on the
 * path's rate, so bdp_est is a lower bound and the ratio an upper bound: a
 * ratio below the threshold still proves the exit premature; a ratio above it
 * proves nothing, and the word is then "unknown" (never a guess).
 *
 * A congestion event is proof of a full pipe only if a queue stood behind it:
 * a flow below the pipe measures its own window (every rate is cwnd / RTT, so
 * bdp_est comes out at the window), and a burst into a tiny buffer, a tail
 * loss's RTO or a policer can end such a flow's measurement all the same
 * (r100_40_q1, a 0.1-BDP buffer: losses at 0.43 BDP, bdp_est = the window).
 * The evidence of a queue is HyStart's: the smallest RTT of a whole round.
 * A standing queue delays every packet of the round; a burst into a queue
 * that drains between bursts (a flow below the pipe sending TSO bursts into a
 * shallow buffer: at 200 Mbit/s over a 0.25-BDP buffer the clean grid's
 * flows lost packets at 0.85-0.95 BDP and measured bdp_est 15 % low) delays
 * only the packets behind it, and the first of each burst still sees the
 * bare path. So the estimate counts as measured only if, in the last whole
 * round before the event that ended the measurement (the exit's round for an
 * event within it) and in the event's own round up to it, even the smallest
 * RTT was at least 17/16 of min_rtt, a queue of a sixteenth of the pipe
 * standing through them, and the window then at least 17/16 of bdp_est;
 * otherwise it is a bound too (verdict_bound()). Its own round too, not the
 * last whole one alone: a host that stalls (a vCPU held by its hypervisor
 * for a few ms, anything that holds ACKs) delays every ACK of a short round,
 * and a flow below the pipe, measuring its own window, then showed a "queue"
 * in that round and called its window the pipe (r100_10_q1, a 0.1-BDP
 * buffer: bdp_est 23 for a BDP of 83, measured; reproduced by stopping the
 * emulator's delay line for 5 ms every 20 ms). The ACKs of the event's round
 * that came before it, on time, show the bare path; a queue that stands
 * delays them too. (An event on its round's first ACK has only the last
 * round to go by.) A buffer under a sixteenth of the BDP is then always a
 * bound: what such a path shows cannot tell a full pipe from a window just
 * below it.
 *
 * The words:
 *  - premature: ratio < premature_pm / 1000 (default 0.8);
 *  - overshoot: the exit came after the buffer had filled: it was itself a
 *    loss exit, or the first congestion event came within `overshoot_rounds`
 *    rounds of it (the queue was already full at the exit);
 *  - ok: neither, and bdp_est measured (not a bound);
 *  - unknown: no valid sample, or bdp_est a bound and a ratio at or above the
 *    threshold.
 * The record also carries the cwnd at the first congestion event and how long
 * after the exit it came: the "distance to the ideal exit" in the implementers'
 * sense (mozilla/neqo issue 3112).
 */
#ifndef VERDICT_CORE_H
#define VERDICT_CORE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

enum verdict_phase {
	VERDICT_IDLE = 0,     /* no exit yet, or a verdict already written */
	VERDICT_MEASURING = 1,
	VERDICT_DONE = 2,     /* over: the record is due (the glue writes it, then IDLE) */
};

/* why the measurement ended */
enum verdict_end {
	VERDICT_END_NONE = 0,
	VERDICT_END_CONGESTION = 1, /* loss, ECN or RTO: the pipe was full */
	VERDICT_END_APP_LIMITED = 2,
	VERDICT_END_TIMEOUT = 3,
	VERDICT_END_CLOSED = 4,
	VERDICT_END_NEXT_EXIT = 5, /* another exit of the flow came first (it is measured next) */
};

enum verdict_word {
	VERDICT_UNKNOWN = 0,
	VERDICT_PREMATURE = 1,
	VERDICT_OK = 2,
	VERDICT_OVERSHOOT = 3,
};

struct verdict_params {
	__u32 premature_pm;	/* premature below this ratio, per mille (800) */
	__u32 max_ms;		/* the longest measurement after the exit (30000) */
	__u32 idle_rounds;	/* not cwnd-limited this many rounds in a row: over (4) */
	__u32 overshoot_rounds; /* a congestion event this soon after the exit: overshoot (1) */
};

struct verdict_state {
	__u64 exit_us;		/* when slow start ended */
	__u64 bw_delivered;	/* the best sample: packets delivered ... */
	__u64 bw_interval_us;	/* ... over this interval */
	__u64 round_end;	/* delivered count that ends the current round */
	__u64 drain_end;	/* after the congestion event: the delivered count that ends it */
	__u32 exit_cwnd;
	__u32 min_rtt_us;	/* 0: none yet */
	__u32 cong_cwnd;	/* cwnd at the first congestion event (0: none) */
	__u32 cong_after_us;	/* how long after the exit it came */
	__u32 end_cwnd;		/* cwnd at the event that ended the measurement (0: none) */
	__u32 round_min_us;	/* the smallest RTT of the current round (0: none yet) */
	__u32 prev_round_min_us; /* ... of the last whole round */
	__u32 end_round_min_us;	/* ... before that event: a queue stood if above min_rtt */
	__u32 samples;		/* rate samples that counted */
	__u32 skipped;		/* rate samples that did not (app- or rwnd-limited, no interval) */
	__u16 rounds;		/* rounds since the exit */
	__u16 idle;		/* rounds in a row not cwnd-limited */
	__u8 phase;
	__u8 end;
	__u8 exit_by_loss;
	__u8 round_limited;	/* this round saw a cwnd-limited ACK */
	__u8 congested;		/* the event that ends it came: its round is being measured */
	__u8 early;		/* the first event came within overshoot_rounds of the exit */
};

/* One ACK after the exit, as the glue reads it. */
struct verdict_ack {
	__u64 now_us;
	__u64 delivered;	/* tp->delivered: packets delivered so far */
	__u32 packets_out;	/* in flight: the round ends once these are delivered */
	__u32 rtt_us;		/* this ACK's RTT sample; 0: none */
	__u32 rs_delivered;	/* the rate sample: packets ... */
	__u32 rs_interval_us;	/* ... over this interval; 0: no sample */
	__u8 rs_app_limited;
	__u8 rwnd_limited;	/* the receive window limited the flow */
	__u8 cwnd_limited;	/* tcp_is_cwnd_limited() */
};

static inline void verdict_params_default(struct verdict_params *p)
{
	p->premature_pm = 800;
	p->max_ms = 30000;
	p->idle_rounds = 4;
	p->overshoot_rounds = 1;
}

/*
 * Slow start ended: the measurement starts (a later exit while it runs ends
 * it first: verdict_on_next_exit()).
 * min_rtt_us: the flow's smallest RTT so far (the kernel's tcp_min_rtt(), or
 * HyStart's delay_min), 0 if none. It must come from before the exit: an exit
 * above the pipe leaves a standing queue, and every RTT sample after it
 * carries that queue, so an estimate from them alone would call the pipe as
 * large as the window that overfilled it.
 */
static inline void verdict_start(struct verdict_state *s, __u32 exit_cwnd, __u64 now_us,
				 __u64 delivered, __u32 packets_out, __u32 min_rtt_us, int by_loss)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->phase = VERDICT_MEASURING;
	s->exit_us = now_us;
	s->exit_cwnd = exit_cwnd;
	s->min_rtt_us = min_rtt_us;
	s->exit_by_loss = by_loss ? 1 : 0;
	s->round_end = delivered + packets_out;
}

static inline void verdict_stop(struct verdict_state *s, __u8 end)
{
	s->phase = VERDICT_DONE;
	s->end = end;
}

/*
 * Every ACK while MEASURING. Returns 1 when the measurement ended on it (the
 * record is due), 0 otherwise.
 */
static inline int verdict_on_ack(struct verdict_state *s, const struct verdict_params *p,
				 const struct verdict_ack *a)
{
	int late;

	if (s->phase != VERDICT_MEASURING)
		return 0;
	late = a->now_us - s->exit_us >= (__u64)p->max_ms * 1000;
	/* min_rtt as it stood at the event: the round after it is a loss
	 * recovery, whose ACKs of retransmitted data carry, if any, an RTT from
	 * the TCP timestamp, in whole milliseconds (tcp_rtt_tsopt_us(): 9000 us
	 * on a 9.9 ms path), and a min_rtt lowered by one made the queue test
	 * below pass on the bare path (verdict_bound()) */
	if (a->rtt_us && !s->congested && (!s->min_rtt_us || a->rtt_us < s->min_rtt_us))
		s->min_rtt_us = a->rtt_us;
	if (a->rtt_us && (!s->round_min_us || a->rtt_us < s->round_min_us))
		s->round_min_us = a->rtt_us;
	if (a->rs_interval_us && a->rs_delivered && !a->rs_app_limited && !a->rwnd_limited) {
		/* delivered / interval above the best: compared by cross-multiplication */
		if ((__u64)a->rs_delivered * s->bw_interval_us >
			    s->bw_delivered * a->rs_interval_us ||
		    !s->bw_interval_us) {
			s->bw_delivered = a->rs_delivered;
			s->bw_interval_us = a->rs_interval_us;
		}
		s->samples++;
	} else if (a->rs_interval_us || a->rs_delivered) {
		s->skipped++;
	}
	if (s->congested) {
		/* the round after the event: rounds and idleness no longer count */
		if (a->delivered >= s->drain_end || late) {
			verdict_stop(s, VERDICT_END_CONGESTION);
			return 1;
		}
		return 0;
	}
	if (a->cwnd_limited)
		s->round_limited = 1;
	if (a->delivered >= s->round_end) {
		s->rounds++;
		s->prev_round_min_us = s->round_min_us;
		s->round_min_us = 0;
		s->idle = s->round_limited ? 0 : s->idle + 1;
		s->round_limited = 0;
		s->round_end = a->delivered + a->packets_out;
		if (s->idle >= p->idle_rounds) {
			verdict_stop(s, VERDICT_END_APP_LIMITED);
			return 1;
		}
	}
	if (late) {
		verdict_stop(s, VERDICT_END_TIMEOUT);
		return 1;
	}
	return 0;
}

/*
 * A congestion event (loss, ECN or RTO). The first one's cwnd and time are
 * recorded; if it came within overshoot_rounds of the exit (not a loss exit's:
 * that one was the exit) the measurement goes on. Otherwise it goes on until
 * the packets in flight now are delivered (delivered + packets_out), then
 * ends (CONGESTION); another event before that (an RTO in the recovery) ends
 * it at once. Returns 1 when it ended.
 */
static inline int verdict_on_congestion(struct verdict_state *s, const struct verdict_params *p,
					__u32 cwnd, __u64 now_us, __u64 delivered,
					__u32 packets_out)
{
	if (s->phase != VERDICT_MEASURING)
		return 0;
	if (s->congested) {
		verdict_stop(s, VERDICT_END_CONGESTION);
		return 1;
	}
	if (!s->cong_cwnd) {
		s->cong_cwnd = cwnd;
		s->cong_after_us = (__u32)(now_us - s->exit_us);
		if (!s->exit_by_loss && s->rounds < p->overshoot_rounds) {
			s->early = 1;
			return 0;
		}
	}
	s->congested = 1;
	s->end_cwnd = cwnd;
	/* the least RTT of the last whole round and of this one so far: the
	 * queue must have stood through both */
	s->end_round_min_us = s->round_min_us;
	if (s->prev_round_min_us && (!s->end_round_min_us || s->prev_round_min_us < s->end_round_min_us))
		s->end_round_min_us = s->prev_round_min_us;
	s->drain_end = delivered + packets_out;
	if (!packets_out) {
		verdict_stop(s, VERDICT_END_CONGESTION);
		return 1;
	}
	return 0;
}

/* The flow closes while measuring (after its congestion event: that is still the end). */
static inline int verdict_on_close(struct verdict_state *s)
{
	if (s->phase != VERDICT_MEASURING)
		return 0;
	verdict_stop(s, s->congested ? VERDICT_END_CONGESTION : VERDICT_END_CLOSED);
	return 1;
}

/*
 * Another exit of the flow while measuring (a HyStart exit in the slow start
 * below ssthresh that a recovery left, a slow start after an RTO or an idle
 * restart): this exit's measurement ends here, so that its verdict is written
 * before the later exit's measurement starts. After its congestion event that
 * is still the end; before it, what was measured is a bound.
 */
static inline int verdict_on_next_exit(struct verdict_state *s)
{
	if (s->phase != VERDICT_MEASURING)
		return 0;
	verdict_stop(s, s->congested ? VERDICT_END_CONGESTION : VERDICT_END_NEXT_EXIT);
	return 1;
}

/* bdp_est in packets, rounded to nearest: max_bw x min_rtt; 0 if unknown. */
static inline __u32 verdict_bdp(const struct verdict_state *s)
{
	if (!s->bw_interval_us || !s->min_rtt_us)
		return 0;
	return (__u32)((s->bw_delivered * s->min_rtt_us + s->bw_interval_us / 2) /
		       s->bw_interval_us);
}

/* The exit ratio, per mille: exit cwnd / bdp_est; 0 if unknown. */
static inline __u32 verdict_ratio_pm(const struct verdict_state *s)
{
	__u64 bdp_x = s->bw_delivered * s->min_rtt_us; /* bdp_est x interval */

	if (!s->bw_interval_us || !bdp_x)
		return 0;
	return (__u32)(((__u64)s->exit_cwnd * 1000 * s->bw_interval_us + bdp_x / 2) / bdp_x);
}

/*
 * Whether bdp_est is only a lower bound (and the ratio an upper one): the
 * measurement did not end at a congestion event, or at one with no queue
 * standing behind it (the last whole round's smallest RTT under 17/16 of
 * min_rtt, or a window under 17/16 of bdp_est): the flow may have measured
 * its own window, not the pipe.
 */
static inline int verdict_bound(const struct verdict_state *s)
{
	if (s->end != VERDICT_END_CONGESTION)
		return 1;
	if ((__u64)s->end_round_min_us * 16 < (__u64)s->min_rtt_us * 17)
		return 1;
	return (__u64)s->end_cwnd * 16 < (__u64)verdict_bdp(s) * 17;
}

static inline __u8 verdict_word(const struct verdict_state *s, const struct verdict_params *p)
{
	__u32 ratio = verdict_ratio_pm(s);

	if (s->exit_by_loss || s->early)
		return VERDICT_OVERSHOOT;
	if (!ratio)
		return VERDICT_UNKNOWN;
	/* a lower bound on bdp_est makes the ratio an upper one: it proves premature only */
	if (ratio < p->premature_pm)
		return VERDICT_PREMATURE;
	return verdict_bound(s) ? VERDICT_UNKNOWN : VERDICT_OK;
}

#endif /* VERDICT_CORE_H */
