#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pid1-aside.sh: run a command with PID 1 kept off the CPUs where the emulated
# paths' TCP processing runs, on the VM platform whose kernel skips BPF
# struct_ops programs in the context of PID 1 (docs/IMPOSSIBLE_WINDOWS.md).
#
# usage: tools/lib/pid1-aside.sh COMMAND [ARG]...
#
# On that platform an ACK or timer that the kernel happens to process while one
# of PID 1's threads is current runs without bpf_cubic's callbacks, and a
# skipped .ssthresh hands the kernel a stale stack slot: an impossible window
# that fails the run. pathemu steers every veth's receive processing to CPUs
# 1..n-1 (RPS); with every thread of PID 1 confined to CPU 0 while COMMAND
# runs, no softirq of a path interrupts one of them. Measured with
# tools/repro/skipdemo.sh --rounds 5: 705 of 85,704 ACKs processed in thread
# group 1 without it, 0 of 85,733 with it.
#
# Elsewhere (no init_private_* symbols in /proc/kallsyms, one CPU, or
# CUBIC_PID1_ASIDE=0) it runs COMMAND and changes nothing. Invocations nest
# and overlap: the first saves every thread's affinity, the last to finish
# restores it (state in /run/cubictools-pid1-aside). Exit: COMMAND's status;
# 2 usage.
set -uo pipefail

[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARG]..." >&2; exit 2; }

STATE=/run/cubictools-pid1-aside
LOCK=/run/cubictools-pid1-aside.lock

platform_skips() {
	[ "${CUBIC_PID1_ASIDE:-auto}" != 0 ] || return 1
	[ "$(id -u)" = 0 ] || return 1
	[ "$(nproc --all)" -ge 2 ] || return 1
	[ "${CUBIC_PID1_ASIDE:-auto}" = 1 ] && return 0
	grep -q ' init_private_' /proc/kallsyms 2>/dev/null
}

if ! platform_skips; then
	exec "$@"
fi

# every thread of PID 1, with its affinity list
pid1_threads() {
	local t
	for t in /proc/1/task/*; do
		t=${t##*/}
		printf '%s %s\n' "$t" "$(taskset -c -p "$t" 2>/dev/null | sed 's/.*: //')"
	done
}

set_pid1() { # CPULIST [SAVED-FILE]: every thread to CPULIST, or each to its saved list
	local list=$1 saved=${2:-} t l dflt=$1
	[ -n "$saved" ] && dflt=$(awk '$1 == 1 { print $2 }' "$saved")
	for t in /proc/1/task/*; do
		t=${t##*/}
		l=$dflt
		[ -n "$saved" ] && l=$(awk -v t="$t" '$1 == t { print $2 }' "$saved")
		taskset -c -p "${l:-$dflt}" "$t" >/dev/null 2>&1 || true
	done
}

aside() {
	exec 8>"$LOCK"
	flock 8
	mkdir -p "$STATE/holders"
	if [ ! -s "$STATE/saved" ]; then
		pid1_threads >"$STATE/saved.tmp" && mv "$STATE/saved.tmp" "$STATE/saved"
	fi
	touch "$STATE/holders/$$"
	set_pid1 0
	flock -u 8
}

restore() {
	local h
	exec 8>"$LOCK"
	flock 8
	rm -f "$STATE/holders/$$"
	for h in "$STATE"/holders/*; do # holders that died without restoring
		[ -e "$h" ] || continue
		kill -0 "${h##*/}" 2>/dev/null || rm -f "$h"
	done
	if [ -z "$(ls -A "$STATE/holders" 2>/dev/null)" ]; then
		[ -s "$STATE/saved" ] && set_pid1 "" "$STATE/saved"
		rm -rf "$STATE"
	fi
	flock -u 8
}

aside
child=
on_signal() {
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null
	wait "$child" 2>/dev/null
	restore
	exit 130
}
trap on_signal INT TERM HUP
# the command keeps every CPU whatever its parent was given, and the signal
# dispositions it would have in the foreground (bash makes a background
# command ignore SIGINT and SIGQUIT: a Ctrl-C would not reach it)
(
	trap - INT QUIT
	exec taskset -c "0-$(($(nproc --all) - 1))" "$@"
) <&0 &
child=$!
wait "$child"
rc=$?
restore
exit $rc
