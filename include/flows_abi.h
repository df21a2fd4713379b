/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cubicctl flows: the record bpf/flows.bpf.c's iter/tcp program writes (one
 * per socket whose congestion control is the instance's) and src/cmd_flows.c
 * reads through bpf_iter_create(). The same struct on both sides, copied
 * whole with bpf_seq_write(); no kernel types.
 */
#ifndef CUBIC_FLOWS_ABI_H
#define CUBIC_FLOWS_ABI_H

#include "flow_core.h"
#include "cubic_stores.h"

/* cubic_flow.flags */
#define CUBIC_FLOW_PREDICT 0x1 /* the flow has PREDICT's socket storage: predict is valid */
#define CUBIC_FLOW_VERDICT 0x2 /* it has the verdict's (an exit was recorded): verdict is */

struct cubic_flow {
	__u8 saddr[16]; /* IPv4: the first 4 bytes */
	__u8 daddr[16];
	__u16 family;	/* AF_INET, AF_INET6 */
	__u16 sport;	/* host order */
	__u16 dport;
	__u8 state;	/* sk_state (TCP_ESTABLISHED ...) */
	__u8 pad;
	__u32 flags;	/* CUBIC_FLOW_* */
	/* what ss -ti shows, from struct tcp_sock */
	__u32 cwnd;
	__u32 ssthresh;
	__u32 srtt_us;	 /* srtt_us >> 3, as tcp_info's tcpi_rtt */
	__u32 rttvar_us; /* mdev_us >> 2, as tcpi_rttvar */
	__u32 min_rtt_us;
	__u32 mss;
	__u32 packets_out;
	__u32 retrans_out;
	__u32 lost_out;
	__u32 total_retrans;
	__u64 bytes_acked;
	__u64 delivered;
	__u64 uid;	 /* the socket's owner (bpf_iter__tcp.uid) */
	struct cubic_state ca;	    /* inet_csk_ca(sk) */
	struct predict_state predict; /* CUBIC_FLOW_PREDICT */
	/*
	 * CUBIC_FLOW_PREDICT: the policer answer (predict_loss()): the
	 * ssthresh it set (0: none), the remembered rate the target came from
	 * (bytes/s; 0: none), whether an answer waits for the recovery's
	 * end (pol_pending), and whether a policer remembered without a rate
	 * held the jump back (polmem_no_jump; a pad byte before it: the
	 * record's size is unchanged), and why the estimate was set aside
	 * (busy, PREDICT_ASIDE_*: a busy path remembered, or a queue that rose
	 * since the handshake; 0: it was not; a pad byte before it too)
	 */
	__u64 policer_memory;
	__u32 policer_ssthresh;
	__u8 policer_pending;
	__u8 policer_no_jump;
	__u8 busy;
	__u8 pad2;
	struct verdict_store verdict; /* CUBIC_FLOW_VERDICT */
};

#endif /* CUBIC_FLOWS_ABI_H */
