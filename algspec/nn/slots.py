"""Pointers on an edge list: which slot stands for which dense pair, and per-node normalisation.

Orientation (the rule every sparse encoder, decoder and loss follows):

- Edge-located arrays (edge features, edge inputs, hints and outputs): slot k of
  sample b, the pair `(s, r) = (senders[b, k], receivers[b, k])`, stands for the
  dense entry `[b, s, r]` (row = sender, column = receiver), as in dm-clrs's
  processors, which reduce `[B, N, N, H]` messages over the sender axis.
- Node pointers *as the decoders score them*: dm-clrs scores "node a points to
  c" (dense logits `[b, a, c]`) with the edge features of the pair `(c, a)`, so
  slot k stands for the dense entry `[b, r, s]`: "the receiver points to the
  sender". A node's pointer is a distribution over its incoming slots, normalised
  per receiver. Predictions, soft pointers fed back and sparse losses use this
  orientation ("decoder orientation").
- Node pointers *as the encoders embed them*: dm-clrs adds the encoding of
  "i points to j" to the edge features of the pair `(i, j)`, so slot k gets
  "the sender points to the receiver". A soft pointer in decoder orientation is
  turned around with `reverse_slots` (the reverse pair must be in the edge list,
  which holds pointer edges in both directions; where it is not, it reads 0).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from algspec.nn.graph import Array, SparseGraph
from algspec.nn.segments import gather_nodes, segment_max, segment_sum

# Log-probability of a slot or pair that is not there (a dead slot, a padding node):
# exp() of it is exactly 0 in float32, and it stays finite, so no NaN reaches a gradient.
ABSENT = -1e9


def by_sender(graph: SparseGraph) -> SparseGraph:
    """The same slots with senders and receivers swapped, to reduce per sender."""
    return SparseGraph(graph.receivers, graph.senders, graph.mask)


def _expand(live: Array, data: Array) -> Array:
    return live.reshape(live.shape + (1,) * (data.ndim - live.ndim))


def segment_log_softmax(logits: Array, graph: SparseGraph, live: Array, nb_nodes: int) -> Array:
    """Log-softmax of `[B, E, ...]` logits over each receiver's live slots (`ABSENT` on dead ones).

    The same arithmetic as `jax.nn.log_softmax` over a dense row, so a row whose
    entries are exactly a receiver's slots gives the same numbers.
    """
    keep = _expand(live, logits)
    logits = jnp.where(keep, logits, ABSENT)
    top = jax.lax.stop_gradient(segment_max(logits, graph, live, nb_nodes, ABSENT))
    shifted = logits - gather_nodes(top, graph.receivers)
    total = segment_sum(jnp.exp(shifted), graph, live, nb_nodes)
    log_total = jnp.log(jnp.where(total > 0, total, 1.0))
    return jnp.where(keep, shifted - gather_nodes(log_total, graph.receivers), ABSENT)


def segment_argmax(values: Array, graph: SparseGraph, live: Array, nb_nodes: int) -> Array:
    """`[B, N]` int32: the sender of each receiver's largest live slot of `values` `[B, E]`.

    Ties go to the smallest sender, as `jnp.argmax` picks the first column of a
    dense row; a receiver without live slots gets 0.
    """
    values = jnp.where(live, values, -jnp.inf)
    top = segment_max(values, graph, live, nb_nodes, -jnp.inf)
    best = live & (values >= gather_nodes(top, graph.receivers))
    candidate = jnp.where(best, graph.senders, nb_nodes).astype(jnp.float32)
    smallest = -segment_max(-candidate, graph, best, nb_nodes, -float(nb_nodes))
    return jnp.where(smallest < nb_nodes, smallest, 0).astype(jnp.int32)


def at_slots(dense: Array, graph: SparseGraph, *, transpose: bool = False) -> Array:
    """`dense[b, s_k, r_k]` (or `[b, r_k, s_k]` with `transpose`): `[B, N, N, ...]` -> `[B, E, ...]`."""
    rows, cols = (graph.receivers, graph.senders) if transpose else (graph.senders,
                                                                     graph.receivers)
    return jax.vmap(lambda d, i, j: d[i, j])(dense, rows, cols)


def to_pairs(values: Array, graph: SparseGraph, nb_nodes: int, fill: float, *,
             transpose: bool = False) -> Array:
    """Inverse of `at_slots`: `[B, E, ...]` scattered into `[B, N, N, ...]`, `fill` elsewhere."""
    rows, cols = (graph.receivers, graph.senders) if transpose else (graph.senders,
                                                                     graph.receivers)
    rows = jnp.where(graph.mask, rows, nb_nodes)  # dead slots land out of bounds: dropped

    def one(v: Array, i: Array, j: Array) -> Array:
        out = jnp.full((nb_nodes, nb_nodes) + v.shape[1:], fill, v.dtype)
        return out.at[i, j].set(v, mode="drop")

    return jax.vmap(one)(values, rows, cols)


def reverse_slots(graph: SparseGraph, nb_nodes: int) -> tuple[Array, Array]:
    """For each slot `(s, r)`, the slot holding `(r, s)`: (`[B, E]` index, `[B, E]` found).

    Sorting the pair keys makes this O(E log E) per sample, with no `[N, N]` table.
    Keys are `s * N + r` in int32, so N may be up to 46340.
    """
    def one(senders: Array, receivers: Array, mask: Array) -> tuple[Array, Array]:
        key = jnp.where(mask, senders * nb_nodes + receivers, nb_nodes * nb_nodes)
        order = jnp.argsort(key)
        ordered = key[order]
        wanted = receivers * nb_nodes + senders
        pos = jnp.clip(jnp.searchsorted(ordered, wanted), 0, key.shape[0] - 1)
        return order[pos], mask & (ordered[pos] == wanted)

    return jax.vmap(one)(graph.senders.astype(jnp.int32), graph.receivers.astype(jnp.int32),
                         graph.mask)


def reverse(values: Array, graph: SparseGraph, nb_nodes: int) -> Array:
    """`values` `[B, E, ...]` read at each slot's reverse slot (0 where there is none)."""
    index, found = reverse_slots(graph, nb_nodes)
    out = jax.vmap(lambda v, i: v[i])(values, index)
    return jnp.where(_expand(found, out), out, 0.0)


def pointer_at_slots(pointers: Array, graph: SparseGraph) -> Array:
    """Node pointers `[B, N]` (indices) as `[B, E]` 0/1 in decoder orientation: `p[r] == s`."""
    target = gather_nodes(jnp.asarray(pointers), graph.receivers)
    return (target == graph.senders).astype(jnp.float32) * graph.mask
