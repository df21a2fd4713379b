# SPDX-License-Identifier: GPL-2.0
"""Parsing: the quantities of pathemu's options and of the eval matrix, the
segment sizes, and the raw outputs tools collect (iperf3 -J, tcp:tcp_probe
trace lines, bpftool -j, /proc files)."""
import bisect
import collections
import json
import re

# One full-size segment on our veths (MTU 1500, IPv4, timestamps on): MSS
# bytes of payload, IP_PKT bytes at the IP layer, the unit pathemu's TBF rate
# and buffer count (its size table takes the Ethernet header off).
MSS = 1448
IP_PKT = 1500

RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
SIZE_UNITS = {"b": 1, "kb": 1e3, "mb": 1e6, "k": 1e3, "m": 1e6}
_NUMBER_UNIT = re.compile(r"([0-9]+(?:\.[0-9]+)?)([a-z]+)")


def _quantity(text, units):
    m = _NUMBER_UNIT.fullmatch(text.strip().lower())
    if not m or m.group(2) not in units:
        raise ValueError(f"'{text}': a number and one of {', '.join(units)}")
    return float(m.group(1)) * units[m.group(2)]


def parse_rate(text):
    """'1.5mbit' -> 1500000.0 bit/s (units bit, kbit, mbit, gbit; any case)."""
    return _quantity(text, RATE_UNITS)


def parse_time(text):
    """'40ms' -> 0.04 s (units us, ms, s; any case)."""
    return _quantity(text, TIME_UNITS)


def parse_size(text):
    """'100kb' -> 100000.0 bytes (units b, kb, mb, or k, m; a bare number is bytes)."""
    t = text.strip().lower()
    return float(t) if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", t) else _quantity(t, SIZE_UNITS)


def mahimahi_times(path):
    """A Mahimahi link trace: one line per 1500-byte delivery opportunity, the
    milliseconds since the start at which it comes, non-decreasing; the trace
    repeats with the period of its last line. -> the opportunities' times (ms)."""
    times, last = [], 0
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if not line.isdigit() or int(line) < last:
                raise ValueError(f"{path}: line {no}: '{line[:20]}' (whole milliseconds, non-decreasing)")
            last = int(line)
            times.append(last)
    if not times or last == 0:
        raise ValueError(f"{path}: no delivery opportunity after 0 ms")
    return times


def read_mahimahi(path):
    """A Mahimahi trace's (opportunities, period_ms) (mahimahi_times)."""
    times = mahimahi_times(path)
    return len(times), times[-1]


def mahimahi_window(times, from_ms, window_ms):
    """The opportunities in [from_ms, from_ms + window_ms) of a trace whose
    times repeat with the period of the last one: what a connection meets
    when it starts the trace from_ms in (delayq -R)."""
    period = times[-1]
    start, n = from_ms % period, 0
    for k in range((start + window_ms) // period + 1):
        lo, hi = start - k * period, start + window_ms - k * period
        n += bisect.bisect_left(times, hi) - bisect.bisect_left(times, lo)
    return n


def parse_buffer(text, bdp_pkts):
    """A buffer in packets: '250' (packets) or '0.25bdp' (a multiple of the
    BDP, rounded up, at least 1)."""
    t = text.strip().lower()
    if re.fullmatch(r"[0-9]+", t):
        return int(t)
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)bdp", t)
    if not m:
        raise ValueError(f"'{text}': packets (250) or a multiple of the BDP (1bdp)")
    x = float(m.group(1))
    if x <= 0:
        raise ValueError(f"'{text}': not positive")
    p = x * bdp_pkts
    p = p if p == int(p) else int(p) + 1
    return max(int(p), 1)


def parse_loss(text):
    """Loss in percent, '0.1' or '1%' -> 0.1 or 1.0; 0 <= loss < 100."""
    t = text.strip()
    t = t[:-1] if t.endswith("%") else t
    if not re.fullmatch(r"[0-9]*\.?[0-9]+", t):
        raise ValueError(f"'{text}': a percentage")
    x = float(t)
    if x >= 100:
        raise ValueError(f"'{text}': not below 100 %")
    return x


def parse_app(text):
    """An application-limited start, 'F:T' ('40%:1s', '0.4:500ms') -> (0.4,
    1.0): the first T seconds at F (a fraction in (0, 1], or a percentage)
    of the path's payload rate (tools/eval: app=, flowgen.py --app)."""
    frac, sep, secs = text.strip().partition(":")
    try:
        f = float(frac[:-1]) / 100 if frac.endswith("%") else float(frac)
        t = parse_time(secs)
    except ValueError:
        f = t = None
    if not sep or f is None or not 0 < f <= 1 or t <= 0:
        raise ValueError(f"'{text}': F:T, a fraction (0.4 or 40%) and a time (1s)")
    return f, t


# ---------------------------------------------------------------- iperf3 -J

def load_json(path):
    """The JSON document in PATH, or None if it is missing or not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def iperf_max_cwnd_pkts(doc):
    """The sender's largest snd_cwnd in an iperf3 -J document (each
    interval's and each stream's max_snd_cwnd, bytes), in full segments."""
    vals = [st.get("snd_cwnd") for iv in (doc.get("intervals") or []) for st in (iv.get("streams") or [])]
    vals += [(st.get("sender") or {}).get("max_snd_cwnd") for st in ((doc.get("end") or {}).get("streams") or [])]
    vals = [v for v in vals if v is not None]
    return max(vals, default=0) // MSS


def iperf_totals(doc):
    """What one iperf3 client measured: receiver's bit/s, bytes and seconds
    sent, retransmissions, and the CPU seconds of both processes (sender's
    host_total + receiver's remote_total, user + system)."""
    end = doc["end"]
    sent = end["sum_sent"]
    cpu = end["cpu_utilization_percent"]
    return {"bps": end["sum_received"]["bits_per_second"], "bytes": sent["bytes"], "seconds": sent["seconds"],
            "retrans": sent.get("retransmits") or 0,
            "cpu_s": (cpu["host_total"] + cpu["remote_total"]) / 100 * sent["seconds"]}


# ---------------------------------------------------------------- tcp_probe

PROBE_RE = re.compile(
    r"\s(\d+\.\d+): tcp_probe: .*?src=\S*?:(\d+) dest=\S*?:(\d+) .*?"
    r"snd_nxt=0x([0-9a-f]+) snd_una=0x([0-9a-f]+) snd_cwnd=(\d+) ssthresh=(\d+) snd_wnd=(\d+) "
    r"srtt=(\d+)")
# snd_nxt last: the fields before it are in the order older code unpacks them
ProbeSample = collections.namedtuple("ProbeSample", "t snd_una cwnd ssthresh snd_wnd srtt snd_nxt")


def probe_line(line):
    """(sport, dport, ProbeSample) of one tcp:tcp_probe trace line, or None."""
    m = PROBE_RE.search(line)
    if not m:
        return None
    return int(m.group(2)), int(m.group(3)), ProbeSample(
        float(m.group(1)), int(m.group(5), 16), int(m.group(6)), int(m.group(7)), int(m.group(8)),
        int(m.group(9)), int(m.group(4), 16))


MARK_RE = re.compile(r"\s(\d+\.\d+): tracing_mark_write: ([a-z_]+)=(-?\d+)\s*$")


def read_marks(path, key):
    """[(t, value)] of the trace markers KEY=N (tools/eval/run.sh writes
    the competing flows' retransmissions as cross_retrans=N), in order."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            if "tracing_mark_write" in line:
                m = MARK_RE.search(line)
                if m and m.group(2) == key:
                    out.append((float(m.group(1)), int(m.group(3))))
    return out


def mark_delta(marks, t_from, t_to):
    """How much a counter sampled as MARKS [(t, value)] grew from T_FROM to
    T_TO: from the last sample at or before T_FROM (the first if none) to
    the first at or after T_TO (the last if none); None without samples."""
    if not marks:
        return None
    before = [v for t, v in marks if t <= t_from]
    after = [v for t, v in marks if t >= t_to]
    return (after[0] if after else marks[-1][1]) - (before[-1] if before else marks[0][1])


def bulk_start(samples):
    """The index of the first tcp_probe sample that finds 5 packets or more in
    flight: a flow's bulk data starts there (before it: iperf3's cookie and
    control bytes), or None."""
    return next((i for i, x in enumerate(samples) if ((x.snd_nxt - x.snd_una) & 0xFFFFFFFF) >= 5 * MSS), None)


def read_probe(path, port=None):
    """tcp_probe samples of the sockets sending towards PORT (None: every
    socket in the trace): sport -> list."""
    flows = collections.defaultdict(list)
    with open(path, errors="replace") as f:
        for line in f:
            p = probe_line(line)
            if p and (port is None or p[1] == port):
                flows[p[0]].append(p[2])
    return flows


# ---------------------------------------------------------------- bpftool, /proc

def struct_ops_progs(dump):
    """{program name: id} of a `bpftool -j struct_ops dump` of a
    tcp_congestion_ops map (a list of its objects): the members that hold
    "name/prog_id:N"."""
    progs = {}
    for obj in dump:
        data = (obj.get("bpf_struct_ops_tcp_congestion_ops") or {}).get("data") or {}
        for v in data.values():
            m = re.search(r"([A-Za-z0-9_]+)/prog_id:([0-9]+)$", v) if isinstance(v, str) else None
            if m:
                progs[m.group(1)] = int(m.group(2))
    return progs


def prog_run_stats(prog_show, ids):
    """{name: (run_time_ns, run_cnt)} of the programs in `bpftool -j prog
    show` whose id is in IDS."""
    return {p["name"]: (p.get("run_time_ns", 0), p.get("run_cnt", 0)) for p in prog_show if p.get("id") in ids}


def proc_stat_busy(text):
    """user + nice + system + irq + softirq ticks of all CPUs (/proc/stat)."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "cpu":
            return int(f[1]) + int(f[2]) + int(f[3]) + int(f[6]) + int(f[7])
    raise ValueError("no cpu line in /proc/stat")


def snmp_value(text, group, key):
    """A counter of /proc/net/snmp, e.g. ("Tcp", "InSegs")."""
    rows = [line.split() for line in text.splitlines() if line.startswith(group + ":")]
    if len(rows) < 2:
        raise ValueError(f"no {group} lines in /proc/net/snmp")
    return int(rows[1][rows[0].index(key)])
