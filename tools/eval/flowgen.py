#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Flows iperf3 cannot make, for tools/eval/run.sh: one TCP connection whose
sender is application-limited for a while and then bulk, with the
congestion control set before connect() (so no other algorithm's init runs
first, unlike iperf3 -C).

  flowgen.py sink --port P
        listen on P, read and discard every connection (prints "listening"
        once it does); runs until killed
  flowgen.py send --addr A --port P --ca CA --duration S [--rate R --app F:T]
        send for S seconds; with --app, the first T seconds at F (a
        fraction, or a percentage: 40%) of R's payload rate (R x 1448/1500),
        in whole segments every millisecond (iperf3 -b's default 1 ms
        pacing timer), then as fast as the socket takes

send prints what run.sh's analysis reads of an iperf3 -J document: start.
connected[0].local_port, 0.1 s intervals (sum.start, sum.end, bytes written,
retransmits: TCP_INFO total_retrans deltas, as iperf3 counts them) and the
end totals (sum_received is the bytes the peer acknowledged, tcpi_bytes_acked,
over the flow), plus "flowgen" with the app-limited phase's numbers and the
first write's wall-clock time (first_write_unix_s: analyze.py times an RTT
step's schedule, which starts at the SYN-ACK, against it). On error:
{"error": ...} and exit 1, as iperf3 does.
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cubictools import parse  # noqa: E402
from cubictools.parse import IP_PKT, MSS  # noqa: E402

INTERVAL = 0.1      # s, as run.sh's iperf3 -i 0.1
APP_TICK = 0.001    # s between writes in the application-limited phase
CHUNK = 256 * 1024  # bytes per write in the bulk phase


def tcp_info(s):
    """total_retrans, cwnd and bytes_acked of socket S (struct tcp_info: 8
    u8, then u32 from tcpi_rto; tcpi_total_retrans is the 24th; u64
    tcpi_pacing_rate, max_pacing_rate, bytes_acked follow)."""
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 128)
    u = struct.unpack_from("24I", raw, 8)
    acked = struct.unpack_from("Q", raw, 8 + 24 * 4 + 16)[0]
    return {"retrans": u[23], "cwnd": u[18], "bytes_acked": acked}


def sink(a):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(8)
    print("listening", flush=True)

    def drain(c):
        buf = bytearray(1 << 20)
        with c:
            while c.recv_into(buf):
                pass

    while True:
        c, _ = ls.accept()
        threading.Thread(target=drain, args=(c,), daemon=True).start()


def app_rate(a):
    """The application-limited phase: (bytes/s, seconds), or (0, 0)."""
    if not a.app:
        return 0.0, 0.0
    if not a.rate:
        raise ValueError("--app needs --rate")
    f, secs = parse.parse_app(a.app)
    return parse.parse_rate(a.rate) / 8 * MSS / IP_PKT * f, secs


class Sender:
    """One connection's writes and its 0.1 s intervals."""

    def __init__(self, s, duration, rate, app_s):
        self.s, self.duration, self.rate, self.app_s = s, duration, rate, app_s
        self.sent = 0
        self.first_write_unix_s = None
        self.intervals = []
        self.buf = b"\0" * CHUNK

    def sample(self, t0, t_from, t_to, sent_from, prev):
        cur = tcp_info(self.s)
        self.intervals.append({"sum": {"start": round(t_from - t0, 6), "end": round(t_to - t0, 6),
                                       "bytes": self.sent - sent_from, "retransmits": cur["retrans"] - prev["retrans"],
                                       "snd_cwnd": cur["cwnd"] * MSS}})
        return cur

    def write(self, n):
        """Up to N bytes, never blocking; the bytes taken."""
        try:
            k = self.s.send(self.buf[:n])
        except BlockingIOError:
            return 0
        if self.first_write_unix_s is None:
            self.first_write_unix_s = time.time()
        self.sent += k
        return k

    def run(self):
        t0 = time.monotonic()
        first = tcp_info(self.s)
        prev, t_iv, sent_iv = first, t0, 0
        end = t0 + self.duration
        while True:
            now = time.monotonic()
            if now >= t_iv + INTERVAL or now >= end:
                prev = self.sample(t0, t_iv, now, sent_iv, prev)
                t_iv, sent_iv = now, self.sent
            if now >= end:
                break
            nxt = min(t_iv + INTERVAL, end)
            if now - t0 < self.app_s:
                # whole segments, as many as the rate allows by now
                due = int(self.rate * (now - t0) / MSS) * MSS - self.sent
                if due > 0:
                    self.write(min(due, CHUNK))
                time.sleep(max(0.0, min(nxt, now + APP_TICK) - time.monotonic()))
            else:
                _, w, _ = select.select([], [self.s], [], max(0.0, nxt - time.monotonic()))
                if w:
                    self.write(CHUNK)
        last = tcp_info(self.s)
        return t0, first, last


def send(a):
    rate, app_s = app_rate(a)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.ca.encode())
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(10)
    s.connect((a.addr, a.port))
    s.setblocking(False)
    sport = s.getsockname()[1]
    snd = Sender(s, a.duration, rate, app_s)
    t0, first, last = snd.run()
    elapsed = time.monotonic() - t0
    retx = last["retrans"] - first["retrans"]
    acked = last["bytes_acked"] - first["bytes_acked"]
    s.setblocking(True)
    s.shutdown(socket.SHUT_WR)
    s.close()
    return {"start": {"connected": [{"local_port": sport, "remote_host": a.addr, "remote_port": a.port}],
                      "flowgen": {"ca": a.ca, "app_rate_bps": round(rate * 8), "app_s": app_s,
                                  "app_tick_s": APP_TICK if app_s else None,
                                  "first_write_unix_s": snd.first_write_unix_s}},
            "intervals": snd.intervals,
            "end": {"sum_sent": {"bytes": snd.sent, "retransmits": retx, "seconds": round(elapsed, 6)},
                    "sum_received": {"bytes": acked, "seconds": round(elapsed, 6),
                                     "bits_per_second": acked * 8 / elapsed if elapsed > 0 else 0}}}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("sink")
    k.add_argument("--port", type=int, required=True)
    d = sub.add_parser("send")
    d.add_argument("--addr", required=True)
    d.add_argument("--port", type=int, required=True)
    d.add_argument("--ca", required=True)
    d.add_argument("--duration", type=float, required=True)
    d.add_argument("--rate", help="the path's rate (pathemu syntax), for --app")
    d.add_argument("--app", help="F:T: the first T seconds at F of the payload rate")
    a = p.parse_args()
    if a.cmd == "sink":
        sink(a)
        return 0
    try:
        doc = send(a)
    except (OSError, ValueError) as e:
        print(json.dumps({"error": f"flowgen: {e}"}))
        return 1
    print(json.dumps(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
