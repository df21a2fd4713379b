#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/eval/analyze.py's real-path table (issue 20, item 4):
each flow's class from its scenario's option, and the "no worse than
HyStart" verdict per class from hand-made flows; and how the report names
the algorithms a run compared. Ends with "realpath: N
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



def flow(scen, algo, real=None, jitter=None, retx=0, drops=0, bdp=1.0, path=None):
    f = {"scenario": scen, "algorithm": algo, "real": real, "jitter": jitter,
         "ss_retrans": retx, "tbf_drops": drops, "exit_cwnd_bdp": bdp}
    if path is not None:
        f["ss_path_retrans"] = path
    return f


def row(md, cls, algo):
    """The table row of (class, algorithm), split into cells, or None."""
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 11 and cells[0] == cls and cells[2] == algo:
            return cells
    return None


def worse(cells):
    """The verdict says worse: significantly, or by the medians within the noise."""
    return cells is not None and (cells[8].startswith("**worse**") or cells[8].startswith("worse within the noise"))


def test_classes():
    check("policer", analyze.real_class(flow("p", "a", real="police=20mbit:100kb")) == "policer")
    check("aggregation", analyze.real_class(flow("a", "a", real="agg=8ms")) == "ACK aggregation")
    check("one cubic", analyze.real_class(flow("c", "a", real="cross=1:cubic")) == "1 competing flow")
    check("one bbr", analyze.real_class(flow("b", "a", real="cross=1:bbr")) == "1 competing flow")
    check("four", analyze.real_class(flow("c4", "a", real="cross=4:cubic")) == "4 competing flows")
    # another count is a class of its own, not folded into 1 or 4 nor dropped
    check("two", analyze.real_class(flow("c2", "a", real="cross=2:cubic")) == "2 competing flows")
    check("sixteen", analyze.real_class(flow("c16", "a", real="cross=16:bbr")) == "16 competing flows")
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
    check("reference row", (row(md, "policer", "cubic") or [""] * 10)[8] == "-")
    check("within 10 %: no worse", (row(md, "policer", "same") or [""] * 10)[8] == "no worse")
    # two flows a side: at best 1 split in 6 is as far apart, p 0.17: not beyond the noise
    check("135 retx against 105: worse within the noise (p 0.17)",
          (row(md, "policer", "more") or [""] * 10)[8] == "worse within the noise (p 0.17)")
    # Fisher: 1 of 2 below against 0 of 2, P(X >= 1) = 1 - C(1,0)C(3,2)/C(4,2) = 0.5
    check("an exit below 0.8 BDP: worse within the noise (p 0.50)",
          (row(md, "policer", "early") or [""] * 10)[8] == "worse within the noise (p 0.50)")
    check("exits below counted", (row(md, "policer", "early") or [""] * 10)[7] == "1")
    check("no retransmission figure: not no worse",
          (row(md, "policer", "unmeasured") or [""] * 10)[8] == "**worse**")
    check("no reference, no row", row(md, "ACK aggregation", "same") is None)
    check("nothing real, no table", analyze.realpath_md([flow("r", "cubic")]) == "")
    check("an old run has no path figure", (row(md, "policer", "cubic") or [""] * 10)[5] == "-")
    check("no flow on a late emulator", (row(md, "policer", "same") or [""] * 10)[9] == "0")
    late = dict(flow("pol", "same", real="police=20mbit:100kb"), path_stall={"kind": "emulator_late"})
    stalled = dict(flow("pol", "same", real="police=20mbit:100kb"), path_stall={"kind": "ack_gap"})
    md = analyze.realpath_md(fl + [late, stalled])
    check("flows kept on a late emulator counted (not other stalls)",
          (row(md, "policer", "same") or [""] * 10)[9] == "1")


def test_path_cost():
    """With every flow's slow-start retransmissions on the path recorded, the
    verdict is on them and not on the whole flow's drops (with competing
    flows, mostly their own sawtooth)."""
    c1 = "cross=1:cubic"
    fl = [flow("c", "cubic", real=c1, retx=10, drops=100, path=p) for p in (20, 30)]
    # median 25 on the path: within 10 % is 27.5
    fl += [flow("c", "fewer", real=c1, retx=10, drops=300, path=p) for p in (20, 26)]
    fl += [flow("c", "costly", real=c1, retx=10, drops=50, path=p) for p in (40, 50)]
    fl += [flow("c", "ownworse", real=c1, retx=30, drops=50, path=p) for p in (20, 30)]
    md = analyze.realpath_md(fl)
    check("path figure shown", (row(md, "1 competing flow", "cubic") or [""] * 10)[5] == "25")
    check("whole-flow drops shown", (row(md, "1 competing flow", "fewer") or [""] * 10)[6] == "300")
    check("more whole-flow drops, fewer on the path in slow start: no worse",
          (row(md, "1 competing flow", "fewer") or [""] * 10)[8] == "no worse")
    check("45 on the path against 25: worse",
          worse(row(md, "1 competing flow", "costly")))
    check("its own retransmissions count too",
          worse(row(md, "1 competing flow", "ownworse")))
    # one flow without the path's figure: the class is judged on drops, as before
    md = analyze.realpath_md(fl + [flow("c", "cubic", real=c1, retx=10, drops=100)])
    check("a class missing the figure falls back to drops",
          worse(row(md, "1 competing flow", "fewer")))


def test_significance():
    """With six flows a side the run can tell a rule from HyStart: every one of
    its figures above every one of HyStart's is 1 split in C(12, 6) = 924."""
    pol = "police=20mbit:100kb"
    fl = [flow("pol", "cubic", real=pol, retx=r) for r in (100, 101, 102, 103, 104, 105)]
    fl += [flow("pol", "much", real=pol, retx=r) for r in (200, 201, 202, 203, 204, 205)]
    # median 121 > 112.75 (105 x 1.1 of 102.5 + 10 %), but half its flows are among HyStart's
    fl += [flow("pol", "mixed", real=pol, retx=r) for r in (100, 101, 102, 140, 150, 160)]
    fl += [flow("pol", "early", real=pol, retx=0, bdp=b) for b in (0.5, 0.5, 0.5, 0.5, 1, 1)]
    md = analyze.realpath_md(fl)
    check("all above HyStart's six: **worse** (p 0.001)",
          (row(md, "policer", "much") or [""] * 10)[8] == "**worse** (p 0.001)")
    cell = (row(md, "policer", "mixed") or [""] * 10)[8]
    check("half among HyStart's: worse within the noise, " + cell, cell.startswith("worse within the noise (p 0."))
    # 4 of 6 below against 0 of 6: C(6,4)/C(12,4) = 15/495 = 0.03
    check("4 of 6 exits below against none: **worse** (p 0.030)",
          (row(md, "policer", "early") or [""] * 10)[8] == "**worse** (p 0.030)")


def test_policer_remembered():
    """The flows a memory changed (a policer's, a busy path's) are counted."""
    pol = "police=20mbit:100kb"
    fl = [flow("pol", "cubic", real=pol, retx=100) for _ in range(3)]
    fl += [flow("pol", "pred", real=pol, retx=r) for r in (120, 50, 50)]
    fl[4]["bpf_predict_policer_memory"] = 3660008
    fl[5]["bpf_predict_policer_memory"] = 3660008
    fl[3]["bpf_predict_policer_memory"] = 0
    md = analyze.realpath_md(fl)
    check("2 of 3 remembered", (row(md, "policer", "pred") or [""] * 11)[10] == "2")
    # a jump held back by a policer remembered without a rate counts too
    fl[3]["bpf_predict_no_jump"] = True
    md = analyze.realpath_md(fl)
    check("and one held back: 3", (row(md, "policer", "pred") or [""] * 11)[10] == "3")
    fl[3]["bpf_predict_no_jump"] = False
    # and an estimate a busy path remembered set aside
    fl[3]["bpf_predict_busy"] = True
    md = analyze.realpath_md(fl)
    check("and one set aside: 3", (row(md, "policer", "pred") or [""] * 11)[10] == "3")
    fl[3]["bpf_predict_busy"] = False
    md = analyze.realpath_md(fl)
    check("cubic: none", (row(md, "policer", "cubic") or [""] * 11)[10] == "0")
    check("and judged on all its flows: no worse",
          (row(md, "policer", "pred") or [""] * 11)[8] == "no worse")


def test_other_counts():
    """A path with 2 competing flows (not in the matrix) is judged in a row
    of its own, against HyStart on that path, and the table keeps its order:
    the named classes, other counts after 4, jitter last."""
    fl = [flow("c2", "cubic", real="cross=2:cubic", retx=r, path=r) for r in (10, 12)]
    fl += [flow("c2", "pred", real="cross=2:cubic", retx=r, path=r) for r in (60, 70)]
    fl += [flow("c4", "cubic", real="cross=4:cubic", retx=5, path=5)]
    fl += [flow("j", "cubic", jitter="15ms", retx=0, path=0)]
    fl += [flow("c1", "cubic", real="cross=1:cubic", retx=1, path=1)]
    md = analyze.realpath_md(fl)
    check("2 competing flows: a row", row(md, "2 competing flows", "cubic") is not None)
    check("2 competing flows: judged against that path's HyStart",
          worse(row(md, "2 competing flows", "pred")))
    cells = ([x.strip() for x in line.strip("|").split("|")] for line in md.splitlines())
    order = [c[0] for c in cells if len(c) == 11 and c[2] == "cubic"]
    check("classes in order: 1, 4, 2, jitter",
          order == ["1 competing flow", "4 competing flows", "2 competing flows", "jitter"])


def test_algos_desc():
    """An --algo row runs a preset with tunables of its own: the report names
    them beside the preset, so a variant is not mistaken for the preset (a
    run's bpf_predict0 was preset predict with predict_straight=0)."""
    fl = [{"kind": "kernel", "algorithm": "cubic", "arg": "cubic", "tunables": None},
          {"kind": "bpf", "algorithm": "bpf_predict", "arg": "predict", "tunables": None},
          {"kind": "bpf", "algorithm": "bpf_predict0", "arg": "predict", "tunables": "predict_straight=0"},
          {"kind": "bpf", "algorithm": "bpf_predict0", "arg": "predict", "tunables": "predict_straight=0"},
          {"kind": "bpf", "algorithm": "bpf_old", "arg": "linux"}]
    check("presets and tunables named",
          analyze.algos_desc(fl) == "presets `predict` (bpf_predict), `predict` with `predict_straight=0` "
          "(bpf_predict0), `linux` (bpf_old)")


for t in (test_classes, test_verdicts, test_path_cost, test_significance, test_policer_remembered,
          test_other_counts, test_algos_desc):
    t()
done("realpath")
