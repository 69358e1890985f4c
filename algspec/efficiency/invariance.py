"""Which enclosing loops re-read the same edges on every trip (the cost pass's `Cost.fixed`).

Active edges are distinct per round. A loop that records nothing runs all its trips
in one round, so a read whose indices depend on nothing the loop changes touches
the same edges on every trip: one trip's edges, not trips times as many. An inner
loop over a range the outer loop does not change (`for x in nodes`) touches the
same edges on every execution, so the reads in its body are fixed one level out.
"""

from __future__ import annotations

from algspec import ir

_RANDOM = "@rand"  # a draw in an index: a different edge each time


def _deps(exprs: list[ir.Expr | None]) -> set[str]:
    """Names (data, locals, index variables) whose values decide these expressions."""
    out: set[str] = set()
    for e in exprs:
        if e is None:
            continue
        for sub in ir.walk_expr(e):
            if isinstance(sub, (ir.Read, ir.VarRef, ir.IndexVar)):
                out.add(sub.name)
            elif isinstance(sub, ir.Chain):
                out.add(sub.order)
            elif isinstance(sub, ir.Rand):
                out.add(_RANDOM)
    return out


def _vars(s: ir.Statement) -> set[str]:
    if isinstance(s, (ir.ForRange, ir.ForNodes)):
        return {s.var}
    if isinstance(s, ir.ForEdges):
        return set(s.vars)
    return set()


def _range_deps(s: ir.Statement) -> set[str]:
    """What decides the set of values a loop's variable takes over one execution."""
    if isinstance(s, ir.ForRange):
        return _deps([s.start, s.stop, s.step])
    if isinstance(s, ir.ForEdges):
        return _deps([s.select])
    return set()  # `for x in nodes`: every node; a while binds no variable


def _changes(loop: ir.Statement) -> frozenset[str] | None:
    """Names a loop's trips change, or None when a trip may record or recurse."""
    out = {_RANDOM} | _vars(loop)
    for s, _ in ir.walk_statements(loop.body):
        if isinstance(s, (ir.Record, ir.Recur, ir.Proc)):
            return None
        if isinstance(s, ir.Assign):
            out |= {t.name for t in s.targets}
        elif isinstance(s, ir.Let):
            out.add(s.name)
        out |= _vars(s)
    return frozenset(out)


def fixed_loops(indices: list[ir.Expr], loops: list[ir.Statement]
                ) -> tuple[frozenset[int], int | None]:
    """(loops whose trips all read the edges of one trip, the outermost of them) for a
    read with these `indices` inside `loops` (outermost first), walking out while the
    loops record nothing."""
    deps = _deps(indices)
    skip: set[int] = set()
    release = None
    for s in reversed(loops):
        changed = _changes(s)
        if changed is None:
            break
        if not deps & changed:
            skip.add(s.id)
            release = s.id
        deps = (deps - _vars(s)) | _range_deps(s)
    return frozenset(skip), release


__all__ = ["fixed_loops"]
