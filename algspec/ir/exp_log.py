"""exp, log, log2 and pow in double-double arithmetic: the same bits on every CPU.

glibc runs FMA or non-FMA code for these by CPU, and the two differ in the last bit
now and then. Here every step is one IEEE 754 operation (+ - * / on float64 arrays,
which numpy rounds exactly in any SIMD kernel and never fuses; frexp/ldexp are exact),
so a result depends on its operands only. Values are evaluated to about 75 bits or
better and rounded once: the correctly rounded result except within about 2^-20 ulp
of a rounding boundary (none in millions of random points), and exact where the
true result is a float (`log2(2^k) = k`, `2.0 ** 10`, `9.0 ** 0.5`).

- log: x = 2^e m, m in [0.75, 1.5); r ~ 1/m from a 97-entry table (r = 1 around
  m = 1, so log(1 + t) near 1 keeps every bit), t = m r - 1 exact in double-double,
  log x = e ln2 - log r + log1p(t), the series' first terms in double-double.
- exp: x = (128 q + j) ln2/128 + r (ln2/128 in three parts, Cody-Waite),
  exp x = 2^q 2^(j/128) (1 + expm1 r), subnormal results rounded once.
- pow: exp(y log|x|) with y log|x| in double-double; powers of two exactly
  (ldexp); an exact half-way result (an odd 54-bit integer power) exactly.

Special operands (zeros, infinities, nan, a negative base) take the C99 values, the
same on every CPU: `fallback` (the C library) gives them for pow, which has many.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache

import numpy as np

from algspec.ir.double_double import _add, _fast_two_sum, _mul, _two_prod, _two_sum

_DIGITS = 60
_EXP_BITS = 7  # exp's table: 2^(j/128)
_LOG_BITS = 7  # log's table: r = 128 / i for i = 96 .. 192


def _dd(value: Decimal) -> tuple[float, float]:
    hi = float(value)
    return hi, float(value - Decimal(hi))


def _round_bits(value: Decimal, bits: int) -> float:
    """`value` rounded to a float of `bits` significant bits."""
    m, e = np.frexp(float(value))
    return float(np.ldexp(np.round(np.ldexp(m, bits)), int(e) - bits))


@cache
def _constants() -> dict[str, object]:
    """Tables and split constants, from 60-digit decimal arithmetic (computed once)."""
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        ln2 = Decimal(2).ln()
        # e ln2 exact for |e| < 2^11 in its first part; k ln2/128 for |k| < 2^18 likewise
        l1 = _round_bits(ln2, 42)
        l2 = float(ln2 - Decimal(l1))
        l3 = float(ln2 - Decimal(l1) - Decimal(l2))
        c = ln2 / 2**_EXP_BITS
        c1 = _round_bits(c, 35)
        c2 = float(c - Decimal(c1))
        c3 = float(c - Decimal(c1) - Decimal(c2))
        size = 2**_EXP_BITS
        two_j = [_dd((Decimal(j) / size * ln2).exp()) for j in range(size)]
        lo_i, hi_i = 3 * 2**_LOG_BITS // 4, 3 * 2**_LOG_BITS // 2
        r = [float(Fraction(2**_LOG_BITS, i)) for i in range(lo_i, hi_i + 1)]
        neg_log_r = [_dd(-Decimal(v).ln()) for v in r]
        inv_ln2 = _dd(1 / ln2)
    return {
        "ln2": (l1, l2, l3), "exp_c": (c1, c2, c3), "inv_ln2": inv_ln2, "inv_c": float(1 / c),
        "two_j": (np.array([v[0] for v in two_j]), np.array([v[1] for v in two_j])),
        "log_lo_i": lo_i, "r": np.array(r),
        "neg_log_r": (np.array([v[0] for v in neg_log_r]), np.array([v[1] for v in neg_log_r])),
        "third": _dd(Decimal(1) / 3),
    }


def _const(x: np.ndarray, v: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    return np.full_like(x, v[0]), np.full_like(x, v[1])


# ------------------------------------------------------------------------------ log
def _log_parts(x: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """For finite x > 0: (e, log m in double-double) with x = 2^e m, m in [0.75, 1.5)."""
    k = _constants()
    m, e = np.frexp(x)  # m in [0.5, 1), exact for subnormals too
    m, e = m * 2.0, e - 1
    big = m >= 1.5
    m = np.where(big, m * 0.5, m)
    e = np.where(big, e + 1, e)
    i = np.round(m * 2**_LOG_BITS).astype(np.int64) - k["log_lo_i"]
    r = k["r"][i]
    p, pe = _two_prod(m, r)
    t = _two_sum(p - 1.0, pe)  # m r - 1 exactly (p - 1 is exact: p is within 2^-7 of 1)
    th = t[0]
    t2 = _mul(t, t)
    t3 = _mul(_mul(t2, t), _const(x, k["third"]))
    tail = 0.0
    for n in range(13, 3, -1):  # -t^4/4 + t^5/5 - ...: below 2^-23 of t, in float64
        tail = (1.0 / n if n % 2 else -1.0 / n) + th * tail
    tail = tail * (t2[0] * t2[0])
    s = _add(t, (-0.5 * t2[0], -0.5 * t2[1]))
    s = _add(s, t3)
    s = _add(s, (tail, np.zeros_like(x)))
    tbl = (k["neg_log_r"][0][i], k["neg_log_r"][1][i])
    return e.astype(np.float64), _add(tbl, s)


def _log_dd(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Natural log of finite x > 0 in double-double (about 100 bits)."""
    l1, l2, l3 = _constants()["ln2"]
    e, lm = _log_parts(x)
    h = _two_sum(e * l1, lm[0])  # e * l1 exact
    el = _two_prod(e, np.full_like(x, l2))
    lo = (lm[1] + el[0]) + (el[1] + e * l3)
    return _add(h, (lo, np.zeros_like(x)))


def _positive_finite(x: np.ndarray) -> np.ndarray:
    return (x > 0) & (x < np.inf)


def log(x: np.ndarray) -> np.ndarray:
    """Natural log of float64 `x`: -inf at 0, nan below 0 and at nan, inf at inf."""
    x = np.asarray(x, dtype=np.float64)
    ok = _positive_finite(x)
    with np.errstate(all="ignore"):
        hi, lo = _log_dd(np.where(ok, x, 1.0))
        special = np.where(x == 0, -np.inf, np.where(x == np.inf, x, np.nan))
    return np.where(ok, hi + lo, special)


def log2(x: np.ndarray) -> np.ndarray:
    """Base-2 log of float64 `x`, exact at powers of two; as `log` at the special values."""
    x = np.asarray(x, dtype=np.float64)
    ok = _positive_finite(x)
    with np.errstate(all="ignore"):
        xs = np.where(ok, x, 1.0)
        e, lm = _log_parts(xs)
        f = _mul(lm, _const(xs, _constants()["inv_ln2"]))
        hi, lo = _add(_two_sum(e, f[0]), (f[1], np.zeros_like(xs)))
        special = np.where(x == 0, -np.inf, np.where(x == np.inf, x, np.nan))
    return np.where(ok, hi + lo, special)


# ------------------------------------------------------------------------------ exp
_EXP_HIGH = 709.8  # above: inf (exp(709.79) is the largest float)
_EXP_LOW = -745.2  # below: 0 (exp(-745.14) is half the smallest subnormal)


def _exp_dd(zh: np.ndarray, zl: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """exp(zh + zl) for |zh| <= 746 as (hi, lo, q): the value is (hi + lo) 2^q, hi ~ 1."""
    k = _constants()
    c1, c2, c3 = k["exp_c"]
    n = np.round(zh * k["inv_c"])  # any nearby integer will do: the reduction is exact
    r = _two_sum(zh - n * c1, zl)  # zh - n c1 exact (n c1 exact, and within a factor 2)
    r = _add(r, _two_prod(-n, np.full_like(zh, c2)))
    r = _add(r, (-n * c3, np.zeros_like(zh)))
    rh = r[0]
    tail = 0.0
    for j in range(9, 2, -1):  # r^3/3! + ... + r^9/9!: below 2^-26, in float64
        tail = 1.0 / math.factorial(j) + rh * tail
    tail = tail * rh * rh * rh
    r2 = _mul(r, r)
    p = _add(r, (0.5 * r2[0], 0.5 * r2[1]))
    p = _add(p, (tail, np.zeros_like(zh)))  # expm1(r)
    ni = n.astype(np.int64)
    j = ni & (2**_EXP_BITS - 1)
    q = (ni - j) >> _EXP_BITS
    t = (k["two_j"][0][j], k["two_j"][1][j])
    hi, lo = _add(t, _mul(t, p))
    return hi, lo, q


def _scale(hi: np.ndarray, lo: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(hi + lo) 2^q rounded once, also where it is subnormal (where ldexp rounds hi
    alone, which is wrong only when hi lies exactly half-way and lo says which side)."""
    q32 = np.clip(q, -2000, 2000).astype(np.int32)
    out = np.ldexp(hi, q32)
    low = out < 2.2250738585072014e-308
    if low.any():
        quantum = np.ldexp(1.0, np.clip(-1074 - q32, -1100, 1100))  # the subnormal step, scaled
        back = np.ldexp(out, -q32)  # exact: out is a multiple of the step
        tie = low & (np.abs(hi - back) == 0.5 * quantum) & (lo != 0)
        tie &= np.abs(lo) > np.abs(hi) * 2.0**-70  # else the value is the tie itself: to even
        fixed = np.ldexp(hi + np.copysign(0.5 * quantum, lo), q32)
        out = np.where(tie, fixed, out)
    return out


def exp(x: np.ndarray) -> np.ndarray:
    """e ** x for float64 `x`: inf above ~709.78, 0 below ~-745.13, nan at nan."""
    x = np.asarray(x, dtype=np.float64)
    ok = (x > _EXP_LOW) & (x < _EXP_HIGH)
    with np.errstate(all="ignore"):
        xs = np.where(ok, x, 0.0)
        hi, lo, q = _exp_dd(xs, np.zeros_like(xs))
        out = _scale(hi, lo, q)
    return np.where(ok, out, np.where(x >= _EXP_HIGH, np.inf, np.where(x <= _EXP_LOW, 0.0, x)))


# ------------------------------------------------------------------------------ pow
def _is_integer(y: np.ndarray) -> np.ndarray:
    return np.isfinite(y) & (np.floor(y) == y)


def _exact_halfway(x: float, n: int) -> float:
    """x ** n for an int n, rounded once from the exact rational power."""
    return float(Fraction(x) ** n)


def pow(x: np.ndarray, y: np.ndarray,
        fallback: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """x ** y for float64 arrays, as C99's pow; `fallback` (the C library) gives the
    special operands' values: a zero, infinite or nan operand, y = 0, x = 1, and a
    negative base to a non-integer power."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    integral = _is_integer(y)
    with np.errstate(all="ignore"):
        normal = (np.isfinite(x) & np.isfinite(y) & (x != 0) & (y != 0) & (x != 1.0)
                  & ((x > 0) | integral))
        out = np.empty(x.shape, dtype=np.float64)
        if (~normal).any():
            out[~normal] = fallback(x[~normal], y[~normal])
        a, b = np.abs(x[normal]), y[normal]
        odd = (x[normal] < 0) & integral[normal] & (np.abs(b) < 2.0**53) & (np.fmod(b, 2.0) != 0)
        out[normal] = np.where(odd, -1.0, 1.0) * _pow_positive(a, b)
    return out


def _pow_positive(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a ** b for finite a > 0, a != 1, finite b != 0."""
    lh, ll = _log_dd(a)
    # b (lh + ll) in double-double, both scaled by a power of two so no product
    # over- or underflows (|lh| is in [2^-53, 745])
    s = np.where(np.abs(b) > 2.0**500, 2.0**-600, np.where(np.abs(b) < 2.0**-500, 2.0**600, 1.0))
    bs = b * s
    zh, zl = _two_prod(bs, lh / s)
    zl = zl + bs * (ll / s)
    zh, zl = _fast_two_sum(zh, zl)
    finite = np.abs(zh) < 746.0
    hi, lo, q = _exp_dd(np.where(finite, zh, 0.0), np.where(finite, zl, 0.0))
    out = np.where(finite, _scale(hi, lo, q), np.where(zh > 0, np.inf, 0.0))
    # a power of two to a power whose product with its exponent is an integer: exact
    m, e = np.frexp(a)
    eb = (e - 1) * b
    two = (m == 0.5) & _is_integer(eb) & (np.abs(eb) < 4000)
    if two.any():
        out = np.where(two, np.ldexp(1.0, np.where(two, eb, 0).astype(np.int32)), out)
    # an exact result half-way between two floats (x ** n for an int 2 <= n <= 64 with
    # 54 significant bits) could round either way from ~100 bits: decide it exactly
    ulp_half = np.ldexp(1.0, (np.frexp(hi)[1] - 54).astype(np.int32))
    near = np.abs(np.abs(lo) - ulp_half) <= np.abs(hi) * 2.0**-80
    near &= finite & ~two & _is_integer(b) & (b >= 2) & (b <= 64)
    if near.any():
        idx = np.flatnonzero(near)
        for i in idx.tolist():
            out[i] = _exact_halfway(float(a[i]), int(b[i]))
    return out
