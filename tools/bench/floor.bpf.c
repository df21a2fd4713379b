// SPDX-License-Identifier: GPL-2.0
/*
 * The cheapest BPF congestion control there is: Reno, each op one kfunc call
 * into the kernel's own Reno. tools/bench/bench.sh --floor registers it next
 * to the kernel's reno; the difference per ACK is what the struct_ops
 * dispatch alone costs on this kernel and machine (one trip per ACK, through
 * .cong_avoid), the floor under any BPF congestion control.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops/bc_floor_cong_avoid")
void BPF_PROG(bc_floor_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bc_floor_ssthresh")
__u32 BPF_PROG(bc_floor_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bc_floor_undo_cwnd")
__u32 BPF_PROG(bc_floor_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

/* bench.sh --floor refuses to run if this name is taken */
SEC(".struct_ops")
struct tcp_congestion_ops bc_floor = {
	.cong_avoid = (void *)bc_floor_cong_avoid,
	.ssthresh = (void *)bc_floor_ssthresh,
	.undo_cwnd = (void *)bc_floor_undo_cwnd,
	.name = "bc_floor_reno",
};
