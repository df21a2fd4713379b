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
#define CUBIC_ABI_VERSION 1

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

/* HyStart detector bits: the "hystart_detect" tunable and the exit flags. */
#define CUBIC_HYSTART_ACK_TRAIN 0x1
#define CUBIC_HYSTART_DELAY	0x2

/* Values of the "hystart" tunable. */
enum cubic_hystart_mode {
	CUBIC_HYSTART_OFF = 0,
	CUBIC_HYSTART_LINUX = 1,
};

/* Per-CPU counters of one instance; cubicctl sums them over CPUs. */
enum cubic_counter {
	CUBIC_CNT_FLOW_INIT,	/* flows that ran our init */
	CUBIC_CNT_FLOW_RELEASE, /* flows released (closed or switched away) */
	CUBIC_CNT_EXIT_TRAIN,	/* HyStart ACK-train exits (TcpExtTCPHystartTrainDetect) */
	CUBIC_CNT_EXIT_TRAIN_CWND, /* sum of cwnd at those exits (TcpExtTCPHystartTrainCwnd) */
	CUBIC_CNT_EXIT_DELAY,	   /* HyStart delay exits (TcpExtTCPHystartDelayDetect) */
	CUBIC_CNT_EXIT_DELAY_CWND, /* sum of cwnd at those exits (TcpExtTCPHystartDelayCwnd) */
	CUBIC_CNT_MAX
};

struct cubic_counters {
	__u64 c[CUBIC_CNT_MAX];
};

/* Written by cubicctl once at load; lets later commands check the ABI. */
struct cubic_info {
	__u32 abi_version;
	__u32 reserved;
	__u64 load_time_ns; /* CLOCK_REALTIME at load */
	char name[CUBIC_NAME_MAX];
};

#include "cubic_tunables.h"

#endif /* CUBIC_ABI_H */
