#!/usr/bin/python3
"""replay.py: what PREDICT would have judged on a recorded flow's slow start.

usage: replay.py [--rate RATE] [--replay BIN] PROBE [KEY=VALUE...]

PROBE is a tcp_probe trace that `tools/eval/run.sh --keep-probes` kept
(OUT/probes/*.probe): its busiest socket's ACKs, from the bulk data's start
(the first ACK that finds 5 packets or more in flight, as rounds.py) to the
end of its slow start (ssthresh set), go to build/replay, which runs PREDICT's
core (include/predict_core.h, the source the BPF program runs) on them with
the tunables given (KEY=VALUE: predict_skip, predict_min_train_us,
predict_tolerance, predict_margin, predict_rounds, predict_pace,
predict_jump, hystart_ack_delta_us; defaults as cubicctl's). It prints one
line per round (its train's points, length, r^2, the slope's relative
standard error, the fit's and the mean's rates, and whether it was believed:
yes, no, or "short", too short to judge, which does not count) and PREDICT's
decision. --rate (e.g. 100mbit) adds each rate as a
multiple of it; --replay BIN runs another build of the program (replay.c
compiled against another include/predict_core.h: an older rule, side by side).

The recorded flow is the kernel's cubic or any rule's; its rounds are what
PREDICT would measure only until PREDICT would have acted differently (it
paces from the round it judges), so the first judged round is the one that
counts. tcp_probe gives no RTT sample, only srtt: delay_min is the least
srtt so far, which only ends trains at gaps above half of it and sets the
target. An ACK's packets are the difference of snd_una (SACKed ones are not
seen).

Exit codes: 0 ok, 2 bad usage or input (no file, no flow, no slow start).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from cubictools.parse import MSS, bulk_start, parse_rate, read_probe  # noqa: E402

INFINITE = 0x7FFFFFFF


def ack_lines(samples):
    """replay's input lines for the slow start of one socket's samples, or []."""
    k = bulk_start(samples)
    if k is None:
        return []
    out = []
    dmin = 0
    for i in range(k, len(samples) - 1):
        a, b = samples[i], samples[i + 1]
        if a.ssthresh < INFINITE:
            break
        if a.srtt and (not dmin or a.srtt < dmin):
            dmin = a.srtt
        acked = ((b.snd_una - a.snd_una) & 0xFFFFFFFF) // MSS
        inflight = ((a.snd_nxt - b.snd_una) & 0xFFFFFFFF) // MSS
        out.append("%d %d %d %d %d %d %d" % (int(a.t * 1e6) & 0xFFFFFFFF, b.snd_una, a.snd_nxt, a.cwnd, acked,
                                             inflight if inflight < 1 << 20 else 0, dmin))
    return out


def std_error(points, line):
    """The slope's relative standard error, %, from its points and r^2 per mille."""
    if points < 3 or line <= 0:
        return None
    return 100 * ((1000 - line) / ((points - 2) * line)) ** 0.5


def main(argv):
    rate = None
    binary = os.path.join(HERE, "..", "..", "build", "replay")
    args = []
    i = 0
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if argv[i] in ("--rate", "--replay") and i + 1 < len(argv):
            if argv[i] == "--rate":
                try:
                    rate = parse_rate(argv[i + 1]) / 8  # bytes/s
                except ValueError:
                    rate = 0
                if not rate:
                    print("replay.py: --rate wants a rate such as 100mbit, not '%s'" % argv[i + 1], file=sys.stderr)
                    return 2
            else:
                binary = argv[i + 1]
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path, keys = args[0], args[1:]
    try:
        flows = read_probe(path)
    except OSError as e:
        print("replay.py: %s: %s" % (path, e.strerror), file=sys.stderr)
        return 2
    if not flows:
        print("replay.py: %s: no tcp_probe sample of a flow" % path, file=sys.stderr)
        return 2
    lines = ack_lines(max(flows.values(), key=len))
    if not lines:
        print("replay.py: %s: no slow start of bulk data in the trace" % path, file=sys.stderr)
        return 2
    if not os.access(binary, os.X_OK):
        print("replay.py: %s is missing: make build/replay" % binary, file=sys.stderr)
        return 2
    p = subprocess.run([binary, "--mss", str(MSS)] + keys, input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write(p.stderr)
        return 2
    recs = [json.loads(x) for x in p.stdout.splitlines()]
    rel = lambda r: " %5.2f x" % (r / rate) if rate else ""  # noqa: E731
    print("%-5s %5s %6s %8s %6s %6s %12s %12s %7s  %s" % ("round", "cwnd", "points", "train ms", "r^2", "error",
                                                          "fit Mbit/s", "mean Mbit/s", "covered", "believed"))
    for r in recs[:-1]:
        se = std_error(r["points"], r["line"])
        print("%-5d %5d %6d %8.2f %6.3f %6s %12s %12s %6.0f%%  %s" % (
            r["round"], r["cwnd"], r["points"], r["train_us"] / 1e3, r["line"] / 1e3,
            "%5.1f%%" % se if se is not None else "-", "%.1f%s" % (r["rate"] * 8 / 1e6, rel(r["rate"])),
            "%.1f%s" % (r["mean"] * 8 / 1e6, rel(r["mean"])), r["covered"] / 10, {"believed": "yes", "refused": "no"}.get(r["status"], "short")))
    d = recs[-1]
    if d["decision"] in ("target", "exit"):
        print("PREDICT: %s, target %d packets, from round %d at %.1f Mbit/s%s" % (
            "a fill to its target" if d["decision"] == "target" else "past its target: an exit at once",
            d["target"], d["round"], d["rate"] * 8 / 1e6, rel(d["rate"])))
    elif d["decision"] == "give_up":
        print("PREDICT: no train believed: Linux HyStart decides")
    else:
        print("PREDICT: no decision before the recorded slow start ended")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
