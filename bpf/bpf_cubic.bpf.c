// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_cubic: CUBIC with HyStart as a struct_ops tcp_congestion_ops.
 *
 * Thin glue only: read the socket fields the algorithm needs (CO-RE), call the
 * pure core in include/cubic_core.h, write cwnd/ssthresh back, bump counters.
 * The core's top comment lists every departure from net/ipv4/tcp_cubic.c.
 *
 * Tunables are read from the tunables map on every callback and clamped there
 * (cubic_tun_*), so cubicctl or root with bpftool can change them live.
 *
 * Three struct_ops maps share the programs; cubicctl registers one of them
 * (CUBIC_OPS_MAPS in include/cubic_abi.h lists them):
 *  - cubic_ops (datapath "exact", the default): .pkts_acked + .cong_avoid, the
 *    kernel's own structure, so the kernel does PRR, pacing and idle restart
 *    as for its cubic. Two trips through the BPF trampoline per ACK.
 *  - cubic_ops_fast (datapath "fast"): .cong_control, one trip per ACK; the
 *    program does what tcp_cong_control() would (include/tcp_ack_core.h).
 *  - cubic_ops_fast2 (datapath "fast" before Linux 6.10, whose .cong_control
 *    is (sk, rs)): the same with tcp_ack()'s flag derived (bc_cong_ctl2).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "cubic_core.h"
#include "search_core.h"
#include "predict_core.h"
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

/*
 * One record per slow-start exit: only ever called at an exit, never per ACK.
 * A full ring is counted, not hidden.
 */
/* What decided a SEARCH exit (the record's search_* fields). */
struct search_rec {
	__u32 delivered, sent, norm_diff, thresh; /* at the detection */
	__u32 bins, bins_back, bin_us, initial_rtt_us;
	__u32 cwnd_detect, target, drain_us, resets;
};

struct exit_info {
	__u32 flags;	       /* CUBIC_EV_* reasons */
	__u32 ssthresh_before; /* ssthresh before this exit */
	__u32 ssthresh;	       /* ssthresh set by it */
	__u32 rtt_us;	       /* the RTT sample that decided it, 0 for a loss */
	struct hystart_verdict v;
	struct search_rec sr;
};

/*
 * PREDICT (hystart=predict): include/predict_core.h measures and decides;
 * its state (the round's train) lives in socket storage, created at .init
 * while hystart=predict and freed with the socket. A flow without it runs
 * Linux HyStart instead (CUBIC_EV_PREDICT_NO_STORAGE, counter
 * predict_no_storage). Every record of a flow that ran PREDICT carries its
 * estimate (CUBIC_EV_PREDICT_RAN), whichever rule ended the slow start.
 */
struct predict_store {
	struct predict_state st;
	__u64 set_us; /* tcp clock when the target was set */
	__u64 user_max; /* sk_max_pacing_rate before PREDICT capped it */
	__u8 capped;  /* the fill's cap is on (SO_MAX_PACING_RATE) */
	__u8 cap_applied; /* it was set (the record's predict_capped) */
	__u8 paced;   /* PREDICT turned the kernel's pacing on */
	__u8 after;   /* the first slow start is over by a reduction or a restart */
	__u8 fill_at_reduction; /* the last reduction began during the fill */
	__u8 pad[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct predict_store);
} predict_store SEC(".maps");

/*
 * Whether this object's programs run PREDICT: cubicctl clears it for
 * cubic_ops_fast2 (before Linux 6.10), whose .cong_control program with
 * PREDICT's paths in it is more than 6.1's verifier will take (1M
 * instructions); cubicctl refuses hystart=predict there, and the verifier
 * prunes every PREDICT branch. hystart=predict written to such an instance
 * behind cubicctl's back runs Linux HyStart.
 */
const volatile bool predict_ok = true;

/* the predict_* fields of a record of a flow that did not run PREDICT */
static const struct predict_verdict predict_none = {};

static __always_inline struct predict_store *predict_get(struct sock *sk, __u64 flags)
{
	return bpf_sk_storage_get(&predict_store, sk, NULL, flags);
}

static __noinline void emit_exit(struct sock *sk, const struct exit_info *x)
{
	__u32 flags = x->flags;
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct sock_common *c = &sk->__sk_common;
	const struct predict_verdict *pr = &predict_none;
	struct predict_store *ps;
	struct cubic_event *e;
	__u32 pr_fill_us = 0;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(CUBIC_CNT_EVENT_DROPS, 1);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		flags |= CUBIC_EV_CWND_LIMITED;
	if ((__u64)tp->snd_wnd < (__u64)tp->snd_cwnd * tp->mss_cache)
		flags |= CUBIC_EV_RWND_LIMITED;
	if (sk->sk_pacing_status != SK_PACING_NONE)
		flags |= CUBIC_EV_PACED;
	ps = predict_ok ? predict_get(sk, 0) : NULL;
	/* the first slow start: ssthresh unset, or PREDICT's target */
	if (x->ssthresh_before >= TCP_CORE_INFINITE_SSTHRESH ||
	    (ps && !ps->after && ps->set_us && x->ssthresh_before == ps->st.v.target))
		flags |= CUBIC_EV_INITIAL;
	if (s->flags & CUBIC_SF_SEARCH_FALLBACK)
		flags |= CUBIC_EV_SEARCH_NO_STORAGE;
	if (s->flags & CUBIC_SF_PREDICT_FALLBACK)
		flags |= CUBIC_EV_PREDICT_NO_STORAGE;
	if (ps) {
		flags |= CUBIC_EV_PREDICT_RAN;
		pr = &ps->st.v;
		if (ps->paced)
			flags |= CUBIC_EV_PREDICT_PACED;
		if (ps->cap_applied)
			flags |= CUBIC_EV_PREDICT_CAPPED;
		if (ps->set_us)
			pr_fill_us = (__u32)(tp->tcp_mstamp - ps->set_us);
	}
	/* every number field from its "src" column; the addresses and name below */
#define CUBIC_X_FILL(name, show, src) e->name = (src);
	CUBIC_EVENT_FIELDS(CUBIC_X_FILL, CUBIC_X_FILL, CUBIC_X_FILL, CUBIC_X_FILL, CUBIC_EV_SKIP,
			   CUBIC_EV_SKIP, CUBIC_EV_SKIP)
#undef CUBIC_X_FILL
	if (c->skc_family == AF_INET6) {
		for (int i = 0; i < 4; i++) {
			((__u32 *)e->saddr)[i] = c->skc_v6_rcv_saddr.in6_u.u6_addr32[i];
			((__u32 *)e->daddr)[i] = c->skc_v6_daddr.in6_u.u6_addr32[i];
		}
	} else {
		*(__u32 *)e->saddr = c->skc_rcv_saddr;
		*(__u32 *)e->daddr = c->skc_daddr;
	}
	for (int i = 0; i < CUBIC_NAME_MAX; i++)
		e->instance[i] = instance_name[i];

	bpf_ringbuf_submit(e, 0);
	count(CUBIC_CNT_EVENTS, 1);
}

/*
 * SEARCH (hystart=search): include/search_core.h decides; its state (352
 * bytes of bins) does not fit icsk_ca_priv, so it lives in socket storage,
 * created at .init while hystart=search and freed by the kernel with the
 * socket. A flow without it (created while another mode was set, or the
 * allocation failed) runs Linux HyStart instead, and each of its records has
 * CUBIC_EV_SEARCH_NO_STORAGE; the counter search_no_storage counts such flows.
 */
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

/* .init: a flow of hystart=search gets its storage now (zero: SEARCH_PH_OFF). */
static __always_inline void search_init_flow(struct sock *sk, const struct cubic_tunables *t)
{
	struct search_store *ss;

	if (cubic_tun_hystart(t) != CUBIC_HYSTART_SEARCH)
		return;
	ss = search_get(sk, BPF_SK_STORAGE_GET_F_CREATE);
	if (ss) {
		search_reset(&ss->st);
		ss->st.resets = 0;
	}
}

/*
 * SEARCH starts over at the next slow start: a reduction (.ssthresh), the
 * Loss state, a restart after idle. Rare events, so whatever the mode (it
 * may have been changed live).
 */
static __noinline void search_forget(struct sock *sk)
{
	struct search_store *ss = search_get(sk, 0);

	ca_state(sk)->flags &= ~CUBIC_SF_HOLD;
	if (ss)
		search_reset(&ss->st);
}

static __noinline void predict_done(struct sock *sk, bool after);

/* A reduction, the Loss state, a restart after idle: SEARCH starts over, PREDICT is done. */
static __always_inline void slow_start_forget(struct sock *sk)
{
	search_forget(sk);
	if (predict_ok)
		predict_done(sk, true);
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
	x.sr.delivered = ss->det.curr_delv;
	x.sr.sent = ss->det.prev_sent;
	x.sr.norm_diff = ss->det.norm_diff;
	x.sr.thresh = ss->thresh;
	x.sr.bins = ss->st.bins;
	x.sr.bins_back = ss->det.bins_back;
	x.sr.bin_us = ss->st.bin_duration_us;
	x.sr.initial_rtt_us = ss->st.initial_rtt_us;
	x.sr.cwnd_detect = ss->det.cwnd_before;
	x.sr.target = ss->det.target_cwnd;
	x.sr.drain_us = (__u32)(a.now_us - ss->detect_us);
	x.sr.resets = ss->st.resets;
	emit_exit(sk, &x);
	count_exit(CUBIC_EV_SEARCH, v.cwnd_after);
	return 0;
}

_Static_assert(CUBIC_MAX_predict_skip == PREDICT_MAX_SKIP &&
		       CUBIC_MIN_predict_min_train_us == PREDICT_MIN_MIN_TRAIN &&
		       CUBIC_MAX_predict_min_train_us == PREDICT_MAX_MIN_TRAIN &&
		       CUBIC_MAX_predict_tolerance == PREDICT_MAX_TOLERANCE &&
		       CUBIC_MAX_predict_margin == PREDICT_MAX_MARGIN &&
		       CUBIC_MAX_predict_rounds == PREDICT_MAX_ROUNDS &&
		       CUBIC_DEF_predict_skip == PREDICT_DEF_SKIP &&
		       CUBIC_DEF_predict_min_train_us == PREDICT_DEF_MIN_TRAIN &&
		       CUBIC_DEF_predict_tolerance == PREDICT_DEF_TOLERANCE &&
		       CUBIC_DEF_predict_margin == PREDICT_DEF_MARGIN &&
		       CUBIC_DEF_predict_rounds == PREDICT_DEF_ROUNDS &&
		       CUBIC_DEF_hystart_ack_delta_us == PREDICT_DEF_GAP,
	       "the PREDICT tunables' limits and defaults are the core's");

/* .init: a flow of hystart=predict gets its storage now (zero: about to measure). */
static __always_inline void predict_init_flow(struct sock *sk, const struct cubic_tunables *t)
{
	struct predict_store *ps;

	if (!predict_ok || cubic_tun_hystart(t) != CUBIC_HYSTART_PREDICT)
		return;
	ps = predict_get(sk, BPF_SK_STORAGE_GET_F_CREATE);
	if (ps)
		__builtin_memset(ps, 0, sizeof(*ps));
}

/*
 * PREDICT is over for this flow: another rule ended its slow start, a
 * reduction began, or it restarted after idle. It predicts only the first
 * slow start (ssthresh unset); its estimate stays for the records.
 */
#define SOL_SOCKET	   1  /* include/uapi/asm-generic/socket.h */
#define SO_MAX_PACING_RATE 47

/*
 * The fill's pacing cap: SO_MAX_PACING_RATE (bpf_setsockopt(), which also
 * turns the kernel's pacing on), never above what the socket's owner set;
 * predict_uncap() gives the owner's value back.
 */
/*
 * bpf_setsockopt() takes an int-sized SO_MAX_PACING_RATE (sol_socket_sockopt()):
 * bytes/s below 2^32 - 1, ~0U being "no limit". A cap the owner set above
 * that comes back as no limit.
 */
static __always_inline void predict_cap_rate(struct sock *sk, struct predict_store *ps, __u64 rate)
{
	__u32 r;

	if (!ps->capped)
		ps->user_max = sk->sk_max_pacing_rate;
	if (!rate || rate >= ps->user_max || rate >= 0xffffffffULL)
		return;
	r = (__u32)rate;
	if (!bpf_setsockopt(sk, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r))) {
		ps->capped = 1;
		ps->cap_applied = 1;
	}
}

static __always_inline void predict_uncap(struct sock *sk, struct predict_store *ps)
{
	__u32 r = ps->user_max >= 0xffffffffULL ? ~0U : (__u32)ps->user_max;

	if (!ps->capped)
		return;
	bpf_setsockopt(sk, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r));
	ps->capped = 0;
}

/* Without a target, the flow goes on as Linux sends it: unpaced again. */
static __always_inline void predict_unpace(struct sock *sk, struct predict_store *ps)
{
	if (ps->paced && !ps->st.v.target) {
		sk->sk_pacing_status = SK_PACING_NONE;
		ps->paced = 0;
	}
}

static __noinline void predict_done(struct sock *sk, bool after)
{
	struct predict_store *ps;

	ca_state(sk)->flags &= ~CUBIC_SF_PREDICT_FILL;
	ps = predict_get(sk, 0);
	if (ps) {
		predict_uncap(sk, ps);
		predict_unpace(sk, ps);
		if (after) {
			ps->fill_at_reduction = ps->st.phase == PREDICT_PH_FILL;
			ps->after = 1;
		}
		ps->st.phase = PREDICT_PH_DONE;
	}
}

/* PREDICT ended slow start (ssthresh, cwnd set): its record and count. */
static __noinline void predict_exit(struct sock *sk, __u32 before)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct exit_info x;

	ca_state(sk)->found |= CUBIC_EV_PREDICT;
	__builtin_memset(&x, 0, sizeof(x));
	x.flags = CUBIC_EV_PREDICT;
	x.ssthresh_before = before;
	x.ssthresh = tp->snd_ssthresh;
	emit_exit(sk, &x);
	count_exit(CUBIC_EV_PREDICT, tp->snd_cwnd);
}

/* cong_avoid() took cwnd to the fill's target: PREDICT's exit. */
static __noinline void predict_reached(struct sock *sk)
{
	predict_done(sk, false);
	predict_exit(sk, ((struct tcp_sock *)sk)->snd_ssthresh);
}

/*
 * hystart=predict, one ACK in slow start (cwnd < ssthresh), every one, with
 * an RTT sample or not: the train needs them all. Acts only in Open or
 * Disorder and while ssthresh is unset. Returns the HyStart detectors that
 * run on this ACK (Linux HyStart: all of hystart_detect while measuring,
 * the delay test alone during the fill), or -1 when PREDICT ended slow start.
 */
static __noinline int predict_ack(struct sock *sk, const struct cubic_tunables *t, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	struct predict_store *ps = predict_get(sk, 0);
	struct predict_verdict *v;
	struct predict_params p;
	struct predict_ack a;
	__u32 before;
	__u8 act;

	if (!ps) {
		if (!(s->flags & CUBIC_SF_PREDICT_FALLBACK)) {
			s->flags |= CUBIC_SF_PREDICT_FALLBACK;
			count(CUBIC_CNT_PREDICT_NO_STORAGE, 1);
		}
		return CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY;
	}
	if (ps->st.phase == PREDICT_PH_FILL)
		return CUBIC_HYSTART_DELAY;
	if (ps->st.phase != PREDICT_PH_MEASURE || tp->snd_ssthresh < TCP_CORE_INFINITE_SSTHRESH ||
	    (st != TCP_CA_Open && st != TCP_CA_Disorder))
		return CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY;

	p.skip = cubic_tun_predict_skip(t);
	p.min_train_us = cubic_tun_predict_min_train_us(t);
	p.tolerance = cubic_tun_predict_tolerance(t);
	p.margin = cubic_tun_predict_margin(t);
	p.rounds = cubic_tun_predict_rounds(t);
	p.gap_us = cubic_tun_hystart_ack_delta_us(t);
	p.pace = cubic_tun_predict_pace(t);
	predict_params_clamp(&p);
	a.now_us = (__u32)tp->tcp_mstamp;
	a.snd_una = tp->snd_una;
	a.snd_nxt = tp->snd_nxt;
	a.acked = acked;
	a.cwnd = tp->snd_cwnd;
	a.inflight = packets_in_flight(tp);
	a.mss = tp->mss_cache;
	a.delay_min = s->delay_min;
	a.paced = sk->sk_pacing_status != SK_PACING_NONE && !ps->paced;
	v = &ps->st.v; /* predict_on_ack() keeps the estimate there */
	act = predict_on_ack(&ps->st, &p, &a, v);
	if (act == PREDICT_ACT_PACE) {
		/*
		 * The measured round's data left unpaced (its ACKs are the
		 * bottleneck's); what they release from now on is paced, by the
		 * kernel's own pacing (tcp_update_pacing_rate()'s rate).
		 */
		if (sk->sk_pacing_status == SK_PACING_NONE) {
			sk->sk_pacing_status = SK_PACING_NEEDED;
			ps->paced = 1;
		}
		return CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY;
	}
	if (act == PREDICT_ACT_TARGET) {
		/* the fill: slow start up to the target, at most at the estimated rate */
		tp->snd_ssthresh = v->target;
		ps->set_us = tp->tcp_mstamp;
		s->flags |= CUBIC_SF_PREDICT_FILL;
		if (cubic_tun_predict_cap(t))
			predict_cap_rate(sk, ps, v->rate * cubic_tun_predict_cap(t) / 1000);
		return CUBIC_HYSTART_DELAY;
	}
	if (act == PREDICT_ACT_GIVE_UP)
		predict_unpace(sk, ps); /* no estimate: Linux HyStart decides */
	if (act != PREDICT_ACT_EXIT)
		return CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY;

	/* already past the target: cwnd = ssthresh = target, slow start is over */
	ps->set_us = tp->tcp_mstamp;
	before = tp->snd_ssthresh;
	tp->snd_cwnd = v->target;
	tp->snd_ssthresh = v->target;
	predict_exit(sk, before);
	return -1;
}

/*
 * The detectors Linux HyStart ran for a hystart=predict flow on the ACK that
 * began a reduction, before .ssthresh ended PREDICT (see predict_ack()).
 */
static __always_inline __u32 predict_detect_before_reduction(struct sock *sk)
{
	struct predict_store *ps = predict_get(sk, 0);

	if (ps && ps->fill_at_reduction)
		return CUBIC_HYSTART_DELAY;
	return CUBIC_HYSTART_ACK_TRAIN | CUBIC_HYSTART_DELAY;
}

static __always_inline void init(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t = get_tunables();
	bool first = !(s->flags & CUBIC_SF_INIT);
	__u32 ssthresh;

	ssthresh = cubic_init(s, t, tp->tcp_mstamp, tp->snd_nxt);
	search_init_flow(sk, t);
	predict_init_flow(sk, t);
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

	/* SEARCH drained cwnd on this ACK: no growth */
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
	if (predict_ok && (s->flags & CUBIC_SF_PREDICT_FILL) && w.cwnd >= w.ssthresh)
		predict_reached(sk);
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
	ssthresh = cubic_recalc_ssthresh(s, get_tunables(), cwnd);
	if (ss_exit) {
		struct exit_info x = { .flags = CUBIC_EV_LOSS, .ssthresh_before = before,
				       .ssthresh = ssthresh };

		emit_exit(sk, &x);
		count_exit(CUBIC_EV_LOSS, cwnd);
	}
	slow_start_forget(sk);
	return ssthresh;
}

/*
 * The guard against impossible windows (docs/IMPOSSIBLE_WINDOWS.md). A
 * kernel can skip every BPF callback of one softirq (this project's VM
 * platform does so in the context of its PID 1); the struct_ops trampoline
 * then hands .ssthresh's and .undo_cwnd's callers a stale stack slot. The
 * first callback that runs again repairs what the skipped ones left: the
 * ca_state moves it never saw (tcp_core_missed_move()), and ssthresh above
 * TCP_INFINITE_SSTHRESH or cwnd above 2^31, which no congestion control
 * sets. Each repair is counted (status: "repaired"); none changes a flow
 * whose callbacks all ran.
 */
/* What the skipped .ssthresh would have done; the kernel set prior_cwnd right before it. */
static __always_inline void redo_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);

	if (!tp->prior_cwnd)
		return;
	tp->snd_ssthresh = cubic_recalc_ssthresh(s, get_tunables(), tp->prior_cwnd);
	slow_start_forget(sk);
	s->prr_delivered = 0;
	s->reduction_seq = tp->high_seq;
	s->flags &= ~(CUBIC_SF_PRE_SS | CUBIC_SF_UNDO_TO_CWND | CUBIC_SF_FRESH_EPOCH);
	count(CUBIC_CNT_REPAIRED, 1);
}

static __noinline void repair_window(struct sock *sk, bool fast, bool undoing)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t = get_tunables();
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	__u32 prior = tp->prior_cwnd;

	switch (tcp_core_missed_move(s->seen_state, st, tp->undo_marker, tp->prior_ssthresh,
				     tp->snd_ssthresh)) {
	case TCP_CORE_MISSED_SSTHRESH:
		redo_ssthresh(sk);
		if (st == TCP_CA_Loss)
			cubic_on_loss_state(s, (__u32)tp->tcp_mstamp, tp->snd_nxt);
		break;
	case TCP_CORE_MISSED_UNDO:
		/* tcp_reno_undo_cwnd() of the cwnd PRR left, at most prior_cwnd */
		if (prior && tp->snd_cwnd != prior) {
			tp->snd_cwnd = prior;
			count(CUBIC_CNT_REPAIRED, 1);
		}
		break;
	case TCP_CORE_MISSED_END:
		/* the kernel resets cwnd itself unless the ops have .cong_control */
		if (fast && tp->snd_cwnd != tp->snd_ssthresh) {
			tp->snd_cwnd = tp->snd_ssthresh;
			count(CUBIC_CNT_REPAIRED, 1);
		}
		break;
	}
	s->seen_state = st;
	if (!undoing && !tcp_core_reduction_is_ours(st, tp->high_seq, s->reduction_seq,
						    tp->snd_ssthresh, prior))
		redo_ssthresh(sk);

	if (tp->snd_ssthresh > TCP_CORE_INFINITE_SSTHRESH) {
		tp->snd_ssthresh = st != TCP_CA_Open && st != TCP_CA_Disorder && prior
					   ? cubic_ssthresh_of(t, prior)
					   : TCP_CORE_INFINITE_SSTHRESH;
		count(CUBIC_CNT_REPAIRED, 1);
	}
	if (tp->snd_cwnd > TCP_CORE_INFINITE_SSTHRESH) {
		tp->snd_cwnd = tp->snd_ssthresh < TCP_CORE_INFINITE_SSTHRESH ? tp->snd_ssthresh
			       : (prior > 2 ? prior : 2);
		count(CUBIC_CNT_REPAIRED, 1);
	}
}

/*
 * At the start of every callback that can see a skipped one's leftovers: a
 * few loads. undoing: .set_state of an undo's move out of CWR or Recovery,
 * whose restored ssthresh (prior_ssthresh) is not a reduction's.
 */
static __always_inline void check_window(struct sock *sk, bool fast, bool undoing)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u8 st = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	struct cubic_state *s = ca_state(sk);

	if (st != s->seen_state || tp->snd_ssthresh > TCP_CORE_INFINITE_SSTHRESH ||
	    tp->snd_cwnd > TCP_CORE_INFINITE_SSTHRESH ||
	    (!undoing && !tcp_core_reduction_is_ours(st, tp->high_seq, s->reduction_seq,
						     tp->snd_ssthresh, tp->prior_cwnd)))
		repair_window(sk, fast, undoing);
}

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
	s->seen_state = new_state;
	if (new_state == TCP_CA_Loss) {
		cubic_on_loss_state(s, (__u32)tp->tcp_mstamp, tp->snd_nxt);
		slow_start_forget(sk);
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

	if (event == CA_EVENT_TX_START)
		cubic_on_tx_start(ca_state(sk), tcp_jiffies32(), tp->lsndtime);
	else if (event == CA_EVENT_CWND_RESTART) {
		cubic_on_cwnd_restart(ca_state(sk), get_tunables(), (__u32)tp->tcp_mstamp,
				      tp->snd_nxt);
		slow_start_forget(sk);
	}
}

SEC("struct_ops/bc_cwnd_event")
void BPF_PROG(bc_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cwnd_event(sk, event);
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
 * cubictcp_acked(): delay_min, and HyStart while in slow start; acked: the
 * packets this ACK delivered (SEARCH's drain).
 */
/*
 * HyStart (of the given mode, with the detectors of detect) on one RTT
 * sample, and its record: a subprogram of its own, so that its frame (the
 * ACK and the record) is not on the stack of the rules' calls beside it.
 */
static __noinline void hystart_step(struct sock *sk, const struct cubic_tunables *t, __u32 mode,
				    __u32 delay, __u32 detect)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct exit_info x;
	struct cubic_ack a;
	__u8 fired;

	fill_ack(sk, &a, tp->snd_cwnd, tp->snd_ssthresh);
	__builtin_memset(&x, 0, sizeof(x));
	fired = cubic_hystart_ack_with(s, t, mode, &a, delay, &x.v, detect);
	if (!fired)
		return;

	/* HyStart fired, or HyStart++ left CSS: slow start is over */
	if (fired & CUBIC_EV_ENDS_SLOW_START) {
		tp->snd_ssthresh = a.cwnd;
		/* a PREDICT flow's HyStart (PREDICT passes fewer than all detectors or none) */
		if (predict_ok && cubic_tun_hystart(t) == CUBIC_HYSTART_PREDICT)
			predict_done(sk, false);
	}
	x.flags = fired;
	x.ssthresh_before = a.ssthresh;
	x.ssthresh = tp->snd_ssthresh;
	x.rtt_us = delay;
	emit_exit(sk, &x);
	count_exit(fired, a.cwnd);
}

static __noinline void rtt_sample(struct sock *sk, __s32 rtt_us, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	const struct cubic_tunables *t;
	__u32 delay, mode;
	int detect = -1; /* every detector of hystart_detect */

	delay = cubic_rtt_sample(s, rtt_us, tcp_jiffies32(), CONFIG_HZ);
	/* Most ACKs end here: once slow start is over only delay_min is kept. */
	if (tp->snd_cwnd >= tp->snd_ssthresh)
		return;
	t = get_tunables();
	mode = cubic_tun_hystart(t);
	/* SEARCH sees every ACK, with an RTT sample or not; 1: no storage */
	if (mode == CUBIC_HYSTART_SEARCH) {
		if (!search_ack(sk, t, rtt_us, delay, acked))
			return;
		mode = CUBIC_HYSTART_LINUX;
	}
	/* so does PREDICT; then Linux HyStart with the detectors it leaves */
	if (mode == CUBIC_HYSTART_PREDICT) {
		mode = CUBIC_HYSTART_LINUX;
		if (predict_ok) {
			detect = predict_ack(sk, t, acked);
			if (detect < 0)
				return;
		}
	}
	if (!delay || !cubic_hystart_pending(s, tp->snd_cwnd, tp->snd_ssthresh))
		return;
	hystart_step(sk, t, mode, delay, (__u32)detect);
}

SEC("struct_ops/bc_pkts_acked")
void BPF_PROG(bc_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	/* every ACK that acks or SACKs data, before the kernel's PRR uses them */
	check_window(sk, false, false);
	rtt_sample(sk, sample->rtt_us, sample->pkts_acked);
}

SEC("struct_ops/bc_undo_cwnd")
__u32 BPF_PROG(bc_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	/* tcp_reno_undo_cwnd() */
	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}


/*
 * The fast datapath: .cong_control replaces .pkts_acked + .cong_avoid, and
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
	__u32 delay, mode, detect = ~0U;
	__u8 fired;

	if (s->flags & CUBIC_SF_FRESH_EPOCH)
		return;
	delay = cubic_rtt_sample(s, rtt_us, tcp_jiffies32(), CONFIG_HZ);
	if (!delay || !(s->flags & CUBIC_SF_PRE_SS))
		return;
	t = get_tunables();
	mode = cubic_tun_hystart(t);
	/* SEARCH was reset by that .ssthresh; a flow without storage runs HyStart */
	if (mode == CUBIC_HYSTART_SEARCH)
		mode = s->flags & CUBIC_SF_SEARCH_FALLBACK ? CUBIC_HYSTART_LINUX : CUBIC_HYSTART_OFF;

	fill_ack(sk, &a, tp->prior_cwnd, TCP_CORE_INFINITE_SSTHRESH);
	__builtin_memset(&v, 0, sizeof(v));
	s->hspp_phase = s->pre_hspp_phase;
	/* PREDICT's HyStart: the detectors of its phase before that .ssthresh */
	if (mode == CUBIC_HYSTART_PREDICT) {
		if (predict_ok)
			detect = predict_detect_before_reduction(sk);
		mode = CUBIC_HYSTART_LINUX;
	}
	fired = cubic_hystart_ack_with(s, t, mode, &a, delay, &v, detect);
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
