"""Measured efficiency: the activity recorder's round bookkeeping, measured figures on
programs whose activity is known exactly, and measured exponents against Table 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.lint.measured import (
    TOLERANCE,
    ActivityRecorder,
    graph_edges,
    measure,
    measure_size,
    verdict,
)

ALGS = Path(__file__).resolve().parents[2] / "algorithms"


# ------------------------------------------------------------ the recorder
def _a(*xs: int) -> np.ndarray:
    return np.array(xs, np.int64)


def test_rounds_end_at_frames_and_initialisation_counts() -> None:
    rec = ActivityRecorder()
    rec.nodes(0, _a(0), _a(3))            # before sample 0's first frame: round 1
    rec.frame(_a(0, 1))
    rec.nodes(1, _a(0, 0, 1), _a(1, 2, 0))  # round 2 of sample 0, round 2 of sample 1
    rec.frame(_a(0, 1))
    rec.nodes(2, _a(1), _a(2))            # after sample 1's last frame: its last round
    act = rec.activity(num_nodes=4, edge_counts=16)
    assert list(act.rounds) == [2, 2]
    assert list(act.nodes_per_round[0]) == [1, 2]
    # a round with no report still has the node that records it (the static floor)
    assert list(act.nodes_per_round[1]) == [1, 2]
    assert list(act.work) == [3, 3]
    assert act.eta[0] == pytest.approx(3 / 8)


def test_duplicates_count_once_and_self_loops_are_edges() -> None:
    rec = ActivityRecorder()
    rec.nodes(0, _a(0, 0, 0), _a(1, 1, 2))
    rec.nodes(5, _a(0), _a(1))
    rec.edges(1, _a(0, 0), _a(2, 2), _a(1, 1))   # the same edge twice
    rec.edges(1, _a(0), _a(1), _a(1))            # a self-loop also implied by node 1
    rec.frame(_a(0))
    act = rec.activity(num_nodes=3, edge_counts=9)
    assert list(act.nodes_per_round[0]) == [2]   # nodes 1, 2
    assert list(act.edges_per_round[0]) == [3]   # 2->1, 1->1, 2->2
    assert act.epsilon[0] == pytest.approx(3 / 9)


def test_edges_outside_the_graph_are_dropped() -> None:
    adj = np.eye(3, dtype=bool)[None].copy()
    adj[0, 0, 1] = True
    rec = ActivityRecorder()
    rec.edges(0, _a(0, 0), _a(0, 2), _a(1, 1))   # 0->1 is an edge, 2->1 is not
    rec.frame(_a(0))
    act = rec.activity(num_nodes=3, edge_counts=adj.sum(axis=(1, 2)), adjacency=adj)
    assert list(act.edges_per_round[0]) == [1]


def test_samples_without_frames_and_batch_size() -> None:
    rec = ActivityRecorder()
    rec.nodes(0, _a(1), _a(0))
    rec.frame(_a(0))
    act = rec.activity(num_nodes=2, edge_counts=4, batch_size=3)
    assert list(act.rounds) == [1, 0, 0]
    assert act.work[1] == 0 and np.isnan(act.eta[1])


def test_loop_iterations_keep_the_maximum() -> None:
    rec = ActivityRecorder()
    rec.iterations(7, _a(0, 1), _a(3, 5))
    rec.iterations(7, _a(0, 2), _a(4, 1))
    assert list(rec.loop_iterations[7]) == [4, 5, 1]


def test_verdicts() -> None:
    assert verdict("T", 1.1, 1.0) == "agrees"
    assert verdict("T", 0.5, 2.0) == "within worst case"       # shorter than worst case
    assert verdict("T", 2.5, 1.0) == "EXCEEDS worst case"
    assert verdict("eta", 0.0, -1.0) == "within worst case"    # more efficient than worst
    assert verdict("eta", -2.0, -1.0) == "EXCEEDS worst case"
    assert verdict("work", 2.0, 1.0) == "differs"


# ------------------------------------------------------------ exact measured figures
HEAD = """algorithm t
nodes n
graph complete
input node x: scalar ~ uniform(low = 0.0, high = 1.0)
hint node y: scalar
"""


def test_unguarded_forall_measured_exactly() -> None:
    # Frames: 1 + n. Round 1 (initial frame) has only the node that records it; rounds
    # 2..n+1 have all N processors active and their self-loops. work = n N + 1.
    alg = algspec.load_source(HEAD + """record
for t in 0 .. n {
    round { forall v { y[v] = x[v] + 1.0 } }
    record
}
""")
    n = 12
    st, act, _ = measure_size(alg, n, samples=3, seed=1)
    assert list(act.rounds) == [n + 1] * 3
    assert list(act.nodes_per_round[0]) == [1] + [n] * n
    assert st.work == n * n + 1 and st.active_edges == n * n + 1
    assert st.eta == pytest.approx((n * n + 1) / ((n + 1) * n))
    assert st.epsilon == pytest.approx((n * n + 1) / ((n + 1) * n * n))


def test_data_dependent_guard_is_better_than_its_worst_case() -> None:
    # About half the items pass `x[v] > 0.5`: measured eta ~ 1/2, while the static worst
    # case is 1/n. The measured exponent is on the safe side of the static class.
    alg = algspec.load_source(HEAD + """record
for t in 0 .. n {
    round { forall v where x[v] > 0.5 { y[v] = 1.0 } }
    record
}
""")
    res = measure(alg, [8, 16, 32], samples=16)
    assert str(res.static.node_efficiency) == "1/n"
    assert 0.3 < res.sizes[-1].eta < 0.7
    assert res.fits["eta"].verdict == "within worst case"
    assert res.fits["T"].verdict == "agrees"


def test_graph_edges_counts_the_mask_with_self_loops() -> None:
    alg = algspec.load(ALGS / "dcsc.alg")
    traj = alg.sample(10, 4, 0)
    E, adj = graph_edges(alg.ir, traj.inputs, 10, 4)
    assert adj is not None and adj.shape == (4, 10, 10)
    assert np.all(adj[:, np.arange(10), np.arange(10)])      # self-loops included
    assert np.array_equal(E, adj.sum(axis=(1, 2)))
    ps = algspec.load(ALGS / "parallel_search.alg")
    traj = ps.sample(8, 2, 0)
    E, _ = graph_edges(ps.ir, traj.inputs, 9, 2)
    assert list(E) == [9, 9]                                  # empty graph: N self-loops


# ------------------------------------------------------------ Table 1, measured
# Data-oblivious (or nearly): the measured exponents agree with the static classes'
# local slopes within TOLERANCE for every quantity.
OBLIVIOUS = ["binary_search", "parallel_search", "bubble_sort", "oets"]
# Data-dependent: the static classes are worst cases the random inputs need not reach, so
# the measured exponents lie on the bounds' safe side (T, c no faster; eta, eps no slower).
DEPENDENT = ["kosaraju", "dcsc"]


@pytest.fixture(scope="module")
def measured() -> dict:
    out = {}
    for name in OBLIVIOUS + DEPENDENT:
        sizes = [8, 16, 32] if name == "bubble_sort" else [8, 16, 32, 64]
        out[name] = measure(algspec.load(ALGS / f"{name}.alg"), sizes, samples=6, seed=3)
    return out


@pytest.mark.parametrize("name", OBLIVIOUS)
def test_measured_exponents_agree_with_static(measured: dict, name: str) -> None:
    res = measured[name]
    for q, fit in res.fits.items():
        assert abs(fit.delta) <= TOLERANCE, (q, fit)
        assert fit.verdict == "agrees"


@pytest.mark.parametrize("name", OBLIVIOUS + DEPENDENT)
def test_measured_never_exceeds_the_worst_case(measured: dict, name: str) -> None:
    res = measured[name]
    for q in ("T", "c", "eta", "epsilon"):
        assert res.fits[q].verdict in ("agrees", "within worst case"), (q, res.fits[q])


def test_measured_values_are_exact_for_oblivious_algorithms(measured: dict) -> None:
    bs = measured["bubble_sort"]
    for s in bs.sizes:              # one frame per comparison plus the initial frame
        assert s.T == s.n * (s.n - 1) / 2 + 1
    ps = measured["parallel_search"]
    for s in ps.sizes:  # two frames: the first has the node recording it, then all compare
        assert s.T == 2 and s.work == s.N + 1 and s.N == s.n + 1
        assert s.epsilon == pytest.approx((s.N + 1) / (2 * s.N))
    oets = measured["oets"]
    for s in oets.sizes:  # all N busy after round 1, which has the node recording it
        assert s.T == s.n + 1
        assert s.eta == pytest.approx((s.n * s.N + 1) / ((s.n + 1) * s.N))


def test_dcsc_is_far_better_than_its_worst_case(measured: dict) -> None:
    # The paper: DCSC's worst case (n^2 rounds, O(1) active) is an edge case; random
    # community graphs give short trajectories with many nodes active.
    d = measured["dcsc"]
    assert d.fits["T"].measured_slope < 1.0 < d.fits["T"].static_slope
    assert d.sizes[-1].eta > 0.3


def test_worst_case_params_are_read_from_a_comment() -> None:
    from algspec.lint.measured import worst_case_params
    src = ("# worst case: p = 0.05, directed = true\nalgorithm t\nnodes n\ngraph complete\n"
           "input node x: scalar ~ uniform(low = 0.0, high = 1.0)\nhint node y: scalar\n"
           "record\nforall v { y[v] = x[v] }\nrecord\n")
    alg = algspec.load_source(src)
    assert worst_case_params(alg) == {"p": 0.05, "directed": True}
    assert worst_case_params(algspec.load_source(src.split("\n", 1)[1])) == {}


def test_ratio_verdict_sees_log_factors() -> None:
    from algspec.lint.measured import log_trend, ratio_verdict
    sizes = [8, 32, 128, 512]
    logs = [3.0, 5.0, 7.0, 9.0]
    assert log_trend(sizes, [2.0] * 4) == pytest.approx(0.0)
    assert log_trend(sizes, logs) == pytest.approx(1.0)      # a missing log factor
    assert ratio_verdict("eta", 1.0, worst_case=True, spread=3.0) == "differs"
    assert ratio_verdict("eta", 1.0, spread=3.0) == "within worst case"
    assert ratio_verdict("T", 1.0, spread=3.0) == "EXCEEDS worst case"
    assert ratio_verdict("T", 1.0, spread=1.2) == "agrees"    # lower-order terms only
    assert ratio_verdict("work", -1.0, spread=3.0) == "differs"


def test_views_are_not_measured_activity() -> None:
    # A hint view with an aggregation over every node costs nothing: measured work and
    # active edges are the same with and without it.
    base = ("algorithm t\nnodes n\ngraph complete\n"
            "input node x: scalar ~ uniform(low = 0.0, high = 1.0)\nhint node y: scalar\n"
            "VIEW\nrecord\nforall v where v == 0 { y[v] = x[v] }\nrecord\n")
    plain = algspec.load_source(base.replace("VIEW", ""))
    viewed = algspec.load_source(base.replace(
        "VIEW", "hint graph total: scalar = sum(y[u] for u in nodes)"))
    a = measure_size(plain, 16, 4, seed=0)[0]
    b = measure_size(viewed, 16, 4, seed=0)[0]
    assert (a.work, a.active_edges) == (b.work, b.active_edges)
