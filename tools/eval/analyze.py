#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Evaluation results: per-flow extraction and the summary report.

  analyze.py flow ...     one flow's raw files (iperf3 -J, tcp_probe trace text,
                          cubicctl -j trace) -> one JSON line on stdout, and the
                          flow's cwnd series appended to --cwnd-csv (called by run.sh)
  analyze.py report --in DIR [--out DIR] [--doc FILE]
                          flows.jsonl + cwnd.csv -> summary.md, fidelity and
                          ideal-band tables (stdout), cwnd_time.png,
                          exit_cwnd_bdp.png; --doc also writes the full
                          EVALUATION.md
  analyze.py band --in DIR [--json]
                          the ideal-band section alone (or its numbers)

Run with /usr/bin/python3 (Debian's, with matplotlib). See tools/eval/README.md.
Parsing, statistics, the impossible-window rules and the exit reasons
(build/vocab.json) come from the tools' library, tools/lib/cubictools.
"""
import argparse
import collections
import csv
import itertools
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cubictools import parse, path, stats, vocab, windows  # noqa: E402
from cubictools.parse import IP_PKT, MSS  # noqa: E402
from cubictools.report import fmt, spread  # noqa: E402
from cubictools.stats import median as med  # noqa: E402
from cubictools.windows import IMPOSSIBLE_EXIT, INF_SSTHRESH  # noqa: E402

# The exit reasons of include/cubic_abi.h (build/vocab.json), loaded by main()
V = None


def cwnd_bound(bdp_pkts, buffer_pkts):
    return windows.path_bound(bdp_pkts, buffer_pkts)


def impossible(cwnd, ssth, bound):
    """Why the sample is impossible (docs/IMPOSSIBLE_WINDOWS.md), or None."""
    return windows.impossible(cwnd, ssth, bound, f"{bound} packets = {windows.PATH_BOUND_TEXT}")

# Fidelity criteria: bpf_cubic preset linux against the kernel's cubic.
FID_CWND = 0.10      # median exit cwnd within 10 %
FID_GOODPUT = 0.03   # median goodput within 3 %
REF, CAND = "cubic", "bpf_linux"


# analyze.py flow --stall-exit: a delay exit that no queue of the path can
# explain (path_stall()); run.sh runs such a flow again
STALL_EXIT = 4
# what the emulator's delay line may add beyond the queue: its release error
# (p99 0.5 ms: tools/emu/README.md), with room
STALL_SLACK_US = 1000
# The emulator's delay lines (the ACK path's, and a trace link's or a policer's
# on the data path) late over the flow (run.sh resets their release-error
# histograms before it): a stall like the others, run again
EMU_LATE_P99_US = path.EMU_LATE_P99_US


def path_stall(a, rec, reason, exit_cwnd, rate, rtt):
    """A delay exit whose RTT rise is more than the path can queue, or None.

    HyStart's delay test (and PREDICT's fill backstop) ends slow start when the
    least RTT of a round is delay_min + a threshold or more. On an emulated
    path the only thing that raises an RTT is the bottleneck's queue, which
    holds at most min(cwnd, buffer) packets of this flow (the buffer, beside
    competing flows): more than that, plus the delay line's slack, jitter and
    ACK aggregation, is the host or the emulator stalling (a vCPU held by the
    hypervisor for 1-13 ms: tools/eval/README.md), not the path. The exit is
    then the host's, not the rule's. A path whose own RTT moves (an RTT step,
    a trace link's rate) is not checked."""
    if reason != V.check("delay") or not exit_cwnd or a.rtt_step or "trace=" in (a.real or ""):
        return None
    e = rec.get("bpf_exit_record")
    if e:
        dmin = e.get("delay_min_us") or 0
        seen = e.get("predict_jump_rtt_us") or e.get("round_min_rtt_us") or 0
        cwnd = e.get("cwnd") or exit_cwnd
        if not dmin or not seen:
            return None
        rise = seen - dmin
        how = f"the round's least RTT {seen / 1e3:.2f} ms against delay_min {dmin / 1e3:.2f} ms"
    else:
        # the kernel's HyStart fired: its round's least RTT was at least
        # delay_min + clamp(delay_min / 8, 4 ms, 16 ms) (tcp_cubic.c)
        rise = min(max(rtt * 1e6 / 8, 4000), 16000)
        cwnd = exit_cwnd
        how = "the kernel HyStart's delay threshold"
    qpkts = a.buffer_pkts if "cross=" in (a.real or "") else min(cwnd, a.buffer_pkts)
    qmax = qpkts * IP_PKT * 8 / rate * 1e6
    slack = STALL_SLACK_US
    if a.jitter:
        slack += parse.parse_time(a.jitter) * 1e6
    for kv in (a.real or "").split():
        if kv.startswith("agg="):
            slack += parse.parse_time(kv[4:]) * 1e6
    if rise <= qmax + slack:
        return None
    return {"kind": "delay", "rise_us": int(rise), "queue_max_us": int(qmax), "slack_us": int(slack), "cwnd": cwnd,
            "queue_pkts": qpkts, "seen": how}


# an ACK gap longer than this inside slow start ends a HyStart ACK train
# (hystart_ack_delta_us) and a PREDICT train (its gap_us is the same tunable)
ACK_DELTA_US = 2000
# the ACKs processed together after a gap: what a stalled vCPU or delay line
# hands over at once comes within this, or a quarter of the gap (a path
# delivers a quarter of the gap's bytes in it, not the gap's)
ACK_BURST_US = 300


def ack_stall(a, s, exit_k, rate):
    """An ACK gap in slow start that the path cannot explain, or None.

    HyStart's ACK train and PREDICT's trains end at a gap between ACKs longer
    than hystart_ack_delta_us (2 ms). On an emulated path the bottleneck
    delivers at its rate and the receiver acknowledges as it receives, so
    the ACKs of data that was queued or in flight come spaced by the
    bottleneck. When the host stalls (the sender's vCPU, the receiver's, or
    the delay line's), the ACKs stop for the stall and then come all at once:
    a gap followed by a burst that acknowledges what the bottleneck delivered
    during it. That is the signature checked here, in the ACKs before the exit
    (tcp_probe, one sample per ACK): a gap of more than ACK_DELTA_US after
    which the next ACKs, within ACK_BURST_US or a quarter of the gap,
    acknowledge (beyond the first of them, whose data the gap itself
    delivered) more than the bottleneck delivers in that window plus the
    delay line's slack (and jitter, which can bunch ACKs too): that much was
    held back. A gap the sender made (an idle flight boundary, an
    application pause) is followed by ACKs at the bottleneck's pace, and a
    delayed ACK acknowledges two segments: neither is a burst. Paths whose
    ACKs come in bunches by design (agg=), whose rate or RTT moves (trace=,
    an RTT step) or whose queue other flows share (cross=) are not
    checked."""
    real = a.real or ""
    if a.rtt_step or any(k in real for k in ("agg=", "trace=", "cross=")):
        return None
    end = exit_k if exit_k is not None else len(s)
    slack = STALL_SLACK_US
    if a.jitter:
        slack += parse.parse_time(a.jitter) * 1e6
    worst = None
    for i in range(1, end):
        gap = (s[i].t - s[i - 1].t) * 1e6
        if gap <= ACK_DELTA_US:
            continue
        # a sample shows what the ACK before it left: ACKs i..j acknowledged
        # from s[i].snd_una to s[j + 1].snd_una
        j = i
        w = max(ACK_BURST_US, gap / 4)
        while j + 2 < len(s) and (s[j + 1].t - s[i].t) * 1e6 <= w:
            j += 1
        if j + 1 >= len(s) or j == i:
            continue
        # what ACK i acknowledges came through the bottleneck in the gap
        # itself; what the ACKs after it in the window acknowledge, the path
        # delivers in the window (plus the delay line's slack and jitter,
        # which can bunch ACKs): more than that was held back
        acked = (s[j + 1].snd_una - s[i + 1].snd_una) & 0xffffffff
        if acked >= 0x80000000:
            continue
        need = acked / MSS * IP_PKT * 8 / rate * 1e6
        if need <= w + slack:
            continue
        if worst is None or gap > worst["gap_us"]:
            worst = {"kind": "ack_gap", "gap_us": int(gap), "burst_acks": j - i + 1, "burst_us": int(w),
                     "burst_bytes": acked, "deliver_us": int(need), "slack_us": int(slack),
                     "at_s": round(s[i].t - s[0].t, 4), "cwnd": s[i].cwnd}
    return worst


def emu_late(a):
    """The emulator's delay lines late on more than 1 % of the flow's packets
    by more than EMU_LATE_P99_US, or None (not measured: an old run.sh)."""
    if a.emu_p99_us is None or a.emu_p99_us <= EMU_LATE_P99_US:
        return None
    return {"kind": "emulator_late", "p99_us": a.emu_p99_us, "max_us": a.emu_max_us,
            "limit_us": EMU_LATE_P99_US}


# an RTT step's schedule starts at the flow's SYN-ACK (pathemu --rtt-step),
# whose passage through the ACK path's delay line the sender's first data
# follows by one RTT; later than this, the host held the sender (its vCPU,
# or flowgen.py between connect() and its first write) and the step comes
# that much earlier into the flow than the scenario says. On a loaded host
# (2026-12-05) the first write was 2.5-5.5 ms after the RTT, and the step
# paths' exits did not move (0.241-0.242 s); a CI run's flow on a host that
# stalled left by delay at 0.166 s, cwnd 50, its first ACK's smoothed RTT
# already 60 ms and more: its step had come some 70 ms early.
STEP_LATE_US = 10000


def step_late(a, ip, rtt):
    """The first data later than one RTT after the SYN-ACK started the RTT
    step's clock (by more than STEP_LATE_US), or None; and how late it was
    (us; None: not measured)."""
    fw = ((ip.get("start") or {}).get("flowgen") or {}).get("first_write_unix_s")
    if not a.rtt_step or a.schedule_t0 is None or fw is None:
        return None, None
    late = int(round((fw - a.schedule_t0 - rtt) * 1e6))
    if late <= STEP_LATE_US:
        return None, late
    return {"kind": "step_late", "late_us": late, "limit_us": STEP_LATE_US}, late


# analyze.py flow: an RTT sample below the path's configured RTT. Every path
# of the matrix adds to that RTT (queue, jitter, ACK aggregation, a policer's
# or a trace link's daemon, an RTT step up) and none takes from it, so a flow
# that measured less found the emulator's base RTT read high (pathemu's
# calibration) or a datapath fault: either way no figure of the run can be
# trusted, and the run stops (run.sh), as after an impossible window. Found on
# 2026-12-06: bulk flows' min_rtt 39.85-39.98 ms on 40 ms paths, and
# timestamp samples of 39 ms, from a base read up to 0.15 ms high
# (tools/emu/README.md, "Delay error").
SHORT_RTT_EXIT = 5
# the base's own error: the least of 60 pings against the least of a flow's
# thousands of samples, which finds a cheaper wake-up of the delay line than
# any ping did (-102 to +13 us per scenario in a full run on 2026-12-06, the
# run that 100 us stopped), with room; a base read high by more (0.8 ms once,
# from one median) still stops the run
SHORT_RTT_SLACK_US = 250


# analyze.py flow: a window PREDICT set below TCP's initial window where the
# datapath floors it there (PREDICT_RETREAT_FLOOR): the share check's, a
# policer's and a retreat's ssthresh, and a target from a remembered policer
# (with the exit at it). One below it is a datapath fault, and the run stops
# (run.sh). Found on 2026-12-06: a policer remembered from a flow that lost in
# its first round behind four competing ones (150 kbit/s of a 50 Mbit/s link)
# gave the next flow a target of 2 packets, and PREDICT cut its cwnd from 19
# to 2. (A target from the flow's own train is the estimate's BDP, which a path
# of a few packets' BDP may have: not checked.)
PREDICT_WINDOW_EXIT = 6
PREDICT_FLOOR = 10  # include/predict_core.h's PREDICT_RETREAT_FLOOR
PREDICT_WINDOWS = ("predict_share", "predict_policer", "predict_retreat")


def predict_below_iw(records):
    """The first window a PREDICT record set below the initial window where
    the datapath floors it, as {what, value}, or None. records: the flow's
    exit records."""
    for e in records:
        for k in PREDICT_WINDOWS:
            v = e.get(k)
            if v and v < PREDICT_FLOOR:
                return {"what": f"record {e.get('reason')} {k}", "value": v}
        if not e.get("predict_policer_memory"):
            continue
        if (e.get("predict_target") or PREDICT_FLOOR) < PREDICT_FLOOR:
            return {"what": f"record {e.get('reason')} predict_target (a policer remembered)",
                    "value": e["predict_target"]}
        if e.get("reason") == "predict" and (e.get("cwnd") or 0) < PREDICT_FLOOR:
            return {"what": "record predict cwnd (a policer remembered)", "value": e.get("cwnd")}
    return None


# rtt_floor_us()'s sources: the least of the kernel's RTT samples (a record's
# delay_min, the kernel's min_rtt), and a smoothed RTT (tcp_probe's srtt)
RTT_LEAST, RTT_SMOOTHED = "least", "smoothed"


def rtt_floor_us(rtt_s, value_us, kind=RTT_LEAST):
    """The least RTT (us) a flow may measure on a path of configured RTT rtt_s,
    for a value_us of a source of that kind. Linux takes an RTT sample from
    the timestamp option when an ACK covers retransmitted data only, and its
    TSval counts milliseconds: such a sample is the difference of two floors,
    a whole number of milliseconds down to the RTT's own millisecond floor
    (11 ms on s2011's 11.3 ms path, 7 times in 10). So a least that is a whole
    number of milliseconds may read that floor; and a smoothed RTT, which a
    recovery's run of such samples draws towards it (tcp_probe's srtt read
    11148 us there, 2026-12-06), may read anything down to it."""
    floor = rtt_s * 1e6 - SHORT_RTT_SLACK_US
    if kind == RTT_SMOOTHED or value_us % 1000 == 0:
        floor = floor // 1000 * 1000
    return floor


def rtt_below_path(rtt_s, samples):
    """samples: (what, us, kind) triples, each the least RTT a source saw (us 0
    or None: none; kind as rtt_floor_us()'s). The first below the path's
    floor, as {what, us, floor_us}, or None."""
    for what, us, kind in samples:
        floor = rtt_floor_us(rtt_s, us, kind) if us else 0
        if us and us < floor:
            return {"what": what, "us": us, "floor_us": int(floor)}
    return None


def stall_text(ps):
    """What a path_stall record says, in a few words."""
    if ps.get("kind") == "step_late":
        return (f"the first data left {ps['late_us'] / 1e3:.2f} ms later than one RTT after the SYN-ACK "
                f"that started the RTT step's clock (within {ps['limit_us'] / 1e3:.2f} ms on a faithful host): "
                f"the step came that much early into the flow")
    if ps.get("kind") == "emulator_late":
        return (f"the emulator's delay line released 1 % of the flow's packets more than "
                f"{ps['p99_us'] / 1e3:.2f} ms late (at most {ps['max_us'] / 1e3:.2f} ms; "
                f"faithful: {ps['limit_us'] / 1e3:.2f} ms)")
    if ps.get("kind") == "ack_gap":
        return (f"no ACK for {ps['gap_us'] / 1e3:.2f} ms in slow start (at {ps['at_s']:.3f} s, cwnd {ps['cwnd']}), "
                f"then {ps['burst_acks']} ACKs within {ps['burst_us'] / 1e3:.2f} ms for what the bottleneck took "
                f"{ps['deliver_us'] / 1e3:.2f} ms to deliver (slack {ps['slack_us'] / 1e3:.2f} ms)")
    return (f"a delay exit at cwnd {ps['cwnd']} on an RTT {ps['rise_us'] / 1e3:.2f} ms above delay_min "
            f"({ps['seen']}), where {ps['queue_pkts']} packets queue in {ps['queue_max_us'] / 1e3:.2f} ms "
            f"(slack {ps['slack_us'] / 1e3:.2f} ms)")


def set_candidate(aid):
    global CAND
    CAND = aid


def r(x, nd=3):
    return None if x is None else round(x, nd)


# Scenario classes (run.sh's table; each flow record carries its own): the
# slow-start goal is stated on the clean paths.
CLEAN, STRESS = "clean", "stress"


def app_phase(spec):
    """app=F:T -> (fraction of the payload rate, seconds), or (None, 0)."""
    return parse.parse_app(spec) if spec else (None, 0.0)


def rtt_schedule(rtt, step):
    """The RTT (s) at time t after the first data segment, for a path whose
    RTT steps (pathemu --rtt-step AFTER:RTT2[:RAMP], timed from the SYN-ACK,
    which flowgen.py's data follows by one RTT), and the step's time."""
    if not step:
        return (lambda t: rtt), None
    after_us, rtt2_us, ramp_us = path.rtt_step(step)
    at, rtt2, ramp = after_us / 1e6 - rtt, rtt2_us / 1e6, ramp_us / 1e6

    def at_t(t):
        if t < at:
            return rtt
        if ramp and t < at + ramp:
            return rtt + (rtt2 - rtt) * (t - at) / ramp
        return rtt2
    return at_t, at


def ideal_time(bdp, rtt, app_s=0.0, step=None):
    """The reference time to the ideal exit: ceil(log2(BDP/10)) rounds from an
    initial window of 10, +1 RTT to the first ACK; each round lasts the RTT
    of its time (an RTT step); after an application-limited phase, that
    phase's length on top (an upper bound: cwnd already grew in it)."""
    if not bdp:
        return None
    at_t, _ = rtt_schedule(rtt, step)
    t = 0.0
    for _ in range(math.ceil(math.log2(max(bdp, 10) / 10)) + 1):
        t += at_t(t)
    return app_s + t


def flow(a):
    rate = parse.parse_rate(a.rate)
    rtt = parse.parse_time(a.rtt)
    payload_bps = rate * MSS / IP_PKT
    app_frac, app_s = app_phase(a.app)
    at_t, step_at = rtt_schedule(rtt, a.rtt_step)
    rtt_max = max(rtt, at_t(1e9))
    rec = {"scenario": a.scenario, "algorithm": a.algorithm, "kind": a.kind, "arg": a.arg,
           "tunables": a.tunables or None,
           "rep": a.rep, "rate_mbit": rate / 1e6, "rtt_ms": r(rtt * 1e3, 2), "jitter": a.jitter or None, "buffer": a.buffer,
           "buffer_pkts": a.buffer_pkts, "bdp_pkts": a.bdp_pkts, "duration_s": a.duration,
           # the scenario's class, and what makes it a stress one
           "class": a.cls, "clean": a.cls == CLEAN, "app": a.app or None, "app_frac": app_frac,
           "app_s": app_s or None, "rtt_step": a.rtt_step or None, "rtt_step_at_s": r(step_at),
           "rtt_final_ms": r(at_t(1e9) * 1e3, 2) if a.rtt_step else None, "sender": a.sender,
           # a real path's options (agg=, police=, trace=, cross=); bdp_pkts is then the
           # policed rate's, the fair share's, or a trace link's over the first second
           # from trace_phase_ms, where the flow's connection started the trace
           "real": a.real or None, "trace_phase_ms": a.trace_phase}
    try:
        with open(a.iperf) as f:
            ip = json.load(f)
    except (OSError, ValueError):
        ip = {}
    sport = None
    try:
        sport = ip["start"]["connected"][0]["local_port"]
    except (KeyError, IndexError, TypeError):
        pass
    rec["iperf_error"] = ip.get("error")
    probes = parse.read_probe(a.probe, a.port)
    if sport is None or sport not in probes:
        # fall back to the socket with most samples (the control connection has few)
        sport = max(probes, key=lambda k: len(probes[k])) if probes else None
    s = probes.get(sport, [])
    rec["sport"] = sport
    rec["probe_samples"] = len(s)

    # ---- exit from tcp_probe: first sample whose ssthresh is no longer infinite
    # (a sample shows the state the previous ACK left)
    exit_cwnd = exit_t = exit_srtt = None
    t0 = (s[0][0] - rtt) if s else None  # the first ACK comes one RTT after the first data
    last_ss_cwnd = peak = None
    how = None
    anomalies = 0
    target_t = target = None
    exit_k = None
    for k, (t, una, cwnd, ssth, swnd, srtt, _nxt) in enumerate(s):
        if ssth >= INF_SSTHRESH:
            # a value above TCP_INFINITE_SSTHRESH is impossible: the flow fails below
            anomalies += ssth > INF_SSTHRESH
            last_ss_cwnd = cwnd
            peak = cwnd if peak is None else max(peak, cwnd)
            continue
        if cwnd < ssth and ssth > (last_ss_cwnd or 0) and (target is None or ssth == target):
            # ssthresh set above cwnd, which slow start then grows to (RFC 5681):
            # a target (PREDICT's), not an exit; slow start ends when cwnd gets there
            if target is None:
                target, target_t = ssth, t - t0
            last_ss_cwnd = cwnd
            peak = cwnd if peak is None else max(peak, cwnd)
            continue
        exit_k = k
        exit_t, exit_srtt = t - t0, srtt
        if last_ss_cwnd is None or ssth >= last_ss_cwnd:
            exit_cwnd, how = ssth, "ssthresh"   # HyStart: ssthresh = cwnd at the exit
        elif cwnd == ssth:
            # a detector that first drained cwnd in slow start (ssthresh still
            # infinite, cwnd falling: SEARCH's rollback) and then set ssthresh
            # = cwnd; a loss leaves cwnd above ssthresh = beta x cwnd
            exit_cwnd, how = ssth, "ssthresh_drained"
        else:
            exit_cwnd, how = last_ss_cwnd, "cwnd_before"  # loss: ssthresh = beta x cwnd
        break
    rec["probe_ssthresh_above_inf"] = anomalies
    # a slow start towards a target set in it: when and what (tcp_probe)
    rec["probe_target"] = target
    rec["probe_target_s"] = r(target_t)
    # ---- was a segment sent in slow start lost? The first loss response
    # after the exit (ssthresh leaves its exit value: only a reduction moves
    # it in congestion avoidance) has snd_una at the first hole; that hole
    # was sent in slow start if it lies below snd_nxt at the exit. A loss
    # exit is such a loss by definition.
    ss_lost = None
    if exit_k is not None:
        ex = s[exit_k]
        if how == "cwnd_before":
            ss_lost = True
        else:
            ss_lost = False
            for x in s[exit_k + 1:]:
                if x.ssthresh != ex.ssthresh:
                    ss_lost = ((ex.snd_nxt - x.snd_una) & 0xffffffff) < 0x80000000 and x.snd_una != ex.snd_nxt
                    break
    rec["ss_lost"] = ss_lost
    first_ssthresh = ssth if exit_t is not None else None
    rec["probe_first_ssthresh"] = first_ssthresh
    # ---- impossible samples, on every socket of the flow (data and control)
    bound = cwnd_bound(a.bdp_pkts, a.buffer_pkts)
    bad = []
    for sp in sorted(probes):
        for (t, una, cwnd, ssth, *_rest) in probes[sp]:
            why = impossible(cwnd, ssth, bound)
            if why:
                bad.append((t, sp, why))
    bad.sort()
    rec["cwnd_bound"] = bound
    rec["impossible_samples"] = len(bad)
    rec["impossible_first"] = ({"t_s": r(bad[0][0] - t0) if t0 is not None else None, "sport": bad[0][1],
                                "what": bad[0][2]} if bad else None)
    rec["exit_observed"] = exit_t is not None
    rec["exit_cwnd"] = exit_cwnd
    rec["exit_cwnd_from"] = how
    rec["exit_time_s"] = r(exit_t)
    rec["exit_cwnd_bdp"] = r(exit_cwnd / a.bdp_pkts) if exit_cwnd and a.bdp_pkts else None
    # the last slow-start cwnd (the name is older than SEARCH's rollback) and
    # the largest: they differ when cwnd fell before ssthresh was set
    rec["max_ss_cwnd"] = last_ss_cwnd
    rec["peak_cwnd"] = peak
    rec["peak_cwnd_bdp"] = r(peak / a.bdp_pkts) if peak and a.bdp_pkts else None
    rec["exit_srtt_ms"] = r(exit_srtt / 1e3, 2) if exit_srtt else None
    # when the smoothed RTT first showed a step half-way up (the step's own check)
    rec["srtt_rise_s"] = None
    if a.rtt_step and s:
        half = (rtt + at_t(1e9)) / 2 * 1e6
        rec["srtt_rise_s"] = next((r(t - t0) for (t, _u, _c, _s, _w, srtt, _n) in s if srtt >= half), None)

    # ---- reason: nstat HyStart counters (kernel) or the bpf_cubic trace record
    tb = [int(x) for x in a.nstat_before.split()]
    ta = [int(x) for x in a.nstat_after.split()]
    rec["nstat_train"] = ta[0] - tb[0]
    rec["nstat_delay"] = ta[1] - tb[1]
    rec["bpf_reason"] = rec["bpf_cwnd"] = rec["bpf_since_start_s"] = None
    rec["paced"] = rec["rwnd_limited"] = None
    bpf_recs = []
    verdicts = []
    policers = []
    if a.kind == "bpf" and os.path.exists(a.bpf_trace):
        with open(a.bpf_trace) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                # the exit records; a verdict record is the measurement after one
                if e.get("sport") == sport and e.get("record", "exit") == "exit":
                    bpf_recs.append(e)
                elif e.get("sport") == sport and e.get("record") == "verdict":
                    verdicts.append(e)
                elif e.get("sport") == sport and e.get("record") == "policer":
                    policers.append(e)
    if bpf_recs:
        # the record that ended slow start (a reason whose ends_slow_start is set);
        # HyStart++'s css_enter/css_resume only change phase
        exits = [x for x in bpf_recs if V.exit_of(x)]
        enters = [x for x in bpf_recs if x.get(V.check("css_enter"))]
        rec["bpf_css_enter_cwnd"] = enters[0].get("cwnd") if enters else None
        rec["bpf_css_enter_s"] = r(enters[0].get("since_start_us", 0) / 1e6) if enters else None
        rec["bpf_css_resumes"] = sum(1 for x in bpf_recs if x.get(V.check("css_resume")))
        e = exits[0] if exits else bpf_recs[0]
        rec["bpf_reason"] = V.exit_of(e) or e.get("reason")
        rec["bpf_cwnd"] = e.get("cwnd")
        rec["bpf_since_start_s"] = r(e.get("since_start_us", 0) / 1e6)
        rec["paced"] = e.get("paced")
        rec["rwnd_limited"] = e.get("rwnd_limited")
        for k in ("delay_min_us", "round_min_rtt_us", "train_len_us", "train_thresh_us", "delay_thresh_us",
                  "rounds", "samples", "pacing_rate"):
            rec["bpf_" + k] = e.get(k)
        # a rule's own fields (SEARCH's search_*), whatever they are, at the
        # top level; and the whole record, so that nothing is lost
        for k in sorted(e):
            if k.startswith(("search_", "predict_")):
                rec["bpf_" + k] = e[k]
        rec["bpf_exit_record"] = e
        # the verdict on that exit (joined by flow_id and exit time; issue 21: a
        # flow that exits again has a verdict for each exit), if the trace had it
        v = next((x for x in verdicts if x.get("flow_id") == e.get("flow_id")
                  and x.get("exit_time") == e.get("time")), None)
        if v:
            for k in ("verdict", "exit_ratio", "bound", "bdp_est", "min_rtt_us", "cong_cwnd", "end"):
                rec["verdict_" + k] = v.get(k)
            # and the whole record (its best sample, rounds, samples): what a
            # wrong bdp_est is diagnosed from
            rec["verdict_record"] = v
    rec["bpf_records"] = len(bpf_recs)
    # PREDICT's policer answer: what each recovery it began measured and remembered
    rec["bpf_policer_records"] = policers
    # ---- the least RTT each source saw, against the path's (SHORT_RTT_EXIT)
    rtt_seen = [("tcp_probe srtt", min((x[5] for x in s if x[5] > 0), default=None), RTT_SMOOTHED)]
    rtt_seen += [(f"record {e.get('reason')} {k}", e.get(k), RTT_LEAST) for e in bpf_recs
                 for k in ("delay_min_us", "round_min_rtt_us")]
    rtt_seen += [("verdict min_rtt_us", v.get("min_rtt_us"), RTT_LEAST) for v in verdicts]
    rec["rtt_below_path"] = rtt_below_path(rtt, rtt_seen)
    rec["predict_below_iw"] = predict_below_iw(bpf_recs)
    if a.kind == "bpf":
        reason = rec["bpf_reason"] or (vocab.LOSS if exit_t is not None else vocab.NO_EXIT)
    elif exit_t is None:
        reason = vocab.NO_EXIT
    elif how == "cwnd_before":
        # tcp_probe shows the loss response first (ssthresh = beta x cwnd). A detector that nstat
        # counted fired later, in the recovery: PRR takes cwnd below the new ssthresh, a loss does
        # not set HyStart's found, so slow start's tests run on (bpf_cubic's records show it:
        # loss at cwnd 256, then ack_train at cwnd 165 35 ms later on s2011_q25).
        reason = vocab.LOSS
    else:
        # the kernel's two HyStart counters, named as our reasons
        reason = (V.check("ack_train") if rec["nstat_train"] > 0 else
                  V.check("delay") if rec["nstat_delay"] > 0 else vocab.LOSS)
    rec["exit_reason"] = reason
    # cross-check: a detector's exit sets ssthresh = cwnd; a loss sets beta x cwnd
    hyst = reason in V.detector_exits
    rec["crosscheck_ok"] = (exit_t is None and reason == vocab.NO_EXIT) or (
        exit_t is not None and hyst == (how in ("ssthresh", "ssthresh_drained")))
    # (the bpf record is written on the ACK that sets ssthresh, after any
    # rollback: its cwnd is the probe's exit cwnd, not the peak)
    if a.kind == "bpf" and bpf_recs and exit_cwnd:
        rec["crosscheck_ok"] = rec["crosscheck_ok"] and abs(rec["bpf_cwnd"] - exit_cwnd) <= max(2, 0.02 * exit_cwnd) \
            if hyst else rec["crosscheck_ok"]
    # A detector and a loss on one ACK: .pkts_acked's HyStart set ssthresh =
    # cwnd, then the same ACK began a recovery and .ssthresh made it beta x
    # that cwnd, so tcp_probe's next sample shows only the loss response
    # (r100_5_2 bpf_nuss: ack_train at 256, probe ssthresh 179 = 256 x
    # 717/1024). For bpf_cubic the record proves it: its cwnd is the last
    # slow-start cwnd and the probe's ssthresh is exactly its reduction (beta
    # 717, every preset's). The exit cwnd is that cwnd either way.
    rec["exit_same_ack_loss"] = bool(
        a.kind == "bpf" and hyst and how == "cwnd_before" and rec["bpf_cwnd"] == exit_cwnd
        and first_ssthresh == max(2, exit_cwnd * 717 // 1024))
    if rec["exit_same_ack_loss"]:
        rec["crosscheck_ok"] = True
    # ---- a delay exit the path cannot explain: the host stalled (run.sh runs it again)
    rec["emu_release_p99_us"], rec["emu_release_max_us"] = a.emu_p99_us, a.emu_max_us
    late_stall, rec["step_start_late_us"] = step_late(a, ip, rtt)
    rec["path_stall"] = (path_stall(a, rec, reason, exit_cwnd, rate, rtt) or ack_stall(a, s, exit_k, rate)
                         or emu_late(a) or late_stall)
    rec["stall_retries"] = a.stall_retries

    # ---- iperf3 intervals: retransmissions (TCP_INFO total_retrans deltas)
    ivs = ip.get("intervals", []) if isinstance(ip.get("intervals"), list) else []
    rec["retrans_total"] = (ip.get("end", {}).get("sum_sent", {}) or {}).get("retransmits")
    ss_end = (exit_t if exit_t is not None else a.duration) + 2 * rtt_max
    rec["ss_retrans"] = sum(iv["sum"].get("retransmits", 0) or 0 for iv in ivs if iv["sum"]["start"] < ss_end) if ivs else None
    rec["tbf_drops"] = a.tbf_after - a.tbf_before
    # ---- the slow start's cost to the whole path: with competing flows
    # (cross=), what they retransmitted from the flow's first data to exit +
    # 2 RTTs (run.sh's cross_retrans markers, every 100 ms), with the flow's
    # own; the bottleneck's drop counter runs for the whole flow and then
    # mostly counts the competitors' own sawtooth
    cross = socks = None
    if "cross=" in (a.real or "") and t0 is not None:
        cross = parse.mark_delta(parse.read_marks(a.probe, "cross_retrans"), t0, t0 + ss_end)
        # the competing flows' sockets it saw (control and data connections):
        # none is a poll that measured nothing, not a slow start that cost nothing
        socks = min((v for _, v in parse.read_marks(a.probe, "cross_sockets")), default=None)
    rec["ss_cross_retrans"] = cross
    rec["ss_cross_sockets"] = socks
    rec["ss_path_retrans"] = (rec["ss_retrans"] + (cross or 0)
                              if rec["ss_retrans"] is not None and (cross is not None or "cross=" not in (a.real or ""))
                              else None)
    rec["goodput_recv_mbit"] = r((ip.get("end", {}).get("sum_received", {}) or {}).get("bits_per_second", 0) / 1e6, 2) if ip.get("end") else None

    # ---- delivery from snd_una: time to 90 % of the payload rate, goodput of the first G s
    G = min(4.0, a.duration - 1.0)
    rec["goodput_window_s"] = G
    t90 = gp = None
    if s:
        ts, acked = [], []
        base = s[0][1]
        tot = 0
        prev = base
        for (t, una, *_rest) in s:
            tot += (una - prev) & 0xffffffff
            prev = una
            ts.append(t - t0)
            acked.append(tot)
        W = max(0.1, rtt_max)
        j = 0
        for i in range(len(ts)):
            while j < i and ts[j] < ts[i] - W:
                j += 1
            jj = max(j - 1, 0)
            dt = ts[i] - ts[jj]
            if dt >= 0.8 * W and (acked[i] - acked[jj]) * 8 / dt >= 0.9 * payload_bps:
                t90 = ts[i]
                break
        # goodput over [first ACK, t0 + G]
        k = max((i for i in range(len(ts)) if ts[i] <= G), default=None)
        if k is not None and ts[k] > ts[0]:
            gp = acked[k] * 8 / G / 1e6
    rec["t90_s"] = r(t90)
    rec["goodput_mbit"] = r(gp, 2)
    rec["goodput_frac"] = r(gp * 1e6 / payload_bps) if gp else None
    rec["ideal_t_s"] = r(ideal_time(a.bdp_pkts, rtt, app_s, a.rtt_step))

    # ---- cwnd series: last sample of each 2 ms bucket around slow start (up to
    # max(0.3 s, 2 x exit time + 4 RTT), at most 2 s), of each 50 ms bucket after
    if a.cwnd_csv and s:
        fine_end = min(2.0, max(0.3, 2 * (exit_t or 0) + 4 * rtt))
        rows = {}
        for (t, una, cwnd, ssth, *_rest) in s:
            tt = t - t0
            b = round(int(tt / 0.002) * 0.002, 3) if tt < fine_end else round(int(tt / 0.05) * 0.05, 3)
            rows[b] = (cwnd, int(ssth != INF_SSTHRESH))
        with open(a.cwnd_csv, "a") as f:
            w = csv.writer(f)
            for b in sorted(rows):
                w.writerow([a.scenario, a.algorithm, a.rep, b, rows[b][0], rows[b][1]])
    print(json.dumps(rec))
    if not bad:
        # a line for run.sh's log
        v = {k: (x if isinstance(x, str) else json.dumps(x)) for k, x in rec.items()}
        # t90: when the flow first held 90 % of the rate; never, within its run
        t90 = "never" if rec["t90_s"] is None else f"{v['t90_s']}s"
        print(f"  {v['scenario']} {v['algorithm']} rep {v['rep']}: exit {v['exit_reason']} cwnd {v['exit_cwnd']} "
              f"({v['exit_cwnd_bdp']} BDP) at {v['exit_time_s']}s, ss retx {v['ss_retrans']}, t90 {t90}, "
              f"goodput {v['goodput_mbit']} Mbit/s", file=sys.stderr)
    if rec["path_stall"] and not bad:
        print(f"analyze.py: PATH STALLED: {a.scenario} {a.algorithm} rep {a.rep}: {stall_text(rec['path_stall'])}: "
              "the host or the emulator stalled, not the path", file=sys.stderr)
        if a.stall_exit:
            sys.exit(STALL_EXIT)
    short = rec["rtt_below_path"]
    if short and not bad:
        print(f"analyze.py: RTT BELOW THE PATH'S: {a.scenario} {a.algorithm} rep {a.rep} (sport {sport}): "
              f"{short['what']} {short['us']} us, where the path's {r(rtt * 1e3, 3)} ms allows "
              f"{short['floor_us']} us at least: the emulator's base RTT (pathemu) or the datapath is wrong",
              file=sys.stderr)
        sys.exit(SHORT_RTT_EXIT)
    low = rec["predict_below_iw"]
    if low and not bad:
        print(f"analyze.py: PREDICT BELOW THE INITIAL WINDOW: {a.scenario} {a.algorithm} rep {a.rep} "
              f"(sport {sport}): {low['what']} {low['value']}, below the floor of {PREDICT_FLOOR} packets "
              "every PREDICT window has: a datapath fault", file=sys.stderr)
        sys.exit(PREDICT_WINDOW_EXIT)
    if bad:
        f0 = rec["impossible_first"]
        print(f"analyze.py: IMPOSSIBLE WINDOW: {a.scenario} {a.algorithm} rep {a.rep} (sport {f0['sport']}): "
              f"{f0['what']} at t={f0['t_s']} s (trace time {bad[0][0]:.6f}); {len(bad)} impossible "
              f"samples in this flow (docs/IMPOSSIBLE_WINDOWS.md)", file=sys.stderr)
        sys.exit(IMPOSSIBLE_EXIT)


# ====================================================================== report

def load(d):
    flows = []
    with open(os.path.join(d, "flows.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line:
                flows.append(json.loads(line))
    return flows


def majority(reasons):
    c = collections.Counter(reasons)
    if not c:
        return "-", c
    top = c.most_common()
    if len(top) > 1 and top[0][1] == top[1][1]:
        return "tie(" + "/".join(sorted(k for k, v in top if v == top[0][1])) + ")", c
    return top[0][0], c


def reasons_str(c):
    return " ".join(f"{V.abbrev(k)}{v}" for k, v in sorted(c.items()))


def group(flows):
    g = collections.OrderedDict()
    for fl in flows:
        g.setdefault(fl["scenario"], collections.OrderedDict()).setdefault(fl["algorithm"], []).append(fl)
    return g


def rtt_desc(fl):
    j = fl.get("jitter")
    out = f"{fl['rtt_ms']:g} ms" + (f" + up to {j} jitter" if j else "")
    if fl.get("rtt_step"):
        _, _, ramp_us = path.rtt_step(fl["rtt_step"])
        out += (f", {'ramping' if ramp_us else 'stepping'} to {fl['rtt_final_ms']:g} ms at "
                f"{fl['rtt_step_at_s']:g} s" + (f" over {ramp_us / 1e3:g} ms" if ramp_us else ""))
    return out


def app_desc(fl):
    return (f"application-limited start: {fl['app_frac']:.0%} of the rate for {fl['app_s']:g} s, then bulk"
            if fl.get("app") else "")


def scen_desc(fl):
    return (f"{fl['rate_mbit']:g} Mbit/s, {rtt_desc(fl)}, buffer {fl['buffer']} ({fl['buffer_pkts']} pkts), "
            f"BDP {fl['bdp_pkts']}" + (f", {app_desc(fl)}" if fl.get("app") else ""))


def fidelity(g):
    rows = []
    for sid, algs in g.items():
        if REF not in algs or CAND not in algs:
            continue
        a, b = algs[REF], algs[CAND]
        ca, cb = med(x["exit_cwnd"] for x in a), med(x["exit_cwnd"] for x in b)
        ga, gb = med(x["goodput_mbit"] for x in a), med(x["goodput_mbit"] for x in b)
        ma, _ = majority(x["exit_reason"] for x in a)
        mb, _ = majority(x["exit_reason"] for x in b)
        cr = cb / ca if ca and cb else None
        gr = gb / ga if ga and gb else None
        ok_c = cr is not None and abs(cr - 1) <= FID_CWND
        ok_g = gr is not None and abs(gr - 1) <= FID_GOODPUT
        ok_r = ma == mb
        # RTT noise makes every flow's exit a draw, for both implementations alike:
        # shown, but not a fidelity verdict (compare their spreads below)
        noisy = any(x.get("jitter") for x in a + b)
        rows.append(dict(scenario=sid, n_ref=len(a), n_cand=len(b), cwnd_ref=ca, cwnd_cand=cb, cwnd_ratio=cr,
                         gp_ref=ga, gp_cand=gb, gp_ratio=gr, reason_ref=ma, reason_cand=mb,
                         ok_cwnd=ok_c, ok_gp=ok_g, ok_reason=ok_r, noisy=noisy,
                         ok=None if noisy else (ok_c and ok_g and ok_r)))
    return rows


def fidelity_md(rows):
    out = ["| scenario | n | exit cwnd cubic | exit cwnd bpf linux | ratio | goodput cubic | goodput bpf linux | ratio | reason cubic | reason bpf linux | cwnd ±10% | goodput ±3% | reason | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        pf = lambda ok: "pass" if ok else "FAIL"
        out.append(f"| {x['scenario']} | {x['n_ref']}/{x['n_cand']} | {fmt(x['cwnd_ref'])} | {fmt(x['cwnd_cand'])} | {fmt(x['cwnd_ratio'], 3)} | "
                   f"{fmt(x['gp_ref'], 1)} | {fmt(x['gp_cand'], 1)} | {fmt(x['gp_ratio'], 3)} | {x['reason_ref']} | {x['reason_cand']} | "
                   f"{pf(x['ok_cwnd'])} | {pf(x['ok_gp'])} | {pf(x['ok_reason'])} | "
                   f"**{'n/a (RTT noise)' if x['noisy'] else 'pass' if x['ok'] else 'FAIL'}** |")
    return "\n".join(out)


def fidelity_text(rows):
    out = [f"{'scenario':<14} {'n':>5} {'cwnd cubic':>10} {'cwnd bpf':>9} {'ratio':>6} {'gp cubic':>9} {'gp bpf':>8} {'ratio':>6}  {'reason cubic/bpf':<22} verdict"]
    for x in rows:
        fails = [k for k, ok in (("cwnd", x["ok_cwnd"]), ("goodput", x["ok_gp"]), ("reason", x["ok_reason"])) if not ok]
        out.append(f"{x['scenario']:<14} {str(x['n_ref']) + '/' + str(x['n_cand']):>5} {fmt(x['cwnd_ref']):>10} {fmt(x['cwnd_cand']):>9} {fmt(x['cwnd_ratio'], 3):>6} "
                   f"{fmt(x['gp_ref'], 1):>9} {fmt(x['gp_cand'], 1):>8} {fmt(x['gp_ratio'], 3):>6}  {x['reason_ref'] + '/' + x['reason_cand']:<22} "
                   + ("n/a (RTT noise)" if x["noisy"] else "pass" if x["ok"] else "FAIL (" + ", ".join(fails) + ")"))
    return "\n".join(out)


def summary_md(g):
    out = ["| scenario | algorithm | n | exit cwnd median (range) | exit cwnd / BDP median (range) | reasons | exit time s | ss retx median (range) | drops (tbf) | t90 s median (range) | goodput Mbit/s median (range) | retx total |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for sid, algs in g.items():
        for aid, fl in algs.items():
            _, c = majority(x["exit_reason"] for x in fl)
            ec = [x["exit_cwnd"] for x in fl]
            eb = [x["exit_cwnd_bdp"] for x in fl]
            out.append(f"| {sid} | {aid} | {len(fl)} | {fmt(med(ec))} ({spread(ec)}) | {fmt(med(eb), 2)} ({spread(eb, 2)}) | {reasons_str(c)} | "
                       f"{fmt(med(x['exit_time_s'] for x in fl), 2)} | {fmt(med(x['ss_retrans'] for x in fl))} ({spread([x['ss_retrans'] for x in fl])}) | "
                       f"{fmt(med(x['tbf_drops'] for x in fl))} | {fmt(med(x['t90_s'] for x in fl), 2)} ({spread([x['t90_s'] for x in fl], 2)}) | "
                       f"{fmt(med(x['goodput_mbit'] for x in fl), 1)} ({spread([x['goodput_mbit'] for x in fl], 1)}) | {fmt(med(x['retrans_total'] for x in fl))} |")
    return "\n".join(out)


def scen_table(g):
    """The scenarios, their class, what stresses them, the algorithms and
    flow length each ran with (run.sh's table gives some only a subset)."""
    every = []
    for algs in g.values():
        every += [a for a in algs if a not in every]
    out = ["| scenario | class | rate | RTT | buffer | BDP pkts | buffer pkts | ideal exit cwnd | ideal time to exit "
           "| sender | algorithms | flow s |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for sid, algs in g.items():
        fl = next(iter(algs.values()))[0]
        ran = "all" if list(algs) == every else " ".join(algs)
        send = fl.get("sender") or "iperf3"
        # a trace link's BDP is of the stretch each repetition meets (trace_phase_ms)
        bdps = sorted({x["bdp_pkts"] for al in algs.values() for x in al})
        bdp = f"{bdps[0]}" if len(bdps) == 1 else f"{bdps[0]}-{bdps[-1]} (by repetition)"
        ideal = (f"{bdps[0]}-{bdps[0] + fl['buffer_pkts']}" if len(bdps) == 1
                 else f"BDP to BDP + {fl['buffer_pkts']}")
        out.append(f"| {sid} | {'clean' if is_clean(fl) else 'stress'} | {fl['rate_mbit']:g} Mbit/s | {rtt_desc(fl)} | "
                   f"{fl['buffer']} | {bdp} | {fl['buffer_pkts']} | "
                   f"{ideal} | {fmt(fl['ideal_t_s'], 2)} s | "
                   f"{send}{' (' + app_desc(fl) + ')' if fl.get('app') else ''} | {ran} | {fl['duration_s']} |")
    return "\n".join(out)


def plots(g, cwnd_csv, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = collections.defaultdict(lambda: ([], []))
    if os.path.exists(cwnd_csv):
        with open(cwnd_csv) as f:
            for row in csv.DictReader(f):
                k = (row["scenario"], row["algorithm"], int(row["rep"]))
                series[k][0].append(float(row["t_s"]))
                series[k][1].append(int(row["cwnd"]))
    algs_all = []
    for algs in g.values():
        for a in algs:
            if a not in algs_all:
                algs_all.append(a)
    colors = {a: plt.cm.tab10(i % 10) for i, a in enumerate(algs_all)}
    styles = {"cubic": "-", "bpf_linux": "--", "bpf_nuss": "-", "bpf_off": "-", "bpf_hspp": "-.", "reno": ":",
              "bpf_search": "--"}
    n = len(g)
    cols = 2 if n > 1 else 1
    rows = math.ceil(n / cols)
    for zoom in (False, True):
        cwnd_figure(plt, g, series, colors, styles, rows, cols, n, outdir, zoom)
    # (2) exit_cwnd/BDP per algorithm, one panel per scenario, ideal band shaded
    exit_figure(plt, g, colors, rows, cols, n, outdir)


def cwnd_figure(plt, g, series, colors, styles, rows, cols, n, outdir, zoom):
    """cwnd against time, repetition 1; zoom: the slow start only."""
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 3.3 * rows), squeeze=False)
    for ax, (sid, algs) in zip(axes.flat, g.items()):
        fl0 = next(iter(algs.values()))[0]
        bdp, buf = fl0["bdp_pkts"], fl0["buffer_pkts"]
        ymax = 0
        for aid in algs:
            reps = sorted(x["rep"] for x in algs[aid])
            k = (sid, aid, reps[0]) if reps else None
            if k not in series:
                continue
            t, c = series[k]
            ax.plot(t, c, styles.get(aid, "-"), color=colors[aid], lw=1.3, label=aid)
            ymax = max(ymax, max(c))
        ax.axhline(bdp, color="k", lw=0.8, ls="-.")
        ax.axhline(bdp + buf, color="grey", lw=0.8, ls="-.")
        ax.text(0.01, bdp, " BDP", va="bottom", fontsize=7, transform=ax.get_yaxis_transform())
        ax.text(0.01, bdp + buf, " BDP+buffer", va="bottom", fontsize=7, transform=ax.get_yaxis_transform())
        xmax = fl0["duration_s"]
        if zoom:
            ex = [x["exit_time_s"] for al in algs.values() for x in al if x["exit_time_s"] is not None]
            xmax = min(xmax, (max(ex) if ex else 1) * 1.5 + 4 * fl0["rtt_ms"] / 1e3)
            ymax = 0
            for aid in algs:
                reps = sorted(x["rep"] for x in algs[aid])
                k = (sid, aid, reps[0]) if reps else None
                if k in series:
                    ymax = max([ymax] + [c for t, c in zip(*series[k]) if t <= xmax])
        ax.set_ylim(0, max(ymax, bdp + buf) * 1.1)
        ax.set_xlim(0, xmax)
        ax.set_title(f"{sid}: {scen_desc(fl0)}", fontsize=8)
        ax.set_xlabel("time since first data (s)", fontsize=8)
        ax.set_ylabel("cwnd (packets)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper right")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle("cwnd against time (tcp:tcp_probe, repetition 1)" + (": slow start" if zoom else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "cwnd_slowstart.png" if zoom else "cwnd_time.png"), dpi=90)
    plt.close(fig)


def exit_figure(plt, g, colors, rows, cols, n, outdir):
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 3.0 * rows), squeeze=False)
    # one marker per reason that ends slow start, in the vocabulary's order
    marker = dict(zip(V.exits, itertools.cycle("osxD^P*h")))
    marker[vocab.NO_EXIT] = "v"
    for ax, (sid, algs) in zip(axes.flat, g.items()):
        fl0 = next(iter(algs.values()))[0]
        hi = 1 + fl0["buffer_pkts"] / fl0["bdp_pkts"]
        ax.axhspan(1, hi, color="tab:green", alpha=0.15, label="ideal [1, 1+buffer/BDP]")
        names = list(algs)
        for i, aid in enumerate(names):
            ys = [x["exit_cwnd_bdp"] for x in algs[aid] if x["exit_cwnd_bdp"] is not None]
            if ys:
                ax.boxplot([ys], positions=[i], widths=0.5, showfliers=False,
                           medianprops=dict(color=colors[aid]))
            for j, x in enumerate(algs[aid]):
                if x["exit_cwnd_bdp"] is None:
                    continue
                ax.scatter(i + (j - 1) * 0.08, x["exit_cwnd_bdp"], marker=marker.get(x["exit_reason"], "."),
                           color=colors[aid], s=22, zorder=3)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=7)
        ax.set_yscale("log")
        from matplotlib.ticker import FormatStrFormatter
        ax.yaxis.set_major_formatter(FormatStrFormatter("%.2g"))
        ax.yaxis.set_minor_formatter(FormatStrFormatter("%.2g"))
        ax.set_ylabel("exit cwnd / BDP (log)", fontsize=8)
        ax.set_title(f"{sid}: {scen_desc(fl0)}", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], marker=m, ls="", color="k", label=k) for k, m in marker.items()]
    handles.append(plt.Rectangle((0, 0), 1, 1, color="tab:green", alpha=0.15, label="ideal [1, 1+buffer/BDP]"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8)
    fig.suptitle("Slow-start exit cwnd / BDP (marker = exit reason)", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(os.path.join(outdir, "exit_cwnd_bdp.png"), dpi=90)
    plt.close(fig)


# ====================================================================== the ideal band

BELOW = 0.8       # an exit "far below" the BDP: cwnd < 0.8 x BDP
PREMATURE = 0.8   # the verdict's premature_ratio default (include/cubic_tunables.h)
DEV_TOL = 0.1     # "no worse than HyStart": median |exit/BDP - 1| at most this much above
HYSTART = "bpf_linux"
PEAK_DIFF = 0.02  # a peak cwnd shown when it is more than 2 % above the exit cwnd


def is_clean(x):
    """The flow's scenario is clean (records from before the class field:
    jitter was then the only stress)."""
    return x["clean"] if "clean" in x else not x.get("jitter")


def is_deep(x):
    return x["buffer_pkts"] >= x["bdp_pkts"]


def in_band(x):
    """The ideal exit: BDP <= exit cwnd <= BDP + buffer, and no segment sent
    in slow start lost (ss_lost, from tcp_probe; an unmeasured one is not
    "none"). ss_retrans, iperf3's count in the 0.1-s intervals that begin
    before exit + 2 RTTs, is reported beside it but is no test: on a 10-ms
    path its first interval holds ten RTTs of congestion avoidance too."""
    c = x.get("exit_cwnd")
    return (bool(x.get("exit_observed")) and c is not None and x.get("ss_lost") is False
            and x["bdp_pkts"] <= c <= x["bdp_pkts"] + x["buffer_pkts"])


def below(x):
    b = x.get("exit_cwnd_bdp")
    return b is not None and b < BELOW


def peak_bdp(x):
    return x.get("peak_cwnd_bdp", x.get("exit_cwnd_bdp"))


def final_rtt_s(x):
    return (x.get("rtt_final_ms") or x["rtt_ms"]) / 1e3


def miss(x):
    """(kind, detail) of a flow outside the band, from its exit reason, exit
    cwnd / BDP, slow-start retransmissions and peak cwnd."""
    if not x.get("exit_observed") or x.get("exit_cwnd") is None:
        return "no exit", f"no exit in {x['duration_s']} s"
    if x.get("ss_lost") is None:
        return "losses not measured", "no tcp_probe exit"
    b, reason, retx = x["exit_cwnd_bdp"], x["exit_reason"], x["ss_retrans"]
    hi = 1 + x["buffer_pkts"] / x["bdp_pkts"]
    pk = peak_bdp(x)
    fell = pk is not None and pk > b * (1 + PEAK_DIFF)  # cwnd fell in slow start (a rollback)
    if reason == vocab.LOSS:
        d = f"loss at {b:.2f} BDP" + (f" in a rollback from {pk:.2f}" if fell else "") + f", {retx} retx"
        return ("loss below the BDP" if b < 1 else "loss before detection"), d
    by = reason.replace("_", " ")
    if b < 1:
        kind = f"early exit by {by}"
    elif b > hi:
        kind = f"late exit by {by}"
    else:
        kind = f"exit by {by} in range, but a slow-start segment lost"
    detail = f"{b:.2f} BDP" + (f", peak {pk:.2f}" if fell else "") + (f", {retx} retx" if retx else "")
    if x.get("rtt_step") and x.get("rtt_step_at_s") is not None and x.get("exit_time_s") is not None:
        # the first ACK the changed delay holds back was due one RTT after the step
        seen = x["rtt_step_at_s"] + x["rtt_ms"] / 1e3
        detail += (f", {x['exit_time_s'] - seen:.2f} s after" if x["exit_time_s"] >= seen else
                   f", {seen - x['exit_time_s']:.2f} s before") + " the RTT change reached the sender"
    return kind, detail


def why_missed(fl):
    """One line: the kinds of miss among a (scenario, algorithm)'s flows
    outside the band, most common first, each with its flows' details."""
    out = collections.OrderedDict()
    for x in fl:
        if not in_band(x):
            k, d = miss(x)
            out.setdefault(k, []).append(d)
    parts = sorted(out.items(), key=lambda kv: -len(kv[1]))
    return "; ".join(f"{len(ds)}/{len(fl)} {k} ({', '.join(ds)})" for k, ds in parts)


def band_row(sid, aid, fl):
    f0 = fl[0]
    ex = [x["exit_cwnd_bdp"] for x in fl]
    pk = [peak_bdp(x) for x in fl]
    t = med(x["exit_time_s"] for x in fl)
    ideal = f0.get("ideal_t_s")
    n_in = sum(1 for x in fl if in_band(x))
    me, mp = med(ex), med(pk)
    return dict(scenario=sid, algorithm=aid, clean=is_clean(f0), deep=is_deep(f0), n=len(fl), n_in=n_in,
                majority=2 * n_in > len(fl), exit_bdp=me,
                peak_bdp=mp if mp is not None and me is not None and mp > me * (1 + PEAK_DIFF) else None,
                exit_t=t, ideal_t=ideal, t_ratio=t / ideal if t is not None and ideal else None,
                t_diff_rtts=(t - ideal) / final_rtt_s(f0) if t is not None and ideal else None,
                below=sum(1 for x in fl if below(x)), ssr=med(x["ss_retrans"] for x in fl),
                dev=med(abs(x["exit_cwnd_bdp"] - 1) for x in fl if x["exit_cwnd_bdp"] is not None),
                why=why_missed(fl) if n_in < len(fl) else "")


def band(g):
    """The ideal-band numbers: a row per (scenario, algorithm), and a summary
    per algorithm over the same runs."""
    rows = [band_row(sid, aid, fl) for sid, algs in g.items() for aid, fl in algs.items()]
    algs = []
    for x in rows:
        if x["algorithm"] not in algs:
            algs.append(x["algorithm"])
    flows = {(sid, aid): fl for sid, al in g.items() for aid, fl in al.items()}
    summ = []
    for aid in algs:
        mine = [x for x in rows if x["algorithm"] == aid]
        fl = [f for x in mine for f in flows[(x["scenario"], aid)]]
        clean = [x for x in mine if x["clean"]]
        deep = {x["scenario"]: x for x in clean if x["deep"]}
        summ.append(dict(algorithm=aid, clean_in=sum(x["majority"] for x in clean), clean_n=len(clean),
                         all_in=sum(x["majority"] for x in mine), all_n=len(mine),
                         flows_in=sum(1 for f in fl if in_band(f)), flows_n=len(fl),
                         below=sum(1 for f in fl if below(f)), deep=deep))
    ref = next((a for a in summ if a["algorithm"] == HYSTART), None)
    cmp = [deep_compare(a, ref, flows) for a in summ]
    for a, c in zip(summ, cmp):
        a.update(c)
        del a["deep"]
    return rows, summ


def deep_compare(a, ref, flows):
    """On the clean deep-buffer scenarios (buffer >= 1 BDP) both ran: in-band
    scenarios (majority) and the median |exit/BDP - 1| over their flows,
    against HyStart's (bpf_linux). No worse: at least as many scenarios in
    band, and a median deviation at most DEV_TOL above."""
    common = sorted(set(a["deep"]) & set(ref["deep"])) if ref else sorted(a["deep"])

    def dev(aid):
        return med(abs(f["exit_cwnd_bdp"] - 1) for s in common for f in flows[(s, aid)]
                   if f["exit_cwnd_bdp"] is not None)
    out = dict(deep_n=len(common), deep_in=sum(a["deep"][s]["majority"] for s in common),
               deep_dev=dev(a["algorithm"]), deep_scenarios=common)
    if not ref or not common:
        out.update(ref_in=None, ref_dev=None, no_worse=None)
        return out
    out["ref_in"] = sum(ref["deep"][s]["majority"] for s in common)
    out["ref_dev"] = dev(ref["algorithm"])
    out["no_worse"] = (out["deep_in"] >= out["ref_in"] and out["deep_dev"] is not None and out["ref_dev"] is not None
                       and out["deep_dev"] <= out["ref_dev"] + DEV_TOL)
    return out


def verdict(a):
    if a["algorithm"] == HYSTART:
        return "(the reference)"
    if a["no_worse"] is None:
        return "-"
    return ("no worse" if a["no_worse"] else "**worse**") + \
        f" ({a['deep_in']} vs {a['ref_in']} in band; {fmt(a['deep_dev'], 2)} vs {fmt(a['ref_dev'], 2)})"


def band_md(g):
    rows, summ = band(g)
    if not rows:
        return ""
    deep = next((a["deep_scenarios"] for a in summ if a["algorithm"] == HYSTART), None) or \
        sorted({x["scenario"] for x in rows if x["clean"] and x["deep"]})
    out = ["Ideal exit: BDP <= exit cwnd <= BDP + buffer **and** no segment sent in slow start lost "
           "(`ss_lost` false: the first loss response after the exit, in tcp_probe, has its first hole "
           "at or above snd_nxt at the exit; a loss exit is such a loss). The retransmission column is "
           "iperf3's count in the 0.1-s intervals that begin before exit + 2 RTTs (`ss_retrans`), "
           "which on short RTTs also holds congestion avoidance's losses; ideal time ceil(log2(BDP/10)) RTTs + 1 RTT to the first ACK (on an "
           "RTT-step path each round at the RTT of its time; after an application-limited start, that "
           "phase's length on top, an upper bound). Same runs as every other table. A scenario counts "
           "as in band for an algorithm when the **majority** of its repetitions are. *Clean* scenarios "
           "have a constant RTT, no jitter, no application limit and no RTT change (the class column "
           "of run.sh's table; each flow record carries it); the slow-start goal is stated on them.\n",
           "### Per algorithm\n",
           "| algorithm | clean scenarios in band | all scenarios in band | flows in band | flows below "
           f"{BELOW} BDP | deep-buffer clean scenarios in band | median abs(exit/BDP - 1), deep | "
           f"deep buffers: against HyStart ({HYSTART}) |",
           "|---|---|---|---|---|---|---|---|"]
    for a in summ:
        out.append(f"| {a['algorithm']} | {a['clean_in']}/{a['clean_n']} | {a['all_in']}/{a['all_n']} | "
                   f"{a['flows_in']}/{a['flows_n']} | {a['below']}/{a['flows_n']} | {a['deep_in']}/{a['deep_n']} | "
                   f"{fmt(a['deep_dev'], 2)} | {verdict(a)} |")
    out += ["",
            f"Deep-buffer clean scenarios (buffer >= 1 BDP): {', '.join(deep) or 'none in this run'}. "
            f"**No worse than HyStart** there means: at least as many of them in band as {HYSTART} and a "
            f"median abs(exit/BDP - 1) over their flows at most {DEV_TOL} above {HYSTART}'s (in parentheses: "
            "the algorithm's figures, then HyStart's). Scenario counts are of the scenarios each algorithm "
            "ran (run.sh gives the shallow-buffer and stress rows its core algorithms only).\n",
            "### Per scenario and algorithm\n",
            f"Medians over the repetitions. *peak/BDP*: the largest slow-start cwnd, shown where it is "
            f"more than {PEAK_DIFF:.0%} above the exit cwnd (a rule that rolled cwnd back before setting "
            "ssthresh). *exit time / ideal*: the ratio, and the difference in RTTs (the RTT after any step). "
            "*Why it missed* names, for the flows outside the band, the kind of miss (from the exit reason, "
            "exit cwnd / BDP, retransmissions and peak cwnd) and each flow's numbers.\n",
            "| scenario | class | BDP | buffer/BDP | algorithm | in band | exit/BDP | peak/BDP | exit time s / ideal "
            f"| ratio | diff RTTs | below {BELOW} BDP | ss retx | why it missed |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        f0 = g[x["scenario"]][x["algorithm"]][0]
        out.append(f"| {x['scenario']} | {'clean' if x['clean'] else 'stress'} | {f0['bdp_pkts']} | "
                   f"{f0['buffer_pkts'] / f0['bdp_pkts']:.2g} | {x['algorithm']} | "
                   f"{'**' if x['majority'] else ''}{x['n_in']}/{x['n']}{'**' if x['majority'] else ''} | "
                   f"{fmt(x['exit_bdp'], 2)} | {fmt(x['peak_bdp'], 2, missing='')} | "
                   f"{fmt(x['exit_t'], 3)} / {fmt(x['ideal_t'], 3)} | {fmt(x['t_ratio'], 2)} | "
                   f"{fmt(x['t_diff_rtts'], 1)} | {x['below']} | {fmt(x['ssr'])} | {x['why']} |")
    detail = search_detail(g)
    if detail:
        out += ["", detail]
    return "\n".join(out)


def band_word(x):
    """The ideal-band analysis in the verdict's words (issue 21): overshoot
    when slow start lost a segment or exited above BDP + buffer (or by loss),
    premature below PREMATURE x the configured BDP, ok otherwise; None where
    the analysis has no exit."""
    c, b = x.get("exit_cwnd"), x.get("exit_cwnd_bdp")
    if not x.get("exit_observed") or c is None or b is None:
        return None
    if x.get("exit_reason") == vocab.LOSS or x.get("ss_lost") or c > x["bdp_pkts"] + x["buffer_pkts"]:
        return "overshoot"
    return "premature" if b < PREMATURE else "ok"


def verdict_rows(g):
    """Per algorithm with verdicts: flows with one, agreement with band_word(),
    the bdp_est error on the flows whose bdp_est is a measurement (a
    congestion event with a queue behind it: the record's bound false), and
    apart from them those whose bdp_est is only a lower bound, per scenario."""
    per_alg, per_scen = collections.OrderedDict(), []
    for sid, algs in g.items():
        for aid, fl in algs.items():
            if fl[0]["kind"] != "bpf":
                continue
            errs = [x["verdict_bdp_est"] / x["bdp_pkts"] - 1 for x in fl
                    if x.get("verdict_bdp_est") and not x.get("verdict_bound")]
            berrs = [x["verdict_bdp_est"] / x["bdp_pkts"] - 1 for x in fl
                     if x.get("verdict_bdp_est") and x.get("verdict_bound")]
            a = per_alg.setdefault(aid, dict(algorithm=aid, flows=0, with_verdict=0, judged=0, agree=0,
                                             unknown=0, disagree=[]))
            for x in fl:
                a["flows"] += 1
                w = x.get("verdict_verdict")
                if w is None:
                    continue
                a["with_verdict"] += 1
                want = band_word(x)
                if w == "unknown" or want is None:
                    a["unknown"] += 1
                    continue
                a["judged"] += 1
                if w == want:
                    a["agree"] += 1
                else:
                    a["disagree"].append(f"{sid} rep {x['rep']}: {w} ({fmt(x.get('verdict_exit_ratio'), 2)} x "
                                         f"bdp_est {x.get('verdict_bdp_est')}), band {want} "
                                         f"({fmt(x.get('exit_cwnd_bdp'), 2)} BDP)")
            if errs or berrs:
                per_scen.append(dict(scenario=sid, algorithm=aid, bdp=fl[0]["bdp_pkts"],
                                     clean=is_clean(fl[0]), n=len(errs),
                                     med=med(errs) if errs else None,
                                     lo=min(errs) if errs else None, hi=max(errs) if errs else None,
                                     bound=len(berrs), bound_med=med(berrs) if berrs else None))
    return list(per_alg.values()), per_scen


def verdict_md(g):
    algs, scen = verdict_rows(g)
    if not any(a["with_verdict"] for a in algs):
        return ""
    out = ["## The exit verdict against the ideal band\n",
           "bpf_cubic's own verdict on each exit (`cubicctl trace`: the path measured after the exit, "
           "bdp_est = max delivery rate x min RTT, exit ratio = exit cwnd / bdp_est; docs/COMMANDS.md) "
           f"next to this analysis in the same words: *overshoot* (a slow-start segment lost, a loss exit, or "
           f"an exit above BDP + buffer), *premature* (below {PREMATURE} x the configured BDP), *ok*. "
           "A verdict of *unknown* (bdp_est only a lower bound and a ratio that proves nothing) "
           "is counted apart.\n",
           "| algorithm | flows | with a verdict | judged | agree | unknown |",
           "|---|---|---|---|---|---|"]
    for a in algs:
        pct = f" ({a['agree'] / a['judged']:.0%})" if a["judged"] else ""
        out.append(f"| {a['algorithm']} | {a['flows']} | {a['with_verdict']} | {a['judged']} | "
                   f"{a['agree']}{pct} | {a['unknown']} |")
    dis = [(a["algorithm"], d) for a in algs for d in a["disagree"]]
    if dis:
        out += ["", "Disagreements: " + "; ".join(f"{aid} {d}" for aid, d in dis) + "."]
    if scen:
        out += ["", "bdp_est against the configured BDP (the fair share or policed rate's on real paths): "
                "bdp_est / BDP - 1, median (min..max), over the flows whose bdp_est is a measurement (a "
                "congestion event with a queue behind it, measured to the end of the round after it). "
                "*bound*: the flows whose bdp_est the record calls a lower bound (no congestion event, or "
                "no queue standing through the round before it and its own: their least RTT under 17/16 of min_rtt), with "
                "their median error: never counted as a measurement.\n",
                "| scenario | class | BDP | algorithm | flows | error | bound | bound's error |",
                "|---|---|---|---|---|---|---|---|"]
        for x in scen:
            err = f"{x['med']:+.1%} ({x['lo']:+.1%}..{x['hi']:+.1%})" if x["n"] else "-"
            berr = f"{x['bound_med']:+.1%}" if x["bound"] else "-"
            out.append(f"| {x['scenario']} | {'clean' if x['clean'] else 'stress'} | {x['bdp']} | "
                       f"{x['algorithm']} | {x['n']} | {err} | {x['bound']} | {berr} |")
    return "\n".join(out)


def search_detail(g):
    """The rule's own state (the bpf record's search_* fields) at the exit of
    each flow that missed the band, for the algorithms whose records have it."""
    # (every bpf record has the fields; only a SEARCH-like rule fills them)
    missed = [x for algs in g.values() for fl in algs.values() for x in fl
              if not in_band(x) and any(v for k, v in x.items() if k.startswith("bpf_search_"))]
    if not missed:
        return ""
    keys = sorted({k for x in missed for k in x if k.startswith("bpf_search_")})
    out = ["SEARCH's state in its exit record (`cubicctl -j trace`), for the flows outside the band:\n",
           "| scenario | algorithm | rep | reason | exit/BDP | peak/BDP | ss retx | " + " | ".join(k[4:] for k in keys) + " |",
           "|---|---|---|---|---|---|---|" + "---|" * len(keys)]
    for x in missed:
        out.append(f"| {x['scenario']} | {x['algorithm']} | {x['rep']} | {x['exit_reason']} | {fmt(x['exit_cwnd_bdp'], 2)} | "
                   f"{fmt(peak_bdp(x), 2)} | {fmt(x['ss_retrans'])} | "
                   + " | ".join("-" if x.get(k) is None else str(x[k]) for k in keys) + " |")
    return "\n".join(out)


def search_story(g):
    """## SEARCH: where the draft's rule exits, from the bpf_search flows'
    records, and why (the arithmetic of its two windows in slow start)."""
    fl = [x for algs in g.values() for aid, xs in algs.items() if aid == "bpf_search" for x in xs]
    if not fl:
        return ""
    by = collections.Counter(x["exit_reason"] for x in fl)
    fired = [x for x in fl if x["exit_reason"] == "search" and x.get("bpf_search_cwnd_detect")]
    out = ["bpf_cubic preset `search`: SEARCH as draft-chung-ccwg-search-09 section 3.2 gives it "
           "(include/search_core.h; window 3.5 initial RTTs in 10 bins, THRESH 0.26, the drain "
           "toward the bytes delivered in the last initial RTT).\n",
           f"Exits of its {len(fl)} flows: " + ", ".join(f"{k} {v}" for k, v in by.most_common()) + ".\n"]
    if fired:
        rows = []
        for x in sorted(fired, key=lambda x: (x["buffer_pkts"] / x["bdp_pkts"], x["scenario"], x["rep"])):
            bdp = x["bdp_pkts"]
            rows.append(f"| {x['scenario']} | {x['rep']} | {x['buffer_pkts'] / bdp:.2g} | "
                        f"{x['bpf_search_cwnd_detect'] / bdp:.2f} | {fmt(x.get('bpf_search_target') and x['bpf_search_target'] / bdp, 2)} | "
                        f"{fmt(x['exit_cwnd_bdp'], 2)} | {x.get('bpf_search_norm_diff')} | {fmt(x['ss_retrans'])} |")
        out += ["Where SEARCH fired, cwnd at the detection and after the drain, in BDPs:\n",
                "| scenario | rep | buffer/BDP | cwnd at detection | target | exit cwnd | norm_diff (per mille) | ss retx |",
                "|---|---|---|---|---|---|---|---|"] + rows + [""]
    out += ["**Why the detection is late.** In slow start every ACK releases two segments, so once the "
            "bottleneck is reached the sender sends at twice the delivery rate C and the queue grows by "
            "C: the RTT of an ACK grows by half of each second that passes. SEARCH compares the bytes "
            "delivered over the last window with the bytes sent over a window ending one (current) RTT "
            "earlier; with the RTT growing, that earlier window moves forward at half speed, and the "
            "share of it sent after the bottleneck, at 2C, grows only slowly. With a window W of 3.5 "
            "initial RTTs the normalised difference reaches 0.26 once about 0.35 of the earlier window "
            "lies past the bottleneck: about RTT + 0.7 W = 3.5 RTTs after it, when the queue holds about "
            "3.5 BDP and cwnd about 4.5-5 BDP (the detections above). A buffer shallower than that "
            "overflows first, and slow start ends by loss, as reno's does. The drain's target, the bytes "
            "delivered in the last initial RTT, is then a good BDP estimate (C x the initial RTT): where "
            "SEARCH fires in time its exit cwnd lands near 1 BDP.\n",
            "**Why no rule that doubles cwnd per RTT unpaced can be in band on the shallowest "
            "buffers.** An unpaced slow-start round that grows cwnd from W to 2W sends its 2W segments "
            "at twice the bottleneck rate, as its W ACKs come back at that rate: the queue peaks near W "
            "segments. Reaching cwnd = BDP needs the round from BDP/2, whose queue peaks near BDP/2; "
            "below about 0.5 BDP of buffer that round drops segments whatever the exit rule decides "
            "later. Landing in the band there takes a rule that predicts the BDP before reaching it "
            "(from the dispersion of the ACKs of small bursts) and then paces up to it.\n"]
    return "\n".join(out)


def predict_story(g):
    """## PREDICT: where it exits, from the bpf_predict flows' records: the
    estimate against the path's payload rate, the train it came from, the
    target and the exit, and the flows where no estimate was believed."""
    fl = [x for algs in g.values() for aid, xs in algs.items() if aid.startswith("bpf_predict") for x in xs]
    if not fl:
        return ""
    by = collections.Counter(x["exit_reason"] for x in fl)
    def pv(x, k):
        """the exit record's predict_K (flows analysed before the field was lifted have it there only)"""
        v = x.get("bpf_predict_" + k)
        return v if v is not None else (x.get("bpf_exit_record") or {}).get("predict_" + k)

    def aside(x):
        """why an estimate believed set no target: a busy path remembered, a queue that rose"""
        return " (busy)" if pv(x, "busy") else " (rose)" if pv(x, "rose") else ""

    rows, errs, fails = [], [], []
    for x in sorted(fl, key=lambda x: (x["buffer_pkts"] / x["bdp_pkts"], x["rtt_ms"], x["scenario"], x["rep"])):
        bdp = x["bdp_pkts"]
        pay = x["rate_mbit"] * 1e6 / 8 * MSS / IP_PKT
        est = pv(x, "rate")
        tgt = pv(x, "target")
        ok = bool(tgt)
        if ok:
            errs.append(est / pay - 1)
        else:
            fails.append(x)
        rows.append(f"| {x['scenario']} | {x['rep']} | {x['buffer_pkts'] / bdp:.2g} | "
                    f"{fmt(est and est / pay, 3)}{' (lower)' if pv(x, 'disagreed') else ''} | "
                    f"{fmt(pv(x, 'mean_rate') and pv(x, 'mean_rate') / pay, 3)} | "
                    f"{fmt(pv(x, 'train_acks'))} | {fmt(pv(x, 'train_us'))} | "
                    f"{fmt(pv(x, 'train_line') and pv(x, 'train_line') / 1000, 3)} | {fmt(pv(x, 'train_gaps'))} | "
                    f"{fmt(tgt and tgt / bdp, 2) if ok else 'none' + aside(x)} | {x['exit_reason']} | {fmt(x['exit_cwnd_bdp'], 2)} | "
                    f"{'yes' if x.get('ss_lost') else 'no' if x.get('ss_lost') is False else '-'} | "
                    f"{'yes' if in_band(x) else 'no'} |")
    n = len(errs)
    within = lambda e: sum(1 for v in errs if abs(v) <= e)
    out = ["bpf_cubic preset `predict` (include/predict_core.h): the bottleneck rate from the least-squares "
           "fit of the first unpaced round's ACK train long enough to judge (`predict_min_train_us`, 1 ms; "
           "its leading token-bucket burst trimmed, ACKs that come in a bunch one point; `train gaps`: long ACK gaps "
           "it went on across, ACKs aggregated in bunches measured across them), the target "
           "rate x delay_min x 1.03, then slow start up to it, paced by the kernel from the ACK on which "
           "the measured round's train became long enough, and capped at the estimate during the fill. A "
           "round whose train stays shorter does not count (the next one, twice as long, is measured); a "
           "train whose fit and mean rate disagree by 10-20 % is believed at the lower of the two "
           "(*(lower)* in the table: `predict_disagreed`); one whose fit and mean disagree by more, or "
           "whose slope its points give to "
           "worse than 5 % (standard error from r^2 and their number: ACKs scattered by jitter), is not "
           "believed; after 3 counted "
           "rounds without an estimate, or when HyStart's own detectors fire first, Linux HyStart decides "
           "(on the flow unpaced again). Preset `predict-jump` (bpf_predictj) adds the jump to half the "
           "target and its share check (docs/RULES.md). A target *none (busy)* or *none (rose)*: an estimate "
           "believed and set aside, for a busy path remembered or a delay_min that rose above the handshake's "
           "RTT (`predict_rise_us`; docs/RULES.md), and HyStart decided.\n",
           f"Exits of its {len(fl)} flows: " + ", ".join(f"{k} {v}" for k, v in by.most_common()) + ".\n",
           f"Estimates believed: {n} of {len(fl)}; against the payload rate (rate x 1448/1500): "
           f"within 3 %: {within(0.03)}, within 5 %: {within(0.05)}, within 10 %: {within(0.10)}"
           + (f"; median error {med(errs) * 100:+.1f} %, range {min(errs) * 100:+.1f} % to {max(errs) * 100:+.1f} %" if errs else "")
           + ".\n",
           "| scenario | rep | buffer/BDP | estimate / rate | train mean / rate | train ACKs | train us | train r^2 | train gaps | target/BDP | exit | exit/BDP | slow-start segment lost | in band |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + [""]
    if fails:
        out.append(f"**No estimate** on {len(fails)} flows: their trains' fit and mean rate (the table's "
                   "two rate columns) disagreed by more than 20 %, its points were too scattered to give the slope to 10 % (r^2), or the train was too short. The emulator's ACK path releases "
                   "each ACK from a timer (tools/emu/README.md: release error p50 30-60 us, p99 up to a few "
                   "hundred); at 100 Mbit/s the initial window's ACKs are 120 us apart, so one late timer "
                   "bunches two or three of them. At 200 Mbit/s (s2011) the initial window's train lasts "
                   "50-110 us and the sender gets its ACKs in bunches of 3-7 (tools/emu/README.md): PREDICT "
                   "waits for a round whose train lasts 1 ms (round 4 there), and where HyStart's ACK train "
                   "fires first (at about 1.4 x the BDP) HyStart decides.\n")
    return "\n".join(out)


# The real-path classes of issue 20 (a scenario's class from its pathemu
# option, the flow record's "real"), in the order the document gives them.
REAL_CLASSES = (("agg=", "ACK aggregation"), ("police=", "policer"),
                ("cross=1:", "1 competing flow"), ("cross=4:", "4 competing flows"),
                ("trace=", "trace-driven link"))
REAL_REF = "cubic"  # the kernel's HyStart: what each rule is held against
REAL_ALPHA = 0.05  # a rule is **worse** where the noise alone would be this unlikely (one-sided)


def real_class(x):
    """The flow's real-path class, or None: a jitter path is one too (its
    record's jitter, not "real"). Competing flows are a class per count
    (cross=N:CC, N of 1-16): the fair share, and so what a rule may cost
    the others, depends on N; REAL_CLASSES names the matrix's 1 and 4, a
    path with another N gets "N competing flows" of its own."""
    real = x.get("real") or ""
    for pfx, name in REAL_CLASSES:
        if real.startswith(pfx):
            return name
    m = re.match(r"cross=(\d+):", real)
    if m:
        return f"{int(m.group(1))} competing flows"
    return "jitter" if x.get("jitter") and not real else None


def real_class_order(c):
    """The document's order of the classes: REAL_CLASSES', competing flows
    of another count after the matrix's by count, jitter last."""
    names = [n for _, n in REAL_CLASSES]
    if c in names:
        return (names.index(c), 0)
    m = re.match(r"(\d+) competing flows$", c)
    if m:
        return (names.index("4 competing flows"), int(m.group(1)))
    return (len(names), 0)


def realpath_md(flows):
    """Issue 20's item 4, per class: each rule's slow-start retransmissions
    (its own, and every flow's on the path over its slow start: what the
    competing flows lost to it too), the bottleneck's drops over the whole
    flow, and its exits below BELOW x the BDP (of the fair share, or of the
    policed rate: the record's bdp_pkts), against the kernel's cubic on the
    same paths in the same run. "no worse" when its median slow-start
    retransmissions, its own and the path's, are at most HyStart's (+10 %,
    at least 2 packets: these paths are noisy) and it exits below BELOW no
    more often. A run from before the path's figure was recorded is judged
    on the whole flow's drops instead, as it was then."""
    cls = collections.defaultdict(collections.OrderedDict)
    for x in flows:
        c = real_class(x)
        if c:
            cls[c].setdefault(x["algorithm"], []).append(x)
    by = collections.OrderedDict((c, cls[c]) for c in sorted(cls, key=real_class_order))

    def medof(fl, key):
        v = [x[key] for x in fl if x.get(key) is not None]
        return med(v) if v else None

    def ok(v, w):
        # a figure the rule lacks where HyStart has one is not "no worse"
        return w is None or (v is not None and v <= max(w * 1.1, w + 2))

    def worse_p(fl, ref, key):
        # None where the rule lacks the figure: not judged, so not "no worse"
        v = [x[key] for x in fl if x.get(key) is not None]
        w = [x[key] for x in ref if x.get(key) is not None]
        return stats.rank_sum_greater(v, w) if v and w else None

    rows = []
    for c, algos in by.items():
        ref = algos.get(REAL_REF)
        if not ref:
            continue
        scen = sorted({x["scenario"] for fl in algos.values() for x in fl})
        path = all(x.get("ss_path_retrans") is not None for fl in algos.values() for x in fl)
        rr, rp, rd = medof(ref, "ss_retrans"), medof(ref, "ss_path_retrans"), medof(ref, "tbf_drops")
        rb = sum(1 for x in ref if below(x))
        # the path's cost: its slow-start retransmissions, or (an older run) the drops
        ckey = "ss_path_retrans" if path else "tbf_drops"
        rc = rp if path else rd
        for aid, fl in algos.items():
            mr, mp, md = medof(fl, "ss_retrans"), medof(fl, "ss_path_retrans"), medof(fl, "tbf_drops")
            nb = sum(1 for x in fl if below(x))
            # each criterion it fails, with how likely the run's noise alone
            # would put it that far ahead of HyStart (one-sided p-value)
            fails = []
            if not ok(mr, rr):
                fails.append(worse_p(fl, ref, "ss_retrans"))
            if not ok(mp if path else md, rc):
                fails.append(worse_p(fl, ref, ckey))
            if nb > rb:
                fails.append(stats.fisher_greater(nb, len(fl), rb, len(ref)))
            if aid == REAL_REF:
                word = "-"
            elif not fails:
                word = "no worse"
            elif None in fails or min(fails) < REAL_ALPHA:
                word = "**worse**" + (f" (p {min(fails):.3f})" if None not in fails else "")
            else:
                word = f"worse within the noise (p {min(fails):.2f})"
            late = sum(1 for x in fl if (x.get("path_stall") or {}).get("kind") == "emulator_late")
            mem = sum(1 for x in fl if (x.get("bpf_predict_policer_memory") or 0) > 0 or
                      x.get("bpf_predict_no_jump") or x.get("bpf_predict_busy"))
            rows.append(f"| {c} | {', '.join(scen)} | {aid} | {len(fl)} | {fmt(mr)} | "
                        f"{fmt(mp) if path else '-'} | {fmt(md)} | {nb} | {word} | {late} | {mem} |")
    if not rows:
        return ""
    return "\n".join([
        "Issue 20's safety line, per real-path class: each rule's slow-start retransmissions (median; its "
        "own, and every flow's on the path from its first data to its exit + 2 RTTs, the competing "
        "flows' included: their TCP_INFO totals, sampled every 100 ms), the bottleneck's drops for the whole flow (median; "
        "with competing flows mostly their own sawtooth) and its exits below "
        f"{BELOW} x the BDP (of the fair share, of the policed rate, or of the stretch of a trace link "
        "the repetition met), against the kernel's cubic "
        "on the same paths in the same run. **no worse**: median slow-start retransmissions, its own and "
        "the path's, at most HyStart's (+10 %, at least 2 packets) and no more exits below it (a run "
        "without the path's figure: the whole flow's drops instead). Where it is more, the p-value says "
        "how often these paths' noise alone would put a rule as far ahead of HyStart: the one-sided rank "
        "sum (Mann-Whitney) test of its flows' figures against the kernel's cubic's, Fisher's exact test "
        "for the exits below; the smallest of the criteria it fails. **worse** when p is below "
        f"{REAL_ALPHA:g}; above it, *worse within the noise*: this run cannot tell it from HyStart (with 3 "
        "flows a side, p is at least 0.05; with 6, 0.001). `bpf_linux` is the kernel's "
        "HyStart re-implemented (the fidelity section): where it reads worse, the difference is these "
        "paths' noise at this run's size, not a rule's. **late emulator**: flows kept after every try ran "
        f"on an emulator whose delay line was more than {EMU_LATE_P99_US / 1e3:g} ms late on 1 % of their "
        "packets (tools/eval/README.md): their figures are the host's, not the path's. **remembered**: "
        "flows whose target came from a policer an earlier flow of the same instance "
        "met on the path, or whose jump one held back (docs/RULES.md, \"The policer remembered\"; "
        "the record's predict_policer_memory and predict_no_jump), or whose estimate was set aside "
        "because an earlier flow found the path busy (\"The busy path remembered\"; predict_busy): "
        "a repetition after the first meets the path as a returning user does.\n",
        "| class | scenarios | algorithm | flows | slow-start retx | slow-start retx, path | drops | "
        f"exits below {BELOW} BDP | against HyStart | late emulator | remembered |",
        "|---|---|---|---|---|---|---|---|---|---|---|"] + rows + [""])


def band_text(g):
    _, summ = band(g)
    out = [f"{'algorithm':<12} {'clean in band':>13} {'all in band':>11} {'flows in band':>13} "
           f"{'below ' + str(BELOW):>9} {'deep in band':>12} {'deep dev':>8}  against {HYSTART} (deep)"]
    for a in summ:
        out.append(f"{a['algorithm']:<12} {str(a['clean_in']) + '/' + str(a['clean_n']):>13} "
                   f"{str(a['all_in']) + '/' + str(a['all_n']):>11} {str(a['flows_in']) + '/' + str(a['flows_n']):>13} "
                   f"{a['below']:>9} {str(a['deep_in']) + '/' + str(a['deep_n']):>12} {fmt(a['deep_dev'], 2):>8}  "
                   + verdict(a).replace("**", ""))
    return "\n".join(out)


def band_cmd(a):
    """analyze.py band: the ideal-band section alone (no plots, no
    matplotlib), or its numbers as JSON."""
    g = group(load(a.inp))
    if a.json:
        rows, summ = band(g)
        valgs, vscen = verdict_rows(g)
        print(json.dumps({"rows": rows, "algorithms": summ,
                          "verdict": {"algorithms": valgs, "bdp_est": vscen}}, indent=1))
    else:
        print(band_md(g))
        vmd = verdict_md(g)
        if vmd:
            print("\n" + vmd)


def story_2011(g):
    """Numbers for the 2011-like path (s2011)."""
    if "s2011" not in g:
        return None
    algs = g["s2011"]
    fl0 = next(iter(algs.values()))[0]
    lines = []
    for aid in algs:
        fl = algs[aid]
        _, c = majority(x["exit_reason"] for x in fl)
        lines.append((aid, med(x["exit_cwnd"] for x in fl), spread([x["exit_cwnd"] for x in fl]),
                      med(x["exit_cwnd_bdp"] for x in fl), reasons_str(c),
                      med(x["ss_retrans"] for x in fl), spread([x["ss_retrans"] for x in fl]),
                      med(x["t90_s"] for x in fl), med(x["goodput_mbit"] for x in fl), med(x["exit_time_s"] for x in fl)))
    return fl0, lines


def _agg(fl):
    return dict(n=len(fl), cwnd=med(x["exit_cwnd"] for x in fl), bdp=med(x["exit_cwnd_bdp"] for x in fl),
                cwnd_rng=spread([x["exit_cwnd"] for x in fl]), reason=majority(x["exit_reason"] for x in fl)[0],
                reasons=reasons_str(majority(x["exit_reason"] for x in fl)[1]),
                t=med(x["exit_time_s"] for x in fl), ssr=med(x["ss_retrans"] for x in fl),
                ssr_rng=spread([x["ss_retrans"] for x in fl]), rt=med(x["retrans_total"] for x in fl),
                t90=med(x["t90_s"] for x in fl), gp=med(x["goodput_mbit"] for x in fl),
                gpf=med(x["goodput_frac"] for x in fl))


def hspp_md(g):
    """HyStart++ next to Linux HyStart and HyStart off, on the same paths and runs."""
    algs = (("bpf_linux", "Linux HyStart"), ("bpf_hspp", "HyStart++"), ("bpf_off", "HyStart off"))
    out = ["| scenario | BDP | buffer/BDP | "
           + " | ".join(f"{n}: exit/BDP, reason, ss retx, t90 ms" for _, n in algs)
           + " | HyStart++ CSS entry /BDP, resumes | worst t90 ms Linux / HyStart++ | verdict |",
           "|---|---|---|" + "---|" * (len(algs) + 3)]
    better = worse = 0
    for sid, al in g.items():
        if "bpf_hspp" not in al or "bpf_linux" not in al:
            continue
        f0 = next(iter(al.values()))[0]
        ag = {aid: _agg(al[aid]) for aid, _ in algs if aid in al}
        cells = []
        for aid, _ in algs:
            x = ag.get(aid)
            cells.append("-" if not x else
                         f"{fmt(x['bdp'], 2)} {x['reason']} {fmt(x['ssr'])} {fmt(x['t90'] and x['t90'] * 1e3)}")
        enter = med(fl.get("bpf_css_enter_cwnd") for fl in al["bpf_hspp"])
        enter_bdp = enter / f0["bdp_pkts"] if enter else None
        resumes = sum(fl.get("bpf_css_resumes") or 0 for fl in al["bpf_hspp"])
        worst = lambda aid: max((x["t90_s"] for x in al[aid] if x["t90_s"] is not None), default=None)
        wl, wh = worst("bpf_linux"), worst("bpf_hspp")
        h, l = ag["bpf_hspp"], ag["bpf_linux"]
        verdict = "similar"
        if None not in (h["ssr"], l["ssr"], h["t90"], l["t90"]):
            if h["ssr"] > l["ssr"] + 10 or h["t90"] > 1.2 * l["t90"]:
                verdict = "worse"
                worse += 1
            elif h["ssr"] + 10 < l["ssr"] or h["t90"] < l["t90"] / 1.2:
                verdict = "better"
                better += 1
        out.append(f"| {sid} | {f0['bdp_pkts']} | {f0['buffer_pkts'] / f0['bdp_pkts']:.2g} | "
                   + " | ".join(cells) + f" | {fmt(enter_bdp, 2)}, {resumes} | "
                   f"{fmt(wl and wl * 1e3)} / {fmt(wh and wh * 1e3)} | {verdict} |")
    nrows = len(out) - 2
    if not nrows:
        return ""
    out.append("")
    out.append("Worst t90 is the slowest of the repetitions to reach 90 % of the rate: where Linux HyStart "
               "leaves slow start far too early (the 2011 symptom), this is where it shows; resumes counts "
               "HyStart++'s spurious CSS exits undone over all repetitions.\n")
    out.append(f"Verdict per scenario (HyStart++ against Linux HyStart, medians): **better** when it has at "
               f"least 10 fewer slow-start retransmissions or reaches 90 % of the rate 1.2x sooner, "
               f"**worse** the other way round; {better} better, {worse} worse, "
               f"{nrows - better - worse} similar. Reasons: {', '.join(V.exits)} "
               f"({V.check('css_exit')}: HyStart++ left Conservative Slow Start after its 5 rounds).")
    return "\n".join(out)


def story_text(g):
    """The 2011 question, answered with this run's numbers."""
    if "s2011" not in g:
        return ""
    algs = g["s2011"]
    fl0 = next(iter(algs.values()))[0]
    A = {aid: _agg(fl) for aid, fl in algs.items()}
    out = ["### What the numbers say\n"]
    bdp, buf = fl0["bdp_pkts"], fl0["buffer_pkts"]
    rtt = fl0["rtt_ms"]
    def line(aid, label):
        x = A.get(aid)
        if not x:
            return None
        return (f"- **{label}** (`{aid}`): slow start ends at cwnd **{fmt(x['cwnd'])}** ({fmt(x['bdp'], 2)} x BDP; "
                f"range {x['cwnd_rng']}) by **{x['reason']}** ({x['reasons']}) after {fmt(x['t'] and x['t'] * 1e3)} ms "
                f"({fmt(x['t'] and x['t'] * 1e3 / rtt, 1)} RTTs); **{fmt(x['ssr'])} retransmissions** in slow start "
                f"(range {x['ssr_rng']}), {fmt(x['rt'])} in the whole {fl0['duration_s']} s flow; 90 % of the rate "
                f"after **{fmt(x['t90'] and x['t90'] * 1e3)} ms**; goodput {fmt(x['gp'], 1)} Mbit/s "
                f"({fmt(x['gpf'] and x['gpf'] * 100, 1)} % of the payload rate) over the first {fl0['goodput_window_s'] if 'goodput_window_s' in fl0 else '-'} s.")
    for aid, label in (("cubic", "Today's Linux, the kernel's cubic"), ("bpf_linux", "Today's Linux rules in bpf_cubic"),
                       ("bpf_nuss", "The 2011 patch's thresholds"), ("bpf_off", "HyStart off"),
                       ("bpf_hspp", "HyStart++ (RFC 9406)"), ("reno", "Reno (no HyStart)")):
        l = line(aid, label)
        if l:
            out.append(l)
    out.append("")
    lin, nus, off = A.get("bpf_linux") or A.get("cubic"), A.get("bpf_nuss"), A.get("bpf_off")
    ideal_t = fl0.get("ideal_t_s")
    txt = [f"On this 11.3 ms path (BDP {bdp} packets, buffer {buf}; ideal exit {bdp}-{bdp + buf} packets, "
           f"ideal time ~{fmt(ideal_t and ideal_t * 1e3)} ms), the 2011 report saw exits at cwnd 20-100 on a BDP "
           "of ~940 (0.02-0.1 x BDP)."]
    if lin:
        ok = lin["bdp"] is not None and 1 <= lin["bdp"] <= 1 + buf / bdp
        txt.append(f"Today's rules exit at {fmt(lin['bdp'], 2)} x BDP "
                   + ("(inside the ideal band) " if ok else "(outside the ideal band) ")
                   + f"with {fmt(lin['ssr'])} retransmissions in slow start"
                   + (": no premature exit." if lin["bdp"] and lin["bdp"] >= 0.5 else ": still premature.")
                   + " Caveat: at 200 Mbit/s instead of 1 Gbit/s, full-size segments are 60 us apart, not 12 us, "
                   "so ACK-train timing is 5x coarser than in 2011; the RTT, and with it every threshold, is the 2011 one.")
    out.append(" ".join(txt))
    if nus and off:
        same = nus["reason"] == off["reason"] == vocab.LOSS
        out.append("")
        out.append(
            f"With the 2011 patch's thresholds the ACK train must last 2 x delay_min; the ACKs of one round arrive "
            f"at the bottleneck rate, so a round lasts that long only once cwnd exceeds 2 x BDP. The delay test fires "
            f"only when an RTT sample exceeds 2 x delay_min. Both need more than one BDP queued, which a "
            f"{buf / bdp:.2g}-BDP buffer cannot hold. "
            + (f"So here it behaves like HyStart off: loss at {fmt(nus['cwnd'])} vs {fmt(off['cwnd'])} packets, "
               f"{fmt(nus['ssr'])} vs {fmt(off['ssr'])} retransmissions in slow start. "
               if same else
               f"Here it left by {nus['reasons']} at {fmt(nus['cwnd'])} packets with {fmt(nus['ssr'])} retransmissions "
               f"(HyStart off: {fmt(off['cwnd'])}, {fmt(off['ssr'])}). ")
            + "The patch trades the early exits for an overshoot wherever the buffer holds at most one BDP.")
        if lin and lin["t90"] and off["t90"]:
            out.append("")
            out.append(f"Cost in time to full rate: today's rules reach 90 % of the rate after {fmt(lin['t90'] * 1e3)} ms, "
                       f"HyStart off after {fmt(off['t90'] * 1e3)} ms, the 2011 thresholds after "
                       f"{fmt(nus['t90'] and nus['t90'] * 1e3)} ms: on this short path the early exit costs "
                       "little time, while the overshoot costs hundreds of retransmissions (and, for a shared "
                       "bottleneck, a burst of loss for everyone else).")
    # the other scenarios, one line each
    out.append("")
    out.append("Across the other scenarios (exit cwnd / BDP, majority reason, slow-start retransmissions; "
               "today's rules = kernel cubic):\n")
    out.append("| scenario | BDP | buffer/BDP | cubic | bpf linux | nussbaum-2011 | off | hystart++ | reno |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for sid, al in g.items():
        f0 = next(iter(al.values()))[0]
        cells = []
        for aid in ("cubic", "bpf_linux", "bpf_nuss", "bpf_off", "bpf_hspp", "reno"):
            if aid in al:
                x = _agg(al[aid])
                cells.append(f"{fmt(x['bdp'], 2)} {x['reason']} {fmt(x['ssr'])}")
            else:
                cells.append("-")
        out.append(f"| {sid} | {f0['bdp_pkts']} | {f0['buffer_pkts'] / f0['bdp_pkts']:.2g} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def fidelity_discussion(g, fid):
    """Where bpf_cubic linux and cubic differ: is it inside cubic's own spread?"""
    out = []
    for x in fid:
        if x["ok"] is not False and not (x["noisy"] and not (x["ok_cwnd"] and x["ok_gp"] and x["ok_reason"])):
            continue
        a, b = g[x["scenario"]][REF], g[x["scenario"]][CAND]
        why = []
        for key, ok, name, nd in (("exit_cwnd", x["ok_cwnd"], "exit cwnd", 0), ("goodput_mbit", x["ok_gp"], "goodput", 1)):
            if ok:
                continue
            ra = [y[key] for y in a if y[key] is not None]
            rb = [y[key] for y in b if y[key] is not None]
            overlap = ra and rb and min(rb) <= max(ra) and min(ra) <= max(rb)
            why.append(f"{name}: cubic {spread(ra, nd)} vs bpf_linux {spread(rb, nd)} "
                       + ("(ranges overlap: within run-to-run noise)" if overlap else "(ranges do not overlap)"))
        if not x["ok_reason"]:
            ca = reasons_str(majority(y["exit_reason"] for y in a)[1])
            cb = reasons_str(majority(y["exit_reason"] for y in b)[1])
            why.append(f"reasons: cubic {ca} vs bpf_linux {cb}")
        out.append(f"- **{x['scenario']}** ({scen_desc(a[0])}): " + "; ".join(why) + ".")
    if not out:
        return "Every scenario passes."
    return ("Scenarios that miss a criterion, with each side's range over the repetitions:\n\n" + "\n".join(out)
            + "\n\nKnown sources of such differences on this machine (they hit the kernel's cubic and "
            "bpf_cubic alike):\n\n"
            "- **Bimodal ACK-train exits.** The train fires in a round only if no ACK gap exceeds "
            "`hystart_ack_delta_us` (2 ms) before the train reaches delay_min/2. Two things can open such a gap: the emulator's delay queue "
            "releases ACKs up to several ms late under host steal time (tools/emu/README.md), and, while "
            "cwnd < BDP, the ACKs of a round come in a burst followed by an idle gap, so a train that starts "
            "mid-burst (the round boundary depends on exactly which ACK passes end_seq) is cut short. We did "
            "not isolate which one dominates. The exit then moves to the next round, at about 1.6-2x the cwnd (on s2011: ~260 or ~420; "
            "on r50_200_h: ~1060, ~1700, or a loss near 2100). With 3 repetitions the median flips between "
            "the modes. Repeating a scenario with more repetitions (`tools/eval/run.sh --scenarios "
            "\"s2011 r50_200_h\" --algos \"cubic bpf_linux\" --reps 8`) showed both modes for both implementations.\n"
            "- **Goodput on shallow buffers** (0.1-0.25 BDP) depends on when burst losses hit in congestion "
            "avoidance; one algorithm's own repetitions spread by 10-25 %.\n"
            "- **A detector after the loss**: on shallow buffers slow start often ends by loss and HyStart's "
            "ACK train fires tens of ms later, inside the recovery (PRR takes cwnd below the recovery's "
            "ssthresh, and a loss does not set HyStart's found, so the slow-start tests run on). The kernel's "
            "nstat counter cannot say which came first; the exit is the first one tcp_probe shows (a loss "
            "response: ssthresh = beta x cwnd), as bpf_cubic's records, which come in order, confirm.")


def disagreement(x):
    s = (f"- disagreement: {x['scenario']} {x['algorithm']} rep {x['rep']}: reason {x['exit_reason']}, "
         f"probe exit cwnd {x['exit_cwnd']} ({x['exit_cwnd_from']}), bpf record cwnd {x.get('bpf_cwnd')}, "
         f"nstat train/delay {x['nstat_train']}/{x['nstat_delay']}")
    if ("probe_first_ssthresh" not in x and x["kind"] == "bpf" and x["exit_cwnd_from"] == "cwnd_before"
            and x.get("bpf_cwnd") == x["exit_cwnd"] and x["exit_reason"] in V.detector_exits):
        # a record from before probe_first_ssthresh was kept
        s += (". Its record's cwnd is the last slow-start cwnd: most likely a detector and a loss on one "
              "ACK (ssthresh = cwnd, then beta x cwnd; see exit_same_ack_loss), which this record's "
              "analyzer did not yet keep the probe's ssthresh to prove")
    return s


def impossible_flows(flows, cwnd_csv):
    """One message per flow with an impossible sample: in flows.jsonl (this run's
    check, or an old run's probe_ssthresh_above_inf) or in cwnd.csv."""
    msgs = {}
    bounds = {}
    for x in flows:
        key = (x["scenario"], x["algorithm"], str(x["rep"]))
        bounds[x["scenario"]] = cwnd_bound(x["bdp_pkts"], x["buffer_pkts"])
        f0 = x.get("impossible_first")
        if x.get("impossible_samples"):
            msgs[key] = (f"sport {f0['sport']}: {f0['what']} at t={f0['t_s']} s; "
                         f"{x['impossible_samples']} impossible samples")
        elif x.get("probe_ssthresh_above_inf"):
            msgs[key] = (f"sport {x.get('sport')}: {x['probe_ssthresh_above_inf']} tcp_probe samples with "
                         f"ssthresh > {INF_SSTHRESH} (TCP_INFINITE_SSTHRESH)")
    if os.path.exists(cwnd_csv):
        with open(cwnd_csv) as f:
            for row in csv.DictReader(f):
                key = (row["scenario"], row["algorithm"], row["rep"])
                bound = bounds.get(row["scenario"])
                if bound is None or key in msgs:
                    continue
                why = impossible(int(row["cwnd"]), None, bound)
                if why:
                    msgs[key] = f"{why} at t={row['t_s']} s (cwnd.csv)"
    return [f"{k[0]} {k[1]} rep {k[2]}: {v}" for k, v in sorted(msgs.items())]


def report(a):
    flows = load(a.inp)
    bad_windows = impossible_flows(flows, os.path.join(a.inp, "cwnd.csv"))
    if bad_windows:
        for m in bad_windows:
            print(f"analyze.py: IMPOSSIBLE WINDOW: {m}", file=sys.stderr)
        print(f"analyze.py: report: {len(bad_windows)} flows with impossible windows in {a.inp}: no report "
              f"from such a run (docs/IMPOSSIBLE_WINDOWS.md)", file=sys.stderr)
        sys.exit(IMPOSSIBLE_EXIT)
    g = group(flows)
    outdir = a.out or a.inp
    os.makedirs(outdir, exist_ok=True)
    fid = fidelity(g)
    plots(g, os.path.join(a.inp, "cwnd.csv"), outdir)
    runinfo = ""
    p = os.path.join(a.inp, "run.txt")
    if os.path.exists(p):
        runinfo = open(p).read().strip()
    bad = [x for x in flows if not x.get("crosscheck_ok")]
    summ = [f"# Evaluation summary\n", "```", runinfo, "```\n",
            "## Scenarios\n", scen_table(g), "",
            "## Per scenario and algorithm\n",
            f"Median and (min-max) over repetitions. Reasons: {V.legend()}\n",
            summary_md(g), "",
            "## Fidelity: bpf_cubic preset linux against the kernel's cubic\n",
            f"Criteria: median exit cwnd within {FID_CWND:.0%}, median goodput (first "
            f"{flows[0]['goodput_window_s']:g} s) within {FID_GOODPUT:.0%}, same majority exit reason.\n" if flows else "",
            fidelity_md(fid), "",
            f"Exit cross-check (tcp_probe against nstat / bpf trace record): {len(flows) - len(bad)}/{len(flows)} flows agree."]
    for x in bad:
        summ.append(disagreement(x))
    stalled = [x for x in flows if x.get("path_stall")]
    retried = sum(x.get("stall_retries") or 0 for x in flows)
    summ.append("\nPath stalls (a delay exit no queue of the path explains, an ACK gap in slow start "
                "that ends in a burst, or the emulator's delay line late by more than "
                f"{EMU_LATE_P99_US / 1e3:g} ms on 1 % of the flow's packets: tools/eval/README.md): "
                f"{retried} tries run again, {len(stalled)} flows kept stalled" +
                "".join(f"; {x['scenario']} {x['algorithm']} rep {x['rep']}: {stall_text(x['path_stall'])}"
                        for x in stalled) + ".")
    summ += ["", "## Ideal band\n", band_md(g)]
    vmd = verdict_md(g)
    if vmd:
        summ += ["", vmd]
    rmd = realpath_md(flows)
    if rmd:
        summ += ["", "## Real paths: each rule against HyStart, per class\n", rmd]
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(summ) + "\n")
    if a.doc:
        write_doc(a, g, fid, flows, runinfo, bad)
    print("\nFidelity: bpf_cubic (preset linux) / kernel cubic, medians per scenario")
    print(fidelity_text(fid))
    print(f"{sum(1 for x in fid if x['ok'])}/{sum(1 for x in fid if not x['noisy'])} scenarios pass "
          f"(+{sum(1 for x in fid if x['noisy'])} with RTT noise, no verdict); exit cross-check {len(flows) - len(bad)}/{len(flows)} flows")
    print("\nIdeal band (BDP <= exit cwnd <= BDP + buffer, no slow-start retransmission; a scenario counts "
          "when most of its repetitions do)")
    print(band_text(g))


def kernel_algos(flows):
    out = []
    for x in flows:
        if x["kind"] == "kernel" and x["arg"] not in out:
            out.append(x["arg"])
    return out


def algos_desc(flows):
    """'presets `linux` (bpf_linux), ...' of the run's bpf algorithms."""
    seen = collections.OrderedDict()
    for x in flows:
        if x["kind"] == "bpf":
            tun = x.get("tunables")
            seen.setdefault(x["algorithm"], f"`{x['arg']}`" + (f" with `{tun}`" if tun else ""))
    return "presets " + ", ".join(f"{arg} ({aid})" for aid, arg in seen.items()) if seen else "no preset"


def subset_desc(g):
    """Which scenarios ran which algorithms for how long (run.sh's algos= and
    dur=), in words."""
    every = []
    for algs in g.values():
        every += [a for a in algs if a not in every]
    sets = collections.OrderedDict()
    for sid, algs in g.items():
        fl = next(iter(algs.values()))[0]
        key = ("every algorithm" if list(algs) == every else " ".join(algs), fl["duration_s"])
        sets.setdefault(key, []).append(sid)
    return "; ".join(f"{', '.join(sids)}: {who}, {d} s flows" for (who, d), sids in sets.items()) + \
        (". The shallow-buffer grid and the stress scenarios added for SEARCH run the core algorithms only "
         "(run.sh's CORE_ALGOS: the references and every bpf_search* rule) with shorter flows, so that the whole "
         "matrix stays within about 100 minutes here (tools/eval/README.md)." if len(sets) > 1 else ".")


def run_minutes(runinfo):
    m = [w for w in runinfo.split() if w.startswith("wall_s=")]
    return f"~{int(m[0][7:]) // 60} min last time" if m else "see run.txt"


def write_doc(a, g, fid, flows, runinfo, bad):
    rel = os.path.relpath(a.out or a.inp, os.path.dirname(os.path.abspath(a.doc)))
    st = story_2011(g)
    notes = story_text(g)
    doc = ["# Evaluation: where does slow start end?\n",
           "<!-- generated by tools/eval/analyze.py report --doc from the last run "
           "(make eval); edit tools/eval/analyze.py, not this file -->\n",
           f"bpf_cubic ({algos_desc(flows)}) next to the kernel's own "
           f"{' and '.join('`' + k + '`' for k in kernel_algos(flows)) or 'congestion controls'}, "
           "one flow at a time over an emulated bottleneck (tools/emu/pathemu: TBF bottleneck, "
           "delay on the ACK path). Raw results: "
           f"[{rel}/flows.jsonl]({rel}/flows.jsonl) (one line per flow), [{rel}/cwnd.csv]({rel}/cwnd.csv) "
           "(cwnd every 2 ms around slow start, every 50 ms after), [summary]({rel}/summary.md).\n".replace("{rel}", rel),
           "## Machine and method\n",
           "```", runinfo, "```\n",
           "- 2 vCPU Firecracker VM (nested virtualisation), Debian 12, Linux 6.18, HZ=250; shared with other "
           "jobs, so noisy. The emulator's own figures (tools/emu/README.md): goodput within 2 % of the "
           "configured rate up to **200 Mbit/s** (its ceiling here; every scenario stays at or below it), "
           "delay release error p99 ~0.1-0.5 ms, with ms-long outliers under host steal time. The 2011 "
           "path (1 Gbit/s) cannot be emulated at full rate: `s2011` keeps its 11.3 ms RTT at 200 Mbit/s "
           "(BDP 189 packets instead of ~940).\n",
           "- Each namespace defaults to `reno`; iperf3 applies `-C` after connect(), so no flow inherits "
           "bbr's pacing (the bpf trace records `paced`; see below). Receive windows are raised so they "
           "never limit slow start (the bpf trace records `rwnd_limited`).\n",
           "- **Senders**: iperf3 (bulk) on most paths. Where iperf3 cannot make the flow, "
           "`tools/eval/flowgen.py` sends over a plain TCP socket whose congestion control is set before "
           "connect(): the application-limited start (whole segments every 1 ms at a fraction of the "
           "rate, iperf3 -b's default pacing timer, then bulk), and the RTT-step paths (its data starts "
           "one RTT after the SYN-ACK that starts the path's RTT schedule, so the step's time is known). "
           "It reports what the analysis reads of iperf3's output (0.1 s intervals of TCP_INFO "
           "retransmission deltas; the peer's acknowledged bytes).\n",
           "- **Classes**: a *clean* scenario has a constant RTT, no jitter, no application limit and no "
           "RTT change; the others are *stress* scenarios (jitter on the ACK path, an application-limited "
           "start, an RTT that steps or ramps up inside slow start: `pathemu --rtt-step`, timed from each "
           "flow's SYN-ACK). On an RTT-step path the BDP is that of the RTT after the step.\n",
           f"- **Run size**: {subset_desc(g)}\n",
           "- **Exit** (every algorithm, same method): the `tcp:tcp_probe` tracepoint in a tracefs "
           "instance of our own (clock `mono`, filtered on the server port; one sample per ACK). The exit "
           "is the first sample whose ssthresh is no longer infinite. If ssthresh is then >= the last "
           "slow-start cwnd, HyStart set ssthresh = cwnd and that is the exit cwnd; if ssthresh is below it "
           "but equals the sample's cwnd, a detector drained cwnd in slow start before setting ssthresh = "
           "cwnd (SEARCH's rollback) and the exit cwnd is that ssthresh (`exit_cwnd_from` "
           "`ssthresh_drained`; the largest slow-start cwnd before it is `peak_cwnd`); otherwise (loss, "
           "ssthresh = beta x cwnd) the exit cwnd is the last slow-start cwnd. **Reason**: for the kernel's "
           "cubic, the sender namespace's `TcpExtTCPHystartTrainDetect`/`DelayDetect` deltas (neither: "
           "loss); for bpf_cubic, its own trace record (`cubicctl -j trace`). Both are cross-checked "
           "against tcp_probe (HyStart exit <=> ssthresh = cwnd; bpf record cwnd = probe cwnd within 2 %). "
           "One case passes the cross-check otherwise: a bpf_cubic detector and a loss on one ACK "
           "(`.pkts_acked` sets ssthresh = cwnd, the same ACK starts a recovery, `.ssthresh` makes it "
           "beta x cwnd), proven by the record's cwnd being the last slow-start cwnd and the probe's "
           "ssthresh exactly its reduction (`exit_same_ack_loss`).\n",
           "- **Exit time** is measured from the first data segment, taken as the first ACK minus one RTT.\n",
           "- **Slow-start retransmissions**: iperf3 `-i 0.1` intervals (TCP_INFO `total_retrans` "
           "deltas, segments) from the start up to the exit + 2 RTT, so the recovery of an overshoot "
           "counts (and, on short RTTs, congestion avoidance's first losses too); `drops (tbf)` is the "
           "bottleneck's own drop count for the whole flow. **Slow-start segment lost** (`ss_lost`, the "
           "ideal band's test): the first loss response after the exit (tcp_probe: ssthresh leaves its exit "
           "value) has its first hole (snd_una) below snd_nxt at the exit; a loss exit is one.\n",
           "- **t90**: first time the delivery rate (snd_una advance from tcp_probe, over a window of "
           "max(100 ms, RTT)) reaches 90 % of the payload rate (rate x 1448/1500). **Goodput**: bytes "
           "acknowledged in the first few seconds (snd_una), over that window.\n",
           "- Ideal exit: BDP <= exit cwnd <= BDP + buffer, no retransmission; ideal time ceil(log2(BDP/10)) "
           "RTTs (+1 RTT to the first ACK). See [the ideal band](#ideal-band-where-each-rule-leaves-slow-start).\n",
           "## Scenarios\n", scen_table(g), ""]
    if st:
        fl0, lines = st
        doc += ["## The 2011-like path (s2011)\n",
                f"{scen_desc(fl0)}. Medians over {len(next(iter(g['s2011'].values())))} repetitions.\n",
                "| algorithm | exit cwnd median (range) | exit cwnd / BDP | reasons | exit time s | slow-start retx median (range) | t90 s | goodput Mbit/s |",
                "|---|---|---|---|---|---|---|---|"]
        for (aid, c, cs, cb, rs, sr, srs, t90, gp, et) in lines:
            doc.append(f"| {aid} | {fmt(c)} ({cs}) | {fmt(cb, 2)} | {rs} | {fmt(et, 2)} | {fmt(sr)} ({srs}) | {fmt(t90, 2)} | {fmt(gp, 1)} |")
        doc.append("")
    if notes:
        doc += [notes.strip(), ""]
    doc += ["## Ideal band: where each rule leaves slow start\n", band_md(g), ""]
    vmd = verdict_md(g)
    if vmd:
        doc += [vmd, ""]
    story = search_story(g)
    if story:
        doc += ["## SEARCH: where the draft's rule exits, and why\n", story, ""]
    story = predict_story(g)
    if story:
        doc += ["## PREDICT: the BDP from the initial window's ACKs, then a paced fill\n", story, ""]
    story = realpath_md(flows)
    if story:
        doc += ["## Real paths: each rule against HyStart, per class\n", story, ""]
    doc += ["## Fidelity: bpf_cubic `linux` against the kernel's `cubic`\n",
            f"Criteria: median exit cwnd within {FID_CWND:.0%}, median goodput within {FID_GOODPUT:.0%}, "
            "same majority exit reason.\n",
            fidelity_md(fid), "",
            fidelity_discussion(g, fid), "",
            f"Exit cross-check (tcp_probe against nstat / bpf trace): {len(flows) - len(bad)}/{len(flows)} flows agree.",
            ""]
    for x in bad:
        doc.append(disagreement(x))
    hs = hspp_md(g)
    if hs:
        doc += ["", "## HyStart++ (RFC 9406) against Linux HyStart\n",
                "bpf_cubic with preset `hystart++` next to preset `linux` and `off`, same paths, same "
                "run. Exit = the end of slow start (CSS included: the CSS exit or a loss). \"CSS entry\" is "
                "where HyStart++ first left standard slow start. Scenarios `j*` add RTT noise on the ACK path "
                "(`pathemu --jitter`: each ACK held up to that much longer, in order, so ACKs bunch): the "
                "paths where Linux HyStart's detectors can fire early.\n", hs, ""]
    paced = [x for x in flows if x.get("paced")]
    rwl = [x for x in flows if x.get("rwnd_limited")]
    doc += [f"bpf_cubic flows paced at exit: {len(paced)}; receive-window limited at exit: {len(rwl)} "
            f"(of {sum(1 for x in flows if x['kind'] == 'bpf')} bpf flows).\n",
            "## All scenarios\n",
            f"Median and (min-max) over repetitions. Reasons: {V.legend()}\n",
            summary_md(g), "",
            "## Plots\n",
            f"![cwnd against time]({rel}/cwnd_time.png)\n",
            f"![cwnd in slow start]({rel}/cwnd_slowstart.png)\n",
            f"![exit cwnd / BDP]({rel}/exit_cwnd_bdp.png)\n",
            "## Reproduce\n",
            f"```\nmake eval            # tools/eval/run.sh --out docs/eval --doc docs/EVALUATION.md ({run_minutes(runinfo)})\n"
            "make eval-quick      # tools/eval/run.sh --quick: two scenarios, 3 s flows (~3.5 min)\n"
            "/usr/bin/python3 tools/eval/analyze.py report --in docs/eval --doc docs/EVALUATION.md"
            "   # regenerate from the stored run\n```\n"]
    with open(a.doc, "w") as f:
        f.write("\n".join(doc))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("flow")
    for k in ("scenario", "algorithm", "kind", "arg", "rate", "rtt", "buffer", "iperf", "probe",
              "bpf_trace", "nstat_before", "nstat_after"):
        f.add_argument("--" + k.replace("_", "-"), dest=k, required=True)
    for k in ("rep", "bdp_pkts", "buffer_pkts", "port", "duration", "tbf_before", "tbf_after"):
        f.add_argument("--" + k.replace("_", "-"), dest=k, type=int, required=True)
    f.add_argument("--cwnd-csv", dest="cwnd_csv")
    f.add_argument("--jitter", dest="jitter", default="")
    f.add_argument("--tunables", default="",
                   help="an --algo row's datapath and KEY=VALUE tunables beside its preset (run.sh)")
    f.add_argument("--class", dest="cls", choices=(CLEAN, STRESS), default=None,
                   help="the scenario's class (default: clean unless --jitter, --app or --rtt-step)")
    f.add_argument("--app", default="", help="F:T, an application-limited start (flowgen.py --app)")
    f.add_argument("--rtt-step", dest="rtt_step", default="", help="AFTER:RTT2[:RAMP] (pathemu --rtt-step)")
    f.add_argument("--real", default="", help="the real-path options: agg=, police=, trace=, cross= (run.sh)")
    f.add_argument("--trace-phase", type=int, default=None,
                   help="a trace link: the ms into the trace where the flow's connection started it (pathemu phase)")
    f.add_argument("--sender", default="iperf3", choices=("iperf3", "flowgen"))
    f.add_argument("--stall-exit", dest="stall_exit", action="store_true",
                   help=f"exit {STALL_EXIT} (after the record) when the path stalled (path_stall)")
    f.add_argument("--emu-release-p99-us", dest="emu_p99_us", type=int, default=None,
                   help="the emulator's delay lines' release-error p99 over the flow (pathemu show)")
    f.add_argument("--emu-release-max-us", dest="emu_max_us", type=int, default=None,
                   help="and its maximum")
    f.add_argument("--schedule-t0-unix-s", dest="schedule_t0", type=float, default=None,
                   help="an RTT step: when the flow's SYN-ACK started its clock (pathemu show's "
                        "delayq_schedule_t0_unix_s), held against flowgen.py's first write")
    f.add_argument("--stall-retries", dest="stall_retries", type=int, default=0,
                   help="how often run.sh ran this flow again for a stalled path (recorded)")
    rp = sub.add_parser("report")
    rp.add_argument("--in", dest="inp", required=True)
    rp.add_argument("--out")
    rp.add_argument("--doc")
    rp.add_argument("--candidate", default=CAND,
                    help="the algorithm id the fidelity table holds against the kernel's cubic")
    bp = sub.add_parser("band", help="the ideal-band section alone (Markdown), or --json its numbers")
    bp.add_argument("--in", dest="inp", required=True)
    bp.add_argument("--json", action="store_true")
    a = p.parse_args()
    global V
    V = vocab.load()
    if a.cmd == "flow":
        if a.cls is None:
            a.cls = STRESS if (a.jitter or a.app or a.rtt_step or a.real) else CLEAN
        flow(a)
    elif a.cmd == "band":
        band_cmd(a)
    else:
        set_candidate(a.candidate)
        report(a)


if __name__ == "__main__":
    main()
