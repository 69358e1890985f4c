"""`processor_params_from_clrs`: a dm-clrs `BaselineModel`'s processor parameters as ours.

The model is a real `clrs.models.BaselineModel` (its parameter paths are
`net/<kind>_aggr_clrs_processor/...`); the converted parameters must drive our
processor to the numbers dm-clrs's processor gives with the model's parameters.
"""

from __future__ import annotations

import haiku as hk
import jax
import numpy as np
import pytest

from algspec.nn.graph import DenseGraph
from algspec.nn.processors import clrs_processor_names, make_processor, processor_params_from_clrs

clrs = pytest.importorskip("clrs")

B, N, H, TRIPLET_FTS = 2, 5, 8, 4


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    a = rng.random((B, N, N)) < 0.3
    return {"node": rng.normal(size=(B, N, H)).astype(np.float32),
            "edge": rng.normal(size=(B, N, N, H)).astype(np.float32),
            "graph": rng.normal(size=(B, H)).astype(np.float32),
            "hidden": rng.normal(size=(B, N, H)).astype(np.float32),
            "adj": (a | a.transpose(0, 2, 1) | np.eye(N, dtype=bool)).astype(np.float32)}


def test_baseline_model_parameters_convert() -> None:
    kind = "triplet_gmpnn"
    sampler, spec = clrs.build_sampler("bfs", num_samples=2, length=4, seed=0)
    feedback = sampler.next(2)
    factory = clrs.get_processor_factory(kind, use_ln=True, nb_triplet_fts=TRIPLET_FTS)
    model = clrs.models.BaselineModel(spec=spec, dummy_trajectory=feedback,
                                      processor_factory=factory, hidden_dim=H)
    model.init(feedback.features, seed=0)

    params = processor_params_from_clrs(model.params, kind, prefix="net/processor")
    clrs_local = {k.split("/", 1)[1]: v for k, v in model.params.items()
                  if "_clrs_processor/" in k}
    assert len(params) == len(clrs_local) == len(clrs_processor_names(kind))
    assert all(k.startswith("net/processor/") for k in params)

    x = _inputs()
    reference = hk.transform(lambda *a: factory(H)(*a))
    want = reference.apply(clrs_local, None, x["node"], x["edge"], x["graph"], x["adj"],
                           x["hidden"])
    ours = hk.without_apply_rng(hk.transform(lambda *a: make_processor(
        kind, H, use_ln=True, nb_triplet_fts=TRIPLET_FTS)(*a)))
    local = {k.removeprefix("net/"): v for k, v in params.items()}
    init = ours.init(jax.random.PRNGKey(0), x["node"], x["edge"], x["graph"],
                     DenseGraph(x["adj"]), x["hidden"], np.ones((B, N), np.float32))
    assert jax.tree_util.tree_map(np.shape, local) == jax.tree_util.tree_map(np.shape, init)
    got = ours.apply(local, x["node"], x["edge"], x["graph"], DenseGraph(x["adj"]),
                     x["hidden"], np.ones((B, N), np.float32))
    for g, w in zip(got, want, strict=True):
        assert np.abs(np.asarray(g) - np.asarray(w)).max() <= 1e-5


def test_names_follow_dm_clrs_creation_order() -> None:
    """dm-clrs numbers its linears by creation: gates come after the triplet layers."""
    assert clrs_processor_names("gmpnn")["linear_6"] == "gate_node"
    assert clrs_processor_names("triplet_gmpnn")["linear_14"] == "gate_node"
    assert clrs_processor_names("triplet_mpnn")["linear_13"] == "tri_out"
    assert clrs_processor_names("gatv2", nb_heads=3)["linear_8"] == "score_2"


def test_unknown_processor_parameter_is_refused() -> None:
    params = {"net/mpnn_aggr_clrs_processor/linear_99": {"w": np.zeros((2, 2))},
              "net/algo_0_pos_enc_linear": {"w": np.zeros((1, 2))}}
    with pytest.raises(ValueError, match="no counterpart"):
        processor_params_from_clrs(params, "mpnn")
    assert processor_params_from_clrs({"net/other": {}}, "mpnn") == {}
