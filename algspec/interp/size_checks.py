"""Sizes the interpreter computes in int64 (node counts, loop bounds), checked exactly.

The machine evaluates sizes with the numpy rules of `algspec.ir.ops`, where an int
wraps as int64: `n ** 100` at n = 16 would be 0. These checks evaluate the same
expression on Python numbers (`efficiency.size_eval.eval_size`, which never
wraps) and say where the int64 value cannot be trusted, so that a size is never
silently wrong: a node count that large is refused (E108), a loop bound that
large allows as many trips as an infinite one.
"""

from __future__ import annotations

import math

import numpy as np

from algspec import ir

# A size at or beyond this magnitude does not fit the interpreter's int64 arithmetic.
INT_LIMIT = 2 ** 62


def exact_size(e: ir.Expr, n: int, m: float | None = None, N: float | None = None) -> float:
    """The value of size expression `e` without wrapping (inf when beyond a float's range,
    nan where it is undefined)."""
    from algspec.ir.size_values import EfficiencyError, eval_size
    try:
        return eval_size(e, n, m, N)
    except OverflowError:
        return math.inf
    except (EfficiencyError, ArithmeticError, ValueError, TypeError):
        return math.nan


def too_large(value: float) -> bool:
    """Whether a size's exact value does not fit int64 arithmetic."""
    return math.isinf(value) or (not math.isnan(value) and abs(value) >= INT_LIMIT)


def node_count_too_large(prog: ir.Program, n: int) -> float | None:
    """The exact node count at n when it is too large for the interpreter, else None."""
    value = exact_size(prog.nodes, n)
    return value if too_large(value) else None


def overflowing_lanes(e: ir.Expr, n: int, N: int, m: np.ndarray) -> np.ndarray | None:
    """The samples (by their edge counts `m`) at which int size `e` overflows int64, or
    None when it overflows at none (a float size saturates on its own)."""
    if e.dtype != ir.DType.INT:
        return None
    m = np.asarray(m)
    values = np.unique(m)
    big = [v for v in values.tolist() if too_large(exact_size(e, n, v, N))]
    return np.isin(m, big) if big else None
