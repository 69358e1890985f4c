"""The environment a program's expressions are evaluated in.

An `Env` is the data of one batch: the sizes, the interconnection graph, the
stored data (`state`) and the local variables. The running `Machine` is an
environment (plus control-flow state); so is the view over every recorded
frame that derived hints are evaluated on (`recording.frames_env`): a batch
of T * B (frame, sample) pairs over the recorded snapshots.

Values are numpy arrays of shape `(B, *scope)`: one axis per bound
node-index variable of the current scope (size N, or 1 when the value does
not vary along it). Axis 0 is always the batch (size B, or 1 when the value
is the same for every sample).
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.diagnostics import RuntimeFault, Span
from algspec.interp import expressions
from algspec.interp.activity import ActivityObserver
from algspec.interp.dtypes import NP_DTYPE

__all__ = ["NP_DTYPE", "Env"]


class Env:
    """Sizes, graph and data of one batch, and expression evaluation over them."""

    def __init__(self, prog: ir.Program, B: int, n: int, N: int, m: np.ndarray,
                 adj: np.ndarray | None, state: dict[str, np.ndarray], dtype=np.float32,
                 observer: ActivityObserver | None = None,
                 decls: dict[str, ir.DataDecl] | None = None):
        self.prog = prog
        self.B, self.n, self.N = B, n, N
        self.m = m
        self.adj = adj
        self.state = state
        self.locals: dict[str, np.ndarray] = {}
        self.dtype = dtype
        self.obs = observer
        self.stmt: ir.IRNode | None = None  # the statement running, for faults
        self._decls = decls if decls is not None else {d.name: d for d in prog.decls}
        # The run's bookkeeping, each kept by one module:
        self.sparse = None  # the edge index of the sparse mode (`sparse_edges`), or None
        self.adj_graph = None  # the graph's edges as an `EdgeGraph`, once known (`edge_storage`)
        self.edge_probes = False  # hand edge probes out as edge lists (`edges="sparse"`)
        self.combined: dict | None = None  # a round's combined writes (`writes.RoundWrites`)
        self.rand_keys: np.ndarray | None = None  # per-sample draw keys, at the first draw
        self.given_rand_keys: np.ndarray | None = None  # `trace(rand_key=...)`'s, if given
        self.rand_counts: dict[int, np.ndarray] = {}  # draws so far per `rand()` site
        self.edge_draw_sites: dict[int, list[int]] = {}  # edges loop -> its per-edge sites
        self.loop_totals: dict[tuple, np.ndarray] = {}  # `total bound` trips so far per site
        self.total_limits: dict[tuple, np.ndarray] = {}  # and each site's limit

    def decl(self, name: str) -> ir.DataDecl:
        return self._decls[name]

    def loc_shape(self, loc: ir.Loc) -> tuple[int, ...]:
        """The shape of stored data at `loc`: (B,), (B, N) or (B, N, N)."""
        return (self.B,) + (self.N,) * ir.rank(loc)

    # ------------------------------------------------------------ faults
    def fault(self, code: str, message: str, bad_lanes: np.ndarray, span: Span | None = None,
              help: str | None = None):
        """Raise `code` for the first sample with a bad lane (axis 0 of `bad_lanes`)."""
        bad = np.asarray(bad_lanes).reshape(self.B, -1).any(axis=1)
        sample = int(np.argmax(bad))
        node = self.stmt if span is None else None
        raise RuntimeFault(code, message, span or (node.span if node else Span()), sample,
                           path=getattr(self.stmt, "path", None) or self.prog.path, help=help)

    # ------------------------------------------------------------ evaluation
    def lift(self, x: np.ndarray, rank: int) -> np.ndarray:
        """Append singleton axes so a value of a smaller scope broadcasts in this one."""
        x = np.asarray(x)
        if x.ndim == 0:
            return x.reshape((1,) * (rank + 1))
        if x.ndim < rank + 1:
            return x.reshape(x.shape + (1,) * (rank + 1 - x.ndim))
        return x

    _lift = lift  # the name the machine (`runtime.py`) calls it by

    def eval(self, e: ir.Expr, rank: int, mask: np.ndarray) -> np.ndarray:
        """Evaluate `e` in a scope of `rank` index axes; `mask` marks the lanes that matter."""
        return expressions.evaluate(self, e, rank, mask)

    def whole(self, e: ir.Expr, loc: ir.Loc, mask: np.ndarray | None = None) -> np.ndarray:
        """Evaluate a whole-array (pointwise) expression at a location: (B,), (B,N) or (B,N,N).

        `mask` [B] names the samples it runs for (all by default): what they evaluate
        must not depend on the others (`rand()` advances only their streams).
        """
        rank = ir.rank(loc)
        lanes = np.ones(self.B, bool) if mask is None else np.asarray(mask, bool)
        v = self.eval(e, rank, lanes.reshape((self.B,) + (1,) * rank))
        return np.broadcast_to(v, self.loc_shape(loc))

    def unobserved(self) -> _Unobserved:
        """A context in which nothing is reported to the observer (views are not work)."""
        return _Unobserved(self)

    def view(self, e: ir.Expr, loc: ir.Loc) -> np.ndarray:
        """Evaluate derived data: a view is not work of the algorithm, so nothing is observed."""
        with self.unobserved():
            return self.whole(e, loc)


class _Unobserved:
    def __init__(self, env: Env) -> None:
        self.env = env
        self.saved: ActivityObserver | None = None

    def __enter__(self) -> Env:
        self.saved, self.env.obs = self.env.obs, None
        return self.env

    def __exit__(self, *exc) -> None:
        self.env.obs = self.saved
