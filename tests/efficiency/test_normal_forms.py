"""Equivalent programs get equal classes; shares stay in (0, 1] for any program.

Pairs of programs that compute the same thing in different syntax (a whole-array
assignment and a forall, a filter and a conditional body, a guard and an `if`,
any/all with a filter or a conjunction, ...) must get the same T, work, active
edges, eta and epsilon. A hypothesis test builds random programs from a pool of
statements (aggregations over all nodes on sparse graphs, interval-DP-like
nested reductions, data-dependent and data-independent guards) and checks
0 < eta <= 1 and 0 < epsilon <= 1.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import algspec
from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import Asymptotic, log_n, m, n, one

GRAPH_HEAD = """algorithm t
nodes n
graph input adj
input edge A: scalar ~ erdos_renyi(p = 0.5)
input edge adj: mask = adjacency(A)
input node x: scalar ~ uniform(low = 0.0, high = 1.0)
hint node y: scalar
hint node c: mask
hint node join: mask
state graph b: bool
state graph step: int = 1
state graph z: float
"""


def classes(body: str, head: str = GRAPH_HEAD) -> tuple[str, ...]:
    s = analyse(algspec.load_source(head + body).ir)
    return tuple(str(x) for x in (s.rounds, s.work, s.active_edges, s.node_efficiency,
                                  s.edge_efficiency))


def loop(inner: str, bound: str = "n") -> str:
    return f"record\nfor t in 0 .. {bound} {{\n{inner}\n    record\n}}\n"


PAIRS = {
    # Luby's MIS reset: a whole-array assignment is a forall.
    "whole-array reset": (
        loop("    join = false\n    round { forall v { y[v] = x[v] } }"),
        loop("    round { forall v { join[v] = false }\n forall v { y[v] = x[v] } }")),
    "whole-array update": (
        loop("    y = x + 1.0"),
        loop("    round { forall v { y[v] = x[v] + 1.0 } }")),
    # A filter is a guarded body.
    "min filter vs conditional body": (
        loop("    round { forall v { y[v] = min(x[u] for u in incoming(v) if c[u], "
             "default = 0.0) } }"),
        loop("    round { forall v { y[v] = min(x[u] if c[u] else inf for u in incoming(v), "
             "default = 0.0) } }")),
    "sum filter vs conditional body": (
        loop("    round { forall v { y[v] = sum(x[u] for u in incoming(v) if c[u]) } }"),
        loop("    round { forall v { y[v] = sum(x[u] if c[u] else 0.0 "
             "for u in incoming(v)) } }")),
    # any/all: every evaluated comparison is active, filter or conjunction alike.
    "any filter vs conjunction": (
        loop("    round { forall v { c[v] = any(x[u] > x[v] for u in incoming(v) if c[u]) } }"),
        loop("    round { forall v { c[v] = any(c[u] and x[u] > x[v] "
             "for u in incoming(v)) } }")),
    "all vs not any": (
        loop("    round { forall v { c[v] = all(x[u] <= x[v] for u in incoming(v)) } }"),
        loop("    round { forall v { c[v] = not any(x[u] > x[v] for u in incoming(v)) } }")),
    "any vs count > 0": (
        loop("    round { forall v { c[v] = any(x[u] > x[v] for u in incoming(v)) } }"),
        loop("    round { forall v { c[v] = count(x[u] > x[v] for u in incoming(v)) > 0 } }")),
    "readout min: filter vs conditional body": (
        loop("    z = min(x[w] for w in nodes if x[w] > 0.5, default = 0.0)"),
        loop("    z = min(x[w] if x[w] > 0.5 else inf for w in nodes, default = 0.0)")),
    "readout sum: filter vs conditional body (then-identity)": (
        loop("    z = sum(x[w] for w in nodes if not (x[w] > 0.5))"),
        loop("    z = sum(0.0 if x[w] > 0.5 else x[w] for w in nodes)")),
    "readout any: witness filter vs predicate": (
        loop("    b = any(x[w] > 0.5 for w in nodes)"),
        loop("    b = any(true for w in nodes if x[w] > 0.5)")),
    # A data-independent `if` around the whole body is a guard (tree reduction).
    "guard vs data-independent if": (
        ("record\nwhile step < n bound ceil(log2(n)) {\n"
        "    forall v where v % (2 * step) == 0 and v + step < n { y[v] = y[v] + y[v + step] }\n"
        "    step = step * 2\n    record\n}\n"),
        ("record\nwhile step < n bound ceil(log2(n)) {\n"
        "    forall v { if v % (2 * step) == 0 and v + step < n { y[v] = y[v] + y[v + step] } }\n"
        "    step = step * 2\n    record\n}\n")),
    # One worst-case rule for `where` and `if`, data-dependent or not.
    "guard vs if on the processor's data": (
        loop("    round { forall v where x[v] > 0.5 { y[v] = x[v] } }"),
        loop("    round { forall v { if x[v] > 0.5 { y[v] = x[v] } } }")),
    "edge guard vs if across the edge": (
        loop("    round { forall v, u where x[u] < x[v] { y[v] = x[u] by max } }"),
        loop("    round { forall v, u { if x[u] < x[v] { y[v] = x[u] by max } } }")),
    "test conjuncts in either order": (
        loop("    round { forall v, u where c[u] and x[u] < x[v] { y[v] = x[u] by max } }"),
        loop("    round { forall v, u where x[u] < x[v] and c[u] { y[v] = x[u] by max } }")),
    # A readout and the processors' combining write: the same elements at both ends.
    "readout min vs guarded CRCW min": (
        loop("    z = min(x[w] for w in nodes if c[w], default = 0.0)"),
        loop("    round { forall w where c[w] { z = x[w] by min } }")),
    "readout any vs guarded CRCW any": (
        loop("    b = any(c[w] for w in nodes)"),
        loop("    round { forall w where c[w] { b = true by any } }")),
    "pinned guard: equality vs counted": (
        loop("    round { forall v where v == 0 { y[v] = x[v] } }"),
        loop("    round { forall v where v < 1 { y[v] = x[v] } }")),
}


def both_ends(body: str, head: str = GRAPH_HEAD) -> tuple[str, ...]:
    """T, then work, active edges, eta and epsilon as `fewest .. most` (docs/efficiency.md,
    the worst case: equivalent programs agree at both ends, not only at the fewest)."""
    s = analyse(algspec.load_source(head + body).ir)
    return (str(s.rounds),) + tuple(str(s.range(q)) for q in
                                    ("work", "active_edges", "eta", "epsilon"))


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_equivalent_programs_get_equal_classes(name: str) -> None:
    a, b = PAIRS[name]
    assert classes(a) == classes(b), name
    assert both_ends(a) == both_ends(b), name


def test_interval_dp_share_stays_at_most_one() -> None:
    # Matrix-chain-like nested reductions over all nodes on an empty graph used to give
    # epsilon = n; a round touches at most |E| edges.
    head = GRAPH_HEAD.replace("graph input adj", "graph empty").replace(
        "input edge A: scalar ~ erdos_renyi(p = 0.5)\ninput edge adj: mask = adjacency(A)\n", "")
    s = classes(loop("    round { forall v { y[v] = min(y[u] + float(count(y[w] > y[u] "
                     "for w in nodes)) for u in nodes) } }"), head)
    assert s[3:] == ("1", "1")


def test_guarded_and_branching_spellings_get_their_textbook_values() -> None:
    # tree reduction: work n - 1 over log n rounds
    t = classes(PAIRS["guard vs data-independent if"][0])
    assert Asymptotic.parse(t[1]) == n and Asymptotic.parse(t[3]) == 1 / log_n
    # all-pairs comparison in one round with any(...) over a complete graph: epsilon 1
    head = GRAPH_HEAD.replace("graph input adj", "graph complete").replace(
        "input edge A: scalar ~ erdos_renyi(p = 0.5)\ninput edge adj: mask = adjacency(A)\n", "")
    s = classes("record\nround { forall v { c[v] = any(x[u] < x[v] for u in incoming(v)) } }\n"
                "record\n", head)
    assert s[4] == "1"
    # synchronous Bellman-Ford relaxing over the in-neighbours its filter `c[u]` keeps: a
    # test on each neighbour's own state, O(1) of them at the fewest end, every edge at the
    # most (this pinned epsilon 1 at the fewest end, while the same filter in a readout
    # counted O(1))
    src = loop("    round { forall v { y[v] = min(y[u] + A[u, v] for u in incoming(v) "
               "if c[u], default = inf) } }")
    assert classes(src)[4] == "n/m" and both_ends(src)[4] == "n/m .. 1"
    # without the filter every edge is relaxed every round: epsilon 1 at both ends
    assert both_ends(src.replace(" if c[u]", ""))[4] == "1"


# ---------------------------------------------------------------- shares never exceed 1
STATEMENTS = [
    "round { forall v { y[v] = x[v] + 1.0 } }",
    "round { forall v where v % 2 == 0 { y[v] = y[v] + 1.0 } }",
    "round { forall v where c[v] { y[v] = 0.0 } }",
    "round { forall v { y[v] = min(y[u] for u in nodes) } }",
    ("round { forall v { y[v] = min(y[u] + float(count(y[w] > y[u] for w in nodes)) "
    "for u in nodes) } }"),
    "round { forall v { y[v] = sum(y[u] for u in incoming(v)) } }",
    "round { forall v { c[v] = any(y[u] > y[v] for u in incoming(v) if c[u]) } }",
    "round { forall v { if y[v] > 0.5 { y[v] = y[v] * 0.5 } } }",
    "y = 0.0",
    "y = x",
    "c = false",
    "b = any(y[w] > 0.5 for w in nodes)",
    "y[0] = x[1]",
    "record",
]
BOUNDS = ["n", "ceil(log2(n))", "m", "n * n", "3"]
GRAPHS = ["complete", "empty", "path", "input adj"]


@st.composite
def programs(draw) -> str:
    graph = draw(st.sampled_from(GRAPHS))
    head = GRAPH_HEAD.replace("graph input adj", f"graph {graph}")
    if graph != "input adj":
        head = head.replace("input edge A: scalar ~ erdos_renyi(p = 0.5)\n"
                            "input edge adj: mask = adjacency(A)\n", "")
    body = ["record"]
    for _ in range(draw(st.integers(1, 3))):
        stmts = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=4))
        if draw(st.booleans()):
            bound = draw(st.sampled_from(BOUNDS))
            if bound == "m" and graph != "input adj":
                bound = "n"
            body.append(f"for t in 0 .. {bound} {{\n" + "\n".join(stmts) + "\nrecord\n}")
        else:
            body += stmts
    return head + "\n".join(body) + "\n"


@settings(max_examples=25, deadline=None)
@given(programs())
def test_no_program_has_a_share_above_one(source: str) -> None:
    s = analyse(algspec.load_source(source).ir)
    assert not s.rounds.is_zero
    for share in (s.node_efficiency, s.edge_efficiency):
        assert share.is_O(one), (str(share), source)
        assert not share.is_zero, source
        assert share.evaluate(2.0 ** 20, 2.0 ** 23) <= 1.0 + 1e-9


# ---------------------------------------------------------------- the algebra under n <= m <= n^2
def test_simplification_under_n_le_m_le_n2() -> None:
    assert str(n / m + 1) == "1"
    assert str(n * (n + m)) == "nm"
    assert str((n + m) / m) == "1"
    assert str(n ** 2 + m) == "n^2"
    assert (m * log_n).log() == log_n


_terms = st.builds(lambda a, b, c: Asymptotic.term(a, b, c),
                   st.integers(-3, 3), st.integers(-2, 2), st.integers(-2, 2))
_classes = st.lists(_terms, min_size=1, max_size=3).map(lambda ts: sum(ts[1:], ts[0]))


@settings(max_examples=200, deadline=None)
@given(_classes, _classes)
def test_capped_shares_are_at_most_one(a: Asymptotic, b: Asymptotic) -> None:
    share = a.at_most(b) / b
    assert share.is_O(one)
    nv = 2.0 ** 40   # large enough that polynomial factors beat log^4 n
    for mv in (nv, nv ** 1.5, nv ** 2):
        # constants are dropped, so compare up to the number of terms
        assert share.evaluate(nv, mv) <= 9.0 + 1e-9


@settings(max_examples=200, deadline=None)
@given(_classes, _classes)
def test_dominance_holds_numerically_for_every_m_between_n_and_n2(a: Asymptotic,
                                                                    b: Asymptotic) -> None:
    if a.is_O(b):
        ratios = [a.evaluate(nv, nv ** t) / b.evaluate(nv, nv ** t)
                  for nv in (2 ** 10, 2 ** 20, 2 ** 40) for t in (1, 1.5, 2)]
        # bounded: no growth from 2^20 to 2^40 beyond a log factor's worth
        assert max(ratios[6:]) <= 9 * max(1.0, max(ratios[3:6])) * 4
