#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the tools' Python library (tools/lib/cubictools): parsing,
the path arithmetic, statistics, reports, the impossible-window rules and the
vocabulary. Expected values are worked out by hand in the comments. Ends with
"pylib: N passed, N failed" (tests/run.sh unit counts that line); exit 1 if
any failed. Standard library only, no root."""
import contextlib
import io
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyunit import REPO, check, eq, close, done  # noqa: E402
sys.path.insert(0, os.path.join(REPO, "tools", "lib"))
from cubictools import __main__ as cli  # noqa: E402
from cubictools import parse, path, report, stats, vocab, windows  # noqa: E402



def raises(what, exc, fn, *args):
    try:
        fn(*args)
    except exc:
        check(what, True)
        return
    except Exception as e:  # noqa: BLE001 - the wrong exception is a failure too
        check(f"{what}: raised {type(e).__name__}, want {exc.__name__}", False)
        return
    check(f"{what}: did not raise {exc.__name__}", False)


def cli_run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def test_parse_quantities():
    close("1.5mbit", parse.parse_rate("1.5mbit"), 1.5e6)
    close("10Gbit (any case)", parse.parse_rate("10Gbit"), 10e9)
    close("8kbit", parse.parse_rate("8kbit"), 8000)
    close("2000000bit", parse.parse_rate("2000000bit"), 2e6)
    for bad in ("fast", "10mbps", "1.mbit", "", "10", "-1mbit"):
        raises(f"rate {bad!r}", ValueError, parse.parse_rate, bad)
    close("40ms", parse.parse_time("40ms"), 0.04)
    close("250us", parse.parse_time("250us"), 250e-6)
    close("0.2s", parse.parse_time("0.2s"), 0.2)
    close("11.3ms", parse.parse_time("11.3ms"), 0.0113)
    for bad in ("20", "5min", "ms", "1,5ms"):
        raises(f"time {bad!r}", ValueError, parse.parse_time, bad)
    # packets as given; a multiple of the BDP rounded up, at least 1
    eq("buffer 250", parse.parse_buffer("250", 41.667), 250)
    eq("buffer 1bdp of 41.667", parse.parse_buffer("1bdp", 41.667), 42)
    eq("buffer 0.25bdp of 188", parse.parse_buffer("0.25bdp", 188.0), 47)
    eq("buffer .5bdp of 41.667 (20.83)", parse.parse_buffer(".5bdp", 41.667), 21)
    eq("buffer 0.001bdp of 10 (0.01 -> 1)", parse.parse_buffer("0.001bdp", 10.0), 1)
    for bad in ("1xbdp", "bdp", "0bdp", "-3"):
        raises(f"buffer {bad!r}", ValueError, parse.parse_buffer, bad, 10.0)
    close("loss 1%", parse.parse_loss("1%"), 1.0)
    close("loss 0.1", parse.parse_loss("0.1"), 0.1)
    for bad in ("100", "-1", "x", "1%%"):
        raises(f"loss {bad!r}", ValueError, parse.parse_loss, bad)
    # a full-size segment: 1448 bytes of payload, 1500 IP bytes
    eq("MSS", parse.MSS, 1448)
    eq("IP_PKT", parse.IP_PKT, 1500)


def test_path():
    # 50 Mbit/s x 10 ms / 1500 B / 8 = 41.667 packets; half a BDP rounds up to 21;
    # a 250 us burst is 1562.5 bytes, below two packets: 3000 (tests/integration/emu.bats)
    c = path.config("50mbit", "10ms", "0.5bdp")
    eq("bdp", c["bdp"], "41.667")
    eq("bdp_pkts", c["bdp_pkts"], 42)
    eq("buffer_pkts", c["buffer_pkts"], 21)
    eq("buffer_bytes", c["buffer_bytes"], 31500)
    eq("buffer_bdp (21 / 41.667)", c["buffer_bdp"], "0.504")
    eq("burst", c["tbf_burst_bytes"], 3000)
    eq("rate_bps", c["rate_bps"], 50000000)
    eq("rtt_us", c["rtt_us"], 10000)
    # 1 Gbit/s: 250 us of tokens = 1e9 / 8 x 250e-6 = 31250 bytes; loss 0.1 % = 1000 ppm
    c = path.config("1gbit", "11.3ms", "250", "0.1%", "4ms")
    eq("burst 1gbit", c["tbf_burst_bytes"], 31250)
    eq("loss_pct", c["loss_pct"], "0.1")
    eq("loss_ppm", c["loss_ppm"], 1000)
    eq("jitter_us", c["jitter_us"], 4000)
    eq("rtt_us 11.3ms", c["rtt_us"], 11300)
    # 3 Gbit/s stays 3 Gbit/s (the old awk %d capped it at 2^31 - 1 bit/s)
    eq("3gbit", path.config("3gbit", "1ms", "1")["rate_bps"], 3000000000)
    for args, word in ((("fast", "1ms", "1"), "bad rate"), (("7kbit", "1ms", "1"), "bad rate"),
                       (("1mbit", "0.5us", "1"), "bad rtt"), (("1mbit", "11s", "1"), "bad rtt"),
                       (("1mbit", "1ms", "0"), "bad buffer"), (("1mbit", "1ms", "1000001"), "bad buffer"),
                       (("1mbit", "1ms", "1", "100"), "bad loss"), (("1mbit", "1ms", "1", "0", "5"), "bad jitter")):
        try:
            path.config(*args)
            check(f"path {args}: accepted", False)
        except path.BadInput as e:
            check(f"path {args}: '{e}' names {word}", str(e).startswith(word))
    rc, out, err = cli_run("path", "--rate", "fast", "--rtt", "20ms", "--buffer", "10")
    eq("cli path bad rate: exit", rc, 2)
    check("cli path bad rate: message", "bad rate 'fast'" in err and not out)
    rc, out, _ = cli_run("path", "--rate", "50mbit", "--rtt", "10ms", "--buffer", "0.5bdp")
    check("cli path: key=value lines", rc == 0 and "bdp_pkts=42\n" in out and "mss=1448\n" in out)
    # real paths: ACK aggregation, a policer, a trace link (tools/emu/README.md)
    eq("size 100kb", parse.parse_size("100kb"), 100000.0)
    eq("size 1.5m", parse.parse_size("1.5m"), 1500000.0)
    eq("size bare", parse.parse_size("3000"), 3000.0)
    raises("size 10 parsecs", ValueError, parse.parse_size, "10pc")
    c = path.config("100mbit", "20ms", "1bdp", ack_agg="4ms", police="20mbit:100kb")
    eq("ack_agg_us", c["ack_agg_us"], 4000)
    eq("police_rate_bps", c["police_rate_bps"], 20000000)
    eq("police_burst_bytes", c["police_burst_bytes"], 100000)
    for kw, word in (({"ack_agg": "fast"}, "bad ack-agg"), ({"police": "20mbit"}, "bad policer"),
                     ({"police": "20mbit:1kb"}, "bad policer"), ({"police": "x:100kb"}, "bad policer"),
                     ({"trace": "/nonexistent"}, "bad trace")):
        try:
            path.config("100mbit", "20ms", "1bdp", **kw)
            check(f"path {kw}: accepted", False)
        except path.BadInput as e:
            check(f"path {kw}: '{e}' names {word}", str(e).startswith(word))
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        # 3 opportunities in a 4 ms period: 3 x 12000 bit / 4 ms = 9 Mbit/s; a BDP of
        # 9 Mbit/s x 20 ms = 15 packets
        t = f"{d}/t"
        with open(t, "w") as f:
            f.write("1\n1\n4\n")
        eq("mahimahi", parse.read_mahimahi(t), (3, 4))
        c = path.config("", "20ms", "1bdp", trace=t)
        eq("trace rate", c["rate_bps"], 9000000)
        eq("trace bdp_pkts", c["bdp_pkts"], 15)
        eq("trace opportunities", (c["link_opportunities"], c["link_period_ms"]), (3, 4))
        # the window a connection meets when pathemu phase restarts the trace:
        # times 1, 1, 4 repeat every 4 ms (opportunities at 1, 1, 4, 5, 5, 8, ...)
        eq("window 0+4", parse.mahimahi_window([1, 1, 4], 0, 4), 2)
        eq("window 1+4", parse.mahimahi_window([1, 1, 4], 1, 4), 3)
        eq("window 2+3 wraps", parse.mahimahi_window([1, 1, 4], 2, 4), 3)
        eq("window 6 from 5 (mod 4: 1)", parse.mahimahi_window([1, 1, 4], 5, 1), 2)
        eq("window of 3 periods", parse.mahimahi_window([1, 1, 4], 0, 12), 8)
        w = path.trace_window(t, "20ms", 1, 4)
        eq("trace_window", (w["window_from_ms"], w["window_opportunities"], w["window_rate_bps"],
                            w["window_bdp_pkts"]), (1, 3, 9000000, 15))
        eq("trace_window from a later period", path.trace_window(t, "20ms", 9, 4)["window_from_ms"], 1)
        raises("trace_window bad rtt", path.BadInput, path.trace_window, t, "fast", 0)
        raises("trace_window before 0", path.BadInput, path.trace_window, t, "20ms", -1)
        for bad in ("3\n1\n", "0\n", "x\n", ""):
            with open(t, "w") as f:
                f.write(bad)
            raises(f"mahimahi {bad!r}", ValueError, parse.read_mahimahi, t)
            raises(f"trace_window {bad!r}", path.BadInput, path.trace_window, t, "20ms", 0)


def test_iperf_probe_bpftool():
    eq("max_snd_cwnd 14480 B", parse.iperf_max_cwnd_pkts({"end": {"streams": [{"sender": {"max_snd_cwnd": 14480}}]}}), 10)
    eq("max_snd_cwnd 4715811648 B", parse.iperf_max_cwnd_pkts(
        {"end": {"streams": [{"sender": {"max_snd_cwnd": 4715811648}}]}}), 3256776)
    doc = {"intervals": [{"streams": [{"snd_cwnd": 2896}, {"snd_cwnd": 28960}]}, {"streams": [{}]}],
           "end": {"streams": [{"sender": {}}]}}
    eq("interval snd_cwnd 28960 B", parse.iperf_max_cwnd_pkts(doc), 20)
    eq("no cwnd", parse.iperf_max_cwnd_pkts({}), 0)
    end = {"sum_received": {"bits_per_second": 1e10}, "cpu_utilization_percent": {"host_total": 60.0,
           "remote_total": 40.0}, "sum_sent": {"bytes": 5000, "seconds": 2.0, "retransmits": 3}}
    t = parse.iperf_totals({"end": end})
    # (60 + 40) % of 2 s = 2 CPU seconds
    eq("totals", (t["bps"], t["bytes"], t["seconds"], t["retrans"], t["cpu_s"]), (1e10, 5000, 2.0, 3, 2.0))
    end["sum_sent"].pop("retransmits")
    eq("totals without retransmits", parse.iperf_totals({"end": end})["retrans"], 0)
    line = ("          iperf3-1234    (   1234) [001] ..s1.  100.002000: tcp_probe: family=AF_INET "
            "src=10.77.1.1:40000 dest=10.77.2.2:25000 mark=0x0 data_len=0 snd_nxt=0x10 snd_una=0x5a8 "
            "snd_cwnd=15 ssthresh=2147483647 snd_wnd=100000 srtt=11000 rcv_wnd=65535 sock_cookie=1")
    sport, dport, s = parse.probe_line(line)
    eq("probe ports", (sport, dport), (40000, 25000))
    eq("probe sample", tuple(s), (100.002, 0x5a8, 15, 2147483647, 100000, 11000, 0x10))
    eq("not a probe line", parse.probe_line("# tracer: nop"), None)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(line + "\n" + line.replace("dest=10.77.2.2:25000", "dest=10.77.2.2:5201").replace(
            "src=10.77.1.1:40000", "src=10.77.1.1:40001") + "\n# x\n")
    try:
        fl = parse.read_probe(f.name, 25000)
        eq("read_probe: the port's socket only", {k: len(v) for k, v in fl.items()}, {40000: 1})
        fl = parse.read_probe(f.name)
        eq("read_probe: no port, every socket", {k: len(v) for k, v in fl.items()}, {40000: 1, 40001: 1})
    finally:
        os.unlink(f.name)
    mk = "            bash-4242    [001] .....  200.{:06d}: tracing_mark_write: cross_retrans={}"
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join([mk.format(0, 10), line, mk.format(100000, 12),
                           mk.format(200000, 30).replace("cross_retrans", "other"), mk.format(300000, 40)]) + "\n")
    try:
        marks = parse.read_marks(f.name, "cross_retrans")
    finally:
        os.unlink(f.name)
    eq("read_marks: its key only, in order", marks, [(200.0, 10), (200.1, 12), (200.3, 40)])
    eq("mark_delta: last before to first after", parse.mark_delta(marks, 200.05, 200.2), 30)
    eq("mark_delta: within one interval", parse.mark_delta(marks, 200.1, 200.1), 0)
    eq("mark_delta: from before the first, past the last", parse.mark_delta(marks, 199.0, 201.0), 30)
    eq("mark_delta: no samples", parse.mark_delta([], 1.0, 2.0), None)
    dump = [{"bpf_map_info": {"id": 7}}, {"bpf_struct_ops_tcp_congestion_ops": {"data": {
        "cong_avoid": "void (struct sock *, u32, u32) bc_cong_avoid/prog_id:3670",
        "pkts_acked": "void (struct sock *, const struct ack_sample *) bc_pkts_acked/prog_id:3672",
        "name": "bcb1", "flags": 0}}}]
    progs = parse.struct_ops_progs(dump)
    eq("struct_ops programs", progs, {"bc_cong_avoid": 3670, "bc_pkts_acked": 3672})
    show = [{"id": 3670, "name": "bc_cong_avoid", "run_time_ns": 500, "run_cnt": 5},
            {"id": 3672, "name": "bc_pkts_acked"}, {"id": 1, "name": "other", "run_cnt": 9}]
    eq("prog run stats", parse.prog_run_stats(show, set(progs.values())),
       {"bc_cong_avoid": (500, 5), "bc_pkts_acked": (0, 0)})
    # user + nice + system + irq + softirq = 1 + 2 + 3 + 6 + 7
    eq("/proc/stat busy", parse.proc_stat_busy("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 1 1 1 1 1 1 1\n"), 19)
    snmp = "Ip: Forwarding DefaultTTL\nIp: 1 64\nTcp: RtoAlgorithm InSegs OutSegs\nTcp: 1 4242 17\n"
    eq("snmp Tcp InSegs", parse.snmp_value(snmp, "Tcp", "InSegs"), 4242)


def test_stats():
    eq("median odd", stats.median([3, 1, 2]), 2)
    eq("median even", stats.median([4, 1, 3, 2]), 2.5)
    eq("median one", stats.median([7]), 7)
    eq("median none", stats.median([]), None)
    eq("median leaves None out", stats.median([None, 5, None]), 5)
    eq("median of a generator", stats.median(x for x in (10, 30, 20, 40)), 25)
    eq("mean", stats.mean([1, 2, 3, 4]), 2.5)
    eq("mean none", stats.mean([None]), None)
    eq("median/min/max", stats.median_min_max([5, 1, 9, 3]), (4, 1, 9))
    eq("median/min/max none", stats.median_min_max([]), (None, None, None))
    # P(Binomial(n, 1/2) < k) <= 2.5 %: n = 5: P(0) = 1/32 = 3.1 % > 2.5 %, no interval;
    # n = 6: P(0) = 1/64 = 1.6 %, P(< 2) = 7/64 = 10.9 %: k = 1; n = 10: P(< 2) = 11/1024 = 1.1 %,
    # P(< 3) = 56/1024 = 5.5 %: k = 2; n = 20: P(<= 5) = 2.07 %, P(<= 6) = 5.77 %: k = 6;
    # n = 30: P(<= 9) = 2.14 %, P(<= 10) = 4.94 %: k = 10
    eq("CI ranks n=5", stats.median_ci_ranks(5), None)
    eq("CI ranks n=6", stats.median_ci_ranks(6), (1, 6))
    eq("CI ranks n=10", stats.median_ci_ranks(10), (2, 9))
    eq("CI ranks n=20", stats.median_ci_ranks(20), (6, 15))
    eq("CI ranks n=30", stats.median_ci_ranks(30), (10, 21))
    eq("CI of 1..10 shuffled (2nd and 9th)", stats.median_ci([7, 3, 10, 1, 5, None, 2, 8, 4, 9, 6]), (2, 9))
    eq("CI of 5 values", stats.median_ci([1, 2, 3, 4, 5]), None)
    # one-sided rank sum: all three above all three is 1 split of C(6, 3) = 20
    eq("rank sum: all above", stats.rank_sum_greater([3, 4, 5], [0, 1, 2]), 0.05)
    eq("rank sum: all below", stats.rank_sum_greater([0, 1, 2], [3, 4, 5]), 1.0)
    eq("rank sum: all tied", stats.rank_sum_greater([7, 7], [7, 7]), 1.0)
    # [2, 5] against [1, 3]: U = 3 pairs won of 4. The 6 splits of 1 2 3 5 win
    # {1,2} 0, {1,3} 1, {1,5} 2, {2,3} 2, {2,5} 3, {3,5} 4: 2 of 6 at least 3
    eq("rank sum: 2 of 6 splits as far", stats.rank_sum_greater([2, 5], [1, 3]), 2 / 6)
    eq("rank sum: None left out, empty is None", stats.rank_sum_greater([None], [1]), None)
    big = stats.rank_sum_greater(list(range(20, 32)), list(range(12)))
    eq("rank sum over C(24, 12) splits: drawn, the same every time", big,
       stats.rank_sum_greater(list(range(20, 32)), list(range(12))))
    check("rank sum drawn: all twelve above is rare", big < 0.001)
    # Fisher: 3 of 6 against 1 of 6: (C(4,3)C(8,3) + C(4,4)C(8,2)) / C(12,6) = 252/924
    close("Fisher 3/6 against 1/6", stats.fisher_greater(3, 6, 1, 6), 252 / 924, 1e-12)
    eq("Fisher 3/3 against 0/3", stats.fisher_greater(3, 3, 0, 3), 0.05)
    eq("Fisher: none is p 1", stats.fisher_greater(0, 3, 2, 3), 1.0)
    eq("Fisher: empty group", stats.fisher_greater(0, 0, 1, 3), None)
    eq("paired ratios skip b <= 0", stats.paired_ratios([2, 4, 6], [1, 0, 3]), [2.0, 2.0])


def test_report():
    eq("fmt None", report.fmt(None), "-")
    eq("fmt 2 decimals", report.fmt(1.2345, 2), "1.23")
    eq("fmt suffix", report.fmt(12.5, 1, " %"), "12.5 %")
    eq("spread", report.spread([3, None, 1]), "1-3")
    eq("spread none", report.spread([]), "-")
    eq("num whole", report.num(12.0), "12")
    eq("num 6 significant", report.num(0.123456789), "0.123457")
    eq("num 1e6", report.num(1e6), "1000000")
    eq("num None", report.num(None), "nan")
    eq("row with an empty cell", report.md_row(["a", "", "b"]), "| a | | b |")
    eq("table", report.md_table(["x", "y"], [["1", "2"]], "lr"), "| x | y |\n|---|---:|\n| 1 | 2 |")
    eq("table all right", report.md_table(["x", "y"], [], "r"), "| x | y |\n|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "x.json")
        report.write_json(p, {"a": [1, 2.5], "b": None})
        with open(p) as f:
            eq("json round trip", json.load(f), {"a": [1, 2.5], "b": None})


def test_windows():
    # 4 x (188 + 189) + 100 = 1608 (tests/integration/eval.bats); the veth: 4 x 67108864 / 1448 + 100
    eq("path bound", windows.path_bound(188, 189), 1608)
    eq("send buffer bound", windows.send_buffer_bound(67108864), 185483)
    eq("infinite ssthresh is fine", windows.impossible(100, 2147483647, 1608), None)
    eq("unknown ssthresh, fine cwnd", windows.impossible(100, None, 1608), None)
    eq("ssthresh above infinite", windows.impossible(10, 2165325072, 1608),
       "ssthresh 2165325072 > 2147483647 (TCP_INFINITE_SSTHRESH), cwnd 10")
    eq("cwnd above", windows.impossible(1609, 100, 1608), "cwnd 1609 > bound 1608 packets")
    eq("finite ssthresh above", windows.impossible(6, 47225792, 1608, "1608 packets = x"),
       "ssthresh 47225792 > 1608 packets = x, cwnd 6")
    eq("iperf message", windows.iperf_message("f.json", 3256776, 1568),
       "IMPOSSIBLE WINDOW: f.json: snd_cwnd 3256776 packets > bound 1568 (docs/IMPOSSIBLE_WINDOWS.md)")
    rc, out, _ = cli_run("bound", "--bdp", "188", "--buffer", "189")
    eq("cli bound", (rc, out), (0, "1608\n"))
    with tempfile.TemporaryDirectory() as d:
        ok, bad, junk = (os.path.join(d, n) for n in ("ok.json", "bad.json", "junk.json"))
        for p, cwnd in ((ok, 14480), (bad, 4715811648)):
            with open(p, "w") as f:
                json.dump({"end": {"streams": [{"sender": {"max_snd_cwnd": cwnd}}]}}, f)
        with open(junk, "w") as f:
            f.write("iperf3: error")
        eq("cli iperf-windows ok (and not JSON: passed over)", cli_run("iperf-windows", "--bound", "1568", ok, junk)[0], 0)
        rc, _, err = cli_run("iperf-windows", "--bound", "1568", ok, bad)
        check("cli iperf-windows impossible", rc == 1 and f"IMPOSSIBLE WINDOW: {bad}: snd_cwnd 3256776" in err)


def synthetic_vocab():
    def reason(name, ends, abbrev):
        return {"name": name, "counter": "exit_" + name, "ends_slow_start": ends, "abbrev": abbrev}
    return {"abi_version": 2,
            "reasons": [reason("ack_train", True, "T"), reason("delay", True, "D"), reason("loss", True, "L"),
                        reason("css_enter", False, "E"), reason("css_exit", True, "C")],
            "counters": [{"key": "flows_init"}] + [{"key": "exit_" + n} for n in
                                                    ("ack_train", "delay", "loss", "css_enter", "css_exit")]}


def test_vocab():
    v = vocab.Vocab(synthetic_vocab())
    eq("exits, in table order", v.exits, ["ack_train", "delay", "loss", "css_exit"])
    eq("detector exits: all but loss", v.detector_exits, ["ack_train", "delay", "css_exit"])
    eq("abbrev", [v.abbrev(n) for n in ("delay", "css_exit", "none", "odd")], ["D", "C", "-", "odd"])
    eq("exit of a record: first in table order", v.exit_of({"loss": True, "delay": True, "cwnd": 5}), "delay")
    eq("a phase change is no exit", v.exit_of({"css_enter": True}), None)
    eq("legend", v.legend(), "T ack train, D delay, L loss, C css exit, - no exit.")
    eq("check", v.check("css_enter"), "css_enter")
    raises("check an unknown reason", KeyError, v.check, "nosuch")
    doc = synthetic_vocab()
    doc["counters"] = doc["counters"][:2]
    raises("a reason without its counter", ValueError, vocab.Vocab, doc)
    raises("a missing file", SystemExit, vocab.load, os.path.join(REPO, "build", "no-such-vocab.json"))
    if os.path.exists(vocab.DEFAULT_PATH):
        # the real one (make writes it): the reasons eval relies on, one letter each
        real = vocab.load()
        for n in ("ack_train", "delay", "loss", "css_enter", "css_resume", "css_exit"):
            check(f"build/vocab.json has {n}", n in [r["name"] for r in real.reasons])
        abbrevs = [real.abbrev(n) for n in real.exits]
        check("build/vocab.json: one distinct letter per exit", len(set(abbrevs)) == len(abbrevs))


def rounds_samples(acks, cwnd_at=None):
    """tcp_probe samples of a sender whose ACKs (time, packets acknowledged
    after it) are ACKS: a sample is taken before its ACK is processed, so
    sample i holds ACK i-1's snd_una; a last sample after the last ACK.
    CWND_AT {ACK index: cwnd its sample shows} (10 otherwise)."""
    base, out, una = 1000, [], 0
    cwnd_at = cwnd_at or {}
    for i, (t, reach) in enumerate(acks + [(acks[-1][0] + 0.001, None)]):
        out.append(parse.ProbeSample(t, base + una * parse.MSS, cwnd_at.get(i, 10), 0x7FFFFFFF, 65535, 40000,
                                     base + (una + 10) * parse.MSS))
        una = reach if reach is not None else una
    return out


def write_probe(fn, samples):
    """A tcp_probe trace of SAMPLES, as the kernel writes it."""
    with open(fn, "w") as f:
        for x in samples:
            f.write("iperf3-1 [000] ..s1. %.6f: tcp_probe: family=AF_INET src=10.0.0.1:40000 "
                    "dest=10.0.0.2:5201 mark=0x0 data_len=0 snd_nxt=%#x snd_una=%#x snd_cwnd=%d "
                    "ssthresh=%d snd_wnd=%d srtt=%d rcv_wnd=65535 sock_cookie=1\n"
                    % (x.t, x.snd_nxt, x.snd_una, x.cwnd, x.ssthresh, x.snd_wnd, x.srtt))


def test_rounds():
    import importlib.util
    spec = importlib.util.spec_from_file_location("rounds", os.path.join(REPO, "tools", "eval", "rounds.py"))
    rounds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rounds)
    # a clean start: round 1's 10 ACKs 0.2 ms apart (one packet each: 1448 B
    # x 8 / 0.2 ms = 57.92 Mbit/s), round 2's 20 a round trip later at half the
    # spacing (115.84), round 3's 40 at 0.4 ms (28.96)
    clean = [(0.1 + i * 0.0002, i + 1) for i in range(10)] + \
        [(0.2 + i * 0.0001, 11 + i) for i in range(20)] + [(0.3 + i * 0.0004, 31 + i) for i in range(40)]
    r = rounds.round_rates(rounds_samples(clean))
    eq("clean: three rounds", [x is not None for x in r], [True] * 3)
    close("clean: round 1's rate", r[0][0], 57.92, 1e-9)
    close("clean: round 2's rate", r[1][0], 115.84, 1e-9)
    close("clean: round 3's rate", r[2][0], 28.96, 1e-9)
    eq("clean: ACKs per round", [x[2] for x in r], [10, 20, 40])
    eq("clean: nothing lost", [x[3] for x in r], [False] * 3)
    # round 1 loses its 5th packet: ACKs 5..9 each acknowledge 4 (duplicates),
    # the retransmission's ACK acknowledges all 10 a round trip later; its rate
    # is no bottleneck's, and the rounds after it are the recovery's
    lossy = [(0.1 + i * 0.0002, min(i + 1, 4)) for i in range(9)] + [(0.14, 10)] + clean[10:]
    r = rounds.round_rates(rounds_samples(lossy))
    eq("a loss in round 1: marked, and the rounds after it", [x[3] for x in r], [True] * 3)
    check("a loss in round 1: its rate reads low", r[0][0] < 10)
    # round 2 loses its last packet: no duplicate, a tail loss probe's
    # recovery lowers cwnd at the ACK that ends it
    tail = clean[:29] + [(0.25, 30)] + clean[30:]
    r = rounds.round_rates(rounds_samples(tail, {29: 10, 30: 7}))
    eq("a tail loss in round 2: rounds 2 and 3 marked", [x[3] for x in r], [False, True, True])
    # a window update is no duplicate: snd_una stays, snd_wnd moves
    upd = rounds_samples(clean[:5] + [(0.1009, 5)] + clean[5:])
    upd = [x._replace(snd_wnd=65535 + (1000 if i > 5 else 0)) for i, x in enumerate(upd)]
    eq("a window update: nothing lost", [x[3] for x in rounds.round_rates(upd)], [False] * 3)
    # the same ACK without the window's move is a duplicate
    eq("the same ACK, window unmoved: a duplicate",
       [x[3] for x in rounds.round_rates(rounds_samples(clean[:5] + [(0.1009, 5)] + clean[5:]))], [True] * 3)
    # main prints the mark and takes no ratio from a marked round
    with tempfile.TemporaryDirectory() as d:
        fn = os.path.join(d, "x_cubic_1.probe")
        write_probe(fn, rounds_samples(lossy))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = rounds.main([fn])
        row = out.getvalue().splitlines()[1].split()
        eq("rounds.py: exit 0", rc, 0)
        eq("rounds.py: round 1 marked", row[3], "10!")
        eq("rounds.py: no ratio from marked rounds", row[10:12], ["-", "-"])


def test_replay():
    """tools/eval/replay.py: PREDICT's core (build/replay) on a trace's ACKs."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("replay", os.path.join(REPO, "tools", "eval", "replay.py"))
    replay = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(replay)

    def run(fn, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = replay.main([fn] + list(args))
        return rc, out.getvalue(), err.getvalue()

    # a clean initial window: 10 ACKs 0.2 ms apart (57.92 Mbit/s), srtt 40 ms:
    # 10 points (the first ACK's is the train's origin), 1.8 ms, on a line;
    # believed, and the target ceil(7.24e6 B/s x 0.04 s / 1448 x 1.03) = 206
    clean = [(0.1 + i * 0.0002, i + 1) for i in range(10)] + [(0.2 + i * 0.0001, 11 + i) for i in range(20)]
    # an initial window of 19 in clumps (the ACK path held them; C test
    # scattered_train_needs_half_the_tolerance): 8 points at r^2 0.969, a
    # standard error of 7.3 %: refused at the default tolerance, believed at 200
    t = [0.1]
    for g in (1500, 40, 40, 40, 1200, 40, 40, 40, 1800, 40, 40, 40, 300, 40, 1800, 40, 300, 40):
        t.append(t[-1] + g / 1e6)
    clumped = rounds_samples([(x, i + 1) for i, x in enumerate(t)] + [(0.2, 20)])
    clumped = [x._replace(cwnd=19, snd_nxt=1000 + 19 * parse.MSS) for x in clumped[:-1]] + clumped[-1:]
    with tempfile.TemporaryDirectory() as d:
        fn = os.path.join(d, "clean.probe")
        write_probe(fn, rounds_samples(clean))
        rc, out, err = run(fn, "--rate", "57.92mbit")
        lines = out.splitlines()
        eq("replay.py clean: exit 0", (rc, err), (0, ""))
        eq("replay.py clean: one round judged, then the decision", len(lines), 3)
        row = lines[1].split()
        eq("replay.py clean: round 1, 10 points, 1.80 ms", row[:4], ["1", "10", "10", "1.80"])
        eq("replay.py clean: on a line, believed", (row[4], row[5], row[-1]), ("1.000", "0.0%", "yes"))
        eq("replay.py clean: at the ACKs' rate", (row[6], row[7]), ("57.9", "1.00"))
        eq("replay.py clean: the decision", lines[2],
           "PREDICT: a fill to its target, target 206 packets, from round 1 at 57.9 Mbit/s  1.00 x")
        fn = os.path.join(d, "clumped.probe")
        write_probe(fn, clumped)
        rc, out, err = run(fn)
        lines = out.splitlines()
        eq("replay.py clumped: exit 0", (rc, err), (0, ""))
        row = lines[1].split()
        eq("replay.py clumped: 8 points at r^2 0.969, 7.3 %, refused", (row[2], row[4], row[5], row[-1]),
           ("8", "0.969", "7.3%", "no"))
        eq("replay.py clumped: HyStart decides", lines[-1], "PREDICT: no train believed: Linux HyStart decides")
        rc, out, err = run(fn, "predict_tolerance=200")
        eq("replay.py clumped, tolerance 200: believed", (rc, out.splitlines()[1].split()[-1]), (0, "yes"))
        check("replay.py clumped, tolerance 200: a target", out.splitlines()[-1].startswith("PREDICT: a fill"))
        # what a user can get wrong: one sentence, exit 2
        rc, out, err = run(fn, "predict_tolerance=x")
        eq("replay.py: a bad value: exit 2, one line", (rc, len(err.splitlines()), out), (2, 1, ""))
        rc, out, err = run(fn, "no_such_key=1")
        eq("replay.py: a key that is no tunable: exit 2", (rc, len(err.splitlines())), (2, 1))
        rc, out, err = run(fn, "--rate", "fast")
        eq("replay.py: a bad --rate: exit 2", (rc, len(err.splitlines())), (2, 1))
        rc, out, err = run(os.path.join(d, "missing.probe"))
        eq("replay.py: a missing file: exit 2", (rc, len(err.splitlines())), (2, 1))
        empty = os.path.join(d, "empty.probe")
        open(empty, "w").close()
        rc, out, err = run(empty)
        eq("replay.py: a trace without a flow: exit 2", (rc, len(err.splitlines())), (2, 1))


for t in (test_parse_quantities, test_path, test_iperf_probe_bpftool, test_stats, test_report, test_windows,
          test_vocab, test_rounds, test_replay):
    t()
done("pylib")
