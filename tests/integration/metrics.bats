#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# cubicctl status --prometheus: what node_exporter's textfile collector reads,
# parsed by prometheus_client's own parser and compared with status -j; and
# cubicctl --version.

load lib

PROMCHECK="/usr/bin/python3 $BATS_TEST_DIRNAME/promcheck.py"

setup_file() {
	path_suite pm 50mbit 40ms 1bdp
}

teardown_file() {
	path_stop "$P"
}

setup() {
	NE_PID=
	NAME=$(test_name)
	NAME2=$(test_name)y
}

teardown() {
	[ -n "${NE_PID:-}" ] && kill "$NE_PID" 2>/dev/null
	instance_teardown "$NAME" "$NAME2"
}

# promcheck NAME...: the Prometheus text parses and says what status -j says
promcheck() {
	"$CUBICCTL" -j status >"$BATS_TEST_TMPDIR/status.json" || true
	"$CUBICCTL" status --prometheus >"$BATS_TEST_TMPDIR/prom.txt" || true
	$PROMCHECK "$BATS_TEST_TMPDIR/status.json" "$@" <"$BATS_TEST_TMPDIR/prom.txt"
}

@test "status --prometheus parses and carries a flow's counts, exits and tunables" {
	"$CUBICCTL" load --name "$NAME"
	"$CUBICCTL" load --name "$NAME2" --datapath fast --preset hystart++
	bulk "$P" "$NAME" 2 "$BATS_TEST_TMPDIR/a.json"
	bulk "$P" "$NAME2" 2 "$BATS_TEST_TMPDIR/b.json"
	run promcheck "$NAME" "$NAME2"
	echo "$output"
	[ "$status" -eq 0 ]
	# the flows were counted, and an exit with its cwnd
	grep -qE "^bpf_cubic_flows_init_total\{name=\"$NAME\"\} [1-9]" "$BATS_TEST_TMPDIR/prom.txt"
	[ "$(awk -v n="$NAME" '$0 ~ "^bpf_cubic_exits_total\\{name=\"" n "\"" {s += $2} END {print s + 0}' \
		"$BATS_TEST_TMPDIR/prom.txt")" -ge 1 ]
	grep -q "^bpf_cubic_info{name=\"$NAME2\",datapath=\"fast\",abi=\"[0-9]*\"} 1$" "$BATS_TEST_TMPDIR/prom.txt"
	grep -q "^bpf_cubic_tunable{name=\"$NAME2\",key=\"hystart\"} 2$" "$BATS_TEST_TMPDIR/prom.txt"
	# a live change shows at the next scrape
	"$CUBICCTL" set --name "$NAME" beta=800 >/dev/null
	run promcheck "$NAME"
	[ "$status" -eq 0 ]
	grep -q "^bpf_cubic_tunable{name=\"$NAME\",key=\"beta\"} 800$" "$BATS_TEST_TMPDIR/prom.txt"
}

@test "the exit-ratio histogram parses as a Prometheus histogram and its buckets add up to the verdicts traced" {
	"$CUBICCTL" load --name "$NAME"
	"$CUBICCTL" load --name "$NAME2" --datapath fast ack_train_shift=10 hystart_low_window=2
	for n in "$NAME" "$NAME2"; do
		"$CUBICCTL" -j trace --name "$n" >"$BATS_TEST_TMPDIR/$n.trace" 2>/dev/null &
		echo $! >"$BATS_TEST_TMPDIR/$n.tpid"
	done
	sleep 0.3
	# three flows each, one after the other: ordinary exits, and hair-trigger ones
	for i in 1 2 3; do
		bulk "$P" "$NAME" 2 "$BATS_TEST_TMPDIR/a.json"
		bulk "$P" "$NAME2" 2 "$BATS_TEST_TMPDIR/b.json"
	done
	# every flow closed: its verdict is written (at congestion, or at the close)
	sleep 1
	for n in "$NAME" "$NAME2"; do
		kill -INT "$(cat "$BATS_TEST_TMPDIR/$n.tpid")"
		wait "$(cat "$BATS_TEST_TMPDIR/$n.tpid")" || true
	done
	run promcheck "$NAME" "$NAME2"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^# TYPE bpf_cubic_exit_ratio histogram$' "$BATS_TEST_TMPDIR/prom.txt"
	for n in "$NAME" "$NAME2"; do
		# the histogram, from the verdicts trace printed: per exit reason, the count in
		# each bucket (le, inclusive) and above the last
		want=$(jq -rs '[.[] | select(.record == "verdict" and .exit_ratio != null)
			| . as $v | (.exit_reason | split("+"))[] | {r: ., x: $v.exit_ratio}]
			| group_by(.r)[] | .[0].r as $r
			| [0.25, 0.5, 0.8, 1, 1.25, 2, 4, 1e9] as $le
			| [$le[] as $b | [.[] | select(.x <= $b)] | length]
			| "\($r) \(join(" "))"' "$BATS_TEST_TMPDIR/$n.trace")
		echo "$n: from trace: $want"
		[ -n "$want" ]
		while read -r r b1 b2 b3 b4 b5 b6 b7 binf; do
			got=$(for le in 0.25 0.5 0.8 1 1.25 2 4 +Inf; do
				grep -F "bpf_cubic_exit_ratio_bucket{name=\"$n\",reason=\"$r\",le=\"$le\"}" \
					"$BATS_TEST_TMPDIR/prom.txt" | awk '{print $2}'
			done | tr '\n' ' ')
			echo "$n $r: prometheus $got"
			[ "$got" = "$b1 $b2 $b3 $b4 $b5 $b6 $b7 $binf " ]
			grep -qx "bpf_cubic_exit_ratio_count{name=\"$n\",reason=\"$r\"} $binf" "$BATS_TEST_TMPDIR/prom.txt"
		done <<<"$want"
		# and the flows counted: every exit that ended slow start has one verdict,
		# joined by flow_id and exit time, and every verdict is one exit's (a
		# later exit of a flow writes the earlier one's first: bpf/verdict.bpf.h)
		flows=$(counter "$n" flows_init)
		verdicts=$(jq -s '[.[] | select(.record == "verdict")] | length' "$BATS_TEST_TMPDIR/$n.trace")
		joined=$(jq -rs '
			[.[] | select(.record == "exit" and (.reason | test("css_enter|css_resume") | not))] as $x
			| [.[] | select(.record == "verdict")] as $v
			| ([$v[] | . as $w | select([$x[] | select(.flow_id == $w.flow_id and .time == $w.exit_time)] | length != 1)] | length) as $orphan
			| ([$x[] | . as $e | select([$v[] | select(.flow_id == $e.flow_id and .exit_time == $e.time)] | length != 1)] | length) as $unjudged
			| "\($x | length) \($x | map(.flow_id) | unique | length) \($orphan) \($unjudged)"' "$BATS_TEST_TMPDIR/$n.trace")
		read -r exits exit_flows orphan unjudged <<<"$joined"
		echo "$n: $flows flows, $exits exits ending slow start in $exit_flows flows, $verdicts verdicts ($orphan without their exit, $unjudged exits without one verdict), $(counter "$n" records_dropped) records dropped"
		jq -c 'select(.record == "exit" or .record == "verdict") | {record, flow_id, sport, time, exit_time, reason, initial, cwnd, verdict, "end": .end}' "$BATS_TEST_TMPDIR/$n.trace"
		[ "$flows" -ge 3 ]
		[ "$exit_flows" -ge 3 ]
		[ "$orphan" -eq 0 ]
		[ "$unjudged" -eq 0 ]
		[ "$verdicts" -eq "$exits" ]
		[ "$("$CUBICCTL" -j status --name "$n" | jq '.instances[0].counters | .verdicts_premature + .verdicts_ok + .verdicts_overshoot + .verdicts_unknown')" -eq "$verdicts" ]
	done
	# the hair-trigger instance's exits are below half the pipe: all in the lowest buckets
	grep -qx "bpf_cubic_exit_ratio_bucket{name=\"$NAME2\",reason=\"ack_train\",le=\"0.5\"} [1-9][0-9]*" "$BATS_TEST_TMPDIR/prom.txt"
	# status's text shows the same histogram
	"$CUBICCTL" status --name "$NAME2" | grep -E "^  exit/BDP  ack_train [1-9][0-9]*: <=0.25 [0-9]+, <=0.5"
}

@test "status --prometheus --name: one instance; not loaded is bpf_cubic_up 0 and exit 3" {
	"$CUBICCTL" load --name "$NAME"
	run "$CUBICCTL" status --prometheus --name "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == *"bpf_cubic_up{name=\"$NAME\"} 1"* ]]
	[[ "$output" != *'name="bpf_cubic"'* ]]
	"$CUBICCTL" -j status >"$BATS_TEST_TMPDIR/status.json"
	$PROMCHECK "$BATS_TEST_TMPDIR/status.json" "$NAME" <<<"$output"
	rc=0
	"$CUBICCTL" status --prometheus --name "$NAME2" >"$BATS_TEST_TMPDIR/prom.txt" \
		2>"$BATS_TEST_TMPDIR/err" || rc=$?
	[ "$rc" -eq 3 ]
	grep -q "^bpf_cubic_up{name=\"$NAME2\"} 0$" "$BATS_TEST_TMPDIR/prom.txt"
	grep -q "$NAME2 is not loaded" "$BATS_TEST_TMPDIR/err"
	$PROMCHECK "$BATS_TEST_TMPDIR/status.json" "$NAME2" <"$BATS_TEST_TMPDIR/prom.txt"
}

@test "status --prometheus with --json is a usage error" {
	run "$CUBICCTL" -j status --prometheus
	[ "$status" -eq 2 ]
	[[ "$output" == *"choose one"* ]]
}

@test "--version names the release, the git description and the ABI; status shows the ABI" {
	run "$CUBICCTL" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^cubicctl\ [0-9]+\.[0-9]+\.[0-9]+\ \(.+\),\ ABI\ [0-9]+$ ]]
	abi=$(grep -oE 'ABI [0-9]+' <<<"$output" | cut -d' ' -f2)
	[ "$("$CUBICCTL" -j --version | jq .abi_version)" -eq "$abi" ]
	"$CUBICCTL" load --name "$NAME"
	run "$CUBICCTL" status --name "$NAME"
	[[ "$output" == *"  abi       $abi"* ]]
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq '.instances[0].abi_version')" -eq "$abi" ]
}

# Debian's node_exporter, unpacked into build/ (not installed: installing it
# would start a daemon on the machine)
node_exporter() {
	local d="$REPO/build/node-exporter" deb
	if [ ! -x "$d/usr/bin/prometheus-node-exporter" ]; then
		mkdir -p "$d/dl"
		(cd "$d/dl" && apt-get download prometheus-node-exporter >/dev/null 2>&1) ||
			{ echo "apt-get download prometheus-node-exporter failed" >&2; return 1; }
		deb=$(ls "$d"/dl/prometheus-node-exporter_*.deb | head -n 1)
		dpkg-deb -x "$deb" "$d" && rm -rf "$d/dl"
	fi
	echo "$d/usr/bin/prometheus-node-exporter"
}

@test "node_exporter's textfile collector serves the file as written the documented way" {
	ne=$(node_exporter)
	"$CUBICCTL" load --name "$NAME"
	dir="$BATS_TEST_TMPDIR/textfile"
	mkdir -p "$dir"
	# README "Monitoring": write beside, then rename
	"$CUBICCTL" status --prometheus >"$dir/cubicctl.prom.$$"; mv "$dir/cubicctl.prom.$$" "$dir/cubicctl.prom"
	port=$(( 20000 + RANDOM % 20000 ))
	"$ne" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$dir" \
		--web.listen-address="127.0.0.1:$port" >"$BATS_TEST_TMPDIR/ne.log" 2>&1 &
	NE_PID=$!
	for _ in $(seq 50); do
		curl -sf "127.0.0.1:$port/metrics" >"$BATS_TEST_TMPDIR/metrics" 2>/dev/null && break
		sleep 0.1
	done
	kill "$NE_PID"; wait "$NE_PID" 2>/dev/null || true
	NE_PID=
	grep -q "^bpf_cubic_up{name=\"$NAME\"} 1$" "$BATS_TEST_TMPDIR/metrics"
	grep -q "^node_textfile_scrape_error 0$" "$BATS_TEST_TMPDIR/metrics"
	grep -q "^bpf_cubic_tunable{key=\"beta\",name=\"$NAME\"} 717$" "$BATS_TEST_TMPDIR/metrics"
}
