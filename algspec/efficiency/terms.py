"""Monomials n^a m^b log^c n (log log n)^d (log* n)^e and sums of them, kept as antichains.

The terms `algspec.efficiency.asymptotic.Asymptotic` builds its classes from: their
products, powers and growth, and the dominance order that decides which terms of a
sum are kept (n <= m <= n^2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

Number = int | float | Fraction


def frac(x: Number) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x).limit_denominator(1000)


Growth = tuple[Fraction, Fraction, Fraction, Fraction]


def log_star(x: float) -> int:
    """The iterated logarithm: how often log2 must be applied to x to reach 1 or less
    (0 for x <= 1; log*(2) = 1, log*(4) = 2, log*(16) = 3, log*(65536) = 4)."""
    if math.isnan(x) or x == math.inf:
        raise ValueError(f"log* of {x} is not a number")
    k = 0
    while x > 1:
        x = math.log2(x)
        k += 1
    return k


@dataclass(frozen=True, order=True)
class Term:
    """One monomial n^n m^m (log n)^log (log log n)^loglog (log* n)^logstar; exponents
    may be negative or fractional."""

    n: Fraction = Fraction(0)
    m: Fraction = Fraction(0)
    log: Fraction = Fraction(0)
    loglog: Fraction = Fraction(0)
    logstar: Fraction = Fraction(0)

    def _exps(self) -> tuple[Fraction, ...]:
        return (self.n, self.m, self.log, self.loglog, self.logstar)

    def __mul__(self, o: Term) -> Term:
        return Term(*(a + b for a, b in zip(self._exps(), o._exps())))

    def __truediv__(self, o: Term) -> Term:
        return Term(*(a - b for a, b in zip(self._exps(), o._exps())))

    def __pow__(self, p: Number) -> Term:
        p = frac(p)
        return Term(*(a * p for a in self._exps()))

    def is_one(self) -> bool:
        return not any(self._exps())

    def growth(self, t: int) -> Growth:
        """(power of n, of log n, of log log n, of log* n) at m = n^t: compared
        lexicographically, the larger tuple is the larger term for large n (each factor
        grows slower than any positive power of the one before)."""
        return (self.n + self.m * t, self.log, self.loglog, self.logstar)

    def dominated_by(self, o: Term) -> bool:
        """self = O(o) for all large n and every m with n <= m <= n^2.

        The interconnection graph has n <= m <= n^2 (self-loops included), so
        with m = n^t, t in [1, 2], a term is n^(a + b t) log^c n (log log n)^d. The
        exponent is linear in t: self is dominated when it is no larger at both ends
        t = 1 and t = 2, the log exponent deciding where the powers tie (a polynomial
        factor beats any power of log n), then the log log exponent, then log*.
        """
        return all(self.growth(t) <= o.growth(t) for t in (1, 2))

    def strictly_dominated_by(self, o: Term) -> bool:
        """self = o(o): smaller by a growing factor for every m with n <= m <= n^2."""
        return all(self.growth(t) < o.growth(t) for t in (1, 2))

    def value(self, n: float, m: float | None) -> float:
        try:
            return self._value(n, m)
        except OverflowError:  # n^(4^256): beyond a float
            return math.inf

    def _value(self, n: float, m: float | None) -> float:
        out = float(n) ** float(self.n)
        if self.m:
            if m is None:
                raise ValueError("this class depends on m: pass m=...")
            out *= float(m) ** float(self.m)
        if self.log:  # log n counts at least 1, so classes stay positive at n = 1
            out *= max(math.log2(n), 1.0) ** float(self.log)
        if self.loglog:  # and so does log log n
            out *= max(math.log2(max(math.log2(n), 1.0)), 1.0) ** float(self.loglog)
        if self.logstar:  # and log* n
            out *= max(log_star(n), 1) ** float(self.logstar)
        return out

    def gcd(self, o: Term) -> Term:
        return Term(*(min(a, b) for a, b in zip(self._exps(), o._exps())))


ONE_TERM = Term()


def reduce_terms(terms: Iterable[Term]) -> frozenset[Term]:
    """Keep only the terms no other term dominates (an antichain)."""
    ts = set(terms)
    keep = []
    for t in ts:
        if not any(o != t and t.dominated_by(o) for o in ts):
            keep.append(t)
    return frozenset(keep)


def mul_sums(a: frozenset[Term], b: frozenset[Term]) -> frozenset[Term]:
    return reduce_terms(x * y for x in a for y in b)


def dominated(a: frozenset[Term], b: frozenset[Term]) -> bool:
    """Every term of a is O(some term of b): the sum a = O(sum b)."""
    return all(any(t.dominated_by(o) for o in b) for t in a)


def strictly_dominated(a: frozenset[Term], b: frozenset[Term]) -> bool:
    """Every term of a is o(some one term of b): the sum a = o(sum b) (conservatively)."""
    return all(any(t.strictly_dominated_by(o) for o in b) for t in a)


def top_growth(terms: frozenset[Term], t: int) -> Growth:
    """The growth tuple of the largest term of a sum at m = n^t."""
    return max(x.growth(t) for x in terms)


def content(a: frozenset[Term]) -> Term:
    """The largest monomial dividing every term (componentwise minimum)."""
    it = iter(a)
    g = next(it)
    for t in it:
        g = g.gcd(t)
    return g


__all__ = ["ONE_TERM", "Growth", "Number", "Term", "content", "dominated", "frac", "log_star", "mul_sums", "reduce_terms", "strictly_dominated", "top_growth"]
