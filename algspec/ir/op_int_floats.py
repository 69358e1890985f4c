"""`%` and `//` of floats that hold integers: Python's integer result, exactly rounded.

Integer-valued node inputs are `scalar` (floats), so `x % y` and `x // y` on them mean
integer arithmetic. On operands that are integers below 2^63 in magnitude the rule
converts them to int64 exactly, takes numpy's integer floor division or floor modulo
(Python's semantics: the remainder has the divisor's sign) and rounds the exact integer
result once to the float dtype. No float division or transcendental kernel takes part,
so every CPU gives the same bytes, and a zero result is +0.0 as `float(0)` is.

Other lanes (a fraction, inf, nan, a huge value, a zero divisor) keep IEEE float
semantics here; the interpreter faults them (R114, R104: `interp.expressions`), so no
sample ever holds such a value. Two ints never reach the float path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

INT_LIMIT = 2.0 ** 63  # floats of magnitude below it convert to int64 exactly


def integral(x: np.ndarray) -> np.ndarray:
    """Where a float is an integer that int64 holds exactly (finite, no fraction, |x| < 2^63)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return np.ones(x.shape, bool)
    with np.errstate(invalid="ignore"):
        return (np.abs(x) < INT_LIMIT) & (np.floor(x) == x)


def integral_floats(f: Callable, a, b) -> np.ndarray:
    """`f` (np.floor_divide or np.mod) elementwise; on integral floats, the exact integer result."""
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        plain = f(a, b)  # ints; and floats where they are not integers (faulted by the caller)
        if a.dtype.kind != "f" and b.dtype.kind != "f":
            return plain
        ok = integral(a) & integral(b) & (b != 0)
        if not ok.any():
            return plain
        ia = np.where(ok, a, 0).astype(np.int64)
        ib = np.where(ok, b, 1).astype(np.int64)
        exact = f(ia, ib).astype(plain.dtype)  # |result| <= |a| < 2^63: no wrap; one rounding
    return np.where(ok, exact, plain)


def fault(op: str, left: np.ndarray, right: np.ndarray,
          mask: np.ndarray) -> tuple[str, str, np.ndarray] | None:
    """The run-time fault of a float `%`/`//` on live lanes, as (code, message, bad lanes):
    R114 for an operand that is not an integer (a fraction, inf, nan, beyond 2^63), R104 for
    a zero divisor (as for ints); None when every live lane is an integer operation."""
    for side, x in (("left", left), ("right", right)):
        bad = ~integral(x) & mask
        if bad.any():
            v = float(np.broadcast_to(x, bad.shape)[bad].flat[0])
            why = f"the {side} operand of `{op}` holds {v!r}, not an integer: `{op}` of floats " \
                "computes on integer values"
            return "R114", why, bad
    zero = (np.asarray(right) == 0) & mask
    if zero.any():
        return "R104", f"`{op}` by zero", zero
    return None
