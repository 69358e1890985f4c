"""Every statement walker of the efficiency analysis and the interpreter has a rule for
every IR statement kind (and the interpreter one for every expression kind), and one that
meets a kind it has no rule for raises instead of skipping it."""

from __future__ import annotations

from typing import Literal, get_args

import pytest

import algspec
from algspec import ir
from algspec.efficiency import cost, dependence, selection, worst_case
from algspec.efficiency.asymptotic import n, one
from algspec.efficiency.cost_terms import Binder
from algspec.efficiency.normal_forms import normal_program
from algspec.efficiency.selection import Selections
from algspec.interp import expressions, runtime
from algspec.ir.size_values import EfficiencyError

KINDS = set(get_args(ir.Statement))

RULE_TABLES = {
    "data dependence": dependence.STATEMENT_RULES,
    "cost": cost.STATEMENT_RULES,
    "selection, sequential": selection.SKELETON_RULES,
    "selection, in a round": selection.ROUND_RULES,
    "selection, in a forall": selection.PROCESSOR_RULES,
    "interpreter": runtime.STATEMENT_RULES,
}


@pytest.mark.parametrize("walker", RULE_TABLES)
def test_every_statement_kind_has_a_rule(walker: str) -> None:
    assert set(RULE_TABLES[walker]) == KINDS


def test_the_interpreter_evaluates_every_expression_kind() -> None:
    kinds = set(get_args(ir.Expr))
    # a key tuple is read by its aggregation (argmin/argmax), never evaluated alone
    assert set(expressions.EXPRESSION_RULES) == kinds - {ir.Tuple}


def test_every_kind_the_cost_pass_runs_as_a_loop_has_a_header() -> None:
    loops = {k for k, rule in cost.STATEMENT_RULES.items() if rule is cost.CostPass.loop}
    assert loops == set(cost.LOOP_RULES)


class Unknown(ir.Stmt):
    """A statement kind no walker knows."""

    kind: Literal["unknown"] = "unknown"


PROGRAM = algspec.load_source("""algorithm t
nodes n
graph complete
input node x: scalar ~ uniform(low = 0.0, high = 1.0)
hint node y: scalar
record
forall v { y[v] = x[v] }
record
""").ir


def with_unknown(where: str) -> ir.Program:
    """PROGRAM with an unknown statement at the top level, in a round or in a forall
    (copies skip validation, which would refuse it)."""
    if where == "top":
        body = [*PROGRAM.body, Unknown(id=10_000)]
    elif where == "round":
        rnd = next(s for s in PROGRAM.body if isinstance(s, ir.Round))
        body = [*PROGRAM.body, rnd.model_copy(update={"id": 10_001, "body": [Unknown(id=10_000)]})]
    else:
        forall = next(s for s, _ in ir.walk_statements(PROGRAM.body) if isinstance(s, ir.Forall))
        inner = [*forall.body, Unknown(id=10_000)]  # after a write that reads data
        body = [*PROGRAM.body, forall.model_copy(update={"id": 10_001, "body": inner})]
    return PROGRAM.model_copy(update={"body": body})


def test_data_dependence_raises_on_an_unknown_kind() -> None:
    with pytest.raises(TypeError, match="Unknown"):
        dependence.Taint(with_unknown("top"))


@pytest.mark.parametrize("where", ["top", "round", "forall"])
def test_the_cost_pass_raises_on_an_unknown_kind(where: str) -> None:
    run = cost.CostPass(normal_program(with_unknown(where)), worst_case.FEWEST,
                        dependence.Taint(PROGRAM), Selections(), n, n * n)
    with pytest.raises(EfficiencyError, match="unknown statement Unknown"):
        run.block(run.prog.body, [Binder(frozenset(), one, "seq")])


@pytest.mark.parametrize("where", ["top", "round", "forall"])
def test_selection_raises_on_an_unknown_kind(where: str) -> None:
    prog = with_unknown(where)
    with pytest.raises(TypeError, match="Unknown"):
        selection.measure_selections(prog, lambda e: False, set(),
                                     lambda e, n, m=None, N=None: float(n))
