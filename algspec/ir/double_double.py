"""sin and cos computed in double-double arithmetic: the same bits on every CPU.

The C library's `sin`/`cos` are not correctly rounded, and glibc picks FMA or
non-FMA code for them by CPU, so `math.sin` itself differs in the last bit
between machines. Here every step is one IEEE 754 operation (+ - * on float64
arrays, which numpy rounds exactly in any SIMD kernel, and never fuses), so the
result depends on the input only. The value is evaluated to about 100 bits
(Cody-Waite reduction by pi/2 in three parts, a Taylor series in double-double)
and rounded once: it is the correctly rounded result except where the exact
value lies within about 2^-45 ulp of a rounding boundary.

Arguments with |x| >= 2^19 (where the three-part reduction would lose bits) and
non-finite ones go to `fallback` (the C library's function): algspec draws angles in
[0, 2 pi), far below it.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

REDUCED_BELOW = 2.0**19
_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's splitter for float64


def _parts(value: Fraction, bits: int, count: int) -> list[float]:
    """`value` as `count` floats of at most `bits` significant bits each (the last 53)."""
    out = []
    for i in range(count):
        x = float(value)
        if i < count - 1:
            m, e = np.frexp(x)
            x = float(np.ldexp(np.round(np.ldexp(m, bits)), int(e) - bits))
        out.append(x)
        value -= Fraction(x)
    return out


def _pi_over_2() -> Fraction:
    """pi / 2 to 200 bits (Machin's formula in exact rational arithmetic)."""
    def arctan_inv(k: int, terms: int) -> Fraction:
        return sum((Fraction((-1) ** i, (2 * i + 1) * k ** (2 * i + 1)) for i in range(terms)),
                   Fraction(0))
    return 2 * (4 * arctan_inv(5, 60) - arctan_inv(239, 30))


# pi/2 = P1 + P2 + P3: P1, P2 of 33 bits, so k * P1 and k * P2 are exact for k < 2^20.
_P1, _P2, _P3 = _parts(_pi_over_2(), 33, 3)


def _factorial(k: int) -> int:
    return 1 if k < 2 else k * _factorial(k - 1)


def _dd(value: Fraction) -> tuple[float, float]:
    hi = float(value)
    return hi, float(value - Fraction(hi))


# 1/k! for k = 2 .. 29 as double-double constants.
_INV_FACT = {k: _dd(Fraction(1, _factorial(k))) for k in range(2, 30)}


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fast_two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    return s, b - (s - a)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _mul(x: tuple, y: tuple) -> tuple[np.ndarray, np.ndarray]:
    p, e = _two_prod(x[0], y[0])
    return _fast_two_sum(p, e + (x[0] * y[1] + x[1] * y[0]))


def _add(x: tuple, y: tuple) -> tuple[np.ndarray, np.ndarray]:
    s, e = _two_sum(x[0], y[0])
    return _fast_two_sum(s, e + (x[1] + y[1]))


def _series(r: tuple, r2: tuple, first: int) -> tuple[np.ndarray, np.ndarray]:
    """sum_i (-1)^i r2^i / (first + 2i)! for the Taylor series (first = 2: cos - 1
    over -r2/2 .. ; first = 3: the sine's), by Horner in double-double."""
    ks = list(range(first, 30, 2))
    acc = tuple(np.full_like(r[0], c) for c in _INV_FACT[ks[-1]])
    for k in reversed(ks[:-1]):
        acc = _mul(acc, r2)
        c = _INV_FACT[k]
        acc = _add((-acc[0], -acc[1]), (np.full_like(r[0], c[0]), np.full_like(r[0], c[1])))
    return acc


def _reduced_sin_cos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sin r, cos r) rounded to float64, and k mod 4, where x = k pi/2 + r, |r| <= ~pi/4."""
    k = np.round(x * (1.0 / _P1))  # any k with |r| a little over pi/4 will do
    r = _two_sum(x, -(k * _P1))  # k * P1, k * P2 exact (33-bit parts, |k| < 2^20)
    r = _add(r, _two_prod(-k, np.full_like(x, _P2)))
    r = _add(r, _two_prod(-k, np.full_like(x, _P3)))
    r2 = _mul(r, r)
    # sin r = r - r^3 (1/3! - r^2/5! + ...); cos r = 1 - r^2 (1/2! - r^2/4! + ...)
    s = _add(r, _mul(_mul(r, r2), _neg(_series(r, r2, 3))))
    c = _add((np.ones_like(x), np.zeros_like(x)), _neg(_mul(r2, _series(r, r2, 2))))
    return s[0] + s[1], c[0] + c[1], np.mod(k, 4.0)


def _neg(x: tuple) -> tuple[np.ndarray, np.ndarray]:
    return -x[0], -x[1]


def _trig(x: np.ndarray, cosine: bool, fallback: Callable[[np.ndarray], np.ndarray]
          ) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    near = np.abs(x) < REDUCED_BELOW  # false for nan and +-inf
    if (~near).any():
        out[~near] = fallback(x[~near])
    xs = x[near]
    with np.errstate(all="ignore"):
        s, c, q = _reduced_sin_cos(xs)
    if cosine:
        vals = np.select([q == 0, q == 1, q == 2], [c, -s, -c], s)
    else:
        vals = np.select([q == 0, q == 1, q == 2], [s, c, -s], -c)
        vals = np.where(xs == 0, xs, vals)  # sin(-0.0) = -0.0
    out[near] = vals
    return out


def sin(x: np.ndarray, fallback: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Sine of float64 `x` (radians), the same bits on every CPU for |x| < 2^19."""
    return _trig(x, False, fallback)


def cos(x: np.ndarray, fallback: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Cosine of float64 `x` (radians), the same bits on every CPU for |x| < 2^19."""
    return _trig(x, True, fallback)
