"""The batched reference interpreter: executes the IR over a batch of samples with numpy.

Control flow is run SIMT-style: every statement executes once for the whole
batch under a boolean lane mask (the samples for which it runs), so loops
iterate as long as any sample is still inside them. Values are numpy arrays
of shape `(B, *scope)`: one axis per bound node-index variable of the
current scope (size N, or 1 when the value does not vary along it).

Parallel rounds buffer their writes and commit them at the end, so every
read in a round sees the state before it. Concurrent writes combine with the
declared combiner; `priority` keeps the value of the lowest processor index.

An optional observer receives the nodes and edges each statement touches
(see `algspec.efficiency.measured`), which is how the measured efficiency is
counted without a second copy of any algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from algspec import ir
from algspec.diagnostics import RuntimeFault, Span

_NP = {ir.DType.INT: np.int64, ir.DType.FLOAT: np.float64, ir.DType.BOOL: np.bool_}
_BIG = np.iinfo(np.int64).max // 4
_RESERVE_BYTES = 1 << 30  # most address space one snapshot buffer reserves up front


class ActivityObserver(Protocol):
    def nodes(self, stmt_id: int, sample: np.ndarray, node: np.ndarray) -> None: ...

    def edges(self, stmt_id: int, sample: np.ndarray, src: np.ndarray,
              dst: np.ndarray) -> None: ...

    def frame(self, sample: np.ndarray) -> None: ...


@dataclass
class Trajectories:
    """A batch of trajectories in CLRS's probe encoding (see docs/ARCHITECTURE.md)."""

    spec: dict[str, tuple[str, str, str]]
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    hints: dict[str, np.ndarray]
    lengths: np.ndarray

    @property
    def batch_size(self) -> int:
        return int(self.lengths.shape[0])


class _Pending:
    """Writes buffered during a round, committed at its end."""

    def __init__(self) -> None:
        self.writes: list[tuple] = []


class Machine:
    """Runs one `ir.Program` on one batch of inputs."""

    def __init__(self, prog: ir.Program, inputs: dict[str, np.ndarray], n: int,
                 observer: ActivityObserver | None = None, dtype=np.float32,
                 batch_size: int | None = None):
        self.prog = prog
        self.dtype = dtype
        self.obs = observer
        if batch_size is None:
            if not inputs:
                raise ValueError(f"{prog.name} has no generated inputs: give the batch size")
            batch_size = int(np.asarray(next(iter(inputs.values()))).shape[0])
        self.B = batch_size
        self.n = n
        self.state: dict[str, np.ndarray] = {}
        self.locals: dict[str, np.ndarray] = {}
        self.broken: list[np.ndarray] = []
        self.pending: _Pending | None = None
        self.stmt: ir.IRNode | None = None
        self.m = np.zeros(self.B, dtype=np.int64)
        self.N = int(self._static(prog.nodes, m=None))
        if self.N < 1:
            raise ValueError(f"{prog.name}: node count {self.N} for n={n}")
        self._decls = {d.name: d for d in prog.decls}
        self._load_inputs(inputs)
        self.adj = self._interconnection()
        self.m = self.adj.sum(axis=(1, 2)).astype(np.int64)
        self._init_state()
        self._plan_records()
        self.counts = np.zeros(self.B, dtype=np.int64)
        self.buffers: dict[str, np.ndarray] = {}
        self.loop_iters: dict[int, np.ndarray] = {}

    # ---------------------------------------------------------------- set-up
    def _static(self, e: ir.Expr, m) -> float:
        """Evaluate an expression in n, N and m (sizes); m may be per sample."""
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Size):
            return {"n": self.n, "N": getattr(self, "N", self.n), "m": m}[e.which]
        if isinstance(e, ir.Unary):
            return -self._static(e.operand, m)
        if isinstance(e, ir.Call):
            args = [self._static(a, m) for a in e.args]
            f = {"log2": lambda x: np.log2(np.maximum(x, 1)), "sqrt": np.sqrt,
                 "floor": np.floor, "ceil": np.ceil, "abs": np.abs, "float": lambda x: x,
                 "int": np.trunc, "min": np.minimum, "max": np.maximum}[e.func]
            return f(*args)
        if isinstance(e, ir.Binary):
            a, b = self._static(e.left, m), self._static(e.right, m)
            return _binop(e.op, np.asarray(a), np.asarray(b))
        raise TypeError(e)

    def _load_inputs(self, inputs: dict[str, np.ndarray]) -> None:
        pads = []
        for d in self.prog.decls:
            if d.stage != ir.Stage.INPUT or d.derived is not None:
                continue
            if d.name not in inputs:
                raise KeyError(f"missing input `{d.name}`")
            x = np.asarray(inputs[d.name])
            shape = {ir.Loc.GRAPH: (self.B,), ir.Loc.NODE: (self.B, self.N),
                     ir.Loc.EDGE: (self.B, self.N, self.N)}[d.loc]
            if d.loc == ir.Loc.NODE and x.shape == (self.B, self.n) and self.n != self.N:
                padded = np.zeros(shape, dtype=x.dtype)
                padded[:, : self.n] = x
                x = padded
                pads.append(d)
            if x.shape != shape:
                raise ValueError(f"input `{d.name}` has shape {x.shape[1:]}, expected "
                                 f"{shape[1:]} for n={self.n}")
            self.state[d.name] = x.astype(_NP[d.dtype])
        for d in pads:  # nodes beyond the n generated ones take the `pad` value
            if d.pad is not None:
                pad = np.broadcast_to(self.eval(d.pad, 0, np.ones(self.B, bool)), (self.B,))
                self.state[d.name][:, self.n:] = pad[:, None]
        for d in self.prog.decls:
            if d.stage == ir.Stage.INPUT and d.derived is not None:
                self.state[d.name] = self.whole(d.derived, d.loc).astype(_NP[d.dtype])

    def _interconnection(self) -> np.ndarray:
        g = self.prog.graph
        if g.mask_name is None:
            return np.ones((self.B, self.N, self.N), dtype=bool)
        return self.state[g.mask_name].astype(bool)

    def _init_state(self) -> None:
        for d in self.prog.decls:
            if d.stage == ir.Stage.INPUT or d.derived is not None:
                continue
            shape = {ir.Loc.GRAPH: (self.B,), ir.Loc.NODE: (self.B, self.N),
                     ir.Loc.EDGE: (self.B, self.N, self.N)}[d.loc]
            if d.initial is not None:
                v = np.broadcast_to(self.whole(d.initial, d.loc), shape)
                self.state[d.name] = v.astype(_NP[d.dtype]).copy()
            else:
                self.state[d.name] = np.zeros(shape, dtype=_NP[d.dtype])

    # ---------------------------------------------------------------- helpers
    def fault(self, code: str, message: str, bad_lanes: np.ndarray, span: Span | None = None):
        bad = np.asarray(bad_lanes).reshape(self.B, -1).any(axis=1)
        sample = int(np.argmax(bad))
        node = self.stmt if span is None else None
        raise RuntimeFault(code, message, span or (node.span if node else Span()), sample,
                           path=self.prog.path)

    def _lift(self, x: np.ndarray, rank: int) -> np.ndarray:
        """Append singleton axes so a value of a smaller scope broadcasts in this one."""
        x = np.asarray(x)
        if x.ndim == 0:
            return x.reshape((1,) * (rank + 1))
        if x.ndim < rank + 1:
            return x.reshape(x.shape + (1,) * (rank + 1 - x.ndim))
        return x

    def whole(self, e: ir.Expr, loc: ir.Loc) -> np.ndarray:
        """Evaluate a whole-array (pointwise) expression at a location: (B,), (B,N) or (B,N,N)."""
        rank = {ir.Loc.GRAPH: 0, ir.Loc.NODE: 1, ir.Loc.EDGE: 2}[loc]
        v = self.eval(e, rank, np.ones((self.B,) + (1,) * rank, bool))
        return np.broadcast_to(v, (self.B,) + (self.N,) * rank)

    # ---------------------------------------------------------------- expressions
    def eval(self, e: ir.Expr, rank: int, mask: np.ndarray) -> np.ndarray:
        """Evaluate `e` in a scope of `rank` index axes; `mask` marks the lanes that matter."""
        k = e.kind
        if k == "const":
            return np.asarray(e.value, dtype=_NP[e.dtype]).reshape((1,) * (rank + 1))
        if k == "size":
            if e.which == "m":
                return self._lift(self.m, rank)
            return np.asarray(self.n if e.which == "n" else self.N).reshape((1,) * (rank + 1))
        if k == "ivar":
            shape = [1] * (rank + 1)
            shape[e.axis + 1] = self.N
            return np.arange(self.N).reshape(shape)
        if k == "var":
            if e.local:
                return self._lift(self.locals[e.name], rank)
            v = self.state.get(e.name)
            if v is None:  # a graph-level view: evaluate it now
                v = self.whole(self._decls[e.name].derived, ir.Loc.GRAPH)
            return self._lift(v, rank)
        if k == "read":
            return self.read(e, rank, mask)
        if k == "unary":
            x = self.eval(e.operand, rank, mask)
            return ~x if e.op == "not" else -x
        if k == "binary":
            left = self.eval(e.left, rank, mask)
            if e.op == "and":  # short-circuit, lane by lane; skip the right side if no lane needs it
                live = mask & left
                return left & self.eval(e.right, rank, live) if live.any() else left
            if e.op == "or":
                live = mask & ~left
                return left | self.eval(e.right, rank, live) if live.any() else left
            right = self.eval(e.right, rank, mask)
            if e.op in ("//", "%") and e.dtype == ir.DType.INT:
                zero = (right == 0) & mask
                if zero.any():
                    self.fault("R104", "integer division by zero", zero)
                right = np.where(right == 0, 1, right)
            return _binop(e.op, left, right)
        if k == "cond":
            c = self.eval(e.cond, rank, mask)
            yes, no = mask & c, mask & ~c
            if not no.any():  # every lane that matters takes one branch: evaluate only it
                return self.eval(e.then, rank, yes)
            if not yes.any():
                return self.eval(e.otherwise, rank, no)
            return np.where(c, self.eval(e.then, rank, yes), self.eval(e.otherwise, rank, no))
        if k == "call":
            args = [self.eval(a, rank, mask) for a in e.args]
            return _call(e.func, args)
        if k == "chain":
            return self.chain(e, rank)
        if k == "agg":
            return self.aggregate(e, rank, mask)
        raise TypeError(k)

    def read(self, e: ir.Read, rank: int, mask: np.ndarray) -> np.ndarray:
        arr = self.state.get(e.name)
        if arr is None:  # a derived hint/output read in the body: evaluate its view now
            d = self._decls[e.name]
            arr = np.ascontiguousarray(self.whole(d.derived, d.loc))
        # Fast path: indices are distinct scope variables (own reads, transposes).
        if all(x.kind == "ivar" for x in e.indices) and \
                len({x.axis for x in e.indices}) == len(e.indices):
            axes = [x.axis for x in e.indices]
            order = np.argsort(axes)
            a = arr if list(order) == list(range(len(axes))) else \
                np.transpose(arr, [0] + [int(o) + 1 for o in order])
            shape = [self.B] + [1] * rank
            for ax in sorted(axes):
                shape[ax + 1] = self.N
            return a.reshape(shape)
        idx = [self.eval(x, rank, mask) for x in e.indices]
        shape = np.broadcast_shapes((self.B,) + (1,) * rank, *(i.shape for i in idx))
        if any(i.min() < 0 or i.max() >= self.N for i in idx):
            bad = np.zeros(shape, bool)
            for i in idx:
                bad = bad | (i < 0) | (i >= self.N)
            bad = bad & mask
            if bad.any():
                self.fault("R101", f"index out of range reading `{e.name}`", bad, e.span)
            idx = [np.clip(i, 0, self.N - 1) for i in idx]
        if len(idx) == 2 and self.obs is None:  # a row or column of an edge array
            for k_var, k_val in ((1, 0), (0, 1)):
                iv, other = e.indices[k_var], idx[k_val]
                if iv.kind == "ivar" and other.size in (1, self.B) and \
                        other.shape[0] in (1, self.B):
                    g = np.broadcast_to(other.reshape(-1), (self.B,))
                    rows = np.arange(self.B)
                    line = arr[rows, g] if k_var == 1 else arr[rows, :, g]
                    out_shape = [self.B] + [1] * rank
                    out_shape[iv.axis + 1] = self.N
                    return line.reshape(out_shape)
        if rank == 0 and self.obs is None:  # one element per sample: plain fancy indexing
            rows = np.arange(self.B)
            return arr[(rows, *(i.reshape(-1) for i in idx))] if all(
                i.shape[0] == self.B for i in idx) else arr[(rows, *(np.broadcast_to(
                    i, (self.B,)) for i in idx))]
        idx = [np.broadcast_to(i, shape) for i in idx]
        flat = idx[0] if len(idx) == 1 else idx[0] * self.N + idx[1]
        out = np.take_along_axis(arr.reshape(self.B, -1), flat.reshape(self.B, -1), axis=1)
        if self.obs is not None:
            self._observe_read(e, rank, idx, mask, shape)
        return out.reshape(shape)

    def chain(self, e: ir.Chain, rank: int) -> np.ndarray:
        order = self.state[e.order]
        if order.size and (order.min() < 0 or order.max() >= self.N):
            bad = (order < 0) | (order >= self.N)
            self.fault("R101", f"`{e.order}` holds a node index out of range", bad, e.span)
        prev = np.empty_like(order)
        prev[:, 1:] = order[:, :-1]
        prev[:, 0] = order[:, 0]
        flat = order + (np.arange(self.B) * self.N)[:, None]
        pred = np.full(order.size, -1, dtype=order.dtype)
        pred[flat.ravel()] = prev.ravel()
        pred = pred.reshape(order.shape)
        missing = pred < 0  # not a permutation: unlisted nodes point to themselves
        if missing.any():
            pred = np.where(missing, np.arange(self.N)[None, :], pred)
        shape = [self.B] + [1] * rank
        shape[e.axis + 1] = self.N
        return pred.reshape(shape)

    def aggregate(self, e: ir.Aggregate, rank: int, mask: np.ndarray) -> np.ndarray:
        inner = rank + 1
        outer_mask = self._lift(mask, inner)
        if e.domain == "nodes":
            dom = np.ones((1,) * (inner + 1), bool)
            of = None
        else:
            of = self._lift(self.eval(e.of, rank, mask), inner)
            bad = ((of < 0) | (of >= self.N)) & outer_mask
            if bad.any():
                self.fault("R101", "neighbourhood of a node index out of range", bad, e.span)
            u_shape = [1] * (inner + 1)
            u_shape[inner] = self.N
            u = np.arange(self.N).reshape(u_shape)
            b = np.arange(self.B).reshape((self.B,) + (1,) * inner)
            ofc = np.clip(of, 0, self.N - 1)
            dom = self.adj[b, u, ofc] if e.domain == "incoming" else self.adj[b, ofc, u]
        # The lane mask only decides where faults count; leaving it out of the
        # selection keeps loop-invariant aggregations at their own (small) shape.
        live = dom & outer_mask
        sel = dom
        if e.filter is not None:
            sel = sel & self.eval(e.filter, inner, live)
        body = self.eval(e.body, inner, live & sel)
        full = np.broadcast_shapes(sel.shape, body.shape, (self.B,) + (1,) * inner)
        sel = np.broadcast_to(sel, full)
        body = np.broadcast_to(body, full)
        if self.obs is not None:
            self._observe_agg(e, rank, sel & outer_mask, of)
        op = e.op
        if op == "any":
            return (sel & body).any(axis=-1)
        if op == "all":
            return (~sel | body).all(axis=-1)
        if op == "count":
            return (sel & body).sum(axis=-1)
        if op == "sum":
            return np.where(sel, body, 0).sum(axis=-1)
        empty = ~sel.any(axis=-1)
        is_int = body.dtype.kind in "iub"
        fill = (_BIG if op == "min" else -_BIG) if is_int else (np.inf if op == "min" else -np.inf)
        red = np.where(sel, body, fill)
        out = red.min(axis=-1) if op == "min" else red.max(axis=-1)
        if empty.any():
            if e.default is None:
                live = empty & self._lift(mask, rank)
                if live.any():
                    self.fault("R103", f"`{op}` over an empty set has no `default`", live, e.span)
            else:
                d = self.eval(e.default, rank, mask)
                out = np.where(empty, d, out)
        return out

    # ---------------------------------------------------------------- observation
    def _observe_read(self, e: ir.Read, rank: int, idx, mask, shape) -> None:
        live = np.broadcast_to(mask, shape)
        pos = np.nonzero(live)
        if not len(pos[0]):
            return
        b = pos[0]
        sid = self.stmt.id if self.stmt is not None else -1
        if e.loc == ir.Loc.EDGE:
            self.obs.edges(sid, b, idx[0][pos], idx[1][pos])
            return
        src = idx[0][pos]
        if rank >= 1:  # a processor dereferencing a pointer: one edge src -> processor
            proc = pos[1]
            other = src != proc
            self.obs.edges(sid, b[other], src[other], proc[other])
            self.obs.nodes(sid, b, proc)
        self.obs.nodes(sid, b, src)

    def _observe_agg(self, e: ir.Aggregate, rank: int, sel: np.ndarray, of) -> None:
        pos = np.nonzero(sel)
        if not len(pos[0]):
            return
        sid = self.stmt.id if self.stmt is not None else -1
        b, u = pos[0], pos[-1]
        if of is not None:
            tgt = np.broadcast_to(of, sel.shape)[pos]
            if e.domain == "incoming":
                self.obs.edges(sid, b, u, tgt)
            else:
                self.obs.edges(sid, b, tgt, u)
            self.obs.nodes(sid, b, tgt)
        elif rank >= 1:
            self.obs.edges(sid, b, u, pos[1])
        else:
            self.obs.nodes(sid, b, u)

    # ---------------------------------------------------------------- statements
    def run(self) -> Trajectories:
        self.block(self.prog.body, np.ones(self.B, bool), 0)
        return self.collect()

    def block(self, stmts: list[ir.Statement], mask: np.ndarray, rank: int) -> None:
        for s in stmts:
            if self.broken and rank == 0:
                mask = mask & ~self.broken[-1]
            if not mask.any():
                return
            self.exec(s, mask, rank)

    def exec(self, s: ir.Statement, mask: np.ndarray, rank: int) -> None:
        self.stmt = s
        k = s.kind
        if k == "assign":
            self.assign(s, mask, rank)
        elif k == "let":
            v = self.eval(s.value, rank, mask)
            old = self.locals.get(s.name)
            if old is None or old.shape != np.broadcast_shapes(v.shape, mask.shape):
                self.locals[s.name] = np.broadcast_to(v, np.broadcast_shapes(v.shape,
                                                                            mask.shape)).copy()
            else:
                self.locals[s.name] = np.where(mask, v, old)
        elif k == "record":
            self.record(mask)
        elif k == "break":
            self.broken[-1] |= mask
        elif k == "if":
            c = self.eval(s.cond, rank, mask)
            c = np.broadcast_to(c, np.broadcast_shapes(c.shape, mask.shape))
            self.block(s.then, mask & c, rank)
            if s.otherwise:
                self.stmt = s
                self.block(s.otherwise, mask & ~c, rank)
        elif k == "while":
            self.while_loop(s, mask)
        elif k == "for_range":
            self.for_range(s, mask)
        elif k == "for_nodes":
            self.for_nodes(s, mask)
        elif k == "round":
            self.round(s, mask)
        elif k == "forall":
            self.forall(s, mask)
        else:
            raise TypeError(k)

    def _bound(self, s: ir.Statement, e: ir.Expr) -> np.ndarray:
        return np.ceil(np.broadcast_to(np.asarray(self._static(e, self.m), dtype=float),
                                       (self.B,))).astype(np.int64)

    def _count_iters(self, s: ir.Statement, lanes: np.ndarray, iters: np.ndarray) -> None:
        cur = self.loop_iters.get(s.id)
        self.loop_iters[s.id] = iters.copy() if cur is None else np.maximum(cur, iters)

    def while_loop(self, s: ir.While, mask: np.ndarray) -> None:
        bound = self._bound(s, s.bound)
        iters = np.zeros(self.B, np.int64)
        self.broken.append(np.zeros(self.B, bool))
        lanes = mask & self.eval(s.cond, 0, mask)
        while lanes.any():
            iters += lanes
            over = lanes & (iters > bound)
            if over.any():
                self.stmt = s
                self.fault("R102", f"loop bound exceeded: more than {int(bound[over][0])} "
                           "iterations", over)
            self.block(s.body, lanes, 0)
            lanes = lanes & ~self.broken[-1]
            self.stmt = s
            lanes = lanes & self.eval(s.cond, 0, lanes)
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def _set_loop_var(self, s, value: np.ndarray, lanes: np.ndarray) -> None:
        store = self.locals if s.var_local else self.state
        old = store.get(s.var)
        if old is None:
            old = np.zeros(self.B, np.int64)
        store[s.var] = np.where(lanes, value, old)

    def for_range(self, s: ir.ForRange, mask: np.ndarray) -> None:
        start = np.broadcast_to(self.eval(s.start, 0, mask), (self.B,))
        stop = np.broadcast_to(self.eval(s.stop, 0, mask), (self.B,))
        live = mask & (start < stop)
        iters = np.zeros(self.B, np.int64)
        if not live.any():
            return
        lo, hi = int(start[live].min()), int(stop[live].max())
        bound = self._bound(s, s.bound)
        self.broken.append(np.zeros(self.B, bool))
        ks = range(hi - 1, lo - 1, -1) if s.reverse else range(lo, hi)
        for k in ks:
            lanes = live & ~self.broken[-1] & (start <= k) & (k < stop)
            if not lanes.any():
                if not (live & ~self.broken[-1]).any():
                    break
                continue
            iters += lanes
            over = lanes & (iters > bound)
            if over.any():
                self.stmt = s
                self.fault("R102", "loop bound exceeded", over)
            self._set_loop_var(s, np.full(self.B, k), lanes)
            self.block(s.body, lanes, 0)
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def for_nodes(self, s: ir.ForNodes, mask: np.ndarray) -> None:
        key = self.whole(s.key, ir.Loc.NODE)
        order = np.argsort(key, axis=1, kind="stable")
        self.broken.append(np.zeros(self.B, bool))
        for k in range(self.N):
            lanes = mask & ~self.broken[-1]
            if not lanes.any():
                break
            self._set_loop_var(s, order[:, k], lanes)
            self.block(s.body, lanes, 0)
        self.broken.pop()

    def round(self, s: ir.Round, mask: np.ndarray) -> None:
        outer = self.pending
        self.pending = _Pending()
        saved_locals = dict(self.locals)
        self.block(s.body, mask, 0)
        pending, self.pending = self.pending, outer
        self.locals = saved_locals | {k: v for k, v in self.locals.items() if k in saved_locals}
        for w in pending.writes:
            self.commit(*w)

    def forall(self, s: ir.Forall, mask: np.ndarray) -> None:
        rank = len(s.vars)
        m = self._lift(mask, rank)
        if rank == 2:
            m = m & self.adj
        else:
            m = np.broadcast_to(m, (self.B, self.N))
        if s.guard is not None:
            m = m & self.eval(s.guard, rank, m)
        m = np.broadcast_to(m, (self.B,) + (self.N,) * rank)
        saved = dict(self.locals)
        if self.obs is not None:
            pos = np.nonzero(m)
            if rank == 1:
                self.obs.nodes(s.id, pos[0], pos[1])
            else:
                self.obs.edges(s.id, pos[0], pos[1], pos[2])
        self.block(s.body, m, rank)
        self.locals = saved

    # ---------------------------------------------------------------- writes
    def assign(self, s: ir.Assign, mask: np.ndarray, rank: int) -> None:
        vals = []
        for t, v in zip(s.targets, s.values):
            if t.whole:
                vals.append(self.whole(v, t.loc))
            else:
                vals.append(self.eval(v, rank, mask))
        idxs = [[self.eval(i, rank, mask) for i in t.indices] for t in s.targets]
        if self.pending is not None or len(s.targets) > 1:
            # Values that wait for other writes must not alias the state they read
            # (fancy-indexed reads are fresh arrays already; views and variables are not).
            vals = [_fresh(v) for v in vals]
            idxs = [[_fresh(i) for i in ix] for ix in idxs]
        for t, v, idx in zip(s.targets, vals, idxs):
            w = (t, v, idx, mask, rank, s.combiner, s)
            if self.pending is not None and not t.local:
                self.pending.writes.append(w)
            else:
                self.commit(*w)

    def commit(self, t: ir.Target, v, idx, mask, rank, combiner, s) -> None:
        self.stmt = s
        dt = _NP[t.dtype]
        store = self.locals if t.local else self.state
        if t.local:
            full = np.broadcast_shapes(np.shape(v), mask.shape)
            old = store.get(t.name)
            if old is None or old.shape != full:
                old = np.zeros(full, dtype=dt)
            store[t.name] = np.where(mask, v, old).astype(dt)
            return
        arr = store[t.name]
        if t.whole:
            mk = mask.reshape(mask.shape + (1,) * (arr.ndim - 1))
            store[t.name] = np.where(mk, v, arr).astype(dt)
            return
        if rank == 0:
            lanes = np.nonzero(mask)[0]
            if not len(lanes):
                return
            val = np.broadcast_to(v, (self.B,))[lanes]
            if t.loc == ir.Loc.GRAPH:
                arr[lanes] = val
                return
            ii = [np.broadcast_to(i, (self.B,))[lanes] for i in idx]
            self._check_index(ii, t, lanes)
            if self.obs is not None:
                self.obs.nodes(s.id, lanes, ii[0])
                if len(ii) == 2:
                    self.obs.edges(s.id, lanes, ii[0], ii[1])
            arr[(lanes, *ii)] = val
            return
        # Parallel writes from a forall of `rank` processor axes.
        shape = (self.B,) + (self.N,) * rank
        m = np.broadcast_to(mask, shape)
        val = np.broadcast_to(v, shape)
        if t.loc != ir.Loc.GRAPH and all(i.kind == "ivar" and i.axis == a
                                         for a, i in enumerate(t.indices)) and \
                len(t.indices) == rank:
            store[t.name] = np.where(m, val, arr).astype(dt)
            return
        pos = np.nonzero(m)
        if not len(pos[0]):
            return
        b = pos[0]
        vals = val[pos]
        if t.loc == ir.Loc.GRAPH:
            key = b
            size = self.B
        else:
            ii = [np.broadcast_to(i, shape)[pos] for i in idx]
            self._check_index(ii, t, b)
            key = b * self.N + ii[0] if len(ii) == 1 else (b * self.N + ii[0]) * self.N + ii[1]
            size = arr.size
        flat = arr.reshape(-1).copy() if t.loc != ir.Loc.GRAPH else arr.copy()
        flat[:] = flat  # keep dtype
        if combiner in (None, "priority"):
            # np.nonzero is in C order, so the first writer of a key has the lowest index.
            uk, first = np.unique(key, return_index=True)
            flat[uk] = vals[first]
        else:
            ufunc = {"min": np.minimum, "max": np.maximum, "sum": np.add,
                     "any": np.logical_or, "all": np.logical_and}[combiner]
            ident = {"min": np.inf, "max": -np.inf, "sum": 0, "any": False, "all": True}[combiner]
            acc = np.full(size, ident, dtype=np.float64 if combiner in ("min", "max", "sum")
                          else bool)
            ufunc.at(acc, key, vals)
            written = np.zeros(size, bool)
            written[key] = True
            flat[written] = acc[written].astype(flat.dtype)
        store[t.name] = flat.reshape(arr.shape).astype(dt)

    def _check_index(self, ii, t: ir.Target, lanes) -> None:
        for i in ii:
            bad = (i < 0) | (i >= self.N)
            if bad.any():
                b = np.zeros(self.B, bool)
                b[np.asarray(lanes)[bad]] = True
                self.fault("R101", f"index out of range writing `{t.name}`", b, t.span)

    # ---------------------------------------------------------------- probes
    def _onehot_of(self, d: ir.DataDecl) -> ir.Expr | None:
        """`x` when node datum `d` is the view `onehot(x)` of a graph-level value."""
        e = d.derived
        if d.loc == ir.Loc.NODE and isinstance(e, ir.Binary) and e.op == "==" and \
                isinstance(e.left, ir.IndexVar) and not any(
                    isinstance(x, (ir.IndexVar, ir.Aggregate)) for x in ir.walk_expr(e.right)):
            return e.right
        return None

    def probe(self, d: ir.DataDecl, lanes: np.ndarray | None = None) -> np.ndarray:
        """The CLRS encoding of datum `d` now, float32; type faults only count in `lanes`."""
        lanes = np.ones(self.B, bool) if lanes is None else lanes
        hot = self._onehot_of(d) if d.stage != ir.Stage.INPUT else None
        if hot is not None:  # build the one-hot directly: no comparison over all nodes
            x = np.broadcast_to(self.eval(hot, 0, lanes), (self.B,)).astype(np.int64)
            bad = ((x < 0) | (x >= self.N)) & lanes
            if bad.any():
                self.fault("R106", f"mask_one {d.stage.value} `{d.name}` is not one-hot: "
                           "its node is out of range", bad, d.span)
            out = np.zeros((self.B, self.N), self.dtype)
            out[np.arange(self.B), np.clip(x, 0, self.N - 1)] = 1
            return out
        if d.derived is not None and d.stage != ir.Stage.INPUT:
            v = self.whole(d.derived, d.loc)
        else:
            v = self.state[d.name]
        lane = lanes.reshape((self.B,) + (1,) * (v.ndim - 1))
        what = f"{d.stage.value} `{d.name}`"
        t = d.clrs_type
        if t == "categorical":
            bad = ((v < 0) | (v >= d.categories)) & lane
            if bad.any():
                self.fault("R105", f"categorical {what} is outside its {d.categories} "
                           "categories", bad, d.span)
            return (v[..., None] == np.arange(d.categories)).astype(self.dtype)
        if t == "mask_one":
            bad = (v.sum(axis=tuple(range(1, v.ndim))) != 1) & lanes
            if bad.any():
                self.fault("R106", f"mask_one {what} is not one-hot", bad, d.span)
        if t in ("pointer", "should_be_permutation") and not isinstance(d.derived, ir.Chain):
            bad = ((v < 0) | (v >= self.N)) & lane
            if bad.any():
                self.fault("R101", f"pointer {what} is out of range", bad, d.span)
        return np.asarray(v, dtype=self.dtype)

    def _plan_records(self) -> None:
        """Decide what a `record` snapshots: hint views are evaluated in bulk at the end.

        A record only copies the rows of the state that hints are made of;
        views are evaluated once over all frames in `collect`, and views of
        inputs alone (constant hints, such as Kosaraju's `A_t`) once per sample.
        """
        self._snap: list[str] = []
        self._const_hints: set[str] = set()
        self._view_reads: set[str] = set()  # what the per-frame views read
        self._views_aggregate = False
        inputs = {d.name for d in self.prog.decls if d.stage == ir.Stage.INPUT}
        for d in self.prog.decls:
            if d.stage != ir.Stage.HINT:
                continue
            if d.derived is None:
                names = {d.name}
            else:
                names, aggregates = self._view_deps(d.derived)
                if names <= inputs:
                    self._const_hints.add(d.name)
                    continue
                self._views_aggregate |= aggregates
            self._view_reads |= names
            for nm in sorted(names - inputs):
                if nm not in self._snap:
                    self._snap.append(nm)

    def _view_deps(self, e: ir.Expr, seen: frozenset[str] = frozenset()) -> tuple[set[str], bool]:
        """The stored data a view reads, through views of views; and whether it aggregates."""
        names: set[str] = set()
        aggregates = False
        for x in ir.walk_expr(e):
            aggregates |= isinstance(x, ir.Aggregate)
            nm = x.order if isinstance(x, ir.Chain) else (
                x.name if isinstance(x, ir.Read) or (isinstance(x, ir.VarRef) and not x.local)
                else None)
            if nm is None:
                continue
            d = self._decls[nm]
            if d.derived is not None and d.stage != ir.Stage.INPUT and nm not in seen:
                sub, agg = self._view_deps(d.derived, seen | {nm})
                names |= sub
                aggregates |= agg
            else:
                names.add(nm)
        return names, aggregates

    def record(self, mask: np.ndarray) -> None:
        lanes = np.nonzero(mask)[0]
        if self.obs is not None:
            self.obs.frame(lanes)
        rows = self.counts[lanes]
        need = int(rows.max()) + 1
        for name in self._snap + ["@stmt"]:
            src = self.state[name] if name != "@stmt" else np.full(self.B, self.stmt.id)
            buf = self.buffers.get(name)
            if buf is None or buf.shape[0] < need:
                cap = max(need, 2 * (0 if buf is None else buf.shape[0]), 8)
                if buf is None:  # zeroed pages cost nothing until touched: reserve the bound
                    cap = max(cap, min(self._frame_bound(), _RESERVE_BYTES // max(
                        1, src.nbytes)))
                nb = np.zeros((cap,) + src.shape, src.dtype)
                if buf is not None:
                    nb[: buf.shape[0]] = buf
                buf = self.buffers[name] = nb
            buf[rows, lanes] = src[lanes]
        self.counts[lanes] += 1

    def _frame_bound(self) -> int:
        """An upper bound on the frames a sample records, from the loop bounds."""
        if getattr(self, "_frame_bound_cache", None) is None:
            def count(stmts: list[ir.Statement]) -> float:
                total = 0.0
                for st in stmts:
                    if isinstance(st, ir.Record):
                        total += 1
                    elif isinstance(st, ir.If):
                        total += count(st.then) + count(st.otherwise)
                    elif isinstance(st, (ir.While, ir.ForRange)):
                        trips = float(np.max(self._static(st.bound, self.m))) if self.B else 0.0
                        total += max(trips, 0.0) * count(st.body)
                    elif isinstance(st, ir.ForNodes):
                        total += self.N * count(st.body)
                return total
            self._frame_bound_cache = int(min(count(self.prog.body), 2 ** 31))
        return self._frame_bound_cache

    def _frames_view(self, T: int) -> Machine:
        """A machine whose batch is every (frame, sample) pair, over the recorded snapshots."""
        fm = Machine.__new__(Machine)
        fm.prog, fm._decls, fm.dtype, fm.obs, fm.stmt = self.prog, self._decls, self.dtype, \
            None, None
        fm.B, fm.N, fm.n = T * self.B, self.N, self.n
        fm.m = np.tile(self.m, T)
        fm.locals = {}
        fm.state = {}
        for name, arr in self.state.items():
            if name not in self._view_reads:
                continue
            if name in self.buffers:
                buf = self.buffers[name][:T]
            elif self._decls[name].stage == ir.Stage.INPUT:
                buf = np.broadcast_to(arr[None], (T,) + arr.shape)
            else:
                continue
            fm.state[name] = buf.reshape((T * self.B,) + arr.shape[1:])
        if self._views_aggregate:
            fm.adj = np.broadcast_to(self.adj[None], (T,) + self.adj.shape).reshape(
                (T * self.B,) + self.adj.shape[1:])
        return fm

    def collect(self) -> Trajectories:
        spec = self.prog.spec()
        inputs = {d.name: self.probe(d) for d in self.prog.decls if d.stage == ir.Stage.INPUT}
        outputs = {d.name: self.probe(d) for d in self.prog.decls if d.stage == ir.Stage.OUTPUT}
        T = int(self.counts.max()) if self.B else 0
        valid = np.arange(T)[:, None] < self.counts[None, :]  # (T, B)
        all_valid = bool(valid.all())
        hints = {}
        fm = None
        for d in self.prog.decls:
            if d.stage == ir.Stage.HINT and T == 0:  # no frame was recorded
                hints[d.name] = np.zeros((0, self.B) + self.probe_shape(d), self.dtype)
                continue
            if d.stage != ir.Stage.HINT:
                continue
            if d.name in self._const_hints:  # one pass: the value in valid frames, else 0
                v0 = self.probe(d)
                v = np.empty((T,) + v0.shape, self.dtype)
                np.multiply(valid.reshape(valid.shape + (1,) * (v0.ndim - 1)), v0[None], out=v)
                hints[d.name] = v
                continue
            else:
                if fm is None:
                    fm = self._frames_view(T)
                try:
                    v = fm.probe(d, valid.reshape(-1)).reshape((T, self.B) + (
                        fm.probe_shape(d)))
                except RuntimeFault as f:
                    frame, sample = divmod(f.sample, self.B)
                    stmt = self.buffers["@stmt"][frame, sample]
                    span = next((s.span for s, _ in ir.walk_statements(self.prog.body)
                                 if s.id == stmt), d.span)
                    raise RuntimeFault(f.diagnostic.code, f"{f.diagnostic.message.rsplit(' (', 1)[0]}"
                                       f" in the frame recorded here (frame {frame})", span,
                                       sample, path=self.prog.path) from None
            if not v.flags.writeable or v.dtype != self.dtype:
                v = v.astype(self.dtype)
            if not all_valid:  # frames after a sample's end are zero padding
                v *= valid.reshape(valid.shape + (1,) * (v.ndim - 2))
            hints[d.name] = v
        return Trajectories(spec=spec, inputs=inputs, outputs=outputs, hints=hints,
                            lengths=self.counts.astype(self.dtype))

    def probe_shape(self, d: ir.DataDecl) -> tuple[int, ...]:
        shape = {ir.Loc.GRAPH: (), ir.Loc.NODE: (self.N,), ir.Loc.EDGE: (self.N, self.N)}[d.loc]
        return shape + ((d.categories,) if d.clrs_type == "categorical" else ())


def _fresh(x: np.ndarray) -> np.ndarray:
    """A copy of `x`: a value read from the state may be the state's own array."""
    return np.array(x, copy=True)


def _binop(op: str, a, b):
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(a, b)
    if op == "//":
        return np.floor_divide(a, b)
    if op == "%":
        return np.mod(a, b)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    raise ValueError(op)


def _call(func: str, args):
    if func == "abs":
        return np.abs(args[0])
    if func == "floor":
        return np.floor(args[0]).astype(np.int64)
    if func == "ceil":
        return np.ceil(args[0]).astype(np.int64)
    if func == "sqrt":
        return np.sqrt(args[0])
    if func == "log2":
        with np.errstate(divide="ignore"):
            return np.log2(args[0])
    if func == "float":
        return np.asarray(args[0], dtype=np.float64)
    if func == "int":
        return np.trunc(args[0]).astype(np.int64)
    if func == "min":
        return np.minimum(args[0], args[1])
    if func == "max":
        return np.maximum(args[0], args[1])
    raise ValueError(func)


def run(prog: ir.Program, inputs: dict[str, np.ndarray], n: int,
        observer: ActivityObserver | None = None, dtype=np.float32,
        batch_size: int | None = None) -> Trajectories:
    """Execute `prog` on a batch of primary inputs (arrays with a leading batch axis).

    Probes are stored as `dtype`: float32 for samplers (as models consume them),
    float64 for `trace`, so values match dm-clrs's own probes exactly.
    """
    return Machine(prog, inputs, n, observer, dtype, batch_size).run()
