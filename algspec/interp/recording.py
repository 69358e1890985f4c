"""Hint recording: what a `record` snapshots, and the trajectories built from it.

A `record` copies only the stored data that hints are made of into per-name
snapshot buffers (frame-major). Hint views are evaluated at the end, not at
every frame: over an environment whose batch is every (frame, sample) pair
(`frames_env`), a block of frames at a time so that temporaries stay small.
Hints that are views of inputs alone (Kosaraju's `A_t`) are evaluated once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from algspec import ir
from algspec.diagnostics import RuntimeFault
from algspec.edge_lists import EdgeLists
from algspec.interp import mode as modes
from algspec.interp.edge_storage import input_probe, storage_graph
from algspec.interp.edge_values import (
    EdgeState,
    FramesEdgeValued,
    edge_valued,
    own_cell_reads,
    within,
)
from algspec.interp.env import Env
from algspec.interp.memory import available_bytes_or_inf, refuse_beyond_memory
from algspec.interp.probes import probe, probe_shape
from algspec.interp.sparse_edges import EdgeScope

_RESERVE_BYTES = 1 << 30  # most address space one snapshot buffer reserves up front
_BLOCK_ELEMS = 1 << 18    # about how many values one block of frames evaluates at once
_INTS = (np.int8, np.int16, np.int32, np.int64)
_LIMITS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in _INTS}


def _int_dtype(lo: int, hi: int) -> np.dtype:
    """The narrowest signed integer type that holds lo..hi."""
    return next(np.dtype(t) for t in _INTS if _LIMITS[np.dtype(t)][0] <= lo <= hi
                <= _LIMITS[np.dtype(t)][1])


@dataclass
class Trajectories:
    """A batch of trajectories in CLRS's probe encoding (see docs/ARCHITECTURE.md)."""

    spec: dict[str, tuple[str, str, str]]
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    hints: dict[str, np.ndarray]
    lengths: np.ndarray
    # The per-sample keys `rand()` was drawn with besides the inputs (`interp.random`):
    # None when the run was given none (a program without `rand()`, or `trace` unkeyed).
    rand_keys: np.ndarray | None = None

    @property
    def batch_size(self) -> int:
        return int(self.lengths.shape[0])


class Recorder:
    """Snapshots taken at each `record`, per sample; `collect` turns them into hints."""

    def __init__(self, prog: ir.Program, decls: dict[str, ir.DataDecl], batch_size: int,
                 frame_bound: Callable[[], int]):
        self.prog = prog
        self._decls = decls
        self._frame_bound = frame_bound
        self.counts = np.zeros(batch_size, dtype=np.int64)  # frames recorded per sample
        self.buffers: dict[str, np.ndarray] = {}  # name -> (capacity, B, ...)
        self._plan()

    # ------------------------------------------------------------ plan
    def _plan(self) -> None:
        """Decide what a `record` snapshots: the data the non-constant hints read."""
        self.snap: list[str] = []
        self.const_hints: set[str] = set()
        self.view_reads: set[str] = set()  # what the per-frame views read
        self.views_aggregate = False
        in_views: set[str] = set()  # snapshots that views compute with (kept exact)
        inputs = {d.name for d in self.prog.decls if d.stage == ir.Stage.INPUT}
        for d in self.prog.decls:
            if d.stage != ir.Stage.HINT:
                continue
            names, aggregates = ({d.name}, False) if d.derived is None else \
                self._view_deps(d.derived)
            if d.masked is not None:  # the MASKED entries are a view too
                extra, agg = self._view_deps(d.masked)
                names, aggregates = names | extra, aggregates or agg
            if d.derived is not None and names <= inputs:
                self.const_hints.add(d.name)
                continue
            self.views_aggregate |= aggregates
            in_views |= names - ({d.name} if d.derived is None else set())
            self.view_reads |= names
            for nm in sorted(names - inputs):
                if nm not in self.snap:
                    self.snap.append(nm)
        # Floats only hints show directly may be kept at the probes' precision.
        self._probe_precision = set(self.snap) - in_views
        self._in_views = in_views

    def _view_deps(self, e: ir.Expr, seen: frozenset[str] = frozenset()) -> tuple[set[str], bool]:
        """The stored data a view reads, through views of views; and whether it aggregates."""
        names: set[str] = set()
        aggregates = False
        for x in ir.walk_expr(e):
            aggregates |= isinstance(x, ir.Aggregate)
            nm = ir.read_name(x)
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

    # ------------------------------------------------------------ record
    def record(self, env: Env, mask: np.ndarray, stmt_id: int) -> None:
        """Snapshot the samples in `mask` as their next frame."""
        lanes = np.nonzero(mask)[0]
        rows = self.counts[lanes]
        need = int(rows.max()) + 1
        # Lock-step (every sample live, all at the same frame): copy whole rows.
        whole = len(lanes) == env.B and int(rows.min()) == need - 1
        sparse = env.sparse  # edge data at the edges only (sparse_edges.py)
        for name in self.snap + ["@stmt"]:
            src = env.state[name] if name != "@stmt" else None
            if sparse is not None and name in sparse.snapped:
                src = sparse.at_edges(src)
            buf = self.buffers.get(name)
            if buf is None or buf.shape[0] < need:
                buf = self._grow(name, need, src if src is not None
                                 else np.full(env.B, stmt_id), env.dtype)
            if buf.dtype.kind == "i" and buf.dtype.itemsize < 8:
                lo, hi = (stmt_id, stmt_id) if src is None else (
                    (int(src.min()), int(src.max())) if src.size else (0, 0))
                low, high = _LIMITS[buf.dtype]
                if lo < low or hi > high:  # values outgrew the snapshot type
                    wide = np.promote_types(buf.dtype, _int_dtype(lo, hi))
                    buf = self.buffers[name] = buf.astype(wide)
            if src is None:
                buf[rows, lanes] = stmt_id
            elif whole:
                buf[need - 1] = src
            else:
                buf[rows, lanes] = src[lanes]
        self.counts[lanes] += 1

    def _grow(self, name: str, need: int, src: np.ndarray, dtype) -> np.ndarray:
        buf = self.buffers.get(name)
        cap = max(need, 2 * (0 if buf is None else buf.shape[0]), 8)
        if buf is None:  # zeroed pages cost nothing until touched: reserve the bound
            dtype = self._snapshot_dtype(name, src, dtype)
            cap = max(cap, min(self._frame_bound(), _RESERVE_BYTES // max(
                1, src.size * np.dtype(dtype).itemsize)))
        else:
            dtype = buf.dtype
            per_frame = src.size * np.dtype(dtype).itemsize
            if cap * per_frame > available_bytes_or_inf():
                cap = need  # doubling no longer fits: grow to what this frame needs
            refuse_beyond_memory(float(cap) * per_frame, f"recording {need:,} frames of "
                                 f"`{name}`", self.prog)  # the run as a whole
        nb = np.zeros((cap,) + src.shape, dtype)
        if buf is not None:
            nb[: buf.shape[0]] = buf
        self.buffers[name] = nb
        return nb

    def _snapshot_dtype(self, name: str, src: np.ndarray, probe_dtype) -> np.dtype:
        """Snapshots are small where that is exact: narrow ints, probe-precision floats.

        An integer snapshot starts at the narrowest type of its first values and is
        widened (see `record`) as soon as a value does not fit.
        """
        if src.dtype == np.int64:
            return _int_dtype(int(src.min()), int(src.max())) if src.size else np.dtype(np.int8)
        if src.dtype == np.float64 and name in self._probe_precision:
            return np.dtype(probe_dtype)
        return src.dtype

    # ------------------------------------------------------------ collect
    def frames_env(self, env: Env, t0: int, t1: int, skip: frozenset[str] = frozenset()
                   ) -> Env:
        """The environment whose batch is every (frame, sample) pair of frames t0..t1-1
        (`skip`: data no probe will read there)."""
        T, B = t1 - t0, env.B
        state = EdgeState()
        for name in self.view_reads - skip:
            held = edge_valued(env.state, name)
            if held is not None:  # an input held at its edges: so it stays, per frame
                state[name] = FramesEdgeValued(held, T)
                continue
            arr = env.state.get(name)
            if arr is None:
                continue
            if name in self.buffers:
                buf = self.buffers[name][t0:t1]
                sparse = env.sparse
                if sparse is not None and name in sparse.snapped:
                    buf = sparse.densify(name, buf)
            elif self._decls[name].stage == ir.Stage.INPUT:
                buf = np.broadcast_to(arr[None], (T,) + arr.shape)
            else:
                continue
            buf = buf.reshape((T * B,) + arr.shape[1:])
            if buf.dtype != arr.dtype and name not in self._probe_precision:
                buf = buf.astype(arr.dtype)  # views compute at the state's own precision
            state[name] = buf
        adj = None
        if self.views_aggregate:
            adj = np.broadcast_to(env.adj[None], (T,) + env.adj.shape).reshape(
                (T * B,) + env.adj.shape[1:])
        return Env(self.prog, T * B, env.n, env.N, np.tile(env.m, T), adj, state,
                   dtype=env.dtype, decls=self._decls)

    def collect(self, env: Env) -> Trajectories:
        """Inputs and outputs as they are now, hints from the snapshots, zero padded."""
        dtype = env.dtype
        decls = self.prog.decls
        # Probes go by their CLRS spec name (`as`); private inputs are not probes.
        inputs = {d.spec_name: _input_probe(env, d) for d in decls
                  if d.stage == ir.Stage.INPUT and d.probed}
        outputs = {d.spec_name: probe(env, d) for d in decls if d.stage == ir.Stage.OUTPUT}
        return Trajectories(spec=self.prog.spec(), inputs=inputs, outputs=outputs,
                            hints=self.hints(env), lengths=self.counts.astype(dtype))

    def hints(self, env: Env) -> dict[str, np.ndarray]:
        """The recorded frames' hints by spec name, zero padded after each sample's end.

        Also the check, after a fault, that the frames recorded before it evaluate:
        a fault in a hint view happened first in program order (`Machine.run`).
        """
        B, N, dtype = env.B, env.N, env.dtype
        decls = self.prog.decls
        T = int(self.counts.max()) if B else 0
        valid = np.arange(T)[:, None] < self.counts[None, :]  # (T, B)
        hints: dict[str, np.ndarray] = {}
        per_frame: list[ir.DataDecl] = []
        for d in decls:
            if d.stage != ir.Stage.HINT:
                continue
            shape = probe_shape(d, N)
            if T == 0:  # no frame was recorded
                hints[d.name] = np.zeros((0, B) + shape, dtype)
            elif d.name in self.const_hints:  # the value in valid frames, else 0
                hints[d.name] = _constant_frames(probe(env, d), valid, dtype)
            else:
                per_frame.append(d)  # its frames: `_probe_frames`
        listed = self._edge_list_hints(env, per_frame, T, valid)
        per_frame = [d for d in per_frame if d.name not in listed]
        hints.update(listed)
        gather = _EdgeGather(env, per_frame, T) if env.edge_probes else None
        self._probe_frames(env, per_frame, T, valid, hints, frozenset(listed), gather)
        if gather is not None:
            hints.update(gather.lists())
            if gather.failed:  # not zero off the graph after all: the dense frames
                self._probe_frames(env, gather.failed, T, valid, hints, frozenset(listed), None)
        return {d.spec_name: hints[d.name] for d in decls if d.stage == ir.Stage.HINT}

    def _probe_frames(self, env: Env, per_frame: list[ir.DataDecl], T: int, valid: np.ndarray,
                      hints: dict[str, np.ndarray], skip: frozenset[str],
                      gather: _EdgeGather | None) -> None:
        """Probe `per_frame`'s hints frame block by frame block into `hints`; the ones
        `gather` takes are kept at the graph's edges only, a block at a time."""
        if not per_frame:
            return
        B, N, dtype = env.B, env.N, env.dtype
        all_valid = bool(valid.all())
        rank = max(ir.rank(d.loc) for d in per_frame) + (1 if self.views_aggregate else 0)
        step = max(1, _BLOCK_ELEMS // max(1, B * N ** rank))
        for d in per_frame:
            if not (gather is not None and gather.takes(d)):
                hints[d.name] = np.empty((T, B) + probe_shape(d, N), dtype)
        for t0 in range(0, T, step):
            t1 = min(T, t0 + step)
            fenv = self.frames_env(env, t0, t1, skip)
            lanes = valid[t0:t1].reshape(-1)
            for d in per_frame:
                if gather is not None and d in gather.failed:
                    continue  # probed dense afterwards
                taken = gather is not None and gather.takes(d)
                viewed = taken and gather.at_edges(d)  # a view evaluated at the edges only
                out = None if viewed else np.empty((t1 - t0, B) + probe_shape(d, N), dtype) \
                    if taken else hints[d.name][t0:t1]
                try:
                    if viewed:
                        gather.put_view(fenv, d, lanes, t0, t1 - t0)
                        continue
                    probe(fenv, d, lanes, out=out.reshape((-1,) + out.shape[2:]))
                except RuntimeFault as f:
                    raise self._frame_fault(f, t0, B, d) from None
                if not all_valid:  # frames after a sample's end are zero padding
                    out *= valid[t0:t1].reshape(valid[t0:t1].shape + (1,) * (out.ndim - 2))
                if taken:
                    gather.put(d, t0, out)

    def _edge_list_hints(self, env: Env, per_frame: list[ir.DataDecl], T: int,
                         valid: np.ndarray) -> dict[str, EdgeLists]:
        """Edge hints stored as edge lists straight from the sparse mode's snapshots at the
        edges (`edges="sparse"`), never N x N per frame: plain scalar or mask data that no
        view reads and that are zero off the graph from the start (`edge_storage`)."""
        ix = env.sparse
        if not env.edge_probes or ix is None:
            return {}
        out: dict[str, EdgeLists] = {}
        graph = None
        for d in per_frame:
            if d.loc != ir.Loc.EDGE or d.derived is not None or d.masked is not None or \
                    d.clrs_type not in ("scalar", "mask") or d.name not in ix.snapped or \
                    d.name in self._in_views or d.name not in self.buffers:
                continue
            graph = graph or storage_graph(env)
            if EdgeLists.from_dense(ix.base[d.name], graph) is None:
                continue  # not zero off the graph: the dense frames, then `stored_at_edges`
            frames = self.buffers[d.name][:T][:, ix.slot_valid]  # [T, M], C order
            live = valid[:, graph.sample]
            values = np.where(live, frames, 0).astype(env.dtype)
            out[d.name] = EdgeLists(graph, values, frames=True)
        return out

    def _frame_fault(self, f: RuntimeFault, t0: int, B: int, d: ir.DataDecl) -> RuntimeFault:
        """A fault in a hint view, placed at the `record` of the bad frame."""
        frame, sample = divmod(f.sample, B)
        frame += t0
        stmt = self.buffers["@stmt"][frame, sample]
        span = next((s.span for s, _ in ir.walk_statements(self.prog.body) if s.id == stmt),
                    d.span)
        message = f.diagnostic.message.rsplit(" (", 1)[0]
        return RuntimeFault(f.diagnostic.code, f"{message} in the frame recorded here "
                            f"(frame {frame})", span, sample, path=self.prog.path)


def _constant_frames(v0: np.ndarray, valid: np.ndarray, dtype) -> np.ndarray:
    """A constant hint `v0` [B, ...] as frames [T, B, ...], zero after each sample's end.

    When every sample has all T frames, the frames are one read-only broadcast view of
    `v0` (no memory per frame). Otherwise the Feedback's zero padding after each sample's
    end makes the frames differ (dm-clrs pads with zeros, and parity keeps that), so they
    are filled frame by frame, a contiguous copy each, then the ended samples zeroed:
    about 3x faster than sample by sample (a strided copy per sample), and no multiply
    (inf * 0 would be nan).
    """
    T = valid.shape[0]
    if valid.all():
        return np.broadcast_to(v0.astype(dtype, copy=False)[None], (T,) + v0.shape)
    v = np.empty((T,) + v0.shape, dtype)
    for t in range(T):
        np.copyto(v[t], v0)
        ended = ~valid[t]
        if ended.any():
            v[t, ended] = 0
    return v


def _input_probe(env: Env, d: ir.DataDecl):
    """An input's probe: at its edges when it is held there (`edge_storage.input_probe`)."""
    held = input_probe(env, d)
    return probe(env, d) if held is None else held


class _EdgeGather:
    """Edge hints of an `edges="sparse"` run kept at the graph's edges as their frames are
    probed, a block of frames at a time (never [T, B, N, N] at once); a hint found not
    zero off the graph goes to `failed`, to be probed dense."""

    def __init__(self, env: Env, per_frame: list[ir.DataDecl], T: int) -> None:
        self.graph = storage_graph(env)
        self.failed: list[ir.DataDecl] = []
        self.values: dict[str, np.ndarray] = {}
        self.views: set[str] = set()  # evaluated at the edges (`at_edges`)
        self._mask: np.ndarray | None = None
        if self.graph is None:
            return
        for d in per_frame:
            if d.loc == ir.Loc.EDGE and d.clrs_type != "categorical":
                self.values[d.name] = np.zeros((T, self.graph.num_edges), env.dtype)
                if self._view_at_edges(env, d):
                    self.views.add(d.name)

    def _view_at_edges(self, env: Env, d: ir.DataDecl) -> bool:
        """Whether view `d` can be evaluated at the edges alone: an own-edge expression
        (`mode.edge_expr_blocker`) that is `X[u, v] and ...` with X an input held at its
        edges, all of them edges of the graph, so the view is false off the graph."""
        if d.derived is None or d.masked is not None or d.clrs_type != "mask" or \
                modes.edge_expr_blocker(d.derived, env.prog) is not None:
            return False
        for name in own_cell_reads(d.derived):
            held = edge_valued(env.state, name)
            if held is not None and within(held, self.graph):
                return True
        return False

    def at_edges(self, d: ir.DataDecl) -> bool:
        return d.name in self.views

    def put_view(self, fenv: Env, d: ir.DataDecl, lanes: np.ndarray, t0: int,
                 frames: int) -> None:
        """View `d`'s frames t0.. evaluated at each frame's edges (frames after a sample's
        end: zero, as the dense probe pads them)."""
        g = self.graph
        B, M = g.batch_size, g.num_edges
        b = (np.arange(frames)[:, None] * B + g.sample[None, :]).reshape(-1)
        axes = {0: np.tile(g.senders.astype(np.int64), frames),
                1: np.tile(g.receivers.astype(np.int64), frames)}
        live = lanes[b]
        scope = EdgeScope(fenv, b, axes)
        v = scope.full(scope.eval(d.derived, live))
        self.values[d.name][t0:t0 + frames] = np.where(live, v, 0).reshape(frames, M)

    def takes(self, d: ir.DataDecl) -> bool:
        return d.name in self.values

    def put(self, d: ir.DataDecl, t0: int, block: np.ndarray) -> None:
        """Frames t0.. of `d` ([t, B, N, N]) at the edges, or `d` failed."""
        g = self.graph
        if self._mask is None:
            self._mask = g.mask()
        off = block[:, ~self._mask]
        if np.any(off != 0) or (off.dtype.kind == "f" and np.signbit(off).any()):
            del self.values[d.name]
            self.failed.append(d)
            return
        self.values[d.name][t0:t0 + block.shape[0]] = block[:, g.sample, g.senders, g.receivers]

    def lists(self) -> dict[str, EdgeLists]:
        return {name: EdgeLists(self.graph, v, frames=True) for name, v in self.values.items()}
