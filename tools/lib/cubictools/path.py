# SPDX-License-Identifier: GPL-2.0
"""pathemu's arithmetic: from its --rate, --rtt, --buffer, --loss, --jitter,
--rtt-step, --ack-agg, --policer and --trace to the numbers it configures
(tools/emu/README.md)."""
from . import parse

RATE_MIN, RATE_MAX = 8000, 100e9     # bit/s
TIME_MIN, TIME_MAX = 1, 10e6         # us
BUF_MAX = 1000000                    # packets
# The emulator's delay lines late on more than 1 % of their packets by more
# than this (their release-error p99, us) over a flow or a transfer: the path
# was not the one emulated (tools/emu/README.md: 65-450 us under load; on a
# host that held the VM's vCPUs, 3-5 ms, and the self-test's goodput 0.74 of
# 100 Mbit/s). tools/eval and tools/fct run such a flow again.
EMU_LATE_P99_US = 1000


class BadInput(ValueError):
    """An option pathemu must refuse (exit 2); the message names it."""


def _us(text):
    t = parse.parse_time(text) * 1e6
    if not TIME_MIN <= t <= TIME_MAX:
        raise ValueError(text)
    return int(t + 0.5)


def rtt_step(text):
    """--rtt-step AFTER:RTT[:RAMP] ('300ms:40ms', '200ms:80ms:100ms') ->
    (after_us, rtt_us, ramp_us): AFTER the flow's start (its SYN-ACK) the
    whole RTT becomes RTT, at once or linearly over RAMP. Raises BadInput."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError(text)
        after, new = parse.parse_time(parts[0]) * 1e6, _us(parts[1])
        ramp = parse.parse_time(parts[2]) * 1e6 if len(parts) == 3 else 0
        if not (0 <= after <= TIME_MAX and 0 <= ramp <= TIME_MAX):
            raise ValueError(text)
    except ValueError:
        raise BadInput(f"bad rtt-step '{text}' (AFTER:RTT[:RAMP], e.g. 300ms:40ms or 200ms:80ms:100ms)") from None
    return int(after + 0.5), new, int(ramp + 0.5)


def policer(text):
    """--policer RATE:BURST ('20mbit:100kb') -> (rate_bps, burst_bytes): a token
    bucket before the queue that drops what exceeds it. Raises BadInput."""
    try:
        r, b = text.split(":")
        rate_bps, burst = parse.parse_rate(r), parse.parse_size(b)
        if not (RATE_MIN <= rate_bps <= RATE_MAX and parse.IP_PKT <= burst <= 1e9):
            raise ValueError(text)
    except ValueError:
        raise BadInput(f"bad policer '{text}' (RATE:BURST, e.g. 20mbit:100kb; a burst of at least 1500 bytes)") from None
    return int(rate_bps + 0.5), int(burst + 0.5)


def config(rate, rtt, buffer, loss="0", jitter="", burst_us=250, step="", ack_agg="", police="",
           trace=""):
    """The path's numbers, as pathemu's config file and its tc/nft rules
    need them. A BDP-relative buffer is of RTT (before any --rtt-step);
    rtt_step_bdp_pkts is the BDP at the RTT after the step. With a trace, the
    rate is the trace's mean unless given. Raises BadInput."""
    link_opps = link_period_ms = 0
    if trace:
        try:
            link_opps, link_period_ms = parse.read_mahimahi(trace)
        except (OSError, ValueError) as e:
            raise BadInput(f"bad trace: {e}") from None
        if not rate:
            rate = f"{link_opps * parse.IP_PKT * 8 / (link_period_ms / 1000):.0f}bit"
    try:
        rate_bps = parse.parse_rate(rate)
        if not RATE_MIN <= rate_bps <= RATE_MAX:
            raise ValueError(rate)
        rate_bps = int(rate_bps + 0.5)
    except ValueError:
        raise BadInput(f"bad rate '{rate}' (e.g. 100mbit; 8kbit..100gbit)") from None
    try:
        rtt_us = _us(rtt)
    except ValueError:
        raise BadInput(f"bad rtt '{rtt}' (e.g. 20ms; 1us..10s)") from None
    # BDP in packets, to the 1/1000 (the fractional value sizes a "Nbdp" buffer)
    bdp = f"{rate_bps * rtt_us / 1e6 / 8 / parse.IP_PKT:.3f}"
    try:
        buf_pkts = parse.parse_buffer(buffer, float(bdp))
        if not 1 <= buf_pkts <= BUF_MAX:
            raise ValueError(buffer)
    except ValueError:
        raise BadInput(f"bad buffer '{buffer}' (packets like 250, or 1bdp, 0.25bdp; max {BUF_MAX} packets)") from None
    try:
        loss_pct = f"{parse.parse_loss(loss):g}"
    except ValueError:
        raise BadInput(f"bad loss '{loss}' (percent, 0 <= loss < 100)") from None
    jitter_us = 0
    if jitter:
        try:
            jitter_us = _us(jitter)
        except ValueError:
            raise BadInput(f"bad jitter '{jitter}' (e.g. 5ms; 1us..10s)") from None
    after_us = step_rtt_us = ramp_us = step_bdp_pkts = 0
    if step:
        after_us, step_rtt_us, ramp_us = rtt_step(step)
        step_bdp_pkts = int(rate_bps * step_rtt_us / 1e6 / 8 / parse.IP_PKT + 0.5)
    ack_agg_us = 0
    if ack_agg:
        try:
            ack_agg_us = _us(ack_agg)
        except ValueError:
            raise BadInput(f"bad ack-agg '{ack_agg}' (a period, e.g. 4ms; 1us..10s)") from None
    police_bps = police_burst = 0
    if police:
        police_bps, police_burst = policer(police)
    # TBF burst: burst_us of tokens, at least two full packets
    burst = max(rate_bps / 8 * burst_us * 1e-6, 2 * parse.IP_PKT)
    bdp_pkts = int(float(bdp) + 0.5)
    return {
        "rate_bps": rate_bps, "rtt_us": rtt_us, "bdp": bdp, "bdp_pkts": bdp_pkts, "bdp_bytes": bdp_pkts * parse.IP_PKT,
        "buffer_pkts": buf_pkts, "buffer_bytes": buf_pkts * parse.IP_PKT,
        "buffer_bdp": f"{buf_pkts / float(bdp) if float(bdp) > 0 else 0:.3f}",
        "loss_pct": loss_pct, "loss_ppm": int(float(loss_pct) * 10000 + 0.5), "jitter_us": jitter_us,
        "tbf_burst_bytes": int(burst), "mss": parse.MSS, "pkt_bytes": parse.IP_PKT,
        "rtt_step_after_us": after_us, "rtt_step_rtt_us": step_rtt_us, "rtt_step_ramp_us": ramp_us,
        "rtt_step_bdp_pkts": step_bdp_pkts, "ack_agg_us": ack_agg_us,
        "police_rate_bps": police_bps, "police_burst_bytes": police_burst,
        "link_trace": trace, "link_opportunities": link_opps, "link_period_ms": link_period_ms,
    }


def trace_window(trace, rtt, from_ms, window_ms=1000):
    """A trace link's rate over the window a connection meets when it starts
    the trace from_ms in (pathemu phase), and that rate's BDP at rtt, in
    packets: the pipe a flow there has. Raises BadInput."""
    try:
        times = parse.mahimahi_times(trace)
    except (OSError, ValueError) as e:
        raise BadInput(f"bad trace: {e}") from None
    try:
        rtt_us = _us(rtt)
    except ValueError:
        raise BadInput(f"bad rtt '{rtt}' (e.g. 20ms; 1us..10s)") from None
    if from_ms < 0 or window_ms <= 0:
        raise BadInput(f"bad window {from_ms}+{window_ms} ms")
    n = parse.mahimahi_window(times, from_ms, window_ms)
    rate_bps = int(n * parse.IP_PKT * 8 * 1000 / window_ms + 0.5)
    return {"window_from_ms": from_ms % times[-1], "window_ms": window_ms, "window_opportunities": n,
            "window_rate_bps": rate_bps, "window_bdp_pkts": max(1, int(n * rtt_us / 1000 / window_ms + 0.5))}

