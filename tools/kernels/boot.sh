#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one Debian kernel in qemu (TCG) on the host's root filesystem and run
# tools/kernels/suite.sh in it.
#
#   tools/kernels/boot.sh KDIR OUT
#
# KDIR is a folder of tools/kernels/fetch.sh; OUT (created, emptied) gets the
# initramfs, the guest's console, logs and dmesg. Prints the suite's lines
# (one per check); exits with its status, 1 if the guest gave none.
# BCTK_TIMEOUT (default 600 s) bounds the whole guest run; BCTK_SMP (2) and
# BCTK_MEM (2048 MB) size it. BCTK_RUN (default tools/kernels/guest.sh) is
# what the guest runs, with OUT as its argument: a script of your own there
# is a shell in the guest, with no suite.rc (the "boot" line then fails).
# BCTK_RESULT (default suite): the guest's result is OUT/BCTK_RESULT.rc (and
# .out, printed). BCTK_QEMU_OPTS: more qemu options, split at spaces (tools/difftest
# gives "-icount shift=0,sleep=off" and BCTK_SMP=1: a clock that counts
# instructions); BCTK_APPEND: words for the kernel's command line, ending in a space.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KDIR=$(cd "${1:?usage: boot.sh KDIR OUT}" && pwd)
OUT=${2:?usage: boot.sh KDIR OUT}
TIMEOUT=${BCTK_TIMEOUT:-600}
RUN=${BCTK_RUN:-$REPO/tools/kernels/guest.sh}
RES=${BCTK_RESULT:-suite}
# shellcheck source=trouble.sh
. "$REPO/tools/kernels/trouble.sh"
read -r -a qopts <<<"${BCTK_QEMU_OPTS:-}"

read -r _ _ kver <"$KDIR/package"
rm -rf "$OUT"
mkdir -p "$OUT"/initramfs/{bin,lib/modules,proc,sys,dev,lower,upper,newroot}
OUT=$(cd "$OUT" && pwd)
ir=$OUT/initramfs
cp /bin/busybox "$ir/bin/busybox"
cp "$KDIR"/modules/*.ko "$ir/lib/modules/"
cp "$REPO/tools/kernels/init" "$ir/init"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.cpio.gz"
rm -rf "$ir"
printf 'REPO=%q\nKDIR=%q\nLABEL=%q\n' "$REPO" "$KDIR" "$kver" >"$OUT/guest.env"

# `timeout` puts qemu in a process group of its own, which a Ctrl-C or a
# TERM to ours does not reach: stop it here, or it runs on alone for up to
# TIMEOUT seconds (an interrupted CI-like run left one)
qpid=
stop_guest() {
	[ -z "$qpid" ] || kill -TERM "$qpid" 2>/dev/null
	[ -z "$qpid" ] || wait "$qpid" 2>/dev/null
	echo "$kver: interrupted: the guest is stopped" >&2
	exit 130
}
trap stop_guest INT TERM HUP

guest() {
	start=$(date +%s)
	qrc=0
	timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max \
		-smp "${BCTK_SMP:-2}" -m "${BCTK_MEM:-2048}" -nographic -no-reboot -nic none \
		"${qopts[@]}" \
		-kernel "$KDIR/boot/vmlinuz-$kver" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 ${BCTK_APPEND:-}bctk.run=$RUN bctk.out=$OUT" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$OUT,mount_tag=bctkout,security_model=none" \
		</dev/null >"$OUT/console.log" 2>&1 &
	qpid=$!
	wait "$qpid" || qrc=$?
	qpid=
	echo "$kver: guest ran $(( $(date +%s) - start )) s (qemu exit $qrc; logs in $OUT)" >&2
}

guest
# A kernel that panics before the suite has begun has not run any of our code
# (nothing is loaded before suite.sh). Under TCG Debian's 6.12 once did so
# 3 s into its boot (an int3 Oops in sched_clock_cpu, in an interrupt). Such
# a boot is tried once more. A panic once the suite runs is tried once more
# only if no BPF program, trampoline or struct_ops is in the console's
# account of it (CI once lost a guest 23 checks into its suite, with its
# console): the first run's console and lines are kept (console.1.log,
# RES.1.out) and the panic's first lines printed on stderr, so that it is
# seen whatever the second boot does. A panic with one of ours in it fails.
ours='bpf_prog_|bpf_trampoline|bpf_struct_ops|\[bpf\]'
if [ ! -e "$OUT/$RES.rc" ] && grep -aq 'Kernel panic' "$OUT/console.log"; then
	when="before the suite began"
	[ -e "$OUT/$RES.out" ] && when="after $(grep -c . "$OUT/$RES.out") of its checks"
	if [ ! -e "$OUT/$RES.out" ] || ! grep -aqE "$ours" "$OUT/console.log"; then
		mv "$OUT/console.log" "$OUT/console.1.log"
		[ ! -e "$OUT/$RES.out" ] || mv "$OUT/$RES.out" "$OUT/$RES.1.out"
		echo "$kver: the guest kernel panicked $when, with no BPF program of ours in its trace ($OUT/console.1.log):" >&2
		trouble "$OUT/console.1.log" 20 | sed 's/^/    /' >&2
		echo "$kver: booting it once more" >&2
		guest
	fi
fi

[ -f "$OUT/$RES.out" ] && cat "$OUT/$RES.out"
if [ ! -f "$OUT/$RES.rc" ]; then
	why="no result from the guest"
	[ "$qrc" -eq 124 ] && why="the guest did not finish within $TIMEOUT s"
	grep -aq 'Kernel panic' "$OUT/console.log" && why="the guest kernel panicked"
	grep -aqE "$ours" "$OUT/console.log" && why="$why, a BPF program in its trace"
	printf '%-24s %-16s FAIL: %s (console: %s)\n' "$kver" boot "$why" \
		"$(grep -a . "$OUT/console.log" | tail -n 1)"
	exit 1
fi
exit "$(cat "$OUT/$RES.rc")"
