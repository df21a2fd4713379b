// SPDX-License-Identifier: GPL-2.0
/*
 * cubicctl attach: a cgroup sock_ops program that puts every TCP connection
 * made or accepted by a process of its cgroup on one congestion control (a
 * bpf_cubic instance), optionally only toward given prefixes or on given
 * ports. Per-service selection without touching the application, as
 * production users of BPF congestion control do it.
 *
 * When: the ACTIVE_ and PASSIVE_ESTABLISHED callbacks. tcp_init_transfer()
 * calls them before it initialises the congestion control ("unless BPF
 * initialized it already"), so the instance's .init is the first to run on
 * the connection: nothing of the previous algorithm's .init (bbr turning
 * pacing on, say) stays behind, unlike a setsockopt() after connect().
 *
 * A connection the kernel refuses to switch (the instance unloaded meanwhile,
 * say) keeps its congestion control and is counted; it is never reset.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "attach_abi.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_INET	    2
#define AF_INET6    10
#define SOL_TCP	    6
#define TCP_CONGESTION 13

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct attach_conf);
} conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, ATTACH_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct attach_lpm4);
	__type(value, __u8);
} dst4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, ATTACH_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct attach_lpm6);
	__type(value, __u8);
} dst6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ATTACH_MAX_PORTS);
	__type(key, __u16); /* host order */
	__type(value, __u8);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct attach_counters);
} counters SEC(".maps");

static __always_inline void count(int id)
{
	__u32 k = 0;
	struct attach_counters *c = bpf_map_lookup_elem(&counters, &k);

	if (c && id >= 0 && id < ATTACH_CNT_MAX)
		c->c[id]++;
}

static __always_inline bool dst_match(struct bpf_sock_ops *ops)
{
	if (ops->family == AF_INET) {
		struct attach_lpm4 k = { .prefixlen = 32, .addr = ops->remote_ip4 };

		return bpf_map_lookup_elem(&dst4, &k);
	} else {
		struct attach_lpm6 k = { .prefixlen = 128 };

		((__u32 *)k.addr)[0] = ops->remote_ip6[0];
		((__u32 *)k.addr)[1] = ops->remote_ip6[1];
		((__u32 *)k.addr)[2] = ops->remote_ip6[2];
		((__u32 *)k.addr)[3] = ops->remote_ip6[3];
		return bpf_map_lookup_elem(&dst6, &k);
	}
}

static __always_inline bool port_match(struct bpf_sock_ops *ops)
{
	/*
	 * local_port is in host order; remote_port in network order, and on a
	 * little-endian machine shifted into the upper 16 bits (the kernel's
	 * sock_ops_convert_ctx_access() loads skc_dport and shifts it left by 16)
	 */
	__u16 lport = (__u16)ops->local_port;
	__u16 rport = bpf_ntohs((__u16)(ops->remote_port >> 16));

	return bpf_map_lookup_elem(&ports, &lport) || bpf_map_lookup_elem(&ports, &rport);
}

SEC("sockops")
int cubicctl_attach(struct bpf_sock_ops *ops)
{
	struct attach_conf *cf;
	__u32 k = 0;

	if (ops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
	    ops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		return 1;
	if (ops->family != AF_INET && ops->family != AF_INET6)
		return 1;
	cf = bpf_map_lookup_elem(&conf, &k);
	if (!cf)
		return 1;
	count(ATTACH_CNT_SEEN);
	if (((cf->flags & ATTACH_F_DST) && !dst_match(ops)) ||
	    ((cf->flags & ATTACH_F_PORT) && !port_match(ops))) {
		count(ATTACH_CNT_SKIPPED);
		return 1;
	}
	if (bpf_setsockopt(ops, SOL_TCP, TCP_CONGESTION, cf->cc, sizeof(cf->cc)))
		count(ATTACH_CNT_FAILED);
	else
		count(ATTACH_CNT_SWITCHED);
	return 1;
}
