#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Flow completion time (tools/fct): a short real run (20 Mbit/s, 20 ms, 1 BDP;
# 1 MB transfers, 2 repetitions of the kernel's cubic, bpf_cubic linux and
# bbr, interleaved) and what a user reads from it: every transfer completed on
# the algorithm asked, no faster than physics allows and not absurdly slower,
# one report row per algorithm whose ratios are those of the JSON records, the
# drops counted; bad input and Ctrl-C leave nothing behind. About 1-2 minutes.

load lib

RUN="$REPO/tools/fct/run.sh"
ANALYZE="$REPO/tools/fct/analyze.py"
FALGOS="cubic bpf_linux bbr"

leftovers() { # PREFIX: what a run with that prefix left behind
	local p=$1
	ip netns list | grep -E "^${p}p-" || true
	tr ' ' '\n' <"$AVAILABLE" | grep -E "^${p}_" || true
	ls -d /sys/fs/bpf/cubicctl/"${p}"_* 2>/dev/null || true
	ls -d /run/pathemu/"${p}"p 2>/dev/null || true
}

cleanup_prefix() {
	local p=$1 n
	"$PATHEMU" stop --name "${p}p" >/dev/null 2>&1 || true
	for n in $(tr ' ' '\n' <"$AVAILABLE" | grep -E "^${p}_"); do force_unload "$n"; done
}

setup_file() {
	[[ $EUID -eq 0 ]] || skip "needs root"
	ensure_fs
	export FP="bf$(( $$ % 1000 ))r"
	export FV="$BATS_FILE_TMPDIR/fct"
	# make test-quick runs one test of this file, which needs no shared run
	[ -z "${BCT_QUICK:-}" ] || return 0
	"$RUN" --paths r20_20_1 --sizes 1MB --reps 2 --algos "$FALGOS" --prefix "$FP" --out "$FV" \
		>"$BATS_FILE_TMPDIR/run.out" 2>"$BATS_FILE_TMPDIR/run.err" && echo 0 >"$BATS_FILE_TMPDIR/rc" ||
		echo $? >"$BATS_FILE_TMPDIR/rc"
}

teardown_file() {
	cleanup_prefix "$FP"
	cleanup_prefix "${FP}i"
	cleanup_prefix "${FP}x"
}

@test "fct: every transfer completes on the algorithm asked, between the physical limit and 3 x it" {
	tail -n 20 "$BATS_FILE_TMPDIR/run.err"
	[ "$(cat "$BATS_FILE_TMPDIR/rc")" -eq 0 ]
	[ "$(wc -l <"$FV/transfers.jsonl")" -eq 6 ]
	# 1 MB over 20 Mbit/s and 20 ms: RTT + 1000000 B + 691 x 52 header bytes at 20 Mbit/s
	run jq -r '.limit_s' "$FV/transfers.jsonl"
	[ "$(sort -u <<<"$output")" = "0.434373" ]
	run jq -c 'select(.completed != true or .ca_used != .ca or .fct_s < .limit_s or .fct_s > 3 * .limit_s)
		| {algorithm, rep, completed, ca, ca_used, fct_s, limit_s, error}' "$FV/transfers.jsonl"
	echo "$output"
	[ -z "$output" ]
	# the emulator's delay lines were measured over each transfer (a late one
	# is run again: the record says how often and what the kept try saw)
	run jq -c 'select((.emu_release_p99_us | type) != "number" or (.late_retries | type) != "number"
		or (.emu_late and .late_retries < 2))' "$FV/transfers.jsonl"
	echo "$output"
	[ -z "$output" ]
	# each algorithm twice, the bpf one on our instance
	for a in $FALGOS; do
		[ "$(jq -s --arg a "$a" '[.[] | select(.algorithm == $a)] | length' "$FV/transfers.jsonl")" -eq 2 ]
	done
	[ "$(jq -r 'select(.algorithm == "bpf_linux") | .ca_used' "$FV/transfers.jsonl" | sort -u)" = "${FP}_linux" ]
	# interleaved: the order of the algorithms rotates from one repetition to the next
	[ "$(jq -r 'select(.rep == 1) | .algorithm' "$FV/transfers.jsonl" | tr '\n' ' ')" = "cubic bpf_linux bbr " ]
	[ "$(jq -r 'select(.rep == 2) | .algorithm' "$FV/transfers.jsonl" | tr '\n' ' ')" = "bpf_linux bbr cubic " ]
}

@test "fct: the report has one row per algorithm, its ratios those of the JSON records" {
	[ -s "$FV/report.md" ]
	cat "$FV/report.md"
	rows=$(sed -n '/^## Path r20_20_1/,$p' "$FV/report.md" | grep '^| 1MB |')
	[ "$(grep -c . <<<"$rows")" -eq 3 ]
	# the medians, x cubic and x limit as the report must print them, from the records
	want=$(/usr/bin/python3 - "$FV/transfers.jsonl" <<'EOF'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
med = {}
for r in recs:
    med.setdefault(r["algorithm"], []).append(r["fct_s"])
med = {a: statistics.median(v) for a, v in med.items()}
lim = recs[0]["limit_s"]
for a in ("cubic", "bpf_linux", "bbr"):
    print(f"{a} {med[a]:.3f} {med[a] / med['cubic']:.2f} {med[a] / lim:.2f}")
EOF
	)
	echo "$want"
	while read -r a m xc xl; do
		label=$(jq -r --arg a "$a" 'select(.algorithm == $a) | .label' "$FV/transfers.jsonl" | head -n 1)
		row=$(grep -F "| $label |" <<<"$rows")
		echo "$row"
		# | size | algorithm | done | median | min-max | x cubic | x limit | ...
		[ "$(awk -F' \\| ' '{print $3, $4, $6, $7}' <<<"$row")" = "2/2 $m $xc $xl" ]
	done <<<"$want"
	# summary.json holds the same rows
	[ "$(jq '.rows | length' "$FV/summary.json")" -eq 3 ]
	[ "$(jq '[.rows[] | select(.algorithm == "cubic")][0].vs_reference' "$FV/summary.json")" = 1 ]
	# the machine's load is stated
	grep -q '^Machine load during the run: 1-minute load average' "$FV/report.md"
}

@test "fct: drops are counted, and every segment the bottleneck dropped was retransmitted" {
	run jq -c 'select((.retrans | type) != "number" or (.tbf_drops | type) != "number" or .retrans < .tbf_drops
		or .delayq_drops != 0 or .loss_drops != 0) | {algorithm, rep, retrans, tbf_drops, delayq_drops, loss_drops}' \
		"$FV/transfers.jsonl"
	echo "$output"
	[ -z "$output" ]
}

@test "fct: no impossible window; the bound and the sender's samples are in every record" {
	# 20 Mbit/s 20 ms: BDP 33, buffer 34 packets: 4 x 67 + 100
	run jq -c 'select(.impossible != null or .bound != 368 or .samples < 2 or .max_cwnd > .bound or .max_cwnd < 10)
		| {algorithm, rep, bound, samples, max_cwnd, impossible}' "$FV/transfers.jsonl"
	echo "$output"
	[ -z "$output" ]
}

@test "fct: the run leaves nothing behind" {
	run leftovers "$FP"
	echo "$output"
	[ -z "$output" ]
}

@test "fct: an impossible window fails the record and the report, loudly (synthetic sender output)" {
	d=$BATS_TEST_TMPDIR/imp
	mkdir -p "$d"
	printf 'tbf_dropped=0\n' >"$d/show"
	meta=(path=p1 rate=20mbit rtt=20ms rate_bps=20000000 rtt_us=20000 size=1MB bytes=1000000 algorithm=bpf_off
		label=off ca=x_off rep=1)
	echo '{"ca": "x_off", "bytes": 1000000, "fct_s": 0.6, "retrans": 0, "bound": 368, "impossible": null}' >"$d/ok.json"
	run /usr/bin/python3 "$ANALYZE" record --xfer "$d/ok.json" --rc 0 --show-before "$d/show" --show-after "$d/show" --meta "${meta[@]}"
	[ "$status" -eq 0 ]
	echo "$output" >"$d/transfers.jsonl"
	echo '{"ca": "x_off", "bytes": 1000000, "fct_s": 0.6, "retrans": 0, "bound": 368,
		"impossible": {"t_s": 0.25, "what": "ssthresh 2165325072 > 2147483647 (TCP_INFINITE_SSTHRESH), cwnd 12"}}' |
		tr -d '\n\t' >"$d/bad.json"
	run /usr/bin/python3 "$ANALYZE" record --xfer "$d/bad.json" --rc 3 --show-before "$d/show" --show-after "$d/show" --meta "${meta[@]}"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ $output == *"IMPOSSIBLE WINDOW: p1 bpf_off 1MB rep 1: at 0.25 s after connect: ssthresh 2165325072 > 2147483647"* ]]
	grep '^{' <<<"$output" >>"$d/transfers.jsonl"
	run /usr/bin/python3 "$ANALYZE" report --in "$d"
	echo "$output"
	[ "$status" -eq 3 ]
	[ ! -e "$d/report.md" ]
}

@test "fct: bad input exits 2 and creates nothing" {
	out=$BATS_TEST_TMPDIR/never
	for args in "--reps 0" "--reps x" "--sizes 1XB" "--sizes 0MB" "--paths nosuch" "--algos nosuch" \
		"--prefix bad-prefix" "--prefix toolongp" "--bogus"; do
		# shellcheck disable=SC2086 # one word per option; the last --prefix wins
		run "$RUN" --prefix "${FP}x" --out "$out" $args
		echo "$args: $status $output"
		[ "$status" -eq 2 ]
		[ ! -e "$out" ]
	done
	run "$RUN" --prefix "${FP}x" --out
	[ "$status" -eq 2 ]
	run env FCT_LATE_TRIES=0 "$RUN" --prefix "${FP}x" --out "$out"
	[ "$status" -eq 2 ]
	[ "$output" = "run.sh: FCT_LATE_TRIES: positive integer" ]
	[ ! -e "$out" ]
	run leftovers "${FP}x"
	[ -z "$output" ]
}

@test "fct: Ctrl-C in the middle of a run cleans up" {
	p="${FP}i"
	# job control: the run gets a process group of its own, like a terminal's
	# (env --default-signal: a run started from a script's background job
	# inherits SIGINT ignored, and bash cannot trap a signal ignored at entry)
	set -m
	env --default-signal=INT "$RUN" --paths r20_20_1 --sizes 1MB --reps 3 --algos "bpf_linux cubic" --prefix "$p" --no-report \
		--out "$BATS_TEST_TMPDIR/int" >"$BATS_TEST_TMPDIR/int.out" 2>"$BATS_TEST_TMPDIR/int.err" &
	pid=$!
	for _ in $(seq 200); do
		grep -q 'bpf_linux rep 1' "$BATS_TEST_TMPDIR/int.err" && break
		sleep 0.1
	done
	sleep 0.2
	kill -INT -- -"$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/int.err"
	[ "$rc" -eq 130 ]
	run leftovers "$p"
	echo "$output"
	[ -z "$output" ]
}
