#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `sudo make load`: mount bpffs if needed, then load bpf_cubic unless it is loaded.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "make load: must be run as root: sudo make load" >&2
	exit 1
fi
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
if ./cubicctl -j status --name bpf_cubic 2>/dev/null | grep -q '"registered":true'; then
	echo "bpf_cubic is already loaded"
else
	./cubicctl load
fi
./cubicctl status --name bpf_cubic
cat <<'TXT'

Use it: iperf3 -C bpf_cubic -c HOST, or setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "bpf_cubic", 9),
or make it the default: sudo sysctl net.ipv4.tcp_congestion_control=bpf_cubic
Unload: sudo ./cubicctl unload
TXT
