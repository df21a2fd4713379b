# SPDX-License-Identifier: GPL-2.0
# Helpers for the integration suites: throw-away instance names and network
# namespaces of their own, and checks that nothing is left behind. The
# namespaces, iperf3 servers, emulated paths, the impossible-window watch and
# unloading are tools/lib/netns.sh's, shared with tools/.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
CUBICCTL="$REPO/cubicctl"
# shellcheck source-path=SCRIPTDIR source=../../tools/lib/netns.sh
. "$REPO/tools/lib/netns.sh"

# Mount what the tests need, as .ci/run or a fresh machine may not have it.
ensure_fs() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
}

# A test-only instance name (at most 15 characters): bct<pid><rand>.
test_name() {
	printf 'bct%05d%04d' $(( $$ % 100000 )) $(( RANDOM % 10000 ))
}

# netns_pair P (netns.sh): namespaces P-a (10.98.0.1) and P-b (10.98.0.2)
# joined by veth; netns_del NS...: what runs in them killed, deleted.

# Unload an instance whatever its state (teardown).
force_unload() {
	instance_unload "$1" || true
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

# ---- the two ways an instance is registered (src/kstate.c): link mode, through
# a struct_ops link pinned as NAME/link (Linux 6.4+, what load does there), and
# map mode, by the ops map's own element (Linux 6.1, or CUBICCTL_LINK=0)

# Whether this kernel has struct_ops links: BPF_STRUCT_OPS in its enum bpf_attach_type.
kernel_has_links() {
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "'BPF_STRUCT_OPS' val="
}

# The CUBICCTL_LINK values a test of both ways runs with: "1 0", or "0" without links.
link_modes() {
	if kernel_has_links; then echo "1 0"; else echo 0; fi
}

# unregister_behind NAME: what a load killed after pinning and before
# registering leaves, made of a loaded instance: its pins, not registered. In
# link mode, its pins but the link's (a link not yet pinned dies with the
# process); in map mode, its ops map's element deleted.
unregister_behind() {
	local dir=/sys/fs/bpf/cubicctl/$1 i
	if [ -e "$dir/link" ]; then
		rm "$dir/link"
		# the kernel lets go of an unpinned link a moment later (a work item)
		for i in $(seq 50); do
			registered "$1" || return 0
			sleep 0.1
		done
		echo "unregister_behind: $1 is still registered" >&2
		return 1
	fi
	bpftool struct_ops unregister id "$(bpftool -j map show pinned "$dir/ops" | jq .id)" >/dev/null
}

# lose_pins NAME: the instance's pins gone while it stays registered, as for
# one loaded from another mount namespace. In link mode that namespace's bpffs
# holds its link: a bpffs of its own, mounted in the test's folder
# (other_bpffs_cleanup unmounts it).
lose_pins() {
	local dir=/sys/fs/bpf/cubicctl/$1
	if [ -e "$dir/link" ]; then
		OTHER_BPFFS=$BATS_TEST_TMPDIR/bpffs
		mkdir -p "$OTHER_BPFFS"
		mountpoint -q "$OTHER_BPFFS" || mount -t bpf bpf "$OTHER_BPFFS"
		bpftool link pin id "$(bpftool -j link show pinned "$dir/link" | jq .id)" "$OTHER_BPFFS/$1"
	fi
	rm -r "$dir"
}

other_bpffs_cleanup() {
	[ -n "${OTHER_BPFFS:-}" ] || return 0
	umount "$OTHER_BPFFS" 2>/dev/null || true
	OTHER_BPFFS=
}

# A counter of an instance from `cubicctl -j status`.
counter() {
	"$CUBICCTL" -j status --name "$1" | jq -r ".instances[0].counters.$2"
}

# iperf3 server in namespace $1, one test, in the background.
iperf_server() {
	netns_iperf_server "$1" 5201 -1 -I "$BATS_TEST_TMPDIR/iperf3.pid"
}

# path_start P RATE RTT BUFFER: an emulated path (see tools/emu) with iperf3
# servers on 5201 and 5202; its BDP and buffer in packets land in PATH_BDP
# and PATH_BUF.
path_start() {
	path_up "$@" &&
		netns_iperf_server "$1-rcv" 5201 -I "$BATS_FILE_TMPDIR/iperf3-$1.pid" &&
		netns_iperf_server "$1-rcv" 5202
}

path_stop() {
	path_down "$1"
}

# ---- impossible windows (docs/IMPOSSIBLE_WINDOWS.md)
# A sample with ssthresh > 0x7fffffff (TCP_INFINITE_SSTHRESH) or a cwnd far
# above what the path can hold is a value no congestion control computed; it
# fails the test that ran the flow, loudly, and is never counted and ignored.
# window_bound BDP BUFFER (netns.sh) is the largest possible cwnd on an
# emulated path; path_bound: that of the path_start'ed path.
path_bound() {
	[ -n "${PATH_BDP:-}" ] && [ -n "${PATH_BUF:-}" ] || { echo "path_bound: no path (path_start)" >&2; return 1; }
	window_bound "$PATH_BDP" "$PATH_BUF"
}
# An unshaped veth (netns_pair) has no BDP: what a flow can have in flight is
# bounded by the send buffer, tcp_wmem's maximum.
VETH_BOUND=$(window_bound_veth)

# window_watch NS BOUND LABEL CMD...: run CMD while tools/soak/tcpwatch.py polls
# TCP_INFO (ssthresh in full, which ss hides above 65535) of every socket in
# namespace NS every 50 ms. An impossible sample fails it (status 1, the flow,
# time and value on stderr); otherwise CMD's status. CMD's stdout is kept.
window_watch() {
	local ns=$1 bound=$2 label=$3 rc=0
	shift 3
	WATCH_DIR=${BATS_TEST_TMPDIR:-/tmp} watch_start "$ns" "$bound" "$label" ||
		{ echo "window_watch: $label: tools/soak/tcpwatch.py did not start" >&2; return 1; }
	"$@" || rc=$?
	if ! watch_stop; then
		echo "window_watch: $label: impossible window (docs/IMPOSSIBLE_WINDOWS.md)" >&2
		return 1
	fi
	return "$rc"
}

# assert_iperf_windows FILE BOUND: the sender's snd_cwnd in iperf3 -J output
# (each interval's, and the flow's max_snd_cwnd; bytes, / MSS) is within BOUND.
assert_iperf_windows() {
	cubictools iperf-windows --bound "$2" "$1"
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

# From setup_file, after path_suite: tests/integration/idleflow.py's sink
# (accepts connections on PORT in $P-rcv and discards their data) for the
# suite's own Python flows; sink_stop from teardown_file.
sink_start() {
	ip netns exec "$P-rcv" /usr/bin/python3 "$BATS_TEST_DIRNAME/idleflow.py" sink "$1" >/dev/null 2>&1 &
	echo $! >"$BATS_FILE_TMPDIR/sink.pid"
	sleep 0.3
}

sink_stop() {
	kill "$(cat "$BATS_FILE_TMPDIR/sink.pid" 2>/dev/null)" 2>/dev/null || true
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

# traced_flow OUT SECONDS [--text]: from a test with NAME (an instance), P (a
# path) and TRACE_PID: a bulk flow with the instance while it is traced (iperf3
# intervals of FLOW_INTERVAL s, default 0.2); the flow's records in
# $BATS_TEST_TMPDIR/OUT.jsonl (or the text lines in OUT.txt)
traced_flow() {
	local out=$1 secs=$2 port json=(--json)
	[ "${3:-}" = --text ] && json=()
	"$CUBICCTL" trace --name "$NAME" "${json[@]}" --port 5201 >"$BATS_TEST_TMPDIR/$out.trace" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.3
	bulk "$P" "$NAME" "$secs" "$BATS_TEST_TMPDIR/$out.json" -i "${FLOW_INTERVAL:-0.2}"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	if [ ${#json[@]} -eq 0 ]; then
		cp "$BATS_TEST_TMPDIR/$out.trace" "$BATS_TEST_TMPDIR/$out.txt"
		return 0
	fi
	port=$(jq '.start.connected[0].local_port' "$BATS_TEST_TMPDIR/$out.json")
	# the exit records (the verdicts, also in the trace, are trace.bats's)
	jq -c "select(.sport == $port and .record == \"exit\")" "$BATS_TEST_TMPDIR/$out.trace" >"$BATS_TEST_TMPDIR/$out.jsonl"
	cat "$BATS_TEST_TMPDIR/$out.jsonl"
}
