"""Losses: each output's loss, and each hint's over a trajectory, as dm-clrs computes them.

Per type (elementwise, then normalised):

- scalar: squared error, mean;
- mask: binary cross-entropy on logits, over entries whose truth is not MASKED (-1);
- mask_one, categorical: cross-entropy. An output's sum is divided by the number
  of positive truth entries, and MASKED entries of the truth count as 0; a hint
  is normalised per row (mask_one), or over rows with a positive entry
  (categorical), as dm-clrs does;
- pointer: cross-entropy against the one-hot truth (a MASKED pointer scores 0 but
  still counts in the mean, as in dm-clrs);
- permutation pointer: `-sum(truth * log_probs)` per row, mean.

Hints: predictions `[T-1, B, ...]` score truth frames `1..T-1`; frame t+1 of
sample b counts while `t + 1 < lengths[b]`; the loss is the masked sum over the
mask's sum (at least 1e-12).

Padding nodes (`node_mask` 0) count nowhere: not as rows, not as pointer targets
or mask_one candidates (their logits are pushed to `slots.ABSENT`), not in means.

Sparse graphs (rule in `algspec.nn.slots`): edge-located truth arrives gathered,
`[B, E, ...]`, and is scored on the live slots only. A node pointer's truth stays
indices `[B, N]`; its logits `[B, E]` are normalised per receiver and the truth
picks the slot `(truth[r], r)`: a target that is not a neighbour in the edge list
scores 0 (it cannot be predicted). A permutation pointer's truth is `[B, N, N]`
(or `[B, E]` in decoder orientation). With every pair a slot, sparse equals dense.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from algspec.nn import edges
from algspec.nn.data import DataPoint
from algspec.nn.graph import Array, DenseGraph, Graph
from algspec.nn.graph_ops import GraphOps, mask_last_axis, ops_for
from algspec.nn.types import MASKED, Location, Type

EPS = 1e-12


def _ops(graph: Graph | None, node_mask: Array) -> GraphOps:
    """The pair operations of `graph`; no graph is the dense layout over the real nodes."""
    if graph is None:
        graph = DenseGraph(edges.pair_mask(node_mask))
    return ops_for(graph, node_mask)


def _valid(location: str, ops: GraphOps, node_mask: Array) -> Array:
    """Which entries at `location` are real: `[B, N]`, `[B, N, N]` or `[B, E]`, `[B]`."""
    real = node_mask > 0
    if location == Location.NODE:
        return real
    if location == Location.EDGE:
        return ops.valid_pairs()
    return jnp.ones(node_mask.shape[:1], bool)


def _expand(x: Array, like: Array) -> Array:
    return x.reshape(x.shape + (1,) * (like.ndim - x.ndim))


def _bce(pred: Array, truth: Array) -> Array:
    return jnp.maximum(pred, 0) - pred * truth + jnp.log1p(jnp.exp(-jnp.abs(pred)))


def _log_probs(pred: Array, location: str, type_: str, ops: GraphOps,
               node_mask: Array) -> Array:
    """Log-softmax over a pointer's targets, a mask_one's candidates or a categorical's classes."""
    if type_ == Type.CATEGORICAL or (type_ == Type.MASK_ONE and location == Location.GRAPH):
        return jax.nn.log_softmax(pred, axis=-1)
    if location == Location.EDGE and type_ == Type.MASK_ONE:  # rows: senders
        return ops.edge_row_log_softmax(pred)
    if location == Location.NODE and type_ == Type.POINTER:  # rows: pointing nodes
        return ops.pointer_log_softmax(pred)
    return jax.nn.log_softmax(mask_last_axis(pred, node_mask), axis=-1)


def _pointer_rows(truth: Array, pred: Array, location: str, ops: GraphOps,
                  node_mask: Array) -> Array:
    """`-log p(truth)` per pointing entry (node, pair or slot, sample)."""
    logp = _log_probs(pred, location, Type.POINTER, ops, node_mask)
    if location == Location.NODE:
        return ops.pointer_nll(truth, logp)
    onehot = jax.nn.one_hot(jnp.asarray(truth).astype(jnp.int32), logp.shape[-1])
    return -jnp.sum(onehot * logp, axis=-1)


def _permutation_rows(truth: Array, pred: Array, ops: GraphOps) -> Array:
    """`-sum_c truth[a, c] * log_probs[a, c]` per node a."""
    return ops.permutation_nll(jnp.asarray(truth).astype(jnp.float32), pred)


def _mask_one_rows(truth: Array, logp: Array, location: str, ops: GraphOps
                   ) -> tuple[Array, Array]:
    """A hint mask_one's loss per row (keeping the summed axis) and the row's weight."""
    if location == Location.EDGE:  # rows: senders
        return ops.edge_mask_one_rows(truth, logp)
    loss = -jnp.sum(truth * logp, axis=-1, keepdims=True)
    return loss, jnp.ones_like(loss)


def output_loss(truth: DataPoint, pred: Array, node_mask: Array,
                graph: Graph | None = None) -> Array:
    """The loss of one output (`truth.data` `[B, ...]`) given raw predictions `pred`.

    `graph` is needed only for sparse edge lists (`None` or a `DenseGraph`: dense).
    """
    t, loc = truth.type_, truth.location
    data = jnp.asarray(truth.data)
    ops = _ops(graph, node_mask)
    valid = _valid(loc, ops, node_mask).astype(jnp.float32)
    if t == Type.SCALAR:
        return _mean((pred - data) ** 2, valid)
    if t == Type.MASK:
        return _mean(_bce(pred, data), valid * (data != MASKED))
    if t in (Type.MASK_ONE, Type.CATEGORICAL):
        logp = _log_probs(pred, loc, t, ops, node_mask)
        keep = _expand(valid, data) * (data != MASKED)
        total = -jnp.sum(data * keep * logp)
        return total / jnp.maximum(jnp.sum((data == 1) * _expand(valid, data)), EPS)
    if t == Type.POINTER:
        return _mean(_pointer_rows(data, pred, loc, ops, node_mask), valid)
    if t == Type.PERMUTATION_POINTER:
        return _mean(_permutation_rows(data, pred, ops), node_mask > 0)
    raise ValueError(f"no loss for a {loc} {t}")


def _mean(loss: Array, weight: Array) -> Array:
    weight = jnp.asarray(weight, jnp.float32)
    return jnp.sum(loss * weight) / jnp.maximum(jnp.sum(weight), EPS)


def _hint_terms(truth: Array, pred: Array, location: str, type_: str, graph: Graph | None,
                node_mask: Array) -> tuple[Array, Array]:
    """One frame's elementwise hint loss and its weight (dm-clrs's `(loss, mask)`)."""
    ops = _ops(graph, node_mask)
    valid = _valid(location, ops, node_mask).astype(jnp.float32)
    if type_ == Type.SCALAR:
        return (pred - truth) ** 2, valid
    if type_ == Type.MASK:
        return _bce(pred, truth), valid * (truth != MASKED)
    if type_ == Type.MASK_ONE:
        logp = _log_probs(pred, location, type_, ops, node_mask)
        return _mask_one_rows(truth * _expand(valid, truth), logp, location, ops)
    if type_ == Type.CATEGORICAL:
        logp = _log_probs(pred, location, type_, ops, node_mask)
        return -jnp.sum(truth * logp, axis=-1), valid * jnp.any(truth == 1, axis=-1)
    if type_ == Type.POINTER:
        return _pointer_rows(truth, pred, location, ops, node_mask), valid
    if type_ == Type.PERMUTATION_POINTER:
        loss = _permutation_rows(truth, pred, ops)
        return loss, (node_mask > 0).astype(jnp.float32)
    raise ValueError(f"no loss for a {location} {type_}")


def hint_loss(truth: DataPoint, preds: Array, lengths: Array, node_mask: Array,
              graph: Graph | None = None) -> Array:
    """The loss of one hint: truth `[T, B, ...]`, predictions of frames 1.. `[T-1, B, ...]`."""
    data = jnp.asarray(truth.data)[1:]
    if data.dtype != jnp.float32 and truth.type_ != Type.POINTER:
        data = data.astype(jnp.float32)
    loss, weight = jax.vmap(
        lambda t, p: _hint_terms(t, p, truth.location, truth.type_, graph, node_mask)
    )(data, jnp.asarray(preds))
    steps = jnp.arange(data.shape[0])[:, None]
    not_done = (jnp.asarray(lengths)[None, :] > steps + 1).astype(jnp.float32)
    weight = weight * _expand(not_done, loss)
    return jnp.sum(loss * weight) / jnp.maximum(jnp.sum(weight), EPS)
