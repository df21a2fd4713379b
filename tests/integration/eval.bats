#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Evaluation suite (tools/eval): a quick two-scenario run (50 Mbit/s 20 ms
# 1 BDP, and 100 Mbit/s 5 ms 2 BDP), 3 repetitions of every algorithm (every
# one this cubicctl has the preset of), 2 s flows; one flow of each kind of
# stress scenario flowgen.py sends (an application-limited start, an RTT
# step); the ideal-band analysis on the run and on synthetic flows. (Not the 2011-like path: there the ACK train fires in one of two
# consecutive rounds, exit cwnd ~260 or ~420, for the kernel's cubic as for
# bpf_cubic, so a median of 3 is bimodal; see docs/EVALUATION.md.) Checks that an exit is seen for every flow, that
# bpf_cubic preset linux stays near the kernel's cubic (generous bounds: this
# is a noisy shared VM; docs/EVALUATION.md has the strict table), and that
# nothing is left behind, also after Ctrl-C. About 3 minutes.

load lib

RUN="$REPO/tools/eval/run.sh"

leftovers() { # PREFIX: print what a run with that prefix left behind
	local p=$1
	ip netns list | grep -E "^${p}p-" || true
	tr ' ' '\n' <"$AVAILABLE" | grep -E "^${p}_" || true
	ls -d /sys/fs/bpf/cubicctl/"${p}"_* 2>/dev/null || true
	ls -d /sys/kernel/tracing/instances/"${p}"_eval 2>/dev/null || true
	ls -d /run/pathemu/"${p}"p 2>/dev/null || true
}

cleanup_prefix() {
	local p=$1 n
	"$PATHEMU" stop --name "${p}p" >/dev/null 2>&1 || true
	for n in $(tr ' ' '\n' <"$AVAILABLE" | grep -E "^${p}_"); do force_unload "$n"; done
	if [ -d "/sys/kernel/tracing/instances/${p}_eval" ]; then
		echo 0 >"/sys/kernel/tracing/instances/${p}_eval/events/tcp/tcp_probe/enable" 2>/dev/null || true
		rmdir "/sys/kernel/tracing/instances/${p}_eval" 2>/dev/null || true
	fi
}

# eval_algos: the algorithms of run.sh's table this cubicctl can run (a bpf
# one whose preset it has), one per line
eval_algos() {
	local presets id kind arg
	presets=$("$CUBICCTL" help | sed -n '/^presets/,/^$/p' | awk '/^  [^ ]/ {print $1}')
	"$RUN" --list | sed -n '/^algorithms/,/^core/p' | sed '1d;$d' | while read -r id kind arg _; do
		[ -n "$id" ] || continue
		[ "$kind" = kernel ] || grep -qxF -- "$arg" <<<"$presets" || continue
		echo "$id"
	done
}

setup_file() {
	[[ $EUID -eq 0 ]] || skip "needs root"
	ensure_fs
	# at most 5 characters: with a one-letter suffix (EP i, m, f, o, s, r, x) and the
	# longest algorithm's "_predictj", an instance name is 15, the kernel's limit
	export EP="bt$(( $$ % 100 ))e"
	export EV="$BATS_FILE_TMPDIR/ev"
	EALGOS=$(eval_algos | tr '\n' ' ')
	export EALGOS
	# make test-quick runs one test of this file, which needs no shared run
	# (tests/quick.list); make test runs them all, and this run first
	[ -z "${BCT_QUICK:-}" ] || return 0
	"$RUN" --scenarios "r50_20_1 r100_5_2" --algos "$EALGOS" --reps 3 --duration 2 --prefix "$EP" --out "$EV" \
		--no-report >"$BATS_FILE_TMPDIR/run.out" 2>"$BATS_FILE_TMPDIR/run.err" && echo 0 >"$BATS_FILE_TMPDIR/rc" ||
		echo $? >"$BATS_FILE_TMPDIR/rc"
}

teardown_file() {
	cleanup_prefix "$EP"
	cleanup_prefix "${EP}i"
	cleanup_prefix "${EP}m"
	cleanup_prefix "${EP}f"
	for a in 1 2 3; do cleanup_prefix "${EP}f$a"; done
	cleanup_prefix "${EP}o"
	cleanup_prefix "${EP}s"
	cleanup_prefix "${EP}r"
	cleanup_prefix "${EP}x"
}

median() { # SCENARIO ALGORITHM FIELD
	jq -s --arg s "$1" --arg a "$2" --arg f "$3" \
		'[.[] | select(.scenario == $s and .algorithm == $a) | .[$f] | select(. != null)] | sort |
		 if length == 0 then "none" else .[(length / 2 | floor)] end' "$EV/flows.jsonl"
}

count() { # SCENARIO ALGORITHM
	jq -s --arg s "$1" --arg a "$2" '[.[] | select(.scenario == $s and .algorithm == $a)] | length' "$EV/flows.jsonl"
}

@test "eval: the quick matrix runs: 2 scenarios x every algorithm x 3 reps" {
	cat "$BATS_FILE_TMPDIR/run.err" | tail -n 40
	echo "algorithms: $EALGOS"
	[ "$(cat "$BATS_FILE_TMPDIR/rc")" -eq 0 ]
	n=$(( $(wc -w <<<"$EALGOS") * 6 ))
	[ "$n" -ge 42 ]
	[ "$(wc -l <"$EV/flows.jsonl")" -eq "$n" ]
	[ -s "$EV/cwnd.csv" ]
	grep -q "flows=$n " "$EV/run.txt"
	# the estimate printed at the start, and kept
	grep -q 'estimated run time: ' "$BATS_FILE_TMPDIR/run.err"
	grep -q ' est_s=[0-9]' "$EV/run.txt"
	# no iperf3 failed
	[ "$(jq -s '[.[] | select(.iperf_error != null)] | length' "$EV/flows.jsonl")" -eq 0 ]
	# interleaved: the algorithms' order rotates by one from one repetition to the next
	first=$(jq -r 'select(.scenario == "r50_20_1" and .rep == 1) | .algorithm' "$EV/flows.jsonl" | tr '\n' ' ')
	second=$(jq -r 'select(.scenario == "r50_20_1" and .rep == 2) | .algorithm' "$EV/flows.jsonl" | tr '\n' ' ')
	echo "rep 1: $first; rep 2: $second"
	[ "$first" = "$EALGOS" ]
	[ "$second" = "${EALGOS#* }${EALGOS%% *} " ]
}

@test "eval: a slow-start exit is observed for every flow of every algorithm" {
	for a in $EALGOS; do
		for s in r50_20_1 r100_5_2; do
			[ "$(count $s $a)" -ge 3 ]
		done
	done
	run jq -c 'select(.exit_observed != true or .exit_cwnd == null or .exit_reason == "none")
		| {scenario, algorithm, rep, exit_reason, probe_samples}' "$EV/flows.jsonl"
	echo "$output"
	[ -z "$output" ]
	# HyStart off and reno leave by loss; every bpf flow produced its trace record
	[ "$(jq -s '[.[] | select((.algorithm == "bpf_off" or .algorithm == "reno") and .exit_reason != "loss")] | length' "$EV/flows.jsonl")" -eq 0 ]
	[ "$(jq -s '[.[] | select(.kind == "bpf" and .bpf_records < 1)] | length' "$EV/flows.jsonl")" -eq 0 ]
	# tcp_probe and nstat / the bpf record agree on how each flow left slow start. A
	# bpf_cubic detector firing on the very ACK that also starts loss recovery shows a
	# loss-like ssthresh; analyze.py proves that case (exit_same_ack_loss) and passes it,
	# so every bpf flow must agree. A kernel flow is judged by tcp_probe's first response
	# and nstat, which cannot tell that case: at most one may disagree.
	run jq -c 'select(.crosscheck_ok != true)
		| {scenario, algorithm, kind, rep, exit_reason, exit_cwnd, exit_cwnd_from, bpf_cwnd, probe_first_ssthresh}' "$EV/flows.jsonl"
	echo "$output"
	[ "$(echo -n "$output" | grep -c '"kind":"bpf"')" -eq 0 ]
	[ "$(echo -n "$output" | grep -c .)" -le 1 ]
}

@test "eval: bpf_cubic linux's median exit cwnd is within 25% of the kernel's cubic, both datapaths" {
	for s in r50_20_1 r100_5_2; do
		ref=$(median $s cubic exit_cwnd)
		for a in bpf_linux bpf_fast; do
			got=$(median $s $a exit_cwnd)
			echo "$s: cubic $ref $a $got"
			[ "$ref" != none ] && [ "$got" != none ]
			[ $(( got * 100 )) -ge $(( ref * 75 )) ]
			[ $(( got * 100 )) -le $(( ref * 125 )) ]
		done
	done
	# and, on the 1-BDP 50 Mbit/s path, the kernel leaves by HyStart well before
	# the loss-driven exit of HyStart off (DESIGN.md: 1.2-1.5 BDP by ACK train)
	c=$(median r50_20_1 cubic exit_cwnd)
	o=$(median r50_20_1 bpf_off exit_cwnd)
	echo "r50_20_1: cubic $c, off $o"
	[ "$c" -lt "$o" ]
}

@test "eval: no flow of the quick matrix has an impossible window" {
	# run.sh would have stopped with exit 3; the field is there and 0 for every flow
	[ "$(jq -s '[.[] | select(.impossible_samples != 0)] | length' "$EV/flows.jsonl")" -eq 0 ]
	[ "$(jq -s '[.[] | select(.cwnd_bound > 0)] | length' "$EV/flows.jsonl")" -eq "$(wc -l <"$EV/flows.jsonl")" ]
}

# probe_file FILE CWND SSTHRESH: a tcp_probe trace of one flow towards port
# 25000, 40 ACKs of growing cwnd, the 31st with CWND and SSTHRESH (%.0f: mawk's
# %d stops at 2^31 - 1), srtt 11.3 ms (s2011's RTT)
probe_file() {
	awk -v c="$2" -v s="$3" 'BEGIN {
		for (i = 0; i < 40; i++) {
			cw = 10 + i * 5; ss = 2147483647
			if (i == 30) { cw = c; ss = s }
			printf "          iperf3-1234    (   1234) [001] ..s1.  %.6f: tcp_probe: family=AF_INET src=10.77.1.1:40000 dest=10.77.2.2:25000 mark=0x0 data_len=0 snd_nxt=0x10 snd_una=0x%x snd_cwnd=%.0f ssthresh=%.0f snd_wnd=100000 srtt=11300 rcv_wnd=65535 sock_cookie=1\n", 100 + i * 0.002, i * 1448, cw, ss
		}
	}' >"$1"
}

# synth_analyze PROBE [ANALYZE ARGS...]: analyze.py flow on a synthetic
# tcp_probe trace (port 25000), with no iperf3 result, the bpf_cubic records
# in $BATS_TEST_TMPDIR/bpf.jsonl (the caller writes it), nstat and the
# bottleneck's counters at 0; ARGS give the path and the flow (a later
# option wins over one given here)
synth_analyze() {
	local probe=$1
	shift
	local doc='{}'
	[ -z "${SYNTH_IPERF:-}" ] || doc=$SYNTH_IPERF
	echo "$doc" >"$BATS_TEST_TMPDIR/ip.json"
	/usr/bin/python3 "$REPO/tools/eval/analyze.py" flow --port 25000 --duration 5 \
		--iperf "$BATS_TEST_TMPDIR/ip.json" --probe "$probe" --bpf-trace "$BATS_TEST_TMPDIR/bpf.jsonl" \
		--nstat-before "0 0" --nstat-after "0 0" --tbf-before 0 --tbf-after 0 "$@"
}

# analyze_flow PROBE: analyze.py flow on it, an s2011-like path (BDP 188,
# buffer 189: bound 4 x 377 + 100 = 1608)
analyze_flow() {
	: >"$BATS_TEST_TMPDIR/bpf.jsonl"
	synth_analyze "$1" --scenario s2011 --algorithm bpf_off --kind bpf --arg off --rep 1 --rate 200mbit \
		--rtt 11.3ms --buffer 1bdp --bdp-pkts 188 --buffer-pkts 189 --cwnd-csv "$BATS_TEST_TMPDIR/cwnd.csv"
}

@test "eval: an impossible window fails the flow and the report, loudly (synthetic samples)" {
	echo "scenario,algorithm,rep,t_s,cwnd,ssthresh_finite" >"$BATS_TEST_TMPDIR/cwnd.csv"
	# a sane flow passes
	probe_file "$BATS_TEST_TMPDIR/ok.txt" 160 112
	run analyze_flow "$BATS_TEST_TMPDIR/ok.txt"
	[ "$status" -eq 0 ]
	# ssthresh 0x81104110 (the committed run's): exit 3, one message naming flow, time and value
	probe_file "$BATS_TEST_TMPDIR/inf.txt" 3256776 2165325072
	run analyze_flow "$BATS_TEST_TMPDIR/inf.txt"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ $output == *"IMPOSSIBLE WINDOW: s2011 bpf_off rep 1 (sport 40000): ssthresh 2165325072 > 2147483647"*"at t="* ]]
	# a cwnd above 4 x (BDP + buffer) + 100 alone, and a finite ssthresh above it
	probe_file "$BATS_TEST_TMPDIR/cwnd.txt" 1609 100
	run analyze_flow "$BATS_TEST_TMPDIR/cwnd.txt"
	[ "$status" -eq 3 ]
	[[ $output == *"cwnd 1609 > 1608 packets"* ]]
	probe_file "$BATS_TEST_TMPDIR/fin.txt" 6 47225792
	run analyze_flow "$BATS_TEST_TMPDIR/fin.txt"
	[ "$status" -eq 3 ]
	[[ $output == *"ssthresh 47225792 > 1608 packets"* ]]
	# the report refuses a run holding such a flow
	mkdir -p "$BATS_TEST_TMPDIR/run"
	analyze_flow "$BATS_TEST_TMPDIR/ok.txt" >"$BATS_TEST_TMPDIR/run/flows.jsonl"
	analyze_flow "$BATS_TEST_TMPDIR/inf.txt" >>"$BATS_TEST_TMPDIR/run/flows.jsonl" 2>/dev/null || true
	run /usr/bin/python3 "$REPO/tools/eval/analyze.py" report --in "$BATS_TEST_TMPDIR/run" --out "$BATS_TEST_TMPDIR/rep"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ $output == *"IMPOSSIBLE WINDOW: s2011 bpf_off rep 1"* ]]
	# and the committed evaluation holds none (the run before it had 4 such flows:
	# docs/IMPOSSIBLE_WINDOWS.md), so its report can be regenerated
	run /usr/bin/python3 "$REPO/tools/eval/analyze.py" report --in "$REPO/docs/eval" --out "$BATS_TEST_TMPDIR/old"
	echo "$output" | tail -3
	[ "$status" -eq 0 ]
	! grep -q 'IMPOSSIBLE WINDOW' <<<"$output"
}

@test "eval: an RTT below the path's fails the flow loudly: a record's delay_min, a timestamp sample's floor, tcp_probe's srtt" {
	echo "scenario,algorithm,rep,t_s,cwnd,ssthresh_finite" >"$BATS_TEST_TMPDIR/cwnd.csv"
	probe_file "$BATS_TEST_TMPDIR/ok.txt" 160 112
	# short_rtt DELAY_MIN_US: a flow on the 11.3 ms path whose exit record read it
	short_rtt() {
		printf '{"record":"exit","sport":40000,"reason":"loss","cwnd":160,"delay_min_us":%s,"since_start_us":1000}\n' \
			"$1" >"$BATS_TEST_TMPDIR/bpf.jsonl"
		synth_analyze "$BATS_TEST_TMPDIR/ok.txt" --scenario s2011 --algorithm bpf_off --kind bpf --arg off \
			--rep 1 --rate 200mbit --rtt 11.3ms --buffer 1bdp --bdp-pkts 188 --buffer-pkts 189 \
			--cwnd-csv "$BATS_TEST_TMPDIR/cwnd.csv"
	}
	# the path's own RTT and above pass, and within the base's slack (250 us)
	for us in 11300 11450 11051; do
		run short_rtt "$us"
		[ "$status" -eq 0 ]
		[ "$(jq -r '.rtt_below_path' <<<"${lines[0]}")" = null ]
	done
	# 0.3 ms below: exit 5 after the record, one message naming the flow, the
	# source and the value
	run short_rtt 11010
	echo "$output"
	[ "$status" -eq 5 ]
	[ "$(jq -c '.rtt_below_path' <<<"${lines[0]}")" = '{"what":"record loss delay_min_us","us":11010,"floor_us":11050}' ]
	[[ $output == *"RTT BELOW THE PATH'S: s2011 bpf_off rep 1 (sport 40000): record loss delay_min_us 11010 us, where the path's 11.3 ms allows 11050 us at least"* ]]
	# a timestamp sample (whole milliseconds) may read the RTT's floor, not below
	run short_rtt 11000
	[ "$status" -eq 0 ]
	run short_rtt 10000
	[ "$status" -eq 5 ]
	# the kernel's flows: tcp_probe's smoothed RTT, which a recovery's
	# timestamp samples draw down to the RTT's millisecond floor: the trace's
	# 11.3 ms passes on an 11.9 ms path (floor 11 ms), not on a 12.5 ms one
	# (12 ms)
	: >"$BATS_TEST_TMPDIR/bpf.jsonl"
	kernel_flow() {
		synth_analyze "$BATS_TEST_TMPDIR/ok.txt" --scenario s2011 --algorithm cubic --kind kernel --arg cubic \
			--rep 1 --rate 200mbit --rtt "$1" --buffer 1bdp --bdp-pkts 200 --buffer-pkts 200 \
			--cwnd-csv "$BATS_TEST_TMPDIR/cwnd.csv"
	}
	run kernel_flow 11.9ms
	[ "$status" -eq 0 ]
	run kernel_flow 12.5ms
	echo "$output"
	[ "$status" -eq 5 ]
	[[ $output == *"s2011 cubic rep 1 (sport 40000): tcp_probe srtt 11300 us, where the path's 12.5 ms allows 12000 us at least"* ]]
}

@test "eval: a window PREDICT set below the initial window fails the flow loudly (synthetic records)" {
	echo "scenario,algorithm,rep,t_s,cwnd,ssthresh_finite" >"$BATS_TEST_TMPDIR/cwnd.csv"
	probe_file "$BATS_TEST_TMPDIR/ok.txt" 160 112
	# predict_flow RECORD: a bpf_predictj flow on s2011 whose exit record is RECORD
	predict_flow() {
		echo "$1" >"$BATS_TEST_TMPDIR/bpf.jsonl"
		synth_analyze "$BATS_TEST_TMPDIR/ok.txt" --scenario s2011 --algorithm bpf_predictj --kind bpf \
			--arg predict-jump --rep 1 --rate 200mbit --rtt 11.3ms --buffer 1bdp --bdp-pkts 188 \
			--buffer-pkts 189 --cwnd-csv "$BATS_TEST_TMPDIR/cwnd.csv"
	}
	ok='{"record":"exit","sport":40000,"reason":"predict","predict":true,"cwnd":190,"ssthresh":190,"delay_min_us":11400,"since_start_us":70000,"predict_target":190,"predict_share":0,"predict_policer":0,"predict_retreat":0,"predict_policer_memory":0}'
	run predict_flow "$ok"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.predict_below_iw' <<<"${lines[0]}")" = null ]
	# the floor itself (the initial window) passes
	run predict_flow "$(jq -c '.predict_retreat = 10' <<<"$ok")"
	[ "$status" -eq 0 ]
	# the record of 2026-12-06: a remembered policer's target of 2, and the exit at it
	mem=$(jq -c '.predict_policer_memory = 18690 | .predict_target = 2 | .cwnd = 2 | .ssthresh = 2' <<<"$ok")
	run predict_flow "$mem"
	echo "$output"
	[ "$status" -eq 6 ]
	[ "$(jq -c '.predict_below_iw' <<<"${lines[0]}")" = '{"what":"record predict predict_target (a policer remembered)","value":2}' ]
	[[ $output == *"PREDICT BELOW THE INITIAL WINDOW: s2011 bpf_predictj rep 1 (sport 40000): record predict predict_target (a policer remembered) 2, below the floor of 10 packets"* ]]
	# a share's, a policer's or a retreat's ssthresh, or the exit's cwnd alone
	for k in predict_share predict_policer predict_retreat; do
		run predict_flow "$(jq -c ".$k = 9" <<<"$ok")"
		[ "$status" -eq 6 ]
	done
	run predict_flow "$(jq -c '.predict_target = 190 | .cwnd = 9' <<<"$mem")"
	[ "$status" -eq 6 ]
	# the flow's own estimate may be a BDP of a few packets (a slow, short
	# path), and another rule's exit below it is no PREDICT window
	run predict_flow "$(jq -c '.predict_target = 4 | .cwnd = 4 | .ssthresh = 4' <<<"$ok")"
	[ "$status" -eq 0 ]
	run predict_flow "$(jq -c '.reason = "loss" | .predict = false | .loss = true | .cwnd = 2 | .predict_target = 0' <<<"$ok")"
	[ "$status" -eq 0 ]
}

# stall_flow KIND RTT_US [ANALYZE ARGS...]: analyze.py flow on s2011_q25
# (200 Mbit/s, 11.3 ms, buffer 47 packets: 60 us each) for a flow that left
# slow start by HyStart's delay test at cwnd 48: a bpf_cubic record whose
# round's least RTT is RTT_US (delay_min 11284 us), or, KIND kernel, nstat's
# delay counter (the kernel's threshold, 4 ms above delay_min)
stall_flow() {
	local kind=$1 rtt=$2 nstat="0 0"
	shift 2
	awk 'BEGIN {
		for (i = 0; i < 40; i++) {
			cw = 10 + i; ss = 2147483647
			if (i >= 38) { cw = 48; ss = 48 }
			printf "          iperf3-1234    (   1234) [001] ..s1.  %.6f: tcp_probe: family=AF_INET src=10.77.1.1:40000 dest=10.77.2.2:25000 mark=0x0 data_len=0 snd_nxt=0x10 snd_una=0x%x snd_cwnd=%d ssthresh=%.0f snd_wnd=100000 srtt=11300 rcv_wnd=65535 sock_cookie=1\n", 100 + i * 0.002, i * 1448, cw, ss
		}
	}' >"$BATS_TEST_TMPDIR/p48.txt"
	: >"$BATS_TEST_TMPDIR/bpf.jsonl"
	if [ "$kind" = bpf ]; then
		echo "{\"record\":\"exit\",\"sport\":40000,\"reason\":\"delay\",\"delay\":true,\"cwnd\":48,\"ssthresh\":48,\"delay_min_us\":11284,\"round_min_rtt_us\":$rtt,\"since_start_us\":50000}" \
			>"$BATS_TEST_TMPDIR/bpf.jsonl"
	else
		nstat="0 1"
	fi
	synth_analyze "$BATS_TEST_TMPDIR/p48.txt" --scenario s2011_q25 --algorithm x --kind "$kind" --arg linux \
		--rep 1 --rate 200mbit --rtt 11.3ms --buffer 0.25bdp --bdp-pkts 188 --buffer-pkts 47 \
		--nstat-after "$nstat" "$@"
}

@test "eval: a delay exit that no queue of the path explains is a stalled path, said and recorded (synthetic flows)" {
	# the s2011_q25 flow of a run at stop 33: cwnd 48 queues at most 2.82 ms,
	# its round's RTTs were 5.94 ms up: exit 4 with --stall-exit, one sentence
	run stall_flow bpf 17226 --stall-exit
	echo "$output"
	[ "$status" -eq 4 ]
	[[ $output == *"PATH STALLED: s2011_q25 x rep 1: a delay exit at cwnd 48 on an RTT 5.94 ms above delay_min"*"47 packets queue in 2.82 ms"* ]]
	[ "$(grep '^{' <<<"$output" | jq -c '.path_stall | [.rise_us, .queue_max_us, .cwnd]')" = "[5942,2820,48]" ]
	# without --stall-exit the flow is recorded and analyze.py exits 0
	run stall_flow bpf 17226
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq '.path_stall.rise_us')" -eq 5942 ]
	# 3.7 ms up: the queue (2.82 ms) and the delay line's slack (1 ms) explain it
	run stall_flow bpf 15000 --stall-exit
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq '.path_stall')" = null ]
	# the kernel's cubic: its delay test fired 4 ms (at least) above delay_min at cwnd 48
	run stall_flow kernel 0 --stall-exit
	echo "$output"
	[ "$status" -eq 4 ]
	[[ $output == *"the kernel HyStart's delay threshold"* ]]
}

# gap_flow GAP_AT GAP_US BURST [ANALYZE ARGS...]: analyze.py flow on r50_20_1
# (50 Mbit/s: a 1500-byte packet each 240 us) for a kernel cubic flow whose
# 120 ACKs each acknowledge one segment, 240 us apart, and whose slow start
# ends at ACK 118 (ssthresh 120). Before ACK GAP_AT, none for GAP_US; BURST 1:
# the ACKs that the bottleneck delivered meanwhile then come 10 us apart (a
# stall), 0: the ACKs go on at the bottleneck's pace (the sender was idle)
gap_flow() {
	local at=$1 gap=$2 burst=$3
	shift 3
	awk -v at="$at" -v gap="$gap" -v burst="$burst" 'BEGIN {
		t = 100; una = 0
		for (i = 0; i < 130; i++) {
			cw = 10 + i; ss = 2147483647
			if (i >= 118) { cw = 128; ss = 128 }
			if (i == at) t += gap / 1e6
			else if (burst && i > at && i <= at + int(gap / 240)) t += 0.00001
			else t += 0.00024
			printf "          iperf3-1234    (   1234) [001] ..s1.  %.6f: tcp_probe: family=AF_INET src=10.77.1.1:40000 dest=10.77.2.2:25000 mark=0x0 data_len=0 snd_nxt=0x%x snd_una=0x%x snd_cwnd=%d ssthresh=%.0f snd_wnd=100000 srtt=20000 rcv_wnd=65535 sock_cookie=1\n", t, una + 200000, una, cw, ss
			una += 1448
		}
	}' >"$BATS_TEST_TMPDIR/gap.txt"
	: >"$BATS_TEST_TMPDIR/bpf.jsonl"
	synth_analyze "$BATS_TEST_TMPDIR/gap.txt" --scenario r50_20_1 --algorithm cubic --kind kernel --arg cubic \
		--rep 1 --rate 50mbit --rtt 20ms --buffer 1bdp --bdp-pkts 83 --buffer-pkts 83 "$@"
}

@test "eval: an ACK gap in slow start that ends in a burst is a stalled path; one the sender made is not (synthetic flows)" {
	# 4 ms without an ACK at cwnd 60, then the 16 ACKs of what the bottleneck
	# delivered meanwhile at once: a stall (HyStart's train ends at 2 ms)
	run gap_flow 50 4000 1 --stall-exit
	echo "$output"
	[ "$status" -eq 4 ]
	[[ $output == *"PATH STALLED: r50_20_1 cubic rep 1: no ACK for 4.00 ms in slow start"*"cwnd 60"* ]]
	[ "$(grep '^{' <<<"$output" | jq -c '.path_stall | [.kind, .gap_us, .cwnd]')" = '["ack_gap",4000,60]' ]
	# the same gap, the ACKs after it at the bottleneck's pace: the sender had
	# nothing in flight (a flight's end, an application's pause), not a stall
	run gap_flow 50 4000 0 --stall-exit
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq '.path_stall')" = null ]
	# 1.8 ms: no HyStart or PREDICT train ends at it
	run gap_flow 50 1800 1 --stall-exit
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq '.path_stall')" = null ]
	# after the exit (ACK 118): congestion avoidance, not checked
	run gap_flow 119 4000 1 --stall-exit
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq '.path_stall')" = null ]
	# a path that aggregates its ACKs by design is not checked
	run gap_flow 50 4000 1 --stall-exit --real "agg=4ms"
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq '.path_stall')" = null ]
}

@test "eval: a flow on an emulator whose delay line ran late is a stalled path; within 1 ms at p99 it is not (synthetic flows)" {
	# a clean flow (no gap, no delay exit) on a late emulator: 1 % of its
	# packets left the delay line more than 3.2 ms late (stop 43's machine)
	run gap_flow 50 240 0 --stall-exit --emu-release-p99-us 3200 --emu-release-max-us 15000
	echo "$output"
	[ "$status" -eq 4 ]
	[[ $output == *"PATH STALLED: r50_20_1 cubic rep 1: the emulator's delay line released 1 % of the flow's packets more than 3.20 ms late (at most 15.00 ms"* ]]
	[ "$(grep '^{' <<<"$output" | jq -c '[.path_stall.kind, .emu_release_p99_us, .emu_release_max_us]')" = '["emulator_late",3200,15000]' ]
	# 450 us, the top of what a loaded but faithful emulator shows: recorded, no stall
	run gap_flow 50 240 0 --stall-exit --emu-release-p99-us 450 --emu-release-max-us 6000
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq -c '[.path_stall, .emu_release_p99_us]')" = '[null,450]' ]
	# not measured (an older run.sh): nothing said
	run gap_flow 50 240 0 --stall-exit
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq -c '[.path_stall, .emu_release_p99_us]')" = '[null,null]' ]
}

@test "eval: a flow whose first data left late after the SYN-ACK that started its RTT step is a stalled path (synthetic flows)" {
	# the step's clock started at 1000 s; one RTT (20 ms) later the first
	# data is due: 80 ms after that, the step came 80 ms early into the flow
	SYNTH_IPERF='{"start": {"flowgen": {"first_write_unix_s": 1000.1}}}' \
		run gap_flow 50 240 0 --stall-exit --sender flowgen --rtt-step 200ms:40ms --schedule-t0-unix-s 1000
	echo "$output"
	[ "$status" -eq 4 ]
	[[ $output == *"PATH STALLED: r50_20_1 cubic rep 1: the first data left 80.00 ms later than one RTT after the SYN-ACK"* ]]
	[ "$(grep '^{' <<<"$output" | jq -c '[.path_stall.kind, .path_stall.late_us, .step_start_late_us]')" = '["step_late",80000,80000]' ]
	# 5 ms late (a loaded host's 2.5-5.5 ms): recorded, no stall
	SYNTH_IPERF='{"start": {"flowgen": {"first_write_unix_s": 1000.025}}}' \
		run gap_flow 50 240 0 --stall-exit --sender flowgen --rtt-step 200ms:40ms --schedule-t0-unix-s 1000
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq -c '[.path_stall, .step_start_late_us]')" = '[null,5000]' ]
	# no step, or no clock read: nothing measured
	SYNTH_IPERF='{"start": {"flowgen": {"first_write_unix_s": 1000.1}}}' \
		run gap_flow 50 240 0 --stall-exit --sender flowgen --schedule-t0-unix-s 1000
	[ "$status" -eq 0 ]
	[ "$(grep '^{' <<<"$output" | jq -c '[.path_stall, .step_start_late_us]')" = '[null,null]' ]
}

@test "eval: run.sh runs a flow whose path stalled again, and keeps the last try after three" {
	p="${EP}s"
	# a python whose analysis finds the path stalled on the first try of
	# every flow (tries 2 and 3 of the second flow too), and on no other: the
	# real analysis runs without --stall-exit (a host that really stalls, or
	# an emulator running late, would add tries of its own)
	printf '%s\n' '#!/bin/bash' \
		'if [ "${2:-}" = flow ]; then' \
		'	args=()' \
		'	for a in "$@"; do [ "$a" = --stall-exit ] || args+=("$a"); done' \
		'	/usr/bin/python3 "${args[@]}" || exit' \
		'	retries=$(sed -E "s/.*--stall-retries ([0-9]+).*/\1/" <<<"$*")' \
		'	if [ "$retries" = 0 ] || [[ $* == *bpf_off* ]]; then' \
		'		echo "analyze.py: PATH STALLED: (test)" >&2; exit 4' \
		'	fi' \
		'	exit 0' \
		'fi' \
		'exec /usr/bin/python3 "$@"' >"$BATS_TEST_TMPDIR/py"
	chmod +x "$BATS_TEST_TMPDIR/py"
	run env EVAL_PYTHON="$BATS_TEST_TMPDIR/py" "$RUN" --scenarios r50_20_1 --algos "cubic bpf_off" --reps 1 \
		--duration 2 --prefix "$p" --out "$BATS_TEST_TMPDIR/s" --no-report
	echo "$output"
	[ "$status" -eq 0 ]
	# one record per flow, the try kept: cubic's second, bpf_off's third
	[ "$(wc -l <"$BATS_TEST_TMPDIR/s/flows.jsonl")" -eq 2 ]
	[ "$(jq -s -c 'map([.algorithm, .stall_retries])' "$BATS_TEST_TMPDIR/s/flows.jsonl")" = '[["cubic",1],["bpf_off",2]]' ]
	[[ $output == *"r50_20_1 cubic rep 1: the path stalled (above): the flow again (2 of 3)"* ]]
	[[ $output == *"r50_20_1 bpf_off rep 1: the path stalled (above): the flow again (3 of 3)"* ]]
	[[ $output == *"r50_20_1 bpf_off rep 1: the path stalled in all 3 tries: the last is kept, path_stall set"* ]]
	[[ $output != *"cubic rep 1: the path stalled in all"* ]]
	grep -q "path_stalls: 3 tries run again, 1 flows kept stalled" "$BATS_TEST_TMPDIR/s/run.txt"
	# one cwnd series per flow, the kept try's: no time bucket twice
	[ "$(grep -c '^r50_20_1,cubic,1,' "$BATS_TEST_TMPDIR/s/cwnd.csv")" -gt 10 ]
	[ -z "$(cut -d, -f1-4 "$BATS_TEST_TMPDIR/s/cwnd.csv" | sort | uniq -d)" ]
	run leftovers "$p"
	echo "$output"
	[ -z "$output" ]
}

@test "eval: what a stalled try taught the datapath is forgotten: the try kept meets the path afresh" {
	p="${EP}f"
	# behind eval's pol100_40 policer the first PREDICT flow remembers the
	# policer (predict.bats checks that); here the analysis calls the first
	# try stalled, so run.sh throws it away and must throw its memory away
	# with it: the kept try's target comes from its own train, not a memory
	printf '%s\n' '#!/bin/bash' \
		'if [ "${2:-}" = flow ]; then' \
		'	args=()' \
		'	for a in "$@"; do [ "$a" = --stall-exit ] || args+=("$a"); done' \
		'	/usr/bin/python3 "${args[@]}" || exit' \
		'	if [[ $* == *"--stall-retries 0 "* ]]; then echo "analyze.py: PATH STALLED: (test)" >&2; exit 4; fi' \
		'	exit 0' \
		'fi' \
		'exec /usr/bin/python3 "$@"' >"$BATS_TEST_TMPDIR/py"
	chmod +x "$BATS_TEST_TMPDIR/py"
	# Not every first flow leaves a memory: one whose loss's RTT carried a
	# loaded host's queue leaves none (in CI, beside a qemu guest, rep 1's
	# first try lost at cwnd 154 and left none; its kept try was a host
	# stall's delay exit, with no loss to learn from). So up to 3 runs, until
	# one whose rep 1 first try remembered the policer.
	for a in 1 2 3; do
		run env EVAL_PYTHON="$BATS_TEST_TMPDIR/py" "$RUN" --scenarios pol100_40 --algos bpf_predict \
			--reps 2 --duration 2 --prefix "$p$a" --out "$BATS_TEST_TMPDIR/m$a" --no-report
		echo "$output"
		[ "$status" -eq 0 ]
		m="$BATS_TEST_TMPDIR/m$a/flows.jsonl"
		jq -c '{rep, stall_retries, bpf_predict_policer_memory, bpf_predict_target, exit_reason,
			policer: [.bpf_policer_records[] | .actions]}' "$m"
		out=$output
		run leftovers "$p$a"
		echo "$output"
		[ -z "$output" ]
		# rep 1's first try met the policer first and remembered it; thrown away, forgotten
		[[ $out == *"pol100_40 bpf_predict rep 1: the stalled try's memory of the path is forgotten (policer)"* ]] &&
			break
	done
	[[ $out == *"pol100_40 bpf_predict rep 1: the stalled try's memory of the path is forgotten (policer)"* ]]
	# the try kept met the path afresh
	[ "$(jq -s '.[0] | .rep == 1 and .stall_retries == 1 and (.bpf_predict_policer_memory // 0) == 0' "$m")" = true ]
	# when the kept rep 1 left the policer remembered (its policer record
	# says so; one whose recovery contradicted it forgot it), rep 2's first
	# try met that memory, and nothing was forgotten for it
	left=$(jq -s '[.[0].bpf_policer_records[].actions[]] as $a |
		($a | any(. == "stored" or . == "stored_at_loss")) and ($a | index(["forgot"]) == null)' "$m")
	echo "rep 1 kept left a memory: $left"
	if [ "$left" = true ]; then
		[[ $out != *"bpf_predict rep 2: the stalled try's memory"* ]]
		[ "$(jq -s '.[1] | .rep == 2 and .stall_retries == 1 and .bpf_predict_policer_memory > 0' "$m")" = true ]
	fi
}

@test "eval: --first-flows: every PREDICT flow meets the policer as its first, nothing remembered" {
	p="${EP}y"
	# without the option rep 2 takes its target from the policer rep 1
	# remembered (the test above); with it, that memory is forgotten first
	run "$RUN" --scenarios pol100_40 --algos bpf_predict --reps 4 --duration 2 --first-flows \
		--prefix "$p" --out "$BATS_TEST_TMPDIR/ff" --no-report
	echo "$output"
	[ "$status" -eq 0 ]
	jq -c '{rep, stall_retries, bpf_predict_policer_memory, bpf_predict_busy, bpf_predict_target, exit_reason}' \
		"$BATS_TEST_TMPDIR/ff/flows.jsonl"
	[ "$(jq -s 'length == 4 and all(.[]; (.bpf_predict_policer_memory // 0) == 0 and (.bpf_predict_busy // 0) == 0)' \
		"$BATS_TEST_TMPDIR/ff/flows.jsonl")" = true ]
	# a flow met the policer and remembered it; the next one had it
	# forgotten first. Not every flow leaves a memory: one whose loss's RTT
	# carried a queue (over 1/20 of delay_min: a loaded host's) leaves none.
	# In CI a rep 1 beside a qemu guest had no estimate believed, and then
	# left none either (predict_polmem_unbelieved() measures that one now).
	# A CI-like run of 6202daa, its host loaded enough that rep 2 stalled in
	# all three tries, had rep 1's and rep 2's flows leave none (on an idle
	# host each of three flows did). Of three chances, one
	[[ $output =~ "pol100_40 bpf_predict rep "[234]": the path's memory is forgotten before the flow (--first-flows: policer)" ]]
	# what the loss and its recovery decided is in the flow's policer
	# record, joined to its exit record by flow_id
	[ "$(jq -s 'any(.[]; . as $f | .bpf_policer_records | any(.flow_id == $f.bpf_exit_record.flow_id and
		.measure > 0 and .lost > 0))' "$BATS_TEST_TMPDIR/ff/flows.jsonl")" = true ]
	run leftovers "$p"
	echo "$output"
	[ -z "$output" ]
}

@test "eval: run.sh stops at the first flow analyze.py finds impossible, and cleans up" {
	p="${EP}m"
	# a python that runs analyze.py and then finds the flow impossible
	printf '%s\n' '#!/bin/bash' \
		'if [ "${2:-}" = flow ]; then' \
		'	/usr/bin/python3 "$@" || exit' \
		'	echo "analyze.py: IMPOSSIBLE WINDOW: (test) ssthresh 2165325072 > 2147483647" >&2' \
		'	exit 3' \
		'fi' \
		'exec /usr/bin/python3 "$@"' >"$BATS_TEST_TMPDIR/py"
	chmod +x "$BATS_TEST_TMPDIR/py"
	run env EVAL_PYTHON="$BATS_TEST_TMPDIR/py" "$RUN" --scenarios r50_20_1 --algos "cubic bpf_off" --reps 2 \
		--duration 2 --prefix "$p" --out "$BATS_TEST_TMPDIR/m"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ $output == *"IMPOSSIBLE WINDOW: (test)"* ]]
	[[ $output == *"run.sh: stopped after an impossible window"* ]]
	# it stopped at the first flow
	[ "$(wc -l <"$BATS_TEST_TMPDIR/m/flows.jsonl")" -eq 1 ]
	run leftovers "$p"
	echo "$output"
	[ -z "$output" ]
}

@test "eval: nothing is left behind" {
	run leftovers "$EP"
	echo "$output"
	[ -z "$output" ]
}

@test "eval: the report renders the fidelity table and both plots" {
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || skip "no matplotlib for /usr/bin/python3"
	run /usr/bin/python3 "$REPO/tools/eval/analyze.py" report --in "$EV" --out "$BATS_TEST_TMPDIR/rep" \
		--doc "$BATS_TEST_TMPDIR/EVALUATION.md"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"bpf_cubic (preset linux) / kernel cubic"* ]]
	[[ $output == *"r50_20_1"* ]]
	[ -s "$BATS_TEST_TMPDIR/rep/cwnd_time.png" ]
	[ -s "$BATS_TEST_TMPDIR/rep/exit_cwnd_bdp.png" ]
	grep -q "Fidelity" "$BATS_TEST_TMPDIR/rep/summary.md"
	grep -q "## Fidelity" "$BATS_TEST_TMPDIR/EVALUATION.md"
	grep -q "cwnd_slowstart.png" "$BATS_TEST_TMPDIR/EVALUATION.md"
	# the ideal band, in the document, the summary and on stdout
	grep -q "^## Ideal band: where each rule leaves slow start" "$BATS_TEST_TMPDIR/EVALUATION.md"
	grep -q "^## Ideal band" "$BATS_TEST_TMPDIR/rep/summary.md"
	[[ $output == *"Ideal band (BDP <= exit cwnd <= BDP + buffer"* ]]
}

# band_tables FILE: the ideal-band section of an EVALUATION.md, its per
# algorithm table and its per scenario x algorithm table
band_tables() {
	sed -n '/^## Ideal band/,/^## Fidelity/p' "$1"
}

@test "eval: the ideal-band section has a row per algorithm, and per scenario and algorithm, of the run" {
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || skip "no matplotlib for /usr/bin/python3"
	/usr/bin/python3 "$REPO/tools/eval/analyze.py" report --in "$EV" --out "$BATS_TEST_TMPDIR/rep" \
		--doc "$BATS_TEST_TMPDIR/EVALUATION.md" >/dev/null
	band_tables "$BATS_TEST_TMPDIR/EVALUATION.md" >"$BATS_TEST_TMPDIR/band"
	cat "$BATS_TEST_TMPDIR/band"
	grep -q '^### Per algorithm' "$BATS_TEST_TMPDIR/band"
	grep -q '^| algorithm | clean scenarios in band | all scenarios in band | flows in band | flows below 0.8 BDP |' "$BATS_TEST_TMPDIR/band"
	for a in $(jq -r .algorithm "$EV/flows.jsonl" | sort -u); do
		# one summary row (n/2 clean scenarios, n/2 of all), one row per scenario
		[ "$(grep -c "^| $a | [0-9]*/2 | [0-9]*/2 | [0-9]*/6 | [0-9]*/6 |" "$BATS_TEST_TMPDIR/band")" -eq 1 ]
		for s in r50_20_1 r100_5_2; do
			[ "$(grep -c "^| $s | clean | [0-9]* | [0-9.]* | $a | " "$BATS_TEST_TMPDIR/band")" -eq 1 ]
		done
	done
	# the reference of the deep-buffer comparison
	grep -q '^| bpf_linux | .*(the reference) |$' "$BATS_TEST_TMPDIR/band"
}

# band_flow SCEN ALG REP BUFFER EXIT RETX [REASON]: a synthetic flow record,
# BDP 100 packets, 20 ms
band_flow() {
	printf '{"scenario":"%s","algorithm":"%s","kind":"bpf","arg":"x","rep":%d,"rate_mbit":60,"rtt_ms":20,' "$1" "$2" "$3"
	printf '"jitter":null,"buffer":"x","buffer_pkts":%d,"bdp_pkts":100,"duration_s":3,"class":"clean","clean":true,' "$4"
	printf '"exit_observed":true,"exit_cwnd":%d,"exit_cwnd_bdp":%s,"peak_cwnd_bdp":%s,"exit_reason":"%s",' "$5" "$(awk -v c="$5" 'BEGIN{print c/100}')" "$(awk -v c="$5" 'BEGIN{print c/100}')" "${7:-delay}"
	# ss_lost (a segment sent before the exit lost): the 8th argument, else true for a loss exit
	printf '"exit_time_s":0.12,"ideal_t_s":0.1,"ss_retrans":%d,"ss_lost":%s}\n' "$6" \
		"${8:-$([ "${7:-delay}" = loss ] && echo true || echo false)}"
}

@test "eval: bpf_cubic's verdict agrees with the ideal band on 90 % of the bpf flows; bdp_est's median within 10 % of the BDP, every flow within 25 %" {
	run /usr/bin/python3 "$REPO/tools/eval/analyze.py" band --in "$EV" --json
	[ "$status" -eq 0 ]
	v=$(jq -c '.verdict' <<<"$output")
	echo "$v" | jq -c '.algorithms[] | {algorithm, flows, with_verdict, judged, agree, disagree}'
	echo "$v" | jq -c '.bdp_est[] | {scenario, algorithm, n, med, lo, hi, bound, bound_med}'
	# every bpf flow of the quick matrix got a verdict on its exit, joined by flow_id
	[ "$(jq '[.algorithms[] | .flows - .with_verdict] | add' <<<"$v")" -eq 0 ]
	[ "$(jq '[.algorithms[] | .flows] | add' <<<"$v")" -ge 18 ]
	# the issue's bar: the verdict and the ideal-band analysis agree on 90 % of the flows judged
	jq -e '([.algorithms[] | .agree] | add) >= 0.9 * ([.algorithms[] | .judged] | add)
		and ([.algorithms[] | .judged] | add) >= 18' <<<"$v" >/dev/null
	# on clean paths bdp_est is the configured BDP: issue 21's bar, 10 %, for the
	# median of each scenario and algorithm (measured: -2 %..+6 %), and every
	# flow within 25 % (measured: -7 %..+7 %; in stop 34's CI two flows of 48 at
	# +16.7 % on r100_5_2 (bpf_linux and bpf_search), 49 packets for 42, cause not
	# found: tools/eval/README.md). A bound is not a measurement: counted apart.
	# The flows beyond 10 %, whole, so that a failure can be diagnosed:
	jq -c 'select(.clean and .verdict_bdp_est and (.verdict_bound | not)
		and ((.verdict_bdp_est / .bdp_pkts - 1) | fabs) > 0.10)
		| {scenario, algorithm, rep, bdp_pkts, verdict_bdp_est, verdict_min_rtt_us, verdict_end,
		   verdict_cong_cwnd, exit_reason, exit_cwnd, ss_retrans, path_stall}' "$EV/flows.jsonl"
	jq -e '[.bdp_est[] | select(.clean and .n > 0)] | length > 0
		and all(.med >= -0.10 and .med <= 0.10 and .lo >= -0.25 and .hi <= 0.25)' <<<"$v" >/dev/null
}

@test "eval: the ideal band counts a flow in only for BDP <= exit cwnd <= BDP + buffer and no segment sent in slow start lost (synthetic flows)" {
	d=$BATS_TEST_TMPDIR/band
	mkdir -p "$d"
	{
		for r in 1 2 3; do
			band_flow deep bpf_linux $r 100 150 0    # in
			band_flow deep good $r 100 150 0         # in
			band_flow deep retx $r 100 150 5 loss    # in range, but retransmissions: out
			# retransmissions of segments sent after the exit (congestion avoidance's): in
			band_flow deep calost $r 100 150 4 delay false
			band_flow deep sslost $r 100 150 4 delay true # a segment sent in slow start lost: out
			band_flow deep low $r 100 90 0           # below the BDP: out, not below 0.8
			band_flow deep far $r 100 70 0           # out, below 0.8 BDP
			band_flow deep over $r 100 201 0         # above BDP + buffer: out
			band_flow shallow good $r 25 125 0       # the upper edge: in
			band_flow shallow bpf_linux $r 25 100 0  # the lower edge: in
		done
		# two of three in: the scenario counts
		band_flow shallow edge 1 25 126 0
		band_flow shallow edge 2 25 110 0
		band_flow shallow edge 3 25 120 0
	} >"$d/flows.jsonl"
	run /usr/bin/python3 "$REPO/tools/eval/analyze.py" band --in "$d" --json
	[ "$status" -eq 0 ]
	echo "$output" >"$d/band.json"
	row() { jq -r --arg s "$1" --arg a "$2" '.rows[] | select(.scenario == $s and .algorithm == $a) | "\(.n_in)/\(.n) \(.majority) \(.below)"' "$d/band.json"; }
	alg() { jq -r --arg a "$1" '.algorithms[] | select(.algorithm == $a) | "\(.clean_in)/\(.clean_n) \(.flows_in)/\(.flows_n) \(.below) \(.no_worse)"' "$d/band.json"; }
	[ "$(row deep good)" = "3/3 true 0" ]
	[ "$(row deep retx)" = "0/3 false 0" ]
	[ "$(row deep calost)" = "3/3 true 0" ]
	[ "$(row deep sslost)" = "0/3 false 0" ]
	[ "$(row deep low)" = "0/3 false 0" ]
	[ "$(row deep far)" = "0/3 false 3" ]
	[ "$(row deep over)" = "0/3 false 0" ]
	[ "$(row shallow good)" = "3/3 true 0" ]
	[ "$(row shallow bpf_linux)" = "3/3 true 0" ]
	[ "$(row shallow edge)" = "2/3 true 0" ]
	# per algorithm: scenarios by majority, flows, flows below 0.8 BDP, deep buffers against bpf_linux
	[ "$(alg good)" = "2/2 6/6 0 true" ]
	[ "$(alg retx)" = "0/1 0/3 0 false" ]
	[ "$(alg far)" = "0/1 0/3 3 false" ]
	[ "$(alg edge)" = "1/1 2/3 0 null" ]
	# and why each missed, in words
	run /usr/bin/python3 "$REPO/tools/eval/analyze.py" band --in "$d"
	[ "$status" -eq 0 ]
	[[ $output == *"| deep | clean | 100 | 1 | retx | 0/3 |"*"3/3 loss before detection (loss at 1.50 BDP, 5 retx"* ]]
	[[ $output == *"| deep | clean | 100 | 1 | far | 0/3 |"*"3/3 early exit by delay (0.70 BDP"* ]]
	[[ $output == *"| deep | clean | 100 | 1 | over | 0/3 |"*"3/3 late exit by delay (2.01 BDP"* ]]
	[[ $output == *"| deep | clean | 100 | 1 | sslost | 0/3 |"*"3/3 exit by delay in range, but a slow-start segment lost (1.50 BDP, 4 retx,"* ]]
}

@test "eval: the stress scenarios run: an application-limited start, an RTT step inside slow start" {
	p="${EP}s"
	run "$RUN" --scenarios "app100_40_1 step100_40_80" --algos cubic --reps 1 --duration 2 --prefix "$p" \
		--out "$BATS_TEST_TMPDIR/st" --no-report
	echo "$output" | tail -n 8
	[ "$status" -eq 0 ]
	f=$BATS_TEST_TMPDIR/st/flows.jsonl
	jq -c '{scenario, clean, sender, exit_reason, exit_cwnd, exit_time_s, t90_s, rtt_step_at_s, srtt_rise_s, ss_retrans}' "$f"
	[ "$(wc -l <"$f")" -eq 2 ]
	[ "$(jq -s '[.[] | select(.sender == "flowgen" and .clean == false and .exit_observed and .ss_retrans != null
		and .probe_samples > 100 and .iperf_error == null)] | length' "$f")" -eq 2 ]
	# 1 s at 40 % of the rate: the first second's goodput (duration 2: goodput_window_s
	# 1) is the application's 40 % of the 96.5 Mbit/s payload rate, not the path's.
	# (Not t90: the application writes from the start while slow start's window
	# lags it, and that backlog leaves at line rate when the window opens: on a
	# faithful emulator 90 % of the rate was reached at 0.34 s, with 37.8 Mbit/s
	# over the first second)
	[ "$(jq 'select(.scenario == "app100_40_1") | .app_s == 1 and .goodput_window_s == 1
		and .goodput_mbit >= 0.3 * 96.5 and .goodput_mbit <= 0.5 * 96.5' "$f")" = true ]
	# the RTT (40 ms -> 80 ms, 200 ms after the SYN-ACK: 160 ms after the first data)
	# is seen to rise before slow start ends (cubic's delay test: on the rise itself)
	# (a flow whose first data the host held after the SYN-ACK that started
	# the step's clock met the step early: run again, path_stall step_late)
	[ "$(jq 'select(.scenario == "step100_40_80") | .step_start_late_us <= 10000' "$f")" = true ]
	[ "$(jq 'select(.scenario == "step100_40_80") | .rtt_step_at_s == 0.16 and .bdp_pkts == 667
		and .srtt_rise_s >= 0.2 and .srtt_rise_s <= 0.35 and .srtt_rise_s <= .exit_time_s + 0.01' "$f")" = true ]
	run leftovers "$p"
	[ -z "$output" ]
}

@test "eval: the real-path scenarios run: a policer, a competing flow, a trace link" {
	p="${EP}r"
	# (ACK aggregation is a pathemu option passed through as it is: emu.bats checks it)
	run "$RUN" --scenarios "pol100_40 cross50_40_c1 cell20_40" --algos cubic --reps 1 --duration 2 \
		--prefix "$p" --out "$BATS_TEST_TMPDIR/rp" --no-report
	echo "$output" | tail -n 8
	[ "$status" -eq 0 ]
	f=$BATS_TEST_TMPDIR/rp/flows.jsonl
	jq -c '{scenario, class, real, bdp_pkts, exit_reason, exit_cwnd, ss_retrans}' "$f"
	[ "$(wc -l <"$f")" -eq 3 ]
	[ "$(jq -s '[.[] | select(.class == "stress" and .exit_observed and .iperf_error == null)] | length' "$f")" -eq 3 ]
	# each record says which real path it was, and judges the exit by the pipe the
	# flow had: the policed rate's (20 Mbit/s x 40 ms = 67 packets), a fair share
	# beside one flow (50 Mbit/s x 40 ms / 2 = 83), and on the trace link the
	# stretch the first repetition meets: the trace from 0 ms, whose first
	# second carries 2335 packets (28.0 Mbit/s, not the trace's mean of 20):
	# 93 packets in 40 ms
	[ "$(jq -r 'select(.scenario == "pol100_40") | "\(.real) \(.bdp_pkts)"' "$f")" = "police=20mbit:100kb 67" ]
	[ "$(jq -r 'select(.scenario == "cross50_40_c1") | "\(.real) \(.bdp_pkts)"' "$f")" = "cross=1:cubic 83" ]
	[ "$(jq -r 'select(.scenario == "cell20_40") | "\(.real) \(.bdp_pkts) \(.trace_phase_ms)"' "$f")" = "trace=cellular 93 0" ]
	[ "$(jq -r 'select(.scenario != "cell20_40") | .trace_phase_ms' "$f" | sort -u)" = null ]
	# a policer's drops are the path's drops: the flow that hit it shows them
	[ "$(jq 'select(.scenario == "pol100_40") | .tbf_drops > 0' "$f")" = true ]
	# the slow start's cost to the path: beside a competing flow, what that flow
	# retransmitted meanwhile is counted too (run.sh's cross_retrans markers were
	# read: a number, not null), from its sockets (control and data connection,
	# seen in every sample); without one the path's cost is the flow's own
	[ "$(jq 'select(.scenario == "cross50_40_c1") | (.ss_cross_retrans | type == "number")
		and .ss_cross_sockets == 2 and .ss_path_retrans == .ss_retrans + .ss_cross_retrans' "$f")" = true ]
	[ "$(jq 'select(.scenario == "pol100_40") | .ss_cross_retrans == null and .ss_cross_sockets == null
		and .ss_path_retrans == .ss_retrans' "$f")" = true ]
	run leftovers "$p"
	[ -z "$output" ]
}

@test "eval: a path of one's own (--path) runs alone, recorded and judged in the real-path table as its class" {
	p="${EP}o"
	# two competing cubic flows: not a class of the matrix (1 and 4 are)
	run "$RUN" --path "own_c2 50mbit 40ms 1bdp stress cross=2:cubic" --algos cubic --reps 2 --duration 2 \
		--prefix "$p" --out "$BATS_TEST_TMPDIR/own" --keep-probes
	echo "$output" | tail -n 8
	[ "$status" -eq 0 ]
	f=$BATS_TEST_TMPDIR/own/flows.jsonl
	jq -c '{scenario, class, real, bdp_pkts, exit_reason, exit_cwnd, ss_retrans}' "$f"
	# only the given path ran, twice, and its record says which path it was:
	# the fair share beside two flows, 50 Mbit/s x 40 ms / 3 = 56 packets
	[ "$(jq -r '"\(.scenario) \(.class) \(.real) \(.bdp_pkts)"' "$f" | sort -u)" = "own_c2 stress cross=2:cubic 56" ]
	[ "$(wc -l <"$f")" -eq 2 ]
	# the real-path table has a class for it, with the kernel's cubic as its reference
	grep -q '^| 2 competing flows | own_c2 | cubic | 2 | ' "$BATS_TEST_TMPDIR/own/summary.md"
	# run.txt's command runs the same path again: the row stays one word
	grep -qF 'command=tools/eval/run.sh --path own_c2\ 50mbit\ 40ms\ 1bdp\ stress\ cross=2:cubic' "$BATS_TEST_TMPDIR/own/run.txt"
	# --keep-probes kept each flow's tcp_probe trace, and rounds.py reads the
	# initial window's ACKs off it at about the 50 Mbit/s bottleneck's rate,
	# unless the round lost a packet to the others' queue (then its ACKs wait for
	# the retransmission, and the round is marked !): a mark the flow's record
	# agrees with (it retransmitted in slow start)
	[ "$(ls "$BATS_TEST_TMPDIR/own/probes")" = "$(printf 'own_c2_cubic_1.probe\nown_c2_cubic_2.probe')" ]
	run /usr/bin/python3 "$REPO/tools/eval/rounds.py" "$BATS_TEST_TMPDIR"/own/probes/*
	echo "$output"
	[ "$status" -eq 0 ]
	r1=$(awk 'NR > 1 { print $1, $2, $4 }' <<<"$output")
	[ "$(wc -l <<<"$r1")" -eq 2 ]
	while read -r flow rate acks; do
		rep=${flow##*_}
		if [[ $acks == *! ]]; then
			[ "$(jq --argjson r "$rep" 'select(.rep == $r) | .ss_retrans > 0' "$f")" = true ]
		else
			awk -v r="$rate" 'BEGIN { exit !(r >= 25 && r <= 150) }'
		fi
	done <<<"$r1"
	# replay.py runs PREDICT's core on the same ACKs: a decision for each
	# flow, and a round it believed read about the bottleneck's rate too
	for pr in "$BATS_TEST_TMPDIR"/own/probes/*; do
		run /usr/bin/python3 "$REPO/tools/eval/replay.py" "$pr"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ ${lines[0]} == "round "*"believed" ]]
		[[ ${lines[-1]} == "PREDICT: "* ]]
		awk 'NR > 1 && $NF == "yes" && !($7 >= 25 && $7 <= 150) { bad = 1 } END { exit bad }' <<<"$output"
	done
	run leftovers "$p"
	[ -z "$output" ]
}

@test "eval: a bad --path is refused before anything starts: an ID the table has, given twice, a short row, a clean path with options" {
	for bad in "s2011 50mbit 40ms 1bdp stress|ID s2011 is the table's" \
		"x 50mbit 40ms|RATE RTT BUFFER CLASS after the ID" \
		"x 50mbit 40ms 1bdp clean agg=2ms|a clean scenario has no" \
		"x 5zbit 40ms 1bdp stress|bad rate" \
		"x 50mbit 40ms 1bdp stress cross=17:cubic|N <= 16"; do
		run "$RUN" --path "${bad%%|*}" --prefix "${EP}x" --out "$BATS_TEST_TMPDIR/bad"
		echo "$output"
		[ "$status" -eq 2 ]
		[[ $output == "run.sh: "*"${bad#*|}"* ]]
	done
	run "$RUN" --path "x 50mbit 40ms 1bdp stress" --path "x 20mbit 40ms 1bdp stress" --prefix "${EP}x"
	[ "$status" -eq 2 ]
	[ "$output" = "run.sh: --path: ID x is given twice" ]
	[ ! -e "$BATS_TEST_TMPDIR/bad" ]
	run leftovers "${EP}x"
	[ -z "$output" ]
}

@test "eval: an algorithm of one's own (--algo): a preset with its tunables runs beside the table's, and bad rows are refused" {
	p="${EP}a"
	# linux with hystart=0 beside linux itself: only the own row's flows
	# can leave slow start by loss alone on the clean 1-BDP path
	run "$RUN" --scenarios r50_20_1 --algos bpf_linux --algo "bpf_lin0 bpf linux hystart=0" --reps 2 --duration 2 \
		--prefix "$p" --out "$BATS_TEST_TMPDIR/own" --no-report
	echo "$output" | tail -n 6
	[ "$status" -eq 0 ]
	f=$BATS_TEST_TMPDIR/own/flows.jsonl
	jq -c '{algorithm, arg, rep, exit_reason, bpf_reason, exit_cwnd, ss_retrans}' "$f"
	# interleaved: one flow of each per repetition
	[ "$(jq -r .algorithm "$f" | sort | uniq -c | awk '{print $1, $2}' | tr '\n' ' ')" = "2 bpf_lin0 2 bpf_linux " ]
	[ "$(jq -r 'select(.algorithm == "bpf_lin0") | "\(.arg) \(.exit_reason)"' "$f" | sort -u)" = "linux loss" ]
	# each record says what ran: the own row's tunables beside its preset, none for the table's
	[ "$(jq -r '"\(.algorithm) \(.arg) \(.tunables)"' "$f" | sort -u | tr '\n' ';')" = "bpf_lin0 linux hystart=0;bpf_linux linux null;" ]
	[ -z "$(jq -r 'select(.algorithm == "bpf_linux" and .exit_reason == "loss") | .rep' "$f")" ]
	run leftovers "$p"
	[ -z "$output" ]
	# refused before anything starts (exit 2): an ID the table has, one
	# given twice, a kind other than bpf, a token neither a datapath nor
	# KEY=VALUE, an ID without bpf_
	for bad in "bpf_linux bpf linux hystart=0|the ID is taken" \
		"bpf_q kernel cubic|a row is ID bpf PRESET" \
		"bpf_q bpf linux quick|neither a datapath" \
		"q bpf linux|begins with bpf_"; do
		run "$RUN" --algo "${bad%%|*}" --prefix "${EP}x" --out "$BATS_TEST_TMPDIR/bad"
		echo "$output"
		[ "$status" -eq 2 ]
		[[ $output == "run.sh: --algo "*"${bad#*|}"* ]]
	done
	run "$RUN" --algo "bpf_q bpf linux" --algo "bpf_q bpf predict" --prefix "${EP}x" --out "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 2 ]
	[ "$output" = "run.sh: --algo bpf_q: the ID is taken (--list)" ]
	[ ! -e "$BATS_TEST_TMPDIR/bad" ]
	# a tunable cubicctl refuses stops the run at its load, naming it, and
	# leaves nothing behind
	run "$RUN" --scenarios r50_20_1 --algos cubic --algo "bpf_q bpf linux beta=5000" --reps 1 --duration 2 \
		--prefix "${EP}x" --out "$BATS_TEST_TMPDIR/badload" --no-report
	echo "$output" | tail -n 3
	[ "$status" -eq 1 ]
	[[ $output == *"run.sh: cannot load ${EP}x_q (preset linux, datapath exact, beta=5000)"* ]]
	run leftovers "${EP}x"
	[ -z "$output" ]
}

@test "eval: a preset this cubicctl lacks stops the run at the start, naming it" {
	p="${EP}x"
	# a cubicctl whose help has no "search" preset
	printf '%s\n' '#!/bin/bash' \
		"if [ \"\${1:-}\" = help ]; then \"$CUBICCTL\" help | grep -v '^  search '; exit; fi" \
		"exec \"$CUBICCTL\" \"\$@\"" >"$BATS_TEST_TMPDIR/cubicctl"
	chmod +x "$BATS_TEST_TMPDIR/cubicctl"
	run env CUBICCTL="$BATS_TEST_TMPDIR/cubicctl" "$RUN" --scenarios r50_20_1 --algos "cubic bpf_search" \
		--reps 1 --duration 2 --prefix "$p" --out "$BATS_TEST_TMPDIR/x" --no-report
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"algorithm bpf_search: "*"has no preset 'search'"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/x/flows.jsonl" ]
	run leftovers "$p"
	[ -z "$output" ]
}

@test "eval: Ctrl-C in the middle of a run cleans up" {
	p="${EP}i"
	# job control: the run gets a process group of its own and SIGINT is not
	# ignored (as for a background job without it), like a terminal's Ctrl-C
	# (env --default-signal: a run started from a script's background job
	# inherits SIGINT ignored, and bash cannot trap a signal ignored at entry)
	set -m
	env --default-signal=INT "$RUN" --scenarios r50_20_1 --reps 1 --duration 3 --prefix "$p" --out "$BATS_TEST_TMPDIR/int" --no-report \
		>"$BATS_TEST_TMPDIR/int.out" 2>"$BATS_TEST_TMPDIR/int.err" &
	pid=$!
	# wait until a bpf flow is running: instances loaded, path up, tracer attached
	for _ in $(seq 100); do
		grep -q 'bpf_linux rep 1' "$BATS_TEST_TMPDIR/int.err" && break
		sleep 0.1
	done
	sleep 1
	# the run must still be going: one that ended by itself says why
	if ! kill -INT -- -"$pid"; then
		cat "$BATS_TEST_TMPDIR/int.err"
		wait "$pid" || echo "the run ended by itself before the Ctrl-C, exit $?"
		false
	fi
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/int.err"
	[ "$rc" -eq 130 ]
	run leftovers "$p"
	echo "$output"
	[ -z "$output" ]
}

@test "eval: bad input exits 2 and creates nothing" {
	run "$RUN" --reps 0
	[ "$status" -eq 2 ]
	run "$RUN" --scenarios nosuch --prefix "${EP}x"
	[ "$status" -eq 2 ]
	run "$RUN" --prefix 'bad-prefix'
	[ "$status" -eq 2 ]
	run env EVAL_STALL_TRIES=0 "$RUN" --scenarios r50_20_1 --prefix "${EP}x"
	[ "$status" -eq 2 ]
	[ "$output" = "run.sh: EVAL_STALL_TRIES: positive integer" ]
	run leftovers "${EP}x"
	[ -z "$output" ]
}

@test "eval: the policer sweep is in the default matrix, its 1 MB bucket only when --scenarios names it" {
	run "$RUN" --list
	[ "$status" -eq 0 ]
	# the default matrix (the scenarios above the named-only header)
	default=$(sed -n '/^scenarios (id/,/^scenarios run only/p' <<<"$output")
	named=$(sed -n '/^scenarios run only/,/^algorithms/p' <<<"$output")
	for s in pol100_40 pol100_40_b30 pol100_40_b300 pol100_40_r50 pol100_20 pol50_80; do
		grep -q "^  $s .*police=" <<<"$default"
		! grep -q "^  $s " <<<"$named"
	done
	! grep -q '^  pol100_40_b1m ' <<<"$default"
	grep -q '^  pol100_40_b1m .*police=20mbit:1mb' <<<"$named"
	# named, it runs, with the core algorithms
	run "$RUN" --list --scenarios "pol100_40_b1m pol100_40"
	[ "$status" -eq 0 ]
	[[ "$output" == *"pol100_40_b1m  100mbit  40ms"*"police=20mbit:1mb"*"bpf_predict"* ]]
	[[ "$output" != *"scenarios run only"* ]]
	run "$RUN" --list --scenarios "pol50_80 pol50_81"
	[ "$status" -eq 2 ]
	[ "$output" = "run.sh: unknown scenario pol50_81" ]
}
