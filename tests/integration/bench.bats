#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The datapath benchmark (tools/bench/bench.sh) in CI size: bpf_cubic must keep
# at least 80% of the kernel's cubic goodput on a CPU-bound veth path, and the
# script must leave nothing behind, also when it is killed halfway.

load lib

BENCH="$REPO/tools/bench/bench.sh"
STATS=/proc/sys/kernel/bpf_stats_enabled

setup() {
	ensure_fs
	# bench.sh makes NAME-a and NAME-b; 13 characters at most
	NAME=bcb$(printf '%05d%04d' $(($$ % 100000)) $((RANDOM % 10000)))
	STATS_BEFORE=$(cat "$STATS")
}

teardown() {
	netns_del "$NAME-a" "$NAME-b"
	force_unload "$NAME"
	echo "$STATS_BEFORE" >"$STATS"
}

# Nothing of ours is left: namespaces, processes in them, the instance, the sysctl.
assert_clean() {
	[ ! -e "/run/netns/$NAME-a" ] || { echo "namespace $NAME-a is left" >&2; return 1; }
	[ ! -e "/run/netns/$NAME-b" ] || { echo "namespace $NAME-b is left" >&2; return 1; }
	assert_gone "$NAME"
	[ "$(cat "$STATS")" = "$STATS_BEFORE" ] ||
		{ echo "kernel.bpf_stats_enabled is $(cat "$STATS"), was $STATS_BEFORE" >&2; return 1; }
	! pgrep -f "iperf3 .*-C $NAME( |\$)" >/dev/null || { echo "an iperf3 of $NAME is left" >&2; return 1; }
}

@test "bench --quick: bpf_cubic keeps >= 80% of cubic's goodput, and cleans up" {
	# 9 alternating pairs: one flow on this 2-vCPU guest swings +-30% run to run,
	# so the statistic is the median of the pairs' ratios (adjacent runs share drift)
	run "$BENCH" --quick --runs 9 --name "$NAME" --json "$BATS_TEST_TMPDIR/b.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ratio bpf_cubic / cubic"* ]]
	[[ "$output" == *"bc_pkts_acked"* ]]
	j=$BATS_TEST_TMPDIR/b.json
	[ "$(jq '.goodput_bps.cubic | length' "$j")" -eq 9 ]
	[ "$(jq '.goodput_bps.bpf_cubic | length' "$j")" -eq 9 ]
	ratio=$(jq -r '[.goodput_bps.cubic, .goodput_bps.bpf_cubic] | transpose
		| map(.[1] / .[0]) | sort | .[length / 2 | floor]' "$j")
	echo "median pair ratio bpf_cubic / cubic: $ratio"
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8) }'
	assert_clean
}

@test "bench killed halfway (TERM while bpf_stats is on) leaves nothing behind" {
	"$BENCH" --runs 1 --duration 3 --flows "" --no-perf --name "$NAME" >/dev/null 2>&1 &
	pid=$!
	# wait for the bpf_stats run (or 25 s), then kill
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
