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
# Every open, stat or directory listing on the host's root is a 9p request,
# which costs real time and, in the guest's clock, a jump to its next timer:
# a python3 start read ~1 s of wall time through it. So what a run executes
# is copied once into a tmpfs and mounted over its own path (a bind mount):
# the Python library, the programs and their libraries, ip's configuration
# and tools/difftest (compiled there: the checkout is never written).
stage=/run/stage
stage() {
	local f
	for f; do
		[ -e "$f" ] || continue
		f=$(readlink -f "$f")
		[ -e "$stage$f" ] && continue
		mkdir -p "$stage$(dirname "$f")"
		cp -a "$f" "$stage$f" && mount --bind "$stage$f" "$f"
	done
}
py=$(readlink -f "$(command -v python3)")
pylib=$(python3 -S -c 'import os; print(os.path.dirname(os.__file__))')
mkdir -p "$stage$pylib"
tar -C "$pylib" -c --exclude=./test --exclude=./idlelib --exclude=./tkinter --exclude=./lib2to3 \
	--exclude=./ensurepip --exclude=./turtledemo --exclude=./site-packages . | tar -C "$stage$pylib" -x
mount --bind "$stage$pylib" "$pylib"
bins="$py $(command -v ip) $(command -v tc) $REPO/cubicctl $(command -v bash) $(command -v sh) $(readlink -f "$(command -v sh)")"
# shellcheck disable=SC2046,SC2086
stage $bins $(ldd $bins 2>/dev/null | awk '/=>/ {print $3} /ld-linux/ {print $1}' | sort -u) \
	/etc/ld.so.cache /etc/iproute2 /usr/share/iproute2 "$REPO/build/bpf_cubic.bpf.o" "$REPO/tools/difftest"
python3 -S -m compileall -q "$REPO/tools/difftest" >/dev/null
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
grep -E '^thp_|^pgfault' /proc/vmstat >"$OUT/vmstat.txt"
