"""The size rules of the semantics table (`ops.py`): an op on concrete sizes
(Python numbers: node counts, loop bounds at n, m) and on size classes.

Size rules give numpy's meaning where Python would raise (`log2(0)` is -inf,
`1 / 0` is inf), and take `log2` and float `**` from `algspec.ir.libm`, as the
interpreter does: the same bits on every CPU. Class rules take and return
`algspec.efficiency.size_classes.SizeClass`, which holds the arithmetic; they
raise `NotASize` for an op that has no meaning in a size expression.
"""

from __future__ import annotations

import math

from algspec.ir import libm
from algspec.ir.op_basics import MAX_SHIFT, NotASize

__all__ = [
    "cls_abs", "cls_and", "cls_bits", "cls_div", "cls_floor_div", "cls_lshift", "cls_max",
    "cls_min", "cls_mod", "cls_neg", "cls_pow", "cls_pow2ceil", "cls_rshift", "cls_same",
    "cls_sub", "ints", "not_a_size", "sz_div", "sz_floor_div", "sz_log2", "sz_log_star",
    "sz_lshift", "sz_mod", "sz_pow", "sz_pow2ceil", "sz_rshift", "sz_sqrt",
]


# ------------------------------------------------------------------ size rules
# Python numbers, with numpy's meaning where Python would raise.
def sz_div(a, b):
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a) * math.copysign(1, b)
    return a / b


def sz_log2(x):
    if x > 0:
        if isinstance(x, int) and x.bit_length() > 1000:  # beyond a float: exact int log2
            return math.log2(x)
        return libm.scalar(libm.log2, x)
    return -math.inf if x == 0 else math.nan


def sz_log_star(x):
    if isinstance(x, float) and not math.isfinite(x):
        return x if x != -math.inf else 0.0
    k = 0
    while x > 1:
        x = sz_log2(x)
        k += 1
    return float(k)


def sz_sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


def sz_floor_div(a, b):
    if b == 0:
        raise ZeroDivisionError("integer division by zero in a size expression")
    return a // b


def sz_mod(a, b):
    if b == 0:
        raise ZeroDivisionError("integer division by zero in a size expression")
    return a % b


def ints(f):
    """A size rule on ints: sizes may arrive as integral floats."""
    return lambda *args: f(*(int(a) for a in args))


def sz_lshift(a, b):
    return int(a) << min(max(int(b), 0), MAX_SHIFT)


def sz_rshift(a, b):
    return int(a) >> min(max(int(b), 0), MAX_SHIFT)


def sz_pow(a, b):
    if isinstance(a, int) and isinstance(b, int):
        if b >= 0:
            if abs(a) >= 2 and b * (abs(a).bit_length() - 1) > 1100:
                # beyond a float's range (as `float()` of the exact power would say),
                # without computing a number of billions of digits
                raise OverflowError("integer power beyond a float's range")
            return a ** b
        return 1 if a == 1 else ((-1 if b % 2 else 1) if a == -1 else 0)
    if a == 0 and b < 0:
        return math.inf
    try:
        return libm.scalar(libm.pow, a, b)
    except OverflowError:  # an int operand beyond a float
        return math.inf


def sz_pow2ceil(x):
    return 1 if x <= 1 else 1 << math.ceil(math.log2(x))


# ------------------------------------------------------------------ class rules
def not_a_size(what: str):
    def rule(*args):
        raise NotASize(f"{what} in a size expression")
    return rule


# The class rules take and return `algspec.efficiency.size_classes.SizeClass`: bounds on the
# value (above, below, negative part, and the class of 2 ** value), so that subtraction,
# division, powers and shifts stay sound; `SizeClass` holds the arithmetic.
def cls_neg(a):
    return -a


def cls_sub(a, b):
    """a - b: O(a) when b is positive; it may be negative (`abs(0 - n)` is n)."""
    return a - b


def cls_div(a, b):
    """a / b: the divisor needs a lower bound (`n / log2(n)` is n/log n)."""
    return a / b


def cls_floor_div(a, b):
    return a.floordiv(b)


def cls_mod(a, b):
    """a % b lies between 0 and b (floor modulo: the divisor's sign)."""
    return a.mod(b)


def cls_max(*args):
    out = args[0]
    for a in args[1:]:
        out = type(out).maximum(out, a)
    return out


def cls_min(*args):
    out = args[0]
    for a in args[1:]:
        out = type(out).minimum(out, a)
    return out


def cls_same(a):
    """floor, ceil, int, float: within 1 of the value, so the same class."""
    return a.rounded()


def cls_abs(a):
    return a.abs()


def cls_pow(a, b, values=(None, None)):
    """a ** b: a constant exponent gives a power of a's class; a constant base b and an
    exponent k * log2(n) + c give n^(k log2 b); other growing exponents have no class."""
    return a ** b


def cls_lshift(a, b, values=(None, None)):
    """a << c is a * 2 ** c: `1 << ceil(log2(n))` is n."""
    return a.lshift(b)


def cls_rshift(a, b):
    """a >> c is floor(a / 2 ** c), at most a."""
    return a.rshift(b)


def cls_bits(a, b):
    """a | b, a ^ b of non-negative sizes are below twice the larger one."""
    return type(a).bits(a, b)


def cls_and(a, b):
    """a & b of non-negative sizes is at most the smaller one (and may be 0)."""
    return type(a).bit_and(a, b)


def cls_pow2ceil(a):
    return a.pow2ceil()
