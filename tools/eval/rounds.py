#!/usr/bin/python3
"""rounds.py: the ACK rate of a flow's first slow-start rounds, from the tcp_probe
traces that `tools/eval/run.sh --keep-probes` keeps (OUT/probes/*.probe).

usage: rounds.py FILE...

For each file, the flow with the most samples (the trace holds only the measured
flow's sender: run.sh filters it on the server's port). Its bulk data starts at the
first ACK that finds 5 packets or more in flight (before it: iperf3's cookie and
control bytes); from there, rounds of 10, 20 and 40 packets (slow start doubling an
initial window of 10). A round's rate is the payload its ACKs acknowledged from the
first to the last, over the time between them: what the bottleneck gave the round,
as PREDICT's train measures it, without its trimming and fit. tcp_probe fires before
the ACK is processed, so an ACK's reach is the next sample's snd_una.

A round that lost a packet is no reading of the bottleneck: its ACKs wait for the
retransmission, and the rounds after it are sent by a recovery's window, not by
slow start. Such a round (a duplicate ACK in it, one that moved neither snd_una nor
the window; an ACK that lowered cwnd; or a round before it lost) is printed with a
`!` after its ACK count, and no ratio is taken from it.

Exit codes: 0 ok, 2 bad input (no file, a file without a flow).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cubictools.parse import MSS, bulk_start, read_probe  # noqa: E402

ROUNDS = ((0, 10), (10, 30), (30, 70))  # packets from the bulk data's start


def flow_samples(path):
    """The samples of the trace's busiest socket, or None."""
    flows = read_probe(path)
    return max(flows.values(), key=len) if flows else None


def round_rates(s):
    """[(Mbit/s, span s, ACKs, lost) or None] per round of ROUNDS; lost: the
    round, or one before it, lost a packet."""
    k = bulk_start(s)
    if k is None:
        return [None] * len(ROUNDS)
    d0 = s[k].snd_una
    # (time, reach in packets, lost): an ACK is a duplicate when it moved
    # neither snd_una nor the window the one before it left (its own effect is
    # the next sample's); one that lowered cwnd ended a loss's wait (an RTO, a
    # tail loss probe's recovery) without duplicates
    acks = [(s[i].t, ((s[i + 1].snd_una - d0) & 0xFFFFFFFF) / MSS,
             (i > k and s[i + 1].snd_una == s[i].snd_una and s[i + 1].snd_wnd == s[i].snd_wnd
              and s[i].snd_nxt != s[i].snd_una) or s[i + 1].cwnd < s[i].cwnd)
            for i in range(k, len(s) - 1)]
    out = []
    lost = False
    for lo, hi in ROUNDS:
        # a duplicate whose reach is the round's start lost the round's first packet
        pts = [a for a in acks if lo < a[1] <= hi + 0.01 or (a[2] and lo - 0.01 <= a[1] < hi - 0.01)]
        if len(pts) < 3 or pts[-1][0] <= pts[0][0]:
            out.append(None)
            continue
        (t0, u0, _), (t1, u1, _) = pts[0], pts[-1]
        lost = lost or any(a[2] for a in pts)
        out.append(((u1 - u0) * MSS * 8 / (t1 - t0) / 1e6, t1 - t0, len(pts), lost))
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    rc = 0
    print("%-36s %27s %27s %27s %6s %6s %8s" % ("flow", "round 1: Mbit/s, ms, ACKs", "round 2", "round 3",
                                                 "r2/r1", "r3/r1", "srtt ms"))
    for path in argv:
        try:
            s = flow_samples(path)
        except OSError as e:
            print("rounds.py: %s: %s" % (path, e.strerror), file=sys.stderr)
            rc = 2
            continue
        if not s:
            print("rounds.py: %s: no tcp_probe sample of a flow" % path, file=sys.stderr)
            rc = 2
            continue
        r = round_rates(s)
        cell = lambda x: "%10.1f %9.2f %5d%s" % (x[0], x[1] * 1e3, x[2], "!" if x[3] else " ") \
            if x else "%27s" % "-"  # noqa: E731
        ratio = lambda a, b: "%6.2f" % (b[0] / a[0]) if a and b and not a[3] and not b[3] \
            else "%6s" % "-"  # noqa: E731
        name = os.path.basename(path).rsplit(".", 1)[0]
        print("%-36s %s %s %s %s %s %8.1f" % (name, cell(r[0]), cell(r[1]), cell(r[2]), ratio(r[0], r[1]),
                                                     ratio(r[0], r[2]), s[min(1, len(s) - 1)].srtt / 1e3))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
