# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# netns.sh: the one shell helper of tools/ and tests/ for what they create to
# run flows: network namespaces (a veth pair, or pathemu's emulated path),
# iperf3 servers in them, the impossible-window watch over them, the
# processes and bpf_cubic instances they leave to clean up. Sourced by
# tests/integration/lib.bash, tools/bench/bench.sh, tools/eval/run.sh and
# tools/emu/pathemu; safe under set -euo pipefail. Parsing, statistics and
# reports are Python (tools/lib/cubictools), reached here as `cubictools`.

TOOLS_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_TOOLS_REPO=$(cd "$TOOLS_LIB/../.." && pwd)
TOOLS_PY=${TOOLS_PY:-/usr/bin/python3}
CUBICCTL=${CUBICCTL:-$_TOOLS_REPO/cubicctl}
PATHEMU=${PATHEMU:-$_TOOLS_REPO/tools/emu/pathemu}
TCPWATCH=$_TOOLS_REPO/tools/soak/tcpwatch.py
AVAILABLE=/proc/sys/net/ipv4/tcp_available_congestion_control
# tcp_wmem's maximum in a netns_pair namespace: what bounds a flow's window there
NETNS_WMEM_MAX=67108864

# cubictools COMMAND ARGS...: the Python library's command line (no bytecode written)
cubictools() {
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$TOOLS_LIB" "$TOOLS_PY" -B -m cubictools "$@"
}

# ---------------------------------------------------------------- namespaces

netns_exists() {
	[ -e "/run/netns/$1" ]
}

# netns_pair P [NET]: namespaces P-a (NET.1) and P-b (NET.2; NET default
# 10.98.0) joined by one veth pair (veth0 on both sides), no shaping; reno as
# their default (the host default bbr would turn pacing on before iperf3's
# -C), tcp_rmem/tcp_wmem up to NETNS_WMEM_MAX, no metrics saved.
netns_pair() {
	local p=$1 net=${2:-10.98.0} ns
	ip netns add "$p-a"
	ip netns add "$p-b"
	ip link add veth0 netns "$p-a" type veth peer name veth0 netns "$p-b"
	ip -n "$p-a" addr add "$net.1/24" dev veth0
	ip -n "$p-b" addr add "$net.2/24" dev veth0
	for ns in "$p-a" "$p-b"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set veth0 up
		netns_rps_aside "$ns" veth0 || return 1
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=reno \
			net.ipv4.tcp_rmem="4096 131072 $NETNS_WMEM_MAX" \
			net.ipv4.tcp_wmem="4096 131072 $NETNS_WMEM_MAX" \
			net.ipv4.tcp_no_metrics_save=1 >/dev/null
	done
}

# netns_rps_aside NS DEV: DEV's receive processing (where TCP handles the
# ACKs, in softirq) on CPUs 1..n-1 (RPS); pathemu's precision mode steers
# every veth of a path so, and netns_pair its pair. With tools/lib/pid1-aside.sh keeping PID 1 on CPU 0, no ACK of the
# pair is then processed in the context of one of PID 1's threads, where the
# VM platform's kernel skips bpf_cubic's callbacks (docs/IMPOSSIBLE_WINDOWS.md:
# a test-kernels run failed on the host's search-exact flow, cwnd and ssthresh
# 632,841 on a veth pair that was not steered). One CPU: nothing to do.
netns_rps_aside() {
	local n mask
	n=$(nproc --all)
	((n >= 2)) || return 0
	((n <= 32)) || n=32
	mask=$(printf '%x' $(((1 << n) - 2)))
	echo "$mask" | ip netns exec "$1" tee "/sys/class/net/$2/queues/rx-0/rps_cpus" >/dev/null
}

# netns_offloads NS DEV on|off: TSO, GSO and GRO of DEV in NS
netns_offloads() {
	ip netns exec "$1" ethtool -K "$2" tso "$3" gso "$3" gro "$3" >/dev/null 2>&1 ||
		ip netns exec "$1" ethtool -K "$2" tso "$3" gso "$3" gro "$3"
}

# kill_wait [-SIG] PID...: send SIG (default TERM), give them ~3 s to end (an
# exited child is a zombie until its parent waits: that counts as ended),
# then KILL what is left.
kill_wait() {
	local sig=TERM pid stat i left=()
	case ${1:-} in -*) sig=${1#-}; shift ;; esac
	[ $# -gt 0 ] || return 0
	kill -"$sig" "$@" 2>/dev/null || true
	for ((i = 0; i < 60; i++)); do
		left=()
		for pid in "$@"; do
			kill -0 "$pid" 2>/dev/null || continue
			stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
			stat=${stat##*) }
			[ "${stat%% *}" = Z ] || left+=("$pid")
		done
		[ ${#left[@]} -gt 0 ] || return 0
		sleep 0.05
	done
	kill -KILL "${left[@]}" 2>/dev/null || true
}

# netns_del NS...: end every process in the namespaces (kill_wait) and
# delete them; quiet, never fails, nothing to do for a missing one.
netns_del() {
	local ns pids
	for ns in "$@"; do
		netns_exists "$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		# shellcheck disable=SC2086 # one word per pid
		[ -z "$pids" ] || kill_wait $pids
		ip netns del "$ns" 2>/dev/null || true
	done
	return 0
}

# netns_iperf_server NS PORT [IPERF3 OPTIONS...]: an iperf3 server (daemon)
# in NS on PORT, ready when this returns.
netns_iperf_server() {
	local ns=$1 port=$2
	shift 2
	ip netns exec "$ns" iperf3 -s -D -p "$port" "$@" >/dev/null || return 1
	for _ in $(seq 100); do
		ip netns exec "$ns" ss -Hltn "sport = :$port" | grep . >/dev/null && return 0
		sleep 0.1
	done
	echo "the iperf3 server on port $port in $ns did not start" >&2
	return 1
}

# path_up NAME RATE RTT BUFFER [PATHEMU START OPTIONS...]: an emulated path
# (tools/emu/pathemu: NAME-snd, NAME-rtr, NAME-rcv); its BDP and buffer in
# packets land in PATH_BDP and PATH_BUF. path_down NAME: gone, quietly.
path_up() {
	local name=$1 rate=$2 rtt=$3 buf=$4 show
	shift 4
	"$PATHEMU" start --name "$name" --rate "$rate" --rtt "$rtt" --buffer "$buf" "$@" >/dev/null || return 1
	show=$("$PATHEMU" show --name "$name") || return 1
	# shellcheck disable=SC2034 # for the caller
	PATH_BDP=$(sed -n 's/^bdp_pkts=//p' <<<"$show")
	# shellcheck disable=SC2034
	PATH_BUF=$(sed -n 's/^buffer_pkts=//p' <<<"$show")
}

path_down() {
	"$PATHEMU" stop --name "$1" >/dev/null 2>&1 || true
}

# path_release_reset NAME: the path's delay lines (the ACK path's, and a
# trace link's or a policer's on the data path) forget their release errors
# (SIGUSR2), so that the next `pathemu show`'s release_err_* are of what
# crossed since: a flow's or a transfer's (eval and fct check them)
path_release_reset() {
	local d
	for d in delayq link; do
		[ ! -f "/run/pathemu/$1/$d.pid" ] || kill -USR2 "$(cat "/run/pathemu/$1/$d.pid")" 2>/dev/null || true
	done
}

# ---------------------------------------------------------------- impossible windows
# (docs/IMPOSSIBLE_WINDOWS.md) A sample with ssthresh > 0x7fffffff or a cwnd
# above what the path can hold fails the run that saw it, loudly.

# window_bound BDP BUFFER: the largest possible cwnd on an emulated path,
# packets; window_bound_veth: that of a netns_pair path (its send buffer)
window_bound() {
	cubictools bound --bdp "$1" --buffer "$2"
}
window_bound_veth() {
	cubictools bound --send-buffer "$NETNS_WMEM_MAX"
}

# watch_start NS BOUND LABEL [CPU [INTERVAL]]: tools/soak/tcpwatch.py polls
# TCP_INFO of every socket in NS (ssthresh in full, which ss hides above
# 65535) every INTERVAL s (default 0.05), pinned to CPU if one is given; on
# (its first poll done) when this returns 0. Sets WATCH_PID, WATCH_LOG (in
# WATCH_DIR, default TMPDIR). On failure its output is on stderr.
watch_start() {
	local ns=$1 bound=$2 label=$3 cpu=${4:-} interval=${5:-0.05} pin=()
	[ -z "$cpu" ] || pin=(taskset -c "$cpu")
	WATCH_LOG=$(mktemp "${WATCH_DIR:-${TMPDIR:-/tmp}}/tcpwatch.XXXXXX")
	ip netns exec "$ns" "${pin[@]}" "$TOOLS_PY" -B "$TCPWATCH" --bound "$bound" --interval "$interval" \
		--label "$label" >"$WATCH_LOG" 2>&1 &
	WATCH_PID=$!
	for _ in $(seq 100); do
		grep -q 'watching' "$WATCH_LOG" 2>/dev/null && return 0
		kill -0 "$WATCH_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill_wait "$WATCH_PID"
	wait "$WATCH_PID" 2>/dev/null || true
	cat "$WATCH_LOG" >&2
	rm -f "$WATCH_LOG"
	WATCH_PID='' WATCH_LOG=''
	return 1
}

# watch_stop: ends the watch; 1, with its IMPOSSIBLE WINDOW lines on stderr,
# if it saw one.
watch_stop() {
	local rc=0
	kill -TERM "$WATCH_PID" 2>/dev/null || true
	wait "$WATCH_PID" || rc=$?
	if [ "$rc" != 0 ]; then
		grep -a 'IMPOSSIBLE WINDOW' "$WATCH_LOG" >&2 || cat "$WATCH_LOG" >&2
	fi
	rm -f "$WATCH_LOG"
	WATCH_PID='' WATCH_LOG=''
	[ "$rc" = 0 ]
}

# ---------------------------------------------------------------- instances

registered() {
	# not grep -q: under a caller's pipefail its early exit can SIGPIPE tr
	tr ' ' '\n' <"$AVAILABLE" | grep -x "$1" >/dev/null
}

# instance_unload NAME: a bpf_cubic instance unloaded whatever its state (the
# default congestion control, a load cut short); 1 if it could not be.
instance_unload() {
	registered "$1" || [ -e "/sys/fs/bpf/cubicctl/$1" ] || return 0
	"$CUBICCTL" unload --name "$1" >/dev/null 2>&1 ||
		"$CUBICCTL" unload --name "$1" --force >/dev/null 2>&1
}
