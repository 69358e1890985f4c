"""Static efficiency of an algorithm from its IR (paper section 3; docs/efficiency.md).

From the loop bounds and the counting rules below, `analyse(program)` derives,
as worst-case asymptotic classes in n and m: the number of rounds T (hint
frames), the processors N, the interconnection graph's edges |E|, the work
(active nodes summed over rounds), the active edges summed over rounds, the
capacity c = N T, the node efficiency eta = work / c and the edge efficiency
epsilon = active edges / (T |E|) (the mean over rounds of active edges / |E|).

The rules are documented in docs/efficiency.md ("Counting rules"); in brief:

* A round is one `record`: T counts `Record` executions. Sequences add, loops
  multiply by their bound (`ForRange.bound`, `While.bound`, N for
  `ForNodes`; times the share of it a loop on data-independent graph state
  runs, counted by `algspec.efficiency.selection`), branches add (sum ~ max),
  and a record on a path that ends in `break` counts once per execution of its
  loop, not once per iteration.
* Activity between two records belongs to the later round; activity before
  the first record belongs to round 1 and after the last record to round T,
  so the totals simply sum every statement's activity.
* Normal forms first (equivalent programs, equal classes): a whole-array
  assignment is a forall; processors that read no data (resets) cost nothing;
  a filter is a guarded body (`normal_aggregate`); a forall whose body is one
  `if` is a guarded forall (`normal_forall`; algspec/efficiency/normal_forms.py).
* The worst case is one definition (docs/efficiency.md, `worst_case`): T is a
  maximum; work and active edges are counted on the inputs that attain it, every
  data-dependent choice (guard, `if`, filter, any/all/count witnesses, a loop
  that records nothing) taking the fewest (the fields) or the most (`.ranges`)
  of what it selects; `analyse` runs one pass per end. A data-independent test
  is counted (`algspec.efficiency.selection`), so geometric series give
  reductions and scans their textbook classes.
* Active nodes: a forall's selected processors, and every candidate whose test
  reads across an edge; one per sequential statement; N per `for .. in nodes by`
  ordering; the elements a readout's filter (any/all: witnesses) selects.
* Active edges: every active node's self-loop; one per pointer dereference per
  evaluation; the elements a processor's aggregation selects (distinct per
  round); one per processor writing elsewhere; the selected edge processors,
  and every one whose test reads across its edge. The graph's own edge test
  (`adj[v, u]`, or `A[v, u] != 0` under `adj = adjacency(A)`) selects every edge.
* Shares are bounded by construction: one statement touches at most N nodes
  and |E| edges per round and every round at least one node, so
  0 < eta <= 1 and 0 < epsilon <= 1; classes simplify under n <= m <= n^2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algspec import ir, ops
from algspec.diagnostics import AlgError, Diagnostic, Span
from algspec.efficiency import selection, worst_case
from algspec.efficiency.asymptotic import Asymptotic, Share, m, n, one, zero
from algspec.efficiency.normal_forms import (
    _const_value,
    _forall_reads_data,
    _without_graph_mask,
    _zero_pins,
    graph_edge_tests,
    normal_aggregate,
    normal_forall,
    split_test,
)
from algspec.efficiency.selection import Selections
from algspec.efficiency.size_classes import SizeClass
from algspec.graph_kinds import GRAPH_KINDS

E605_HELP = ("write it as a class n^a m^b log^c n (log log n)^d (log* n)^e: n, m, log2, "
             "log_star, sqrt, min, max, constant powers and 2 ** (k * log2(n) + c) "
             "(`algspec explain E605`)")


class EfficiencyError(AlgError, ValueError):
    """A size expression the analysis cannot classify (E605 at the expression).

    Raised by `analyse` (and so by `CompiledAlgorithm.static_efficiency()`) for a loop
    bound, `calls` bound or node count whose class is not n^a m^b log^c n (log log n)^d
    (log* n)^e (`2 ** n`), or that cannot be bounded (`n / (n - n)`). It is an `AlgError`, so
    `diagnostics` holds the diagnostic the CLI prints, and a `ValueError`.
    """

    def __init__(self, message: str, span: Span | None = None, path: str | None = None):
        self.span = span or Span()
        self.message = message
        self.path = path
        super().__init__([Diagnostic(code="E605", message=message, span=self.span,
                                     path=path or "<string>", help=E605_HELP)])

    def at(self, path: str | None) -> EfficiencyError:
        """The same error in file `path`, unless it already names one."""
        if self.path is not None or path is None:
            return self
        return EfficiencyError(self.message, self.span, path)


# ================================================================ results
@dataclass
class LoopInfo:
    """A loop that records frames: what one iteration of its body costs."""

    stmt: ir.Statement
    kind: str
    bound: Asymptotic              # iterations per execution
    iterations: Asymptotic         # total iterations over the run
    records: Asymptotic            # frames recorded per iteration
    work: Asymptotic               # active nodes per iteration
    record_ids: list[int]          # Record statements whose innermost loop this is


@dataclass
class StaticEfficiency:
    """Worst-case classes of one algorithm; every field prints and `.evaluate(n=, m=)`s."""

    name: str
    nodes: Asymptotic              # N, processors
    edges: Asymptotic              # |E|, interconnection edges (with self-loops)
    rounds: Asymptotic             # T, hint frames
    work: Asymptotic               # sum over rounds of active nodes
    active_edges: Asymptotic       # sum over rounds of active edges
    capacity: Asymptotic           # c = N T
    node_efficiency: Asymptotic    # eta = work / c
    edge_efficiency: Asymptotic    # epsilon = active edges / (T |E|)
    graph: str = "complete"
    record_counts: dict[int, Asymptotic] = field(default_factory=dict)
    loops: list[LoopInfo] = field(default_factory=list)
    records: dict[int, ir.Record] = field(default_factory=dict)
    innermost_loop: dict[int, int | None] = field(default_factory=dict)
    whp: bool = False  # a `bound ... whp` loop: the classes hold with high probability
    # Both ends of work, active edges, eta and epsilon (`worst_case.ClassRange`, keyed as
    # `worst_case.RANGED`); the fields above are the fewest end, the worst case.
    ranges: dict[str, worst_case.ClassRange] = field(default_factory=dict)

    @property
    def T(self) -> Asymptotic:
        return self.rounds

    @property
    def c(self) -> Asymptotic:
        return self.capacity

    @property
    def eta(self) -> Asymptotic:
        return self.node_efficiency

    @property
    def epsilon(self) -> Asymptotic:
        return self.edge_efficiency

    def classes(self) -> dict[str, Asymptotic]:
        """The printed classes in a fixed order (names as in `algspec efficiency`)."""
        return {"N": self.nodes, "|E|": self.edges, "T": self.rounds, "work": self.work,
                "active_edges": self.active_edges, "c": self.capacity,
                "eta": self.node_efficiency, "epsilon": self.edge_efficiency}

    def as_dict(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.classes().items()}

    def range(self, q: str) -> worst_case.ClassRange:
        """Both ends of quantity `q` (a key of `classes()`); one-ended ones are equal."""
        if q in self.ranges:
            return self.ranges[q]
        c = self.classes()[q]
        return worst_case.ClassRange(c, c)

    def ranges_dict(self) -> dict[str, dict[str, str]]:
        """`{"eta": {"fewest": ..., "most": ...}, ...}` for every printed class (JSON)."""
        return {q: self.range(q).as_dict() for q in self.classes()}

    def __str__(self) -> str:
        return format_static(self)


def format_static(s: StaticEfficiency) -> str:
    """A few lines for `algspec compile` and `algspec efficiency`."""
    return (f"{s.name}: T = {s.rounds}{' (whp)' if s.whp else ''}, N = {s.nodes}, |E| = {s.edges} ({s.graph} graph)\n"
            f"  capacity c = {s.capacity}   node efficiency eta = {s.node_efficiency}   "
            f"edge efficiency epsilon = {s.edge_efficiency}\n"
            f"  work = {s.work}   active edges = {s.active_edges}   (worst case)")


# ================================================================ sizes in n and m
def size_class(e: ir.Expr, nodes: Asymptotic = n, path: str | None = None) -> Asymptotic:
    """The asymptotic class of a size expression in n, N and m (an upper bound on its
    value for large n), or `EfficiencyError` (E605) where it has none.

    Operators and builtins take their class rule from `algspec.ops`.
    """
    return size_bounds(e, nodes, path).hi


def trips_class(e: ir.Expr, nodes: Asymptotic = n, path: str | None = None) -> Asymptotic:
    """The class of a loop's trips under bound `e`: trips are whole and at most the bound,
    so a bound that tends to 0 (`1 / n`) allows none."""
    hi = size_class(e, nodes, path)
    return zero if hi.is_o(one) else hi


def size_bounds(e: ir.Expr, nodes: Asymptotic = n, path: str | None = None) -> SizeClass:
    """Bounds on the value of a size expression (`algspec.efficiency.size_classes.SizeClass`)."""
    if not any(isinstance(x, ir.Size) for x in ir.walk_expr(e)):
        return _constant_bounds(e, path)
    if isinstance(e, ir.Size):
        return SizeClass.size({"n": n, "N": nodes, "m": m}[e.which])
    if isinstance(e, ir.Cond):  # one of the branches
        a, b = size_bounds(e.then, nodes, path), size_bounds(e.otherwise, nodes, path)
        hi = SizeClass.maximum(a, b).hi
        low = SizeClass.minimum(a, b)
        return SizeClass(hi, low.lo, low.down)
    op = ops.op_of(e)
    if op is None:
        raise EfficiencyError("a loop bound must be an expression in n and m", e.span, path)
    args = [size_bounds(a, nodes, path) for a in _op_args(e)]
    try:
        if op.class_uses_values:
            return op.size_class(*args, values=tuple(a.value for a in args))
        return op.size_class(*args)
    except (ops.NotASize, ZeroDivisionError) as err:
        raise _no_class(e, err, path) from None


def _constant_bounds(e: ir.Expr, path: str | None) -> SizeClass:
    """A size expression free of n, N and m: its value."""
    try:
        return SizeClass.const(eval_size(e, 1.0))
    except EfficiencyError as err:
        raise err.at(path) from None
    except OverflowError:
        raise _no_class(e, ValueError("it is a constant beyond a float's range (over 1.8e308)"),
                        path) from None
    except (ops.NotASize, ArithmeticError, ValueError) as err:
        raise _no_class(e, err, path) from None


def _no_class(e: ir.Expr, why: Exception, path: str | None) -> EfficiencyError:
    """E605 at `e`: `TEXT` has no asymptotic class, and why."""
    def leaf(x: ir.Expr) -> str:
        if isinstance(x, ir.Const):
            return str(x.value)
        return x.which if isinstance(x, ir.Size) else "?"
    reason = str(why) or "its value is undefined"
    return EfficiencyError(f"`{ops.text(e, leaf)}` has no asymptotic class: {reason}",
                           e.span, path)


def _op_args(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Unary):
        return [e.operand]
    if isinstance(e, ir.Binary):
        return [e.left, e.right]
    return list(e.args)


def eval_size(e: ir.Expr, n: float, m: float | None = None, N: float | None = None) -> float:
    """The numeric value of a size expression (node count, loop bound) at n (and m).

    Operators and builtins take their size rule from `algspec.ops`.
    """
    if isinstance(e, ir.Const):
        return float(e.value)
    if isinstance(e, ir.Size):
        if e.which == "m":
            if m is None:
                raise ValueError("this size depends on m: pass m")
            return float(m)
        return float(n if e.which == "n" or N is None else N)
    if isinstance(e, ir.Cond):
        raise EfficiencyError("a conditional size expression", e.span)
    op = ops.op_of(e)
    if op is None:
        raise EfficiencyError("a size must be an expression in n and m", e.span)
    vals = []
    for a in _op_args(e):
        v = eval_size(a, n, m, N)
        vals.append(int(v) if a.dtype == ir.DType.INT and float(v).is_integer() else v)
    return float(op.size(*vals))


def edge_class(graph: ir.Graph, nodes: Asymptotic) -> Asymptotic:
    """|E| of the interconnection graph: a built-in kind's (`algspec.graph_kinds`), input m."""
    kind = GRAPH_KINDS.get(graph.kind)
    if kind is None:
        return m
    return {"N^2": nodes * nodes, "N": nodes}[kind.edges]


# ================================================================ data dependence
class Taint:
    """Which data and locals depend on the input data.

    Primary inputs are data; a datum is tainted when a tainted value is
    assigned to it, or it is assigned under a tainted `if` condition or forall
    guard (control dependence), or at a tainted index. Loop continuation is
    *not* a source: the analysis already assumes every loop runs to its bound,
    so the values a loop computes at iteration k do not depend on whether it
    stops early (this keeps a round counter `parity = 1 - parity` inside a
    `while not sorted` loop data-independent). `pos` and the built-in graphs
    are not data; an input graph is.
    """

    def __init__(self, prog: ir.Program):
        self.prog = prog
        self.input_graph = prog.graph.kind == "input"
        self.names: set[str] = set()
        self.procs: dict[str, ir.Proc] = {}
        for d in prog.decls:
            if d.stage == ir.Stage.INPUT and d.derived is None:
                self.names.add(d.name)
        changed = True
        while changed:
            before = len(self.names)
            for d in prog.decls:
                src = d.derived if d.derived is not None else d.initial
                if src is not None and self.expr(src):
                    self.names.add(d.name)
            self._block(prog.body, False)
            changed = len(self.names) != before

    def expr(self, e: ir.Expr | None) -> bool:
        if e is None:
            return False
        if isinstance(e, ir.Rand):
            return True  # a random draw is data: a selection on it is data-dependent
        if isinstance(e, (ir.VarRef, ir.Read)) and e.name in self.names:
            return True
        if isinstance(e, ir.Chain) and e.order in self.names:
            return True
        if isinstance(e, ir.Aggregate) and e.domain != "nodes" and self.input_graph:
            return True
        return any(self.expr(s) for s in _children(e))

    def _block(self, stmts: list[ir.Statement], ctl: bool) -> None:
        for s in stmts:
            self._stmt(s, ctl)

    def _stmt(self, s: ir.Statement, ctl: bool) -> None:
        if isinstance(s, ir.Assign):
            val = ctl or any(self.expr(v) for v in [*s.values, *s.key])
            for t in s.targets:
                if val or any(self.expr(i) for i in t.indices):
                    self.names.add(t.name)
        elif isinstance(s, ir.Let):
            if ctl or self.expr(s.value):
                self.names.add(s.name)
        elif isinstance(s, ir.If):
            c = ctl or self.expr(s.cond)
            self._block(s.then, c)
            self._block(s.otherwise, c)
        elif isinstance(s, ir.While):
            self._block(s.body, ctl)
        elif isinstance(s, ir.ForRange):
            if ctl or self.expr(s.start) or self.expr(s.stop) or self.expr(s.step):
                self.names.add(s.var)
            self._block(s.body, ctl)
        elif isinstance(s, ir.ForNodes):
            if ctl or self.expr(s.key):
                self.names.add(s.var)
            self._block(s.body, ctl)
        elif isinstance(s, ir.ForEdges):  # the ends are data when the edges (or order) are
            if ctl or self.expr(s.select) or self.expr(s.key):
                self.names.update(s.vars)
            self._block(s.body, ctl)
        elif isinstance(s, ir.Forall):  # an input graph's edge processors are its edges
            edges = len(s.vars) == 2 and self.input_graph
            self._block(s.body, ctl or edges or self.expr(s.guard))
        elif isinstance(s, ir.Round):
            self._block(s.body, ctl)
        elif isinstance(s, (ir.Proc, ir.Recur)):  # parameters are assigned the arguments
            if isinstance(s, ir.Proc):
                self.procs[s.name] = s
            proc = self.procs.get(s.name)
            for q, a in zip(proc.params if proc else [], s.args):
                if ctl or self.expr(a):
                    self.names.add(q)
            if isinstance(s, ir.Proc):
                self._block(s.body, ctl)


_children = ir.children  # the shared IR queries (algspec/ir.py)
free_ivars = ir.free_ivars


def pinned(e: ir.Expr | None, vars: set[str], taint: Taint) -> set[str]:
    """The variables among `vars` a selection fixes to O(1) values at the worst-case
    (fewest) end: `algspec.efficiency.worst_case.pins`."""
    return worst_case.pins(e, vars, taint.expr, worst_case.FEWEST)


def _size_at(e: ir.Expr, n: float, m: float | None = None, N: float | None = None) -> float:
    return eval_size(e, n, m, N)


# ================================================================ costs
@dataclass
class Cost:
    """Totals over a stretch of execution: frames, active nodes, edges besides self-loops."""

    records: dict[int, Asymptotic] = field(default_factory=dict)
    work: Asymptotic = field(default_factory=lambda: zero)
    derefs: Asymptotic = field(default_factory=lambda: zero)

    def __add__(self, o: Cost) -> Cost:
        recs = dict(self.records)
        for k, v in o.records.items():
            recs[k] = recs[k] + v if k in recs else v
        return Cost(recs, self.work + o.work, self.derefs + o.derefs)

    def times(self, k: Asymptotic) -> Cost:
        return Cost({i: v * k for i, v in self.records.items()}, self.work * k, self.derefs * k)

    @property
    def frames(self) -> Asymptotic:
        out = zero
        for v in self.records.values():
            out = out + v
        return out


def _nodes_cost(k: Asymptotic) -> Cost:
    return Cost(work=k)


def _edge_cost(k: Asymptotic) -> Cost:
    return Cost(derefs=k)


@dataclass(frozen=True)
class _Binder:
    """Index variables bound around an expression and how many evaluations they make.

    `pins` are the variables a guard or enclosing `if` has narrowed to O(1) values.
    """

    names: frozenset[str]
    count: Asymptotic
    kind: str  # "seq", "forall", "whole", "agg"
    order: tuple[str, ...] = ()
    pins: frozenset[str] = frozenset()
    zero: frozenset[str] = frozenset()  # pinned to node 0 (`v == 0`): a star's hub


@dataclass
class _Summary:
    """Cost of the paths that fall through (`cont`) and that end in `break` (`brk`)."""

    cont: Cost | None
    brk: Cost | None = None


def _plus(a: Cost | None, b: Cost | None) -> Cost | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _constant(e: ir.Expr) -> bool | None:
    """The value of a condition of constants alone (`true and false`), else None."""
    if any(not isinstance(x, (ir.Const, ir.Unary, ir.Binary)) for x in ir.walk_expr(e)):
        return None
    try:
        return bool(eval_size(e, 1.0))
    except (ValueError, ArithmeticError, TypeError, EfficiencyError, ops.NotASize):
        return None


def _fewer(a: Cost, b: Cost) -> Cost:
    """Two branches of a sequential `if` on data at the fewest end: the one with more
    rounds (the inputs that attain T take it), else the fewer nodes and edges."""
    both = a + b  # T keeps both branches' records (a sum is within 2 of the max)
    fa, fb = a.frames, b.frames
    if fa == fb:
        return Cost(both.records, a.work.at_most(b.work), a.derefs.at_most(b.derefs))
    if fb.is_O(fa) or fa.is_O(fb):
        kept = a if fb.is_O(fa) else b
        return Cost(both.records, kept.work, kept.derefs)
    return both


class _Analyser:
    """One pass over the program, resolving each data-dependent count at `end`
    (`algspec.efficiency.worst_case`); `analyse` runs one per end."""

    def __init__(self, prog: ir.Program, end: worst_case.End = worst_case.WORST,
                 taint: Taint | None = None, sel: Selections | None = None):
        self.prog = prog
        self.end = end
        self.taint = taint or Taint(prog)
        self.N = size_class(prog.nodes, path=prog.path)
        self.E = edge_class(prog.graph, self.N)
        self.edge_tests = graph_edge_tests(prog)
        self.loops: list[LoopInfo] = []
        self.loop_stack: list[int] = []
        self.innermost: dict[int, int | None] = {}
        self.records: dict[int, ir.Record] = {}
        self.mult: list[Asymptotic] = [one]
        self.sel = sel if sel is not None else selections(prog, self.taint)

    # ------------------------------------------------------------ expressions
    def _deg(self, node: ir.Expr | None = None, stack: list[_Binder] = ()) -> Asymptotic:
        """Neighbours of one node at this end (`worst_case.degree`).

        A star's hub (node 0: `incoming(0)`, or `incoming(v)` under `v == 0`) has all N.
        """
        kind = self.prog.graph.kind
        hub = GRAPH_KINDS[kind].hub if kind in GRAPH_KINDS else None
        at_hub = hub == 0 and (
            _const_value(node) == 0 and not isinstance(_const_value(node), bool) or
            isinstance(node, ir.IndexVar) and any(node.name in b.zero for b in stack))
        return worst_case.degree(self.end, kind, at_hub, self.N)

    def _pins(self, e: ir.Expr | None, vars: set[str]) -> set[str]:
        return worst_case.pins(e, vars, self.taint.expr, self.end)

    def expr(self, e: ir.Expr | None, stack: list[_Binder]) -> Cost:
        """The activity of evaluating `e` once in the context `stack` (outermost first)."""
        if e is None:
            return Cost()
        if isinstance(e, ir.Aggregate):
            return self.aggregate(e, stack)
        out = Cost()
        if isinstance(e, ir.Read):
            out = out + self.read(e, stack)
        for c in _children(e):
            out = out + self.expr(c, stack)
        return out

    def _binder_for(self, names: set[str], stack: list[_Binder]) -> _Binder:
        """The binder whose elements evaluate something mentioning `names`.

        Inside aggregations an expression is hoisted to the innermost binder
        whose variable it mentions (`scan[cur]` in a filter is read once, not
        once per candidate); processors (forall, whole-array) and the
        sequential program evaluate everything in their body themselves.
        """
        for b in reversed(stack):
            if b.names & names or b.kind != "agg":
                return b
        return stack[0]

    def _count_for(self, names: set[str], stack: list[_Binder]) -> Asymptotic:
        return self._binder_for(names, stack).count

    def read(self, e: ir.Read, stack: list[_Binder]) -> Cost:
        bound = set().union(*(b.names for b in stack))
        idx_vars = [x.name for x in e.indices if isinstance(x, ir.IndexVar)]
        if e.loc == ir.Loc.NODE:
            if idx_vars and idx_vars[0] in bound:
                return Cost()  # own datum, or the element of an aggregation (its edge)
        elif any(v in bound for v in idx_vars):
            owners = [b for b in stack if b.names & set(idx_vars)]
            if any(b.kind == "agg" or len(b.names) == 1 or b.names <= set(idx_vars)
                   for b in owners):
                return Cost()  # an edge along a processor's or an aggregation's own edge
            # else an edge processor reading another edge (`msk[i, k]` in `forall i, j`):
            # a message, like a pointer dereference
        names = set().union(*(free_ivars(x) for x in e.indices))
        binder = self._binder_for(names, stack)
        count = binder.count
        if e.loc == ir.Loc.EDGE:  # the edge read is the active edge: distinct ones per round
            if not names:
                count = count.at_most(one)       # `D[1, 2]`, however many evaluate it
            elif len(binder.names) == 2 and len(names & binder.names) == 1:
                count = count.at_most(self.N)    # `D[i, k]` in `forall i, j`: n of them
        return _edge_cost(count)

    def aggregate(self, e: ir.Aggregate, stack: list[_Binder]) -> Cost:
        e = normal_aggregate(e)
        names = free_ivars(e)
        owner = self._binder_for(names, stack)
        evals = owner.count
        # A graph-level reduction over `nodes` is a readout into shared memory: its
        # elements are active nodes, not graph edges.
        readout = e.domain == "nodes" and owner.kind == "seq"
        if e.domain == "nodes":
            domain = distinct = evals * self.N
        else:
            deg = self._deg(e.of, stack)
            procs = next((b for b in reversed(stack) if isinstance(e.of, ir.IndexVar) and
                          e.of.name in b.names and b.kind in ("forall", "whole")), None)
            domain = self.E if procs is not None and evals == self.N else evals * deg
            # distinct edges: the neighbourhoods of the processors aggregating, however
            # often (an enclosing aggregation over k) each evaluates its own
            distinct = domain if procs is None else \
                worst_case.neighbourhoods(procs.count, deg, self.N, self.E)
        # One rule for readouts and processors (worst_case.elements): the elements the
        # filter chooses are active (any/all/count: their witnesses); a test that reads
        # two places (`key[u] < key[v]`) uses every element's edge.
        filt, pred = e.filter, e.body
        if isinstance(e.of, ir.IndexVar) and e.domain != "nodes":  # `A[u, v] != 0`: the graph
            ends = [e.var, e.of.name] if e.domain == "incoming" else [e.of.name, e.var]
            filt = _without_graph_mask(filt, ends, self.prog.graph, self.edge_tests)
            pred = _without_graph_mask(pred, ends, self.prog.graph, self.edge_tests) or \
                ir.Const(value=True, dtype=ir.DType.BOOL)
        chosen, act = worst_case.elements(e, self.taint.expr, self.end, readout, filt, pred)
        total = {worst_case.ALL: domain, worst_case.EACH: evals, worst_case.ONE: one}[chosen]
        active = {worst_case.ALL: distinct, worst_case.EACH: evals.at_most(distinct),
                  worst_case.ONE: one}[act]
        if readout:
            out = _nodes_cost(active.at_most(self.N * evals))
        else:
            out = _edge_cost(active.at_most(distinct))
        out = out + self.expr(e.of, stack) + self.expr(e.default, stack)
        # The filter is evaluated over the whole domain, the body over the selection.
        out = out + self.expr(e.filter, stack + [_Binder(frozenset([e.var]), domain, "agg")])
        out = out + self.expr(e.body, stack + [_Binder(frozenset([e.var]), total, "agg")])
        return out

    # ------------------------------------------------------------ statements
    def block(self, stmts: list[ir.Statement], stack: list[_Binder]) -> _Summary:
        cont: Cost | None = Cost()
        brk: Cost | None = None
        for s in stmts:
            if cont is None:
                break  # unreachable after a break
            sm = self.stmt(s, stack)
            if sm.brk is not None:
                brk = _plus(brk, cont + sm.brk)
            cont = cont + sm.cont if sm.cont is not None else None
        return _Summary(cont, brk)

    def _seq(self, stack: list[_Binder]) -> bool:
        return len(stack) == 1 and stack[0].kind == "seq"

    def stmt(self, s: ir.Statement, stack: list[_Binder]) -> _Summary:
        seq = self._seq(stack)
        if isinstance(s, ir.Record):
            self.records[s.id] = s
            self.innermost[s.id] = self.loop_stack[-1] if self.loop_stack else None
            return _Summary(Cost(records={s.id: one}))
        if isinstance(s, ir.Break):
            return _Summary(None, Cost())
        if isinstance(s, ir.Assign):
            c = self.assign(s, stack)
            return _Summary(self._cap(c) if seq else c)
        if isinstance(s, ir.Let):
            c = self.expr(s.value, stack)
            return _Summary(self._cap(c + _nodes_cost(one)) if seq else c)
        if isinstance(s, ir.If):
            known = _constant(s.cond)
            if known is not None:  # `if true`, `if n > 0 and false`: one branch runs
                return self.block(s.then if known else s.otherwise, stack)
            cond = self._cap(self.expr(s.cond, stack) + _nodes_cost(one)) if seq else \
                self.expr(s.cond, stack)
            then_stack = else_stack = stack
            if not seq and stack[-1].kind == "forall":
                then_stack = self._refine(stack, s.cond, (s.id, "then"))
                else_stack = self._refine(stack, ir.Unary(op="not", operand=s.cond,
                                                          dtype=ir.DType.BOOL), (s.id, "else"))
            a = self.block(s.then, then_stack)
            b = self.block(s.otherwise, else_stack)
            if seq and self.end is worst_case.FEWEST and self.taint.expr(s.cond) and \
                    None not in (a.cont, b.cont) and a.brk is None is b.brk:
                # the controller's choice on data: the branch T needs, else the cheaper
                return _Summary(cond + _fewer(a.cont, b.cont))
            cont = None if a.cont is None and b.cont is None else \
                cond + (_plus(a.cont, b.cont) or Cost())
            brk = _plus(a.brk, b.brk)
            return _Summary(cont, None if brk is None else cond + brk)
        if isinstance(s, (ir.While, ir.ForRange, ir.ForEdges, ir.ForNodes, ir.Proc)):
            return self.loop(s, stack)
        if isinstance(s, ir.Recur):  # its body is counted by the Proc's `calls` bound
            c = Cost()
            for a in s.args:
                c = c + self.expr(a, stack)
            return _Summary(self._cap(c + _nodes_cost(one)))
        if isinstance(s, ir.Round):
            return self.block(s.body, stack)
        if isinstance(s, ir.Forall):
            return _Summary(self.forall(s, stack))
        raise EfficiencyError(f"unknown statement {type(s).__name__}", s.span)

    def assign(self, s: ir.Assign, stack: list[_Binder]) -> Cost:
        out = Cost()
        for k in s.key:  # `by argmin KEY`: every writer evaluates its key
            out = out + self.expr(k, stack)
        seq = self._seq(stack)
        counted = False
        for t, v in zip(s.targets, s.values):
            if t.whole and t.loc != ir.Loc.GRAPH:
                out = out + self.whole_assign(t, v)
                continue
            out = out + self.expr(v, stack)
            for i in t.indices:
                out = out + self.expr(i, stack)
            if seq:
                counted = True
            elif t.loc != ir.Loc.GRAPH and t.indices:
                bound = set().union(*(b.names for b in stack))
                own = all(isinstance(x, ir.IndexVar) and x.name in bound for x in t.indices)
                if not own:  # a processor writing elsewhere: one edge per processor
                    names = set().union(*(free_ivars(x) for x in t.indices))
                    out = out + _edge_cost(self._count_for(names, stack))
        if counted:
            out = out + _nodes_cost(one)
        return out

    def whole_assign(self, t: ir.Target, v: ir.Expr) -> Cost:
        """`x = expr` on a whole node/edge array: a parallel update of every element.

        A value that reads no data (a reset such as `swap = false`, or
        `s_prev = index`) carries no information and costs nothing; otherwise
        every node is active, and for edge data every edge (a message between
        its ends), plus what the value dereferences.
        """
        if not ir.reads_state(v):
            return Cost()
        names = frozenset(["@i"] if t.loc == ir.Loc.NODE else ["@i", "@j"])
        procs = self.N if t.loc == ir.Loc.NODE else self.E
        out = _nodes_cost(self.N) + self.expr(v, [_Binder(names, procs, "whole")])
        if t.loc == ir.Loc.EDGE:
            out = out + _edge_cost(self.E)
        return out

    def _procs(self, vars: tuple[str, ...], pins: set[str]) -> tuple[Asymptotic, Asymptotic]:
        """(active nodes, processors) of a forall whose guard pins `pins`.

        A node forall has N processors (O(1) when pinned); an edge forall has
        |E| (N when one end is pinned, O(1) when both are) on N nodes.
        """
        free = [v for v in vars if v not in pins]
        nodes = self.N if free else one
        if len(vars) == 1:
            return nodes, nodes
        return nodes, (self.E if len(free) == 2 else nodes)

    def _refine(self, stack: list[_Binder], cond: ir.Expr, key: tuple[int, str]
                ) -> list[_Binder]:
        """Narrow the processors executing an `if` branch inside a forall.

        A data-independent condition is counted (`algspec.efficiency.selection`):
        the branch keeps its measured share of the forall's processors. Otherwise
        a data-dependent one keeps O(1) at the fewest end and all at the most, and
        `v == e` pins v at both (`worst_case.pins`).
        """
        top = stack[-1]
        if len(top.order) == 2:  # `if A[v, u] != 0` tests the graph: it keeps every edge
            cond = _without_graph_mask(cond, list(top.order), self.prog.graph,
                                       self.edge_tests) or ir.Const(value=True,
                                                                    dtype=ir.DType.BOOL)
        pins = self._pins(cond, set(top.order)) | set(top.pins)
        _, procs = self._procs(top.order, pins)
        share = self.sel.share(key)
        if share is not None and not self.taint.expr(cond):
            full = self.N if len(top.order) == 1 else self.E
            procs = (full * share).at_most(top.count)
        top = _Binder(top.names, procs, top.kind, top.order, frozenset(pins),
                      top.zero | _zero_pins(cond, top.order))
        return stack[:-1] + [top]

    def _chosen(self, vars: list[str], guard: ir.Expr | None, key: tuple[int, str]
                ) -> tuple[Asymptotic, Asymptotic, set[str]]:
        """(active nodes, processors, pinned variables) a forall guard chooses at this end;
        a data-independent guard's count comes from `algspec.efficiency.selection`."""
        pins = self._pins(_without_graph_mask(guard, vars, self.prog.graph, self.edge_tests),
                          set(vars))
        nodes, procs = self._procs(tuple(vars), pins)
        share = self.sel.share(key)
        if share is not None and guard is not None and not self.taint.expr(guard):
            procs = (self.N if len(vars) == 1 else self.E) * share
            nodes = procs.at_most(self.N)
        return nodes, procs, pins

    @staticmethod
    def _evaluators(stack: list[_Binder], vars: list[str], procs: Asymptotic) -> list[_Binder]:
        return stack + [_Binder(frozenset(vars), procs, "forall", tuple(vars))]

    def forall(self, s: ir.Forall, stack: list[_Binder]) -> Cost:
        """A forall is a parallel update of the processors its guard selects.

        Processors that read no data (they only write constants or their own
        index: a reset such as `forall v { x[v] = false }`, the normal form of
        `x = false`) carry no information and cost nothing.
        """
        outer = s.guard
        s, key = normal_forall(s)
        nodes, procs, pins = self._chosen(s.vars, s.guard, key)
        inner = stack + [_Binder(frozenset(s.vars), procs, "forall", tuple(s.vars),
                                 frozenset(pins), _zero_pins(s.guard, s.vars))]
        if not _forall_reads_data(s, self.prog.graph.kind == "input"):
            return Cost()
        out = _nodes_cost(nodes)
        if len(s.vars) == 2:
            out = out + _edge_cost(procs)  # each selected edge processor is an active edge
        # Every candidate evaluates the guard, as it evaluates the condition of an `if`
        # (what it reads is charged to all of them), and the condition of an `if` the
        # normal form made a guard is evaluated by those the guard before it chose. Only
        # the chosen run the body; a test that reads across an edge (`key[u] < key[v]`,
        # `x[p[v]] > 0`) uses it, chosen or not: its evaluators are active with their
        # edge (`worst_case.reads_messages`), while a test on their own state is not.
        tests = [(outer, *self._procs(tuple(s.vars), set()))]
        if s.guard is not outer:
            cond = s.guard if outer is None else s.guard.right
            tests.append((cond, *self._chosen(s.vars, outer, (s.id, "guard"))[:2]))
        for test, t_nodes, t_procs in tests:
            local, remote = split_test(test, s.vars, self.prog.graph, self.edge_tests)
            out = out + self.expr(local, self._evaluators(stack, s.vars, t_procs))
            if remote is not None:  # evaluated by the candidates the local conjuncts keep
                r_nodes, r_procs, _ = self._chosen(s.vars, local, None)
                r_nodes, r_procs = r_nodes.at_most(t_nodes), r_procs.at_most(t_procs)
                out = out + self.expr(remote, self._evaluators(stack, s.vars, r_procs)) + \
                    _nodes_cost(r_nodes) + (_edge_cost(r_procs) if len(s.vars) == 2 else Cost())
        body = self.block(s.body, inner)
        return self._cap(out + (_plus(body.cont, body.brk) or Cost()))

    def _cap(self, c: Cost) -> Cost:
        """One statement's activity in one round: at most N nodes and |E| edges."""
        return Cost(c.records, c.work.at_most(self.N), c.derefs.at_most(self.E))

    def _trips(self, s: ir.Statement, bound: Asymptotic) -> Asymptotic:
        """Trips per execution: the bound, times the share of it a data-independent loop runs.

        `algspec.efficiency.selection` counts the trips of loops whose ends read graph
        state (a pass over a doubling prefix runs 1, 2, 4, ... trips against a bound of
        n, so 2n in all over its log n phases, not n log n); a constant share keeps the
        bound's class. A loop that records nothing and stops on data is a choice that
        does not decide T: O(1) trips at the fewest end (`worst_case.loop_choice`).
        """
        if self.end is worst_case.FEWEST and worst_case.loop_choice(s, self.taint.expr):
            return bound.at_most(one)
        share = self.sel.share((s.id, "trips"))
        if share is None or share == one:
            return bound
        return zero if share.is_zero else bound * share  # zero: a condition that never holds

    def loop(self, s: ir.Statement, stack: list[_Binder]) -> _Summary:
        if not self._seq(stack):
            raise EfficiencyError("a loop inside a forall", s.span)
        seq_cost = _nodes_cost(one)
        path = s.path or self.prog.path
        if isinstance(s, ir.While):
            bound = trips_class(s.bound, self.N, path)
            header = self._cap(self.expr(s.cond, stack) + seq_cost)
            entry = Cost()
            kind = "while"
        elif isinstance(s, ir.ForRange):
            bound = trips_class(s.bound, self.N, path)
            header = Cost()
            entry = self._cap(self.expr(s.start, stack) + self.expr(s.stop, stack))
            kind = "for"
        elif isinstance(s, ir.ForEdges):  # one trip per edge: its bound (m unless declared)
            bound = trips_class(s.bound, self.N, path)
            header = Cost()
            whole = [_Binder(frozenset(["@i", "@j"]), self.E, "whole")]
            listing = self.expr(s.select, whole) + self.expr(s.key, whole)
            # listing the edges reads every node's row and every edge once
            entry = self._cap(listing + _nodes_cost(self.N) + _edge_cost(self.E))
            kind = "for edges"
        elif isinstance(s, ir.Proc):  # like a loop of `calls` trips: each invocation runs the body
            bound = trips_class(s.calls, self.N, path)
            header = Cost()
            entry = Cost()
            for a in s.args:
                entry = entry + self.expr(a, stack)
            entry = self._cap(entry + _nodes_cost(one))
            kind = "recursive"
        else:
            bound = self.N
            header = Cost()
            key = self.expr(s.key, [_Binder(frozenset(["@i"]), self.N, "whole")])
            # the ordering reads every node once (a key of no data, `by 0.0`, reads none)
            entry = self._cap(key + _nodes_cost(self.N if ir.reads_state(s.key) else zero))
            kind = "for nodes"
        bound = self._trips(s, bound)
        self.loop_stack.append(s.id)
        self.mult.append(self.mult[-1] * bound)
        body = self.block(s.body, stack)
        self.mult.pop()
        self.loop_stack.pop()
        per_iter = _plus(body.cont, body.brk) or Cost()
        if body.cont is None:  # every path breaks: one iteration
            total = entry + header + (body.brk or Cost())
            iters = one
        else:
            total = entry + header + (header + body.cont).times(bound) + (body.brk or Cost())
            iters = bound
        if not per_iter.records:  # it runs within one round: at most N nodes, |E| edges
            total = self._cap(total)
        if per_iter.records:
            self.loops.append(LoopInfo(
                stmt=s, kind=kind, bound=iters, iterations=self.mult[-1] * iters,
                records=per_iter.frames, work=(per_iter + header).work,
                record_ids=[]))
        return _Summary(total)


def selections(prog: ir.Program, taint: Taint) -> Selections:
    """What the program's data-independent tests select (`algspec.efficiency.selection`)."""
    if not selection.has_sites(prog, taint.expr):
        return Selections()
    return selection.measure_selections(prog, taint.expr, taint.names, _size_at)


def analyse(program: ir.Program) -> StaticEfficiency:
    """Worst-case rounds, work, active edges, capacity and efficiencies of `program`
    (the fewest end, `worst_case.WORST`), with both ends of each in `.ranges`."""
    taint = Taint(program)
    sel = selections(program, taint)
    worst = _summarise(program, _Analyser(program, worst_case.FEWEST, taint, sel))
    most = _summarise(program, _Analyser(program, worst_case.MOST, taint, sel))
    worst.ranges = worst_case.class_ranges(worst, most)
    return worst


def _summarise(program: ir.Program, a: _Analyser) -> StaticEfficiency:
    top = a.block(program.body, [_Binder(frozenset(), one, "seq")])
    cost = _plus(top.cont, top.brk) or Cost()
    T = cost.frames
    # Every round has at least one active node (shares > 0), and at most N nodes and
    # |E| edges (shares <= 1): both hold by construction.
    cap = a.N * T
    work = (cost.work + T).at_most(cap)
    active = (work + cost.derefs).at_most(T * a.E)
    if T.is_zero:
        eta = eps = Share.of(zero)
    else:
        eta = Share.of(work / cap)
        eps = Share.of(active / (T * a.E))
    loops = {lp.stmt.id: lp for lp in a.loops}
    for rid, lid in a.innermost.items():
        if lid is not None and lid in loops:
            loops[lid].record_ids.append(rid)
    return StaticEfficiency(
        name=program.name, nodes=a.N, edges=a.E, rounds=T, work=work,
        active_edges=active, capacity=cap, node_efficiency=eta, edge_efficiency=eps,
        graph=program.graph.kind, record_counts=dict(cost.records), loops=a.loops,
        records=a.records, innermost_loop=a.innermost,
        whp=any(isinstance(st, ir.While) and st.whp for st, _ in ir.walk_statements(program.body)))


__all__ = ["Cost", "EfficiencyError", "LoopInfo", "StaticEfficiency", "Taint", "analyse",
           "edge_class", "eval_size", "format_static", "free_ivars", "pinned", "size_bounds",
           "size_class", "trips_class"]
