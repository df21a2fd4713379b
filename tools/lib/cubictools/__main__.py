# SPDX-License-Identifier: GPL-2.0
"""What the shell of tools/ and tests/ asks the library (python3 -B -m cubictools):

  path --rate R --rtt T --buffer B [--loss L] [--jitter J] [--rtt-step S]
        [--burst-us U] [--ack-agg P] [--policer RATE:BURST] [--trace FILE]
        pathemu's numbers as key=value lines; bad input: the reason on
        stderr, exit 2
  trace-window --trace FILE --rtt T --from MS [--window MS]
        a trace link's rate and BDP over the window a connection meets when
        it starts the trace MS in (pathemu phase); key=value lines
  bound --bdp N --buffer M | --send-buffer BYTES
        the largest possible cwnd, packets (cubictools.windows)
  iperf-windows --bound N [--label L] FILE...
        exit 1, naming the value, if an iperf3 -J sender's snd_cwnd is above
        the bound (files that are not JSON are passed over)
"""
import argparse
import sys

from . import parse, path, windows


def main(argv=None):
    p = argparse.ArgumentParser(prog="cubictools", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("path")
    pp.add_argument("--rate", default="")
    pp.add_argument("--rtt", required=True)
    pp.add_argument("--buffer", required=True)
    pp.add_argument("--loss", default="0")
    pp.add_argument("--jitter", default="")
    pp.add_argument("--rtt-step", default="")
    pp.add_argument("--burst-us", type=float, default=250)
    pp.add_argument("--ack-agg", default="")
    pp.add_argument("--policer", default="")
    pp.add_argument("--trace", default="")
    pw = sub.add_parser("trace-window")
    pw.add_argument("--trace", required=True)
    pw.add_argument("--rtt", required=True)
    pw.add_argument("--from", dest="from_ms", type=int, required=True)
    pw.add_argument("--window", type=int, default=1000)
    pb = sub.add_parser("bound")
    pb.add_argument("--bdp", type=int)
    pb.add_argument("--buffer", type=int)
    pb.add_argument("--send-buffer", type=int)
    pi = sub.add_parser("iperf-windows")
    pi.add_argument("--bound", type=int, required=True)
    pi.add_argument("--label")
    pi.add_argument("files", nargs="+")
    a = p.parse_args(argv)
    if a.cmd == "path":
        try:
            cfg = path.config(a.rate, a.rtt, a.buffer, a.loss, a.jitter, a.burst_us, a.rtt_step,
                              a.ack_agg, a.policer, a.trace)
        except path.BadInput as e:
            print(e, file=sys.stderr)
            return 2
        for k, v in cfg.items():
            print(f"{k}={v}")
    elif a.cmd == "trace-window":
        try:
            cfg = path.trace_window(a.trace, a.rtt, a.from_ms, a.window)
        except path.BadInput as e:
            print(e, file=sys.stderr)
            return 2
        for k, v in cfg.items():
            print(f"{k}={v}")
    elif a.cmd == "bound":
        if a.send_buffer is not None:
            print(windows.send_buffer_bound(a.send_buffer))
        elif a.bdp is not None and a.buffer is not None:
            print(windows.path_bound(a.bdp, a.buffer))
        else:
            p.error("bound: --bdp and --buffer, or --send-buffer")
    else:
        for f in a.files:
            doc = parse.load_json(f)
            if not isinstance(doc, dict):
                continue
            mx = parse.iperf_max_cwnd_pkts(doc)
            if mx > a.bound:
                print(windows.iperf_message(a.label or f, mx, a.bound), file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
