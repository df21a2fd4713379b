// SPDX-License-Identifier: GPL-2.0
/*
 * skipcc: the smallest BPF congestion control that shows impossible windows on
 * kernel build 6.18.44-fc-v657 (docs/IMPOSSIBLE_WINDOWS.md).
 *
 * Its .ssthresh can only return a value between 2 and cwnd / 2, so a
 * tcp:tcp_probe sample with ssthresh > 0x7fffffff (or above any cwnd the
 * flow ever had) is a value this program never returned: the struct_ops
 * trampoline skipped it and handed the kernel an uninitialised stack slot.
 * That happens when the callback runs while the current task belongs to
 * thread group 1 (this build's __bpf_prog_enter() returns 0 there for a
 * program not owned by init, and the trampoline then returns [rbp-8]
 * unwritten).
 *
 * Build (from the repository root):
 *   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I. \
 *         -c tools/repro/skipcc.bpf.c -o build/skipcc.bpf.o
 * Run: tools/repro/run.sh (registers it as bct_skipcc, soaks it, unregisters).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

/* calls of .ssthresh that did run, and the largest value returned */
__u64 ssthresh_calls = 0;
__u32 ssthresh_max = 0;

SEC("struct_ops/skipcc_ssthresh")
__u32 BPF_PROG(skipcc_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;
	__u32 half = tp->snd_cwnd >> 1;
	__u32 ret = half > 2 ? half : 2;

	__sync_fetch_and_add(&ssthresh_calls, 1);
	if (ret > ssthresh_max)
		ssthresh_max = ret;
	return ret;
}

SEC("struct_ops/skipcc_cong_avoid")
void BPF_PROG(skipcc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/skipcc_undo_cwnd")
__u32 BPF_PROG(skipcc_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops skipcc = {
	.ssthresh = (void *)skipcc_ssthresh,
	.cong_avoid = (void *)skipcc_cong_avoid,
	.undo_cwnd = (void *)skipcc_undo_cwnd,
	.name = "bct_skipcc",
};
