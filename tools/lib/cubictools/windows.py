# SPDX-License-Identifier: GPL-2.0
"""Impossible windows (docs/IMPOSSIBLE_WINDOWS.md): an ssthresh above
TCP_INFINITE_SSTHRESH, or a cwnd (or a finite ssthresh, always derived from a
cwnd the flow had) far above anything the path can hold, is a value no
congestion control computed. One such sample fails the run that saw it; it is
never counted and ignored.

The cwnd bound of an emulated path: slow start at most doubles cwnd per RTT
and a loss is seen about one RTT after the buffer overflows, so a real flow
stays below about 2 x (BDP + buffer) (the committed evaluation: at most
2.2 x); 4 x leaves a factor of two, + 100 packets covers tiny paths where the
initial window and per-ACK growth dominate. An unshaped veth has no BDP: what
a flow can have in flight is bounded by its send buffer (tcp_wmem's maximum),
and the bound is 4 x that + 100 packets. The impossible windows seen were
3,085,192 and above.
"""
from .parse import MSS

INF_SSTHRESH = 0x7FFFFFFF   # TCP_INFINITE_SSTHRESH
IMPOSSIBLE_EXIT = 3         # the exit code of a tool that found one
PATH_BOUND_TEXT = "4 x (BDP + buffer) + 100"


def path_bound(bdp_pkts, buffer_pkts):
    """The largest possible cwnd on an emulated path, packets."""
    return 4 * (bdp_pkts + buffer_pkts) + 100


def send_buffer_bound(wmem_max_bytes):
    """The largest possible cwnd of a flow limited by its send buffer only."""
    return 4 * wmem_max_bytes // MSS + 100


def impossible(cwnd, ssthresh, bound, bound_text=None):
    """Why the sample (ssthresh None: unknown) is impossible, or None.
    BOUND_TEXT names the bound in the message (default "bound N packets")."""
    what = bound_text or f"bound {bound} packets"
    if ssthresh is not None and ssthresh > INF_SSTHRESH:
        return f"ssthresh {ssthresh} > {INF_SSTHRESH} (TCP_INFINITE_SSTHRESH), cwnd {cwnd}"
    if cwnd > bound:
        return f"cwnd {cwnd} > {what}"
    if ssthresh is not None and bound < ssthresh < INF_SSTHRESH:
        return f"ssthresh {ssthresh} > {what}, cwnd {cwnd}"
    return None


def iperf_message(label, max_cwnd, bound):
    """The line a run whose iperf3 sender saw snd_cwnd MAX_CWND fails with."""
    return (f"IMPOSSIBLE WINDOW: {label}: snd_cwnd {max_cwnd} packets > bound {bound} "
            "(docs/IMPOSSIBLE_WINDOWS.md)")
