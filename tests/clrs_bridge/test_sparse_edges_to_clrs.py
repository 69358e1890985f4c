"""Edge data held as edge lists (`edges="sparse"`) reach dm-clrs dense: `to_clrs` and
`AlgspecSampler` give the very Feedback of the dense sampler."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

clrs = pytest.importorskip("clrs")

import algspec
from algspec.clrs_bridge import AlgspecSampler, to_feedback
from algspec.compiled import load_source
from algspec.edge_lists import EdgeLists
from algspec.feedback import to_clrs
from algspec.sampling import BatchSampler
from tests.support.small_programs import EDGE_FLOW

ROOT = Path(__file__).resolve().parents[2]


def _points(fb):
    return [*fb.features.inputs, *fb.features.hints, *fb.outputs]


def _same_clrs(a, b) -> None:
    assert isinstance(a, clrs.Feedback) and isinstance(b, clrs.Feedback)
    for p, q in zip(_points(a), _points(b), strict=True):
        assert isinstance(p, clrs.DataPoint) and isinstance(p.data, np.ndarray), p.name
        assert (p.name, p.location, p.type_) == (q.name, q.location, q.type_)
        assert p.data.dtype == q.data.dtype and p.data.shape == q.data.shape, p.name
        assert p.data.tobytes() == q.data.tobytes(), p.name
    assert np.asarray(a.features.lengths).tobytes() == np.asarray(b.features.lengths).tobytes()


def _alg(which: str):
    if which == "edge_flow":
        return load_source(EDGE_FLOW, "edge_flow.alg")
    return algspec.load(ROOT / which)


@pytest.mark.parametrize("which", ["algorithms/salsa/bfs.alg",
                                   "algorithms/parallel/boruvka.alg", "edge_flow"])
def test_to_clrs_of_a_sparse_batch_is_to_clrs_of_the_dense_batch(which: str) -> None:
    alg = _alg(which)
    sparse = BatchSampler(alg, alg.spec, 8, seed=3, length=8, edges="sparse").next(5)
    dense = BatchSampler(alg, alg.spec, 8, seed=3, length=8).next(5)
    assert any(isinstance(p.data, EdgeLists) for p in _points(sparse))
    _same_clrs(to_clrs(sparse), to_clrs(dense))
    traj = alg.sample(8, 4, 1, edges="sparse")
    _same_clrs(to_feedback(traj), to_feedback(alg.sample(8, 4, 1)))


def test_the_clrs_sampler_densifies_sparse_sets() -> None:
    alg = _alg("edge_flow")
    for num in (6, -1):
        a = AlgspecSampler(alg, alg.spec, num, seed=2, length=7, probe_samples=4,
                           edges="sparse")
        b = AlgspecSampler(alg, alg.spec, num, seed=2, length=7, probe_samples=4)
        _same_clrs(a.next(4), b.next(4))
    assert isinstance(a, clrs.Sampler)
