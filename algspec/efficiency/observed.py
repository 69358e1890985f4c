"""What the interpreter reports while sampling, by the worst-case rule (docs/efficiency.md).

The interpreter reports the processors a forall runs, the nodes and edges its
reads touch and the elements an aggregation chooses (`algspec.interp.observe`,
which asks `algspec.efficiency.worst_case.reported` about each aggregation). Per
statement, these sets tell it where the rule counts otherwise, so that a measured
figure counts, on each sampled input, what the static rules count:

* `silent`: foralls whose processors read no data (resets) report nothing;
* `guard_ifs`: `forall v { if c { B } }` where each processor evaluates c on its
  own state (`normal_forms.split_test`): only the processors c chooses are active,
  as with the guard it is (`normal_forms.normal_forall`);
* `evaluators`: foralls whose guard reads across an edge (`key[u] < key[v]`): every
  candidate evaluates it over its edge, so every candidate is active, chosen or not;
* `spread`: whole-array assignments whose value aggregates over the nodes
  (`y = y + sum(y[u] for u in nodes)`): as the forall they stand for, every
  processor aggregates, so every edge is active in that round.
"""

from __future__ import annotations

from dataclasses import dataclass

from algspec import ir
from algspec.efficiency.normal_forms import (
    _forall_reads_data,
    graph_edge_tests,
    normal_forall,
    split_test,
)


@dataclass(frozen=True)
class ReportRules:
    """Statement ids the interpreter reports by the worst-case rule (see the module)."""

    silent: frozenset[int] = frozenset()
    guard_ifs: frozenset[int] = frozenset()
    evaluators: frozenset[int] = frozenset()
    spread: frozenset[int] = frozenset()


def report_rules(program: ir.Program) -> ReportRules:
    """The `ReportRules` of `program`."""
    graph, tests = program.graph, graph_edge_tests(program)
    input_graph = graph.kind == "input"
    silent, guard_ifs, evaluators, spread = set(), set(), set(), set()
    for s, _ in ir.walk_statements(program.body):
        if isinstance(s, ir.Forall):
            if not _forall_reads_data(s, input_graph):
                silent.add(s.id)
            if split_test(s.guard, s.vars, graph, tests)[1] is not None:
                evaluators.add(s.id)
            normal, _ = normal_forall(s)
            if normal is not s and \
                    split_test(s.body[0].cond, s.vars, graph, tests)[1] is None:
                guard_ifs.add(s.id)
        elif isinstance(s, ir.Assign) and any(
                t.whole and t.loc != ir.Loc.GRAPH and ir.reads_state(v) and _aggregates(v)
                for t, v in zip(s.targets, s.values)):
            spread.add(s.id)
    return ReportRules(frozenset(silent), frozenset(guard_ifs), frozenset(evaluators),
                       frozenset(spread))


def _aggregates(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.Aggregate) and x.domain == "nodes" for x in ir.walk_expr(e))


__all__ = ["ReportRules", "report_rules"]
