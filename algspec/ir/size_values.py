"""Size expressions' values on concrete sizes, and the error of a size that is none.

A size expression (node count, loop bound, `calls` bound) is constants and n, N and m
under the operators of `algspec.ir.ops`. `fold_size` walks it once over `ir.children` in
an algebra; the numbers algebra (`eval_size`) lives here, beside the IR, since the
interpreter's exact checks, sampling and the API evaluate sizes, and the classes
algebra (bounds in n and m) is the efficiency analysis's (`algspec.efficiency.size_eval`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Generic, TypeVar

from algspec import ir
from algspec.diagnostics import AlgError, Diagnostic, Span
from algspec.ir import ops

V = TypeVar("V")


E605_HELP = ("write it as a class n^a m^b log^c n (log log n)^d (log* n)^e: n, m, log2, "
             "log_star, sqrt, min, max, constant powers and 2 ** (k * log2(n) + c) "
             "(`algspec explain E605`)")


class EfficiencyError(AlgError, ValueError):
    """A size expression the analysis cannot classify (E605 at the expression).

    Raised by `analyse` (and so by `CompiledAlgorithm.static_efficiency()`) for a loop
    bound, `calls` bound or node count whose class is not n^a m^b log^c n (log log n)^d
    (log* n)^e (`2 ** n`), or that cannot be bounded (`n / (n - n)`). It is an `AlgError`, so
    `diagnostics` holds the diagnostic the CLI prints, and a `ValueError`.
    """

    def __init__(self, message: str, span: Span | None = None, path: str | None = None):
        self.span = span or Span()
        self.message = message
        self.path = path
        super().__init__([Diagnostic(code="E605", message=message, span=self.span,
                                     path=path or "<string>", help=E605_HELP)])

    def at(self, path: str | None) -> EfficiencyError:
        """The same error in file `path`, unless it already names one."""
        if self.path is not None or path is None:
            return self
        return EfficiencyError(self.message, self.span, path)


class SizeAlgebra(ABC, Generic[V]):
    """What a fold over a size expression computes at each kind of node."""

    def whole(self, e: ir.Expr) -> V | None:
        """A value for the whole subtree `e`, or None to fold into it."""
        return None

    @abstractmethod
    def leaf(self, e: ir.Const | ir.Size) -> V:
        """The value of a constant or of n, m, N."""

    @abstractmethod
    def apply(self, op: ops.Op, e: ir.Expr, args: list[V], parts: list[ir.Expr]) -> V:
        """The value of `op` over its operands' values (`parts` are the operands)."""

    @abstractmethod
    def cond(self, e: ir.Cond, value: Callable[[ir.Expr], V]) -> V:
        """The one policy for `a if c else b` (`value` folds a subexpression)."""

    def unknown(self, e: ir.Expr) -> Exception:
        """The error for a node that is not a size (a read, an index, an aggregation)."""
        return EfficiencyError("a size must be an expression in n and m", e.span)


def fold_size(e: ir.Expr, alg: SizeAlgebra[V]) -> V:
    """The value of size expression `e` in algebra `alg` (one walk over `ir.children`)."""
    got = alg.whole(e)
    if got is not None:
        return got
    if isinstance(e, (ir.Const, ir.Size)):
        return alg.leaf(e)
    if isinstance(e, ir.Cond):
        return alg.cond(e, lambda x: fold_size(x, alg))
    op = ops.op_of(e)
    if op is None:
        raise alg.unknown(e)
    parts = ir.children(e)
    return alg.apply(op, e, [fold_size(a, alg) for a in parts], parts)


class Numbers(SizeAlgebra[float]):
    """Sizes on concrete n, m and N (N defaults to the node count's own value n)."""

    def __init__(self, n: float, m: float | None = None, N: float | None = None):
        self.n, self.m, self.N = n, m, N

    def leaf(self, e: ir.Const | ir.Size) -> float:
        if isinstance(e, ir.Const):
            return float(e.value)
        if e.which == "m":
            if self.m is None:
                raise ValueError("this size depends on m: pass m")
            return float(self.m)
        return float(self.n if e.which == "n" or self.N is None else self.N)

    def apply(self, op: ops.Op, e: ir.Expr, args: list[float], parts: list[ir.Expr]) -> float:
        vals = [int(v) if a.dtype == ir.DType.INT and float(v).is_integer() else v
                for v, a in zip(args, parts)]
        return float(op.size(*vals))

    def cond(self, e: ir.Cond, value: Callable[[ir.Expr], float]) -> float:
        return value(e.then) if value(e.cond) else value(e.otherwise)


def eval_size(e: ir.Expr, n: float, m: float | None = None, N: float | None = None) -> float:
    """The numeric value of a size expression (node count, loop bound) at n (and m)."""
    return fold_size(e, Numbers(n, m, N))


def constant_truth(e: ir.Expr) -> bool | None:
    """The value of a condition of constants alone (`true and false`), else None."""
    if any(not isinstance(x, (ir.Const, ir.Unary, ir.Binary)) for x in ir.walk_expr(e)):
        return None
    try:
        return bool(eval_size(e, 1.0))
    except (ValueError, ArithmeticError, TypeError, EfficiencyError, ops.NotASize):
        return None
