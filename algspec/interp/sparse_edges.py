"""The sparse execution mode: a round's edge work over each sample's edge list, O(n + m).

The dense mode evaluates a neighbourhood aggregation in `forall v` (and an edge
`forall v, w`) over [B, N, N] arrays. Here the same expressions are evaluated over
the edges of the interconnection graph, one entry per edge of every sample
(`EdgeScope`), and reduced per node as segment operations. The stored data stay as
the dense mode keeps them (edge data [B, N, N], read and written at the edges only),
so everything else in the machine runs unchanged and the two modes give the same
bytes: elementwise arithmetic is the same per element, min/max/any/all/count and
integer sums do not depend on order, keyed reductions break ties by the lowest
node index as the dense mode does, and combining writes go through the one
`writes.commit_at`. Float sums over neighbours keep the program dense (`mode.py`).

Hint snapshots of edge data take the edge values only ([B, E] per frame) and are
made dense again when the hints are built (`densify`): edge data written only along
the graph's edges keep their initial values everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from algspec import ir
from algspec.edge_lists import EdgeGraph
from algspec.interp import mode as modes
from algspec.interp.dtypes import NP_DTYPE
from algspec.interp.edge_values import edge_valued
from algspec.interp.empty_sets import fill_empty
from algspec.interp.writes import check_index, commit_at
from algspec.ir import op_int_floats as int_floats
from algspec.ir import ops

if TYPE_CHECKING:
    from algspec.interp.env import Env

_BIG = np.iinfo(np.int64).max // 4  # the dense aggregation's integer fill
_TO_INT = frozenset({"int", "floor", "ceil"})


@dataclass
class Segments:
    """The edges in one direction, grouped by node: sample `b`, node `v`, neighbour `u`,
    sorted by (b, v, u); `ids`/`starts`: each non-empty segment's b * N + v and offset."""

    b: np.ndarray
    v: np.ndarray
    u: np.ndarray
    seg: np.ndarray
    ids: np.ndarray
    starts: np.ndarray


def _segments(b: np.ndarray, v: np.ndarray, u: np.ndarray, N: int) -> Segments:
    seg = b * N + v  # sorted: each segment's edges are one run
    starts = np.flatnonzero(np.concatenate([[True], seg[1:] != seg[:-1]])) if seg.size else \
        np.zeros(0, np.int64)
    return Segments(b, v, u, seg, seg[starts], starts)


class EdgeIndex:
    """Each sample's edges (from the interconnection graph) and what the sparse mode
    needs of them: both segment orders, [B, E] slots for snapshots, the initial edge data."""

    def __init__(self, env: Env, adj: np.ndarray | None, confined: bool,
                 graph: EdgeGraph | None = None):
        B, N = env.B, env.N
        self.B, self.N = B, N
        if graph is not None:  # the input's edge list: C order already
            eb = graph.sample
            ei, ej = graph.senders.astype(np.int64), graph.receivers.astype(np.int64)
        else:
            eb, ei, ej = np.nonzero(adj)  # C order: (b, i, j) ascending
        self.out = _segments(eb, ei, ej, N)  # outgoing(v): adj[b, v, u]
        o = np.argsort((eb * N + ej) * N + ei, kind="stable")  # (b, j, i) order
        self.inc = _segments(eb[o], ej[o], ei[o], N)  # incoming(v): adj[b, u, v]
        counts = np.bincount(eb, minlength=B)
        self._edges = (counts, ei, ej)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        E = max(1, int(counts.max(initial=0)))
        slot = np.arange(len(eb)) - first[eb]
        self.slot_i = np.zeros((B, E), np.int64)
        self.slot_j = np.zeros((B, E), np.int64)
        self.slot_i[eb, slot] = ei
        self.slot_j[eb, slot] = ej
        self.slot_valid = np.zeros((B, E), bool)
        self.slot_valid[eb, slot] = True
        self._rows = np.arange(B)[:, None]
        self._ok: dict[int, bool] = {}
        self.input_reads: dict[tuple, np.ndarray] = {}  # (input, scope arrays) -> values
        # Edge data snapshotted at the edges only: written along the graph's edges alone
        # (`mode.sparse_blocker` is None), so their other cells keep the initial values.
        self.snapped: set[str] = set()
        self.base: dict[str, np.ndarray] = {}
        if confined:
            for d in env.prog.decls:
                if d.loc == ir.Loc.EDGE and d.stage != ir.Stage.INPUT and d.derived is None:
                    self.snapped.add(d.name)
                    self.base[d.name] = env.state[d.name].copy()

    def storage_graph(self) -> EdgeGraph:
        """The edges as `edge_lists.EdgeGraph` (C order, as stored datasets hold them)."""
        counts, ei, ej = self._edges
        return EdgeGraph(self.N, np.concatenate([[0], np.cumsum(counts)]), ei, ej)

    # ------------------------------------------------------------ snapshots
    def at_edges(self, arr: np.ndarray) -> np.ndarray:
        """A [B, N, N] datum's values at each sample's edge slots, [B, E]."""
        return arr[self._rows, self.slot_i, self.slot_j]

    def densify(self, name: str, frames: np.ndarray) -> np.ndarray:
        """Snapshots [T, B, E] of `name` as [T, B, N, N]: the initial values off the edges."""
        T = frames.shape[0]
        base = self.base[name]
        dtype = frames.dtype
        if dtype.kind in "iu" and base.size and not (
                np.can_cast(base.min(), dtype) and np.can_cast(base.max(), dtype)):
            dtype = np.promote_types(dtype, base.dtype)
        out = np.empty((T,) + base.shape, dtype)
        out[:] = base[None]
        b, s = np.nonzero(self.slot_valid)
        out[:, b, self.slot_i[b, s], self.slot_j[b, s]] = frames[:, b, s]
        return out

    # ------------------------------------------------------------ what runs sparse
    def aggregate(self, env: Env, e: ir.Aggregate, rank: int,
                  mask: np.ndarray) -> np.ndarray | None:
        """A neighbourhood aggregation over the edge list, or None where it stays dense
        (`aggregate` below; the dense evaluator reaches it through the env's index)."""
        return aggregate(env, e, rank, mask)

    def aggregate_ok(self, env: Env, e: ir.Aggregate) -> bool:
        ok = self._ok.get(id(e))
        if ok is None:
            ok = self._ok[id(e)] = modes.aggregate_blocker(e, env.prog) is None
        return ok

    def forall_ok(self, env: Env, s: ir.Forall) -> bool:
        ok = self._ok.get(id(s))
        if ok is None:
            ok = self._ok[id(s)] = modes.forall_blocker(s, env.prog) is None
        return ok


def build(env: Env, requested: str | None) -> EdgeIndex | None:
    """The edge index when this run goes sparse (`mode.choose`), else None (dense)."""
    want = modes.requested_mode(requested)
    graph = env.adj_graph
    if not modes.choose(env.prog, want, env.N, None if graph is not None else env.adj,
                        env.obs is not None, None if graph is None else graph.counts):
        return None
    return EdgeIndex(env, None if graph is not None else env.adj,
                     modes.sparse_blocker(env.prog) is None, graph)


class EdgeScope:
    """Expressions evaluated at a list of edges: sample `b`, and each scope axis's node.

    A value is an array over the edges, or of shape (1,) when it is the same at every
    edge. Values of the dense scope around it (locals, node data) are gathered.
    """

    def __init__(self, env: Env, b: np.ndarray, axes: dict[int, np.ndarray]):
        self.env = env
        self.b = b
        self.axes = axes
        self.size = len(b)
        self.locals: dict[str, np.ndarray] = {}

    def fault(self, code: str, message: str, bad: np.ndarray, span=None):
        lanes = np.zeros(self.env.B, bool)
        lanes[self.b[np.broadcast_to(bad, (self.size,))]] = True
        self.env.fault(code, message, lanes, span)

    def gather(self, x) -> np.ndarray:
        """A dense-scope value (B or 1, then N or 1 per scope axis) at each edge."""
        x = np.asarray(x)
        if x.ndim == 0 or all(d == 1 for d in x.shape):
            return x.reshape(-1)[:1]
        idx = [self.b if x.shape[0] != 1 else 0]
        idx += [self.axes[k - 1] if x.shape[k] != 1 else 0 for k in range(1, x.ndim)]
        return x[tuple(idx)]

    def full(self, x: np.ndarray) -> np.ndarray:
        return np.broadcast_to(x, (self.size,))

    def eval(self, e: ir.Expr, mask: np.ndarray) -> np.ndarray:
        """The value of `e` at each edge; `mask` marks the edges that matter (for faults)."""
        env = self.env
        k = e.kind
        if k == "const":
            return np.asarray(e.value, dtype=NP_DTYPE[e.dtype]).reshape(1)
        if k == "size":
            if e.which == "m":
                return self.gather(env.m)
            return np.asarray(env.n if e.which == "n" else env.N).reshape(1)
        if k == "ivar":
            return self.axes[e.axis]
        if k == "var":
            if e.local:
                v = self.locals.get(e.name)
                return v if v is not None else self.gather(env.locals[e.name])
            v = env.state.get(e.name)
            if v is None:
                v = env.view(env.decl(e.name).derived, ir.Loc.GRAPH)
            return self.gather(v)
        if k == "read":
            return self.read(e, mask)
        if k == "unary":
            return ops.UNARY[e.op].numpy(self.eval(e.operand, mask))
        if k == "binary":
            left = self.eval(e.left, mask)
            if e.op == "and":
                live = mask & left
                return left & self.eval(e.right, live) if live.any() else left
            if e.op == "or":
                live = mask & ~left
                return left | self.eval(e.right, live) if live.any() else left
            right = self.eval(e.right, mask)
            if e.op in ("//", "%") and e.dtype == ir.DType.INT:
                zero = (right == 0) & mask
                if zero.any():
                    self.fault("R104", "integer division by zero", zero)
                right = np.where(right == 0, 1, right)
            elif e.op in ("//", "%") and (bad := int_floats.fault(e.op, left, right, mask)):
                self.fault(*bad, e.span)  # floats: integer values only, as the dense mode
            return ops.BINARY[e.op].numpy(left, right)
        if k == "cond":
            c = self.eval(e.cond, mask)
            yes, no = mask & c, mask & ~c
            if not no.any():
                return self.eval(e.then, yes)
            if not yes.any():
                return self.eval(e.otherwise, no)
            return np.where(c, self.eval(e.then, yes), self.eval(e.otherwise, no))
        if k == "call":
            args = [self.eval(a, mask) for a in e.args]
            if e.func in _TO_INT and e.args[0].dtype == ir.DType.FLOAT:
                with np.errstate(invalid="ignore"):
                    bad = ~(np.abs(args[0]) < 2.0 ** 63) & mask
                if bad.any():
                    self.fault("R109", f"`{e.func}` of a float that is not a finite 64-bit "
                               "integer value (inf or nan)", bad, e.span)
            return ops.CALLS[e.func].numpy(*args)
        raise TypeError(f"{k} in an edge scope")  # mode.edge_expr_blocker keeps these dense

    def read(self, e: ir.Read, mask: np.ndarray) -> np.ndarray:
        env = self.env
        own = all(x.kind == "ivar" for x in e.indices)
        key = None
        if own and env.decl(e.name).stage == ir.Stage.INPUT and env.sparse is not None:
            # inputs never change: each edge's value is gathered once per run and scope
            key = (e.name, id(self.b), *(id(self.axes[x.axis]) for x in e.indices))
            hit = env.sparse.input_reads.get(key)
            if hit is not None:
                return hit
        held = edge_valued(env.state, e.name)
        if held is not None:  # an input held at its edges (`edge_values`)
            idx = [self.axes[x.axis] for x in e.indices] if own else \
                self._indices(e, mask)
            out = held.lookup(self.b, *idx)
        else:
            arr = env.state.get(e.name)
            if arr is None:
                d = env.decl(e.name)
                arr = np.ascontiguousarray(env.view(d.derived, d.loc))
            idx = [self.axes[x.axis] for x in e.indices] if own else \
                self._indices(e, mask)
            out = arr[(self.b, *idx)]
        if key is not None:
            env.sparse.input_reads[key] = out
        return out

    def _indices(self, e: ir.Read, mask: np.ndarray) -> list[np.ndarray]:
        """The computed indices of a read at each edge, R101 for one out of range."""
        env = self.env
        idx = [self.eval(x, mask) for x in e.indices]
        bad = np.zeros(1, bool)
        for i in idx:
            bad = bad | (i < 0) | (i >= env.N)
        if bad.any():
            bad = bad & mask
            if bad.any():
                self.fault("R101", f"index out of range reading `{e.name}`", bad, e.span)
            idx = [np.clip(i, 0, env.N - 1) for i in idx]
        return idx


# ---------------------------------------------------------------- aggregations
def aggregate(env: Env, e: ir.Aggregate, rank: int, mask: np.ndarray) -> np.ndarray | None:
    """A neighbourhood aggregation in a node scope as segment reductions; None: run dense."""
    ix: EdgeIndex | None = env.sparse
    if ix is None or env.obs is not None or rank != 1 or e.domain == "nodes" or \
            not ix.aggregate_ok(env, e):
        return None
    g = ix.inc if e.domain == "incoming" else ix.out
    B, N = env.B, env.N
    sc = EdgeScope(env, g.b, {0: g.v, 1: g.u})
    lane = sc.gather(env.lift(mask, rank))
    sel = np.ones(1, bool)
    if e.filter is not None:
        sel = sel & sc.eval(e.filter, lane)
    sel = sc.full(sel)
    if e.op in ("argmin", "argmax"):
        out = _arg(sc, e, g, sel, lane & sel, B * N)
    else:
        body = sc.full(sc.eval(e.body, lane & sel))
        out = _reduce(e.op, g, sel, body, B * N)
    out = out.reshape(B, N)
    if e.op in ("any", "all", "count", "sum"):
        return out
    empty = (np.bincount(g.seg[sel], minlength=B * N) == 0).reshape(B, N)
    return fill_empty(env, e, empty, out, rank, mask, env.eval)


def _reduce(op: str, g: Segments, sel: np.ndarray, body: np.ndarray, size: int) -> np.ndarray:
    """Per node: what the dense mode's reduction along the neighbour axis gives."""
    if op == "any":
        return np.bincount(g.seg[sel & body], minlength=size) > 0
    if op == "all":
        return np.bincount(g.seg[sel & ~body], minlength=size) == 0
    if op == "count":
        return np.bincount(g.seg[sel & body], minlength=size).astype(np.int64)
    if op == "sum":  # integers only (mode.aggregate_blocker): exact in any order
        vals = np.where(sel, body, 0)
        out = np.zeros(size, vals.dtype)
        if len(vals):
            out[g.ids] = np.add.reduceat(vals, g.starts)
        return out
    is_int = body.dtype.kind in "iub"
    fill = (_BIG if op == "min" else -_BIG) if is_int else (np.inf if op == "min" else -np.inf)
    red = np.where(sel, body, fill)
    out = np.full(size, fill, red.dtype)
    if len(red):
        ufunc = np.minimum if op == "min" else np.maximum
        out[g.ids] = ufunc.reduceat(red, g.starts)
    return out


def _arg(sc: EdgeScope, e: ir.Aggregate, g: Segments, sel: np.ndarray, live: np.ndarray,
         size: int) -> np.ndarray:
    """argmin/argmax: lexicographically smallest (largest) key, ties to the lowest node."""
    parts = list(e.body.args) if isinstance(e.body, ir.Tuple) else [e.body]
    keys = []
    for p in parts:
        k = sc.full(sc.eval(p, live))[sel]
        k = k.astype(np.int64) if k.dtype.kind == "b" else k
        keys.append(-k if e.op == "argmax" else k)
    u, seg = g.u[sel], g.seg[sel]
    out = np.zeros(size, np.int64)
    if len(u):
        order = np.lexsort((u, *reversed(keys), seg))
        ids, first = np.unique(seg[order], return_index=True)
        out[ids] = u[order[first]]
    return out


# ---------------------------------------------------------------- edge rounds
def forall(mach, s: ir.Forall, mask: np.ndarray) -> bool:
    """Run `forall v, w` over the graph's edges; False when it must run dense."""
    ix: EdgeIndex | None = getattr(mach, "sparse", None)
    if ix is None or mach.obs is not None or len(s.vars) != 2 or not ix.forall_ok(mach, s):
        return False
    g = ix.out
    sc = EdgeScope(mach, g.b, {0: g.v, 1: g.u})
    m = sc.gather(mask)
    if s.guard is not None:
        m = m & sc.eval(s.guard, m)
    _block(mach, sc, s.body, sc.full(m))
    return True


def _block(mach, sc: EdgeScope, stmts: list[ir.Statement], m: np.ndarray) -> None:
    for st in stmts:
        if not m.any():
            return
        mach.stmt = st
        if st.kind == "let":
            v = sc.eval(st.value, m)
            old = sc.locals.get(st.name)
            sc.locals[st.name] = sc.full(v).copy() if old is None else np.where(m, v, old)
        elif st.kind == "if":
            c = sc.full(sc.eval(st.cond, m))
            _block(mach, sc, st.then, m & c)
            if st.otherwise:
                mach.stmt = st
                _block(mach, sc, st.otherwise, m & ~c)
        else:
            _assign(mach, sc, st, m)


def _assign(mach, sc: EdgeScope, s: ir.Assign, m: np.ndarray) -> None:
    vals = [sc.eval(v, m) for v in s.values]
    idxs = [[sc.eval(i, m) for i in t.indices] for t in s.targets]
    keys = [sc.eval(k, m) for k in s.key] if s.key else None
    for t, v, idx in zip(s.targets, vals, idxs):
        if t.local:
            old = sc.locals.get(t.name)
            old = np.zeros(sc.size, NP_DTYPE[t.dtype]) if old is None else old
            sc.locals[t.name] = np.where(m, v, old).astype(NP_DTYPE[t.dtype])
            continue
        write = partial(_commit, mach, sc, t, v, idx, m, s, keys)
        if mach.pending is not None:
            sel = np.nonzero(m)[0]
            check_index(mach, [sc.full(i)[sel] for i in idx], t, sc.b[sel])
            mach.pending.writes.append(write)
        else:
            write()


def _commit(mach, sc: EdgeScope, t: ir.Target, v, idx, m, s: ir.Assign, keys) -> None:
    """The dense mode's `writes.commit` for the processors of an edge round."""
    mach.stmt = s
    sel = np.nonzero(m)[0]
    if not len(sel):
        return
    pos = (sc.b[sel], sc.axes[0][sel], sc.axes[1][sel])
    vals = sc.full(v)[sel]
    own = t.loc == ir.Loc.EDGE and len(t.indices) == 2 and all(
        i.kind == "ivar" and i.axis == a for a, i in enumerate(t.indices))
    if own and (s.combiner is None or getattr(mach, "combined", None) is None):
        arr = mach.state[t.name]
        if s.accumulate:
            vals = arr[pos] + vals
        arr[pos] = vals.astype(np.result_type(vals, arr)).astype(NP_DTYPE[t.dtype])
        return
    ii = None if t.loc == ir.Loc.GRAPH else [sc.full(i)[sel] for i in idx]
    kvs = [sc.full(k)[sel] for k in keys or []]
    commit_at(mach, t, pos, vals, ii, kvs, 2, s.combiner, s)
