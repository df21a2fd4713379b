/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fast datapath (cubic_ops_fast, and cubic_ops_fast2 before Linux 6.10):
 * .cong_control replaces .pkts_acked + .cong_avoid, and
 * re-does what the kernel then leaves to the congestion control. Each step
 * names the kernel function it stands for (net/ipv4/tcp_input.c, 6.18).
 * struct net is reached by plain (BTF, CO-RE relocated) loads, not
 * BPF_CORE_READ(), which would call bpf_probe_read_kernel() on every ACK.
 */
static __always_inline struct net *sk_net(const struct sock *sk)
{
	return sk->__sk_common.skc_net.net;
}

static __always_inline bool in_cwnd_reduction(const struct sock *sk)
{
	__u8 st = ((const struct inet_connection_sock *)sk)->icsk_ca_state;

	return st == TCP_CA_CWR || st == TCP_CA_Recovery;
}

/* tcp_update_pacing_rate() */
static __always_inline void update_pacing_rate(struct sock *sk, const struct net *net)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct tcp_pacing p;

	p.mss = tp->mss_cache;
	p.cwnd = tp->snd_cwnd;
	p.ssthresh = tp->snd_ssthresh;
	p.packets_out = tp->packets_out;
	p.srtt_us = tp->srtt_us;
	p.ss_ratio = net->ipv4.sysctl_tcp_pacing_ss_ratio;
	p.ca_ratio = net->ipv4.sysctl_tcp_pacing_ca_ratio;
	p.max_rate = sk->sk_max_pacing_rate;
	sk->sk_pacing_rate = tcp_core_pacing_rate(&p);
}

/*
 * What a kernel before 6.10 (.cong_control(sk, rs): Debian 12's 6.1) does
 * not let the fast datapath keep in the socket, kept in socket storage: snd_una
 * as the previous ACK left it (for tcp_ack()'s flag, which such a kernel does
 * not pass: bc_cong_ctl2), and our writes of tp->snd_cwnd_stamp, which BPF
 * may write only from 6.10 on (before, the verifier says "no write support to
 * tcp_sock"). The kernel reads snd_cwnd_stamp only in tcp_cwnd_validate()'s
 * RFC 2861 check, which it skips for a .cong_control algorithm and
 * app_limited() does instead; every write of it, the kernel's and ours, is
 * "now", so the stamp is the later of the kernel's and ours. cubicctl sets
 * own_cwnd_stamp for cubic_ops_fast2, the map for those kernels; the
 * verifier prunes the branches it rules out, so that no other map's programs
 * touch the storage or miss a write.
 */
const volatile bool own_cwnd_stamp = false;

struct cubic_sk_store {
	__u32 snd_una;	  /* where .init or the previous ACK left snd_una */
	__u32 cwnd_stamp; /* jiffies, our last write of snd_cwnd_stamp */
	__u8 una_set;
	__u8 stamp_set;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cubic_sk_store);
} sk_store SEC(".maps");

static __always_inline struct cubic_sk_store *sk_store_get(struct sock *sk)
{
	return bpf_sk_storage_get(&sk_store, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
}

/* tp->snd_cwnd_stamp = now; st: sk_store_get()'s, where own_cwnd_stamp */
static __always_inline void set_cwnd_stamp(struct sock *sk, struct cubic_sk_store *st, __u32 now)
{
	if (!own_cwnd_stamp) {
		((struct tcp_sock *)sk)->snd_cwnd_stamp = now;
	} else if (st) {
		st->cwnd_stamp = now;
		st->stamp_set = 1;
	}
}

static __always_inline __u32 get_cwnd_stamp(const struct sock *sk,
					    const struct cubic_sk_store *st)
{
	__u32 stamp = ((const struct tcp_sock *)sk)->snd_cwnd_stamp;

	if (own_cwnd_stamp && st && st->stamp_set && (__s32)(st->cwnd_stamp - stamp) > 0)
		return st->cwnd_stamp;
	return stamp;
}

/*
 * A passive open sets its first pacing rate when the handshake completes,
 * right after .init (tcp_rcv_state_process(), TCP_SYN_RECV), unless the
 * algorithm has .cong_control; the ACK that completes it does not reach
 * .cong_control (nothing is in flight yet), so it is done here.
 */
static __always_inline void init_fast(struct sock *sk)
{
	init(sk);
	if (sk->__sk_common.skc_state == TCP_SYN_RECV)
		update_pacing_rate(sk, sk_net(sk));
}

SEC("struct_ops/bc_init_fast")
void BPF_PROG(bc_init_fast, struct sock *sk)
{
	init_fast(sk);
}

#define TCP_INIT_CWND 10

static __always_inline __u32 init_cwnd(const struct tcp_sock *tp)
{
	/* tcp_init_cwnd() without a route's initcwnd */
	return tp->snd_cwnd_clamp < TCP_INIT_CWND ? tp->snd_cwnd_clamp : TCP_INIT_CWND;
}

/*
 * tcp_cwnd_validate() runs after each transmission and, for a flow that has
 * not been cwnd-limited for an RTO, calls tcp_cwnd_application_limited() --
 * unless the algorithm has .cong_control. It is done here instead, once per
 * ACK, after the kernel's transmissions that the previous ACK allowed. The
 * kernel's snd_cwnd_used (most in flight while not cwnd-limited) cannot be
 * reset from BPF, so the flow keeps its own, from the in-flight count before
 * each ACK, reset where the kernel resets it.
 */
static __always_inline void app_limited(struct sock *sk, const struct net *net,
					const struct rate_sample *rs, struct cubic_sk_store *st)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	__u32 now, used;

	if (tcp_is_cwnd_limited(tp)) {
		s->cwnd_used = 0; /* the kernel's "network is fed fully" */
		return;
	}
	used = rs->prior_in_flight > tp->packets_out ? rs->prior_in_flight : tp->packets_out;
	if (used > s->cwnd_used)
		s->cwnd_used = used;
	now = tcp_jiffies32();
	if (!net->ipv4.sysctl_tcp_slow_start_after_idle ||
	    (__s32)(now - get_cwnd_stamp(sk, st)) < (__s32)((struct inet_connection_sock *)sk)->icsk_rto)
		return;
	if (((struct inet_connection_sock *)sk)->icsk_ca_state == TCP_CA_Open && sk->sk_socket &&
	    !(sk->sk_socket->flags & (1UL << SOCK_NOSPACE))) {
		__u32 ssthresh = tp->snd_ssthresh;

		tp->snd_cwnd = tcp_core_app_limited_cwnd(tp->snd_cwnd, &ssthresh, s->cwnd_used,
							 init_cwnd(tp));
		tp->snd_ssthresh = ssthresh;
		s->cwnd_used = 0;
	}
	set_cwnd_stamp(sk, st, now);
}

/*
 * .pkts_acked runs before tcp_fastretrans_alert(), .cong_control after it.
 * When this ACK began a reduction, .ssthresh has already run (and ended
 * slow start, zeroed epoch_start, ended HyStart++), so the sample is
 * processed here as .pkts_acked would have seen it: with the epoch, the
 * HyStart++ phase and the slow start of before the reduction, and cwnd as
 * it was then (prior_cwnd). The reduction's ssthresh stands either way.
 */
static __noinline void rtt_sample_before_reduction(struct sock *sk, __s32 rtt_us)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t;
	struct hystart_verdict v;
	struct cubic_ack a;
	__u32 delay;
	__u8 fired = 0;
	int detect;

	if (s->flags & CUBIC_SF_FRESH_EPOCH)
		return;
	delay = cubic_rtt_sample(s, rtt_us, tcp_jiffies32(), CONFIG_HZ);
	if (!delay || !(s->flags & CUBIC_SF_PRE_SS))
		return;
	t = get_tunables();
	detect = rule_before_reduction(sk, t);

	fill_ack(sk, &a, tp->prior_cwnd, TCP_CORE_INFINITE_SSTHRESH);
	__builtin_memset(&v, 0, sizeof(v));
	s->hspp_phase = s->pre_hspp_phase;
	if (detect >= 0)
		fired = cubic_hystart_ack_with(s, t, cubic_hystart_kind(cubic_tun_hystart(t)), &a,
					       delay, &v, (__u32)detect);
	s->hspp_phase = CUBIC_HSPP_DONE;
	/*
	 * HyStart would have set ssthresh = cwnd before the kernel computed
	 * prior_ssthresh (tcp_current_ssthresh(): then cwnd, here infinity),
	 * which an undo restores; undo_to_hystart_cwnd() makes up for it.
	 */
	if (fired & CUBIC_EV_ENDS_SLOW_START)
		s->flags |= CUBIC_SF_UNDO_TO_CWND;
}

/*
 * After an undo of such a reduction (tcp_undo_cwnd_reduction() restores
 * ssthresh to prior_ssthresh and zeroes undo_marker), ssthresh is what the
 * kernel's prior_ssthresh would have been: the cwnd HyStart ended slow start
 * at. Run from .set_state and .cong_control, the first callbacks after
 * every undo, before anything reads ssthresh.
 */
static __always_inline void undo_to_hystart_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);

	if ((s->flags & CUBIC_SF_UNDO_TO_CWND) && !tp->undo_marker &&
	    tp->snd_ssthresh >= TCP_CORE_INFINITE_SSTHRESH && tp->prior_cwnd) {
		tp->snd_ssthresh = tp->prior_cwnd;
		s->flags &= ~CUBIC_SF_UNDO_TO_CWND;
	}
}

/*
 * tcp_cong_control() for a .cong_control algorithm; flag is tcp_ack()'s; st
 * is sk_store's (own_cwnd_stamp), or NULL.
 */
static __always_inline void cong_control(struct sock *sk, int flag, const struct rate_sample *rs,
					 struct cubic_sk_store *st)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct net *net = sk_net(sk);

	check_window(sk, true, false);
	/* what .pkts_acked got: the same rs->rtt_us, set by tcp_clean_rtx_queue() */
	if (s->reduction_us == (__u32)tp->tcp_mstamp)
		rtt_sample_before_reduction(sk, (__s32)rs->rtt_us);
	else
		rtt_sample(sk, (__s32)rs->rtt_us, rs->acked_sacked);
	verdict_ack_fast(sk, rs);
	undo_to_hystart_cwnd(sk);

	if (in_cwnd_reduction(sk)) {
		/* tcp_cwnd_reduction() */
		struct tcp_prr r = {
			.ssthresh = tp->snd_ssthresh,
			.in_flight = packets_in_flight(tp),
			.prior_cwnd = tp->prior_cwnd,
			.prr_out = tp->prr_out,
		};
		__u32 cwnd = tcp_core_prr_cwnd(&r, &ca_state(sk)->prr_delivered,
					       (int)rs->acked_sacked, rs->losses, flag);

		if (cwnd)
			tp->snd_cwnd = cwnd;
	} else if (tcp_core_may_raise_cwnd(tp->reordering, net->ipv4.sysctl_tcp_reordering, flag)) {
		/* tcp_cong_avoid() */
		cong_avoid(sk, rs->acked_sacked);
		set_cwnd_stamp(sk, st, tcp_jiffies32());
	}

	update_pacing_rate(sk, net);

	app_limited(sk, net, rs, st);
}

/* Linux 6.10 and later: tcp_cong_control() passes tcp_ack()'s flag. */
SEC("struct_ops/bc_cong_control")
void BPF_PROG(bc_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	cong_control(sk, flag, rs, NULL);
}

#define TCP_SACK_SEEN 1 /* include/linux/tcp.h: rx_opt.sack_ok, tcp_is_sack() */

/*
 * Before 6.10 (Debian 12's 6.1), .cong_control is (sk, rs): no flag. The
 * bits of it that cong_control() reads are derived from rs and the socket
 * (tcp_core_ack_flag(), include/tcp_ack_core.h), with snd_una as .init or
 * the previous ACK left it (sk_store).
 */
SEC("struct_ops/bc_init_fast2")
void BPF_PROG(bc_init_fast2, struct sock *sk)
{
	struct cubic_sk_store *st;

	init_fast(sk);
	st = sk_store_get(sk);
	if (st) {
		st->snd_una = ((struct tcp_sock *)sk)->snd_una;
		st->una_set = 1;
	}
}

SEC("struct_ops/bc_cong_ctl2")
void BPF_PROG(bc_cong_ctl2, struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_sk_store *st = sk_store_get(sk);
	struct tcp_ack_seen a = {
		.snd_una = tp->snd_una,
		.acked_sacked = rs->acked_sacked,
		.syn_sent = sk->__sk_common.skc_state == TCP_SYN_SENT,
		.sack = !!(BPF_CORE_READ_BITFIELD(tp, rx_opt.sack_ok) & TCP_SACK_SEEN),
	};

	if (st) {
		a.have_prior = st->una_set;
		a.prior_una = st->snd_una;
		st->snd_una = a.snd_una;
		st->una_set = 1;
	}
	cong_control(sk, tcp_core_ack_flag(&a), rs, st);
}

/* 6.1-6.17 kept the write timer's deadline in icsk_timeout; 6.18 reads the timer's own expiry. */
struct inet_connection_sock___icsk_timeout {
	unsigned long icsk_timeout;
} __attribute__((preserve_access_index));

#define ICSK_TIME_REO_TIMEOUT 6 /* include/net/inet_connection_sock.h */

static __always_inline unsigned long write_timer_deadline(const struct inet_connection_sock *icsk)
{
	const struct inet_connection_sock___icsk_timeout *old = (const void *)icsk;

	if (bpf_core_field_exists(old->icsk_timeout))
		return old->icsk_timeout;
	return icsk->icsk_retransmit_timer.expires;
}

/*
 * Whether Recovery is being entered from the RACK reorder timer
 * (tcp_rack_reo_timeout(), run by tcp_write_timer_handler() while
 * icsk_pending still says ICSK_TIME_REO_TIMEOUT and its deadline has passed)
 * rather than from an ACK: every ACK that reaches tcp_fastretrans_alert()
 * through tcp_ack() has just set rcv_tstamp to now.
 */
static __always_inline bool entering_recovery_from_reo_timer(const struct sock *sk)
{
	const struct inet_connection_sock *icsk = (const void *)sk;
	const struct tcp_sock *tp = (const void *)sk;
	__u32 now = tcp_jiffies32();

	return icsk->icsk_pending == ICSK_TIME_REO_TIMEOUT && tp->rcv_tstamp != now &&
	       (long)(bpf_jiffies64() - write_timer_deadline(icsk)) >= 0;
}

/*
 * tcp_end_cwnd_reduction() returns at once for a .cong_control algorithm, so
 * its cwnd reset happens here (tcp_core_end_reduction() says when: leaving
 * CWR for Open or, after a repaired tail loss, Disorder; leaving Recovery for
 * Open without an undo). ssthresh and undo_marker are the same here as at
 * the kernel's reset.
 *
 * tcp_rack_reo_timeout() enters Recovery from a timer and then calls
 * tcp_cwnd_reduction(sk, 1, newly_lost, 0) only for an algorithm without
 * .cong_control; no .cong_control call follows a timer, so that first PRR
 * step (flag 0, so newly_lost does not matter) is done here, where the
 * kernel would do it: after ssthresh, prior_cwnd and prr_out are set, before
 * the retransmission it allows.
 */
SEC("struct_ops/bc_set_state_fast")
void BPF_PROG(bc_set_state_fast, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u8 old;

	old = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	check_window(sk, true, tcp_core_undoing(old, new_state, tp->undo_marker));
	undo_to_hystart_cwnd(sk);
	if (tcp_core_end_reduction(old, new_state, tp->undo_marker, tp->snd_ssthresh)) {
		tp->snd_cwnd = tp->snd_ssthresh;
		set_cwnd_stamp(sk, own_cwnd_stamp ? sk_store_get(sk) : NULL, tcp_jiffies32());
	} else if (new_state == TCP_CA_Recovery && old != TCP_CA_Recovery &&
		   entering_recovery_from_reo_timer(sk)) {
		struct tcp_prr r = {
			.ssthresh = tp->snd_ssthresh,
			.in_flight = packets_in_flight(tp),
			.prior_cwnd = tp->prior_cwnd,
			.prr_out = tp->prr_out,
		};
		__u32 cwnd = tcp_core_prr_cwnd(&r, &ca_state(sk)->prr_delivered, 1, 0, 0);

		if (cwnd)
			tp->snd_cwnd = cwnd;
	}
	set_state(sk, new_state, true);
}

/*
 * The kernel skips its restart after idle (tcp_slow_start_after_idle_check(),
 * at the first write after idle) for a .cong_control algorithm. It is done
 * here, when that first write is transmitted (CA_EVENT_TX_START: nothing in
 * flight; lsndtime still the last send), with the same test and arithmetic.
 * The initial window is TCP_INIT_CWND, not a route's initcwnd.
 */
SEC("struct_ops/bc_cwnd_event_fast")
void BPF_PROG(bc_cwnd_event_fast, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 now = tcp_jiffies32();
	__s32 idle = (__s32)(now - tp->lsndtime);
	__u32 rto = ((struct inet_connection_sock *)sk)->icsk_rto;

	if (event == CA_EVENT_TX_START && sk_net(sk)->ipv4.sysctl_tcp_slow_start_after_idle &&
	    !tp->packets_out && idle > (__s32)rto) {
		/* tcp_cwnd_restart(), which starts with this event */
		__u32 ssthresh = tp->snd_ssthresh;

		cwnd_event(sk, CA_EVENT_CWND_RESTART);
		tp->snd_cwnd = tcp_core_cwnd_restart(tp->snd_cwnd, &ssthresh, in_cwnd_reduction(sk),
						     init_cwnd(tp), idle, rto);
		tp->snd_ssthresh = ssthresh;
		set_cwnd_stamp(sk, own_cwnd_stamp ? sk_store_get(sk) : NULL, now);
		ca_state(sk)->cwnd_used = 0; /* and tp->snd_cwnd_used */
	}
	/* the kernel never sends CA_EVENT_CWND_RESTART here: its restart is skipped */
	cwnd_event(sk, event);
}
