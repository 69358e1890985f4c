"""Reductions at the receivers of an edge list: the sparse form of a dense layer's axis reduction.

A dense layer reduces `[B, N, N, H]` messages over the sender axis; a sparse one
holds `[B, E, H]` messages, one per slot, and reduces them per receiver with
segment operations. The batch is folded into the segment ids (`b * N + receiver`),
so one segment operation serves the whole batch. Only live slots (see `live_slots`)
contribute; a receiver without live slots gets the reduction's empty value.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from algspec.nn.graph import Array, SparseGraph

# Logits of dead slots in a softmax: finite, so no NaN reaches a gradient.
_DEAD_LOGIT = -1e9


def live_slots(graph: SparseGraph, node_mask: Array) -> Array:
    """`[B, E]` bool: slots that carry a message (live, between two real nodes)."""
    real = node_mask > 0
    return (graph.mask & jnp.take_along_axis(real, graph.senders, axis=1)
            & jnp.take_along_axis(real, graph.receivers, axis=1))


def gather_nodes(x: Array, index: Array) -> Array:
    """`x[b, index[b, k]]`: per-node values `[B, N, ...]` at slots `[B, E]` -> `[B, E, ...]`."""
    return jax.vmap(lambda xb, ib: xb[ib])(x, index)


def _segment_ids(graph: SparseGraph, nb_nodes: int) -> Array:
    batch = graph.receivers.shape[0]
    offsets = jnp.arange(batch, dtype=graph.receivers.dtype)[:, None] * nb_nodes
    return (graph.receivers + offsets).reshape(-1)


def _fold(data: Array) -> Array:
    return data.reshape((-1,) + data.shape[2:])


def _unfold(data: Array, batch: int, nb_nodes: int) -> Array:
    return data.reshape((batch, nb_nodes) + data.shape[1:])


def _expand(live: Array, data: Array) -> Array:
    return live.reshape(live.shape + (1,) * (data.ndim - live.ndim))


def segment_max(data: Array, graph: SparseGraph, live: Array, nb_nodes: int,
                empty: float) -> Array:
    """Max over each receiver's live slots `[B, E, ...]` -> `[B, N, ...]`, at least `empty`.

    `empty` is what a dense masked max gives where no sender is adjacent (dm-clrs
    fills non-adjacent pairs with it), so a receiver without live slots matches.
    """
    batch = data.shape[0]
    data = jnp.where(_expand(live, data), data, empty)
    out = jax.ops.segment_max(_fold(data), _segment_ids(graph, nb_nodes),
                              num_segments=batch * nb_nodes)
    return jnp.maximum(_unfold(out, batch, nb_nodes), empty)


def segment_sum(data: Array, graph: SparseGraph, live: Array, nb_nodes: int) -> Array:
    """Sum over each receiver's live slots `[B, E, ...]` -> `[B, N, ...]` (0 where none)."""
    batch = data.shape[0]
    data = jnp.where(_expand(live, data), data, 0.0)
    out = jax.ops.segment_sum(_fold(data), _segment_ids(graph, nb_nodes),
                              num_segments=batch * nb_nodes)
    return _unfold(out, batch, nb_nodes)


def in_degree(graph: SparseGraph, live: Array, nb_nodes: int) -> Array:
    """`[B, N]` number of live slots received by each node."""
    return segment_sum(live.astype(jnp.float32), graph, live, nb_nodes)


def segment_softmax(logits: Array, graph: SparseGraph, live: Array, nb_nodes: int) -> Array:
    """Softmax of `[B, E, K]` logits over each receiver's live slots (0 on dead slots).

    The max subtracted per receiver is the dense softmax's, so the numbers agree
    with a dense softmax over an adjacency row (non-adjacent entries contribute
    exactly 0 there).
    """
    logits = jnp.where(_expand(live, logits), logits, _DEAD_LOGIT)
    top = jax.lax.stop_gradient(segment_max(logits, graph, live, nb_nodes, _DEAD_LOGIT))
    shifted = logits - gather_nodes(top, graph.receivers)
    weights = jnp.exp(shifted) * _expand(live, logits)
    total = segment_sum(weights, graph, live, nb_nodes)
    total = gather_nodes(jnp.where(total > 0, total, 1.0), graph.receivers)
    return weights / total
