"""Edge data held at each sample's edges, not as N x N: `EdgeGraph` and `EdgeLists`.

On a sparse graph (SALSA-CLRS's families: about 5 edges per node) a dense [B, N, N]
edge array is almost all zeros: at n = 1600 a float32 input is 10 MB per sample for
8,000 edges. `EdgeLists` keeps one value per edge of each sample's graph (`EdgeGraph`:
every sample's edges in C order, `(sample, sender, receiver)` ascending) and zero at
every other pair. It stands in for the dense array wherever a datum's `.data` is read:
`shape`, `dtype` and `ndim` are the dense array's, and `np.asarray(x)` builds the dense
array, so a consumer that needs N x N (dm-clrs's models, CLRS-Text) densifies only
there. Datasets, test sets and algspec's sparse training read the edge values directly.

Inputs and outputs are `[B, N, N(, k)]`: values `[M(, k)]`; hints are `[T, B, N, N(, k)]`:
values `[T, M(, k)]`. Only data that are zero off the edges are held this way
(`from_dense` says None otherwise), so densifying gives back the same bytes, and the
zero padding of hint frames after a sample's end is zero off the edges too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["EDGE_STORAGES", "EdgeGraph", "EdgeLists", "check_edges", "densified"]

# How edge data are held: "dense" [B, N, N] arrays, or "sparse" `EdgeLists` (`edges=`).
EDGE_STORAGES = ("dense", "sparse")


def check_edges(edges: str) -> str:
    """`edges` if it names a storage, else a clear ValueError."""
    if edges not in EDGE_STORAGES:
        raise ValueError(f"edges must be one of {', '.join(EDGE_STORAGES)}, got {edges!r}")
    return edges


class EdgeGraph:
    """The edges of every sample of a batch: sample b's are `senders[offsets[b]:offsets[b+1]]`
    -> `receivers[...]`, sorted by (sender, receiver); `n` nodes per sample."""

    __slots__ = ("_sample", "n", "offsets", "receivers", "senders")

    def __init__(self, n: int, offsets: np.ndarray, senders: np.ndarray,
                 receivers: np.ndarray) -> None:
        self.n = int(n)
        self.offsets = np.asarray(offsets, np.int64)
        self.senders = np.asarray(senders, np.int32)
        self.receivers = np.asarray(receivers, np.int32)
        self._sample: np.ndarray | None = None
        if self.offsets.ndim != 1 or self.offsets.size < 1 or self.offsets[0] != 0 or \
                self.offsets[-1] != self.senders.size or self.senders.shape != \
                self.receivers.shape or np.any(np.diff(self.offsets) < 0):
            raise ValueError("an edge graph needs offsets [B + 1] from 0 to the edge count "
                             "and one sender and receiver per edge")

    @classmethod
    def from_mask(cls, mask: np.ndarray) -> EdgeGraph:
        """The nonzero pairs of a [B, N, N] mask."""
        mask = np.asarray(mask)
        b, i, j = np.nonzero(mask)
        counts = np.bincount(b, minlength=mask.shape[0])
        return cls(mask.shape[1], np.concatenate([[0], np.cumsum(counts)]), i, j)

    @classmethod
    def from_edges(cls, n: int, sample: np.ndarray, senders: np.ndarray,
                   receivers: np.ndarray, batch: int) -> EdgeGraph:
        """From unordered, possibly repeated (sample, sender, receiver) triples (a few
        sorted runs, such as two edge lists joined, sort in linear time)."""
        key = np.sort((np.asarray(sample, np.int64) * n + senders) * n + receivers,
                      kind="stable")
        if key.size:
            key = key[np.concatenate([[True], key[1:] != key[:-1]])]
        b, rest = np.divmod(key, n * n)
        i, j = np.divmod(rest, n)
        counts = np.bincount(b, minlength=batch)
        return cls(n, np.concatenate([[0], np.cumsum(counts)]), i, j)

    @property
    def batch_size(self) -> int:
        return self.offsets.size - 1

    @property
    def num_edges(self) -> int:
        return int(self.senders.size)

    @property
    def counts(self) -> np.ndarray:
        """Edges per sample, [B]."""
        return np.diff(self.offsets)

    @property
    def sample(self) -> np.ndarray:
        """Each edge's sample, [M]."""
        if self._sample is None:
            self._sample = np.repeat(np.arange(self.batch_size), self.counts)
        return self._sample

    @property
    def nbytes(self) -> int:
        return self.offsets.nbytes + self.senders.nbytes + self.receivers.nbytes

    def mask(self) -> np.ndarray:
        """The graph as a dense [B, N, N] bool mask."""
        out = np.zeros((self.batch_size, self.n, self.n), bool)
        out[self.sample, self.senders, self.receivers] = True
        return out

    def same_as(self, other: EdgeGraph) -> bool:
        return self is other or (self.n == other.n and np.array_equal(
            self.offsets, other.offsets) and np.array_equal(self.senders, other.senders)
            and np.array_equal(self.receivers, other.receivers))

    def edge_ids(self, idx: np.ndarray) -> np.ndarray:
        """The flat edge positions of samples `idx`, in order (for `take`)."""
        idx = np.asarray(idx, np.int64)
        starts, counts = self.offsets[idx], self.counts[idx]
        if not counts.sum():
            return np.zeros(0, np.int64)
        first = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
        return first + np.arange(int(counts.sum()))

    def take(self, idx: np.ndarray) -> EdgeGraph:
        """Samples `idx` (repeats allowed) as a batch of their own."""
        ids = self.edge_ids(idx)
        counts = self.counts[np.asarray(idx, np.int64)]
        return EdgeGraph(self.n, np.concatenate([[0], np.cumsum(counts)]), self.senders[ids],
                         self.receivers[ids])

    @staticmethod
    def concat(graphs: Sequence[EdgeGraph]) -> EdgeGraph:
        """Batches of one n, one after the other."""
        n = graphs[0].n
        if any(g.n != n for g in graphs):
            raise ValueError("edge graphs of different node counts cannot be concatenated")
        counts = np.concatenate([g.counts for g in graphs])
        return EdgeGraph(n, np.concatenate([[0], np.cumsum(counts)]),
                         np.concatenate([g.senders for g in graphs]),
                         np.concatenate([g.receivers for g in graphs]))


class EdgeLists:
    """A [(T,) B, N, N(, k)] edge datum as its values at each sample's edges (zero elsewhere).

    `values` is [(T,) M(, k)] over `graph`'s edges; `frames` says whether the leading
    axis is hint frames.
    """

    __slots__ = ("frames", "graph", "values")
    __array_priority__ = 10.0

    def __init__(self, graph: EdgeGraph, values: np.ndarray, frames: bool = False) -> None:
        values = np.asarray(values)
        axis = 1 if frames else 0
        if values.ndim <= axis or values.shape[axis] != graph.num_edges:
            raise ValueError(f"edge values of shape {values.shape} do not match a graph of "
                             f"{graph.num_edges} edges{' (hint frames first)' if frames else ''}")
        self.graph, self.values, self.frames = graph, values, bool(frames)

    # -------------------------------------------------------------- the dense face
    @property
    def tail(self) -> tuple[int, ...]:
        return self.values.shape[(2 if self.frames else 1):]

    @property
    def shape(self) -> tuple[int, ...]:
        lead = self.values.shape[:1] if self.frames else ()
        g = self.graph
        return lead + (g.batch_size, g.n, g.n) + self.tail

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def nbytes(self) -> int:
        """The bytes held: values and the graph (shared between the data of one batch)."""
        return self.values.nbytes + self.graph.nbytes

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"EdgeLists(shape={self.shape}, dtype={self.dtype}, "
                f"edges={self.graph.num_edges})")

    def dense(self, dtype: Any = None) -> np.ndarray:
        """The [(T,) B, N, N(, k)] array."""
        out = np.zeros(self.shape, dtype or self.dtype)
        g = self.graph
        if self.frames:
            out[:, g.sample, g.senders, g.receivers] = self.values
        else:
            out[g.sample, g.senders, g.receivers] = self.values
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.dense(dtype)

    # -------------------------------------------------------------- batch operations
    def astype(self, dtype: Any, copy: bool = True) -> EdgeLists:
        return EdgeLists(self.graph, self.values.astype(dtype, copy=copy), self.frames)

    def with_values(self, values: np.ndarray) -> EdgeLists:
        return EdgeLists(self.graph, values, self.frames)

    def take(self, idx: np.ndarray, graph: EdgeGraph | None = None) -> EdgeLists:
        """Samples `idx` (repeats allowed); `graph`: the taken graph, when already built."""
        ids = self.graph.edge_ids(idx)
        values = self.values[:, ids] if self.frames else self.values[ids]
        return EdgeLists(graph or self.graph.take(idx), values, self.frames)

    def with_steps(self, steps: int) -> EdgeLists:
        """Hint frames cut or zero padded to `steps` (dm-clrs pads after the end)."""
        if not self.frames:
            raise ValueError("only hints have frames")
        T = self.values.shape[0]
        if steps <= T:
            return EdgeLists(self.graph, self.values[:steps], True)
        pad = np.zeros((steps - T,) + self.values.shape[1:], self.values.dtype)
        return EdgeLists(self.graph, np.concatenate([self.values, pad]), True)

    @staticmethod
    def concat(parts: Sequence[EdgeLists], graph: EdgeGraph | None = None) -> EdgeLists:
        """Batches one after the other (hints: padded to the longest first)."""
        frames = parts[0].frames
        if frames:
            steps = max(p.values.shape[0] for p in parts)
            parts = [p.with_steps(steps) for p in parts]
        graph = graph or EdgeGraph.concat([p.graph for p in parts])
        values = np.concatenate([p.values for p in parts], axis=1 if frames else 0)
        return EdgeLists(graph, values, frames)

    @classmethod
    def from_dense(cls, arr: np.ndarray, graph: EdgeGraph, frames: bool = False,
                   mask: np.ndarray | None = None) -> EdgeLists | None:
        """`arr` at `graph`'s edges; None when `arr` is not zero at every other pair.

        `mask`: `graph.mask()`, when the caller has it already.
        """
        arr = np.asarray(arr)
        mask = graph.mask() if mask is None else mask
        lead = (slice(None),) if frames else ()
        off = arr[lead + (~mask,)]
        if np.any(off != 0) or (off.dtype.kind in "fc" and np.signbit(off.real).any()):
            return None  # -0.0 too: densifying must give back the same bytes
        values = arr[lead + (graph.sample, graph.senders, graph.receivers)]
        return cls(graph, np.ascontiguousarray(values), frames)


def densified(x: Any, dtype: Any = None) -> np.ndarray:
    """`x` as a numpy array: edge lists made dense, anything else through `np.asarray`."""
    if isinstance(x, EdgeLists):
        return x.dense(dtype)
    return np.asarray(x, dtype)
