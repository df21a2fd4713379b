/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values of bpf_cubic's socket-storage maps (bpf/stores.bpf.h
 * defines the maps; bpf/rule_predict.bpf.h and bpf/verdict.bpf.h write
 * them), here so that the flows iterator (bpf/flows.bpf.c) reads them with
 * the layout they are written with. No kernel types.
 */
#ifndef CUBIC_STORES_H
#define CUBIC_STORES_H

#include "predict_core.h"
#include "verdict_core.h"

struct predict_store {
	struct predict_state st;
	__u64 set_us; /* tcp clock when the target was set */
	__u64 user_max; /* sk_max_pacing_rate before PREDICT capped it */
	__u8 capped;  /* the fill's cap is on (SO_MAX_PACING_RATE) */
	__u8 cap_applied; /* it was set (the record's predict_capped) */
	__u8 paced;   /* PREDICT turned the kernel's pacing on */
	__u8 after;   /* the first slow start is over by a reduction or a restart */
	__u8 fill_at_reduction; /* the last reduction began during the fill */
	__u8 jump_n;  /* RTT samples in a row above the delay threshold since the jump */
	__u8 pad[2];
	/* the jump (predict_jump): cwnd before and after it (0: none), tp->delivered at it */
	__u32 jump_from;
	__u32 jump_cwnd;
	__u32 jump_delivered;
	/* the least of those samples; set in jump_rtt when they ended the fill */
	__u32 jump_least;
	__u32 jump_rtt;
	/* Safe Retreat: PipeSize at the loss, packets, and the ssthresh it set (0: none) */
	__u32 retreat_pipe;
	__u32 retreat;
	/* predict_policer: the loss's delivery rate and RTT, the ssthresh it set (0: none) */
	__u64 pol_rate;
	__u32 pol_rtt_us;
	__u32 pol_ssthresh;
	/*
	 * The jump's share check (predict_jump_shared()): snd_nxt at the jump
	 * (ACKs past it are of jumped packets), the window over their ACKs
	 * (predict_share_sample()), the pacing rate the jumped packets left at,
	 * the rate they got (0: not measured) and the ssthresh it set (0: the
	 * estimate stood).
	 */
	__u32 jump_seq;
	struct predict_share_win share;
	__u64 share_pace; /* sk_pacing_rate on the ACK after the jump */
	__u64 share_rate;
	__u32 share_ssthresh;
	__u8 share_done;
	/*
	 * The estimate set aside (PREDICT_ASIDE_*): a busy path remembered
	 * (predict_busy_applies(); the record's predict_busy) or a queue that
	 * rose since the handshake (predict_rose(); predict_rose): it set no
	 * target (HyStart decided), and how far the first
	 * slow start's end is on its way to the memory (PREDICT_BUSY_NOTED:
	 * noted in busy_how and busy_cwnd, PREDICT_BUSY_TOLD: the memory told;
	 * busy_note(), busy_tell())
	 */
	__u8 busy;
	__u8 busy_step;
	/* predict_unpace() waits for the kernel's pacing clock to come back to now */
	__u8 unpace_pending;
	/* the policer remembered (predict_polmem_target()): the rate that set the target (0: none) */
	__u64 polmem_rate;
	/*
	 * The policer answer's loss, for its measure again at the recovery's
	 * end (predict_policer_recovered()): the rate it went by (0: none, or
	 * measured already), tcp clock, tp->delivered and high_seq (snd_nxt)
	 * then, and whether the rate was remembered
	 */
	__u64 pol_kept;
	__u64 pol_at_us;
	__u32 pol_delivered;
	__u32 pol_seq;
	__u8 pol_stored;
	/*
	 * the answer left pending at the loss (predict_policer_pending()): 1 in
	 * slow start, 2 after PREDICT's exit, PREDICT_POL_RAISE a remembered
	 * rate measured again (predict_polmem_raised()); the window then, and tp->lost
	 * less what was marked lost then
	 */
	__u8 pol_pending;
	/*
	 * the answer came after a jump: the memory is kept at the recovery's
	 * end, from the recovery's own measure (predict_policer_measure())
	 */
	__u8 pol_jump;
	/* the memory held the jump back (predict_polmem_no_jump(); the record's predict_no_jump) */
	__u8 polmem_no_jump;
	__u32 pol_cwnd;
	__u32 pol_lost_base;
	/* the target the estimate would have set, had the path not been busy (packets) */
	__u32 busy_target;
	/* the first slow start's end: cwnd then, and how (PREDICT_BUSY_QUEUED, _SHARED or 0) */
	__u32 busy_cwnd;
	__u8 busy_how;
	/*
	 * the answer's loss came with no estimate believed: the recovery's
	 * measure decides what is remembered (predict_polmem_unbelieved())
	 */
	__u8 pol_unbelieved;
	__u8 pad5[2];
	/* the handshake's RTT, us (tp->srtt_us at .init, at most an initial window sent; 0: unknown) */
	__u32 syn_rtt_us;
	/*
	 * delay_min at the flow's first loss (predict_loss()), which PREDICT's
	 * decisions at that loss, its recovery's end and later losses go by:
	 * the recovery's ACKs of retransmitted packets give RTT samples from
	 * TCP timestamps, in whole milliseconds (the kernel's Karn fallback,
	 * tcp_ack_update_rtt()), which lower ca_state's delay_min below the
	 * path's: 19.000 ms behind a 20 ms path
	 */
	__u32 loss_dmin;
};

struct verdict_store {
	struct verdict_state v;
	__u64 flow_id;	   /* this instance's id of the flow, in both records */
	__u64 exit_ts_ns;  /* the judged exit record's ts_ns */
	__u32 exit_flags;  /* its reasons (CUBIC_EV_*) */
	__u32 sport;	   /* the exit's local port: a verdict written at .release has none */
};

/*
 * The policer remembered: the key of bpf/rule_predict.bpf.h's LRU map (its
 * value is struct predict_polmem), a destination in a network namespace. The
 * BPF side zeroes it whole (padding included) before it fills it.
 */
struct polmem_key {
	__u64 net_cookie; /* the namespace's (SO_NETNS_COOKIE) */
	__u32 family;	  /* AF_INET or AF_INET6 */
	__u8 daddr[16];	  /* an IPv4 address in the first 4 bytes */
};

#define PREDICT_POLMEM_ENTRIES 4096

/* the maps' names, as the kernel reports them (bpf_map_info.name) */
#define CUBIC_MAP_PREDICT_STORE "predict_store"
#define CUBIC_MAP_VERDICT_STORE "verdict_store"
#define CUBIC_MAP_POLICER_MEMORY "policer_memory"
/* the busy paths remembered (bpf/rule_predict.bpf.h: key struct polmem_key, value struct predict_busy) */
#define CUBIC_MAP_BUSY_MEMORY "busy_memory"

#endif /* CUBIC_STORES_H */
