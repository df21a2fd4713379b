#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# cubicctl upgrade (src/cmd_upgrade.c): a loaded instance gets this build's
# programs without its name ever leaving the kernel. Open connections keep the
# programs they started with and are not disturbed; new ones get the new
# build; the maps (tunables, counters, records) carry on; unload afterwards
# leaves no link, map or program; and every refusal is one sentence with its
# exit code that changes nothing. Two builds of one binary: CUBICCTL_BUILD_TAG.

load lib

IDLEFLOW="$BATS_TEST_DIRNAME/idleflow.py"
SINK_PORT=5420
PINS=/sys/fs/bpf/cubicctl

setup_file() {
	# 100 Mbit/s, 20 ms, a one-BDP buffer: a bulk flow leaves slow start
	# within a few hundred ms, so each one writes an exit record
	path_suite up 100mbit 20ms 1bdp
	sink_start "$SINK_PORT"
}

teardown_file() {
	sink_stop
	path_stop "$P"
}

setup() {
	NAME=$(test_name)
	TRACE_PID=
	HELD_PID=
	LATE_PID=
}

teardown() {
	local p
	for p in "$HELD_PID" "$LATE_PID"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	# a test that swapped a pin puts it back first
	if [ -e "$PINS/$NAME/counters_saved" ]; then
		mv "$PINS/$NAME/counters_saved" "$PINS/$NAME/counters"
	fi
	instance_teardown "$NAME"
}

# Every pin of instance $1 with its inode and object id, one a line.
pins_of() {
	local p kind
	for p in "$PINS/$1"/*; do
		kind=map
		[ "${p##*/}" = link ] && kind=link
		echo "$p $(stat -c %i "$p") $(bpftool -j "$kind" show pinned "$p" | jq .id)"
	done
}

# The struct_ops map instance $1's link registers: what the kernel runs. The
# link's fdinfo says (bpftool 7.1 does not know struct_ops links yet).
link_map() {
	/usr/bin/python3 - "$PINS/$1/link" <<'EOF'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 321, "aarch64": 280}[os.uname().machine]  # bpf(2)
path = ctypes.create_string_buffer(sys.argv[1].encode())
attr = ctypes.create_string_buffer(struct.pack("QII", ctypes.addressof(path), 0, 0), 128)
fd = libc.syscall(nr, 7, attr, 16)  # BPF_OBJ_GET
if fd < 0:
    sys.exit("BPF_OBJ_GET %s: %s" % (sys.argv[1], os.strerror(ctypes.get_errno())))
print(next(l.split()[1] for l in open("/proc/self/fdinfo/%d" % fd) if l.startswith("map_id:")))
EOF
}

# The bpf objects of the kernel, one "KIND ID" a line, sorted.
objects() {
	local k
	for k in link map prog; do
		bpftool -j "$k" show | jq -r --arg k "$k" '.[] | "\($k) \(.id)"'
	done | sort
}

# The objects of an instance's struct_ops map $1: the map, its programs and
# every map they use, as "KIND ID" lines.
ops_objects() {
	local p
	echo "map $1"
	for p in $(bpftool -j struct_ops dump id "$1" | grep -o 'prog_id:[0-9]*' | cut -d: -f2 | sort -u); do
		echo "prog $p"
		bpftool -j prog show id "$p" | jq -r '.map_ids[]? | "map \(.)"'
	done
}

# Sockets of the sender's namespace to port $1 in state ESTAB that run $2 (ss -tin).
on_ca() {
	ports_on_ca "$1" "$2" | wc -l
}

# Their local ports, one a line, sorted: the same connections, not new ones.
ports_on_ca() {
	ip netns exec "$P-snd" ss -Htin state established "( dport = :$1 )" |
		awk -v ca="$2" 'NF == 4 { split($3, a, ":"); port = a[2] } $1 == ca { print port }' |
		sort -n
}

# A counter of nstat in namespace $1 (absolute, history untouched).
nstat_of() {
	ip netns exec "$1" nstat -saz "$2" | awk -v k="$2" '$1 == k { print $2 }'
}

# The build id of the exit records of local port $2 in trace output $1, one a line.
builds_of() {
	jq -r --argjson p "$2" 'select(.record == "exit" and .sport == $p) | .build_id' "$1" | sort -u
}

@test "32 open flows keep their programs across an upgrade, undisturbed; new flows get the new build" {
	kernel_has_links || skip "this kernel has no struct_ops links (Linux 6.4+)"
	before_load=$(objects)
	"$CUBICCTL" load --name "$NAME"
	"$CUBICCTL" set --name "$NAME" ack_train_shift=3 beta=700 >/dev/null
	tun_before=$("$CUBICCTL" -j get --name "$NAME" | jq -c .tunables)
	old=$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].build_id')
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].registration')" = link ]
	old_ops=$(link_map "$NAME")
	"$CUBICCTL" trace --name "$NAME" --json >"$BATS_TEST_TMPDIR/t.out" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.3

	# a flow opened and closed before the upgrade: the old build's record
	ip netns exec "$P-snd" iperf3 -c 10.77.2.2 -p 5202 -C "$NAME" -t 2 -J >"$BATS_TEST_TMPDIR/pre.json"
	pre_port=$(jq '.start.connected[0].local_port' "$BATS_TEST_TMPDIR/pre.json")
	# 32 long-lived flows at 1 Mbit/s each, open across the upgrade and the
	# flows after it (loading the new programs takes seconds: the verifier)
	ip netns exec "$P-snd" iperf3 -c 10.77.2.2 -p 5201 -C "$NAME" -P 32 -b 1M -t 20 -J \
		>"$BATS_TEST_TMPDIR/held.json" &
	HELD_PID=$!
	# one more, opened now and sending its bulk only after the upgrade
	go=$BATS_TEST_TMPDIR/go
	ip netns exec "$P-snd" /usr/bin/python3 "$IDLEFLOW" late 10.77.2.2 "$SINK_PORT" "$NAME" "$go" 2 \
		>"$BATS_TEST_TMPDIR/late.out" &
	LATE_PID=$!
	for _ in $(seq 100); do
		[ "$(on_ca 5201 "$NAME")" -ge 32 ] && grep -q connected "$BATS_TEST_TMPDIR/late.out" && break
		sleep 0.1
	done
	sleep 1
	held_before=$(on_ca 5201 "$NAME")
	[ "$held_before" -eq 32 ]
	ports_before=$(ports_on_ca 5201 "$NAME")
	# resets while every flow is open, across the upgrade (iperf3's close at
	# the end of a test resets connections with data still in flight)
	resets_snd=$(nstat_of "$P-snd" TcpEstabResets)
	resets_rcv=$(nstat_of "$P-rcv" TcpEstabResets)
	[ "$(on_ca "$SINK_PORT" "$NAME")" -eq 1 ]
	init_before=$(counter "$NAME" flows_init)
	records_before=$(counter "$NAME" records)
	[ "$init_before" -ge 34 ]
	[ "$records_before" -ge 1 ]
	ops_objects "$old_ops" >"$BATS_TEST_TMPDIR/ours"
	echo "link $(bpftool -j link show pinned "$PINS/$NAME/link" | jq .id)" >>"$BATS_TEST_TMPDIR/ours"

	t0=$(date +%s%N)
	run env CUBICCTL_BUILD_TAG="canary-$$" "$CUBICCTL" upgrade --name "$NAME"
	took_ms=$((($(date +%s%N) - t0) / 1000000))
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "upgraded $NAME: build $old -> "*" (new connections run "*"; "*" open ones keep $old until they close)" ]]
	new=$(sed -E 's/.* -> ([0-9a-f]{8}) .*/\1/' <<<"$output")
	[ "$new" != "$old" ]
	# the name never left: the same link, now on another struct_ops map, pinned as ops
	held_after=$(on_ca 5201 "$NAME")
	registered "$NAME"
	new_ops=$(link_map "$NAME")
	[ "$new_ops" != "$old_ops" ]
	[ "$(bpftool -j map show pinned "$PINS/$NAME/ops" | jq .id)" = "$new_ops" ]
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].build_id')" = "$new" ]
	ops_objects "$new_ops" >>"$BATS_TEST_TMPDIR/ours"
	# every open flow is still established and still on NAME, the same
	# connections a second later, and none was reset
	[ "$held_after" -eq 32 ]
	[ "$(on_ca "$SINK_PORT" "$NAME")" -eq 1 ]
	sleep 1
	[ "$(ports_on_ca 5201 "$NAME")" = "$ports_before" ]
	resets_snd_after=$(nstat_of "$P-snd" TcpEstabResets)
	resets_rcv_after=$(nstat_of "$P-rcv" TcpEstabResets)
	[ "$resets_snd_after" = "$resets_snd" ]
	[ "$resets_rcv_after" = "$resets_rcv" ]
	# the maps carried on: tunables as set, counters and records from where they were
	[ "$("$CUBICCTL" -j get --name "$NAME" | jq -c .tunables)" = "$tun_before" ]
	[ "$(counter "$NAME" flows_init)" -ge "$init_before" ]
	[ "$(counter "$NAME" records)" -ge "$records_before" ]

	# the flow opened before: its exit now, by the program it started with
	touch "$go"
	wait "$LATE_PID"
	LATE_PID=
	late_port=$(tail -n 1 "$BATS_TEST_TMPDIR/late.out" | jq .sport)
	# a flow opened after: the new build
	ip netns exec "$P-snd" iperf3 -c 10.77.2.2 -p 5202 -C "$NAME" -t 2 -J >"$BATS_TEST_TMPDIR/post.json"
	post_port=$(jq '.start.connected[0].local_port' "$BATS_TEST_TMPDIR/post.json")
	# the 32 are still the same connections, on the old build beside the new
	[ "$(ports_on_ca 5201 "$NAME")" = "$ports_before" ]
	wait "$HELD_PID"
	HELD_PID=
	sleep 0.5
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	[ "$(builds_of "$BATS_TEST_TMPDIR/t.out" "$pre_port")" = "$old" ]
	[ "$(builds_of "$BATS_TEST_TMPDIR/t.out" "$late_port")" = "$old" ]
	[ "$(builds_of "$BATS_TEST_TMPDIR/t.out" "$post_port")" = "$new" ]
	# the 32 flows ran their whole time, none reset
	jq -e '(.error | not) and (.end.streams | length) == 32 and
		([.end.streams[].sender.bytes] | min) > 0 and
		([.end.streams[].sender.seconds] | min) > 19' "$BATS_TEST_TMPDIR/held.json"
	echo "# 32 flows on $NAME: $held_before established before the upgrade (took $took_ms ms), $held_after after, the same 32 after the flows that followed; TcpEstabResets across it $((resets_snd_after - resets_snd)) (sender) $((resets_rcv_after - resets_rcv)) (receiver); build $old -> $new; exit records: flow before $old, open flow's exit after the upgrade $old, new flow $new; flows_init $init_before -> $(counter "$NAME" flows_init)" >&3

	# unload leaves no link, map or program of either build
	"$CUBICCTL" unload --name "$NAME"
	assert_gone "$NAME"
	for _ in $(seq 50); do
		left=$(comm -12 <(sort -u "$BATS_TEST_TMPDIR/ours") <(objects))
		[ -z "$left" ] && break
		sleep 0.1 # the kernel frees a struct_ops map a moment after its last user
	done
	echo "left: $left"
	[ -z "$left" ]
	# and nothing of ours is among what the kernel has now and had not before the load
	[ -z "$(comm -13 <(echo "$before_load") <(objects) | comm -12 - <(sort -u "$BATS_TEST_TMPDIR/ours"))" ]
}

@test "the fast datapath upgrades too: status, a new flow's record, unload" {
	kernel_has_links || skip "this kernel has no struct_ops links (Linux 6.4+)"
	"$CUBICCTL" load --name "$NAME" --datapath fast
	old=$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].build_id')
	run env CUBICCTL_BUILD_TAG="fast-$$" "$CUBICCTL" -j upgrade --name "$NAME"
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e --arg o "$old" --arg n "$NAME" '.name == $n and .upgraded and .old_build_id == $o and
		.new_build_id != $o and .datapath == "fast" and .maps_kept >= 4' <<<"$output"
	new=$(jq -r .new_build_id <<<"$output")
	st=$("$CUBICCTL" -j status --name "$NAME")
	jq -e --arg n "$new" '.instances[0] | .datapath == "fast" and .build_id == $n' <<<"$st"
	"$CUBICCTL" trace --name "$NAME" --json --port 5202 >"$BATS_TEST_TMPDIR/t.out" 2>/dev/null &
	TRACE_PID=$!
	sleep 0.3
	ip netns exec "$P-snd" iperf3 -c 10.77.2.2 -p 5202 -C "$NAME" -t 2 -J >"$BATS_TEST_TMPDIR/c.json"
	sleep 0.3
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID" || true
	TRACE_PID=
	port=$(jq '.start.connected[0].local_port' "$BATS_TEST_TMPDIR/c.json")
	[ "$(builds_of "$BATS_TEST_TMPDIR/t.out" "$port")" = "$new" ]
	"$CUBICCTL" unload --name "$NAME"
	assert_gone "$NAME"
}

@test "upgrade refuses with one sentence and its exit code, and changes nothing" {
	# not root
	bin=$(mktemp -d)
	cp "$CUBICCTL" "$bin/cubicctl"
	chmod 755 "$bin" "$bin/cubicctl"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/cubicctl" upgrade --name "$NAME"
	rm -rf "$bin"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cubicctl: upgrade: must be run as root"* ]]
	# bad usage
	for args in "--name a/b" "--name $NAME extra" "--bogus" "--name $NAME --name $NAME"; do
		run "$CUBICCTL" upgrade $args
		[ "$status" -eq 2 ] || { echo "$args: exit $status: $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
	done
	# no such instance
	run "$CUBICCTL" upgrade --name "$NAME"
	[ "$status" -eq 3 ]
	[ "$output" = "cubicctl: upgrade: $NAME is not loaded" ]
	rc=0
	out=$("$CUBICCTL" -j upgrade --name "$NAME" 2>/dev/null) || rc=$?
	[ "$rc" -eq 3 ]
	[ "$(jq -r .error <<<"$out")" = "$NAME is not loaded" ]
	[ ! -e "$PINS/$NAME" ]
	kernel_has_links || skip "the refusals of a kernel with links"

	# registered in map mode: the command that reloads it, with its settings
	CUBICCTL_LINK=0 "$CUBICCTL" load --name "$NAME" --datapath fast --ring-size 65536 beta=700
	pins=$(pins_of "$NAME")
	run "$CUBICCTL" upgrade --name "$NAME"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: upgrade: $NAME is registered in map mode (by an older cubicctl, or loaded with CUBICCTL_LINK=0), which the kernel can't update in place; reload it: cubicctl unload --name $NAME && cubicctl load --name $NAME --datapath fast --ring-size 65536 beta=700" ]
	[ "$(pins_of "$NAME")" = "$pins" ]
	registered "$NAME"
	# and that command does it (in link mode, which upgrade can update)
	PATH="$REPO:$PATH" bash -c "${output##*reload it: }" >/dev/null
	st=$("$CUBICCTL" -j status --name "$NAME")
	jq -e '.instances[0] | .registration == "link" and .datapath == "fast" and .tunables.beta == 700' <<<"$st"
	[ "$(bpftool -j map show pinned "$PINS/$NAME/events" | jq .max_entries)" -eq 65536 ]

	# another ABI
	pins=$(pins_of "$NAME")
	build=$(jq -r '.instances[0].build_id' <<<"$st")
	info=$PINS/$NAME/info
	saved=$(bpftool -j map lookup pinned "$info" key 0 0 0 0 | jq -r '.value | join(" ")')
	bpftool map update pinned "$info" key 0 0 0 0 value 0x63 0 0 0 $(cut -d' ' -f5- <<<"$saved")
	run "$CUBICCTL" upgrade --name "$NAME"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: upgrade: $NAME was loaded with ABI version 99 and this cubicctl's is $("$CUBICCTL" -j --version | jq .abi_version), so the new programs can't share its maps; reload it (its tunables, which this cubicctl can't read, go back to the defaults): cubicctl unload --name $NAME && cubicctl load --name $NAME --datapath fast --ring-size 65536" ]
	[ "$(pins_of "$NAME")" = "$pins" ]
	bpftool map update pinned "$info" key 0 0 0 0 value $saved

	# a map whose layout is not this build's: counters with 8-byte values
	bpftool map create "$PINS/$NAME/counters_other" type percpu_array key 4 value 8 entries 1 name counters
	mv "$PINS/$NAME/counters" "$PINS/$NAME/counters_saved"
	mv "$PINS/$NAME/counters_other" "$PINS/$NAME/counters"
	pins=$(pins_of "$NAME")
	ops=$(link_map "$NAME")
	run "$CUBICCTL" upgrade --name "$NAME"
	[ "$status" -eq 1 ]
	[[ "$output" == "cubicctl: upgrade: $NAME's map 'counters' has 4-byte keys and 8-byte values, this build's 4 and "*", so this build can't share it; reload it: cubicctl unload --name $NAME && cubicctl load --name $NAME --datapath fast --ring-size 65536 beta=700" ]]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(pins_of "$NAME")" = "$pins" ]
	[ "$(link_map "$NAME")" = "$ops" ]
	rm "$PINS/$NAME/counters"
	mv "$PINS/$NAME/counters_saved" "$PINS/$NAME/counters"
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].build_id')" = "$build" ]
	registered "$NAME"
}

@test "without struct_ops links (before Linux 6.4) upgrade refuses with one sentence" {
	! kernel_has_links || skip "this kernel has struct_ops links"
	"$CUBICCTL" load --name "$NAME"
	pins=$(pins_of "$NAME")
	run "$CUBICCTL" upgrade --name "$NAME"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: upgrade: this kernel has no struct_ops links (Linux 6.4 added them), so an instance can't be upgraded in place, only unloaded and loaded again" ]
	[ "$(pins_of "$NAME")" = "$pins" ]
	registered "$NAME"
}

@test "an upgrade cut short before its re-pin: status follows the link, upgrade and unload finish it" {
	kernel_has_links || skip "this kernel has no struct_ops links (Linux 6.4+)"
	"$CUBICCTL" load --name "$NAME"
	old_ops=$(link_map "$NAME")
	# the state a kill between the link's update and the new map's pin leaves:
	# the link on the new map, the ops pin on the old one
	bpftool map pin id "$old_ops" "$PINS/$NAME/ops_old"
	CUBICCTL_BUILD_TAG="cut-$$" "$CUBICCTL" upgrade --name "$NAME" >/dev/null
	new=$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].build_id')
	mv "$PINS/$NAME/ops_old" "$PINS/$NAME/ops"
	[ "$(bpftool -j map show pinned "$PINS/$NAME/ops" | jq .id)" = "$old_ops" ]
	[ "$(link_map "$NAME")" != "$old_ops" ]
	st=$("$CUBICCTL" -j status --name "$NAME")
	jq -e --arg n "$new" '.instances[0] | .state == "registered" and .build_id == $n' <<<"$st"
	# upgrading again starts from what the link runs, and pins it
	run env CUBICCTL_BUILD_TAG="again-$$" "$CUBICCTL" upgrade --name "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == "upgraded $NAME: build $new -> "* ]]
	[ "$(bpftool -j map show pinned "$PINS/$NAME/ops" | jq .id)" = "$(link_map "$NAME")" ]
	run "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 0 ]
	assert_gone "$NAME"
}
