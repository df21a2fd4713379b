#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The checks `make test-kernels` runs on each kernel: in a qemu guest
# (tools/kernels/guest.sh) and on the host itself, with the real ./cubicctl.
#
#   tools/kernels/suite.sh [--label LABEL] [--log FILE]
#
# For each datapath (exact, fast), with an instance of its own (bctk<pid>e,
# bctk<pid>f): it loads, carries an iperf3 flow over a veth pair, carries one
# over the same pair with 1% of the data segments dropped (no impossible window,
# a slow-start exit counted), `trace --json --count 1` delivers a record with
# plausible fields, set/get round-trip, a bad value exits 2 and changes
# nothing, upgrade keeps an open flow and the tunables and a later flow gets the
# new build (before Linux 6.4: refused in one sentence), unload leaves no
# struct_ops and no pin; then it loads preset search
# and carries a lossy flow with SEARCH's socket storage, and the same for preset
# predict, then predict-jump; `flows` lists a running flow; an instance attached to a cgroup of its own
# (cubicctl attach) carries a flow that did not ask for it. Then: no warning in dmesg
# since the suite began. One line per check on stdout, "LABEL CHECK ok" or
# "LABEL CHECK FAIL: why"; the details in FILE. Exit 1 if any check failed.
#
# Never touches an instance it did not load (a user's bpf_cubic stays as it is).
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/netns.sh
. "$REPO/tools/lib/netns.sh"

LABEL=$(uname -r)
LOG=
while [ $# -gt 0 ]; do
	case $1 in
	--label) LABEL=${2:?--label needs a value}; shift 2 ;;
	--log) LOG=${2:?--log needs a value}; shift 2 ;;
	*) echo "suite.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done

[ "$(id -u)" -eq 0 ] || { echo "suite.sh: must be run as root" >&2; exit 1; }
[ -x "$CUBICCTL" ] || { echo "suite.sh: $CUBICCTL is not built: run make first" >&2; exit 1; }
mountpoint -q /sys/fs/bpf || { echo "suite.sh: bpffs is not mounted at /sys/fs/bpf" >&2; exit 1; }

P=bctk$(printf '%05d' $(($$ % 100000)))
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bctk.XXXXXX")
LOG=${LOG:-$TMP/suite.log}
: >"$LOG"
PORT=5201
SECS=3
RATE=1G	# a cap, so the host's other work keeps a core
BOUND=
TRACE_PID=
DMESG_START=$(dmesg 2>/dev/null | wc -l)
failed=0

cleanup() {
	[ -z "$TRACE_PID" ] || kill_wait "$TRACE_PID"
	[ -z "${WATCH_PID:-}" ] || kill_wait "$WATCH_PID"
	netns_del "$P-a" "$P-b"
	instance_unload "${P}e"
	instance_unload "${P}f"
	[ -z "${ATTACH_CG:-}" ] || rmdir "$ATTACH_CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

log() {
	printf '%s\n' "$*" >>"$LOG"
}

fail() {
	echo "$*" >&2
	return 1
}

# check NAME FUNCTION ARGS...: runs FUNCTION, prints its line; its stderr goes
# to the log, and its last line is the reason of a failure.
check() {
	local name=$1 err=$TMP/err
	shift
	log "=== $LABEL $name"
	if "$@" 2>"$err"; then
		printf '%-24s %-16s ok\n' "$LABEL" "$name"
	else
		printf '%-24s %-16s FAIL: %s\n' "$LABEL" "$name" "$(grep . "$err" | tail -n 1)"
		failed=$((failed + 1))
	fi
	cat "$err" >>"$LOG"
}

json_status() {
	"$CUBICCTL" -j status --name "$1" 2>>"$LOG"
}

# exits: the slow-start exits the instance counted (every reason)
exits() {
	json_status "$1" | jq '.instances[0].counters | to_entries
		| map(select((.key | test("^(exit_|css_exit)")) and (.key | test("_cwnd_sum$") | not)))
		| map(.value) | add'
}

# struct_ops_names: the congestion-control name of every struct_ops map
# (bpftool 7.1's JSON: a flat list of objects, one per map field)
struct_ops_names() {
	bpftool -j struct_ops dump 2>/dev/null |
		jq -r '.[] | .bpf_struct_ops_tcp_congestion_ops?.data.name // empty' 2>/dev/null
}

# loss_on: drop 1% of the data segments from $P-a to $P-b: netem on $P-a's
# veth0 where the kernel has it (Debian's, as a module), else nftables as
# they arrive in $P-b (this host's kernel has no netem; a drop on the sender's
# own output hook is an error TCP retries, not a loss). The sender's offloads
# off, so that a segment is one packet on the wire.
loss_on() {
	netns_offloads "$P-a" veth0 off || return 1
	if ip netns exec "$P-a" tc qdisc add dev veth0 root netem loss 1% 2>/dev/null; then
		log "loss: netem loss 1% on veth0 in $P-a"
		return 0
	fi
	ip netns exec "$P-b" nft -f - <<-EOF || return 1
	table inet bctk {
		chain in {
			type filter hook prerouting priority 0; policy accept;
			tcp dport $PORT meta length > 200 numgen random mod 100 < 1 drop
		}
	}
	EOF
	log "loss: nftables drops 1% of the data segments as they reach $P-b"
}

loss_off() {
	ip netns exec "$P-a" tc qdisc del dev veth0 root 2>/dev/null
	ip netns exec "$P-b" nft delete table inet bctk 2>/dev/null
	netns_offloads "$P-a" veth0 on
	return 0
}

setup_path() {
	netns_del "$P-a" "$P-b"
	netns_pair "$P" && netns_iperf_server "$P-b" "$PORT" || return 1
	BOUND=$(window_bound_veth) || return 1
	log "path: $P-a 10.98.0.1 -> $P-b 10.98.0.2, window bound $BOUND packets"
}

# watch_end: watch_stop, and the watch saw the flow: a kernel without
# tcp_diag answers sock_diag with nothing, and a watch of nothing proves nothing
watch_end() {
	local log=$TMP/watch.log
	kill -TERM "$WATCH_PID" 2>/dev/null
	wait "$WATCH_PID"
	local rc=$?
	cat "$WATCH_LOG" >"$log"
	rm -f "$WATCH_LOG"
	WATCH_PID='' WATCH_LOG=''
	cat "$log" >>"$LOG"
	[ "$rc" -eq 0 ] || fail "impossible window: $(grep -a -m1 'IMPOSSIBLE WINDOW' "$log")" || return 1
	grep -qE ' [1-9][0-9]* sockets, [1-9][0-9]* samples' "$log" ||
		fail "tcpwatch saw no socket (no tcp_diag?)"
}

# flow CA OUT: one iperf3 flow with congestion control CA, JSON in OUT,
# watched for impossible windows; checks it really ran CA and moved data
flow() {
	local ca=$1 out=$2 rc=0
	WATCH_DIR=$TMP watch_start "$P-a" "$BOUND" "$ca" || fail "can't start tcpwatch" || return 1
	timeout 60 ip netns exec "$P-a" iperf3 -c 10.98.0.2 -p "$PORT" -C "$ca" -t "$SECS" -b "$RATE" -J \
		>"$out" 2>>"$LOG" || rc=$?
	watch_end || return 1
	jq -c '{error, cc: .end.sender_tcp_congestion, bytes: .end.sum_sent.bytes,
		retransmits: .end.sum_sent.retransmits, max_cwnd: .end.streams[0].sender.max_snd_cwnd,
		rtt_us: .end.streams[0].sender.mean_rtt}' "$out" >>"$LOG" 2>&1
	[ "$rc" -eq 0 ] || fail "iperf3 exited $rc"
	# iperf3 -J exits 0 even when -C was refused
	[ "$(jq -r '.error // empty' "$out")" = "" ] || fail "iperf3: $(jq -r .error "$out")" || return 1
	[ "$(jq -r .end.sender_tcp_congestion "$out")" = "$ca" ] ||
		fail "the flow ran $(jq -r .end.sender_tcp_congestion "$out"), not $ca" || return 1
	[ "$(jq '.end.sum_sent.bytes' "$out")" -gt 0 ] || fail "no data moved" || return 1
	assert_cwnd "$out"
}

# the sender's largest cwnd (iperf3 reports bytes) is above 0 and below BOUND
assert_cwnd() {
	local max
	max=$(jq '[.intervals[].streams[].snd_cwnd, .end.streams[0].sender.max_snd_cwnd]
		| map(select(. != null)) | max // 0' "$1")
	[ "$max" -gt 0 ] || fail "no cwnd reported" || return 1
	[ "$max" -le $((BOUND * 1448)) ] || fail "impossible window: snd_cwnd $max bytes > $BOUND packets"
}

t_load() {
	local name=$1 dp=$2 got
	"$CUBICCTL" load --name "$name" --datapath "$dp" >>"$LOG" 2>"$TMP/load.err" ||
		fail "load: $(tail -n 1 "$TMP/load.err")" || return 1
	registered "$name" || fail "$name is not in tcp_available_congestion_control" || return 1
	got=$(json_status "$name" | jq -r '.instances[0].datapath')
	[ "$got" = "$dp" ] || fail "status says datapath '$got'" || return 1
	# which of the datapath's maps this kernel got (CUBIC_OPS_MAPS)
	log "ops map: $(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$name/ops" | jq -r .name)"
}

t_flow() {
	local name=$1 before after
	registered "$name" || fail "$name is not loaded" || return 1
	before=$(json_status "$name" | jq .instances[0].counters.flows_init)
	flow "$name" "$TMP/flow-$name.json" || return 1
	after=$(json_status "$name" | jq .instances[0].counters.flows_init)
	[ "$after" -gt "$before" ] || fail "flows_init did not move ($before -> $after): not our init"
}

t_lossy() {
	local name=$1 out ex rt
	out=$TMP/lossy-$name.json
	registered "$name" || fail "$name is not loaded" || return 1
	# the record of this flow's slow-start exit; it waits for one
	timeout 60 "$CUBICCTL" trace --name "$name" --json --count 1 >"$TMP/trace-$name.json" \
		2>>"$LOG" &
	TRACE_PID=$!
	sleep 0.5
	loss_on || fail "can't make the path lossy" || return 1
	flow "$name" "$out"
	local rc=$?
	loss_off
	[ "$rc" -eq 0 ] || return 1
	rt=$(jq .end.sum_sent.retransmits "$out")
	[ "$rt" -gt 0 ] || fail "no retransmission: the path lost nothing" || return 1
	ex=$(exits "$name")
	[ "${ex:-0}" -ge 1 ] || fail "no slow-start exit counted after a lossy flow" || return 1
	log "lossy: $rt retransmits, $ex slow-start exits counted"
}

t_trace() {
	local name=$1 f
	f=$TMP/trace-$name.json
	[ -n "$TRACE_PID" ] || fail "no trace was started" || return 1
	for _ in $(seq 100); do
		kill -0 "$TRACE_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill_wait "$TRACE_PID"
	wait "$TRACE_PID" 2>/dev/null
	TRACE_PID=
	cat "$f" >>"$LOG"
	[ -s "$f" ] || fail "trace --count 1 printed no record" || return 1
	jq -e --arg n "$name" --argjson port "$PORT" '
		.instance == $n and (.reason | length) > 0 and .cwnd > 0 and .ssthresh > 0
		and .ssthresh < 2147483647 and .ssthresh <= ([.cwnd, 2] | max)
		and .mss > 0 and .srtt_us > 0 and (.saddr | length) > 0 and (.daddr | length) > 0
		and (.dport == $port or .sport == $port)' "$f" >/dev/null ||
		fail "implausible record: $(head -c 300 "$f")"
}

# cubicctl flows (its iter/tcp object, which the kernel's verifier must take,
# with the instance's socket-storage maps handed to it): a running flow is
# listed once, with iperf3's own port, a cwnd, an mss and HyStart's rounds,
# by --netns A and by the default mode (its own namespace, then every one in
# /run/netns, entered with setns())
t_flows() {
	local name=$1 out all ip pid rc=0 rc2=0 rows
	out=$TMP/flows-$name.json all=$TMP/flows-all-$name.json ip=$TMP/flows-iperf-$name.json
	registered "$name" || fail "$name is not loaded" || return 1
	timeout 30 ip netns exec "$P-a" iperf3 -c 10.98.0.2 -p "$PORT" -C "$name" -t 5 -b 20M -J \
		>"$ip" 2>>"$LOG" &
	pid=$!
	sleep 1.5
	"$CUBICCTL" -j flows --name "$name" --netns "$P-a" >"$out" 2>"$TMP/flows.err" || rc=$?
	"$CUBICCTL" -j flows --name "$name" >"$all" 2>>"$TMP/flows.err" || rc2=$?
	wait "$pid"
	cat "$out" "$all" "$TMP/flows.err" >>"$LOG"
	[ "$rc" -eq 0 ] || fail "flows exited $rc: $(head -n 1 "$TMP/flows.err")" || return 1
	[ "$rc2" -eq 0 ] || fail "flows without --netns exited $rc2: $(tail -n 1 "$TMP/flows.err")" ||
		return 1
	rows=$(jq --argjson port "$PORT" '[.flows[] | select(.dport == $port)] | length' "$out")
	[ "$rows" = 1 ] || fail "flows listed ${rows:-no} sockets to port $PORT, not 1" || return 1
	jq -e --arg n "$name" --argjson port "$PORT" --slurpfile ip "$ip" '.flows[]
		| select(.dport == $port) | .instance == $n and .cwnd > 0 and .mss > 0
		and .sport == $ip[0].start.connected[0].local_port and .hystart.round >= 1' \
		"$out" >/dev/null || fail "implausible row: $(head -c 300 "$out")" || return 1
	rows=$(jq --argjson port "$PORT" --arg ns "$P-a" --slurpfile ip "$ip" '[.flows[]
		| select(.dport == $port and .netns == $ns
			and .sport == $ip[0].start.connected[0].local_port)] | length' "$all")
	[ "$rows" = 1 ] || fail "flows without --netns listed ${rows:-no} such sockets in $P-a, not 1"
}

t_set_get() {
	local name=$1 got
	"$CUBICCTL" set --name "$name" beta=600 >>"$LOG" 2>&1 || fail "set beta=600 failed" || return 1
	got=$("$CUBICCTL" -j get --name "$name" beta | jq .tunables.beta)
	[ "$got" = 600 ] || fail "get beta says $got after set beta=600" || return 1
	"$CUBICCTL" set --name "$name" preset=linux >>"$LOG" 2>&1 || fail "set preset=linux failed" || return 1
	got=$("$CUBICCTL" -j get --name "$name" beta | jq .tunables.beta)
	[ "$got" = 717 ] || fail "get beta says $got after set preset=linux"
}

t_bad_set() {
	local name=$1 rc bad before after
	before=$("$CUBICCTL" -j get --name "$name" | jq -c .tunables)
	for bad in beta=2000 beta=-1 no_such_key=1 beta; do
		rc=0
		"$CUBICCTL" set --name "$name" "$bad" >>"$LOG" 2>&1 || rc=$?
		[ "$rc" -eq 2 ] || fail "set $bad exited $rc, not 2" || return 1
	done
	after=$("$CUBICCTL" -j get --name "$name" | jq -c .tunables)
	[ -n "$before" ] && [ "$before" = "$after" ] || fail "a refused set changed the tunables"
}

# The local port of the sender's established connection to $PORT on congestion control $1 (ss -tin).
open_port() {
	ip netns exec "$P-a" ss -Htin state established "( dport = :$PORT )" |
		awk -v ca="$1" 'NF == 4 { split($3, a, ":"); p = a[2] } $1 == ca { print p }'
}

# cubicctl upgrade: from Linux 6.4 (struct_ops links) the instance is
# registered through a link, and an upgrade to another build (CUBICCTL_BUILD_TAG)
# keeps an open flow on the name, undisturbed, keeps the tunables, and a flow
# after it writes the new build's record; once the open flow is gone the old
# struct_ops map goes too. Before 6.4 it refuses in one sentence and changes
# nothing.
t_upgrade() {
	local name=$1 v reg old new old_ops pins out ip pid port rc=0 tun b resets t0
	v=$(uname -r | awk -F. '{ printf "%d", $1 * 100 + $2 }')
	reg=$(json_status "$name" | jq -r '.instances[0].registration')
	old=$(json_status "$name" | jq -r '.instances[0].build_id')
	old_ops=$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$name/ops" | jq .id)
	pins=$(ls -i "/sys/fs/bpf/cubicctl/$name" | tr '\n' ' ')
	if [ "$v" -lt 604 ]; then
		[ "$reg" = map ] || fail "status says registration '$reg' before 6.4, not map" || return 1
		out=$("$CUBICCTL" upgrade --name "$name" 2>&1) && fail "upgrade exited 0 before 6.4" && return 1
		log "$out"
		[ "$out" = "cubicctl: upgrade: this kernel has no struct_ops links (Linux 6.4 added them), so an instance can't be upgraded in place, only unloaded and loaded again" ] ||
			fail "refused otherwise: $out" || return 1
		[ "$(ls -i "/sys/fs/bpf/cubicctl/$name" | tr '\n' ' ')" = "$pins" ] &&
			[ "$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$name/ops" | jq .id)" = "$old_ops" ] ||
			fail "a refused upgrade changed the pins" || return 1
		registered "$name" || fail "a refused upgrade unregistered $name"
		return
	fi
	[ "$reg" = link ] || fail "status says registration '$reg' from 6.4 on, not link" || return 1
	"$CUBICCTL" set --name "$name" beta=600 >>"$LOG" 2>&1 || fail "set beta=600 failed" || return 1
	tun=$("$CUBICCTL" -j get --name "$name" | jq -c .tunables)
	# a flow open across the upgrade (which takes seconds in a TCG guest: the
	# verifier), until it is stopped after it
	ip=$TMP/upgrade-open-$name.json
	timeout 300 ip netns exec "$P-a" iperf3 -c 10.98.0.2 -p "$PORT" -C "$name" -t 240 -b 20M -J \
		>"$ip" 2>>"$LOG" &
	pid=$!
	sleep 1.5
	port=$(open_port "$name")
	[ -n "$port" ] || fail "no flow on $name before the upgrade" || rc=1
	resets=$(ip netns exec "$P-a" nstat -saz TcpEstabResets | awk '$1 == "TcpEstabResets" { print $2 }')
	if [ "$rc" -eq 0 ]; then
		t0=$(date +%s%N)
		out=$(CUBICCTL_BUILD_TAG="kernels-$$" "$CUBICCTL" upgrade --name "$name" 2>&1) ||
			fail "upgrade: $out" || rc=1
		log "$out (in $((($(date +%s%N) - t0) / 1000000)) ms)"
	fi
	if [ "$rc" -eq 0 ]; then
		new=$(json_status "$name" | jq -r '.instances[0].build_id')
		[[ "$out" == "upgraded $name: build $old -> $new ("* ]] && [ "$new" != "$old" ] ||
			fail "upgrade said '$out' (build $old, now $new)" || rc=1
		[ "$(open_port "$name")" = "$port" ] ||
			fail "the open flow is not on $name, established, after the upgrade" || rc=1
		sleep 1
		[ "$(open_port "$name")" = "$port" ] ||
			fail "the open flow is not on $name, established, a second after the upgrade" || rc=1
		[ "$(ip netns exec "$P-a" nstat -saz TcpEstabResets | awk '$1 == "TcpEstabResets" { print $2 }')" = "$resets" ] ||
			fail "a connection was reset across the upgrade" || rc=1
	fi
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	jq -c '{error, bytes: .end.sum_sent.bytes, seconds: .end.streams[0].sender.seconds}' "$ip" >>"$LOG" 2>&1
	# stopped by us, the only error iperf3 may report is that
	if [ "$rc" -eq 0 ] && { jq -r '.error // empty' "$ip" | grep -v interrupt | grep -q . ||
		! jq -e '.end.sum_sent.bytes > 0' "$ip" >/dev/null; }; then
		fail "the flow open across the upgrade failed: $(jq -r .error "$ip")"
		rc=1
	fi
	[ "$rc" -ne 0 ] || [ "$("$CUBICCTL" -j get --name "$name" | jq -c .tunables)" = "$tun" ] ||
		fail "the tunables changed in the upgrade" || rc=1
	# a flow after it: the new build's exit record (the open flow's verdict,
	# written as it closed, may come first)
	if [ "$rc" -eq 0 ]; then
		out=$TMP/upgrade-trace-$name.json
		timeout 60 "$CUBICCTL" trace --name "$name" --json >"$out" 2>>"$LOG" &
		TRACE_PID=$!
		sleep 0.5
		loss_on || fail "can't make the path lossy" || rc=1
		[ "$rc" -eq 0 ] && { flow "$name" "$TMP/upgrade-after-$name.json" || rc=1; }
		loss_off
		sleep 0.3
		kill -INT "$TRACE_PID" 2>/dev/null
		wait "$TRACE_PID" 2>/dev/null
		TRACE_PID=
		cat "$out" >>"$LOG"
		port=$(jq '.start.connected[0].local_port' "$TMP/upgrade-after-$name.json")
		b=$(jq -r --argjson p "${port:-0}" 'select(.record == "exit" and .sport == $p) | .build_id' \
			"$out" | sort -u | tr '\n' ' ')
		[ "$rc" -ne 0 ] || [ "$b" = "$new " ] ||
			fail "a flow after the upgrade wrote exit records of build '$b', not $new" || rc=1
	fi
	# the open flow closed: the old build's struct_ops map goes
	for _ in $(seq 300); do
		bpftool map show id "$old_ops" >/dev/null 2>&1 || break
		sleep 0.1
	done
	! bpftool map show id "$old_ops" >/dev/null 2>&1 ||
		fail "the old struct_ops map $old_ops is left after its flows closed" || rc=1
	"$CUBICCTL" set --name "$name" preset=linux >>"$LOG" 2>&1
	log "upgrade: build $old -> ${new:-?}, the open flow kept; a flow after it: build ${b:-?}"
	return "$rc"
}

t_unload() {
	local name=$1
	"$CUBICCTL" unload --name "$name" >>"$LOG" 2>&1 || fail "unload failed" || return 1
	! registered "$name" || fail "$name is still registered" || return 1
	[ ! -e "/sys/fs/bpf/cubicctl/$name" ] || fail "pins left in /sys/fs/bpf/cubicctl/$name" || return 1
	! struct_ops_names | grep -x "$name" >/dev/null || fail "a struct_ops map named $name is left"
}

# storage_flow NAME DP PRESET COUNTER: preset PRESET loads, and a lossy flow
# ends slow start (by the rule or by loss) with the rule's socket storage in
# place (COUNTER, the flows that fell back to Linux HyStart, stays 0)
storage_flow() {
	local name=$1 dp=$2 preset=$3 counter=$4 ex nost rc=0
	"$CUBICCTL" load --name "$name" --datapath "$dp" --preset "$preset" >>"$LOG" 2>"$TMP/load.err" ||
		fail "load --preset $preset: $(tail -n 1 "$TMP/load.err")" || return 1
	loss_on || fail "can't make the path lossy" || rc=1
	[ "$rc" -eq 0 ] && { flow "$name" "$TMP/$preset-$name.json" || rc=1; }
	loss_off
	if [ "$rc" -eq 0 ]; then
		ex=$(exits "$name")
		nost=$(json_status "$name" | jq ".instances[0].counters.$counter")
		log "$preset: $ex slow-start exits, $nost flows without storage"
		[ "${ex:-0}" -ge 1 ] || fail "no slow-start exit counted" || rc=1
		[ "$nost" = 0 ] || fail "$nost flows had no $preset storage" || rc=1
	fi
	"$CUBICCTL" unload --name "$name" >>"$LOG" 2>&1 || fail "unload failed" || rc=1
	return "$rc"
}

# hystart=search (its socket storage, made in .init and read per ACK)
t_search() {
	storage_flow "$1" "$2" search search_no_storage
}

# hystart=predict (its socket storage, the write of sk_pacing_status and
# bpf_setsockopt(SO_MAX_PACING_RATE), which the kernel's verifier must allow);
# before Linux 6.10 the fast datapath refuses it, in one sentence, and loads
# nothing. PRESET predict-jump: the same with predict_jump (the jump's cwnd
# write and the Safe Retreat in .ssthresh)
t_predict() {
	local name=$1 dp=$2 preset=${3:-predict} v
	v=$(uname -r | awk -F. '{ printf "%d", $1 * 100 + $2 }')
	if [ "$dp" = fast ] && [ "$v" -lt 610 ]; then
		"$CUBICCTL" load --name "$name" --datapath fast --preset "$preset" >>"$LOG" 2>"$TMP/load.err" &&
			fail "load --preset $preset --datapath fast was accepted before 6.10" && return 1
		grep -q "hystart=predict needs Linux 6.10 or later on the fast datapath" "$TMP/load.err" ||
			fail "refused without the sentence: $(tail -n 1 "$TMP/load.err")" || return 1
		! registered "$name" || fail "a refused load left $name registered" || return 1
		log "predict: the fast datapath refuses it before 6.10, as designed"
		return 0
	fi
	storage_flow "$name" "$dp" "$preset" predict_no_storage
}

# cubicctl attach (issue 22): a flow from a process in a cgroup of its own,
# started without -C, runs the instance (the sock_ops program and its
# bpf_setsockopt(TCP_CONGESTION) at ESTABLISHED, which the kernel's verifier
# must allow); after detach the same flow gets the namespace's default, and
# unload leaves no attachment pinned
attach_flow() { # CGROUP OUT: an iperf3 flow from CGROUP, its JSON in OUT
	sh -c 'echo $$ >"$1/cgroup.procs" && exec ip netns exec "$2" iperf3 -c 10.98.0.2 -p "$3" -t 1 -J' \
		_ "$1" "$P-a" "$PORT" >"$2" 2>>"$LOG"
	jq -r '.end.sender_tcp_congestion // .error' "$2"
}

attach_pins() { # the attachments pinned now, by id
	ls /sys/fs/bpf/cubicctl-attach 2>/dev/null | sort | tr '\n' ' '
}

t_attach() {
	local name=$1 dp=$2 cg2 ca pins rc=0
	cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ -z "$cg2" ]; then # the qemu guest's initramfs mounts none
		mkdir -p /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>>"$LOG" ||
			fail "no cgroup v2 hierarchy, and none could be mounted" || return 1
		cg2=/sys/fs/cgroup
	fi
	ATTACH_CG=$cg2/$P-attach
	pins=$(attach_pins)
	mkdir "$ATTACH_CG" || fail "can't make the cgroup $ATTACH_CG" || return 1
	"$CUBICCTL" load --name "$name" --datapath "$dp" >>"$LOG" 2>"$TMP/load.err" ||
		fail "load: $(tail -n 1 "$TMP/load.err")" || return 1
	"$CUBICCTL" attach --name "$name" --cgroup "$ATTACH_CG" >>"$LOG" 2>"$TMP/attach.err" ||
		fail "attach: $(tail -n 1 "$TMP/attach.err")" || rc=1
	# cubicctl attach pinned one more attachment
	[ "$rc" -ne 0 ] || [ "$(attach_pins | wc -w)" -eq $(($(wc -w <<<"$pins") + 1)) ] ||
		fail "attach pinned nothing under /sys/fs/bpf/cubicctl-attach" || rc=1
	if [ "$rc" -eq 0 ]; then
		ca=$(attach_flow "$ATTACH_CG" "$TMP/attach-$name.json")
		[ "$ca" = "$name" ] || fail "a flow from the attached cgroup ran '$ca', not $name" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		"$CUBICCTL" detach --name "$name" >>"$LOG" 2>&1 || fail "detach failed" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		ca=$(attach_flow "$ATTACH_CG" "$TMP/detached-$name.json")
		[ "$ca" = reno ] || fail "after detach a flow from the cgroup ran '$ca', not reno" || rc=1
	fi
	"$CUBICCTL" unload --name "$name" >>"$LOG" 2>&1 || fail "unload failed" || rc=1
	# what is pinned is what there was before (another user's attachments stay)
	[ "$(attach_pins)" = "$pins" ] ||
		fail "attachment pins before attach: '$pins', after unload: '$(attach_pins)'" || rc=1
	rmdir "$ATTACH_CG" 2>>"$LOG" || fail "can't remove the cgroup $ATTACH_CG" || rc=1
	ATTACH_CG=
	return "$rc"
}

t_dmesg() {
	local new
	new=$(dmesg | tail -n +"$((DMESG_START + 1))")
	log "$new"
	! grep -iE 'warn|bug|call trace|oops|panic|segfault' <<<"$new" ||
		fail "dmesg: $(grep -iE 'warn|bug|call trace|oops|panic|segfault' <<<"$new" | head -n 1)"
}

log "suite on $LABEL ($(uname -r)), instances ${P}e ${P}f, namespaces $P-a $P-b"
check path setup_path
for dp in exact fast; do
	n=$P${dp:0:1}
	check "load-$dp" t_load "$n" "$dp"
	check "flow-$dp" t_flow "$n"
	check "lossy-$dp" t_lossy "$n"
	check "trace-$dp" t_trace "$n"
	check "flows-$dp" t_flows "$n"
	check "set-get-$dp" t_set_get "$n"
	check "bad-set-$dp" t_bad_set "$n"
	check "upgrade-$dp" t_upgrade "$n"
	check "unload-$dp" t_unload "$n"
	check "search-$dp" t_search "$n" "$dp"
	check "predict-$dp" t_predict "$n" "$dp"
	check "predict-jump-$dp" t_predict "$n" "$dp" predict-jump
	check "attach-$dp" t_attach "$n" "$dp"
done
check dmesg t_dmesg
[ "$failed" -eq 0 ]
