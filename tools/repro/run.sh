#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the impossible-window reproducer (docs/IMPOSSIBLE_WINDOWS.md).
# Builds tools/repro/skipcc.bpf.c if needed, then soaks it (tools/soak/soak
# --algos skipcc, loss-heavy flows, several at once) next to the kernel's
# reno-like cubic: skipcc's .ssthresh never returns more than cwnd / 2, so
# any ssthresh > 0x7fffffff is a value the kernel got from somewhere else.
#
# usage: tools/repro/run.sh [SOAK OPTIONS...]   (default: --flows 400 --parallel 4)
# Exit: that of the soak (1 when an impossible window was seen).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OBJ=$REPO/build/skipcc.bpf.o
SRC=$REPO/tools/repro/skipcc.bpf.c
if [ ! -e "$OBJ" ] || [ "$SRC" -nt "$OBJ" ]; then
	mkdir -p "$REPO/build"
	(cd "$REPO" && ${CLANG:-clang} -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I. \
		-c tools/repro/skipcc.bpf.c -o build/skipcc.bpf.o)
fi
[ $# -gt 0 ] || set -- --flows 400 --parallel 4
exec "$REPO/tools/soak/soak" --algos "skipcc cubic" "$@"
