#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: flow completion time. N-byte transfers over emulated paths
# (tools/emu/pathemu), bpf_cubic's presets next to the kernel's cubic and bbr,
# interleaved, timed by their sender (tools/fct/xfer.py).
#
# usage: tools/fct/run.sh [--quick] [--reps N] [--sizes "1MB 5MB 20MB"] [--paths "ID ..."]
#                         [--algos "ID ..."] [--out DIR] [--prefix P] [--no-report] [--list]
# See tools/fct/README.md. Needs root and make (cubicctl, build/delayq).
#
# Shell runs things (the path, the instances, the senders); tools/fct/analyze.py
# (on tools/lib/cubictools/fct.py) makes each transfer's record and the report.
set -Eeuo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$REPO/tools/lib/netns.sh"
FCTDIR=$REPO/tools/fct
PY=$TOOLS_PY
RCV_ADDR=10.77.2.2

# ---------------------------------------------------------------- the matrix
# Algorithms: ID KIND ARG LABEL...
#   kernel: ARG is the kernel's congestion control (the socket's TCP_CONGESTION)
#   bpf:    ARG is a cubicctl preset; an instance PREFIX + ID without its "bpf"
#           head is loaded (fc123_linux), at most 15 characters
# The first is the reference of the "x cubic" column. "Without HyStart" is a
# bpf_cubic instance with preset off: the kernel's own switch
# (/sys/module/tcp_cubic/parameters/hystart) is global, so flipping it would
# change every cubic socket on the machine, and is never touched here.
ALGOS_ALL="
cubic       kernel cubic     cubic (kernel, HyStart)
bpf_off     bpf    off       bpf_cubic off (no HyStart)
bpf_linux   bpf    linux     bpf_cubic linux (HyStart)
bpf_hspp    bpf    hystart++ bpf_cubic hystart++
bpf_search  bpf    search    bpf_cubic search
bpf_predict bpf    predict   bpf_cubic predict
bpf_predictj bpf   predict-jump bpf_cubic predict-jump (predict_jump=500)
bbr         kernel bbr       bbr (kernel)
"
# Paths: ID RATE RTT BUFFER [pathemu options] (pathemu syntax). suss is the
# SUSS group's testbed path (SIGCOMM 2024): its published table is in the
# report. The real-path ones are tools/eval's scenarios of the same IDs: a
# policer before the queue (its drops counted apart; the physical limit is at
# the policed rate), ACKs aggregated, an ACK path with jitter.
PATHS_ALL="
suss        50mbit  100ms 413
r50_20_1    50mbit  20ms  1bdp
r100_40_q25 100mbit 40ms  0.25bdp
r20_80_2    20mbit  80ms  2bdp
r20_20_1    20mbit  20ms  1bdp
s2011       200mbit 11.3ms 1bdp
s2011_q25   200mbit 11.3ms 0.25bdp
pol100_40   100mbit 40ms  1bdp    --policer 20mbit:100kb
agg50_20_4  50mbit  20ms  2bdp    --ack-agg 4ms
agg50_40_8  50mbit  40ms  1bdp    --ack-agg 8ms
j50_40_2    50mbit  40ms  2bdp    --jitter 15ms
"
DEFAULT_PATHS="suss r50_20_1 r100_40_q25"
DEFAULT_SIZES="1MB 5MB 20MB"
QUICK_PATHS="suss"
GAP_S=0.3 # idle between transfers (the queue is empty when a reply arrives)
# tries of a transfer on a late emulator (transfer()), and tries run again
LATE_TRIES=${FCT_LATE_TRIES:-3} LATE_RERUNS=0
[[ $LATE_TRIES =~ ^[1-9][0-9]?$ ]] || { echo "run.sh: FCT_LATE_TRIES: positive integer" >&2; exit 2; }

usage() {
	sed -n '/^# usage:/,/^# See/s/^# \{0,1\}//p' "$0"
	cat <<EOF

  --quick       make fct-quick: path suss only, 3 reps (6.5 min on a loaded 2-CPU VM)
  --reps N      repetitions (default 5); each runs every path's sizes and algorithms once
  --sizes L     transfer sizes (default "$DEFAULT_SIZES"; B, kB, MB, GB, KiB, MiB, GiB)
  --paths L     path IDs (default "$DEFAULT_PATHS"; see --list)
  --algos L     algorithm IDs (default all; see --list); cubic is the ratio's reference
  --out DIR     transfers.jsonl, run.txt, summary.json, report.md (default fct-out/)
  --prefix P    names of what the run creates (default fc<pid%10000>, 1-7 letters or
                digits): instances P_off, P_linux, ...; path namespaces Pp-snd/-rtr/-rcv
  --no-report   transfers only
  --list        the paths and algorithms, and exit
Exit codes: 0 ok, 1 failed, 2 bad input (nothing created), 3 an impossible window.
EOF
}

die() { echo "run.sh: $*" >&2; exit 1; }
bad() { echo "run.sh: $*" >&2; exit 2; }
log() { echo "fct: $*" >&2; }

# ---------------------------------------------------------------- arguments

CMDLINE="tools/fct/run.sh $*"
QUICK=0 REPS='' SIZES='' PATH_SEL='' ALGO_SEL='' OUT='' PFX='' REPORT=1 LIST=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--reps) [ $# -ge 2 ] || bad "--reps needs a value"; REPS=$2; shift ;;
	--sizes) [ $# -ge 2 ] || bad "--sizes needs a list"; SIZES=$2; shift ;;
	--paths) [ $# -ge 2 ] || bad "--paths needs a list"; PATH_SEL=$2; shift ;;
	--algos) [ $# -ge 2 ] || bad "--algos needs a list"; ALGO_SEL=$2; shift ;;
	--out) [ $# -ge 2 ] || bad "--out needs a directory"; OUT=$2; shift ;;
	--prefix) [ $# -ge 2 ] || bad "--prefix needs a value"; PFX=$2; shift ;;
	--no-report) REPORT=0 ;;
	--list) LIST=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if [ "$QUICK" = 1 ]; then
	: "${REPS:=3}"
	PATH_SEL=${PATH_SEL:-$QUICK_PATHS}
fi
: "${REPS:=5}" "${SIZES:=$DEFAULT_SIZES}" "${PATH_SEL:=$DEFAULT_PATHS}" "${OUT:=fct-out}"
PFX=${PFX:-fc$(( $$ % 10000 ))}
if ! [[ $REPS =~ ^[1-9][0-9]{0,2}$ || $REPS = 1000 ]]; then bad "--reps: an integer 1..1000"; fi
[[ $PFX =~ ^[A-Za-z0-9]{1,7}$ ]] || bad "--prefix: 1-7 letters or digits"

# select_rows TABLE SELECTION: the rows whose ID is in SELECTION (all if empty), in table order
select_rows() {
	local id rest
	while read -r id rest; do
		[ -n "$id" ] || continue
		if [ -z "$2" ] || [[ " $2 " == *" $id "* ]]; then echo "$id $rest"; fi
	done <<<"$1"
}
mapfile -t PATHS < <(select_rows "$PATHS_ALL" "$PATH_SEL")
mapfile -t ALGOS < <(select_rows "$ALGOS_ALL" "$ALGO_SEL")
for x in $PATH_SEL; do
	printf '%s\n' "${PATHS[@]}" | grep "^$x " >/dev/null || bad "unknown path '$x' (--list)"
done
for x in $ALGO_SEL; do
	printf '%s\n' "${ALGOS[@]}" | grep "^$x " >/dev/null || bad "unknown algorithm '$x' (--list)"
done
[ ${#PATHS[@]} -gt 0 ] || bad "no path selected (--list)"
[ ${#ALGOS[@]} -gt 0 ] || bad "no algorithm selected (--list)"
# shellcheck disable=SC2086 # one word per size
SIZE_ROWS=$("$PY" -B "$FCTDIR/analyze.py" sizes $SIZES) || bad "--sizes: see above"
[ -n "$SIZE_ROWS" ] || bad "--sizes: no size"
for p in "${PATHS[@]}"; do
	read -r pid rate rtt buf _ <<<"$p"
	msg=$(cubictools path --rate "$rate" --rtt "$rtt" --buffer "$buf" 2>&1 >/dev/null) || bad "path $pid: $msg"
done

if [ "$LIST" = 1 ]; then
	echo "paths (id rate rtt buffer):"
	printf '  %s\n' "${PATHS[@]}"
	echo "algorithms (id kind arg label):"
	printf '  %s\n' "${ALGOS[@]}"
	echo "sizes: $(cut -d' ' -f1 <<<"$SIZE_ROWS" | tr '\n' ' ')"
	exit 0
fi

# ---------------------------------------------------------------- checks

[ "$(id -u)" -eq 0 ] || die "must be run as root (namespaces, BPF)"
[ -x "$CUBICCTL" ] || die "$CUBICCTL is missing: run make"
[ -x "${PATHEMU_DELAYQ:-$REPO/build/delayq}" ] || die "build/delayq is missing: run make"
PRESETS=$("$CUBICCTL" help | sed -n '/^presets/,/^$/p' | awk '/^  [^ ]/ {print $1}')
for a in "${ALGOS[@]}"; do
	read -r aid kind arg _ <<<"$a"
	if [ "$kind" = kernel ]; then
		registered "$arg" || modprobe "tcp_$arg" 2>/dev/null || true
		registered "$arg" || die "the kernel's $arg is not available"
	else
		grep -qxF -- "$arg" <<<"$PRESETS" || die "algorithm $aid: $CUBICCTL has no preset '$arg'"
		n=${PFX}${aid#bpf}
		[ ${#n} -le 15 ] || bad "instance name $n is longer than 15 characters (a shorter --prefix)"
		! registered "$n" || die "$n is already registered; use another --prefix"
	fi
done
PATHN=${PFX}p
! netns_exists "$PATHN-snd" || die "namespace $PATHN-snd exists; use another --prefix"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

# ---------------------------------------------------------------- cleanup

TMP=''
PATH_UP=0
LOADED=()
WATCH_PID='' WATCH_LOG=''
IMPOSSIBLE=0
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	local rc=$? n
	set +e
	trap - EXIT INT TERM HUP ERR
	if [ -n "$WATCH_PID" ]; then
		kill -TERM "$WATCH_PID" 2>/dev/null
		wait "$WATCH_PID" 2>/dev/null
		rm -f "$WATCH_LOG"
	fi
	# the path's end ends every process in it: the sink, a sender cut short
	[ "$PATH_UP" = 1 ] && path_down "$PATHN"
	for n in "${LOADED[@]}"; do
		instance_unload "$n" || log "could not unload $n"
	done
	[ -z "$TMP" ] || rm -rf "$TMP"
	[ "$IMPOSSIBLE" = 0 ] || echo "run.sh: stopped after an impossible window (above); transfers so far in $OUT" >&2
	exit "$rc"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT
trap 'exit 143' TERM HUP

# ---------------------------------------------------------------- set-up

TMP=$(mktemp -d /tmp/bcfct.XXXXXX)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
JSONL=$OUT/transfers.jsonl
: >"$JSONL"
for a in "${ALGOS[@]}"; do
	read -r aid kind arg _ <<<"$a"
	[ "$kind" = bpf ] || continue
	LOADED+=("${PFX}${aid#bpf}")
	"$CUBICCTL" load --name "${PFX}${aid#bpf}" --preset "$arg" >/dev/null ||
		die "cannot load ${PFX}${aid#bpf} (preset $arg)"
done
PORT=$(( 20000 + $$ % 20000 ))
HYSTART=$(cat /sys/module/tcp_cubic/parameters/hystart 2>/dev/null || echo '')
[ "$HYSTART" = 1 ] || log "warning: /sys/module/tcp_cubic/parameters/hystart is '$HYSTART': the kernel's cubic runs without HyStart"
CPU_START=$(awk '$1 == "cpu" {print $2, $3, $4, $5, $6, $7, $8, $9}' /proc/stat)
T_START=$(date +%s)
# the run's facts now, so a run stopped early (an impossible window) keeps them
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command=$CMDLINE"
	echo "reps=$REPS"
	echo "sizes=$(cut -d' ' -f1 <<<"$SIZE_ROWS" | tr '\n' ' ' | sed 's/ $//')"
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	# the paths' delay daemons keep a spinning thread per CPU (tools/emu/README.md):
	# they count in the load average and read as busy CPU time
	echo "spinners=$([ "${PATHEMU_SPIN:-1}" = 0 ] && echo 0 || nproc)"
	echo "hystart_param=$HYSTART"
	echo "cpu_start=$CPU_START"
	echo "git=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
} >"$OUT/run.txt"
NSIZES=$(grep -c . <<<"$SIZE_ROWS")
NXFER=$(( ${#PATHS[@]} * REPS * NSIZES * ${#ALGOS[@]} ))
log "${#PATHS[@]} paths x $NSIZES sizes x ${#ALGOS[@]} algorithms x $REPS reps: $NXFER transfers -> $OUT"

# ---------------------------------------------------------------- one path

# path_start ROW: the path, its sink listening, the impossible-window watch on
# the sender's namespace
path_start() {
	read -r P_ID P_RATE P_RTT P_BUF P_OPTS <<<"$1"
	log "path $P_ID: $P_RATE $P_RTT buffer $P_BUF${P_OPTS:+ $P_OPTS}"
	PATH_UP=1
	# shellcheck disable=SC2086 # the options are words
	path_up "$PATHN" "$P_RATE" "$P_RTT" "$P_BUF" $P_OPTS || die "pathemu start failed for $P_ID"
	P_BDP=$PATH_BDP P_BUFP=$PATH_BUF
	local cfg
	cfg=$("$PATHEMU" show --name "$PATHN")
	P_RATE_BPS=$(sed -n 's/^rate_bps=//p' <<<"$cfg")
	# behind a policer the rate a flow can have is the policer's
	local prate
	prate=$(sed -n 's/^police_rate_bps=//p' <<<"$cfg")
	if [ -n "$prate" ] && [ "$prate" -gt 0 ] && [ "$prate" -lt "$P_RATE_BPS" ]; then P_RATE_BPS=$prate; fi
	P_RTT_US=$(sed -n 's/^rtt_us=//p' <<<"$cfg")
	P_BOUND=$(window_bound "$P_BDP" "$P_BUFP")
	# not our child: the path's end ends it
	( "$PATHEMU" exec --name "$PATHN" rcv "$PY" -B "$FCTDIR/xfer.py" sink --port "$PORT" >/dev/null 2>&1 & )
	local ok=0
	for _ in $(seq 100); do
		if ip netns exec "$PATHN-rcv" ss -Hltn "sport = :$PORT" | grep . >/dev/null; then ok=1; break; fi
		sleep 0.1
	done
	[ "$ok" = 1 ] || die "the receiver (xfer.py sink) did not start on $P_ID"
	# the delay queue warms up; the first transfer must not pay for it
	ip netns exec "$PATHN-snd" ping -c 2 -i 0.2 -q "$RCV_ADDR" >/dev/null 2>&1 || true
	WATCH_DIR=$TMP watch_start "$PATHN-snd" "$P_BOUND" "fct $P_ID" || die "the impossible-window watch did not start"
	# the counters before the first transfer; each transfer's "after" is the
	# next one's "before" (nothing else crosses the path between them)
	"$PATHEMU" show --name "$PATHN" >"$TMP/x.show1"
}

path_end() {
	local rc=0
	watch_stop || rc=$?
	path_down "$PATHN"
	PATH_UP=0
	if [ "$rc" != 0 ]; then
		IMPOSSIBLE=1
		exit 3
	fi
}

# ---------------------------------------------------------------- one transfer

# transfer ALGO_ROW SIZE_LABEL BYTES REP SEQ: one timed transfer, its record
# appended to transfers.jsonl
transfer() {
	local aid kind arg label ca rc=0 arc=0 f=$TMP/x load1 t try
	read -r aid kind arg label <<<"$1"
	ca=$arg
	[ "$kind" = bpf ] && ca=${PFX}${aid#bpf}
	# a transfer on an emulator whose delay line ran late (its record's
	# emu_late: release-error p99 above 1 ms) is run again, up to
	# FCT_LATE_TRIES tries; the last is kept whatever it shows
	for try in $(seq "$LATE_TRIES"); do
		rc=0 arc=0
		mv "$f.show1" "$f.show0"
		path_release_reset "$PATHN"
		load1=$(cut -d' ' -f1 /proc/loadavg)
		t=$(date +%s.%N)
		# the physical limit x 20 + 30 s: a transfer that slow has failed
		timeout "$(awk -v b="$3" -v r="$P_RATE_BPS" -v t="$P_RTT_US" 'BEGIN {printf "%d", 20 * (t / 1e6 + b * 8.5 / r) + 30}')" \
			"$PATHEMU" exec --name "$PATHN" snd "$PY" -B "$FCTDIR/xfer.py" send --addr "$RCV_ADDR" --port "$PORT" \
			--ca "$ca" --bytes "$3" --bound "$P_BOUND" >"$f.json" 2>"$f.err" || rc=$?
		"$PATHEMU" show --name "$PATHN" >"$f.show1"
		[ "$rc" = 0 ] || [ "$rc" = 3 ] || log "the sender failed ($P_ID $aid $2 rep $4, rc $rc): $(head -c 300 "$f.err") $(head -c 300 "$f.json")"
		"$PY" -B "$FCTDIR/analyze.py" record --xfer "$f.json" --rc "$rc" --show-before "$f.show0" --show-after "$f.show1" \
			--meta "path=$P_ID" "rate=$P_RATE" "rtt=$P_RTT" "buffer=$P_BUF" "rate_bps=$P_RATE_BPS" "rtt_us=$P_RTT_US" "opts=$P_OPTS" \
			"bdp_pkts=$P_BDP" "buffer_pkts=$P_BUFP" "size=$2" "bytes=$3" "algorithm=$aid" "kind=$kind" "arg=$arg" \
			"label=$label" "ca=$ca" "rep=$4" "seq=$5" "load1=$load1" "t_unix=$t" "late_retries=$((try - 1))" \
			>"$f.rec" || arc=$?
		if [ "$arc" = 3 ]; then
			cat "$f.rec" >>"$JSONL"
			IMPOSSIBLE=1
			exit 3
		fi
		[ "$arc" = 0 ] || die "the record of $P_ID $aid $2 rep $4 failed"
		if [ "$(jq -r .emu_late "$f.rec")" != true ]; then
			break
		elif [ "$try" -lt "$LATE_TRIES" ]; then
			LATE_RERUNS=$((LATE_RERUNS + 1))
			sleep "$GAP_S"
			log "$P_ID $aid $2 rep $4: the emulator's delay line ran late ($(jq -r '"release error p99 \(.emu_release_p99_us) us, max \(.emu_release_max_us) us"' "$f.rec")): the transfer again ($((try + 1)) of $LATE_TRIES)"
		else
			log "$P_ID $aid $2 rep $4: the emulator's delay line ran late in all $LATE_TRIES tries: the last is kept, emu_late set"
		fi
	done
	cat "$f.rec" >>"$JSONL"
}

# ---------------------------------------------------------------- the run
# Every repetition runs every size and algorithm once; the algorithms' order
# rotates by one each repetition, so neither the machine's drifts nor a
# position in the round favour one algorithm.
seq_no=0
for p in "${PATHS[@]}"; do
	path_start "$p"
	for rep in $(seq "$REPS"); do
		while read -r slabel sbytes; do
			n=${#ALGOS[@]}
			for ((k = 0; k < n; k++)); do
				a=${ALGOS[$(( (k + rep - 1) % n ))]}
				seq_no=$(( seq_no + 1 ))
				log "[$seq_no/$NXFER] $P_ID $slabel ${a%% *} rep $rep"
				transfer "$a" "$slabel" "$sbytes" "$rep" "$seq_no"
				sleep "$GAP_S"
			done
		done <<<"$SIZE_ROWS"
	done
	path_end
done
T_END=$(date +%s)
CPU_END=$(awk '$1 == "cpu" {print $2, $3, $4, $5, $6, $7, $8, $9}' /proc/stat)

{
	echo "transfers=$NXFER"
	echo "wall_s=$(( T_END - T_START ))"
	echo "late_reruns=$LATE_RERUNS"
	echo "cpu_end=$CPU_END"
	echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$OUT/run.txt"
log "done in $(( T_END - T_START )) s"

if [ "$REPORT" = 1 ]; then
	"$PY" -B "$FCTDIR/analyze.py" report --in "$OUT" || exit $?
	log "report: $OUT/report.md"
fi
