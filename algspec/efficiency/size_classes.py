"""Bounds on the value of a size expression (a loop bound, `calls` bound or node count).

A loop bound's class is the class of its *value* for large n (every m with
n <= m <= n^2). The operators' class rules in `algspec.ir.ops` work on a
`SizeClass`, which keeps what a sound rule needs beyond one class:

* `hi`: max(x, 0) = O(hi), the class the analysis uses;
* `lo`: x = Omega(lo) > 0 (x is eventually positive), or None. A divisor needs one:
  `n / log2(n)` is n/log n, while `n / (n - n)` has no class;
* `down`: max(-x, 0) = O(down), or None when x has no lower bound (`log2` of a
  value that may reach 0). Subtraction and negation move values across 0, so
  `abs(0 - n)` is n and `(n - 1) * (n - 2)` is n^2, never 0;
* `exp`: (lo, hi) classes of 2 ** x, or None. 2 ** (k * log2(n) + c) is n^k, so
  `2 ** ceil(log2(n))` is n, `1 << ceil(log2(n))` is n and `2 ** log2(log2(n))`
  is log n; `2 ** n`, `n ** log2(n)` (faster than any power of n) and
  `2 ** sqrt(log2(n))` (between the powers of log n and of n) have no class;
  b ** e with both growing is 2 ** (e * log2(b)) (`n ** (1 / log2(n))` is 2);
* `value`: the number, for an expression free of n, N and m.

`log2` takes powers of n to log n and powers of log n to log log n; `log_star`
(the iterated logarithm) takes every size that grows at least like a power of
log log n, and at most like a power of n, to log* n.

A rule that cannot bound its result raises `NotASize` with the reason; the
static analysis reports it as E605 at the operator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from algspec.efficiency.asymptotic import Asymptotic, zero_class

Bounds = tuple[Asymptotic, Asymptotic]  # (lo, hi) of 2 ** x, lo > 0


def _one() -> Asymptotic:
    return Asymptotic.const(1)


def _zero() -> Asymptotic:
    return zero_class()


def _not_a_size_type() -> type[Exception]:
    from algspec.ir.ops import NotASize  # ops imports this module lazily; no cycle at load
    return NotASize


def _not_a_size(message: str) -> Exception:
    return _not_a_size_type()(message)


def _add(a: Asymptotic | None, b: Asymptotic | None) -> Asymptotic | None:
    """a + b where None is unbounded."""
    return None if a is None or b is None else a + b


def _mul(a: Asymptotic | None, b: Asymptotic | None) -> Asymptotic | None:
    """a * b where None is unbounded (times a zero class it is still zero)."""
    if a is None or b is None:
        other = b if a is None else a
        return other if other is not None and other.is_zero else None
    return a * b


def _smaller(a: Asymptotic, b: Asymptotic) -> Asymptotic | None:
    """The class of min(a, b): the one that is O(the other); None where they trade places."""
    if a.is_O(b):
        return a
    if b.is_O(a):
        return b
    return None


def _bounded(a: Asymptotic | None) -> bool:
    return a is not None and a.is_O(_one())


def _grows(a: Asymptotic | None) -> bool:
    """a tends to infinity for every m in [n, n^2]."""
    return a is not None and not a.is_zero and _one().is_o(a)


def _lead(g: tuple) -> int | None:
    """The first non-zero place of a growth tuple (n, log n, log log n, log* n), or None:
    its sign says whether the class grows (> 0) or tends to 0, its place how fast."""
    return next((k for k, x in enumerate(g) if x != 0), None)


def _rational(x: float) -> Fraction | None:
    """x as a small fraction, or None where it is not one (log2(3) is irrational)."""
    if not math.isfinite(x):
        return None
    f = Fraction(x).limit_denominator(1000)
    return f if abs(float(f) - x) <= 1e-9 * max(1.0, abs(x)) else None


_NOT_FINITE = ("it computes with the constant {:g}, which is not a finite number (`0 / 0` "
               "is nan, `-1 / 0` is -inf): write the bound without it")
_EXP_HELP = ("2 ** e has one where e is k * log2(size) + c, which is n^k, "
             "k * log2(log2(n)) + c, which is log^k n, or bounded")


def _exp_growth(hi: Asymptotic) -> str:
    """How 2 ** e grows for an exponent e = O(hi) that grows: why it has no class."""
    log_n = Asymptotic.term(log=1)
    loglog = Asymptotic.term(loglog=1)
    if log_n.is_o(hi):
        return "faster than any power of n"
    if hi.is_o(log_n) and loglog.is_o(hi):
        return "faster than any power of log n but slower than n"
    if hi.is_o(loglog):
        return "without bound but slower than any power of log n"
    if hi == loglog:
        return "like a power of log n whose exponent the analysis cannot pin to a constant"
    return "like a power of n whose exponent the analysis cannot pin to a constant"


@dataclass(frozen=True)
class SizeClass:
    """Bounds on a size expression's value for large n; see the module docstring."""

    hi: Asymptotic
    lo: Asymptotic | None
    down: Asymptotic | None
    value: float | None = None
    exp: Bounds | None = None

    # ------------------------------------------------------------ constructors
    @staticmethod
    def const(v: float) -> SizeClass:
        """A number. +inf has no class (a loop without a bound); -inf and nan allow no trips."""
        if math.isnan(v):
            return SizeClass(_zero(), None, _zero(), v)
        if v == math.inf:
            raise _not_a_size("it is infinite (a division by zero, or a constant beyond a "
                              "float's range?)")
        if v == -math.inf:
            return SizeClass(_zero(), None, None, v)
        one = _one()
        if v > 0:
            return SizeClass(one, one, _zero(), v, (one, one))
        return SizeClass(_zero(), None, one if v < 0 else _zero(), v, (one, one))

    @staticmethod
    def size(of: Asymptotic) -> SizeClass:
        """n, N or m: exactly its class; 2 ** n grows faster than any power of n."""
        return SizeClass(of, of, _zero())

    def _positive(self, lo: Asymptotic | None) -> SizeClass:
        """With lower bound `lo` (if any): then the value is eventually positive, no
        negative part."""
        return replace(self, lo=lo, down=_zero() if lo is not None else self.down)

    # ------------------------------------------------------------ arithmetic
    def __neg__(self) -> SizeClass:
        if self.value is not None:
            return SizeClass.const(-self.value)
        if self.down is None:
            raise _not_a_size("it negates a value with no lower bound (log2 of a value that "
                              "may be 0)")
        exp = (1 / self.exp[1], 1 / self.exp[0]) if self.exp else None
        return SizeClass(self.down, None, self.hi, None, exp)

    def __add__(self, o: SizeClass) -> SizeClass:
        if self.value is not None and o.value is not None:
            return SizeClass.const(self.value + o.value)
        lo = None
        if self.lo is not None and o.lo is not None:
            lo = self.lo + o.lo
        elif self.lo is not None and o.down is not None and o.down.is_o(self.lo):
            lo = self.lo          # n - 1, n - log2(n): the smaller part cannot cancel n
        elif o.lo is not None and self.down is not None and self.down.is_o(o.lo):
            lo = o.lo
        exp = (self.exp[0] * o.exp[0], self.exp[1] * o.exp[1]) if self.exp and o.exp else None
        out = SizeClass(self.hi + o.hi, None, _add(self.down, o.down), None, exp)
        return out._positive(lo)

    def __sub__(self, o: SizeClass) -> SizeClass:
        return self + (-o)

    def __mul__(self, o: SizeClass | float) -> SizeClass:
        o = _lift(o)
        if o.value is not None:
            return self.scale(o.value)
        if self.value is not None:
            return o.scale(self.value)
        hi = self.hi * o.hi
        both_neg = _mul(self.down, o.down)
        if both_neg is None:
            raise _not_a_size("it multiplies two values that may be unboundedly negative")
        lo = self.lo * o.lo if self.lo is not None and o.lo is not None else None
        down = _add(_mul(self.hi, o.down), _mul(self.down, o.hi))
        return SizeClass(hi + both_neg, None, down)._positive(lo)

    __rmul__ = __mul__

    def scale(self, c: float) -> SizeClass:
        """c * x for a constant c: the same class (sign flipped for c < 0); 2 ** (c x) is
        (2 ** x) ** c, which needs c rational to be a class."""
        if self.value is not None:
            return SizeClass.const(self.value * c)
        if not math.isfinite(c):
            raise _not_a_size(_NOT_FINITE.format(c))
        if c == 0:
            return SizeClass.const(0.0)
        if c < 0:
            return (-self).scale(-c)
        f = _rational(c)
        exp = (self.exp[0] ** f, self.exp[1] ** f) if self.exp and f is not None else None
        return replace(self, exp=exp)

    def __truediv__(self, o: SizeClass) -> SizeClass:
        if o.value is not None:
            if o.value == 0:
                raise _not_a_size("it divides by zero")
            return self.scale(1.0 / o.value)
        if o.lo is None:
            raise _not_a_size("its divisor may be 0 or negative for large n (the divisor's "
                              "class bounds it from above only)")
        lo = self.lo / o.hi if self.lo is not None else None
        down = self.down / o.lo if self.down is not None else None
        return SizeClass(self.hi / o.lo, None, down)._positive(lo)

    def floordiv(self, o: SizeClass) -> SizeClass:
        if o.value == 0:
            raise _not_a_size("it divides by zero")
        return (self / o).rounded()

    def rounded(self) -> SizeClass:
        """floor, ceil, int or float of x: within 1 of x (2 ** x within a factor of 2)."""
        if self.value is not None:
            return self
        one = _one()
        hi = self.hi if self.hi.is_zero else self.hi + one
        lo = self.lo if _grows(self.lo) else None
        down = self.down if self.down is None or self.down.is_zero else self.down + one
        return SizeClass(hi, None, down, None, self.exp)._positive(lo)

    def abs(self) -> SizeClass:
        if self.value is not None:
            return SizeClass.const(abs(self.value))
        if self.lo is not None:  # eventually positive: abs changes nothing
            return self
        if self.down is None:
            raise _not_a_size("it takes `abs` of a value with no lower bound")
        return SizeClass(self.hi + self.down, None, _zero())

    def mod(self, o: SizeClass) -> SizeClass:
        """x % y (floor modulo) lies between 0 and y."""
        if o.value is not None:
            if o.value == 0:
                raise _not_a_size("it divides by zero")
            one = _one()
            if o.value > 0:
                return SizeClass(one, None, _zero(), None, (one, one))
            return SizeClass(_zero(), None, one, None, (one, one))
        if o.lo is not None:
            return SizeClass(o.hi, None, _zero())
        return SizeClass(o.hi, None, o.down)

    def __pow__(self, o: SizeClass | float) -> SizeClass:
        o = _lift(o)
        if self.value is not None and o.value is not None:
            from algspec.ir.ops import _sz_pow
            return SizeClass.const(float(_sz_pow(self.value, o.value)))
        if o.value is not None:
            return self._const_power(o.value)
        if self.value is not None:
            return self._power_of_const(o)
        if self.lo is None:
            raise _not_a_size("its base may be 0 or negative for large n while its exponent "
                              f"grows (b ** e is 2 ** (e * log2(b)), and {_EXP_HELP})")
        try:  # b ** e = 2 ** (e * log2(b)) for b > 0
            return (o * self.log()).exp2()
        except _not_a_size_type() as err:
            raise _not_a_size(f"b ** e is 2 ** (e * log2(b)), and {err}") from None

    def _const_power(self, e: float) -> SizeClass:
        """x ** e for a constant e (nan where x < 0 and e is fractional: no trips)."""
        if not math.isfinite(e):
            raise _not_a_size(_NOT_FINITE.format(e))
        if e == 0:
            return SizeClass.const(1.0)
        if _rational(e) is None:
            raise _not_a_size(f"its exponent {e:.10g} is not a fraction k/d with d <= 1000, "
                              "the exponents a class has; write a fraction at least as large, "
                              "e.g. `** (17 / 12)` for `** sqrt(2)`")
        if self.down is not None and self.down.is_zero or self.lo is not None:
            if e > 0:
                lo = self.lo ** e if self.lo is not None else None
                return SizeClass(self.hi ** e, None, _zero())._positive(lo)
            if self.lo is None:
                raise _not_a_size("it takes a negative power of a value that may be 0")
            return SizeClass(self.lo ** e, None, _zero())._positive(self.hi ** e)
        if e < 0 or not float(e).is_integer():
            if e < 0:
                raise _not_a_size("it takes a negative power of a value that may be 0")
            return SizeClass(self.hi ** e, None, _zero())
        if self.down is None:
            raise _not_a_size("it takes a power of a value with no lower bound")
        if int(e) % 2 == 0:
            return SizeClass((self.hi + self.down) ** e, None, _zero())
        return SizeClass(self.hi ** e, None, self.down ** e)

    def _power_of_const(self, o: SizeClass) -> SizeClass:
        """b ** y for a constant base b: 2 ** (y * log2(b))."""
        b = self.value
        if math.isnan(b):
            raise _not_a_size(_NOT_FINITE.format(b))
        if b == 1:
            return SizeClass.const(1.0)
        if b == 0:
            if o.lo is None:
                raise _not_a_size("0 ** e is infinite where e is negative")
            return SizeClass.const(0.0)
        if b < 0:
            raise _not_a_size("a negative base with an exponent that grows changes sign")
        if o.exp is not None and _rational(math.log2(b)) is None:
            raise _not_a_size(f"{b:g} ** (k * log2(n)) is n to the power k * log2({b:g}), "
                              "which is not a rational number")
        return o.scale(math.log2(b)).exp2()

    def exp2(self) -> SizeClass:
        """2 ** x."""
        if self.exp is not None:
            lo, hi = self.exp
            return SizeClass(hi, None, _zero())._positive(lo)
        if _bounded(self.hi):
            lo = _one() if _bounded(self.down) else None
            return SizeClass(_one(), None, _zero())._positive(lo)
        raise _not_a_size(f"its exponent grows like {self.hi}, so it grows "
                          f"{_exp_growth(self.hi)} ({_EXP_HELP})")

    def lshift(self, o: SizeClass) -> SizeClass:
        """x << y = x * 2 ** y (the count is clamped at 0 below)."""
        try:
            factor = SizeClass.maximum(o, SizeClass.const(0.0)).exp2()
        except _not_a_size_type() as err:
            raise _not_a_size(f"x << e is x * 2 ** e, and {err}") from None
        return self * factor

    def rshift(self, o: SizeClass) -> SizeClass:
        """x >> y = floor(x / 2 ** y) (the count is clamped at 0 below); at most x for x >= 0."""
        try:
            factor = SizeClass.maximum(o, SizeClass.const(0.0)).exp2()
        except _not_a_size_type():  # a count of no class: x >> y is still at most x
            return SizeClass(self.hi, None, self.down).rounded()
        return (self / factor).rounded()

    def log(self) -> SizeClass:
        """log2(x): log n for powers of n, log log n for powers of log n (-inf at 0)."""
        if self.value is not None:
            from algspec.ir.ops import _sz_log2
            return SizeClass.const(_sz_log2(self.value))
        try:
            hi = self.hi.log()
        except ValueError as err:
            raise _not_a_size(str(err)) from None
        lo, down = None, None
        if _grows(self.lo):
            lo, down = self.lo.log(lower=True), _zero()
        elif self.lo is not None and _bounded(1 / self.lo):
            down = _one()                           # x >= c > 0: log2(x) >= log2(c)
        elif self.lo is not None:
            down = (1 / self.lo).log()              # x -> 0 from above: -log2(x) grows
        exp = (self.lo, self.hi) if self.lo is not None else None
        return SizeClass(hi, None, down, None, exp)._positive(lo if _grows(lo) else None)

    def log_star(self) -> SizeClass:
        """log*(x), the iterated logarithm: log* n for every x between a power of log log n
        and a power of n (log*(n^k) and log*(log log n) are log* n - O(1)), bounded for a
        bounded x, never negative. log* of a power of log* n is log* log* n: no class."""
        if self.value is not None:
            from algspec.ir.ops import _sz_log_star
            return SizeClass.const(_sz_log_star(self.value))
        one = _one()
        if _bounded(self.hi):
            return SizeClass(one, None, _zero())
        star = Asymptotic.term(logstar=1)
        if _lead(max(self.hi.growth(1), self.hi.growth(2))) == 3:
            raise _not_a_size(f"it is log* of a size that grows like {self.hi}, which is "
                              "log* log* n: no class holds it; log_star(n) bounds it from "
                              "above")
        lo = None  # log*((log log n)^d) is log* n - O(1): any lower bound that fast will do
        if self.lo is not None and not self.lo.is_zero:
            g = min(self.lo.growth(1), self.lo.growth(2))
            lo = star if _lead(g) in (0, 1, 2) and g[_lead(g)] > 0 else None
        return SizeClass(star, None, _zero())._positive(lo)

    def pow2ceil(self) -> SizeClass:
        """The smallest power of two >= x: between x and 2x, and at least 1."""
        one = _one()
        lo = self.lo + one if self.lo is not None else one
        return SizeClass(self.hi + one, None, _zero())._positive(lo)

    # ------------------------------------------------------------ min, max and bits
    @staticmethod
    def minimum(a: SizeClass, b: SizeClass) -> SizeClass:
        if a.value is not None and b.value is not None:
            return SizeClass.const(min(a.value, b.value))
        hi = _smaller(a.hi, b.hi) or a.hi  # min <= either: an incomparable pair keeps one
        lo = _smaller(a.lo, b.lo) if a.lo is not None and b.lo is not None else None
        exp = None
        if a.exp and b.exp:
            elo = _smaller(a.exp[0], b.exp[0])
            ehi = _smaller(a.exp[1], b.exp[1]) or a.exp[1]
            exp = (elo, ehi) if elo is not None else None
        return SizeClass(hi, None, _add(a.down, b.down), None, exp)._positive(lo)

    @staticmethod
    def maximum(a: SizeClass, b: SizeClass) -> SizeClass:
        if a.value is not None and b.value is not None:
            return SizeClass.const(max(a.value, b.value))
        lo = a.lo + b.lo if a.lo is not None and b.lo is not None else (a.lo or b.lo)
        if a.down is None or b.down is None:
            down = a.down if b.down is None else b.down
        else:
            down = _smaller(a.down, b.down) or a.down
        exp = (a.exp[0] + b.exp[0], a.exp[1] + b.exp[1]) if a.exp and b.exp else None
        return SizeClass(a.hi + b.hi, None, down, None, exp)._positive(lo)

    def _magnitude(self) -> Asymptotic:
        if self.down is None:
            raise _not_a_size("it takes bits of a value with no lower bound")
        return self.hi + self.down

    @staticmethod
    def bits(a: SizeClass, b: SizeClass) -> SizeClass:
        """a | b, a ^ b: below twice the larger operand (in magnitude, for negative ones)."""
        if a.down is not None and a.down.is_zero and b.down is not None and b.down.is_zero:
            return SizeClass(a.hi + b.hi, None, _zero())
        mag = a._magnitude() + b._magnitude()
        return SizeClass(mag, None, mag)

    @staticmethod
    def bit_and(a: SizeClass, b: SizeClass) -> SizeClass:
        """a & b: between 0 and the smaller non-negative operand."""
        nonneg = [x for x in (a, b) if x.down is not None and x.down.is_zero]
        if len(nonneg) == 2:
            return SizeClass(_smaller(a.hi, b.hi) or a.hi, None, _zero())
        if nonneg:
            return SizeClass(nonneg[0].hi, None, _zero())
        return SizeClass.bits(a, b)


def _lift(x: SizeClass | float) -> SizeClass:
    return x if isinstance(x, SizeClass) else SizeClass.const(float(x))


__all__ = ["SizeClass"]
