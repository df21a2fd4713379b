#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/eval/analyze.py's real-path table (issue 20, item 4):
each flow's class from its scenario's option, and the "no worse than
HyStart" verdict per class from hand-made flows. Ends with "realpath: N
passed, N failed" (tests/run.sh unit counts that line); exit 1 if any
failed. Standard library only, no root."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyunit import REPO, check, done  # noqa: E402
sys.path.insert(0, os.path.join(REPO, "tools", "lib"))
sys.path.insert(0, os.path.join(REPO, "tools", "eval"))
import analyze  # noqa: E402



def flow(scen, algo, real=None, jitter=None, retx=0, drops=0, bdp=1.0):
    return {"scenario": scen, "algorithm": algo, "real": real, "jitter": jitter,
            "ss_retrans": retx, "tbf_drops": drops, "exit_cwnd_bdp": bdp}


def row(md, cls, algo):
    """The table row of (class, algorithm), split into cells, or None."""
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 8 and cells[0] == cls and cells[2] == algo:
            return cells
    return None


def test_classes():
    check("policer", analyze.real_class(flow("p", "a", real="police=20mbit:100kb")) == "policer")
    check("aggregation", analyze.real_class(flow("a", "a", real="agg=8ms")) == "ACK aggregation")
    check("one cubic", analyze.real_class(flow("c", "a", real="cross=1:cubic")) == "1 competing flow")
    check("one bbr", analyze.real_class(flow("b", "a", real="cross=1:bbr")) == "1 competing flow")
    check("four", analyze.real_class(flow("c4", "a", real="cross=4:cubic")) == "4 competing flows")
    check("trace", analyze.real_class(flow("t", "a", real="trace=wifi")) == "trace-driven link")
    check("jitter", analyze.real_class(flow("j", "a", jitter="15ms")) == "jitter")
    check("clean is none", analyze.real_class(flow("r", "a")) is None)


def test_verdicts():
    fl = [flow("pol", "cubic", real="police=20mbit:100kb", retx=r, drops=r + 10) for r in (100, 110)]
    # median 105 retx, 115 drops: 110 % is 115.5 and 126.5
    fl += [flow("pol", "same", real="police=20mbit:100kb", retx=r, drops=r + 10) for r in (110, 120)]
    fl += [flow("pol", "more", real="police=20mbit:100kb", retx=r, drops=r + 10) for r in (130, 140)]
    fl += [flow("pol", "early", real="police=20mbit:100kb", retx=0, drops=0, bdp=b) for b in (0.5, 1.0)]
    fl += [dict(flow("pol", "unmeasured", real="police=20mbit:100kb"), ss_retrans=None)]
    # a class without the kernel's cubic has no row
    fl += [flow("agg", "same", real="agg=4ms", retx=5)]
    md = analyze.realpath_md(fl)
    check("reference row", (row(md, "policer", "cubic") or [""] * 8)[7] == "-")
    check("within 10 %: no worse", (row(md, "policer", "same") or [""] * 8)[7] == "no worse")
    check("135 retx against 105: worse", (row(md, "policer", "more") or [""] * 8)[7] == "**worse**")
    check("an exit below 0.8 BDP: worse", (row(md, "policer", "early") or [""] * 8)[7] == "**worse**")
    check("exits below counted", (row(md, "policer", "early") or [""] * 8)[6] == "1")
    check("no retransmission figure: not no worse",
          (row(md, "policer", "unmeasured") or [""] * 8)[7] == "**worse**")
    check("no reference, no row", row(md, "ACK aggregation", "same") is None)
    check("nothing real, no table", analyze.realpath_md([flow("r", "cubic")]) == "")


for t in (test_classes, test_verdicts):
    t()
done("realpath")
