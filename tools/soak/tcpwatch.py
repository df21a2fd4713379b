#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tcpwatch: poll TCP_INFO of every TCP socket in this network namespace
(inet_diag over netlink, as `ss -ti` does, but with ssthresh in full: ss hides
an ssthresh >= 65535) and fail on an impossible window.

  ip netns exec NS tcpwatch.py --bound PKTS [--interval S] [--duration S]
                               [--port P | --ports A-B] [--label TEXT]

A sample is impossible when ssthresh > 0x7fffffff (TCP_INFINITE_SSTHRESH), or
cwnd > --bound packets, or a finite ssthresh > --bound (every ssthresh is
derived from a cwnd the flow had) (docs/IMPOSSIBLE_WINDOWS.md). After its first poll it says
"tcpwatch: ...watching" on stderr; runs until SIGTERM or SIGINT (or
--duration), then prints one summary line on stdout and exits 1 if
any sample was impossible (each such socket is named once on stderr, with the
time since the watch began and the values), 0 otherwise, 2 on bad usage.
Standard library and tools/lib/cubictools only.
"""
import argparse
import os
import signal
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cubictools.windows import INF_SSTHRESH, impossible  # noqa: E402
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO, INET_DIAG_CONG = 2, 4
TCPF_ALL = 0xFFF
# struct tcp_info: 8 bytes of u8 fields, then u32s; snd_ssthresh and
# snd_cwnd are the 18th and 19th u32 (include/uapi/linux/tcp.h)
TI_SSTHRESH, TI_CWND = 8 + 17 * 4, 8 + 18 * 4

stop = False


def on_signal(_sig, _frm):
    global stop
    stop = True


def dump(family):
    """(sport, dport, src, dst, cwnd, ssthresh, cong) of every TCP socket."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
    try:
        req = struct.pack("=BBBBI", family, socket.IPPROTO_TCP,
                          (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1)), 0, TCPF_ALL)
        req += b"\0" * 48  # struct inet_diag_sockid: any
        hdr = struct.pack("=IHHII", 16 + len(req), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
        s.send(hdr + req)
        out = []
        while True:
            data = s.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _fl, _seq, _pid = struct.unpack_from("=IHHII", data, off)
                if ln < 16:
                    return out
                if typ == NLMSG_DONE:
                    return out
                if typ == NLMSG_ERROR:
                    raise OSError("inet_diag: netlink error")
                if typ == SOCK_DIAG_BY_FAMILY:
                    m = off + 16
                    fam = data[m]
                    sport, dport = struct.unpack_from(">HH", data, m + 4)
                    alen = 4 if fam == socket.AF_INET else 16
                    src = socket.inet_ntop(fam, data[m + 8:m + 8 + alen])
                    dst = socket.inet_ntop(fam, data[m + 24:m + 24 + alen])
                    a = m + 72  # struct inet_diag_msg
                    cwnd = ssth = None
                    cong = ""
                    while a + 4 <= off + ln:
                        alen2, atyp = struct.unpack_from("=HH", data, a)
                        if alen2 < 4:
                            break
                        payload = data[a + 4:a + alen2]
                        if atyp == INET_DIAG_INFO and len(payload) >= TI_CWND + 4:
                            ssth = struct.unpack_from("=I", payload, TI_SSTHRESH)[0]
                            cwnd = struct.unpack_from("=I", payload, TI_CWND)[0]
                        elif atyp == INET_DIAG_CONG:
                            cong = payload.split(b"\0")[0].decode(errors="replace")
                        a += (alen2 + 3) & ~3
                    if cwnd is not None:
                        out.append((sport, dport, src, dst, cwnd, ssth, cong))
                off += (ln + 3) & ~3
    finally:
        s.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bound", type=int, required=True, help="largest possible cwnd, packets")
    p.add_argument("--interval", type=float, default=0.05, help="seconds between polls (default 0.05)")
    p.add_argument("--duration", type=float, default=0, help="stop after S seconds (default: at SIGTERM)")
    p.add_argument("--port", type=int, help="only sockets with this local or remote port")
    p.add_argument("--ports", help="only sockets with a local or remote port in A-B")
    p.add_argument("--label", default="", help="names the run in the messages")
    a = p.parse_args()
    lo, hi = 0, 65535
    if a.port:
        lo = hi = a.port
    elif a.ports:
        try:
            lo, hi = (int(x) for x in a.ports.split("-"))
        except ValueError:
            p.error("--ports A-B")
    if a.bound <= 0 or a.interval <= 0:
        p.error("--bound and --interval must be positive")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    label = f"{a.label}: " if a.label else ""
    t0 = time.monotonic()
    polls = samples = nbad = 0
    seen, bad = set(), {}
    max_cwnd = max_ssth = 0
    first = True
    while not stop:
        now = time.monotonic() - t0
        for fam in (socket.AF_INET, socket.AF_INET6):
            try:
                socks = dump(fam)
            except OSError as e:
                print(f"tcpwatch: {label}{e}", file=sys.stderr)
                socks = []
            for (sport, dport, src, dst, cwnd, ssth, cong) in socks:
                if not (lo <= sport <= hi or lo <= dport <= hi):
                    continue
                key = (src, sport, dst, dport)
                seen.add(key)
                samples += 1
                max_cwnd = max(max_cwnd, cwnd)
                if ssth < INF_SSTHRESH:
                    max_ssth = max(max_ssth, ssth)
                why = impossible(cwnd, ssth, a.bound)
                if why:
                    nbad += 1
                    if key not in bad:
                        bad[key] = why
                        print(f"tcpwatch: IMPOSSIBLE WINDOW: {label}{cong or '?'} flow {src}:{sport} > {dst}:{dport} "
                              f"at t={now:.3f} s: {why} (docs/IMPOSSIBLE_WINDOWS.md)", file=sys.stderr, flush=True)
        polls += 1
        if first:
            # callers wait for this line before they start the flows
            print(f"tcpwatch: {label}watching (bound {a.bound})", file=sys.stderr, flush=True)
            first = False
        if a.duration and now >= a.duration:
            break
        time.sleep(a.interval)
    print(f"tcpwatch: {label}{polls} polls, {len(seen)} sockets, {samples} samples, max cwnd {max_cwnd}, "
          f"max finite ssthresh {max_ssth}, bound {a.bound}, {nbad} impossible samples in {len(bad)} sockets",
          flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
