"""algspec.nn.decoders against dm-clrs's decoders and postprocessing: same parameters, same
predictions; sparse predictions equal dense ones on the slots; padding nodes change nothing."""

from __future__ import annotations

import functools
import zlib

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from algspec.nn import decoders, slots
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
    scaled_diff,
    sparse_of,
)

clrs_decoders = pytest.importorskip("clrs._src.decoders")

TYPES = {"node": ("scalar", "mask", "mask_one", "categorical", "pointer", "permutation_pointer"),
         "edge": ("scalar", "mask", "mask_one", "categorical", "pointer"),
         "graph": ("scalar", "mask", "mask_one", "categorical", "pointer")}
CASES = [(loc, t) for loc, types in TYPES.items() for t in types]
BIASED = {("node", "pointer"), ("node", "permutation_pointer"), ("edge", "mask"),
          ("edge", "mask_one")}


def embeddings(rng: np.random.RandomState, n: int = N):
    return (rng.randn(B, n, 3 * H).astype(np.float32), rng.randn(B, n, n, H).astype(np.float32),
            rng.randn(B, H).astype(np.float32))


def _reference(nodes, edges, graph_fts, adj, loc, t, stage, inf_bias, repred):
    decs = clrs_decoders.construct_decoders(loc, t, hidden_dim=H, nb_dims=C, name="algo_0_x")
    hints, outputs = clrs_decoders.decode_fts(
        decoders={"x": decs}, spec={"x": (stage, loc, t)}, h_t=nodes, adj_mat=adj,
        edge_fts=edges, graph_fts=graph_fts, inf_bias=inf_bias, inf_bias_edge=inf_bias,
        repred=repred)
    return (hints if stage == "hint" else outputs)["x"]


def _ours(nodes, edges, graph_fts, graph, node_mask, loc, t, inf_bias, gumbel):
    dec = decoders.Decoder("x", loc, t, H, num_classes=C)
    kw = {"inf_bias": inf_bias, "inf_bias_edge": inf_bias}
    if not gumbel:
        return dec(nodes, edges, graph_fts, graph, node_mask, **kw)
    # dm-clrs draws the noise key after the layers exist (it matters at init): so here.
    dec(nodes, edges, graph_fts, graph, node_mask, **kw)
    return dec(nodes, edges, graph_fts, graph, node_mask, noise_key=hk.next_rng_key(), **kw)


# Jitted once per file: each configuration and shape compiles one program.
_REF = hk.transform(_reference)
_REF_STATIC = ("loc", "t", "stage", "inf_bias", "repred")
_ref_init = jax.jit(_REF.init, static_argnames=_REF_STATIC)
_ref_apply = jax.jit(_REF.apply, static_argnames=_REF_STATIC)
_OURS = hk.transform(_ours)
_OURS_STATIC = ("loc", "t", "inf_bias", "gumbel")
_ours_init = jax.jit(_OURS.init, static_argnames=_OURS_STATIC)
_ours_apply = jax.jit(_OURS.apply, static_argnames=_OURS_STATIC)


def reference(loc, t, stage, nodes, edges, graph_fts, adj, inf_bias, repred, seed=0):
    """dm-clrs's decoder: (its initial parameters, its predictions)."""
    key = jax.random.PRNGKey(seed)
    args = tuple(jnp.asarray(a) for a in (nodes, edges, graph_fts, adj))
    kw = {"loc": loc, "t": t, "stage": stage, "inf_bias": inf_bias, "repred": repred}
    params = _ref_init(key, *args, **kw)
    return params, _ref_apply(params, key, *args, **kw)


def ours(loc, t, nodes, edges, graph_fts, graph, node_mask, inf_bias=False, gumbel=False, *,
         params=None, seed=0):
    """Our decoder: (its parameters, initialised unless given, and its predictions)."""
    key = jax.random.PRNGKey(seed)
    args = tuple(jnp.asarray(a) for a in (nodes, edges, graph_fts)) + (graph, node_mask)
    kw = {"loc": loc, "t": t, "inf_bias": inf_bias, "gumbel": gumbel}
    if params is None:
        params = _ours_init(key, *args, **kw)
    return params, _ours_apply(params, key, *args, **kw)


@functools.partial(jax.jit, static_argnums=(1, 2, 5, 6))
def _postprocess(pred, loc, t, graph, node_mask, hard, steps):
    return decoders.postprocess(pred, loc, t, graph, node_mask, hard=hard,
                                sinkhorn_steps=steps)[0]


def postprocess(pred, loc, t, graph, node_mask, hard, steps=25):
    """`decoders.postprocess`, jitted: (data, type)."""
    return (_postprocess(jnp.asarray(pred), loc, t, graph, node_mask, hard, steps),
            decoders.postprocessed_type(t, hard))


@functools.partial(jax.jit, static_argnums=(1, 2, 3, 4))
def _clrs_postprocess(pred, loc, t, hard, steps):
    return clrs_decoders.postprocess({"x": ("output", loc, t)}, {"x": pred},
                                     sinkhorn_temperature=0.1, sinkhorn_steps=steps,
                                     hard=hard)["x"]


def converted(ref_params, loc, t):
    return decoders.from_clrs_params(ref_params, "x_decoder", "x", loc, t, scope="")


def seed(*key) -> np.random.RandomState:
    return np.random.RandomState(zlib.crc32(repr(key).encode()))


@pytest.mark.parametrize("loc,t,inf_bias", [(loc, t, False) for loc, t in CASES]
                         + [(loc, t, True) for loc, t in CASES if (loc, t) in BIASED])
def test_dense_equals_dm_clrs(loc, t, inf_bias):
    rng = seed(loc, t, inf_bias)
    adj = adjacency(rng)
    emb = embeddings(rng)
    stage = "hint" if inf_bias else "output"
    repred = not (t == "permutation_pointer" and inf_bias)  # once with Gumbel noise
    ref_params, ref = reference(loc, t, stage, *emb, adj, inf_bias, repred, seed=7)
    our_init, _ = ours(loc, t, *emb, dense(adj), ones_mask(), inf_bias, not repred, seed=7)
    params = converted(ref_params, loc, t)
    for got, want in zip(jax.tree_util.tree_leaves(our_init), jax.tree_util.tree_leaves(params),
                         strict=True):  # same initialisers, same creation order
        assert max_diff(got, want) == 0.0
    _, got = ours(loc, t, *emb, dense(adj), ones_mask(), inf_bias, not repred,
                 params=params, seed=7)
    assert max_diff(got, ref) <= TOL


def random_logits(loc: str, t: str, rng, n: int = N) -> np.ndarray:
    shape = (B,) + {"node": (n,), "edge": (n, n), "graph": ()}[loc]
    if t == "categorical":
        shape += (C,)
    elif t in ("pointer", "permutation_pointer"):
        shape += (n,)
    return (rng.randn(*shape) * 3).astype(np.float32)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("loc,t", CASES)
def test_postprocess_equals_dm_clrs(loc, t, hard):
    rng = seed("post", loc, t, hard)
    pred = random_logits(loc, t, rng)
    steps = 5 if hard else 10  # any count: the loops are the same; fewer compile faster
    want = jax.jit(lambda p: _clrs_postprocess(p, loc, t, hard, steps).data)(jnp.asarray(pred))
    want_type = _clrs_postprocess(jnp.asarray(pred), loc, t, hard, 1).type_
    graph = dense(adjacency(rng))
    got = jax.jit(lambda p, m: postprocess(p, loc, t, graph, m, hard, steps)[0])(pred,
                                                                                 ones_mask())
    new_type = postprocess(pred, loc, t, graph, ones_mask(), hard, 1)[1]
    assert new_type == want_type
    assert max_diff(got, want) <= TOL


def sparse_embeddings(emb, graph):
    nodes, edges, graph_fts = emb
    return nodes, slots.at_slots(jnp.asarray(edges), graph), graph_fts


def on_slots(dense_pred, loc: str, t: str, graph):
    """The dense prediction at the pairs the slots stand for (see algspec.nn.slots)."""
    if loc == "edge":
        return slots.at_slots(jnp.asarray(dense_pred), graph)
    if loc == "node" and t in ("pointer", "permutation_pointer", "soft_pointer"):
        return slots.at_slots(jnp.asarray(dense_pred), graph, transpose=True)
    return dense_pred


def assert_live_close(got, want, graph, loc, t):
    got, want = np.asarray(got), np.asarray(want)
    if loc == "edge" or (loc == "node" and t in ("pointer", "permutation_pointer")):
        live = np.asarray(graph.mask)
        got, want = got[live], want[live]
    assert scaled_diff(got, want) <= TOL


@pytest.mark.parametrize("loc,t", CASES)
def test_sparse_logits_equal_dense_on_the_slots(loc, t):
    rng = seed("sparse", loc, t)
    complete = t == "permutation_pointer"  # Sinkhorn normalises whole rows and columns
    adj = adjacency(rng, complete=complete)
    emb = embeddings(rng)
    graph = sparse_of(adj, rng)
    params, want = ours(loc, t, *emb, dense(adj), ones_mask(), True)
    _, got = ours(loc, t, *sparse_embeddings(emb, graph), graph, ones_mask(), True,
                 params=params)
    assert_live_close(got, on_slots(want, loc, t, graph), graph, loc, t)


def restricted(pred: np.ndarray, loc: str, t: str, adj: np.ndarray) -> np.ndarray:
    """Dense logits with the pairs off the edge list removed, as a sparse model sees them."""
    if loc == "node" and t in ("pointer", "permutation_pointer"):
        return np.where(adj > 0, pred, slots.ABSENT)
    if loc == "edge" and t == "mask_one":
        return np.where(adj > 0, pred, slots.ABSENT)
    return pred


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("loc,t", [c for c in CASES if c[0] != "graph"])
def test_sparse_postprocess_equals_dense_on_the_edge_list(loc, t, hard):
    rng = seed("sparse-post", loc, t, hard)
    adj = adjacency(rng, p=0.6)
    graph = sparse_of(adj, rng)
    pred = random_logits(loc, t, rng)
    want, want_type = postprocess(restricted(pred, loc, t, adj), loc, t, dense(adj), ones_mask(),
                                  hard=hard)
    given = on_slots(pred, loc, t, graph)
    got, got_type = postprocess(given, loc, t, graph, ones_mask(), hard=hard)
    assert got_type == want_type
    if loc == "node" and t == "pointer" and hard:  # indices, already dense
        assert max_diff(got, want) == 0.0
        return
    assert_live_close(got, on_slots(want, loc, t, graph), graph, loc, t)
    back = decoders.to_dense(got, loc, got_type, graph, N)
    if loc == "edge" or t in ("pointer", "permutation_pointer"):
        pairs = adj.reshape(adj.shape + (1,) * (np.ndim(back) - 3))
        assert scaled_diff(np.asarray(back) * pairs, np.asarray(want) * pairs) <= TOL


def test_segment_argmax_breaks_ties_like_argmax():
    adj = adjacency(np.random.RandomState(0), complete=True)
    graph = sparse_of(adj, np.random.RandomState(1))
    pred = np.zeros((B, N, N), np.float32)
    pred[:, :, 3] = pred[:, :, 1] = 1.0  # two equal maxima in every row
    got, _ = postprocess(on_slots(pred, "node", "pointer", graph), "node", "pointer", graph,
                         ones_mask(), hard=True)
    assert np.all(np.asarray(got) == 1.0)


def pad_embeddings(emb, extra: int, rng):
    nodes, edges, graph_fts = emb
    return (pad_nodes(nodes, (1,), extra, rng), pad_nodes(edges, (1, 2), extra, rng), graph_fts)


def real_part(x, loc: str, t: str):
    x = np.asarray(x)
    if loc == "graph":
        return x[:, :N] if t == "pointer" else x
    cut = x[:, :N, :N] if loc == "edge" else x[:, :N]
    if t in ("pointer", "permutation_pointer"):
        cut = cut[..., :N]
    return cut


@pytest.mark.parametrize("loc,t", CASES)
def test_padding_nodes_change_nothing(loc, t):
    rng = seed("pad", loc, t)
    extra = 2
    adj = adjacency(rng)
    big_adj = pad_nodes(adj, (1, 2), extra, rng, 0, 2)  # junk adjacency for padding pairs
    emb = embeddings(rng)
    big = pad_embeddings(emb, extra, rng)
    mask = padded_mask(B, N, extra)
    params, want = ours(loc, t, *emb, dense(adj), ones_mask(), True)
    _, got = ours(loc, t, *big, dense(big_adj), mask, True, params=params)
    assert scaled_diff(real_part(got, loc, t), want) <= TOL
    for hard in (False, True):
        small, _ = postprocess(want, loc, t, dense(adj), ones_mask(), hard=hard)
        large, _ = postprocess(got, loc, t, dense(big_adj), mask, hard=hard)
        # hard pointers are indices: cut by location only
        large = real_part(large, loc, "scalar" if hard and t == "pointer" else t)
        assert scaled_diff(large, small) <= TOL


@pytest.mark.parametrize("t", ["pointer", "permutation_pointer"])
def test_sparse_padding_nodes_change_nothing(t):
    rng = seed("sparse-pad", t)
    extra = 2
    adj = adjacency(rng, complete=True)
    big_adj = np.ones((B, N + extra, N + extra), np.float32)
    emb = embeddings(rng)
    big = pad_embeddings(emb, extra, rng)
    small_graph, big_graph = sparse_of(adj, rng), sparse_of(big_adj, rng)
    mask = padded_mask(B, N, extra)
    params, want = ours("node", t, *sparse_embeddings(emb, small_graph), small_graph,
                        ones_mask())
    _, got = ours("node", t, *sparse_embeddings(big, big_graph), big_graph, mask, params=params)
    dense_want = slots.to_pairs(want, small_graph, N, 0.0, transpose=True)
    dense_got = slots.to_pairs(got, big_graph, N + extra, 0.0, transpose=True)[:, :N, :N]
    assert scaled_diff(dense_got, dense_want) <= TOL
    for hard in (False, True):
        small, _ = postprocess(want, "node", t, small_graph, ones_mask(), hard=hard)
        large, _ = postprocess(got, "node", t, big_graph, mask, hard=hard)
        if t == "pointer" and hard:
            assert max_diff(large[:, :N], small) == 0.0
            continue
        small = slots.to_pairs(small, small_graph, N, 0.0, transpose=True)
        large = slots.to_pairs(large, big_graph, N + extra, 0.0, transpose=True)[:, :N, :N]
        assert scaled_diff(large, small) <= TOL


def test_as_soft_pointer_matches_the_soft_layouts():
    rng = np.random.RandomState(2)
    adj = adjacency(rng, complete=True)
    graph = sparse_of(adj, rng)
    ptr = rng.randint(0, N, (B, N)).astype(np.float32)
    onehot = decoders.as_soft_pointer(ptr, "node", dense(adj), N)
    assert max_diff(onehot, np.eye(N)[ptr.astype(int)]) == 0.0
    at_slots = decoders.as_soft_pointer(ptr, "node", graph, N)
    assert max_diff(np.asarray(at_slots)[np.asarray(graph.mask)],
                    np.asarray(on_slots(onehot, "node", "soft_pointer", graph))[
                        np.asarray(graph.mask)]) == 0.0


def test_clrs_names_match_a_baseline_model():
    """The mapping names every decoder weight of a real dm-clrs model, with its shape."""
    clrs = pytest.importorskip("clrs")
    from clrs._src import probing, samplers

    rng = np.random.RandomState(0)
    spec, hints, outputs = {}, [], []
    steps = 3
    for i, (loc, t) in enumerate(CASES):
        for stage, into in (("output", outputs), ("hint", hints)):
            if t == "permutation_pointer" and stage == "hint":
                continue
            name = f"{stage}_{i}"
            spec[name] = (stage, loc, t)
            data = random_logits(loc, "scalar" if "pointer" in t else t, rng)
            if "pointer" in t or t in ("mask", "mask_one"):
                data = rng.randint(0, 2, data.shape).astype(np.float32)
            if t == "permutation_pointer":
                data = np.stack([np.eye(N, dtype=np.float32)] * B)
            if stage == "hint":
                data = np.stack([data] * steps)
            into.append(probing.DataPoint(name=name, location=loc, type_=t, data=data))
    spec["pos"] = ("input", "node", "scalar")
    inputs = [probing.DataPoint(name="pos", location="node", type_="scalar",
                                data=rng.randn(B, N).astype(np.float32))]
    feedback = samplers.Feedback(samplers.Features(inputs, hints, np.full(B, steps)), outputs)
    factory = clrs.get_processor_factory("mpnn", use_ln=False, nb_triplet_fts=0)
    model = clrs.models.BaselineModel(spec, feedback, factory, hidden_dim=H)
    shapes = jax.eval_shape(lambda key: model.net_fn.init(
        key, [feedback.features], True, algorithm_index=-1, return_hints=False,
        return_all_outputs=False), jax.random.PRNGKey(0))
    named = set()
    for name, (stage, loc, t) in spec.items():
        if stage == "input":
            continue
        names = decoders.clrs_module_names(name, loc, t)
        named |= set(names.values())
        mine = decoders.from_clrs_params(shapes, f"{name}_decoder", name, loc, t)
        sizes = dict(decoders.layers(loc, t, H, C))
        for layer, clrs_name in names.items():
            assert mine[f"{name}_decoder/~/{layer}"]["w"].shape[-1] == sizes[layer]
            assert shapes[clrs_name]["b"].shape == (sizes[layer],)
    assert named == {k for k in shapes if "_dec_linear" in k}
