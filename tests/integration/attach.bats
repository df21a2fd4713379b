#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# cubicctl attach/detach (issue 22): a cgroup's connections on an instance
# without touching the application, read back from the sockets themselves;
# routes that name an instance. Throw-away instance, namespaces and cgroups;
# nothing of them is left.

load lib

ATTACH_ROOT=/sys/fs/bpf/cubicctl-attach

# the cgroup v2 mount, wherever it is (Debian 12: /sys/fs/cgroup; a hybrid
# layout: /sys/fs/cgroup/unified)
cgroup2_mount() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}

setup() {
	[[ $EUID -eq 0 ]] || skip "needs root"
	ensure_fs
	NAME=$(test_name)
	NS="bta$(( $$ % 10000 ))$(( RANDOM % 100 ))"
	CG2=$(cgroup2_mount)
	[ -n "$CG2" ] || skip "no cgroup v2 hierarchy mounted"
	CG="$CG2/bct_attach_$$_$RANDOM"
	CG_OUT="$CG2/bct_outside_$$_$RANDOM"
	mkdir "$CG" "$CG_OUT"
	netns_pair "$NS"
	# a second address on the receiver, for --dst
	ip -n "$NS-b" addr add 10.98.0.3/24 dev veth0
	"$CUBICCTL" load --name "$NAME" >/dev/null
}

teardown() {
	local id
	[ -n "${SRV_PID:-}" ] && kill "$SRV_PID" 2>/dev/null
	for id in $(attachments_of "$NAME"); do "$CUBICCTL" detach --id "$id" >/dev/null 2>&1; done
	[ -n "${NAME:-}" ] && force_unload "$NAME"
	[ -n "${NS:-}" ] && netns_del "$NS-a" "$NS-b"
	for cg in "${CG:-}" "${CG_OUT:-}"; do
		[ -n "$cg" ] && [ -d "$cg" ] && { cat "$cg/cgroup.procs" 2>/dev/null | while read -r p; do echo "$p" >"$CG2/cgroup.procs"; done; rmdir "$cg"; }
	done
	true
}

# the ids of the attachments that select instance NAME
attachments_of() {
	"$CUBICCTL" -j status --name "$1" 2>/dev/null |
		jq -r '.instances[0].attachments[]?.id' 2>/dev/null
}

# ids_under DIR...: the BPF objects pinned under the folders (maps, links) and
# what they hold: the programs that use those maps (and every map those use),
# the links' programs. Taken while they exist; all must be gone after unload.
ids_under() {
	local f pinned
	pinned=$(for f in $(find "$@" -type f 2>/dev/null); do
		bpftool -j map show pinned "$f" 2>/dev/null | jq -r '.id // empty'
	done | paste -sd, -)
	# (an instance's own link, in link mode, is a struct_ops link: no program)
	for f in $(find "$@" -name link -type f 2>/dev/null); do
		bpftool -j link show pinned "$f" | jq -r '"link \(.id)", (select(.prog_id > 0) | "prog \(.prog_id)")'
	done
	[ -n "$pinned" ] || return 0
	bpftool -j prog show | jq -r --argjson p "[$pinned]" '
		[.[] | select((.map_ids // []) - $p != (.map_ids // []))] as $ours |
		($p[] | "map \(.)"), ($ours[] | "prog \(.id)"), ($ours[].map_ids[] | "map \(.)")'
}

# the ids of the list that still exist
ids_left() {
	local kind id
	while read -r kind id; do
		[ -n "$kind" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 && echo "$kind $id"
	done <<<"$1"
	true
}

# in_cgroup CG NETNS CMD...: CMD in cgroup CG and network namespace NETNS.
# (ip netns exec mounts a sysfs of its own, where the cgroup is not: join it first)
in_cgroup() {
	local cg=$1 ns=$2
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec ip netns exec "$0" "$@"' "$ns" "$cg" "$@"
}

# conn_cc ADDR PORT LABEL: connect from here to ADDR:PORT; print LABEL and the
# congestion control the connection's socket uses (getsockopt) and that ss shows
CONN_PY='
import socket, subprocess, sys
addr, port, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = socket.create_connection((addr, port))
cc = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
ss = subprocess.run(["ss", "-Htin", "sport = :%d" % c.getsockname()[1]], capture_output=True, text=True).stdout
print(label, cc, "ss:" + ("yes" if (" " + cc + " ") in ss.replace("\n", " ") else "no"))
c.close()
'

# serve PORT: accept connections on PORT in NS-b; for each, print the congestion
# control of the accepted socket to $BATS_TEST_TMPDIR/srv (run from a cgroup or not)
SRV_PY='
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen()
out = open(sys.argv[2], "a", buffering=1)
while True:
    a, _ = s.accept()
    out.write(a.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode() + "\n")
    a.close()
'

serve() { # CGROUP|"" PORT
	: >"$BATS_TEST_TMPDIR/srv"
	if [ -n "$1" ]; then
		in_cgroup "$1" "$NS-b" /usr/bin/python3 -c "$SRV_PY" "$2" "$BATS_TEST_TMPDIR/srv" &
	else
		ip netns exec "$NS-b" /usr/bin/python3 -c "$SRV_PY" "$2" "$BATS_TEST_TMPDIR/srv" &
	fi
	SRV_PID=$!
	for _ in $(seq 50); do
		ip netns exec "$NS-b" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

@test "attach: a process in the cgroup gets the instance for outbound and inbound connections; others keep the default" {
	run "$CUBICCTL" attach --name "$NAME" --cgroup "$CG"
	[ "$status" -eq 0 ]
	[[ $output =~ ^attached\ ([0-9]+): ]]
	serve "$CG" 7301
	out=$(in_cgroup "$CG" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.2 7301 inside)
	[ "$out" = "inside $NAME ss:yes" ]
	out=$(in_cgroup "$CG_OUT" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.2 7301 outside)
	[ "$out" = "outside reno ss:yes" ]
	sleep 0.2
	# the server is in the cgroup: both accepted sockets run the instance
	[ "$(cat "$BATS_TEST_TMPDIR/srv")" = "$NAME"$'\n'"$NAME" ]
	# status counts them: 3 connections made or accepted in the cgroup, all switched
	st=$("$CUBICCTL" -j status --name "$NAME")
	jq -e --arg cg "$CG" '.instances[0].attachments | length == 1 and .[0].cgroup == $cg and .[0].rules == "all"
		and .[0].switched == 3 and .[0].failed == 0 and .[0].attached' <<<"$st"
}

@test "attach --dst: only connections toward the prefix; --port: only that port" {
	"$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --dst 10.98.0.2/32 --dst 2001:db8::/32 >/dev/null
	serve "" 7302
	[ "$(in_cgroup "$CG" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.2 7302 in)" = "in $NAME ss:yes" ]
	[ "$(in_cgroup "$CG" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.3 7302 out)" = "out reno ss:yes" ]
	st=$("$CUBICCTL" -j status --name "$NAME")
	jq -e '.instances[0].attachments[0] | .switched == 1 and .skipped == 1 and .rules == "dst 10.98.0.2/32 dst 2001:db8::/32"' <<<"$st"
	"$CUBICCTL" detach --name "$NAME" --cgroup "$CG" >/dev/null
	"$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --port 7303 >/dev/null
	kill "$SRV_PID"
	serve "" 7303
	[ "$(in_cgroup "$CG" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.3 7303 port)" = "port $NAME ss:yes" ]
	kill "$SRV_PID"
	serve "" 7304
	[ "$(in_cgroup "$CG" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.3 7304 other)" = "other reno ss:yes" ]
}

@test "detach and unload leave no program, link, pin or map behind" {
	"$CUBICCTL" attach --name "$NAME" --cgroup "$CG" >/dev/null
	"$CUBICCTL" attach --name "$NAME" --cgroup "$CG_OUT" --dst 10.0.0.0/8 >/dev/null
	[ "$(attachments_of "$NAME" | wc -l)" -eq 2 ]
	ids=$(sort -u <(ids_under "/sys/fs/bpf/cubicctl/$NAME" $(for i in $(attachments_of "$NAME"); do echo "$ATTACH_ROOT/$i"; done)))
	echo "$ids"
	# the instance's programs and maps (and its struct_ops link, in link
	# mode), each attachment's link, program and maps
	own=0
	[ -e "/sys/fs/bpf/cubicctl/$NAME/link" ] && own=1
	[ "$(grep -c '^link ' <<<"$ids")" -eq $((2 + own)) ]
	[ "$(grep -c '^prog ' <<<"$ids")" -ge 8 ]
	# an instance that attachments name is not unloaded: one sentence, exit 1, nothing changed
	run "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 1 ]
	[[ $output == *"attachment"*"detach"* ]]
	registered "$NAME"
	[ "$(attachments_of "$NAME" | wc -l)" -eq 2 ]
	# --force detaches them first
	"$CUBICCTL" unload --name "$NAME" --force
	assert_gone "$NAME"
	[ -z "$(ls -A "$ATTACH_ROOT" 2>/dev/null | grep -v '^$' | while read -r d; do grep -l "$CG" "$ATTACH_ROOT/$d/cgroup" 2>/dev/null; done)" ]
	[ -z "$(bpftool cgroup show "$CG" 2>/dev/null | grep -i sock_ops)" ]
	# every program, map and link the load and the attachments made is gone (they
	# are freed after an RCU grace period: a few seconds at most)
	for _ in $(seq 50); do [ -z "$(ids_left "$ids")" ] && break; sleep 0.1; done
	[ -z "$(ids_left "$ids")" ]
	NAME=
}

@test "attach refuses bad input, overlapping rules and a missing instance, with one sentence, changing nothing" {
	n0=$(ls "$ATTACH_ROOT" 2>/dev/null | wc -l)
	run "$CUBICCTL" attach --name "$NAME" --cgroup /nonexistent/cg
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$CUBICCTL" attach --name "$NAME" --cgroup /tmp
	[ "$status" -eq 2 ]
	[[ $output == *"not a cgroup v2 folder"* ]]
	run "$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --dst 10.1.2.3/33
	[ "$status" -eq 2 ]
	run "$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --port 70000
	[ "$status" -eq 2 ]
	run "$CUBICCTL" attach --name nosuch_inst --cgroup "$CG"
	[ "$status" -eq 3 ]
	[ "$(ls "$ATTACH_ROOT" 2>/dev/null | wc -l)" -eq "$n0" ]
	"$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --dst 10.0.0.0/8 >/dev/null
	run "$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --dst 10.5.0.0/16
	[ "$status" -eq 2 ]
	[[ $output == *"overlap"* ]]
	run "$CUBICCTL" attach --name "$NAME" --cgroup "$CG"
	[ "$status" -eq 2 ]
	# apart: another prefix is fine
	"$CUBICCTL" attach --name "$NAME" --cgroup "$CG" --dst 192.0.2.0/24 >/dev/null
	[ "$(attachments_of "$NAME" | wc -l)" -eq 2 ]
	run "$CUBICCTL" detach --id 999999
	[ "$status" -eq 3 ]
	# not root: refused before anything is read or made
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$CUBICCTL" attach --name "$NAME" --cgroup "$CG"
	[ "$status" -ne 0 ]
	[[ $output == *"root"* ]]
	[ "$(attachments_of "$NAME" | wc -l)" -eq 2 ]
}

@test "routes: ip route congctl takes an instance; status lists the route and unload refuses while it is there" {
	ip -n "$NS-a" route add 10.97.0.0/24 dev veth0 congctl "$NAME"
	ip -n "$NS-a" route add 10.96.0.0/24 dev veth0 congctl lock "$NAME"
	st=$(nsenter --net="/run/netns/$NS-a" "$CUBICCTL" -j status --name "$NAME")
	jq -e '.instances[0].routes | length == 2 and (map(.route) | sort == ["10.96.0.0/24 dev veth0", "10.97.0.0/24 dev veth0"]) and (map(.locked) | sort == [false, true])' <<<"$st"
	run nsenter --net="/run/netns/$NS-a" "$CUBICCTL" unload --name "$NAME"
	[ "$status" -eq 1 ]
	[[ $output == *"route"* ]]
	registered "$NAME"
	ip -n "$NS-a" route del 10.97.0.0/24
	ip -n "$NS-a" route del 10.96.0.0/24
	nsenter --net="/run/netns/$NS-a" "$CUBICCTL" unload --name "$NAME"
	assert_gone "$NAME"
	NAME=
}

@test "load --config with attach= lines binds the instance at load; unload --force detaches them" {
	"$CUBICCTL" unload --name "$NAME" >/dev/null
	rel=${CG#"$CG2"/}
	printf 'preset=predict\nattach=%s\nattach=%s dst=10.98.0.2/32 port=7305\n' "$rel" "$CG_OUT" >"$BATS_TEST_TMPDIR/c.conf"
	run "$CUBICCTL" load --name "$NAME" --config "$BATS_TEST_TMPDIR/c.conf"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"attached "*": $NAME for $CG (all)"* ]]
	[[ $output == *"attached "*": $NAME for $CG_OUT (dst 10.98.0.2/32 port 7305)"* ]]
	[ "$(attachments_of "$NAME" | wc -l)" -eq 2 ]
	serve "" 7305
	[ "$(in_cgroup "$CG" "$NS-a" /usr/bin/python3 -c "$CONN_PY" 10.98.0.2 7305 conf)" = "conf $NAME ss:yes" ]
	# a config whose attachment cannot be made loads nothing (all or nothing)
	run "$CUBICCTL" load --name "${NAME}x" --config "$BATS_TEST_TMPDIR/c.conf"
	[ "$status" -eq 1 ]
	[[ $output == *"c.conf:2: not loaded: the attachment failed"* ]]
	! registered "${NAME}x" || false
	[ ! -e "/sys/fs/bpf/cubicctl/${NAME}x" ]
	# a cgroup that does not exist: refused before anything is made
	printf 'attach=/nonexistent/cg\n' >"$BATS_TEST_TMPDIR/bad.conf"
	run "$CUBICCTL" load --name "${NAME}x" --config "$BATS_TEST_TMPDIR/bad.conf"
	[ "$status" -eq 2 ]
	[[ $output == *"bad.conf:1: cgroup '/nonexistent/cg'"* ]]
	! registered "${NAME}x" || false
	# what cubicctl@.service's ExecStop runs
	"$CUBICCTL" unload --name "$NAME" --force
	[ -z "$(attachments_of "$NAME")" ]
	assert_gone "$NAME"
	NAME=
}

