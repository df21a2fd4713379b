/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-flow state of bpf_cubic, kept in inet_csk_ca(sk): what CUBIC
 * (include/cubic_core.h), Linux HyStart (include/hystart_core.h) and
 * HyStart++ (include/hspp_core.h) keep for a flow, and the window they
 * change. No kernel types; the BPF side asserts that it fits icsk_ca_priv.
 * SEARCH and PREDICT keep theirs in socket storage (include/search_core.h,
 * include/predict_core.h); only their flag bits are here.
 */
#ifndef FLOW_CORE_H
#define FLOW_CORE_H

#include "cubic_abi.h"

#define CUBIC_USEC_PER_SEC 1000000ULL

/* cubic_state.flags */
#define CUBIC_SF_INIT 0x1 /* our init ran for this flow */
/* the fast datapath's view of the ACK that begins a reduction (bpf/fast.bpf.h) */
#define CUBIC_SF_PRE_SS	      0x2 /* slow start (HyStart pending) when the last reduction began */
#define CUBIC_SF_UNDO_TO_CWND 0x4 /* HyStart ended that slow start on the same ACK */
#define CUBIC_SF_FRESH_EPOCH  0x8 /* that ACK's RTT sample falls in the second after a reduction */
/* a rule set cwnd itself on this ACK (SEARCH's drain): no slow-start growth */
#define CUBIC_SF_HOLD 0x10
/* SEARCH and PREDICT (bpf/rule_search.bpf.h, bpf/rule_predict.bpf.h) */
#define CUBIC_SF_SEARCH_FALLBACK 0x20 /* no socket storage: Linux HyStart decides instead */
#define CUBIC_SF_PREDICT_FILL	  0x40 /* PREDICT set ssthresh = target: its exit is cwnd at it */
#define CUBIC_SF_PREDICT_FALLBACK 0x80 /* no socket storage for PREDICT: Linux HyStart decides */

/*
 * Per-flow state, kept in inet_csk_ca(sk) (104 bytes on 6.18; the BPF side
 * asserts the size). The first block mirrors struct bictcp.
 */
struct cubic_state {
	/* CUBIC; cubic_reset() clears cnt .. tcp_cwnd, as bictcp_reset() */
	__u32 cnt;		/* increase cwnd by 1 after this many ACKed packets */
	__u32 last_max_cwnd;	/* Wmax: cwnd before the last reduction */
	__u32 last_cwnd;	/* cwnd at the last cubic_update() */
	__u32 last_time;	/* jiffies of the last cubic_update() */
	__u32 bic_origin_point; /* origin point of the cubic function */
	__u32 bic_K;		/* time from epoch start to origin, 1/1024 s */
	__u32 delay_min;	/* minimum RTT, us */
	__u32 epoch_start;	/* jiffies at the start of the epoch, 0: none */
	__u32 ack_cnt;		/* packets ACKed in this epoch */
	__u32 tcp_cwnd;		/* estimated Reno cwnd */
	/* HyStart */
	__u32 round_start; /* us, when this round began */
	__u32 end_seq;	   /* the round ends when snd_una passes this */
	__u32 last_ack;	   /* us, last ACK that continued the train */
	__u32 curr_rtt;	   /* us, minimum RTT of this round's samples */
	__u8 sample_cnt;   /* RTT samples in this round */
	__u8 found;	   /* CUBIC_HYSTART_* bits that ended slow start */
	__u8 flags;	   /* CUBIC_SF_* */
	__u8 pre_hspp_phase; /* hspp_phase before the last .ssthresh call */
	/* telemetry */
	__u32 rounds;	/* HyStart rounds since the flow began */
	__u64 start_us; /* tcp clock (us) when the flow began */
	/* HyStart++ (RFC 9406); curr_rtt and sample_cnt serve it too */
	__u32 last_round_min_rtt; /* lastRoundMinRTT, us (~0: none yet) */
	__u32 css_baseline;	  /* cssBaselineMinRtt, us (~0: none) */
	__u32 css_accum;	  /* CSS growth not yet applied, packets */
	__u8 hspp_phase;	  /* CUBIC_HSPP_* */
	__u8 css_rounds;	  /* CSS rounds so far, the partial first one included */
	__u8 seen_state;	  /* ca_state after the last .set_state we saw (the guard) */
	__u8 verdict;	  /* 1: the exit verdict is measuring (bpf/verdict.bpf.h) */
	/* the fast datapath (.cong_control): see include/tcp_ack_core.h */
	__u32 prr_delivered; /* PRR: packets delivered since the reduction began */
	__u32 cwnd_used;     /* RFC 2861: most in flight while not cwnd-limited */
	__u32 reduction_us;  /* tcp clock (us, low 32 bits) of the last .ssthresh call */
	__u32 reduction_seq; /* snd_nxt at that call: the high_seq of the reduction it began */
};

/* The window fields of tcp_sock that the core reads and writes. */
struct cubic_win {
	__u32 cwnd;
	__u32 cwnd_cnt;
	__u32 ssthresh;
	__u32 clamp;
};

static inline int cubic_before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define cubic_after(seq2, seq1) cubic_before(seq1, seq2)

#endif /* FLOW_CORE_H */
