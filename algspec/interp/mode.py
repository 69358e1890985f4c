"""Which execution mode a program runs in: dense rounds, or rounds over the graph's edges.

In the sparse mode (`sparse_edges.py`) the per-round work that is O(N^2) in the dense
mode runs over each sample's edge list instead: aggregations over `incoming(v)` /
`outgoing(v)` in a node scope, and `forall v, w` edge rounds. Both modes give the
same bytes. A program gets the sparse mode when all of its edge work can run that
way (`sparse_blocker` returns None), its graph is not complete, and, per run, the
graph is large and sparse enough to gain (`choose`). The dense mode is the
reference: `ALGSPEC_INTERP_MODE=dense|sparse|auto` (or a `mode=` argument) forces
one, which the differential tests use.
"""

from __future__ import annotations

import os

import numpy as np

from algspec import ir

MODES = ("auto", "dense", "sparse")
ENV_VAR = "ALGSPEC_INTERP_MODE"
MIN_NODES = 48       # below this the dense arrays are small and numpy's fixed costs win
MAX_DENSITY = 0.125  # edges per N^2 above which dense rounds are as cheap


def requested_mode(mode: str | None) -> str:
    """The mode asked for: the argument, else the environment variable, else "auto"."""
    m = mode if mode is not None else os.environ.get(ENV_VAR, "auto") or "auto"
    if m not in MODES:
        raise ValueError(f"unknown interpreter mode {m!r}: expected one of {', '.join(MODES)}")
    return m


# What `sparse_edges.EdgeScope` evaluates; any other expression keeps its scope dense.
_EDGE_KINDS = frozenset({"const", "size", "ivar", "var", "read", "unary", "binary", "cond",
                         "call"})


def _line(x: ir.IRNode) -> str:
    span = getattr(x, "span", None)
    return f" (line {span.line})" if span is not None and getattr(span, "line", None) else ""


def _is_ivar(e: ir.Expr, axis: int) -> bool:
    return isinstance(e, ir.IndexVar) and e.axis == axis


def edge_expr_blocker(e: ir.Expr, prog: ir.Program) -> str | None:
    """Why `e` cannot be evaluated over an edge list (None: it can)."""
    for x in ir.walk_expr(e):
        if isinstance(x, ir.Aggregate):
            return "an aggregation nested in an edge scope"
        if isinstance(x, ir.Rand):
            return "`rand()` in an edge scope"
        if x.kind not in _EDGE_KINDS:
            return f"a `{x.kind}` expression in an edge scope"
        if isinstance(x, ir.Call) and x.func == "rand_int":
            return "`rand_int()` in an edge scope"
        nm = ir.read_name(x)
        if nm is not None:
            d = prog.decl(nm)
            if d.derived is not None and d.stage != ir.Stage.INPUT and d.loc != ir.Loc.GRAPH:
                return f"the view `{nm}` read in an edge scope"
    return None


def aggregate_blocker(e: ir.Aggregate, prog: ir.Program) -> str | None:
    """Why a neighbourhood aggregation cannot run as a segment reduction (None: it can)."""
    if e.domain == "nodes" or e.axis == 0:
        return None  # over all nodes, or one node's neighbours: O(N) in either mode
    where = f"`{e.op}(... for {e.var} in {e.domain}(...))`{_line(e)}"
    if e.axis != 1 or not _is_ivar(e.of, 0):
        return f"{where} over the neighbours of a computed node"
    if e.op == "sum" and e.dtype == ir.DType.FLOAT:
        return f"{where}: a float `sum` over neighbours (its summation order is numpy's)"
    keys = list(e.body.args) if isinstance(e.body, ir.Tuple) and e.op in ("argmin", "argmax") \
        else [e.body]
    for part in (*keys, e.filter):
        why = None if part is None else edge_expr_blocker(part, prog)
        if why is not None:
            return f"{where}: {why}"
    return None


def forall_blocker(s: ir.Forall, prog: ir.Program) -> str | None:
    """Why an edge `forall v, w` cannot run over the edge list (None: it can)."""
    where = f"`forall {', '.join(s.vars)}`{_line(s)}"
    exprs = [s.guard] if s.guard is not None else []
    for t, _ in ir.walk_statements(s.body):
        if not isinstance(t, (ir.Let, ir.If, ir.Assign)):
            return f"{where} holds a `{t.kind}`"
        if isinstance(t, ir.Assign) and any(tg.whole for tg in t.targets):
            return f"{where} writes a whole array"
        exprs += ir.statement_exprs(t)
    for x in exprs:
        why = edge_expr_blocker(x, prog)
        if why is not None:
            return f"{where}: {why}"
    return None


def _own_cell(t: ir.Target) -> bool:
    return len(t.indices) == 2 and _is_ivar(t.indices[0], 0) and _is_ivar(t.indices[1], 1)


_CACHE: dict[int, tuple[ir.Program, str | None]] = {}  # id -> (program kept alive, reason)


def sparse_blocker(prog: ir.Program) -> str | None:
    """The construct that keeps `prog` dense, as a short reason; None if it may run sparse."""
    hit = _CACHE.get(id(prog))
    if hit is None or hit[0] is not prog:
        if len(_CACHE) > 256:
            _CACHE.clear()
        hit = _CACHE[id(prog)] = (prog, _find_blocker(prog))
    return hit[1]


def _find_blocker(prog: ir.Program) -> str | None:
    if prog.graph.kind == "complete" or prog.graph.mask_name is None:
        return "the interconnection graph is complete (every pair of nodes is an edge)"
    edge_state = {d.name for d in prog.decls if d.loc == ir.Loc.EDGE}
    for s, outer in ir.walk_statements(prog.body):
        in_edges = any(isinstance(o, ir.Forall) and len(o.vars) == 2 for o in outer)
        if isinstance(s, ir.Forall) and len(s.vars) == 2:
            why = forall_blocker(s, prog)
            if why is not None:
                return why
        if isinstance(s, ir.Assign):
            for t in s.targets:
                if t.local or t.name not in edge_state:
                    continue
                if t.whole:
                    return f"`{t.name} = ...`{_line(s)} writes edge data whole"
                if not (in_edges and _own_cell(t)):
                    return (f"`{t.name}[...] = ...`{_line(s)} writes edge data at arbitrary "
                            "pairs, not along the processor's own edge")
        for e in ir.statement_exprs(s):
            for x in ir.walk_expr(e):
                if isinstance(x, ir.Aggregate):
                    why = aggregate_blocker(x, prog)
                    if why is not None:
                        return why
                nm = ir.read_name(x)
                if nm is not None and nm in edge_state:
                    d = prog.decl(nm)
                    if d.derived is not None and d.stage != ir.Stage.INPUT:
                        return f"the edge view `{nm}`{_line(x)} is computed whole at each read"
    return None


def describe(prog: ir.Program) -> tuple[str, str]:
    """(mode, reason) as `algspec compile` and lint report them."""
    why = sparse_blocker(prog)
    if why is not None:
        return "dense", why
    return "sparse", (f"edge work runs over the graph's edges (`graph {prog.graph.kind}`"
                      f"{' ' + prog.graph.input if prog.graph.input else ''}) when N >= "
                      f"{MIN_NODES} and at most {MAX_DENSITY:g} N^2 edges")


def choose(prog: ir.Program, requested: str, N: int, adj: np.ndarray | None,
           observed: bool, edge_count: np.ndarray | None = None) -> bool:
    """Whether this run goes sparse. A measured run (an observer) is always dense.
    `edge_count`: each sample's edges, when known without counting `adj`."""
    if observed or requested == "dense":
        return False
    if requested == "sparse":
        return True
    if N < MIN_NODES or sparse_blocker(prog) is not None:
        return False
    if edge_count is None:
        edge_count, batch = int(np.count_nonzero(adj)), adj.shape[0]
    else:
        batch = len(edge_count)
        edge_count = int(edge_count.sum())
    return edge_count <= MAX_DENSITY * batch * N * N
