# SPDX-License-Identifier: GPL-2.0
# Helpers for the integration suites: throw-away instance names and network
# namespaces of their own, and checks that nothing is left behind.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
CUBICCTL="$REPO/cubicctl"
AVAILABLE=/proc/sys/net/ipv4/tcp_available_congestion_control

# Mount what the tests need, as .ci/run or a fresh machine may not have it.
ensure_fs() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
}

# A test-only instance name (at most 15 characters): bct<pid><rand>.
test_name() {
	printf 'bct%05d%04d' $(( $$ % 100000 )) $(( RANDOM % 10000 ))
}

registered() {
	tr ' ' '\n' <"$AVAILABLE" | grep -qx "$1"
}

# netns_pair P: namespaces P-a (10.98.0.1) and P-b (10.98.0.2) joined by veth,
# reno as default (the host default bbr would turn pacing on), big buffers.
netns_pair() {
	local p=$1
	ip netns add "$p-a"
	ip netns add "$p-b"
	ip link add veth0 netns "$p-a" type veth peer name veth0 netns "$p-b"
	ip -n "$p-a" addr add 10.98.0.1/24 dev veth0
	ip -n "$p-b" addr add 10.98.0.2/24 dev veth0
	for ns in "$p-a" "$p-b"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set veth0 up
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=reno
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 67108864"
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 131072 67108864"
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_no_metrics_save=1
	done
}

# Kills what runs in the namespaces and deletes them.
netns_del() {
	local ns pids
	for ns in "$@"; do
		ip netns list | grep -qw "^$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null)
		[ -n "$pids" ] && kill -9 $pids 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

# Unload an instance whatever its state (teardown).
force_unload() {
	local n=$1
	[ -e "/sys/fs/bpf/cubicctl/$n" ] || registered "$n" || return 0
	"$CUBICCTL" unload --name "$n" --force >/dev/null 2>&1 || true
}

# The instance is gone from the kernel and from bpffs.
assert_gone() {
	local n=$1
	if registered "$n"; then
		echo "$n is still registered" >&2
		return 1
	fi
	if [ -e "/sys/fs/bpf/cubicctl/$n" ]; then
		echo "pins of $n are left in /sys/fs/bpf/cubicctl/$n" >&2
		return 1
	fi
}

# A counter of an instance from `cubicctl -j status`.
counter() {
	"$CUBICCTL" -j status --name "$1" | jq -r ".instances[0].counters.$2"
}

# iperf3 server in namespace $1, one test, in the background.
iperf_server() {
	ip netns exec "$1" iperf3 -s -1 -D -I "$BATS_TEST_TMPDIR/iperf3.pid" >/dev/null
	for _ in $(seq 50); do
		ip netns exec "$1" ss -ltn | grep -q ':5201 ' && return 0
		sleep 0.1
	done
	echo "iperf3 server did not start" >&2
	return 1
}

PATHEMU="$REPO/tools/emu/pathemu"

# path_start P RATE RTT BUFFER: an emulated path (see tools/emu); its BDP and
# buffer in packets land in PATH_BDP and PATH_BUF.
path_start() {
	"$PATHEMU" start --name "$1" --rate "$2" --rtt "$3" --buffer "$4" >/dev/null
	PATH_BDP=$("$PATHEMU" show --name "$1" | sed -n 's/^bdp_pkts=//p')
	PATH_BUF=$("$PATHEMU" show --name "$1" | sed -n 's/^buffer_pkts=//p')
	ip netns exec "$1-rcv" iperf3 -s -D -I "$BATS_FILE_TMPDIR/iperf3-$1.pid" >/dev/null
	ip netns exec "$1-rcv" iperf3 -s -p 5202 -D >/dev/null
	sleep 0.3
}

path_stop() {
	"$PATHEMU" stop --name "$1" >/dev/null 2>&1 || true
}

# ---- impossible windows (docs/IMPOSSIBLE_WINDOWS.md)
# A sample with ssthresh > 0x7fffffff (TCP_INFINITE_SSTHRESH) or a cwnd far
# above what the path can hold is a value no congestion control computed; it
# fails the test that ran the flow, loudly, and is never counted and ignored.
TCPWATCH="$REPO/tools/soak/tcpwatch.py"

# window_bound BDP BUFFER: the largest possible cwnd on an emulated path,
# 4 x (BDP + buffer) + 100 packets (slow start's overshoot stays below about
# 2 x; see tools/eval/analyze.py). path_bound: that of the path_start'ed path.
window_bound() {
	echo $(( 4 * ($1 + $2) + 100 ))
}
path_bound() {
	[ -n "${PATH_BDP:-}" ] && [ -n "${PATH_BUF:-}" ] || { echo "path_bound: no path (path_start)" >&2; return 1; }
	window_bound "$PATH_BDP" "$PATH_BUF"
}
# An unshaped veth (netns_pair) has no BDP: what a flow can have in flight is
# bounded by the send buffer, tcp_wmem's maximum (67108864 bytes) / 1448.
VETH_BOUND=$(( 4 * 67108864 / 1448 + 100 ))

# window_watch NS BOUND LABEL CMD...: run CMD while tools/soak/tcpwatch.py polls
# TCP_INFO (ssthresh in full, which ss hides above 65535) of every socket in
# namespace NS every 50 ms. An impossible sample fails it (status 1, the flow,
# time and value on stderr); otherwise CMD's status. CMD's stdout is kept.
window_watch() {
	local ns=$1 bound=$2 label=$3 wpid rc=0 wrc=0 log
	shift 3
	log=$(mktemp "${BATS_TEST_TMPDIR:-/tmp}/tcpwatch.XXXXXX")
	ip netns exec "$ns" /usr/bin/python3 "$TCPWATCH" --bound "$bound" --label "$label" >"$log" 2>&1 &
	wpid=$!
	# the watch is on (signal handlers set, first poll done) before CMD starts
	for _ in $(seq 100); do
		grep -q 'watching' "$log" 2>/dev/null && break
		kill -0 "$wpid" 2>/dev/null || break
		sleep 0.05
	done
	"$@" || rc=$?
	kill -TERM "$wpid" 2>/dev/null
	wait "$wpid" || wrc=$?
	if [ "$wrc" != 0 ]; then
		grep -a 'IMPOSSIBLE WINDOW' "$log" >&2 || cat "$log" >&2
		echo "window_watch: $label: impossible window (docs/IMPOSSIBLE_WINDOWS.md)" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
	return "$rc"
}

# assert_iperf_windows FILE BOUND: the sender's snd_cwnd in iperf3 -J output
# (each interval's, and the flow's max_snd_cwnd; bytes, / 1448) is within BOUND.
assert_iperf_windows() {
	local f=$1 bound=$2 max
	max=$(jq '[(.intervals // [])[].streams[]?.snd_cwnd?, (.end.streams // [])[].sender.max_snd_cwnd?]
		| map(select(. != null)) | (max // 0) / 1448 | floor' "$f" 2>/dev/null) || return 0
	if [ "${max:-0}" -gt "$bound" ]; then
		echo "IMPOSSIBLE WINDOW: $f: snd_cwnd $max packets > bound $bound (docs/IMPOSSIBLE_WINDOWS.md)" >&2
		return 1
	fi
}

# Bulk flow over path P with congestion control CA for SECONDS; iperf3 JSON to
# FILE. Fails on an impossible window (window_watch, assert_iperf_windows).
bulk() {
	local p=$1 ca=$2 secs=$3 out=$4 bound
	shift 4
	bound=$(window_bound "${PATH_BDP:?bulk: no path}" "${PATH_BUF:?bulk: no path}")
	window_watch "$p-snd" "$bound" "$ca over $p" \
		ip netns exec "$p-snd" iperf3 -c 10.77.2.2 -C "$ca" -t "$secs" -J "$@" >"$out" || return 1
	assert_iperf_windows "$out" "$bound"
}

# From setup_file: one emulated path for a whole suite, P = bt<pid><suffix>.
path_suite() {
	ensure_fs
	export P="bt$(( $$ % 10000 ))$1"
	path_start "$P" "$2" "$3" "$4"
	export PATH_BDP PATH_BUF
}

# From teardown: stop a tracer the test left running, unload the instances
# named, and check they are gone.
instance_teardown() {
	local n rc=0
	[ -n "${TRACE_PID:-}" ] && kill "$TRACE_PID" 2>/dev/null
	for n in "$@"; do
		force_unload "$n"
		assert_gone "$n" || rc=1
	done
	return $rc
}
