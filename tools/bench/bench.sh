#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: what bpf_cubic costs on the datapath, next to the kernel's cubic.
#
# Two network namespaces joined by a veth pair, no shaping: bulk TCP is
# CPU-bound, so any cost per ACK shows as lost goodput. Three algorithms are
# measured side by side: the kernel's cubic and two throw-away bpf_cubic
# instances, NAME on the exact datapath (pkts_acked + cong_avoid: two BPF
# calls per ACK) and NAMEf on the fast one (cong_control: one call per ACK).
# Their runs alternate, in an order that rotates from round to round; BPF
# run-time statistics (kernel.bpf_stats_enabled) give the nanoseconds each
# struct_ops program takes. A Markdown report goes to stdout (and to --out FILE).
#
# usage: tools/bench/bench.sh [--runs N] [--duration S] [--flows "1 16 256"]
#                             [--flow-runs N] [--quick] [--out FILE] [--json FILE]
#                             [--name NAME] [--datapaths "exact fast"]
#                             [--min-ratio R] [--no-perf] [--offload on|off] [--cpus C,S|off]
#                             [--floor|--no-floor]
# See tools/bench/README.md. Needs root, ./cubicctl built (make), iperf3, jq, bpftool.
set -Eeuo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CUBICCTL=${CUBICCTL:-$REPO/cubicctl}
STATS_SYSCTL=/proc/sys/kernel/bpf_stats_enabled
AVAILABLE=/proc/sys/net/ipv4/tcp_available_congestion_control
ADDR_A=10.99.0.1
ADDR_B=10.99.0.2
PORT0=5201
MAX_P=128 # iperf3 3.12 refuses -P above 128: more flows use more clients

usage() {
	sed -n '/^# usage:/,/^# See/s/^# \{0,1\}//p' "$0"
	cat <<'EOF'

  --runs N        rounds of 1-flow goodput runs (default 15); a round runs cubic
                  and each datapath once, the order rotating from round to round
  --duration S    seconds per run (default 5)
  --flows LIST    parallel flows for the many-flows table (default "1 16 256")
  --flow-runs N   rounds per flow count above 1 (default 3)
  --quick         CI size (~65 s): --runs 5 --duration 2 --flows "1 16" --flow-runs 1 --no-perf
  --out FILE      also write the report there
  --json FILE     also write the key figures as JSON
  --name NAME     1-14 letters, digits or _ (default bcb<pid>): the exact datapath's
                  instance is NAME, the fast datapath's NAMEf; namespaces NAME-a, NAME-b
  --datapaths L   the bpf_cubic datapaths to measure next to cubic: "exact fast"
                  (default), "exact" or "fast"
  --min-ratio R   exit 3 if the median goodput ratio bpf_cubic/cubic of either
                  datapath is below R
  --no-perf       skip the perf profile (2 more runs of each; off with --quick)
  --no-floor      skip the dispatch floor: with the perf profile, the kernel's
                  reno is also profiled against a BPF Reno of kfunc calls
                  (build/floor.bpf.o, registered as bc_floor_reno for 4 runs),
                  the cost of the struct_ops dispatch alone
  --floor         the dispatch floor even where it would be skipped (an error
                  with --no-perf)
  --offload on|off  TSO/GSO/GRO on the veth pair (default on); off makes every
                  segment a packet (several times the CPU per byte)
  --cpus C,S|off  pin the iperf3 client to CPU C and the server to CPU S
                  (iperf3 -A C,S; default 0,0: sender, receiver and their softirq
                  work share one CPU, so every ns per ACK is goodput lost and
                  run-to-run noise drops from ~30 % to ~5 %); off: not pinned
EOF
}

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

log() {
	echo "bench: $*" >&2
}

# ---------------------------------------------------------------- arguments

CMDLINE=$(printf '%q ' "$0" "$@")
CMDLINE=${CMDLINE% }
unset FLOWS
RUNS='' DURATION='' FLOW_RUNS='' OUT='' JSON='' NAME='' MIN_RATIO='' QUICK=0 PERF='' OFFLOAD=on CPUS=0,0 FLOOR=
DATAPATHS_ARG='exact fast'
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=${2:?--runs needs a value}; shift ;;
	--duration) DURATION=${2:?--duration needs a value}; shift ;;
	--flows) FLOWS=${2?--flows needs a value}; shift ;;
	--flow-runs) FLOW_RUNS=${2:?--flow-runs needs a value}; shift ;;
	--out) OUT=${2:?--out needs a file}; shift ;;
	--json) JSON=${2:?--json needs a file}; shift ;;
	--name) NAME=${2:?--name needs a value}; shift ;;
	--datapaths) DATAPATHS_ARG=${2?--datapaths needs a value}; shift ;;
	--min-ratio) MIN_RATIO=${2:?--min-ratio needs a value}; shift ;;
	--quick) QUICK=1 ;;
	--no-perf) PERF=0 ;;
	--floor) FLOOR=1 ;;
	--no-floor) FLOOR=0 ;;
	--offload) OFFLOAD=${2:?--offload needs on or off}; shift ;;
	--cpus) CPUS=${2:?--cpus needs C,S or off}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if [ "$QUICK" = 1 ]; then
	: "${RUNS:=5}" "${DURATION:=2}" "${FLOWS=1 16}" "${FLOW_RUNS:=1}" "${PERF:=0}"
fi
: "${RUNS:=15}" "${DURATION:=5}" "${FLOWS=1 16 256}" "${FLOW_RUNS:=3}" "${PERF:=1}"
# the dispatch floor comes with the perf profile unless --no-floor
[ -n "$FLOOR" ] || FLOOR=$PERF
NAME=${NAME:-bcb$$}

posint() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
posint "$RUNS" || { echo "bench.sh: --runs: '$RUNS' is not a positive integer" >&2; exit 2; }
posint "$DURATION" || { echo "bench.sh: --duration: '$DURATION' is not a positive integer" >&2; exit 2; }
posint "$FLOW_RUNS" || { echo "bench.sh: --flow-runs: '$FLOW_RUNS' is not a positive integer" >&2; exit 2; }
for p in $FLOWS; do
	{ posint "$p" && [ "$p" -le 1024 ]; } || { echo "bench.sh: --flows: '$p' is not in 1..1024" >&2; exit 2; }
done
[[ $NAME =~ ^[A-Za-z0-9_]+$ ]] ||
	{ echo "bench.sh: --name: '$NAME': only letters, digits or _" >&2; exit 2; }
[ "${#NAME}" -le 14 ] ||
	{ echo "bench.sh: --name: '$NAME' has ${#NAME} characters, at most 14 (the fast datapath's instance is NAMEf, and instance names have at most 15)" >&2; exit 2; }
[ "$NAME" != bpf_cubic ] || { echo "bench.sh: --name: bpf_cubic is the user's instance; pick another name" >&2; exit 2; }
NAME_FAST=${NAME}f
# The datapaths, always in the order exact fast; ALGOS adds the kernel's cubic.
for d in $DATAPATHS_ARG; do
	[ "$d" = exact ] || [ "$d" = fast ] ||
		{ echo "bench.sh: --datapaths: '$d' is not exact or fast" >&2; exit 2; }
done
DATAPATHS=
for d in exact fast; do
	[[ " $DATAPATHS_ARG " != *" $d "* ]] || DATAPATHS="${DATAPATHS:+$DATAPATHS }$d"
done
[ -n "$DATAPATHS" ] || { echo "bench.sh: --datapaths: one or both of exact and fast" >&2; exit 2; }
ALGOS="cubic $DATAPATHS"
read -ra ALGO_LIST <<<"$ALGOS"
# the congestion control each algorithm runs as (iperf3 -C), and its label
declare -A CC=([cubic]=cubic [exact]="$NAME" [fast]="$NAME_FAST" [reno]=reno [floor]=bc_floor_reno)
declare -A LABEL=([cubic]="cubic (kernel)" [exact]="bpf_cubic exact" [fast]="bpf_cubic fast")
# --floor: a BPF Reno of kfunc calls (tools/bench/floor.bpf.c), against the kernel's reno
FLOOR_OBJ=$REPO/build/floor.bpf.o
FLOOR_MAP=bc_floor
[ "$CPUS" != off ] || CPUS=
if [ -n "$CPUS" ]; then
	[[ $CPUS =~ ^[0-9]+,[0-9]+$ ]] || { echo "bench.sh: --cpus: '$CPUS' is not C,S (two CPU numbers) or off" >&2; exit 2; }
	for c in ${CPUS/,/ }; do
		[ "$c" -lt "$(nproc)" ] || { echo "bench.sh: --cpus: CPU $c does not exist ($(nproc) CPUs)" >&2; exit 2; }
	done
fi
[ "$OFFLOAD" = on ] || [ "$OFFLOAD" = off ] ||
	{ echo "bench.sh: --offload: on or off" >&2; exit 2; }
[ -z "$MIN_RATIO" ] || [[ $MIN_RATIO =~ ^[0-9]*\.?[0-9]+$ ]] ||
	{ echo "bench.sh: --min-ratio: '$MIN_RATIO' is not a number" >&2; exit 2; }
NS_A=$NAME-a
NS_B=$NAME-b

# ---------------------------------------------------------------- checks

[ "$(id -u)" -eq 0 ] || die "must be run as root (network namespaces, BPF)"
for t in ip iperf3 jq bpftool timeout awk; do
	command -v "$t" >/dev/null || die "$t is missing (make deps)"
done
[ -x "$CUBICCTL" ] || die "$CUBICCTL is missing: run make first"
tr ' ' '\n' <"$AVAILABLE" | grep -qx cubic || modprobe tcp_cubic 2>/dev/null || true
tr ' ' '\n' <"$AVAILABLE" | grep -qx cubic || die "the kernel's cubic is not available"
registered() { tr ' ' '\n' <"$AVAILABLE" | grep -qx "$1"; }
for d in $DATAPATHS; do
	! registered "${CC[$d]}" || die "${CC[$d]} is already registered; pick another --name"
done
if [ "$FLOOR" = 1 ]; then
	[ "$PERF" = 1 ] || die "--floor needs the perf profile (it is off with --no-perf and --quick)"
	[ -f "$FLOOR_OBJ" ] || die "$FLOOR_OBJ is missing; run make first"
	! registered "${CC[floor]}" || die "${CC[floor]} is already registered (another bench.sh --floor?)"
fi
for ns in "$NS_A" "$NS_B"; do
	[ ! -e "/run/netns/$ns" ] || die "namespace $ns already exists; pick another --name"
done

# ---------------------------------------------------------------- cleanup

TMP=$(mktemp -d /tmp/bcbench.XXXXXX)
LOADED=() # instances this run loads (or tried to)
STATS_PREV=$(cat "$STATS_SYSCTL")
STATS_TOUCHED=0
TRACE_PID=
PERF_PID=
WATCH_PID=
FLOOR_REG=0
NOFILE_PREV=$(ulimit -n)

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local rc=$?
	set +e
	trap - EXIT INT TERM HUP ERR
	if [ -n "$PERF_PID" ]; then
		kill -INT "$PERF_PID" 2>/dev/null
		wait "$PERF_PID" 2>/dev/null
	fi
	if [ -n "$TRACE_PID" ]; then
		kill -INT "$TRACE_PID" 2>/dev/null
		sleep 0.2
		kill -9 "$TRACE_PID" 2>/dev/null
		wait "$TRACE_PID" 2>/dev/null
	fi
	for ns in "$NS_A" "$NS_B"; do
		[ -e "/run/netns/$ns" ] || continue
		# shellcheck disable=SC2046
		kill -9 $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	wait 2>/dev/null
	for inst in "${LOADED[@]}"; do
		registered "$inst" || [ -e "/sys/fs/bpf/cubicctl/$inst" ] || continue
		"$CUBICCTL" unload --name "$inst" >/dev/null 2>&1 ||
			"$CUBICCTL" unload --name "$inst" --force >/dev/null 2>&1 ||
			echo "bench.sh: could not unload $inst" >&2
	done
	if [ "$FLOOR_REG" = 1 ]; then
		bpftool struct_ops unregister name "$FLOOR_MAP" >/dev/null 2>&1 ||
			echo "bench.sh: could not unregister ${CC[floor]} (bpftool struct_ops unregister name $FLOOR_MAP)" >&2
	fi
	if [ "$STATS_TOUCHED" = 1 ]; then
		echo "$STATS_PREV" >"$STATS_SYSCTL" 2>/dev/null ||
			echo "bench.sh: could not restore kernel.bpf_stats_enabled=$STATS_PREV" >&2
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "bench.sh: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

stats_on() {
	STATS_TOUCHED=1
	echo 1 >"$STATS_SYSCTL"
}

stats_restore() {
	echo "$STATS_PREV" >"$STATS_SYSCTL"
}

# ---------------------------------------------------------------- setup

mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

# 256 flows: 2 x 257 sockets per side, plus the control connections.
if [ "$NOFILE_PREV" != unlimited ] && [ "$NOFILE_PREV" -lt 4096 ]; then
	ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fi

setup_netns() {
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add veth0 netns "$NS_A" type veth peer name veth0 netns "$NS_B"
	ip -n "$NS_A" addr add "$ADDR_A/24" dev veth0
	ip -n "$NS_B" addr add "$ADDR_B/24" dev veth0
	for ns in "$NS_A" "$NS_B"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set veth0 up
		# the host default (bbr) would turn pacing on before iperf3's -C
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=reno
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 67108864"
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 131072 67108864"
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
		if [ "$OFFLOAD" = off ]; then
			ip netns exec "$ns" ethtool -K veth0 tso off gso off gro off >/dev/null 2>&1 ||
				die "ethtool -K veth0 tso off gso off gro off failed"
		fi
	done
}

# One iperf3 server per MAX_P flows, each on its own port.
start_servers() {
	local n=$1 i port
	for ((i = 0; i < n; i++)); do
		port=$((PORT0 + i))
		ip netns exec "$NS_B" iperf3 -s -D -p "$port" -I "$TMP/srv$port.pid" >/dev/null
	done
	for ((i = 0; i < n; i++)); do
		port=$((PORT0 + i))
		for _ in $(seq 100); do
			ip netns exec "$NS_B" ss -Hltn "sport = :$port" | grep -q . && continue 2
			sleep 0.1
		done
		die "the iperf3 server on port $port did not start"
	done
}

# resolve_progs INSTANCE: the ids of the instance's struct_ops programs, as
# "name=id" lines in $TMP/progs.INSTANCE: from its pinned struct_ops map
# (bpftool 7.1's JSON dump is two objects joined by a comma). Either datapath
# has one program per ACK: bc_pkts_acked (exact) or bc_cong_control (fast).
resolve_progs() {
	local inst=$1 map_id
	map_id=$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$inst/ops" | jq -r .id)
	[[ $map_id =~ ^[0-9]+$ ]] || die "cannot find the struct_ops map of $inst"
	{ echo '['; bpftool -j struct_ops dump id "$map_id"; echo ']'; } |
		jq -r '.[] | select(has("bpf_struct_ops_tcp_congestion_ops"))
			| .bpf_struct_ops_tcp_congestion_ops.data | to_entries[]
			| select(.value | type == "string")
			| .value | capture("(?<n>[A-Za-z0-9_]+)/prog_id:(?<id>[0-9]+)$")
			| "\(.n)=\(.id)"' >"$TMP/progs.$inst"
	grep -Eq '^(bc_pkts_acked|bc_cong_control)=' "$TMP/progs.$inst" ||
		die "neither bc_pkts_acked nor bc_cong_control in the struct_ops map of $inst"
}

# Sum of user+nice+system+irq+softirq ticks of all CPUs (/proc/stat).
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}
CLK_TCK=$(getconf CLK_TCK)

# Impossible windows (docs/IMPOSSIBLE_WINDOWS.md): during every run,
# tools/soak/tcpwatch.py polls TCP_INFO of the sender's sockets (every 0.2 s,
# on a CPU the iperf3 processes are not pinned to) and the run fails on an
# ssthresh > 0x7fffffff (TCP_INFINITE_SSTHRESH) or a cwnd above WINDOW_BOUND;
# so does an iperf3 max_snd_cwnd above it. An unshaped veth has no BDP: what a
# flow can have in flight is bounded by its send buffer, tcp_wmem's maximum
# (67108864 bytes, setup_netns) / 1448; the bound is 4 x that + 100 packets,
# as for an emulated path's 4 x (BDP + buffer) + 100 (tools/eval/analyze.py).
TCPWATCH=$REPO/tools/soak/tcpwatch.py
WINDOW_BOUND=${BENCH_WINDOW_BOUND:-$(( 4 * 67108864 / 1448 + 100 ))} # the env: tests only
WATCH_CPU=
if [ -n "$CPUS" ] && [ "$(nproc)" -gt 1 ]; then
	for ((c = 0; c < $(nproc); c++)); do
		[ "$c" = "${CPUS%,*}" ] || [ "$c" = "${CPUS#*,}" ] || { WATCH_CPU=$c; break; }
	done
fi

watch_start() { # LABEL
	local pin=()
	[ -z "$WATCH_CPU" ] || pin=(taskset -c "$WATCH_CPU")
	ip netns exec "$NS_A" "${pin[@]}" /usr/bin/python3 "$TCPWATCH" --bound "$WINDOW_BOUND" \
		--interval 0.2 --label "$1" >"$TMP/watch.out" 2>&1 &
	WATCH_PID=$!
	# on (signal handlers set, first poll done) before the flows start
	for _ in $(seq 100); do
		grep -q 'watching' "$TMP/watch.out" 2>/dev/null && return 0
		kill -0 "$WATCH_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMP/watch.out" >&2
	die "tools/soak/tcpwatch.py did not start"
}

watch_stop() { # LABEL
	local wrc=0
	kill -TERM "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID" || wrc=$?
	WATCH_PID=
	if [ "$wrc" != 0 ]; then
		grep -a 'IMPOSSIBLE WINDOW' "$TMP/watch.out" >&2 || cat "$TMP/watch.out" >&2
		die "impossible window during $1 (docs/IMPOSSIBLE_WINDOWS.md)"
	fi
}

# run_iperf ALGO FLOWS KIND INDEX: one run; appends to $TMP/runs.tsv
#   kind algo flows index bps bytes seconds retrans proc_cpu_s sys_cpu_s
run_iperf() {
	local algo=$1 flows=$2 kind=$3 idx=$4 k i per rc=0 t0 t1 f err maxc
	local -a pids=()
	k=$(((flows + MAX_P - 1) / MAX_P))
	watch_start "$algo -P $flows"
	t0=$(busy_ticks)
	for ((i = 0; i < k; i++)); do
		per=$((flows / k + (i < flows % k ? 1 : 0)))
		timeout $((DURATION + 60)) ip netns exec "$NS_A" \
			iperf3 -c "$ADDR_B" -p $((PORT0 + i)) -t "$DURATION" -C "$algo" -P "$per" ${CPUS:+-A "$CPUS"} -J \
			>"$TMP/c$i.json" 2>"$TMP/c$i.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=$?
	done
	t1=$(busy_ticks)
	watch_stop "iperf3 -C $algo -P $flows"
	for ((i = 0; i < k; i++)); do
		f=$TMP/c$i.json
		err=$(jq -r '.error // empty' "$f" 2>/dev/null || echo "no JSON from iperf3: $(head -c 300 "$TMP/c$i.err")")
		[ -z "$err" ] || die "iperf3 -C $algo -P $flows: $err"
		[ "$(jq -r '.end.sender_tcp_congestion' "$f")" = "$algo" ] ||
			die "iperf3 -C $algo ran on $(jq -r '.end.sender_tcp_congestion' "$f")"
		maxc=$(jq '[(.end.streams // [])[].sender.max_snd_cwnd?, (.intervals // [])[].streams[]?.snd_cwnd?]
			| map(select(. != null)) | (max // 0) / 1448 | floor' "$f")
		[ "$maxc" -le "$WINDOW_BOUND" ] ||
			die "IMPOSSIBLE WINDOW: iperf3 -C $algo -P $flows: snd_cwnd $maxc packets > bound $WINDOW_BOUND (docs/IMPOSSIBLE_WINDOWS.md)"
	done
	[ "$rc" -eq 0 ] || die "iperf3 -C $algo -P $flows exited with $rc"
	for ((i = 0; i < k; i++)); do
		jq -r '.end | [.sum_received.bits_per_second, .sum_sent.bytes, .sum_sent.seconds,
			(.sum_sent.retransmits // 0),
			((.cpu_utilization_percent.host_total + .cpu_utilization_percent.remote_total)
			 / 100 * .sum_sent.seconds)] | @tsv' "$TMP/c$i.json"
	done | awk -v kind="$kind" -v algo="$algo" -v flows="$flows" -v idx="$idx" \
		-v busy=$((t1 - t0)) -v hz="$CLK_TCK" '
		{ bps += $1; bytes += $2; if ($3 > sec) sec = $3; rtx += $4; cpu += $5 }
		END { printf "%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.3f\t%d\t%.3f\t%.3f\n",
			kind, algo, flows, idx, bps, bytes, sec, rtx, cpu, busy / hz }' >>"$TMP/runs.tsv"
	tail -n 1 "$TMP/runs.tsv"
}

# prog_stats INSTANCE: cumulative run_time_ns and run_cnt of the instance's
# programs: "name ns cnt" lines.
prog_stats() {
	local ids
	ids=$(cut -d= -f2 "$TMP/progs.$1" | paste -sd, -)
	bpftool -j prog show | jq -r --argjson ids "[$ids]" \
		'.[] | select(.id as $i | $ids | index($i)) | "\(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# stats_run INSTANCE FLOWS TAG: one run of the instance with bpf_stats on; writes
# $TMP/stats.TAG ("name calls ns" per program) and $TMP/stats.TAG.run (the run).
stats_run() {
	local inst=$1 flows=$2 tag=$3
	resolve_progs "$inst"
	stats_on
	prog_stats "$inst" | sort >"$TMP/before"
	run_iperf "$inst" "$flows" "stats-$tag" 1 >"$TMP/stats.$tag.run"
	prog_stats "$inst" | sort >"$TMP/after"
	stats_restore
	join "$TMP/before" "$TMP/after" | awk '{ print $1, $5 - $3, $4 - $2 }' >"$TMP/stats.$tag"
}

# The program that runs once per ACK in stats run TAG: bc_cong_control if the
# instance has it (fast datapath), else bc_pkts_acked (exact).
ack_prog() {
	awk '$1 == "bc_cong_control" { f = 1 } END { print f ? "bc_cong_control" : "bc_pkts_acked" }' "$TMP/stats.$1"
}

# ns per ACK = sum of run_time_ns deltas / run_cnt delta of the per-ACK program
ns_per_ack() {
	awk -v ack="$(ack_prog "$1")" '{ ns += $3 } $1 == ack { acks = $2 }
		END { if (acks > 0) printf "%.0f", ns / acks; else printf "n/a" }' "$TMP/stats.$1"
}

acks_per_s() {
	awk -v sec="$(cut -f7 "$TMP/stats.$1.run")" -v ack="$(ack_prog "$1")" \
		'$1 == ack { printf "%.0f", $2 / sec }' "$TMP/stats.$1"
}

# Share of the run's iperf3 process CPU time (sender + receiver) spent in our programs.
bpf_cpu_share() {
	awk -v cpu="$(cut -f9 "$TMP/stats.$1.run")" '{ ns += $3 }
		END { if (cpu > 0) printf "%.1f%%", 100 * ns / (cpu * 1e9); else printf "n/a" }' "$TMP/stats.$1"
}

# median/min/max of the numbers on stdin
mmm() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan nan nan"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

# column COL of runs of KIND and ALGO (cubic, exact or fast), in run order
col() {
	awk -F'\t' -v k="$1" -v a="${CC[$2]}" -v c="$3" '$1 == k && $2 == a { print $c }' "$TMP/runs.tsv"
}

# per-round ratios of goodput DATAPATH/cubic for KIND: ratios KIND DATAPATH
# A distribution-free 95 % confidence interval of the median of the numbers on
# stdin: the k-th smallest and k-th largest, k the largest rank with
# P(Binomial(n, 1/2) < k) <= 2.5 % (n = 30: the 10th and 21st, 95.7 %);
# "n/a" when n is too small for any (n < 6).
median_ci() {
	sort -g | awk '{ v[NR] = $1 } END {
		n = NR; b = 1; p = 2 ^ -n; c = 0; k = 0
		for (i = 0; i < n; i++) {
			if (c + b * p > 0.025) break
			c += b * p; k = i + 1; b = b * (n - i) / (i + 1)
		}
		if (k < 1) { print "n/a"; exit }
		printf "%.3f-%.3f\n", v[k], v[n - k + 1] }'
}

ratios() {
	paste <(col "$1" "$2" 5) <(col "$1" cubic 5) | awk '$2 > 0 { printf "%.6f\n", $1 / $2 }'
}

# CPU seconds per GB (1e9 bytes) sent, per run: COL 9 (process) or 10 (system)
cpu_per_gb() {
	awk -F'\t' -v k="$1" -v a="${CC[$2]}" -v c="$3" '$1 == k && $2 == a && $6 > 0 { printf "%.4f\n", $c / ($6 / 1e9) }' "$TMP/runs.tsv"
}

# rotated N WORDS...: the words, starting at word N (mod their number); a
# round's run order, so that no algorithm always runs first or right after another
rotated() {
	local n=$1 i
	shift
	for ((i = 0; i < $#; i++)); do
		echo "${@:$(((i + n) % $# + 1)):1}"
	done
}

gbps() { awk '{ printf "%.2f %.2f %.2f\n", $1 / 1e9, $2 / 1e9, $3 / 1e9 }'; }
f3() { awk '{ printf "%.3f %.3f %.3f\n", $1, $2, $3 }'; }

# Tcp InSegs of the sender's namespace: the ACKs it received.
# shellcheck disable=SC2016 # the $ are awk's
in_segs() {
	ip netns exec "$NS_A" awk '$1 == "Tcp:" && !h { for (i = 1; i <= NF; i++) f[$i] = i; h = 1; next }
		$1 == "Tcp:" { print $f["InSegs"] }' /proc/net/snmp
}

# perf can sample the kernel here (software cpu-clock: VMs often have no PMU)
perf_works() {
	command -v perf >/dev/null &&
		perf record -q -e cpu-clock -a -o "$TMP/probe.data" -- sleep 0.1 >/dev/null 2>&1
}

PERF_FREQ=10000
PERF_RUNS=2
# perf_run ALGO: one run of ALGO (cubic, exact or fast) under system-wide
# cpu-clock sampling (bpf_stats as before); appends to $TMP/perf.ALGO "total
# native body tramp acks sec bps other": samples whose 4 innermost frames hold
# the kernel's cubic (cubictcp_*, bictcp_*), one of our programs of either
# datapath (bpf_prog_*_bc_*: bc_pkts_acked, bc_cong_control, ...), or the struct_ops
# trampoline (__bpf_prog_enter/exit* or unnamed code, under a tcp_* caller),
# counted only in the processes of our namespaces (the TCP receive path runs
# in softirq, on veth in the context of the process that sent the packet);
# "other" counts such samples elsewhere (other flows, ksoftirqd).
perf_run() {
	local algo=${CC[$1]} tag=$1 a0 a1 job pids
	log "perf profile: $algo"
	perf record -q -e cpu-clock -F "$PERF_FREQ" -a -g -o "$TMP/perf.$tag.data" >/dev/null 2>"$TMP/perf.$tag.err" &
	PERF_PID=$!
	sleep 0.5
	a0=$(in_segs)
	run_iperf "$algo" 1 "perf-$tag" 1 >"$TMP/perf.$tag.run" &
	job=$!
	sleep 0.5
	pids=$({ ip netns pids "$NS_A"; ip netns pids "$NS_B"; } | paste -sd, -)
	wait "$job" || die "the profiled run of $algo failed"
	show_run <"$TMP/perf.$tag.run" | sed 's/^/bench: /' >&2
	a1=$(in_segs)
	kill -INT "$PERF_PID"
	wait "$PERF_PID" || true
	PERF_PID=
	perf script -i "$TMP/perf.$tag.data" -F pid,ip,sym --max-stack 4 2>/dev/null | awk -v acks=$((a1 - a0)) \
		-v sec="$(cut -f7 "$TMP/perf.$tag.run")" -v bps="$(cut -f5 "$TMP/perf.$tag.run")" -v pids="$pids" '
		BEGIN { RS = ""; FS = "\n"; np = split(pids, p, ","); for (i = 1; i <= np; i++) ours[p[i]] = 1 }
		{
			total++; n = 0; cls = ""; tcp = 0
			split($1, h, " ")
			for (i = 2; i <= NF && n < 4; i++) { split($i, f, " "); if (f[2] != "") s[++n] = f[2] }
			for (i = 1; i <= n; i++) if (s[i] ~ /^_*tcp_/) tcp = 1
			for (i = 1; i <= n && cls == ""; i++) {
				if (s[i] ~ /^(cubictcp_|bictcp_|tcp_reno_)/) cls = "native"
				else if (s[i] ~ /^bpf_prog_[0-9a-f]+_bc_/) cls = "body"
				else if (tcp && (s[i] ~ /^__bpf_prog_(enter|exit)/ || s[i] == "[unknown]")) cls = "tramp"
			}
			if (cls != "") { if (h[1] in ours) c[cls]++; else other++ }
			delete s
		}
		END { print total + 0, c["native"] + 0, c["body"] + 0, c["tramp"] + 0, acks, sec, bps, other + 0 }' >>"$TMP/perf.$tag"
	rm -f "$TMP/perf.$tag.data"
}

# ns per ACK of sample classes FIELDS (2 native, 3 body, 4 tramp; "3 4" sums)
# over the runs in $TMP/perf.TAG
# shellcheck disable=SC2317 # called from the report's cells
perf_ns() {
	awk -v fr="$PERF_FREQ" -v flds="$2" 'BEGIN { n = split(flds, f, " ") }
		{ for (i = 1; i <= n; i++) smp += $(f[i]); acks += $5 }
		END { printf "%.0f", (acks > 0 ? smp * 1e9 / fr / acks : 0) }' "$TMP/perf.$1"
}

# sum of column COL over the runs in $TMP/perf.TAG
# shellcheck disable=SC2317 # called from the report's cells
perf_sum() {
	awk -v c="$2" '{ s += $c } END { printf "%.0f", s }' "$TMP/perf.$1"
}

# ---------------------------------------------------------------- the runs

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
OTHER_CC=$(bpftool -j struct_ops show 2>/dev/null | jq '[.[] | select(.kernel_struct_ops == "tcp_congestion_ops")] | length' || echo "?")
log "datapaths $DATAPATHS (instances$(for d in $DATAPATHS; do printf ' %s' "${CC[$d]}"; done)), namespaces $NS_A/$NS_B," \
	"$RUNS rounds x ${DURATION}s of $ALGOS"
setup_netns
max_k=1
for p in $FLOWS; do
	k=$(((p + MAX_P - 1) / MAX_P))
	[ "$k" -le "$max_k" ] || max_k=$k
done
start_servers "$max_k"
for d in $DATAPATHS; do
	LOADED+=("${CC[$d]}")
	"$CUBICCTL" load --name "${CC[$d]}" --datapath "$d" >/dev/null
	resolve_progs "${CC[$d]}"
done
: >"$TMP/runs.tsv"

log "warm-up (1 s, cubic, discarded)"
save_duration=$DURATION
DURATION=1
run_iperf cubic 1 warmup 0 >/dev/null
DURATION=$save_duration

show_run() {
	awk -F'\t' '{ printf "%-8s %-16s P=%-4s %6.2f Gbit/s  retrans %d\n", $1, $2, $3, $5 / 1e9, $8 }'
}

# Round r runs each algorithm once, starting with the (r-1)-th (mod 1 + datapaths).
for ((r = 1; r <= RUNS; r++)); do
	for a in $(rotated $((r - 1)) "${ALGO_LIST[@]}"); do
		run_iperf "${CC[$a]}" 1 main "$r" | show_run | sed "s/^/bench: round $r\/$RUNS /" >&2
		sleep 0.3
	done
done

HAVE_TRACE=0
! "$CUBICCTL" trace --help >/dev/null 2>&1 || HAVE_TRACE=1
declare -A TRACE_NOTE=()
for d in $DATAPATHS; do
	log "bpf_stats run, $d, 1 flow"
	stats_run "${CC[$d]}" 1 "$d.p1"
	show_run <"$TMP/stats.$d.p1.run" | sed 's/^/bench: /' >&2
	if [ "$HAVE_TRACE" = 0 ]; then
		TRACE_NOTE[$d]="n/a (no trace command)"
		continue
	fi
	log "bpf_stats run, $d, 1 flow, cubicctl trace running"
	"$CUBICCTL" trace --name "${CC[$d]}" --json >/dev/null 2>"$TMP/trace.err" &
	TRACE_PID=$!
	sleep 1
	if kill -0 "$TRACE_PID" 2>/dev/null; then
		stats_run "${CC[$d]}" 1 "$d.trace"
		kill -INT "$TRACE_PID" 2>/dev/null || true
		wait "$TRACE_PID" 2>/dev/null || true
		TRACE_PID=
	else
		wait "$TRACE_PID" 2>/dev/null || true
		TRACE_PID=
		TRACE_NOTE[$d]="n/a (cubicctl trace exited: $(head -n 1 "$TMP/trace.err"))"
	fi
done

PERF_NOTE=
if [ "$PERF" = 1 ] && perf_works; then
	for ((r = 1; r <= PERF_RUNS; r++)); do
		for a in $(rotated $((r - 1)) "${ALGO_LIST[@]}"); do
			perf_run "$a"
			sleep 0.3
		done
	done
elif [ "$PERF" = 1 ]; then
	PERF_NOTE="perf cannot sample here (perf record -e cpu-clock -a failed)"
fi

if [ "$FLOOR" = 1 ] && [ -z "$PERF_NOTE" ]; then
	log "dispatch floor: kernel reno against ${CC[floor]}"
	FLOOR_REG=1
	bpftool struct_ops register "$FLOOR_OBJ" >/dev/null || die "bpftool struct_ops register $FLOOR_OBJ failed"
	for ((r = 1; r <= PERF_RUNS; r++)); do
		for a in $(rotated $((r - 1)) reno floor); do
			perf_run "$a"
			sleep 0.3
		done
	done
	bpftool struct_ops unregister name "$FLOOR_MAP" >/dev/null || die "could not unregister ${CC[floor]}"
	FLOOR_REG=0
fi

for p in $FLOWS; do
	[ "$p" -ne 1 ] || continue
	for ((r = 1; r <= FLOW_RUNS; r++)); do
		for a in $(rotated $((r - 1)) "${ALGO_LIST[@]}"); do
			run_iperf "${CC[$a]}" "$p" "flows$p" "$r" | show_run | sed "s/^/bench: round $r\/$FLOW_RUNS /" >&2
			sleep 0.5
		done
	done
	for d in $DATAPATHS; do
		log "bpf_stats run, $d, $p flows"
		stats_run "${CC[$d]}" "$p" "$d.p$p"
		sleep 0.5
	done
done

# ---------------------------------------------------------------- the report

# Medians (and min, max) per algorithm and per datapath.
declare -A G_MED G_MIN G_MAX R_MED R_MIN R_MAX R_CI CP CS RT NS_ACK NS_ACK_TRACE
for a in "${ALGO_LIST[@]}"; do
	read -r m lo hi < <(col main "$a" 5 | mmm | gbps)
	G_MED[$a]=$m G_MIN[$a]=$lo G_MAX[$a]=$hi
	read -r m _ _ < <(cpu_per_gb main "$a" 9 | mmm)
	CP[$a]=$m
	read -r m _ _ < <(cpu_per_gb main "$a" 10 | mmm)
	CS[$a]=$m
	read -r m _ _ < <(col main "$a" 8 | mmm)
	RT[$a]=$m
done
for d in $DATAPATHS; do
	read -r m lo hi < <(ratios main "$d" | mmm | f3)
	R_MED[$d]=$m R_MIN[$d]=$lo R_MAX[$d]=$hi
	R_CI[$d]=$(ratios main "$d" | median_ci)
	NS_ACK[$d]=$(ns_per_ack "$d.p1")
	NS_ACK_TRACE[$d]=${TRACE_NOTE[$d]:-$(ns_per_ack "$d.trace")}
done

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
HYPER=$(lscpu 2>/dev/null | awk -F': *' '/^Hypervisor vendor/ { print ", " $2 " guest" }')
COMMIT=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$REPO" status --porcelain -- bpf include src 2>/dev/null)" ]; then
	COMMIT="$COMMIT (bpf/, include/ or src/ modified)"
fi

ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }

# per_algo CMD ARGS...: " X | Y | Z |", X = CMD ARGS cubic, Y = CMD ARGS exact, ...
per_algo() {
	local a
	for a in "${ALGO_LIST[@]}"; do printf ' %s |' "$("$@" "$a")"; done
}
# per_dp CMD ARGS...: the same over the datapaths only
per_dp() {
	local d
	for d in $DATAPATHS; do printf ' %s |' "$("$@" "$d")"; done
}
# per_dp_slash CMD ARGS...: "X / Y", X = CMD ARGS exact, Y = CMD ARGS fast
per_dp_slash() {
	local d sep=
	for d in $DATAPATHS; do printf '%s%s' "$sep" "$("$@" "$d")"; sep=' / '; done
}
# The cells of the perf table (p_*) and of the many-flows table (f_*), called
# through per_algo and per_dp: the algorithm comes last.
# shellcheck disable=SC2317
{
	p_ns() { perf_ns "$2" "$1"; }
	p_bold() { printf '**%s**' "$(perf_ns "$2" "$1")"; }
	p_sum() { perf_sum "$2" "$1"; }
	p_counted() { printf '%s + %s + %s / %s' "$(perf_sum "$1" 2)" "$(perf_sum "$1" 3)" "$(perf_sum "$1" 4)" "$(perf_sum "$1" 1)"; }
	p_gbps() { awk '{ s += $7 } END { printf "%.2f", s / NR / 1e9 }' "$TMP/perf.$1"; }
	f_gbps() { col "$1" "$2" 5 | mmm | gbps | cut -d' ' -f1; }
	f_ratio() { ratios "$1" "$2" | mmm | f3 | cut -d' ' -f1; }
	f_ns() { ns_per_ack "$2.$1"; }
	f_acks() { acks_per_s "$2.$1"; }
	f_share() { bpf_cpu_share "$2.$1"; }
}
fmt3() { printf '%.3f' "$1"; }

# instances and the labels of the columns
INSTANCES=$(for d in $DATAPATHS; do echo "${CC[$d]} ($d datapath)"; done | paste -sd, - | sed 's/,/, /g')
DP_SLASH=${DATAPATHS// / \/ }
ALGO_LABELS=$(for a in "${ALGO_LIST[@]}"; do echo "${LABEL[$a]% (kernel)}"; done | paste -sd/ - | sed 's|/| / |g')

{
	echo "## bpf_cubic datapath benchmark"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "- kernel: $(uname -r) ($(uname -m))"
	echo "- CPU: $CPU_MODEL, $(nproc) CPUs$HYPER"
	echo "- command: \`$CMDLINE\`"
	echo "- source: $COMMIT; iperf3 $(iperf3 --version | awk 'NR == 1 { print $2 }'), bpftool $(bpftool version | awk 'NR == 1 { print $2 }')"
	echo "- path: two namespaces, one veth pair, no shaping (CPU-bound), namespace default reno," \
		"tcp_rmem/tcp_wmem max 64 MiB, TSO/GSO/GRO $OFFLOAD; instances $INSTANCES with default tunables;" \
		"$(if [ -n "$CPUS" ]; then echo "iperf3 client on CPU ${CPUS%,*}, server on CPU ${CPUS#*,}"; else echo "iperf3 not pinned"; fi)"
	echo "- machine load: loadavg $LOAD_START at start, $(cut -d' ' -f1-3 /proc/loadavg) at end;" \
		"other tcp_congestion_ops struct_ops maps loaded: $OTHER_CC"
	echo "- runs: $RUNS rounds, ${DURATION} s per run; a round runs $ALGO_LABELS once each," \
		"the order rotating from round to round; kernel.bpf_stats_enabled=$STATS_PREV during goodput runs," \
		"1 only in the bpf_stats runs"
	echo
	echo "### Goodput, 1 flow"
	echo
	echo "| | median | min | max | 95 % CI of the median |"
	echo "|---|---:|---:|---:|---:|"
	for a in "${ALGO_LIST[@]}"; do
		echo "| ${LABEL[$a]}, Gbit/s | ${G_MED[$a]} | ${G_MIN[$a]} | ${G_MAX[$a]} | |"
	done
	for d in $DATAPATHS; do
		echo "| **ratio ${LABEL[$d]} / cubic** (round i / round i) | **${R_MED[$d]}** | ${R_MIN[$d]} | ${R_MAX[$d]} | ${R_CI[$d]} |"
	done
	echo
	echo "Retransmitted segments per run (median): $(for a in "${ALGO_LIST[@]}"; do
		echo "${LABEL[$a]% (kernel)} ${RT[$a]}"; done | paste -sd, - | sed 's/,/, /g')."
	echo
	printf '| round |'
	for a in "${ALGO_LIST[@]}"; do printf ' %s Gbit/s |' "$a"; done
	for d in $DATAPATHS; do printf ' %s / cubic |' "$d"; done
	for a in "${ALGO_LIST[@]}"; do printf ' %s CPU s/GB |' "$a"; done
	echo
	printf '|---:|'
	for _ in "${ALGO_LIST[@]}" $DATAPATHS "${ALGO_LIST[@]}"; do printf -- '---:|'; done
	echo
	for a in "${ALGO_LIST[@]}"; do
		col main "$a" 5 >"$TMP/round.g.$a"
		cpu_per_gb main "$a" 9 >"$TMP/round.c.$a"
	done
	paste "${ALGO_LIST[@]/#/$TMP/round.g.}" "${ALGO_LIST[@]/#/$TMP/round.c.}" |
		awk -v n="${#ALGO_LIST[@]}" '{
			printf "| %d |", NR
			for (i = 1; i <= n; i++) printf " %.2f |", $i / 1e9
			for (i = 2; i <= n; i++) printf " %s |", ($1 > 0 ? sprintf("%.3f", $i / $1) : "n/a")
			for (i = n + 1; i <= 2 * n; i++) printf " %.3f |", $i
			print ""
		}'
	echo
	echo "### CPU time per GB sent (1 flow, median of runs)"
	echo
	echo "| CPU seconds per 10^9 bytes |$(for a in "${ALGO_LIST[@]}"; do printf ' %s |' "$a"; done)$(
		for d in $DATAPATHS; do printf ' %s / cubic |' "$d"; done)"
	echo "|---|$(for _ in "${ALGO_LIST[@]}" $DATAPATHS; do printf -- '---:|'; done)"
	for v in CP CS; do
		declare -n cpu=$v
		if [ "$v" = CP ]; then
			printf '%s' "| iperf3 processes (sender + receiver, \`cpu_utilization_percent\` host_total + remote_total) |"
		else
			printf '%s' "| whole machine (\`/proc/stat\` user+nice+system+irq+softirq, all CPUs, other tenants included) |"
		fi
		for a in "${ALGO_LIST[@]}"; do printf ' %.3f |' "${cpu[$a]}"; done
		for d in $DATAPATHS; do printf ' %s |' "$(ratio_of "${cpu[$d]}" "${cpu[cubic]}")"; done
		echo
		declare +n cpu
	done
	for d in $DATAPATHS; do
		ack=$(ack_prog "$d.p1")
		echo
		echo "### BPF run time per callback, ${LABEL[$d]} (bpf_stats, one ${DURATION} s run of ${CC[$d]}, 1 flow)"
		echo
		echo "| program | calls | calls per ACK | ns per call | ns per ACK |"
		echo "|---|---:|---:|---:|---:|"
		awk -v ack="$ack" '$1 == ack { acks = $2 } { n[NR] = $1; c[NR] = $2; t[NR] = $3 }
			END {
				# the per-ACK program first, then the other callbacks of either datapath
				split(ack " bc_cong_avoid bc_cwnd_event bc_cwnd_event_fast bc_set_state bc_set_state_fast" \
					" bc_recalc_ssthresh bc_undo_cwnd bc_init bc_release", order)
				for (o = 1; o in order; o++)
					for (i = 1; i <= NR; i++)
						if (n[i] == order[o] && !done[i]) { row(i); done[i] = 1 }
				for (i = 1; i <= NR; i++)
					if (!done[i]) row(i)
				printf "| **all programs** | %d | %.3f | | **%.0f** |\n", tc, acks ? tc / acks : 0, acks ? tt / acks : 0
			}
			function row(i) {
				tc += c[i]; tt += t[i]
				printf "| %s | %d | %.3f | %s | %.1f |\n", n[i], c[i], acks ? c[i] / acks : 0,
					c[i] ? sprintf("%.0f", t[i] / c[i]) : "-", acks ? t[i] / acks : 0
			}' "$TMP/stats.$d.p1"
		echo
		if [ "$ack" = bc_cong_control ]; then
			printf '%s' "ACK = one call of bc_cong_control: the kernel calls cong_control once per ACK" \
				" that reaches tcp_cong_control."
		else
			printf '%s' "ACK = one call of bc_pkts_acked (the kernel calls pkts_acked once per incoming ACK" \
				" that reaches tcp_clean_rtx_queue)."
		fi
		echo " ns per ACK = sum of run_time_ns over all programs / $ack run_cnt." \
			"$(acks_per_s "$d.p1") ACKs/s; our programs took $(bpf_cpu_share "$d.p1") of the iperf3" \
			"processes' CPU time in that run. run_time_ns spans the program from the trampoline's clock" \
			"read to the next one, so it includes one sched_clock() call per program run and leaves out" \
			"the rest of the trampoline."
	done
	echo
	echo "### With tracing"
	echo
	echo "| ns per ACK | no trace | \`cubicctl trace --name NAME --json > /dev/null\` running |"
	echo "|---|---:|---:|"
	for d in $DATAPATHS; do
		echo "| ${LABEL[$d]} | ${NS_ACK[$d]} | ${NS_ACK_TRACE[$d]} |"
	done
	if [ "$PERF" = 1 ]; then
		echo
		echo "### Where the time goes: perf profile (1 flow, $PERF_RUNS runs of each, bpf_stats off)"
		echo
		if [ -n "$PERF_NOTE" ]; then
			echo "n/a: $PERF_NOTE."
		else
			echo "| ns per ACK |$(for a in "${ALGO_LIST[@]}"; do printf ' %s runs |' "$a"; done)"
			echo "|---|$(for _ in "${ALGO_LIST[@]}"; do printf -- '---:|'; done)"
			echo "| kernel cubic (\`cubictcp_*\`, \`bictcp_*\` and what they call) |$(per_algo p_ns 2)"
			echo "| bpf_cubic programs (\`bpf_prog_*_bc_*\` and what they call) |$(per_algo p_ns 3)"
			echo "| struct_ops trampoline (\`__bpf_prog_enter/exit\`, the trampoline code) |$(per_algo p_ns 4)"
			echo "| **congestion control, total** |$(per_algo p_bold "2 3 4")"
			echo "| samples counted (cubic + programs + trampoline) / all samples |$(per_algo p_counted)"
			echo "| such samples outside our namespaces' processes (not counted) |$(per_algo p_sum 8)"
			echo "| ACKs (Tcp InSegs of the sender) |$(per_algo p_sum 5)"
			echo "| goodput while profiled, Gbit/s (mean) |$(per_algo p_gbps)"
			echo
			echo "\`perf record -e cpu-clock -F $PERF_FREQ -a -g\`; a sample counts when it was taken in a process" \
				"of our two namespaces (on veth, the TCP receive path runs in softirq in the context of" \
				"the process that sent the packet) and one of its 4 innermost frames is the kernel's cubic," \
				"a bpf_cubic program or the struct_ops trampoline under a tcp_* caller;" \
				"ns per ACK = samples x $((1000000000 / PERF_FREQ)) ns / ACKs. This costs nothing per call" \
				"(bpf_stats does) and sees the kernel's cubic the same way as ours. The kernel cubic row" \
				"should be 0 in the bpf_cubic columns, and the bpf_cubic rows 0 in the cubic column." \
				"The exact datapath goes through the trampoline twice per ACK (pkts_acked, cong_avoid), the" \
				"fast one once (cong_control); the fast datapath's programs also do what tcp_cong_control()" \
				"does around cong_avoid for the others (PRR in recovery, the pacing rate), which for cubic" \
				"and exact is kernel code outside these rows."
		fi
		if [ "$FLOOR" = 1 ] && [ -z "$PERF_NOTE" ]; then
			echo
			echo "### The dispatch floor: the kernel's reno against a BPF Reno of kfunc calls (perf, $PERF_RUNS runs of each)"
			echo
			echo "| ns per ACK | reno (kernel) | ${CC[floor]} (BPF) |"
			echo "|---|---:|---:|"
			echo "| Reno itself (\`tcp_reno_*\`) | $(perf_ns reno 2) | $(perf_ns floor 2) |"
			echo "| BPF programs (\`bpf_prog_*_bc_floor_*\`) | $(perf_ns reno 3) | $(perf_ns floor 3) |"
			echo "| struct_ops trampoline | $(perf_ns reno 4) | $(perf_ns floor 4) |"
			echo "| **total** | **$(perf_ns reno "2 3 4")** | **$(perf_ns floor "2 3 4")** |"
			echo "| ACKs (Tcp InSegs of the sender) | $(perf_sum reno 5) | $(perf_sum floor 5) |"
			echo
			echo "${CC[floor]} (tools/bench/floor.bpf.c) is the cheapest BPF congestion control there is:" \
				"its cong_avoid is one kfunc call to the kernel's own tcp_reno_cong_avoid(). What it costs" \
				"per ACK over the kernel's reno, $(awk -v a="$(perf_ns floor "2 3 4")" -v b="$(perf_ns reno "2 3 4")" 'BEGIN { print a - b }') ns," \
				"is the struct_ops dispatch alone (one trip per ACK): the floor under any BPF congestion" \
				"control on this kernel and machine."
		fi
	fi
	if [ -n "$FLOWS" ]; then
		echo
		echo "### Many flows (iperf3 -P; above 128, several clients and servers)"
		echo
		printf '| flows | runs |'
		for a in "${ALGO_LIST[@]}"; do printf ' %s Gbit/s |' "$a"; done
		for d in $DATAPATHS; do printf ' ratio %s (median of rounds) |' "$d"; done
		for d in $DATAPATHS; do printf ' ns per ACK %s |' "$d"; done
		echo " ACKs/s ($DP_SLASH) | BPF share of process CPU ($DP_SLASH) |"
		echo "|---:|---:|$(for _ in "${ALGO_LIST[@]}" $DATAPATHS $DATAPATHS 1 2; do printf -- '---:|'; done)"
		for p in $FLOWS; do
			if [ "$p" -eq 1 ]; then
				kind=main tag=p1 n=$RUNS
			else
				kind=flows$p tag=p$p n=$FLOW_RUNS
			fi
			echo "| $p | $n |$(per_algo f_gbps "$kind")$(per_dp f_ratio "$kind")$(per_dp f_ns "$tag")" \
				"$(per_dp_slash f_acks "$tag") | $(per_dp_slash f_share "$tag") |"
		done
	fi
} >"$TMP/report.md"

cat "$TMP/report.md"
[ -z "$OUT" ] || cp "$TMP/report.md" "$OUT"

# dp_json DATAPATH: the key figures of one datapath, as a JSON object
dp_json() {
	local d=$1 flows_json
	flows_json=$(for p in $FLOWS; do
		if [ "$p" -eq 1 ]; then kind=main tag=p1; else kind=flows$p tag=p$p; fi
		echo "{\"flows\": $p, \"ratio_median\": $(ratios "$kind" "$d" | mmm | awk '{ print $1 }')," \
			"\"gbps_median\": $(f_gbps "$kind" "$d"), \"ns_per_ack\": \"$(ns_per_ack "$d.$tag")\"}"
	done | jq -s .)
	jq -n --arg name "${CC[$d]}" --arg datapath "$d" --arg ack "$(ack_prog "$d.p1")" \
		--argjson r_med "${R_MED[$d]}" --argjson r_min "${R_MIN[$d]}" --argjson r_max "${R_MAX[$d]}" --arg r_ci "${R_CI[$d]}" \
		--argjson g_med "${G_MED[$d]}" --argjson cp "$(fmt3 "${CP[$d]}")" --argjson cs "$(fmt3 "${CS[$d]}")" \
		--arg ns_ack "${NS_ACK[$d]}" --arg ns_ack_trace "${NS_ACK_TRACE[$d]}" \
		--argjson goodput "[$(col main "$d" 5 | paste -sd, -)]" \
		--argjson flows "$flows_json" \
		'{name: $name, datapath: $datapath, per_ack_program: $ack,
		  ratio: {median: $r_med, min: $r_min, max: $r_max, ci95: $r_ci}, gbps_median: $g_med,
		  goodput_bps: $goodput, cpu_s_per_gb: {processes: $cp, machine: $cs},
		  ns_per_ack: $ns_ack, ns_per_ack_trace: $ns_ack_trace, flows: $flows}'
}

if [ -n "$JSON" ]; then
	dps_json=$(for d in $DATAPATHS; do dp_json "$d" | jq --arg d "$d" '{($d): .}'; done | jq -s 'add')
	# the top-level keys of a bench without datapaths (name, ratio, ...) are the exact datapath's
	jq -n --arg name "$NAME" --arg ns_a "$NS_A" --arg ns_b "$NS_B" \
		--argjson runs "$RUNS" --argjson duration "$DURATION" \
		--argjson datapaths "$(jq -cn --arg d "$DATAPATHS" '$d | split(" ")')" \
		--argjson c_med "${G_MED[cubic]}" --argjson cp "$(fmt3 "${CP[cubic]}")" --argjson cs "$(fmt3 "${CS[cubic]}")" \
		--argjson goodput_cubic "[$(col main cubic 5 | paste -sd, -)]" \
		--argjson dp "$dps_json" \
		'{name: $name, namespaces: [$ns_a, $ns_b], runs: $runs, duration_s: $duration,
		  datapaths: $datapaths,
		  ratio: $dp.exact.ratio,
		  gbps_median: {cubic: $c_med, bpf_cubic: $dp.exact.gbps_median},
		  goodput_bps: {cubic: $goodput_cubic, bpf_cubic: $dp.exact.goodput_bps},
		  ns_per_ack: $dp.exact.ns_per_ack, ns_per_ack_trace: $dp.exact.ns_per_ack_trace,
		  flows: $dp.exact.flows,
		  cubic: {gbps_median: $c_med, goodput_bps: $goodput_cubic,
		          cpu_s_per_gb: {processes: $cp, machine: $cs}}} + $dp' >"$JSON"
fi

rc=0
if [ -n "$MIN_RATIO" ]; then
	for d in $DATAPATHS; do
		if awk -v r="${R_MED[$d]}" -v m="$MIN_RATIO" 'BEGIN { exit !(r < m) }'; then
			echo "bench.sh: median goodput ratio ${LABEL[$d]} / cubic ${R_MED[$d]} is below $MIN_RATIO" >&2
			rc=3
		fi
	done
fi
exit "$rc"
