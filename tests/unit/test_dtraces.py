#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/difftest/difftest's timing races (timing_race()): which
first differences are re-run before they are called a DIFF. The steps are the
ones a CI-like run printed (stop 30: rack_reorder_timeout, rto_in_slow_start,
rwnd_shrinks_in_ca; stop 32: tlp_tail_loss), and each race's near misses, which must stay DIFFs.
Ends with "dtraces: N passed, N failed"; exit 1 if any failed. Standard
library only, no root, no kernel."""
import importlib.machinery
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyunit import REPO, check, done  # noqa: E402
_path = os.path.join(REPO, "tools", "difftest", "difftest")
_loader = importlib.machinery.SourceFileLoader("difftest", _path)
_spec = importlib.util.spec_from_loader("difftest", _loader)
dt = importlib.util.module_from_spec(_spec)
_loader.exec_module(dt)



class Sc:
    tol = {}


SC = Sc()
INF = dt.INFINITE_SSTHRESH


def step(ev, cwnd, ssthresh, t, tx, ca_state=0, unacked=0, sacked=0, lost=0, retrans=0,
         total_retrans=0, pacing_rate=1000000, **kw):
    s = {k: 0 for k in dt.EXACT}
    s.update(ev=ev, cwnd=cwnd, ssthresh=ssthresh, t=t, tx=tx, ca_state=ca_state,
             unacked=unacked, sacked=sacked, lost=lost, retrans=retrans,
             total_retrans=total_retrans, data_segs_out=unacked, pacing_rate=pacing_rate,
             delivery_rate=0)
    s.update(kw)
    return s


def first(ref, cand):
    d = dt.compare(ref, cand, SC)
    return d[0] if d else None


# rack_reorder_timeout (fast differs at step 40 of 42): the reordering timer
# seen at tick 37 in one run and 39 in the other, the same retransmission
rack_pre = [step("ack 37", 47, INF, 33, [], unacked=3),
            step("ack 38 sack 39-40", 48, INF, 33, [], ca_state=1, unacked=2, sacked=1)]
ref = rack_pre + [step("timer", 1, 33, 39, [[38, 1, 2]], ca_state=3, unacked=2, sacked=1, lost=1,
                       retrans=1, total_retrans=1)]
cand = rack_pre + [step("timer", 1, 33, 37, [[38, 1, 2]], ca_state=3, unacked=2, sacked=1, lost=1,
                        retrans=1, total_retrans=1)]
i = first(ref, cand)
check("rack_reorder_timeout: the difference is at the timer step", i == 2)
check("rack_reorder_timeout: a kernel timer seen at another tick",
      dt.timing_race(ref, cand, i, SC) == "a kernel timer seen at another tick")
# one tick apart is no difference at all
cand1 = rack_pre + [dict(cand[2], t=38)]
check("a timer one tick apart is equal", first(ref, cand1) is None)
# the same timer, but its window differs too: a DIFF
cand2 = rack_pre + [dict(cand[2], ssthresh=34)]
check("a timer step whose ssthresh differs is not a race",
      dt.timing_race(ref, cand2, first(ref, cand2), SC) is None)
# the timer sent something else: a DIFF
cand3 = rack_pre + [dict(cand[2], tx=[[38, 2, 2]])]
check("a timer step that sent other segments is not a race",
      dt.timing_race(ref, cand3, first(ref, cand3), SC) is None)
# an ACK step at another tick is never this race
ref4 = rack_pre + [step("ack 39", 48, INF, 34, [])]
cand4 = rack_pre + [step("ack 39", 48, INF, 36, [])]
check("an ACK step at another tick is not a timer race",
      dt.timing_race(ref4, cand4, first(ref4, cand4), SC) is None)

# rto_in_slow_start (exact and fast differ at step 32): the backed-off RTO at
# tick 115 in the kernel cubic's run, 113 in theirs
rto_pre = [step("ack 30", 40, INF, 24, [[68, 2, 1]], unacked=40),
           step("timer", 40, INF, 50, [[70, 1, 1]], unacked=41)]
ref = rto_pre + [step("timer", 1, 28, 115, [[30, 1, 2]], ca_state=4, unacked=41, lost=41, retrans=1,
                      total_retrans=1)]
cand = rto_pre + [step("timer", 1, 28, 113, [[30, 1, 2]], ca_state=4, unacked=41, lost=41, retrans=1,
                       total_retrans=1)]
check("rto_in_slow_start: a kernel timer seen at another tick",
      dt.timing_race(ref, cand, first(ref, cand), SC) == "a kernel timer seen at another tick")
rto_ref, rto_cand = ref, cand


# settle(): what the re-runs of a pair make of a race (a CI-like run of
# 803c207 beside eval.bats had rto_in_slow_start's RTO at 115 and 113 in the
# first run and in all three re-runs: on the host that is no verdict)
def reruns(*pairs):
    """rerun() for settle(): the given pairs in turn (None: a re-run that
    slipped), and the number of calls made"""
    calls = []

    def rerun(k, why, step):
        calls.append((k, why, step))
        return pairs[k - 1]
    return rerun, calls


same = (rto_ref, rto_cand)
rr, calls = reruns(same, same, same)
kind, d, pair, k = dt.settle(rto_ref, rto_cand, SC, rr, False)
check("settle: a race in every re-run is undecided on the host", kind == "undecided" and d[0] == 2)
check("settle: ... after %d re-runs" % dt.EXIT_CONFIRM, k == dt.EXIT_CONFIRM and len(calls) == k)
check("settle: each re-run names the race and its step",
      calls[0][1:] == ("a kernel timer seen at another tick", 2))
rr, calls = reruns(same, same, same)
kind, d, pair, k = dt.settle(rto_ref, rto_cand, SC, rr, True)
check("settle: a race in every re-run is a DIFF in the guest", kind == "diff" and d[0] == 2)
rr, calls = reruns(None, None, None)
check("settle: re-runs that all slipped leave the host undecided",
      dt.settle(rto_ref, rto_cand, SC, rr, False)[0] == "undecided")
rr, calls = reruns(same, (rto_ref, rto_ref), same)
kind, d, pair, k = dt.settle(rto_ref, rto_cand, SC, rr, False)
check("settle: a re-run pair that agrees settles it", kind == "agree" and k == 2 and len(calls) == 2)
other = rto_pre + [dict(rto_cand[2], ssthresh=29)]
rr, calls = reruns(same, (rto_ref, other), same)
kind, d, pair, k = dt.settle(rto_ref, rto_cand, SC, rr, False)
check("settle: a re-run with another difference is that DIFF, on the host too",
      kind == "diff" and pair[1] is other and "ssthresh" in d[1] and len(calls) == 2)
rr, calls = reruns()
check("settle: equal runs agree with no re-run",
      dt.settle(rto_ref, rto_ref, SC, rr, False) == ("agree", None, (rto_ref, rto_ref), 0) and not calls)
kind, d, pair, k = dt.settle(rto_ref, other, SC, rr, False)
check("settle: a difference that is no race is a DIFF at once", kind == "diff" and not calls)

# tlp_tail_loss (a CI-like run of 2adf33c: exact and fast differ at step 31):
# the TLP seen at tick 88 in the kernel cubic's run and 87 in theirs (equal
# within a tick), and the ACK of the probe planned at 102 and 98
tlp_pre = [step("ack 29", 39, INF, 24, [], unacked=1)]
ref = tlp_pre + [step("timer", 39, INF, 88, [[29, 1, 2]], unacked=1, total_retrans=1),
                 step("ack 30", 40, INF, 102, [], total_retrans=1, pacing_rate=1667513)]
cand = tlp_pre + [step("timer", 39, INF, 87, [[29, 1, 2]], unacked=1, total_retrans=1),
                  step("ack 30", 40, INF, 98, [], total_retrans=1, pacing_rate=1706903)]
i = first(ref, cand)
check("tlp_tail_loss: the difference is at the probe's ACK", i == 2)
check("tlp_tail_loss: a kernel timer seen at another tick",
      dt.timing_race(ref, cand, i, SC) == "a kernel timer seen at another tick")
# the timers at the same tick: the ACK's tick is not theirs to explain
cand9 = tlp_pre + [dict(cand[1], t=88), cand[2]]
check("an ACK at another tick after timers at the same tick is not a race",
      dt.timing_race(ref, cand9, first(ref, cand9), SC) is None)
# the ACK's window differs too: a DIFF
cand10 = tlp_pre + [cand[1], dict(cand[2], cwnd=41)]
check("the ACK after the timer with another cwnd is not a race",
      dt.timing_race(ref, cand10, first(ref, cand10), SC) is None)
# the timers sent different segments: a DIFF
cand11 = tlp_pre + [dict(cand[1], tx=[[29, 2, 2]]), cand[2]]
check("timers that sent other segments do not make the next step a race",
      dt.timing_race(ref, cand11, first(ref, cand11), SC) is None)

# rwnd_shrinks_in_ca (exact and fast differ at step 4025): the first ACK of
# tick 880 grew cwnd 75 -> 76 in theirs, an ACK later in the kernel cubic's
ca_pre = [step("ack 4021", 75, 49, 879, [[4095, 1, 1]], unacked=75, total_retrans=1),
          step("ack 4022", 75, 49, 879, [[4096, 1, 1]], unacked=75, total_retrans=1)]
ref = ca_pre + [step("ack 4023", 75, 49, 880, [[4097, 1, 1]], unacked=75, total_retrans=1)]
cand = ca_pre + [step("ack 4023", 76, 49, 880, [[4097, 2, 1]], unacked=76, total_retrans=1)]
i = first(ref, cand)
check("rwnd_shrinks_in_ca: the difference is at the tick's first ACK", i == 2)
check("rwnd_shrinks_in_ca: a congestion-avoidance increase one ACK apart",
      dt.timing_race(ref, cand, i, SC) == "a congestion-avoidance increase one ACK apart")
# two packets apart: a DIFF
cand5 = ca_pre + [dict(cand[2], cwnd=77, unacked=77, data_segs_out=77)]
check("cwnd 2 apart in congestion avoidance is not a race",
      dt.timing_race(ref, cand5, first(ref, cand5), SC) is None)
# ssthresh differs: a DIFF
cand6 = ca_pre + [dict(cand[2], ssthresh=50)]
check("a different ssthresh is not a race", dt.timing_race(ref, cand6, first(ref, cand6), SC) is None)
# in slow start (ssthresh unset) a cwnd 1 apart is a DIFF, unless HyStart's own race
ss_pre = [step("ack 10", 20, INF, 10, [[30, 2, 1]], unacked=20),
          step("ack 11", 21, INF, 10, [[32, 2, 1]], unacked=21)]
ref7 = ss_pre + [step("ack 12", 22, INF, 10, [[34, 2, 1]], unacked=22)]
cand7 = ss_pre + [step("ack 12", 23, INF, 10, [[34, 3, 1]], unacked=23)]
check("slow start's cwnd 1 apart is not a race",
      dt.timing_race(ref7, cand7, first(ref7, cand7), SC) is None)
# in recovery: a DIFF
rec_pre = [dict(s, ca_state=3) for s in ca_pre]
ref8 = rec_pre + [dict(ref[2], ca_state=3)]
cand8 = rec_pre + [dict(cand[2], ca_state=3)]
check("recovery's cwnd 1 apart is not a race",
      dt.timing_race(ref8, cand8, first(ref8, cand8), SC) is None)
# below ssthresh the step before (slow start after a loss): a DIFF
low_pre = [dict(s, cwnd=40, unacked=40) for s in ca_pre]
ref9 = low_pre + [dict(ref[2], cwnd=41)]
cand9 = low_pre + [dict(cand[2], cwnd=42)]
check("slow start below ssthresh is not a race",
      dt.timing_race(ref9, cand9, first(ref9, cand9), SC) is None)

# settle(): a race the congestion control makes (here a congestion-avoidance
# increase one ACK apart) that every re-run repeats is a DIFF on the host too
ca_ref, ca_cand = ca_pre + [ref[2]], ca_pre + [cand[2]]
rr, calls = reruns((ca_ref, ca_cand), (ca_ref, ca_cand), (ca_ref, ca_cand))
kind, d, pair, k = dt.settle(ca_ref, ca_cand, SC, rr, False)
check("settle: a congestion-avoidance race in every re-run is a DIFF on the host",
      kind == "diff" and k == dt.EXIT_CONFIRM and calls[0][1] == "a congestion-avoidance increase one ACK apart")

# reorder_dsack_undo_ca (the CI run of 982f0b1, the difftest beside the
# other suites): fast grew cwnd 47 -> 48 an ACK after the kernel's cubic at
# step 539 in all four runs; their pacing rates at the step before were
# 0.04 % apart (srtt apart, so delay_min, which CUBIC's growth reads). The
# host's timing can do that every time: undecided there, a DIFF in the guest
rtt_ref = [dict(s, pacing_rate=1306776) for s in ca_pre] + [ref[2]]
rtt_cand = [dict(s, pacing_rate=1306012) for s in ca_pre] + [cand[2]]
check("a congestion-avoidance increase one ACK apart, the runs' RTTs apart",
      dt.timing_race(rtt_ref, rtt_cand, 2, SC) == dt.CA_RTT_RACE)
rr, calls = reruns((rtt_ref, rtt_cand), (rtt_ref, rtt_cand), (rtt_ref, rtt_cand))
kind, d, pair, k = dt.settle(rtt_ref, rtt_cand, SC, rr, False)
check("settle: that race in every re-run is undecided on the host",
      kind == "undecided" and d[0] == 2 and k == dt.EXIT_CONFIRM)
rr, calls = reruns((rtt_ref, rtt_cand), (rtt_ref, rtt_cand), (rtt_ref, rtt_cand))
check("settle: ... and a DIFF in the guest", dt.settle(rtt_ref, rtt_cand, SC, rr, True)[0] == "diff")
# a re-run with the RTTs equal and the race still there: a DIFF on the host
rr, calls = reruns((rtt_ref, rtt_cand), (rtt_ref, rtt_cand), (ca_ref, ca_cand))
check("settle: the race again with the RTTs equal is a DIFF on the host",
      dt.settle(rtt_ref, rtt_cand, SC, rr, False)[0] == "diff")

# initcwnd_route (a CI-like run, the difftest beside the other suites): the
# kernel's cubic left slow start by HyStart at step 33 (cwnd 72), exact an
# ACK later, in all four runs; their pacing rates at cwnd 72 the step before
# were 0.1 % apart (srtt apart, which HyStart's tests read). Undecided on the
# host, a DIFF in the guest; with the RTTs equal it stays a HyStart race the
# host decides (a DIFF when every re-run repeats it)
hs_pre = [step("ack 31", 71, INF, 15, [[100, 2, 1]], unacked=71, pacing_rate=2440339),
          step("ack 32", 72, INF, 16, [[102, 2, 1]], unacked=72, pacing_rate=2444847)]
hs_ref = hs_pre + [step("ack 33", 72, 72, 16, [[104, 1, 1]], unacked=72, pacing_rate=1450062)]
hs_cand = [hs_pre[0], dict(hs_pre[1], pacing_rate=2447361),
           step("ack 33", 73, INF, 16, [[104, 2, 1]], unacked=73, pacing_rate=2452890)]
check("initcwnd_route: the first difference is the exit", first(hs_ref, hs_cand) == 2)
check("a HyStart exit in one run only, the runs' RTTs apart",
      dt.timing_race(hs_ref, hs_cand, 2, SC) == dt.HYSTART_RTT_RACE)
rr, calls = reruns((hs_ref, hs_cand), (hs_ref, hs_cand), (hs_ref, hs_cand))
check("settle: that race in every re-run is undecided on the host",
      dt.settle(hs_ref, hs_cand, SC, rr, False)[0] == "undecided")
rr, calls = reruns((hs_ref, hs_cand), (hs_ref, hs_cand), (hs_ref, hs_cand))
check("settle: ... and a DIFF in the guest", dt.settle(hs_ref, hs_cand, SC, rr, True)[0] == "diff")
hs_eq = [hs_pre[0], hs_pre[1], hs_cand[2]]
check("a HyStart exit in one run only, the RTTs equal",
      dt.timing_race(hs_ref, hs_eq, 2, SC) == "a HyStart exit in one run only")
rr, calls = reruns((hs_ref, hs_eq), (hs_ref, hs_eq), (hs_ref, hs_eq))
check("settle: that race in every re-run is a DIFF on the host",
      dt.settle(hs_ref, hs_eq, SC, rr, False)[0] == "diff")

done("dtraces")
