"""|E| counts the edges a program's reads travel: a file whose declared graph does not join
a node it reads (lint's L107) gets the edges of the graph that does, so its epsilon is no
better than under the graph it needs, statically and measured."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.efficiency.asymptotic import Asymptotic
from algspec.lint.measured import graph_edges
from tests.support.small_programs import HILLIS_STEELE

# each node reads its right neighbour: path's edges, whatever the declared graph
STENCIL = """algorithm stencil
nodes n
graph {graph}

input  node  x: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node  h: scalar := x
output node  o: scalar = h
state  graph k: int = 0

record
while k < n bound n {{
    forall v where v + 1 < n {{ h[v] = max(h[v], h[v + 1]) }}
    k = k + 1
    record
}}
"""


def _static(source: str, graph: str):
    return algspec.load_source(source.format(graph=graph), f"{graph}.alg").static_efficiency()


@pytest.mark.parametrize("graph", ["empty", "path", "star"])
def test_epsilon_under_a_graph_too_small_is_no_better_than_the_truth(graph: str) -> None:
    truth = _static(HILLIS_STEELE, "complete")
    wrong = _static(HILLIS_STEELE, graph)
    assert str(truth.edge_efficiency) == "1/n"
    assert wrong.edges == truth.edges == Asymptotic.parse("n^2")
    assert wrong.edge_efficiency == truth.edge_efficiency
    assert wrong.range("epsilon") == truth.range("epsilon")
    assert wrong.reads_beyond_graph == ("complete",) and truth.reads_beyond_graph == ()
    assert "+ the complete graph's edges its reads travel" in str(wrong)


def test_a_read_a_small_graph_joins_keeps_its_edge_count() -> None:
    path = _static(STENCIL, "path")
    empty = _static(STENCIL, "empty")
    assert path.reads_beyond_graph == () and empty.reads_beyond_graph == ("path",)
    assert empty.edges == path.edges == Asymptotic.parse("n")
    assert empty.edge_efficiency == path.edge_efficiency


def test_measured_edges_are_the_edges_the_reads_travel() -> None:
    N, B = 6, 2
    empty = algspec.load_source(HILLIS_STEELE.format(graph="empty"), "e.alg")
    traj = empty.sample(N, B, seed=0)
    E, adj = graph_edges(empty.ir, traj.inputs, N, B)
    assert adj is None and list(E) == [N * N] * B  # the complete graph's
    stencil = algspec.load_source(STENCIL.format(graph="empty"), "s.alg")
    traj = stencil.sample(N, B, seed=0)
    E, adj = graph_edges(stencil.ir, traj.inputs, N, B)
    path = np.abs(np.subtract.outer(np.arange(N), np.arange(N))) <= 1
    assert (adj == path).all() and list(E) == [path.sum()] * B


def test_measured_epsilon_under_the_wrong_graph_is_the_complete_graphs() -> None:
    from algspec.lint.measured import measure
    wrong = measure(algspec.load_source(HILLIS_STEELE.format(graph="empty"), "e.alg"),
                    sizes=[8, 16], samples=2)
    truth = measure(algspec.load_source(HILLIS_STEELE.format(graph="complete"), "c.alg"),
                    sizes=[8, 16], samples=2)
    for w, t in zip(wrong.sizes, truth.sizes):
        assert w.edges == t.edges and w.epsilon == pytest.approx(t.epsilon)
