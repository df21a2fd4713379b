#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The foundation: load, carry real TCP flows, stay loaded, unload cleanly, and
# fail clearly (changing nothing) on the common mistakes.

load lib

setup() {
	ensure_fs
	NAME=$(test_name)
	NS=ns$NAME
}

teardown() {
	netns_del "$NS-a" "$NS-b"
	for n in "$NAME" "${NAME}b" "${NAME}c"; do
		force_unload "$n"
		assert_gone "$n"
	done
	other_bpffs_cleanup
}

@test "load registers the instance, pins its maps and exits; status tells the truth" {
	run "$CUBICCTL" load --name "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == *"loaded $NAME"* ]]
	registered "$NAME"
	for pin in ops tunables counters info; do
		[ -e "/sys/fs/bpf/cubicctl/$NAME/$pin" ]
	done
	# `run` waited for cubicctl to exit; the kernel still has the instance
	run "$CUBICCTL" -j status --name "$NAME"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.instances[0].registered' <<<"$output")" = true ]
	[ "$(jq -r '.instances[0].tunables.beta' <<<"$output")" = 717 ]
	run "$CUBICCTL" status --name "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$NAME: registered"* ]]
}

@test "iperf3 -C NAME between two namespaces runs on our code" {
	"$CUBICCTL" load --name "$NAME"
	netns_pair "$NS"
	# both ends process their packets off CPU 0, where pid1-aside keeps PID 1
	# (tools/lib/netns.sh, netns_rps_aside; docs/IMPOSSIBLE_WINDOWS.md)
	if [ "$(nproc --all)" -ge 2 ]; then
		for ns in "$NS-a" "$NS-b"; do
			m=$(ip netns exec "$ns" cat /sys/class/net/veth0/queues/rx-0/rps_cpus | tr -d ',')
			[ $(((16#$m & 1) == 0 && 16#$m != 0)) -eq 1 ]
		done
	fi
	iperf_server "$NS-b"
	window_watch "$NS-a" "$VETH_BOUND" "$NAME on a veth" \
		ip netns exec "$NS-a" iperf3 -c 10.98.0.2 -C "$NAME" -t 3 -J >"$BATS_TEST_TMPDIR/c.json" &
	client=$!
	sleep 1.5
	# the kernel reports our algorithm on the live socket
	ip netns exec "$NS-a" ss -tin dst 10.98.0.2 >"$BATS_TEST_TMPDIR/ss.txt"
	[ "$(counter "$NAME" flows_init)" -ge 1 ]
	sockets_during=$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].sockets')
	wait $client
	assert_iperf_windows "$BATS_TEST_TMPDIR/c.json" "$VETH_BOUND"
	grep -q "$NAME" "$BATS_TEST_TMPDIR/ss.txt"
	[ "$(jq -r '.end.sender_tcp_congestion' "$BATS_TEST_TMPDIR/c.json")" = "$NAME" ]
	bps=$(jq -r '.end.sum_received.bits_per_second' "$BATS_TEST_TMPDIR/c.json")
	# a working congestion control moves real data: at least 100 Mbit/s on a veth
	awk -v b="$bps" 'BEGIN { exit !(b > 100e6) }'
	[ "$sockets_during" -ge 1 ]
	# and the sockets are counted out again when they close
	sleep 0.5
	[ "$("$CUBICCTL" -j status --name "$NAME" | jq -r '.instances[0].sockets')" -eq 0 ]
}

@test "unload removes the name from the kernel and every pin" {
	"$CUBICCTL" load --name "$NAME"
	run "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 0 ]
	assert_gone "$NAME"
	run "$CUBICCTL" status --name "$NAME"
	[ "$status" -eq 3 ]
	[[ "$output" == *"$NAME is not loaded"* ]]
}

@test "loading a name twice fails clearly and changes nothing" {
	"$CUBICCTL" load --name "$NAME"
	id_before=$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$NAME/ops" | jq .id)
	run "$CUBICCTL" load --name "$NAME"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$NAME is already loaded"* ]]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	registered "$NAME"
	[ "$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$NAME/ops" | jq .id)" = "$id_before" ]
	[ "$(tr ' ' '\n' <"$AVAILABLE" | grep -cx "$NAME")" -eq 1 ]
}

@test "a name registered by someone else is refused" {
	run "$CUBICCTL" load --name reno
	[ "$status" -eq 1 ]
	[[ "$output" == *"'reno' is already registered by something other than cubicctl"* ]]
	[ ! -e /sys/fs/bpf/cubicctl/reno ]
}

@test "unloading what is not loaded exits 3" {
	run "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 3 ]
	[ "$output" = "cubicctl: unload: $NAME is not loaded" ]
	run "$CUBICCTL" unload --name cubic
	[ "$status" -eq 3 ]
	[[ "$output" == *"registered, but not by cubicctl"* ]]
	registered cubic
}

@test "an unprivileged user gets one clear sentence and changes nothing" {
	bin=$(mktemp -d)
	cp "$CUBICCTL" "$bin/cubicctl"
	chmod 755 "$bin" "$bin/cubicctl"
	for cmd in "load --name $NAME" "unload --name $NAME" "status"; do
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/cubicctl" $cmd
		[ "$status" -eq 1 ]
		[[ "$output" == *"must be run as root"* ]]
		[ "$(echo "$output" | wc -l)" -eq 1 ]
	done
	rm -rf "$bin"
	assert_gone "$NAME"
}

@test "bad arguments exit 2 and change nothing" {
	run "$CUBICCTL" load --name "a/b"
	[ "$status" -eq 2 ]
	run "$CUBICCTL" load --name "this_is_far_too_long"
	[ "$status" -eq 2 ]
	run "$CUBICCTL" load --name "$NAME" --bogus
	[ "$status" -eq 2 ]
	run "$CUBICCTL" load --name "$NAME" beta=0
	[ "$status" -eq 2 ]
	[[ "$output" == *"beta: 0 is out of range"* ]]
	run "$CUBICCTL" frobnicate
	[ "$status" -eq 2 ]
	assert_gone "$NAME"
}

@test "a load killed halfway leaves a leftover that status reports and load cleans" {
	# registered through a struct_ops link (Linux 6.4+) and in map mode
	for link in $(link_modes); do
		export CUBICCTL_LINK=$link
		"$CUBICCTL" load --name "$NAME"
		# the state of a load killed after pinning, before registering
		id=$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$NAME/ops" | jq .id)
		unregister_behind "$NAME"
		run registered "$NAME"
		[ "$status" -ne 0 ]
		run "$CUBICCTL" -j status --name "$NAME"
		[ "$status" -eq 0 ]
		[ "$(jq -r '.instances[0].state' <<<"$output")" = leftover ]
		run "$CUBICCTL" load --name "$NAME"
		[ "$status" -eq 0 ]
		[[ "$output" == *"removed the leftovers of an interrupted load"* ]]
		registered "$NAME"
		[ "$(bpftool -j map show pinned "/sys/fs/bpf/cubicctl/$NAME/ops" | jq .id)" != "$id" ]
		"$CUBICCTL" unload --name "$NAME"
	done
}

@test "a load killed between pins is cleaned by unload" {
	for link in $(link_modes); do
		export CUBICCTL_LINK=$link
		"$CUBICCTL" load --name "$NAME"
		unregister_behind "$NAME"
		rm "/sys/fs/bpf/cubicctl/$NAME/ops" "/sys/fs/bpf/cubicctl/$NAME/counters"
		run "$CUBICCTL" status --name "$NAME"
		[ "$status" -eq 0 ]
		[[ "$output" == *"not registered (leftover"* ]]
		run "$CUBICCTL" unload --name "$NAME"
		[ "$status" -eq 0 ]
		[[ "$output" == *"removed the leftovers"* ]]
		assert_gone "$NAME"
	done
}

@test "a registration whose pins were lost is found and unloaded" {
	for link in $(link_modes); do
		export CUBICCTL_LINK=$link
		"$CUBICCTL" load --name "$NAME"
		# in link mode another bpffs keeps its link (and registration) alive
		lose_pins "$NAME"
		run "$CUBICCTL" load --name "$NAME"
		[ "$status" -eq 1 ]
		[[ "$output" == *"pins are gone"* ]]
		run "$CUBICCTL" unload --name "$NAME"
		[ "$status" -eq 0 ]
		assert_gone "$NAME"
		other_bpffs_cleanup
	done
}

@test "unload refuses while the instance is the default, --force restores one" {
	"$CUBICCTL" load --name "$NAME"
	ip netns add "$NS-a"
	nsenter --net="/run/netns/$NS-a" sysctl -qw net.ipv4.tcp_congestion_control="$NAME"
	# a namespace other than the host's may make only an allowed algorithm
	# its default, and reno always is: what the refusal names is what
	# --force sets (it once said cubic and set reno)
	want=reno
	grep -qw cubic /proc/sys/net/ipv4/tcp_allowed_congestion_control && want=cubic
	run nsenter --net="/run/netns/$NS-a" "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: unload: $NAME is the system default congestion control (net.ipv4.tcp_congestion_control); set another default first, or use --force to set it to $want" ]
	registered "$NAME"
	run nsenter --net="/run/netns/$NS-a" "$CUBICCTL" unload --name "$NAME" --force
	[ "$status" -eq 0 ]
	[[ "$output" == *"net.ipv4.tcp_congestion_control was $NAME; set it to $want"* ]]
	[ "$(nsenter --net="/run/netns/$NS-a" cat /proc/sys/net/ipv4/tcp_congestion_control)" = "$want" ]
	assert_gone "$NAME"
}

@test "a repeated option is refused: exit 2, and nothing changes" {
	"$CUBICCTL" load --name "$NAME"
	"$CUBICCTL" load --name "${NAME}b"
	# it once unloaded the second name and exited 0
	run "$CUBICCTL" unload --name "$NAME" --name "${NAME}b"
	[ "$status" -eq 2 ]
	[ "$output" = "cubicctl: unload: --name: given twice" ]
	registered "$NAME"
	registered "${NAME}b"
	for cmd in "load --name ${NAME}c --preset off --preset linux" "status --prometheus --prometheus" \
		"set --name $NAME --name $NAME beta=700" "get --name=$NAME --name $NAME" \
		"trace --count 1 --count 2" "unload --force --force --name ${NAME}b"; do
		run "$CUBICCTL" $cmd
		[ "$status" -eq 2 ] || { echo "$cmd: exit $status: $output"; false; }
		[[ "$output" == "cubicctl: ${cmd%% *}: --"*": given twice" ]]
	done
	run registered "${NAME}c"
	[ "$status" -ne 0 ]
	[ "$("$CUBICCTL" -j get --name "$NAME" | jq .tunables.beta)" -eq 717 ]
	"$CUBICCTL" unload --name "${NAME}b"
	assert_gone "${NAME}b"
}

@test "every parse error has one wording, exit 2, and under -j is also {\"error\"} on stdout" {
	for c in "load --bogus|--bogus: unknown option (see 'cubicctl load --help')" \
		"load --name|--name: needs a value (NAME)" \
		"unload --force=yes|--force: takes no value" \
		"status extra|'extra': unexpected argument (see 'cubicctl status --help')" \
		"load --ring-size 5|--ring-size: '5' is not a power of 2 from 4096 to 1073741824 bytes" \
		"trace --port 70000|--port: '70000' is not a port number (0..65535)" \
		"load --config a --config-optional b|--config-optional: not together with --config (one or the other)"; do
		cmd=${c%%|*}
		verb=${cmd%% *}
		rest=${cmd#* }
		want="cubicctl: $verb: ${c#*|}"
		run "$CUBICCTL" $verb --name "$NAME" $rest
		[ "$status" -eq 2 ] || { echo "$cmd: exit $status: $output"; false; }
		[ "$output" = "$want" ] || { echo "$cmd: '$output' is not '$want'"; false; }
		# the same with -j before or after: the sentence on stderr, the object on stdout
		for j in before after; do
			if [ $j = before ]; then
				"$CUBICCTL" -j $verb --name "$NAME" $rest >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
			else
				"$CUBICCTL" $verb --name "$NAME" -j $rest >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
			fi
			[ "$rc" -eq 2 ]
			[ "$(cat "$BATS_TEST_TMPDIR/err")" = "$want" ]
			[ "$(jq -r .error "$BATS_TEST_TMPDIR/out")" = "${want#cubicctl: $verb: }" ]
		done
	done
	# exit 3 keeps its code under -j, with the error as data
	"$CUBICCTL" unload --name "$NAME" -j >"$BATS_TEST_TMPDIR/out" 2>/dev/null && rc=0 || rc=$?
	[ "$rc" -eq 3 ]
	[ "$(jq -c . "$BATS_TEST_TMPDIR/out")" = "{\"error\":\"$NAME is not loaded\"}" ]
	assert_gone "$NAME"
}

@test "-j and -v work after the command as before it" {
	"$CUBICCTL" load --name "$NAME" -v
	[ "$("$CUBICCTL" status --name "$NAME" -j | jq -r '.instances[0].state')" = registered ]
	[ "$("$CUBICCTL" get -j --name "$NAME" beta | jq .tunables.beta)" -eq 717 ]
	run "$CUBICCTL" status -v --name "$NAME"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$NAME: registered"* ]]
	[ "$("$CUBICCTL" unload --name "$NAME" --json | jq -r .unregistered)" = true ]
	assert_gone "$NAME"
}

@test "help COMMAND and COMMAND --help print that command's help on stdout" {
	for cmd in load unload status set get trace flows policers attach detach upgrade help; do
		run "$CUBICCTL" help "$cmd"
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "usage: cubicctl $cmd "* ]] || { echo "help $cmd: ${lines[0]}"; false; }
		help_out=$output
		[ "$("$CUBICCTL" "$cmd" --help 2>/dev/null)" = "$help_out" ]
		[ "$("$CUBICCTL" "$cmd" -h 2>/dev/null)" = "$help_out" ]
	done
	run "$CUBICCTL" help nosuch
	[ "$status" -eq 2 ]
	[ "$output" = "cubicctl: help: 'nosuch': unknown command (see 'cubicctl help')" ]
	# the options JSON is the option tables: load's, with their values
	[ "$("$CUBICCTL" help --options-json | jq -r '.commands[] | select(.name == "load") | .options[] | select(.name == "datapath") | .value')" = "exact|fast" ]
	[ "$("$CUBICCTL" -j help | jq -r '[.commands[].name] | join(" ")')" = "load unload status set get trace flows policers attach detach upgrade help" ]
}

@test "output that can't be written exits 1 with one sentence" {
	"$CUBICCTL" load --name "$NAME"
	# it once exited 0
	run bash -c '"$0" status --prometheus --name "$1" >/dev/full' "$CUBICCTL" "$NAME"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: status: can't write the output: No space left on device" ]
	run bash -c '"$0" -j status --name "$1" >/dev/full' "$CUBICCTL" "$NAME"
	[ "$status" -eq 1 ]
	[ "$output" = "cubicctl: status: can't write the output: No space left on device" ]
	# a closed pipe: its reading end closed before cubicctl writes
	run /usr/bin/python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, text=True)
print(p.returncode, p.stderr.strip())' "$CUBICCTL" status --name "$NAME"
	[ "$output" = "1 cubicctl: status: can't write the output: Broken pipe" ]
	registered "$NAME"
}

# As nobody: setsockopt(TCP_CONGESTION, $1), then print what the socket uses.
select_as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[1].encode())
print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode())' "$1"
}

@test "unprivileged programs may select a loaded instance" {
	"$CUBICCTL" load --name "$NAME"
	run select_as_nobody "$NAME"
	[ "$status" -eq 0 ]
	[ "$output" = "$NAME" ]
	# it is the allowed list that lets them: without it the kernel says no
	allowed=$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)
	echo "${allowed//$NAME/}" >/proc/sys/net/ipv4/tcp_allowed_congestion_control
	run select_as_nobody "$NAME"
	[ "$status" -ne 0 ]
	[[ "$output" == *"PermissionError"* ]]
	"$CUBICCTL" unload --name "$NAME"
	run grep -qw "$NAME" /proc/sys/net/ipv4/tcp_allowed_congestion_control
	[ "$status" -ne 0 ]
}

@test "an impossible window fails window_watch and assert_iperf_windows, naming the flow and value" {
	netns_pair "$NS"
	iperf_server "$NS-b"
	# every cwnd is above a bound of 5 packets: impossible for the watch
	run window_watch "$NS-a" 5 "bound 5" ip netns exec "$NS-a" iperf3 -c 10.98.0.2 -t 1 -J
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"IMPOSSIBLE WINDOW: bound 5: "*" flow 10.98.0.1:"*" > 10.98.0.2:5201 at t="*"cwnd "*" > bound 5 packets"* ]]
	[[ $output == *"window_watch: bound 5: impossible window"* ]]
	# the command's own status comes back when nothing is impossible
	run window_watch "$NS-a" "$VETH_BOUND" "true" true
	[ "$status" -eq 0 ]
	run window_watch "$NS-a" "$VETH_BOUND" "false" false
	[ "$status" -eq 1 ]
	# iperf3 JSON: max_snd_cwnd is in bytes
	echo '{"end": {"streams": [{"sender": {"max_snd_cwnd": 14480}}]}}' >"$BATS_TEST_TMPDIR/ok.json"
	echo '{"end": {"streams": [{"sender": {"max_snd_cwnd": 4715811648}}]}}' >"$BATS_TEST_TMPDIR/bad.json"
	assert_iperf_windows "$BATS_TEST_TMPDIR/ok.json" 1568
	run assert_iperf_windows "$BATS_TEST_TMPDIR/bad.json" 1568
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"IMPOSSIBLE WINDOW: $BATS_TEST_TMPDIR/bad.json: snd_cwnd 3256776 packets > bound 1568"* ]]
}
