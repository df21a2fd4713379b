#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/lib/cubictools/fct.py (flow completion time): sizes,
the physical limit, a transfer's record, the summary's medians and ratios, the
SUSS table. Expected values worked out by hand in the comments. Ends with
"fct: N passed, N failed" (tests/run.sh unit counts that line); exit 1 if any
failed. Standard library only, no root."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyunit import REPO, check, eq, close, done  # noqa: E402
sys.path.insert(0, os.path.join(REPO, "tools", "lib"))
from cubictools import fct  # noqa: E402



def test_sizes():
    eq("5MB", fct.parse_size("5MB"), 5000000)
    eq("1mb, any case", fct.parse_size("1mb"), 1000000)
    eq("64KiB", fct.parse_size("64KiB"), 65536)
    eq("bytes", fct.parse_size("1500"), 1500)
    eq("1.5MB", fct.parse_size("1.5MB"), 1500000)
    for bad in ("", "5XB", "0MB", "1.5", "-1MB", "5 MB x", "100GB"):
        try:
            fct.parse_size(bad)
            check(f"'{bad}' refused", False)
        except ValueError:
            check(f"'{bad}' refused", True)
    eq("labels", [fct.size_label(n) for n in (5000000, 20000000, 1500000, 65536, 1500, 17)],
       ["5MB", "20MB", "1.5MB", "64KiB", "1.5kB", "17B"])


def test_limit():
    # 1448 bytes: one segment, 1500 IP bytes; 1449: two, 1449 + 104
    eq("wire bytes, one segment", fct.wire_bytes(1448), 1500)
    eq("wire bytes, two", fct.wire_bytes(1449), 1553)
    # 5 MB: 3454 segments (5000000 / 1448 = 3453.04), + 3454 x 52 = 5179608 IP bytes;
    # at 50 Mbit/s 0.82873728 s, + 100 ms
    close("5 MB on the SUSS path", fct.limit_s(5000000, 50e6, 0.1), 0.92873728)
    # 20 MB: 13813 segments, 20718276 bytes: 3.31492416 + 0.1
    close("20 MB on the SUSS path", fct.limit_s(20000000, 50e6, 0.1), 3.41492416)


META = {"path": "p", "rate_bps": 50000000, "rtt_us": 100000, "bytes": 5000000, "size": "5MB",
        "algorithm": "cubic", "ca": "cubic", "rep": 1, "label": "cubic (kernel)"}


def test_record():
    show0 = fct.parse_show("name=p\ntbf_dropped=10\nloss_drop_pkts=1\ndelayq_drops=0\n")
    show1 = fct.parse_show("tbf_dropped=50\nloss_drop_pkts=1\ndelayq_drops=2\n")
    x = {"ca": "cubic", "bytes": 5000000, "fct_s": 1.39, "retrans": 44, "max_cwnd": 800, "bound": 3420,
         "impossible": None}
    r = fct.record(x, META, show0, show1)
    eq("completed", r["completed"], True)
    eq("tbf drops: the difference", r["tbf_drops"], 40)
    eq("delayq drops", r["delayq_drops"], 2)
    eq("loss drops", r["loss_drops"], 0)
    close("limit", r["limit_s"], 0.928737)
    close("over limit: 1.39 / 0.928737", r["fct_over_limit"], 1.4967, 1e-4)
    eq("retrans", r["retrans"], 44)
    eq("no release error in the show: not measured", (r["emu_release_p99_us"], r["emu_late"]), (None, False))
    # the emulator's delay lines: the worst line's p99 over the transfer; above 1 ms it ran late
    late = dict(show1, delayq_release_err_p99_us="450", delayq_release_err_max_us="6000",
                link_release_err_p99_us="3200", link_release_err_max_us="15000.5")
    r = fct.record(x, META, show0, late)
    eq("late line: the worst's p99 and max", (r["emu_release_p99_us"], r["emu_release_max_us"], r["emu_late"]),
       (3200, 15000, True))
    r = fct.record(x, META, show0, dict(show1, delayq_release_err_p99_us="450", delayq_release_err_max_us="6000"))
    eq("450 us at p99: faithful", (r["emu_release_p99_us"], r["emu_late"]), (450, False))
    # an error, a short transfer, the wrong algorithm: not completed, no FCT
    for what, xx in (("error", {"error": "xfer: timed out"}), ("short", dict(x, bytes=1000)),
                     ("wrong ca", dict(x, ca="reno")), ("nothing", {})):
        r = fct.record(xx, META, show0, show1)
        eq(f"{what}: not completed", (r["completed"], r["fct_s"]), (False, None))
        check(f"{what}: an error is named", bool(r["error"]))


def test_summary():
    recs = []
    for algo, fcts in (("cubic", [1.4, 1.2, 1.3]), ("bpf_off", [1.5, 1.6, None])):
        for i, f in enumerate(fcts):
            x = {"ca": algo, "bytes": 5000000, "fct_s": f, "retrans": i, "impossible": None} if f else \
                {"error": "xfer: timed out"}
            recs.append(fct.record(x, dict(META, algorithm=algo, ca=algo, rep=i + 1), {}, {}))
    rows = fct.summarize(recs)
    eq("one row per algorithm", [r["algorithm"] for r in rows], ["cubic", "bpf_off"])
    c, o = rows
    eq("cubic median, min, max", (c["fct_median_s"], c["fct_min_s"], c["fct_max_s"]), (1.3, 1.2, 1.4))
    eq("cubic done", (c["completed"], c["n"]), (3, 3))
    eq("cubic vs itself", c["vs_reference"], 1.0)
    # off: median of 1.5 and 1.6 (the failed one left out) = 1.55; / 1.3
    close("off median", o["fct_median_s"], 1.55)
    eq("off done", (o["completed"], o["n"]), (2, 3))
    close("off vs cubic", o["vs_reference"], 1.55 / 1.3)
    close("off vs limit", o["over_limit"], 1.55 / 0.928737)
    eq("retrans median of the completed", o["retrans"], {"median": 0.5, "min": 0, "max": 1})
    t = fct.path_table(rows, {"cubic": "cubic (kernel)"})
    check("the table names the algorithm", "| 5MB | cubic (kernel) | 3/3 | 1.300 | 1.200-1.400 | 1.00 | 1.40 |" in t)
    check("the failed transfers show", "| 5MB | bpf_off | 2/3 | 1.550 |" in t)
    s = fct.suss_table(rows, "p", {})
    check("SUSS table: published HyStart 1.29 and 40", "| HyStart | cubic | 1.300 (1.200-1.400) | 1.29 | 1.01 |" in s)
    # cubic's retrans were 0, 1, 2: one of three without a retransmission
    check("SUSS table: transfers without a retransmission", "| 1.00 (1.00) | 1/3 |" in s)
    check("SUSS table: no 20 MB -> '-'", s.count("| - | - |") >= 1)
    eq("no SUSS table without 5 or 20 MB", fct.suss_table([dict(r, bytes=1000000) for r in rows], "p", {}), None)
    check("no policer column on a path without one", "policer drops" not in t)


def test_policer():
    # a policer before the queue: its drops are counted apart, and get a column
    show0 = fct.parse_show("tbf_dropped=0\nlink_police_dropped=100\n")
    show1 = fct.parse_show("tbf_dropped=3\nlink_police_dropped=190\n")
    x = {"ca": "cubic", "bytes": 5000000, "fct_s": 2.5, "retrans": 95, "impossible": None}
    r = fct.record(x, META, show0, show1)
    eq("policer drops: the difference", r["police_drops"], 90)
    eq("tbf drops apart", r["tbf_drops"], 3)
    rows = fct.summarize([r])
    eq("summary: policer drops", rows[0]["police_drops"], {"median": 90, "min": 90, "max": 90})
    t = fct.path_table(rows, {})
    check("the policer's column", "policer drops (min-max)" in t and "| 95 | 3 | 90 |" in t)


def test_load():
    # the header's load: the emulator's spinners (one per CPU) are taken off the
    # load average, and CPU busy is not given while they run
    m = {"load1_median": 2.40, "load1_min": 2.10, "load1_max": 3.00, "cpu_busy_pct": 99.6,
         "cpu_steal_pct": 0.0, "cpus": "2"}
    t = fct.load_text(dict(m, spinners="2"))
    check("spinners taken off the load: 2.40 - 2 = 0.40 (0.10-1.00)",
          "less the emulator's 2 spinning threads 0.40 (median over the transfers; 0.10-1.00)" in t)
    check("no CPU busy figure with spinners", "CPU busy not measured" in t and "100 %" not in t)
    t = fct.load_text(dict(m, spinners="0"))
    check("without spinners: the load as read", "1-minute load average 2.40 (median" in t)
    check("without spinners: CPU busy", "CPU busy 100 % of 2 CPUs" in t)
    check("an older run.txt (no spinners line) reads as without", fct.load_text(m) == t)


for t in (test_sizes, test_limit, test_record, test_summary, test_policer, test_load):
    t()
done("fct")
