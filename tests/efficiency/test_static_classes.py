"""Static efficiency: Table 1 for the shipped algorithms, and each counting rule on
small programs whose counts are worked out by hand in the comments."""

from __future__ import annotations

from pathlib import Path

import pytest

import algspec
from algspec import ir
from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import Asymptotic, log_n, m, n, one
from algspec.efficiency.dependence import Taint
from algspec.efficiency.size_eval import size_class
from algspec.ir.size_values import EfficiencyError

ALGS = Path(__file__).resolve().parents[2] / "algorithms"
P = Asymptotic.parse

# The paper's Table 1: (c, eta, epsilon).
TABLE_1 = {
    "binary_search": ("n log n", "1/n", "1/n^2"),
    "parallel_search": ("n", "1", "1"),
    "bubble_sort": ("n^3", "1/n", "1/n^2"),
    "oets": ("n^2", "1", "1/n"),
    "kosaraju": ("nm", "1/n", "1/m"),           # the paper's n(n+m): equal as n <= m
    "dcsc": ("n^3", "1/n", "1/m"),
}


@pytest.mark.parametrize("name", sorted(TABLE_1))
def test_table_1(name: str) -> None:
    s = algspec.load(ALGS / f"{name}.alg").static_efficiency()
    c, eta, eps = TABLE_1[name]
    assert (str(s.capacity), str(s.node_efficiency), str(s.edge_efficiency)) == (c, eta, eps)
    assert s.capacity == P(c) and s.node_efficiency == P(eta) and s.edge_efficiency == P(eps)
    # the parts are consistent: c = N T, eta = work / c, epsilon = active / (T |E|)
    assert s.capacity == s.nodes * s.rounds
    assert s.node_efficiency == s.work / s.capacity
    assert s.edge_efficiency == s.active_edges / (s.rounds * s.edges)


def test_table_1_details() -> None:
    bs = analyse(algspec.load(ALGS / "binary_search.alg").ir)
    assert bs.rounds == log_n and bs.edges == n ** 2
    k = analyse(algspec.load(ALGS / "kosaraju.alg").ir)
    assert k.rounds == n + m and k.edges == m
    d = analyse(algspec.load(ALGS / "dcsc.alg").ir)
    assert d.rounds == n ** 2          # a BFS of up to n rounds per source, n sources
    ps = analyse(algspec.load(ALGS / "parallel_search.alg").ir)
    assert ps.rounds == one and ps.nodes == n and ps.edges == n   # N = n + 1, empty graph


def test_printing_and_evaluate_of_result() -> None:
    s = algspec.load(ALGS / "kosaraju.alg").static_efficiency()
    assert s.capacity.evaluate(n=64, m=500) == 64 * 500
    assert s.edge_efficiency.evaluate(n=64, m=500) == pytest.approx(1 / 500)
    text = str(s)
    assert "c = nm" in text and "eta = 1/n" in text and "epsilon = 1/m" in text
    assert s.as_dict()["T"] == "m"


# ------------------------------------------------------------ counting rules
HEAD = """algorithm t
nodes n
graph complete
input node x: scalar ~ uniform(low = 0.0, high = 1.0)
hint node y: scalar
"""


def static(body: str, head: str = HEAD):
    return analyse(algspec.load_source(head + body).ir)


def check(s, T: str, work: str, active: str, eta: str, eps: str) -> None:
    got = (s.rounds, s.work, s.active_edges, s.node_efficiency, s.edge_efficiency)
    want = tuple(P(x) for x in (T, work, active, eta, eps))
    assert got == want, f"got {tuple(map(str, got))}, want {(T, work, active, eta, eps)}"


def test_unguarded_forall_makes_every_node_active() -> None:
    # 1 + n rounds; each round: n processors, n self-loops, no dereference.
    # work n^2, active edges n^2, eta = n^2 / (n * n) = 1, eps = n^2 / (n * n^2) = 1/n.
    s = static("""record
for t in 0 .. n {
    round { forall v { y[v] = x[v] + 1.0 } }
    record
}
""")
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="1/n")


def test_data_dependent_guard_keeps_O1_nodes() -> None:
    # guard reads the input: worst case one processor per round -> work n, eta 1/n.
    s = static("""record
for t in 0 .. n {
    round { forall v where x[v] > 0.5 { y[v] = 1.0 } }
    record
}
""")
    check(s, T="n", work="n", active="n", eta="1/n", eps="1/n^2")


def test_data_independent_guard_keeps_what_it_selects() -> None:
    # `v % 2 == t % 2` selects n/2 processors whatever the input: Theta(n).
    s = static("""record
for t in 0 .. n {
    round { forall v where v % 2 == t % 2 { y[v] = 1.0 } }
    record
}
""")
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="1/n")


def test_guard_pinning_the_index_selects_one() -> None:
    # `v == 0` selects exactly one processor: O(1) per round.
    s = static("""record
for t in 0 .. n {
    round { forall v where v == 0 { y[v] = 1.0 } }
    record
}
""")
    check(s, T="n", work="n", active="n", eta="1/n", eps="1/n^2")


def test_sequential_statements_touch_O1_nodes() -> None:
    # n rounds of two sequential statements: 2 active nodes and 1 dereference per round.
    s = static("""state graph acc: float = 0.0
record
for i in 0 .. n {
    acc = acc + x[i]
    y[i] = acc
    record
}
""")
    check(s, T="n", work="n", active="n", eta="1/n", eps="1/n^2")


def test_pointer_dereference_is_one_edge_per_processor() -> None:
    # Every processor reads its left neighbour: n self-loops + n dereferences per round,
    # on an empty graph (|E| = n): eps = 2n / n = Theta(1). Only the guard is data-dependent
    # in the second program, so both nodes and dereferences drop to O(1).
    head = HEAD.replace("graph complete", "graph empty")
    s = static("""record
for t in 0 .. n {
    round { forall v { y[v] = x[max(v - 1, 0)] } }
    record
}
""", head)
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="1")
    s = static("""record
for t in 0 .. n {
    round { forall v where x[v] > 0.5 { y[v] = x[max(v - 1, 0)] } }
    record
}
""", head)
    check(s, T="n", work="n", active="n", eta="1/n", eps="1/n")


def test_aggregation_over_nodes_inside_a_forall() -> None:
    # One data-dependent processor sums all n nodes: O(1) nodes but n edges per round.
    s = static("""record
for t in 0 .. n {
    round { forall v where x[v] > 0.5 { y[v] = sum(x[u] for u in nodes) } }
    record
}
""")
    check(s, T="n", work="n", active="n^2", eta="1/n", eps="1/n")


def test_if_inside_a_forall_narrows_its_branches() -> None:
    # `forall v { if c { B } }` is `forall v where c { B }` (one worst-case rule for both):
    # a test on each processor's own data runs the body on O(1) processors at the fewest
    # end (their n-element sums: n edges per round) and on all n at the most. (This pinned
    # eta 1 before: every processor was charged for evaluating the `if`, not the `where`.)
    s = static("""record
for t in 0 .. n {
    round { forall v { if x[v] > 0.5 { y[v] = sum(x[u] for u in nodes) } } }
    record
}
""")
    check(s, T="n", work="n", active="n^2", eta="1/n", eps="1/n")
    assert (str(s.range("eta")), str(s.range("epsilon"))) == ("1/n .. 1", "1/n .. 1")
    s = static("""record
for t in 0 .. n {
    round { forall v { if v == 0 { y[v] = 0.0 } else { y[v] = sum(x[u] for u in nodes) } } }
    record
}
""")
    check(s, T="n", work="n^2", active="n^3", eta="1", eps="1")


def test_neighbourhood_aggregation_and_filters() -> None:
    head = """algorithm t
nodes n
graph input adj
input edge A: scalar ~ erdos_renyi(p = 0.5)
input edge adj: mask = adjacency(A)
hint node y: scalar
"""
    # Unfiltered: every processor aggregates its in-neighbours -> all m edges per round.
    s = static("""record
for t in 0 .. n {
    round { forall v { y[v] = sum(1.0 for u in incoming(v)) } }
    record
}
""", head)
    check(s, T="n", work="n^2", active="nm", eta="1", eps="1")
    # A filter on the element's own data chooses its elements as a readout's does (the
    # sender decides): O(1) at the fewest end, all m at the most. (This pinned every edge
    # before, while the same filter in a readout counted O(1) nodes.)
    s = static("""record
for t in 0 .. n {
    round { forall v { y[v] = sum(1.0 for u in incoming(v) if y[u] > 0.5) } }
    record
}
""", head)
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="n/m")
    assert str(s.range("epsilon")) == "n/m .. 1"
    # A filter comparing the element's data with the processor's is evaluated over every
    # edge: all active at both ends.
    s = static("""record
for t in 0 .. n {
    round { forall v { y[v] = sum(1.0 for u in incoming(v) if y[u] > y[v]) } }
    record
}
""", head)
    check(s, T="n", work="n^2", active="nm", eta="1", eps="1")
    # A data-dependent filter on the processor's own data is a guard: worst case O(1).
    s = static("""record
for t in 0 .. n {
    round { forall v { y[v] = sum(1.0 for u in incoming(v) if y[v] > 0.5) } }
    record
}
""", head)
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="n/m")


def test_any_counts_witnesses_but_count_reads_all() -> None:
    # Graph-level readouts over `nodes`: `any` of data needs one witness (O(1) nodes),
    # `count(true ...)` selects every node (n per round).
    s = static("""state graph b: bool
record
for t in 0 .. n {
    b = any(x[w] > 0.5 for w in nodes)
    record
}
""")
    check(s, T="n", work="n", active="n", eta="1/n", eps="1/n^2")
    s = static("""state graph c: int
record
for t in 0 .. n {
    c = count(true for w in nodes)
    record
}
""")
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="1/n")


def test_whole_array_reset_is_free_but_an_update_is_not() -> None:
    # `y = 0.0` carries no information (only the recording node is active per round);
    # `y = x` updates every node (n per round).
    s = static("record\nfor t in 0 .. n {\n    y = 0.0\n    record\n}\n")
    check(s, T="n", work="n", active="n", eta="1/n", eps="1/n^2")
    s = static("record\nfor t in 0 .. n {\n    y = x\n    record\n}\n")
    check(s, T="n", work="n^2", active="n^2", eta="1", eps="1/n")


# ------------------------------------------------------------ rounds
def test_loops_multiply_and_sequences_add() -> None:
    s = static("""record
for i in 0 .. n {
    for j in 0 .. n {
        record
    }
}
for k in 0 .. n {
    record
}
""")
    assert s.rounds == n ** 2
    s = static("""state graph lo: int = 0
record
while lo < n bound ceil(log2(n)) {
    lo = lo + 1
    record
}
""")
    assert s.rounds == log_n


def test_sequence_of_n_and_m_loops() -> None:
    head = """algorithm t
nodes n
graph input adj
input edge A: scalar ~ erdos_renyi(p = 0.5)
input edge adj: mask = adjacency(A)
"""
    s = static("record\nfor i in 0 .. n { record }\nfor j in 0 .. m { record }\n", head)
    assert s.rounds == n + m and str(s.capacity) == "nm"


def test_record_before_break_counts_once_per_loop() -> None:
    # The record on the breaking path runs at most once per execution of the loop.
    s = static("""record
for i in 0 .. n {
    if x[i] > 0.5 {
        record
        break
    }
}
""")
    assert s.rounds == one
    s = static("""record
for i in 0 .. n {
    if x[i] > 0.5 {
        record
    }
}
""")
    assert s.rounds == n


def test_record_counts_per_statement() -> None:
    s = static("""record
for i in 0 .. n {
    record
    for j in 0 .. n { record }
}
""")
    counts = sorted(str(v) for v in s.record_counts.values())
    assert counts == ["1", "n", "n^2"]


# ------------------------------------------------------------ data dependence
def test_taint_follows_data_and_if_but_not_loop_conditions() -> None:
    prog = algspec.load_source(HEAD + """state graph parity: int = 0
state graph seen: int = 0
state graph hit: int = 0
record
while x[0] > 0.5 bound n {
    parity = 1 - parity
    seen = seen + 1
    if x[1] > 0.5 { hit = 1 }
    record
}
""").ir
    t = Taint(prog)
    assert "x" in t.names and "hit" in t.names
    assert "parity" not in t.names and "seen" not in t.names
    assert "pos" not in t.names


# ------------------------------------------------------------ hand-built IR
def _c(v: int) -> ir.Const:
    return ir.Const(value=v, dtype=ir.DType.INT)


def test_hand_built_ir_program() -> None:
    """The analysis needs only the IR: a forall over n + 1 processors, n rounds."""
    v = ir.IndexVar(name="v", axis=0)
    prog = ir.Program(
        name="hand", nodes=ir.Binary(op="+", left=ir.Size(which="n"), right=_c(1),
                                     dtype=ir.DType.INT),
        graph=ir.Graph(kind="empty", mask_name="adj"),
        decls=[ir.DataDecl(name="y", stage=ir.Stage.HINT, loc=ir.Loc.NODE, clrs_type="scalar",
                           dtype=ir.DType.FLOAT)],
        body=[ir.ForRange(id=0, var="t", start=_c(0), stop=ir.Size(which="n"),
                          bound=ir.Size(which="n"), body=[
                              ir.Round(id=1, body=[ir.Forall(id=2, vars=["v"], body=[
                                  ir.Assign(id=3, targets=[ir.Target(
                                      name="y", loc=ir.Loc.NODE, indices=[v],
                                      dtype=ir.DType.FLOAT)],
                                      values=[ir.Binary(op="+", left=ir.Read(
                                          name="y", loc=ir.Loc.NODE, indices=[v],
                                          dtype=ir.DType.FLOAT), right=ir.Const(
                                          value=1.0, dtype=ir.DType.FLOAT),
                                          dtype=ir.DType.FLOAT)])])]),
                              ir.Record(id=4)])])
    s = analyse(prog)
    assert (str(s.rounds), str(s.capacity), str(s.node_efficiency), str(s.edge_efficiency)) \
        == ("n", "n^2", "1", "1")


def test_size_class_of_bounds() -> None:
    def b(op, left, right):
        return ir.Binary(op=op, left=left, right=right, dtype=ir.DType.INT)
    sn, sm = ir.Size(which="n"), ir.Size(which="m")
    assert size_class(b("+", b("*", _c(2), sn), sm)) == n + m
    assert size_class(b("-", sn, _c(1))) == n
    assert size_class(ir.Call(func="ceil", args=[ir.Call(func="log2", args=[sn],
                                                         dtype=ir.DType.FLOAT)],
                              dtype=ir.DType.INT)) == log_n
    assert size_class(ir.Call(func="sqrt", args=[sn], dtype=ir.DType.FLOAT)) == n ** 0.5
    assert size_class(b("//", b("*", sn, sn), _c(2))) == n ** 2
    with pytest.raises(EfficiencyError):
        size_class(ir.VarRef(name="x", dtype=ir.DType.INT))
