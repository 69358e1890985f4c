"""Data dependence: which data and locals depend on the input data (`Taint`).

A test on tainted values is a choice on data, resolved at one end of the worst
case (`algspec.efficiency.worst_case`); one on untainted values is counted
(`algspec.efficiency.selection`). The statement rules are a table keyed by IR
statement class, so a new statement kind fails loudly here until it has one.
"""

from __future__ import annotations

from collections.abc import Callable

from algspec import ir
from algspec.efficiency import worst_case


class Taint:
    """Which data and locals depend on the input data.

    Primary inputs are data; a datum is tainted when a tainted value is
    assigned to it, or it is assigned under a tainted `if` condition or forall
    guard (control dependence), or at a tainted index. Loop continuation is
    *not* a source: the analysis already assumes every loop runs to its bound,
    so the values a loop computes at iteration k do not depend on whether it
    stops early (this keeps a round counter `parity = 1 - parity` inside a
    `while not sorted` loop data-independent). `pos` and the built-in graphs
    are not data; an input graph is.
    """

    def __init__(self, prog: ir.Program):
        self.prog = prog
        self.input_graph = prog.graph.kind == "input"
        self.names: set[str] = set()
        self.procs: dict[str, ir.Proc] = {}
        for d in prog.decls:
            if d.stage == ir.Stage.INPUT and d.derived is None:
                self.names.add(d.name)
        changed = True
        while changed:
            before = len(self.names)
            for d in prog.decls:
                src = d.derived if d.derived is not None else d.initial
                if src is not None and self.expr(src):
                    self.names.add(d.name)
            self._block(prog.body, False)
            changed = len(self.names) != before

    def expr(self, e: ir.Expr | None) -> bool:
        """Whether `e` depends on the input data."""
        if e is None:
            return False
        if isinstance(e, ir.Rand):
            return True  # a random draw is data: a selection on it is data-dependent
        if isinstance(e, (ir.VarRef, ir.Read)) and e.name in self.names:
            return True
        if isinstance(e, ir.Chain) and e.order in self.names:
            return True
        if isinstance(e, ir.Aggregate) and e.domain != "nodes" and self.input_graph:
            return True
        return any(self.expr(s) for s in ir.children(e))

    def _block(self, stmts: list[ir.Statement], ctl: bool) -> None:
        for s in stmts:
            rule = STATEMENT_RULES.get(type(s))
            if rule is None:
                raise TypeError(f"data dependence has no rule for {type(s).__name__}")
            rule(self, s, ctl)

    def _assign(self, s: ir.Assign, ctl: bool) -> None:
        val = ctl or any(self.expr(v) for v in [*s.values, *s.key])
        for t in s.targets:
            if val or any(self.expr(i) for i in t.indices):
                self.names.add(t.name)

    def _let(self, s: ir.Let, ctl: bool) -> None:
        if ctl or self.expr(s.value):
            self.names.add(s.name)

    def _nothing(self, s: ir.Record | ir.Break, ctl: bool) -> None:
        return None

    def _if(self, s: ir.If, ctl: bool) -> None:
        c = ctl or self.expr(s.cond)
        self._block(s.then, c)
        self._block(s.otherwise, c)

    def _body(self, s: ir.While | ir.Round, ctl: bool) -> None:
        self._block(s.body, ctl)

    def _for_range(self, s: ir.ForRange, ctl: bool) -> None:
        if ctl or self.expr(s.start) or self.expr(s.stop) or self.expr(s.step):
            self.names.add(s.var)
        self._block(s.body, ctl)

    def _for_nodes(self, s: ir.ForNodes, ctl: bool) -> None:
        if ctl or self.expr(s.key):
            self.names.add(s.var)
        self._block(s.body, ctl)

    def _for_edges(self, s: ir.ForEdges, ctl: bool) -> None:
        if ctl or self.expr(s.select) or self.expr(s.key):  # the ends are data when the
            self.names.update(s.vars)                         # edges (or order) are
        self._block(s.body, ctl)

    def _forall(self, s: ir.Forall, ctl: bool) -> None:
        edges = len(s.vars) == 2 and self.input_graph  # an input graph's edge processors
        self._block(s.body, ctl or edges or self.expr(s.guard))  # are its edges

    def _call(self, s: ir.Proc | ir.Recur, ctl: bool) -> None:
        if isinstance(s, ir.Proc):  # parameters are assigned the arguments
            self.procs[s.name] = s
        proc = self.procs.get(s.name)
        for q, a in zip(proc.params if proc else [], s.args):
            if ctl or self.expr(a):
                self.names.add(q)
        if isinstance(s, ir.Proc):
            self._block(s.body, ctl)


# One rule per IR statement class: (taint, statement, under tainted control) -> None.
STATEMENT_RULES: dict[type, Callable[[Taint, ir.Statement, bool], None]] = {
    ir.Assign: Taint._assign, ir.Let: Taint._let, ir.Record: Taint._nothing,
    ir.Break: Taint._nothing, ir.If: Taint._if, ir.While: Taint._body,
    ir.ForRange: Taint._for_range, ir.ForNodes: Taint._for_nodes,
    ir.ForEdges: Taint._for_edges, ir.Forall: Taint._forall, ir.Round: Taint._body,
    ir.Proc: Taint._call, ir.Recur: Taint._call,
}


def pinned(e: ir.Expr | None, vars: set[str], taint: Taint) -> set[str]:
    """The variables among `vars` a selection fixes to O(1) values at the worst-case
    (fewest) end: `algspec.efficiency.worst_case.pins`."""
    return worst_case.pins(e, vars, taint.expr, worst_case.FEWEST)


__all__ = ["STATEMENT_RULES", "Taint", "pinned"]
