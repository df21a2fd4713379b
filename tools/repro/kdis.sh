#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kdis.sh: disassemble a kernel function, a JIT-ed BPF program or a BPF
# trampoline by its /proc/kallsyms name, reading the running kernel's text with
# bpftrace (this kernel has no /proc/kcore, and Debian's bpftool 7.1 cannot
# disassemble: "No libbfd support"). Used for docs/IMPOSSIBLE_WINDOWS.md:
#
#   tools/repro/kdis.sh __bpf_prog_enter                  # the skip
#   tools/repro/kdis.sh bpf__tcp_congestion_ops_ssthresh  # the trampoline: rax = [rbp-8]
#   tools/repro/kdis.sh bpf_prog_b71fed240689ac57_bc_recalc_ssthresh
#
# usage: tools/repro/kdis.sh SYMBOL [BYTES]   (default: up to the next symbol, at most 2048)
# Needs root, bpftrace, objdump (binutils). With several symbols of that name
# (one per loaded instance), the first in /proc/kallsyms.
set -euo pipefail
sym=${1:?usage: kdis.sh SYMBOL [BYTES]}
len=${2:-}
command -v bpftrace >/dev/null || { echo "kdis.sh: bpftrace is missing (apt-get install bpftrace)" >&2; exit 1; }
addr=$(awk -v s="$sym" '$3 == s { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || { echo "kdis.sh: $sym is not in /proc/kallsyms" >&2; exit 1; }
if [ -z "$len" ]; then
	next=$(awk '{ print $1 }' /proc/kallsyms | sort -u | awk -v a="$addr" '$1 > a { print; exit }' || true)
	len=$(( 0x$next - 0x$addr ))
	[ "$len" -gt 0 ] && [ "$len" -le 2048 ] || len=2048
fi
tmp=$(mktemp -d /tmp/kdis.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=$(( (len + 7) / 8 ))
cat >"$tmp/r.bt" <<EOF
BEGIN { \$i = 0; while (\$i < $n) { printf("%016lx\n", *(uint64 *)(0x$addr + \$i * 8)); \$i++; } exit(); }
EOF
bpftrace "$tmp/r.bt" 2>/dev/null | grep -E '^[0-9a-f]{16}$' | python3 -c '
import struct, sys
sys.stdout.buffer.write(b"".join(struct.pack("<Q", int(l, 16)) for l in sys.stdin.read().split()))' >"$tmp/bin"
[ -s "$tmp/bin" ] || { echo "kdis.sh: could not read $sym at 0x$addr" >&2; exit 1; }
echo "$sym at 0x$addr, $len bytes"
# symbolize call targets from /proc/kallsyms
objdump -b binary -m i386:x86-64 --adjust-vma="0x$addr" -D "$tmp/bin" | sed -n '8,$p' | head -c 200000 |
	awk 'NR == FNR { k[$1] = $3; next }
	{
		if (match($0, /(call|jmp) +0x[0-9a-f]+/)) {
			t = substr($0, RSTART, RLENGTH); sub(/.* 0x/, "", t)
			while (length(t) < 16) t = "0" t
			if (t in k) $0 = $0 "   <" k[t] ">"
		}
		print
	}' /proc/kallsyms -
