"""atan2 in double-double arithmetic: the same bits on every CPU.

glibc's `atan2` runs FMA or non-FMA code by CPU, and the two differ in the last bit
now and then. Here every step is one IEEE 754 operation (+ - * / on float64 arrays,
frexp/ldexp exact), evaluated to about 75 bits or better and rounded once, so the
result depends on the operands only and is the correctly rounded one except within
about 2^-20 ulp of a rounding boundary.

t = min(|x|, |y|) / max(|x|, |y|) in double-double (both scaled by a power of two
first); atan t = atan c + atan u with c = i/64 the nearest table point and
u = (t - c) / (1 + t c), |u| <= 2^-7, by its series (the first two terms in
double-double); then pi/2 - ., pi - . and the sign of y place the angle.

Operands with a zero, an infinity or a nan take `fallback` (the C library's
function): their C99 values are exact constants (0, +-pi/2, +-pi, +-pi/4, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, localcontext
from functools import cache

import numpy as np

from algspec.ir.double_double import _add, _fast_two_sum, _mul, _two_prod, _two_sum

_TABLE = 64  # atan(i / 64), i = 0 .. 64
_TINY = 2.0**-900  # below: atan t = t to every bit there is


def _dd(value: Decimal) -> tuple[float, float]:
    hi = float(value)
    return hi, float(value - Decimal(hi))


def _atan(c: Decimal) -> Decimal:
    """atan c for 0 <= c <= 1 in the current decimal context (two halvings, then Taylor)."""
    for _ in range(2):
        c = c / (1 + (1 + c * c).sqrt())
    total, term, k, c2 = Decimal(0), c, 1, c * c
    while abs(term) > Decimal(10) ** -65:
        total += term / k
        term = -term * c2
        k += 2
    return 4 * total


@cache
def _constants() -> dict[str, object]:
    with localcontext() as ctx:
        ctx.prec = 60
        table = [_dd(_atan(Decimal(i) / _TABLE)) for i in range(_TABLE + 1)]
        pi = 4 * _atan(Decimal(1))
        return {"atan": (np.array([v[0] for v in table]), np.array([v[1] for v in table])),
                "pi": _dd(pi), "half_pi": _dd(pi / 2), "third": _dd(Decimal(1) / 3)}


def _div(n: tuple, d: tuple) -> tuple[np.ndarray, np.ndarray]:
    """n / d in double-double (one correction step: about 100 bits)."""
    q = n[0] / d[0]
    p = _mul((q, np.zeros_like(q)), d)
    r = _add(n, (-p[0], -p[1]))
    return _fast_two_sum(q, r[0] / d[0])


def _atan_unit(t: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """atan t in double-double for 0 <= t <= 1 (t in double-double)."""
    k = _constants()
    i = np.round(t[0] * _TABLE)
    c = i / _TABLE  # exact: 7 bits
    num = _add(_two_sum(t[0], -c), (t[1], np.zeros_like(c)))
    tc = _two_prod(t[0], c)
    den = _add(_two_sum(np.ones_like(c), tc[0]), (tc[1] + t[1] * c, np.zeros_like(c)))
    u = _div(num, den)
    u2 = _mul(u, u)
    u3 = _mul(_mul(u2, u), (np.full_like(c, k["third"][0]), np.full_like(c, k["third"][1])))
    tail = 0.0
    for n in range(13, 3, -2):  # u^5/5 - u^7/7 + ...: below 2^-28 of u, in float64
        tail = (1.0 / n if n % 4 == 1 else -1.0 / n) + u2[0] * tail
    tail = tail * (u2[0] * u2[0]) * u[0]
    s = _add(u, (-u3[0], -u3[1]))
    s = _add(s, (tail, np.zeros_like(c)))
    ii = i.astype(np.int64)
    return _add((k["atan"][0][ii], k["atan"][1][ii]), s)


def atan2(y: np.ndarray, x: np.ndarray,
          fallback: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The angle of the point (x, y) in [-pi, pi] for float64 arrays; operands with a
    zero, an infinity or a nan go to `fallback`."""
    y, x = np.broadcast_arrays(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64))
    with np.errstate(all="ignore"):
        normal = np.isfinite(x) & np.isfinite(y) & (x != 0) & (y != 0)
        out = np.empty(x.shape, dtype=np.float64)
        if (~normal).any():
            out[~normal] = fallback(y[~normal], x[~normal])
        out[normal] = _atan2_normal(y[normal], x[normal])
    return out


def _atan2_normal(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    k = _constants()
    a, b = np.abs(y), np.abs(x)
    swap = a > b
    num, den = np.where(swap, b, a), np.where(swap, a, b)
    e = np.frexp(den)[1]
    num, den = np.ldexp(num, -e), np.ldexp(den, -e)  # den in [0.5, 1)
    tiny = num < _TINY
    num = np.where(tiny, 0.0, num)
    q = num / den
    p = _two_prod(q, den)
    t = _fast_two_sum(q, ((num - p[0]) - p[1]) / den)  # num - p[0] exact
    ang = _atan_unit(t)
    zero = np.zeros_like(q)
    hp = (np.full_like(q, k["half_pi"][0]), np.full_like(q, k["half_pi"][1]))
    pi = (np.full_like(q, k["pi"][0]), np.full_like(q, k["pi"][1]))
    swapped = _add(hp, (-ang[0], -ang[1]))
    ang = (np.where(swap, swapped[0], ang[0]), np.where(swap, swapped[1], ang[1]))
    left = _add(pi, (-ang[0], -ang[1]))
    neg = x < 0
    ang = (np.where(neg, left[0], ang[0]), np.where(neg, left[1], ang[1]))
    out = ang[0] + ang[1] + zero
    out = np.where(tiny & ~swap & ~neg, a / b, out)  # atan t = t below 2^-900
    return np.copysign(out, y)
