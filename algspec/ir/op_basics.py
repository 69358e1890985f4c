"""What every rule module of the semantics table shares: numeric dtypes, the
common dtype of two values, the two errors rules raise, and the shift cap.

A leaf, so that the op table (`ops.py`), its size rules (`op_sizes.py`) and
the reductions (`reductions.py`) do not import each other for these.
"""

from __future__ import annotations

from algspec.ir import DType

__all__ = ["MAX_SHIFT", "NUMERIC", "NotASize", "OpTypeError", "join"]

NUMERIC = frozenset({DType.INT, DType.FLOAT})
MAX_SHIFT = 63  # shift counts are clamped to 0..MAX_SHIFT in every evaluator (int64 wraps)


class OpTypeError(Exception):
    """A type rule rejected its operands. `arg` is the offending operand (None: the whole op)."""

    def __init__(self, message: str, arg: int | None = None):
        super().__init__(message)
        self.message = message
        self.arg = arg


class NotASize(Exception):
    """The op has no meaning in a size expression (loop bound, node count)."""


def join(a: DType, b: DType) -> DType | None:
    """The common dtype of two values: equal, or int widened to float; None if none."""
    if a == b:
        return a
    if {a, b} == NUMERIC:
        return DType.FLOAT
    return None
