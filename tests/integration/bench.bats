#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The datapath benchmark (tools/bench/bench.sh) in CI size: both bpf_cubic
# datapaths (exact: pkts_acked + cong_avoid, fast: cong_control) must keep at
# least 80% of the kernel's cubic goodput on a CPU-bound veth path, and the
# script must leave nothing behind, also when it is killed halfway.

load lib

BENCH="$REPO/tools/bench/bench.sh"
STATS=/proc/sys/kernel/bpf_stats_enabled

setup() {
	ensure_fs
	# bench.sh makes NAME (exact), NAMEf (fast), NAME-a and NAME-b; NAME has 14 characters at most
	NAME=bcb$(printf '%05d%04d' $(($$ % 100000)) $((RANDOM % 10000)))
	STATS_BEFORE=$(cat "$STATS")
}

teardown() {
	netns_del "$NAME-a" "$NAME-b"
	force_unload "$NAME"
	force_unload "${NAME}f"
	echo "$STATS_BEFORE" >"$STATS"
}

# A tcp_congestion_ops struct_ops map named N (its .name, not the map's) exists.
struct_ops_named() {
	local id
	for id in $(bpftool -j struct_ops show 2>/dev/null |
		jq -r '.[] | select(.kernel_struct_ops == "tcp_congestion_ops") | .id'); do
		{ echo '['; bpftool -j struct_ops dump id "$id" 2>/dev/null; echo ']'; } |
			jq -r '.[] | .bpf_struct_ops_tcp_congestion_ops.data.name // empty' 2>/dev/null
	done | grep -qx "$1"
}

# Nothing of ours is left: namespaces, processes in them, both instances (their
# registration, pins and struct_ops maps), iperf3 clients, the sysctl.
assert_clean() {
	local n
	[ ! -e "/run/netns/$NAME-a" ] || { echo "namespace $NAME-a is left" >&2; return 1; }
	[ ! -e "/run/netns/$NAME-b" ] || { echo "namespace $NAME-b is left" >&2; return 1; }
	for n in snd rtr rcv; do
		[ ! -e "/run/netns/${NAME}v-$n" ] || { echo "the verdict's path ${NAME}v ($n) is left" >&2; return 1; }
	done
	for n in "$NAME" "${NAME}f"; do
		assert_gone "$n"
		# the kernel frees an unregistered struct_ops map a moment later
		for _ in $(seq 30); do
			struct_ops_named "$n" || break
			sleep 0.1
		done
		! struct_ops_named "$n" || { echo "a struct_ops map of $n is left" >&2; return 1; }
		! pgrep -f "iperf3 .*-C $n( |\$)" >/dev/null || { echo "an iperf3 of $n is left" >&2; return 1; }
	done
	[ "$(cat "$STATS")" = "$STATS_BEFORE" ] ||
		{ echo "kernel.bpf_stats_enabled is $(cat "$STATS"), was $STATS_BEFORE" >&2; return 1; }
}

@test "bench --quick: both datapaths keep >= 80% of cubic's goodput, and it cleans up" {
	# 7 rounds of cubic / exact / fast: one flow on this 2-vCPU guest swings
	# +-30% run to run, so the statistic is the median of the rounds' ratios
	# (runs of one round share drift). One flow count keeps it near 70 s.
	j=$BATS_TEST_TMPDIR/b.json
	run "$BENCH" --quick --runs 7 --flows 1 --name "$NAME" --min-ratio 0.8 --json "$j"
	echo "$output"
	# 3: a median ratio below --min-ratio, checked against the JSON below
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	assert_clean
	# both datapaths in every table
	[[ "$output" == *"ratio bpf_cubic exact / cubic"* ]]
	[[ "$output" == *"ratio bpf_cubic fast / cubic"* ]]
	[[ "$output" == *"| exact / cubic | fast / cubic |"* ]]
	[[ "$output" == *"BPF run time per callback, bpf_cubic exact"* ]]
	[[ "$output" == *"BPF run time per callback, bpf_cubic fast"* ]]
	# the per-ACK program of each: bc_pkts_acked (exact), bc_cong_control (fast)
	[[ "$output" == *"| bc_pkts_acked | "* ]]
	[[ "$output" == *"| bc_cong_control | "* ]]
	[[ "$output" == *"ns per ACK = sum of run_time_ns over all programs / bc_pkts_acked run_cnt"* ]]
	[[ "$output" == *"ns per ACK = sum of run_time_ns over all programs / bc_cong_control run_cnt"* ]]
	[[ "$output" == *"| cubic Gbit/s | exact Gbit/s | fast Gbit/s |"* ]]
	[ "$(sed -n '/^### With tracing/,/^### The exit/p' <<<"$output" | grep -c '^| bpf_cubic \(exact\|fast\) | [0-9]')" -eq 2 ]
	[ "$(jq '.cubic.goodput_bps | length' "$j")" -eq 7 ]
	[ "$(jq '.exact.goodput_bps | length' "$j")" -eq 7 ]
	[ "$(jq '.fast.goodput_bps | length' "$j")" -eq 7 ]
	[ "$(jq -r '.exact.per_ack_program' "$j")" = bc_pkts_acked ]
	[ "$(jq -r '.fast.per_ack_program' "$j")" = bc_cong_control ]
	# the verdict's measurement, on and off, for each datapath: both figures, and
	# the verdict=1 runs' flows (2 in --quick) each measured to its close
	for d in exact fast; do
		jq -e --arg d "$d" '.[$d].ns_per_ack_verdict | (.on | tonumber) > 0 and (.off | tonumber) > 0' "$j"
		grep -E "^\| bpf_cubic $d \| [0-9]+ \| [0-9]+ \| [-+][0-9]+ \| 2 verdicts, 2 measured to the close" <<<"$output"
	done
	# the keys of a bench without datapaths are the exact datapath's
	jq -e '.goodput_bps.bpf_cubic == .exact.goodput_bps and .ratio == .exact.ratio' "$j"
	below=0
	for d in exact fast; do
		ratio=$(jq -r --arg d "$d" '[.cubic.goodput_bps, .[$d].goodput_bps] | transpose
			| map(.[1] / .[0]) | sort | .[length / 2 | floor]' "$j")
		reported=$(jq -r --arg d "$d" '.[$d].ratio.median' "$j")
		echo "median round ratio bpf_cubic $d / cubic: $ratio (report: $reported)"
		awk -v a="$ratio" -v b="$reported" 'BEGIN { exit !(a - b < 0.0006 && b - a < 0.0006) }'
		if awk -v r="$reported" 'BEGIN { exit !(r < 0.8) }'; then
			below=1
			[[ "$output" == *"median goodput ratio bpf_cubic $d / cubic "*" is below 0.8"* ]]
		fi
	done
	# --min-ratio gates both datapaths
	[ "$status" -eq $((below ? 3 : 0)) ]
	[ "$below" -eq 0 ]
}

@test "bench: bad --cpus and --floor without perf are usage errors that start nothing" {
	run "$BENCH" --cpus 7,0 --name "$NAME"
	[ "$status" -eq 2 ]
	[[ "$output" == *"CPU 7 does not exist"* ]]
	run "$BENCH" --cpus 0 --name "$NAME"
	[ "$status" -eq 2 ]
	run "$BENCH" --floor --no-perf --name "$NAME"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--floor needs the perf profile"* ]]
	! registered bc_floor_reno || false
	assert_clean
}

@test "bench killed halfway (TERM while bpf_stats is on) leaves nothing behind" {
	"$BENCH" --runs 1 --duration 2 --flows "" --no-perf --name "$NAME" >/dev/null 2>&1 &
	pid=$!
	# wait for the first bpf_stats run (or 25 s), when both instances are loaded, then kill
	for _ in $(seq 250); do
		[ "$(cat "$STATS")" = 1 ] && [ -e "/run/netns/$NAME-a" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	at_kill=$(cat "$STATS")
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	# it was killed with bpf_stats on (when it was off before), so the restore was tested
	[ "$STATS_BEFORE" = 1 ] || [ "$at_kill" = 1 ]
	assert_clean
}

@test "bench: an impossible window fails the run loudly and leaves nothing behind" {
	# every cwnd is above a bound of 5 packets: the first run (the warm-up) must fail
	run env BENCH_WINDOW_BOUND=5 "$BENCH" --quick --runs 1 --flows 1 --name "$NAME"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"IMPOSSIBLE WINDOW: cubic -P 1: cubic flow 10.99.0.1:"*" at t="*"cwnd "*" > bound 5 packets"* ]]
	[[ "$output" == *"bench.sh: impossible window during iperf3 -C cubic -P 1"* ]]
	assert_clean
}
