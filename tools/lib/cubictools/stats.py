# SPDX-License-Identifier: GPL-2.0
"""Statistics of small samples: medians and their confidence interval,
ranges, paired ratios. None in a sample means "not measured" and is left out."""
import math


def values(xs):
    """The measured values of XS (None left out), sorted."""
    return sorted(x for x in xs if x is not None)


def median(xs):
    """The median (the mean of the two middle values of an even count), or
    None for no values."""
    v = values(xs)
    n = len(v)
    if not n:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def mean(xs):
    v = values(xs)
    return sum(v) / len(v) if v else None


def median_min_max(xs):
    """(median, min, max), or (None, None, None) for no values."""
    v = values(xs)
    return (median(v), v[0], v[-1]) if v else (None, None, None)


def median_ci_ranks(n, level=0.95):
    """The ranks (1-based) k and n - k + 1 whose values bound a
    distribution-free confidence interval of the median of n values: k the
    largest rank with P(Binomial(n, 1/2) < k) <= (1 - level) / 2. None when
    n is too small for any (n < 6 at 95 %). n = 30: (10, 21), 95.7 %."""
    tail = (1 - level) / 2
    c, k = 0.0, 0
    for i in range(n):
        p = math.comb(n, i) / 2 ** n
        if c + p > tail:
            break
        c += p
        k = i + 1
    return (k, n - k + 1) if k >= 1 else None


def median_ci(xs, level=0.95):
    """(low, high) of the distribution-free confidence interval of the
    median of XS (order statistics of the binomial), or None."""
    v = values(xs)
    ranks = median_ci_ranks(len(v), level)
    return (v[ranks[0] - 1], v[ranks[1] - 1]) if ranks else None


def paired_ratios(xs, ys):
    """xs[i] / ys[i] for each pair whose ys[i] is positive."""
    return [x / y for x, y in zip(xs, ys) if y > 0]
