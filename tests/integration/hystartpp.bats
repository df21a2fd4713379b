#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# HyStart++ (RFC 9406) on a real flow: Conservative Slow Start is entered, then
# left for congestion avoidance after CSS_ROUNDS rounds, growing more slowly.

load lib

setup_file() {
	# 20 Mbit/s, 20 ms (BDP 33 packets), a deep buffer: CSS can run its rounds
	path_suite pp 20mbit 20ms 1500
}

teardown_file() {
	path_stop "$P"
}

setup() {
	NAME=$(test_name)
	TRACE_PID=
}

teardown() {
	instance_teardown "$NAME"
}

@test "a flow enters CSS, then leaves it for congestion avoidance, growing slower between" {
	"$CUBICCTL" load --name "$NAME" --preset hystart++
	"$CUBICCTL" trace --name "$NAME" --json --port 5201 >"$BATS_TEST_TMPDIR/t.out" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.3
	bulk "$P" "$NAME" 4 "$BATS_TEST_TMPDIR/a.json"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID"
	TRACE_PID=
	port=$(jq '.start.connected[0].local_port' "$BATS_TEST_TMPDIR/a.json")
	jq -c "select(.sport == $port and .record == \"exit\")" "$BATS_TEST_TMPDIR/t.out" >"$BATS_TEST_TMPDIR/flow.jsonl"
	cat "$BATS_TEST_TMPDIR/flow.jsonl"
	# the phases, in order: css_enter, (css_resume, css_enter)*, css_exit
	reasons=$(jq -r .reason "$BATS_TEST_TMPDIR/flow.jsonl" | tr '\n' ' ')
	[[ "$reasons" =~ ^css_enter\ (css_resume\ css_enter\ )*css_exit\ $ ]]
	enter=$(jq -c 'select(.css_enter)' "$BATS_TEST_TMPDIR/flow.jsonl" | tail -n 1)
	exit=$(jq -c 'select(.css_exit)' "$BATS_TEST_TMPDIR/flow.jsonl")
	# the entry decision: this round's min RTT >= last round's + RttThresh
	jq -e '.round_min_rtt_us >= .delay_thresh_us and .delay_thresh_us > .last_round_min_rtt_us' <<<"$enter"
	# still in slow start at entry; ssthresh = cwnd at exit
	[ "$(jq .ssthresh <<<"$enter")" -eq 2147483647 ]
	[ "$(jq .ssthresh <<<"$exit")" -eq "$(jq .cwnd <<<"$exit")" ]
	[ "$(jq .css_rounds <<<"$exit")" -eq 5 ]
	# slower than slow start: over 5 CSS rounds cwnd grew, but far less than 2^5
	ratio=$(jq -n --argjson a "$enter" --argjson b "$exit" '$b.cwnd / $a.cwnd')
	echo "cwnd $(jq .cwnd <<<"$enter") -> $(jq .cwnd <<<"$exit"): x$ratio"
	awk -v r="$ratio" 'BEGIN { exit !(r > 1.2 && r < 8) }'
	# status counts the phases
	st=$("$CUBICCTL" -j status --name "$NAME")
	[ "$(jq '.instances[0].counters.css_exit' <<<"$st")" -eq 1 ]
	[ "$(jq '.instances[0].counters.css_enter' <<<"$st")" -ge 1 ]
	# and it left slow start without a loss
	[ "$(jq '.end.sum_sent.retransmits' "$BATS_TEST_TMPDIR/a.json")" -eq 0 ]
}

@test "set preset=hystart++ switches a live instance, and back" {
	"$CUBICCTL" load --name "$NAME"
	run "$CUBICCTL" set --name "$NAME" preset=hystart++
	[ "$status" -eq 0 ]
	[[ "$output" == *"hystart 1 (linux) -> 2 (hystart++)"* ]]
	bulk "$P" "$NAME" 3 "$BATS_TEST_TMPDIR/a.json"
	[ "$(counter "$NAME" css_enter)" -ge 1 ]
	[ "$(counter "$NAME" exit_ack_train)" -eq 0 ]
	"$CUBICCTL" set --name "$NAME" hystart=linux
	bulk "$P" "$NAME" 3 "$BATS_TEST_TMPDIR/b.json"
	[ "$(("$(counter "$NAME" exit_ack_train)" + "$(counter "$NAME" exit_delay)"))" -ge 1 ]
}
