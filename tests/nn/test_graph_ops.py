"""Layers are written once against `GraphOps`; the layout and the device choices are
configuration, chosen once when a model is built."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from typing import NamedTuple

import haiku as hk
import jax
import numpy as np
import pytest

import algspec
from algspec.nn import edges, graph_ops, tuning
from algspec.nn.graph import DenseGraph
from algspec.nn.graph_ops import DenseOps, ops_for
from algspec.nn.model import Model
from algspec.nn.net import NetConfig
from algspec.nn.processors import MessagePassing, make_processor
from algspec.nn.tuning import DeviceChoices
from algspec.training.data import preprocess
from tests.support.small_programs import HINT_FREE_MAX

B, N, H = 2, 5, 8

TINY = HINT_FREE_MAX


def _inputs(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random((B, N, N)) < 0.3
    adj = (a | a.transpose(0, 2, 1) | np.eye(N, dtype=bool)).astype(np.float32)
    return {"node": rng.normal(size=(B, N, H)).astype(np.float32),
            "edge": rng.normal(size=(B, N, N, H)).astype(np.float32),
            "graph": rng.normal(size=(B, H)).astype(np.float32),
            "hidden": rng.normal(size=(B, N, H)).astype(np.float32),
            "adj": adj, "mask": np.ones((B, N), np.float32)}


class _OtherGraph(NamedTuple):
    """A graph type no layer knows: it only hands out dense ops."""

    inner: DenseGraph

    def ops(self, node_mask, reads: str = "declared") -> DenseOps:
        return ops_for(self.inner, node_mask, reads)


@pytest.mark.parametrize("kind", ["pgn", "gat", "gatv2_full", "triplet_mpnn"])
def test_a_processor_reads_its_graph_only_through_its_ops(kind: str) -> None:
    x = _inputs(0)
    f = hk.without_apply_rng(hk.transform(
        lambda *a: make_processor(kind, H, use_ln=True, nb_heads=2, nb_triplet_fts=2)(*a)))
    args = (x["node"], x["edge"], x["graph"])
    params = f.init(jax.random.PRNGKey(0), *args, DenseGraph(x["adj"]), x["hidden"], x["mask"])
    want = f.apply(params, *args, DenseGraph(x["adj"]), x["hidden"], x["mask"])
    got = f.apply(params, *args, _OtherGraph(DenseGraph(x["adj"])), x["hidden"], x["mask"])
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_other_reductions_sparse_equal_dense_on_a_complete_graph(reduction: str) -> None:
    x = _inputs(1)
    f = hk.without_apply_rng(hk.transform(
        lambda *a: MessagePassing(H, reads="complete", reduction=reduction)(*a)))
    full = np.ones((B, N, N), np.float32)
    params = f.init(jax.random.PRNGKey(1), x["node"], x["edge"], x["graph"], DenseGraph(full),
                    x["hidden"], x["mask"])
    dense = f.apply(params, x["node"], x["edge"], x["graph"], DenseGraph(full), x["hidden"],
                    x["mask"])[0]
    graph = edges.static_graph(B, N, [full])
    sparse = f.apply(params, x["node"], edges.gather_edges(x["edge"], graph), x["graph"], graph,
                     x["hidden"], x["mask"])[0]
    np.testing.assert_allclose(np.asarray(sparse), np.asarray(dense), atol=1e-5)


def test_layout_is_chosen_from_the_graph_flag() -> None:
    assert graph_ops.layout_of("dense").sparse is False
    assert graph_ops.layout_of("sparse").sparse is True
    with pytest.raises(ValueError, match="unknown graph layout 'csr'"):
        graph_ops.layout_of("csr")
    with pytest.raises(ValueError, match="needs the trajectory's edge list"):
        graph_ops.layout_of("sparse").step_graph([], None, np.ones((B, N), np.float32))


def test_unknown_reduction_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown reduction 'median'"):
        hk.transform(lambda: MessagePassing(H, reduction="median")).init(None)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, object]:
    path = Path(tmp_path_factory.mktemp("alg")) / "tiny.alg"
    path.write_text(TINY)
    alg = algspec.load(str(path))
    fb = alg.batch_sampler(length=4, num_samples=2, seed=0).next(2)
    return preprocess(fb, dict(alg.spec), pos_rng=None, pred_as_input=False)


def test_model_carries_its_layout_and_device_choices_in_its_config(tiny) -> None:
    spec, fb = tiny
    chosen = DeviceChoices(skip_padded_steps=False, unroll_sinkhorn=True)
    model = Model(spec, fb, NetConfig(hidden=8, processor="mpnn", graph="sparse", device=chosen))
    assert model.sparse and model.net_config.graph == "sparse"
    assert model.net_config.device == chosen
    default = Model(spec, fb, NetConfig(hidden=8, processor="mpnn"), sparse=True)
    assert default.net_config.graph == "sparse"
    assert default.net_config.device == DeviceChoices.for_device()
    with pytest.raises(dataclasses.FrozenInstanceError):
        chosen.skip_padded_steps = True  # type: ignore[misc]


def test_deprecated_tuning_global_warns_and_reaches_only_later_models(tiny) -> None:
    spec, fb = tiny
    net = NetConfig(hidden=8, processor="mpnn")
    before = Model(spec, fb, net)
    flipped = not before.net_config.device.skip_padded_steps
    try:
        with pytest.warns(DeprecationWarning, match="SKIP_PADDED_STEPS is deprecated"):
            tuning.SKIP_PADDED_STEPS = flipped
        assert tuning.SKIP_PADDED_STEPS is flipped
        after = Model(spec, fb, net)
        assert after.net_config.device.skip_padded_steps is flipped
        assert before.net_config.device.skip_padded_steps is not flipped
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            tuning.SKIP_PADDED_STEPS = None
    assert Model(spec, fb, net).net_config.device == DeviceChoices.for_device()
