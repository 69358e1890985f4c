"""Edge inputs held at their edges while a program runs, built N x N only if read whole.

An input given as `edge_lists.EdgeLists` (a sampler asked for `edges="sparse"`) is
stored as `EdgeValued`: its values at each sample's edges. The sparse mode's edge
scopes read it there (`lookup`), probes hand it out as edge lists, the graph's own
mask (`adjacency(A)`) is derived from it edge by edge, and the interconnection graph's
edge list is taken from it. Anything else that reads the array (a dense round, a view,
a read of a computed pair in a node scope) gets the dense array, built once on that
first read (`EdgeState`): slower, never different.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.edge_lists import EdgeGraph


class EdgeValued:
    """A [B, N, N] datum as its values at `graph`'s edges; zero at every other pair."""

    __slots__ = ("_keys", "graph", "values")

    def __init__(self, graph: EdgeGraph, values: np.ndarray) -> None:
        self.graph, self.values = graph, values
        self._keys: np.ndarray | None = None

    @property
    def keys(self) -> np.ndarray:
        """(b * N + i) * N + j of each edge: ascending (C order)."""
        if self._keys is None:
            g = self.graph
            self._keys = (g.sample.astype(np.int64) * g.n + g.senders) * g.n + g.receivers
        return self._keys

    def dense(self) -> np.ndarray:
        g = self.graph
        out = np.zeros((g.batch_size, g.n, g.n), self.values.dtype)
        out[g.sample, g.senders, g.receivers] = self.values
        return out

    def lookup(self, b: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The values at pairs (b, i, j) (any shape, broadcast), zero where there is no edge."""
        n = self.graph.n
        want = (np.asarray(b, np.int64) * n + i) * n + j
        keys = self.keys
        pos = np.searchsorted(keys, want)
        pos = np.minimum(pos, max(0, keys.size - 1))
        if not keys.size:
            return np.zeros(want.shape, self.values.dtype)
        hit = keys[pos] == want
        return np.where(hit, self.values[pos], np.zeros((), self.values.dtype))

    def nonzero_graph(self) -> EdgeGraph:
        """The edges whose value is not zero (a mask's edges)."""
        keep = self.values != 0
        if keep.all():
            return self.graph
        g = self.graph
        counts = np.bincount(g.sample[keep], minlength=g.batch_size)
        return EdgeGraph(g.n, np.concatenate([[0], np.cumsum(counts)]), g.senders[keep],
                         g.receivers[keep])


class EdgeState(dict):
    """The machine's stored data: an `EdgeValued` entry becomes its dense array when read
    by name (`state[name]`, `state.get(name)`); `edge_valued(name)` reads it at its edges."""

    def __getitem__(self, name: str) -> np.ndarray:
        v = dict.__getitem__(self, name)
        if isinstance(v, EdgeValued):
            v = v.dense()
            dict.__setitem__(self, name, v)
        return v

    def get(self, name: str, default=None):
        return self[name] if name in self else default  # noqa: SIM401 (builds dense)

    def edge_valued(self, name: str) -> EdgeValued | None:
        v = dict.get(self, name)
        return v if isinstance(v, EdgeValued) else None


def edge_valued(state: dict, name: str) -> EdgeValued | None:
    """`name`'s edge values when `state` holds it at its edges, else None."""
    return state.edge_valued(name) if isinstance(state, EdgeState) else None


def adjacency_source(e: ir.Expr) -> tuple[str, bool] | None:
    """(X, transposed) when `e` is the view `adjacency(X)` (`adjacency(transpose(X))`):
    `X[i, j] != 0 or i == j`, as the lowering writes it; else None."""
    if not (isinstance(e, ir.Binary) and e.op == "or"):
        return None
    left, right = e.left, e.right
    if not (isinstance(right, ir.Binary) and right.op == "==" and
            isinstance(right.left, ir.IndexVar) and isinstance(right.right, ir.IndexVar) and
            right.left.axis == 0 and right.right.axis == 1):
        return None
    if not (isinstance(left, ir.Binary) and left.op == "!=" and isinstance(left.left, ir.Read)
            and isinstance(left.right, ir.Const) and not left.right.value):
        return None
    idx = left.left.indices
    if len(idx) != 2 or not all(isinstance(x, ir.IndexVar) for x in idx):
        return None
    axes = (idx[0].axis, idx[1].axis)
    if axes not in ((0, 1), (1, 0)):
        return None
    return left.left.name, axes == (1, 0)


def adjacency_of(src: EdgeValued, transposed: bool, batch: int, N: int) -> EdgeValued:
    """`adjacency(X)` of an edge-valued X: its nonzero pairs (transposed if asked) and every
    node's self-loop, all True."""
    g = src.nonzero_graph()
    s, r = (g.receivers, g.senders) if transposed else (g.senders, g.receivers)
    loops = np.arange(N)
    sample = np.concatenate([g.sample, np.repeat(np.arange(batch), N)])
    out = EdgeGraph.from_edges(N, sample, np.concatenate([s, np.tile(loops, batch)]),
                               np.concatenate([r, np.tile(loops, batch)]), batch)
    return EdgeValued(out, np.ones(out.num_edges, bool))


def at_graph(src: EdgeValued, graph: EdgeGraph) -> np.ndarray:
    """`src`'s values at each edge of `graph` (zero where `src` has none), [M]."""
    if src.graph.same_as(graph):
        return src.values
    return src.lookup(graph.sample, graph.senders, graph.receivers)


class FramesEdgeValued(EdgeValued):
    """An input held at its edges, as the frames environment of the recorded hints sees it
    (`recording.frames_env`): sample t * B + b is sample b at frame t, the same edges."""

    __slots__ = ("_base", "_frames")

    def __init__(self, base: EdgeValued, frames: int) -> None:
        g = base.graph
        counts = np.tile(g.counts, frames)
        graph = EdgeGraph(g.n, np.concatenate([[0], np.cumsum(counts)]),
                          np.tile(g.senders, frames), np.tile(g.receivers, frames))
        super().__init__(graph, np.tile(base.values, frames))
        self._base, self._frames = base, frames

    def dense(self) -> np.ndarray:
        one = self._base.dense()
        return np.broadcast_to(one[None], (self._frames,) + one.shape).reshape(
            (self._frames * one.shape[0],) + one.shape[1:])


def and_terms(e: ir.Expr) -> list[ir.Expr]:
    """The conjuncts of `a and b and ...` (`[e]` for anything else)."""
    if isinstance(e, ir.Binary) and e.op == "and":
        return and_terms(e.left) + and_terms(e.right)
    return [e]


def own_cell_reads(e: ir.Expr) -> list[str]:
    """The data a conjunct of `e` reads bare at the scope's own edge (`X[u, v]`)."""
    out = []
    for t in and_terms(e):
        if isinstance(t, ir.Read) and len(t.indices) == 2 and all(
                isinstance(x, ir.IndexVar) and x.axis == a for a, x in enumerate(t.indices)):
            out.append(t.name)
    return out


def within(src: EdgeValued, graph: EdgeGraph) -> bool:
    """Whether every nonzero edge of `src` is an edge of `graph` (same batch)."""
    g = src.nonzero_graph()
    if g.batch_size != graph.batch_size:
        return False
    edges = EdgeValued(graph, np.ones(graph.num_edges, bool))
    return bool(edges.lookup(g.sample, g.senders, g.receivers).all())
