#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: where does slow start end? bpf_cubic (presets) next to the kernel's
# cubic and reno, over emulated paths (tools/emu/pathemu).
#
# usage: tools/eval/run.sh [--quick] [--reps N] [--duration S] [--out DIR]
#                          [--scenarios "ID ..."] [--algos "ID ..."] [--prefix P]
#                          [--doc FILE] [--candidate ID] [--no-report] [--list]
# See tools/eval/README.md. Needs root, make (cubicctl, build/delayq, build/vocab.json),
# iperf3, jq, /usr/bin/python3 with matplotlib.
#
# This script runs the flows and collects their raw files; analyze.py (on the
# tools' Python library) turns each flow into a record and the records into
# the report; paths and instances are tools/lib/netns.sh's.
set -Eeuo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$REPO/tools/lib/netns.sh"
ANALYZE=$REPO/tools/eval/analyze.py
PY=${EVAL_PYTHON:-$TOOLS_PY}
TRACEFS=/sys/kernel/tracing
RCV_ADDR=10.77.2.2

# ---------------------------------------------------------------- the matrix
# Algorithms, one per line: ID KIND ARG
#   kind "kernel": ARG is the kernel's congestion control name (iperf3 -C ARG)
#   kind "bpf":    ARG is a cubicctl preset; an instance PREFIX + ID without its
#                  "bpf" head is loaded (be123_linux), at most 15 characters;
#                  an optional 4th column is its datapath (cubicctl --datapath)
# Adding an algorithm is one line here (e.g. "bpf_hspp bpf hystart++").
ALGOS_ALL="
cubic     kernel cubic
bpf_linux bpf    linux
bpf_nuss  bpf    nussbaum-2011
bpf_off   bpf    off
bpf_hspp  bpf    hystart++
bpf_fast  bpf    linux     fast
reno      kernel reno
"
# Scenarios: ID RATE RTT BUFFER [JITTER] (pathemu syntax). Rates stay <= 200
# Mbit/s, the emulator's measured ceiling (tools/emu/README.md). JITTER is RTT
# noise on the ACK path (pathemu --jitter: uniform, FIFO, so ACKs bunch).
SCENARIOS_ALL="
s2011      200mbit 11.3ms 1bdp
s2011_q25  200mbit 11.3ms 0.25bdp
r100_5_2   100mbit 5ms    2bdp
r50_20_1   50mbit  20ms   1bdp
r100_40_q1 100mbit 40ms   0.1bdp
r20_80_2   20mbit  80ms   2bdp
r10_100_1  10mbit  100ms  1bdp
r50_200_h  50mbit  200ms  0.5bdp
j100_20_2  100mbit 20ms   2bdp   4ms
j50_40_2   50mbit  40ms   2bdp   15ms
"
QUICK_SCENARIOS="r50_20_1 s2011"

usage() {
	sed -n '/^# usage:/,/^# See/s/^# \{0,1\}//p' "$0"
	cat <<'EOF'

  --quick         CI size: scenarios r50_20_1 and s2011, 3 reps, 3 s flows
  --reps N        repetitions of each (scenario, algorithm) (default 3)
  --duration S    seconds per flow (default 5; 3 with --quick)
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
  --list          print the scenarios and algorithms and exit
EOF
}

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "eval: $*" >&2; }

# ---------------------------------------------------------------- arguments

CMDLINE="tools/eval/run.sh $*"
QUICK=0 REPS='' DUR='' OUT='' SCEN_SEL='' ALGO_SEL='' PFX='' REPORT=1 DOC= CANDIDATE=
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
	--list) printf 'scenarios (id rate rtt buffer):%s\nalgorithms (id kind arg):%s\n' "$SCENARIOS_ALL" "$ALGOS_ALL"; exit 0 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if [ "$QUICK" = 1 ]; then
	: "${REPS:=3}" "${DUR:=3}"
	SCEN_SEL=${SCEN_SEL:-$QUICK_SCENARIOS}
fi
: "${REPS:=3}" "${DUR:=5}" "${OUT:=eval-out}"
PFX=${PFX:-be$(( $$ % 10000 ))}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --reps: positive integer" >&2; exit 2; }
[[ $DUR =~ ^[1-9][0-9]*$ ]] && [ "$DUR" -ge 2 ] || { echo "run.sh: --duration: integer >= 2" >&2; exit 2; }
[[ $PFX =~ ^[A-Za-z0-9]{1,9}$ ]] || { echo "run.sh: --prefix: 1-9 letters or digits" >&2; exit 2; }

# selection, in matrix order
select_rows() { # TABLE SELECTION
	local table=$1 sel=$2 id rest
	while read -r id rest; do
		[ -n "$id" ] || continue
		if [ -z "$sel" ] || [[ " $sel " == *" $id "* ]]; then echo "$id $rest"; fi
	done <<<"$table"
}
mapfile -t SCENARIOS < <(select_rows "$SCENARIOS_ALL" "$SCEN_SEL")
mapfile -t ALGOS < <(select_rows "$ALGOS_ALL" "$ALGO_SEL")
[ ${#SCENARIOS[@]} -gt 0 ] || { echo "run.sh: no scenario selected (--list)" >&2; exit 2; }
[ ${#ALGOS[@]} -gt 0 ] || { echo "run.sh: no algorithm selected (--list)" >&2; exit 2; }
for s in $SCEN_SEL; do grep -q "^$s " < <(printf '%s\n' "${SCENARIOS[@]}") || { echo "run.sh: unknown scenario $s" >&2; exit 2; }; done
for a in $ALGO_SEL; do grep -q "^$a " < <(printf '%s\n' "${ALGOS[@]}") || { echo "run.sh: unknown algorithm $a" >&2; exit 2; }; done

# ---------------------------------------------------------------- checks

[ "$(id -u)" -eq 0 ] || die "must be run as root (namespaces, BPF, tracefs)"
for t in ip iperf3 jq nstat timeout awk; do
	command -v "$t" >/dev/null || die "$t is missing"
done
[ -x "$CUBICCTL" ] || die "$CUBICCTL is missing: run make"
[ -x "${PATHEMU_DELAYQ:-$REPO/build/delayq}" ] || die "build/delayq is missing: run make"
[ "$REPORT" = 0 ] || "$PY" -c 'import matplotlib' 2>/dev/null ||
	die "$PY has no matplotlib (apt-get install python3-matplotlib) or use --no-report"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
mountpoint -q "$TRACEFS" || mount -t tracefs tracefs "$TRACEFS"
[ -e "$TRACEFS/events/tcp/tcp_probe" ] || die "no tcp:tcp_probe tracepoint"
for a in "${ALGOS[@]}"; do
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
PATH_UP=0
LOADED=()
IMPOSSIBLE=0
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM HUP ERR
	if [ -n "$TRACE_PID" ]; then
		kill_wait -INT "$TRACE_PID"
		wait "$TRACE_PID" 2>/dev/null
	fi
	if [ -d "$TI" ]; then
		echo 0 >"$TI/tracing_on" 2>/dev/null
		echo 0 >"$TI/events/tcp/tcp_probe/enable" 2>/dev/null
		rmdir "$TI" 2>/dev/null || log "could not remove tracefs instance $TI"
	fi
	[ "$PATH_UP" = 1 ] && path_down "$PATHN"
	for n in "${LOADED[@]}"; do
		instance_unload "$n" || log "could not unload $n"
	done
	rm -rf "$TMP"
	[ "$IMPOSSIBLE" = 0 ] || echo "run.sh: stopped after an impossible window (above); results so far in $OUT" >&2
	exit "$rc"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT
trap 'exit 143' TERM HUP

# ---------------------------------------------------------------- set-up

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -z "$DOC" ] || { mkdir -p "$(dirname "$DOC")"; DOC=$(cd "$(dirname "$DOC")" && pwd)/$(basename "$DOC"); }
FLOWS=$OUT/flows.jsonl
CWND=$OUT/cwnd.csv
: >"$FLOWS"
echo "scenario,algorithm,rep,t_s,cwnd,ssthresh_finite" >"$CWND"

for a in "${ALGOS[@]}"; do
	read -r id kind arg dp <<<"$a"
	[ "$kind" = bpf ] || continue
	LOADED+=("${PFX}${id#bpf}")
	"$CUBICCTL" load --name "${PFX}${id#bpf}" --preset "$arg" --datapath "${dp:-exact}" >/dev/null ||
		die "cannot load ${PFX}${id#bpf} (preset $arg, datapath ${dp:-exact})"
done

mkdir "$TI"
echo mono >"$TI/trace_clock"
echo 16384 >"$TI/buffer_size_kb"
echo 0 >"$TI/options/overwrite" # a full buffer loses the end of a flow, not its slow start
echo 0 >"$TI/tracing_on"
# the iperf3 server's port: the filter keeps the sender's sockets of our flows only
PORT=$(( 20000 + $$ % 20000 ))
echo "dport == $PORT" >"$TI/events/tcp/tcp_probe/filter"
echo 1 >"$TI/events/tcp/tcp_probe/enable"
T_START=$(date +%s)
NFLOWS=$(( ${#SCENARIOS[@]} * ${#ALGOS[@]} * REPS ))
log "${#SCENARIOS[@]} scenarios x ${#ALGOS[@]} algorithms x $REPS reps = $NFLOWS flows of ${DUR}s -> $OUT"

hystart_counters() { # -> "train delay"
	ip netns exec "$PATHN-snd" nstat -asz TcpExtTCPHystartTrainDetect TcpExtTCPHystartDelayDetect 2>/dev/null |
		awk '$1=="TcpExtTCPHystartTrainDetect"{t=$2} $1=="TcpExtTCPHystartDelayDetect"{d=$2} END{print t+0, d+0}'
}
tbf_dropped() {
	"$PATHEMU" show --name "$PATHN" | sed -n 's/^tbf_dropped=//p'
}

# ---------------------------------------------------------------- one flow
run_flow() { # SCEN_ID RATE RTT BUF ALGO_ID KIND ARG REP
	local sid=$1 rate=$2 rtt=$3 buf=$4 aid=$5 kind=$6 arg=$7 rep=$8
	local ca=$arg f=$TMP/flow
	[ "$kind" = bpf ] && ca=${PFX}${aid#bpf}
	rm -f "$f".*
	local h0 d0
	h0=$(hystart_counters)
	d0=$(tbf_dropped)
	echo >"$TI/trace"
	echo 1 >"$TI/tracing_on"
	if [ "$kind" = bpf ]; then
		"$CUBICCTL" -j trace --name "$ca" --port "$PORT" >"$f.bpf" 2>"$f.bpf.err" &
		TRACE_PID=$!
		sleep 0.3
	fi
	local rc=0 arc=0
	timeout $(( DUR + 30 )) ip netns exec "$PATHN-snd" \
		iperf3 -c "$RCV_ADDR" -p "$PORT" -C "$ca" -t "$DUR" -i 0.1 -J >"$f.iperf" 2>"$f.iperf.err" || rc=$?
	sleep 0.2
	echo 0 >"$TI/tracing_on"
	if [ -n "$TRACE_PID" ]; then
		kill -INT "$TRACE_PID" 2>/dev/null
		wait "$TRACE_PID" 2>/dev/null || true
		TRACE_PID=
	fi
	cp "$TI/trace" "$f.probe"
	echo >"$TI/trace"
	[ -e "$f.bpf" ] || : >"$f.bpf"
	local h1 d1
	h1=$(hystart_counters)
	d1=$(tbf_dropped)
	if [ "$rc" != 0 ]; then
		log "iperf3 failed ($sid $aid rep $rep, rc $rc): $(head -c 300 "$f.iperf.err") $(jq -r '.error? // empty' "$f.iperf" 2>/dev/null)"
	fi
	"$PY" "$ANALYZE" flow --scenario "$sid" --algorithm "$aid" --kind "$kind" --arg "$arg" \
		--rep "$rep" --rate "$rate" --rtt "$rtt" --buffer "$buf" ${jit:+--jitter "$jit"} \
		--bdp-pkts "$BDP" --buffer-pkts "$BUFP" --port "$PORT" --duration "$DUR" \
		--iperf "$f.iperf" --probe "$f.probe" --bpf-trace "$f.bpf" \
		--nstat-before "$h0" --nstat-after "$h1" --tbf-before "${d0:-0}" --tbf-after "${d1:-0}" \
		--cwnd-csv "$CWND" >>"$FLOWS" || arc=$?
	# an impossible window (analyze.py has named the flow, time and value) ends the run
	[ "${arc:-0}" != 3 ] || { IMPOSSIBLE=1; exit 3; }
	[ "${arc:-0}" = 0 ] || log "analysis of $sid $aid rep $rep failed"
}

# ---------------------------------------------------------------- the matrix
i=0
for s in "${SCENARIOS[@]}"; do
	read -r sid rate rtt buf jit <<<"$s"
	log "scenario $sid: $rate $rtt buffer $buf${jit:+ jitter $jit}"
	PATH_UP=1
	path_up "$PATHN" "$rate" "$rtt" "$buf" ${jit:+--jitter "$jit"} || die "pathemu start failed for $sid"
	BDP=$PATH_BDP BUFP=$PATH_BUF
	netns_iperf_server "$PATHN-rcv" "$PORT" || die "no iperf3 server for $sid"
	# the delay queue warms up; the first flow must not pay for it
	ip netns exec "$PATHN-snd" ping -c 2 -i 0.2 -q "$RCV_ADDR" >/dev/null 2>&1 || true
	for rep in $(seq "$REPS"); do
		for a in "${ALGOS[@]}"; do
			read -r aid kind arg <<<"$a"
			i=$(( i + 1 ))
			log "[$i/$NFLOWS] $sid $aid rep $rep"
			run_flow "$sid" "$rate" "$rtt" "$buf" "$aid" "$kind" "$arg" "$rep"
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
	echo "duration_s=$DUR reps=$REPS flows=$NFLOWS wall_s=$(( T_END - T_START ))"
	echo "kernel=$(uname -r) cpus=$(nproc) hz=250"
	echo "git=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
} >"$OUT/run.txt"
log "matrix done in $(( T_END - T_START )) s"

if [ "$REPORT" = 1 ]; then
	"$PY" "$ANALYZE" report --in "$OUT" --out "$OUT" ${DOC:+--doc "$DOC"} ${CANDIDATE:+--candidate "$CANDIDATE"}
fi
