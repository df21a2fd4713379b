# SPDX-License-Identifier: GPL-2.0
"""The scenarios of the differential tester: each one a scripted TCP
conversation (see dtpeer.Peer), named after what it checks."""

from dtpeer import TICK

REG = {}


class Scenario:
    def __init__(self, name, doc, fn, skip_fast=None, tol=None, timeout=60):
        self.name, self.doc, self.fn = name, doc, fn
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


MS = 1000


def segs_acked(n):
    return lambda p: p.rcv_nxt() >= n * p.mss


@scenario("ss_loss_sack", "slow-start loss, SACK recovery with PRR")
def _(p):
    p.connect()
    p.drop(60)
    p.write_at(0, 2 << 20)
    p.run(until=segs_acked(400), end=3000 * MS)
