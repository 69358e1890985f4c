"""Forall guards in the static efficiency, edge processors in the measured work, the lint
cache and the sampling budgets: each test fails on the behaviour it pins being lost."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.efficiency.analysis import analyse
from algspec.lint.efficiency_rules import has_growing_bound, sampled_bound_lints
from algspec.lint.measured import measure_size

ALGS = Path(__file__).resolve().parents[2] / "algorithms"

EDGE_HEAD = """algorithm t
nodes n
graph complete
input edge A: scalar ~ erdos_renyi(p = 0.5)
hint edge msk: mask := adjacency(A)
hint edge D: scalar := A
state graph kk: int
"""


def _static(body: str):
    return analyse(algspec.load_source(EDGE_HEAD + body).ir)


# ------------------------------------------------------------ static: forall guards
def test_a_guard_reading_other_edges_is_evaluated_by_every_edge_processor() -> None:
    # Floyd-Warshall's round: every pair reads msk[i, kk] and msk[kk, j] to decide,
    # as every pair reads them in the `if` form; both forms get epsilon = 1.
    guarded = _static("""for kk in 0 .. n {
    record
    forall i, j where msk[i, kk] and msk[kk, j] { D[i, j] = D[i, kk] + D[kk, j] }
}""")
    as_if = _static("""for kk in 0 .. n {
    record
    forall i, j { if msk[i, kk] and msk[kk, j] { D[i, j] = D[i, kk] + D[kk, j] } }
}""")
    assert str(guarded.edge_efficiency) == "1"
    assert str(guarded.edge_efficiency) == str(as_if.edge_efficiency)


def test_floyd_warshall_static_edge_efficiency() -> None:
    st = analyse(algspec.load(ALGS / "clrs" / "floyd_warshall.alg").ir)
    assert str(st.edge_efficiency) == "1" and str(st.capacity) == "n^2"


def test_a_guard_on_own_data_still_selects_o1() -> None:
    # `forall v where x[v] > 0.5`: reading its own datum is free; the worst case keeps O(1).
    st = analyse(algspec.load_source("""algorithm t
nodes n
graph complete
input node x: scalar ~ uniform()
hint node y: scalar
record
for t in 0 .. n {
    round { forall v where x[v] > 0.5 { y[v] = 1.0 } }
    record
}
""").ir)
    assert str(st.node_efficiency) == "1/n" and str(st.edge_efficiency) == "1/n^2"


@pytest.mark.parametrize("name,eta,eps", [("dcsc", "1/n", "1/m"), ("oets", "1", "1/n"),
                                          ("bubble_sort", "1/n", "1/n^2")])
def test_table1_unchanged(name: str, eta: str, eps: str) -> None:
    st = analyse(algspec.load(ALGS / f"{name}.alg").ir)
    assert (str(st.node_efficiency), str(st.edge_efficiency)) == (eta, eps)


# ------------------------------------------------------------ measured: edge processors
def test_edge_processors_make_their_nodes_active() -> None:
    # Every edge processor of the complete graph runs each round: all N nodes are active
    # (measured work was 0 and eta 0 for edge-parallel algorithms such as Floyd-Warshall).
    alg = algspec.load_source(EDGE_HEAD + """record
for kk in 0 .. n {
    round { forall i, j { D[i, j] = D[i, j] + 1.0 } }
    record
}
""")
    n = 6
    st, act, _ = measure_size(alg, n, samples=2, seed=0)
    # (the first round has the node that records it)
    assert list(act.nodes_per_round[0]) == [1] + [n] * n
    assert st.eta == pytest.approx((n * n + 1) / ((n + 1) * n))


def test_floyd_warshall_measured_eta_is_not_zero() -> None:
    st, _, _ = measure_size(algspec.load(ALGS / "clrs" / "floyd_warshall.alg"), 8, samples=2,
                            seed=0)
    assert 0.3 < st.eta <= 1.0


# ------------------------------------------------------------ lint: budgets and cache
CONST_LOOP = """algorithm t
nodes n
graph complete
input node x: scalar ~ uniform()
state graph s: float = 0.0
hint graph h: scalar = s
record
for i in 0 .. 3 { s = s + x[0]; record }
"""


def test_constant_bounds_need_no_growth_fit() -> None:
    alg = algspec.load_source(CONST_LOOP)
    assert not has_growing_bound(alg.ir)
    assert has_growing_bound(algspec.load(ALGS / "bubble_sort.alg").ir)
    assert sampled_bound_lints(alg) == []


def test_lint_cache_hits_and_misses(tmp_path, monkeypatch) -> None:
    from algspec import lint
    from algspec.lint import cache as lint_cache

    monkeypatch.setenv("ALGSPEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ALGSPEC_NO_CACHE", raising=False)
    src = CONST_LOOP
    bad = src.replace("state graph s", "state graph unused_thing: int = 0\nstate graph s")
    calls = []
    real = lint._lint_source
    monkeypatch.setattr(lint, "_lint_source", lambda *a: calls.append(a) or real(*a))
    first = lint.lint_source(bad, "b.alg")
    assert "L101" in [d.code for d in first] and len(calls) == 1
    again = lint.lint_source(bad, "b.alg")
    assert again == first and len(calls) == 1              # served from the cache
    lint.lint_source(bad, "other.alg")                      # the path is in the findings
    lint.lint_source(src, "b.alg")                          # another source
    assert len(calls) == 3
    monkeypatch.setenv("ALGSPEC_NO_CACHE", "1")
    lint.lint_source(bad, "b.alg")
    assert len(calls) == 4
    assert len(list((tmp_path / "lint").glob("*.json"))) == 3
    assert lint_cache.key(bad, "b.alg", True) != lint_cache.key(bad, "b.alg", False)


def test_lint_cache_follows_included_files(tmp_path) -> None:
    from algspec.lint import cache as lint_cache

    lib = tmp_path / "lib.alg"
    lib.write_text("proc f() { }\n")
    src = 'include "lib.alg"\n'
    path = str(tmp_path / "main.alg")
    k1 = lint_cache.key(src, path, True)
    lib.write_text("proc f() { }\nproc g() { }\n")
    assert lint_cache.key(src, path, True) != k1
    np.testing.assert_equal(lint_cache.key(src, path, True), lint_cache.key(src, path, True))
