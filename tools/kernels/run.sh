#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make test-kernels`: tools/kernels/suite.sh on Debian 12's own kernels, each
# booted in qemu (TCG) on this machine's root filesystem, then on the host's
# kernel. One line per kernel and check; exit 1 if any check failed.
#
#   BCTK_KERNELS  the kernels to boot (default "6.1 6.12": the newest package
#                 of each series apt knows; a linux-image-... package name works too;
#                 empty: none)
#   BCTK_HOST=0   skip the host's run
#   BCTK_CACHE    where the kernel packages' contents are kept (fetch.sh)
# Logs, consoles and dmesg of each run: build/kernels/KVER/, build/kernels/host/.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=trouble.sh
. tools/kernels/trouble.sh
OUT=build/kernels

[ "$(id -u)" -eq 0 ] || { echo "test-kernels: must be run as root: sudo make test-kernels" >&2; exit 1; }
[ -x ./cubicctl ] || { echo "test-kernels: ./cubicctl is not built: run make first" >&2; exit 1; }
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
mkdir -p "$OUT"
lines=$OUT/lines
: >"$lines"
rc=0
dirs=()	# this run's guests' folders
start=$(date +%s)

for k in ${BCTK_KERNELS-6.1 6.12}; do
	if ! kdir=$(tools/kernels/fetch.sh "$k"); then
		printf '%-24s %-16s FAIL: %s\n' "$k" fetch "no kernel package (see above)" | tee -a "$lines"
		rc=1
		continue
	fi
	read -r _ _ kver <"$kdir/package"
	dirs+=("$OUT/$kver")
	tools/kernels/boot.sh "$kdir" "$OUT/$kver" | tee -a "$lines" || rc=1
done
if [ "${BCTK_HOST:-1}" != 0 ]; then
	mkdir -p "$OUT/host"
	tools/kernels/suite.sh --label "$(uname -r) (host)" --log "$OUT/host/suite.log" |
		tee -a "$lines" || rc=1
fi
echo "test-kernels: $(grep -c ' ok$' "$lines") ok, $(grep -c ' FAIL: ' "$lines") failed, in $(( $(date +%s) - start )) s (logs in $OUT)"
# CI keeps only the end of what a run printed: the failures again, last, and
# for a guest that gave no result the console's account of why, so that a
# failure seen once can be read afterwards
for d in "${dirs[@]}"; do
	[ -f "$d/console.1.log" ] || continue
	echo "test-kernels: $(basename "$d")'s guest kernel panicked once and was booted again; its first lines ($d/console.1.log):"
	trouble "$d/console.1.log" 12
done
if grep -q ' FAIL: ' "$lines"; then
	echo "test-kernels: failed:"
	grep ' FAIL: ' "$lines"
	for d in "${dirs[@]}"; do
		[ -f "$d/console.log" ] && [ ! -f "$d/suite.rc" ] || continue
		echo "--- $d/console.log, from the first sign of trouble:"
		trouble "$d/console.log" 25
	done
fi
exit $rc
