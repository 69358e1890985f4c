"""Efficiency lints: W201 (low node efficiency) and W202 (a loop outgrows its bound).

W201 is static: it reads the classes of `algspec.efficiency.analysis` and names
the loops whose rounds dominate T while keeping O(1) nodes busy.

W202 needs samples: the interpreter faults (R102) when a loop exceeds its
declared bound, but only once the bound is actually hit. A wrong bound is
visible earlier in the *growth* of the trip counts, compared with the bound in
the bound's own units: at a few small sizes, the largest trip count per
execution c against the bound's exact value b (so `ceil(log2(n)) + 1` is
compared at the sizes measured). Trips that approach their bound from below
with an offset (c = b - 1, a heap's sift-down under `ceil(log2(n)) + 1`) grow
one trip per unit of bound, however steep their log-log slope at small n; a
bound that is too small (n trips against `6 * sqrt(n)`) is outgrown by more
than one trip per unit. A loop is flagged when the trips per unit of bound
clearly exceed 1 between the two largest sizes and over all of them, and when
the crossing, extrapolated as a power of the bound, is near: that is where
sampling will start to fault. A bound already exceeded while sampling is that
fault itself, an error (R102, R107, R108, R112), not a prediction. A `total bound`
is judged the same way on its trips summed over each sample's run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from algspec import ir
from algspec.diagnostics import Diagnostic, RuntimeFault, Severity, Span
from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import Asymptotic, fit_slope, n, one
from algspec.efficiency.results import StaticEfficiency
from algspec.ir import libm
from algspec.ir.size_text import size_text
from algspec.ir.size_values import eval_size
from algspec.lint.measured import max_trips

W201_HELP = ("keep a constant share of the n processors busy each round: update the nodes in "
             "parallel (`round { forall v ... }`); a `forall` whose `where` or `if` tests "
             "data counts O(1) chosen processors at the fewest end, and `algspec efficiency "
             "--range` shows the most end; see docs/efficiency.md")
W202_HELP = "declare the worst-case trip count in n and m, e.g. `bound n` or `bound 2 * n + m`"
TOTAL_HELP = "declare the run's worst-case trips in n and m, e.g. `total bound 2 * n`"

# The growth test needs trips at this many sizes, at least MIN_TRIPS at the largest, and
# flags a loop only when the extrapolated crossing with its bound is within MAX_CROSSING
# times the largest size sampled. Between the two largest sizes the trips must grow by more
# than 1 + ALPHA_TOL per unit of the bound, a smaller size's maximum over a few samples
# counting as SAMPLING_SLACK trips short of its worst case.
MIN_GROWTH_SIZES = 3
MAX_CROSSING = 16
MIN_TRIPS = 4
ALPHA_TOL = 0.15
SAMPLING_SLACK = 1.0


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
        lines = sorted({static.records[r].span.line for r in lp.record_ids})
        where = ("`record` on line " if len(lines) == 1 else "`record`s on lines ") + \
            ", ".join(map(str, lines))
        out.append(Diagnostic(
            code="W201", severity=Severity.WARNING, span=lp.stmt.span,
            path=lp.stmt.path or program.path,  # an included procedure's loop: its file
            message=(f"{head}: the {rounds} rounds this `{lp.kind}` loop (line "
                     f"{lp.stmt.span.line}) records ({where}) keep {per_round} of the {N} "
                     "nodes active each"),
            help=W201_HELP))
    if not out:
        first = next(iter(static.records.values()), None)
        out.append(Diagnostic(code="W201", severity=Severity.WARNING, path=program.path,
                              span=first.span if first is not None else Span(),
                              message=head, help=W201_HELP))
    return out


# ================================================================ W202
expr_str = size_text  # a size expression as text (`algspec.ir.size_text`)


def _loops(program: ir.Program) -> dict[int, ir.Statement]:
    return {s.id: s for s, _ in ir.walk_statements(program.body)
            if isinstance(s, (ir.While, ir.ForRange))}


def _total_sites(program: ir.Program) -> dict[tuple, ir.Statement]:
    """One statement per source loop with a `total bound` (inlined copies share it)."""
    out: dict[tuple, ir.Statement] = {}
    for s, _ in ir.walk_statements(program.body):
        if isinstance(s, ir.Loop) and s.total is not None:
            out.setdefault(ir.loop_site(s), s)
    return out


def bound_growth_lints(program: ir.Program, iterations: dict[int, dict[int, Any]],
                       edges: dict[int, Any] | None = None,
                       tol: float = ALPHA_TOL,
                       totals: dict[tuple, dict[int, Any]] | None = None) -> list[Diagnostic]:
    """W202 for loops whose measured trip counts outgrow their declared bound.

    `iterations[stmt_id][n]` is the largest number of iterations one execution
    of the loop made at size n: an int, or an array with one entry per sample.
    `edges[n]` is |E| at size n (a float, or per sample), for bounds in m.
    Per-sample arrays make the "exceeds" check exact when the bound depends on m.
    `tol` is how far the trips per unit of bound must exceed 1 to count as growth.
    `totals[ir.loop_site(s)][n]` are a source loop's trips summed over each sample's
    run, judged against its `total bound` by the same rule.
    """
    loops = _loops(program)
    out: list[Diagnostic] = []
    for sid, by_n in iterations.items():
        s = loops.get(sid)
        if s is not None:
            out.extend(_finding(program, s, s.bound, by_n, edges or {}, tol, ""))
    sites = _total_sites(program)
    for site, by_n in (totals or {}).items():
        s = sites.get(site)
        if s is not None:
            out.extend(_finding(program, s, s.total, by_n, edges or {}, tol, "total "))
    return out


def _finding(program: ir.Program, s: ir.Statement, bound: ir.Expr, by_n: dict[int, Any],
             edges: dict[int, Any], tol: float, which: str) -> list[Diagnostic]:
    """W202 for one loop's trips against one of its bounds (`which`: "" or "total ")."""
    sizes = sorted(k for k, v in by_n.items() if np.max(v) > 0)
    if not sizes:
        return []
    text = expr_str(bound)
    run = " over the run" if which else ""
    try:
        per = {k: (np.atleast_1d(np.asarray(by_n[k], np.float64)),
                   _bound_values(program, bound, k, edges.get(k)))
               for k in sizes}
    except (ValueError, ArithmeticError):
        return []
    over = [(k, int(c[i]), int(np.ceil(np.broadcast_to(b, c.shape)[i])))
            for k, (c, b) in per.items()
            for i in np.nonzero(c > np.ceil(np.broadcast_to(b, c.shape)))[0][:1]]
    if over:
        k, c, b = over[0]
        return [_w202(program, s, f"the loop ran {c} times{run} at n = {k}, more than its "
                      f"{which}bound `{text}` = {b}", which)]
    counts = [float(per[k][0].max()) for k in sizes]
    bounds = [float(np.mean(per[k][1])) for k in sizes]
    cross = _crossing(program, bound, sizes, counts, bounds, edges, tol)
    if cross is None:
        return []
    k, c, b = sizes[-1], counts[-1], bounds[-1]
    per_unit = (c - _slack(counts[-2], bounds[-2])) / (b - bounds[-2])
    return [_w202(program, s, (
        f"iterations{run} grow like n^{fit_slope(sizes, counts):.2f} at n = "
        f"{sizes[0]}..{sizes[-1]} (max {c:.0f} at n = {k}), {per_unit:.2f} per unit of the "
        f"{which}bound `{text}` ({b:.3g} at n = {k}): the bound is too small and sampling "
        f"will exceed it beyond n = {cross}"), which)]


def _slack(c: float, b: float) -> float:
    """A smaller size's trips, raised by the one trip a maximum over a few random samples
    may miss of the worst case (at most the bound)."""
    return min(b, c + SAMPLING_SLACK)


def _crossing(program: ir.Program, bound: ir.Expr, sizes: list[int], counts: list[float],
              bounds: list[float], edges: dict[int, Any], tol: float) -> int | None:
    """The size where the trips will pass the bound, if they clearly outgrow it and soon.

    In the bound's units: c = alpha * b + beta over the sizes (smaller sizes' trips
    raised by the sampling slack) must have alpha > 1, and the two largest sizes
    alpha > 1 + tol. Offsets (c = b - d) give alpha = 1 exactly. The crossing is then
    extrapolated as c ~ b^p through the two largest sizes (p > 1).
    """
    if len(sizes) < MIN_GROWTH_SIZES or counts[-1] < MIN_TRIPS or bounds[-2] <= 0:
        return None
    raised = [_slack(c, b) for c, b in zip(counts[:-1], bounds[:-1])] + [counts[-1]]
    db = bounds[-1] - bounds[-2]
    if db <= 0 or (counts[-1] - raised[-2]) / db <= 1 + tol:
        return None
    if not _linear_slope(bounds, raised) > 1:
        return None
    c0 = counts[-2] if counts[-2] > 0 else raised[-2]
    p = float(libm.log(counts[-1] / c0) / libm.log(bounds[-1] / bounds[-2]))  # any CPU
    if not p > 1:
        return None
    target = bounds[-1] * (bounds[-1] / counts[-1]) ** (1.0 / (p - 1.0))
    return _size_reaching(program, bound, target, sizes, edges)


def _linear_slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of y on x in Python floats (a fixed order of exactly rounded
    operations): LAPACK's, through numpy's BLAS, picks its kernels by CPU."""
    mx, my = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    sxx = math.fsum((x - mx) * (x - mx) for x in xs)
    return math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else math.nan


def _size_reaching(program: ir.Program, bound: ir.Expr, target: float, sizes: list[int],
                   edges: dict[int, Any]) -> int | None:
    """The first size after the largest sampled whose bound reaches `target` (within
    MAX_CROSSING times that size; m grows as it did between the two largest sizes)."""
    k = sizes[-1]
    m_last = float(np.mean(edges[k])) if k in edges else None
    g = 1.0
    if m_last is not None and sizes[-2] in edges:
        m_prev = float(np.mean(edges[sizes[-2]]))
        g = min(max(float(libm.log(m_last / m_prev) / libm.log(k / sizes[-2])), 1.0), 2.0)
    steps = round(8 * float(libm.log2(MAX_CROSSING)))
    for j in range(steps + 1):
        size = k * 2.0 ** (j / 8)
        mm = m_last * (size / k) ** g if m_last is not None else None
        try:
            value = float(np.mean(_bound_values(program, bound, round(size), mm)))
        except (ValueError, ArithmeticError):
            return None
        if value >= target:
            return round(size)
    return None


def _bound_values(program: ir.Program, bound: ir.Expr, size: int, edges: Any) -> np.ndarray:
    """The bound at `size`, one value per sample's edge count (or one value)."""
    N = eval_size(program.nodes, size)
    if edges is None:
        return np.array([eval_size(bound, size, None, N)])
    return np.array([eval_size(bound, size, float(e), N) for e in np.atleast_1d(edges)])


def _w202(program: ir.Program, s: ir.Statement, message: str, which: str = "") -> Diagnostic:
    return Diagnostic(code="W202", severity=Severity.WARNING, span=s.span,
                      path=s.path or program.path,
                      message=message, help=TOTAL_HELP if which else W202_HELP)


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



# Sampling stops adding sizes once this many frames (summed over samples) have been run,
# so lint stays fast on long sequential algorithms (bubble sort, Kosaraju).
FRAME_BUDGET = 800


def sample_loop_iterations(alg, sizes: list[int], samples: int = 8, seed: int = 0,
                           frame_budget: int | None = FRAME_BUDGET,
                           time_budget: float | None = None, keep: int | None = None,
                           totals: dict[tuple, dict[int, np.ndarray]] | None = None,
                           **params) -> tuple[dict[int, dict[int, np.ndarray]],
                                              dict[int, np.ndarray], RuntimeFault | None]:
    """Per-sample trip counts per loop at each size; stops at the first size that faults.

    A size whose inputs cannot be drawn (a generator's minimum size: a needle of 2
    needs n >= 5) is skipped, not a fault; if no size can be drawn, the last such
    fault is returned. `keep` stops after that many sizes were sampled.

    Sizes after the first three are skipped once `frame_budget` frames have been
    sampled, or once the CPU time spent plus the predicted cost of the next size
    would pass `time_budget` seconds (lint: slow files get the three small sizes only).
    Returns (iterations, |E| per sample per size, the fault or None); a fault of a run
    carries the size it happened at as `.n`. `totals`, when given, receives each `total
    bound` loop's trips over each sample's run, by source loop and size.
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
            f.n = size  # the size it happened at, for the message
            return iters, edges, f
        frames += int(np.asarray(traj.lengths).sum())
        edges[size] = np.asarray(mach.m, np.float64).copy()
        found = counts.iters or getattr(mach, "loop_iters", {})
        for sid, arr in found.items():
            iters.setdefault(sid, {})[size] = np.asarray(arr).copy()
        if totals is not None:
            for site, arr in mach.loop_totals.items():
                totals.setdefault(site, {})[size] = np.asarray(arr).copy()
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
    """Whether some loop's bound or total bound depends on n or m (only those can
    outgrow it)."""
    loops = list(_loops(program).values()) + list(_total_sites(program).values())
    return any(any(isinstance(x, ir.Size) for x in ir.walk_expr(e))
               for s in loops for e in (s.bound, getattr(s, "total", None)) if e is not None)


# Faults that say a declared bound is wrong, and what to do about each.
BOUND_FAULTS = {
    "R102": W202_HELP,
    "R107": "a bound that holds with high probability needs a generous constant, e.g. "
            "`bound 4 * log2(n) + 4 whp`",
    "R108": "declare the worst-case `depth` and `calls` in n and m, e.g. "
            "`depth n calls 2 * n + 1`",
    "R112": TOTAL_HELP,
}


def sampled_bound_lints(alg, sizes: tuple[int, ...] = (4, 8, 16, 32), samples: int = 8,
                        seed: int = 0, tol: float = ALPHA_TOL,
                        time_budget: float | None = None, **params) -> list[Diagnostic]:
    """W202 from sampling: loops whose trips outgrow their bound, as warnings; and a bound
    already exceeded on a sampled input (R102, R107, R108, R112) as the error it is.

    A sampled input that breaks a declared loop, total or recursion bound makes the interpreter
    fault on it: sampling at that size fails, so it is reported as that fault (an error,
    with the size), and no prediction (W202) is added for the same statement. Other
    run-time faults (an index out of range, ...) are raised as `RuntimeFault`.
    With no loop bound in n or m there is no growth to fit: two sizes suffice
    (they still check probe types and constant bounds).
    """
    keep = None if has_growing_bound(alg.ir) else 2
    totals: dict[tuple, dict[int, np.ndarray]] = {}
    iters, edges, fault = sample_loop_iterations(alg, list(sizes), samples, seed,
                                                 time_budget=time_budget, keep=keep,
                                                 totals=totals, **params)
    if fault is not None and fault.diagnostic.code not in BOUND_FAULTS:
        raise fault  # not about bounds: the caller reports the fault itself
    out = bound_growth_lints(alg.ir, iters, edges, tol, totals)
    if fault is not None:
        d = fault.diagnostic
        message = d.message
        size = getattr(fault, "n", None)
        if size is not None and f"at n = {size}" not in message:  # R112 says it already
            head, sep, tail = message.rpartition(" (sample ")
            message = f"{head} at n = {size}{sep}{tail}" if sep else f"{message} at n = {size}"
        done = sorted(edges)  # the sizes that ran to the end
        if done:
            message += f"; sampling was fine at n = {', '.join(map(str, done))}"
        out = [x for x in out if (x.span, x.path) != (d.span, d.path)]  # the fault says it
        out.append(d.model_copy(update={"message": message, "help": BOUND_FAULTS[d.code]}))
    return out


__all__ = ["bound_growth_lints", "efficiency_lints", "expr_str", "has_growing_bound",
           "sample_loop_iterations", "sampled_bound_lints"]
