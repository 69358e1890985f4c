"""algspec.nn.edges: dm-clrs's adjacency (dense) and the edge list of the same pairs (sparse)."""

from __future__ import annotations

import haiku as hk
import jax
import numpy as np
import pytest

from algspec.nn import edges
from algspec.nn.data import DataPoint
from algspec.nn.graph import DenseGraph, SparseGraph
from algspec.nn.processors import make_processor
from algspec.nn.types import Location, Type

B, N = 3, 6


def _soft_pointer(rng: np.random.Generator) -> np.ndarray:
    """Probabilities `[B, N, N]`, rows summing to 1; sample 0 has pairs above 0.5 only jointly.

    In sample 0, rows hold 0.3, 0.3, 0.26 ...: (0, 1) has p01 + p10 = 0.52 with each
    entry only its row's third largest, the case a top-1 or top-2 candidate list misses.
    """
    logits = rng.normal(size=(B, N, N)) * rng.choice([0.5, 3.0], size=(B, N, 1))
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    tricky = np.full((N, N), 0.0)
    tricky[0, [2, 3, 1]] = [0.3, 0.3, 0.26]
    tricky[1, [4, 5, 0]] = [0.3, 0.3, 0.26]
    for i in range(2, N):
        tricky[i, i] = 1.0
    tricky[0, 0] = tricky[1, 1] = 0.14
    p[0] = tricky
    return p.astype(np.float32)


def _step_data(rng: np.random.Generator) -> tuple[list[DataPoint], list[DataPoint]]:
    """(inputs, hints at one step): every kind of datum that adds adjacency, and distractors."""
    def dp(name: str, loc: str, typ: str, data: np.ndarray) -> DataPoint:
        return DataPoint(name, loc, typ, data)

    perm = np.stack([np.eye(N)[rng.permutation(N)] for _ in range(B)]).astype(np.float32)
    inputs = [
        dp("adj", Location.EDGE, Type.MASK, (rng.random((B, N, N)) < 0.2).astype(np.float32)),
        dp("A", Location.EDGE, Type.SCALAR, rng.random((B, N, N)).astype(np.float32)),
        dp("pi_in", Location.NODE, Type.POINTER, rng.integers(0, N, (B, N)).astype(np.float32)),
        dp("key", Location.NODE, Type.SCALAR, rng.random((B, N)).astype(np.float32)),
    ]
    hints = [
        dp("pi_h", Location.NODE, Type.POINTER, rng.integers(0, N, (B, N)).astype(np.float32)),
        dp("soft", Location.NODE, Type.SOFT_POINTER, _soft_pointer(rng)),
        dp("perm", Location.NODE, Type.PERMUTATION_POINTER, perm),
        dp("epi", Location.EDGE, Type.POINTER, rng.integers(0, N, (B, N, N)).astype(np.float32)),
        dp("gptr", Location.GRAPH, Type.POINTER, rng.integers(0, N, (B,)).astype(np.float32)),
        dp("emask_h", Location.EDGE, Type.MASK,
           (rng.random((B, N, N)) < 0.1).astype(np.float32)),
    ]
    return inputs, hints


def _clrs_adjacency(data: list[DataPoint]) -> np.ndarray:
    """dm-clrs's composition, as nets.py runs it: preprocess, then accum_adj_mat per datum."""
    encoders = pytest.importorskip("clrs._src.encoders")
    probing = pytest.importorskip("clrs._src.probing")
    adj = np.repeat(np.eye(N)[None], B, axis=0)
    for d in data:
        point = probing.DataPoint(name=d.name, location=d.location, type_=d.type_, data=d.data)
        adj = encoders.accum_adj_mat(encoders.preprocess(point, N), adj)
    return np.asarray(adj)


# ------------------------------------------------------------------ dense

@pytest.mark.parametrize("seed", [0, 1])
def test_dense_adjacency_is_dm_clrs(seed: int) -> None:
    inputs, hints = _step_data(np.random.default_rng(seed))
    want = _clrs_adjacency(inputs + hints)
    got = np.asarray(edges.dense_adjacency(inputs + hints, B, N))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    assert want.sum() > B * N                      # the data did add pairs
    mask = np.ones((B, N), np.float32)
    mask[:, -2:] = 0
    padded = np.asarray(edges.dense_adjacency(inputs + hints, B, N, node_mask=mask))
    np.testing.assert_array_equal(padded[:, :-2, :-2], want[:, :-2, :-2])
    assert not padded[:, -2:].any() and not padded[:, :, -2:].any()


def test_kind_adjacency_replaces_as_dm_clrs_processors_do() -> None:
    inputs, hints = _step_data(np.random.default_rng(2))
    adj = edges.dense_adjacency(inputs + hints, B, N)
    np.testing.assert_array_equal(edges.kind_adjacency("declared", adj), adj)
    np.testing.assert_array_equal(edges.kind_adjacency("complete", adj), np.ones((B, N, N)))
    np.testing.assert_array_equal(edges.kind_adjacency("self", adj),
                                  np.broadcast_to(np.eye(N), (B, N, N)))
    mask = np.ones((B, N), np.float32)
    mask[0, 0] = 0
    complete = np.asarray(edges.kind_adjacency("complete", adj, mask))
    assert not complete[0, 0].any() and not complete[0, :, 0].any() and complete[1].all()
    with pytest.raises(ValueError, match="unknown graph"):
        edges.kind_adjacency("full", adj)


# ------------------------------------------------------------------ sparse

def _live_pairs(graph: SparseGraph, b: int) -> list[tuple[int, int]]:
    s, r, m = (np.asarray(a)[b] for a in graph)
    return list(zip(s[m].tolist(), r[m].tolist(), strict=True))


def _check_same_pairs(graph: SparseGraph, dense: np.ndarray) -> None:
    for b in range(B):
        pairs = _live_pairs(graph, b)
        assert len(pairs) == len(set(pairs)), "a pair appears twice"
        assert set(pairs) == set(zip(*map(list, np.nonzero(dense[b])), strict=True))
        s, r, m = (np.asarray(a)[b] for a in graph)
        assert not s[~m].any() and not r[~m].any()  # dead slots point at node 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_graph_holds_exactly_the_dense_pairs(seed: int) -> None:
    inputs, hints = _step_data(np.random.default_rng(seed))
    input_masks = [d.data for d in inputs if edges.is_edge_mask(d)]
    static = edges.static_graph(B, N, edge_masks=input_masks)
    assert static.num_slots == edges.size_bucket(static.num_slots)  # a bucketed size
    no_hint_masks = [d for d in inputs + hints if d.name != "emask_h"]
    dense = np.asarray(edges.dense_adjacency(no_hint_masks, B, N))
    step = jax.jit(lambda g, ps: edges.add_pointer_edges(g, ps, N))
    graph = step(static, edges.node_pointers(inputs + hints))
    _check_same_pairs(graph, dense)
    # Input pointers may go to the static part instead: same pairs.
    static_in = edges.static_graph(B, N, edge_masks=input_masks,
                                   pointers=edges.node_pointers(inputs))
    _check_same_pairs(step(static_in, edges.node_pointers(hints)), dense)
    # Padding nodes: no pair touches them.
    mask = np.ones((B, N), np.float32)
    mask[:, -2:] = 0
    static_p = edges.static_graph(B, N, edge_masks=input_masks, node_mask=mask)
    padded = edges.add_pointer_edges(static_p, edges.node_pointers(inputs + hints), N, mask)
    _check_same_pairs(padded, np.asarray(edges.dense_adjacency(no_hint_masks, B, N, mask)))


def test_top_k_candidates_catch_jointly_heavy_pairs() -> None:
    p = _soft_pointer(np.random.default_rng(0))
    got = edges.add_pointer_edges(edges.static_graph(B, N), [p], N)
    assert (0, 1) in _live_pairs(got, 0) and (1, 0) in _live_pairs(got, 0)


def test_out_of_range_pointers_add_nothing() -> None:
    pointer = np.full((B, N), -1, np.int32)
    pointer[:, 0] = N
    graph = edges.add_pointer_edges(edges.static_graph(B, N), [pointer], N)
    for b in range(B):
        assert set(_live_pairs(graph, b)) == {(i, i) for i in range(N)}


def test_size_buckets_waste_at_most_a_quarter_and_are_few() -> None:
    assert [edges.slot_bucket(c) for c in (0, 1, 2, 3, 8, 9)] == [1, 1, 2, 3, 8, 10]
    sizes = range(1, 5000)
    buckets = [edges.size_bucket(c) for c in sizes]
    assert all(c <= b <= max(8, 1.25 * c) for c, b in zip(sizes, buckets, strict=True))
    assert all(edges.size_bucket(b) == b for b in buckets)  # a bucket is its own bucket
    assert len(set(buckets)) <= 8 + 4 * 10  # four per octave


def test_reverse_slots() -> None:
    _, hints = _step_data(np.random.default_rng(3))
    graph = edges.add_pointer_edges(edges.static_graph(B, N), edges.node_pointers(hints), N)
    rev, found = (np.asarray(a) for a in edges.reverse_slots(graph, N))
    s, r, m = (np.asarray(a) for a in graph)
    assert (found == m).all()                       # symmetric: every live slot has one
    b = np.arange(B)[:, None]
    assert (s[b, rev][m] == r[m]).all() and (r[b, rev][m] == s[m]).all()
    one_way = SparseGraph(np.array([[0, 1, 0]] * B, np.int32), np.array([[1, 1, 0]] * B, np.int32),
                          np.array([[True, True, False]] * B))
    _, found = edges.reverse_slots(one_way, N)
    assert np.asarray(found).tolist() == [[False, True, False]] * B


def test_gather_then_scatter_round_trips() -> None:
    rng = np.random.default_rng(4)
    inputs, _ = _step_data(rng)
    graph = edges.static_graph(B, N, edge_masks=[d.data for d in inputs if edges.is_edge_mask(d)])
    data = rng.normal(size=(B, N, N, 2)).astype(np.float32)
    slots = edges.gather_edges(data, graph)
    s, r, m = (np.asarray(a) for a in graph)
    assert slots.shape == (B, graph.num_slots, 2) and not slots[~m].any()
    live = np.zeros((B, N, N), bool)
    for b in range(B):
        live[b, s[b][m[b]], r[b][m[b]]] = True
        assert (slots[b, m[b]] == data[b, s[b][m[b]], r[b][m[b]]]).all()
    back = edges.scatter_edges(slots, graph, N, fill=-1.0)
    np.testing.assert_array_equal(back[live], data[live])
    assert (back[~live] == -1.0).all()
    hints = rng.normal(size=(4, B, N, N)).astype(np.float32)
    slots_t = edges.gather_edges(hints, graph, time_major=True)
    assert slots_t.shape == (4, B, graph.num_slots)
    np.testing.assert_array_equal(slots_t[2], edges.gather_edges(hints[2], graph))
    back_t = edges.scatter_edges(slots_t, graph, N, time_major=True)
    np.testing.assert_array_equal(back_t[:, live], hints[:, live])
    padded = edges.pad_slots(slots, graph.num_slots + 5)
    assert padded.shape == (B, graph.num_slots + 5, 2) and not np.asarray(padded)[:, -5:].any()


@pytest.mark.parametrize("kind", ["pgn", "gat"])
def test_built_sparse_graph_gives_the_dense_processor_numbers(kind: str) -> None:
    """The edge list built from a step's data drives a processor to dense mode's numbers."""
    rng = np.random.default_rng(5)
    inputs, hints = _step_data(rng)
    data = [d for d in inputs + hints if d.name != "emask_h"]
    static = edges.static_graph(B, N, edge_masks=[d.data for d in inputs if edges.is_edge_mask(d)])
    graph = edges.add_pointer_edges(static, edges.node_pointers(data), N)
    adj = edges.dense_adjacency(data, B, N)
    h = 8
    node, hidden = rng.normal(size=(2, B, N, h)).astype(np.float32)
    edge_fts = rng.normal(size=(B, N, N, h)).astype(np.float32)
    graph_fts = rng.normal(size=(B, h)).astype(np.float32)
    mask = np.ones((B, N), np.float32)
    model = hk.without_apply_rng(hk.transform(
        lambda *a: make_processor(kind, h, use_ln=True, nb_heads=2)(*a)))
    params = model.init(jax.random.PRNGKey(0), node, edge_fts, graph_fts, DenseGraph(adj),
                        hidden, mask)
    dense = model.apply(params, node, edge_fts, graph_fts, DenseGraph(adj), hidden, mask)[0]
    # Edge features at the static slots on the host; the pointer slots are found under jit,
    # so this test reads theirs from the dense array (what an encoder would produce there).
    slot_fts = np.asarray(edge_fts)[np.arange(B)[:, None], np.asarray(graph.senders),
                                    np.asarray(graph.receivers)]
    sparse = model.apply(params, node, slot_fts, graph_fts, graph, hidden, mask)[0]
    assert np.abs(np.asarray(sparse) - np.asarray(dense)).max() <= 1e-5
