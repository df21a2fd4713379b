# SPDX-License-Identifier: GPL-2.0
"""What the Python unit tests (tests/unit/test_*.py) share: the checkout's
root, the checks, and the summary line tests/run.sh unit counts
("NAME: N passed, N failed"; exit 1 if any failed). Standard library only.
A test imports it after sys.dont_write_bytecode = True, from its own folder."""
import math
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

passed = failed = 0


def check(what, cond):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


def eq(what, got, want):
    check(f"{what}: got {got!r}, want {want!r}", got == want)


def close(what, got, want, tol=1e-12):
    check(f"{what}: got {got!r}, want {want!r}", got is not None and math.isclose(got, want, rel_tol=tol))


def done(name):
    print(f"{name}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
