"""Size expressions (node counts, loop bounds, `calls` bounds): one fold, two algebras.

A size expression is constants and n, N, m under the operators of `algspec.ir.ops`.
`fold_size` walks it once over `ir.children`; what a leaf, an operator and a
conditional mean comes from the algebra it is given:

* on numbers (`eval_size`): each operator's `size` rule, and `a if c else b`
  evaluates c and takes the branch it picks;
* on classes (`size_bounds`, `size_class`): each operator's `size_class` rule on
  `SizeClass` bounds, and `a if c else b` may be either branch (the upper bound
  is the larger of both, the lower the smaller). A part free of n, N and m is
  valued on numbers first, so constants keep their exact value.

Every pass that needs a size's value or class (the cost pass, selection,
measured, lint, `algspec.ir.sizes`, `CompiledAlgorithm.generate`) calls these.
"""

from __future__ import annotations

from collections.abc import Callable

from algspec import ir
from algspec.efficiency.asymptotic import Asymptotic, m, n, one, zero
from algspec.efficiency.size_classes import SizeClass
from algspec.ir import ops
from algspec.ir.graph_kinds import GRAPH_KINDS
from algspec.ir.size_values import (
    EfficiencyError,
    Numbers,
    SizeAlgebra,
    constant_truth,
    eval_size,
    fold_size,
)


class Classes(SizeAlgebra[SizeClass]):
    """Sizes as bounds in n, N and m (`SizeClass`); errors are E605 in file `path`.
    `edges` stands for m (a graph kind whose |E| is fixed by n: its class in n)."""

    def __init__(self, nodes: Asymptotic = n, path: str | None = None,
                 edges: Asymptotic = m):
        self.nodes, self.path, self.edges = nodes, path, edges

    def whole(self, e: ir.Expr) -> SizeClass | None:
        if any(isinstance(x, ir.Size) for x in ir.walk_expr(e)):
            return None
        try:  # free of n, N and m: its value
            return SizeClass.const(eval_size(e, 1.0))
        except EfficiencyError as err:
            raise err.at(self.path) from None
        except OverflowError:
            raise no_class(e, ValueError("it is a constant beyond a float's range "
                                         "(over 1.8e308)"), self.path) from None
        except (ops.NotASize, ArithmeticError, ValueError) as err:
            raise no_class(e, err, self.path) from None

    def leaf(self, e: ir.Const | ir.Size) -> SizeClass:
        return SizeClass.size({"n": n, "N": self.nodes, "m": self.edges}[e.which])

    def apply(self, op: ops.Op, e: ir.Expr, args: list[SizeClass],
              parts: list[ir.Expr]) -> SizeClass:
        try:
            if op.class_uses_values:
                return op.size_class(*args, values=tuple(a.value for a in args))
            return op.size_class(*args)
        except (ops.NotASize, ZeroDivisionError) as err:
            raise no_class(e, err, self.path) from None

    def cond(self, e: ir.Cond, value: Callable[[ir.Expr], SizeClass]) -> SizeClass:
        a, b = value(e.then), value(e.otherwise)
        low = SizeClass.minimum(a, b)
        return SizeClass(SizeClass.maximum(a, b).hi, low.lo, low.down)

    def unknown(self, e: ir.Expr) -> Exception:
        return EfficiencyError("a loop bound must be an expression in n and m", e.span,
                               self.path)


def size_bounds(e: ir.Expr, nodes: Asymptotic = n, path: str | None = None,
                edges: Asymptotic = m) -> SizeClass:
    """Bounds on the value of a size expression (`algspec.efficiency.size_classes.SizeClass`)."""
    return fold_size(e, Classes(nodes, path, edges))


def size_class(e: ir.Expr, nodes: Asymptotic = n, path: str | None = None,
               edges: Asymptotic = m) -> Asymptotic:
    """The asymptotic class of a size expression in n, N and m (an upper bound on its
    value for large n), or `EfficiencyError` (E605) where it has none."""
    return size_bounds(e, nodes, path, edges).hi


def trips_class(e: ir.Expr, nodes: Asymptotic = n, path: str | None = None,
                edges: Asymptotic = m) -> Asymptotic:
    """The class of a loop's trips under bound `e`: trips are whole and at most the bound,
    so a bound that tends to 0 (`1 / n`) allows none."""
    hi = size_class(e, nodes, path, edges)
    return zero if hi.is_o(one) else hi


def no_class(e: ir.Expr, why: Exception, path: str | None) -> EfficiencyError:
    """E605 at `e`: `TEXT` has no asymptotic class, and why."""
    def leaf(x: ir.Expr) -> str:
        if isinstance(x, ir.Const):
            return str(x.value)
        return x.which if isinstance(x, ir.Size) else "?"
    reason = str(why) or "its value is undefined"
    return EfficiencyError(f"`{ops.text(e, leaf)}` has no asymptotic class: {reason}",
                           e.span, path)


def edge_class(graph: ir.Graph, nodes: Asymptotic) -> Asymptotic:
    """|E| of the interconnection graph: a built-in kind's (`algspec.ir.graph_kinds`), input m."""
    kind = GRAPH_KINDS.get(graph.kind)
    if kind is None:
        return m
    return {"N^2": nodes * nodes, "N": nodes}[kind.edges]


__all__ = ["Classes", "Numbers", "SizeAlgebra", "constant_truth", "edge_class", "eval_size",
           "fold_size", "no_class", "size_bounds", "size_class", "trips_class"]
