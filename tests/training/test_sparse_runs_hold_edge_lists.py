"""A sparse run (`--graph sparse`) holds its data sets' edge data as edge lists (`EdgeLists`,
O(m) per datum), the out-of-distribution test sets and their shared cache too, and scores
them exactly as their dense arrays: splitting, padding, edge counts and mask F1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.training import ood
from algspec.training.config import TrainConfig
from algspec.training.data import batches, pad_time, resolve_source
from algspec.training.metrics import Tally, counts_for
from algspec.training.trainer import fixed_test_set
from tests.nn.test_prepared_from_edge_lists import FRONTIER_EDGES

EDGE_DATA = {"A", "adj", "used_h", "w_h", "used"}


@pytest.fixture(scope="module")
def frontier_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("alg") / "frontier_edges.alg"
    path.write_text(FRONTIER_EDGES)
    return str(path)


def _config(path: str, graph: str) -> TrainConfig:
    return TrainConfig(algorithm=path, seed=5, backend="algspec", graph=graph)


def _points(fb: Any) -> list[Any]:
    return [*fb.features.inputs, *fb.features.hints, *fb.outputs]


def _assert_same_dense(a: Any, b: Any) -> None:
    for x, y in zip(_points(a), _points(b), strict=True):
        assert x.name == y.name and np.asarray(x.data).dtype == np.asarray(y.data).dtype
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data), err_msg=x.name)
    np.testing.assert_array_equal(a.features.lengths, b.features.lengths)


@pytest.fixture(scope="module")
def test_sets(frontier_file: str) -> tuple[Any, Any]:
    """(dense run's, sparse run's) test set of the same samples at n = 24."""
    source = resolve_source(frontier_file)
    _, dense = fixed_test_set(source, _config(frontier_file, "dense"), 24, 6)
    _, sparse = fixed_test_set(source, _config(frontier_file, "sparse"), 24, 6)
    return dense, sparse


def test_a_sparse_runs_test_set_holds_edge_lists_of_the_same_samples(
        test_sets: tuple[Any, Any]) -> None:
    dense, sparse = test_sets
    assert {dp.name for dp in _points(sparse) if isinstance(dp.data, EdgeLists)} == EDGE_DATA
    assert not any(isinstance(dp.data, EdgeLists) for dp in _points(dense))
    _assert_same_dense(dense, sparse)
    assert ood._nbytes(sparse) < 0.6 * ood._nbytes(dense)  # p = 0.3: a dense-ish graph
    assert ood._mean_edges(sparse) == ood._mean_edges(dense) > 0


def test_edge_list_sets_split_and_pad_as_their_dense_arrays(
        test_sets: tuple[Any, Any]) -> None:
    dense, sparse = test_sets
    for a, b in zip(batches(dense, 4), batches(sparse, 4), strict=True):
        _assert_same_dense(a, b)
        graphs = {id(dp.data.graph) for dp in _points(b) if isinstance(dp.data, EdgeLists)}
        assert len(graphs) == 1  # one cut graph shared by the batch's edge data
    padded = pad_time(sparse, 32)
    assert isinstance(padded.features.hints[1].data, EdgeLists)
    _assert_same_dense(pad_time(dense, 32), padded)


def test_mask_f1_of_edge_lists_is_that_of_their_dense_arrays() -> None:
    rng = np.random.default_rng(0)
    batch, n = 3, 9
    graph = EdgeGraph.from_mask(rng.random((batch, n, n)) < 0.3)
    values = rng.choice([0.0, 1.0, -1.0], size=graph.num_edges, p=[0.5, 0.4, 0.1])
    truth = EdgeLists(graph, values.astype(np.float32))
    pred = (rng.random((batch, n, n)) < 0.2).astype(np.float32)  # positives off the edges too
    want = counts_for("mask", pred, truth.dense())
    got = counts_for("mask", pred, truth)
    assert (got.tp, got.fp, got.fn) == (want.tp, want.fp, want.fn)
    assert want.fp > 0 and want.tp > 0 and want.fn > 0
    from algspec.feedback import DataPoint

    tallies = []
    for data in (truth.dense(), truth):
        tally = Tally()
        tally.add([DataPoint("m", "edge", "mask", data)],
                  {"m": DataPoint("m", "edge", "mask", pred)})
        tallies.append(tally.summary())
    assert tallies[0] == tallies[1]


def test_an_ood_cell_of_a_sparse_run_tests_and_keeps_edge_lists(
        frontier_file: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cell's test set (and what the shared cache keeps of it) holds edge lists; a
    dense run of the same file is not handed the sparse run's cached set."""
    from algspec.training import backends, trainer
    from algspec.training.runs import DeferredInterrupt

    tested: list[Any] = []

    def evaluate(model: Any, test_set: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        tested.append(test_set)
        return {"score": 1.0, "metric": "micro_f1", "mse": None, "per_output": {},
                "per_output_metric": {}}

    monkeypatch.setattr(trainer, "evaluate", evaluate)
    monkeypatch.setattr(backends, "get_backend", lambda name: type(
        "Restoring", (), {"restore": staticmethod(lambda *a: None)})())
    config = _config(frontier_file, "sparse")
    spec, _ = fixed_test_set(resolve_source(frontier_file), config, 8, 2)
    ckpt = {"spec": spec, "params": None, "source_path": frontier_file}
    shared: dict[tuple, tuple] = {}
    cell = ood.Cell(ood.TRAINED, 30, 4)
    rec = ood.test_cell(tmp_path, ckpt, config, cell, 2, progress=False,
                        guard=DeferredInterrupt("x"), shared=shared)
    (test_set,) = tested
    assert {dp.name for dp in _points(test_set) if isinstance(dp.data, EdgeLists)} == EDGE_DATA
    (kept,) = shared.values()
    assert kept[1] is test_set and rec["mean_edges"] > 0
    dense_key = ood._test_set_key(_config(frontier_file, "dense"), frontier_file, cell)
    assert dense_key not in shared
