#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest after switch_root (tools/kernels/init): the environment the
# suite needs, then tools/kernels/suite.sh. OUT (the argument) is the output
# share; OUT/guest.env (written by boot.sh) says where the checkout and the
# kernel's cache folder are.
OUT=$1
# shellcheck source=/dev/null
. "$OUT/guest.env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C
exec >"$OUT/guest.log" 2>&1
set -x
mount -t tmpfs tmpfs /run
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# the BPF object's CONFIG_HZ extern: libbpf reads /boot/config-$(uname -r)
cp "$KDIR/boot/config-$(uname -r)" /boot/
ip link set lo up
cat /proc/uptime
rc=0
"$REPO/tools/kernels/suite.sh" --label "$LABEL" --log "$OUT/suite.log" >"$OUT/suite.out" || rc=$?
echo "$rc" >"$OUT/suite.rc"
cat /proc/uptime
dmesg >"$OUT/dmesg.txt"
