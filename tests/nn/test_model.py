"""algspec's model: padding changes nothing, and sparse equals dense where the graph is
complete, on whole trajectories (predictions and training loss)."""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest

import algspec
from algspec.nn.model import Model, _device
from algspec.nn.net import NetConfig
from algspec.training.data import preprocess

ROOT = Path(__file__).resolve().parents[2]


def _batch(path: Path, n: int, seed: int = 3):
    alg = algspec.load(str(path))
    fb = alg.batch_sampler(length=n, num_samples=3, seed=seed).next(3)
    return preprocess(fb, dict(alg.spec), pos_rng=None, pred_as_input=False)


def _predict_and_loss(model: Model, fb) -> tuple[dict, float]:
    key = jax.random.PRNGKey(1)
    preds, _ = model.predict(key, fb.features)
    f, o, node_mask, graph = _device(model.prepare(fb.features, fb.outputs))
    loss = jax.jit(model.loss)(model.params, key, f, o, node_mask, graph)
    return {k: np.asarray(v.data) for k, v in preds.items()}, float(loss)


def _assert_same(model: Model, reference: Model, fb, *, rel: float) -> None:
    """`model`, given `reference`'s parameters, predicts and scores `fb` as it does."""
    model.params = reference.params
    want, want_loss = _predict_and_loss(reference, fb)
    got, got_loss = _predict_and_loss(model, fb)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], atol=1e-5, err_msg=name)
    assert got_loss == pytest.approx(want_loss, rel=rel)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_padding_nodes_changes_no_prediction_and_no_loss(sparse: bool) -> None:
    spec, fb = _batch(ROOT / "algorithms" / "parallel" / "bfs_sync.alg", 5)
    net = NetConfig(hidden=8, processor="pgn")
    plain = Model(spec, fb, net, sparse=sparse)
    plain.init(fb, 0)
    _assert_same(Model(spec, fb, net, sparse=sparse, pad_nodes=8), plain, fb, rel=1e-5)


def test_sparse_equals_dense_on_a_complete_graph() -> None:
    # (Not oets: a permutation pointer's training loss adds Gumbel noise, drawn per
    # array entry, so its draws differ between the N x N and the edge-list layout.)
    spec, fb = _batch(ROOT / "algorithms" / "binary_search.alg", 5)
    net = NetConfig(hidden=8, processor="mpnn")
    dense = Model(spec, fb, net)
    dense.init(fb, 0)
    _assert_same(Model(spec, fb, net, sparse=True), dense, fb, rel=1e-4)


def test_a_training_step_lowers_the_loss_on_its_batch() -> None:
    spec, fb = _batch(ROOT / "algorithms" / "parallel" / "prefix_sums.alg", 6)
    model = Model(spec, fb, NetConfig(hidden=16, processor="mpnn"), sparse=True,
                  learning_rate=3e-3)
    model.init(fb, 0)
    key = jax.random.PRNGKey(0)
    first = float(model.feedback(key, fb))
    for _ in range(15):
        last = float(model.feedback(key, fb))
    assert np.isfinite(first) and last < first
