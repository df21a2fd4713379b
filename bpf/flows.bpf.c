// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl flows: an iter/tcp program that writes one struct cubic_flow
 * (include/flows_abi.h) for each TCP socket of the iterating process's
 * network namespace whose congestion control is named ca_name: its windows
 * as tcp_info has them, bpf_cubic's private area (struct cubic_state, in
 * inet_csk_ca(sk)) and, when the flow has them, PREDICT's and the verdict's
 * socket storage. cubicctl hands it the instance's own storage maps
 * (bpf_map__reuse_fd), so the two maps here are never created. It only
 * reads; listening sockets, request and time-wait sockets are skipped.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "cubic_abi.h"
#include "flows_abi.h"

char LICENSE[] SEC("license") = "GPL";

#define FLOWS_AF_INET 2
#define FLOWS_AF_INET6 10
#define FLOWS_TCP_LISTEN 10

/* the instance's congestion-control name, set before load */
const volatile char ca_name[CUBIC_NAME_MAX] = {};

#include "stores.bpf.h" /* the two maps, as bpf_cubic defines them */

/* the record is larger than the BPF stack: it is built here */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cubic_flow);
} scratch SEC(".maps");

static __always_inline bool name_is_ours(const struct tcp_congestion_ops *ops)
{
	char name[CUBIC_NAME_MAX];

	if (bpf_probe_read_kernel(name, sizeof(name), &ops->name))
		return false;
	for (int i = 0; i < CUBIC_NAME_MAX; i++) {
		if (name[i] != ca_name[i])
			return false;
		if (!name[i])
			return true;
	}
	return true;
}

SEC("iter/tcp")
int cubic_flows(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct seq_file *seq = ctx->meta->seq;
	struct predict_store *ps;
	struct verdict_store *vs;
	struct cubic_flow *f;
	struct tcp_sock *tp;
	__u32 zero = 0;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp || skc->skc_state == FLOWS_TCP_LISTEN)
		return 0;
	if (!tp->inet_conn.icsk_ca_ops || !name_is_ours(tp->inet_conn.icsk_ca_ops))
		return 0;
	f = bpf_map_lookup_elem(&scratch, &zero);
	if (!f)
		return 0;
	__builtin_memset(f, 0, sizeof(*f));
	f->family = skc->skc_family;
	f->state = skc->skc_state;
	f->sport = skc->skc_num;
	f->dport = bpf_ntohs(skc->skc_dport);
	if (f->family == FLOWS_AF_INET6) {
		bpf_probe_read_kernel(f->saddr, 16, &skc->skc_v6_rcv_saddr);
		bpf_probe_read_kernel(f->daddr, 16, &skc->skc_v6_daddr);
	} else {
		bpf_probe_read_kernel(f->saddr, 4, &skc->skc_rcv_saddr);
		bpf_probe_read_kernel(f->daddr, 4, &skc->skc_daddr);
	}
	f->cwnd = tp->snd_cwnd;
	f->ssthresh = tp->snd_ssthresh;
	f->srtt_us = tp->srtt_us >> 3;
	f->rttvar_us = tp->mdev_us >> 2;
	f->min_rtt_us = tp->rtt_min.s[0].v;
	f->mss = tp->mss_cache;
	f->packets_out = tp->packets_out;
	f->retrans_out = tp->retrans_out;
	f->lost_out = tp->lost_out;
	f->total_retrans = tp->total_retrans;
	f->bytes_acked = tp->bytes_acked;
	f->delivered = tp->delivered;
	f->uid = ctx->uid;
	bpf_probe_read_kernel(&f->ca, sizeof(f->ca), tp->inet_conn.icsk_ca_priv);
	ps = bpf_sk_storage_get(&predict_store, tp, NULL, 0);
	if (ps) {
		f->flags |= CUBIC_FLOW_PREDICT;
		bpf_probe_read_kernel(&f->predict, sizeof(f->predict), &ps->st);
		f->policer_memory = ps->polmem_rate;
		f->policer_ssthresh = ps->pol_ssthresh;
		f->policer_pending = ps->pol_kept && ps->pol_pending;
		f->policer_no_jump = ps->polmem_no_jump;
		f->busy = ps->busy;
	}
	vs = bpf_sk_storage_get(&verdict_store, tp, NULL, 0);
	if (vs) {
		f->flags |= CUBIC_FLOW_VERDICT;
		bpf_probe_read_kernel(&f->verdict, sizeof(f->verdict), vs);
	}
	bpf_seq_write(seq, f, sizeof(*f));
	return 0;
}
