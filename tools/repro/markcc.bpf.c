// SPDX-License-Identifier: GPL-2.0
/*
 * markcc: shows directly when a struct_ops congestion control is not run.
 *
 * A fixed window of MARK_CWND packets; .pkts_acked, which the kernel calls on
 * every ACK it processes (tcp_ack() -> tcp_clean_rtx_queue()), counts the
 * calls in the socket's icsk_ca_priv and writes the count into snd_ssthresh
 * as MARK_BASE + count. The tcp:tcp_probe tracepoint fires at the start of
 * each ACK's processing and records snd_ssthresh (and, with the tracefs option
 * record-tgid, the thread group of the task whose context processes it), so
 * sample i+1 shows whether the program ran for ACK i: the mark rose by one, or
 * stayed. tools/repro/skipdemo.sh counts both, by the context of ACK i.
 *
 * Build (from the repository root):
 *   clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I. \
 *         -c tools/repro/markcc.bpf.c -o build/markcc.bpf.o
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define MARK_BASE 0x10000000u
#define MARK_CWND 20

struct mark {
	__u32 acks;
};

static __always_inline struct mark *mark_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

SEC("struct_ops/markcc_init")
void BPF_PROG(markcc_init, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	mark_of(sk)->acks = 0;
	tp->snd_cwnd = MARK_CWND;
	tp->snd_ssthresh = MARK_BASE;
}

SEC("struct_ops/markcc_pkts_acked")
void BPF_PROG(markcc_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct mark *m = mark_of(sk);

	m->acks++;
	tp->snd_ssthresh = MARK_BASE + (m->acks & 0xffffff);
}

SEC("struct_ops/markcc_cong_avoid")
void BPF_PROG(markcc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	((struct tcp_sock *)sk)->snd_cwnd = MARK_CWND;
}

SEC("struct_ops/markcc_ssthresh")
__u32 BPF_PROG(markcc_ssthresh, struct sock *sk)
{
	return MARK_CWND;
}

SEC("struct_ops/markcc_undo_cwnd")
__u32 BPF_PROG(markcc_undo_cwnd, struct sock *sk)
{
	return MARK_CWND;
}

SEC(".struct_ops")
struct tcp_congestion_ops markcc = {
	.init = (void *)markcc_init,
	.pkts_acked = (void *)markcc_pkts_acked,
	.cong_avoid = (void *)markcc_cong_avoid,
	.ssthresh = (void *)markcc_ssthresh,
	.undo_cwnd = (void *)markcc_undo_cwnd,
	.name = "bct_markcc",
};
