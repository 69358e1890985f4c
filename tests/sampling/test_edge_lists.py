"""Edge data held at the edges (`algspec.edge_lists`) densify to the same bytes, and batch
operations on them (take, concat, frame padding) agree with the same operations on the
dense arrays."""

from __future__ import annotations

import numpy as np
import pytest

from algspec.edge_lists import EdgeGraph, EdgeLists, densified


def _batch(seed: int, B: int = 4, N: int = 7, T: int | None = None, tail: tuple = ()):
    rng = np.random.default_rng(seed)
    mask = rng.random((B, N, N)) < 0.3
    mask[0] = False  # a sample without edges
    lead = (T,) if T else ()
    dense = rng.standard_normal(lead + (B, N, N) + tail).astype(np.float32)
    dense = np.where(mask.reshape(mask.shape + (1,) * len(tail)), dense, np.float32(0))
    return mask, dense


@pytest.mark.parametrize("frames", [False, True])
@pytest.mark.parametrize("tail", [(), (3,)])
def test_from_dense_round_trips_the_same_bytes(frames, tail):
    mask, dense = _batch(0, T=5 if frames else None, tail=tail)
    g = EdgeGraph.from_mask(mask)
    x = EdgeLists.from_dense(dense, g, frames=frames)
    assert x is not None
    assert x.shape == dense.shape and x.dtype == dense.dtype and x.ndim == dense.ndim
    assert np.asarray(x).tobytes() == dense.tobytes()
    assert densified(x).tobytes() == dense.tobytes()
    assert x.values.shape[1 if frames else 0] == int(mask.sum())


def test_data_not_zero_off_the_edges_stay_dense():
    mask, dense = _batch(1)
    g = EdgeGraph.from_mask(mask)
    off = dense.copy()
    off[1][~mask[1]] = 1.0
    assert EdgeLists.from_dense(off, g) is None
    neg = dense.copy()
    neg[2][~mask[2]] = -0.0  # compares equal to 0, but its bytes differ
    assert EdgeLists.from_dense(neg, g) is None


def test_take_and_concat_match_the_dense_batch_operations():
    mask, dense = _batch(2, B=5, T=3)
    g = EdgeGraph.from_mask(mask)
    x = EdgeLists.from_dense(dense, g, frames=True)
    idx = np.array([4, 0, 4, 2])
    assert np.array_equal(np.asarray(x.take(idx)), dense[:, idx])
    mask2, dense2 = _batch(3, B=2, T=6)
    y = EdgeLists.from_dense(dense2, EdgeGraph.from_mask(mask2), frames=True)
    both = EdgeLists.concat([x, y])
    pad = np.zeros((6,) + dense.shape[1:], dense.dtype)
    pad[:3] = dense
    assert np.array_equal(np.asarray(both), np.concatenate([pad, dense2], axis=1))
    assert np.array_equal(np.asarray(x.with_steps(2)), dense[:2])


def test_from_edges_sorts_and_dedups_like_a_mask():
    sample = np.array([1, 0, 1, 1, 0])
    s = np.array([2, 1, 0, 2, 1])
    r = np.array([0, 2, 1, 0, 0])
    g = EdgeGraph.from_edges(3, sample, s, r, batch=3)
    mask = np.zeros((3, 3, 3), bool)
    mask[sample, s, r] = True
    want = EdgeGraph.from_mask(mask)
    assert g.same_as(want)
    assert list(g.counts) == [2, 2, 0]


def test_a_malformed_graph_is_refused():
    with pytest.raises(ValueError):
        EdgeGraph(3, np.array([0, 2]), np.array([0]), np.array([1]))
    g = EdgeGraph(3, np.array([0, 1]), np.array([0]), np.array([1]))
    with pytest.raises(ValueError):
        EdgeLists(g, np.zeros(2))
