"""algspec.nn.encoders against dm-clrs's encoders: same parameters, same features."""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from algspec.nn import encoders, slots
from algspec.nn.data import DataPoint
from tests.support.nn_parity_helpers import (
    TOL,
    B,
    C,
    H,
    N,
    adjacency,
    dense,
    max_diff,
    ones_mask,
    pad_nodes,
    padded_mask,
    run,
    sparse_of,
)

clrs_encoders = pytest.importorskip("clrs._src.encoders")
probing = pytest.importorskip("clrs._src.probing")

SHAPES = {"node": (N,), "edge": (N, N), "graph": ()}
TYPES = ("scalar", "mask", "mask_one", "categorical", "pointer", "soft_pointer")
CASES = [(loc, t) for loc in ("node", "edge", "graph") for t in TYPES] + [
    ("node", "permutation_pointer")]


def random_data(loc: str, t: str, rng: np.random.RandomState, n: int = N) -> np.ndarray:
    shape = (B,) + tuple(n for _ in SHAPES[loc])
    if t == "scalar":
        return rng.randn(*shape).astype(np.float32)
    if t in ("mask", "mask_one"):
        return rng.randint(0, 2, shape).astype(np.float32)
    if t == "categorical":
        return np.eye(C, dtype=np.float32)[rng.randint(0, C, shape)]
    if t == "pointer":
        return rng.randint(0, n, shape).astype(np.float32)
    if t == "soft_pointer":
        return np.asarray(jax.nn.softmax(rng.randn(*shape, n) * 2, axis=-1))
    perm = np.stack([np.eye(n, dtype=np.float32)[rng.permutation(n)] for _ in range(B)])
    return perm


def spec_type(t: str) -> str:
    return "pointer" if t == "soft_pointer" else t


def reference(loc: str, t: str, stage: str, data: np.ndarray, init: str):
    """dm-clrs: construct, preprocess, accumulate edge, node and graph features from zeros."""
    encs = clrs_encoders.construct_encoders(stage, loc, spec_type(t), hidden_dim=H, init=init,
                                            name="algo_0_x")
    dp = clrs_encoders.preprocess(
        probing.DataPoint(name="x", location=loc, type_=t, data=jnp.asarray(data)), N)
    edges = clrs_encoders.accum_edge_fts(encs, dp, jnp.zeros((B, N, N, H)))
    nodes = clrs_encoders.accum_node_fts(encs, dp, jnp.zeros((B, N, H)))
    graph = clrs_encoders.accum_graph_fts(encs, dp, jnp.zeros((B, H)))
    return nodes, edges, graph


def ours(loc: str, t: str, stage: str, data, graph, node_mask, init: str = "default"):
    enc = encoders.Encoder("x", stage, loc, spec_type(t), H, encoder_init=init)
    return enc(DataPoint("x", loc, t, jnp.asarray(data)), graph, node_mask)


def summed(enc: encoders.Encoding, batch: int, n: int, edge_shape: tuple[int, ...]):
    nodes = enc.nodes if enc.nodes is not None else jnp.zeros((batch, n, H))
    edges = enc.edges if enc.edges is not None else jnp.zeros(edge_shape + (H,))
    graph = enc.graph if enc.graph is not None else jnp.zeros((batch, H))
    return nodes, edges, graph


def converted(ref_params, loc: str, t: str):
    return encoders.from_clrs_params(ref_params, "x_encoder", "x", loc, spec_type(t), scope="")


@pytest.mark.parametrize("loc,t,stage", [(loc, t, "hint") for loc, t in CASES]
                         + [("node", "scalar", "input"), ("edge", "pointer", "input")])
def test_dense_equals_dm_clrs(loc, t, stage):
    rng = np.random.RandomState(zlib.crc32(repr((loc, t, stage)).encode()))
    data = random_data(loc, t, rng)
    graph = dense(adjacency(rng))
    init = "xavier_on_scalars"
    ref_params, ref = run(reference, loc, t, stage, data, init)
    our_init, _ = run(ours, loc, t, stage, data, graph, ones_mask(), init)
    params = converted(ref_params, loc, t)
    # Same initialiser and creation order: the same draws from the same key.
    assert jax.tree_util.tree_structure(our_init) == jax.tree_util.tree_structure(params)
    for got, want in zip(jax.tree_util.tree_leaves(our_init),
                         jax.tree_util.tree_leaves(params), strict=True):
        assert max_diff(got, want) == 0.0
    _, enc = run(ours, loc, t, stage, data, graph, ones_mask(), init, params=params)
    for got, want in zip(summed(enc, B, N, (B, N, N)), ref, strict=True):
        assert max_diff(got, want) <= TOL
    touched = [x is not None for x in enc]
    assert sum(touched) == 1  # each datum feeds exactly one kind of feature


def test_scaled_init_only_for_scalar_hints():
    rng = np.random.RandomState(0)
    data = random_data("node", "scalar", rng)
    graph = dense(adjacency(rng))
    hint, _ = run(ours, "node", "scalar", "hint", data, graph, ones_mask(), "xavier_on_scalars")
    default, _ = run(ours, "node", "scalar", "hint", data, graph, ones_mask(), "default")
    w_hint = np.asarray(hint["x_encoder/~/embed"]["w"])
    w_default = np.asarray(default["x_encoder/~/embed"]["w"])
    assert np.allclose(w_hint * np.sqrt(H), w_default, atol=1e-6)  # stddev 1/sqrt(H) vs 1


def sparse_data(loc: str, t: str, data: np.ndarray, graph) -> np.ndarray:
    """The data as a sparse model receives it."""
    if loc == "edge":
        return slots.at_slots(jnp.asarray(data), graph)
    if loc == "node" and t == "soft_pointer":  # decoder orientation: slot (s, r) is r -> s
        return slots.at_slots(jnp.asarray(data), graph, transpose=True)
    return data


@pytest.mark.parametrize("loc,t", CASES + [("node", "permutation_pointer_slots")])
def test_sparse_equals_dense_on_the_slots(loc, t):
    rng = np.random.RandomState(zlib.crc32(repr((loc, t)).encode()))
    kind = "permutation_pointer" if t == "permutation_pointer_slots" else t
    data = random_data(loc, kind, rng)
    complete = loc == "edge" and kind in ("pointer", "soft_pointer")  # fractions over all pairs
    adj = adjacency(rng, complete=complete)
    sgraph = sparse_of(adj, rng)
    params, ref = run(ours, loc, kind, "hint", data, dense(adj), ones_mask())
    given = sparse_data(loc, kind, data, sgraph)
    if t == "permutation_pointer_slots":
        given = slots.at_slots(jnp.asarray(data), sgraph, transpose=True)
    _, got = run(ours, loc, kind, "hint", given, sgraph, ones_mask(), params=params)
    ref_nodes, ref_edges, ref_graph = summed(ref, B, N, (B, N, N))
    nodes, edges, graph_fts = summed(got, B, N, (B, sgraph.num_slots))
    live = np.asarray(sgraph.mask)
    assert max_diff(nodes, ref_nodes) <= TOL
    assert max_diff(graph_fts, ref_graph) <= TOL
    assert max_diff(np.asarray(edges)[live], np.asarray(slots.at_slots(ref_edges, sgraph))[live]
                    ) <= TOL


def test_sparse_edge_pointer_counts_only_slots():
    """On a partial edge list, an edge pointer's fractions count the pointers on live slots."""
    rng = np.random.RandomState(3)
    data = random_data("edge", "pointer", rng)
    adj = adjacency(rng)
    sgraph = sparse_of(adj, rng)
    on_slots = np.asarray(jax.nn.one_hot(data, N)) * adj[..., None]  # pairs off the list: none
    params, ref = run(ours, "edge", "soft_pointer", "hint", on_slots, dense(adj), ones_mask())
    _, got = run(ours, "edge", "pointer", "hint", slots.at_slots(jnp.asarray(data), sgraph),
                 sgraph, ones_mask(), params=params)
    live = np.asarray(sgraph.mask)
    assert max_diff(np.asarray(got.edges)[live],
                    np.asarray(slots.at_slots(ref.edges, sgraph))[live]) <= TOL


def padded(loc: str, t: str, data: np.ndarray, extra: int, rng) -> np.ndarray:
    """`data` with `extra` padding nodes of junk; real entries keep pointing at real nodes."""
    axes = {"node": (1,), "edge": (1, 2), "graph": ()}[loc]
    if t == "pointer":  # padding entries may point anywhere
        return pad_nodes(data, axes, extra, rng, 0, N + extra)
    if t == "categorical":
        return _pad_with(data, axes, extra, 0.5)
    grown = pad_nodes(data, axes, extra, rng)
    if t in ("soft_pointer", "permutation_pointer"):  # no mass on the new targets
        return _pad_with(np.abs(grown), (grown.ndim - 1,), extra, 0.0)
    return grown


def _pad_with(data: np.ndarray, axes: tuple[int, ...], extra: int, value: float) -> np.ndarray:
    for axis in axes:
        width = [(0, 0)] * data.ndim
        width[axis] = (0, extra)
        data = np.pad(data, width, constant_values=value)
    return data


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loc,t", CASES)
def test_padding_nodes_change_nothing(loc, t, sparse):
    rng = np.random.RandomState(zlib.crc32(repr((loc, t, sparse)).encode()))
    extra = 2
    data = random_data(loc, t, rng)
    adj = adjacency(rng, complete=sparse and loc == "edge" and "pointer" in t)
    big_adj = np.pad(adj, ((0, 0), (0, extra), (0, extra)), constant_values=1.0)
    big = padded(loc, t, data, extra, rng)
    mask = padded_mask(B, N, extra)
    if sparse:
        small_graph, big_graph = sparse_of(adj, rng), sparse_of(big_adj, rng)
        small_data = sparse_data(loc, t, data, small_graph)
        big_data = sparse_data(loc, t, big, big_graph)
    else:
        small_graph, big_graph = dense(adj), dense(big_adj)
        small_data, big_data = data, big
    params, ref = run(ours, loc, t, "input", small_data, small_graph, ones_mask())
    _, got = run(ours, loc, t, "input", big_data, big_graph, mask, params=params)
    if got.nodes is not None:
        assert max_diff(got.nodes[:, :N], ref.nodes) <= TOL
    if got.graph is not None:
        assert max_diff(got.graph, ref.graph) <= TOL
    if got.edges is not None:
        if sparse:  # compare by pair: the two edge lists order their slots differently
            want = slots.to_pairs(ref.edges, small_graph, N, 0.0)
            have = slots.to_pairs(got.edges, big_graph, N + extra, 0.0)[:, :N, :N]
            assert max_diff(have * adj[..., None], want * adj[..., None]) <= TOL
        else:
            assert max_diff(got.edges[:, :N, :N], ref.edges) <= TOL


def test_encode_sums_in_order_and_skips_unknown():
    rng = np.random.RandomState(5)
    graph = dense(adjacency(rng))
    pos = DataPoint("pos", "node", "scalar", jnp.asarray(random_data("node", "scalar", rng)))
    ptr = DataPoint("p", "node", "pointer", jnp.asarray(random_data("node", "pointer", rng)))
    out = DataPoint("y", "graph", "scalar", jnp.zeros(B))

    def both():
        encs = {"pos": encoders.Encoder("pos", "input", "node", "scalar", H),
                "p": encoders.Encoder("p", "input", "node", "pointer", H)}
        total = encoders.encode(encs, [pos, ptr, out], graph, ones_mask(), H)
        return total, encs["pos"](pos, graph, ones_mask()), encs["p"](ptr, graph, ones_mask())

    _, ((nodes, edges, graph_fts), one, two) = run(both)
    assert max_diff(nodes, one.nodes) == 0.0
    assert max_diff(edges, two.edges) == 0.0
    assert max_diff(graph_fts, jnp.zeros((B, H))) == 0.0


def test_outputs_and_misplaced_types_are_refused():
    with pytest.raises(ValueError, match="never encoded"):
        run(encoders.Encoder, "y", "output", "node", "scalar", H)
    with pytest.raises(ValueError, match="permutation pointer"):
        run(encoders.Encoder, "y", "input", "edge", "permutation_pointer", H)


def test_clrs_names_match_a_baseline_model():
    """The mapping names every encoder weight of a real dm-clrs model, with its shape."""
    clrs = pytest.importorskip("clrs")
    from clrs._src import samplers

    rng = np.random.RandomState(0)
    spec, inputs, hints = {}, [], []
    steps = 3
    for i, (loc, t) in enumerate(c for c in CASES if c[1] not in ("soft_pointer",
                                                                  "permutation_pointer")):
        for stage, into in (("input", inputs), ("hint", hints)):
            name = f"{stage}_{i}"
            spec[name] = (stage, loc, t)
            data = random_data(loc, t, rng)
            if stage == "hint":
                data = np.stack([data] * steps)
            into.append(probing.DataPoint(name=name, location=loc, type_=t, data=data))
    spec["out"] = ("output", "graph", "scalar")
    outputs = [probing.DataPoint(name="out", location="graph", type_="scalar",
                                 data=rng.randn(B).astype(np.float32))]
    feedback = samplers.Feedback(samplers.Features(inputs, hints, np.full(B, steps)), outputs)
    factory = clrs.get_processor_factory("mpnn", use_ln=False, nb_triplet_fts=0)
    model = clrs.models.BaselineModel(spec, feedback, factory, hidden_dim=H, encode_hints=True)
    shapes = jax.eval_shape(lambda key: model.net_fn.init(
        key, [feedback.features], True, algorithm_index=-1, return_hints=False,
        return_all_outputs=False), jax.random.PRNGKey(0))
    enc_params = {k for k in shapes if "_enc_linear" in k}
    named = set()
    for name, (stage, loc, t) in spec.items():
        if stage == "output":
            continue
        mine = encoders.from_clrs_params(shapes, f"{name}_encoder", name, loc, t)
        names = encoders.clrs_module_names(name, loc, t)
        named |= set(names.values())
        for layer, clrs_name in names.items():
            assert mine[f"{name}_encoder/~/{layer}"]["w"].shape == shapes[clrs_name]["w"].shape
            assert shapes[clrs_name]["b"].shape == (H,)
    assert named == enc_params
