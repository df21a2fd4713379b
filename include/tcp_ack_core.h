/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's tcp_cong_control() does around a congestion control, as
 * pure functions: numbers in, decisions out, like cubic_core.h.
 *
 * bpf_cubic's fast datapath (cubicctl load --datapath fast) registers
 * .cong_control instead of .cong_avoid + .pkts_acked, so that the kernel
 * enters the BPF trampoline once per ACK instead of twice (the
 * trampoline, not our code, was most of bpf_cubic's cost per ACK: see
 * docs/PERFORMANCE.md). A congestion control with .cong_control takes over
 * the rest of tcp_cong_control() and the cwnd reset of
 * tcp_end_cwnd_reduction(), so bpf/fast.bpf.h re-does them with these
 * functions, following net/ipv4/tcp_input.c of Linux 6.18:
 *
 *   tcp_cong_control():   if (CWR or Recovery)      PRR, tcp_cwnd_reduction()
 *                         else if (may raise cwnd)  cong_avoid, snd_cwnd_stamp
 *                         tcp_update_pacing_rate()
 *   tcp_end_cwnd_reduction(): cwnd = ssthresh when leaving CWR, or Recovery
 *                         without an undo (done in .set_state, see there)
 *   tcp_slow_start_after_idle_check(): the restart after idle (done at
 *                         CA_EVENT_TX_START, see .cwnd_event)
 *   tcp_cwnd_validate():  RFC 2861's decay of an application-limited cwnd
 *                         (done at the end of .cong_control, see there)
 *   tcp_rcv_state_process(): a passive open's first pacing rate (done in
 *                         .init, see bc_init_fast)
 *
 * Linux 6.1 does the same around a .cong_control algorithm (Debian 12's
 * 6.1.0 and 6.12 have each of these callers and tcp_cwnd_reduction() alike),
 * but its .cong_control is (sk, rs): no tcp_ack() flag, which
 * tcp_core_ack_flag() derives.
 *
 * One difference cannot be avoided: the kernel calls .pkts_acked (the RTT
 * sample, HyStart) before tcp_fastretrans_alert() and .cong_avoid after it;
 * .cong_control runs after it. On the one ACK that starts a recovery, the
 * RTT sample therefore meets the new ssthresh: HyStart no longer sees slow
 * start, so a HyStart exit on that very ACK is recorded as a loss exit. The
 * cwnd and ssthresh are the same either way (the recovery's ssthresh wins in
 * both orders).
 *
 * The PRR counter prr_delivered lives in our per-flow state: BPF may not
 * write tcp_sock.prr_delivered, and the kernel only uses it in
 * tcp_cwnd_reduction(). It is zeroed where the kernel zeroes its own, in
 * tcp_init_cwnd_reduction(), which calls .ssthresh right after.
 */
#ifndef TCP_ACK_CORE_H
#define TCP_ACK_CORE_H

#include "cubic_abi.h"

/* net/ipv4/tcp_input.c, the flag argument of .cong_control */
#define TCP_FLAG_DATA_ACKED	   0x04 /* this ACK acknowledged new data */
#define TCP_FLAG_SYN_ACKED	   0x10 /* this ACK acknowledged SYN */
#define TCP_FLAG_DATA_SACKED	   0x20 /* new SACK */
#define TCP_FLAG_SND_UNA_ADVANCED  0x400 /* snd_una was changed (!= FLAG_DATA_ACKED) */
#define TCP_FLAG_ACKED		   (TCP_FLAG_DATA_ACKED | TCP_FLAG_SYN_ACKED)
#define TCP_FLAG_FORWARD_PROGRESS  (TCP_FLAG_ACKED | TCP_FLAG_DATA_SACKED)

#define TCP_USEC_PER_SEC 1000000ULL
#define TCP_CORE_INFINITE_SSTHRESH 0x7fffffff

/* enum tcp_ca_state (include/uapi/linux/tcp.h) */
#define TCP_CORE_CA_OPEN     0
#define TCP_CORE_CA_DISORDER 1
#define TCP_CORE_CA_CWR	     2
#define TCP_CORE_CA_RECOVERY 3
#define TCP_CORE_CA_LOSS     4

/*
 * tcp_end_cwnd_reduction()'s reset, seen from .set_state: whether cwnd goes to
 * ssthresh on the move from ca_state old to new. The kernel resets when it
 * leaves CWR for Open (tcp_fastretrans_alert()), when tcp_process_tlp_ack()
 * ends the CWR it entered for a repaired tail loss (tcp_try_keep_open() then
 * moves CWR to Open, or to Disorder if the ACK also SACKed data or a
 * retransmission is out: the only way from CWR to Disorder), and when it
 * leaves Recovery for Open without an undo (tcp_try_undo_recovery(); every
 * undo clears undo_marker first). It leaves Recovery for Open or Disorder
 * without the reset only after an undo, and Loss never through it.
 */
static inline int tcp_core_end_reduction(__u8 old, __u8 new_state, __u32 undo_marker,
					 __u32 ssthresh)
{
	if (ssthresh >= TCP_CORE_INFINITE_SSTHRESH)
		return 0;
	if (old == TCP_CORE_CA_CWR)
		return new_state == TCP_CORE_CA_OPEN || new_state == TCP_CORE_CA_DISORDER;
	return old == TCP_CORE_CA_RECOVERY && new_state == TCP_CORE_CA_OPEN && undo_marker;
}

/*
 * Whether the move from ca_state old to new is one the kernel makes right
 * after calling .ssthresh, on the same tcp clock: Open or Disorder to CWR
 * (tcp_enter_cwr(), tcp_process_tlp_ack()), to Recovery (tcp_enter_recovery())
 * or to Loss (tcp_enter_loss(), which also sets prior_ssthresh). The other way
 * into Loss, tcp_non_congestion_loss_retransmit() (a path MTU drop, a failed
 * Fast Open), keeps ssthresh at tcp_current_ssthresh() and zeroes
 * prior_ssthresh without asking the congestion control.
 */
static inline int tcp_core_reduction_begins(__u8 old, __u8 new_state, __u32 prior_ssthresh)
{
	if (old != TCP_CORE_CA_OPEN && old != TCP_CORE_CA_DISORDER)
		return 0;
	if (new_state == TCP_CORE_CA_LOSS)
		return prior_ssthresh != 0;
	return new_state == TCP_CORE_CA_CWR || new_state == TCP_CORE_CA_RECOVERY;
}

/*
 * The guard against skipped callbacks (docs/IMPOSSIBLE_WINDOWS.md): what a
 * move from ca_state seen (the last one .set_state saw) to now, made without
 * .set_state, left undone. The kernel calls .ssthresh, .undo_cwnd and
 * .set_state in one context, so when one of them was skipped, all were.
 */
#define TCP_CORE_MISSED_NOTHING	 0
#define TCP_CORE_MISSED_SSTHRESH 1 /* a reduction began: ssthresh is not .ssthresh's */
#define TCP_CORE_MISSED_UNDO	 2 /* a reduction was undone: cwnd is not .undo_cwnd's */
#define TCP_CORE_MISSED_END	 3 /* a reduction ended: tcp_end_cwnd_reduction()'s reset */

static inline int tcp_core_missed_move(__u8 seen, __u8 now, __u32 undo_marker,
				       __u32 prior_ssthresh, __u32 ssthresh)
{
	if (seen == now)
		return TCP_CORE_MISSED_NOTHING;
	if (tcp_core_reduction_begins(seen, now, prior_ssthresh))
		return TCP_CORE_MISSED_SSTHRESH;
	/* tcp_undo_cwnd_reduction() calls .undo_cwnd only with prior_ssthresh set */
	if ((seen == TCP_CORE_CA_RECOVERY || seen == TCP_CORE_CA_LOSS) &&
	    (now == TCP_CORE_CA_OPEN || now == TCP_CORE_CA_DISORDER) && !undo_marker &&
	    prior_ssthresh)
		return TCP_CORE_MISSED_UNDO;
	if (tcp_core_end_reduction(seen, now, undo_marker, ssthresh))
		return TCP_CORE_MISSED_END;
	return TCP_CORE_MISSED_NOTHING;
}

/*
 * Whether a CWR or Recovery in progress is one bpf_cubic's .ssthresh began:
 * tcp_init_cwnd_reduction() sets high_seq = snd_nxt right before calling
 * .ssthresh (which records snd_nxt as reduction_seq), and nothing else writes
 * high_seq in these two states; our ssthresh is beta x prior_cwnd, never
 * above prior_cwnd, and nothing raises it before the state is left. A
 * reduction that ended and began again in one skipped softirq leaves ca_state
 * as it was, but not high_seq. (Loss is not covered: tcp_enter_loss() moves
 * high_seq on every RTO, with or without .ssthresh.)
 */
static inline int tcp_core_reduction_is_ours(__u8 state, __u32 high_seq, __u32 reduction_seq,
					     __u32 ssthresh, __u32 prior_cwnd)
{
	if (state != TCP_CORE_CA_CWR && state != TCP_CORE_CA_RECOVERY)
		return 1;
	return high_seq == reduction_seq && ssthresh <= prior_cwnd;
}

/*
 * Whether .set_state's move from old to new is an undo's way out of CWR or
 * Recovery: tcp_undo_cwnd_reduction() has just zeroed undo_marker and put
 * prior_ssthresh back (tcp_try_undo_recovery(), _dsack(), _partial()).
 */
static inline int tcp_core_undoing(__u8 old, __u8 new_state, __u32 undo_marker)
{
	return !undo_marker && (old == TCP_CORE_CA_CWR || old == TCP_CORE_CA_RECOVERY) &&
	       (new_state == TCP_CORE_CA_OPEN || new_state == TCP_CORE_CA_DISORDER);
}

/*
 * tcp_ack()'s flag, for a kernel whose .cong_control is (sk, rs) (before
 * Linux 6.10; net/ipv4/tcp_input.c of Debian 12's 6.1 is read here): the bits
 * that tcp_core_may_raise_cwnd() and tcp_core_prr_cwnd() read, derived from
 * what such a kernel gives. tcp_ack() calls tcp_cong_control() with
 * acked_sacked = rs->acked_sacked and the flag it collected; 6.10 only added
 * the flag (and ack) to .cong_control's arguments.
 *
 *  FLAG_SND_UNA_ADVANCED: the ACK moved snd_una. Only tcp_ack() moves it once
 *    a flow's .init has run (an active open's SYN-ACK moves it before .init;
 *    a passive open's handshake writes it after .init with the value it has
 *    already), and every ACK that moves it reaches .cong_control (snd_una
 *    cannot move with nothing in flight, tcp_ack()'s only way out between the
 *    two). So it is set when snd_una differs from where .init or the previous
 *    ACK left it.
 *  FLAG_DATA_ACKED, FLAG_SYN_ACKED: tcp_clean_rtx_queue() sets one for every
 *    segment the ACK takes off the queue: SYN_ACKED for the SYN (an active
 *    open's first ACK, seen in SYN-SENT), DATA_ACKED for data. Here an ACK
 *    that moved snd_una acked data. One case differs: a cumulative ACK that
 *    ends inside a segment takes none off (the kernel sets SND_UNA_ADVANCED
 *    alone); a receiver ACKs whole segments unless a middlebox resegments.
 *  FLAG_DATA_SACKED: new SACK blocks. rs->acked_sacked counts the packets the
 *    ACK newly delivered, cumulatively or by SACK (tcp_newly_delivered());
 *    when snd_una did not move, each was SACKed. When it moved, DATA_ACKED is
 *    set and FLAG_FORWARD_PROGRESS, the only reader of DATA_SACKED, has no
 *    need of it. Without SACK (a Reno duplicate ACK also counts as delivered)
 *    it is never set, as in the kernel.
 *
 * Without the previous snd_una (the socket storage could not be had), an ACK
 * that delivered something is taken to have moved snd_una.
 */
struct tcp_ack_seen {
	__u32 snd_una;	    /* tp->snd_una, after this ACK */
	__u32 prior_una;    /* where .init or the previous ACK left it (have_prior) */
	__u32 acked_sacked; /* rs->acked_sacked */
	__u8 have_prior;
	__u8 syn_sent; /* sk_state is TCP_SYN_SENT: the SYN-ACK of an active open */
	__u8 sack;     /* tcp_is_sack() */
};

static inline int tcp_core_ack_flag(const struct tcp_ack_seen *a)
{
	int moved;

	/* tcp_rcv_synsent_state_process() takes only an ACK that moves snd_una */
	if (a->syn_sent)
		return TCP_FLAG_SYN_ACKED | TCP_FLAG_SND_UNA_ADVANCED;
	if (a->have_prior)
		moved = (__s32)(a->snd_una - a->prior_una) > 0;
	else
		moved = a->acked_sacked > 0;
	if (moved)
		return TCP_FLAG_DATA_ACKED | TCP_FLAG_SND_UNA_ADVANCED;
	return a->sack && a->acked_sacked > 0 ? TCP_FLAG_DATA_SACKED : 0;
}

/*
 * tcp_may_raise_cwnd(): with high reordering grow on any delivery, otherwise
 * only on in-order delivery (RFC 5681).
 */
static inline int tcp_core_may_raise_cwnd(__u32 reordering, __u32 sysctl_reordering, int flag)
{
	if (reordering > sysctl_reordering)
		return !!(flag & TCP_FLAG_FORWARD_PROGRESS);
	return !!(flag & TCP_FLAG_DATA_ACKED);
}

/* What tcp_cwnd_reduction() reads. */
struct tcp_prr {
	__u32 ssthresh;
	__u32 in_flight;  /* tcp_packets_in_flight() */
	__u32 prior_cwnd; /* cwnd when the reduction began */
	__u32 prr_out;	  /* packets sent since it began */
};

/*
 * tcp_cwnd_reduction(): Proportional Rate Reduction (RFC 6937). Adds the
 * newly delivered packets to *prr_delivered and returns the new cwnd, or 0
 * when cwnd stays as it is (nothing delivered, or no reduction begun).
 * The division happens only in recovery with more in flight than ssthresh,
 * exactly where the kernel divides.
 */
static inline __u32 tcp_core_prr_cwnd(const struct tcp_prr *p, __u32 *prr_delivered,
				      int newly_acked_sacked, int newly_lost, int flag)
{
	int delta = (int)(p->ssthresh - p->in_flight);
	int sndcnt;

	if (newly_acked_sacked <= 0 || !p->prior_cwnd)
		return 0;

	*prr_delivered += newly_acked_sacked;
	if (delta < 0) {
		__u64 dividend = (__u64)p->ssthresh * *prr_delivered + p->prior_cwnd - 1;

		sndcnt = (int)(__u32)(dividend / p->prior_cwnd) - (int)p->prr_out;
	} else {
		sndcnt = (int)(*prr_delivered - p->prr_out);
		if (sndcnt < newly_acked_sacked)
			sndcnt = newly_acked_sacked;
		if ((flag & TCP_FLAG_SND_UNA_ADVANCED) && !newly_lost)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	/* Force a fast retransmit upon entering fast recovery */
	if (sndcnt < (p->prr_out ? 0 : 1))
		sndcnt = p->prr_out ? 0 : 1;
	return p->in_flight + (__u32)sndcnt;
}

/* What tcp_update_pacing_rate() reads. */
struct tcp_pacing {
	__u32 mss;
	__u32 cwnd;
	__u32 ssthresh;
	__u32 packets_out;
	__u32 srtt_us;	/* tp->srtt_us: smoothed RTT << 3 */
	__u32 ss_ratio; /* net.ipv4.tcp_pacing_ss_ratio, percent */
	__u32 ca_ratio; /* net.ipv4.tcp_pacing_ca_ratio, percent */
	__u64 max_rate; /* sk_max_pacing_rate, bytes/s */
};

/*
 * tcp_update_pacing_rate(): 200 % of cwnd x mss / srtt in slow start (well,
 * below half of ssthresh), 120 % after, capped by SO_MAX_PACING_RATE. The
 * one division per ACK is the kernel's own (it divides here too).
 */
static inline __u64 tcp_core_pacing_rate(const struct tcp_pacing *p)
{
	__u64 rate = (__u64)p->mss * ((TCP_USEC_PER_SEC / 100) << 3);
	__u32 cwnd = p->cwnd > p->packets_out ? p->cwnd : p->packets_out;

	if (p->cwnd < p->ssthresh / 2)
		rate *= p->ss_ratio;
	else
		rate *= p->ca_ratio;
	rate *= cwnd;
	if (p->srtt_us)
		rate /= p->srtt_us;
	return rate < p->max_rate ? rate : p->max_rate;
}

/*
 * tcp_current_ssthresh(): in a reduction ssthresh is what it is, otherwise
 * not below 3/4 of cwnd.
 */
static inline __u32 tcp_core_current_ssthresh(__u32 cwnd, __u32 ssthresh, int in_reduction)
{
	__u32 w = (cwnd >> 1) + (cwnd >> 2);

	if (in_reduction)
		return ssthresh;
	return ssthresh > w ? ssthresh : w;
}

/*
 * tcp_cwnd_restart() (RFC 5681 section 4.1, restart after idle): cwnd is
 * halved for every RTO of idleness after the first, down to the restart
 * window min(initial window, cwnd). idle and rto in jiffies. Returns the new
 * cwnd; *ssthresh gets tcp_current_ssthresh().
 */
static inline __u32 tcp_core_cwnd_restart(__u32 cwnd, __u32 *ssthresh, int in_reduction,
					  __u32 init_cwnd, __s32 idle, __u32 rto)
{
	__u32 restart_cwnd = init_cwnd < cwnd ? init_cwnd : cwnd;

	*ssthresh = tcp_core_current_ssthresh(cwnd, *ssthresh, in_reduction);
	/* at most 32 halvings take any u32 to restart_cwnd */
	for (int i = 0; i < 32; i++) {
		if (!rto || (idle -= (__s32)rto) <= 0 || cwnd <= restart_cwnd)
			break;
		cwnd >>= 1;
	}
	return cwnd > restart_cwnd ? cwnd : restart_cwnd;
}

/*
 * tcp_cwnd_application_limited() (RFC 2861's "slow part"): a flow in Open
 * that has not filled cwnd for an RTO keeps the mean of cwnd and the most it
 * used (at least the initial window). Returns the new cwnd; *ssthresh gets
 * tcp_current_ssthresh() when cwnd shrinks.
 */
static inline __u32 tcp_core_app_limited_cwnd(__u32 cwnd, __u32 *ssthresh, __u32 used,
					      __u32 init_cwnd)
{
	__u32 win_used = used > init_cwnd ? used : init_cwnd;

	if (win_used >= cwnd)
		return cwnd;
	*ssthresh = tcp_core_current_ssthresh(cwnd, *ssthresh, 0);
	return (cwnd + win_used) >> 1;
}

#endif /* TCP_ACK_CORE_H */
