"""What the interpreter reports while sampling, by the worst-case rule (docs/efficiency.md).

The interpreter reports the processors a forall runs, the nodes and edges its
reads touch and the elements of an aggregation the observer asks for
(`algspec.interp.observe`; the measured observer asks by
`algspec.efficiency.worst_case.reported`). It knows nothing of the rule: the
measured side runs each program in its *reporting form*, an IR-to-IR rewrite
whose plain run reports what the static rules count, so that on each sampled
input a measured figure counts what the rule counts:

* `forall v { if c { B } }` where each processor evaluates c on its own state
  (`normal_forms.split_test`) is `forall v where c { B }`: only the processors c
  chooses are active, as with the guard it is (`normal_forms.normal_forall`);
* `forall v where c { B }` where c reads across an edge (`key[u] < key[v]`) is
  `forall v { if c { B } }`: every candidate evaluates it over its edge, so every
  candidate is active, chosen or not.

Per statement, `ReportRules` tells the observer where the rule counts otherwise:

* `silent`: foralls whose processors read no data (resets) report nothing;
* `spread`: whole-array assignments whose value aggregates over the nodes
  (`y = y + sum(y[u] for u in nodes)`): as the forall they stand for, every
  processor aggregates, so every edge is active in that round.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING

from algspec import ir
from algspec.efficiency.normal_forms import (
    forall_reads_data,
    graph_edge_tests,
    normal_forall,
    split_test,
)

if TYPE_CHECKING:
    from algspec.compiled import CompiledAlgorithm


@dataclass(frozen=True)
class ReportRules:
    """Statement ids the observer counts by the worst-case rule (see the module)."""

    silent: frozenset[int] = frozenset()
    spread: frozenset[int] = frozenset()


def report_rules(program: ir.Program) -> ReportRules:
    """The `ReportRules` of `program` (the same for its reporting form)."""
    input_graph = program.graph.kind == "input"
    silent, spread = set(), set()
    for s, _ in ir.walk_statements(program.body):
        if isinstance(s, ir.Forall) and not forall_reads_data(s, input_graph):
            silent.add(s.id)
        elif isinstance(s, ir.Assign) and any(
                t.whole and t.loc != ir.Loc.GRAPH and ir.reads_state(v) and _aggregates(v)
                for t, v in zip(s.targets, s.values)):
            spread.add(s.id)
    return ReportRules(frozenset(silent), frozenset(spread))


def _aggregates(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.Aggregate) and x.domain == "nodes" for x in ir.walk_expr(e))


def reporting_program(program: ir.Program) -> ir.Program:
    """`program` in its reporting form (see the module); the same program where no
    forall is rewritten. A guard moved into an `if` keeps the forall's id and span."""
    graph, tests = program.graph, graph_edge_tests(program)

    def forall(s: ir.Forall) -> ir.Forall:
        body = block(s.body)
        if split_test(s.guard, s.vars, graph, tests)[1] is not None:  # read across edges
            test = ir.If(id=s.id, span=s.span, cond=s.guard, then=body, otherwise=[])
            return s.model_copy(update={"guard": None, "body": [test]})
        if body is not s.body:
            s = s.model_copy(update={"body": body})
        normal, _ = normal_forall(s)
        if normal is not s and split_test(s.body[0].cond, s.vars, graph, tests)[1] is None:
            return normal  # `if c` on each processor's own state: a guard
        return s

    def stmt(s: ir.Statement) -> ir.Statement:
        if isinstance(s, ir.Forall):
            return forall(s)
        update = {}
        for name in type(s).model_fields:  # every statement list: bodies and branches
            old = getattr(s, name)
            if isinstance(old, list) and old and isinstance(old[0], ir.Stmt):
                new = block(old)
                if new is not old:
                    update[name] = new
        return s.model_copy(update=update) if update else s

    def block(stmts: list[ir.Statement]) -> list[ir.Statement]:
        new = [stmt(s) for s in stmts]
        return stmts if all(a is b for a, b in zip(new, stmts)) else new

    body = block(program.body)
    return program if body is program.body else program.model_copy(update={"body": body})


def reporting_form(alg: CompiledAlgorithm) -> CompiledAlgorithm:
    """`alg` running its reporting form (same inputs, generators and outputs)."""
    form = reporting_program(alg.ir)
    if form is alg.ir:
        return alg
    out = copy.copy(alg)
    out.ir = form
    return out


__all__ = ["ReportRules", "report_rules", "reporting_form", "reporting_program"]
