"""Luby's MIS (rand + a whp bound) and Boruvka's MSF (`by argmin` on (weight, index) keys)
against networkx, on random graphs and edge cases, with their static classes."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import algspec
from algspec.efficiency.analysis import analyse

ROOT = Path(__file__).resolve().parents[2] / "algorithms" / "parallel"


@pytest.fixture(scope="module")
def luby():
    return algspec.load(ROOT / "luby_mis.alg")


@pytest.fixture(scope="module")
def boruvka():
    return algspec.load(ROOT / "boruvka.alg")


def _graph(A: np.ndarray) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(A.shape[0]))
    for i, j in zip(*np.nonzero(A)):
        if i < j:
            g.add_edge(int(i), int(j), weight=float(A[i, j]))
    return g


def _edge_cases(n: int) -> list[np.ndarray]:
    empty = np.zeros((n, n))
    full = np.ones((n, n)) - np.eye(n)
    path = np.zeros((n, n))
    for i in range(n - 1):
        path[i, i + 1] = path[i + 1, i] = 1
    star = np.zeros((n, n))
    star[0, 1:] = star[1:, 0] = 1
    return [empty, full, path, star]


@pytest.mark.parametrize("n,p", [(5, 0.5), (12, 0.3), (24, 0.1)])
def test_luby_is_a_maximal_independent_set(luby, n, p):
    inputs = luby.generate(n, 24, np.random.default_rng(n), p=p)
    cases = list(inputs["A"]) + _edge_cases(n)
    batch = {"A": np.stack(cases).astype(np.float32)}
    tr = luby.run(batch, n)
    for b, A in enumerate(cases):
        g = _graph(A)
        chosen = {int(v) for v in np.nonzero(tr.outputs["mis"][b])[0]}
        assert not any(g.has_edge(u, v) for u in chosen for v in chosen if u < v)  # independent
        assert nx.is_dominating_set(g, chosen)                                      # maximal
    assert tr.lengths.max() <= 4 * np.log2(n) + 5


def test_luby_edge_cases_are_exact(luby):
    n = 6
    tr = luby.run({"A": np.stack(_edge_cases(n)).astype(np.float32)}, n)
    mis = tr.outputs["mis"]
    assert mis[0].all()                 # no edges: every node
    assert mis[1].sum() == 1            # a clique: one node
    assert mis[3].sum() in (1, n - 1)   # a star: the centre, or every leaf


@pytest.mark.parametrize("n,p", [(5, 0.6), (12, 0.3), (20, 0.15)])
def test_boruvka_is_the_minimum_spanning_forest(boruvka, n, p):
    inputs = boruvka.generate(n, 24, np.random.default_rng(n), p=p)
    cases = list(inputs["A"]) + [c * np.random.default_rng(7).uniform(0.1, 1, (n, n)) for c in
                                 _edge_cases(n)]
    cases = [np.triu(c, 1) + np.triu(c, 1).T for c in cases]
    tr = boruvka.run({"A": np.stack(cases)}, n, dtype=np.float64)
    for b, A in enumerate(cases):
        g = _graph(A)
        want = {tuple(sorted(e)) for e in nx.minimum_spanning_edges(g, data=False)}
        F = tr.outputs["forest"][b].astype(bool)
        assert (F == F.T).all()
        got = {(int(i), int(j)) for i, j in zip(*np.nonzero(F)) if i < j}
        assert got == want  # continuous weights: the minimum spanning forest is unique
    comps = tr.hints["comp"][(tr.lengths - 1).astype(int), np.arange(len(cases))]
    for b, A in enumerate(cases):
        reps = [{int(comps[b][v]) for v in c} for c in nx.connected_components(_graph(A))]
        assert all(len(r) == 1 for r in reps)                 # one label per component
        assert len(set().union(*reps)) == len(reps)           # different components differ


def test_boruvka_ties_keep_a_forest(boruvka):
    """Equal weights everywhere: the (weight, lower end, higher end) key still makes a tree."""
    n = 9
    A = np.ones((n, n)) - np.eye(n)
    tr = boruvka.run({"A": A[None]}, n, dtype=np.float64)
    F = tr.outputs["forest"][0].astype(bool)
    assert nx.is_tree(_graph(F.astype(float)))


def test_textbook_classes(luby, boruvka):
    s = analyse(luby.ir)
    assert s.whp and {k: str(v) for k, v in s.classes().items() if k in ("T", "c", "eta", "epsilon")} \
        == {"T": "log n", "c": "n log n", "eta": "1", "epsilon": "1"}
    # log n phases of log n pointer-jumping rounds; the jumps use n pointers, not m
    # edges, but each phase's first round compares comp[v] with comp[u] on all m edges:
    # epsilon = (m log n + n log^2 n) / (m log^2 n) = 1/log n + n/m
    s = analyse(boruvka.ir)
    assert not s.whp and {k: str(v) for k, v in s.classes().items()
                          if k in ("T", "c", "eta", "epsilon")} \
        == {"T": "log^2 n", "c": "n log^2 n", "eta": "1", "epsilon": "n/m + 1/log n"}
    assert s.edge_efficiency.evaluate(n=1, m=1) == 1.0  # a share's value stays <= 1
