# SPDX-License-Identifier: GPL-2.0
"""Statistics of small samples: medians and their confidence interval,
ranges, paired ratios, one-sided tests of two groups (rank sum, Fisher). None
in a sample means "not measured" and is left out."""
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


def rank_sum_greater(xs, ys, draws=20000):
    """One-sided p-value that XS tends to be larger than YS (Mann-Whitney U,
    ties counted half): the share of the ways to split the pooled values into
    groups of XS's and YS's sizes whose U is at least the observed one. Exact
    (every split) up to DRAWS splits, else DRAWS random splits from a fixed seed,
    so that a report gives the same figure every time. None if either group
    is empty."""
    import itertools
    import random
    x, y = values(xs), values(ys)
    if not x or not y:
        return None
    pool = x + y
    n, k = len(pool), len(x)

    def u(idx):
        s = set(idx)
        a = [pool[i] for i in idx]
        b = [pool[i] for i in range(n) if i not in s]
        return sum((p > q) + 0.5 * (p == q) for p in a for q in b)

    obs = u(range(k))
    if math.comb(n, k) <= draws:
        splits = itertools.combinations(range(n), k)
        total = math.comb(n, k)
    else:
        rng = random.Random(1)
        splits = (rng.sample(range(n), k) for _ in range(draws))
        total = draws
    return sum(1 for idx in splits if u(idx) >= obs - 1e-9) / total


def fisher_greater(a, n1, b, n2):
    """One-sided p-value that A events in N1 trials is a higher rate than B in
    N2 (Fisher's exact test: the hypergeometric tail P(X >= A) with the
    margins fixed). None if a group is empty."""
    if n1 <= 0 or n2 <= 0:
        return None
    k, n = a + b, n1 + n2
    return sum(math.comb(k, i) * math.comb(n - k, n1 - i)
               for i in range(a, min(k, n1) + 1)) / math.comb(n, n1)
