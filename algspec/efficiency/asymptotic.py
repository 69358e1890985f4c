"""A small algebra of worst-case asymptotic classes in n, m and log n.

A class is a quotient of two *sums of terms* ``n^a m^b log^c n (log log n)^d
(log* n)^e`` with the constants dropped (log* n, the iterated logarithm, grows
slower than any power of log log n: 1 < log* n < log log n < log n < n). Only the dominant terms of a sum are kept: a term is
dropped when another term is at least as large for every large n and every
m with n <= m <= n^2 (the interconnection graph's edges, self-loops
included), so `n + m` is `m`, `n(n+m)` is `nm`, `n/m + 1` is `1`, while
`n^2 + m log n` keeps both terms (neither wins for every such m). This is the tropical view of big-Theta: a sum of non-negative terms
is within a factor of its largest term, so `+` is `max`, and powers
distribute over sums ((a + b)^p ~ a^p + b^p for p > 0).

Quotients cancel exactly when the denominator divides the numerator up to
constants (`n(n+m) / (n+m) = n`), which is what efficiency ratios need:
`eta = work / (N * T)`, `epsilon = active edges / (T * |E|)`.

The terms and their dominance order are `algspec.efficiency.terms`. sympy is
deliberately not used: the classes are tiny and this keeps the core import-light.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from fractions import Fraction

from algspec.efficiency.terms import (
    ONE_TERM,
    Growth,
    Number,
    Term,
    content,
    dominated,
    frac,
    log_star,
    mul_sums,
    reduce_terms,
    strictly_dominated,
    top_growth,
)


class Asymptotic:
    """A worst-case asymptotic class: Theta(num / den), num and den sums of terms.

    Build classes from `n`, `m`, `log_n`, `one` with `+ * / **`; `str` prints
    them readably (`n log n`, `1/n^2`, `n(n+m)`); `evaluate(n=..., m=...)`
    gives the class's value at a point with the constants dropped.
    """

    __slots__ = ("den", "num")
    __hash__ = None  # equality is asymptotic (cross-multiplied), not structural

    def __init__(self, num: Iterable[Term], den: Iterable[Term] = (ONE_TERM,)):
        num, den = reduce_terms(num), reduce_terms(den)
        if not den:
            raise ZeroDivisionError("asymptotic class with a zero denominator")
        self.num, self.den = _normalise(num, den)

    # ------------------------------------------------------------ constructors
    @staticmethod
    def term(n: Number = 0, m: Number = 0, log: Number = 0, loglog: Number = 0,
             logstar: Number = 0) -> Asymptotic:
        return Asymptotic([Term(frac(n), frac(m), frac(log), frac(loglog),
                                frac(logstar))])

    @staticmethod
    def const(value: Number = 1) -> Asymptotic:
        """A constant: 1 (any positive value) or 0."""
        return Asymptotic([ONE_TERM] if value else [])

    @staticmethod
    def parse(text: str) -> Asymptotic:
        """Parse what `str` prints (and a little more): `n(n+m)`, `1/n^2`, `n log n`, `n^2 + nm`,
        `log log n`, `log* n`."""
        return _Parser(text).parse()

    # ------------------------------------------------------------ predicates
    @property
    def is_zero(self) -> bool:
        return not self.num

    def depends_on_m(self) -> bool:
        return any(t.m for t in self.num | self.den)

    def is_O(self, other: Asymptotic) -> bool:
        """self = O(other) for all large n and m."""
        return dominated(mul_sums(self.num, other.den), mul_sums(other.num, self.den))

    def is_o(self, other: Asymptotic) -> bool:
        """self = o(other): smaller by a growing factor for all large n and every m.

        Conservative where sums trade places as m varies (then False).
        """
        if self.is_zero:
            return not other.is_zero
        return strictly_dominated(mul_sums(self.num, other.den), mul_sums(other.num, self.den))

    def growth(self, t: int) -> Growth:
        """(power of n, of log n, of log log n, of log* n) of the class at m = n^t
        (compare lexicographically with (0, 0, 0, 0): above grows, below tends to 0)."""
        if self.is_zero:
            raise ValueError("the zero class has no growth")
        a, b = top_growth(self.num, t), top_growth(self.den, t)
        return tuple(x - y for x, y in zip(a, b))

    def at_most(self, cap: Asymptotic) -> Asymptotic:
        """min(self, cap) as a class: self when it is O(cap), else cap.

        Where the two are incomparable (e.g. `n^2` and `m log n`) the cap is
        returned: shares built with it stay <= 1 by construction.
        """
        return self if self.is_O(cap) else cap

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (int, float, Fraction)):
            other = Asymptotic.const(other)
        if not isinstance(other, Asymptotic):
            return NotImplemented
        return self.is_O(other) and other.is_O(self)

    # ------------------------------------------------------------ arithmetic
    def __add__(self, o: Asymptotic | Number) -> Asymptotic:
        o = _lift(o)
        if self.is_zero:
            return o
        if o.is_zero:
            return self
        return Asymptotic(mul_sums(self.num, o.den) | mul_sums(o.num, self.den), mul_sums(self.den, o.den))

    __radd__ = __add__

    def __mul__(self, o: Asymptotic | Number) -> Asymptotic:
        o = _lift(o)
        return Asymptotic(mul_sums(self.num, o.num), mul_sums(self.den, o.den))

    __rmul__ = __mul__

    def __truediv__(self, o: Asymptotic | Number) -> Asymptotic:
        o = _lift(o)
        if o.is_zero:
            raise ZeroDivisionError("division by the zero class")
        return Asymptotic(mul_sums(self.num, o.den), mul_sums(self.den, o.num))

    def __rtruediv__(self, o: Asymptotic | Number) -> Asymptotic:
        return _lift(o) / self

    def __pow__(self, p: Number) -> Asymptotic:
        p = frac(p)
        if self.is_zero:
            return self
        if p.denominator == 1 and p != 0:  # integer powers multiply (keeps cross terms)
            base = self if p > 0 else one / self
            if len(base.num) == 1 and len(base.den) == 1:  # a monomial: its exponents scale
                (a,), (b,) = base.num, base.den
                return Asymptotic([a ** abs(p)], [b ** abs(p)])
            out, k = None, abs(p.numerator)
            while k:  # by squaring: n ** (4 ** 4 ** 4) must not take 4^256 products
                if k & 1:
                    out = base if out is None else out * base
                k >>= 1
                if k:
                    base = base * base
            return out
        # (a + b)^p ~ a^p + b^p for fractional p > 0
        num = [t ** abs(p) for t in self.num]
        den = [t ** abs(p) for t in self.den]
        return Asymptotic(num, den) if p >= 0 else Asymptotic(den, num)

    def log(self, lower: bool = False) -> Asymptotic:
        """The class of log(x) for x in this class, as an upper bound (or, with `lower`, a
        lower bound over every m): log n where x grows like a power of n (log m ~ log n as
        m <= n^2), log log n where it grows like a power of log n, 1 where it is bounded
        and 0 where it tends to 0 (its logarithm is negative). A class that grows like a
        power of log log n has log log log n, and one that grows like a power of log* n
        has log log* n, which no class holds: a `ValueError` (with `lower`, 1).
        """
        if self.is_zero:
            return self
        pick = min if lower else max
        g = pick(self.growth(1), self.growth(2))
        first = next((k for k, x in enumerate(g) if x != 0), None)
        if first is None:
            return Asymptotic.const(1)
        if g[first] < 0:
            return zero_class()
        if first <= 1:
            return Asymptotic([Term(log=Fraction(1))]) if first == 0 else \
                Asymptotic([Term(loglog=Fraction(1))])
        if lower:  # it grows, so its log is at least a constant
            return Asymptotic.const(1)
        what, instead = (("log log log n", "log2(log2(n)) bounds it from above") if first == 2
                         else ("log log* n", "log_star(n) bounds it from above"))
        raise ValueError(f"the log of {self} is {what}, which no class n^a m^b log^c n "
                         f"(log log n)^d (log* n)^e holds; {instead}")

    # ------------------------------------------------------------ values
    def evaluate(self, n: float, m: float | None = None) -> float:
        """The class's value at (n, m), constants dropped, log base 2 and at least 1.

        n and m are sizes, so each must be a number >= 1 (else a ValueError that says
        so, never a ZeroDivisionError); `log n` is max(log2 n, 1), as a round count
        is, so capacities stay positive and shares finite at n = 1.
        """
        _check_size("n", n)
        if m is not None:
            _check_size("m", m)
        num = sum(t.value(n, m) for t in self.num)
        den = sum(t.value(n, m) for t in self.den)
        return num / den

    def local_slope(self, sizes: list[float], ms: list[float] | None = None) -> float:
        """Least-squares slope of log(value) against log(n) over `sizes`.

        A class like n log n has no single exponent; its slope between the
        sizes measured is what a measured exponent should be compared with.
        """
        ms = ms if ms is not None else [None] * len(sizes)
        ys = [self.evaluate(s, mm) for s, mm in zip(sizes, ms)]
        return fit_slope(sizes, ys)

    def __str__(self) -> str:
        if self.is_zero:
            return "0"
        if len(self.den) == 1 and next(iter(self.den)).is_one():
            return _fmt_sum(self.num, top=True)
        return _fmt_fraction(self.num, self.den)

    def __repr__(self) -> str:
        return f"Asymptotic({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def to_json(self) -> str:
        return str(self)


def zero_class() -> Asymptotic:
    """The class 0 (a function; `zero` below is the same class)."""
    return Asymptotic.const(0)


def _check_size(what: str, x: object) -> None:
    ok = isinstance(x, (int, float, Fraction)) or hasattr(x, "__float__")
    if isinstance(x, bool) or not ok or not math.isfinite(float(x)) or float(x) < 1:
        raise ValueError(f"evaluate needs {what} >= 1 (a size), got {x!r}")


def _lift(x: Asymptotic | Number) -> Asymptotic:
    return x if isinstance(x, Asymptotic) else Asymptotic.const(x)


def _normalise(num: frozenset[Term], den: frozenset[Term]) -> tuple[frozenset, frozenset]:
    """Cancel what num and den have in common: monomial content, then exact quotients."""
    if not num:
        return frozenset(), frozenset([ONE_TERM])
    g = content(den)
    num = frozenset(t / g for t in num)
    den = frozenset(t / g for t in den)
    if len(den) == 1:
        return num, den
    # num / den = Q when den * Q ~ num: Q is every candidate quotient whose product with
    # den stays below num; if those products reach num, the division is exact.
    cands = reduce_terms(t / d for t in num for d in den)
    q = frozenset(c for c in cands if dominated(mul_sums(den, frozenset([c])), num))
    if q and dominated(num, mul_sums(den, q)):
        return reduce_terms(q), frozenset([ONE_TERM])
    # Otherwise cancel the content of the numerator only where it divides the denominator
    # exactly (keeps fractions like (n+m)/(n^2+m) readable).
    return num, den


# ---------------------------------------------------------------- printing
def _exp(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"({x.numerator}/{x.denominator})"


def _fmt_logs(log: Fraction, loglog: Fraction, logstar: Fraction = Fraction(0)) -> str:
    """`log n`, `log^2 n`, `log log n`, `(log log n)^2`, `log n log log n`, `log* n`,
    `(log* n)^2`; '' for none."""
    parts = []
    if log:
        parts.append("log n" if log == 1 else f"log^{_exp(log)} n")
    if loglog:
        parts.append("log log n" if loglog == 1 else f"(log log n)^{_exp(loglog)}")
    if logstar:
        parts.append("log* n" if logstar == 1 else f"(log* n)^{_exp(logstar)}")
    return " ".join(parts)


def _fmt_pos(t: Term) -> str:
    """Print a term with non-negative exponents: `n^2 m log n`; `1` for the unit term."""
    parts: list[str] = []
    for sym, e in (("n", t.n), ("m", t.m)):
        if e == 0:
            continue
        parts.append(sym if e == 1 else f"{sym}^{_exp(e)}")
    # juxtapose single letters (`nm`), space after an exponent (`n^2 m`)
    out = ""
    for p in parts:
        out += ("" if not out or not out[-1].isdigit() and not out.endswith(")") else " ") + p
    lg = _fmt_logs(t.log, t.loglog, t.logstar)
    if lg:
        out = f"{out} {lg}" if out else lg
    return out or "1"


def _split(t: Term) -> tuple[Term, Term]:
    """A term as (numerator part, denominator part), both with non-negative exponents."""
    z = Fraction(0)
    pos = Term(*(max(x, z) for x in t._exps()))
    neg = Term(*(max(-x, z) for x in t._exps()))
    return pos, neg


def _fmt_term(t: Term) -> str:
    pos, neg = _split(t)
    if neg.is_one():
        return _fmt_pos(pos)
    d = _fmt_pos(neg)
    if sum(1 for e in neg._exps() if e) > 1:
        d = f"({d})"
    return f"{_fmt_pos(pos)}/{d}"


def _order(t: Term) -> tuple:
    return tuple(-x for x in t._exps())


def _fmt_sum(terms: frozenset[Term], top: bool = False) -> str:
    ts = sorted(terms, key=_order)
    if len(ts) == 1:
        return _fmt_term(ts[0])
    g = content(frozenset(ts))
    sep = " + " if top else "+"
    if not g.is_one() and all(x >= 0 for x in g._exps()):
        inner = "+".join(_fmt_term(t / g) for t in ts)
        head = _fmt_pos(Term(g.n, g.m))
        out = f"({inner})" if head == "1" else f"{head}({inner})"
        lg = _fmt_logs(g.log, g.loglog, g.logstar)
        return f"{out} {lg}" if lg else out
    return sep.join(_fmt_term(t) for t in ts)


def _fmt_fraction(num: frozenset[Term], den: frozenset[Term]) -> str:
    a = _fmt_sum(num)
    b = _fmt_sum(den)
    if len(num) > 1 and not a.endswith(")"):
        a = f"({a})"
    if len(den) > 1 and not (b.startswith("(") and b.endswith(")") and b.count("(") == 1):
        b = f"({b})"
    return f"{a}/{b}"


# ---------------------------------------------------------------- parsing

class Share(Asymptotic):
    """The class of a share (eta, epsilon), which lies in (0, 1] by definition.

    A share's class may be a sum whose terms are each at most 1 but whose value,
    with the constants dropped, passes 1 at small sizes (Boruvka's epsilon
    n/m + 1/log n is 2 at n = m = 1); `evaluate` caps it at 1. Arithmetic on a
    share gives a plain `Asymptotic`, and equality is the same asymptotic equality.
    """

    __slots__ = ()

    @classmethod
    def of(cls, a: Asymptotic) -> Share:
        out = cls.__new__(cls)
        out.num, out.den = a.num, a.den
        return out

    def evaluate(self, n: float, m: float | None = None) -> float:
        return min(1.0, super().evaluate(n, m))


class _Parser:
    """Recursive descent over `sum := prod ('+' prod)*`, `prod := pow (('*'|'/'|juxt) pow)*`."""

    _TOKEN = re.compile(r"\s*(log\^(?:\d+|\(\d+/\d+\))|log\*|log|\d+(?:\.\d+)?|[nm()+*/^-])")

    def __init__(self, text: str):
        self.text = text
        self.toks: list[str] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            mt = self._TOKEN.match(text, pos)
            if not mt:
                raise ValueError(f"cannot parse asymptotic class {self.text!r} at {text[pos:]!r}")
            self.toks.append(mt.group(1))
            pos = mt.end()
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        t = self.peek()
        if t is None:
            raise ValueError(f"unexpected end of {self.text!r}")
        self.i += 1
        return t

    def parse(self) -> Asymptotic:
        out = self.sum()
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r} in {self.text!r}")
        return out

    def sum(self) -> Asymptotic:
        out = self.prod()
        while self.peek() == "+":
            self.take()
            out = out + self.prod()
        return out

    def prod(self) -> Asymptotic:
        out = self.power()
        while self.peek() is not None and self.peek() not in ("+", ")"):
            if self.peek() == "/":
                self.take()
                out = out / self.power()
            else:
                if self.peek() == "*":
                    self.take()
                out = out * self.power()
        return out

    def power(self) -> Asymptotic:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            neg = self.peek() == "-"
            if neg:
                self.take()
            if self.peek() == "(":
                self.take()
                num = int(self.take())
                self.take()  # '/'
                den = int(self.take())
                self.take()  # ')'
                e = Fraction(num, den)
            else:
                e = Fraction(self.take())
            base = base ** (-e if neg else e)
        return base

    def atom(self) -> Asymptotic:
        t = self.take()
        if t == "n":
            return Asymptotic.term(n=1)
        if t == "m":
            return Asymptotic.term(m=1)
        if t.startswith("log"):
            p = Fraction(t[4:].strip("()")) if "^" in t else 1
            if t == "log*":  # `log* n`
                which = "logstar"
            elif t == "log" and self.peek() == "log":  # `log log n`
                self.take()
                p, which = 1, "loglog"
            else:
                which = "log"
            if self.take() != "n":
                raise ValueError(f"only `log n`, `log log n` and `log* n` are supported in "
                                 f"{self.text!r}")
            return Asymptotic.term(**{which: p})
        if t == "(":
            out = self.sum()
            if self.take() != ")":
                raise ValueError(f"missing ')' in {self.text!r}")
            return out
        if re.fullmatch(r"\d+(\.\d+)?", t):
            return Asymptotic.const(float(t))
        raise ValueError(f"unexpected {t!r} in {self.text!r}")


def fit_slope(xs: Iterable[float], ys: Iterable[float]) -> float:
    """Least-squares slope of log(y) on log(x); NaN when fewer than two positive points."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return float("nan")
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


n = Asymptotic.term(n=1)
m = Asymptotic.term(m=1)
log_n = Asymptotic.term(log=1)
log_log_n = Asymptotic.term(loglog=1)
log_star_n = Asymptotic.term(logstar=1)
one = Asymptotic.const(1)
zero = Asymptotic.const(0)

__all__ = ["Asymptotic", "Share", "Term", "fit_slope", "log_log_n", "log_n", "log_star",
           "log_star_n", "m", "n", "one", "zero"]
