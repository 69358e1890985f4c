"""algspec.nn.processors against dm-clrs's processors (the reference), and sparse against dense.

dm-clrs's processor is initialised, its parameters converted with
`processor_params_from_clrs`, and both run on the same random inputs. Sparse mode
runs on the nonzero slots of the dense adjacency (shuffled, with dead slots) and
must give the dense numbers.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from algspec.nn import edges, processors
from algspec.nn.graph import DenseGraph, SparseGraph
from algspec.nn.processors import PROCESSORS, make_processor, processor_params_from_clrs

clrs_processors = pytest.importorskip("clrs._src.processors")

B, N, H, HEADS, TRIPLET_FTS = 2, 5, 8, 2, 4
TOL = 1e-5
SPARSE_KINDS = [k for k, spec in PROCESSORS.items() if not spec.triplets]


def _inputs(seed: int, n: int = N) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random((B, n, n)) < 0.3
    adj = (a | a.transpose(0, 2, 1) | np.eye(n, dtype=bool)).astype(np.float32)
    return {"node": rng.normal(size=(B, n, H)).astype(np.float32),
            "edge": rng.normal(size=(B, n, n, H)).astype(np.float32),
            "graph": rng.normal(size=(B, H)).astype(np.float32),
            "hidden": rng.normal(size=(B, n, H)).astype(np.float32),
            "adj": adj, "mask": np.ones((B, n), np.float32)}


def _clrs(kind: str, use_ln: bool = True) -> hk.Transformed:
    factory = clrs_processors.get_processor_factory(kind, use_ln=use_ln,
                                                    nb_triplet_fts=TRIPLET_FTS, nb_heads=HEADS)
    return hk.transform(lambda *args: factory(H)(*args))


def _ours(kind: str, use_ln: bool = True) -> hk.Transformed:
    return hk.without_apply_rng(hk.transform(lambda *args: make_processor(
        kind, H, use_ln=use_ln, nb_heads=HEADS, nb_triplet_fts=TRIPLET_FTS)(*args)))


@functools.cache
def _clrs_params(kind: str, use_ln: bool = True) -> tuple[dict, dict]:
    """dm-clrs's initialised parameters for `kind` and their conversion (they depend on H only)."""
    x = _inputs(0)
    params = _clrs(kind, use_ln).init(jax.random.PRNGKey(7), x["node"], x["edge"], x["graph"],
                                      x["adj"], x["hidden"])
    return params, processor_params_from_clrs(params, kind, nb_heads=HEADS)


def _converted(kind: str, x: dict, use_ln: bool = True) -> tuple[dict, tuple]:
    """Converted dm-clrs parameters for `kind` and dm-clrs's outputs on `x`."""
    params, converted = _clrs_params(kind, use_ln)
    args = (x["node"], x["edge"], x["graph"], x["adj"], x["hidden"])
    return converted, _clrs(kind, use_ln).apply(params, None, *args)


def _dense(kind: str, params: dict, x: dict, use_ln: bool = True) -> tuple:
    return _ours(kind, use_ln).apply(params, x["node"], x["edge"], x["graph"],
                                     DenseGraph(x["adj"]), x["hidden"], x["mask"])


def _slots_of(adj: np.ndarray, rng: np.random.Generator) -> SparseGraph:
    """The nonzero pairs of `adj` in a random order, then dead slots (the contract's padding).

    Always 32 slots (>= N * N + 3 dead ones): one shape for every test, so one compilation.
    """
    senders, receivers, masks = [], [], []
    count = 32
    for a in adj:
        s, r = np.nonzero(a)
        order = rng.permutation(len(s))
        pad = count - len(s)
        senders.append(np.concatenate([s[order], np.zeros(pad, int)]))
        receivers.append(np.concatenate([r[order], np.zeros(pad, int)]))
        masks.append(np.arange(count) < len(s))
    return SparseGraph(np.array(senders, np.int32), np.array(receivers, np.int32),
                       np.array(masks))


def _sparse(kind: str, params: dict, x: dict, graph: SparseGraph) -> tuple:
    return _ours(kind).apply(params, x["node"], edges.gather_edges(x["edge"], graph), x["graph"],
                             graph, x["hidden"], x["mask"])


# ------------------------------------------------------------------ registry

def test_registry_is_dm_clrs_kinds_but_memnet() -> None:
    source = inspect.getsource(clrs_processors.get_processor_factory)
    clrs_kinds = set(re.findall(r"kind == '(\w+)'", source))
    assert set(PROCESSORS) == {k for k in clrs_kinds if not k.startswith("memnet")}


@pytest.mark.parametrize("kind", sorted(PROCESSORS))
def test_registry_entry_matches_clrs_processor(kind: str) -> None:
    """The graph read and the decoder masking flag are what dm-clrs's processor class does."""
    spec = PROCESSORS[kind]
    seen = {}

    def build() -> None:
        proc = clrs_processors.get_processor_factory(kind, False, 4, nb_heads=1)(H)
        seen.update(proc=proc, inf_bias=(proc.inf_bias, proc.inf_bias_edge),
                    options=(getattr(proc, "use_triplets", False), getattr(proc, "gated", False)))

    hk.transform(build).init(None)
    proc = seen["proc"]
    complete = (clrs_processors.MPNN, clrs_processors.GATFull, clrs_processors.GATv2Full)
    reads = ("self" if isinstance(proc, clrs_processors.DeepSets) else
             "complete" if isinstance(proc, complete) else "declared")
    assert spec.reads == reads
    assert seen["inf_bias"] == (spec.inf_bias, spec.inf_bias)
    family = ("gatv2" if isinstance(proc, clrs_processors.GATv2) else
              "gat" if isinstance(proc, clrs_processors.GAT) else "mpnn")
    assert spec.family == family
    assert (spec.triplets, spec.gated) == seen["options"]


def test_unknown_kind_and_bad_heads_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown processor kind"):
        make_processor("memnet_full", H)
    with pytest.raises(ValueError, match="heads must divide"):
        hk.transform(lambda: make_processor("gat", H, nb_heads=3)).init(None)


# ------------------------------------------------------------------ parity with dm-clrs

@pytest.mark.parametrize("kind,use_ln", [(k, True) for k in sorted(PROCESSORS)]
                         + [("pgn", False), ("gat", False), ("gatv2_full", False),
                            ("triplet_gmpnn", False)])
def test_dense_matches_clrs(kind: str, use_ln: bool) -> None:
    x = _inputs(1)
    params, (ref_hidden, ref_tri) = _converted(kind, x, use_ln)
    ours_init = _ours(kind, use_ln).init(jax.random.PRNGKey(0), x["node"], x["edge"], x["graph"],
                                         DenseGraph(x["adj"]), x["hidden"], x["mask"])
    shapes = jax.tree_util.tree_map(np.shape, ours_init)
    assert jax.tree_util.tree_map(np.shape, params) == shapes
    hidden, tri = _dense(kind, params, x, use_ln)
    assert hidden.shape == (B, N, H)
    assert np.abs(np.asarray(hidden) - np.asarray(ref_hidden)).max() <= TOL
    if PROCESSORS[kind].triplets:
        assert tri.shape == (B, N, N, H)
        assert np.abs(np.asarray(tri) - np.asarray(ref_tri)).max() <= TOL
    else:
        assert tri is None and ref_tri is None


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_other_reductions_match_clrs_pgn(reduction: str) -> None:
    x = _inputs(2)
    fn = {"mean": jnp.mean, "sum": jnp.sum}[reduction]
    ref = hk.transform(lambda *a: clrs_processors.PGN(H, msgs_mlp_sizes=[H, H], reduction=fn)(*a))
    args = (x["node"], x["edge"], x["graph"], x["adj"], x["hidden"])
    clrs_params = ref.init(jax.random.PRNGKey(3), *args)
    expected = ref.apply(clrs_params, None, *args)[0]
    params = processor_params_from_clrs(clrs_params, "pgn")
    ours = hk.without_apply_rng(hk.transform(lambda *a: processors.MessagePassing(
        H, reduction=reduction)(*a)))
    dense = ours.apply(params, x["node"], x["edge"], x["graph"], DenseGraph(x["adj"]),
                       x["hidden"], x["mask"])[0]
    assert np.abs(np.asarray(dense) - np.asarray(expected)).max() <= TOL
    graph = _slots_of(x["adj"], np.random.default_rng(0))
    sparse = ours.apply(params, x["node"], edges.gather_edges(x["edge"], graph), x["graph"],
                        graph, x["hidden"], x["mask"])[0]
    assert np.abs(np.asarray(sparse) - np.asarray(dense)).max() <= TOL


# ------------------------------------------------------------------ sparse = dense

@pytest.mark.parametrize("kind", SPARSE_KINDS)
def test_sparse_matches_dense(kind: str) -> None:
    x = _inputs(3)
    params = _clrs_params(kind)[1]
    rng = np.random.default_rng(4)
    graphs = [np.ones_like(x["adj"])]                  # the complete graph: every kind
    if PROCESSORS[kind].reads != "complete":
        graphs.append(x["adj"])                        # declared (and self) kinds: any graph
    for adj in graphs:
        xa = dict(x, adj=adj)
        dense = np.asarray(_dense(kind, params, xa)[0])
        sparse = np.asarray(_sparse(kind, params, xa, _slots_of(adj, rng))[0])
        assert np.abs(sparse - dense).max() <= TOL


@pytest.mark.parametrize("kind", [k for k, spec in PROCESSORS.items() if spec.triplets])
def test_triplets_refuse_a_sparse_graph(kind: str) -> None:
    x = _inputs(5)
    graph = _slots_of(x["adj"], np.random.default_rng(0))
    with pytest.raises(ValueError, match="dense only"):
        _ours(kind).init(jax.random.PRNGKey(0), x["node"], edges.gather_edges(x["edge"], graph),
                         x["graph"], graph, x["hidden"], x["mask"])


def test_empty_receiver_gets_dense_value() -> None:
    """A receiver without slots aggregates to dm-clrs's -1e6, as a dense row without neighbours."""
    x = _inputs(6)
    adj = x["adj"].copy()
    adj[:, :, 2] = 0.0                                   # node 2 receives nothing
    xa = dict(x, adj=adj)
    params = _clrs_params("pgn")[1]
    dense = np.asarray(_dense("pgn", params, xa)[0])
    sparse = np.asarray(_sparse("pgn", params, xa, _slots_of(adj, np.random.default_rng(1)))[0])
    assert np.abs(sparse - dense).max() <= TOL


# ------------------------------------------------------------------ padding nodes

def _padded(x: dict, extra: int) -> dict:
    """`x` with `extra` padding nodes holding noise, adjacent to everything."""
    n = x["node"].shape[1] + extra
    big = _inputs(99, n)
    out = dict(big)
    out["node"][:, :-extra] = x["node"]
    out["hidden"][:, :-extra] = x["hidden"]
    out["edge"][:, :-extra, :-extra] = x["edge"]
    out["graph"] = x["graph"]
    out["adj"] = np.ones((B, n, n), np.float32)
    out["adj"][:, :-extra, :-extra] = x["adj"]
    out["mask"] = np.concatenate([x["mask"], np.zeros((B, extra), np.float32)], axis=1)
    return out


# One kind per (family, graph read, gating, triplets) combination that differs in padding.
PADDING_KINDS = ["deepsets", "mpnn", "gpgn", "triplet_gmpnn", "triplet_pgn", "gat", "gatv2_full"]


@pytest.mark.parametrize("kind", PADDING_KINDS)
def test_padding_nodes_change_nothing(kind: str) -> None:
    x = _inputs(8, n=3)
    rng = np.random.default_rng(9)
    xp = _padded(x, 2)
    params = _clrs_params(kind)[1]
    real_hidden, real_tri = _dense(kind, params, x)
    hidden, tri = _dense(kind, params, xp)
    assert np.abs(np.asarray(hidden)[:, :3] - np.asarray(real_hidden)).max() <= TOL
    assert not np.asarray(hidden)[:, 3:].any()
    if real_tri is not None:
        assert np.abs(np.asarray(tri)[:, :3, :3] - np.asarray(real_tri)).max() <= TOL
    if kind in SPARSE_KINDS:
        adj = xp["adj"] if PROCESSORS[kind].reads != "complete" else np.ones_like(xp["adj"])
        sparse = np.asarray(_sparse(kind, params, dict(xp, adj=adj), _slots_of(adj, rng))[0])
        assert np.abs(sparse[:, :3] - np.asarray(real_hidden)).max() <= TOL
        assert not sparse[:, 3:].any()


# ------------------------------------------------------------------ memory

def _largest_intermediate(jaxpr: Any) -> int:
    largest = 0
    for eqn in jaxpr.eqns:
        for var in eqn.outvars:
            largest = max(largest, int(np.prod(var.aval.shape)) if var.aval.shape else 1)
        for param in eqn.params.values():
            subs = param if isinstance(param, (list, tuple)) else [param]
            for sub in subs:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    largest = max(largest, _largest_intermediate(inner))
    return largest


def test_sparse_processors_hold_no_dense_intermediate() -> None:
    """No intermediate of a sparse layer has B * N * N * H elements (a dense layer does)."""
    n = 8
    ring = np.zeros((B, n, n), np.float32)
    ring[:, np.arange(n), (np.arange(n) + 1) % n] = 1.0
    x = dict(_inputs(10, n), adj=ring)
    graph = edges.static_graph(B, n, edge_masks=[ring])
    edge_fts = jnp.zeros((B, graph.num_slots, H))
    dense_size = B * n * n * H
    assert B * graph.num_slots * H < dense_size
    key = jax.random.PRNGKey(0)
    for kind in SPARSE_KINDS:
        model = _ours(kind)
        params = jax.eval_shape(model.init, key, x["node"], edge_fts, x["graph"], graph,
                                x["hidden"], x["mask"])
        sparse = jax.make_jaxpr(lambda p, e, m=model: m.apply(
            p, x["node"], e, x["graph"], graph, x["hidden"], x["mask"]))(params, edge_fts)
        assert _largest_intermediate(sparse.jaxpr) < dense_size, kind
    model, dense_graph = _ours("pgn"), DenseGraph(ring)
    params = jax.eval_shape(model.init, key, x["node"], x["edge"], x["graph"], dense_graph,
                            x["hidden"], x["mask"])
    dense = jax.make_jaxpr(lambda p: model.apply(
        p, x["node"], x["edge"], x["graph"], dense_graph, x["hidden"], x["mask"]))(params)
    assert _largest_intermediate(dense.jaxpr) >= dense_size
