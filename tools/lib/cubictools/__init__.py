# SPDX-License-Identifier: GPL-2.0
"""The Python of tools/: one small library for eval, bench and the shell helpers.

  parse    rates, times, buffers and loss as pathemu and the eval matrix write
           them; segment sizes; iperf3 JSON, tcp_probe lines, bpftool JSON
  path     pathemu's arithmetic (BDP, buffer, TBF burst, loss) from its options
  windows  the impossible-window rules (docs/IMPOSSIBLE_WINDOWS.md)
  stats    median, min/max, the distribution-free confidence interval of a
           median, paired ratios
  report   number formatting and Markdown tables, JSON files
  vocab    build/vocab.json: the exit reasons and counters of include/cubic_abi.h

Debian's python3 standard library only. Shell reaches it through
`python3 -B -m cubictools COMMAND` (tools/lib/netns.sh wraps it as `cubictools`);
Python entry points put tools/lib on sys.path and set sys.dont_write_bytecode
first, so no __pycache__ appears in the tree.
"""
