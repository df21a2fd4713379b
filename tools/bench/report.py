#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench's analysis: bench.sh runs the flows and leaves their raw results in
one directory; this checks each run, and turns the directory into the
Markdown report and the JSON (tools/bench/README.md says what each figure is).

  report.py check RUN_DIR --cc CC --flows N --bound B --rc RC --kind K [--log PREFIX]
        one run's iperf3 -J files: exit 1, naming what, if iperf3 failed, ran
        another congestion control or saw an impossible window; with --log,
        a line about the run on stderr
  report.py progs FILE      the programs of a `bpftool -j struct_ops dump`
                            (wrapped in [ ]), name=id lines; 1 without a per-ACK one
  report.py perf-count --pids P,Q,...   `perf script -F pid,ip,sym --max-stack 4`
                            on stdin -> its sample counts (JSON) on stdout
  report.py report DIR [--out FILE] [--json FILE] [--min-ratio R]
        the report on stdout (and in FILE), the key figures as JSON; exit 3 if
        either datapath's median goodput ratio is below R

The directory: meta (key=value: the run's options, names and notes),
runs.tsv (kind, algo, flows, index, run directory; in run order), in each run
directory c<i>.json/.err (one iperf3 client each), stat.0/stat.1 (/proc/stat
before and after), for a perf run snmp.0/snmp.1 (the sender's /proc/net/snmp)
and perf.json; progs.<instance>.json, stats.<tag>.before/after.json (`bpftool
-j prog show` around a bpf_stats run), trace_note.<datapath>, struct_ops.json.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools", "lib"))
from cubictools import parse, stats, windows  # noqa: E402
from cubictools.report import fmt, md_table, num, write_json  # noqa: E402

LABEL = {"cubic": "cubic (kernel)", "exact": "bpf_cubic exact", "fast": "bpf_cubic fast"}
# The program each datapath runs once per ACK (an instance has one of them),
# and the order of the others in the tables of either datapath
ACK_FAST, ACK_EXACT = "bc_cong_control", "bc_pkts_acked"
PROG_ORDER = ("bc_cong_avoid", "bc_cwnd_event", "bc_cwnd_event_fast", "bc_set_state", "bc_set_state_fast",
              "bc_recalc_ssthresh", "bc_undo_cwnd", "bc_init", "bc_release")
# perf samples: the kernel's congestion control, our programs, the trampoline
NATIVE_RE = re.compile(r"^(cubictcp_|bictcp_|tcp_reno_)")
BODY_RE = re.compile(r"^bpf_prog_[0-9a-f]+_bc_")
TCP_RE = re.compile(r"^_*tcp_")
TRAMP_RE = re.compile(r"^__bpf_prog_(enter|exit)")


def die(msg):
    print(f"bench.sh: {msg}", file=sys.stderr)
    sys.exit(1)


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        if default is None:
            raise
        return default


def f3(x):
    return fmt(x, 3, missing="nan")


def gbps(bps):
    return fmt(None if bps is None else bps / 1e9, 2, missing="nan")


# ---------------------------------------------------------------- one run

def clients(rundir):
    """The iperf3 clients' (JSON document or None, path) of a run, in order."""
    files = sorted(glob.glob(os.path.join(rundir, "c*.json")),
                   key=lambda p: int(re.search(r"c(\d+)\.json$", p).group(1)))
    return [(parse.load_json(p), p) for p in files]


class Run:
    """One run: its totals over all clients, rounded as bench has always
    kept them (bit/s and bytes whole, seconds to the ms)."""

    def __init__(self, top, kind, algo, flows, idx, name):
        self.kind, self.algo, self.flows, self.idx = kind, algo, int(flows), int(idx)
        self.dir = os.path.join(top, name)
        t = [parse.iperf_totals(doc) for doc, _ in clients(self.dir)]
        self.bps = round(sum(x["bps"] for x in t))
        self.bytes = round(sum(x["bytes"] for x in t))
        self.seconds = round(max(x["seconds"] for x in t), 3)
        self.retrans = sum(x["retrans"] for x in t)
        self.cpu_s = round(sum(x["cpu_s"] for x in t), 3)
        busy = [parse.proc_stat_busy(read(os.path.join(self.dir, f"stat.{i}"))) for i in (0, 1)]
        self.machine_s = round((busy[1] - busy[0]) / os.sysconf("SC_CLK_TCK"), 3)

    def perf(self):
        """The perf run's sample counts and ACKs (Tcp InSegs of the sender)."""
        p = json.loads(read(os.path.join(self.dir, "perf.json")))
        segs = [parse.snmp_value(read(os.path.join(self.dir, f"snmp.{i}")), "Tcp", "InSegs") for i in (0, 1)]
        p["acks"] = segs[1] - segs[0]
        return p


def show_line(kind, cc, flows, bps, retrans):
    return f"{kind:<8} {cc:<16} P={flows:<4} {bps / 1e9:6.2f} Gbit/s  retrans {retrans}"


def cmd_check(a):
    what = f"iperf3 -C {a.cc} -P {a.flows}"
    docs = clients(a.rundir)
    for doc, path in docs:
        if not isinstance(doc, dict):
            err = read(path[:-len(".json")] + ".err", "")[:300]
            die(f"{what}: no JSON from iperf3: {err}")
        if doc.get("error"):
            die(f"{what}: {doc['error']}")
        ran = (doc.get("end") or {}).get("sender_tcp_congestion")
        if ran != a.cc:
            die(f"iperf3 -C {a.cc} ran on {'null' if ran is None else ran}")
        mx = parse.iperf_max_cwnd_pkts(doc)
        if mx > a.bound:
            die(windows.iperf_message(what, mx, a.bound))
    if a.rc != 0:
        die(f"{what} exited with {a.rc}")
    if a.log is not None:
        t = [parse.iperf_totals(doc) for doc, _ in docs]
        print(a.log + show_line(a.kind, a.cc, a.flows, round(sum(x["bps"] for x in t)),
                                sum(x["retrans"] for x in t)), file=sys.stderr)
    return 0


def cmd_progs(a):
    progs = parse.struct_ops_progs(json.loads(read(a.file)))
    for n, i in progs.items():
        print(f"{n}={i}")
    return 0 if ACK_FAST in progs or ACK_EXACT in progs else 1


def cmd_perf_count(a):
    """Samples whose 4 innermost frames hold the kernel's congestion control
    (native), one of our programs (body) or the struct_ops trampoline
    (__bpf_prog_enter/exit* or unnamed code, under a tcp_* caller), counted
    in the processes of our namespaces (the TCP receive path runs in softirq,
    on veth in the context of the process that sent the packet); "other"
    counts such samples elsewhere (other flows, ksoftirqd)."""
    ours = set(a.pids.split(","))
    c = {"total": 0, "native": 0, "body": 0, "tramp": 0, "other": 0}

    def sample(lines):
        c["total"] += 1
        syms = []
        for line in lines[1:]:
            f = line.split()
            if len(syms) < 4 and len(f) > 1:
                syms.append(f[1])
        tcp = any(TCP_RE.match(s) for s in syms)
        cls = None
        for s in syms:
            if NATIVE_RE.match(s):
                cls = "native"
            elif BODY_RE.match(s):
                cls = "body"
            elif tcp and (TRAMP_RE.match(s) or s == "[unknown]"):
                cls = "tramp"
            if cls:
                break
        if cls:
            pid = lines[0].split()[0] if lines[0].split() else ""
            c[cls if pid in ours else "other"] += 1

    lines = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line:
            lines.append(line)
        elif lines:
            sample(lines)
            lines = []
    if lines:
        sample(lines)
    json.dump(c, sys.stdout)
    print()
    return 0


# ---------------------------------------------------------------- the report

class Bench:
    def __init__(self, d):
        self.d = d
        self.meta = dict(line.split("=", 1) for line in read(os.path.join(d, "meta")).splitlines() if "=" in line)
        m = self.meta
        self.name = m["name"]
        self.datapaths = m["datapaths"].split()
        self.algos = ["cubic"] + self.datapaths
        self.cc = {k[3:]: v for k, v in m.items() if k.startswith("cc_")}
        self.runs_n, self.duration = int(m["runs"]), int(m["duration"])
        self.flows = [int(p) for p in m["flows"].split()]
        self.flow_runs = int(m["flow_runs"])
        self.verdict_runs = int(m.get("verdict_runs", 0))
        self.perf_on, self.floor_on = m["perf"] == "1", m["floor"] == "1"
        self.perf_note = m.get("perf_note", "")
        self.perf_freq, self.perf_runs = int(m["perf_freq"]), int(m["perf_runs"])
        self.runs = [Run(d, *line.split("\t")) for line in read(os.path.join(d, "runs.tsv")).splitlines() if line]

    # -- runs of a kind
    def of(self, kind, algo):
        return [r for r in self.runs if r.kind == kind and r.algo == algo]

    def goodput(self, kind, algo):
        return [r.bps for r in self.of(kind, algo)]

    def ratios(self, kind, dp):
        """Per-round goodput ratios DP/cubic (to 6 decimals, as always)."""
        return [float(f"{x:.6f}") for x in stats.paired_ratios(self.goodput(kind, dp), self.goodput(kind, "cubic"))]

    def cpu_per_gb(self, kind, algo, field):
        """CPU seconds per 10^9 bytes sent, per run: FIELD cpu_s (iperf3's
        processes) or machine_s (/proc/stat)."""
        return [float(f"{getattr(r, field) / (r.bytes / 1e9):.4f}") for r in self.of(kind, algo) if r.bytes > 0]

    # -- bpf_stats runs: TAG is DATAPATH.pFLOWS or DATAPATH.trace
    def prog_stats(self, tag):
        """[(program, calls, ns)] of the stats run TAG, by name."""
        dp = tag.split(".")[0]
        ids = set(parse.struct_ops_progs(json.loads(read(os.path.join(self.d, f"progs.{self.cc[dp]}.json")))).values())
        b, a = (parse.prog_run_stats(json.loads(read(os.path.join(self.d, f"stats.{tag}.{w}.json"))), ids)
                for w in ("before", "after"))
        return [(n, a[n][1] - b[n][1], a[n][0] - b[n][0]) for n in sorted(set(a) & set(b))]

    def stats_run(self, tag):
        return self.of(f"stats-{tag}", tag.split(".")[0])[0]

    def ack_prog(self, tag):
        return ACK_FAST if any(n == ACK_FAST for n, _, _ in self.prog_stats(tag)) else ACK_EXACT

    def acks(self, tag):
        ack = self.ack_prog(tag)
        return next((c for n, c, _ in self.prog_stats(tag) if n == ack), 0)

    def ns_per_ack(self, tag):
        acks = self.acks(tag)
        return f"{sum(t for _, _, t in self.prog_stats(tag)) / acks:.0f}" if acks > 0 else "n/a"

    def acks_per_s(self, tag):
        return fmt(self.acks(tag) / self.stats_run(tag).seconds)

    def bpf_cpu_share(self, tag):
        cpu = self.stats_run(tag).cpu_s
        ns = sum(t for _, _, t in self.prog_stats(tag))
        return f"{100 * ns / (cpu * 1e9):.1f}%" if cpu > 0 else "n/a"

    def trace_note(self, dp):
        return read(os.path.join(self.d, f"trace_note.{dp}"), "").strip()

    def ns_per_ack_median(self, dp, v):
        """The median ns per ACK of the verdict=V runs of DATAPATH (bench.sh --verdict-runs)."""
        xs = [float(x) for x in (self.ns_per_ack(f"{dp}.v{v}.{r}") for r in range(1, self.verdict_runs + 1))
              if x != "n/a"]
        m = stats.median(xs)
        return "n/a" if m is None else f"{m:.0f}"

    def verdicts(self, dp):
        """The verdict records of the verdict runs of DATAPATH (their trace)."""
        out = []
        for line in read(os.path.join(self.d, f"trace.verdict.{dp}.jsonl"), "").splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("record") == "verdict":
                out.append(r)
        return out

    def verdict_note(self, dp):
        """How long the verdict=1 runs' flows were measured: how many to their close, and ACKs."""
        vs = self.verdicts(dp)
        if not vs:
            return "no verdict traced"
        closed = sum(1 for v in vs if v.get("end") == "closed")
        acks = stats.median([v.get("samples") or 0 for v in vs])
        return f"{len(vs)} verdicts, {closed} measured to the close; median {acks:.0f} ACKs measured"

    # -- perf runs
    def perf_ns(self, algo, fields):
        ps = [r.perf() for r in self.of(f"perf-{algo}", algo)]
        smp = sum(p[f] for p in ps for f in fields)
        acks = sum(p["acks"] for p in ps)
        return f"{smp * 1e9 / self.perf_freq / acks if acks > 0 else 0:.0f}"

    def perf_sum(self, algo, field):
        return f"{sum(r.perf()[field] for r in self.of(f'perf-{algo}', algo)):.0f}"

    def perf_gbps(self, algo):
        return fmt(stats.mean(r.bps for r in self.of(f"perf-{algo}", algo)) / 1e9, 2)

    # -- the figures
    def figures(self):
        F = {"g": {}, "cp": {}, "cs": {}, "rt": {}, "r": {}, "ci": {}, "ns": {}, "ns_trace": {}, "ns_v1": {}, "ns_v0": {}}
        for a in self.algos:
            F["g"][a] = stats.median_min_max(self.goodput("main", a))
            F["cp"][a] = stats.median(self.cpu_per_gb("main", a, "cpu_s"))
            F["cs"][a] = stats.median(self.cpu_per_gb("main", a, "machine_s"))
            F["rt"][a] = stats.median(r.retrans for r in self.of("main", a))
        for d in self.datapaths:
            rs = self.ratios("main", d)
            F["r"][d] = [f3(x) for x in stats.median_min_max(rs)]
            ci = stats.median_ci(rs)
            F["ci"][d] = f"{ci[0]:.3f}-{ci[1]:.3f}" if ci else "n/a"
            F["ns"][d] = self.ns_per_ack(f"{d}.p1")
            F["ns_trace"][d] = self.trace_note(d) or self.ns_per_ack(f"{d}.trace")
            F["ns_v1"][d] = self.ns_per_ack_median(d, 1) if self.verdict_runs else "n/a"
            F["ns_v0"][d] = self.ns_per_ack_median(d, 0) if self.verdict_runs else "n/a"
        return F


def ns_diff(a, b):
    """a - b of two ns-per-ACK figures, signed; n/a if either is."""
    try:
        return f"{int(a) - int(b):+d}"
    except (TypeError, ValueError):
        return "n/a"


def ratio_of(a, b):
    """a / b of two medians as bench prints them (awk's %.6g)."""
    a, b = (None if x is None else float(num(x)) for x in (a, b))
    return f"{a / b:.3f}" if a is not None and b is not None and b > 0 else "n/a"


def run_cmd(*argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def header(B):
    m = B.meta
    cpu = next((line.split(": ", 1)[1] for line in read("/proc/cpuinfo", "").splitlines()
                if line.startswith("model name")), "")
    hyper = next((f", {line.split(':', 1)[1].strip()} guest" for line in (run_cmd("lscpu") or "").splitlines()
                  if line.startswith("Hypervisor vendor")), "")
    commit = (run_cmd("git", "-C", REPO, "rev-parse", "--short", "HEAD") or "unknown\n").strip()
    if (run_cmd("git", "-C", REPO, "status", "--porcelain", "--", "bpf", "include", "src") or "").strip():
        commit += " (bpf/, include/ or src/ modified)"

    def version(*argv):
        out = (run_cmd(*argv) or "").splitlines()
        return out[0].split()[1] if out and len(out[0].split()) > 1 else ""

    so = parse.load_json(os.path.join(B.d, "struct_ops.json"))
    other = (sum(1 for x in so if x.get("kernel_struct_ops") == "tcp_congestion_ops")
             if isinstance(so, list) else "?")
    u = os.uname()
    cpus = m["cpus"]
    pinned = (f"iperf3 client on CPU {cpus.split(',')[0]}, server on CPU {cpus.split(',')[1]}" if cpus
              else "iperf3 not pinned")
    instances = ", ".join(f"{B.cc[d]} ({d} datapath)" for d in B.datapaths)
    labels = " / ".join(LABEL[a].replace(" (kernel)", "") for a in B.algos)
    load_end = " ".join(read("/proc/loadavg").split()[:3])
    return ["## bpf_cubic datapath benchmark", "",
            f"- date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}",
            f"- kernel: {u.release} ({u.machine})",
            f"- CPU: {cpu}, {len(os.sched_getaffinity(0))} CPUs{hyper}",
            f"- command: `{m['cmdline']}`",
            f"- source: {commit}; iperf3 {version('iperf3', '--version')}, bpftool {version('bpftool', 'version')}",
            "- path: two namespaces, one veth pair, no shaping (CPU-bound), namespace default reno, "
            f"tcp_rmem/tcp_wmem max 64 MiB, TSO/GSO/GRO {m['offload']}; instances {instances} with default "
            f"tunables; {pinned}",
            f"- machine load: loadavg {m['loadavg_start']} at start, {load_end} at end; "
            f"other tcp_congestion_ops struct_ops maps loaded: {other}",
            f"- runs: {B.runs_n} rounds, {B.duration} s per run; a round runs {labels} once each, the order "
            f"rotating from round to round; kernel.bpf_stats_enabled={m['stats_prev']} during goodput runs, "
            "1 only in the bpf_stats runs"]


def goodput_section(B, F):
    out = ["", "### Goodput, 1 flow", ""]
    rows = [[f"{LABEL[a]}, Gbit/s"] + [gbps(x) for x in F["g"][a]] + [""] for a in B.algos]
    rows += [[f"**ratio {LABEL[d]} / cubic** (round i / round i)", f"**{F['r'][d][0]}**", F["r"][d][1],
              F["r"][d][2], F["ci"][d]] for d in B.datapaths]
    out.append(md_table(["", "median", "min", "max", "95 % CI of the median"], rows, "lrrrr"))
    out += ["", "Retransmitted segments per run (median): "
            + ", ".join(f"{LABEL[a].replace(' (kernel)', '')} {num(F['rt'][a])}" for a in B.algos) + ".", ""]
    g = [B.goodput("main", a) for a in B.algos]
    c = [B.cpu_per_gb("main", a, "cpu_s") for a in B.algos]
    rows = []
    for i in range(len(g[0])):
        gi = [x[i] if i < len(x) else 0 for x in g]
        rows.append([str(i + 1)] + [f"{x / 1e9:.2f}" for x in gi]
                    + [f"{x / gi[0]:.3f}" if gi[0] > 0 else "n/a" for x in gi[1:]]
                    + [f"{x[i] if i < len(x) else 0:.3f}" for x in c])
    out.append(md_table(["round"] + [f"{a} Gbit/s" for a in B.algos] + [f"{d} / cubic" for d in B.datapaths]
                        + [f"{a} CPU s/GB" for a in B.algos], rows, "r"))
    return out


def cpu_section(B, F):
    rows = []
    for key, what in (("cp", "iperf3 processes (sender + receiver, `cpu_utilization_percent` host_total + "
                             "remote_total)"),
                      ("cs", "whole machine (`/proc/stat` user+nice+system+irq+softirq, all CPUs, other tenants "
                             "included)")):
        rows.append([what] + [f3(F[key][a]) for a in B.algos]
                    + [ratio_of(F[key][d], F[key]["cubic"]) for d in B.datapaths])
    return ["", "### CPU time per GB sent (1 flow, median of runs)", "",
            md_table(["CPU seconds per 10^9 bytes"] + B.algos + [f"{d} / cubic" for d in B.datapaths], rows,
                     "l" + "r" * (len(B.algos) + len(B.datapaths)))]


def prog_section(B, d):
    tag = f"{d}.p1"
    ack = B.ack_prog(tag)
    ps = B.prog_stats(tag)
    acks = B.acks(tag)
    order = [ack] + list(PROG_ORDER)
    shown = sorted(ps, key=lambda p: order.index(p[0]) if p[0] in order else len(order))
    rows = [[n, str(c), f"{c / acks if acks else 0:.3f}", f"{t / c:.0f}" if c else "-",
             f"{t / acks if acks else 0:.1f}"] for n, c, t in shown]
    tc, tt = sum(c for _, c, _ in ps), sum(t for _, _, t in ps)
    rows.append(["**all programs**", str(tc), f"{tc / acks if acks else 0:.3f}", "",
                 f"**{tt / acks if acks else 0:.0f}**"])
    if ack == ACK_FAST:
        what = ("ACK = one call of bc_cong_control: the kernel calls cong_control once per ACK that reaches "
                "tcp_cong_control.")
    else:
        what = ("ACK = one call of bc_pkts_acked (the kernel calls pkts_acked once per incoming ACK that reaches "
                "tcp_clean_rtx_queue).")
    return ["", f"### BPF run time per callback, {LABEL[d]} (bpf_stats, one {B.duration} s run of {B.cc[d]}, "
            "1 flow)", "",
            md_table(["program", "calls", "calls per ACK", "ns per call", "ns per ACK"], rows, "lrrrr"), "",
            f"{what} ns per ACK = sum of run_time_ns over all programs / {ack} run_cnt. {B.acks_per_s(tag)} "
            f"ACKs/s; our programs took {B.bpf_cpu_share(tag)} of the iperf3 processes' CPU time in that run. "
            "run_time_ns spans the program from the trampoline's clock read to the next one, so it includes one "
            "sched_clock() call per program run and leaves out the rest of the trampoline."]


def perf_section(B):
    out = ["", f"### Where the time goes: perf profile (1 flow, {B.perf_runs} runs of each, bpf_stats off)", ""]
    if B.perf_note:
        return out + [f"n/a: {B.perf_note}."]
    A = B.algos
    rows = [["kernel cubic (`cubictcp_*`, `bictcp_*` and what they call)"] + [B.perf_ns(a, ["native"]) for a in A],
            ["bpf_cubic programs (`bpf_prog_*_bc_*` and what they call)"] + [B.perf_ns(a, ["body"]) for a in A],
            ["struct_ops trampoline (`__bpf_prog_enter/exit`, the trampoline code)"]
            + [B.perf_ns(a, ["tramp"]) for a in A],
            ["**congestion control, total**"] + [f"**{B.perf_ns(a, ['native', 'body', 'tramp'])}**" for a in A],
            ["samples counted (cubic + programs + trampoline) / all samples"]
            + [" + ".join(B.perf_sum(a, k) for k in ("native", "body", "tramp")) + f" / {B.perf_sum(a, 'total')}"
               for a in A],
            ["such samples outside our namespaces' processes (not counted)"] + [B.perf_sum(a, "other") for a in A],
            ["ACKs (Tcp InSegs of the sender)"] + [B.perf_sum(a, "acks") for a in A],
            ["goodput while profiled, Gbit/s (mean)"] + [B.perf_gbps(a) for a in A]]
    out += [md_table(["ns per ACK"] + [f"{a} runs" for a in A], rows, "l" + "r" * len(A)), "",
            f"`perf record -e cpu-clock -F {B.perf_freq} -a -g`; a sample counts when it was taken in a process "
            "of our two namespaces (on veth, the TCP receive path runs in softirq in the context of the process "
            "that sent the packet) and one of its 4 innermost frames is the kernel's cubic, a bpf_cubic program "
            "or the struct_ops trampoline under a tcp_* caller; "
            f"ns per ACK = samples x {1000000000 // B.perf_freq} ns / ACKs. This costs nothing per call "
            "(bpf_stats does) and sees the kernel's cubic the same way as ours. The kernel cubic row should be 0 "
            "in the bpf_cubic columns, and the bpf_cubic rows 0 in the cubic column. The exact datapath goes "
            "through the trampoline twice per ACK (pkts_acked, cong_avoid), the fast one once (cong_control); "
            "the fast datapath's programs also do what tcp_cong_control() does around cong_avoid for the others "
            "(PRR in recovery, the pacing rate), which for cubic and exact is kernel code outside these rows."]
    if B.floor_on:
        floor = B.cc["floor"]
        total = ["native", "body", "tramp"]
        rows = [["Reno itself (`tcp_reno_*`)", B.perf_ns("reno", ["native"]), B.perf_ns("floor", ["native"])],
                ["BPF programs (`bpf_prog_*_bc_floor_*`)", B.perf_ns("reno", ["body"]), B.perf_ns("floor", ["body"])],
                ["struct_ops trampoline", B.perf_ns("reno", ["tramp"]), B.perf_ns("floor", ["tramp"])],
                ["**total**", f"**{B.perf_ns('reno', total)}**", f"**{B.perf_ns('floor', total)}**"],
                ["ACKs (Tcp InSegs of the sender)", B.perf_sum("reno", "acks"), B.perf_sum("floor", "acks")]]
        out += ["", "### The dispatch floor: the kernel's reno against a BPF Reno of kfunc calls "
                f"(perf, {B.perf_runs} runs of each)", "",
                md_table(["ns per ACK", "reno (kernel)", f"{floor} (BPF)"], rows, "lrr"), "",
                f"{floor} (tools/bench/floor.bpf.c) is the cheapest BPF congestion control there is: its "
                "cong_avoid is one kfunc call to the kernel's own tcp_reno_cong_avoid(). What it costs per ACK "
                f"over the kernel's reno, {int(B.perf_ns('floor', total)) - int(B.perf_ns('reno', total))} ns, "
                "is the struct_ops dispatch alone (one trip per ACK): the floor under any BPF congestion control "
                "on this kernel and machine."]
    return out


def flow_kind(B, p):
    """(kind of the goodput runs, stats tag, rounds) of P flows."""
    return ("main", "p1", B.runs_n) if p == 1 else (f"flows{p}", f"p{p}", B.flow_runs)


def flows_section(B):
    slash = " / ".join(B.datapaths)
    header = (["flows", "runs"] + [f"{a} Gbit/s" for a in B.algos]
              + [f"ratio {d} (median of rounds)" for d in B.datapaths] + [f"ns per ACK {d}" for d in B.datapaths]
              + [f"ACKs/s ({slash})", f"BPF share of process CPU ({slash})"])
    rows = []
    for p in B.flows:
        kind, tag, n = flow_kind(B, p)
        rows.append([str(p), str(n)] + [gbps(stats.median(B.goodput(kind, a))) for a in B.algos]
                    + [f3(stats.median(B.ratios(kind, d))) for d in B.datapaths]
                    + [B.ns_per_ack(f"{d}.{tag}") for d in B.datapaths]
                    + [" / ".join(B.acks_per_s(f"{d}.{tag}") for d in B.datapaths),
                       " / ".join(B.bpf_cpu_share(f"{d}.{tag}") for d in B.datapaths)])
    return ["", "### Many flows (iperf3 -P; above 128, several clients and servers)", "",
            md_table(header, rows, "r")]


def as_number(text):
    return None if text in (None, "nan") else float(text)


def dp_json(B, F, d):
    flows = []
    for p in B.flows:
        kind, tag, _ = flow_kind(B, p)
        m = stats.median(B.ratios(kind, d))
        flows.append({"flows": p, "ratio_median": None if m is None else round(m, 6),
                      "gbps_median": as_number(gbps(stats.median(B.goodput(kind, d)))),
                      "ns_per_ack": B.ns_per_ack(f"{d}.{tag}")})
    r = F["r"][d]
    return {"name": B.cc[d], "datapath": d, "per_ack_program": B.ack_prog(f"{d}.p1"),
            "ratio": {"median": as_number(r[0]), "min": as_number(r[1]), "max": as_number(r[2]), "ci95": F["ci"][d]},
            "gbps_median": as_number(gbps(F["g"][d][0])), "goodput_bps": B.goodput("main", d),
            "cpu_s_per_gb": {"processes": as_number(f3(F["cp"][d])), "machine": as_number(f3(F["cs"][d]))},
            "ns_per_ack": F["ns"][d], "ns_per_ack_trace": F["ns_trace"][d],
            "ns_per_ack_verdict": {"on": F["ns_v1"][d], "off": F["ns_v0"][d]}, "flows": flows}


def bench_json(B, F):
    dps = {d: dp_json(B, F, d) for d in B.datapaths}
    ex = dps.get("exact", {})
    cubic_g = as_number(gbps(F["g"]["cubic"][0]))
    # the top-level keys of a bench without datapaths (ratio, ...) are the exact datapath's
    doc = {"name": B.name, "namespaces": [f"{B.name}-a", f"{B.name}-b"], "runs": B.runs_n,
           "duration_s": B.duration, "datapaths": B.datapaths, "ratio": ex.get("ratio"),
           "gbps_median": {"cubic": cubic_g, "bpf_cubic": ex.get("gbps_median")},
           "goodput_bps": {"cubic": B.goodput("main", "cubic"), "bpf_cubic": ex.get("goodput_bps")},
           "ns_per_ack": ex.get("ns_per_ack"), "ns_per_ack_trace": ex.get("ns_per_ack_trace"),
           "ns_per_ack_verdict": ex.get("ns_per_ack_verdict"),
           "flows": ex.get("flows"),
           "cubic": {"gbps_median": cubic_g, "goodput_bps": B.goodput("main", "cubic"),
                     "cpu_s_per_gb": {"processes": as_number(f3(F["cp"]["cubic"])),
                                      "machine": as_number(f3(F["cs"]["cubic"]))}}}
    doc.update(dps)
    return doc


def cmd_report(a):
    B = Bench(a.dir)
    F = B.figures()
    lines = header(B) + goodput_section(B, F) + cpu_section(B, F)
    for d in B.datapaths:
        lines += prog_section(B, d)
    lines += ["", "### With tracing", "",
              md_table(["ns per ACK", "no trace", "`cubicctl trace --name NAME --json > /dev/null` running"],
                       [[LABEL[d], F["ns"][d], F["ns_trace"][d]] for d in B.datapaths], "lrr")]
    if B.verdict_runs:
        lines += ["", "### The exit verdict's measurement", "",
                  f"{B.verdict_runs} pairs of 1-flow runs ({B.duration} s) on a 100 Mbit/s x 100 ms path (4-BDP buffer),",
                  "the ACK train a hair trigger so that slow start ends within a few rounds and the flow is",
                  "measured from its exit to its close; `verdict=1` (the default) and `verdict=0` in turn.",
                  "Median ns per ACK (bpf_stats) of each; once a flow's verdict is written its ACKs cost",
                  "what `verdict=0` costs (one load and a branch).", "",
                  md_table(["ns per ACK", "verdict=1, measuring", "verdict=0", "difference", "the verdict=1 flows"],
                           [[LABEL[d], F["ns_v1"][d], F["ns_v0"][d], ns_diff(F["ns_v1"][d], F["ns_v0"][d]),
                             B.verdict_note(d)] for d in B.datapaths], "lrrrl")]
    if B.perf_on:
        lines += perf_section(B)
    if B.flows:
        lines += flows_section(B)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.json:
        write_json(a.json, bench_json(B, F))
    rc = 0
    if a.min_ratio is not None:
        for d in B.datapaths:
            if float(F["r"][d][0]) < float(a.min_ratio):
                print(f"bench.sh: median goodput ratio {LABEL[d]} / cubic {F['r'][d][0]} is below {a.min_ratio}",
                      file=sys.stderr)
                rc = 3
    return rc


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("rundir")
    c.add_argument("--cc", required=True)
    c.add_argument("--flows", type=int, required=True)
    c.add_argument("--bound", type=int, required=True)
    c.add_argument("--rc", type=int, default=0)
    c.add_argument("--kind", default="")
    c.add_argument("--log")
    g = sub.add_parser("progs")
    g.add_argument("file")
    pc = sub.add_parser("perf-count")
    pc.add_argument("--pids", required=True)
    r = sub.add_parser("report")
    r.add_argument("dir")
    r.add_argument("--out")
    r.add_argument("--json")
    r.add_argument("--min-ratio")
    a = p.parse_args()
    return {"check": cmd_check, "progs": cmd_progs, "perf-count": cmd_perf_count, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
