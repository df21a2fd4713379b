/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything the BPF program and cubicctl must agree on: names, pin paths,
 * counter indices, flag bits, the tunables map value. Fixed-width types only.
 */
#ifndef CUBIC_ABI_H
#define CUBIC_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Bumped when a map layout below changes; cubicctl refuses a mismatch. */
#define CUBIC_ABI_VERSION 2

/* The congestion-control name registered by a plain `cubicctl load`. */
#define CUBIC_DEFAULT_NAME "bpf_cubic"
/* TCP_CA_NAME_MAX in the kernel, including the NUL. */
#define CUBIC_NAME_MAX 16

/* Each instance keeps its maps pinned under CUBIC_PIN_ROOT/NAME/. */
#define CUBIC_PIN_ROOT	   "/sys/fs/bpf/cubicctl"
#define CUBIC_PIN_OPS	   "ops"      /* the struct_ops map: registration lives here */
#define CUBIC_PIN_TUNABLES "tunables" /* array[1] of struct cubic_tunables */
#define CUBIC_PIN_COUNTERS "counters" /* percpu array[1] of struct cubic_counters */
#define CUBIC_PIN_INFO	   "info"     /* array[1] of struct cubic_info */
#define CUBIC_PIN_EVENTS   "events"   /* ring buffer of struct cubic_event */

/* Default size of the events ring, bytes (a power of 2, at least a page). */
#define CUBIC_RING_DEFAULT (256 * 1024)

/* HyStart detector bits: the "hystart_detect" tunable and the exit flags. */
#define CUBIC_HYSTART_ACK_TRAIN 0x1
#define CUBIC_HYSTART_DELAY	0x2

/* Values of the "hystart" tunable. */
enum cubic_hystart_mode {
	CUBIC_HYSTART_OFF = 0,
	CUBIC_HYSTART_LINUX = 1,
	CUBIC_HYSTART_PP = 2, /* HyStart++, RFC 9406 */
};

/* Per-CPU counters of one instance; cubicctl sums them over CPUs. */
enum cubic_counter {
	CUBIC_CNT_FLOW_INIT,	   /* flows that ran our init */
	CUBIC_CNT_FLOW_RELEASE,	   /* flows released (closed or switched away) */
	CUBIC_CNT_EXIT_TRAIN,	   /* HyStart ACK-train exits (TcpExtTCPHystartTrainDetect) */
	CUBIC_CNT_EXIT_TRAIN_CWND, /* sum of cwnd at those exits (TcpExtTCPHystartTrainCwnd) */
	CUBIC_CNT_EXIT_DELAY,	   /* HyStart delay exits (TcpExtTCPHystartDelayDetect) */
	CUBIC_CNT_EXIT_DELAY_CWND, /* sum of cwnd at those exits (TcpExtTCPHystartDelayCwnd) */
	CUBIC_CNT_EXIT_LOSS,	   /* slow starts ended by loss, RTO or ECN before HyStart */
	CUBIC_CNT_EXIT_LOSS_CWND,  /* sum of cwnd at those exits */
	CUBIC_CNT_CSS_ENTER,	   /* HyStart++: entries into Conservative Slow Start */
	CUBIC_CNT_CSS_RESUME,	   /* HyStart++: spurious exits undone (back to slow start) */
	CUBIC_CNT_CSS_EXIT,	   /* HyStart++: CSS ended, congestion avoidance */
	CUBIC_CNT_CSS_EXIT_CWND,   /* sum of cwnd at those exits */
	CUBIC_CNT_EVENTS,	   /* records written to the ring */
	CUBIC_CNT_EVENT_DROPS,	   /* records lost: the ring was full */
	CUBIC_CNT_REPAIRED,	   /* impossible cwnd/ssthresh found and replaced (docs/IMPOSSIBLE_WINDOWS.md) */
	CUBIC_CNT_MAX
};

struct cubic_counters {
	__u64 c[CUBIC_CNT_MAX];
};

/*
 * Written by cubicctl once at load; lets later commands check the ABI.
 * abi_version stays the first field in every version: any cubicctl reads it
 * from byte 0 to know whether it may read the rest.
 */
struct cubic_info {
	__u32 abi_version;
	__u32 reserved;
	__u64 load_time_ns; /* CLOCK_REALTIME at load */
	char name[CUBIC_NAME_MAX];
};

/* cubic_event.flags: why the record was written (one or more) ... */
#define CUBIC_EV_ACK_TRAIN CUBIC_HYSTART_ACK_TRAIN /* HyStart's ACK train fired */
#define CUBIC_EV_DELAY	   CUBIC_HYSTART_DELAY	   /* HyStart's delay test fired */
#define CUBIC_EV_LOSS	   0x0004 /* slow start ended by loss, RTO or ECN before HyStart */
#define CUBIC_EV_CSS_ENTER  0x0008 /* HyStart++: slow start -> Conservative Slow Start */
#define CUBIC_EV_CSS_RESUME 0x0010 /* HyStart++: RTT fell below the baseline: back to slow start */
#define CUBIC_EV_CSS_EXIT   0x0020 /* HyStart++: CSS_ROUNDS done: congestion avoidance */
#define CUBIC_EV_REASONS   0x00ff
/* ... and the flow's context */
#define CUBIC_EV_CWND_LIMITED 0x0100 /* tcp_sock.is_cwnd_limited */
#define CUBIC_EV_RWND_LIMITED 0x0200 /* the peer's window (snd_wnd) is below cwnd x mss */
#define CUBIC_EV_PACED	      0x0400 /* sk_pacing_status != SK_PACING_NONE */
#define CUBIC_EV_INITIAL      0x0800 /* the flow's first slow start (ssthresh was unset) */

/* One record per slow-start exit, in the events ring. */
struct cubic_event {
	__u64 ts_ns;	      /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 cookie;	      /* socket cookie; 0 if the kernel has not made one yet */
	__u64 since_start_us; /* since the flow's init */
	__u64 pacing_rate;    /* bytes/s */
	__u64 bytes_acked;
	__u32 flags;	      /* CUBIC_EV_* */
	__u32 cwnd;	      /* packets, at the exit */
	__u32 ssthresh;	      /* packets, as set by the exit */
	__u32 delay_min_us;
	__u32 round_min_rtt_us; /* this round's minimum RTT (~0: no sample yet) */
	__u32 rtt_us;		/* this ACK's RTT sample (0 for LOSS) */
	__u32 train_len_us;	/* ACK train length, when the train fired */
	__u32 train_thresh_us;	/* the threshold it crossed */
	__u32 delay_thresh_us;	/* delay_min + clamp(...), when the delay test fired;
				 * HyStart++: lastRoundMinRTT + RttThresh at CSS entry */
	__u32 last_round_min_rtt_us; /* HyStart++: the previous round's minimum RTT */
	__u32 css_baseline_us;	/* HyStart++: cssBaselineMinRtt (~0: none) */
	__u32 css_rounds;	/* HyStart++: CSS rounds so far */
	__u32 samples;		/* RTT samples in this round */
	__u32 rounds;		/* HyStart rounds since the flow began */
	__u32 srtt_us;
	__u32 mss;
	__u32 snd_wnd;		/* the peer's receive window, bytes */
	__u32 rwnd_limited_ms;	/* time the flow has spent receive-window limited */
	__u16 family;		/* AF_INET or AF_INET6 */
	__u16 sport;		/* host order */
	__u16 dport;		/* host order */
	__u16 pad;
	__u8 saddr[16];		/* IPv4 in the first 4 bytes */
	__u8 daddr[16];
	char instance[CUBIC_NAME_MAX];
};

#include "cubic_tunables.h"

#endif /* CUBIC_ABI_H */
