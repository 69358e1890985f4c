"""algspec.nn.losses against dm-clrs's `output_loss` and `hint_loss`; sparse and padded forms."""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from algspec.nn import losses, slots
from algspec.nn.data import DataPoint
from tests.support.nn_parity_helpers import (
    TOL,
    B,
    C,
    N,
    adjacency,
    ones_mask,
    padded_mask,
    sparse_of,
)

clrs_losses = pytest.importorskip("clrs._src.losses")
probing = pytest.importorskip("clrs._src.probing")

# Jitted once per file: each (location, type, shape) compiles one program, not one per op.
output_loss = jax.jit(losses.output_loss)
hint_loss = jax.jit(losses.hint_loss)
clrs_output_loss = jax.jit(clrs_losses.output_loss, static_argnums=2)
clrs_hint_loss = jax.jit(clrs_losses.hint_loss, static_argnums=3)

T = 4
LENGTHS = np.array([4, 2], np.float32)
TYPES = ("scalar", "mask", "mask_one", "categorical", "pointer")
CASES = [(loc, t) for loc in ("node", "edge", "graph") for t in TYPES] + [
    ("node", "permutation_pointer")]


def seed(*key) -> np.random.RandomState:
    return np.random.RandomState(zlib.crc32(repr(key).encode()))


def location_shape(loc: str, n: int) -> tuple[int, ...]:
    return {"node": (n,), "edge": (n, n), "graph": ()}[loc]


def truth_of(loc: str, t: str, rng, lead: tuple[int, ...], n: int = N) -> np.ndarray:
    """Random truth with some MASKED (-1) entries where dm-clrs allows them."""
    shape = lead + location_shape(loc, n)
    if t == "scalar":
        return rng.randn(*shape).astype(np.float32)
    if t == "mask":
        return rng.choice([0.0, 1.0, -1.0], shape).astype(np.float32)
    if t == "mask_one":
        if loc == "node":
            return np.eye(n, dtype=np.float32)[rng.randint(0, n, lead)]
        return rng.choice([0.0, 1.0], shape, p=[0.7, 0.3]).astype(np.float32)
    if t == "categorical":
        data = np.eye(C, dtype=np.float32)[rng.randint(0, C, shape)]
        return np.where(rng.rand(*shape, 1) < 0.2, -1.0, data).astype(np.float32)
    if t == "pointer":
        return np.where(rng.rand(*shape) < 0.15, -1, rng.randint(0, n, shape)).astype(np.float32)
    return np.stack([np.eye(n, dtype=np.float32)[rng.permutation(n)]
                     for _ in range(int(np.prod(lead)))]).reshape(lead + (n, n))


def pred_of(loc: str, t: str, rng, lead: tuple[int, ...], n: int = N) -> np.ndarray:
    shape = lead + location_shape(loc, n)
    if t == "categorical":
        shape += (C,)
    elif t in ("pointer", "permutation_pointer"):
        shape += (n,)
    pred = rng.randn(*shape).astype(np.float32) * 2
    if t == "permutation_pointer":  # log-probabilities, as the decoder gives them
        pred = np.asarray(jax.nn.log_softmax(pred, axis=-1))
    return pred


def clrs_point(name, loc, t, data):
    return probing.DataPoint(name=name, location=loc, type_=t, data=jnp.asarray(data))


@pytest.mark.parametrize("loc,t", CASES)
def test_output_loss_equals_dm_clrs(loc, t):
    rng = seed("out", loc, t)
    truth, pred = truth_of(loc, t, rng, (B,)), pred_of(loc, t, rng, (B,))
    want = clrs_output_loss(clrs_point("x", loc, t, truth), jnp.asarray(pred), N)
    got = output_loss(DataPoint("x", loc, t, truth), jnp.asarray(pred), ones_mask())
    assert np.isfinite(float(want))
    assert abs(float(got) - float(want)) <= TOL * max(1.0, abs(float(want)))


@pytest.mark.parametrize("loc,t", CASES)
def test_hint_loss_equals_dm_clrs(loc, t):
    rng = seed("hint", loc, t)
    truth, pred = truth_of(loc, t, rng, (T, B)), pred_of(loc, t, rng, (T - 1, B))
    want = clrs_hint_loss(clrs_point("x", loc, t, truth), list(jnp.asarray(pred)),
                                 jnp.asarray(LENGTHS), N)
    got = hint_loss(DataPoint("x", loc, t, truth), jnp.asarray(pred), LENGTHS,
                           ones_mask())
    assert abs(float(got) - float(want)) <= TOL * max(1.0, abs(float(want)))


def test_hint_loss_ignores_frames_after_the_length():
    rng = seed("length")
    truth, pred = truth_of("node", "scalar", rng, (T, B)), pred_of("node", "scalar", rng,
                                                                    (T - 1, B))
    base = hint_loss(DataPoint("x", "node", "scalar", truth), pred, LENGTHS, ones_mask())
    late = pred.copy()
    late[1:, 1] += 100.0  # sample 1 has length 2: only frame 1 (prediction 0) counts
    moved = hint_loss(DataPoint("x", "node", "scalar", truth), late, LENGTHS,
                             ones_mask())
    assert float(moved) == pytest.approx(float(base), abs=1e-6)
    late[0, 1] += 1.0
    assert float(hint_loss(DataPoint("x", "node", "scalar", truth), late, LENGTHS,
                                  ones_mask())) > float(base)


def sparse_form(loc: str, t: str, truth, pred, graph, time: bool):
    """Truth and predictions as a sparse model has them (time-major when `time`)."""
    def at(x, transpose=False):
        x = jnp.asarray(x)
        if time:
            return jax.vmap(lambda y: slots.at_slots(y, graph, transpose=transpose))(x)
        return slots.at_slots(x, graph, transpose=transpose)

    if loc == "edge":
        return at(truth), at(pred)
    if loc == "node" and t in ("pointer", "permutation_pointer"):
        return truth, at(pred, transpose=True)
    return truth, pred


def restricted(loc: str, t: str, truth: np.ndarray, pred: np.ndarray, adj: np.ndarray,
               time: bool):
    """The dense problem a partial edge list poses: pairs off the list are not scored."""
    pairs = adj[None] if time else adj
    if loc == "edge" and t == "mask":
        return np.where(pairs > 0, truth, -1.0), pred
    if loc == "edge" and t == "mask_one":
        return truth * pairs, np.where(pairs > 0, pred, slots.ABSENT)
    if loc == "node" and t == "pointer":
        return truth, np.where(pairs > 0, pred, slots.ABSENT)
    return truth, pred


def neighbour_pointers(adj: np.ndarray, rng, lead: tuple[int, ...]) -> np.ndarray:
    """Pointers `lead + [N]` from each node to one of its neighbours in `adj` `[B, N, N]`."""
    out = np.zeros(lead + (N,), np.float32)
    for idx in np.ndindex(*lead):
        for i in range(N):
            out[idx + (i,)] = rng.choice(np.flatnonzero(adj[idx[-1], i]))
    return out


@pytest.mark.parametrize("stage", ["output", "hint"])
@pytest.mark.parametrize("loc,t", [c for c in CASES if c[0] != "graph"])
def test_sparse_equals_dense(loc, t, stage):
    rng = seed("sparse", loc, t, stage)
    partial = (loc, t) in {("edge", "mask"), ("edge", "mask_one"), ("node", "pointer"),
                           ("node", "scalar"), ("node", "categorical")}
    adj = adjacency(rng, complete=not partial)
    graph = sparse_of(adj, rng)
    time = stage == "hint"
    lead = (T, B) if time else (B,)
    truth = truth_of(loc, t, rng, lead)
    if loc == "node" and t == "pointer":
        truth = neighbour_pointers(adj, rng, lead)
    pred = pred_of(loc, t, rng, (T - 1, B) if time else (B,))
    dense_truth, dense_pred = restricted(loc, t, truth, pred, adj, time)
    sparse_truth, sparse_pred = sparse_form(loc, t, truth, pred, graph, time)
    if time:
        want = hint_loss(DataPoint("x", loc, t, dense_truth), dense_pred, LENGTHS,
                                ones_mask())
        got = hint_loss(DataPoint("x", loc, t, sparse_truth), sparse_pred, LENGTHS,
                               ones_mask(), graph)
    else:
        want = output_loss(DataPoint("x", loc, t, dense_truth), dense_pred, ones_mask())
        got = output_loss(DataPoint("x", loc, t, sparse_truth), sparse_pred, ones_mask(),
                                 graph)
    assert abs(float(got) - float(want)) <= TOL * max(1.0, abs(float(want)))


def grow(x: np.ndarray, axes: tuple[int, ...], extra: int, fill) -> np.ndarray:
    for axis in axes:
        width = [(0, 0)] * x.ndim
        width[axis] = (0, extra)
        x = np.pad(x, width, mode="constant", constant_values=0)
        index = [slice(None)] * x.ndim
        index[axis] = slice(x.shape[axis] - extra, None)
        x[tuple(index)] = fill(x[tuple(index)].shape)
    return x


@pytest.mark.parametrize("stage", ["output", "hint"])
@pytest.mark.parametrize("loc,t", CASES)
def test_padding_nodes_change_nothing(loc, t, stage):
    rng = seed("pad", loc, t, stage)
    extra = 2
    time = stage == "hint"
    lead = (T, B) if time else (B,)
    plead = (T - 1, B) if time else (B,)
    truth, pred = truth_of(loc, t, rng, lead), pred_of(loc, t, rng, plead)
    first = len(lead)
    axes = tuple(range(first, first + len(location_shape(loc, N))))
    junk_truth = truth_of(loc, t, rng, lead, N + extra)  # any values of the type
    big_truth = grow(truth, axes, extra, lambda s: junk_truth[tuple(slice(0, k) for k in s)])
    if t == "permutation_pointer":  # rows of real nodes: no mass on padding columns
        big_truth = grow(big_truth, (big_truth.ndim - 1,), extra, np.zeros)
    big_pred = grow(pred, tuple(range(len(plead), len(plead) + len(axes))), extra,
                    lambda s: rng.randn(*s) * 3)
    if t in ("pointer", "permutation_pointer"):
        big_pred = grow(big_pred, (big_pred.ndim - 1,), extra, lambda s: rng.randn(*s) + 5)
    mask = padded_mask(B, N, extra)
    if time:
        want = hint_loss(DataPoint("x", loc, t, truth), pred, LENGTHS, ones_mask())
        got = hint_loss(DataPoint("x", loc, t, big_truth), big_pred, LENGTHS, mask)
    else:
        want = output_loss(DataPoint("x", loc, t, truth), pred, ones_mask())
        got = output_loss(DataPoint("x", loc, t, big_truth), big_pred, mask)
    assert abs(float(got) - float(want)) <= TOL * max(1.0, abs(float(want)))


def test_sparse_pointer_target_off_the_list_scores_nothing():
    rng = seed("off")
    adj = adjacency(rng, p=0.0)  # self-loops only
    graph = sparse_of(adj, rng)
    truth = np.tile((np.arange(N) + 1) % N, (B, 1)).astype(np.float32)  # never a neighbour
    pred = slots.at_slots(jnp.asarray(pred_of("node", "pointer", rng, (B,))), graph,
                          transpose=True)
    got = output_loss(DataPoint("x", "node", "pointer", truth), pred, ones_mask(), graph)
    assert float(got) == 0.0
