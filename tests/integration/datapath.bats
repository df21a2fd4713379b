#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The fast datapath (cubicctl load --datapath fast): .cong_control, with the
# kernel's PRR, pacing rate and restart after idle re-done in BPF. Each test
# holds it against the kernel's cubic on the same emulated path.

load lib

IDLEFLOW="$BATS_TEST_DIRNAME/idleflow.py"
SINK_PORT=5400

setup_file() {
	# 50 Mbit/s, 20 ms (BDP 86 packets), a quarter-BDP buffer: slow start
	# overshoots and ends in loss recovery
	path_suite dp 50mbit 20ms 0.25bdp
	sink_start "$SINK_PORT"
}

teardown_file() {
	sink_stop
	path_stop "$P"
}

setup() {
	NAME=$(test_name)
	TRACE_PID=
}

teardown() {
	ip netns exec "$P-snd" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0 2>/dev/null || true
	instance_teardown "$NAME"
}

# op OP: what the kernel has in the instance's struct_ops for OP: the program
# name, or 0 for none
op() {
	local id
	id=$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$NAME/ops" | jq .id)
	bpftool -j struct_ops dump id "$id" | grep -o "\"$1\":\"[^\"]*\"" |
		sed -e 's/.*) //' -e 's/"$//' -e 's/\/prog_id:.*//'
}

@test "load --datapath fast registers the cong_control ops; status says which" {
	run "$CUBICCTL" load --name "$NAME" --datapath fast
	[ "$status" -eq 0 ]
	[[ "$output" == *"fast datapath"* ]]
	run "$CUBICCTL" status --name "$NAME"
	[[ "$output" == *"datapath  fast"* ]]
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].datapath')" = fast ]
	# the kernel sees cong_control and neither pkts_acked nor cong_avoid
	[ "$(op cong_control)" = bc_cong_control ]
	[ "$(op pkts_acked)" = 0 ]
	[ "$(op cong_avoid)" = 0 ]
	[ "$(op set_state)" = bc_set_state_fast ]
	"$CUBICCTL" unload --name "$NAME"
	# the default is the exact datapath
	"$CUBICCTL" load --name "$NAME"
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].datapath')" = exact ]
	[ "$(op cong_control)" = 0 ]
	[ "$(op pkts_acked)" = bc_pkts_acked ]
	[ "$(op cong_avoid)" = bc_cong_avoid ]
	[ "$(op set_state)" = bc_set_state ]
}

@test "load --datapath with a bad value is a usage error and loads nothing" {
	run "$CUBICCTL" load --name "$NAME" --datapath slow
	[ "$status" -eq 2 ]
	[[ "$output" == *"'slow' is not one of: exact, fast"* ]]
	[ "$(echo "$output" | grep -c .)" -eq 1 ]
	assert_gone "$NAME"
	run "$CUBICCTL" load --name "$NAME" --datapath
	[ "$status" -eq 2 ]
	assert_gone "$NAME"
}

# idle_run CA IDLE_S: one flow that goes idle; prints its JSON line. A flow
# whose last packets are still unACKed when the idle time starts (a tail loss
# on this lossy path, then RTO backoff) tests nothing: up to 3 tries.
idle_run() {
	local r i
	for i in 1 2 3; do
		r=$(window_watch "$P-snd" "$(path_bound)" "idle $1" \
			ip netns exec "$P-snd" /usr/bin/python3 "$IDLEFLOW" run 10.77.2.2 "$SINK_PORT" "$1" 1.5 "$2")
		[ "$(jq .before.unacked <<<"$r")" -ne 0 ] || break
		echo "retry: not drained before the idle time: $r" >&2
	done
	echo "$r"
}

@test "restart after idle: the fast datapath cuts cwnd exactly as the kernel does" {
	"$CUBICCTL" load --name "$NAME" --datapath fast
	ip netns exec "$P-snd" sysctl -qw net.ipv4.tcp_slow_start_after_idle=1
	for ca in cubic "$NAME"; do
		# idle 0.4 s, between one and two RTOs (RTO >= 200 ms): one halving
		r=$(idle_run "$ca" 0.4)
		echo "$r"
		b=$(jq .before.cwnd <<<"$r") a=$(jq .after.cwnd <<<"$r")
		[ "$b" -gt 20 ]
		[ "$a" -eq $((b / 2)) ]
		# ssthresh keeps 3/4 of the old cwnd: tcp_current_ssthresh(), (cwnd >> 1) + (cwnd >> 2)
		[ "$(jq .after.ssthresh <<<"$r")" -ge $(((b >> 1) + (b >> 2))) ]
		# idle 1.2 s, over 4 RTOs at our 20 ms RTT: down to the initial window
		r=$(idle_run "$ca" 1.2)
		echo "$r"
		[ "$(jq .after.cwnd <<<"$r")" -eq 10 ]
	done
	# without net.ipv4.tcp_slow_start_after_idle neither restarts
	ip netns exec "$P-snd" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
	for ca in cubic "$NAME"; do
		r=$(idle_run "$ca" 0.6)
		echo "$r"
		[ "$(jq .after.cwnd <<<"$r")" -eq "$(jq .before.cwnd <<<"$r")" ]
	done
}

@test "a passive open gets its first pacing rate at the handshake, as with the kernel's cubic" {
	"$CUBICCTL" load --name "$NAME" --datapath fast
	for ca in cubic "$NAME"; do
		ip netns exec "$P-rcv" /usr/bin/python3 "$IDLEFLOW" accept 5401 "$ca" >"$BATS_TEST_TMPDIR/acc" &
		srv=$!
		for _ in $(seq 50); do grep -q listening "$BATS_TEST_TMPDIR/acc" && break; sleep 0.1; done
		window_watch "$P-rcv" "$(path_bound)" "passive open $ca" \
			ip netns exec "$P-snd" /usr/bin/python3 "$IDLEFLOW" connect 10.77.2.2 5401
		wait "$srv"
		r=$(tail -n 1 "$BATS_TEST_TMPDIR/acc")
		echo "$r"
		[ "$(jq -r .ca <<<"$r")" = "$ca" ]
		# tcp_update_pacing_rate() in slow start: 200 % of cwnd x mss per
		# srtt, the handshake's RTT (10 x 1448 bytes per 20 ms is 1.45 MB/s).
		# The formula, not the path's figure: a CI run's host held the
		# handshake 120 ms once, and the rate followed its srtt. Unset it
		# would be 2^64 - 1.
		rate=$(jq .pacing_rate <<<"$r") srtt=$(jq .srtt_us <<<"$r")
		[ "${#rate}" -le 10 ]
		[ "$(jq .cwnd <<<"$r")" -eq 10 ]
		[ "$srtt" -ge 19000 ]
		want=$((2 * 10 * $(jq .mss <<<"$r") * 1000000 / srtt))
		echo "pacing_rate $rate, 200 % of cwnd x mss / srtt $want"
		[ "$((rate * 100))" -ge "$((want * 97))" ] && [ "$((rate * 100))" -le "$((want * 103))" ]
	done
}

# ss's pacing_rate of the bulk flow to port 5201 against the kernel's own
# formula's base, max(cwnd, packets in flight) x mss / srtt
# (tcp_update_pacing_rate(): in a recovery the flight is above the reduced
# cwnd; a CI-like run read the kernel's cubic at 233 % of cwnd x mss / srtt
# there), in percent, sampled mid-flow. iperf3's control connection goes to
# the same port and stays in slow start at cwnd 10 (paced at 200 %), in
# whichever order ss lists the two: the bulk flow is the one that has sent
# the most.
pacing_pct() {
	ip netns exec "$P-snd" ss -tin dst 10.77.2.2 dport = 5201 |
		awk '/cwnd:/ {
			mss = cwnd = rtt = rate = sent = unacked = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^mss:/) { split($i, a, ":"); mss = a[2] }
				if ($i ~ /^cwnd:/) { split($i, a, ":"); cwnd = a[2] }
				if ($i ~ /^unacked:/) { split($i, a, ":"); unacked = a[2] + 0 }
				if ($i ~ /^rtt:/) { split($i, a, "[:/]"); rtt = a[2] }
				if ($i ~ /^bytes_sent:/) { split($i, a, ":"); sent = a[2] + 0 }
				if ($i == "pacing_rate") { r = $(i + 1); sub(/bps/, "", r)
					m = 1; if (r ~ /K$/) m = 1e3; if (r ~ /M$/) m = 1e6; if (r ~ /G$/) m = 1e9
					sub(/[KMG]$/, "", r); rate = r * m }
			}
			if (mss && cwnd && rtt && rate && sent > best) {
				w = unacked > cwnd ? unacked : cwnd
				best = sent; pct = rate / (w * mss * 8 / (rtt / 1000)) * 100
			}
		}
		END { if (best) printf "%.0f\n", pct }'
}

@test "a lossy path: the fast datapath recovers and paces like the kernel's cubic" {
	"$CUBICCTL" load --name "$NAME" --datapath fast
	# pairs of runs, cubic then fast; from the second pair on, stop once the
	# fast datapath's best is within 15 % of cubic's best. The path emulator
	# is a user-space process: on a machine busy with other work it gets
	# less CPU in some runs than in others (45 Mbit/s in one run, 11 in the
	# next, seen here), so one slow run is not a verdict; a datapath that
	# moves less data does so in every pair, and fails after the fourth.
	for round in 1 2 3 4; do
		for ca in cubic "$NAME"; do
			bulk "$P" "$ca" 4 "$BATS_TEST_TMPDIR/$ca.json" &
			sleep 2.5
			pct=$(pacing_pct)
			wait $!
			gp=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$BATS_TEST_TMPDIR/$ca.json")
			rt=$(jq '.end.sum_sent.retransmits' "$BATS_TEST_TMPDIR/$ca.json")
			echo "$ca: ${gp} Mbit/s, $rt retransmits, pacing ${pct}% of max(cwnd, in flight) x mss / srtt"
			echo "$ca $gp $rt $pct" >>"$BATS_TEST_TMPDIR/runs"
			# the quarter-BDP buffer overflows in slow start: a recovery happened
			[ "$rt" -gt 0 ]
			# after slow start the kernel paces at 120 % (tcp_pacing_ca_ratio), 200 %
			# while cwnd < ssthresh / 2: the fast datapath must keep that up to date
			[ -n "$pct" ] && [ "$pct" -ge 100 ] && [ "$pct" -le 220 ]
		done
		c=$(awk '$1 == "cubic" && $2 > m { m = $2 } END { print m }' "$BATS_TEST_TMPDIR/runs")
		f=$(awk -v n="$NAME" '$1 == n && $2 > m { m = $2 } END { print m }' "$BATS_TEST_TMPDIR/runs")
		[ "$round" -ge 2 ] && [ $((f * 100)) -ge $((c * 85)) ] && break
	done
	# and it moves as much data: best of each, within 15 %
	[ $((f * 100)) -ge $((c * 85)) ]
	# the loss ended slow start, counted as such
	[ "$(counter "$NAME" exit_loss)" -ge 1 ]
}

# On the VM platform whose kernel skips struct_ops programs in the context of
# PID 1 (docs/IMPOSSIBLE_WINDOWS.md), tools/lib/pid1-aside.sh keeps PID 1 off
# the CPUs the path's softirqs run on; without it about 1 % of the ACKs went
# without the program there (705 of 85,704 in one run). Elsewhere it checks
# the same: markcc counts its .pkts_acked calls, tcp_probe shows every ACK.
@test "every ACK of 4 flows on an emulated path runs the congestion control's program" {
	run "$REPO/tools/lib/pid1-aside.sh" "$REPO/tools/repro/skipdemo.sh" --rounds 2 --duration 3 --prefix "$(test_name)"
	echo "$output" | tail -3
	[ "$status" -eq 0 ]
	[[ "$output" == *"in other contexts: "[1-9]*", not run for 0,"* ]]
}
