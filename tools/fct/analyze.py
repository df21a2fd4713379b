#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Flow completion time: records and report for tools/fct/run.sh.

  analyze.py sizes SIZE...
        each size as "LABEL BYTES" (5MB -> "5MB 5000000"); a bad one: the
        reason on stderr, exit 2
  analyze.py record --xfer FILE --rc N --show-before FILE --show-after FILE
                    --meta KEY=VALUE...
        one transfer's JSON line on stdout (cubictools.fct.record): xfer.py's
        object, the run's facts, the path's drop counters around it. Exit 3,
        naming the transfer and the value, if its sender saw an impossible
        window (docs/IMPOSSIBLE_WINDOWS.md)
  analyze.py report --in DIR [--out DIR] [--paths ID...]
        DIR/transfers.jsonl and DIR/run.txt -> summary.json and report.md
        (per path, size and algorithm: median FCT and range, x cubic, x the
        physical limit, retransmissions, bottleneck drops; the SUSS table when
        the run has its path). Prints the SUSS table (or the first path's).
        Refuses (exit 3) a run with an impossible window; --paths reports
        only those paths' transfers (those of a run stopped on another path).
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cubictools import fct, parse, path, report, stats, windows  # noqa: E402

# keys of --meta that are numbers
META_NUM = {"bytes": int, "rep": int, "seq": int, "rate_bps": int, "rtt_us": int, "bdp_pkts": int,
            "buffer_pkts": int, "bound": int, "load1": float, "t_unix": float, "hystart_param": int,
            "late_retries": int}


def cmd_sizes(a):
    out = []
    for t in a.sizes:
        try:
            n = fct.parse_size(t)
        except ValueError as e:
            print(f"analyze.py: {e}", file=sys.stderr)
            return 2
        out.append(f"{fct.size_label(n)} {n}")
    print("\n".join(out))
    return 0


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def cmd_record(a):
    meta = {}
    for kv in a.meta:
        k, _, v = kv.partition("=")
        meta[k] = META_NUM[k](v) if k in META_NUM and v != "" else v
    text = read_text(a.xfer).strip()
    try:
        xfer = json.loads(text.splitlines()[-1]) if text else {}
    except ValueError:
        xfer = {"error": f"not JSON: {text[:200]}"}
    if a.rc not in (0, 3) and not xfer.get("error"):
        xfer = dict(xfer, error=f"the sender exited {a.rc}" + (" (timeout)" if a.rc == 124 else ""))
    rec = fct.record(xfer, meta, fct.parse_show(read_text(a.show_before)), fct.parse_show(read_text(a.show_after)))
    print(json.dumps(rec, sort_keys=False))
    if rec.get("impossible"):
        imp = rec["impossible"]
        print(f"IMPOSSIBLE WINDOW: {rec['path']} {rec['algorithm']} {rec['size']} rep {rec['rep']}: "
              f"at {imp['t_s']} s after connect: {imp['what']} (docs/IMPOSSIBLE_WINDOWS.md)", file=sys.stderr)
        return windows.IMPOSSIBLE_EXIT
    return 0


def read_records(path):
    recs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    sys.exit(f"analyze.py: {path}:{n}: not JSON")
    return recs


def run_meta(path, recs):
    """run.txt's key=value lines, and the load the transfers saw."""
    meta = fct.parse_show(read_text(path))
    loads = [r.get("load1") for r in recs if r.get("load1") is not None]
    if loads:
        meta["load1_median"], meta["load1_min"], meta["load1_max"] = stats.median_min_max(loads)
    try:
        c0 = [int(x) for x in meta["cpu_start"].split()]
        c1 = [int(x) for x in meta["cpu_end"].split()]
        d = [y - x for x, y in zip(c0, c1)]
        tot = sum(d[:8])  # user nice system idle iowait irq softirq steal
        if tot > 0:
            meta["cpu_busy_pct"] = 100 * (d[0] + d[1] + d[2] + d[5] + d[6] + d[7]) / tot
            meta["cpu_steal_pct"] = 100 * d[7] / tot
    except (KeyError, ValueError, IndexError):
        pass
    return meta


def cmd_report(a):
    src = a.inp
    out = a.out or src
    recs = read_records(os.path.join(src, "transfers.jsonl"))
    if a.paths:
        # a subset: e.g. the paths of a run stopped by an impossible window on another
        recs = [r for r in recs if r["path"] in a.paths]
    if not recs:
        print(f"analyze.py: no transfers in {src}/transfers.jsonl", file=sys.stderr)
        return 1
    bad = [r for r in recs if r.get("impossible")]
    if bad:
        r = bad[0]
        print(f"analyze.py: refusing a run with an impossible window: {r['path']} {r['algorithm']} {r['size']} "
              f"rep {r['rep']}: {r['impossible']['what']} (docs/IMPOSSIBLE_WINDOWS.md)", file=sys.stderr)
        return windows.IMPOSSIBLE_EXIT
    meta = run_meta(os.path.join(src, "run.txt"), recs)
    rows = fct.summarize(recs)
    names = {r["algorithm"]: r.get("label") or r["algorithm"] for r in recs}
    os.makedirs(out, exist_ok=True)
    report.write_json(os.path.join(out, "summary.json"), {"run": meta, "rows": rows})
    paths = []
    for r in recs:
        if r["path"] not in [p["path"] for p in paths]:
            paths.append(r)
    lines = ["# Flow completion time", ""]
    lines.append(f"Run {meta.get('date', '?')}: `{meta.get('command', '?')}`; kernel {meta.get('kernel', '?')}, "
                 f"{meta.get('cpus', '?')} CPUs, git {meta.get('git', '?')}; {len(recs)} transfers, "
                 f"{sum(1 for r in recs if r['completed'])} completed, wall {meta.get('wall_s', '?')} s.")
    if a.paths:
        lines.append(f"Only the transfers of path(s) {', '.join(a.paths)} of the run's `transfers.jsonl` "
                     "(`analyze.py report --paths`).")
    if not meta.get("wall_s"):
        lines.append("**The run did not finish** (run.txt has no end: stopped, e.g. by an impossible window); "
                     "CPU busy is unknown.")
    lines.append(f"Machine load during the run: {fct.load_text(meta)}.")
    late = [r for r in recs if r.get("emu_late")]
    if any("emu_late" in r for r in recs):
        lines.append(f"The emulator's delay lines (release error p99 above {path.EMU_LATE_P99_US / 1e3:g} ms over "
                     f"a transfer: the path was not the one emulated): {meta.get('late_reruns', '?')} tries run "
                     f"again, {len(late)} transfers kept late (every try late)"
                     + "".join(f"; {r['path']} {r['algorithm']} {r['size']} rep {r['rep']} "
                               f"(p99 {r['emu_release_p99_us']} us)" for r in late[:10]) + ".")
    hp = meta.get("hystart_param")
    lines.append("")
    lines.append("Each transfer: one TCP connection, the congestion control set before connect(); the clock "
                 "starts when connect() returns (the handshake excluded) and stops when the receiver's "
                 "one-byte reply, sent after it has read all N bytes, arrives (one RTT for the reply "
                 "included). Algorithms interleaved: every repetition runs every size and algorithm "
                 "once, the algorithms' order rotated by one each repetition.")
    lines.append("")
    lines.append(f"- **x cubic**: the median FCT over the kernel's `cubic` median on the same path and size "
                 f"(`/sys/module/tcp_cubic/parameters/hystart` was {hp if hp is not None else '?'} "
                 f"during the run{'' if hp in (None, '1') else ': HyStart OFF, the cubic rows are not HyStart'}). "
                 "\"Without HyStart\" is a bpf_cubic instance with preset `off` (the kernel's switch is "
                 "global to every cubic socket on the machine).")
    lines.append("- **x limit**: the median FCT over the physical limit, RTT + the wire bytes (payload and "
                 f"{parse.IP_PKT - parse.MSS} header bytes per {parse.MSS}-byte segment) at the bottleneck rate "
                 "(behind a policer: the policed rate).")
    lines.append("- **retrans**: the sender's TCP_INFO `tcpi_total_retrans` (segments) over the transfer; "
                 "**bottleneck drops**: the emulator's TBF drop counter (`pathemu show`, tbf_dropped) "
                 "over the transfer; median (min-max). Random-loss and delay-queue drops are in the JSON "
                 f"({sum(r['loss_drops'] for r in recs if r['completed'])} and "
                 f"{sum(r['delayq_drops'] for r in recs if r['completed'])} in this run).")
    fails = [r for r in recs if not r["completed"]]
    if fails:
        lines.append("")
        lines.append(f"**{len(fails)} transfer(s) did not complete**: " + "; ".join(
            f"{r['path']} {r['algorithm']} {r['size']} rep {r['rep']}: {r['error']}" for r in fails[:10]))
    suss = None
    for p in paths:
        if (p.get("rate_bps"), p.get("rtt_us"), p.get("buffer_pkts")) == (50000000, 100000, 413):
            suss = fct.suss_table(rows, p["path"], names)
            if suss:
                lines += ["", f"## The SUSS testbed path ({p['path']}: 50 Mbit/s, 100 ms, 413-packet buffer)", "",
                          "Published: SUSS (SIGCOMM 2024) and its authors' HyStart++ evaluation page. PREDICT "
                          "is not SUSS: its row stands next to SUSS's published figures as the slow start "
                          "that set out to do better on this path. The published losses are packets lost "
                          "in a 20 MB transfer; ours are the sender's retransmitted segments and the "
                          "bottleneck's drops.", "", suss]
                break
    for p in paths:
        prow = [r for r in rows if r["path"] == p["path"]]
        opts = f", `{p['opts']}`" if p.get("opts") else ""
        lines += ["", f"## Path {p['path']}: {p.get('rate')} {p.get('rtt')}, buffer {p.get('buffer_pkts')} packets "
                      f"(BDP {p.get('bdp_pkts')} packets){opts}", "", fct.path_table(prow, names)]
    lines.append("")
    lines.append("Transfers: `transfers.jsonl` (one JSON object per transfer); these rows: `summary.json`.")
    doc = "\n".join(lines) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(doc)
    if suss:
        print(suss)
    else:
        prow = [r for r in rows if r["path"] == paths[0]["path"]]
        print(fct.path_table(prow, names))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sizes")
    s.add_argument("sizes", nargs="+")
    r = sub.add_parser("record")
    r.add_argument("--xfer", required=True)
    r.add_argument("--rc", type=int, required=True)
    r.add_argument("--show-before", required=True)
    r.add_argument("--show-after", required=True)
    r.add_argument("--meta", nargs="+", default=[])
    o = sub.add_parser("report")
    o.add_argument("--in", dest="inp", required=True)
    o.add_argument("--out")
    o.add_argument("--paths", nargs="+", help="only these paths' transfers")
    a = p.parse_args()
    return {"sizes": cmd_sizes, "record": cmd_record, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
