#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Timed N-byte transfers for tools/fct/run.sh: what a user waits for.

  xfer.py sink --port P
        listen on P; for each connection read the 8-byte length N that opens
        the stream, read until N bytes in all have arrived, then answer one
        byte (the application's reply) and wait for the peer to close.
        Prints "listening" once it listens; runs until killed. Never sets
        SO_RCVBUF (that would cap autotuning at rmem_max, 4 MB here).
  xfer.py send --addr A --port P --ca CA --bytes N [--bound PKTS] [--timeout S]
        one connection with TCP_CONGESTION = CA set before connect() (no
        other algorithm's init runs first: the host default bbr would leave
        pacing on, DESIGN.md section 6); the clock starts when connect()
        returns (the handshake is excluded), N bytes are written (the first
        8 carry N), and the clock stops when the sink's one-byte reply has
        been read: one RTT for the reply is included. Prints one JSON object.

The sender samples its own TCP_INFO (cwnd, ssthresh) every SAMPLE_S while it
runs; with --bound, a cwnd above it or an ssthresh above TCP_INFINITE_SSTHRESH
or above the bound (docs/IMPOSSIBLE_WINDOWS.md) is reported in the object
("impossible") and the exit code is 3. Errors: {"error": ...}, exit 1.
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
from cubictools import windows  # noqa: E402

HDR = struct.Struct("!Q")   # the transfer's length, in the stream itself
CHUNK = 256 * 1024          # bytes per write
SAMPLE_S = 0.005            # s between the sender's TCP_INFO samples
TCP_INFO_LEN = 256

# struct tcp_info (include/uapi/linux/tcp.h): 8 u8 fields, then u32s from
# tcpi_rto (offset 8), u64s from tcpi_pacing_rate (104). Offsets in bytes.
TI_U8 = ("state", "ca_state")
TI_U32 = {"rtt_us": 68, "rttvar_us": 72, "ssthresh": 76, "cwnd": 80, "total_retrans": 100,
          "segs_out": 136, "min_rtt_us": 148, "data_segs_out": 156, "delivered": 192}
TI_U64 = {"pacing_rate": 104, "bytes_acked": 120, "delivery_rate": 160, "busy_time_us": 168,
          "rwnd_limited_us": 176, "sndbuf_limited_us": 184, "bytes_sent": 200, "bytes_retrans": 208}


def tcp_info(s):
    """The fields of TI_* the kernel filled (an older kernel's shorter
    struct leaves the later ones out)."""
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    out = {k: raw[i] for i, k in enumerate(TI_U8)}
    for k, off in TI_U32.items():
        if off + 4 <= len(raw):
            out[k] = struct.unpack_from("I", raw, off)[0]
    for k, off in TI_U64.items():
        if off + 8 <= len(raw):
            out[k] = struct.unpack_from("Q", raw, off)[0]
    return out


# ---------------------------------------------------------------- receiver

def serve(c):
    """One connection: the length, the bytes, the reply, the peer's close."""
    buf = bytearray(1 << 20)
    with c:
        head = b""
        while len(head) < HDR.size:
            k = c.recv(HDR.size - len(head))
            if not k:
                return
            head += k
        want = HDR.unpack(head)[0]
        got = HDR.size
        while got < want:
            k = c.recv_into(buf, min(len(buf), want - got))
            if not k:
                return
            got += k
        c.sendall(b"\1")
        while c.recv_into(buf):
            pass


def sink(a):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", a.port))
    ls.listen(16)
    print("listening", flush=True)
    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


# ---------------------------------------------------------------- sender

class Watch:
    """The sender's TCP_INFO samples: the largest cwnd and finite ssthresh,
    and the first impossible sample (windows.impossible)."""

    def __init__(self, s, bound, t0):
        self.s, self.bound, self.t0 = s, bound, t0
        self.n = 0
        self.max_cwnd = 0
        self.max_ssthresh = None
        self.impossible = None
        self.next = 0.0

    def sample(self, force=False):
        now = time.monotonic()
        if not force and now < self.next:
            return None
        self.next = now + SAMPLE_S
        ti = tcp_info(self.s)
        self.n += 1
        cw, ss = ti["cwnd"], ti["ssthresh"]
        self.max_cwnd = max(self.max_cwnd, cw)
        if ss < windows.INF_SSTHRESH and (self.max_ssthresh is None or ss > self.max_ssthresh):
            self.max_ssthresh = ss
        if self.bound and self.impossible is None:
            why = windows.impossible(cw, ss, self.bound)
            if why:
                self.impossible = {"t_s": round(now - self.t0, 6), "what": why}
        return ti


def send(a):
    if a.bytes < HDR.size:
        raise ValueError(f"--bytes must be at least {HDR.size}")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # before connect(): the congestion control's own init is the first to run
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.ca.encode())
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(10)
    s.connect((a.addr, a.port))
    t0 = time.monotonic()
    ca = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()
    s.setblocking(False)
    w = Watch(s, a.bound, t0)
    first = w.sample(force=True)
    data = HDR.pack(a.bytes) + b"\0" * (CHUNK - HDR.size)
    zeros = memoryview(b"\0" * CHUNK)
    sent, t_written, reply = 0, None, b""
    deadline = t0 + a.timeout
    while True:
        now = time.monotonic()
        if now > deadline:
            raise TimeoutError(f"no reply {a.timeout} s after connect ({sent} of {a.bytes} bytes written)")
        wr = [s] if sent < a.bytes else []
        r, wl, _ = select.select([s], wr, [], SAMPLE_S)
        if wl:
            chunk = data if sent == 0 else zeros
            try:
                sent += s.send(chunk[:min(CHUNK, a.bytes - sent)])
            except BlockingIOError:
                pass
            if sent >= a.bytes and t_written is None:
                t_written = time.monotonic()
        if r:
            k = s.recv(16)
            if not k:
                raise ConnectionError(f"the receiver closed before replying ({sent} bytes written)")
            reply += k
            t1 = time.monotonic()
            break
        w.sample()
    last = w.sample(force=True)
    s.setblocking(True)
    s.close()
    fct = t1 - t0
    rec = {"ca_asked": a.ca, "ca": ca, "bytes": a.bytes, "fct_s": round(fct, 6),
           "written_s": round(t_written - t0, 6) if t_written else None,
           "retrans": last["total_retrans"] - first["total_retrans"],
           "bytes_retrans": last.get("bytes_retrans"), "segs_out": last.get("segs_out"),
           "data_segs_out": last.get("data_segs_out"), "bytes_acked": last.get("bytes_acked"),
           "min_rtt_us": last.get("min_rtt_us"), "srtt_us": last.get("rtt_us"),
           "cwnd_end": last["cwnd"], "ssthresh_end": last["ssthresh"],
           "max_cwnd": w.max_cwnd, "max_ssthresh": w.max_ssthresh, "samples": w.n,
           "pacing_rate_first": first.get("pacing_rate"),
           "rwnd_limited_us": last.get("rwnd_limited_us"), "sndbuf_limited_us": last.get("sndbuf_limited_us"),
           "bound": a.bound or None, "impossible": w.impossible}
    return rec


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("sink")
    k.add_argument("--port", type=int, required=True)
    d = sub.add_parser("send")
    d.add_argument("--addr", required=True)
    d.add_argument("--port", type=int, required=True)
    d.add_argument("--ca", required=True)
    d.add_argument("--bytes", type=int, required=True)
    d.add_argument("--bound", type=int, default=0, help="the path's largest possible cwnd, packets")
    d.add_argument("--timeout", type=float, default=120.0)
    a = p.parse_args()
    if a.cmd == "sink":
        sink(a)
        return 0
    try:
        rec = send(a)
    except (OSError, ValueError) as e:
        print(json.dumps({"error": f"xfer: {e}"}))
        return 1
    print(json.dumps(rec))
    return 3 if rec["impossible"] else 0


if __name__ == "__main__":
    sys.exit(main())
