"""Elementwise transcendental math with the same bits on every CPU.

numpy picks its float64 kernels for `arctan2`, `power`, `log2`, `log`, `exp`,
`sin`, `cos`, ... at run time by CPU feature (AVX-512 and others). Those SIMD
kernels are not correctly rounded, so their last bit differs by CPU, and the
same seed would give different bytes on different machines. The functions here
do not use them.

Nor the C library's: it has CPU variants of its own: glibc runs FMA or non-FMA code for
`exp`, `log`, `log2`, `pow`, `atan2`, `sin`, `cos` by CPU, and the two differ in
the last bit on up to about one float64 result in a thousand. These functions are
therefore computed in double-double arithmetic from exactly rounded + - * / only
(`algspec.ir.double_double` for sin/cos, `algspec.ir.exp_log` for exp/log/log2/pow,
`algspec.ir.atan2_dd` for atan2): the same bits everywhere, correctly rounded but
for results within about 2^-20 ulp of a rounding boundary. The C library still
gives the special operands' values (zeros, infinities, nan: exact constants, the
same on every CPU) and sin/cos beyond 2^19.

Where `math` raises, they give the IEEE / C99 value numpy documents:
`log2(0) = -inf`, the log of a negative number or of -inf is nan, `exp` and
`pow` overflow to +-inf, `0 ** negative = inf` (-inf for -0.0 to an odd
negative integer), `sin(inf) = nan`.

Results are float64, or float32 where every input is float32 (computed in
float64, then rounded). Arithmetic that IEEE 754 rounds exactly (+ - * /,
sqrt, floor, fmod) needs none of this and stays numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from algspec.ir import atan2_dd, double_double, exp_log

__all__ = ["atan2", "cos", "exp", "log", "log2", "pow", "scalar", "sin"]


def _is_odd_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and math.fmod(y, 2.0) != 0.0


def _sin(x: float) -> float:
    try:
        return math.sin(x)
    except ValueError:  # +-inf
        return math.nan


def _cos(x: float) -> float:
    try:
        return math.cos(x)
    except ValueError:
        return math.nan


def _pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except OverflowError:  # finite operands, result too large: the sign of x ** y
        return -math.inf if x < 0 and _is_odd_integer(y) else math.inf
    except ValueError:
        if x == 0:  # zero to a negative power: a pole
            return math.copysign(math.inf, x) if _is_odd_integer(y) else math.inf
        return math.nan  # a negative base to a non-integer power


def _elementwise(raw: Callable[..., float], total: Callable[..., float], *xs) -> np.ndarray:
    """`raw` (a `math` function) on every element of the broadcast operands.

    `raw` runs first, as the fast path; if it raises on some element, the whole
    map runs again through `total`, which returns the IEEE value instead.
    """
    arrays = [np.asarray(x) for x in xs]
    single = all(a.dtype == np.float32 for a in arrays)
    arrays = np.broadcast_arrays(*(a.astype(np.float64, copy=False) for a in arrays))
    shape = arrays[0].shape
    flat = [a.ravel().tolist() for a in arrays]
    count = int(np.prod(shape, dtype=np.int64))
    try:
        out = np.fromiter(map(raw, *flat), dtype=np.float64, count=count)
    except (ValueError, OverflowError):
        out = np.fromiter(map(total, *flat), dtype=np.float64, count=count)
    out = out.reshape(shape)
    return out.astype(np.float32) if single else out


def _portable(f: Callable[..., np.ndarray], *xs) -> np.ndarray:
    """`f` (a double-double function of float64 arrays) on the broadcast operands:
    float32 where every operand is float32 (computed in float64, then rounded)."""
    arrays = [np.asarray(x) for x in xs]
    single = all(a.dtype == np.float32 for a in arrays)
    out = f(*(a.astype(np.float64) for a in arrays))
    return out.astype(np.float32) if single else out


def log2(x) -> np.ndarray:
    """Base-2 logarithm: log2(0) = -inf, nan below 0, exact at powers of two."""
    return _portable(exp_log.log2, x)


def log(x) -> np.ndarray:
    """Natural logarithm: log(0) = -inf, nan below 0."""
    return _portable(exp_log.log, x)


def exp(x) -> np.ndarray:
    """e ** x, inf on overflow."""
    return _portable(exp_log.exp, x)


def _double_double(f: Callable[..., np.ndarray], raw: Callable[[float], float],
                   total: Callable[[float], float], x) -> np.ndarray:
    arr = np.asarray(x)
    out = f(arr.astype(np.float64), lambda v: _elementwise(raw, total, v))
    return out.astype(np.float32) if arr.dtype == np.float32 else out


def sin(x) -> np.ndarray:
    """Sine (radians), in double-double arithmetic below 2^19 (the C library's sin differs
    by CPU: `algspec.ir.double_double`); nan at +-inf."""
    return _double_double(double_double.sin, math.sin, _sin, x)


def cos(x) -> np.ndarray:
    """Cosine (radians), as `sin`; nan at +-inf."""
    return _double_double(double_double.cos, math.cos, _cos, x)


def atan2(y, x) -> np.ndarray:
    """The angle of the point (x, y) in radians, in [-pi, pi]."""
    return _portable(lambda b, a: atan2_dd.atan2(
        b, a, lambda v, u: _elementwise(math.atan2, math.atan2, v, u)), y, x)


def pow(x, y) -> np.ndarray:  # the C library's name, as `math.pow`
    """x ** y on floats, as C's pow: overflow is +-inf, 0 ** negative is inf, nan for a
    negative base to a non-integer power."""
    return _portable(lambda a, b: exp_log.pow(
        a, b, lambda u, v: _elementwise(math.pow, _pow, u, v)), x, y)


def scalar(f: Callable[..., np.ndarray], *args: float) -> float:
    """One of these functions on Python numbers, as a Python float (the size rules')."""
    return float(f(*(np.float64(a) for a in args)))
