"""Measured efficiency: count the active nodes and edges per round while sampling.

The batched interpreter reports activity to an `ActivityRecorder` (it
implements `algspec.interp.ActivityObserver`); `Activity` turns the reports
into per-sample rounds T, work, active edges, eta and epsilon with the same
definitions as the static analysis (docs/efficiency.md):

* A round ends at each recorded frame. Activity reported between two frames of
  a sample belongs to the round that ends with the later frame; activity before
  a sample's first frame (initialisation) belongs to its first round, and
  activity after its last frame (computing the outputs) to its last round, so
  nothing the algorithm does is dropped and T stays the number of frames.
* Duplicates are counted once: a node (edge) is active in a round if any
  statement reported it in that round; every round has one active node at least
  (the one that records it, with its self-loop), as in the static rules.
* Every active node's self-loop is an active edge (CLRS adds self-loops to
  every graph, and the `adj` masks algspec builds include them), and reported
  edges that are not edges of the sample's interconnection graph are dropped,
  so 0 <= epsilon <= 1.

`measure` samples an algorithm at several sizes and fits growth exponents.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algspec import ir
from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import Asymptotic, fit_slope
from algspec.efficiency.results import StaticEfficiency
from algspec.efficiency.worst_case import RANGED, reported
from algspec.ir.size_values import eval_size
from algspec.lint.observed import report_rules, reporting_form

_REPORTED: dict[tuple[int, bool], tuple[ir.Aggregate, tuple[bool, bool]]] = {}


def _reported(e: ir.Aggregate, readout: bool) -> tuple[bool, bool]:
    """`worst_case.reported`, cached per aggregation (the rule reads the IR only)."""
    hit = _REPORTED.get((id(e), readout))
    if hit is None or hit[0] is not e:
        if len(_REPORTED) > 4096:
            _REPORTED.clear()
        hit = _REPORTED[(id(e), readout)] = (e, reported(e, readout))
    return hit[1]


def max_trips(current: np.ndarray | None, sample: np.ndarray,
              count: np.ndarray) -> np.ndarray | None:
    """Per-sample maximum trip count of a loop, merged with `current` (None: no samples)."""
    s = np.asarray(sample, np.int64).ravel()
    c = np.asarray(count, np.int64).ravel()
    if not s.size:
        return current
    size = max(int(s.max()) + 1, 0 if current is None else current.size)
    out = np.zeros(size, np.int64)
    if current is not None:
        out[: current.size] = current
    np.maximum.at(out, s, c)
    return out


class ActivityRecorder:
    """Collects the interpreter's activity reports, keyed by sample and round.

    Implements the `ActivityObserver` protocol (`nodes`, `edges`, `frame`) and
    the optional `iterations` callback (loop trip counts, used by lint W202).
    Arrays are buffered as they come and deduplicated once, in `activity`.
    """

    def __init__(self, ignore: set[int] | frozenset[int] = frozenset(),
                 spread: set[int] | frozenset[int] = frozenset()) -> None:
        self.ignore = frozenset(ignore)   # statements whose reports carry no work
        # whole-array updates that aggregate over the nodes: every edge is active
        # (`observed.ReportRules`)
        self.spread = frozenset(spread)
        # Columns, stacked into rows once in `activity` (a read reports a few elements;
        # stacking each report as it comes costs more than interpreting the read).
        Cols = tuple[np.ndarray, ...]
        self._full: list[Cols] = []    # (sample, round): every edge active
        self._frames = np.zeros(0, np.int64)
        self._nodes: list[Cols] = []   # (sample, round, node)
        self._edges: list[Cols] = []   # (sample, round, src, dst)
        self._stmt_nodes: dict[int, int] = {}
        self.loop_iterations: dict[int, np.ndarray] = {}  # stmt id -> max trips per sample

    def _grow(self, sample: np.ndarray) -> None:
        need = int(sample.max()) + 1 if sample.size else 0
        if need > self._frames.size:
            self._frames = np.concatenate([self._frames,
                                           np.zeros(need - self._frames.size, np.int64)])

    def nodes(self, stmt_id: int, sample: np.ndarray, node: np.ndarray) -> None:
        s = np.asarray(sample, np.int64).ravel()
        v = np.asarray(node, np.int64).ravel()
        if not s.size or stmt_id in self.ignore:
            return
        self._grow(s)
        self._nodes.append((s, self._frames[s], v))
        if stmt_id in self.spread:
            u = np.unique(s)
            self._full.append((u, self._frames[u]))
        self._stmt_nodes[stmt_id] = self._stmt_nodes.get(stmt_id, 0) + int(s.size)

    def edges(self, stmt_id: int, sample: np.ndarray, src: np.ndarray, dst: np.ndarray) -> None:
        s = np.asarray(sample, np.int64).ravel()
        if not s.size or stmt_id in self.ignore:
            return
        self._grow(s)
        a = np.asarray(src, np.int64).ravel()
        b = np.asarray(dst, np.int64).ravel()
        self._edges.append((s, self._frames[s], a, b))

    def frame(self, sample: np.ndarray) -> None:
        s = np.unique(np.asarray(sample, np.int64).ravel())
        if not s.size:
            return
        self._grow(s)
        self._frames[s] += 1

    def aggregate_elements(self, e: ir.Aggregate, readout: bool, sel: np.ndarray,
                           evaluated: np.ndarray | None, body: np.ndarray | None) -> np.ndarray:
        """Optional: the elements of aggregation `e` to report, by the worst-case rule
        (`worst_case.reported`): those its filter passes (`sel`), every `evaluated` one
        when the filter reads two places, and of an `any`/`all`/`count` whose predicate
        does not, the witnesses in `body` only."""
        every, witness = _reported(e, readout)
        if every and evaluated is not None:
            sel = evaluated
        if witness and body is not None:
            holds = np.asarray(body).astype(bool)
            sel = sel & (~holds if e.op == "all" else holds)
        return sel

    def iterations(self, stmt_id: int, sample: np.ndarray, count: np.ndarray) -> None:
        """Optional: a loop's execution in these samples ended after `count` iterations."""
        merged = max_trips(self.loop_iterations.get(stmt_id), sample, count)
        if merged is not None:
            self.loop_iterations[stmt_id] = merged

    def loop(self, stmt_id: int, sample: np.ndarray, iterations: np.ndarray) -> None:
        """The interpreter's loop trip-count callback (same as `iterations`)."""
        self.iterations(stmt_id, sample, iterations)

    @classmethod
    def for_program(cls, program: ir.Program) -> ActivityRecorder:
        """A recorder that counts `program`'s activity by the worst-case rule
        (`algspec.lint.observed.report_rules`), run on the program's reporting
        form (`observed.reporting_form`)."""
        r = report_rules(program)
        return cls(ignore=r.silent, spread=r.spread)

    @property
    def frames(self) -> np.ndarray:
        return self._frames.copy()

    def activity(self, num_nodes: int, edge_counts: np.ndarray | int,
                 adjacency: np.ndarray | None = None, batch_size: int | None = None) -> Activity:
        """Per-sample statistics; `adjacency` [B, N, N] restricts edges to the graph."""
        B = batch_size if batch_size is not None else self._frames.size
        T = np.zeros(B, np.int64)
        T[: min(B, self._frames.size)] = self._frames[:B]
        N = int(num_nodes)
        E = np.broadcast_to(np.asarray(edge_counts, np.float64), (B,)).copy()
        Tmax = max(int(T.max()) if B else 0, 1)

        def rows(chunks: list[tuple[np.ndarray, ...]], width: int) -> np.ndarray:
            if not chunks:
                return np.zeros((0, width), np.int64)
            r = np.stack([np.concatenate(col) for col in zip(*chunks, strict=True)], axis=1)
            r = r[r[:, 0] < B]
            t = T[r[:, 0]]
            r = r[t > 0]                                  # samples without frames: no rounds
            r[:, 1] = np.minimum(r[:, 1], T[r[:, 0]] - 1)  # after the last frame: last round
            return r

        nodes = _unique_rows(rows(self._nodes, 3), (B, Tmax, N))
        edges = rows(self._edges, 4)
        if adjacency is not None and len(edges):
            adj = np.asarray(adjacency).astype(bool)
            keep = adj[edges[:, 0], edges[:, 2], edges[:, 3]] | (edges[:, 2] == edges[:, 3])
            edges = edges[keep]
        loops = np.stack([nodes[:, 0], nodes[:, 1], nodes[:, 2], nodes[:, 2]], axis=1)
        edges = _unique_rows(np.concatenate([edges, loops]), (B, Tmax, N, N))

        def per_round(r: np.ndarray) -> np.ndarray:
            return np.bincount(r[:, 0] * Tmax + r[:, 1], minlength=B * Tmax).reshape(B, Tmax)

        edge_counts = per_round(edges)
        full = rows(self._full, 2)
        if len(full):  # a whole-array aggregation over the nodes: every edge of the sample
            edge_counts[full[:, 0], full[:, 1]] = np.round(E[full[:, 0]]).astype(np.int64)
        # Every round has one active node at least, the one that records it (the static
        # rules' floor), with its self-loop: a round of sequential bookkeeping is not idle.
        node_counts = np.maximum(per_round(nodes), 1)
        edge_counts = np.maximum(edge_counts, 1)
        return Activity(num_nodes=N, edge_counts=E, rounds=T,
                        nodes_per_round=[node_counts[b, : T[b]] for b in range(B)],
                        edges_per_round=[edge_counts[b, : T[b]] for b in range(B)])


def _unique_rows(r: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """Distinct rows of a small non-negative integer matrix (mixed-radix key when it fits)."""
    if not len(r):
        return r
    total = 1
    for d in dims:
        total *= max(d, 1)
    if total < 2 ** 62:
        key = np.zeros(len(r), np.int64)
        for k, d in enumerate(dims):
            key = key * max(d, 1) + np.clip(r[:, k], 0, max(d, 1) - 1)
        _, first = np.unique(key, return_index=True)
        return r[np.sort(first)]
    return np.unique(r, axis=0)


@dataclass
class Activity:
    """Per-sample measured figures of one batch."""

    num_nodes: int                  # N
    edge_counts: np.ndarray         # |E| per sample (self-loops included)
    rounds: np.ndarray              # T per sample (hint frames)
    nodes_per_round: list[np.ndarray]
    edges_per_round: list[np.ndarray]

    @property
    def work(self) -> np.ndarray:
        return np.array([x.sum() for x in self.nodes_per_round], np.float64)

    @property
    def active_edges(self) -> np.ndarray:
        return np.array([x.sum() for x in self.edges_per_round], np.float64)

    @property
    def capacity(self) -> np.ndarray:
        return self.num_nodes * self.rounds.astype(np.float64)

    @property
    def eta(self) -> np.ndarray:
        """work / (N T) per sample (NaN for a sample without frames)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.work / self.capacity

    @property
    def epsilon(self) -> np.ndarray:
        """Mean over rounds of active edges / |E|, per sample."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.active_edges / (self.rounds * self.edge_counts)


# ================================================================ sampling at several sizes
QUANTITIES = ("T", "work", "active_edges", "c", "eta", "epsilon")

# Direction in which a worst-case static class bounds the measured value: T and c are
# maxima over inputs (measured grows no faster), eta and epsilon minima (measured decays no
# faster); work and active edges mix a maximum (T) with a minimum (activity) and have none.
BOUND_DIRECTION = {"T": "upper", "c": "upper", "eta": "lower", "epsilon": "lower",
                   "work": None, "active_edges": None}

# Exponent tolerance. Between n = 8 and 64 a lower-order term (1 + a/n) moves a fitted slope
# by about a/n_min / ln(64/8) (~0.06 per unit of a); the constants in the shipped algorithms
# are below 2, sampling noise of the means over K >= 8 samples is smaller still, and a wrong
# class is off by at least a log factor (slope ~0.3-0.5 at these sizes) or a power (1.0).
# Log factors are handled by comparing with the static class's own local slope.
TOLERANCE = 0.3


@dataclass
class SizeStats:
    """Means over the samples of one size."""

    n: int
    N: int
    samples: int
    edges: float            # mean |E|
    T: float
    work: float
    active_edges: float
    c: float
    eta: float
    epsilon: float
    T_max: int = 0
    # Per-sample values (and |E| as "edges"), for a comparison that is not of means.
    per_sample: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def get(self, q: str) -> float:
        return float(getattr(self, q))

    def extreme_ratio(self, q: str, cls: Asymptotic, direction: str) -> float:
        """The sample furthest to the unsafe side of `direction`, measured / class.

        Each sample is divided by the class at its own |E|; the largest ratio
        for an upper bound, the smallest for a lower one.
        """
        vals, edges = self.per_sample[q], self.per_sample["edges"]
        r = np.array([v / cls.evaluate(self.n, e) for v, e in zip(vals, edges)])
        r = r[np.isfinite(r)]
        if not r.size:
            return float("nan")
        return float(r.max() if direction == "upper" else r.min())


@dataclass
class Fit:
    """Measured against static for one quantity.

    `ratios` are measured / static class value at each size; `log_trend` is
    the least-squares slope of log(ratio) on log(log2 n): 0 when the two agree
    up to a constant, about +-1 for a missing or extra log factor, large for a
    power. The verdict rests on it (see `ratio_verdict`).
    """

    quantity: str
    measured_slope: float
    static_class: str
    static_slope: float
    verdict: str
    ratios: list[float] = field(default_factory=list)
    log_trend: float = float("nan")

    @property
    def delta(self) -> float:
        return self.measured_slope - self.static_slope


@dataclass
class Measurement:
    """Measured figures of one algorithm at several sizes, beside its static classes."""

    name: str
    path: str
    static: StaticEfficiency
    sizes: list[SizeStats]
    fits: dict[str, Fit] = field(default_factory=dict)
    example: Activity | None = None       # the largest size's batch (for plots)
    loop_iterations: dict[int, dict[int, int]] = field(default_factory=dict)
    # Work, active edges, eta and epsilon against the most end of their range
    # (`StaticEfficiency.ranges`); `fits` holds them against the fewest, the worst case.
    most_fits: dict[str, Fit] = field(default_factory=dict)

    def at(self, n: int) -> SizeStats | None:
        for s in self.sizes:
            if s.n == n:
                return s
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "path": self.path, "static": self.static.as_dict(),
            "sizes": [{k: v for k, v in vars(s).items() if k != "per_sample"}
                      for s in self.sizes],
            "fits": {k: {"measured_slope": _num(f.measured_slope),
                         "static_class": f.static_class, "static_slope": _num(f.static_slope),
                         "ratios": [_num(r) for r in f.ratios],
                         "log_trend": _num(f.log_trend),
                         "verdict": f.verdict} for k, f in self.fits.items()},
            "range": {q: {**self.static.range(q).as_dict(),
                          "most_ratios": [_num(r) for r in f.ratios],
                          "most_verdict": f.verdict} for q, f in self.most_fits.items()},
            "tolerance": TOLERANCE,
        }


def _num(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 4)


def static_class_of(static: StaticEfficiency, q: str) -> Asymptotic:
    return {"T": static.rounds, "work": static.work, "active_edges": static.active_edges,
            "c": static.capacity, "eta": static.node_efficiency,
            "epsilon": static.edge_efficiency}[q]


# Half a log factor: |log_trend| above this is a different class ...
LOG_TREND_TOLERANCE = 0.5
# ... provided the ratio moves by more than this factor across the sizes. Lower-order terms
# (1 + a/n) move the ratio by up to ~1.4x between n = 8 and 32, where log log n barely moves
# (a log factor moves it 5/3x there, 3x between 8 and 512).
SPREAD_TOLERANCE = 1.5


def log_trend(sizes: list[float], ratios: list[float]) -> float:
    """Slope of log(ratio) on log(log2 n): the power of log n between measured and static."""
    pts = [(math.log(math.log2(s)), math.log(r)) for s, r in zip(sizes, ratios)
           if s > 2 and r > 0 and math.isfinite(r)]
    if len(pts) < 2:
        return float("nan")
    return fit_slope([math.exp(x) for x, _ in pts], [math.exp(y) for _, y in pts])


def ratio_verdict(q: str, trend: float, worst_case: bool = False,
                  tol: float = LOG_TREND_TOLERANCE, spread: float = math.inf,
                  ratios: list[float] | None = None, sizes: list[int] | None = None,
                  direction: str | None = "default") -> str:
    """`agrees` when measured / static stays within a constant factor (no log trend).

    On inputs named as the worst case any trend is `differs` (a log factor
    included). On other inputs a trend toward the bound's safe side is `within
    worst case` (T and c grow slower, eta and epsilon decay slower) and the other
    side `EXCEEDS worst case`, unless (given `ratios` at three or more `sizes`) the
    ratio has settled: at the largest size it moved the unsafe way by less than half
    a log factor past the earlier sizes' extreme (`settled`: a random graph's BFS
    that reaches its bound from n = 16 on, not a wrong class). Work and active edges
    have no side against the worst case (`differs`); `direction` overrides the side
    ("upper", "lower" or None).
    """
    if not math.isfinite(trend):
        return "n/a"
    if abs(trend) <= tol or spread <= SPREAD_TOLERANCE:
        return "agrees"
    direction = BOUND_DIRECTION[q] if direction == "default" else direction
    if worst_case or direction is None:
        return "differs"
    safe = trend < 0 if direction == "upper" else trend > 0
    if safe or ratios is not None and sizes is not None and settled(ratios, sizes, direction):
        return "within worst case"
    return "EXCEEDS worst case"


def settled(ratios: list[float], sizes: list[int], direction: str) -> bool:
    """Whether measured / class has settled at the largest size on the bound's unsafe side.

    A class that is wrong by a log factor or more moves the ratio that way at every
    size, by 1 + 1/log2 n or more per doubling; lower-order terms (the (1 - 2/n)^2 of
    a triangle of pairs) and small graphs (a BFS that stops early at n = 8) move it
    at the small sizes, by steps that shrink like 1/n. Settled: the last step moved
    the ratio past the earlier sizes' extreme by less than half a log factor, or by a
    step at most 0.6 times (in log) the step before it. Needs three sizes.
    """
    pts = [(n, r) for n, r in zip(sizes, ratios) if n > 2 and r > 0 and math.isfinite(r)]
    if len(pts) < 3:
        return False
    rs = [r for _, r in pts] if direction == "upper" else [1 / r for _, r in pts]
    move = rs[-1] / max(rs[:-1])
    before = rs[-2] / max(rs[:-2])
    if move <= 1 + 0.5 / math.log2(pts[-2][0]):
        return True
    return before > 1 and math.log(move) <= 0.6 * math.log(before)


def verdict(q: str, measured: float, static: float, tol: float = TOLERANCE) -> str:
    """`agrees`, `below worst case` (measured on the bound's safe side) or `EXCEEDS bound`."""
    if not (np.isfinite(measured) and np.isfinite(static)):
        return "n/a"
    d = measured - static
    if abs(d) <= tol:
        return "agrees"
    direction = BOUND_DIRECTION[q]
    if direction is None:
        return "differs"
    safe = d < 0 if direction == "upper" else d > 0
    return "within worst case" if safe else "EXCEEDS worst case"


def graph_edges(program: ir.Program, inputs: dict[str, np.ndarray], N: int,
                batch: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(|E| per sample, adjacency [B, N, N] or None for a complete graph).

    The edges are those the program's reads travel, as in the static rules: the
    declared graph's, and the built-in graphs' that carry the reads it does not join
    (`algspec.efficiency.graph_reads.used_edge_kinds`)."""
    from algspec.efficiency.graph_reads import used_edge_kinds
    from algspec.ir.graph_kinds import GRAPH_KINDS
    g = program.graph
    beyond = used_edge_kinds(program)
    if g.kind == "complete" or g.mask_name is None or "complete" in beyond:
        return np.full(batch, float(N * N)), None
    mask = inputs.get(g.mask_name)
    if mask is None:
        raise ValueError(f"{program.name}: the trajectories lack the graph mask `{g.mask_name}`")
    adj = np.asarray(mask).astype(bool)
    for k in beyond:
        adj = adj | GRAPH_KINDS[k].mask(adj.shape[-1])[None]
    return adj.sum(axis=(1, 2)).astype(np.float64), adj


def silent_statements(program: ir.Program) -> set[int]:
    """Foralls whose processors read no data (resets): no work, as in the static rules."""
    return set(report_rules(program).silent)


_WORST = re.compile(r"#\s*worst[ -]case:\s*(.+)$", re.IGNORECASE)


def worst_case_params(alg) -> dict[str, Any]:
    """Generator parameters a file names as its worst case: `# worst case: p = 0.0, ...`.

    A comment line of that form anywhere in the source; values are numbers or
    true/false. Empty when the file names none.
    """
    out: dict[str, Any] = {}
    for line in getattr(alg, "source", "").splitlines():
        mt = _WORST.search(line.strip())
        if not mt:
            continue
        for item in mt.group(1).split(","):
            key, _, val = item.partition("=")
            key, val = key.strip(), val.strip()
            if not key or not val:
                continue
            low = val.lower()
            out[key] = True if low == "true" else False if low == "false" else \
                (int(val) if re.fullmatch(r"-?\d+", val) else float(val))
    return out


def measure_size(alg, n: int, samples: int, seed: int = 0,
                 **params: Any) -> tuple[SizeStats, Activity, ActivityRecorder]:
    """Sample `samples` inputs of size n with a recorder attached, running the program's
    reporting form (`observed.reporting_form`: the same inputs and outputs)."""
    rec = ActivityRecorder.for_program(alg.ir)
    traj = reporting_form(alg).sample(n, samples, seed, observer=rec, **params)
    prog: ir.Program = alg.ir
    N = int(eval_size(prog.nodes, n))
    E, adj = graph_edges(prog, traj.inputs, N, traj.batch_size)
    act = rec.activity(N, E, adj, batch_size=traj.batch_size)
    stats = SizeStats(
        n=n, N=N, samples=traj.batch_size, edges=float(E.mean()), T=float(act.rounds.mean()),
        work=float(act.work.mean()), active_edges=float(act.active_edges.mean()),
        c=float(act.capacity.mean()), eta=float(np.nanmean(act.eta)),
        epsilon=float(np.nanmean(act.epsilon)), T_max=int(act.rounds.max()),
        per_sample={"edges": E.astype(np.float64), "T": act.rounds.astype(np.float64),
                    "work": act.work, "active_edges": act.active_edges, "c": act.capacity,
                    "eta": act.eta, "epsilon": act.epsilon})
    return stats, act, rec


def measure(alg, sizes: list[int], samples: int = 8, seed: int = 0, tol: float = TOLERANCE,
            static: StaticEfficiency | None = None, worst_case: bool = False,
            extreme: bool = False, **params: Any) -> Measurement:
    """Sample at each size and compare each measured mean with its static class.

    The comparison is the ratio measured / static class value (m set to the
    mean |E| measured at each size) across sizes: bounded (no trend in
    log(ratio) against log log n) is `agrees`, a log factor or a power is not
    (`ratio_verdict`). `worst_case=True` samples the generator parameters the
    file names as its worst case (`worst_case_params`; `params` override them)
    and reports any trend as `differs`. The fitted growth exponents (slope of
    log value on log n, and the static class's own slope between the same
    sizes) are kept beside it for the report. `extreme=True` compares, per size,
    the sample furthest to the bound's unsafe side instead of the mean: a bound
    holds for every input, and a mean over inputs from two modes (a random flag
    that decides a filter) moves with the share of each mode, not with n.
    """
    static = static or analyse(alg.ir)
    if worst_case:
        params = {**worst_case_params(alg), **params}
    rows: list[SizeStats] = []
    example = None
    loops: dict[int, dict[int, int]] = {}
    for k, n in enumerate(sizes):
        st, act, rec = measure_size(alg, n, samples, seed + k, **params)
        rows.append(st)
        example = act
        for sid, arr in rec.loop_iterations.items():
            loops.setdefault(sid, {})[n] = int(arr.max()) if arr.size else 0
    out = Measurement(name=alg.name, path=str(alg.path), static=static, sizes=rows,
                      example=example, loop_iterations=loops)
    for q in QUANTITIES:
        out.fits[q] = fit_class(q, static_class_of(static, q), rows, worst_case,
                                extreme=extreme)
    for q in RANGED:  # the most end: work and active edges never grow faster, on any input
        out.most_fits[q] = fit_class(q, static.range(q).most, rows, worst_case,
                                     MOST_DIRECTION[q], extreme=extreme)
    return out


# Direction in which the most end of a range bounds the measured value on any input:
# work and active edges count at most what runs when every choice takes all. eta and
# epsilon are counted on the inputs that attain T, so other inputs may exceed it.
MOST_DIRECTION = {"work": "upper", "active_edges": "upper", "eta": None, "epsilon": None}


def fit_class(q: str, cls: Asymptotic, rows: list[SizeStats], worst_case: bool = False,
              direction: str | None = "default", extreme: bool = False) -> Fit:
    """Measured means of quantity `q` at each size against class `cls` (`ratio_verdict`);
    with `extreme`, the sample furthest to the unsafe side (`SizeStats.extreme_ratio`)."""
    ns = [r.n for r in rows]
    ms = [r.edges for r in rows]
    meas = fit_slope(ns, [r.get(q) for r in rows])
    side = BOUND_DIRECTION[q] if direction == "default" else direction
    try:
        st_slope = cls.local_slope(ns, ms) if not cls.is_zero else float("nan")
        ratios = [r.extreme_ratio(q, cls, side) if extreme and side else
                  r.get(q) / cls.evaluate(r.n, r.edges) for r in rows]
    except (ValueError, ZeroDivisionError):
        st_slope, ratios = float("nan"), []
    trend = log_trend(ns, ratios)
    good = [x for x in ratios if x > 0 and math.isfinite(x)]
    spread = max(good) / min(good) if good else math.inf
    return Fit(q, meas, str(cls), st_slope,
               ratio_verdict(q, trend, worst_case, spread=spread, ratios=ratios, sizes=ns,
                             direction=direction),
               ratios=ratios, log_trend=trend)


__all__ = ["LOG_TREND_TOLERANCE", "QUANTITIES", "TOLERANCE", "Activity", "ActivityRecorder",
           "Fit", "Measurement", "SizeStats", "fit_class", "graph_edges",
           "log_trend", "measure", "measure_size", "ratio_verdict", "settled",
           "silent_statements", "verdict", "worst_case_params"]
