/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hystart=search, SEARCH (include/search_core.h decides): its hooks (the
 * interface and their dispatch: "The rules" in bpf/bpf_cubic.bpf.c).
 *
 * Its state (352 bytes of bins) does not fit icsk_ca_priv, so it lives in
 * socket storage, created at .init while hystart=search and freed by the
 * kernel with the socket. A flow without it (created while another mode was
 * set, or the allocation failed) runs Linux HyStart instead, and each of its
 * records has CUBIC_EV_SEARCH_NO_STORAGE; the counter search_no_storage counts
 * such flows.
 */
#include "search_core.h"

_Static_assert(CUBIC_MIN_search_window == SEARCH_MIN_WINDOW &&
		       CUBIC_MAX_search_window == SEARCH_MAX_WINDOW &&
		       CUBIC_MAX_search_bins == SEARCH_MAX_BINS &&
		       CUBIC_MAX_search_bins + CUBIC_MAX_search_extra_bins <= SEARCH_SENT_RING - 1 &&
		       CUBIC_MAX_search_thresh == SEARCH_THRESH_SCALE &&
		       CUBIC_MAX_search_rollback == SEARCH_ROLLBACK_JUMP &&
		       CUBIC_MAX_search_missed == SEARCH_MAX_MISSED,
	       "the SEARCH tunables' limits are the core's");
_Static_assert(CUBIC_DEF_search_window == SEARCH_DEF_WINDOW &&
		       CUBIC_DEF_search_bins == SEARCH_DEF_BINS &&
		       CUBIC_DEF_search_extra_bins == SEARCH_DEF_EXTRA_BINS &&
		       CUBIC_DEF_search_thresh == SEARCH_DEF_THRESH &&
		       CUBIC_DEF_search_rollback == SEARCH_ROLLBACK_DRAIN &&
		       CUBIC_DEF_search_missed == SEARCH_DEF_MISSED,
	       "the SEARCH tunables' defaults are the core's (the draft's)");

struct search_store {
	struct search_state st;
	struct search_verdict det; /* the detection, for the record at the drain's end */
	__u64 detect_us;	   /* tcp clock at the detection */
	__u32 thresh;		   /* search_thresh then */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct search_store);
} search_store SEC(".maps");

static __always_inline struct search_store *search_get(struct sock *sk, __u64 flags)
{
	return bpf_sk_storage_get(&search_store, sk, NULL, flags);
}

static __always_inline void search_params_of(const struct cubic_tunables *t,
					     struct search_params *p)
{
	p->window = cubic_tun_search_window(t);
	p->bins = cubic_tun_search_bins(t);
	p->extra_bins = cubic_tun_search_extra_bins(t);
	p->thresh = cubic_tun_search_thresh(t);
	p->rollback = cubic_tun_search_rollback(t);
	p->missed = cubic_tun_search_missed(t);
	p->min_cwnd = SEARCH_DEF_MIN_CWND;
}

/*
 * SEARCH starts over at the next slow start: a reduction (.ssthresh), the
 * Loss state, a restart after idle.
 */
static __noinline void search_forget(struct sock *sk)
{
	struct search_store *ss = search_get(sk, 0);

	ca_state(sk)->flags &= ~CUBIC_SF_HOLD;
	if (ss)
		search_reset(&ss->st);
}

/*
 * hystart=search, one ACK in slow start (cwnd < ssthresh), before the
 * slow-start growth of this ACK (.pkts_acked, or early in .cong_control).
 * SEARCH's actions: HOLD sets cwnd (the drain) and skips this ACK's growth
 * (CUBIC_SF_HOLD, read by cong_avoid()); EXIT sets cwnd and ssthresh =
 * cwnd, and writes the record. It acts only in Open or Disorder: in a
 * reduction the kernel's PRR owns cwnd (and .ssthresh has reset SEARCH).
 * t: rtt_sample()'s tunables. Returns 0, or 1 when the flow has no storage
 * and HyStart must decide.
 */
static __noinline int search_ack(struct sock *sk, const struct cubic_tunables *t, __s32 rtt_us,
				 __u32 delay, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	struct search_store *ss = search_get(sk, 0);
	struct search_params p;
	struct search_verdict v;
	struct search_ack a;
	struct exit_info x;
	__u32 before;
	__u8 act;

	s->flags &= ~CUBIC_SF_HOLD;
	if (!ss) {
		if (!(s->flags & CUBIC_SF_SEARCH_FALLBACK)) {
			s->flags |= CUBIC_SF_SEARCH_FALLBACK;
			count(CUBIC_CNT_SEARCH_NO_STORAGE, 1);
		}
		return 1;
	}
	if (st != TCP_CA_Open && st != TCP_CA_Disorder)
		return 0;
	if (!search_wants_ack(&ss->st, tp->snd_cwnd, tp->snd_ssthresh))
		return 0;

	search_params_of(t, &p);
	a.now_us = tp->tcp_mstamp;
	a.delivered = tp->bytes_acked;
	a.sent = tp->bytes_sent;
	a.rtt_us = rtt_us > 0 ? (__u32)rtt_us : 0;
	a.cwnd = tp->snd_cwnd;
	a.inflight = packets_in_flight(tp);
	a.acked = acked;
	a.mss = tp->mss_cache;
	act = search_on_ack(&ss->st, &p, &a, &v);
	if (act == SEARCH_ACT_NONE)
		return 0;
	if (v.reason == SEARCH_R_EXIT) {
		ss->det = v;
		ss->detect_us = a.now_us;
		ss->thresh = p.thresh;
	}
	tp->snd_cwnd = v.cwnd_after;
	if (act == SEARCH_ACT_HOLD) {
		s->flags |= CUBIC_SF_HOLD;
		return 0;
	}

	/* SEARCH_ACT_EXIT: slow start is over */
	before = tp->snd_ssthresh;
	tp->snd_ssthresh = v.cwnd_after;
	s->found |= CUBIC_EV_SEARCH;
	__builtin_memset(&x, 0, sizeof(x));
	x.flags = CUBIC_EV_SEARCH;
	x.ssthresh_before = before;
	x.ssthresh = v.cwnd_after;
	x.rtt_us = delay;
	emit_exit(sk, &x);
	count_exit(CUBIC_EV_SEARCH, v.cwnd_after);
	return 0;
}

/* .init: the flow gets its storage now (zero: SEARCH_PH_OFF). */
static __always_inline void rule_search_init(struct sock *sk, const struct cubic_tunables *t)
{
	struct search_store *ss = search_get(sk, BPF_SK_STORAGE_GET_F_CREATE);

	if (ss) {
		search_reset(&ss->st);
		ss->st.resets = 0;
	}
}

/* SEARCH sees every ACK of slow start, with an RTT sample or not. */
static __always_inline int rule_search_on_ack(struct sock *sk, const struct cubic_tunables *t,
					     __s32 rtt_us, __u32 delay, __u32 acked)
{
	/* 1: no storage, Linux HyStart decides */
	return search_ack(sk, t, rtt_us, delay, acked) ? RULE_HYSTART_ALL : RULE_NO_HYSTART;
}

/* That .ssthresh reset SEARCH; a flow without storage runs Linux HyStart. */
static __always_inline int rule_search_before_reduction(struct sock *sk,
						       const struct cubic_tunables *t)
{
	return ca_state(sk)->flags & CUBIC_SF_SEARCH_FALLBACK ? RULE_HYSTART_ALL : RULE_NO_HYSTART;
}

/* SEARCH's exit is search_ack()'s, on the ACK itself. */
static __always_inline void rule_search_exit_check(struct sock *sk, const struct cubic_win *w)
{
}

/* Only a reduction, the Loss state or a restart resets it, not HyStart's exit. */
static __always_inline void rule_search_forget(struct sock *sk, const struct cubic_tunables *t,
					      bool after)
{
	if (after)
		search_forget(sk);
}

/* What decided a SEARCH exit (the record's search_* fields), from its storage. */
RULE_NO_REDUCTION(search)

static __always_inline void rule_search_fill(struct sock *sk, const struct exit_info *x,
					   struct cubic_event *e)
{
	struct search_store *ss;

	if (ca_state(sk)->flags & CUBIC_SF_SEARCH_FALLBACK)
		e->flags |= CUBIC_EV_SEARCH_NO_STORAGE;
	if (!(x->flags & CUBIC_EV_SEARCH))
		return;
	ss = search_get(sk, 0);
	if (!ss)
		return;
	e->search_delivered = ss->det.curr_delv;
	e->search_sent = ss->det.prev_sent;
	e->search_norm_diff = ss->det.norm_diff;
	e->search_thresh = ss->thresh;
	e->search_bins = ss->st.bins;
	e->search_bins_back = ss->det.bins_back;
	e->search_bin_us = ss->st.bin_duration_us;
	e->search_initial_rtt_us = ss->st.initial_rtt_us;
	e->search_cwnd_detect = ss->det.cwnd_before;
	e->search_target = ss->det.target_cwnd;
	e->search_drain_us = (__u32)(((struct tcp_sock *)sk)->tcp_mstamp - ss->detect_us);
	e->search_resets = ss->st.resets;
}
