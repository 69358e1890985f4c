"""The graph a step's messages travel on, built from the step's data.

Dense: dm-clrs's adjacency. It starts from self-loops; every node pointer
(input or hint; a soft pointer as its probability matrix) adds the pairs where
`p + p^T > 0.5`, and every edge-located mask adds the pairs where
`m + m^T > 0`. `kind_adjacency` then gives what a processor kind actually reads
(dm-clrs's mpnn and *_full read all pairs, deepsets only self-loops).

Sparse: the same pairs as an edge list (`SparseGraph`), in two parts.

- Static, on the host (numpy), once per batch: self-loops, the edge-mask inputs
  (the `.alg` file's interconnection graph among them) and optionally the
  pointer inputs, symmetrised and deduplicated, padded to a power-of-two slot
  count so that jit sees few shapes (`static_graph`). Edge-located arrays are
  gathered at these slots on the host (`gather_edges`) and predictions are
  scattered back to `[B, N, N]` for dense metrics (`scatter_edges`). Edge data
  held as edge lists (`algspec.edge_lists.EdgeLists`) are read at their edges:
  the same slots and values as from the dense arrays, with nothing N x N built.
- Per step, under jit: the pointer edges of node pointers (`add_pointer_edges`),
  both directions, in fixed extra slots appended after the static ones; a pair
  already present is masked off, so each pair is live once. Data gathered at the
  static slots lines up with the extended graph after `pad_slots`.

Edge-mask hints change the dense adjacency step by step but add no sparse
edges: the sparse graph holds the inputs' edges and the pointer edges only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.nn.data import DataPoint
from algspec.nn.graph import Array, SparseGraph
from algspec.nn.types import Location, Type

# Node pointer types that add adjacency (a soft pointer is a pointer given as probabilities).
POINTER_TYPES = (Type.POINTER, Type.PERMUTATION_POINTER, Type.SOFT_POINTER)
# Candidates per row of a probability-matrix pointer. A pair with
# p[i, j] + p[j, i] > 0.5 has p[i, j] among row i's 4 largest or p[j, i] among
# row j's: outside them an entry is at most (row sum) / 5, and two such sum to
# at most 0.5 while rows sum to at most 1.25 (softmax rows sum to 1; Sinkhorn's
# permutation matrices approximately).
POINTER_TOP_K = 4


# ---------------------------------------------------------------- dense

def is_node_pointer(dp: DataPoint) -> bool:
    return dp.location == Location.NODE and dp.type_ in POINTER_TYPES


def is_edge_mask(dp: DataPoint) -> bool:
    return dp.location == Location.EDGE and dp.type_ == Type.MASK


def pointer_matrix(data: Array, nb_nodes: int) -> Array:
    """`[B, N, N]` pointer matrix: one-hot of indices `[B, N]`, or probabilities as given."""
    data = jnp.asarray(data)
    if data.ndim == 2:
        return jax.nn.one_hot(data.astype(jnp.int32), nb_nodes, dtype=jnp.float32)
    return data.astype(jnp.float32)


def _adjacency_term(dp: DataPoint, nb_nodes: int) -> Array | None:
    if is_node_pointer(dp):
        p = pointer_matrix(dp.data, nb_nodes)
        return (p + jnp.swapaxes(p, 1, 2)) > 0.5
    if is_edge_mask(dp):
        m = jnp.asarray(dp.data, dtype=jnp.float32)
        return (m + jnp.swapaxes(m, 1, 2)) > 0.0
    return None


def pair_mask(node_mask: Array) -> Array:
    """`[B, N, N]`: 1 where both nodes are real."""
    node_mask = jnp.asarray(node_mask, dtype=jnp.float32)
    return node_mask[:, :, None] * node_mask[:, None, :]


def dense_adjacency(data: Iterable[DataPoint], batch_size: int, nb_nodes: int,
                    node_mask: Array | None = None) -> Array:
    """dm-clrs's adjacency `[B, N, N]` (float 0/1) from a step's inputs and hints.

    `data` holds the step's data points (hints at this step, `[B, ...]`); those
    that are neither node pointers nor edge masks are ignored. With `node_mask`,
    pairs touching a padding node are 0.
    """
    adj = jnp.broadcast_to(jnp.eye(nb_nodes, dtype=bool), (batch_size, nb_nodes, nb_nodes))
    for dp in data:
        term = _adjacency_term(dp, nb_nodes)
        if term is not None:
            adj = adj | term
    adj = adj.astype(jnp.float32)
    return adj if node_mask is None else adj * pair_mask(node_mask)


def kind_adjacency(reads: str, adj: Array, node_mask: Array | None = None) -> Array:
    """The adjacency a processor reads: "declared" (`adj`), "complete" or "self" (self-loops)."""
    if reads == "complete":
        adj = jnp.ones_like(adj)
    elif reads == "self":
        adj = jnp.ones_like(adj) * jnp.eye(adj.shape[-1], dtype=adj.dtype)
    elif reads != "declared":
        raise ValueError(f"unknown graph {reads!r}: expected declared, complete or self")
    return adj if node_mask is None else adj * pair_mask(node_mask)


# ---------------------------------------------------------------- sparse, host side

def size_bucket(count: int) -> int:
    """`count` rounded up to the next of 1..8, 10, 12, 14, 16, 20, 24, 28, 32, 40, ...
    (four sizes per octave): few shapes under jit, at most a quarter of padding."""
    count = int(count)
    if count <= 8:
        return max(count, 0)
    quantum = 1 << ((count - 1).bit_length() - 3)
    return -(-count // quantum) * quantum


def slot_bucket(count: int) -> int:
    """The slot count for `count` pairs (`size_bucket`)."""
    return size_bucket(max(int(count), 1))


def static_graph(batch_size: int, nb_nodes: int,
                 edge_masks: Sequence[np.ndarray | EdgeLists] = (),
                 pointers: Sequence[np.ndarray] = (),
                 node_mask: np.ndarray | None = None) -> SparseGraph:
    """The static edge list (numpy): self-loops, edge masks `[B, N, N]`, pointers.

    Edge masks (dense arrays, or `EdgeLists`: then read at their edges only, nothing
    N x N is built) are symmetrised (`m + m^T > 0`) and pointers (indices `[B, N]` or
    probabilities `[B, N, N]`) thresholded (`p + p^T > 0.5`) as in the dense
    adjacency; each pair appears once, in row-major order (sender, receiver).
    Pairs touching a padding node are left out. The slot count is the largest
    sample's pair count rounded up by `size_bucket`.
    """
    nodes = np.arange(nb_nodes)
    parts = [(np.repeat(np.arange(batch_size), nb_nodes), np.tile(nodes, batch_size),
              np.tile(nodes, batch_size))]  # self-loops
    for m in edge_masks:  # 0/1 masks: m + m^T > 0 is "either direction"
        b, s, r = _present_pairs(m)
        parts += [(b, s, r), (b, r, s)]
    for p in pointers:
        p = np.asarray(p)
        if p.ndim == 3:  # probabilities
            p = p.astype(np.float32)
            parts.append(np.nonzero((p + np.swapaxes(p, 1, 2)) > 0.5))
            continue
        # indices: the pairs (i, p[i]) and (p[i], i), without an N x N matrix
        index = p.astype(np.int64)
        b, i = np.nonzero((index >= 0) & (index < nb_nodes))
        parts += [(b, i, index[b, i]), (b, index[b, i], i)]
    b, s, r = (np.concatenate([np.asarray(part[k], np.int64) for part in parts])
               for k in range(3))
    if node_mask is not None:
        real = np.asarray(node_mask) > 0
        keep = real[b, s] & real[b, r]
        b, s, r = b[keep], s[keep], r[keep]
    # One key per pair, sorted: sample, then sender, then receiver (row-major per sample).
    b, rest = np.divmod(np.unique((b * nb_nodes + s) * nb_nodes + r), nb_nodes * nb_nodes)
    s, r = np.divmod(rest, nb_nodes)
    counts = np.bincount(b, minlength=batch_size)
    slots = slot_bucket(int(counts.max(initial=1)))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(b.size) - starts[b]
    senders = np.zeros((batch_size, slots), np.int32)
    receivers = np.zeros((batch_size, slots), np.int32)
    mask = np.zeros((batch_size, slots), bool)
    senders[b, slot], receivers[b, slot], mask[b, slot] = s, r, True
    return SparseGraph(senders, receivers, mask)


def _present_pairs(mask: np.ndarray | EdgeLists) -> tuple[np.ndarray, ...]:
    """(sample, sender, receiver) of a mask's entries above 0."""
    if isinstance(mask, EdgeLists):
        g = mask.graph
        on = np.asarray(mask.values) > 0
        return g.sample[on], g.senders[on], g.receivers[on]
    return np.nonzero(np.asarray(mask) > 0)


def _slot_index(graph: SparseGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    s, r, m = (np.asarray(a) for a in graph)
    return np.arange(s.shape[0])[:, None], s, r, m


def gather_edges(data: np.ndarray | EdgeLists, graph: SparseGraph,
                 time_major: bool = False) -> np.ndarray:
    """Edge-located data `[B, N, N, ...]` (or `[T, B, N, N, ...]`) at the slots: `[(T,) B, E, ...]`.

    Slot k of sample b holds `data[b, senders[b, k], receivers[b, k]]`; dead slots hold 0.
    `EdgeLists` data are looked up at their edges (0 at a slot that is not one of them),
    never made dense.
    """
    if isinstance(data, EdgeLists):
        return _gather_lists(data, graph, time_major)
    data = np.asarray(data)
    b, s, r, m = _slot_index(graph)
    out = data[:, b, s, r] if time_major else data[b, s, r]
    return _live_only(out, m, time_major)


def _live_only(out: np.ndarray, live: np.ndarray, time_major: bool) -> np.ndarray:
    live = live.reshape(live.shape + (1,) * (out.ndim - live.ndim - int(time_major)))
    return np.where(live, out, np.zeros((), out.dtype))


def _gather_lists(data: EdgeLists, graph: SparseGraph, time_major: bool) -> np.ndarray:
    """`gather_edges` of edge lists: each live slot's pair found among the sample's edges."""
    if data.frames != time_major:
        raise ValueError("hint edge lists gather time-major, inputs and outputs not")
    g = data.graph
    b, s, r, m = _slot_index(graph)
    base = int(max(g.n, s.max(initial=0) + 1, r.max(initial=0) + 1))
    keys = (g.sample.astype(np.int64) * base + g.senders) * base + g.receivers
    order = None
    if keys.size > 1 and np.any(keys[1:] <= keys[:-1]):  # not in C order: look up sorted
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
    want = (b.astype(np.int64) * base + s) * base + r
    lead = data.values.shape[:1] if time_major else ()
    shape = lead + want.shape + data.tail
    if keys.size == 0:
        return np.zeros(shape, data.dtype)
    pos = np.minimum(np.searchsorted(keys, want), keys.size - 1)
    found = (keys[pos] == want) & m
    if order is not None:
        pos = order[pos]
    out = data.values[:, pos] if time_major else data.values[pos]
    return _live_only(out, found, time_major)


def scatter_edges(values: np.ndarray, graph: SparseGraph, nb_nodes: int, fill: float = 0.0,
                  time_major: bool = False) -> np.ndarray:
    """The inverse of `gather_edges`: `[(T,) B, E, ...]` -> `[(T,) B, N, N, ...]`, `fill` elsewhere."""
    values = np.asarray(values)
    if time_major:
        return np.stack([scatter_edges(v, graph, nb_nodes, fill) for v in values])
    b, s, r, m = _slot_index(graph)
    b = np.broadcast_to(b, s.shape)
    out = np.full((s.shape[0], nb_nodes, nb_nodes) + values.shape[2:], fill, values.dtype)
    out[b[m], s[m], r[m]] = values[m]
    return out


# ---------------------------------------------------------------- sparse, under jit

def pad_slots(values: Array, num_slots: int) -> Array:
    """Per-slot values `[B, E, ...]` zero-padded to `num_slots` (the static slots come first)."""
    pad = [(0, 0), (0, num_slots - values.shape[1])] + [(0, 0)] * (values.ndim - 2)
    return jnp.pad(values, pad)


def pointer_slots(pointer: Array, nb_nodes: int) -> SparseGraph:
    """Candidate slots of one node pointer, both directions: `[B, 2 K N]` (K = 1 for indices).

    Indices `[B, N]`: pair (i, p[i]), live when p[i] is a node. Probabilities
    `[B, N, N]`: pairs (i, j) for row i's `POINTER_TOP_K` largest entries, live
    when p[i, j] + p[j, i] > 0.5 (dm-clrs's threshold).
    """
    pointer = jnp.asarray(pointer)
    batch = pointer.shape[0]
    if pointer.ndim == 2:
        target = pointer.astype(jnp.int32)[..., None]                       # [B, N, 1]
        live = (target >= 0) & (target < nb_nodes)
        target = jnp.clip(target, 0, nb_nodes - 1)
    else:
        p = pointer.astype(jnp.float32)
        weight, target = jax.lax.top_k(p, min(POINTER_TOP_K, nb_nodes))    # [B, N, K]
        back = jnp.take_along_axis(jnp.swapaxes(p, 1, 2), target, axis=2)  # p[j, i]
        live = (weight + back) > 0.5
    source = jnp.broadcast_to(jnp.arange(nb_nodes, dtype=jnp.int32)[:, None], target.shape)
    target = target.astype(jnp.int32)
    flat = (batch, -1)
    return SparseGraph(
        jnp.concatenate([source.reshape(flat), target.reshape(flat)], axis=1),
        jnp.concatenate([target.reshape(flat), source.reshape(flat)], axis=1),
        jnp.concatenate([live.reshape(flat), live.reshape(flat)], axis=1))


def _pair_keys(graph: SparseGraph, nb_nodes: int) -> Array:
    """One int per slot: `sender * N + receiver` when live, a distinct sentinel when dead."""
    slots = graph.senders.shape[-1]
    sentinel = nb_nodes * nb_nodes + jnp.arange(slots, dtype=jnp.int32)
    return jnp.where(graph.mask, graph.senders * nb_nodes + graph.receivers, sentinel)


def _first_of_each(keys: Array) -> Array:
    order = jnp.argsort(keys, stable=True)
    ordered = keys[order]
    first = jnp.concatenate([jnp.ones((1,), bool), ordered[1:] != ordered[:-1]])
    return jnp.zeros(keys.shape, bool).at[order].set(first)


def unique_slots(graph: SparseGraph, nb_nodes: int) -> SparseGraph:
    """The graph with every repeated live pair masked off but its first slot; dead slots at node 0."""
    keep = jax.vmap(_first_of_each)(_pair_keys(graph, nb_nodes)) & graph.mask
    return SparseGraph(jnp.where(keep, graph.senders, 0), jnp.where(keep, graph.receivers, 0), keep)


def add_pointer_edges(graph: SparseGraph, pointers: Sequence[Array], nb_nodes: int,
                      node_mask: Array | None = None) -> SparseGraph:
    """The graph plus the pointer edges of `pointers` (node pointer data, see `pointer_slots`).

    The extra slots follow the existing ones (their number depends only on the
    pointers' shapes); pairs already present, or touching a padding node, are
    masked off.
    """
    parts = [SparseGraph(*(jnp.asarray(a) for a in graph))]
    parts += [pointer_slots(p, nb_nodes) for p in pointers]
    merged = SparseGraph(*(jnp.concatenate(xs, axis=1) for xs in zip(*parts, strict=True)))
    if node_mask is not None:
        real = jnp.asarray(node_mask) > 0
        ends = (jnp.take_along_axis(real, merged.senders, axis=1)
                & jnp.take_along_axis(real, merged.receivers, axis=1))
        merged = merged._replace(mask=merged.mask & ends)
    return unique_slots(merged, nb_nodes)


def node_pointers(data: Iterable[DataPoint]) -> list[Array]:
    """The data of the node pointers among `data` (what `add_pointer_edges` takes)."""
    return [dp.data for dp in data if is_node_pointer(dp)]


def reverse_slots(graph: SparseGraph, nb_nodes: int) -> tuple[Array, Array]:
    """For each slot (s, r), the slot of (r, s): `index [B, E]` and `found [B, E]`.

    Attention kinds read edge features indexed [receiver, sender] (dm-clrs's GAT
    convention), which on an edge list sit at the reverse slot.
    """
    def one(keys: Array, senders: Array, receivers: Array, mask: Array) -> tuple[Array, Array]:
        order = jnp.argsort(keys)
        ordered = keys[order]
        want = receivers * nb_nodes + senders
        pos = jnp.clip(jnp.searchsorted(ordered, want), 0, keys.shape[0] - 1)
        found = (ordered[pos] == want) & mask
        return jnp.where(found, order[pos], 0).astype(jnp.int32), found

    return jax.vmap(one)(_pair_keys(graph, nb_nodes), graph.senders, graph.receivers, graph.mask)
