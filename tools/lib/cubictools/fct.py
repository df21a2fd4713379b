# SPDX-License-Identifier: GPL-2.0
"""Flow completion time (tools/fct): transfer sizes, the physical limit, one
record per timed transfer, and the summary and report of a run.

A transfer's FCT is timed by its sender (tools/fct/xfer.py): from connect()'s
return (the handshake excluded) to the arrival of the receiver's one-byte
reply, sent once it has read all N bytes (one RTT for the reply included).
Its physical limit is every byte at the bottleneck rate from the first RTT,
plus one RTT: RTT + wire bytes x 8 / rate, where the wire bytes are the N
payload bytes and the IP and TCP headers of their ceil(N / MSS) segments
(pathemu's rate counts IP bytes: a full segment of 1448 bytes is 1500).
"""
import math
import re

from . import path, report, stats
from .parse import IP_PKT, MSS

# "the published table" (SUSS, SIGCOMM 2024, and its authors' HyStart++
# evaluation page): 50 Mbit/s, 100 ms, a 413-packet buffer. 5 MB FCT in
# seconds, packets lost in a 20 MB transfer.
SUSS_PATH = {"rate": "50mbit", "rtt": "100ms", "buffer": "413"}
SUSS_PUBLISHED = [
    # (row label, published 5 MB FCT s, published 20 MB lost, our algorithm ids)
    ("without HyStart", 1.5, 1105, ["bpf_off"]),
    ("HyStart", 1.29, 40, ["cubic", "bpf_linux"]),
    ("HyStart++", 1.5, 704, ["bpf_hspp"]),
    ("SUSS (published) / PREDICT (ours)", 1.11, 35, ["bpf_predict"]),
]
REFERENCE = "cubic"          # the ratio column's denominator: the kernel's cubic, HyStart on

_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)(b|kb|mb|gb|kib|mib|gib)?")
_SIZE_UNITS = {None: 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9,
               "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30}
SIZE_MIN, SIZE_MAX = 16, 10 ** 10


def parse_size(text):
    """'5MB' -> 5000000 bytes (B, kB, MB, GB decimal; KiB, MiB, GiB binary;
    no unit: bytes; any case). Raises ValueError."""
    m = _SIZE.fullmatch(text.strip().lower())
    if not m:
        raise ValueError(f"bad size '{text}' (bytes, or e.g. 5MB, 64KiB)")
    n = float(m.group(1)) * _SIZE_UNITS[m.group(2)]
    if n != int(n) or not SIZE_MIN <= n <= SIZE_MAX:
        raise ValueError(f"bad size '{text}' (a whole number of bytes, {SIZE_MIN} B..10 GB)")
    return int(n)


def size_label(nbytes):
    """5000000 -> '5MB', 1500000 -> '1.5MB', 65536 -> '64KiB', 1500 -> '1500B'."""
    for unit, mult in (("GB", 10 ** 9), ("MB", 10 ** 6), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("kB", 10 ** 3),
                       ("KiB", 2 ** 10)):
        if nbytes >= mult and (nbytes * 10) % mult == 0:
            return f"{nbytes / mult:g}{unit}"
    return f"{nbytes}B"


def wire_bytes(nbytes):
    """IP bytes of N payload bytes in full-size segments (the last one short)."""
    return nbytes + math.ceil(nbytes / MSS) * (IP_PKT - MSS)


def limit_s(nbytes, rate_bps, rtt_s):
    """The physical limit: RTT + the wire bytes at the bottleneck rate."""
    return rtt_s + wire_bytes(nbytes) * 8 / rate_bps


def show_drops(show):
    """The drop counters of a `pathemu show` (dict of its key=value lines):
    bottleneck (TBF) drops, random-loss drops, delay-queue drops, policer
    drops (a policer before the queue: pathemu --policer)."""
    def n(k):
        try:
            return int(float(show.get(k, 0)))
        except ValueError:
            return 0
    return {"tbf": n("tbf_dropped"), "loss": n("loss_drop_pkts"), "delayq": n("delayq_drops"),
            "police": n("link_police_dropped")}


def show_late(show):
    """(p99, max) of the release error, us, of the worst of the path's delay
    lines (the ACK path's, a trace link's or a policer's) in a `pathemu
    show` dict, since their histograms were last reset; (None, None) if it
    has none."""
    def worst(suffix):
        v = []
        for d in ("delayq", "link"):
            try:
                v.append(float(show[f"{d}_release_err_{suffix}"]))
            except (KeyError, ValueError):
                pass
        return int(max(v)) if v else None
    return worst("p99_us"), worst("max_us")


def parse_show(text):
    """`pathemu show`'s key=value lines as a dict (the last of a repeated key)."""
    out = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k.strip()] = v.strip()
    return out


def record(xfer, meta, show_before, show_after):
    """One transfer's record: the sender's object XFER (xfer.py send), the
    run's META (path, algorithm, repetition, ...), and the path's drop
    counters around it. A transfer that did not complete keeps fct_s None."""
    rate, rtt = meta["rate_bps"], meta["rtt_us"] / 1e6
    nbytes = meta["bytes"]
    lim = limit_s(nbytes, rate, rtt)
    d0, d1 = show_drops(show_before), show_drops(show_after)
    rec = dict(meta)
    rec["limit_s"] = round(lim, 6)
    fct = xfer.get("fct_s") if isinstance(xfer, dict) else None
    ok = fct is not None and not xfer.get("error") and xfer.get("bytes") == nbytes
    rec["ca_used"] = xfer.get("ca") if isinstance(xfer, dict) else None
    err = (xfer.get("error") if isinstance(xfer, dict) else None) or (None if ok else "no result")
    if ok and rec["ca_used"] != meta["ca"]:
        # not the algorithm asked for: no figure of it
        ok, err = False, f"the socket ran {rec['ca_used']}, not {meta['ca']}"
    rec["completed"] = bool(ok)
    rec["fct_s"] = fct if ok else None
    rec["fct_over_limit"] = round(fct / lim, 4) if ok else None
    rec["error"] = err
    for k in ("retrans", "bytes_retrans", "data_segs_out", "min_rtt_us", "srtt_us", "max_cwnd", "max_ssthresh",
              "cwnd_end", "ssthresh_end", "written_s", "rwnd_limited_us", "sndbuf_limited_us", "samples",
              "bound", "impossible"):
        rec[k] = xfer.get(k) if isinstance(xfer, dict) else None
    rec["tbf_drops"] = d1["tbf"] - d0["tbf"]
    rec["loss_drops"] = d1["loss"] - d0["loss"]
    rec["delayq_drops"] = d1["delayq"] - d0["delayq"]
    rec["police_drops"] = d1["police"] - d0["police"]
    rec["emu_release_p99_us"], rec["emu_release_max_us"] = show_late(show_after)
    rec["emu_late"] = rec["emu_release_p99_us"] is not None and rec["emu_release_p99_us"] > path.EMU_LATE_P99_US
    return rec


def _key(r):
    return (r["path"], r["bytes"], r["algorithm"])


def summarize(records, reference=REFERENCE):
    """One row per (path, size, algorithm), in the order first seen: the
    transfers and completions, FCT median/min/max, the median's ratio to the
    reference algorithm's median on the same path and size, the median's
    ratio to the physical limit, retransmissions and path drops (median,
    min, max)."""
    groups = {}
    for r in records:
        groups.setdefault(_key(r), []).append(r)
    rows = []
    for (pth, nbytes, algo), rs in groups.items():
        fcts = [r["fct_s"] for r in rs if r["completed"]]
        med, lo, hi = stats.median_min_max(fcts)
        done = [r for r in rs if r["completed"]]
        row = {"path": pth, "bytes": nbytes, "size": rs[0].get("size") or size_label(nbytes), "algorithm": algo,
               "ca": rs[0].get("ca"), "n": len(rs), "completed": len(done),
               "fct_median_s": med, "fct_min_s": lo, "fct_max_s": hi,
               "fct_ci95_s": stats.median_ci(fcts), "limit_s": rs[0]["limit_s"],
               "over_limit": med / rs[0]["limit_s"] if med is not None else None}
        row["no_retrans"] = sum(1 for r in done if r["retrans"] == 0)
        for k in ("retrans", "tbf_drops", "loss_drops", "delayq_drops", "police_drops"):
            m, a, b = stats.median_min_max([r.get(k) or 0 for r in done])
            row[k] = {"median": m, "min": a, "max": b}
        rows.append(row)
    ref = {(r["path"], r["bytes"]): r["fct_median_s"] for r in rows if r["algorithm"] == reference}
    for row in rows:
        d = ref.get((row["path"], row["bytes"]))
        row["vs_reference"] = row["fct_median_s"] / d if d and row["fct_median_s"] is not None else None
    return rows


def _mmm(d, nd=0):
    """'median (min-max)' of a summary's {median, min, max}."""
    if d["median"] is None:
        return "-"
    if d["min"] == d["max"]:
        return report.fmt(d["median"], nd)
    return f"{report.fmt(d['median'], nd)} ({report.fmt(d['min'], nd)}-{report.fmt(d['max'], nd)})"


def ratio(x):
    """A ratio as the report prints it (two decimals)."""
    return report.fmt(x, 2)


def path_table(rows, algo_names):
    """The Markdown table of one path: one row per size and algorithm."""
    head = ["size", "algorithm", "done", "FCT median s", "min-max s", "x cubic", "x limit", "limit s",
            "retrans (min-max)", "bottleneck drops (min-max)"]
    # a policer's drops get a column of their own, on a path that has one
    police = any((r.get("police_drops") or {}).get("max") for r in rows)
    if police:
        head.append("policer drops (min-max)")
    out = []
    for r in rows:
        out.append([r["size"], algo_names.get(r["algorithm"], r["algorithm"]), f"{r['completed']}/{r['n']}",
                     report.fmt(r["fct_median_s"], 3),
                     f"{report.fmt(r['fct_min_s'], 3)}-{report.fmt(r['fct_max_s'], 3)}",
                     ratio(r["vs_reference"]), ratio(r["over_limit"]), report.fmt(r["limit_s"], 3),
                     _mmm(r["retrans"]), _mmm(r["tbf_drops"])] + ([_mmm(r["police_drops"])] if police else []))
    return report.md_table(head, out, "llrrrrrrrr" + ("r" if police else ""))


def suss_table(rows, path_id, algo_names):
    """Our figures on the SUSS path (PATH_ID) next to the published ones:
    5 MB FCT and 20 MB drops per configuration. None if the run has no 5 MB
    or 20 MB transfers on that path."""
    by = {(r["bytes"], r["algorithm"]): r for r in rows if r["path"] == path_id}
    if not any(b in (5 * 10 ** 6, 20 * 10 ** 6) for b, _ in by):
        return None
    href = by.get((5 * 10 ** 6, REFERENCE))
    head = ["configuration", "ours", "5 MB FCT s, ours: median (min-max)", "published",
            "ours / published", "x HyStart, ours (published)", "5 MB without a retransmission, ours",
            "20 MB retrans, ours", "20 MB bottleneck drops, ours", "20 MB lost, published"]
    out = []
    pub_h = SUSS_PUBLISHED[1][1]
    for label, pub_fct, pub_lost, ids in SUSS_PUBLISHED:
        for aid in ids:
            f5, f20 = by.get((5 * 10 ** 6, aid)), by.get((20 * 10 ** 6, aid))
            med = f5["fct_median_s"] if f5 else None
            fct = "-" if med is None else (
                f"{med:.3f} ({f5['fct_min_s']:.3f}-{f5['fct_max_s']:.3f})")
            xh = (med / href["fct_median_s"]) if med is not None and href and href["fct_median_s"] else None
            out.append([label, algo_names.get(aid, aid), fct, f"{pub_fct:.2f}",
                        ratio(med / pub_fct) if med is not None else "-",
                        f"{ratio(xh)} ({pub_fct / pub_h:.2f})",
                        f"{f5['no_retrans']}/{f5['completed']}" if f5 else "-",
                        _mmm(f20["retrans"]) if f20 else "-", _mmm(f20["tbf_drops"]) if f20 else "-",
                        str(pub_lost)])
    return report.md_table(head, out, "llrrrrrrrr")


def load_text(meta):
    """The machine's load during the run, as one sentence.  With the path
    emulator's spinners (run.txt spinners=N: a SCHED_IDLE thread per CPU that
    runs whenever the CPU would idle, tools/emu/README.md) the load average
    counts N more runnable tasks, so N is taken off, and /proc/stat reads every
    CPU busy, so no CPU busy figure is given (steal still is)."""
    parts = []
    try:
        spin = int(meta.get("spinners") or 0)
    except ValueError:
        spin = 0
    if meta.get("load1_median") is not None:
        if spin:
            parts.append(f"1-minute load average less the emulator's {spin} spinning threads "
                         f"{meta['load1_median'] - spin:.2f} (median over the transfers; "
                         f"{meta['load1_min'] - spin:.2f}-{meta['load1_max'] - spin:.2f})")
        else:
            parts.append(f"1-minute load average {meta['load1_median']:.2f} (median over the transfers; "
                         f"{meta['load1_min']:.2f}-{meta['load1_max']:.2f})")
    if meta.get("cpu_busy_pct") is not None:
        if spin:
            parts.append(f"CPU busy not measured: the spinners keep all {meta.get('cpus', '?')} CPUs busy "
                         f"(steal {meta.get('cpu_steal_pct', 0):.1f} %)")
        else:
            parts.append(f"CPU busy {meta['cpu_busy_pct']:.0f} % of {meta.get('cpus', '?')} CPUs over the run "
                         f"(steal {meta.get('cpu_steal_pct', 0):.1f} %)")
    return "; ".join(parts) if parts else "not recorded"
