"""The operations a processor needs from its graph, written once for each layout.

A processor is written once against `GraphOps` (as jraph's and PyG's layers are
written against gather and aggregate): it puts node terms at each pair's
receiver or sender, adds edge and graph terms, and reduces the pair messages at
the receivers (max, sum or mean) or takes a softmax over each receiver's
senders (attention). Two implementations give the numbers of `graph.py`'s
contract:

- `DenseOps`: pairs are the `[B, N, N]` grid. Message orientation: `[b, s, r]`
  (sender, receiver: dm-clrs's PGN reduces over axis 1). Attention orientation
  (`attention()`): `[b, r, s]`, with the edge features read as given (dm-clrs's
  GAT reads `edge_fts[b, receiver, sender]`).
- `SparseOps`: pairs are the `[B, E]` slots of the edge list in both
  orientations; attention reads each slot's edge features at its reverse slot.

The layout is chosen once, from `--graph` (`Layout`, `layout_of`): the net builds
each step's graph with it, and `ops_for` hands out the ops of its type,
so no layer asks which kind of graph it holds.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod

import jax
import jax.numpy as jnp

from algspec.nn import edges, segments, slots
from algspec.nn.graph import Array, DenseGraph, Graph, SparseGraph
from algspec.nn.types import BIG_NUMBER, Location

# dm-clrs's GAT masks non-adjacent pairs by adding (adj - 1) * this to the logits.
ATTENTION_MASK = 1e9
REDUCTIONS = ("max", "mean", "sum")


class GraphOps(ABC):
    """One step's pair operations over a graph, for a processor that reads `reads`
    ("declared", "complete" or "self": see `processor_table.py`)."""

    def __init__(self, node_mask: Array, reads: str) -> None:
        self.node_mask, self.reads = node_mask, reads

    @abstractmethod
    def at_receivers(self, x: Array) -> Array:
        """Per-node values `[B, N, F]` at each pair's receiver, broadcast in pair layout."""

    @abstractmethod
    def at_senders(self, x: Array) -> Array:
        """Per-node values `[B, N, F]` at each pair's sender, broadcast in pair layout."""

    @abstractmethod
    def at_pairs(self, x: Array) -> Array:
        """Per-graph values `[B, F]` broadcast in pair layout."""

    @abstractmethod
    def edge_features(self, edge_fts: Array) -> Array:
        """The edge features this orientation reads at each pair."""

    @abstractmethod
    def aggregate(self, msgs: Array, reduction: str) -> Array:
        """Pair messages `[..., F]` reduced at the receivers -> `[B, N, F]`.

        max: non-adjacent senders are -1e6 (dm-clrs's fill value); sum: 0; mean:
        the sum over the number of adjacent senders (0 where there is none)."""

    @abstractmethod
    def attention(self) -> GraphOps:
        """The same graph in attention orientation (see the module docstring)."""

    @abstractmethod
    def attend(self, logits: Array, values: Array) -> Array:
        """Softmax of `logits` (pair layout, heads last) over each receiver's adjacent
        senders, weighting the senders' `values` `[B, N, heads, F]` -> `[B, N, heads, F]`.
        A receiver without senders reads zeros."""

    @abstractmethod
    def all_pairs(self, edge_fts: Array, what: str) -> Array:
        """Edge features on every node pair `[B, N, N, F]`, for `what` (e.g. triplet
        messages) which reads all of them; `ValueError` where the graph has no such grid."""

    # ------------------------------------------------ pair layout (encoders, decoders, losses)
    # Node pointers are oriented as `slots.py` says: encoders put "i points to j" at pair
    # (i, j); decoders, postprocessing and losses score "a points to c" at pair (c, a)
    # (decoder orientation: dense `[b, a, c]`, sparse the slot (sender c, receiver a)).

    @abstractmethod
    def pair_shape(self) -> tuple[int, ...]:
        """The leading shape of edge-located arrays: `(B, N, N)` or `(B, E)`."""

    @abstractmethod
    def valid_pairs(self) -> Array:
        """Which pairs are between two real nodes (and live): bool, `pair_shape()`."""

    @abstractmethod
    def encoded_pointer(self, data: Array, is_index: bool) -> Array:
        """A node pointer (indices `[B, N]` if `is_index`, else probabilities, dense
        `[B, N, N]` or sparse in decoder orientation `[B, E]`) as "i points to j" per pair."""

    @abstractmethod
    def pointer_counts(self, onehot: Array) -> tuple[Array, Array]:
        """An edge pointer's one-hot `[pairs..., N]`: per pair (x, y), the number of real
        pairs (., x) and (x, .) pointing to y."""

    @abstractmethod
    def pointer_scores(self, query: Array, key: Array, edge: Array) -> tuple[Array, Array]:
        """A node-pointer decoder's operands in decoder orientation: (the pointing node's
        query, the target's key plus the pair's edge term)."""

    @abstractmethod
    def mask_pointer_logits(self, preds: Array, inf_bias: bool) -> Array:
        """Node-pointer logits (decoder orientation) with absent targets at `slots.ABSENT`
        (and, dense with `inf_bias`, dm-clrs's low value on non-adjacent pairs)."""

    @abstractmethod
    def edge_inf_bias(self, preds: Array) -> Array:
        """dm-clrs's inf bias on edge mask logits (dense only: an edge list holds no
        non-adjacent pair)."""

    @abstractmethod
    def mask_edge_rows(self, preds: Array) -> Array:
        """Edge mask_one logits with pairs that are not there at `slots.ABSENT`."""

    @abstractmethod
    def log_sinkhorn(self, x: Array, steps: int, zero_diagonal: bool, unroll: bool) -> Array:
        """Sinkhorn's normalisation of permutation logits (decoder orientation), in log space."""

    @abstractmethod
    def choose_edge_rows(self, pred: Array, hard: bool) -> Array:
        """Softmax, or one-hot of the argmax, over each sender's pairs (edge mask_one)."""

    @abstractmethod
    def node_pointer(self, pred: Array, hard: bool) -> tuple[Array, bool]:
        """A node pointer's logits as indices `[B, N]` (hard) or a soft pointer; and
        whether it is soft."""

    @abstractmethod
    def hard_permutation(self, probs: Array) -> Array:
        """One-hot of each row's most likely target, in the layout of `probs`."""

    @abstractmethod
    def pointer_layout(self, indices: Array) -> Array:
        """Node pointer indices `[B, N]` in the layout of a soft pointer (decoder orientation)."""

    @abstractmethod
    def to_dense(self, data: Array, location: str, soft_pointer: bool) -> Array:
        """A prediction in the dense layout (0 off the pairs), e.g. to score it."""

    @abstractmethod
    def edge_row_log_softmax(self, pred: Array) -> Array:
        """Log-softmax of edge mask_one logits over each sender's pairs."""

    @abstractmethod
    def pointer_log_softmax(self, pred: Array) -> Array:
        """Log-softmax of node-pointer logits over each pointing node's targets."""

    @abstractmethod
    def pointer_nll(self, truth: Array, logp: Array) -> Array:
        """`-log p(truth)` per pointing node, truth indices `[B, N]`."""

    @abstractmethod
    def permutation_nll(self, truth: Array, log_probs: Array) -> Array:
        """`-sum_c truth[a, c] * log_probs[a, c]` per node a (truth `[B, N, N]`, or
        sparse `[B, E]` in decoder orientation)."""

    @abstractmethod
    def edge_mask_one_rows(self, truth: Array, logp: Array) -> tuple[Array, Array]:
        """An edge mask_one hint's loss per row (keeping the summed axis) and its weight."""


class DenseOps(GraphOps):
    """All pairs, weighted by the adjacency of the processor's graph."""

    def __init__(self, graph: DenseGraph, node_mask: Array, reads: str,
                 receiver_major: bool = False) -> None:
        super().__init__(node_mask, reads)
        self.graph, self.receiver_major = graph, receiver_major

    def adjacency(self) -> Array:
        """`[B, N(sender), N(receiver)]` 0/1: the adjacency this processor reads."""
        return edges.kind_adjacency(self.reads, self.graph.adj, self.node_mask)

    def at_receivers(self, x: Array) -> Array:
        return x[:, :, None] if self.receiver_major else x[:, None]

    def at_senders(self, x: Array) -> Array:
        return x[:, None] if self.receiver_major else x[:, :, None]

    def at_pairs(self, x: Array) -> Array:
        return x[:, None, None]

    def edge_features(self, edge_fts: Array) -> Array:
        return edge_fts

    def aggregate(self, msgs: Array, reduction: str) -> Array:
        _check_reduction(reduction)
        adj = self.adjacency()
        weight = adj[..., None]
        if reduction == "max":
            return jnp.max(jnp.where(weight > 0, msgs, -BIG_NUMBER), axis=1)
        total = jnp.sum(msgs * weight, axis=1)
        if reduction == "sum":
            return total
        degree = jnp.sum(adj, axis=-1, keepdims=True)
        return total / jnp.where(degree > 0, degree, 1.0)

    def attention(self) -> DenseOps:
        return DenseOps(self.graph, self.node_mask, self.reads, receiver_major=True)

    def attend(self, logits: Array, values: Array) -> Array:
        bias = ((self.adjacency() - 1.0) * ATTENTION_MASK)[:, None]
        logits = jnp.transpose(logits, (0, 3, 1, 2))                     # [B, heads, N, N]
        coefs = jax.nn.softmax(logits + bias, axis=-1)
        ret = jnp.matmul(coefs, jnp.transpose(values, (0, 2, 1, 3)))
        return jnp.transpose(ret, (0, 2, 1, 3))

    def all_pairs(self, edge_fts: Array, what: str) -> Array:
        return edge_fts

    def pair_shape(self) -> tuple[int, ...]:
        batch, nb_nodes = self.node_mask.shape
        return (batch, nb_nodes, nb_nodes)

    def valid_pairs(self) -> Array:
        real = self.node_mask > 0
        return real[:, :, None] & real[:, None, :]

    def encoded_pointer(self, data: Array, is_index: bool) -> Array:
        return _one_hot_if_index(data, is_index, self.node_mask.shape[1])

    def pointer_counts(self, onehot: Array) -> tuple[Array, Array]:
        real = self.node_mask.astype(jnp.float32)
        into = jnp.sum(real[:, :, None, None] * onehot, axis=1)
        out_of = jnp.sum(real[:, None, :, None] * onehot, axis=2)
        return into, out_of

    def pointer_scores(self, query: Array, key: Array, edge: Array) -> tuple[Array, Array]:
        keyed = key[:, :, None, :] + edge  # [b, c, a]: a points to c, through pair (c, a)
        return query[:, :, None, :], jnp.swapaxes(keyed, 1, 2)

    def mask_pointer_logits(self, preds: Array, inf_bias: bool) -> Array:
        if inf_bias:
            preds = below_the_rest(preds, self.graph.adj, self.valid_pairs())
        return mask_last_axis(preds, self.node_mask)

    def edge_inf_bias(self, preds: Array) -> Array:
        return below_the_rest(preds, self.graph.adj, self.valid_pairs())

    def mask_edge_rows(self, preds: Array) -> Array:
        return mask_last_axis(preds, self.node_mask)

    def log_sinkhorn(self, x: Array, steps: int, zero_diagonal: bool, unroll: bool) -> Array:
        nb_nodes = x.shape[-1]
        eye = jnp.eye(nb_nodes)
        if zero_diagonal:
            x = x - 1e6 * eye
        pad = self.node_mask <= 0
        padding_pairs = (pad[:, :, None] & pad[:, None, :])
        x = jnp.where(self.valid_pairs(), x,
                      jnp.where(padding_pairs & (eye > 0), 0.0, slots.ABSENT))
        return jax.lax.fori_loop(0, steps, _dense_sinkhorn_step, x, unroll=unroll)

    def choose_edge_rows(self, pred: Array, hard: bool) -> Array:
        return choose(mask_last_axis(pred, self.node_mask), hard)

    def node_pointer(self, pred: Array, hard: bool) -> tuple[Array, bool]:
        pred = mask_last_axis(pred, self.node_mask)
        if hard:
            return jnp.argmax(pred, axis=-1).astype(jnp.float32), False
        return jax.nn.softmax(pred, axis=-1), True

    def hard_permutation(self, probs: Array) -> Array:
        return jax.nn.one_hot(jnp.argmax(probs, axis=-1), self.node_mask.shape[1])

    def pointer_layout(self, indices: Array) -> Array:
        return jax.nn.one_hot(jnp.asarray(indices).astype(jnp.int32), self.node_mask.shape[1])

    def to_dense(self, data: Array, location: str, soft_pointer: bool) -> Array:
        return data

    def edge_row_log_softmax(self, pred: Array) -> Array:
        return _masked_log_softmax(pred, self.node_mask)

    def pointer_log_softmax(self, pred: Array) -> Array:
        return _masked_log_softmax(pred, self.node_mask)

    def pointer_nll(self, truth: Array, logp: Array) -> Array:
        onehot = jax.nn.one_hot(jnp.asarray(truth).astype(jnp.int32), logp.shape[-1])
        return -jnp.sum(onehot * logp, axis=-1)

    def permutation_nll(self, truth: Array, log_probs: Array) -> Array:
        truth = jnp.where((self.node_mask > 0)[:, None, :], truth, 0.0)
        return -jnp.sum(truth * log_probs, axis=-1)

    def edge_mask_one_rows(self, truth: Array, logp: Array) -> tuple[Array, Array]:
        loss = -jnp.sum(truth * logp, axis=-1, keepdims=True)
        return loss, (self.node_mask > 0)[..., None].astype(jnp.float32)


class SparseOps(GraphOps):
    """The live slots of an edge list; messages go from sender to receiver."""

    def __init__(self, graph: SparseGraph, node_mask: Array, reads: str,
                 reverse_edges: bool = False) -> None:
        super().__init__(node_mask, reads)
        self.graph, self.reverse_edges = graph, reverse_edges
        self.nb_nodes = node_mask.shape[1]

    @functools.cached_property
    def live(self) -> Array:
        """`[B, E]` bool: the slots this processor reads (traced once, when first asked)."""
        live = segments.live_slots(self.graph, self.node_mask)
        if self.reads == "self":
            live = live & (self.graph.senders == self.graph.receivers)
        return live

    def at_receivers(self, x: Array) -> Array:
        return segments.gather_nodes(x, self.graph.receivers)

    def at_senders(self, x: Array) -> Array:
        return segments.gather_nodes(x, self.graph.senders)

    def at_pairs(self, x: Array) -> Array:
        return x[:, None]

    def edge_features(self, edge_fts: Array) -> Array:
        if not self.reverse_edges:
            return edge_fts
        rev, found = edges.reverse_slots(self.graph, self.nb_nodes)
        return jnp.where(found[..., None], segments.gather_nodes(edge_fts, rev), 0.0)

    def aggregate(self, msgs: Array, reduction: str) -> Array:
        _check_reduction(reduction)
        if reduction == "max":
            return segments.segment_max(msgs, self.graph, self.live, self.nb_nodes, -BIG_NUMBER)
        total = segments.segment_sum(msgs, self.graph, self.live, self.nb_nodes)
        if reduction == "sum":
            return total
        degree = segments.in_degree(self.graph, self.live, self.nb_nodes)[..., None]
        return total / jnp.where(degree > 0, degree, 1.0)

    def attention(self) -> SparseOps:
        return SparseOps(self.graph, self.node_mask, self.reads, reverse_edges=True)

    def attend(self, logits: Array, values: Array) -> Array:
        coefs = segments.segment_softmax(logits, self.graph, self.live, self.nb_nodes)
        sent = self.at_senders(values) * coefs[..., None]                 # [B, E, heads, F]
        return segments.segment_sum(sent, self.graph, self.live, self.nb_nodes)

    def all_pairs(self, edge_fts: Array, what: str) -> Array:
        raise ValueError(f"{what} need a DenseGraph: they are dense only")

    def pair_shape(self) -> tuple[int, ...]:
        return (self.node_mask.shape[0], self.graph.num_slots)

    def valid_pairs(self) -> Array:
        return segments.live_slots(self.graph, self.node_mask)

    def encoded_pointer(self, data: Array, is_index: bool) -> Array:
        data = jnp.asarray(data)
        graph = self.graph
        if is_index:  # indices [B, N]: does the sender point to the receiver?
            target = jax.vmap(lambda p, s: p[s])(data, graph.senders)
            return (target == graph.receivers).astype(jnp.float32)
        if data.ndim == 3:  # a matrix [B, N, N], row = pointing node
            return slots.at_slots(_as_float(data), graph)
        return slots.reverse(_as_float(data), graph, self.nb_nodes)  # decoder orientation

    def pointer_counts(self, onehot: Array) -> tuple[Array, Array]:
        # count slots ending at x / starting at x, then read at (x, y)
        live = self.valid_pairs()
        into = slots.at_slots(segments.segment_sum(onehot, self.graph, live, self.nb_nodes),
                              self.graph)
        out_of = slots.at_slots(
            segments.segment_sum(onehot, slots.by_sender(self.graph), live, self.nb_nodes),
            self.graph)
        return into, out_of

    def pointer_scores(self, query: Array, key: Array, edge: Array) -> tuple[Array, Array]:
        # slot (s, r): r points to s
        keyed = segments.gather_nodes(key, self.graph.senders) + edge
        return segments.gather_nodes(query, self.graph.receivers), keyed

    def mask_pointer_logits(self, preds: Array, inf_bias: bool) -> Array:
        return jnp.where(self.valid_pairs(), preds, slots.ABSENT)

    def edge_inf_bias(self, preds: Array) -> Array:
        return preds

    def mask_edge_rows(self, preds: Array) -> Array:
        return jnp.where(self.valid_pairs(), preds, slots.ABSENT)

    def log_sinkhorn(self, x: Array, steps: int, zero_diagonal: bool, unroll: bool) -> Array:
        graph = self.graph
        if zero_diagonal:
            x = x - 1e6 * (graph.senders == graph.receivers)
        carry = (x, graph, self.valid_pairs(), self.node_mask)
        return jax.lax.fori_loop(0, steps, _sparse_sinkhorn_step, carry, unroll=unroll)[0]

    def choose_edge_rows(self, pred: Array, hard: bool) -> Array:
        return _choose_slots(pred, slots.by_sender(self.graph), self.node_mask, hard)

    def node_pointer(self, pred: Array, hard: bool) -> tuple[Array, bool]:
        live = self.valid_pairs()
        if hard:
            best = slots.segment_argmax(pred, self.graph, live, self.nb_nodes)
            return best.astype(jnp.float32), False
        return segments.segment_softmax(pred, self.graph, live, self.nb_nodes), True

    def hard_permutation(self, probs: Array) -> Array:
        return _choose_slots(probs, self.graph, self.node_mask, True)

    def pointer_layout(self, indices: Array) -> Array:
        return slots.pointer_at_slots(indices, self.graph)

    def to_dense(self, data: Array, location: str, soft_pointer: bool) -> Array:
        if location == Location.EDGE:
            return slots.to_pairs(data, self.graph, self.nb_nodes, 0.0)
        if location == Location.NODE and soft_pointer:
            return slots.to_pairs(data, self.graph, self.nb_nodes, 0.0, transpose=True)
        return data

    def edge_row_log_softmax(self, pred: Array) -> Array:  # rows: senders
        return slots.segment_log_softmax(pred, slots.by_sender(self.graph), self.valid_pairs(),
                                         self.nb_nodes)

    def pointer_log_softmax(self, pred: Array) -> Array:  # rows: receivers
        return slots.segment_log_softmax(pred, self.graph, self.valid_pairs(), self.nb_nodes)

    def _per_row(self, values: Array) -> Array:
        """Sum of `[B, E]` slot values per receiver `[B, N]`."""
        return segments.segment_sum(values, self.graph, self.valid_pairs(), self.nb_nodes)

    def pointer_nll(self, truth: Array, logp: Array) -> Array:
        return -self._per_row(slots.pointer_at_slots(truth, self.graph) * logp)

    def permutation_nll(self, truth: Array, log_probs: Array) -> Array:
        if truth.ndim == 3:
            truth = slots.at_slots(truth, self.graph, transpose=True)
        return -self._per_row(truth * log_probs)

    def edge_mask_one_rows(self, truth: Array, logp: Array) -> tuple[Array, Array]:
        rows = segments.segment_sum(truth * logp, slots.by_sender(self.graph),
                                    self.valid_pairs(), self.nb_nodes)
        return -rows[..., None], (self.node_mask > 0)[..., None].astype(jnp.float32)


# ---------------------------------------------------------------- shared helpers

def _as_float(data: Array) -> Array:
    return jnp.asarray(data).astype(jnp.float32)


def _one_hot_if_index(data: Array, is_index: bool, nb_nodes: int) -> Array:
    if is_index:  # indices; MASKED (-1) gives all zeros, as in dm-clrs
        return jax.nn.one_hot(jnp.asarray(data).astype(jnp.int32), nb_nodes)
    return _as_float(data)


def mask_last_axis(preds: Array, node_mask: Array) -> Array:
    """Logits whose last axis runs over nodes: padding nodes there at `slots.ABSENT`."""
    real = (node_mask > 0).reshape((node_mask.shape[0],) + (1,) * (preds.ndim - 2)
                                   + (node_mask.shape[1],))
    return jnp.where(real, preds, slots.ABSENT)


def _masked_log_softmax(pred: Array, node_mask: Array) -> Array:
    return jax.nn.log_softmax(mask_last_axis(pred, node_mask), axis=-1)


def below_the_rest(preds: Array, adj: Array, valid: Array) -> Array:
    """dm-clrs's inf bias: non-adjacent pairs get min(-1, the sample's lowest logit - 1)."""
    lowest = jnp.min(jnp.where(valid, preds, jnp.inf), axis=(1, 2), keepdims=True)
    return jnp.where(adj > 0.5, preds, jnp.minimum(-1.0, lowest - 1.0))


def choose(pred: Array, hard: bool) -> Array:
    """Softmax, or one-hot of the argmax, over the last axis."""
    if hard:
        return jax.nn.one_hot(jnp.argmax(pred, axis=-1), pred.shape[-1])
    return jax.nn.softmax(pred, axis=-1)


def _choose_slots(pred: Array, graph: SparseGraph, node_mask: Array, hard: bool) -> Array:
    """Softmax, or one-hot of the argmax, over each receiver's live slots of `[B, E]`."""
    nb_nodes = node_mask.shape[1]
    live = segments.live_slots(graph, node_mask)
    if not hard:
        return segments.segment_softmax(pred, graph, live, nb_nodes)
    best = slots.segment_argmax(pred, graph, live, nb_nodes)
    return (live & (segments.gather_nodes(best, graph.receivers) == graph.senders)
            ).astype(jnp.float32)


# Module-level loop bodies (no closures), so their traces are reused from call to call.
def _dense_sinkhorn_step(_: int, x: Array) -> Array:
    return jax.nn.log_softmax(jax.nn.log_softmax(x, axis=-1), axis=-2)


def _sparse_sinkhorn_step(_: int, carry: tuple) -> tuple:
    x, graph, live, node_mask = carry
    nb_nodes = node_mask.shape[1]
    x = slots.segment_log_softmax(x, graph, live, nb_nodes)
    x = slots.segment_log_softmax(x, slots.by_sender(graph), live, nb_nodes)
    return x, graph, live, node_mask


def _check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}: expected max, mean or sum")


# ---------------------------------------------------------------- the layout, chosen once

class Layout(ABC):
    """How a net lays out its graph (`--graph`): per step, or one edge list per trajectory."""

    name: str
    sparse: bool

    @abstractmethod
    def step_graph(self, data: list, graph: SparseGraph | None, node_mask: Array) -> Graph:
        """The graph of one step: dm-clrs's adjacency of the step's data (dense), or the
        trajectory's edge list (sparse)."""

    @abstractmethod
    def layout_graph(self, graph: SparseGraph | None, node_mask: Array) -> Graph:
        """A graph in this layout for what reads only the layout (decoding, postprocessing):
        dense, all pairs of real nodes; sparse, the trajectory's edge list."""

    @abstractmethod
    def num_slots(self, graph: SparseGraph | None) -> int | None:
        """Slots per sample (sparse) or None (dense): the shape of pair predictions."""

    def __repr__(self) -> str:
        return f"<{self.name} layout>"


class DenseLayout(Layout):
    name, sparse = "dense", False

    def step_graph(self, data: list, graph: SparseGraph | None, node_mask: Array) -> Graph:
        batch, nb_nodes = node_mask.shape
        return DenseGraph(edges.dense_adjacency(data, batch, nb_nodes, node_mask))

    def layout_graph(self, graph: SparseGraph | None, node_mask: Array) -> Graph:
        return DenseGraph(edges.pair_mask(node_mask))

    def num_slots(self, graph: SparseGraph | None) -> int | None:
        return None


class SparseLayout(Layout):
    name, sparse = "sparse", True

    def step_graph(self, data: list, graph: SparseGraph | None, node_mask: Array) -> Graph:
        return _given(graph)

    def layout_graph(self, graph: SparseGraph | None, node_mask: Array) -> Graph:
        return _given(graph)

    def num_slots(self, graph: SparseGraph | None) -> int | None:
        return int(jnp.shape(_given(graph).senders)[1])


def _given(graph: SparseGraph | None) -> SparseGraph:
    if graph is None:
        raise ValueError("a sparse layout needs the trajectory's edge list (a SparseGraph)")
    return graph


LAYOUTS: dict[str, Layout] = {"dense": DenseLayout(), "sparse": SparseLayout()}


def layout_of(graph: str) -> Layout:
    """The layout of a `--graph` choice ("dense" or "sparse")."""
    if graph not in LAYOUTS:
        raise ValueError(f"unknown graph layout {graph!r}: expected dense or sparse")
    return LAYOUTS[graph]


# The operations of each graph type; `ops_for` picks by the graph's class, so no layer
# asks which graph it has. A graph type not listed hands out its own (`graph.ops(...)`).
OPS_BY_GRAPH: dict[type, type[GraphOps]] = {DenseGraph: DenseOps, SparseGraph: SparseOps}


def ops_for(graph: Graph, node_mask: Array, reads: str = "declared") -> GraphOps:
    """`graph`'s pair operations for a processor reading `reads` (the layout chosen once
    from `--graph`)."""
    maker = OPS_BY_GRAPH.get(type(graph))
    if maker is None:
        return graph.ops(node_mask, reads)
    return maker(graph, node_mask, reads)
