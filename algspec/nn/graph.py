"""The graphs messages travel on: dense (an N x N adjacency) or sparse (an edge list).

Every processor, encoder and decoder of `algspec.nn` takes one of these two
and a node mask, and must give the same numbers on a `SparseGraph` holding
exactly the nonzero entries of a `DenseGraph`'s adjacency:

- `DenseGraph.adj[b, i, j]` is 1 where node i's and node j's features meet in
  a message (dm-clrs's `adj_mat`: symmetric, with self-loops); edge features
  are `[B, N, N, H]`.
- `SparseGraph` slot k of sample b is the ordered pair `(senders[b, k],
  receivers[b, k])` when `mask[b, k]`; a message goes from the sender to the
  receiver and is aggregated at the receiver. Edge features are `[B, E, H]`,
  aligned with the slots. A pair appears at most once among the live slots.
  Padding slots (`mask` false) point at node 0 and carry no message.
- `node_mask[b, i]` is 1 for a real node and 0 for a padding node (samples
  of several sizes in one batch); a padding node sends and receives nothing,
  and is left out of every readout and loss.

Layers read a graph through `graph_ops.ops_for(graph, node_mask, reads)`:
written once, they never ask which of the two they hold.

Memory: a dense layer holds `B * N^2 * H` floats, a sparse one `B * (N + E) * H`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

Array = Any


class DenseGraph(NamedTuple):
    """All pairs, weighted by `adj` `[B, N, N]` (0/1 floats)."""

    adj: Array


class SparseGraph(NamedTuple):
    """An edge list per sample: `senders`, `receivers` `[B, E]` int32, `mask` `[B, E]` bool."""

    senders: Array
    receivers: Array
    mask: Array

    @property
    def num_slots(self) -> int:
        return int(self.senders.shape[-1])


Graph = DenseGraph | SparseGraph
