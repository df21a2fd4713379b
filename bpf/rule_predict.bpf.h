/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hystart=predict, PREDICT (include/predict_core.h measures and decides): its
 * hooks (the interface and their dispatch: "The rules" in bpf/bpf_cubic.bpf.c).
 *
 * Its state (the round's train) lives in socket storage, created at .init
 * while hystart=predict and freed with the socket. A flow without it runs
 * Linux HyStart instead (CUBIC_EV_PREDICT_NO_STORAGE, counter
 * predict_no_storage). Every record of a flow that ran PREDICT carries its
 * estimate (CUBIC_EV_PREDICT_RAN), whichever rule ended the slow start.
 */
#include "stores.bpf.h" /* the predict_store map */

/*
 * Whether this object's programs run PREDICT: cubicctl clears it for
 * cubic_ops_fast2 (before Linux 6.10), whose .cong_control program with
 * PREDICT's paths in it is more than 6.1's verifier will take (1M
 * instructions); cubicctl refuses hystart=predict there, and the verifier
 * prunes every PREDICT branch. hystart=predict written to such an instance
 * behind cubicctl's back runs Linux HyStart.
 */
const volatile bool predict_ok = true;

static __always_inline struct predict_store *predict_get(struct sock *sk, __u64 flags)
{
	return bpf_sk_storage_get(&predict_store, sk, NULL, flags);
}

/*
 * The estimate PREDICT believed from a train (bytes/s), or 0: none, or a
 * target that came from a remembered policer. What a policer's collapse is
 * measured against (predict_polmem_worthy()).
 */
static __always_inline __u64 predict_believed(const struct predict_store *ps)
{
	return ps->st.v.target && !ps->polmem_rate ? ps->st.v.rate : 0;
}

/*
 * The policer remembered (predict_polmem_target(), include/predict_core.h):
 * per network namespace (its cookie: the eval's and the tests' paths are
 * namespaces that reuse one pair of addresses) and destination address
 * (struct polmem_key, include/cubic_stores.h: cubicctl policers reads it),
 * least recently used first out.
 */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PREDICT_POLMEM_ENTRIES);
	__type(key, struct polmem_key);
	__type(value, struct predict_polmem);
} policer_memory SEC(".maps");

static __always_inline void polmem_key_of(const struct sock *sk, struct polmem_key *k)
{
	const struct sock_common *c = &sk->__sk_common;

	__builtin_memset(k, 0, sizeof(*k));
	k->net_cookie = c->skc_net.net->net_cookie;
	k->family = c->skc_family;
	fill_addrs(c, NULL, k->daddr);
}

/*
 * The policer answer fired (predict_loss()): remember its rate for this
 * destination; again, the same flow's measure at its recovery's end
 * (predict_recovered(): the flows that met it stay as they were).
 */
static __noinline int polmem_store(struct sock *sk, __u64 rate, __u32 delay_min, bool again)
{
	struct predict_polmem m, *old;
	struct polmem_key k;

	polmem_key_of(sk, &k);
	__builtin_memset(&m, 0, sizeof(m));
	m.rate = rate;
	m.at_ns = bpf_ktime_get_ns();
	m.delay_min = delay_min;
	old = bpf_map_lookup_elem(&policer_memory, &k);
	if (!rate && old && old->rate)
		return 0; /* a measured rate stands; an unmeasured one says less */
	m.flows = old ? old->flows + !again : 1;
	return bpf_map_update_elem(&policer_memory, &k, &m, BPF_ANY) == 0;
}

/* A flow that took its target from the memory lost with a queue: forget it. */
static __noinline void polmem_forget(struct sock *sk)
{
	struct polmem_key k;

	polmem_key_of(sk, &k);
	bpf_map_delete_elem(&policer_memory, &k);
}

/*
 * PREDICT believed an estimate (ps->st.v, with its target; estimate: its rate), or
 * gave up (estimate 0, v->target 0): a policer remembered for this
 * destination sets the target to the policed rate's BDP when that is lower
 * (the jump is then not made); returns the remembered rate that did (0: none).
 * One remembered without a rate holds the jump back (predict_polmem_no_jump();
 * ps->polmem_no_jump).
 */
static __noinline __u64 polmem_recall(struct sock *sk, struct predict_store *ps, __u64 estimate,
				      __u32 delay_min, const struct cubic_tunables *t)
{
	__u32 mss = ((struct tcp_sock *)sk)->mss_cache;
	struct predict_verdict *v = &ps->st.v;
	__u64 now = bpf_ktime_get_ns();
	struct predict_polmem *m;
	struct polmem_key k;
	__u32 target;

	polmem_key_of(sk, &k);
	m = bpf_map_lookup_elem(&policer_memory, &k);
	if (!m)
		return 0;
	if (predict_polmem_no_jump(m, now, delay_min)) {
		if (v->jump) {
			v->jump = 0;
			ps->polmem_no_jump = 1;
		}
		return 0;
	}
	target = predict_polmem_target(m, now, estimate, delay_min, mss,
				       cubic_tun_predict_margin(t));
	if (!target || (v->target && target >= v->target))
		return 0;
	v->target = target;
	v->delay_min = delay_min;
	v->jump = 0;
	return m->rate;
}

/*
 * The busy path remembered (predict_busy_applies(), include/predict_core.h):
 * keyed as the policer memory is (struct polmem_key), least recently used
 * first out.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PREDICT_POLMEM_ENTRIES);
	__type(key, struct polmem_key);
	__type(value, struct predict_busy);
} busy_memory SEC(".maps");

/*
 * An entry for this flow's destination and path, in force (predict_busy=1),
 * or a delay_min that rose above the handshake's RTT (predict_rise_us), when
 * PREDICT believed its estimate (ps->st.v): the estimate is the link's, not
 * what this flow can get beside the others. It is set aside (the target it
 * would have set kept for busy_tell()), and HyStart decides, as for a train
 * not believed, on the flow unpaced. Returns 1 then.
 */
static __noinline int busy_aside(struct sock *sk, struct predict_store *ps,
				 const struct cubic_tunables *t)
{
	struct predict_verdict *v = &ps->st.v;
	struct polmem_key k;

	polmem_key_of(sk, &k);
	if (cubic_tun_predict_busy(t) &&
	    predict_busy_applies(bpf_map_lookup_elem(&busy_memory, &k), bpf_ktime_get_ns(),
				 v->delay_min))
		ps->busy = PREDICT_ASIDE_BUSY;
	else if (predict_rose(ps->syn_rtt_us, v->delay_min, v->rate,
			      ((struct tcp_sock *)sk)->mss_cache, cubic_tun_predict_rise_us(t)))
		ps->busy = PREDICT_ASIDE_ROSE;
	else
		return 0;
	ps->busy_target = v->target;
	v->target = 0;
	v->jump = 0;
	ps->st.phase = PREDICT_PH_DONE;
	return 1;
}

/*
 * The first slow start of a flow with an estimate ended (cwnd then; how:
 * PREDICT_BUSY_QUEUED, PREDICT_BUSY_SHARED or 0): noted, once per flow. The
 * memory is told at the flow's first loss (predict_loss()) or when it closes
 * (rule_predict_release()), not here: the ACK path's program is as large as
 * Linux 6.1's verifier takes (bc_pkts_acked, 999,498 of its 1,000,000
 * instructions with the unpacing's wait), and the map's work would not fit.
 */
static __noinline void busy_note(struct predict_store *ps, __u32 cwnd, int how)
{
	if (ps->busy_step)
		return;
	ps->busy_step = PREDICT_BUSY_NOTED;
	ps->busy_cwnd = cwnd;
	ps->busy_how = how;
}

/*
 * What was noted goes to the memory: the destination is remembered busy,
 * renewed, or forgotten (predict_busy_evidence()). The target judged against
 * is the estimate's own, or the one a busy entry held back; none when a
 * remembered policer set it.
 */
static __noinline void busy_tell(struct sock *sk, struct predict_store *ps,
				 const struct cubic_tunables *t)
{
	struct predict_busy m, *old;
	struct polmem_key k;
	__u32 target;
	int e;

	if (ps->busy_step != PREDICT_BUSY_NOTED)
		return;
	ps->busy_step = PREDICT_BUSY_TOLD;
	if (!cubic_tun_predict_busy(t))
		return;
	target = ps->busy ? ps->busy_target : ps->polmem_rate ? 0 : ps->st.v.target;
	e = predict_busy_evidence(ps->busy_cwnd, target, ps->busy_how);
	if (!e)
		return;
	polmem_key_of(sk, &k);
	if (e < 0) {
		bpf_map_delete_elem(&busy_memory, &k);
		return;
	}
	old = bpf_map_lookup_elem(&busy_memory, &k);
	__builtin_memset(&m, 0, sizeof(m));
	m.at_ns = bpf_ktime_get_ns();
	m.delay_min = ca_state(sk)->delay_min;
	m.flows = old ? old->flows + 1 : 1;
	bpf_map_update_elem(&busy_memory, &k, &m, BPF_ANY);
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
		       CUBIC_DEF_hystart_ack_delta_us == PREDICT_DEF_GAP &&
		       CUBIC_DEF_predict_jump == PREDICT_DEF_JUMP &&
		       CUBIC_DEF_predict_rise_us == PREDICT_DEF_RISE_US &&
		       CUBIC_MAX_predict_jump * 2 <= PREDICT_MAX_JUMP,
	       "the PREDICT tunables' limits and defaults are the core's");


#define SOL_SOCKET	   1  /* include/uapi/asm-generic/socket.h */
#define SO_MAX_PACING_RATE 47

/*
 * The fill's pacing cap: SO_MAX_PACING_RATE (bpf_setsockopt(), which also
 * turns the kernel's pacing on), never above what the socket's owner set;
 * predict_uncap() gives the owner's value back. bpf_setsockopt() takes an
 * int-sized SO_MAX_PACING_RATE (sol_socket_sockopt()): bytes/s below
 * 2^32 - 1, ~0U being "no limit". A cap the owner set above that comes back
 * as no limit.
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

/*
 * Without a target, the flow goes on as Linux sends it: unpaced again. Not
 * while the kernel's pacing clock is ahead of now: paced, each send moves
 * tp->tcp_wstamp_ns on by the packet's time at the pacing rate, and the next
 * packet's send time (skb_mstamp_ns, what its RTT sample is measured from) is
 * max(tcp_wstamp_ns, now). A packet sent unpaced before now reaches that
 * clock is stamped later than it left, and its RTT reads short by as much:
 * a flow that gave up after pacing at 2 x cwnd / srtt on eval's pol50_80 (80
 * ms) had a sample 2.48 ms below the path's RTT, and its delay_min with it
 * (the eval stopped on it: analyze.py's rtt_below_path). So the pacing stays
 * until an ACK finds the clock at now (ps->unpace_pending; predict_ack(), and
 * the first reduction, predict_loss(), try again).
 */
static __noinline void predict_unpace(struct sock *sk, struct predict_store *ps)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	if (!ps->paced || ps->st.v.target)
		return;
	if (tp->tcp_wstamp_ns > tp->tcp_clock_cache) {
		ps->unpace_pending = 1;
		return;
	}
	sk->sk_pacing_status = SK_PACING_NONE;
	ps->paced = 0;
	ps->unpace_pending = 0;
}

/*
 * PREDICT is over for this flow: another rule ended its slow start, a
 * reduction began, or it restarted after idle (after). It predicts only the
 * first slow start (ssthresh unset); its estimate stays for the records.
 */
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

/*
 * The jump (predict_jump, Careful Resume's, RFC 9959): the estimate is
 * believed, so cwnd goes at once to the core's v->jump (at most half the
 * target), and slow start takes it on to the target in about one round, the
 * ACKs of the jumped window validating it. Only paced at the estimate: the
 * kernel's cubic does not pace without fq, and a jumped window sent at line
 * rate would be a burst of half a BDP into the queue; PREDICT's own pacing
 * with its cap (predict_cap) spreads it over about half a round. A flow not
 * paced so keeps slow start's doubling; its record shows the jump allowed and
 * not taken (predict_jump_from 0). A loss in the first slow start after the
 * jump is Careful Resume's Safe Retreat (predict_loss()).
 */
static __noinline void predict_jump(struct sock *sk, struct predict_store *ps)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 cwnd = tp->snd_cwnd, jump;

	if (!ps->paced || !ps->capped || sk->sk_pacing_status == SK_PACING_NONE)
		return;
	jump = predict_jump_cwnd(ps->st.v.jump, ps->st.v.target, cwnd, tp->snd_cwnd_clamp);
	if (!jump)
		return;
	ps->jump_from = cwnd;
	ps->jump_cwnd = jump;
	ps->jump_delivered = tp->delivered;
	ps->jump_seq = tp->snd_nxt;
	tp->snd_cwnd = jump;
}

/*
 * Careful Resume's PipeSize after a jump: the cwnd it jumped from plus the
 * packets delivered since (SACKed ones included). Both retreats (a loss, a
 * queue) set their window from it.
 */
static __always_inline __u32 predict_pipe(const struct tcp_sock *tp, const struct predict_store *ps)
{
	return ps->jump_from + (tp->delivered - ps->jump_delivered);
}

/*
 * The jump's share check (predict_jump_shared()), on every ACK of the fill
 * after a jump until it has judged (ps: the flow's, never NULL): from the first ACK of a packet sent
 * after the jump (snd_una past the jump's snd_nxt), the packets delivered
 * (tp->delivered, SACKed ones included) over a window (predict_share_sample()). They
 * left at the pacing rate of the ACK after the jump (Linux's 2 x cwnd /
 * srtt, capped at the estimate: below it when srtt is above delay_min, as
 * on r20_80_2 where comparing with the estimate ended 2 of 2 clean flows
 * at 0.65 BDP), or faster as cwnd grew. When the jumped packets got less
 * than PREDICT_SHARE_PERMILLE of that rate (or of the estimate, if lower),
 * the estimate was the link's and the flow shares it: the target becomes
 * the BDP of the rate it got (with the margin, at least the initial
 * window), the pacing cap comes down to that rate, and the fill goes on to
 * the new target, or ends at once (cwnd = ssthresh = target) when cwnd is
 * past it. Returns 1 when it ended slow start.
 */
static __noinline int predict_share_check(struct sock *sk, struct predict_store *ps,
					  const struct cubic_tunables *t)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	__u32 now = (__u32)tp->tcp_mstamp, target, before;
	__u64 got = 0;

	/*
	 * A jump that does not double cwnd sends no more than a round of slow
	 * start would, and its few packets' ACKs are a window of bunches, not
	 * a rate (s2011, 200 Mbit/s: a jump from 88 to 98 read 57 % of the
	 * estimate on a free link). It is not checked.
	 */
	if (ps->jump_cwnd < 2 * ps->jump_from) {
		ps->share_done = 1;
		return 0;
	}
	/* the rate the first jumped packets leave at: set by the jump's ACK */
	if (!ps->share_pace)
		ps->share_pace = sk->sk_pacing_rate;
	if (!ps->share.t0) {
		if ((__s32)(tp->snd_una - ps->jump_seq) > 0)
			predict_share_begin(&ps->share, now, tp->delivered,
					    predict_share_window(ps->jump_cwnd, ps->jump_from,
								 tp->mss_cache, ps->st.v.rate,
								 cubic_tun_predict_min_train_us(t),
								 s->delay_min));
		return 0;
	}
	if (!predict_share_sample(&ps->share, now, tp->delivered, tp->mss_cache, &got))
		return 0;
	ps->share_rate = got;
	ps->share_done = 1;
	if (!predict_jump_shared(ps->st.v.rate < ps->share_pace ? ps->st.v.rate : ps->share_pace, got))
		return 0;
	target = predict_target_of(got, s->delay_min, tp->mss_cache, cubic_tun_predict_share_margin(t));
	if (target < PREDICT_IW)
		target = PREDICT_IW;
	if (target >= tp->snd_ssthresh)
		return 0;
	ps->share_ssthresh = target;
	busy_note(ps, tp->snd_cwnd, PREDICT_BUSY_SHARED);
	if (cubic_tun_predict_cap(t))
		predict_cap_rate(sk, ps, got * cubic_tun_predict_cap(t) / 1000);
	before = tp->snd_ssthresh;
	tp->snd_ssthresh = target;
	if (tp->snd_cwnd < target)
		return 0;
	tp->snd_cwnd = target;
	predict_done(sk, false);
	predict_exit(sk, before);
	return 1;
}

/*
 * The window slow start ends at after a queue in the jump's fill: at cwnd
 * once the jumped window is validated; before that (predict_jump_queue=1,
 * the default) at the PipeSize, cwnd with it (predict_queue_retreat(): the
 * queue is another flow's; the record's predict_retreat and
 * predict_retreat_pipe). Sets cwnd and ssthresh.
 */
static __always_inline void predict_queue_window(struct sock *sk, struct predict_store *ps,
						 const struct cubic_tunables *t)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 cwnd = tp->snd_cwnd, pipe, w = cwnd;

	if (cubic_tun_predict_jump_queue(t)) {
		pipe = predict_pipe(tp, ps);
		w = predict_queue_retreat(pipe, ps->jump_cwnd, PREDICT_RETREAT_FLOOR, cwnd);
		if (w < cwnd) {
			ps->retreat_pipe = pipe;
			ps->retreat = w;
			tp->snd_cwnd = w;
		}
	}
	tp->snd_ssthresh = w;
}

/*
 * A queue built during the fill after the jump (predict_jump_delayed()):
 * slow start ends, as HyStart's delay test ends it (reason delay; its
 * threshold, and the least of the samples as the round's minimum RTT), at
 * the window predict_queue_window() sets. Returns -1 (PREDICT ended slow
 * start), or HyStart's delay test for a flow with no storage.
 */
static __noinline int predict_jump_queue(struct sock *sk, const struct cubic_tunables *t)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct cubic_state *s = ca_state(sk);
	struct predict_store *ps = predict_get(sk, 0);
	__u32 before = tp->snd_ssthresh, cwnd = tp->snd_cwnd;
	__u32 thresh = s->delay_min + hystart_delay_thresh(t, s->delay_min);
	struct exit_info x;

	if (!ps)
		return CUBIC_HYSTART_DELAY;
	ps->jump_rtt = ps->jump_least;
	/* the record's round_min_rtt_us: the value that crossed (the slow start ends here) */
	s->curr_rtt = ps->jump_least;
	predict_queue_window(sk, ps, t);
	busy_note(ps, cwnd, PREDICT_BUSY_QUEUED);
	predict_done(sk, false);
	s->found |= CUBIC_EV_DELAY;
	__builtin_memset(&x, 0, sizeof(x));
	x.flags = CUBIC_EV_DELAY;
	x.ssthresh_before = before;
	x.ssthresh = tp->snd_ssthresh;
	x.rtt_us = ps->jump_least;
	x.v.rtt = ps->jump_least;
	x.v.rtt_thresh = thresh;
	emit_exit(sk, &x);
	count_exit(CUBIC_EV_DELAY, tp->snd_cwnd);
	return -1;
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
static __noinline int predict_ack(struct sock *sk, const struct cubic_tunables *t, __u32 acked,
				  __u32 delay)
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
	if (ps->unpace_pending)
		predict_unpace(sk, ps);
	if (ps->st.phase == PREDICT_PH_FILL) {
		__u32 thresh = s->delay_min + hystart_delay_thresh(t, s->delay_min);

		if (ps->jump_from && !ps->share_done && predict_share_check(sk, ps, t))
			return -1;
		if (ps->jump_from && predict_jump_delayed(&ps->jump_n, &ps->jump_least, delay, thresh))
			return predict_jump_queue(sk, t);
		return CUBIC_HYSTART_DELAY;
	}
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
	p.jump = cubic_tun_predict_jump(t);
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
	if ((act == PREDICT_ACT_TARGET || act == PREDICT_ACT_EXIT) && cubic_tun_predict_policer(t)) {
		ps->polmem_rate = polmem_recall(sk, ps, v->rate, v->delay_min, t);
		if (ps->polmem_rate && act == PREDICT_ACT_TARGET && v->target <= tp->snd_cwnd) {
			/* past the remembered policer's BDP already: the exit, at once */
			ps->st.phase = PREDICT_PH_DONE;
			act = PREDICT_ACT_EXIT;
		}
	} else if (act == PREDICT_ACT_GIVE_UP && cubic_tun_predict_policer(t) && a.delay_min) {
		/* no train believed: a policer remembered here still sets the target */
		v->target = 0;
		ps->polmem_rate = polmem_recall(sk, ps, 0, a.delay_min, t);
		if (ps->polmem_rate) {
			if (v->target > tp->snd_cwnd) {
				ps->st.phase = PREDICT_PH_FILL;
				act = PREDICT_ACT_TARGET;
			} else {
				act = PREDICT_ACT_EXIT;
			}
		}
	}
	if ((act == PREDICT_ACT_TARGET || act == PREDICT_ACT_EXIT) && !ps->polmem_rate &&
	    busy_aside(sk, ps, t))
		act = PREDICT_ACT_GIVE_UP;
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
			predict_cap_rate(sk, ps, (ps->polmem_rate ? ps->polmem_rate : v->rate) *
							 cubic_tun_predict_cap(t) / 1000);
		if (v->jump)
			predict_jump(sk, ps);
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

/* .init: the flow gets its storage now (zero: about to measure). */
static __always_inline void rule_predict_init(struct sock *sk, const struct cubic_tunables *t)
{
	struct predict_store *ps;

	if (!predict_ok)
		return;
	ps = predict_get(sk, BPF_SK_STORAGE_GET_F_CREATE);
	if (!ps)
		return;
	__builtin_memset(ps, 0, sizeof(*ps));
	/*
	 * The handshake's RTT (predict_rose()): srtt now, if at most an initial
	 * window has been sent (iperf3 -C sets the algorithm after its first
	 * segment, a 37-byte cookie, has left; a flow switched later has a
	 * smoothed RTT of its own traffic, which says nothing of the handshake)
	 */
	if (((struct tcp_sock *)sk)->data_segs_out <= PREDICT_IW)
		ps->syn_rtt_us = ((struct tcp_sock *)sk)->srtt_us >> 3;
}

/*
 * PREDICT sees every ACK of slow start, with an RTT sample or not (the train
 * needs them all); then Linux HyStart with the detectors it leaves.
 */
static __always_inline int rule_predict_on_ack(struct sock *sk, const struct cubic_tunables *t,
					      __s32 rtt_us, __u32 delay, __u32 acked)
{
	if (!predict_ok)
		return RULE_HYSTART_ALL;
	return predict_ack(sk, t, acked, delay);
}

/* Linux HyStart with the detectors of PREDICT's phase before that .ssthresh. */
static __always_inline int rule_predict_before_reduction(struct sock *sk,
							const struct cubic_tunables *t)
{
	return predict_ok ? (int)predict_detect_before_reduction(sk) : RULE_HYSTART_ALL;
}

/* cong_avoid() took cwnd to the fill's target: PREDICT's exit. */
static __always_inline void rule_predict_exit_check(struct sock *sk, const struct cubic_win *w)
{
	if (predict_ok && (ca_state(sk)->flags & CUBIC_SF_PREDICT_FILL) && w->cwnd >= w->ssthresh)
		predict_reached(sk);
}

/*
 * HyStart ended the first slow start of a flow PREDICT measured: during the
 * fill (its delay test, the one left on: the target was too high), or on a
 * flow a busy entry left to it: noted for the busy memory (busy_note()).
 */
static __noinline void predict_hystart_exit(struct sock *sk)
{
	struct predict_store *ps = predict_get(sk, 0);

	if (ps && (ps->st.phase == PREDICT_PH_FILL || ps->busy))
		busy_note(ps, ((struct tcp_sock *)sk)->snd_cwnd,
			  ca_state(sk)->found & CUBIC_EV_DELAY ? PREDICT_BUSY_QUEUED : 0);
}

/* The flow closes: what its first slow start's end said goes to the busy memory. */
static __always_inline void rule_predict_release(struct sock *sk)
{
	struct predict_store *ps;

	if (!predict_ok)
		return;
	ps = predict_get(sk, 0);
	if (ps)
		busy_tell(sk, ps, get_tunables());
}

/* HyStart's exit (!after) ends PREDICT only where it ran for PREDICT: hystart=predict. */
static __always_inline void rule_predict_forget(struct sock *sk, const struct cubic_tunables *t,
					       bool after)
{
	if (!predict_ok)
		return;
	if (!after && cubic_tun_hystart(t) != CUBIC_HYSTART_PREDICT)
		return;
	if (!after)
		predict_hystart_exit(sk);
	predict_done(sk, after);
}

/*
 * The policer answer's loss, for the recovery's end (predict_recovered()):
 * the rate it went by, whether it is pending (1 in slow start, 2 after
 * PREDICT's exit; 0: settled already), and the flow's counts then.
 */
static __always_inline void pol_mark(struct predict_store *ps, const struct tcp_sock *tp,
				     __u64 kept, __u8 pending, __u32 cwnd)
{
	ps->pol_kept = kept;
	ps->pol_pending = pending;
	ps->pol_at_us = tp->tcp_mstamp;
	ps->pol_delivered = tp->delivered;
	ps->pol_seq = tp->snd_nxt;
	ps->pol_cwnd = cwnd;
	ps->pol_lost_base = tp->lost - tp->lost_out;
	ps->pol_stored = 0;
	ps->pol_jump = 0;
	ps->pol_unbelieved = 0;
}

/*
 * The answer's loss came with no estimate (PREDICT gave up: no target, none
 * remembered, no busy path's set aside) and no jump, but its sample and RTT
 * were otherwise strong evidence (predict_polmem_worthy() with the sample as
 * its own estimate): the recovery's measure decides
 * (predict_polmem_unbelieved()).
 */
static __always_inline void pol_unbelieved(struct predict_store *ps, __u64 rate, __u32 dmin)
{
	ps->pol_unbelieved = !ps->jump_from && !ps->st.v.target && !ps->polmem_rate && !ps->busy &&
			     predict_polmem_worthy(rate, ps->pol_rtt_us, dmin, rate, 0);
}

/*
 * A loss ends the first slow start after the jump, before PREDICT's exit:
 * the jumped window was not validated (the ACKs that take cwnd from the jump
 * to the target are its validation). Careful Resume's Safe Retreat (RFC 9959):
 * ssthresh at half the PipeSize (the cwnd before the jump plus the packets
 * delivered since, SACKed ones included: tp->delivered), at most CUBIC's own;
 * the kernel's PRR (or the fast datapath's) takes cwnd down to it. Careful
 * Resume later raises ssthresh to the PipeSize once the jumped window is
 * acknowledged; here CUBIC's congestion avoidance grows from the retreat.
 */
static __noinline __u32 predict_loss(struct sock *sk, const struct cubic_tunables *t, __u32 cwnd,
				    __u32 ssthresh)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct predict_store *ps = predict_get(sk, 0);
	__u32 pipe, mss = tp->mss_cache, target, dmin;

	/* the first slow start: the estimate's fill, its measure, or HyStart's after giving up */
	if (!ps || ps->after)
		return ssthresh;
	/* the path's delay_min before the recoveries' own samples (ps->loss_dmin) */
	if (!ps->loss_dmin)
		ps->loss_dmin = ca_state(sk)->delay_min;
	dmin = ps->loss_dmin;
	if (ps->unpace_pending)
		predict_unpace(sk, ps);
	/*
	 * A policer (issue 20, predict_policer_target()): the loss came with
	 * no queue (the last delivered packet's RTT, RACK's, within 1/8 of
	 * delay_min) and a delivery (the last rate sample: tp->rate_delivered
	 * over tp->rate_interval_us, what tcp_rate_gen() kept) whose BDP is
	 * under half the window, with several packets marked lost already
	 * (tp->lost_out: RACK marked them before the kernel asked .ssthresh).
	 * Settle there: ssthresh, and CUBIC's Wmax, at
	 * the policed rate's BDP, not beta x cwnd and a climb back to the cwnd
	 * the policer cut; and remember the rate for the next flow to this
	 * destination (polmem_store()). A flow whose target came from that
	 * memory confirms it at its first loss, at a lower rate if it got less
	 * with no queue (predict_polmem_refine()), or forgets it if the loss came
	 * with a queue (predict_polmem_stale()).
	 */
	if (cubic_tun_predict_policer(t) && tp->rate_interval_us && mss) {
		bool after_exit, few = tp->lost_out < PREDICT_POLICER_LOST;
		__u8 pend = 0;
		__u64 keep;

		ps->pol_rate = (__u64)tp->rate_delivered * mss * 1000000ULL / tp->rate_interval_us;
		ps->pol_rtt_us = tp->rack.rtt_us;
		keep = ps->pol_rate;
		if (ps->polmem_rate) {
			keep = predict_polmem_refine(ps->pol_rate, ps->pol_rtt_us,
						     dmin, ps->polmem_rate);
			target = keep ? predict_policer_bdp(keep, dmin, mss,
							    cubic_tun_predict_margin(t)) :
					0;
			/*
			 * past the remembered target with no queue, and more
			 * delivered than remembered: the memory read low, and
			 * this recovery measures the policer (predict_polmem_raised())
			 */
			if (!keep && ps->st.phase == PREDICT_PH_DONE && ps->pol_rate > ps->polmem_rate &&
			    ps->pol_rtt_us && !predict_polmem_stale(ps->pol_rtt_us, dmin))
				pend = PREDICT_POL_RAISE;
		} else {
			/*
			 * every sign but the count lost; with fewer marked lost
			 * than that, the answer waits for the recovery's end
			 * (predict_policer_pending())
			 */
			target = predict_policer_target(ps->pol_rate, ps->pol_rtt_us,
							dmin, cwnd, mss,
							cubic_tun_predict_margin(t),
							PREDICT_POLICER_LOST);
			if (target && few) {
				pend = 1;
				target = 0;
			}
		}
		/* after PREDICT's own exit at its target (predict_policer_after_exit()) */
		after_exit = ps->st.phase == PREDICT_PH_DONE && ps->st.v.target && ps->set_us &&
			     !ps->share_ssthresh && !ps->jump_rtt &&
			     (ca_state(sk)->found & CUBIC_EV_PREDICT);
		if (!target && !pend && !ps->polmem_rate && after_exit &&
		    predict_policer_after_exit(ps->pol_rate, ps->pol_rtt_us, dmin,
					       ps->st.v.rate, PREDICT_POLICER_LOST)) {
			if (few)
				pend = 2;
			else
				target = predict_policer_bdp(ps->pol_rate, dmin,
							     mss, cubic_tun_predict_margin(t));
		}
		if (target && target < ssthresh) {
			ps->pol_ssthresh = target;
			ca_state(sk)->last_max_cwnd = target;
			/* measured again when this recovery ends (predict_recovered()) */
			pol_mark(ps, tp, keep, 0, cwnd);
			/*
			 * Remembered only on strong evidence
			 * (predict_polmem_worthy()); after a jump, not at this
			 * rate: the sample at the loss read 0.35-0.6 of the
			 * policed rate (pol100_40_b30, pol50_80: later flows'
			 * exits at 0.34 and 0.61 of its BDP), where without one
			 * it read 1.0-1.5 of it. The recovery's own measure is
			 * kept then, at its end (predict_recovered()), and the
			 * sample's share of the estimate is not asked: behind
			 * pol100_40_b30 one read 1/17 of the line rate it jumped
			 * to, and the next flow jumped into the bucket again. The
			 * measure answers for the rate; the loss's RTT still has
			 * to say no queue.
			 */
			if (predict_polmem_worthy(keep, ps->pol_rtt_us, dmin,
						  predict_believed(ps), ps->jump_from != 0)) {
				if (ps->jump_from) {
					ps->pol_jump = 1;
				} else {
					polmem_store(sk, keep, dmin, false);
					ps->pol_stored = 1;
				}
			} else {
				pol_unbelieved(ps, keep, dmin);
			}
			return target;
		}
		if ((ps->polmem_rate || ps->polmem_no_jump) &&
		    predict_polmem_stale(ps->pol_rtt_us, dmin))
			polmem_forget(sk);
		/*
		 * after a jump and PREDICT's exit at its target, a loss with no
		 * queue that the answer did not claim: the recovery's end decides
		 * whether a policer bound the flow (PREDICT_POL_UNCLAIMED). Behind
		 * pol150_20_r60's 150 kB bucket an estimate of 99 Mbit/s (the
		 * bucket's, under the 150 Mbit/s line) set a target the flow
		 * reached, and its loss's sample, 96 Mbit/s of the bucket's
		 * tokens, was not under half the window; the next flow jumped
		 * again and lost as much (120-123 packets)
		 */
		if (!pend && !ps->polmem_rate && !ps->polmem_no_jump && ps->jump_from &&
		    ps->st.phase == PREDICT_PH_DONE && predict_unqueued(ps->pol_rtt_us, dmin))
			pend = PREDICT_POL_UNCLAIMED;
		if (pend) {
			pol_mark(ps, tp, pend == PREDICT_POL_RAISE ? ps->polmem_rate : ps->pol_rate,
				 pend, cwnd);
			if (pend == 1)
				pol_unbelieved(ps, ps->pol_rate, dmin);
		}
	}
	/*
	 * a loss in the fill, or in a slow start a busy entry left to HyStart,
	 * that the policer answer did not claim (it returned above): noted,
	 * and with what was noted before (a HyStart exit's), told to the
	 * memory. An answer left pending for the recovery's end is no claim:
	 * its own test of no queue is 9/8 of delay_min, and the fills that lost
	 * among four competing flows at 1.09-1.11 x were pending ones.
	 */
	if (ps->st.phase == PREDICT_PH_FILL || ps->busy)
		busy_note(ps, cwnd,
			  predict_loss_queued(tp->rack.rtt_us, dmin) ?
				  PREDICT_BUSY_QUEUED : 0);
	busy_tell(sk, ps, t);
	if (ps->st.phase != PREDICT_PH_FILL || !ps->jump_from)
		return ssthresh;
	pipe = predict_pipe(tp, ps);
	ps->retreat_pipe = pipe;
	ps->retreat = predict_retreat(pipe, PREDICT_RETREAT_FLOOR, ssthresh);
	/* a loss with no queue that the answer did not claim: the next flows do not jump */
	if (cubic_tun_predict_policer(t) &&
	    predict_unqueued(tp->rack.rtt_us, dmin))
		polmem_store(sk, 0, dmin, false);
	return ps->retreat;
}

/* What predict_recovered() measured and did: the policer record's (pol_emit()). */
struct pol_note {
	__u64 kept;
	__u64 measure;
	__u64 stored;
	__u64 dur_us;
	__u32 delivered;
	__u32 lost;
	__u32 dmin;
	__u32 target;
	__u8 kind;
	__u8 acts;
	__u8 bound;
	__u8 unbelieved;
};

_Static_assert(CUBIC_POL_KIND_ANSWER == 0 && CUBIC_POL_KIND_PENDING == 1 &&
		       CUBIC_POL_KIND_AFTER_EXIT == 2 && CUBIC_POL_KIND_RAISE == PREDICT_POL_RAISE &&
		       CUBIC_POL_KIND_UNCLAIMED == PREDICT_POL_UNCLAIMED,
	       "the policer record's kind is predict_store.pol_pending");

/* The policer record (struct cubic_policer): one per recovery the answer's loss began. */
static __noinline void pol_emit(struct sock *sk, struct predict_store *ps, const struct pol_note *n)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct sock_common *c = &sk->__sk_common;
	struct verdict_store *vs = verdict_get(sk, 0);
	struct cubic_policer *e;

	e = ring_reserve(sizeof(*e));
	if (!e)
		return;
	e->ts_ns = bpf_ktime_get_ns();
	e->flow_id = vs ? vs->flow_id : 0;
	e->loss_rate = n->kept;
	e->measure = n->measure;
	e->stored_rate = n->stored;
	e->recovery_us = n->dur_us < 0xffffffffULL ? (__u32)n->dur_us : 0xffffffffU;
	e->delivered = n->delivered;
	e->lost = n->lost;
	e->loss_cwnd = ps->pol_cwnd;
	e->loss_rtt_us = ps->pol_rtt_us;
	e->delay_min_us = n->dmin;
	e->target = n->target;
	e->ssthresh = tp->snd_ssthresh;
	e->kind = n->kind;
	e->actions = n->acts;
	e->bound = n->bound;
	e->jumped = ps->jump_from != 0;
	e->unbelieved = n->unbelieved;
	e->family = c->skc_family;
	e->sport = c->skc_num;
	e->dport = bpf_ntohs(c->skc_dport);
	fill_endpoints(c, e->saddr, e->daddr, e->instance);
	ring_submit(e);
}

/* polmem_store(), and what it did for the record */
static __always_inline void pol_store(struct sock *sk, struct pol_note *n, __u64 rate,
				      __u32 dmin, bool again)
{
	if (!polmem_store(sk, rate, dmin, again))
		return;
	if (rate) {
		n->acts |= CUBIC_POL_ACT_STORED;
		n->stored = rate;
	} else {
		n->acts |= CUBIC_POL_ACT_NO_JUMP;
	}
}

/*
 * The recovery the policer answer began is over (Recovery left for Open, no
 * undo; the same one: high_seq is still the snd_nxt of its loss, which an RTO
 * in between would have moved). What it delivered over the recovery is the
 * policed rate without the bucket's tokens (predict_policer_recovered()):
 * when lower, ssthresh and cwnd go down to its BDP, CUBIC's Wmax with them,
 * and the memory keeps it instead. Once per flow.
 */
static __noinline void predict_recovered(struct sock *sk, const struct cubic_tunables *t)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct predict_store *ps = predict_get(sk, 0);
	struct pol_note n = {};
	__u64 kept, rate, measure;
	__u32 lost, dmin, target;
	__u8 pending, bound, unbelieved;

	if (!ps || !ps->pol_kept)
		return;
	/* the path's, as the first loss saw it, not the recovery's (ps->loss_dmin) */
	dmin = ps->loss_dmin ? ps->loss_dmin : ca_state(sk)->delay_min;
	n.dmin = dmin;
	n.delivered = tp->delivered - ps->pol_delivered;
	n.dur_us = tp->tcp_mstamp - ps->pol_at_us;
	kept = ps->pol_kept;
	n.kept = kept;
	pending = ps->pol_pending;
	n.kind = pending;
	unbelieved = ps->pol_unbelieved;
	n.unbelieved = unbelieved;
	n.target = pending ? 0 : ps->pol_ssthresh;
	if (ps->pol_stored)
		n.acts |= CUBIC_POL_ACT_STORED_AT_LOSS;
	ps->pol_kept = 0;
	ps->pol_pending = 0;
	ps->pol_unbelieved = 0;
	if (tp->high_seq != ps->pol_seq) {
		n.acts |= CUBIC_POL_ACT_RTO;
		goto out;
	}
	lost = tp->lost - ps->pol_lost_base;
	n.lost = lost;
	measure = predict_policer_measure(n.delivered, n.dur_us, dmin, tp->mss_cache);
	n.measure = measure;
	/* the measure is the policer's only when it bound the flow (predict_policer_bound()) */
	bound = predict_policer_bound(lost, ps->pol_cwnd, measure, dmin, tp->mss_cache);
	n.bound = bound;
	if (pending == PREDICT_POL_UNCLAIMED) {
		/*
		 * a policer bound the flow after its jump and exit: the next
		 * flows do not jump, and when the recovery's window was above
		 * the measure's BDP, fill to its rate (as after an answer's
		 * loss in the fill); CUBIC's reduction stands. A loss the
		 * policer did not bind (a random drop) leaves nothing.
		 */
		if (!bound)
			goto out;
		if (predict_policer_jump_keeps(measure, dmin, tp->mss_cache,
					       cubic_tun_predict_margin(t), tp->snd_ssthresh) &&
		    predict_polmem_worthy(measure, ps->pol_rtt_us, dmin, predict_believed(ps), 0))
			pol_store(sk, &n, measure, dmin, false);
		else
			pol_store(sk, &n, 0, dmin, false);
		goto out;
	}
	if (pending == PREDICT_POL_RAISE) {
		/* CUBIC's reduction stands; the memory learns the rate (predict_polmem_raised()) */
		rate = bound ? predict_polmem_raised(measure, kept) : 0;
		if (rate)
			pol_store(sk, &n, rate, dmin, true);
		goto out;
	}
	rate = 0;
	if (bound && pending)
		rate = predict_policer_pending(lost, measure, dmin, tp->mss_cache,
					       cubic_tun_predict_margin(t), kept, ps->pol_cwnd,
					       pending == 2 ? ps->st.v.rate : 0);
	else if (bound)
		rate = predict_policer_recovered(measure, kept);
	/* the rate remembered at the loss, contradicted: the next flow measures afresh */
	if (!bound && ps->pol_stored) {
		polmem_forget(sk);
		n.acts |= CUBIC_POL_ACT_FORGOT;
		ps->pol_stored = 0;
		/*
		 * what held this flow's jump back still holds: behind
		 * pol100_40_b30's bucket, a flow that did not jump stored its
		 * answer's rate over the entry and its recovery contradicted it;
		 * forgotten whole, the next flow jumped into the bucket again
		 * (93-111 retransmitted, against 5-6 without the jump)
		 */
		if (ps->polmem_no_jump)
			pol_store(sk, &n, 0, dmin, false);
	}
	/*
	 * After a jump, the memory is the recovery's measure alone (the sample
	 * at the loss, which kept and rate are bounded by, read low after one),
	 * once the answer is settled: marked so at the loss, or decided now
	 * (with no queue at the loss; its sample's share of the estimate is
	 * not asked after a jump, see predict_loss()); and only when the
	 * policer limited it, not the recovery's own window
	 * (predict_policer_jump_keeps()). When the window did, the policer is
	 * remembered without a rate: the next flows do not jump
	 * (predict_polmem_no_jump()).
	 */
	if (ps->pol_jump ||
	    (pending && rate && ps->jump_from &&
	     predict_polmem_worthy(rate, ps->pol_rtt_us, dmin, predict_believed(ps), 1))) {
		if (bound && predict_policer_jump_keeps(measure, dmin, tp->mss_cache,
					       cubic_tun_predict_margin(t), tp->snd_ssthresh) &&
		    predict_polmem_worthy(measure, ps->pol_rtt_us, dmin, predict_believed(ps), 0))
			pol_store(sk, &n, measure, dmin, false);
		else
			pol_store(sk, &n, 0, dmin, false);
		ps->pol_jump = 0;
	}
	/* no estimate was believed: the recovery's measure, when the policer bound the flow */
	if (unbelieved) {
		__u64 m = predict_polmem_unbelieved(measure, bound, ps->pol_cwnd, dmin,
						    tp->mss_cache);

		if (m)
			pol_store(sk, &n, m, dmin, false);
	}
	if (!rate)
		goto out;
	target = predict_policer_bdp(rate, dmin, tp->mss_cache, cubic_tun_predict_margin(t));
	if (!target || target >= tp->snd_ssthresh)
		goto out;
	tp->snd_ssthresh = target;
	if (tp->snd_cwnd > target)
		tp->snd_cwnd = target;
	ca_state(sk)->last_max_cwnd = target;
	ps->pol_ssthresh = target;
	n.acts |= CUBIC_POL_ACT_LOWERED;
	if (ps->pol_stored)
		pol_store(sk, &n, rate, dmin, true);
	else if (pending && !ps->jump_from &&
		 predict_polmem_worthy(rate, ps->pol_rtt_us, dmin, predict_believed(ps), 0))
		pol_store(sk, &n, rate, dmin, false);
out:
	pol_emit(sk, ps, &n);
}

static __always_inline void rule_predict_recovered(struct sock *sk, const struct cubic_tunables *t)
{
	if (predict_ok)
		predict_recovered(sk, t);
}

/*
 * A reduction (.ssthresh). One that ends the slow start (ss_exit): PREDICT's
 * policer answer, or its retreat after a jump, whatever the mode is now (what
 * PREDICT left in the flow). Any other, while hystart=predict: the first
 * reduction of a flow whose slow start PREDICT ended at its target, where the
 * policer answer after the exit and a remembered policer's confirmation or
 * end live. A flow that did not run PREDICT has no storage; one whose slow
 * start ended by a reduction has ps->after set, and predict_loss() leaves it
 * alone.
 */
static __always_inline __u32 rule_predict_reduction(struct sock *sk,
						   const struct cubic_tunables *t, __u32 cwnd,
						   __u32 ssthresh, bool ss_exit)
{
	if (!predict_ok || (!ss_exit && cubic_tun_hystart(t) != CUBIC_HYSTART_PREDICT))
		return ssthresh;
	return predict_loss(sk, t, cwnd, ssthresh);
}

/* Every record of a flow that ran PREDICT: its estimate and what it did. */
static __always_inline void rule_predict_fill(struct sock *sk, const struct exit_info *x,
					    struct cubic_event *e)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct predict_store *ps;
	const struct predict_verdict *pr;

	if (ca_state(sk)->flags & CUBIC_SF_PREDICT_FALLBACK)
		e->flags |= CUBIC_EV_PREDICT_NO_STORAGE;
	ps = predict_ok ? predict_get(sk, 0) : NULL;
	if (!ps)
		return;
	/* the first slow start ends where PREDICT set ssthresh (emit_exit(): or unset) */
	if (!ps->after && ps->set_us &&
	    (x->ssthresh_before == ps->st.v.target ||
	     (ps->share_ssthresh && x->ssthresh_before == ps->share_ssthresh)))
		e->flags |= CUBIC_EV_INITIAL;
	e->flags |= CUBIC_EV_PREDICT_RAN;
	if (ps->paced)
		e->flags |= CUBIC_EV_PREDICT_PACED;
	if (ps->cap_applied)
		e->flags |= CUBIC_EV_PREDICT_CAPPED;
	if (ps->polmem_no_jump)
		e->flags |= CUBIC_EV_PREDICT_NO_JUMP;
	if (ps->busy == PREDICT_ASIDE_BUSY)
		e->flags |= CUBIC_EV_PREDICT_BUSY;
	else if (ps->busy == PREDICT_ASIDE_ROSE)
		e->flags |= CUBIC_EV_PREDICT_ROSE;
	pr = &ps->st.v;
	if (pr->disagreed)
		e->flags |= CUBIC_EV_PREDICT_DISAGREED;
	e->predict_rate = pr->rate;
	e->predict_mean_rate = pr->mean_rate;
	e->predict_target = pr->target;
	e->predict_train_us = pr->train_us;
	e->predict_train_acks = pr->train_acks;
	e->predict_train_bytes = pr->train_bytes;
	e->predict_train_line = pr->line;
	e->predict_train_gaps = pr->gaps;
	e->predict_round = pr->round;
	e->predict_delay_min_us = pr->delay_min;
	e->predict_cwnd_set = pr->cwnd;
	e->predict_failed_rounds = pr->failed_rounds;
	if (ps->set_us)
		e->predict_fill_us = (__u32)(tp->tcp_mstamp - ps->set_us);
	/* the jump made (from, to), or the one the core allowed and not made (from 0) */
	e->predict_jump = ps->jump_from ? ps->jump_cwnd : pr->jump;
	e->predict_jump_from = ps->jump_from;
	e->predict_retreat = ps->retreat;
	e->predict_retreat_pipe = ps->retreat_pipe;
	e->predict_jump_rtt_us = ps->jump_rtt;
	e->predict_policer_rate = ps->pol_rate;
	e->predict_policer_rtt_us = ps->pol_rtt_us;
	e->predict_policer = ps->pol_ssthresh;
	e->predict_policer_memory = ps->polmem_rate;
	e->predict_share_pace = ps->share_pace;
	e->predict_share_rate = ps->share_rate;
	e->predict_share = ps->share_ssthresh;
	e->predict_syn_rtt_us = ps->syn_rtt_us;
}
