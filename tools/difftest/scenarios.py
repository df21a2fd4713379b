# SPDX-License-Identifier: GPL-2.0
"""The scenarios of the differential tester: each one a scripted TCP
conversation (see dtpeer.Peer), named after what it checks.

Defaults (dtpeer.Peer): MSS 1000 bytes of payload, timestamps, SACK, window
scale 12, a 32 MB receive window, a 42.5 ms path (one-way delay on the data
path, ACKs return at once), a bottleneck of one segment per grid slot
(6 slots per 4 ms tick: 1500 segments/s, BDP 64 segments), one ACK per
segment. Times are in microseconds from t0 (the first grid point after the
handshake)."""

REG = {}
MS = 1000
RTT = 42500


class Scenario:
    def __init__(self, name, doc, fn, skip_fast=None, tol=None, timeout=60, retries=0):
        self.name, self.doc, self.fn = name, doc, fn
        self.retries = retries   # at least this many retries of a slipped run
        self.skip_fast = skip_fast
        self.tol = tol or {}
        self.timeout = timeout


def scenario(name, doc, **kw):
    def reg(fn):
        REG[name] = Scenario(name, doc, fn, **kw)
        return fn
    return reg


def get(name):
    return REG[name]


def acked(n):
    """until: n segments are cumulatively acknowledged"""
    return lambda p: p.rcv_nxt() >= n * p.mss


def all_acked(p):
    """until: everything the application writes is acknowledged"""
    return p.written and p.rcv_nxt() >= p.written and \
        not any(e[2] == "write" for e in p.events)


def bulk(p, segs=100000):
    p.connect()
    p.bulk(segs * p.mss)


def set_(attr, val):
    return lambda p: setattr(p, attr, val)


# -- HyStart ------------------------------------------------------------

@scenario("hystart_train_unpaced",
          "HyStart ACK-train exit, unpaced: ACKs 0.5 ms apart, exit once a round's "
          "train passes (delay_min + ack_delay) / 2")
def _(p):
    bulk(p)
    p.run(until=acked(400))


@scenario("hystart_train_paced",
          "HyStart with pacing on (SO_MAX_PACING_RATE 1 MB/s: ACKs 1 ms apart, "
          "initcwnd 60: pacing-limited): the paced ACK-train threshold is delay_min "
          "+ ack_delay, not half of it, so no train exit where an unpaced flow exits")
def _(p):
    p.pacing = 1000000
    p.initcwnd = 60
    p.timer_quantum = 1000
    # pacing releases come 250 us after grid points: a step still busy then
    # may count in TCP_INFO a paced segment it did not see on the TUN
    p.check_sent = True
    p.connect()
    # pacing releases stay 250 us off the grid: never racing an ACK we write
    p.write_at(250, 10 * p.mss, exact=True)
    p.bulk(100000 * p.mss, RTT + 1250, exact=True)
    p.run(until=acked(400))


@scenario("hystart_train_delayed_acks",
          "HyStart ACK train with delayed ACKs (one ACK per 2 segments, 40 ms timer): "
          "2 segments per slot, so one ACK per slot, 0.5 ms apart (1.5 ms per tick)")
def _(p):
    # one segment per slot would put the ACKs at 0.5, 1.5, 2.5 ms of every
    # tick: the 2.0 ms gap across ticks is hystart_ack_delta_us itself, and
    # whether the train survives it was decided by processing time
    p.ack_every = 2
    p.burst = 2
    bulk(p)
    p.run(until=acked(400))


def spread(p):
    # two ACK slots per tick (0.5 and 3.0 ms): gaps of 2.5 ms break every
    # ACK train; 4 segments per slot: 2000 segments/s, BDP 85
    p.slots = {500, 3000}
    p.burst = 4


@scenario("hystart_delay_rtt_step_up",
          "HyStart delay exit: the path's RTT steps up 10 ms (threshold 5.3 ms) "
          "with cwnd ~40; ACK trains broken by 2.5 ms gaps")
def _(p):
    spread(p)
    bulk(p)
    p.at(3 * RTT + 2 * MS, set_("rtt", RTT + 10 * MS))
    p.run(until=acked(500))


@scenario("hystart_delay_small_step_no_exit",
          "HyStart delay test stays quiet: RTT steps up 2 ms only (threshold 5.3 ms); "
          "slow start ends by loss instead")
def _(p):
    spread(p)
    bulk(p)
    p.at(3 * RTT + 2 * MS, set_("rtt", RTT + 2 * MS))
    p.drop(140)
    p.run(until=acked(500))


@scenario("hystart_delay_min_drops_mid_round",
          "HyStart delay_min jumps down mid-round: RTT 52.5 ms, 42.5 ms for 8 ms, "
          "then 52.5 ms again: the next round's samples exceed the new threshold")
def _(p):
    spread(p)
    p.rtt = RTT + 10 * MS
    bulk(p)
    t = 3 * (RTT + 10 * MS) + 10 * MS
    p.at(t, set_("rtt", RTT))
    p.at(t + 8 * MS, set_("rtt", RTT + 10 * MS))
    p.run(until=acked(500))


@scenario("hystart_low_window_gate",
          "HyStart stays idle below hystart_low_window (16): the RTT steps up while "
          "cwnd is 10-16; the delay exit waits for a round with cwnd >= 16 and 8 samples")
def _(p):
    spread(p)
    bulk(p)
    p.at(RTT + 2 * MS, set_("rtt", RTT + 12 * MS))
    p.run(until=acked(400))


@scenario("hystart_round_restart_after_loss",
          "slow start after a loss recovery below ssthresh is not HyStart's (rounds "
          "restart; the detectors only act in the initial slow start)")
def _(p):
    p.burst = 2
    bulk(p)
    p.drop(30)
    p.run(until=acked(600))


# -- loss recovery ----------------------------------------------------------

@scenario("ss_loss_sack", "slow-start loss of one segment, SACK fast recovery with PRR")
def _(p):
    bulk(p)
    p.drop(60)
    p.run(until=acked(400))


@scenario("ss_loss_reno", "slow-start loss without SACK: Reno dupack recovery, PRR, NewReno partial ACKs")
def _(p):
    p.sack = False
    bulk(p)
    p.drop(60)
    p.drop(64)
    p.run(until=acked(400))


@scenario("ss_loss_no_timestamps", "slow-start loss with SACK but no timestamps")
def _(p):
    p.ts = False
    bulk(p)
    p.drop(60)
    p.run(until=acked(400))


@scenario("recovery_multiple_holes", "three losses in one window, SACK recovery, PRR's slow-start bound")
def _(p):
    bulk(p)
    for i in (60, 63, 70):
        p.drop(i)
    p.run(until=acked(400))


@scenario("recovery_burst_loss", "ten consecutive losses in one window (PRR with a big pipe drop)")
def _(p):
    bulk(p)
    for i in range(60, 70):
        p.drop(i)
    p.run(until=acked(400))


@scenario("recovery_lost_retransmit", "the fast retransmission is lost too: RACK marks it lost again")
def _(p):
    bulk(p)
    p.drop(60, txn={1, 2})
    p.run(until=acked(400), end=4000 * MS)


@scenario("ca_loss_after_growth",
          "two losses: slow-start loss, congestion avoidance (cubic growth on jiffies), "
          "a second loss with Wmax fast convergence")
def _(p):
    bulk(p)
    p.drop(60)
    p.drop(600)
    p.run(until=acked(1000), end=8000 * MS)


@scenario("ca_growth_3s",
          "congestion avoidance for 3 s after a slow-start loss: cubic's window curve "
          "(K, origin point, Reno-friendly region) ACK by ACK on jiffies")
def _(p):
    p.burst = 3  # 4500 segments/s: the window, not the link, limits
    bulk(p)
    p.drop(50)
    # congestion avoidance after the recovery: a step need only be in its tick
    p.lax = lambda p: p.rcv_nxt() > 51 * p.mss and in_ca(p)
    p.run(end=3000 * MS)


@scenario("rack_reorder_timeout",
          "RACK reorder timer: one segment lost near the tail, one SACK after it; "
          "recovery starts from tcp_rack_reo_timeout")
def _(p):
    p.connect()
    p.write_at(0, 40 * p.mss)
    p.drop(38)
    p.run(until=all_acked, end=2000 * MS)


@scenario("rack_reorder_timeout_ca",
          "RACK reorder timer after slow start ended: app-limited tail, one hole, "
          "recovery from the timer with nothing else in flight")
def _(p):
    p.connect()
    p.write_at(0, 100 * p.mss)
    p.drop(50)
    p.write_at(700 * MS, 20 * p.mss)
    p.drop(118)
    p.run(until=all_acked, end=3000 * MS)


@scenario("reorder_dsack_undo",
          "reordering, not loss: a segment arrives 20 ms late after 3 SACKs, "
          "spurious fast retransmit, DSACK undo restores cwnd and ssthresh")
def _(p):
    bulk(p)
    # 58, not 60: 60's slot was the last of a tick, and the hole it left
    # made a 2.0 ms ACK gap, HyStart's ACK-spacing limit (check_train_gap)
    p.delay(58, 20 * MS)
    p.run(until=acked(400))


@scenario("hystart_exit_starts_undone_recovery",
          "HyStart's delay exit fires on the very ACK that starts fast recovery "
          "(3 SACKs beyond a segment 80 ms late); the retransmission ends the "
          "recovery, the late original's DSACK undoes it: ssthresh goes back to "
          "HyStart's cwnd (prior_ssthresh, 112), not infinity")
def _(p):
    # hystart_delay_rtt_step_up's path: its delay exit is the ACK of 102-105;
    # 102 comes 80 ms late (after its retransmission), so that ACK SACKs
    # 103-105 instead and starts the recovery; the DSACK undo comes when the
    # HyStart round has ended (an implementation that restored infinity would
    # need 8 more samples to exit again)
    spread(p)
    bulk(p)
    p.at(3 * RTT + 2 * MS, set_("rtt", RTT + 10 * MS))
    p.delay(102, 80 * MS)
    p.run(until=acked(500))


@scenario("ca_recovery_within_1s_delay_min",
          "a recovery starts in congestion avoidance less than 1 s after the "
          "previous one's epoch began, on an ACK whose RTT sample is the lowest yet "
          "(the path got 10 ms shorter): cubic discards it (epoch_start < 1 s old), "
          "so delay_min, and with it the next epoch's t, stay as they were")
def _(p):
    p.burst = 3  # 4500 segments/s, BDP 191: no standing queue in the samples
    bulk(p)
    p.drop(50)
    t1 = 700 * MS
    p.at(t1, set_("rtt", RTT - 10 * MS))

    def drop_next(p):
        # the next new segment, sent once the queue ahead has drained: the 3
        # segments after it carry 32.5 ms samples, and the third SACK starts
        # the recovery
        p.drop(p.highest // p.mss)
    p.at(t1 + 15 * MS, drop_next)
    p.run(end=t1 + 2500 * MS)


@scenario("reorder_dsack_undo_ca",
          "spurious fast retransmit in congestion avoidance, undone by DSACK")
def _(p):
    bulk(p)
    p.drop(50)
    p.delay(400, 20 * MS)
    p.run(until=acked(700), end=6000 * MS)


@scenario("tlp_tail_loss",
          "tail loss probe: the last segment is lost, the probe repairs it, new data "
          "ACKed past tlp_high_seq: CWR, cwnd to ssthresh, back to Open")
def _(p):
    p.connect()
    p.write_at(0, 30 * p.mss)
    p.drop(29)
    p.write_at(500 * MS, 10 * p.mss)
    p.run(until=all_acked, end=3000 * MS)


@scenario("tlp_tail_loss_new_sack",
          "TLP repaired a loss, and the ACK past tlp_high_seq also SACKs new data: "
          "CWR -> Disorder (not Open)")
def _(p):
    p.connect()
    p.write_at(0, 30 * p.mss)
    p.drop(29)
    p.write_at(500 * MS, 10 * p.mss)
    p.delay(30, 1 * MS)   # arrives after 32: its ACK (past tlp_high_seq) SACKs 32
    p.drop(31)
    p.run(until=all_acked, end=3000 * MS)


@scenario("tlp_dsack_no_loss",
          "TLP probe and the (late) original both arrive: DSACK, no cwnd reduction")
def _(p):
    p.connect()
    p.write_at(0, 30 * p.mss)
    p.delay(29, 120 * MS)
    p.write_at(500 * MS, 10 * p.mss)
    p.run(until=all_acked, end=3000 * MS)


@scenario("frto_spurious_rto",
          "F-RTO: a 600 ms delay spike fires the RTO, the late ACKs cover "
          "never-retransmitted data: spurious, cwnd and ssthresh undone")
def _(p):
    bulk(p)
    p.drop(50)
    p.freeze(1000 * MS, 1600 * MS)
    p.run(end=3000 * MS)


@scenario("rto_repeated",
          "repeated RTOs: a 1.2 s black hole, RTO backoff 1x 2x 4x, Loss state, "
          "cwnd 1, slow start back to ssthresh")
def _(p):
    p.timer_phase = 8 * MS  # backed-off RTOs: the wheel's level 1 (see rto_in_slow_start)
    bulk(p)
    p.drop(50)
    p.blackhole(1000 * MS, 2200 * MS)
    p.run(end=4000 * MS, max_steps=3000)


@scenario("rto_in_slow_start",
          "RTO in slow start: everything after segment 40 is lost for 400 ms")
def _(p):
    # the first RTO (63 jiffies) is on the wheel's level 0, the backed-off one
    # (128) on level 1: it fires at a multiple of 8 jiffies, or one later
    p.timer_phase = 8 * MS
    bulk(p)
    p.blackhole(2 * RTT, 2 * RTT + 400 * MS)
    p.run(end=2000 * MS)


# -- ECN ----------------------------------------------------------------------

@scenario("ecn_cwr_slow_start", "ECN: a CE mark in slow start, ECE echo, CWR state, PRR reduction, CWR flag")
def _(p):
    p.ecn = True
    bulk(p)
    p.ce(60)
    p.run(until=acked(400))


@scenario("ecn_cwr_ca", "ECN: CE marks in congestion avoidance, once per RTT twice")
def _(p):
    p.ecn = True
    bulk(p)
    p.ce(60)
    p.ce(400)
    p.ce(500)
    p.run(until=acked(800), end=6000 * MS)


# -- idle, application and receive window limits ---------------------------

def idle(p, gap):
    p.sysctls["net.ipv4.tcp_slow_start_after_idle"] = 1
    p.connect()
    p.write_at(0, 200 * p.mss)
    p.drop(60)
    t = 1500 * MS
    p.write_at(t + gap, 200 * p.mss)
    p.run(until=all_acked, end=t + gap + 2000 * MS)


@scenario("idle_restart_short",
          "restart after a short idle (0.35 s, one RTO): cwnd halves per RTO idle, "
          "ssthresh keeps 3/4")
def _(p):
    idle(p, 350 * MS)


@scenario("idle_restart_long",
          "restart after a long idle (2 s): cwnd back to the restart window (10)")
def _(p):
    idle(p, 2000 * MS)


@scenario("idle_no_restart",
          "idle 1 s with tcp_slow_start_after_idle=0: cwnd kept, cubic's epoch shifted by the idle time")
def _(p):
    p.connect()
    p.write_at(0, 200 * p.mss)
    p.drop(60)
    p.write_at(2500 * MS, 300 * p.mss)
    p.run(until=all_acked, end=6000 * MS)


@scenario("app_limited",
          "application-limited: 8 segments every 60 ms after slow start, cwnd must "
          "not grow while not cwnd-limited")
def _(p):
    p.connect()
    p.write_at(0, 150 * p.mss)
    p.drop(60)
    for i in range(30):
        p.write_at(1200 * MS + i * 60 * MS, 8 * p.mss)
    p.run(until=all_acked, end=4000 * MS)


@scenario("app_limited_rfc2861",
          "application-limited with tcp_slow_start_after_idle=1: RFC 2861 halves "
          "the unused cwnd after each RTO interval",
          skip_fast="README: the fast datapath runs RFC 2861's check once per ACK, "
                    "the kernel after each transmission")
def _(p):
    p.sysctls["net.ipv4.tcp_slow_start_after_idle"] = 1
    p.connect()
    p.write_at(0, 150 * p.mss)
    p.drop(60)
    for i in range(25):
        p.write_at(1200 * MS + i * 60 * MS, 4 * p.mss)
    p.run(until=all_acked, end=4000 * MS)


@scenario("rwnd_limited",
          "receive-window-limited: 20 segments of window for 1 s, then 32 MB: "
          "no growth while rwnd-limited, slow start resumes after")
def _(p):
    p.rwnd = 20 * p.mss
    bulk(p)
    p.at(1000 * MS, set_("rwnd", 32 << 20))
    p.run(until=acked(600), end=4000 * MS)


@scenario("rwnd_shrinks_in_ca",
          "the receive window shrinks to 30 segments in congestion avoidance, then opens")
def _(p):
    bulk(p)
    p.drop(60)
    p.at(1500 * MS, set_("rwnd", 30 * p.mss))
    p.at(2500 * MS, set_("rwnd", 32 << 20))
    p.run(end=4000 * MS)


@scenario("cwnd_clamp",
          "snd_cwnd_clamp 30: a route with 'cwnd lock 30' and a priming connection "
          "that closes (its TCP metrics entry carries the lock to this one): slow "
          "start stops at 30 and cwnd stays there (asserted)")
def _(p):
    p.sysctls["net.ipv4.tcp_no_metrics_save"] = 0
    p.route_extra = "cwnd lock 30"
    p.prime_metrics = True
    bulk(p)
    p.run(until=acked(500), end=4000 * MS)
    cw = [s["cwnd"] for s in p.steps]
    first = cw.index(30) if 30 in cw else None
    if max(cw) != 30 or first is None or first > len(cw) // 2 or \
            any(c != 30 for c in cw[first:]):
        raise RuntimeError("cwnd_clamp: the clamp is not in effect (max cwnd %d, "
                           "first at 30: %s, last %d)" % (max(cw), first, cw[-1]))


@scenario("initcwnd_route",
          "a route's initcwnd 40: the initial window and the first HyStart round")
def _(p):
    p.initcwnd = 40
    bulk(p)
    p.run(until=acked(400))


# -- long congestion avoidance: the cube root -------------------------------

def in_ca(p):
    """the last step is in congestion avoidance: Open, ssthresh set, cwnd at
    or above it (no HyStart, no recovery)"""
    st = p.steps[-1]
    return st["ca_state"] == 0 and st["cwnd"] >= st["ssthresh"] and \
        st["ssthresh"] < 1 << 30 and st["lost"] == 0 and st["sacked"] == 0


def count_ca_acks(p):
    """ACK steps recorded while p.lax(p) held (until() may be asked more than
    once about the same step: count each step once)"""
    if not hasattr(p, "ca_acks"):
        p.ca_acks, p.ca_counted = 0, 0
    while p.ca_counted < len(p.steps):
        p.ca_counted += 1
        if p.steps[p.ca_counted - 1]["ev"].startswith("ack") and p.lax_at[p.ca_counted - 1]:
            p.ca_acks += 1
    return p.ca_acks


def ca_long(p, drop_at, n_acks):
    """A 202.5 ms path, 4 ACK slots per tick (0.5-2.0 ms: a step may start up
    to 2 ms late and still be in its tick; the 2.5 ms gap breaks HyStart's ACK
    trains), 5 segments per slot (5000 segments/s, BDP 1012). Slow start until
    HyStart's delay detector ends it; segment drop_at is lost (Wmax ~10^3),
    then n_acks ACKs of congestion avoidance. Once the flow is in congestion
    avoidance after that loss, a step may start more than LATE_US late as long
    as it is in its tick (nothing there depends on microseconds)."""
    # 202.5 ms: delay_min is 50.6 jiffies, far from a jiffy (cubic's t adds
    # usecs_to_jiffies(delay_min)); HyStart's thresholds stay 250 us off the
    # 500 us lattice
    p.rtt = 202500
    p.slots = {500, 1000, 1500, 2000}
    p.burst = 5
    bulk(p, 400000)
    p.drop(drop_at)
    p.lax = lambda p: p.rcv_nxt() > (drop_at + 1) * p.mss and in_ca(p)
    count_ca_acks(p)

    def until(p):
        return count_ca_acks(p) >= n_acks
    p.run(until=until, max_steps=40000)


@scenario("ca_long_wmax1e3",
          "10^4 ACKs of congestion avoidance after a loss at Wmax ~1300 (K ~10 s; "
          "202.5 ms path): the cwnd curve follows K, so the kernel's cube root "
          "(not an exact one: K 8 ms apart here) shows", timeout=60, retries=20)
def _(p):
    ca_long(p, 1008, 10000)
