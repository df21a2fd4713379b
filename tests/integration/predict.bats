#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# PREDICT (hystart=predict, include/predict_core.h) on real flows: the exit
# lands where the initial window's ACK dispersion said the BDP is, the
# record carries the estimate, the kernel's pacing and the fill's cap are
# PREDICT's only while it needs them (and an owner's own cap is left alone),
# a flow without socket storage falls back to Linux HyStart, and with
# predict_jump a transfer over a long RTT finishes sooner; ACKs that come in
# bunches are measured across the bunches.

load lib

IDLEFLOW="$BATS_TEST_DIRNAME/idleflow.py"
SINK_PORT=5410

setup_file() {
	# 50 Mbit/s, 20 ms (BDP 84 packets), a 1-BDP buffer: the initial
	# window's train lasts 7 x 240 us, long enough for a few per cent.
	path_suite pr 50mbit 20ms 1bdp
	sink_start "$SINK_PORT"
}

teardown_file() {
	sink_stop
	path_stop "$P"
}

setup() {
	NAME=$(test_name)
	NAME2=
	JPATH=
	SINK_PID=
	TRACE_PID=
}

teardown() {
	[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null
	[ -n "$JPATH" ] && path_down "$JPATH"
	instance_teardown "$NAME" ${NAME2:+"$NAME2"}
}

# iperf3 intervals of 0.1 s: the checks look at the first 0.4 s
FLOW_INTERVAL=0.1

# pol_exit IPERF TRACE: the flow's first exit record in TRACE (cubicctl trace
# --json), its iperf3 retransmissions beside it (retx)
pol_exit() {
	local port
	port=$(jq '.start.connected[0].local_port' "$1")
	jq -c --argjson r "$(jq '.end.sum_sent.retransmits' "$1")" \
		"select(.sport == $port and .reason != null) | . + {retx: \$r}" "$2" | head -n 1
}


# bulk_watched OUT SECS AT: a bulk flow of SECS seconds on JPATH with the
# test's instance (iperf3's JSON in OUT.json), and cubicctl flows of its
# sender, JSON and text, taken AT seconds in (OUT.flows, OUT.flows.txt), or
# as soon after as PREDICT has judged the flow's first rounds (a phase past
# "measure"): on a loaded host the flow can start late (the window watcher
# starts first), and a listing taken before it shows nothing to check
bulk_watched() {
	local bpid i
	bulk "$JPATH" "$NAME" "$2" "$1.json" &
	bpid=$!
	sleep "$3"
	for ((i = 0; i < 10; i++)); do
		"$CUBICCTL" -j flows --name "$NAME" --netns "$JPATH-snd" >"$1.flows"
		jq -e '[.flows[] | select(.predict != null and .predict.phase != "measure")] | length > 0' \
			"$1.flows" >/dev/null && break
		sleep 0.1
	done
	"$CUBICCTL" flows --name "$NAME" --netns "$JPATH-snd" >"$1.flows.txt"
	wait "$bpid"
}

# beside_one_flow SUFFIX RATE RTT PORT TRIES SELECT SHOW: JPATH (RATE, RTT, a
# 1-BDP buffer) with one competing cubic flow (pathemu cross on PORT), the
# test's instance loaded with predict-jump, predict_busy=0 and
# predict_rise_us=0 (every flow measures and may jump) and traced; up to
# TRIES 2-s flows, each one's exit record printed through the jq filter
# SHOW; the first whose record matches the jq filter SELECT is left in
# $found (empty if none did)
beside_one_flow() {
	local sfx=$1 tries=$5 select=$6 show=$7 i rec
	JPATH="${P}$sfx"
	path_up "$JPATH" "$2" "$3" 1bdp
	netns_iperf_server "$JPATH-rcv" 5201
	"$PATHEMU" cross --name "$JPATH" --flows 1 --cc cubic --port "$4" >/dev/null
	"$CUBICCTL" load --name "$NAME" --preset predict-jump predict_busy=0 predict_rise_us=0
	"$CUBICCTL" trace --name "$NAME" --json >"$BATS_TEST_TMPDIR/$sfx.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 3
	found=
	for ((i = 1; i <= tries; i++)); do
		bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/$sfx$i.json"
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/$sfx$i.json" "$BATS_TEST_TMPDIR/$sfx.trace")
		echo "flow $i: $(jq -c "$show" <<<"$rec")"
		if jq -e "$select" <<<"$rec" >/dev/null; then
			found=$rec
			break
		fi
	done
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
}

# policed_path SUFFIX BUCKET PRESET TRACE: eval's pol100_40 link (100 Mbit/s,
# 40 ms, 1 BDP) behind a 20 Mbit/s policer with BUCKET, as JPATH (an iperf3
# server on its receiver), the test's instance loaded with PRESET and traced
# (--json) into TRACE
policed_path() {
	JPATH="${P}$1"
	path_up "$JPATH" 100mbit 40ms 1bdp --policer "20mbit:$2"
	netns_iperf_server "$JPATH-rcv" 5201
	"$CUBICCTL" load --name "$NAME" --preset "$3"
	"$CUBICCTL" trace --name "$NAME" --json >"$4" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.5
}

# check_no_jump_mark REC POL: the flow REC left the policer POL without a
# rate. It jumped and was not held back by a memory; its answer settled at
# the loss (predict_policer, the window) or, with fewer than 4 marked lost
# then, at the recovery's end, after the record (predict_policer 0, and the
# retreat's window instead). The entry is this path's, listed as such.
check_no_jump_mark() {
	jq -e '.predict_jump_from > 0 and .predict_policer_memory == 0 and
		(.predict_policer > 0 or .predict_retreat > 0) and .retx > 20' <<<"$1"
	jq -e --arg ns "$JPATH-snd" '[.policers[] | select(.kind == "policer")][0] | .netns == $ns and .daddr == "10.77.2.2" and
		.rate == 0 and .flows == 1 and .expires_in_s > 200' <<<"$2"
	run "$CUBICCTL" policers --name "$NAME"
	[ "$status" -eq 0 ]
	[[ $output == "$NAME $JPATH-snd 10.77.2.2 rate:unmeasured(no-jump) delay_min:"*"ms age:"* ]]
}

# capflow OUT RATE: idleflow.py's capflow (2 s) to the sink, traced
capflow() {
	"$CUBICCTL" trace --name "$NAME" --json --port "$SINK_PORT" >"$BATS_TEST_TMPDIR/$1.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.3
	ip netns exec "$P-snd" /usr/bin/python3 "$IDLEFLOW" capflow 10.77.2.2 "$SINK_PORT" "$NAME" 2 "$2" \
		>"$BATS_TEST_TMPDIR/$1.out"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	cat "$BATS_TEST_TMPDIR/$1.out" "$BATS_TEST_TMPDIR/$1.trace"
}

# forget_memory: what the test's instance remembers (policers, busy paths) is
# forgotten, so that the next flow meets the path afresh. A try that
# host_decided() let pass can leave the path remembered busy (a fill the
# delay backstop ended below its target reads as a queue: docs/RULES.md, "The
# busy path remembered"), and the next try's estimate would be set aside
# (predict_busy; in CI, try 2 after a 9.9-ms stall of the host in try 1)
forget_memory() {
	"$CUBICCTL" policers --name "$NAME" --forget all >/dev/null
}

# host_decided WHAT REC: REC, a flow's first exit record not PREDICT's, is
# one of two things the busy machine does and the path does not (says which
# and succeeds), else fails. (1) a train it bunched is refused, counted as a
# failed round, and HyStart decides. (2) with a train believed, a stall of
# the host delays a whole bunch of ACKs, and HyStart's delay test, PREDICT's
# backstop during the fill, sees an RTT more over the minimum than the
# path's queue can make at that cwnd: max(0, cwnd - BDP) packets of 240 us,
# plus 1 ms (one CI run: 5.1 ms over at cwnd 88 on this 84-packet pipe, the
# fill 5.4 ms longer than the 41-43 ms of 24 flows here, idle or busy). A
# backstop exit on a rise the path could make is not the host's.
host_decided() {
	local what=$1 rec=$2
	if jq -e '.predict_target > 0 and .predict_cwnd_set > 0' <<<"$rec" >/dev/null; then
		jq -e ".initial and .reason == \"delay\" and .cwnd <= .predict_target and
			(.round_min_rtt_us - .delay_min_us) > ([.cwnd - $PATH_BDP, 0] | max) * 240 + 1000" <<<"$rec" || return 1
		echo "$what: the delay backstop ended the fill at cwnd $(jq .cwnd <<<"$rec") of $(jq .predict_target <<<"$rec"), on an RTT $(jq '.round_min_rtt_us - .delay_min_us' <<<"$rec") us over the minimum: the host's delay, not the path's"
		return 0
	fi
	jq -e '.predict_failed_rounds > 0 and .initial and (.predict_capped | not)' <<<"$rec" || return 1
	echo "$what: PREDICT refused the train (rate $(jq .predict_rate <<<"$rec"), mean $(jq .predict_mean_rate <<<"$rec")), $(jq -r .reason <<<"$rec") decided"
}

@test "preset predict, both datapaths: slow start ends at the BDP the first long enough ACK train measured, before any loss" {
	# the path's payload rate: 50 Mbit/s of 1500-byte packets carrying 1448
	rate=$((50000000 / 8 * 1448 / 1500))
	for dp in exact fast; do
		"$CUBICCTL" load --name "$NAME" --preset predict --datapath "$dp"
		# up to 3 flows: see host_decided
		for try in 1 2 3; do
			[ "$try" -eq 1 ] || forget_memory
			traced_flow "$dp" 2
			rec=$(head -n 1 "$BATS_TEST_TMPDIR/$dp.jsonl")
			jq -e '.reason == "predict"' <<<"$rec" >/dev/null && break
			host_decided "$dp try $try" "$rec"
		done
		# the first record of the flow, its initial slow start, ended by PREDICT
		jq -e '.reason == "predict" and .predict and .initial' <<<"$rec"
		jq -e '.predict_paced and .predict_capped and .paced and (.predict_no_storage | not)' <<<"$rec"
		# the estimate: the initial window's train (round 1 is iperf3's cookie),
		# or a later round's if the initial window's was shorter than
		# predict_min_train_us (not a failure: the machine bunched its ACKs),
		# within 30 % of the bottleneck (one ACK the 2-CPU machine held back
		# 330 us stretched a 1.7 ms train by 19 % in 2 of 22 flows here; the
		# precision is tools/eval's figure), its fit and mean within 10 %, or
		# within 20 % and the lower of the two believed (predict_disagreed)
		jq -e '.predict_round >= 2 and .predict_round <= 4 and .predict_failed_rounds == 0' <<<"$rec"
		jq -e '.predict_train_acks >= 5 and .predict_train_us >= 1000' <<<"$rec"
		jq -e "(.predict_rate / $rate) > 0.7 and (.predict_rate / $rate) < 1.3" <<<"$rec"
		jq -e 'if .predict_disagreed
			then .predict_rate <= .predict_mean_rate and .predict_rate * 10 >= .predict_mean_rate * 8
			else ((.predict_rate - .predict_mean_rate) | fabs) <= .predict_mean_rate / 10 end' <<<"$rec"
		# delay_min is the path's 20 ms (plus processing)
		jq -e '.predict_delay_min_us >= 19500 and .predict_delay_min_us < 22000' <<<"$rec"
		# target = ceil(rate x delay_min / mss x 1.03): the record's own numbers
		jq -e '.predict_target == ((.predict_rate * .predict_delay_min_us / 1000000 | floor) * 1030 / (.mss * 1000) | ceil)' <<<"$rec"
		# set after the initial window's round, reached by slow start: cwnd = ssthresh = target
		jq -e '.predict_cwnd_set >= 10 and .predict_cwnd_set < .predict_target' <<<"$rec"
		jq -e '.cwnd == .predict_target and .ssthresh == .cwnd and .predict_fill_us > 0' <<<"$rec"
		target=$(jq .predict_target <<<"$rec")
		echo "$dp: target $target, BDP $PATH_BDP, rate $(jq .predict_rate <<<"$rec") B/s of $rate"
		[ "$target" -ge $((PATH_BDP * 7 / 10)) ] && [ "$target" -le $((PATH_BDP * 4 / 3)) ]
		# no loss in slow start: none in the first 0.4 s (the exit is at about
		# 0.15 s; congestion avoidance fills the 1-BDP buffer later)
		jq -e '.since_start_us < 300000' <<<"$rec"
		[ "$(jq '[.intervals[] | .streams[0] | select(.end <= 0.41) | .retransmits] | add' "$BATS_TEST_TMPDIR/$dp.json")" -eq 0 ]
		# status counts it on the exits line, by the same table as every reason
		[ "$(counter "$NAME" exit_predict)" -eq 1 ]
		[ "$(counter "$NAME" exit_predict_cwnd_sum)" -eq "$target" ]
		[ "$(counter "$NAME" predict_no_storage)" -eq 0 ]
		"$CUBICCTL" status --name "$NAME" | grep -E "^  exits .*predict 1 \(mean cwnd $target\.0\)"
		"$CUBICCTL" status --name "$NAME" | grep -qx '  predict   0 flows without socket storage (Linux HyStart decided for them)'
		"$CUBICCTL" unload --name "$NAME"
	done
}

@test "preset predict: ACKs aggregated in 4 ms bunches are measured across the bunches, and slow start ends near the BDP" {
	# eval's agg50_20_4: 50 Mbit/s, 20 ms, a 2-BDP buffer, the ACKs released
	# together every 4 ms (as over Wi-Fi or DOCSIS). HyStart's ACK train
	# never forms there (its gaps are over 2 ms): the kernel's cubic leaves
	# slow start at 4 x the BDP with about 90 retransmissions. Before PREDICT
	# measured across bunches, every round's train ended at its first bunch.
	JPATH="${P}a"
	path_start "$JPATH" 50mbit 20ms 2bdp --ack-agg 4ms
	P=$JPATH
	rate=$((50000000 / 8 * 1448 / 1500))
	"$CUBICCTL" load --name "$NAME" --preset predict
	# up to 5 flows: HyStart's delay test sits near its threshold on this
	# path (each RTT sample carries up to 4 ms of hold, the threshold is
	# 4 ms) and fired before PREDICT's round was complete in 1 flow of 6 in
	# tools/eval; a train whose corners are not on a line is refused. One
	# estimate off the rate is allowed, not two: one flow of about 30 here
	# and in tools/eval believed a train of 11 bunches at 0.43 x the rate
	# (docs/RULES.md, "ACK aggregation")
	believed=0 wrong=0
	for try in 1 2 3 4 5; do
		traced_flow "agg$try" 2
		rec=$(head -n 1 "$BATS_TEST_TMPDIR/agg$try.jsonl")
		if jq -e '.predict_target > 0' <<<"$rec" >/dev/null &&
			! jq -e "(.predict_rate / $rate) > 0.8 and (.predict_rate / $rate) < 1.25" <<<"$rec" >/dev/null; then
			wrong=$((wrong + 1))
			echo "try $try: an estimate off the rate: $(jq .predict_rate <<<"$rec") B/s of $rate"
			[ "$wrong" -le 1 ]
			continue
		fi
		if jq -e '.reason == "predict"' <<<"$rec" >/dev/null; then
			believed=$try
			break
		fi
		echo "try $try: $(jq -r .reason <<<"$rec") decided at cwnd $(jq .cwnd <<<"$rec")"
	done
	[ "$believed" -gt 0 ]
	# the train went on across long ACK gaps: one point per bunch
	jq -e '.predict_train_gaps >= 1 and .predict_train_acks >= 5 and .initial' <<<"$rec"
	cwnd=$(jq .cwnd <<<"$rec")
	echo "exit at cwnd $cwnd (BDP $PATH_BDP), rate $(jq .predict_rate <<<"$rec") B/s of $rate"
	[ "$cwnd" -ge $((PATH_BDP * 8 / 10)) ] && [ "$cwnd" -le $((PATH_BDP * 3 / 2)) ]
	# no loss in slow start (it ends at about 0.15 s)
	[ "$(jq '[.intervals[] | .streams[0] | select(.end <= 0.41) | .retransmits] | add' "$BATS_TEST_TMPDIR/agg$believed.json")" -eq 0 ]
	"$CUBICCTL" unload --name "$NAME"
}

@test "trace's text line gives PREDICT's estimate" {
	"$CUBICCTL" load --name "$NAME" --preset predict
	# a flow whose train the busy host bunched has no estimate to give:
	# up to 3 flows (host_decided); a stall that set off the delay backstop
	# during the fill leaves the estimate on the line, reason delay
	for try in 1 2 3; do
		[ "$try" -eq 1 ] || forget_memory
		traced_flow text 2 --text
		cat "$BATS_TEST_TMPDIR/text.txt"
		grep -q ' predict: no estimate in ' "$BATS_TEST_TMPDIR/text.txt" || break
		echo "try $try: PREDICT refused the train"
	done
	grep -E ' (predict|delay) +[0-9]+ +[0-9]+ .* predict: [0-9]+\.[0-9] Mbit/s( \(the lower of its fit and mean, which disagreed\))? from round [2-4].s train of [0-9]+ ACKs over [0-9.]+ ms x delay_min [0-9.]+ ms -> target [0-9]+ \(set at cwnd [0-9]+, [0-9.]+ ms ago\), paced by PREDICT, capped at the estimate$' \
		"$BATS_TEST_TMPDIR/text.txt"
}

@test "the fill's pacing cap is given back at the exit, and an owner's own cap is left alone" {
	"$CUBICCTL" load --name "$NAME" --preset predict
	# no cap of its own: PREDICT caps the fill, then the socket is unlimited again
	unlimited=18446744073709551615
	# A busy machine bunches the initial window's ACKs now and then (CI saw
	# 10 ACKs in 1.2 ms where the path spaces them over 2.2 ms): PREDICT
	# then rightly refuses the train (fit and mean disagree), counts a failed
	# round and Linux HyStart decides (or a stall sets off the backstop:
	# host_decided). That flow still owes the socket an uncapped rate; the
	# cap itself needs a flow PREDICT decided, so try 3.
	decided=0
	for try in 1 2 3; do
		[ "$try" -eq 1 ] || forget_memory
		capflow free 0
		out=$(head -n 1 "$BATS_TEST_TMPDIR/free.out")
		jq -e ".max_before == $unlimited and .max_after == $unlimited" <<<"$out"
		rec=$(head -n 1 "$BATS_TEST_TMPDIR/free.trace")
		if jq -e '.reason == "predict"' <<<"$rec" >/dev/null; then
			decided=1
			break
		fi
		# not decided by PREDICT: only for the host's reasons, said so
		host_decided "try $try" "$rec"
	done
	[ "$decided" -eq 1 ]
	jq -e '.reason == "predict" and .predict_capped' <<<"$rec"
	# (the cap, seen between sends, was about the estimate)
	jq -e ".max_low < $unlimited" <<<"$out"
	low=$(jq .max_low <<<"$out")
	est=$(jq .predict_rate <<<"$rec")
	[ "$low" -eq "$est" ]
	# the owner's 2 MB/s: a paced flow, never measured, never capped by PREDICT
	capflow owned 2000000
	out=$(head -n 1 "$BATS_TEST_TMPDIR/owned.out")
	jq -e '.max_before == 2000000 and .max_low == 2000000 and .max_after == 2000000' <<<"$out"
	[ "$(jq -s 'map(select(.predict or .predict_capped or .predict_target != null)) | length' \
		"$BATS_TEST_TMPDIR/owned.trace")" -eq 0 ]
	[ "$(counter "$NAME" exit_predict)" -eq 1 ]
}

@test "a flow without PREDICT's socket storage falls back to Linux HyStart, and its records say so" {
	"$CUBICCTL" load --name "$NAME" --preset linux
	"$CUBICCTL" trace --name "$NAME" --json --port "$SINK_PORT" >"$BATS_TEST_TMPDIR/t.out" 2>/dev/null &
	TRACE_PID=$!
	go=$BATS_TEST_TMPDIR/go
	ip netns exec "$P-snd" /usr/bin/python3 "$IDLEFLOW" late 10.77.2.2 "$SINK_PORT" "$NAME" "$go" 2 \
		>"$BATS_TEST_TMPDIR/late.out" &
	late=$!
	for _ in $(seq 100); do
		grep connected "$BATS_TEST_TMPDIR/late.out" >/dev/null && break
		sleep 0.1
	done
	grep connected "$BATS_TEST_TMPDIR/late.out" >/dev/null
	"$CUBICCTL" set --name "$NAME" hystart=predict
	touch "$go"
	wait "$late"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	cat "$BATS_TEST_TMPDIR/t.out"
	rec=$(head -n 1 "$BATS_TEST_TMPDIR/t.out")
	jq -e '.predict_no_storage and (.predict | not) and .predict_rate == null' <<<"$rec"
	[ "$(counter "$NAME" predict_no_storage)" -eq 1 ]
	[ "$(counter "$NAME" exit_predict)" -eq 0 ]
	"$CUBICCTL" status --name "$NAME" | grep -qx '  predict   1 flows without socket storage (Linux HyStart decided for them)'
}

@test "bad PREDICT values are refused with one sentence, and change nothing" {
	"$CUBICCTL" load --name "$NAME" --preset predict
	before=$("$CUBICCTL" -j get --name "$NAME")
	run "$CUBICCTL" set --name "$NAME" predict_pace=2
	[ "$status" -eq 2 ]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	[[ "$output" == *"predict_pace: 2 is out of range (allowed 0..1, or off, on, false, true)"* ]]
	run "$CUBICCTL" set --name "$NAME" predict_cap=4001
	[ "$status" -eq 2 ]
	[[ "$output" == *"predict_cap: 4001 is out of range (allowed 0..4000)"* ]]
	run "$CUBICCTL" set --name "$NAME" predict_min_train_us=10
	[ "$status" -eq 2 ]
	[ "$("$CUBICCTL" -j get --name "$NAME")" = "$before" ]
	run "$CUBICCTL" set --name "$NAME" predict_margin=50 predict_pace=off
	[ "$status" -eq 0 ]
	[ "$("$CUBICCTL" -j get --name "$NAME" | jq .tunables.predict_margin)" -eq 50 ]
	[ "$("$CUBICCTL" -j get --name "$NAME" | jq .tunables.predict_pace)" -eq 0 ]
}

@test "predict_jump: 5 MB over 100 ms finish sooner than without the jump, and the record shows the jump" {
	# the SUSS group's path (issue 20): 50 Mbit/s, 100 ms, 413 packets (BDP 417)
	JPATH="${P}j"
	path_up "$JPATH" 50mbit 100ms 413
	bound=$(window_bound "$PATH_BDP" "$PATH_BUF")
	XFER=$BATS_TEST_DIRNAME/../../tools/fct/xfer.py
	ip netns exec "$JPATH-rcv" /usr/bin/python3 "$XFER" sink --port 5412 >/dev/null 2>&1 &
	SINK_PID=$!
	NAME2=$(test_name)
	"$CUBICCTL" load --name "$NAME" --preset predict
	"$CUBICCTL" load --name "$NAME2" --preset predict-jump
	[ "$("$CUBICCTL" -j get --name "$NAME2" | jq .tunables.predict_jump)" -eq 500 ]
	"$CUBICCTL" trace --name "$NAME2" --json >"$BATS_TEST_TMPDIR/jump.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.5
	# interleaved, five each: the machine's noise hits both alike (a loaded
	# machine spoils about one train in five; then HyStart decides, no jump)
	for i in 1 2 3 4 5; do
		for n in "$NAME" "$NAME2"; do
			ip netns exec "$JPATH-snd" /usr/bin/python3 "$XFER" send --addr 10.77.2.2 --port 5412 \
				--ca "$n" --bytes 5000000 --bound "$bound" >>"$BATS_TEST_TMPDIR/$n.fct"
			sleep 0.3
		done
	done
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	cat "$BATS_TEST_TMPDIR/$NAME.fct" "$BATS_TEST_TMPDIR/$NAME2.fct" "$BATS_TEST_TMPDIR/jump.trace"
	off=$(jq -s 'map(.fct_s) | sort | .[2]' "$BATS_TEST_TMPDIR/$NAME.fct")
	on=$(jq -s 'map(.fct_s) | sort | .[2]' "$BATS_TEST_TMPDIR/$NAME2.fct")
	echo "median FCT: jump off $off s, jump on $on s"
	# every transfer completed, on the algorithm asked
	[ "$(jq -s 'map(select(.ca == .ca_asked and .bytes_acked > 5000000)) | length' \
		"$BATS_TEST_TMPDIR/$NAME.fct" "$BATS_TEST_TMPDIR/$NAME2.fct")" -eq 10 ]
	# the jump saves about three of the doubling's RTTs (0.3 s of ~1.4 s);
	# generous: at least 0.1 s sooner, at most the physical limit (0.93 s)
	jq -ne "$on < $off - 0.1 and $on > 0.9"
	# the records: PREDICT's exit after a jump to about half the target, from
	# the cwnd of the first round, with no retreat (nothing was lost)
	jq -s -e 'map(select(.reason == "predict" and .predict_jump_from > 0)) | length >= 3' \
		"$BATS_TEST_TMPDIR/jump.trace"
	rec=$(jq -c 'select(.reason == "predict" and .predict_jump_from > 0)' "$BATS_TEST_TMPDIR/jump.trace" | head -n 1)
	jq -e '.predict_jump * 2 < .predict_target and .predict_jump * 2 >= .predict_target - 2' <<<"$rec"
	jq -e '.predict_jump_from == .predict_cwnd_set and .predict_jump_from < 40' <<<"$rec"
	jq -e '.predict_round <= 2 and .predict_retreat == 0 and .cwnd == .predict_target' <<<"$rec"
	jq -e '.predict_paced and .predict_capped' <<<"$rec"
	# the fill took about one RTT after the jump, not the doubling's four
	jq -e '.predict_fill_us < 250000' <<<"$rec"
}

@test "a policer met once: the next flows to that destination fill to the policed rate and lose less; another path's do not; cubicctl policers lists and forgets it" {
	# eval's pol100_40: 100 Mbit/s, 40 ms, policed at 20 Mbit/s with a 100 kB
	# bucket (policed BDP 67 packets); the bucket lets the first rounds through
	# at the line rate, so PREDICT believes the line rate (BDP 333)
	policed_path p 100kb predict "$BATS_TEST_TMPDIR/pol.trace"
	exit_of() { pol_exit "$1" "$BATS_TEST_TMPDIR/pol.trace"; }
	# A first flow's loss is recognised as the policer's when the kernel has
	# marked at least 4 packets lost as it asks for ssthresh, and kept when the
	# loss came with no queue (1/20): not every first flow is (in a CI-like
	# run one lost by HyStart's unpaced bursts at RTT 1.11 x delay_min). So
	# flows until one is remembered and two after it took the memory, at most 7.
	for i in 1 2 3 4 5 6 7; do
		bulk "$JPATH" "$NAME" 3 "$BATS_TEST_TMPDIR/pol$i.json"
		sleep 0.5
		exit_of "$BATS_TEST_TMPDIR/pol$i.json" >>"$BATS_TEST_TMPDIR/pol.jsonl"
		[ "$(jq -s 'map(select(.predict_policer_memory > 0)) | length' "$BATS_TEST_TMPDIR/pol.jsonl")" -lt 2 ] ||
			break
	done
	# cubicctl policers lists it: the sender's namespace, the receiver, the
	# rate the last flow took, the lower one its loss confirmed or the higher
	# one a flow's congestion avoidance measured (a raise, at most double:
	# predict_polmem_raised()) (bytes/s), in force for its 300 s; held to the
	# last flow that took the memory (a flow HyStart sent out before PREDICT
	# judged it took none, below). The rate is the policed
	# 2.5 MB/s as the recovery measured it (2.29-2.41 in runs), not the loss's
	# rate sample with the bucket's burst in it (3.66-3.84): at most 1.25 x
	# the policed rate, and at least half of it
	run "$CUBICCTL" -j policers --name "$NAME"
	echo "$output"
	[ "$status" -eq 0 ]
	last=$(jq -c 'select(.predict_policer_memory > 0)' "$BATS_TEST_TMPDIR/pol.jsonl" | tail -n 1)
	echo "the last flow that took the memory: $last"
	jq -e --arg ns "$JPATH-snd" --argjson last "$last" '[.policers[] | select(.kind == "policer")] | length == 1 and (.[0] |
		.netns == $ns and .daddr == "10.77.2.2" and .family == "ipv4" and .flows >= 1 and
		.rate <= 2 * $last.predict_policer_memory and .rate >= 1250000 and .rate <= 3125000 and
		.expires_in_s > 200 and .expires_in_s <= 300)' <<<"$output"
	run "$CUBICCTL" policers --name "$NAME"
	[ "$status" -eq 0 ]
	[[ $output == "$NAME $JPATH-snd 10.77.2.2 rate:"*"Mbit/s delay_min:"*"ms age:"*"s expires_in:"*"s flows:"* ]]
	# forgotten, the next flow meets the policer cold again
	run "$CUBICCTL" policers --name "$NAME" --forget 10.77.2.2
	[ "$status" -eq 0 ]
	[ "$output" = "forgot 1 remembered policer and 0 busy paths of 10.77.2.2" ]
	[ "$("$CUBICCTL" -j policers --name "$NAME" 2>/dev/null | jq '[.policers[] | select(.kind == "policer")] | length')" -eq 0 ]
	bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/cold.json"
	# the suite's clean path (its own namespaces, the same addresses)
	bulk "$P" "$NAME" 2 "$BATS_TEST_TMPDIR/clean.json"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	cat "$BATS_TEST_TMPDIR/pol.jsonl"
	# the flows before the first that took the memory met the policer cold;
	# the last of them lost in slow start and was recognised, at that loss
	# (its answer, predict_policer: the rate sample's BDP) or at its
	# recovery's end (the answer left pending: fewer than 4 marked lost at
	# the loss; or no estimate believed, predict_target 0: in CI one flow
	# beside a qemu guest saw no train before its loss at cwnd 159, and its
	# recovery's measure was remembered); what is remembered is what its
	# recovery delivered, at most the loss's rate sample (the bucket's burst
	# in it) and at least half (not asked of a flow without an estimate:
	# its measure alone decided); trace's policer record of that flow says so.
	# Every flow after it took the memory, but for one that HyStart's delay
	# test sent out of slow start before PREDICT judged it, below the policed
	# BDP (67): beside a qemu guest (CI runs the difftest's beside this) one
	# left at cwnd 28 in its second round with RTT 51.9 ms over a delay_min of
	# 44.5, a queue of the loaded host's (its record has no PREDICT field set)
	jq -s -e '
		(map(.predict_policer_memory > 0) | index(true)) as $k |
		$k != null and $k >= 1 and $k <= 5 and
		(.[$k - 1] | .reason == "loss" and (.predict_policer // 0) < 150) and
		(.[$k:] | all(.predict_policer_memory > 0 or
			(.reason == "delay" and (.predict_target // 0) == 0 and .cwnd < 67)))' \
		"$BATS_TEST_TMPDIR/pol.jsonl"
	k=$(jq -s 'map(.predict_policer_memory > 0) | index(true)' "$BATS_TEST_TMPDIR/pol.jsonl")
	first=$(jq -s -c ".[$k - 1]" "$BATS_TEST_TMPDIR/pol.jsonl")
	took=$(jq -s -c ".[$k]" "$BATS_TEST_TMPDIR/pol.jsonl")
	prec=$(jq -c --argjson r "$first" 'select(.record == "policer" and .flow_id == $r.flow_id)' \
		"$BATS_TEST_TMPDIR/pol.trace")
	echo "the flow that left the memory: $first"
	echo "its policer record: $prec"
	# (stored at the recovery's end, bound, the rate the next flow took; or
	# stored at the loss and not forgotten: an RTO ends the recovery unmeasured)
	jq -e --argjson t "$took" --argjson r "$first" '
		(.unbelieved == (($r.predict_target // 0) == 0)) and
		(((.actions | index("stored")) != null and .bound and
		  .stored_rate == $t.predict_policer_memory and
		  (.unbelieved or (.stored_rate <= .loss_rate and .stored_rate * 2 >= .loss_rate))) or
		 ((.actions | index("stored_at_loss")) != null and (.actions | index("forgot")) == null and
		  (.actions | index("stored")) == null))' <<<"$prec"
	# the remembered flows filled to the remembered rate's target and left
	# slow start there by PREDICT's exit, well below the line rate's BDP, and
	# lost fewer segments than the cold flows (medians; about 35-77 against
	# 80-170 in 3 s: the remembered rate is the cold flow's, so both move together)
	jq -s -e '
		(map(.predict_policer_memory > 0) | index(true)) as $k |
		map(select(.predict_policer_memory > 0)) as $m |
		.[:$k] as $c |
		($m | length) >= 2 and
		($m | all(.reason == "predict" and .cwnd == .predict_target and .predict_target < 150)) and
		($m | map(.retx) | sort | .[length / 2 | floor]) <
			($c | map(.retx) | sort | .[length / 2 | floor]) * 0.8' \
		"$BATS_TEST_TMPDIR/pol.jsonl"
	rec=$(exit_of "$BATS_TEST_TMPDIR/cold.json")
	echo "after --forget: $rec"
	jq -e '.predict_policer_memory == 0' <<<"$rec"
	# another path to the same address remembers nothing
	rec=$(exit_of "$BATS_TEST_TMPDIR/clean.json")
	echo "clean path: $rec"
	jq -e '.predict_policer_memory == 0 and .predict_policer == 0' <<<"$rec"
}

@test "a policer whose first drop comes after PREDICT's own exit is recognised at that loss and remembered; the next flow fills to it" {
	# eval's pol100_40_b300: 100 Mbit/s, 40 ms behind a 20 Mbit/s policer
	# with a 300 kB bucket (200 packets, 3 x the policed BDP): PREDICT
	# believes the line rate and the bucket lets its fill reach that target
	# (333 and the margin) before the first drop, so the exit is PREDICT's
	# own and the policer's loss comes in congestion avoidance, where the
	# answer after the exit (predict_policer_after_exit()) recognises it: no
	# queue, 4 lost or more, a delivery below 3/4 of the believed rate
	policed_path q 300kb predict "$BATS_TEST_TMPDIR/q.trace"
	# A flow whose slow start a loss ended (the bucket ran dry in the fill)
	# may be remembered by the first answer instead: that memory is
	# forgotten (cubicctl policers --forget) and the next flow meets the
	# policer cold. Flows until one that left by PREDICT's own exit is
	# remembered, at most 5.
	found=
	for i in 1 2 3 4 5; do
		bulk "$JPATH" "$NAME" 3 "$BATS_TEST_TMPDIR/q$i.json"
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/q$i.json" "$BATS_TEST_TMPDIR/q.trace")
		pol=$("$CUBICCTL" -j policers --name "$NAME")
		echo "flow $i: $rec; $pol"
		if [ "$(jq '[.policers[] | select(.kind == "policer")] | length' <<<"$pol")" -eq 1 ]; then
			if jq -e '.reason == "predict" and .predict_policer == 0 and .predict_policer_memory == 0' \
				<<<"$rec" >/dev/null; then
				found=$i
				break
			fi
			"$CUBICCTL" policers --name "$NAME" --forget all
		fi
	done
	[ -n "$found" ]
	# the rate kept is the policed one's order (2.5 MB/s; up to 2 x above
	# with the bucket's burst in the sample, 3 x below), not the line's
	# 12 MB/s, and in this namespace
	jq -e --arg ns "$JPATH-snd" '[.policers[] | select(.kind == "policer")][0] | .netns == $ns and .daddr == "10.77.2.2" and
		.rate >= 800000 and .rate <= 5000000' <<<"$pol"
	# the next flow fills paced to that rate's BDP and leaves slow start
	# there; cubicctl flows shows the remembered rate while it runs
	bulk_watched "$BATS_TEST_TMPDIR/qn" 3 1.5
	sleep 0.5
	jq -c '.flows[] | {sport, dport, predict}' "$BATS_TEST_TMPDIR/qn.flows"
	jq -e --argjson rate "$(jq '[.policers[] | select(.kind == "policer")][0].rate' <<<"$pol")" \
		'[.flows[] | select(.predict.policer != null)] |
		length == 1 and .[0].predict.policer.memory == $rate and (.[0].predict.policer.pending | not)' \
		"$BATS_TEST_TMPDIR/qn.flows"
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	rec=$(pol_exit "$BATS_TEST_TMPDIR/qn.json" "$BATS_TEST_TMPDIR/q.trace")
	echo "next flow: $rec"
	jq -e --argjson rate "$(jq '[.policers[] | select(.kind == "policer")][0].rate' <<<"$pol")" '.predict_policer_memory == $rate and
		.reason == "predict" and .cwnd == .predict_target and .predict_target < 150' <<<"$rec"
}

@test "a policer remembered below its rate is raised by a later flow's congestion avoidance, and the next flow leaves slow start nearer the policed BDP" {
	# A path the evaluation's matrix does not have: 20 Mbit/s, 80 ms, a
	# 2-BDP buffer behind a 5 Mbit/s policer with a 20 kB bucket (14
	# packets; the policed BDP is 35). A first flow's loss sample reads the
	# bucket's tokens plus the policed rate over the time its flight took to
	# send: 400 kB/s of the 625 in the run that found it (a target of 23),
	# and before the raise every later flow left slow start there, at 0.7 of
	# the policed BDP. Such a flow's congestion avoidance outgrows that
	# window and meets the policer; its first loss there begins a recovery
	# that measures it, and the memory rises (predict_polmem_raised(): at
	# most doubled by one flow). The first flow's own congestion avoidance
	# sends in bursts, which this bucket cuts to about the rate it remembered
	JPATH="${P}w"
	path_up "$JPATH" 20mbit 80ms 2bdp --policer "5mbit:20kb"
	netns_iperf_server "$JPATH-rcv" 5201
	"$CUBICCTL" load --name "$NAME" --preset predict
	"$CUBICCTL" trace --name "$NAME" --json >"$BATS_TEST_TMPDIR/w.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.5
	# Flows of 4 s (a loss in congestion avoidance comes 1.5-2.5 s in) until
	# one remembers the policer (base: its loss's rate sample, which what it
	# stored is at most), then until the memory is above that: at most 7
	base=0
	rate=0
	for i in 1 2 3 4 5 6 7; do
		bulk "$JPATH" "$NAME" 4 "$BATS_TEST_TMPDIR/w$i.json"
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/w$i.json" "$BATS_TEST_TMPDIR/w.trace")
		rate=$("$CUBICCTL" -j policers --name "$NAME" | jq '[.policers[] | select(.kind == "policer")][0].rate // 0')
		echo "flow $i: $(jq -c '{reason, cwnd, predict_target, predict_policer_rate, predict_policer_memory, retx}' <<<"$rec"); remembered $rate B/s"
		if [ "$base" -eq 0 ] && [ "$rate" -gt 0 ]; then
			base=$(jq '.predict_policer_rate' <<<"$rec")
			[ "$base" -gt 0 ]
		fi
		[ "$base" -eq 0 ] || [ "$rate" -le "$base" ] || break
	done
	# the next flow takes its target from what the memory holds now
	bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/next.json"
	sleep 0.5
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	# raised above the loss's sample, at most 2 x it, and never above the
	# policed 625 kB/s by more than a quarter (the recovery runs at CUBIC's
	# reduced window, the bucket dry)
	[ "$base" -gt 0 ] && [ "$rate" -gt "$base" ] && [ "$rate" -le $((2 * base)) ] && [ "$rate" -le 781250 ]
	rec=$(pol_exit "$BATS_TEST_TMPDIR/next.json" "$BATS_TEST_TMPDIR/w.trace")
	echo "next flow: $rec"
	# and the next flow left slow start at the raised rate's target
	jq -e --argjson now "$rate" '.predict_policer_memory == $now and .reason == "predict" and
		.cwnd == .predict_target' <<<"$rec"
}

@test "after a jump into a small bucket the policer is remembered without a rate: the next flow does not jump, and loses a fraction of what the jump did" {
	# eval's pol100_40_b30: 100 Mbit/s, 40 ms, a 20 Mbit/s policer with a
	# 30 kB bucket (20 packets). predict-jump believes the line rate and
	# jumps to half its BDP; the bucket is gone at once, the answer's window
	# comes from the loss's rate sample (below the policed BDP after a jump),
	# and the recovery measures that window, not the policer
	# (predict_policer_jump_keeps()). So the policer is remembered without a
	# rate, and the next flow does not jump (in eval runs the jump flows lost
	# 94-106 segments, the flows after them 3)
	policed_path b 30kb predict-jump "$BATS_TEST_TMPDIR/b.trace"
	# A loaded machine spoils a train now and then (HyStart decides, no
	# jump). Flows until one that jumped leaves the mark; then the next
	# flow, which must not jump. Its own train may be spoiled too: then it
	# had nothing to hold back, and its loss may have put a rate in the
	# entry, so the memory is forgotten and it starts again. At most 7.
	found=
	jumped=
	for i in 1 2 3 4 5 6 7; do
		# cubicctl flows half-way through, in both forms
		bulk_watched "$BATS_TEST_TMPDIR/b$i" 3 1.5
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/b$i.json" "$BATS_TEST_TMPDIR/b.trace")
		pol=$("$CUBICCTL" -j policers --name "$NAME")
		echo "flow $i: $rec; $pol"
		if [ -z "$jumped" ]; then
			if jq -e '[.policers[] | select(.kind == "policer")] | length == 1 and .[0].no_jump' <<<"$pol" >/dev/null; then
				jumped=$rec
				check_no_jump_mark "$jumped" "$pol"
				continue
			fi
		else
			# the flow after the mark never jumps
			jq -e '.predict_jump_from == 0 and .predict_jump == 0' <<<"$rec"
			if jq -e '.predict_target > 0' <<<"$rec" >/dev/null; then
				found=$i
				break
			fi
			jumped=
		fi
		"$CUBICCTL" policers --name "$NAME" --forget all
	done
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	[ -n "$found" ]
	echo "next flow: $rec"
	# its believed estimate was held back by the memory: no jump, and under
	# half the jump's losses
	jq -e '.predict_no_jump' <<<"$rec"
	jq -e --argjson j "$jumped" '.retx * 2 < $j.retx' <<<"$rec"
	# and cubicctl flows said so while it ran
	jq -c '.flows[] | {sport, dport, predict}' "$BATS_TEST_TMPDIR/b$found.flows"
	jq -e '[.flows[] | select(.predict.policer != null)] | length == 1 and
		.[0].predict.policer.no_jump and .[0].predict.policer.memory == 0' "$BATS_TEST_TMPDIR/b$found.flows"
	grep -q ',policer_memory:unmeasured(no-jump)' "$BATS_TEST_TMPDIR/b$found.flows.txt"
}

@test "a jump into a policer's large bucket: the policer is remembered at its rate, and the next flow loses under half as much" {
	# unseen3's pol150_20_r60: 150 Mbit/s, 20 ms, a 60 Mbit/s policer with a
	# 150 kB bucket (policed BDP 104 packets). predict-jump believes the
	# line rate or the bucket's and jumps into it; every such flow lost
	# 150-220 packets. Before, one in two left nothing remembered and the
	# next flow jumped in again: the recovery's ACKs of retransmissions gave
	# RTT samples from TCP timestamps in whole ms, delay_min fell to 19.000
	# ms, and the recovery's test of no queue (1/20) failed on a 20.15-ms
	# loss; or a flow that reached a target the bucket set lost with the
	# bucket's tokens in its sample, and the answer did not claim it.
	JPATH="${P}q"
	path_up "$JPATH" 150mbit 20ms 1bdp --policer 60mbit:150kb
	netns_iperf_server "$JPATH-rcv" 5201
	"$CUBICCTL" load --name "$NAME" --preset predict-jump
	"$CUBICCTL" trace --name "$NAME" --json >"$BATS_TEST_TMPDIR/q.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.5
	# First flows, each meeting the policer afresh (forgotten before it),
	# until three jumped and lost more than 100 (a loaded machine spoils a
	# train now and then: HyStart decides, no jump), at most 6. Each left
	# the policer remembered at the recovery's measure of its rate (6.9-7.3
	# MB/s of the policed 7.5 in runs); before, one in three left an entry
	# without a rate (the next flow did not jump, but doubled into the
	# bucket and lost 165) or none (it jumped again).
	first=
	n=0
	for i in 1 2 3 4 5 6; do
		[ "$n" -lt 3 ] || break
		"$CUBICCTL" policers --name "$NAME" --forget all
		bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/q$i.json"
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/q$i.json" "$BATS_TEST_TMPDIR/q.trace")
		pol=$("$CUBICCTL" -j policers --name "$NAME")
		echo "first flow $i: $rec; $pol"
		jq -e '.predict_jump_from > 0 and .retx > 100' <<<"$rec" >/dev/null || continue
		first=$rec
		n=$((n + 1))
		jq -e --arg ns "$JPATH-snd" '[.policers[] | select(.kind == "policer")] | length == 1 and (.[0] |
			.netns == $ns and .daddr == "10.77.2.2" and .rate >= 5000000 and .rate <= 9000000)' <<<"$pol"
		# and trace's policer record says how: the loss (its RTT within
		# 1/20 of the delay_min it went by), the recovery's measure, bound,
		# and the rate stored, the one listed
		prec=$(jq -c --argjson r "$rec" 'select(.record == "policer" and .flow_id == $r.flow_id)' \
			"$BATS_TEST_TMPDIR/q.trace")
		echo "its policer record: $prec"
		jq -e --argjson pol "$pol" '.jumped and .bound and .lost > 50 and
			.loss_rtt_us * 20 <= .delay_min_us * 21 and .delay_min_us >= 19500 and
			(.actions | index("stored")) != null and .stored_rate == .measure and
			.stored_rate == $pol.policers[0].rate' <<<"$prec"
	done
	[ "$n" -ge 2 ]
	# the last one's memory stands for the next flow
	bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/next.json"
	sleep 0.5
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	rec=$(pol_exit "$BATS_TEST_TMPDIR/next.json" "$BATS_TEST_TMPDIR/q.trace")
	echo "next flow: $rec"
	# it took the remembered rate (bytes/s), did not jump, left slow start
	# at its target, below the line rate's BDP (259), and lost under half
	# of what the jump did (41-49 against 150-220 in runs)
	jq -e '.predict_policer_memory >= 5000000 and .predict_policer_memory <= 9000000' <<<"$rec"
	jq -e '.predict_jump_from == 0 and .predict_jump == 0' <<<"$rec"
	jq -e '.predict_target > 0 and .predict_target < 150' <<<"$rec"
	jq -e --argjson f "$first" '.retx * 2 < $f.retx' <<<"$rec"
}

@test "a path found busy: after a fill that four competing flows cut short, the next flows to that destination leave slow start to HyStart and do not jump; another path's do not; cubicctl policers lists and forgets it" {
	# eval's cross50_40_c4: 50 Mbit/s, 40 ms, a 1-BDP buffer, four cubic
	# flows keeping it full. The initial window's train reads the link's rate
	# and delay_min holds their standing queue: a target of about 10 x the
	# fair share's BDP, which a queue or a loss cuts short (or the jump's
	# share check judges shared): the destination is remembered busy.
	JPATH="${P}c"
	path_up "$JPATH" 50mbit 40ms 1bdp
	netns_iperf_server "$JPATH-rcv" 5201
	"$PATHEMU" cross --name "$JPATH" --flows 4 --cc cubic --port 5430 >/dev/null
	"$CUBICCTL" load --name "$NAME" --preset predict-jump
	"$CUBICCTL" trace --name "$NAME" --json >"$BATS_TEST_TMPDIR/c.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 3
	# A first flow marks the path only if PREDICT believed its train (a
	# loss in the first rounds leaves none): flows until the mark, at most 5
	marked=
	for i in 1 2 3 4 5; do
		bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/c$i.json"
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/c$i.json" "$BATS_TEST_TMPDIR/c.trace")
		pol=$("$CUBICCTL" -j policers --name "$NAME")
		echo "flow $i: $rec; $pol"
		if jq -e '[.policers[] | select(.kind == "busy")] | length == 1' <<<"$pol" >/dev/null; then
			marked=$rec
			break
		fi
	done
	[ -n "$marked" ]
	# the marking flow believed an estimate and left slow start below its
	# target: by a queue or a loss, or at the share its check measured; or
	# its estimate was set aside because the RTT rose since the handshake
	# (predict_rose), and HyStart's exit came below that estimate's target
	jq -e '((.predict_target > 0 and (.cwnd < .predict_target or .predict_share > 0)) or
		(.predict_rose and .predict_rate > 0 and (.predict_target // 0) == 0)) and
		(.predict_busy | not)' <<<"$marked"
	jq -e --arg ns "$JPATH-snd" '[.policers[] | select(.kind == "busy")][0] |
		.netns == $ns and .daddr == "10.77.2.2" and .family == "ipv4" and .flows == 1 and
		.rate == 0 and .delay_min_us > 40000 and .expires_in_s > 200 and .expires_in_s <= 300' <<<"$pol"
	run "$CUBICCTL" policers --name "$NAME"
	[ "$status" -eq 0 ]
	[[ $output == *"$NAME $JPATH-snd 10.77.2.2 busy delay_min:"*"ms age:"*"s expires_in:"*"s flows:1"* ]]
	# the next flows: an estimate believed is set aside (no target, no jump,
	# not paced), HyStart decides; a train not believed has nothing to set
	# aside. At least one of three is held back.
	for i in 1 2 3; do
		bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/n$i.json"
		sleep 0.5
		pol_exit "$BATS_TEST_TMPDIR/n$i.json" "$BATS_TEST_TMPDIR/c.trace" >>"$BATS_TEST_TMPDIR/next.jsonl"
	done
	cat "$BATS_TEST_TMPDIR/next.jsonl"
	jq -s -e 'length == 3 and
		all((.predict_target // 0) == 0 and (.predict_jump_from // 0) == 0 and .reason != "predict") and
		all(.predict_busy or (.predict_rate // 0) == 0 or .predict_failed_rounds > 0) and
		any(.predict_busy and .predict_rate > 0 and (.predict_paced | not))' "$BATS_TEST_TMPDIR/next.jsonl"
	# forgotten, the next flow measures the path afresh
	run "$CUBICCTL" policers --name "$NAME" --forget 10.77.2.2
	[ "$status" -eq 0 ]
	[[ $output == "forgot "*" remembered polic"*" and 1 busy path of 10.77.2.2" ]]
	[ "$("$CUBICCTL" -j policers --name "$NAME" | jq '[.policers[] | select(.kind == "busy")] | length')" -eq 0 ]
	bulk "$JPATH" "$NAME" 2 "$BATS_TEST_TMPDIR/cold.json"
	# another path to the same address (the suite's clean one) is not busy
	bulk "$P" "$NAME" 2 "$BATS_TEST_TMPDIR/clean.json"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	rec=$(pol_exit "$BATS_TEST_TMPDIR/cold.json" "$BATS_TEST_TMPDIR/c.trace")
	echo "after --forget: $rec"
	jq -e '(.predict_busy | not)' <<<"$rec"
	rec=$(pol_exit "$BATS_TEST_TMPDIR/clean.json" "$BATS_TEST_TMPDIR/c.trace")
	echo "clean path: $rec"
	jq -e '(.predict_busy | not)' <<<"$rec"
}

@test "a queue that rose since the handshake: beside four competing flows an estimate is set aside and HyStart decides, with no jump; on a free path none is" {
	# eval's cross50_40_c4 again: four cubic flows grow the queue they keep
	# between their losses, so a newcomer's delay_min (its first round's
	# least RTT) reads more than predict_rise_us (100 us) and a packet's
	# time at the estimate above its handshake's RTT. predict_busy=0: no
	# flow learns from another, each meets the path as a first flow.
	JPATH="${P}r"
	path_up "$JPATH" 50mbit 40ms 1bdp
	netns_iperf_server "$JPATH-rcv" 5201
	"$PATHEMU" cross --name "$JPATH" --flows 4 --cc cubic --port 5450 >/dev/null
	"$CUBICCTL" load --name "$NAME" --preset predict-jump predict_busy=0
	"$CUBICCTL" trace --name "$NAME" --json >"$BATS_TEST_TMPDIR/r.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 3
	# a flow whose train was believed and whose RTT rose, at most 10 (a
	# loss in the first rounds believes nothing, and a competitor's loss
	# between the handshake and the first round lowers the RTT: 7 of the 12
	# PREDICT flows of eval's first-flow run there were set aside)
	found=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		# cubicctl flows half-way through, in both forms
		bulk_watched "$BATS_TEST_TMPDIR/r$i" 2 1
		sleep 0.5
		rec=$(pol_exit "$BATS_TEST_TMPDIR/r$i.json" "$BATS_TEST_TMPDIR/r.trace")
		echo "flow $i: $(jq -c '{reason, cwnd, predict_rate, predict_target, predict_rose, predict_busy,
			predict_syn_rtt_us, predict_delay_min_us, predict_jump_from, retx}' <<<"$rec")"
		if jq -e '.predict_rose' <<<"$rec" >/dev/null; then
			found=$rec
			break
		fi
	done
	# cubicctl flows says so too while the flow runs
	[ -n "$found" ]
	cat "$BATS_TEST_TMPDIR/r$i.flows.txt"
	jq -e --argjson p "$(jq .sport <<<"$found")" '[.flows[] | select(.sport == $p)] | length == 1 and
		(.[0].predict | .rose and (.busy | not))' "$BATS_TEST_TMPDIR/r$i.flows"
	grep -q ',rose(hystart)' "$BATS_TEST_TMPDIR/r$i.flows.txt"
	# and a flow on the suite's free path, beside nothing
	bulk "$P" "$NAME" 2 "$BATS_TEST_TMPDIR/free.json"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	[ -n "$found" ]
	# set aside: no target, no jump, not paced, HyStart's exit; the numbers
	# that made it: delay_min above the handshake's RTT (40 ms and the
	# others' queue) by more than 100 us and a packet at the estimate
	jq -e '.predict_rate > 0 and (.predict_target // 0) == 0 and (.predict_jump_from // 0) == 0 and
		(.predict_paced | not) and (.predict_busy | not) and .reason != "predict" and
		.predict_syn_rtt_us > 40000 and
		.predict_delay_min_us - .predict_syn_rtt_us > 100 + .mss * 1000000 / .predict_rate' <<<"$found"
	rec=$(pol_exit "$BATS_TEST_TMPDIR/free.json" "$BATS_TEST_TMPDIR/r.trace")
	echo "free path: $rec"
	# the free path (50 Mbit/s, 20 ms): the handshake's RTT is the path's,
	# and an estimate believed stands
	jq -e '(.predict_rose | not) and .predict_syn_rtt_us >= 19500 and .predict_syn_rtt_us < 22000 and
		((.predict_rate // 0) == 0 or .predict_target > 0)' <<<"$rec"
}

@test "a queue before the jumped window is acknowledged (one competing flow): slow start ends at the PipeSize, not at the jumped cwnd" {
	# u_c1, a path issue 20's checks had not seen: 100 Mbit/s, 20 ms, a
	# 1-BDP buffer, one cubic flow keeping a queue standing. The initial
	# window's train reads the link's rate, the jump goes to half of that
	# target, and its first ACKs carry the other flow's queue: HyStart's
	# delay test in the fill fires before the jumped packets are
	# acknowledged.
	# the first flow whose jump met a queue, at most 8 flows (a train not
	# believed, or a loss first, makes none)
	beside_one_flow q 100mbit 20ms 5440 8 '.predict_jump_from > 0 and .predict_jump_rtt_us > 0' \
		'{reason, cwnd, ssthresh, predict_jump_from, predict_jump, predict_jump_rtt_us,
		  predict_retreat, predict_retreat_pipe, retx}'
	[ -n "$found" ]
	# the queue came before the jump's packets were acknowledged (PipeSize
	# below the jump) and slow start ended there: cwnd and ssthresh at the
	# PipeSize (at least the initial window), below the jumped cwnd
	jq -e '.reason == "delay" and .initial and .predict_retreat_pipe < .predict_jump and
		.predict_retreat == ([.predict_retreat_pipe, 10] | max) and
		.cwnd == .predict_retreat and .ssthresh == .predict_retreat and .cwnd < .predict_jump and
		.predict_jump_rtt_us > .delay_min_us' <<<"$found"
}

@test "the jump's share check (one competing flow): slow start ends near the fair share, at the BDP of the rate the jumped packets got with predict_share_margin" {
	# cross50_40_c1's path: 50 Mbit/s, 40 ms, a 1-BDP buffer, one cubic
	# flow. The initial window's train reads the link's rate; the paced
	# jumped packets interleave with the other flow's and get about a third
	# of the link. A newcomer's share reads low while the other flow holds
	# the queue (0.68-0.81 of the fair share in 15 such flows, docs/RULES.md
	# "The share's margin"), so the target is that rate's BDP plus
	# predict_share_margin (333 per mille).
	# the first flow whose share check found the link shared, at most 10
	# (a queue or a loss in the fill first, or a train not believed, makes none)
	beside_one_flow s 50mbit 40ms 5450 10 '.predict_share > 0' \
		'{reason, cwnd, ssthresh, delay_min_us, predict_target, predict_jump_from, predict_jump,
		  predict_share_pace, predict_share_rate, predict_share, retx}'
	[ "$("$CUBICCTL" get -j --name "$NAME" predict_share_margin | jq .tunables.predict_share_margin)" -eq 333 ]
	[ -n "$found" ]
	# judged shared: the rate got below 3/4 of the rate sent (or of the
	# estimate); the target its BDP x 1.333 (within 2 packets: delay_min
	# may have fallen since), below the link's target; slow start ended
	# there
	jq -e '.predict_share_rate * 4 < 3 * ([.predict_share_pace, .predict_rate] | min) and
		(.predict_share - .predict_share_rate * .delay_min_us / 1000000 * 1.333 / .mss | fabs) <= 2 and
		.predict_share < .predict_target and .ssthresh == .predict_share' <<<"$found"
	# what the user gets: at least 0.8 x the fair share's BDP (50 Mbit/s x
	# 40 ms / 2 = 83 packets), where the rate's own BDP read 0.68-0.81 x
	jq -e '.ssthresh >= 66' <<<"$found"
}
