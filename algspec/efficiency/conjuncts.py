"""Tests as lists of conjuncts, and constants as values: the vocabulary the worst-case
rule (`worst_case`) and the normal forms (`normal_forms`) share.

A leaf module: both of those read it, neither is read by it.
"""

from __future__ import annotations

from algspec import ir


def const_value(e: ir.Expr | None):
    """The value of a constant or a negated constant (`-1`), else None."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Unary) and e.op == "-" and isinstance(e.operand, ir.Const):
        return -e.operand.value
    return None


def conjuncts(e: ir.Expr | None) -> list[ir.Expr]:
    """The conjuncts of a test (`a and b and c` -> [a, b, c]); none for no test."""
    if e is None:
        return []
    if isinstance(e, ir.Binary) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def conjoin(es: list[ir.Expr]) -> ir.Expr | None:
    """`a and b and ...` of `es` (None for none)."""
    out = None
    for e in es:
        out = e if out is None else ir.Binary(op="and", left=out, right=e, dtype=ir.DType.BOOL)
    return out


__all__ = ["conjoin", "conjuncts", "const_value"]
