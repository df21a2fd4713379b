/* SPDX-License-Identifier: GPL-2.0 */
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
	const struct cubic_tunables *t;

	if (!tp->prior_cwnd)
		return;
	t = get_tunables();
	tp->snd_ssthresh = cubic_recalc_ssthresh(s, t, tp->prior_cwnd);
	slow_start_forget(sk, t);
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
