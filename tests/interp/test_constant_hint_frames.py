"""A hint that is a view of inputs alone is evaluated once and laid out as frames: zero
after each sample's end (as dm-clrs pads), a broadcast view when no sample ends early."""

from __future__ import annotations

import numpy as np

import algspec
from algspec.interp.recording import _constant_frames

VARYING = """
algorithm walk
nodes n
graph complete
input node x: scalar ~ uniform()
input edge w[u, v]: scalar = 1.0 / (x[u] - x[v]) if u != v else inf
hint edge wh: scalar = w        # constant: a view of inputs alone
hint graph i: scalar = float(k)
output graph steps: scalar = float(k)
state graph k: int = 0
record
while x[k] < 0.7 and k < n - 1 bound n { k += 1; record }
"""


def test_varying_lengths_pad_with_zeros_and_keep_inf():
    alg = algspec.load_source(VARYING)
    traj = alg.sample(6, 32, seed=1)
    L = traj.lengths.astype(int)
    assert len(set(L.tolist())) > 1
    wh = traj.hints["wh"]
    w = traj.inputs["w"]
    for b in range(32):
        assert np.array_equal(wh[:L[b], b], np.broadcast_to(w[b], (L[b],) + w[b].shape))
        assert (wh[L[b]:, b] == 0).all()
    assert np.isinf(wh[0, 0].diagonal()).all()


def test_equal_lengths_share_one_copy():
    v0 = np.arange(12, dtype=np.float32).reshape(3, 4)
    frames = _constant_frames(v0, np.ones((5, 3), bool), np.float32)
    assert frames.shape == (5, 3, 4) and frames.strides[0] == 0
    assert np.array_equal(frames[4], v0) and not frames.flags.writeable
    padded = _constant_frames(v0, np.arange(5)[:, None] < np.array([5, 2, 0])[None], np.float32)
    assert padded.strides[0] != 0
    assert np.array_equal(padded[:, 0], np.broadcast_to(v0[0], (5, 4)))
    assert (padded[2:, 1] == 0).all() and (padded[:, 2] == 0).all()


def test_a_fixed_length_feedback_with_a_constant_hint_batches():
    alg = algspec.load("algorithms/clrs/optimal_bst.alg")  # pred_h: a constant view
    traj = alg.sample(5, 8, seed=0)
    assert len(set(traj.lengths.tolist())) == 1
    assert traj.hints["pred_h"].strides[0] == 0
    fb = alg.sampler(length=5, num_samples=8, seed=0).next(4) if _has_clrs() else None
    if fb is not None:
        h = next(d for d in fb.features.hints if d.name == "pred_h")
        assert np.array_equal(h.data[0], h.data[-1])


def _has_clrs() -> bool:
    try:
        import clrs  # noqa: F401
    except ImportError:
        return False
    return True
