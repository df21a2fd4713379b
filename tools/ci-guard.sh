#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Holds the test suite to its promise that it never disturbs a user's instance.
#
#   tools/ci-guard.sh before STATE_DIR [NAME]
#       NAME (default bpf_cubic) loaded as `sudo make load` loads it, or the one
#       already loaded; records whether it is registered and allowed, its
#       tunables (the map's bytes, and `cubicctl -j get` when this cubicctl's
#       ABI version can read them), and each pin with its inode and map id.
#   tools/ci-guard.sh after STATE_DIR [NAME]
#       fails (exit 1, saying what moved) if any of that changed; then unloads
#       NAME if `before` loaded it.
#
# Only bpf_cubic can be loaded here (`make load` loads no other name); another
# NAME must be loaded already.
set -u
cd "$(dirname "$0")/.."

AVAILABLE=/proc/sys/net/ipv4/tcp_available_congestion_control
ALLOWED=/proc/sys/net/ipv4/tcp_allowed_congestion_control

die() {
	echo "ci-guard: $*" >&2
	exit 1
}

in_list() {
	tr ' ' '\n' <"$1" | grep -qx "$2"
}

# Everything about NAME that the suite must leave as it found it, one fact a line.
snapshot() {
	local name=$1 dir=/sys/fs/bpf/cubicctl/$1 pin id
	in_list "$AVAILABLE" "$name" && echo "registered: yes" || echo "registered: no"
	in_list "$ALLOWED" "$name" && echo "allowed: yes" || echo "allowed: no"
	# the map's bytes: a cubicctl of another ABI version refuses to read them
	echo "tunables: $(bpftool -j map lookup pinned "$dir/tunables" key 0 0 0 0 2>/dev/null |
		jq -r '.value | join(" ")' 2>/dev/null)"
	echo "get: $(./cubicctl -j get --name "$name" 2>/dev/null | jq -c .tunables 2>/dev/null)"
	for pin in "$dir" "$dir"/*; do
		[ -e "$pin" ] || continue
		id=-
		[ -d "$pin" ] || id=$(bpftool -j map show pinned "$pin" 2>/dev/null | jq -r .id)
		echo "pin: $pin inode $(stat -c %i "$pin") map id ${id:--}"
	done
}

[ $# -ge 2 ] || die "usage: tools/ci-guard.sh before|after STATE_DIR [NAME]"
cmd=$1 state=$2 name=${3:-bpf_cubic}
[ "$(id -u)" -eq 0 ] || die "must be run as root"
[ -x ./cubicctl ] || die "./cubicctl is not built: run make first"

case "$cmd" in
before)
	mkdir -p "$state" || die "can't create $state"
	rm -f "$state/loaded-by-guard"
	if in_list "$AVAILABLE" "$name"; then
		echo "ci-guard: $name is already loaded; the tests must leave it as it is"
	elif [ "$name" = bpf_cubic ]; then
		make load >"$state/make-load.log" 2>&1 ||
			{ cat "$state/make-load.log" >&2; die "make load failed"; }
		touch "$state/loaded-by-guard"
		echo "ci-guard: loaded $name with make load, as a user would"
	else
		die "$name is not loaded (only bpf_cubic is loaded here, by make load)"
	fi
	snapshot "$name" >"$state/before"
	grep -qx "registered: yes" "$state/before" || die "$name is not registered after make load"
	grep -q '^tunables: 0x' "$state/before" || die "can't read the tunables of $name"
	;;
after)
	[ -f "$state/before" ] || die "no snapshot in $state: run 'tools/ci-guard.sh before' first"
	snapshot "$name" >"$state/after"
	rc=0
	if ! diff -u "$state/before" "$state/after" >"$state/diff"; then
		echo "ci-guard: the tests disturbed $name (before: -, after: +):" >&2
		grep -E '^[-+][a-z]' "$state/diff" | grep -vE '^(---|\+\+\+) ' >&2
		rc=1
	else
		echo "ci-guard: $name is as the tests found it"
	fi
	if [ -e "$state/loaded-by-guard" ]; then
		./cubicctl unload --name "$name" --force >/dev/null ||
			{ echo "ci-guard: can't unload $name" >&2; rc=1; }
		rm -f "$state/loaded-by-guard"
	fi
	exit $rc
	;;
*)
	die "unknown command '$cmd' (before or after)"
	;;
esac
