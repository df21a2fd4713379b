/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit verdict's glue (issue 21; the measurement and the words are
 * include/verdict_core.h's). Every exit that ends slow start (emit_exit())
 * starts a measurement of the flow's path; it runs on the ACKs after the exit
 * until the core says it is over, and then writes one struct cubic_verdict to
 * the events ring, joined to the exit's record by flow_id, and counts the exit
 * ratio in the counters map's histogram. It only reads the socket: cwnd and
 * ssthresh are never written here.
 *
 * The state (struct verdict_state, 64 bytes) does not fit in icsk_ca_priv
 * beside struct cubic_state (104 of 104 bytes), so it lives in socket storage,
 * created at the first exit. What every ACK tests is one byte of struct
 * cubic_state (verdict_on): a flow not measuring, before its exit or once its
 * verdict is written, costs one load and a branch.
 *
 * The samples, per datapath:
 *  - exact (.pkts_acked): tp->rate_delivered / tp->rate_interval_us and
 *    tp->rate_app_limited, the last sample tcp_rate_gen() kept (the previous
 *    ACK's: .pkts_acked runs before this ACK's tcp_rate_gen(); a maximum does
 *    not mind a sample seen twice or one ACK late), and the ACK's RTT sample;
 *  - fast (.cong_control): this ACK's struct rate_sample (delivered,
 *    interval_us < 0 when there is none, is_app_limited, rtt_us).
 * Receive-window-limited: the peer's window below cwnd x mss, the exit
 * record's own test (CUBIC_EV_RWND_LIMITED).
 *
 * The first congestion event after the exit is .ssthresh (bc_recalc_ssthresh:
 * entering Recovery, CWR on ECN, or Loss on an RTO; all three call it first),
 * before a loss exit's own record starts the next measurement. The ACKs of
 * the round after it (the recovery's, SACKs included: both datapaths see
 * them) are still measured.
 *
 * A later exit while measuring (HyStart's in the slow start below ssthresh
 * that a recovery left, a slow start after an RTO or an idle restart) first
 * ends the earlier exit's measurement and writes its verdict (end congestion
 * if its event was seen, else next_exit: a bound), then starts its own: every
 * exit that ends slow start gets one verdict. A .ssthresh
 * the kernel skipped (docs/IMPOSSIBLE_WINDOWS.md; the guard redoes it) is not
 * seen as the congestion event: that measurement ends later, as a bound.
 */
#include "stores.bpf.h" /* the verdict_store map */

/* flow ids: 1, 2, ... per instance (0 in a record: the flow has no storage) */
__u64 verdict_next_id = 0;

#define VERDICT_ON 1 /* cubic_state.verdict: measuring */

_Static_assert(VERDICT_ON == VERDICT_MEASURING, "cubic_state.verdict is the core's phase");

static __always_inline struct verdict_store *verdict_get(struct sock *sk, __u64 flags)
{
	return bpf_sk_storage_get(&verdict_store, sk, NULL, flags);
}

static __always_inline void verdict_params_now(struct verdict_params *p)
{
	verdict_params_default(p);
	p->premature_pm = cubic_tun_premature_ratio(get_tunables());
}

static __noinline void verdict_emit(struct sock *sk, struct verdict_store *vs);

/*
 * A record (emit_exit(), before it is written): the flow's id for it, 0
 * without storage; at an exit that ends slow start the measurement starts.
 */
static __always_inline __u64 verdict_begin(struct sock *sk, __u32 flags, __u64 ts_ns)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct verdict_store *vs = verdict_get(sk, BPF_SK_STORAGE_GET_F_CREATE);
	__u32 min_rtt;

	if (!vs)
		return 0;
	if (!vs->flow_id)
		vs->flow_id = __sync_fetch_and_add(&verdict_next_id, 1) + 1;
	if (!(flags & CUBIC_EV_ENDS_SLOW_START))
		return vs->flow_id;
	/* an earlier exit still measured: its verdict first, with what it measured */
	if (verdict_on_next_exit(&vs->v))
		verdict_emit(sk, vs);
	/* verdict=0: the exit keeps its flow id, the flow is not measured */
	if (!cubic_tun_verdict(get_tunables()))
		return vs->flow_id;
	/* the kernel's windowed minimum (tcp_min_rtt()), else HyStart's */
	min_rtt = tp->rtt_min.s[0].v;
	if (!min_rtt || min_rtt == ~0U)
		min_rtt = s->delay_min;
	verdict_start(&vs->v, tp->snd_cwnd, tp->tcp_mstamp, tp->delivered, tp->packets_out,
		      min_rtt, flags & CUBIC_EV_LOSS);
	vs->exit_ts_ns = ts_ns;
	vs->exit_flags = flags;
	vs->sport = sk->__sk_common.skc_num;
	s->verdict = VERDICT_ON;
	return vs->flow_id;
}

/* Which histogram slot (CUBIC_RATIO_BUCKETS) a ratio falls in: le, so 800 is in "0.8". */
static __always_inline __u32 verdict_slot(__u32 ratio_pm)
{
	__u32 slot = 0;

#define CUBIC_X_SLOT(le_pm, label) slot += ratio_pm > (le_pm);
	CUBIC_RATIO_BUCKETS(CUBIC_X_SLOT)
#undef CUBIC_X_SLOT
	return slot;
}

/* The measurement is over (vs->v.phase DONE): the record, the histogram, and no more. */
static __noinline void verdict_emit(struct sock *sk, struct verdict_store *vs)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct sock_common *c = &sk->__sk_common;
	struct cubic_counters *cnt;
	struct verdict_params p;
	struct cubic_verdict *e;
	__u32 zero = 0, ratio, mss = tp->mss_cache;
	__u8 word;

	ca_state(sk)->verdict = 0;
	vs->v.phase = VERDICT_IDLE;
	verdict_params_now(&p);
	ratio = verdict_ratio_pm(&vs->v);
	word = verdict_word(&vs->v, &p);

	cnt = bpf_map_lookup_elem(&counters, &zero);
	if (cnt) {
		__u32 slot = verdict_slot(ratio);

		if (word < CUBIC_VERDICT_WORD_COUNT)
			cnt->c[CUBIC_CNT_VERDICT_UNKNOWN + word]++;
		/* every reason of the exit, as count_exit() counts it; a ratio only if known */
#define CUBIC_X_HIST(ID, name, bit, sum, key, line, ends, ...)                                    \
	if (ratio && (ends) && (vs->exit_flags & CUBIC_EV_##ID) && slot < CUBIC_RATIO_SLOTS) {   \
		cnt->ratio[CUBIC_RATIO_##ID][slot]++;                                              \
		cnt->ratio[CUBIC_RATIO_##ID][CUBIC_RATIO_SUM] += ratio;                            \
	}
		CUBIC_EXIT_REASONS(CUBIC_X_HIST)
#undef CUBIC_X_HIST
	}

	e = ring_reserve(sizeof(*e));
	if (!e)
		return;
	e->ts_ns = bpf_ktime_get_ns();
	e->flow_id = vs->flow_id;
	e->exit_ts_ns = vs->exit_ts_ns;
	e->exit_flags = vs->exit_flags;
	e->exit_cwnd = vs->v.exit_cwnd;
	e->bdp_est = verdict_bdp(&vs->v);
	e->ratio_pm = ratio;
	e->min_rtt_us = vs->v.min_rtt_us;
	e->max_bw = vs->v.bw_interval_us
			    ? vs->v.bw_delivered * mss * 1000000ULL / vs->v.bw_interval_us
			    : 0;
	e->bw_delivered = (__u32)vs->v.bw_delivered;
	e->bw_interval_us = (__u32)vs->v.bw_interval_us;
	e->cong_cwnd = vs->v.cong_cwnd;
	e->cong_after_us = vs->v.cong_after_us;
	e->samples = vs->v.samples;
	e->skipped = vs->v.skipped;
	e->rounds = vs->v.rounds;
	e->mss = mss;
	e->end = vs->v.end;
	e->word = word;
	e->bound = verdict_bound(&vs->v);
	e->family = c->skc_family;
	/* the exit's: by .release (end "closed") inet_put_port() has zeroed skc_num */
	e->sport = vs->sport;
	e->dport = bpf_ntohs(c->skc_dport);
	fill_endpoints(c, e->saddr, e->daddr, e->instance);
	ring_submit(e);
}

/* One ACK while measuring; rate: the sample as the datapath has it. */
static __noinline void verdict_ack(struct sock *sk, long rtt_us, long rs_delivered,
				   long rs_interval_us, bool rs_app_limited)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct verdict_store *vs = verdict_get(sk, 0);
	struct verdict_params p;
	struct verdict_ack a;

	if (!vs || vs->v.phase != VERDICT_MEASURING) {
		ca_state(sk)->verdict = 0;
		return;
	}
	a.now_us = tp->tcp_mstamp;
	a.delivered = tp->delivered;
	a.packets_out = tp->packets_out;
	/* no RTT from an ACK in a loss recovery: when all it acknowledges was
	 * retransmitted, the kernel's sample comes from the TCP timestamp, in
	 * whole milliseconds (tcp_rtt_tsopt_us()), below the path's RTT by up
	 * to 1 ms, and min_rtt must not take it */
	a.rtt_us = rtt_us > 0 && ((struct inet_connection_sock *)sk)->icsk_ca_state < TCP_CA_Recovery
			   ? (__u32)rtt_us
			   : 0;
	a.rs_delivered = rs_delivered > 0 && rs_interval_us > 0 ? (__u32)rs_delivered : 0;
	a.rs_interval_us = rs_delivered > 0 && rs_interval_us > 0 ? (__u32)rs_interval_us : 0;
	a.rs_app_limited = rs_app_limited;
	a.rwnd_limited = (__u64)tp->snd_wnd < (__u64)tp->snd_cwnd * tp->mss_cache;
	a.cwnd_limited = tcp_is_cwnd_limited(tp);
	verdict_params_now(&p);
	if (verdict_on_ack(&vs->v, &p, &a))
		verdict_emit(sk, vs);
}

/* The exact datapath's ACK (.pkts_acked): tp's last kept rate sample. */
static __always_inline void verdict_ack_exact(struct sock *sk, __s32 rtt_us)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	if (ca_state(sk)->verdict != VERDICT_ON)
		return;
	verdict_ack(sk, rtt_us, tp->rate_delivered, tp->rate_interval_us,
		    BPF_CORE_READ_BITFIELD(tp, rate_app_limited));
}

/* The fast datapath's ACK (.cong_control): its rate sample. */
static __always_inline void verdict_ack_fast(struct sock *sk, const struct rate_sample *rs)
{
	if (ca_state(sk)->verdict != VERDICT_ON)
		return;
	verdict_ack(sk, rs->rtt_us, rs->delivered, rs->interval_us, rs->is_app_limited);
}

/*
 * .ssthresh: a congestion event while measuring; the measurement ends once
 * the packets in flight at it are delivered, unless it came within a round of
 * the exit (verdict_on_congestion()).
 */
static __noinline void verdict_congestion(struct sock *sk, __u32 cwnd)
{
	struct verdict_store *vs = verdict_get(sk, 0);
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct verdict_params p;

	if (!vs) {
		ca_state(sk)->verdict = 0;
		return;
	}
	verdict_params_now(&p);
	if (verdict_on_congestion(&vs->v, &p, cwnd, tp->tcp_mstamp, tp->delivered,
				  tp->packets_out))
		verdict_emit(sk, vs);
}

/* .release while measuring: the flow closes (or leaves this instance). */
static __noinline void verdict_close(struct sock *sk)
{
	struct verdict_store *vs = verdict_get(sk, 0);

	if (!vs) {
		ca_state(sk)->verdict = 0;
		return;
	}
	if (verdict_on_close(&vs->v))
		verdict_emit(sk, vs);
}
