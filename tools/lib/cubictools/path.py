# SPDX-License-Identifier: GPL-2.0
"""pathemu's arithmetic: from its --rate, --rtt, --buffer, --loss and
--jitter to the numbers it configures (tools/emu/README.md)."""
from . import parse

RATE_MIN, RATE_MAX = 8000, 100e9     # bit/s
TIME_MIN, TIME_MAX = 1, 10e6         # us
BUF_MAX = 1000000                    # packets


class BadInput(ValueError):
    """An option pathemu must refuse (exit 2); the message names it."""


def _us(text):
    t = parse.parse_time(text) * 1e6
    if not TIME_MIN <= t <= TIME_MAX:
        raise ValueError(text)
    return int(t + 0.5)


def config(rate, rtt, buffer, loss="0", jitter="", burst_us=250):
    """The path's numbers, as pathemu's config file and its tc/nft rules
    need them. Raises BadInput."""
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
    # TBF burst: burst_us of tokens, at least two full packets
    burst = max(rate_bps / 8 * burst_us * 1e-6, 2 * parse.IP_PKT)
    bdp_pkts = int(float(bdp) + 0.5)
    return {
        "rate_bps": rate_bps, "rtt_us": rtt_us, "bdp": bdp, "bdp_pkts": bdp_pkts, "bdp_bytes": bdp_pkts * parse.IP_PKT,
        "buffer_pkts": buf_pkts, "buffer_bytes": buf_pkts * parse.IP_PKT,
        "buffer_bdp": f"{buf_pkts / float(bdp) if float(bdp) > 0 else 0:.3f}",
        "loss_pct": loss_pct, "loss_ppm": int(float(loss_pct) * 10000 + 0.5), "jitter_us": jitter_us,
        "tbf_burst_bytes": int(burst), "mss": parse.MSS, "pkt_bytes": parse.IP_PKT,
    }
