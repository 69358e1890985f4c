"""Fitting a measured share (or count) across sizes to a class in n.

The skeleton (`selection`) measures what a data-independent test selects at a few
sizes; these turn the numbers into classes. A class in n alone cannot name a count
that does not grow when the bound it is a share of is in m, so a count that is the
same at every size is recognised as such (`constant_count`).
"""

from __future__ import annotations

import numpy as np

from algspec.efficiency.asymptotic import Asymptotic
from algspec.ir import libm

LOG_FACTOR_SHARE = 0.25  # how much of a log factor's drift a simpler class may be off


def constant_count(counts: list[float]) -> bool:
    """Whether a positive count per execution is the same at every size (4 or more)."""
    return len(counts) >= 4 and counts[0] > 0 and \
        all(abs(c - counts[0]) <= 1e-9 * counts[0] for c in counts)


def fit_share(sizes: list[int], shares: list[float]) -> Asymptotic:
    """The class n^a log^b n that makes share / class most nearly constant over `sizes`.

    Among candidates that fit about equally well (within 0.05 plus a quarter of
    a log factor's drift over the sizes of the best spread of log(share / class))
    the simplest wins: smallest |b|, then no fractional power, then a closest
    to 0. A share that is zero at every size is the class 0.
    """
    pts = [(s, v) for s, v in zip(sizes, shares) if v > 0]
    if not pts:
        return Asymptotic.const(0)
    if len(pts) < 2:
        return Asymptotic.const(1)
    ln = libm.log([p[0] for p in pts])  # libm's log: the same fit on every CPU
    lln = libm.log(libm.log2([p[0] for p in pts]))
    y = libm.log([p[1] for p in pts])
    cands = []
    for a in (0.0, -0.5, -1.0, -1.5, -2.0):
        for b in (0, -1, 1, -2, 2):
            if a == 0 and b > 0:
                continue  # a share never exceeds 1
            r = y - a * ln - b * lln
            cands.append((float(np.max(r) - np.min(r)), abs(b), -a, a, b))
    # Lower-order terms (the 1 - 2/n of a stencil's `0 < v < n - 1`) move the ratio at
    # these small sizes, and an exotic class can absorb them (n^(-1/2) log^2 n is flat
    # between 8 and 256). So the simplest class wins unless it is off from the best fit
    # by a quarter of a log factor over the sizes; a whole log factor is still seen.
    best = min(c[0] for c in cands)
    tol = 0.05 + LOG_FACTOR_SHARE * float(lln[-1] - lln[0])
    ok = [c for c in cands if c[0] <= best + tol]
    _, _, _, a, b = min(ok, key=lambda c: _complexity(c[3], c[4]))
    return Asymptotic.term(n=a, log=b)


def _complexity(a: float, b: int) -> tuple:
    """Simpler first: fewer logs, then no fractional power, then a smaller power."""
    return (abs(b), a != int(a), -a)


__all__ = ["LOG_FACTOR_SHARE", "constant_count", "fit_share"]
