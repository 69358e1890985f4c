"""Efficiency lints: W201 (low node efficiency) and W202 (a loop outgrows its bound).

W201 is static: it reads the classes of `algspec.efficiency.static` and names
the loops whose rounds dominate T while keeping O(1) nodes busy.

W202 needs samples: the interpreter faults (R102) when a loop exceeds its
declared bound, but only once the bound is actually hit. A wrong bound is
visible earlier in the *growth* of the trip counts: sample at a few small sizes,
fit the exponent of the largest trip count per execution and compare it with
the bound's exponent between the same sizes (the bound evaluated exactly, so
`ceil(log2(n))` is compared at the sizes measured). A loop whose trips grow
faster than its bound by more than the tolerance is flagged, with the size at
which the two curves cross, i.e. where sampling will start to fault.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from algspec import ir, ops
from algspec.diagnostics import Diagnostic, RuntimeFault, Severity, Span
from algspec.efficiency.asymptotic import Asymptotic, fit_slope, n, one
from algspec.efficiency.measured import TOLERANCE, max_trips
from algspec.efficiency.static import StaticEfficiency, analyse, eval_size

W201_HELP = ("update the nodes in parallel (`round { forall v ... }`) so each round keeps a "
             "constant share of the n processors busy; see docs/efficiency.md")
W202_HELP = "declare the worst-case trip count in n and m, e.g. `bound n` or `bound 2 * n + m`"


def _loc(span: Span) -> str:
    return f"line {span.line}"


def efficiency_lints(program: ir.Program,
                     static: StaticEfficiency | None = None) -> list[Diagnostic]:
    """W201 when eta = O(1/n): one warning per loop whose rounds cause it."""
    static = static or analyse(program)
    eta, T, N = static.node_efficiency, static.rounds, static.nodes
    if T.is_zero or not eta.is_O(one / n):
        return []
    head = (f"node efficiency is {eta} (work {static.work} over capacity {static.capacity}): "
            "most processors idle")
    out: list[Diagnostic] = []
    for lp in static.loops:
        if not lp.record_ids:
            continue
        rounds: Asymptotic = Asymptotic.const(0)
        for r in lp.record_ids:
            rounds = rounds + static.record_counts.get(r, Asymptotic.const(0))
        if rounds.is_zero or not T.is_O(rounds):
            continue  # this loop's rounds are a lower-order share of T
        per_round = lp.work / lp.records
        if not (per_round / N).is_O(one / n):
            continue
        lines = ", ".join(_loc(static.records[r].span) for r in lp.record_ids)
        out.append(Diagnostic(
            code="W201", severity=Severity.WARNING, span=lp.stmt.span,
            path=lp.stmt.path or program.path,  # an included procedure's loop: its file
            message=(f"{head}: the {rounds} rounds recorded in this `{lp.kind}` loop "
                     f"({lines}) keep {per_round} of the {N} nodes active each"),
            help=W201_HELP))
    if not out:
        first = next(iter(static.records.values()), None)
        out.append(Diagnostic(code="W201", severity=Severity.WARNING, path=program.path,
                              span=first.span if first is not None else Span(),
                              message=head, help=W201_HELP))
    return out


# ================================================================ W202
def expr_str(e: ir.Expr) -> str:
    """Source-like text of a size expression (for messages); op text from `algspec.ops`."""
    def leaf(x: ir.Expr) -> str:
        if isinstance(x, ir.Const):
            return str(x.value)
        if isinstance(x, ir.Size):
            return x.which
        return "?"
    return ops.text(e, leaf)


def _loops(program: ir.Program) -> dict[int, ir.Statement]:
    return {s.id: s for s, _ in ir.walk_statements(program.body)
            if isinstance(s, (ir.While, ir.ForRange))}


def bound_growth_lints(program: ir.Program, iterations: dict[int, dict[int, Any]],
                       edges: dict[int, Any] | None = None,
                       tol: float = TOLERANCE) -> list[Diagnostic]:
    """W202 for loops whose measured trip counts grow faster than their declared bound.

    `iterations[stmt_id][n]` is the largest number of iterations one execution
    of the loop made at size n: an int, or an array with one entry per sample.
    `edges[n]` is |E| at size n (a float, or per sample), for bounds in m.
    Per-sample arrays make the "exceeds" check exact when the bound depends on m.
    """
    loops = _loops(program)
    out: list[Diagnostic] = []
    for sid, by_n in iterations.items():
        s = loops.get(sid)
        if s is None:
            continue
        sizes = sorted(k for k, v in by_n.items() if np.max(v) > 0)
        if not sizes:
            continue
        text = expr_str(s.bound)
        try:
            per = {k: (np.atleast_1d(np.asarray(by_n[k], np.float64)),
                       _bound_values(program, s.bound, k, (edges or {}).get(k)))
                   for k in sizes}
        except (ValueError, ArithmeticError):
            continue
        over = [(k, int(c[i]), int(np.ceil(np.broadcast_to(b, c.shape)[i])))
                for k, (c, b) in per.items()
                for i in np.nonzero(c > np.ceil(np.broadcast_to(b, c.shape)))[0][:1]]
        if over:
            k, c, b = over[0]
            out.append(_w202(program, s, f"the loop ran {c} times at n = {k}, more than its "
                             f"bound `{text}` = {b}"))
            continue
        if len(sizes) < MIN_GROWTH_SIZES:
            continue  # a slope from two sizes of small counts is noise
        counts = [float(per[k][0].max()) for k in sizes]
        bounds = [max(float(np.mean(per[k][1])), 1e-9) for k in sizes]
        if counts[-1] < MIN_TRIPS or \
                fit_slope(sizes[-2:], counts[-2:]) <= \
                fit_slope(sizes[-2:], bounds[-2:]) + LOCAL_TOLERANCE:
            # The growth must hold between the two largest sizes too: trips approaching
            # their bound with an additive offset (2n - 5 against 2n; 1, 2, 3, 4 against
            # 2, 3, 4, 5 for pointer jumping under `ceil(log2(n))`) have steep log-log
            # slopes at small n from the offset alone, flattening as n grows.
            continue
        sm = fit_slope(sizes, counts)
        sb = fit_slope(sizes, bounds)
        if not (np.isfinite(sm) and np.isfinite(sb)) or sm <= sb + tol:
            continue
        # Where c * n^sm meets b * n^sb (anchored at the largest size): sampling faults there.
        k, c, b = sizes[-1], counts[-1], bounds[-1]
        cross = k * (b / c) ** (1.0 / (sm - sb))
        if cross > MAX_CROSSING * k:
            continue  # the trips are far below the bound: too little evidence to flag
        out.append(_w202(program, s, (
            f"iterations grow like n^{sm:.2f} at n = {sizes[0]}..{sizes[-1]} (max {c:.0f} at "
            f"n = {k}) but the bound `{text}` grows like n^{sb:.2f}: the bound is wrong and "
            f"sampling will exceed it beyond n = {max(cross, k):.0f}")))
    return out


def _bound_values(program: ir.Program, bound: ir.Expr, size: int, edges: Any) -> np.ndarray:
    N = eval_size(program.nodes, size)
    if edges is None:
        return np.array([eval_size(bound, size, None, N)])
    return np.array([eval_size(bound, size, float(e), N) for e in np.atleast_1d(edges)])


def _w202(program: ir.Program, s: ir.Statement, message: str) -> Diagnostic:
    return Diagnostic(code="W202", severity=Severity.WARNING, span=s.span,
                      path=s.path or program.path,
                      message=message, help=W202_HELP)


class _LoopCounts:
    """An activity observer that keeps only the interpreter's loop trip counts."""

    def __init__(self) -> None:
        self.iters: dict[int, np.ndarray] = {}

    def nodes(self, *args) -> None:
        pass

    def edges(self, *args) -> None:
        pass

    def frame(self, *args) -> None:
        pass

    def loop(self, stmt_id: int, sample: np.ndarray, iterations: np.ndarray) -> None:
        merged = max_trips(self.iters.get(stmt_id), sample, iterations)
        if merged is not None:
            self.iters[stmt_id] = merged

    iterations = loop


# The growth test needs trips at this many sizes, and flags a loop only when the
# extrapolated crossing with its bound is within this factor of the largest size sampled.
MIN_GROWTH_SIZES = 3
MAX_CROSSING = 16
# ... and when the loop made at least this many trips at the largest size and outgrew its
# bound by more than this exponent between the two largest sizes too (a maximum over a few
# random samples approaching its bound, such as the nodes a DFS reaches in a random DAG,
# moves a two-point slope by up to ~0.4).
MIN_TRIPS = 4
LOCAL_TOLERANCE = 0.5

# Sampling stops adding sizes once this many frames (summed over samples) have been run,
# so lint stays fast on long sequential algorithms (bubble sort, Kosaraju).
FRAME_BUDGET = 800


def sample_loop_iterations(alg, sizes: list[int], samples: int = 8, seed: int = 0,
                           frame_budget: int | None = FRAME_BUDGET,
                           time_budget: float | None = None, keep: int | None = None,
                           **params) -> tuple[dict[int, dict[int, np.ndarray]],
                                              dict[int, np.ndarray], RuntimeFault | None]:
    """Per-sample trip counts per loop at each size; stops at the first size that faults.

    A size whose inputs cannot be drawn (a generator's minimum size: a needle of 2
    needs n >= 5) is skipped, not a fault; if no size can be drawn, the last such
    fault is returned. `keep` stops after that many sizes were sampled.

    Sizes after the first three are skipped once `frame_budget` frames have been
    sampled, or once the CPU time spent plus the predicted cost of the next size
    would pass `time_budget` seconds (lint: slow files get the three small sizes only). Returns (iterations, |E| per sample
    per size, the fault or None).
    """
    import time

    from algspec.compiled import GeneratorFault
    from algspec.interp.runtime import Machine

    iters: dict[int, dict[int, np.ndarray]] = {}
    edges: dict[int, np.ndarray] = {}
    frames = 0
    spent: list[float] = []  # CPU seconds per size sampled
    undrawable: RuntimeFault | None = None
    for k, size in enumerate(sizes):
        if keep is not None and len(spent) >= keep:
            break
        if k >= 3 and frame_budget is not None and frames > frame_budget:
            break
        if k >= 3 and time_budget is not None and \
                sum(spent) + _next_cost(spent) > time_budget:
            break
        t0 = time.process_time()
        try:
            inputs = alg.generate(size, samples, seed + k, **params)
        except GeneratorFault as f:
            undrawable = f
            continue
        counts = _LoopCounts()
        mach = Machine(alg.ir, inputs, size, batch_size=samples)
        if not hasattr(mach, "loop_iters"):  # the interpreter reports trips to observers
            mach = Machine(alg.ir, inputs, size, observer=counts, batch_size=samples)
        try:
            traj = mach.run()
        except RuntimeFault as f:
            return iters, edges, f
        frames += int(np.asarray(traj.lengths).sum())
        edges[size] = np.asarray(mach.m, np.float64).copy()
        found = counts.iters or getattr(mach, "loop_iters", {})
        for sid, arr in found.items():
            iters.setdefault(sid, {})[size] = np.asarray(arr).copy()
        spent.append(time.process_time() - t0)
    return iters, edges, (undrawable if not spent else None)


def _next_cost(spent: list[float]) -> float:
    """The CPU time the next size will take, extrapolated from the last two.

    Sizes double, so the cost grows by the ratio of the last two costs (at least
    2x: per-statement overhead hides the growth at small n). Predicting, rather
    than checking the time already spent, keeps a cubic file from running its
    largest size just because its small sizes were cheap.
    """
    if len(spent) < 2:
        return 0.0
    last, prev = spent[-1], max(spent[-2], 1e-6)
    return last * max(2.0, last / prev)


def has_growing_bound(program: ir.Program) -> bool:
    """Whether some loop's bound depends on n or m (only those can outgrow it)."""
    return any(any(isinstance(x, ir.Size) for x in ir.walk_expr(s.bound))
               for s in _loops(program).values())


def sampled_bound_lints(alg, sizes: tuple[int, ...] = (4, 8, 16, 32), samples: int = 8,
                        seed: int = 0, tol: float = TOLERANCE,
                        time_budget: float | None = None, **params) -> list[Diagnostic]:
    """W202 from sampling: loops whose trips outgrow their bound, or that hit it (R102).

    Other run-time faults (an index out of range, ...) are raised as `RuntimeFault`.
    With no loop bound in n or m there is no growth to fit: two sizes suffice
    (they still check probe types and constant bounds).
    """
    keep = None if has_growing_bound(alg.ir) else 2
    iters, edges, fault = sample_loop_iterations(alg, list(sizes), samples, seed,
                                                 time_budget=time_budget, keep=keep, **params)
    if fault is not None and fault.diagnostic.code != "R102":
        raise fault  # not about bounds: the caller reports the fault itself
    out = bound_growth_lints(alg.ir, iters, edges, tol)
    if fault is not None:
        d = fault.diagnostic
        done = sorted({k for v in iters.values() for k in v})
        sizes_txt = f" (fine at n = {', '.join(map(str, done))})" if done else ""
        flagged = {x.span for x in out}
        if d.span not in flagged:
            out.append(Diagnostic(code="W202", severity=Severity.WARNING, span=d.span,
                                  path=alg.ir.path, help=W202_HELP,
                                  message=f"sampling exceeded this loop's bound: {d.message}"
                                          f"{sizes_txt}"))
    return out


__all__ = ["bound_growth_lints", "efficiency_lints", "expr_str", "has_growing_bound",
           "sample_loop_iterations", "sampled_bound_lints"]
