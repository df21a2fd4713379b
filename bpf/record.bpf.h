/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit record: one struct cubic_event in the events ring per slow-start
 * exit (or HyStart++ phase change), and the exit counters. Only ever run at
 * an exit, never per ACK. The common fields come from the CUBIC_EVENT_FIELDS
 * table (include/cubic_abi.h); each rule writes its own in its fill hook.
 */

/* What an exit passes to emit_exit(). */
struct exit_info {
	__u32 flags;	       /* CUBIC_EV_* reasons */
	__u32 ssthresh_before; /* ssthresh before this exit */
	__u32 ssthresh;	       /* ssthresh set by it */
	__u32 rtt_us;	       /* the RTT sample that decided it, 0 for a loss */
	struct hystart_verdict v; /* HyStart's or HyStart++'s, when one decided */
};

/*
 * Exit counters by reason (CUBIC_EXIT_REASONS), in one lookup; the same
 * accounting as Linux's TcpExtTCPHystart{Train,Delay}{Detect,Cwnd}. One test
 * per reason, unrolled by the preprocessor. Only at exits, never per ACK.
 */
static __noinline void count_exit(__u32 reasons, __u32 cwnd)
{
	__u32 zero = 0;
	struct cubic_counters *c = bpf_map_lookup_elem(&counters, &zero);

	if (!c)
		return;
#define CUBIC_X_COUNT_EXIT(ID, name, bit, sum, ...)                                                \
	if (reasons & CUBIC_EV_##ID) {                                                             \
		c->c[CUBIC_CNT_EXIT_##ID]++;                                                       \
		CUBIC_IF_CWND(sum, c->c[CUBIC_CNT_EXIT_##ID##_CWND] += cwnd;)                      \
	}
	CUBIC_EXIT_REASONS(CUBIC_X_COUNT_EXIT)
#undef CUBIC_X_COUNT_EXIT
}

/* Each rule's part of a record: rules_fill() in bpf/bpf_cubic.bpf.c. */
static __always_inline void rules_fill(struct sock *sk, const struct exit_info *x,
				       struct cubic_event *e);

/* One record; a full ring is counted, not hidden. */
static __noinline void emit_exit(struct sock *sk, const struct exit_info *x)
{
	__u32 flags = x->flags;
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct sock_common *c = &sk->__sk_common;
	struct cubic_event *e;
	__u64 ts_ns = bpf_ktime_get_ns(), flow_id;

	/* the flow's id, and at an exit the start of its verdict (bpf/verdict.bpf.h) */
	flow_id = verdict_begin(sk, flags, ts_ns);
	e = ring_reserve(sizeof(*e));
	if (!e)
		return;
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		flags |= CUBIC_EV_CWND_LIMITED;
	if ((__u64)tp->snd_wnd < (__u64)tp->snd_cwnd * tp->mss_cache)
		flags |= CUBIC_EV_RWND_LIMITED;
	if (sk->sk_pacing_status != SK_PACING_NONE)
		flags |= CUBIC_EV_PACED;
	/* the first slow start: ssthresh unset (PREDICT's fill hook adds its own case) */
	if (x->ssthresh_before >= TCP_CORE_INFINITE_SSTHRESH)
		flags |= CUBIC_EV_INITIAL;
	/* every common number field from its "src" column; the addresses and name below */
#define CUBIC_X_FILL(name, show, src) e->name = (src);
	CUBIC_EVENT_FIELDS(CUBIC_X_FILL, CUBIC_X_FILL, CUBIC_X_FILL, CUBIC_X_FILL, CUBIC_EV_SKIP,
			   CUBIC_EV_SKIP, CUBIC_EV_SKIP)
#undef CUBIC_X_FILL
	rules_fill(sk, x, e);
	fill_endpoints(c, e->saddr, e->daddr, e->instance);

	ring_submit(e);
}
