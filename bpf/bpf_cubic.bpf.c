// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_cubic: CUBIC (RFC 9438) with a choice of slow-start rules, as a
 * struct_ops tcp_congestion_ops. The glue: it reads the socket (CO-RE), calls
 * the pure cores in include/, writes cwnd and ssthresh back, writes records
 * and bumps counters.
 *
 * Files, in the order this one includes them:
 *   bpf_cubic.bpf.c    maps, tunables and helpers; the rules' dispatch; what
 *                      both datapaths share (.init, .ssthresh, .set_state,
 *                      .cwnd_event, HyStart's step); the exact datapath's
 *                      callbacks; the struct_ops maps
 *   verdict.bpf.h      the exit verdict: the path measured after each exit
 *                      (include/verdict_core.h), its record and histogram
 *   record.bpf.h       the exit record (events ring) and the exit counters
 *   rule_<glue>.bpf.h  one slow-start rule each, behind the hooks of "The
 *                      rules" below; the rules are the rows of
 *                      include/cubic_rules.h, and the Makefile includes every
 *                      bpf/rule_*.bpf.h (through $(OUT)/bpf_rules.h)
 *   guard.bpf.h        the guard against impossible windows
 *   fast.bpf.h         the fast datapath (.cong_control)
 * and the cores: include/cubic_core.h (CUBIC, whose top comment lists the
 * algorithm's departures from tcp_cubic.c), flow_core.h (the per-flow state),
 * hystart_core.h, hspp_core.h, search_core.h, predict_core.h, and
 * tcp_ack_core.h (what the kernel does around a .cong_control algorithm).
 *
 * Where this glue departs from net/ipv4/tcp_cubic.c, and why:
 *  1. Tunables are read from the tunables map on every callback and clamped
 *     there (cubic_tun_*), so cubicctl, or root with bpftool, changes them
 *     live; Linux reads its module parameters at module init.
 *  2. Slow start ends by the rule the "hystart" tunable names: Linux HyStart,
 *     none, or one Linux does not have (HyStart++, SEARCH, PREDICT). SEARCH
 *     and PREDICT keep their state in socket storage (icsk_ca_priv is 104
 *     bytes), with Linux HyStart for a flow that has none.
 *  3. Every slow-start exit writes a record to a ring buffer (record.bpf.h);
 *     Linux only counts them (TcpExtTCPHystart*), as our counters also do.
 *  4. Three struct_ops maps share the programs; cubicctl registers one of
 *     them (CUBIC_OPS_MAPS in include/cubic_abi.h):
 *      - cubic_ops (datapath "exact", the default): .pkts_acked +
 *        .cong_avoid, the kernel's own structure, so the kernel does PRR,
 *        pacing and idle restart as for its cubic. Two trips through the BPF
 *        trampoline per ACK.
 *      - cubic_ops_fast (datapath "fast"): .cong_control, one trip per ACK;
 *        the program does what tcp_cong_control() would (fast.bpf.h).
 *      - cubic_ops_fast2 (datapath "fast" before Linux 6.10, whose
 *        .cong_control is (sk, rs)): the same with tcp_ack()'s flag derived.
 *  5. The guard (guard.bpf.h) repairs what a callback the kernel skipped left
 *     behind; with every callback run it changes nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "cubic_core.h"
#include "tcp_ack_core.h"

char LICENSE[] SEC("license") = "GPL";

extern unsigned long CONFIG_HZ __kconfig;

#define AF_INET6 10

_Static_assert(TCP_CORE_CA_OPEN == TCP_CA_Open && TCP_CORE_CA_CWR == TCP_CA_CWR &&
		       TCP_CORE_CA_RECOVERY == TCP_CA_Recovery && TCP_CORE_CA_LOSS == TCP_CA_Loss,
	       "include/tcp_ack_core.h's ca_state numbers are the kernel's");
_Static_assert(sizeof(struct cubic_state) <=
		       sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "struct cubic_state must fit in icsk_ca_priv");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cubic_tunables);
} tunables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cubic_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cubic_info);
} info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CUBIC_RING_DEFAULT); /* cubicctl load --ring-size */
} events SEC(".maps");

/* Set by cubicctl before load: the instance's name, for the records. */
const volatile char instance_name[CUBIC_NAME_MAX] = {};
/*
 * Set by cubicctl before load: a hash of this object as cubicctl embeds it
 * (and of CUBICCTL_BUILD_TAG), in each exit record, so that after 'cubicctl
 * upgrade' a record says which build's program wrote it.
 */
const volatile __u32 build_id = 0;

#define TCP_CHRONO_RWND_LIMITED 2

/* Used only if the tunables lookup failed, which an array of 1 cannot do. */
static const struct cubic_tunables fallback_tunables = {
#define CUBIC_X_INIT(name, def, min, max, unit, help) .name = (def),
	CUBIC_TUNABLES(CUBIC_X_INIT)
#undef CUBIC_X_INIT
};

static __always_inline const struct cubic_tunables *get_tunables(void)
{
	__u32 zero = 0;
	const struct cubic_tunables *t = bpf_map_lookup_elem(&tunables, &zero);

	return t ? t : &fallback_tunables;
}

static __always_inline void count(enum cubic_counter idx, __u64 v)
{
	__u32 zero = 0;
	struct cubic_counters *c = bpf_map_lookup_elem(&counters, &zero);

	if (c && idx < CUBIC_CNT_MAX)
		c->c[idx] += v;
}

static __always_inline struct cubic_state *ca_state(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline __u32 tcp_jiffies32(void)
{
	return (__u32)bpf_jiffies64();
}

/* include/net/tcp.h tcp_is_cwnd_limited() */
static __always_inline bool tcp_is_cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	/* In slow start, make sure cwnd can grow to twice what was ACKed. */
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

/* tcp_packets_in_flight() */
static __always_inline __u32 packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* What HyStart reads of this ACK; cwnd and ssthresh as the caller says they were. */
static __always_inline void fill_ack(struct sock *sk, struct cubic_ack *a, __u32 cwnd,
				     __u32 ssthresh)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	a->now_us = (__u32)tp->tcp_mstamp;
	a->snd_una = tp->snd_una;
	a->snd_nxt = tp->snd_nxt;
	a->cwnd = cwnd;
	a->ssthresh = ssthresh;
	a->pacing_rate = sk->sk_pacing_rate;
	a->gso_max_size = sk->sk_gso_max_size;
	a->paced = sk->sk_pacing_status != SK_PACING_NONE;
}

/*
 * The socket's addresses (16 bytes each: an IPv4 one in the first 4), as
 * records and keys carry them; saddr NULL: the peer's alone. One test of the
 * family: two in a row doubled the paths 6.1's verifier walks through every
 * record in the fast datapath's .cong_control (bc_cong_ctl2 went past its
 * million instructions).
 */
static __always_inline void fill_addrs(const struct sock_common *c, __u8 *saddr, __u8 *daddr)
{
	if (c->skc_family == AF_INET6) {
		for (int i = 0; i < 4; i++) {
			if (saddr)
				((__u32 *)saddr)[i] = c->skc_v6_rcv_saddr.in6_u.u6_addr32[i];
			((__u32 *)daddr)[i] = c->skc_v6_daddr.in6_u.u6_addr32[i];
		}
	} else {
		if (saddr)
			*(__u32 *)saddr = c->skc_rcv_saddr;
		*(__u32 *)daddr = c->skc_daddr;
	}
}

/* A ring record's addresses and instance name, as both records (exit, verdict) carry them. */
static __always_inline void fill_endpoints(const struct sock_common *c, __u8 *saddr, __u8 *daddr,
					   char *instance)
{
	fill_addrs(c, saddr, daddr);
	for (int i = 0; i < CUBIC_NAME_MAX; i++)
		instance[i] = instance_name[i];
}

/*
 * A record in the events ring: reserved and zeroed, or NULL with the loss
 * counted (a full ring is counted, not hidden); ring_submit() sends it and
 * counts it. Every record (exit, verdict, policer) goes through these two.
 * Always inlined: the ring wants the record's size as a constant.
 */
static __always_inline void *ring_reserve(__u64 size)
{
	void *e = bpf_ringbuf_reserve(&events, size, 0);

	if (!e) {
		count(CUBIC_CNT_EVENT_DROPS, 1);
		return NULL;
	}
	__builtin_memset(e, 0, size);
	return e;
}

static __always_inline void ring_submit(void *e)
{
	bpf_ringbuf_submit(e, 0);
	count(CUBIC_CNT_EVENTS, 1);
}

#include "verdict.bpf.h"
#include "record.bpf.h"

/*
 * The rules. Each slow-start rule (a row of CUBIC_RULES, include/cubic_rules.h)
 * is a pure core in include/ and a glue file bpf/rule_<glue>.bpf.h with these
 * hooks, all __always_inline. Linux HyStart is the base: on_ack and
 * before_reduction return the Linux HyStart detectors that may fire on the
 * sample after the rule (RULE_HYSTART_ALL: every one of hystart_detect), or
 * RULE_NO_HYSTART (-1) for no HyStart at all. Which HyStart runs is the
 * mode's (cubic_hystart_kind(): HyStart++ for hystart++, else Linux HyStart).
 *
 *   void rule_G_init(sk, t)              .init, while the flow's mode is G
 *   int  rule_G_on_ack(sk, t, rtt_us, delay, acked)
 *                                        one ACK in slow start (cwnd <
 *                                        ssthresh), with an RTT sample
 *                                        (delay, us) or not (0)
 *   int  rule_G_before_reduction(sk, t)
 *                                        the fast datapath's sample of the ACK
 *                                        that began a reduction, as
 *                                        .pkts_acked would have seen it
 *   void rule_G_exit_check(sk, w)        after each window update: whether
 *                                        the rule's own exit was reached
 *   void rule_G_forget(sk, t, after)     slow start is over without the
 *                                        rule's own exit: after, by a
 *                                        reduction, the Loss state or an idle
 *                                        restart; else by HyStart's exit
 *   void rule_G_fill(sk, x, e)           the rule's fields and flags in a
 *                                        record, after the common ones
 *   u32  rule_G_reduction(sk, t, cwnd, ssthresh, ss_exit)
 *                                        a reduction (.ssthresh, before the
 *                                        record of a loss that ends the slow
 *                                        start: ss_exit): the ssthresh instead
 *                                        of CUBIC's (PREDICT's retreat or
 *                                        policer answer, also at its first
 *                                        reduction after its own exit)
 *   void rule_G_recovered(sk, t)         a recovery ended (Recovery left for
 *                                        Open, no undo): PREDICT's policer
 *                                        answer measured again
 *
 * init, on_ack and before_reduction go to the flow's mode alone, a switch on
 * the hystart tunable. exit_check, forget, fill, reduction and recovered go to every rule: they act
 * on what a rule left in the flow, which a live change of the mode does not
 * undo.
 *
 * RULE_NO_STATE(G) writes G's init, exit_check, forget and fill for a rule
 * with no state beyond struct cubic_state, and RULE_NO_REDUCTION(G) (which
 * it includes) its reduction and recovered for a rule that leaves CUBIC's
 * reductions alone; RULE_HYSTART_ONLY(G, detect) its
 * on_ack and before_reduction for a rule that is HyStart itself
 * (RULE_HYSTART_ALL) or none (RULE_NO_HYSTART).
 */
#define RULE_HYSTART_ALL ((int)(CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY))
#define RULE_NO_HYSTART	 (-1)

#define RULE_NO_STATE(G)                                                                           \
	static __always_inline void rule_##G##_init(struct sock *sk,                              \
						    const struct cubic_tunables *t)               \
	{                                                                                          \
	}                                                                                          \
	static __always_inline void rule_##G##_exit_check(struct sock *sk,                        \
							  const struct cubic_win *w)              \
	{                                                                                          \
	}                                                                                          \
	static __always_inline void rule_##G##_forget(struct sock *sk,                            \
						      const struct cubic_tunables *t, bool after) \
	{                                                                                          \
	}                                                                                          \
	static __always_inline void rule_##G##_fill(struct sock *sk, const struct exit_info *x,   \
						    struct cubic_event *e)                        \
	{                                                                                          \
	}                                                                                          \
	RULE_NO_REDUCTION(G)

#define RULE_NO_REDUCTION(G)                                                                       \
	static __always_inline __u32 rule_##G##_reduction(struct sock *sk,                        \
							  const struct cubic_tunables *t,         \
							  __u32 cwnd, __u32 ssthresh,             \
							  bool ss_exit)                           \
	{                                                                                          \
		return ssthresh;                                                                   \
	}                                                                                          \
	static __always_inline void rule_##G##_recovered(struct sock *sk,                         \
							 const struct cubic_tunables *t)          \
	{                                                                                          \
	}

#define RULE_HYSTART_ONLY(G, detect)                                                               \
	static __always_inline int rule_##G##_on_ack(struct sock *sk,                             \
						     const struct cubic_tunables *t, __s32 rtt_us, \
						     __u32 delay, __u32 acked)                    \
	{                                                                                          \
		return (detect);                                                                   \
	}                                                                                          \
	static __always_inline int rule_##G##_before_reduction(struct sock *sk,                   \
							       const struct cubic_tunables *t)    \
	{                                                                                          \
		return (detect);                                                                   \
	}

#include "bpf_rules.h" /* every bpf/rule_*.bpf.h (Makefile) */

static __always_inline void rule_init(struct sock *sk, const struct cubic_tunables *t)
{
	switch (cubic_tun_hystart(t)) {
#define CUBIC_X_RULE(ENUM, value, name, glue, ...)                                                 \
	case CUBIC_HYSTART_##ENUM:                                                                 \
		rule_##glue##_init(sk, t);                                                         \
		break;
		CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
	}
}

/*
 * A subprogram: the verifier goes on after it with one state per result, not
 * one per rule. Inlined, 6.1's verifier walked hystart_step() once per rule
 * (bc_cong_ctl2: 543k instructions instead of 211k).
 */
static __noinline int rule_on_ack(struct sock *sk, const struct cubic_tunables *t, __s32 rtt_us,
				  __u32 delay, __u32 acked)
{
	switch (cubic_tun_hystart(t)) {
#define CUBIC_X_RULE(ENUM, value, name, glue, ...)                                                 \
	case CUBIC_HYSTART_##ENUM:                                                                 \
		return rule_##glue##_on_ack(sk, t, rtt_us, delay, acked);
		CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
	}
	return RULE_NO_HYSTART;
}

static __always_inline int rule_before_reduction(struct sock *sk, const struct cubic_tunables *t)
{
	switch (cubic_tun_hystart(t)) {
#define CUBIC_X_RULE(ENUM, value, name, glue, ...)                                                 \
	case CUBIC_HYSTART_##ENUM:                                                                 \
		return rule_##glue##_before_reduction(sk, t);
		CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
	}
	return RULE_NO_HYSTART;
}

static __always_inline void rules_forget(struct sock *sk, const struct cubic_tunables *t,
					 bool after)
{
#define CUBIC_X_RULE(ENUM, value, name, glue, ...) rule_##glue##_forget(sk, t, after);
	CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
}

/* A reduction, the Loss state, a restart after idle: every rule forgets its slow start. */
static __always_inline void slow_start_forget(struct sock *sk, const struct cubic_tunables *t)
{
	rules_forget(sk, t, true);
}

static __always_inline void rules_exit_check(struct sock *sk, const struct cubic_win *w)
{
#define CUBIC_X_RULE(ENUM, value, name, glue, ...) rule_##glue##_exit_check(sk, w);
	CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
}

static __always_inline __u32 rules_reduction(struct sock *sk, const struct cubic_tunables *t,
					      __u32 cwnd, __u32 ssthresh, bool ss_exit)
{
#define CUBIC_X_RULE(ENUM, value, name, glue, ...)                                                 \
	ssthresh = rule_##glue##_reduction(sk, t, cwnd, ssthresh, ss_exit);
	CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
	return ssthresh;
}

static __always_inline void rules_recovered(struct sock *sk, const struct cubic_tunables *t)
{
#define CUBIC_X_RULE(ENUM, value, name, glue, ...) rule_##glue##_recovered(sk, t);
	CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
}

static __always_inline void rules_fill(struct sock *sk, const struct exit_info *x,
				       struct cubic_event *e)
{
#define CUBIC_X_RULE(ENUM, value, name, glue, ...) rule_##glue##_fill(sk, x, e);
	CUBIC_RULES(CUBIC_X_RULE)
#undef CUBIC_X_RULE
}

/*
 * HyStart of the flow's kind, with the detectors of detect, on one RTT sample,
 * and its record: a subprogram of its own, so that its frame (the ACK and the
 * record) is not on the stack of the rules' calls beside it.
 */
static __noinline void hystart_step(struct sock *sk, const struct cubic_tunables *t, __u32 delay,
				    __u32 detect)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	__u32 kind = cubic_hystart_kind(cubic_tun_hystart(t));
	struct exit_info x;
	struct cubic_ack a;
	__u8 fired;

	fill_ack(sk, &a, tp->snd_cwnd, tp->snd_ssthresh);
	__builtin_memset(&x, 0, sizeof(x));
	fired = cubic_hystart_ack_with(s, t, kind, &a, delay, &x.v, detect);
	if (!fired)
		return;

	/* HyStart fired, or HyStart++ left CSS: slow start is over */
	if (fired & CUBIC_EV_ENDS_SLOW_START) {
		tp->snd_ssthresh = a.cwnd;
		rules_forget(sk, t, false);
	}
	x.flags = fired;
	x.ssthresh_before = a.ssthresh;
	x.ssthresh = tp->snd_ssthresh;
	x.rtt_us = delay;
	emit_exit(sk, &x);
	count_exit(fired, a.cwnd);
}

/*
 * cubictcp_acked(): delay_min on every ACK; in slow start, the flow's rule,
 * and HyStart of the kind it asks for. acked: the packets this ACK delivered.
 */
static __noinline void rtt_sample(struct sock *sk, __s32 rtt_us, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t;
	__u32 delay;
	int detect;

	delay = cubic_rtt_sample(s, rtt_us, tcp_jiffies32(), CONFIG_HZ);
	/* Most ACKs end here: once slow start is over only delay_min is kept. */
	if (tp->snd_cwnd >= tp->snd_ssthresh)
		return;
	t = get_tunables();
	detect = rule_on_ack(sk, t, rtt_us, delay, acked);
	if (detect < 0 || !delay || !cubic_hystart_pending(s, tp->snd_cwnd, tp->snd_ssthresh))
		return;
	hystart_step(sk, t, delay, (__u32)detect);
}

static __always_inline void init(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t = get_tunables();
	bool first = !(s->flags & CUBIC_SF_INIT);
	__u32 ssthresh;

	ssthresh = cubic_init(s, t, tp->tcp_mstamp, tp->snd_nxt);
	rule_init(sk, t);
	s->seen_state = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	s->reduction_seq = tp->high_seq;
	if (ssthresh)
		tp->snd_ssthresh = ssthresh;
	if (first)
		count(CUBIC_CNT_FLOW_INIT, 1);
}

SEC("struct_ops/bc_init")
void BPF_PROG(bc_init, struct sock *sk)
{
	init(sk);
}

SEC("struct_ops/bc_release")
void BPF_PROG(bc_release, struct sock *sk)
{
	struct cubic_state *s = ca_state(sk);

	if (s->verdict == VERDICT_ON)
		verdict_close(sk);
	rule_predict_release(sk);
	/* release also runs for sockets closed before init ever ran */
	if (s->flags & CUBIC_SF_INIT) {
		s->flags &= ~CUBIC_SF_INIT;
		count(CUBIC_CNT_FLOW_RELEASE, 1);
	}
}

/* cubictcp_cong_avoid() */
static __noinline void cong_avoid(struct sock *sk, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct cubic_win w;

	/* a rule set cwnd on this ACK (SEARCH's drain): no growth */
	if (s->flags & CUBIC_SF_HOLD) {
		s->flags &= ~CUBIC_SF_HOLD;
		return;
	}
	if (!tcp_is_cwnd_limited(tp))
		return;

	w.cwnd = tp->snd_cwnd;
	w.cwnd_cnt = tp->snd_cwnd_cnt;
	w.ssthresh = tp->snd_ssthresh;
	w.clamp = tp->snd_cwnd_clamp;
	cubic_cong_avoid(ca_state(sk), get_tunables(), &w, acked, tcp_jiffies32(), CONFIG_HZ,
			 sk->sk_pacing_status != SK_PACING_NONE);
	tp->snd_cwnd = w.cwnd;
	tp->snd_cwnd_cnt = w.cwnd_cnt;
	rules_exit_check(sk, &w);
}

SEC("struct_ops/bc_cong_avoid")
void BPF_PROG(bc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cong_avoid(sk, acked);
}

SEC("struct_ops/bc_recalc_ssthresh")
__u32 BPF_PROG(bc_recalc_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t = get_tunables();
	__u32 cwnd = tp->snd_cwnd, before = tp->snd_ssthresh, ssthresh;
	int ss_exit = cubic_loss_ends_slow_start(s, cwnd, before);

	/* tcp_init_cwnd_reduction() zeroes tp->prr_delivered and then calls us */
	s->prr_delivered = 0;
	/* for the fast datapath's RTT sample of this ACK, which comes after us */
	s->reduction_us = (__u32)tp->tcp_mstamp;
	s->reduction_seq = tp->snd_nxt;
	s->pre_hspp_phase = s->hspp_phase;
	s->flags &= ~(CUBIC_SF_PRE_SS | CUBIC_SF_UNDO_TO_CWND | CUBIC_SF_FRESH_EPOCH);
	if (ss_exit)
		s->flags |= CUBIC_SF_PRE_SS;
	/* cubictcp_acked() drops samples for a second after an epoch starts */
	if (s->epoch_start && (__s32)(tcp_jiffies32() - s->epoch_start) < (__s32)CONFIG_HZ)
		s->flags |= CUBIC_SF_FRESH_EPOCH;
	ssthresh = cubic_recalc_ssthresh(s, t, cwnd);
	/* a congestion event ends an exit's measurement a round later (before a loss exit's starts) */
	if (s->verdict == VERDICT_ON)
		verdict_congestion(sk, cwnd);
	ssthresh = rules_reduction(sk, t, cwnd, ssthresh, ss_exit);
	if (ss_exit) {
		struct exit_info x = { .flags = CUBIC_EV_LOSS, .ssthresh_before = before,
				       .ssthresh = ssthresh };

		emit_exit(sk, &x);
		count_exit(CUBIC_EV_LOSS, cwnd);
	}
	slow_start_forget(sk, t);
	return ssthresh;
}

#include "guard.bpf.h"

/*
 * cubictcp_state(), after the guard. The kernel calls .ssthresh right before
 * the moves of tcp_core_reduction_begins(), on the same tcp clock; if that
 * call alone did not reach bc_recalc_ssthresh, its result is not ours and is
 * redone here, before PRR or the loss window use it.
 */
static __always_inline void set_state(struct sock *sk, __u8 new_state, bool fast)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	__u8 old = ((struct inet_connection_sock *)sk)->icsk_ca_state;

	check_window(sk, fast, tcp_core_undoing(old, new_state, tp->undo_marker));
	if (tcp_core_reduction_begins(old, new_state, tp->prior_ssthresh) &&
	    s->reduction_us != (__u32)tp->tcp_mstamp) {
		redo_ssthresh(sk);
		s->reduction_us = (__u32)tp->tcp_mstamp;
	}
	/* the kernel's cwnd = ssthresh at a recovery's end (or the fast datapath's, before us) */
	if (old == TCP_CA_Recovery && tcp_core_end_reduction(old, new_state, tp->undo_marker,
							      tp->snd_ssthresh))
		rules_recovered(sk, get_tunables());
	s->seen_state = new_state;
	if (new_state == TCP_CA_Loss) {
		cubic_on_loss_state(s, (__u32)tp->tcp_mstamp, tp->snd_nxt);
		slow_start_forget(sk, get_tunables());
	}
}

SEC("struct_ops/bc_set_state")
void BPF_PROG(bc_set_state, struct sock *sk, __u8 new_state)
{
	set_state(sk, new_state, false);
}

/* cubictcp_cwnd_event(), and HyStart++ after an idle restart */
static __always_inline void cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	const struct cubic_tunables *t;

	if (event == CA_EVENT_TX_START) {
		cubic_on_tx_start(ca_state(sk), tcp_jiffies32(), tp->lsndtime);
	} else if (event == CA_EVENT_CWND_RESTART) {
		t = get_tunables();
		cubic_on_cwnd_restart(ca_state(sk), t, (__u32)tp->tcp_mstamp, tp->snd_nxt);
		slow_start_forget(sk, t);
	}
}

SEC("struct_ops/bc_cwnd_event")
void BPF_PROG(bc_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cwnd_event(sk, event);
}

SEC("struct_ops/bc_pkts_acked")
void BPF_PROG(bc_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	/* every ACK that acks or SACKs data, before the kernel's PRR uses them */
	check_window(sk, false, false);
	rtt_sample(sk, sample->rtt_us, sample->pkts_acked);
	verdict_ack_exact(sk, sample->rtt_us);
}

SEC("struct_ops/bc_undo_cwnd")
__u32 BPF_PROG(bc_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	/* tcp_reno_undo_cwnd() */
	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

#include "fast.bpf.h"

/* The names are placeholders: cubicctl patches them to the instance name. */
SEC(".struct_ops")
struct tcp_congestion_ops cubic_ops = {
	.init = (void *)bc_init,
	.release = (void *)bc_release,
	.ssthresh = (void *)bc_recalc_ssthresh,
	.cong_avoid = (void *)bc_cong_avoid,
	.set_state = (void *)bc_set_state,
	.undo_cwnd = (void *)bc_undo_cwnd,
	.cwnd_event = (void *)bc_cwnd_event,
	.pkts_acked = (void *)bc_pkts_acked,
	.name = CUBIC_DEFAULT_NAME,
};

SEC(".struct_ops")
struct tcp_congestion_ops cubic_ops_fast = {
	.init = (void *)bc_init_fast,
	.release = (void *)bc_release,
	.ssthresh = (void *)bc_recalc_ssthresh,
	.cong_control = (void *)bc_cong_control,
	.set_state = (void *)bc_set_state_fast,
	.undo_cwnd = (void *)bc_undo_cwnd,
	.cwnd_event = (void *)bc_cwnd_event_fast,
	.name = CUBIC_DEFAULT_NAME,
};

/* The fast datapath before Linux 6.10: the same but .init and .cong_control. */
SEC(".struct_ops")
struct tcp_congestion_ops cubic_ops_fast2 = {
	.init = (void *)bc_init_fast2,
	.release = (void *)bc_release,
	.ssthresh = (void *)bc_recalc_ssthresh,
	.cong_control = (void *)bc_cong_ctl2,
	.set_state = (void *)bc_set_state_fast,
	.undo_cwnd = (void *)bc_undo_cwnd,
	.cwnd_event = (void *)bc_cwnd_event_fast,
	.name = CUBIC_DEFAULT_NAME,
};

/*
 * CUBIC_OPS_MAPS (include/cubic_abi.h) names each struct_ops map above and
 * the programs not every map uses; cubicctl loads by those names, so each
 * must be defined here (a misspelt one fails to compile).
 */
#define CUBIC_X_OM_CHECK(ID, ops, args, ...)                                                       \
	_Static_assert(sizeof((const void *[]){ &ops, __VA_ARGS__ }) > 0, "ops map " #ops);
CUBIC_OPS_MAPS(CUBIC_X_OM_CHECK)
#undef CUBIC_X_OM_CHECK
