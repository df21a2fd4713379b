#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the qemu guest of `difftest` (tools/kernels/boot.sh with
# BCTK_RUN=this): the environment, then one `difftest --host` per line of
# OUT/jobs, with this kernel's clock counting instructions (-icount).
#
# Nothing may wait for the host while a conversation plays: with
# -icount sleep=off the guest's clock jumps to its next timer whenever the CPU
# waits, and a 9p read is such a wait. So the programs a run needs are read
# once before the first run (their pages then stay in the page cache), and
# results go to the guest's tmpfs; progress lines go to the serial console
# (an emulated UART: no waiting) prefixed "bctdt: ", and OUT (9p) is written
# only when every job is done.
OUT=$1
# shellcheck source=/dev/null
. "$OUT/guest.env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C
exec >"$OUT/guest.log" 2>&1
set -x
mount -t tmpfs tmpfs /run
mount -t bpf bpf /sys/fs/bpf
# the BPF object's CONFIG_HZ extern: libbpf reads /boot/config-$(uname -r)
cp "$KDIR/boot/config-$(uname -r)" /boot/
ip link set lo up
# the same addresses and hash order in every run
echo 0 >/proc/sys/kernel/randomize_va_space
export PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 DIFFTEST_IN_GUEST=1
py=$(readlink -f "$(command -v python3)")
cat "$py" /lib/x86_64-linux-gnu/lib{c,m,z,expat,bpf,elf}.so* \
	"$(dirname "$py")"/../lib/python3*/lib-dynload/*.so "$(command -v ip)" "$(command -v tc)" \
	"$REPO/cubicctl" "$REPO"/build/*.o "$REPO"/tools/difftest/* >/dev/null 2>&1
"$REPO/tools/difftest/difftest" --list >/dev/null
cat /proc/uptime
uname -r >/tmp/kernel
mkdir -p /tmp/dt
# from here a panic is a failure, not an early one boot.sh boots again
: >"$OUT/difftest.out"
n=0
while read -r -a args; do
	n=$((n + 1))
	[ ${#args[@]} -gt 0 ] || continue
	start=$(date +%s)
	python3 -S "$REPO/tools/difftest/difftest" --host "${args[@]}" 2>&1 | tee "/tmp/dt/$n.out" |
		sed -u 's/^/bctdt: /' >/dev/ttyS0
	echo "${PIPESTATUS[0]}" >"/tmp/dt/$n.rc"
	echo "bctdt: job $n: exit $(cat "/tmp/dt/$n.rc"), $(( $(date +%s) - start )) s of guest time" >/dev/ttyS0
done <"$OUT/jobs"
# what the jobs may have left: namespaces, peers, instances (bct<pid><nn>e/f), pins
{
	ip netns list
	pgrep -af dtpeer.py
	tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control | grep '^bct'
	ls /sys/fs/bpf/cubicctl 2>/dev/null
} >/tmp/dt/leftovers
cp -r /tmp/dt/. "$OUT/"
cp /tmp/kernel "$OUT/kernel"
echo 0 >"$OUT/difftest.rc"
cat /proc/uptime
dmesg >"$OUT/dmesg.txt"
