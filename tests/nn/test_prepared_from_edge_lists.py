"""A batch whose edge data are edge lists (`EdgeLists`, `edges="sparse"`) prepares to exactly
what its dense arrays prepare to: the same edge list (senders, receivers, slot order) and
the same gathered values in sparse mode, the same arrays in dense mode, so a training
step's loss is the same number."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

import algspec
from algspec.edge_lists import EdgeLists
from algspec.feedback import Feedback, feedback_of
from algspec.nn import batch as batching
from algspec.nn import edges
from algspec.nn.graph import SparseGraph
from algspec.nn.model import Model
from algspec.nn.net import NetConfig

ROOT = Path(__file__).resolve().parents[2]

# Edge hints (a mask and a scalar) and an edge output, all zero off the input graph.
FRONTIER_EDGES = """\
algorithm frontier_edges
nodes n
graph input adj

input  node s: mask_one ~ source_node()
input  edge A: scalar ~ erdos_renyi(p = 0.3, connected = true)
input  edge adj: mask = adjacency(A)
hint   node reach_h: mask := s
hint   edge used_h: mask := false
hint   edge w_h: scalar := 0
output edge used: mask = used_h

record
while any(not reach_h[v] and any(reach_h[u] and A[u, v] > 0 for u in incoming(v))  # allow: W201
          for v in nodes) bound n {
    forall u, v where A[u, v] != 0 and reach_h[u] and not reach_h[v] {
        used_h[u, v] = true
        w_h[u, v] = A[u, v] + 1
    }
    forall v where not reach_h[v] {
        reach_h[v] = any(reach_h[u] and A[u, v] > 0 for u in incoming(v))
    }
    record
}
"""


@pytest.fixture(scope="module")
def frontier_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("alg") / "frontier_edges.alg"
    path.write_text(FRONTIER_EDGES)
    return str(path)


def _pair(path: str, n: int, batch: int = 3, seed: int = 0) -> tuple[Any, Feedback, Feedback]:
    """(the program, its dense Feedback, the same samples with edge data as edge lists)."""
    alg = algspec.load(path)
    inputs = alg.generate(n, batch, np.random.default_rng(seed))
    dense = feedback_of(alg.run(inputs, n))
    sparse = feedback_of(alg.run(inputs, n, edges="sparse"))
    return alg, dense, sparse


def _edge_lists(fb: Feedback) -> list[str]:
    return [dp.name for dp in (*fb.features.inputs, *fb.features.hints, *fb.outputs)
            if isinstance(dp.data, EdgeLists)]


def _arrays(p: batching.Prepared) -> list[tuple[str, np.ndarray]]:
    f = p.features
    out = [(dp.name, np.asarray(dp.data)) for dp in (*f.inputs, *f.hints, *p.outputs)]
    out += [("lengths", np.asarray(f.lengths)), ("node_mask", p.node_mask),
            ("nb_nodes", np.asarray(p.nb_nodes))]
    if p.graph is not None:
        out += [(k, np.asarray(a)) for k, a in zip(("senders", "receivers", "mask"), p.graph,
                                                   strict=True)]
    return out


def _assert_same(a: batching.Prepared, b: batching.Prepared) -> None:
    assert (a.graph is None) == (b.graph is None)
    for (name_a, x), (name_b, y) in zip(_arrays(a), _arrays(b), strict=True):
        assert name_a == name_b
        assert x.dtype == y.dtype and x.shape == y.shape, (name_a, x.dtype, y.dtype,
                                                            x.shape, y.shape)
        np.testing.assert_array_equal(x, y, err_msg=name_a)


CASES = [("algorithms/salsa/bfs.alg", 40), ("algorithms/parallel/bellman_ford.alg", 24),
         ("algorithms/parallel/boruvka.alg", 30)]


@pytest.mark.parametrize("sparse", [True, False])
@pytest.mark.parametrize(("path", "n"), CASES)
def test_shipped_files_prepare_the_same_from_edge_lists(path: str, n: int, sparse: bool) -> None:
    alg, dense, lists = _pair(str(ROOT / path), n)
    assert {"A", "adj"} <= set(_edge_lists(lists))
    for nodes in (None, n + 5):  # node padding: the edge lists are not padded, the slots are
        _assert_same(batching.prepare(dense.features, dense.outputs, alg.spec, sparse=sparse,
                                      nodes=nodes),
                     batching.prepare(lists.features, lists.outputs, alg.spec, sparse=sparse,
                                      nodes=nodes))


def test_edge_hints_and_an_edge_output_prepare_the_same(frontier_file: str) -> None:
    alg, dense, lists = _pair(frontier_file, 14, batch=4, seed=2)
    assert set(_edge_lists(lists)) == {"A", "adj", "used_h", "w_h", "used"}
    for sparse in (True, False):
        got = batching.prepare(lists.features, lists.outputs, alg.spec, sparse=sparse)
        _assert_same(batching.prepare(dense.features, dense.outputs, alg.spec, sparse=sparse),
                     got)
    w_h = next(dp for dp in got.features.hints if dp.name == "w_h")
    assert np.asarray(w_h.data).any()  # a hint with values to compare, not all zeros


def test_gathering_edge_lists_reads_zero_where_a_slot_is_no_edge() -> None:
    """Self-loops and pointer pairs are slots but not edges of the datum: they read 0."""
    rng = np.random.default_rng(5)
    batch, n = 3, 7
    mask = rng.random((batch, n, n)) < 0.3
    values = np.where(mask, rng.normal(size=(batch, n, n, 2)).transpose(3, 0, 1, 2), 0)
    values = values.transpose(1, 2, 3, 0).astype(np.float32)  # [B, N, N, 2]
    from algspec.edge_lists import EdgeGraph

    lists = EdgeLists.from_dense(values, EdgeGraph.from_mask(mask))
    assert lists is not None
    graph = edges.static_graph(batch, n, edge_masks=[mask.astype(np.float32)],
                               pointers=[rng.integers(0, n, (batch, n))])
    np.testing.assert_array_equal(edges.gather_edges(lists, graph),
                                  edges.gather_edges(values, graph))
    frames = np.stack([values, 2 * values])
    hint = EdgeLists.from_dense(frames, lists.graph, frames=True)
    np.testing.assert_array_equal(edges.gather_edges(hint, graph, time_major=True),
                                  edges.gather_edges(frames, graph, time_major=True))
    # An edge-list mask builds the same static graph as its dense array.
    as_lists = edges.static_graph(batch, n, edge_masks=[
        EdgeLists.from_dense(mask.astype(np.float32), lists.graph)])
    for x, y in zip(as_lists, edges.static_graph(batch, n,
                                                 edge_masks=[mask.astype(np.float32)]),
                    strict=True):
        np.testing.assert_array_equal(x, y)
    assert isinstance(as_lists, SparseGraph)


def test_a_training_step_has_the_same_loss_and_update_from_edge_lists(
        frontier_file: str) -> None:
    alg, dense, lists = _pair(frontier_file, 10, batch=2, seed=1)
    model = Model(alg.spec, dense, NetConfig(hidden=8, processor="mpnn"), sparse=True)
    model.init(dense, seed=0)
    start = (model.params, model.opt_state)
    results = []
    for fb in (dense, lists):  # one compiled step: the prepared shapes are the same
        model.params, model.opt_state = start
        loss = float(model.feedback(jax.random.PRNGKey(3), fb))
        results.append((loss, jax.tree_util.tree_leaves(model.params)))
    (loss_dense, params_dense), (loss_lists, params_lists) = results
    assert np.isfinite(loss_dense) and loss_lists == loss_dense
    for x, y in zip(params_dense, params_lists, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
