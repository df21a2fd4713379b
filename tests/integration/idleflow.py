#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A flow that goes idle: for the restart-after-idle test of datapath.bats.

  idleflow.py sink PORT                       accept connections, discard data
  idleflow.py run ADDR PORT CA BULK_S IDLE_S  bulk for BULK_S, wait until all
        is ACKed and IDLE_S more, write 1 kB; prints one JSON line with cwnd
        and ssthresh (TCP_INFO) before the idle time and right after the write
  idleflow.py accept PORT CA   listen with congestion control CA, accept one
        connection and print its pacing rate, cwnd, mss and smoothed RTT
        before anything is sent (a passive open gets its first pacing rate
        with the handshake, from the handshake's RTT)
  idleflow.py connect ADDR PORT  open a connection, wait for the peer to close
  idleflow.py applimited ADDR PORT CA BULK_S APP_S KB MS
        bulk for BULK_S, then for APP_S write KB kB every MS ms (far below
        what the path carries: application-limited); prints cwnd and
        ssthresh at the end of the bulk and of the application-limited part
  idleflow.py capflow ADDR PORT CA BULK_S RATE  bulk for BULK_S; RATE > 0 sets
                                 SO_MAX_PACING_RATE first; prints the cap
                                 before, its lowest while sending, and after
  idleflow.py late ADDR PORT CA GOFILE BULK_S  open a connection with CA and
        write 1 kB, print "connected", wait (at most 30 s) for GOFILE to
        exist, then bulk for BULK_S; prints its local port, cwnd and ssthresh
        at the end (the caller changes the instance's tunables, or upgrades
        it, before creating GOFILE)
"""
import os
import json
import socket
import struct
import sys
import time

TCP_INFO_FMT = "8B24I"  # state .. backoff etc., then the u32 fields up to tcpi_snd_cwnd


def info(s):
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    f = struct.unpack_from(TCP_INFO_FMT, raw)
    u = f[8:]  # rto, ato, snd_mss, rcv_mss, unacked, sacked, lost, retrans, fackets, ...
    return {"rto_us": u[0], "unacked": u[4], "ssthresh": u[17], "cwnd": u[18], "ca_state": f[1],
            "mss": u[2], "srtt_us": u[15]}


def pacing_rate(s):
    # struct tcp_info: 8 u8, 24 u32 (rto .. total_retrans), then u64 tcpi_pacing_rate
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 120)
    return struct.unpack_from("Q", raw, 8 + 24 * 4)[0]


def accept(port, ca):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, ca.encode())
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    print("listening", flush=True)
    c, _ = ls.accept()
    i = info(c)
    r = {"ca": c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode(),
         "pacing_rate": pacing_rate(c), "cwnd": i["cwnd"], "mss": i["mss"], "srtt_us": i["srtt_us"]}
    c.close()
    print(json.dumps(r))


def connect(addr, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect((addr, port))
    s.recv(1)
    s.close()


def sink(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(8)
    while True:
        c, _ = ls.accept()
        while c.recv(1 << 20):
            pass
        c.close()


def bulk_start(addr, port, ca, bulk_s):
    """A connection with congestion control CA that has sent bulk for BULK_S."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, ca.encode())
    s.connect((addr, port))
    buf = b"x" * 65536
    end = time.monotonic() + bulk_s
    while time.monotonic() < end:
        s.send(buf)
    return s


def run(addr, port, ca, bulk_s, idle_s):
    s = bulk_start(addr, port, ca, bulk_s)
    # everything ACKed, then idle
    for _ in range(1000):
        if info(s)["unacked"] == 0:
            break
        time.sleep(0.01)
    before = info(s)
    time.sleep(idle_s)
    s.send(b"y" * 1024)
    after = info(s)
    s.close()
    print(json.dumps({"ca": ca, "before": before, "after": after}))


def applimited(addr, port, ca, bulk_s, app_s, kb, ms):
    s = bulk_start(addr, port, ca, bulk_s)
    before = info(s)
    chunk = b"z" * (kb * 1024)
    end = time.monotonic() + app_s
    t = time.monotonic()
    while t < end:
        s.sendall(chunk)
        t += ms / 1000.0
        time.sleep(max(0.0, t - time.monotonic()))
    after = info(s)
    s.close()
    print(json.dumps({"ca": ca, "before": before, "after": after}))


def late(addr, port, ca, gofile, bulk_s):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, ca.encode())
    s.connect((addr, port))
    s.sendall(b"w" * 1024)
    print("connected", flush=True)
    end = time.monotonic() + 30
    while not os.path.exists(gofile):
        if time.monotonic() > end:
            sys.exit("late: %s did not appear in 30 s" % gofile)
        time.sleep(0.02)
    buf = b"x" * 65536
    end = time.monotonic() + bulk_s
    while time.monotonic() < end:
        s.send(buf)
    r = info(s)
    port = s.getsockname()[1]
    s.close()
    print(json.dumps({"ca": ca, "sport": port, "end": r}))


SO_MAX_PACING_RATE = 47  # asm-generic/socket.h (not in every Python's socket module)


def max_pacing(s):
    return struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, 8))[0]


def capflow(addr, port, ca, bulk_s, rate):
    """A bulk flow with CA; RATE > 0: the owner's SO_MAX_PACING_RATE, set
    before connect. Prints the cap before, the lowest seen while sending
    (read between sends), and the cap at the end."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, ca.encode())
    if rate:
        s.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, struct.pack("Q", rate))
    before = max_pacing(s)
    s.connect((addr, port))
    # non-blocking, so the cap is read every half millisecond whether or not
    # the send buffer has room (a blocking send can sleep through the fill)
    s.setblocking(False)
    buf = b"c" * 16384
    low = before
    end = time.monotonic() + bulk_s
    while time.monotonic() < end:
        try:
            s.send(buf)
        except BlockingIOError:
            time.sleep(0.0005)
        low = min(low, max_pacing(s))
    s.setblocking(True)
    r = info(s)
    after = max_pacing(s)
    s.close()
    print(json.dumps({"ca": ca, "max_before": before, "max_low": low, "max_after": after, "end": r}))


if __name__ == "__main__":
    if sys.argv[1] == "sink":
        sink(int(sys.argv[2]))
    elif sys.argv[1] == "accept":
        accept(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "connect":
        connect(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "capflow":
        capflow(sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), int(sys.argv[6]))
    elif sys.argv[1] == "late":
        late(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], float(sys.argv[6]))
    elif sys.argv[1] == "applimited":
        applimited(sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), float(sys.argv[6]),
                   int(sys.argv[7]), int(sys.argv[8]))
    else:
        run(sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), float(sys.argv[6]))
