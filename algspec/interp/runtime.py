"""The batched reference interpreter: executes the IR over a batch of samples with numpy.

Control flow is run SIMT-style: every statement executes once for the whole
batch under a boolean lane mask (the samples for which it runs), so loops
iterate as long as any sample is still inside them. The running `Machine` is
an environment (`env.Env`: sizes, graph, state, locals) plus control-flow
state; expressions are evaluated by `expressions.py`, writes committed by
`writes.py`, frames recorded and turned into hints by `recording.py`, probes
encoded by `probes.py`, activity reported through `observe.py`.

Parallel rounds buffer their writes and commit them at the end, so every
read in a round sees the state before it. Concurrent writes combine with the
declared combiner; `priority` keeps the value of the lowest processor index.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.diagnostics import RuntimeFault, Span
from algspec.edge_lists import EdgeLists, check_edges
from algspec.interp import deadline, random
from algspec.interp.calls import call_proc, recur
from algspec.interp.edge_storage import dense_probes, stored_at_edges
from algspec.interp.edge_values import EdgeState, EdgeValued, adjacency_of, adjacency_source
from algspec.interp.env import NP_DTYPE as _NP
from algspec.interp.env import Env
from algspec.interp.expressions import _binop, _call
from algspec.interp.loop_bounds import count_total, frame_bound
from algspec.interp.memory import check_batch_fits, small_pages
from algspec.interp.observe import ActivityObserver, report_loop
from algspec.interp.recording import Recorder, Trajectories
from algspec.interp.size_checks import node_count_too_large, overflowing_lanes
from algspec.interp.sparse_edges import build as sparse_index
from algspec.interp.sparse_edges import forall as sparse_forall
from algspec.interp.writes import check_index, commit
from algspec.interp.writes import fresh as _fresh
from algspec.ir import ops
from algspec.ir.size_text import size_text

__all__ = ["ActivityObserver", "Machine", "Trajectories", "_binop", "_call", "run"]


class _Pending:
    """Writes buffered during a round, committed at its end."""

    def __init__(self) -> None:
        self.writes: list[tuple] = []


def _bad_value(d: ir.DataDecl, x: np.ndarray, bad: np.ndarray, need: str) -> ValueError:
    """A ValueError naming the input, the first bad value and its sample."""
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    where = f" (sample {at[0]}, entry {at[1:]})" if len(at) > 1 else f" (sample {at[0]})"
    kind = d.clrs_type or d.dtype.value
    return ValueError(f"input `{d.name}` is {kind} and needs {need}, got {x[at].item()!r}{where}")


def check_input_values(d: ir.DataDecl, x: np.ndarray, N: int) -> None:
    """Reject given input values its type cannot hold, instead of casting them silently.

    A pointer 1.5 or 7 (of 4 nodes), a class 0.5 or 3 of `categorical(3)`, a mask 2 or a
    `mask_one` with two nodes set would otherwise run as something else or fault later
    at some read that does not name the input.
    """
    if d.dtype == ir.DType.FLOAT:
        bad = np.isnan(x)  # no order, no sum: every comparison with it is false
        if bad.any():
            raise _bad_value(d, x, bad, "numbers, not NaN")
        return
    if x.dtype.kind not in "biu":
        bad = ~(np.isfinite(x) & (x == np.round(x)))
        if bad.any():
            raise _bad_value(d, x, bad, "whole numbers")
    t = d.clrs_type
    if d.dtype == ir.DType.BOOL and t != "mask_one":
        bad = (x != 0) & (x != 1)
        if bad.any():
            raise _bad_value(d, x, bad, "values 0 or 1")
    elif t in ("pointer", "should_be_permutation"):
        bad = (x < 0) | (x >= N)
        if bad.any():
            raise _bad_value(d, x, bad, f"node indices in 0..{N - 1}")
    elif t == "categorical" and d.categories is not None:
        bad = (x < 0) | (x >= d.categories)
        if bad.any():
            raise _bad_value(d, x, bad, f"class indices in 0..{d.categories - 1}")
    elif t == "mask_one":
        ones = (x == 1).sum(axis=tuple(range(1, x.ndim)))
        bad = (ones != 1) | ((x != 0) & (x != 1)).any(axis=tuple(range(1, x.ndim)))
        if bad.any():
            b = int(np.argmax(bad))
            raise ValueError(f"input `{d.name}` is mask_one and needs exactly one entry 1 "
                             f"(the rest 0), got {x[b].tolist()} (sample {b})")


class SizeFault(RuntimeFault, ValueError):
    """The file's node count does not fit this n: a diagnostic (and, as before, a ValueError)."""


def check_node_count(prog: ir.Program, n: int) -> None:
    """E108 for a node count too large for int64 at n (`nodes n ** 100`, `nodes n + 10 **
    400`): int64 would wrap it, and sizes on Python numbers overflow; never a wrong N."""
    huge = node_count_too_large(prog, n)
    if huge is not None:
        raise SizeFault("E108", f"the node count is too large at n = {n} ({huge:.3g}); "
                        "an algorithm runs on up to 2 ** 62 nodes",
                        prog.nodes.span or Span(), 0, path=prog.path)


class Machine(Env):
    """Runs one `ir.Program` on one batch of inputs: an environment plus control flow."""

    def __init__(self, prog: ir.Program, inputs: dict[str, np.ndarray], n: int,
                 observer: ActivityObserver | None = None, dtype=np.float32,
                 batch_size: int | None = None, mode: str | None = None):
        if batch_size is None:
            if not inputs:
                raise ValueError(f"{prog.name} has no generated inputs: give the batch size")
            batch_size = int(np.shape(next(iter(inputs.values())))[0])
        B = batch_size
        super().__init__(prog, B, n, n, np.zeros(B, dtype=np.int64), None, {}, dtype, observer)
        check_node_count(prog, n)
        self.N = int(self._static(prog.nodes, m=None))
        if self.N < 1:  # e.g. `nodes n // 8` at n = 4: the file's header, not a bug
            raise SizeFault("E108", f"the node count is {self.N} at n = {n}; an algorithm "
                               "needs at least one node", prog.nodes.span or Span(), 0,
                               path=prog.path)
        check_batch_fits(prog, B, n, self.N, sum(
            1 for d in prog.decls if d.loc == ir.Loc.EDGE and d.name in inputs
            and not isinstance(inputs[d.name], EdgeLists)))
        self.broken: list[np.ndarray] = []
        self.pending: _Pending | None = None
        self.state = EdgeState()
        self._load_inputs(inputs)
        self.adj = self._interconnection()
        self.m = self.adj_graph.counts if self.adj_graph is not None else \
            self.adj.sum(axis=(1, 2)).astype(np.int64)
        self._init_state()
        self.sparse = sparse_index(self, mode)  # edge lists, or None: dense rounds (mode.py)
        self.recorder = Recorder(prog, self._decls, B, self._frame_bound)
        self.loop_iters: dict[int, np.ndarray] = {}  # stmt id -> max trips per sample
        self._wrapping: dict[int, np.ndarray | None] = {}  # bound -> samples it overflows
        self._frame_bound_cache: int | None = None  # `_frame_bound`, once known

    @property
    def counts(self) -> np.ndarray:
        """Frames recorded so far, per sample."""
        return self.recorder.counts

    # ---------------------------------------------------------------- set-up
    def _static(self, e: ir.Expr, m) -> float:
        """Evaluate an expression in n, N and m (sizes); m may be per sample.

        Operators and builtins take their numpy rule from `algspec.ir.ops`.
        """
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Size):
            return {"n": self.n, "N": self.N, "m": m}[e.which]
        op = ops.op_of(e)
        if op is None:
            raise TypeError(e)
        subs = [e.operand] if op.kind == "unary" else (
            [e.left, e.right] if op.kind == "binary" else e.args)
        return op.numpy(*(np.asarray(self._static(a, m)) for a in subs))

    def _load_inputs(self, inputs: dict[str, np.ndarray]) -> None:
        pads = []
        unread = ir.unread_inputs(self.prog, set(inputs))  # a given view replaces its draws
        for d in self.prog.decls:
            if d.stage != ir.Stage.INPUT or (d.derived is not None and d.name not in inputs):
                continue
            if d.name not in inputs and d.name not in unread:
                raise KeyError(f"missing input `{d.name}`")
            held = inputs.get(d.name)
            if isinstance(held, EdgeLists) and self._holds_at_edges(d, held):
                check_input_values(d, held.values, self.N)
                self.state[d.name] = EdgeValued(held.graph, held.values.astype(_NP[d.dtype]))
                continue
            x = np.asarray(inputs[d.name]) if d.name in inputs else np.zeros(
                (self.B,) + (self.N,) * ir.rank(d.loc))
            shape = {ir.Loc.GRAPH: (self.B,), ir.Loc.NODE: (self.B, self.N),
                     ir.Loc.EDGE: (self.B, self.N, self.N)}[d.loc]
            if self.n > self.N and d.loc != ir.Loc.GRAPH and \
                    x.shape == (self.B,) + (self.n,) * ir.rank(d.loc):
                # n problem items cannot fit on fewer nodes (`nodes n - 1`): a file error
                raise SizeFault("R101", f"input `{d.name}` holds n = {self.n} items per "
                                   f"{d.loc.value} axis but the file has N = {self.N} nodes "
                                   f"at n = {self.n}; declare at least `nodes n`",
                                   d.span or Span(), 0, path=self.prog.path)
            if d.loc == ir.Loc.NODE and x.shape == (self.B, self.n) and self.n != self.N:
                padded = np.zeros(shape, dtype=x.dtype)
                padded[:, : self.n] = x
                x = padded
                pads.append(d)
            elif d.loc == ir.Loc.EDGE and x.shape == (self.B, self.n, self.n) and \
                    self.n != self.N:  # padded nodes (`nodes n + 1`) have no edges
                padded = np.zeros(shape, dtype=x.dtype)
                padded[:, : self.n, : self.n] = x
                x = padded
            if x.shape != shape:
                raise ValueError(f"input `{d.name}` has shape {x.shape[1:]}, expected "
                                 f"{shape[1:]} for n={self.n}")
            check_input_values(d, x, self.N)
            self.state[d.name] = x.astype(_NP[d.dtype])
        for d in pads:  # nodes beyond the n generated ones take the `pad` value
            if d.pad is not None:
                pad = np.broadcast_to(self.eval(d.pad, 0, np.ones(self.B, bool)), (self.B,))
                self.state[d.name][:, self.n:] = pad[:, None]
        if np.dtype(self.dtype).itemsize < 8:
            # Run on the values that will be stored (float32 probes), so that re-running
            # a stored input reproduces its stored hints bit for bit.
            for d in self.prog.decls:
                if d.stage == ir.Stage.INPUT and (d.derived is None or d.name in inputs) and \
                        d.dtype == ir.DType.FLOAT:
                    held = self.state.edge_valued(d.name)
                    if held is not None:
                        held.values = held.values.astype(self.dtype).astype(np.float64)
                        continue
                    self.state[d.name] = self.state[d.name].astype(self.dtype).astype(np.float64)
        for d in self.prog.decls:
            if d.stage == ir.Stage.INPUT and d.derived is not None and d.name not in inputs:
                adj = adjacency_source(d.derived)
                src = None if adj is None else self.state.edge_valued(adj[0])
                if src is not None:  # the graph's mask, edge by edge
                    self.state[d.name] = adjacency_of(src, adj[1], self.B, self.N)
                    continue
                v = np.asarray(self.view(d.derived, d.loc))
                if np.dtype(self.dtype).itemsize < 8 and d.dtype == ir.DType.FLOAT:
                    # Stored as float32 too: run on the stored value, so a sample replays
                    # from its stored inputs (trace(**stored), a dataset) bit for bit.
                    v = v.astype(self.dtype)
                self.state[d.name] = v.astype(_NP[d.dtype])

    def _holds_at_edges(self, d: ir.DataDecl, x: EdgeLists) -> bool:
        """Whether input `d`, given as edge lists, runs from its edge values (`edge_values`)."""
        return d.loc == ir.Loc.EDGE and not x.frames and x.tail == () and \
            x.shape == (self.B, self.N, self.N) and d.clrs_type in ("scalar", "mask") and \
            d.masked is None

    def _interconnection(self) -> np.ndarray:
        g = self.prog.graph
        if g.mask_name is None:
            return np.ones((self.B, self.N, self.N), dtype=bool)
        held = self.state.edge_valued(g.mask_name)
        if held is not None:  # the edge list comes from the input, not from N x N
            self.adj_graph = held.nonzero_graph()
            return None  # built from the edge list when something reads it (`adj`)
        return self.state[g.mask_name].astype(bool)

    @property
    def adj(self) -> np.ndarray:
        """The interconnection graph [B, N, N] (bool); from its edge list on first read when
        an input gave one: the sparse mode never needs it."""
        if self._adj is None and self.adj_graph is not None:
            self._adj = self.adj_graph.mask()
        return self._adj

    @adj.setter
    def adj(self, value: np.ndarray | None) -> None:
        self._adj = value

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

    # ---------------------------------------------------------------- statements
    def run(self) -> Trajectories:
        with small_pages():  # large write-once buffers: see memory.py
            try:
                self.block(self.prog.body, np.ones(self.B, bool), 0)
            except RuntimeFault:
                # Hint views are evaluated at the end (recording.py); one that faults in a
                # frame recorded before this fault came first in program order.
                self.recorder.hints(self)
                raise
            self._check_frames()
            return self.collect()

    def _check_frames(self) -> None:
        """R110 for a sample that ended without a hint frame (when the program has hints):
        CLRS trajectories start with a frame, and a model reads it as the initial hints."""
        if not (self.counts == 0).any() or \
                not any(d.stage == ir.Stage.HINT for d in self.prog.decls):
            return
        first = next((s for s, _ in ir.walk_statements(self.prog.body)
                      if isinstance(s, ir.Record)), None)
        span = first.span if first is not None else next(
            d.span for d in self.prog.decls if d.stage == ir.Stage.HINT)
        where = ("every `record` is inside an `if` or a loop that did not run for it"
                 if first is not None else "the program has no `record`")
        self.stmt = first
        self.fault("R110", f"the run ended without recording a hint frame ({where}); CLRS "
                   "trajectories start with a frame: add a `record` that every run reaches, "
                   "e.g. before the first update", self.counts == 0, span=span or Span())

    def collect(self) -> Trajectories:
        """The batch's trajectories: inputs, outputs now, and the recorded hints."""
        return self.recorder.collect(self)

    def block(self, stmts: list[ir.Statement], mask: np.ndarray, rank: int) -> None:
        for s in stmts:
            if self.broken and (rank == 0 or self.broken[-1].shape == mask.shape):
                mask = mask & ~self.broken[-1]  # a per-lane loop's break has the lanes' shape
            if not mask.any():
                return
            self.exec(s, mask, rank)

    def exec(self, s: ir.Statement, mask: np.ndarray, rank: int) -> None:
        """Run statement `s` on the lanes `mask` (its rule in `STATEMENT_RULES`, keyed by
        the IR statement's class)."""
        self.stmt = s
        STATEMENT_RULES[type(s)](self, s, mask, rank)

    def let(self, s: ir.Let, mask: np.ndarray, rank: int) -> None:
        v = self.eval(s.value, rank, mask)
        old = self.locals.get(s.name)
        if old is None or old.shape != np.broadcast_shapes(v.shape, mask.shape):
            self.locals[s.name] = np.broadcast_to(v, np.broadcast_shapes(v.shape,
                                                                        mask.shape)).copy()
        else:
            self.locals[s.name] = np.where(mask, v, old)

    def leave(self, s: ir.Break, mask: np.ndarray, rank: int) -> None:
        """`break`: these lanes leave the innermost loop (it stops running them)."""
        self.broken[-1] |= mask

    def branch(self, s: ir.If, mask: np.ndarray, rank: int) -> None:
        c = self.eval(s.cond, rank, mask)
        if c.shape != mask.shape:
            c = np.broadcast_to(c, np.broadcast_shapes(c.shape, mask.shape))
        self.block(s.then, mask & c, rank)
        if s.otherwise:
            self.stmt = s
            self.block(s.otherwise, mask & ~c, rank)

    def _bound(self, s: ir.Statement, e: ir.Expr) -> np.ndarray:
        if id(e) not in self._wrapping:  # an int bound past int64 is unbounded, not wrapped
            self._wrapping[id(e)] = overflowing_lanes(e, self.n, self.N, self.m)
        wraps = self._wrapping[id(e)]
        with np.errstate(over="ignore" if wraps is not None else "warn"):
            v = np.asarray(self._static(e, self.m), dtype=float)
        if wraps is not None:
            v = np.where(wraps, np.inf, v)
        v = np.nan_to_num(v, nan=0.0, neginf=0.0, posinf=2.0 ** 62)  # ops: < 0 allows none
        return np.ceil(np.broadcast_to(np.maximum(v, 0.0), (self.B,))).astype(np.int64)

    def _count_iters(self, s: ir.Statement, lanes: np.ndarray, iters: np.ndarray) -> None:
        """A loop finished on the samples in `lanes` after `iters` trips (per sample; a loop
        run per processor of a round counts its most trips over the processors)."""
        if iters.ndim > 1:
            iters = iters.reshape(self.B, -1).max(axis=1)
            lanes = np.asarray(lanes).reshape(self.B, -1).any(axis=1)
        cur = self.loop_iters.get(s.id)
        self.loop_iters[s.id] = iters.copy() if cur is None else np.maximum(cur, iters)
        report_loop(self.obs, s.id, lanes, iters)

    def while_loop(self, s: ir.While, mask: np.ndarray, rank: int = 0) -> None:
        """A `while`; at `rank` > 0 (a procedure called in a round) each processor's lane
        runs its own trips."""
        bound = self._lane_bound(self._bound(s, s.bound), mask)
        iters = np.zeros(mask.shape, np.int64)
        self.broken.append(np.zeros(mask.shape, bool))
        lanes = mask & self.eval(s.cond, rank, mask)
        while lanes.any():
            over = self._trip(s, lanes, iters, bound)
            if over.any():
                self.stmt = s
                b = int(np.broadcast_to(bound, over.shape)[over][0])
                trips = f"{b} iteration{'' if b == 1 else 's'}"
                if s.whp:
                    self.fault("R107", "high-probability loop bound exceeded: more than "
                               f"{trips} (`bound ... whp`)", over)
                self.fault("R102", f"loop bound exceeded: more than {trips}", over)
            self.block(s.body, lanes, rank)
            lanes = lanes & ~self.broken[-1]
            self.stmt = s
            lanes = lanes & self.eval(s.cond, rank, lanes)
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def _set_loop_var(self, s, value: np.ndarray, lanes: np.ndarray) -> None:
        self._set_var(s.var, s.var_local, value, lanes)

    def _set_var(self, name: str, local: bool, value: np.ndarray, lanes: np.ndarray) -> None:
        store = self.locals if local else self.state
        old = store.get(name)
        if old is None or old.shape != lanes.shape:
            old = np.zeros(lanes.shape, np.int64)
        store[name] = np.where(lanes, value, old)

    def for_range(self, s: ir.ForRange, mask: np.ndarray, rank: int = 0) -> None:
        """`for x in a .. b`; at `rank` > 0 (a procedure called in a round) each processor's
        lane has its own ends and trips."""
        if s.step is not None:  # never per lane (the lowering refuses it: E501)
            self.for_step(s, mask)
            return
        start = np.broadcast_to(self.eval(s.start, rank, mask), mask.shape)
        stop = np.broadcast_to(self.eval(s.stop, rank, mask), mask.shape)
        live = mask & (start < stop)
        iters = np.zeros(mask.shape, np.int64)
        if not live.any():
            self._count_iters(s, mask, iters)
            return
        lo, hi = int(start[live].min()), int(stop[live].max())
        bound = self._lane_bound(self._bound(s, s.bound), mask)
        self.broken.append(np.zeros(mask.shape, bool))
        ks = range(hi - 1, lo - 1, -1) if s.reverse else range(lo, hi)
        for k in ks:
            lanes = live & ~self.broken[-1] & (start <= k) & (k < stop)
            if not lanes.any():
                if not (live & ~self.broken[-1]).any():
                    break
                continue
            over = self._trip(s, lanes, iters, bound)
            if over.any():
                self.stmt = s
                self.fault("R102", "loop bound exceeded", over)
            self._set_loop_var(s, np.full(mask.shape, k), lanes)
            self.block(s.body, lanes, rank)
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def for_step(self, s: ir.ForRange, mask: np.ndarray) -> None:
        """`for x in a .. b step s`: a, a + s, ... while before b in the step's direction.

        Each sample has its own ends and (through m) step, so its own trip count
        ceil((b - a) / s); a sample leaves the loop after its own trips, like a `while`.
        """
        start = np.broadcast_to(self.eval(s.start, 0, mask), (self.B,)).astype(np.int64)
        stop = np.broadcast_to(self.eval(s.stop, 0, mask), (self.B,)).astype(np.int64)
        step = np.broadcast_to(self.eval(s.step, 0, mask), (self.B,)).astype(np.int64)
        self.stmt = s
        zero = mask & (step == 0)
        if zero.any():
            sized = all(isinstance(x, (ir.Const, ir.Size)) or ops.op_of(x) is not None
                        for x in ir.walk_expr(s.step))
            what = f"`{size_text(s.step)}` is 0 at n = {self.n}" if sized else "is 0 here"
            self.fault("R111", f"the range step {what}: the loop would never advance", zero)
        away = mask & (((stop > start) & (step < 0)) | ((stop < start) & (step > 0)))
        if away.any():
            b = int(np.argmax(away))
            self.fault("R111", f"the range {start[b]} .. {stop[b]} step {step[b]} runs "
                       f"{'down' if step[b] < 0 else 'up'} from its start away from its end",
                       away)
        safe = np.where(step == 0, 1, step)
        trips = np.where(mask, -((start - stop) // safe), 0)  # ceil((stop - start) / step)
        trips = np.maximum(trips, 0)
        iters = np.zeros(self.B, np.int64)
        bound = self._bound(s, s.bound) if trips.any() else None
        self.broken.append(np.zeros(self.B, bool))
        for t in range(int(trips.max(initial=0))):
            lanes = mask & ~self.broken[-1] & (t < trips)
            if not lanes.any():
                break
            over = self._trip(s, lanes, iters, bound)
            if over.any():
                self.stmt = s
                self.fault("R102", "loop bound exceeded", over)
            self._set_loop_var(s, start + t * step, lanes)
            self.block(s.body, lanes, 0)
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def _lane_bound(self, bound: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A per-sample bound shaped to broadcast over a round's processor lanes."""
        return bound.reshape(bound.shape + (1,) * (mask.ndim - 1))

    def _trip(self, s: ir.Loop, lanes: np.ndarray, iters: np.ndarray,
              bound: np.ndarray) -> np.ndarray:
        """Count one trip of loop `s` on `lanes` (per execution in `iters`, over the run for a
        `total bound`); the lanes past the per-execution bound, which the caller faults."""
        iters += lanes
        count_total(self, s, lanes)
        deadline.check(self.prog, s, iters, self.n)
        return lanes & (iters > bound)

    def for_edges(self, s: ir.ForEdges, mask: np.ndarray) -> None:
        """`for (u, v) in edges(A)`: each sample's own edges, one trip each.

        The edge list is taken when the loop starts (row-major, or by the key); samples
        with fewer edges leave the loop earlier (their lanes are masked off), as in a
        `while` whose condition differs between samples.
        """
        sel = np.asarray(self.whole(s.select, ir.Loc.EDGE, mask), bool) & mask[:, None, None]
        b, u, v = np.nonzero(sel)  # sample by sample, row-major: (u, v) ascending
        counts = np.bincount(b, minlength=self.B)
        if s.key is not None and len(b):
            key = np.asarray(self.whole(s.key, ir.Loc.EDGE, mask), np.float64)[b, u, v]
            if s.unstable:  # numpy's default argsort of each sample's own list of keys
                order = np.empty(len(b), np.int64)
                offs = np.concatenate([[0], np.cumsum(counts)])
                for x in np.nonzero(counts)[0]:
                    lo, hi = offs[x], offs[x + 1]
                    order[lo:hi] = lo + np.argsort(np.ascontiguousarray(key[lo:hi]))
            else:  # stable: by sample, then key, ties in row-major order
                order = np.lexsort((key, b))
            u, v = u[order], v[order]
        first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        iters = np.zeros(self.B, np.int64)
        bound = self._bound(s, s.bound) if len(b) else None
        self.broken.append(np.zeros(self.B, bool))
        trips = random.EdgeTrips.of(self, s)  # per-edge draws in the body
        for k in range(int(counts.max(initial=0))):
            lanes = mask & ~self.broken[-1] & (k < counts)
            if not lanes.any():
                break
            if trips is not None:
                trips.trip()
            over = self._trip(s, lanes, iters, bound)
            if over.any():
                self.stmt = s
                x = int(bound[over][0])
                why = f"`{s.array}` has {int(counts[over][0])} edges"
                if isinstance(s.bound, ir.Size) and s.bound.which == "m":
                    why += (" and the interconnection graph m: declare the trips, "
                            f"`for (u, v) in edges({s.array}) bound EXPR`")
                self.fault("R102", f"loop bound exceeded: more than {x} iteration"
                           f"{'' if x == 1 else 's'} ({why})", over)
            at = np.where(lanes, first + k, 0)
            for name, local, ends in zip(s.vars, s.vars_local, (u, v)):
                self._set_var(name, local, ends[at] if len(ends) else at, lanes)
            self.block(s.body, lanes, 0)
        if trips is not None:
            trips.end()
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def for_nodes(self, s: ir.ForNodes, mask: np.ndarray) -> None:
        key = self.whole(s.key, ir.Loc.NODE, mask)
        if self.obs is not None and ir.reads_state(s.key):  # the ordering reads every node
            lanes = np.nonzero(np.asarray(mask).reshape(self.B, -1).any(axis=1))[0]
            self.obs.nodes(s.id, np.repeat(lanes, self.N), np.tile(np.arange(self.N), len(lanes)))
        if s.unstable:  # numpy's default sort, on float64 rows as dm-clrs's keys are
            order = np.argsort(np.ascontiguousarray(np.broadcast_to(key, (self.B, self.N)),
                                                    np.float64), axis=1)
        else:
            order = np.argsort(key, axis=1, kind="stable")
        iters = np.zeros(self.B, np.int64)
        self.broken.append(np.zeros(self.B, bool))
        for k in range(self.N):
            lanes = mask & ~self.broken[-1]
            if not lanes.any():
                break
            iters += lanes
            self._set_loop_var(s, order[:, k], lanes)
            self.block(s.body, lanes, 0)
        self.broken.pop()
        self._count_iters(s, mask, iters)

    def round(self, s: ir.Round, mask: np.ndarray) -> None:
        outer = self.pending
        self.pending = _Pending()
        saved_locals = dict(self.locals)
        self.block(s.body, mask, 0)
        pending, self.pending = self.pending, outer
        self.locals = saved_locals | {k: v for k, v in self.locals.items() if k in saved_locals}
        outer_combined, self.combined = self.combined, {}  # writes.RoundWrites per datum
        for w in pending.writes:
            commit(self, *w) if isinstance(w, tuple) else w()  # an edge round's: a call
        self.combined = outer_combined

    def forall(self, s: ir.Forall, mask: np.ndarray) -> None:
        if self.sparse is not None and sparse_forall(self, s, mask):
            return
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
        if self.obs is not None:  # the processors that run are active
            pos = np.nonzero(m)
            if rank == 1:
                self.obs.nodes(s.id, pos[0], pos[1])
            else:  # an edge processor is active, and so are the two nodes it joins
                self.obs.edges(s.id, pos[0], pos[1], pos[2])
                self.obs.nodes(s.id, pos[0], pos[1])
                self.obs.nodes(s.id, pos[0], pos[2])
        self.block(s.body, m, rank)
        self.locals = saved

    # ---------------------------------------------------------------- writes
    def assign(self, s: ir.Assign, mask: np.ndarray, rank: int) -> None:
        vals = []
        for t, v in zip(s.targets, s.values):
            if t.whole:
                vals.append(self.whole(v, t.loc, mask))
            else:
                vals.append(self.eval(v, rank, mask))
        idxs = [[self.eval(i, rank, mask) for i in t.indices] for t in s.targets]
        keys = [_fresh(self.eval(k, rank, mask)) for k in s.key] if s.key else None
        if self.pending is not None or len(s.targets) > 1:
            # Values that wait for other writes must not alias the state they read
            # (fancy-indexed reads are fresh arrays already; views and variables are not).
            vals = [_fresh(v) for v in vals]
            idxs = [[_fresh(i) for i in ix] for ix in idxs]
        for t, v, idx in zip(s.targets, vals, idxs):
            w = (t, v, idx, mask, rank, s.combiner, s, keys)
            if self.pending is not None and not t.local:
                self._check_target(t, idx, mask)  # at the statement, not at the round's end
                self.pending.writes.append(w)
            else:
                commit(self, *w)

    def _check_target(self, t: ir.Target, idx: list[np.ndarray], mask: np.ndarray) -> None:
        """R101 for a deferred write's index outside the nodes, in program order: a later
        statement of the round that faults must not be reported first."""
        shape = np.broadcast_shapes(np.shape(mask), *(np.shape(i) for i in idx))
        pos = np.nonzero(np.broadcast_to(mask, shape))
        check_index(self, [np.broadcast_to(i, shape)[pos] for i in idx], t, pos[0])

    # ---------------------------------------------------------------- recording
    def record(self, mask: np.ndarray) -> None:
        if self.obs is not None:
            self.obs.frame(np.nonzero(mask)[0])
        self.recorder.record(self, mask, self.stmt.id)

    def _frame_bound(self) -> int:
        """An upper bound on the frames a sample records, from the loop bounds."""
        if self._frame_bound_cache is None:
            self._frame_bound_cache = frame_bound(self)
        return self._frame_bound_cache

def run(prog: ir.Program, inputs: dict[str, np.ndarray], n: int,
        observer: ActivityObserver | None = None, dtype=np.float32,
        batch_size: int | None = None, rand_keys: np.ndarray | None = None,
        mode: str | None = None, edges: str = "dense") -> Trajectories:
    """Execute `prog` on a batch of primary inputs (arrays with a leading batch axis).

    Probes are stored as `dtype`: float32 for samplers (as models consume them),
    float64 for `trace`, so values match dm-clrs's own probes exactly. `rand_keys`
    (uint64, one per sample) key `rand()` besides the inputs (`interp.random`).
    `mode` ("auto", "dense", "sparse"; default $ALGSPEC_INTERP_MODE or "auto") picks
    the execution mode (`interp.mode`); both give the same bytes. `edges="sparse"`
    stores edge probes at the graph's edges (`interp.edge_storage`).
    """
    check_edges(edges)
    mach = Machine(prog, inputs, n, observer, dtype, batch_size, mode)
    mach.edge_probes = edges == "sparse"
    if rand_keys is not None:
        mach.given_rand_keys = np.broadcast_to(np.asarray(rand_keys, np.uint64), (mach.B,))
    traj = mach.run()
    traj.rand_keys = None if rand_keys is None else mach.given_rand_keys.copy()
    return stored_at_edges(traj, mach) if edges == "sparse" else dense_probes(traj)


# One rule per statement class, each `(machine, statement, lanes, rank)`
# (tests/efficiency/test_rules_cover_every_statement.py checks that every class of
# `ir.Statement` has one, as it does for the efficiency passes' tables).
STATEMENT_RULES = {
    ir.Assign: Machine.assign,
    ir.Let: Machine.let,
    ir.Record: lambda m, s, mask, rank: m.record(mask),
    ir.Break: Machine.leave,
    ir.If: Machine.branch,
    ir.While: Machine.while_loop,
    ir.ForRange: Machine.for_range,
    ir.ForNodes: lambda m, s, mask, rank: m.for_nodes(s, mask),
    ir.ForEdges: lambda m, s, mask, rank: m.for_edges(s, mask),
    ir.Round: lambda m, s, mask, rank: m.round(s, mask),
    ir.Forall: lambda m, s, mask, rank: m.forall(s, mask),
    ir.Proc: lambda m, s, mask, rank: call_proc(m, s, mask),
    ir.Recur: lambda m, s, mask, rank: recur(m, s, mask),
}
