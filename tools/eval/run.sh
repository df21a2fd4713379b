#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: where does slow start end? bpf_cubic (presets) next to the kernel's
# cubic and reno, over emulated paths (tools/emu/pathemu).
#
# usage: tools/eval/run.sh [--quick] [--reps N] [--duration S] [--out DIR]
#                          [--scenarios "ID ..."] [--algos "ID ..."] [--prefix P]
#                          [--doc FILE] [--candidate ID] [--no-report] [--list]
#                          [--path "ID RATE RTT BUFFER CLASS [KEY=VALUE...]"]...
# See tools/eval/README.md. Needs root, make (cubicctl, build/delayq, build/vocab.json),
# iperf3, jq, /usr/bin/python3 with matplotlib.
#
# This script runs the flows and collects their raw files; analyze.py (on the
# tools' Python library) turns each flow into a record and the records into
# the report; paths and instances are tools/lib/netns.sh's. Flows iperf3
# cannot make (an application-limited start; a flow timed against the path's
# RTT step) are flowgen.py's.
set -Eeuo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$REPO/tools/lib/netns.sh"
ANALYZE=$REPO/tools/eval/analyze.py
FLOWGEN=$REPO/tools/eval/flowgen.py
PY=${EVAL_PYTHON:-$TOOLS_PY}
TRACEFS=/sys/kernel/tracing
RCV_ADDR=10.77.2.2

# ---------------------------------------------------------------- the matrix
# Algorithms, one per line: ID KIND ARG
#   kind "kernel": ARG is the kernel's congestion control name (iperf3 -C ARG)
#   kind "bpf":    ARG is a cubicctl preset; an instance PREFIX + ID without its
#                  "bpf" head is loaded (be123_linux), at most 15 characters;
#                  an optional 4th column is its datapath (cubicctl --datapath)
# Adding an algorithm is one line here (e.g. "bpf_hspp bpf hystart++"). A
# preset this cubicctl does not have (cubicctl help lists them) stops the run
# before anything starts.
ALGOS_ALL="
cubic      kernel cubic
bpf_linux  bpf    linux
bpf_nuss   bpf    nussbaum-2011
bpf_off    bpf    off
bpf_hspp   bpf    hystart++
bpf_fast   bpf    linux     fast
bpf_search bpf    search
bpf_predict bpf   predict
bpf_predictj bpf  predict-jump
reno       kernel reno
"
# The algorithms of the scenarios that name algos=core: the references, and
# every SEARCH-like rule (a glob: a variant added as bpf_search2 is one too),
# and PREDICT (issue 14's own rule).
CORE_ALGOS="cubic bpf_linux bpf_hspp bpf_search* bpf_predict* reno"
# Scenarios: ID RATE RTT BUFFER CLASS [KEY=VALUE...] (pathemu syntax). Rates
# stay <= 200 Mbit/s, the emulator's measured ceiling (tools/emu/README.md).
#   CLASS     clean: constant RTT, no jitter, no application limit, no RTT
#             change (the paths the slow-start goal is stated on); stress:
#             any of those (analyze.py reads it from each flow's record)
#   jitter=T  RTT noise on the ACK path (pathemu --jitter: uniform, FIFO, so
#             ACKs bunch)
#   app=F:T   application-limited start: the first T seconds at F of the
#             payload rate, then bulk (flowgen.py sends)
#   step=A:RTT2[:RAMP]  the RTT becomes RTT2 at A after the flow's SYN-ACK
#             (pathemu --rtt-step; flowgen.py sends, so the data starts one
#             RTT after the SYN-ACK); BUFFER Nbdp is of RTT, the analysis
#             uses RTT2's BDP
#   agg=P     ACK aggregation: ACKs leave in bunches every P (pathemu --ack-agg)
#   police=R:B a token-bucket policer of rate R and burst B before the queue
#             (pathemu --policer); the analysis uses R's BDP
#   trace=K   the bottleneck is a trace link of kind K (cellular or wifi,
#             tools/emu/mktrace, seed 1) whose mean is RATE (pathemu --trace);
#             every flow of rep R starts the trace (R-1) x TRACE_STRIDE_MS in
#             (pathemu phase), so the algorithms meet the same stretch of it,
#             and the analysis uses the BDP of that stretch's first second
#   cross=N:CC N long flows of CC share the bottleneck from 3 s before the
#             flow (pathemu cross); the analysis uses the fair share's BDP,
#             BDP / (N + 1)
#   algos=L   only these algorithms (comma-separated IDs or globs; "core" is
#             CORE_ALGOS); default every algorithm
#   dur=S     seconds per flow (default --duration's; --duration overrides)
# The stress and shallow-buffer rows added for SEARCH (issue 14) run the core
# algorithms, with shorter flows, so the whole matrix stays within ~45 min.
SCENARIOS_ALL="
s2011         200mbit 11.3ms 1bdp    clean
s2011_q25     200mbit 11.3ms 0.25bdp clean
r100_5_2      100mbit 5ms    2bdp    clean
r50_20_1      50mbit  20ms   1bdp    clean
r100_40_q1    100mbit 40ms   0.1bdp  clean
r20_80_2      20mbit  80ms   2bdp    clean
r10_100_1     10mbit  100ms  1bdp    clean
r50_200_h     50mbit  200ms  0.5bdp  clean
j100_20_2     100mbit 20ms   2bdp    stress jitter=4ms
j50_40_2      50mbit  40ms   2bdp    stress jitter=15ms
r100_10_q1    100mbit 10ms   0.1bdp  clean  algos=core dur=3
r100_10_q25   100mbit 10ms   0.25bdp clean  algos=core dur=3
r100_10_q5    100mbit 10ms   0.5bdp  clean  algos=core dur=3
r100_40_q25   100mbit 40ms   0.25bdp clean  algos=core dur=3
r100_40_q5    100mbit 40ms   0.5bdp  clean  algos=core dur=3
r100_100_q1   100mbit 100ms  0.1bdp  clean  algos=core dur=3
r100_100_q25  100mbit 100ms  0.25bdp clean  algos=core dur=3
r100_100_q5   100mbit 100ms  0.5bdp  clean  algos=core dur=3
r50_20_6      50mbit  20ms   6bdp    clean  algos=core dur=3
app100_40_1   100mbit 40ms   1bdp    stress app=40%:1s algos=core dur=4
step100_40_80 100mbit 40ms   2bdp    stress step=200ms:80ms algos=core dur=3
ramp100_40_80 100mbit 40ms   2bdp    stress step=200ms:80ms:200ms algos=core dur=3
agg50_20_4    50mbit  20ms   2bdp    stress agg=4ms algos=core dur=4
agg50_40_8    50mbit  40ms   1bdp    stress agg=8ms algos=core dur=4
pol100_40     100mbit 40ms   1bdp    stress police=20mbit:100kb algos=core dur=4
pol100_40_b30 100mbit 40ms   1bdp    stress police=20mbit:30kb algos=core dur=4
pol100_40_b300 100mbit 40ms  1bdp    stress police=20mbit:300kb algos=core dur=4
pol100_40_r50 100mbit 40ms   1bdp    stress police=50mbit:100kb algos=core dur=4
pol100_20     100mbit 20ms   1bdp    stress police=20mbit:100kb algos=core dur=4
pol50_80      50mbit  80ms   1bdp    stress police=10mbit:50kb algos=core dur=4
cross50_40_c1 50mbit  40ms   1bdp    stress cross=1:cubic algos=core dur=4
cross50_40_c4 50mbit  40ms   1bdp    stress cross=4:cubic algos=core dur=4
cross50_40_b1 50mbit  40ms   1bdp    stress cross=1:bbr algos=core dur=4
cell20_40     20mbit  40ms   1bdp    stress trace=cellular algos=core dur=4
wifi50_20     50mbit  20ms   1bdp    stress trace=wifi algos=core dur=4
"
# Scenarios that run only when --scenarios names them (not in the default
# matrix, nor in --quick): a policer whose bucket is 1 MB, 2.5 of its BDPs
# (docs/RULES.md, "The jump and the policer"). The rest of the policer sweep
# over rate, bucket and RTT (pol100_40_*, pol100_20, pol50_80) is in the
# default matrix, so the policer class's row in EVALUATION.md holds six
# paths, not one (issue 20's safety line is per class).
SCENARIOS_NAMED="
pol100_40_b1m  100mbit 40ms   1bdp    stress police=20mbit:1mb algos=core dur=4
"
QUICK_SCENARIOS="r50_20_1 s2011"
# Run-time model for the estimate printed at the start, fitted to this
# machine's runs (5785 s for the 825 flows of the full matrix, 2026-12-06):
# a flow takes its duration + 2.4 s (+0.3 s for a bpf flow, whose tracer
# starts first) + 6 RTTs (iperf3's set-up and end); a path 1 s.
EST_FLOW_S=2.4 EST_BPF_S=0.3 EST_RTTS=6 EST_PATH_S=1

usage() {
	sed -n '/^# usage:/,/^# See/s/^# \{0,1\}//p' "$0"
	cat <<'EOF'

  --quick         CI size: scenarios r50_20_1 and s2011, 3 reps, 3 s flows
  --reps N        repetitions of each (scenario, algorithm) (default 3)
  --duration S    seconds per flow, all scenarios (default 5, or the scenario's
                  dur=; 3 with --quick)
  --out DIR       results: flows.jsonl, cwnd.csv, summary.md, PNG plots
                  (default eval-out/)
  --scenarios L   only these scenario IDs (see --list)
  --algos L       only these algorithm IDs (see --list)
  --prefix P      name prefix for instances, namespaces and the tracefs
                  instance (default be<pid%10000>, at most 9 characters)
  --doc FILE      also write the full evaluation document (docs/EVALUATION.md)
  --candidate ID  the algorithm the fidelity table holds against the kernel's
                  cubic (default bpf_linux; bpf_fast for the fast datapath)
  --no-report     skip analyze.py (results only)
  --keep-probes   keep each flow's tcp_probe trace (one line per ACK) in
                  DIR/probes/SCENARIO_ALGO_REP.probe (tools/eval/rounds.py
                  reads them)
  --first-flows   every bpf flow meets its path as a first flow: what the
                  instance remembers of the path (a policer, a busy path)
                  is forgotten before it (cubicctl policers --forget)
  --list          print the scenarios and algorithms (each scenario's
                  algorithms, its flow seconds) and exit
  --path ROW      a path of your own, a row as the table's (ID RATE RTT
                  BUFFER CLASS [KEY=VALUE...], quoted: "agg50_40_2 50mbit
                  40ms 1bdp stress agg=2ms algos=core"); repeatable. With
                  --path and no --scenarios only the given paths run
  --algo ROW      an algorithm of your own: a bpf preset with tunables of
                  its own (ID bpf PRESET [DATAPATH] [KEY=VALUE...], quoted:
                  "bpf_predictm bpf predict-jump predict_share_margin=0");
                  repeatable; it runs beside the --algos ones, interleaved
EOF
}

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "eval: $*" >&2; }

# ---------------------------------------------------------------- arguments

# quoted as a shell would need it, so that run.txt's command runs the same matrix again
CMDLINE="tools/eval/run.sh${*:+ $(printf "%q " "$@")}"
CMDLINE=${CMDLINE% }
QUICK=0 REPS='' DUR='' OUT='' SCEN_SEL='' ALGO_SEL='' PFX='' REPORT=1 DOC= CANDIDATE= LIST=0
KEEP_PROBES=0 FIRST_FLOWS=0
PATHS_OWN='' ALGOS_OWN=''
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--reps) REPS=${2:?--reps needs a value}; shift ;;
	--duration) DUR=${2:?--duration needs a value}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	--scenarios) SCEN_SEL=${2:?--scenarios needs a list}; shift ;;
	--algos) ALGO_SEL=${2:?--algos needs a list}; shift ;;
	--candidate) CANDIDATE=${2:?--candidate needs an algorithm id}; shift ;;
	--prefix) PFX=${2:?--prefix needs a value}; shift ;;
	--doc) DOC=${2:?--doc needs a file}; shift ;;
	--no-report) REPORT=0 ;;
	--keep-probes) KEEP_PROBES=1 ;;
	--first-flows) FIRST_FLOWS=1 ;;
	--list) LIST=1 ;;
	--path) PATHS_OWN+="${2:?--path needs a row (ID RATE RTT BUFFER CLASS [KEY=VALUE...])}"$'\n'; shift ;;
	--algo) ALGOS_OWN+="${2:?--algo needs a row (ID bpf PRESET [DATAPATH] [KEY=VALUE...])}"$'\n'; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if [ "$QUICK" = 1 ]; then
	: "${REPS:=3}" "${DUR:=3}"
	SCEN_SEL=${SCEN_SEL:-$QUICK_SCENARIOS}
fi
# an explicit --duration holds for every scenario; else each its dur= or 5 s
DUR_SET=${DUR:+1}
: "${REPS:=3}" "${DUR:=5}" "${OUT:=eval-out}"
PFX=${PFX:-be$(( $$ % 10000 ))}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --reps: positive integer" >&2; exit 2; }
[[ $DUR =~ ^[1-9][0-9]*$ ]] && [ "$DUR" -ge 2 ] || { echo "run.sh: --duration: integer >= 2" >&2; exit 2; }
[[ ${EVAL_STALL_TRIES:-3} =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: EVAL_STALL_TRIES: positive integer" >&2; exit 2; }
[[ $PFX =~ ^[A-Za-z0-9]{1,9}$ ]] || { echo "run.sh: --prefix: 1-9 letters or digits" >&2; exit 2; }

bad_table() { echo "run.sh: $*" >&2; exit 2; }

# selection, in matrix order
select_rows() { # TABLE SELECTION
	local table=$1 sel=$2 id rest
	while read -r id rest; do
		[ -n "$id" ] || continue
		if [ -z "$sel" ] || [[ " $sel " == *" $id "* ]]; then echo "$id $rest"; fi
	done <<<"$table"
}

# opt KEY "KEY=VALUE ...": a scenario option's value (empty if absent)
opt() {
	local kv
	for kv in $2; do
		[ "${kv%%=*}" != "$1" ] || { echo "${kv#*=}"; return 0; }
	done
}

# check_scenario ROW: a well-formed table row, whose class says the truth
check_scenario() {
	local sid rate rtt buf class opts kv d
	read -r sid rate rtt buf class opts <<<"$1"
	case $class in clean | stress) ;; *) bad_table "scenario $sid: class '$class' is neither clean nor stress" ;; esac
	for kv in $opts; do
		case ${kv%%=*} in jitter | app | step | agg | police | trace | cross | algos | dur) ;;
		*) bad_table "scenario $sid: unknown option '$kv'" ;; esac
	done
	if [ "$class" = clean ] && [ -n "$(opt jitter "$opts")$(opt app "$opts")$(opt step "$opts")$(opt agg "$opts")$(opt police "$opts")$(opt trace "$opts")$(opt cross "$opts")" ]; then
		bad_table "scenario $sid: a clean scenario has no jitter, app, step, agg, police, trace or cross"
	fi
	d=$(opt trace "$opts")
	[ -z "$d" ] || [[ $d =~ ^(cellular|wifi)$ ]] || bad_table "scenario $sid: trace=$d: cellular or wifi"
	d=$(opt cross "$opts")
	[ -z "$d" ] || [[ $d =~ ^([1-9]|1[0-6]):[a-z0-9_]+$ ]] || bad_table "scenario $sid: cross=$d: N:CC (1:cubic; N <= 16)"
	[ -z "$(opt app "$opts")$(opt step "$opts")" ] || [ -z "$(opt trace "$opts")$(opt cross "$opts")" ] ||
		bad_table "scenario $sid: app or step (flowgen.py) with trace or cross is not supported"
	d=$(opt dur "$opts")
	[ -z "$d" ] || [[ $d =~ ^[1-9][0-9]*$ && $d -ge 2 ]] || bad_table "scenario $sid: dur=$d: integer >= 2"
	d=$(opt app "$opts")
	[ -z "$d" ] || [[ $d =~ ^[0-9.]+%?:[0-9.]+(us|ms|s)$ ]] || bad_table "scenario $sid: app=$d: F:T (40%:1s)"
	# the path's own numbers, as pathemu will parse them
	d=$(cubictools path --rate "$rate" --rtt "$rtt" --buffer "$buf" --jitter "$(opt jitter "$opts")" \
		--rtt-step "$(opt step "$opts")" --ack-agg "$(opt agg "$opts")" --policer "$(opt police "$opts")" \
		2>&1 >/dev/null) || bad_table "scenario $sid: $d"
}

# scen_algos OPTS: the rows of ALGOS (the selected algorithms) a scenario
# runs, in table order: all, or those its algos= names (IDs, globs, "core")
scen_algos() {
	local sel pats=() p a id
	sel=$(opt algos "$1")
	for p in ${sel//,/ }; do
		# shellcheck disable=SC2206 # core's globs stay globs
		if [ "$p" = core ]; then pats+=($CORE_ALGOS); else pats+=("$p"); fi
	done
	for a in "${ALGOS[@]}"; do
		id=${a%% *}
		if [ ${#pats[@]} -eq 0 ]; then echo "$a"; continue; fi
		for p in "${pats[@]}"; do
			# shellcheck disable=SC2053 # a glob on purpose
			if [[ $id == $p ]]; then echo "$a"; break; fi
		done
	done
}

# scen_dur OPTS: seconds per flow
scen_dur() {
	local d
	d=$(opt dur "$1")
	if [ -n "$DUR_SET" ] || [ -z "$d" ]; then echo "$DUR"; else echo "$d"; fi
}

# --path rows: a path of the user's own, checked as the table's are; an ID
# the table has already is refused (the records would mix two paths)
while read -r id rest; do
	[ -n "$id" ] || continue
	[[ $id =~ ^[A-Za-z0-9_]{1,24}$ ]] || bad_table "--path: ID '$id': 1-24 letters, digits or _"
	! grep -q "^$id " <<<"$SCENARIOS_ALL$SCENARIOS_NAMED" || bad_table "--path: ID $id is the table's (--list)"
	[ "$(grep -c "^$id " <<<"$PATHS_OWN")" = 1 ] || bad_table "--path: ID $id is given twice"
	[ "$(wc -w <<<"$rest")" -ge 4 ] || bad_table "--path $id: RATE RTT BUFFER CLASS after the ID"
	# the table stays at or below the emulator's measured ceiling; a path
	# above it runs, said once: its figures are partly the host's
	# (a bad rate is check_scenario's to say, below)
	bps=$(cubictools path --rate "${rest%% *}" --rtt 1ms --buffer 1bdp 2>/dev/null | sed -n 's/^rate_bps=//p') || bps=
	[ -z "$bps" ] || [ "$bps" -le 200000000 ] ||
		echo "run.sh: --path $id: ${rest%% *} is above the emulator's measured ceiling (200 Mbit/s, tools/emu/README.md): its figures are partly the host's" >&2
done <<<"$PATHS_OWN"
if [ -n "$PATHS_OWN" ] && [ -z "$SCEN_SEL" ]; then
	mapfile -t SCENARIOS < <(select_rows "$PATHS_OWN" "")
else
	mapfile -t SCENARIOS < <(select_rows "$SCENARIOS_ALL" "$SCEN_SEL"
		[ -z "$SCEN_SEL" ] || select_rows "$SCENARIOS_NAMED" "$SCEN_SEL"
		select_rows "$PATHS_OWN" "")
fi
# --algo rows: a bpf preset with tunables; an ID the table has, or one given twice, is refused
while read -r id kind arg rest; do
	[ -n "$id" ] || continue
	[ "$kind" = bpf ] && [ -n "$arg" ] ||
		{ echo "run.sh: --algo $id: a row is ID bpf PRESET [DATAPATH] [KEY=VALUE...]" >&2; exit 2; }
	[[ $id == bpf_* ]] || { echo "run.sh: --algo $id: the ID begins with bpf_ (its instance is the prefix and the rest)" >&2; exit 2; }
	if grep -q "^$id " <<<"$ALGOS_ALL" || [ "$(grep -c "^$id " <<<"$ALGOS_OWN")" -gt 1 ]; then
		echo "run.sh: --algo $id: the ID is taken (--list)" >&2; exit 2
	fi
	for tok in $rest; do
		case $tok in
		*=*) ;;
		exact | fast) ;;
		*) echo "run.sh: --algo $id: '$tok' is neither a datapath (exact, fast) nor KEY=VALUE" >&2; exit 2 ;;
		esac
	done
done <<<"$ALGOS_OWN"
mapfile -t ALGOS < <(select_rows "$ALGOS_ALL" "$ALGO_SEL"; select_rows "$ALGOS_OWN" "")
[ ${#SCENARIOS[@]} -gt 0 ] || { echo "run.sh: no scenario selected (--list)" >&2; exit 2; }
[ ${#ALGOS[@]} -gt 0 ] || { echo "run.sh: no algorithm selected (--list)" >&2; exit 2; }
for s in $SCEN_SEL; do grep -q "^$s " < <(printf '%s\n' "${SCENARIOS[@]}") || { echo "run.sh: unknown scenario $s" >&2; exit 2; }; done
for a in $ALGO_SEL; do grep -q "^$a " < <(printf '%s\n' "${ALGOS[@]}") || { echo "run.sh: unknown algorithm $a" >&2; exit 2; }; done
for s in "${SCENARIOS[@]}"; do check_scenario "$s"; done

# the algorithms some selected scenario runs (only those are checked and loaded)
USED=()
for a in "${ALGOS[@]}"; do
	for s in "${SCENARIOS[@]}"; do
		read -r _ _ _ _ _ opts <<<"$s"
		# grep without -q: under pipefail, -q's early exit can SIGPIPE the
		# writer and fail the test (a CI run saw 6 of 8 algorithms "used")
		if scen_algos "$opts" | grep "^${a%% *} " >/dev/null; then USED+=("$a"); break; fi
	done
done
[ ${#USED[@]} -gt 0 ] || { echo "run.sh: the selected scenarios run none of the selected algorithms (--list)" >&2; exit 2; }

# estimate: the run-time model over the selected matrix, seconds
estimate() {
	local s sid rate rtt buf class opts step rtt2
	for s in "${SCENARIOS[@]}"; do
		read -r sid rate rtt buf class opts <<<"$s"
		step=$(opt step "$opts")
		rtt2=${step#*:}
		rtt2=${rtt2%%:*}
		echo "$(scen_dur "$opts") $rtt ${rtt2:--} $(scen_algos "$opts" | grep -c .) $(scen_algos "$opts" | grep -c ' bpf ')"
	done | awk -v reps="$REPS" -v f="$EST_FLOW_S" -v b="$EST_BPF_S" -v k="$EST_RTTS" -v p="$EST_PATH_S" '
		function sec(t) { return t ~ /us$/ ? t / 1e6 : t ~ /ms$/ ? t / 1e3 : t + 0 }
		{ r = sec($2); if ($3 != "-" && sec($3) > r) r = sec($3)
		  if ($4 > 0) tot += p + reps * ($4 * ($1 + f + k * r) + $5 * b) }
		END { printf "%d\n", tot + 0.5 }'
}

list() {
	local s sid rate rtt buf class opts ids
	echo "scenarios (id rate rtt buffer class options | algorithms | seconds per flow):"
	for s in "${SCENARIOS[@]}"; do
		read -r sid rate rtt buf class opts <<<"$s"
		ids=$(scen_algos "$opts" | awk '{print $1}' | tr '\n' ' ')
		printf '  %-14s %-8s %-7s %-8s %-6s %-34s| %s| %s\n' "$sid" "$rate" "$rtt" "$buf" "$class" "$opts" "$ids" "$(scen_dur "$opts")"
	done
	if [ -z "$SCEN_SEL$PATHS_OWN" ]; then
		echo "scenarios run only when --scenarios names them:"
		select_rows "$SCENARIOS_NAMED" "" | while read -r sid rate rtt buf class opts; do
			printf '  %-14s %-8s %-7s %-8s %-6s %s\n' "$sid" "$rate" "$rtt" "$buf" "$class" "$opts"
		done
	fi
	printf 'algorithms (id kind arg [datapath]):%s' "$ALGOS_ALL"
	[ -z "$ALGOS_OWN" ] || printf 'algorithms of --algo:\n%s' "$ALGOS_OWN"
	echo "core (algos=core): $CORE_ALGOS"
	echo "estimated run time, $REPS reps: $(estimate) s"
}
[ "$LIST" = 0 ] || { list; exit 0; }

# ---------------------------------------------------------------- checks

[ "$(id -u)" -eq 0 ] || die "must be run as root (namespaces, BPF, tracefs)"
for t in ip iperf3 jq nstat timeout awk; do
	command -v "$t" >/dev/null || die "$t is missing"
done
[ -x "$CUBICCTL" ] || die "$CUBICCTL is missing: run make"
[ -x "${PATHEMU_DELAYQ:-$REPO/build/delayq}" ] || die "build/delayq is missing: run make"
[ "$REPORT" = 0 ] || "$PY" -c 'import matplotlib' 2>/dev/null ||
	die "$PY has no matplotlib (apt-get install python3-matplotlib) or use --no-report"
# every preset the run needs, now rather than when its first flow comes
PRESETS=$("$CUBICCTL" help | sed -n '/^presets/,/^$/p' | awk '/^  [^ ]/ {print $1}')
for a in "${USED[@]}"; do
	read -r id kind arg _ <<<"$a"
	[ "$kind" = bpf ] || continue
	grep -qxF -- "$arg" <<<"$PRESETS" ||
		die "algorithm $id: $CUBICCTL has no preset '$arg' (it has: $(tr '\n' ' ' <<<"$PRESETS")); build one that has, or leave $id out (--algos)"
done
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
mountpoint -q "$TRACEFS" || mount -t tracefs tracefs "$TRACEFS"
[ -e "$TRACEFS/events/tcp/tcp_probe" ] || die "no tcp:tcp_probe tracepoint"
for a in "${USED[@]}"; do
	read -r id kind arg <<<"$a"
	if [ "$kind" = kernel ]; then
		registered "$arg" || modprobe "tcp_$arg" 2>/dev/null || true
		registered "$arg" || die "the kernel's $arg is not available"
	else
		registered "${PFX}${id#bpf}" && die "${PFX}${id#bpf} is already registered; use another --prefix"
		n=${PFX}${id#bpf}; [ ${#n} -le 15 ] || die "instance name $n is longer than 15 characters (shorter --prefix)"
	fi
done
PATHN=${PFX}p
! netns_exists "$PATHN-snd" || die "namespace $PATHN-snd exists; use another --prefix"
TI=$TRACEFS/instances/${PFX}_eval
[ ! -e "$TI" ] || die "tracefs instance $TI exists; use another --prefix"

# ---------------------------------------------------------------- cleanup

TMP=$(mktemp -d /tmp/bceval.XXXXXX)
TRACE_PID=
POLL_PID=
PATH_UP=0
LOADED=()
IMPOSSIBLE=0
SHORT_RTT=0
LOW_WINDOW=0
# tries of a flow whose path stalled (run_flow), tries run again, flows kept stalled
STALL_TRIES=${EVAL_STALL_TRIES:-3} STALL_RERUNS=0 STALLED_KEPT=0 FLOW_STALLED=0
# a trace link: where rep R starts the trace (trace_phase)
TRACE_STRIDE_MS=3000
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM HUP ERR
	if [ -n "$TRACE_PID" ]; then
		kill_wait -INT "$TRACE_PID"
		wait "$TRACE_PID" 2>/dev/null
	fi
	if [ -n "$POLL_PID" ]; then
		kill_wait "$POLL_PID"
		wait "$POLL_PID" 2>/dev/null
	fi
	if [ -d "$TI" ]; then
		echo 0 >"$TI/tracing_on" 2>/dev/null
		echo 0 >"$TI/events/tcp/tcp_probe/enable" 2>/dev/null
		rmdir "$TI" 2>/dev/null || log "could not remove tracefs instance $TI"
	fi
	# (the path's end also ends every process in it: iperf3 or flowgen.py's sink)
	[ "$PATH_UP" = 1 ] && path_down "$PATHN"
	for n in "${LOADED[@]}"; do
		instance_unload "$n" || log "could not unload $n"
	done
	rm -rf "$TMP"
	[ "$IMPOSSIBLE" = 0 ] || echo "run.sh: stopped after an impossible window (above); results so far in $OUT" >&2
	[ "$SHORT_RTT" = 0 ] || echo "run.sh: stopped after an RTT below the path's (above); results so far in $OUT" >&2
	[ "$LOW_WINDOW" = 0 ] || echo "run.sh: stopped after a PREDICT window below the initial window (above); results so far in $OUT" >&2
	exit "$rc"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT
trap 'exit 143' TERM HUP

# ---------------------------------------------------------------- set-up

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ "$KEEP_PROBES" = 0 ] || mkdir -p "$OUT/probes"
[ -z "$DOC" ] || { mkdir -p "$(dirname "$DOC")"; DOC=$(cd "$(dirname "$DOC")" && pwd)/$(basename "$DOC"); }
FLOWS=$OUT/flows.jsonl
CWND=$OUT/cwnd.csv
: >"$FLOWS"
echo "scenario,algorithm,rep,t_s,cwnd,ssthresh_finite" >"$CWND"

for a in "${USED[@]}"; do
	read -r id kind arg rest <<<"$a"
	[ "$kind" = bpf ] || continue
	dp=exact sets=()
	for tok in $rest; do
		case $tok in *=*) sets+=("$tok") ;; *) dp=$tok ;; esac
	done
	LOADED+=("${PFX}${id#bpf}")
	"$CUBICCTL" load --name "${PFX}${id#bpf}" --preset "$arg" --datapath "$dp" "${sets[@]}" >/dev/null ||
		die "cannot load ${PFX}${id#bpf} (preset $arg, datapath $dp${sets[*]:+, ${sets[*]}})"
done

mkdir "$TI"
echo mono >"$TI/trace_clock"
echo 16384 >"$TI/buffer_size_kb"
echo 0 >"$TI/options/overwrite" # a full buffer loses the end of a flow, not its slow start
echo 0 >"$TI/tracing_on"
# the server's port: the filter keeps the sender's sockets of our flows only
PORT=$(( 20000 + $$ % 20000 ))
echo "dport == $PORT" >"$TI/events/tcp/tcp_probe/filter"
echo 1 >"$TI/events/tcp/tcp_probe/enable"
# the competing flows' servers (pathemu cross) listen on CROSS_PORT..+15
CROSS_PORT=5400
T_START=$(date +%s)
NFLOWS=0
for s in "${SCENARIOS[@]}"; do
	read -r _ _ _ _ _ opts <<<"$s"
	NFLOWS=$(( NFLOWS + $(scen_algos "$opts" | grep -c .) * REPS ))
done
EST=$(estimate)
log "${#SCENARIOS[@]} scenarios, ${#USED[@]} algorithms, $REPS reps: $NFLOWS flows -> $OUT"
log "estimated run time: $(( EST / 60 )) min $(( EST % 60 )) s (tools/eval/README.md: the model)"

hystart_counters() { # -> "train delay"
	ip netns exec "$PATHN-snd" nstat -asz TcpExtTCPHystartTrainDetect TcpExtTCPHystartDelayDetect 2>/dev/null |
		awk '$1=="TcpExtTCPHystartTrainDetect"{t=$2} $1=="TcpExtTCPHystartDelayDetect"{d=$2} END{print t+0, d+0}'
}
# The path's drops (the queue's, a policer's and a trace link's) and the
# worst of its delay lines' release-error p99 and maximum since
# path_release_reset, in us ("DROPS P99 MAX"; analyze.py: a flow on a late
# emulator is a stall).
path_counters() {
	"$PATHEMU" show --name "$PATHN" | awk -F= '
		$1 ~ /^(tbf_dropped|link_police_dropped|link_dropped)$/ { n += $2 }
		$1 ~ /^(delayq|link)_release_err_p99_us$/ && $2 + 0 > p { p = $2 + 0 }
		$1 ~ /^(delayq|link)_release_err_max_us$/ && $2 + 0 > m { m = $2 + 0 }
		END { printf "%d %d %d\n", n, p, m }'
}

# ---------------------------------------------------------------- one path
# The scenario in force: S_ID S_RATE S_RTT S_BUF S_CLASS, its options S_JIT
# S_APP S_STEP, S_DUR seconds per flow, S_GEN (1: flowgen.py sends), and the
# path's BDP (after any RTT step) and buffer in packets.

# path_start ROW: the scenario's path and its server
path_start() {
	local opts
	read -r S_ID S_RATE S_RTT S_BUF S_CLASS opts <<<"$1"
	S_JIT=$(opt jitter "$opts") S_APP=$(opt app "$opts") S_STEP=$(opt step "$opts")
	S_AGG=$(opt agg "$opts") S_POL=$(opt police "$opts") S_TRACE=$(opt trace "$opts") S_CROSS=$(opt cross "$opts")
	# the real-path options, as the flow's record keeps them
	S_REAL=$(for k in agg police trace cross; do v=$(opt $k "$opts"); [ -z "$v" ] || printf '%s=%s ' "$k" "$v"; done)
	S_REAL=${S_REAL% }
	local tr=""
	S_TRACEFILE= TRACE_PHASE=
	if [ -n "$S_TRACE" ]; then
		tr=$TMP/$S_ID.trace
		"$REPO/tools/emu/mktrace" "$S_TRACE" --rate "$S_RATE" --seconds 30 --seed 1 >"$tr" ||
			die "mktrace $S_TRACE failed for $S_ID"
		S_TRACEFILE=$tr
	fi
	S_DUR=$(scen_dur "$opts")
	# iperf3 cannot change its rate mid-flow, nor start its data a known time
	# after its connection's SYN-ACK (it opens a control connection first)
	S_GEN=0
	[ -z "$S_APP$S_STEP" ] || S_GEN=1
	log "scenario $S_ID ($S_CLASS): $S_RATE $S_RTT buffer $S_BUF${S_JIT:+ jitter $S_JIT}${S_APP:+ app-limited $S_APP}${S_STEP:+ rtt step $S_STEP}${S_REAL:+ $S_REAL}, ${S_DUR}s flows"
	PATH_UP=1
	path_up "$PATHN" "$S_RATE" "$S_RTT" "$S_BUF" ${S_JIT:+--jitter "$S_JIT"} ${S_STEP:+--rtt-step "$S_STEP"} \
		${S_AGG:+--ack-agg "$S_AGG"} ${S_POL:+--policer "$S_POL"} ${tr:+--trace "$tr"} ||
		die "pathemu start failed for $S_ID"
	BDP=$PATH_BDP BUFP=$PATH_BUF
	if [ -n "$S_STEP" ]; then
		BDP=$("$PATHEMU" show --name "$PATHN" | sed -n 's/^rtt_step_bdp_pkts=//p')
	fi
	# behind a policer the pipe is the policed rate's; beside N flows, a fair share
	if [ -n "$S_POL" ]; then
		BDP=$(cubictools path --rate "${S_POL%%:*}" --rtt "$S_RTT" --buffer 1 | sed -n 's/^bdp_pkts=//p')
	fi
	if [ -n "$S_CROSS" ]; then
		"$PATHEMU" cross --name "$PATHN" --flows "${S_CROSS%%:*}" --cc "${S_CROSS#*:}" --port "$CROSS_PORT" >/dev/null ||
			die "pathemu cross failed for $S_ID"
		BDP=$(( (BDP + ${S_CROSS%%:*} / 2 + 1 / 2) / (${S_CROSS%%:*} + 1) ))
		sleep 3
	fi
	if [ "$S_GEN" = 1 ]; then
		sink_start || die "no flowgen.py sink for $S_ID"
	else
		netns_iperf_server "$PATHN-rcv" "$PORT" || die "no iperf3 server for $S_ID"
	fi
	# the delay queue warms up; the first flow must not pay for it
	ip netns exec "$PATHN-snd" ping -c 2 -i 0.2 -q "$RCV_ADDR" >/dev/null 2>&1 || true
}

# trace_phase REP: a trace link's flows of rep REP all start the trace
# (REP-1) x TRACE_STRIDE_MS in (modulo its period; pathemu phase restarts it
# at each connection's SYN), and BDP is the rate of the second from there:
# the algorithms of a rep meet the same stretch of the link, the reps
# different ones
trace_phase() {
	local w
	w=$(cubictools trace-window --trace "$S_TRACEFILE" --rtt "$S_RTT" --from $(( ($1 - 1) * TRACE_STRIDE_MS ))) ||
		die "cubictools trace-window failed for $S_ID"
	TRACE_PHASE=$(sed -n 's/^window_from_ms=//p' <<<"$w")
	BDP=$(sed -n 's/^window_bdp_pkts=//p' <<<"$w")
	"$PATHEMU" phase --name "$PATHN" --at "$TRACE_PHASE" >/dev/null || die "pathemu phase failed for $S_ID"
	log "$S_ID rep $1: the trace from ${TRACE_PHASE} ms ($(sed -n 's/^window_rate_bps=//p' <<<"$w") bit/s over its first second: BDP $BDP)"
}

# sink_start: flowgen.py's sink on PORT in the receiver namespace, listening
# when this returns; not our child (the path's end ends it)
sink_start() {
	( ip netns exec "$PATHN-rcv" "$PY" "$FLOWGEN" sink --port "$PORT" >/dev/null 2>&1 & )
	for _ in $(seq 100); do
		ip netns exec "$PATHN-rcv" ss -Hltn "sport = :$PORT" | grep . >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ---------------------------------------------------------------- one flow

# send CA FILE: one flow of S_DUR seconds with congestion control CA; its
# iperf3 -J document (or flowgen.py's) in FILE, stderr in FILE.err
# The competing flows' retransmissions (segments, TCP_INFO's total), summed,
# into the trace every 100 ms as a marker (cross_retrans=N) on the trace's
# clock, with the sockets they came from (cross_sockets=M: each flow's
# control and data connections): analyze.py takes what they lost in the
# measured flow's slow start. (tcp:tcp_retransmit_skb counts retransmitted
# skbs, several segments each.)
cross_poll() {
	local n m
	while :; do
		read -r n m < <(ip netns exec "$PATHN-snd" ss -Htin state established \
			"( dport >= :$CROSS_PORT and dport < :$((CROSS_PORT + 16)) )" 2>/dev/null |
			awk '/^[^ \t]/ { m++ } match($0, /retrans:[0-9]+\/[0-9]+/) {
				split(substr($0, RSTART + 8, RLENGTH - 8), r, "/"); s += r[2] }
				END { print s + 0, m + 0 }')
		{ echo "cross_retrans=$n" && echo "cross_sockets=$m"; } >"$TI/trace_marker" 2>/dev/null || return 0
		sleep 0.1
	done
}

# path_memory INSTANCE: the kinds (policer, busy) INSTANCE remembers for this
# path (its sender namespace and the receiver's address), one per line
path_memory() {
	"$CUBICCTL" -j policers --name "$1" 2>/dev/null |
		jq -r --arg ns "$PATHN-snd" --arg d "$RCV_ADDR" '.policers[]? | select(.netns == $ns and .daddr == $d) | .kind'
}

send() {
	local ca=$1 f=$2
	if [ "$S_GEN" = 1 ]; then
		timeout $(( S_DUR + 30 )) ip netns exec "$PATHN-snd" "$PY" "$FLOWGEN" send --addr "$RCV_ADDR" \
			--port "$PORT" --ca "$ca" --duration "$S_DUR" --rate "$S_RATE" ${S_APP:+--app "$S_APP"} \
			>"$f" 2>"$f.err"
	else
		timeout $(( S_DUR + 30 )) ip netns exec "$PATHN-snd" \
			iperf3 -c "$RCV_ADDR" -p "$PORT" -C "$ca" -t "$S_DUR" -i 0.1 -J >"$f" 2>"$f.err"
	fi
}

run_flow() { # ALGO_ID KIND ARG REP
	local aid=$1 kind=$2 arg=$3 rep=$4 try
	# a flow whose path stalled (analyze.py's PATH STALLED: a delay exit no
	# queue of the path explains, or an ACK gap in slow start that ends in a
	# burst; the host or the emulator stalled) is run again, up to
	# STALL_TRIES tries in all; the record kept says how many went before
	# (stall_retries), and the last try is kept whatever it shows
	for try in $(seq "$STALL_TRIES"); do
		flow_once "$aid" "$kind" "$arg" "$rep" "$try" && break
		STALL_RERUNS=$((STALL_RERUNS + 1))
		log "$S_ID $aid rep $rep: the path stalled (above): the flow again ($((try + 1)) of $STALL_TRIES)"
	done
	if [ "$FLOW_STALLED" = 1 ]; then
		log "$S_ID $aid rep $rep: the path stalled in all $STALL_TRIES tries: the last is kept, path_stall set"
		STALLED_KEPT=$((STALLED_KEPT + 1))
	fi
}

# flow_once ALGO_ID KIND ARG REP TRY: one try of a flow; its record and
# cwnd rows go to FLOWS and CWND unless the path stalled on a try before
# the last (status 1)
flow_once() {
	local aid=$1 kind=$2 arg=$3 rep=$4 try=$5
	local ca=$arg f=$TMP/flow
	[ "$kind" = bpf ] && ca=${PFX}${aid#bpf}
	rm -f "$f".*
	local h0 d0
	h0=$(hystart_counters)
	read -r d0 _ <<<"$(path_counters)"
	path_release_reset "$PATHN"
	echo >"$TI/trace"
	echo 1 >"$TI/tracing_on"
	if [ "$kind" = bpf ]; then
		"$CUBICCTL" -j trace --name "$ca" --port "$PORT" >"$f.bpf" 2>"$f.bpf.err" &
		TRACE_PID=$!
		sleep 0.3
	fi
	if [ -n "$S_CROSS" ]; then
		cross_poll &
		POLL_PID=$!
	fi
	local rc=0 arc=0 mem0=
	# what the instance remembers for this path before the try (policers, busy paths)
	[ "$kind" != bpf ] || mem0=$(path_memory "$ca")
	# --first-flows: nothing an earlier flow learnt of the path is used
	if [ "$FIRST_FLOWS" = 1 ] && [ -n "$mem0" ]; then
		"$CUBICCTL" policers --name "$ca" --forget "$RCV_ADDR" >/dev/null ||
			die "$S_ID $aid rep $rep: cubicctl policers --forget failed (--first-flows)"
		log "$S_ID $aid rep $rep: the path's memory is forgotten before the flow (--first-flows: ${mem0//$'\n'/ })"
		mem0=
	fi
	send "$ca" "$f.iperf" || rc=$?
	sleep 0.2
	if [ -n "$POLL_PID" ]; then
		kill_wait "$POLL_PID"
		wait "$POLL_PID" 2>/dev/null || true
		POLL_PID=
	fi
	echo 0 >"$TI/tracing_on"
	if [ -n "$TRACE_PID" ]; then
		kill -INT "$TRACE_PID" 2>/dev/null
		wait "$TRACE_PID" 2>/dev/null || true
		TRACE_PID=
	fi
	cp "$TI/trace" "$f.probe"
	echo >"$TI/trace"
	[ -e "$f.bpf" ] || : >"$f.bpf"
	local h1 d1 late_p99 late_max sched_t0=
	h1=$(hystart_counters)
	read -r d1 late_p99 late_max <<<"$(path_counters)"
	# an RTT step's clock started at the flow's SYN-ACK (wall clock): analyze.py
	# holds the first data against it (a host that stalls between them moves
	# the step inside the flow)
	[ -z "$S_STEP" ] || sched_t0=$("$PATHEMU" show --name "$PATHN" | sed -n 's/^delayq_schedule_t0_unix_s=//p')
	if [ "$rc" != 0 ]; then
		log "the sender failed ($S_ID $aid rep $rep, rc $rc): $(head -c 300 "$f.iperf.err") $(jq -r '.error? // empty' "$f.iperf" 2>/dev/null)"
	fi
	: >"$f.cwnd"
	# an --algo row's datapath and tunables, for the record (beside its preset, arg)
	local tun
	tun=$(awk -v id="$aid" '$1 == id { for (i = 4; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "") }' <<<"$ALGOS_OWN")
	"$PY" "$ANALYZE" flow --scenario "$S_ID" --algorithm "$aid" --kind "$kind" --arg "$arg" \
		${tun:+--tunables "$tun"} \
		--rep "$rep" --rate "$S_RATE" --rtt "$S_RTT" --buffer "$S_BUF" --class "$S_CLASS" \
		${S_JIT:+--jitter "$S_JIT"} ${S_APP:+--app "$S_APP"} ${S_STEP:+--rtt-step "$S_STEP"} \
		${S_REAL:+--real "$S_REAL"} ${TRACE_PHASE:+--trace-phase "$TRACE_PHASE"} --sender "$( [ "$S_GEN" = 1 ] && echo flowgen || echo iperf3 )" \
		--bdp-pkts "$BDP" --buffer-pkts "$BUFP" --port "$PORT" --duration "$S_DUR" \
		--iperf "$f.iperf" --probe "$f.probe" --bpf-trace "$f.bpf" \
		--nstat-before "$h0" --nstat-after "$h1" --tbf-before "${d0:-0}" --tbf-after "${d1:-0}" \
		${late_p99:+--emu-release-p99-us "$late_p99" --emu-release-max-us "$late_max"} \
		${sched_t0:+--schedule-t0-unix-s "$sched_t0"} \
		--stall-exit --stall-retries $((try - 1)) --cwnd-csv "$f.cwnd" >"$f.rec" || arc=$?
	# a stalled path on a try before the last: nothing kept, the caller runs it again
	FLOW_STALLED=0
	[ "${arc:-0}" != 4 ] || FLOW_STALLED=1
	if [ "$FLOW_STALLED" = 1 ] && [ "$try" -lt "$STALL_TRIES" ]; then
		# and nothing it taught the datapath either: a policer or busy path
		# the thrown-away try was the first to find here (a host stall reads
		# as a queue) is forgotten, so the try kept meets the path as the
		# flows before left it (one an earlier try found and this one renewed
		# stays: cubicctl cannot take a renewal back)
		local mem1=
		[ "$kind" != bpf ] || [ -n "$mem0" ] || mem1=$(path_memory "$ca")
		if [ -n "$mem1" ]; then
			"$CUBICCTL" policers --name "$ca" --forget "$RCV_ADDR" >/dev/null &&
				log "$S_ID $aid rep $rep: the stalled try's memory of the path is forgotten (${mem1//$'\n'/ })"
		fi
		return 1
	fi
	cat "$f.rec" >>"$FLOWS"
	cat "$f.cwnd" >>"$CWND"
	[ "$KEEP_PROBES" = 0 ] || cp "$f.probe" "$OUT/probes/${S_ID}_${aid}_${rep}.probe"
	# an impossible window (analyze.py has named the flow, time and value) ends the run
	[ "${arc:-0}" != 3 ] || { IMPOSSIBLE=1; exit 3; }
	# so does an RTT below the path's (analyze.py's SHORT_RTT_EXIT): the
	# emulator's base RTT or the datapath is wrong, and no figure holds
	[ "${arc:-0}" != 5 ] || { SHORT_RTT=1; exit 5; }
	# and a window PREDICT set below the initial window (PREDICT_WINDOW_EXIT)
	[ "${arc:-0}" != 6 ] || { LOW_WINDOW=1; exit 6; }
	[ "${arc:-0}" = 0 ] || [ "${arc:-0}" = 4 ] || log "analysis of $S_ID $aid rep $rep failed"
	return 0
}

# ---------------------------------------------------------------- the matrix
# Every repetition runs every algorithm once, the algorithms' order rotated by
# one each repetition (as tools/fct/run.sh does): a flow starts 0.3 s after
# the one before it ended, and beside competing flows it meets them as that
# flow left them, so a fixed order would give each algorithm the same
# predecessor every time. (The kernel's cubic run twice in one repetition, first
# and third, on three paths with one competing flow, 6 reps: path
# slow-start retransmissions median 0.5 and 11.5.)
i=0
for s in "${SCENARIOS[@]}"; do
	read -r _ _ _ _ _ opts <<<"$s"
	mapfile -t RUN < <(scen_algos "$opts")
	[ ${#RUN[@]} -gt 0 ] || continue
	path_start "$s"
	for rep in $(seq "$REPS"); do
		[ -z "$S_TRACEFILE" ] || trace_phase "$rep"
		for ((k = 0; k < ${#RUN[@]}; k++)); do
			read -r aid kind arg _ <<<"${RUN[$(( (k + rep - 1) % ${#RUN[@]} ))]}"
			i=$(( i + 1 ))
			log "[$i/$NFLOWS] $S_ID $aid rep $rep"
			run_flow "$aid" "$kind" "$arg" "$rep"
			# let the queue drain and the path go idle
			sleep 0.3
		done
	done
	"$PATHEMU" stop --name "$PATHN" >/dev/null
	PATH_UP=0
done
T_END=$(date +%s)

{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=$CMDLINE"
	echo "duration_s=$DUR${DUR_SET:+ (all scenarios)} reps=$REPS flows=$NFLOWS wall_s=$(( T_END - T_START )) est_s=$EST"
	echo "kernel=$(uname -r) cpus=$(nproc) hz=250 pathemu_spin=${PATHEMU_SPIN:-1}"
	echo "path_stalls: $STALL_RERUNS tries run again, $STALLED_KEPT flows kept stalled (analyze.py path_stall)"
	echo "git=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
} >"$OUT/run.txt"
log "matrix done in $(( T_END - T_START )) s (estimated $EST s); path stalls: $STALL_RERUNS tries run again, $STALLED_KEPT flows kept stalled"

if [ "$REPORT" = 1 ]; then
	"$PY" "$ANALYZE" report --in "$OUT" --out "$OUT" ${DOC:+--doc "$DOC"} ${CANDIDATE:+--candidate "$CANDIDATE"}
fi
