# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by boot.sh and run.sh.
# trouble CONSOLE N: N lines of a guest's console from the first sign of
# trouble (a panic, BUG, Oops, RIP, call trace, warning, the OOM killer), or
# its last N lines when there is none
trouble() {
	local first
	first=$(grep -anE -m 1 'Kernel panic|BUG:|Oops|RIP:|Call Trace|WARNING:|Out of memory' "$1" | cut -d: -f1)
	if [ -n "$first" ]; then
		sed -n "$first,+$(($2 - 1))p" "$1"
	else
		tail -n "$2" "$1"
	fi
}
