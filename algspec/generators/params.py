"""Generator parameters that are expressions in n (`p = 2.0 / n`).

The lowering stores such a parameter as an IR size expression; it is
evaluated here, with the size rules of `algspec.ir.ops`, when a batch is drawn
at a concrete n.  Constant parameters pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from algspec import ir
from algspec.ir import ops


def is_expr(v: Any) -> bool:
    """Whether a parameter value is an IR expression (to evaluate at n) rather than a constant."""
    return isinstance(v, ir.IRNode)


def expr_dtype(v: Any) -> ir.DType:
    return v.dtype


def _args(e: Any) -> list[Any]:
    if isinstance(e, ir.Unary):
        return [e.operand]
    if isinstance(e, ir.Binary):
        return [e.left, e.right]
    return list(e.args)


def evaluate(e: Any, n: int) -> float | int | bool:
    """The value of a size expression in n; ints stay ints (`n // 5`), as the IR dtype says."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Size):
        if e.which != "n":
            raise ValueError(f"a generator parameter may use n only, not {e.which}")
        return n
    op = ops.op_of(e)
    if op is None:
        raise ValueError(f"not a size expression: {e.kind}")
    try:
        value = op.size(*(evaluate(a, n) for a in _args(e)))
        value = int(value) if e.dtype == ir.DType.INT else value
        float(value)  # an exact int past a float (`2 ** 1024`) overflows here, not later
    except OverflowError:  # `10 ** 400`: the draw's input is named by `draw_inputs` (E105)
        raise ValueError(f"a parameter is beyond a float's range at n = {n}") from None
    return value


def text(v: Any) -> str:
    """Source-like text of a parameter value: `2.0 / n`, `0.5`, `true`."""
    if is_expr(v):
        return ops.text(v, _leaf)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _leaf(e: Any) -> str:
    if isinstance(e, ir.Const):
        return text(e.value)
    if isinstance(e, ir.Size):
        return e.which
    return e.kind


def jsonable(v: Any) -> Any:
    """A parameter value for JSON (manifests, `compile --json`): expressions as their text."""
    return text(v) if is_expr(v) else v


def at_size(params: Mapping[str, Any], n: int) -> dict[str, Any]:
    """Parameters with every expression evaluated at n."""
    return {k: evaluate(v, n) if is_expr(v) else v for k, v in params.items()}


def describe(params: Mapping[str, Any], n: int) -> str:
    """`p = 2.0 / n = 0.25` for each expression parameter (for error messages)."""
    return ", ".join(f"{k} = {text(v)} = {evaluate(v, n)}" for k, v in params.items()
                     if is_expr(v))
