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

# Bulk flow over path P with congestion control CA for SECONDS; iperf3 JSON to FILE.
bulk() {
	local p=$1 ca=$2 secs=$3 out=$4
	shift 4
	ip netns exec "$p-snd" iperf3 -c 10.77.2.2 -C "$ca" -t "$secs" -J "$@" >"$out"
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
