#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# skipdemo.sh: is a struct_ops congestion control run for every ACK? markcc
# (tools/repro/markcc.bpf.c) counts its .pkts_acked calls into snd_ssthresh;
# tcp:tcp_probe (with the thread group of the task in whose context each ACK
# is processed) shows, sample by sample, whether the count rose. The verdict
# is split by context: ACKs processed while a task of thread group 1 was
# current, and all others. See docs/IMPOSSIBLE_WINDOWS.md.
#
# usage: tools/repro/skipdemo.sh [--rounds N] [--parallel P] [--duration S] [--prefix P]
# SKIPDEMO_KEEP=DIR keeps each round's raw trace there.
# Exit: 0 the program ran for every ACK, 1 some ACK went without it (the
# summary line says in which contexts), 2 usage.
set -Eeuo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PATHEMU=$REPO/tools/emu/pathemu
TRACEFS=/sys/kernel/tracing
OBJ=$REPO/build/markcc.bpf.o
CC=bct_markcc
MAP=markcc
RCV_ADDR=10.77.2.2
ROUNDS=10 PAR=4 DUR=4 PFX=sd$(( $$ % 10000 ))
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift ;;
	--parallel) PAR=${2:?}; shift ;;
	--duration) DUR=${2:?}; shift ;;
	--prefix) PFX=${2:?}; shift ;;
	-h | --help) sed -n '/^# usage:/,/^# Exit/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "skipdemo.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
for v in "$ROUNDS" "$PAR" "$DUR"; do [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "skipdemo.sh: positive integers" >&2; exit 2; }; done
die() { echo "skipdemo.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must be run as root"
if [ ! -e "$OBJ" ] || [ "$REPO/tools/repro/markcc.bpf.c" -nt "$OBJ" ]; then
	mkdir -p "$REPO/build"
	(cd "$REPO" && ${CLANG:-clang} -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I. \
		-c tools/repro/markcc.bpf.c -o build/markcc.bpf.o)
fi
mountpoint -q "$TRACEFS" || mount -t tracefs tracefs "$TRACEFS"
tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep -qx "$CC" &&
	die "$CC is already registered (another skipdemo?)"
PATHN=${PFX}p
TI=$TRACEFS/instances/${PFX}_skip
[ ! -e "$TI" ] || die "$TI exists; use another --prefix"

TMP=$(mktemp -d /tmp/skipdemo.XXXXXX)
PATH_UP=0 REG=0
cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM HUP
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	if [ -d "$TI" ]; then
		echo 0 >"$TI/tracing_on"
		echo 0 >"$TI/events/tcp/tcp_probe/enable"
		rmdir "$TI"
	fi
	[ "$PATH_UP" = 0 ] || "$PATHEMU" stop --name "$PATHN" >/dev/null 2>&1
	[ "$REG" = 0 ] || bpftool struct_ops unregister name "$MAP" >/dev/null 2>&1 ||
		echo "skipdemo.sh: could not unregister $CC (bpftool struct_ops unregister name $MAP)" >&2
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

REG=1
bpftool struct_ops register "$OBJ" >/dev/null || die "cannot register $OBJ"
PATH_UP=1
"$PATHEMU" start --name "$PATHN" --rate 100mbit --rtt 5ms --buffer 2bdp >/dev/null || die "pathemu start failed"
BASE=$(( 40000 + ($$ % 1000) * 16 ))
for s in $(seq 0 $(( PAR - 1 ))); do
	ip netns exec "$PATHN-rcv" iperf3 -s -p $(( BASE + s )) -D >/dev/null
done
sleep 0.5
mkdir "$TI"
echo mono >"$TI/trace_clock"
echo 16384 >"$TI/buffer_size_kb"
echo 0 >"$TI/options/overwrite"
echo 1 >"$TI/options/record-tgid"
echo "dport >= $BASE && dport < $(( BASE + PAR ))" >"$TI/events/tcp/tcp_probe/filter"
echo 1 >"$TI/events/tcp/tcp_probe/enable"

: >"$TMP/all"
for r in $(seq "$ROUNDS"); do
	echo >"$TI/trace"
	echo 1 >"$TI/tracing_on"
	pids=()
	for s in $(seq 0 $(( PAR - 1 ))); do
		ip netns exec "$PATHN-snd" iperf3 -c "$RCV_ADDR" -p $(( BASE + s )) -C "$CC" -t "$DUR" >/dev/null 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || echo "skipdemo.sh: a flow failed" >&2; done
	echo 0 >"$TI/tracing_on"
	grep -q LOST "$TI/trace" && echo "skipdemo.sh: round $r lost trace events (buffer full)" >&2
	# per socket, consecutive samples: did the mark rise after ACK i?
	awk -v base=$(( 0x10000000 )) '
		/tcp_probe:/ {
			tg = "?"
			if (match($0, /\( *[0-9]+\)/)) { tg = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", tg) }
			src = ""; ss = -1; una = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^src=/) src = $i
				else if ($i ~ /^ssthresh=/) ss = substr($i, 10) + 0
				else if ($i ~ /^snd_una=/) una = $i
			}
			if (ss < base || ss >= base + 16777216) { delete last[src]; next }
			if (src in last) {
				ctx = (ptg[src] == "1") ? "tgid1" : "other"
				d = ss - last[src]
				# an ACK that did not advance snd_una may be an old one, which the
				# kernel drops before tcp_clean_rtx_queue(): counted apart
				if (pun[src] == una) ctx = ctx "_dup"
				print ctx, (d == 0 ? "notrun" : "ran"), ptc[src] "/" ptg[src], d
			}
			last[src] = ss; ptg[src] = tg; pun[src] = una
			c = $1; sub(/-[0-9]+$/, "", c); ptc[src] = c
		}' "$TI/trace" >>"$TMP/all"
	[ -z "${SKIPDEMO_KEEP:-}" ] || cp "$TI/trace" "$SKIPDEMO_KEEP/trace.$r"
	echo >"$TI/trace"
	echo "skipdemo: round $r/$ROUNDS: $(wc -l <"$TMP/all") ACK pairs so far" >&2
done

awk '
	{ n[$1 " " $2]++; if ($2 == "notrun") who[$1 " " $3]++ }
	END {
		t1r = n["tgid1 ran"] + 0; t1n = n["tgid1 notrun"] + 0
		otr = n["other ran"] + 0; otn = n["other notrun"] + 0
		printf "skipdemo: ACKs processed in tgid-1 context: %d, program not run for %d, run for %d; ", t1r + t1n, t1n, t1r
		printf "in other contexts: %d, not run for %d, run for %d", otr + otn, otn, otr
		printf " (ACKs not advancing snd_una, counted apart: tgid-1 %d/%d not run, other %d/%d)", \
			n["tgid1_dup notrun"] + 0, n["tgid1_dup notrun"] + n["tgid1_dup ran"], n["other_dup notrun"] + 0, n["other_dup notrun"] + n["other_dup ran"]
		s = ""; for (c in who) { split(c, w, " "); s = s " " w[2] (w[1] ~ /_dup$/ ? " (snd_una not advanced)" : "") ":" who[c] }
		if (s != "") printf "; the ACKs without it, by context (task/tgid):%s", s
		printf "\n"
		exit (t1n + otn > 0)
	}' "$TMP/all"
