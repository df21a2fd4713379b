# SPDX-License-Identifier: GPL-2.0
"""build/vocab.json: the exit reasons and counters of include/cubic_abi.h, as
`make` writes them with `cubicctl help --reasons-json`. A new exit reason is
one line there; tools learn it from here."""
import json
import os

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEFAULT_PATH = os.path.join(REPO, "build", "vocab.json")
NO_EXIT = "none"        # a flow that never left slow start
NO_EXIT_ABBREV = "-"
# The reason of a loss response: ssthresh = beta x cwnd. Every other reason
# that ends slow start is a detector's exit, which sets ssthresh = cwnd.
LOSS = "loss"


class Vocab:
    def __init__(self, doc):
        self.reasons = list(doc["reasons"])
        self.counters = [c["key"] for c in doc["counters"]]
        self._by_name = {r["name"]: r for r in self.reasons}
        for r in self.reasons:
            if r["counter"] not in self.counters:
                raise ValueError(f"vocab: reason {r['name']}'s counter {r['counter']} is not a counter")
        if LOSS not in self._by_name:
            raise ValueError(f"vocab: no exit reason '{LOSS}'")

    def reason(self, name):
        """The table row of reason NAME (KeyError naming it if there is none)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"vocab: no exit reason '{name}' in build/vocab.json") from None

    def check(self, name):
        """NAME, if it is a reason (KeyError naming it if not): for the code
        that is about one reason, e.g. HyStart++'s css_enter."""
        return self.reason(name)["name"]

    @property
    def exits(self):
        """The names of the reasons that end slow start, in table order."""
        return [r["name"] for r in self.reasons if r["ends_slow_start"]]

    @property
    def detector_exits(self):
        """The exits by a detector (ssthresh = cwnd): every exit but loss."""
        return [n for n in self.exits if n != LOSS]

    def abbrev(self, name):
        """The one-letter tag of a reason (NO_EXIT: '-'), or NAME itself."""
        if name == NO_EXIT:
            return NO_EXIT_ABBREV
        r = self._by_name.get(name)
        return r["abbrev"] if r else name

    def exit_of(self, record):
        """The first reason (table order) that ends slow start and is set in
        a `cubicctl -j trace` record, or None."""
        return next((n for n in self.exits if record.get(n)), None)

    def legend(self):
        """'T ack train, D delay, ..., - no exit.' for the exits."""
        return ", ".join([f"{self.abbrev(n)} {n.replace('_', ' ')}" for n in self.exits]
                         + [f"{NO_EXIT_ABBREV} no exit"]) + "."


def load(path=None):
    """The vocabulary in PATH (default build/vocab.json of this checkout)."""
    path = path or DEFAULT_PATH
    try:
        with open(path) as f:
            return Vocab(json.load(f))
    except OSError as e:
        raise SystemExit(f"cannot read {path} ({e.strerror}): run make, which writes it "
                         "with cubicctl help --reasons-json") from None
