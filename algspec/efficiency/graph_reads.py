"""Reads of another processor's state, against the declared interconnection graph.

A processor (one `forall` lane, or one lane of a whole-array assignment) may
read its own node's data, and another node's only along an edge of the
interconnection graph or through shared memory. A node datum `x[e]` read in a
processor is

- **local** when `e` is the processor's own variable (either end of an edge
  processor, which runs on a graph edge);
- **shared** when `e` does not depend on the processor (`x[s]`, `x[0]`, a
  readout over `nodes` that mentions no processor variable): the value is the
  same for every processor, as if the controller read it into shared memory
  first (`let y = x[s]`), which is the PRAM's graph-level data;
- **along the graph** when `e` is the element of an aggregation over the
  processor's own `incoming`/`outgoing` neighbours (or over `nodes` filtered by
  the graph's own edge test, `A[v, u] != 0`), an offset `v + c` the graph joins
  (`graph path` joins v to v - 1 and v + 1: `GraphKind.joins_offset`), or a
  node pointer probe at the processor (`x[p[v]]`, `p` a pointer input or hint:
  CLRS's adjacency holds the edges v - p[v] of those); an index that takes one
  of several values (`max(v - 1, 0)`, `v + 1 if c else v - 1`) when each is
  local, shared or along the graph;
- **remote** otherwise (`cur[v - d]`, `x[v + 1]` on an empty graph, `x[w]`
  for `w in nodes` in an aggregation that depends on v). The message names the
  smallest built-in graph that carries it (`graph_kinds.by_size`).

Sequential statements are the PRAM controller's: they read any node. Edge data
are read where the edge is and are not judged here. Lint reports each remote
read (L107); the efficiency analysis counts the edges of the graph that carries
them (`used_edge_kinds`), so a file whose declared graph is too small does not
report a better epsilon than the graph it needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from algspec import ir
from algspec.ir import ops
from algspec.ir.graph_kinds import GRAPH_KINDS, by_size, joins_offset

_COMPLETE = "complete"
_WHOLE = ("@i", "@j")  # the processor variables of a whole-array assignment


@dataclass(frozen=True)
class RemoteRead:
    """A read of node `read.name` at another processor than the reader's, off the graph."""

    read: ir.Read
    index: str  # the index as source-like text (`v - d`)
    processor: str  # the reading processor's variable (`v`)
    carrier: str  # the smallest built-in graph kind that carries it


def _text(e: ir.Expr) -> str:
    def leaf(x: ir.Expr) -> str:
        if isinstance(x, ir.Const):
            return str(x.value).lower() if isinstance(x.value, bool) else str(x.value)
        if isinstance(x, ir.Size):
            return x.which
        if isinstance(x, ir.IndexVar):
            return "index" if x.name.startswith("@") else x.name
        if isinstance(x, (ir.VarRef, ir.Chain)):
            return x.name if isinstance(x, ir.VarRef) else f"chain({x.order})"
        if isinstance(x, ir.Read):
            return f"{x.name}[{', '.join(_text(i) for i in x.indices)}]"
        if isinstance(x, ir.Aggregate):
            return f"{x.op}(...)"
        if isinstance(x, ir.Cond):
            return f"{_text(x.then)} if {_text(x.cond)} else {_text(x.otherwise)}"
        if isinstance(x, ir.Rand):
            return "rand()"
        return "..."
    return ops.text(e, leaf)


def _offset(e: ir.Expr, own: frozenset[str]) -> tuple[str, int] | None:
    """`e` as `v + c` with v a processor variable and c an integer constant, else None."""
    if isinstance(e, ir.IndexVar) and e.name in own:
        return e.name, 0
    if isinstance(e, ir.Binary) and e.op in ("+", "-"):
        right = e.right
        if isinstance(right, ir.Const) and isinstance(right.value, int) \
                and not isinstance(right.value, bool):
            inner = _offset(e.left, own)
            if inner is not None:
                return inner[0], inner[1] + (right.value if e.op == "+" else -right.value)
        left = e.left
        if e.op == "+" and isinstance(left, ir.Const) and isinstance(left.value, int) \
                and not isinstance(left.value, bool):
            inner = _offset(e.right, own)
            if inner is not None:
                return inner[0], inner[1] + left.value
    return None


def _modular_offset(e: ir.Expr, own: frozenset[str], nodes: ir.Expr
                    ) -> tuple[str, int] | None:
    """`e` as `(v + c) % N`, else None: the node count written as `N` or as the file's
    `nodes` expression, the dividend a sum of v, integer constants and whole multiples of
    the node count (`(v - 1 + n) % n`)."""
    if not (isinstance(e, ir.Binary) and e.op == "%" and _is_node_count(e.right, nodes)):
        return None
    var, c = None, 0
    stack = [(e.left, 1)]
    while stack:
        x, sign = stack.pop()
        if isinstance(x, ir.Binary) and x.op in ("+", "-"):
            stack += [(x.left, sign), (x.right, sign if x.op == "+" else -sign)]
        elif isinstance(x, ir.Const) and isinstance(x.value, int) \
                and not isinstance(x.value, bool):
            c += sign * x.value
        elif isinstance(x, ir.IndexVar) and x.name in own and sign == 1 and var is None:
            var = x.name
        elif not _is_node_count(x, nodes):
            return None
    return (var, c) if var is not None else None


def _is_node_count(e: ir.Expr, nodes: ir.Expr) -> bool:
    return (isinstance(e, ir.Size) and e.which == "N") or _text(e) == _text(nodes)


def _branches(e: ir.Expr) -> list[ir.Expr] | None:
    """The alternatives an index takes: `min`/`max`'s arguments, a conditional's two
    values; None for any other expression."""
    if isinstance(e, ir.Call) and e.func in ("min", "max"):
        return list(e.args)
    if isinstance(e, ir.Cond):
        return [e.then, e.otherwise]
    return None


def _offset_carrier(c: int, modular: bool = False) -> str:
    return next(k.name for k in by_size() if joins_offset(k.name, c, modular))


class _Processor:
    """The reads of one parallel statement (a forall or a whole-array assignment)."""

    def __init__(self, prog: ir.Program, own: frozenset[str], name: str,
                 out: list[RemoteRead]) -> None:
        self.prog = prog
        self.own = own
        self.name = name
        self.out = out
        self.defs: dict[str, list[ir.Expr]] = {}  # the processor's locals and their values
        self.pointers = pointer_data(prog)
        self.edge_tests = graph_edge_names(prog)

    # ---------------------------------------------------------------- locals
    def define(self, name: str, value: ir.Expr) -> None:
        self.defs.setdefault(name, []).append(value)

    def expand(self, e: ir.Expr) -> ir.Expr:
        """`e` with a processor local defined once replaced by its value."""
        if isinstance(e, ir.VarRef) and e.local and len(self.defs.get(e.name, [])) == 1:
            return self.expand(self.defs[e.name][0])
        return e

    def free(self, e: ir.Expr, seen: frozenset[str] = frozenset()) -> set[str]:
        """Index variables `e` depends on, through the processor's locals."""
        out = ir.free_ivars(e)
        for x in ir.walk_expr(e):
            if isinstance(x, ir.VarRef) and x.local and x.name in self.defs \
                    and x.name not in seen:
                for d in self.defs[x.name]:
                    out |= self.free(d, seen | {x.name})
        return out

    # ---------------------------------------------------------------- walk
    def block(self, stmts: list[ir.Statement]) -> None:
        for s in stmts:
            if isinstance(s, ir.Let):
                self.expr(s.value, {})
                self.define(s.name, s.value)
            elif isinstance(s, ir.Assign):
                for e in ir.statement_exprs(s):
                    self.expr(e, {})
                for t, v in zip(s.targets, s.values):
                    if t.local:
                        self.define(t.name, v)
            elif isinstance(s, ir.If):
                self.expr(s.cond, {})
                self.block(s.then)
                self.block(s.otherwise)

    def expr(self, e: ir.Expr, aggs: dict[str, ir.Aggregate]) -> None:
        mine = self.own | set(aggs)
        if isinstance(e, ir.Aggregate):
            if not self.free(e) & mine:
                return  # a readout the controller computes: shared memory
            for sub in (e.of, e.default):
                if sub is not None:
                    self.expr(sub, aggs)
            inner = {**aggs, e.var: e}
            for sub in (e.filter, e.body):
                if sub is not None:
                    self.expr(sub, inner)
            return
        if isinstance(e, ir.Read) and e.loc == ir.Loc.NODE:
            carrier = self.carrier(e.indices[0], aggs)
            if carrier is not None:
                self.out.append(RemoteRead(e, _text(e.indices[0]), self.name, carrier))
        for c in ir.children(e):
            self.expr(c, aggs)

    # ---------------------------------------------------------------- one index
    def carrier(self, index: ir.Expr, aggs: dict[str, ir.Aggregate]) -> str | None:
        """None when the declared graph carries a read at `index`, else the smallest
        built-in kind that does."""
        e = self.expand(index)
        if not self.free(e) & (self.own | set(aggs)):
            return None  # the same node for every processor: shared
        branches = _branches(e)
        if branches is not None:  # `max(v - 1, 0)`, `v + 1 if c else v - 1`: every value
            carriers = {self.carrier(b, aggs) for b in branches} - {None}
            if not carriers:
                return None
            # one graph joins them all; two different ones: only the complete graph holds both
            return carriers.pop() if len(carriers) == 1 else _COMPLETE
        if isinstance(e, ir.IndexVar) and e.name in aggs:
            agg = aggs[e.name]
            of = self.expand(agg.of) if agg.of is not None else None
            if agg.domain != "nodes":
                along = isinstance(of, ir.IndexVar) and of.name in self.own
            else:  # over `nodes`, filtered to the processor's neighbours (`A[v, u] != 0`)
                along = any(_implies_edge(c, self.edge_tests, self.own, e.name)
                            for c in _conjuncts(agg.filter))
            return None if along else _COMPLETE
        off = _offset(e, self.own)
        if off is not None:
            return None if joins_offset(self.prog.graph.kind, off[1]) else _offset_carrier(off[1])
        off = _modular_offset(e, self.own, self.prog.nodes)
        if off is not None:  # round a ring: `(v + 1) % n`
            return None if joins_offset(self.prog.graph.kind, off[1], modular=True) \
                else _offset_carrier(off[1], modular=True)
        if isinstance(e, ir.Read) and e.name in self.pointers \
                and isinstance(self.expand(e.indices[0]), ir.IndexVar) \
                and self.expand(e.indices[0]).name in self.own:
            return None  # along a pointer edge of CLRS's adjacency
        return _COMPLETE


def pointer_data(prog: ir.Program) -> set[str]:
    """Node data whose values CLRS's adjacency holds as edges v - p[v]: node pointer
    inputs and hints, and the data such a probe is a plain view of (`hint jump: pointer
    = ptr` exposes the state `ptr`)."""
    out: set[str] = set()
    for d in prog.decls:
        if d.loc == ir.Loc.NODE and d.clrs_type == "pointer" and \
                d.stage in (ir.Stage.INPUT, ir.Stage.HINT):
            out.add(d.name)
            x = d.derived
            if isinstance(x, ir.Read) and x.loc == ir.Loc.NODE and \
                    isinstance(x.indices[0], ir.IndexVar) and x.indices[0].name == "@i":
                out.add(x.name)
    return out


def graph_edge_names(prog: ir.Program) -> set[str]:
    """Edge data whose nonzero entries are edges of the graph: its mask, and on an input
    graph the arrays its mask is the adjacency of (`adjacency(A)`)."""
    if prog.graph.mask_name is None:
        return set()
    from algspec.efficiency.normal_forms import graph_edge_tests  # (imports this module)
    return {prog.graph.mask_name} | {name for name, _ in graph_edge_tests(prog)}


def _conjuncts(e: ir.Expr | None) -> list[ir.Expr]:
    if e is None:
        return []
    if isinstance(e, ir.Binary) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


# For `X[a, b] OP c` with X read on the left: whether it implies X[a, b] != 0.
_EXCLUDES_ZERO = {"!=": lambda c: c == 0, "==": lambda c: c != 0, ">": lambda c: c >= 0,
                  "<": lambda c: c <= 0, ">=": lambda c: c > 0, "<=": lambda c: c < 0}
_MIRROR = {"!=": "!=", "==": "==", ">": "<", "<": ">", ">=": "<=", "<=": ">="}


def _implies_edge(e: ir.Expr, names: set[str], own: frozenset[str], elem: str) -> bool:
    """Whether test `e` holds only where (processor, elem) or (elem, processor) is an
    edge of the graph: `A[v, u] != 0`, `A[u, v] > 0.0` or `adj[v, u]` with A in `names`."""
    def is_pair(r: ir.Expr) -> bool:
        if not (isinstance(r, ir.Read) and r.loc == ir.Loc.EDGE and r.name in names):
            return False
        ends = [i.name if isinstance(i, ir.IndexVar) else None for i in r.indices]
        return elem in ends and any(x in own for x in ends if x != elem)
    if is_pair(e):
        return e.dtype == ir.DType.BOOL
    if isinstance(e, ir.Binary) and e.op in _EXCLUDES_ZERO:
        for r, c, op in ((e.left, e.right, e.op), (e.right, e.left, _MIRROR[e.op])):
            if is_pair(r) and isinstance(c, ir.Const) and not isinstance(c.value, bool):
                return _EXCLUDES_ZERO[op](c.value)
    return False


def remote_reads(prog: ir.Program) -> list[RemoteRead]:
    """Every read of another processor's node data that the declared graph does not carry
    (none on a complete graph), in program order."""
    out: list[RemoteRead] = []
    if prog.graph.kind == _COMPLETE:
        return out
    for s, parents in ir.walk_statements(prog.body):
        if any(isinstance(p, ir.Forall) for p in parents):
            continue  # walked with its forall
        if isinstance(s, ir.Forall):
            p = _Processor(prog, frozenset(s.vars), s.vars[0], out)
            if s.guard is not None:
                p.expr(s.guard, {})
            p.block(s.body)
        elif isinstance(s, ir.Assign) and any(t.whole for t in s.targets):
            p = _Processor(prog, frozenset(_WHOLE), "index", out)
            for e in ir.statement_exprs(s):
                p.expr(e, {})
    return out


def used_edge_kinds(prog: ir.Program) -> list[str]:
    """The built-in kinds whose edges the program reads beyond its declared graph's
    (each remote read's carrier, once), smallest first; empty when the graph carries
    every read. The efficiency analysis counts their edges with the declared ones."""
    used = {r.carrier for r in remote_reads(prog)}
    return [k.name for k in by_size() if k.name in used]


def graph_name(prog: ir.Program) -> str:
    """The declared graph as a file writes it (`path`, `input adj`)."""
    g = prog.graph
    return f"input {g.input}" if g.kind not in GRAPH_KINDS and g.input else g.kind


__all__ = ["RemoteRead", "graph_edge_names", "graph_name", "pointer_data", "remote_reads",
           "used_edge_kinds"]
