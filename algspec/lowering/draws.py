"""How a `rand()` / `rand_int` call is keyed: per processor, per edge, per unordered pair.

- In a round a draw is per processor lane (an edge round's processors are its
  edges, so each ordered pair (v, u) draws its own value);
- directly in the body of `for (u, v) in edges(A)` (not in a round or procedure
  inside it) a draw is per edge: `ir.Rand.pair` holds the loop's two ends, which
  key it in place of the trip (`algspec.interp.random`);
- `symmetric = true` (an edge round or an edges loop only) keys by the unordered
  pair {u, v}: both directions of an edge see one value.
"""

from __future__ import annotations

from algspec import ir
from algspec.language import ast
from algspec.lowering.scope import Reporter, Scope

_HELP = "`rand(symmetric = true)` or `rand_int(low, high, symmetric = true)`"


def no_kwargs(low: Reporter, e: ast.CallExpr) -> None:
    """E207: only the draws take `name = value` arguments."""
    name, value = e.kwargs[0]
    low.fail("E207", f"`{e.func}(...)` takes no `{name} = ...` argument: only `rand` and "
             "`rand_int` take one (`symmetric`)", value.span)


def symmetric_option(low: Reporter, e: ast.CallExpr) -> bool:
    """The `symmetric = true|false` argument of a draw (a literal boolean), False without it."""
    out = False
    seen: set[str] = set()
    for name, value in e.kwargs:
        if name != "symmetric":
            low.fail("E207", f"`{e.func}` takes no `{name}` argument; its only option is "
                     "`symmetric`", value.span, help=_HELP)
        if name in seen:
            low.fail("E207", f"`symmetric` is given twice to `{e.func}`", value.span)
        seen.add(name)
        if not (isinstance(value, ast.Num) and isinstance(value.value, bool)):
            low.fail("E207", "`symmetric` is `true` or `false`, written as such", value.span,
                     help=_HELP)
        out = bool(value.value)
    return out


def edge_keying(low: Reporter, e: ast.CallExpr, scope: Scope,
                symmetric: bool) -> list[ir.Expr] | None:
    """The loop ends keying a draw directly in an edges loop's body, else None; E207 for a
    symmetric draw that has no edge (outside edge rounds and edges loops)."""
    loop = low.edge_loop
    depth = len(low.proc_stack)
    in_loop = loop is not None and loop[1] == depth and not scope.in_forall
    in_edge_round = scope.in_forall and scope.processors == 2
    if symmetric and not (in_loop or in_edge_round):
        low.fail("E207", f"`{e.func}(symmetric = true)` draws one value per unordered pair "
                 "{u, v}: it needs an edge, in an edge round (`forall v, u where A[v, u] { .. "
                 "}`) or directly in `for (u, v) in edges(A) { .. }`", e.span,
                 help=f"draw one value per processor: `{e.func}` without `symmetric` here")
    return list(loop[0]) if in_loop else None


def loop_ends(names: list[str], local: list[bool]) -> list[ir.Expr]:
    """The two ends of an edges loop as graph-level int reads (the draw's key)."""
    return [ir.VarRef(name=x, local=lo, dtype=ir.DType.INT) for x, lo in zip(names, local)]
