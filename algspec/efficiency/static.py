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
  data-independent `if` is a guarded forall (`normal_forall`).
* Worst case means *fewest* active nodes and edges (eta and epsilon are minima
  over inputs): a selection that depends on the input data (a forall guard, an
  `if` inside a forall) keeps O(1) of what it selects. A data-independent one
  is counted (`algspec.efficiency.selection`): the processors it selects,
  summed over the loops around it, so geometric series give reductions and
  scans their textbook classes.
* Active nodes: a forall's selected processors; one per sequential statement
  (assignment, let, condition); N per `for .. in nodes by` ordering; the
  deciding elements of a graph-level reduction over `nodes` (a readout: the
  witnesses of any/all, O(1) when its filter reads data).
* Active edges: every active node's self-loop (CLRS adds self-loops to every
  graph); one per pointer dereference (a read `x[e]` whose index is not a
  bound index variable) per evaluation; in a processor, every aggregation
  element the filter (or body) reads data of: every evaluated comparison,
  any/all included; one per processor writing to another node's or edge's
  data; the selected processors of an edge forall. A guard
  conjunct that is the graph's own edge test (`adj[v, u]`, or `A[v, u] != 0`
  under `adj = adjacency(A)`) selects every edge.
* Shares are bounded by construction: one statement touches at most N nodes
  and |E| edges per round and every round at least one node, so
  0 < eta <= 1 and 0 < epsilon <= 1; classes simplify under n <= m <= n^2.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algspec import ir, ops
from algspec.diagnostics import AlgError, Diagnostic, Span
from algspec.efficiency import selection
from algspec.efficiency.asymptotic import Asymptotic, Share, m, n, one, zero
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
            if ctl or self.expr(s.start) or self.expr(s.stop):
                self.names.add(s.var)
            self._block(s.body, ctl)
        elif isinstance(s, ir.ForNodes):
            if ctl or self.expr(s.key):
                self.names.add(s.var)
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
    """The variables among `vars` a selection fixes to O(1) values in the worst case.

    Data-dependent selections fix them all (they may select a single element);
    `v == e` with e free of v fixes v; `and` unions, `or` intersects.
    """
    if e is None:
        return set()
    if taint.expr(e):
        return set(vars)
    if isinstance(e, ir.Const):
        return set() if e.value else set(vars)
    if isinstance(e, ir.Binary):
        if e.op == "and":
            return pinned(e.left, vars, taint) | pinned(e.right, vars, taint)
        if e.op == "or":
            return pinned(e.left, vars, taint) & pinned(e.right, vars, taint)
        if e.op == "==":
            out = set()
            for a, b in ((e.left, e.right), (e.right, e.left)):
                if isinstance(a, ir.IndexVar) and a.name in vars and a.name not in free_ivars(b):
                    out.add(a.name)
            return out
    return set()


# ================================================================ normal forms
_IDENTITY = {k: r.identity for k, r in ops.AGGREGATIONS.items()}  # neutral elements


def _const_value(e: ir.Expr | None):
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Unary) and e.op == "-" and isinstance(e.operand, ir.Const):
        return -e.operand.value
    return None


def normal_aggregate(e: ir.Aggregate) -> ir.Aggregate:
    """A filter is a guarded body: `op(b if c else identity ...)` -> `op(b ... if c)`.

    The identity is the operator's neutral element (inf for min, -inf for max,
    0 for sum, false for count/any, true for all), so both forms reduce the same
    elements; the analysis sees one form.
    """
    body = e.body
    if not isinstance(body, ir.Cond):
        return e
    ident = _IDENTITY[e.op]
    then_v, else_v = _const_value(body.then), _const_value(body.otherwise)
    if else_v is not None and else_v == ident and \
            isinstance(else_v, bool) == isinstance(ident, bool):
        cond, kept = body.cond, body.then
    elif then_v is not None and then_v == ident and \
            isinstance(then_v, bool) == isinstance(ident, bool):
        cond = ir.Unary(op="not", operand=body.cond, dtype=ir.DType.BOOL)
        kept = body.otherwise
    else:
        return e
    filt = cond if e.filter is None else ir.Binary(op="and", left=e.filter, right=cond,
                                                   dtype=ir.DType.BOOL)
    return e.model_copy(update={"body": kept, "filter": filt})


def normal_forall(s: ir.Forall, taint: Taint) -> tuple[ir.Forall, tuple[int, str]]:
    """`forall v { if c { body } }` is `forall v where c { body }` when c reads no data.

    A data-independent condition selects processors exactly as a guard does. A
    condition on data stays an `if`: every processor evaluates it (work), while
    a `where` guard on data names the processors taking part at all (worst case
    O(1), as DCSC's undiscovered nodes). Returns the normal form and the key
    under which `algspec.efficiency.selection` counted its selection.
    """
    if len(s.body) == 1 and isinstance(s.body[0], ir.If) and not s.body[0].otherwise \
            and not taint.expr(s.body[0].cond):
        inner = s.body[0]
        guard = inner.cond if s.guard is None else ir.Binary(
            op="and", left=s.guard, right=inner.cond, dtype=ir.DType.BOOL)
        return s.model_copy(update={"guard": guard, "body": inner.then}), (inner.id, "then")
    return s, (s.id, "guard")


def _ivar_names(indices: list[ir.Expr]) -> list[str | None]:
    return [x.name if isinstance(x, ir.IndexVar) else None for x in indices]


def _edge_test(e: ir.Expr) -> ir.Read | None:
    """The edge read `X[a, b]` that `e` tests for an edge: `X[a, b] != 0` or a bool `X[a, b]`."""
    if isinstance(e, ir.Read) and e.loc == ir.Loc.EDGE and e.dtype == ir.DType.BOOL:
        return e
    if isinstance(e, ir.Binary) and e.op == "!=":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            c = _const_value(b)
            if isinstance(a, ir.Read) and a.loc == ir.Loc.EDGE and c is not None and c == 0:
                return a
    return None


def graph_edge_tests(prog: ir.Program) -> frozenset[tuple[str, bool]]:
    """The tests `X[i, j] != 0` (name, transposed) whose union, with self-loops, is the graph.

    An input graph's mask is usually `adjacency(A)` (`A[i, j] != 0 or i == j`), or
    DCSC's `adjacency(A) or adjacency(transpose(A))`; a guard `A[v, u] != 0` on an
    edge forall then keeps every edge but the n self-loops, a constant share of |E|.
    A mask that is anything else (a conjunction, a threshold) gives no tests.
    """
    if prog.graph.kind != "input":
        return frozenset()
    decl = next((d for d in prog.decls if d.name == prog.graph.mask_name), None)
    out: set[tuple[str, bool]] = set()

    def leaves(e: ir.Expr) -> bool:
        if isinstance(e, ir.Binary) and e.op == "or":
            return leaves(e.left) and leaves(e.right)
        if isinstance(e, ir.Binary) and e.op == "==" and \
                sorted(_ivar_names([e.left, e.right]), key=str) == ["@i", "@j"]:
            return True  # the self-loops adjacency() adds
        r = _edge_test(e)
        names = _ivar_names(r.indices) if r is not None else []
        if names in (["@i", "@j"], ["@j", "@i"]):
            out.add((r.name, names[0] == "@j"))
            return True
        return False

    if decl is None or decl.derived is None or not leaves(decl.derived):
        return frozenset()
    return frozenset(out)


def _is_graph_test(e: ir.Expr, vars: list[str], graph: ir.Graph,
                   tests: frozenset[tuple[str, bool]]) -> bool:
    """Whether `e` tests edge processor (vars[0], vars[1]) for being a graph edge."""
    if isinstance(e, ir.Read) and e.name == graph.mask_name and \
            _ivar_names(e.indices) == list(vars):
        return True
    r = _edge_test(e)
    if r is None:
        return False
    names = _ivar_names(r.indices)
    return names == list(vars) and (r.name, False) in tests or \
        names == list(vars)[::-1] and (r.name, True) in tests


def _reads_processor_data(e: ir.Expr, vars: list[str]) -> bool:
    """Whether `e` reads node or edge data indexed by one of the processor's variables."""
    return any(isinstance(x, ir.Read) and x.loc != ir.Loc.GRAPH and
               any(isinstance(i, ir.IndexVar) and i.name in vars for i in x.indices)
               for x in ir.walk_expr(e))


def _without_graph_mask(e: ir.Expr | None, vars: list[str], graph: ir.Graph,
                        tests: frozenset[tuple[str, bool]] = frozenset()) -> ir.Expr | None:
    """A guard less its conjuncts that test the interconnection graph itself.

    An edge forall's processors are the graph's edges, so `forall v, u where adj[v, u]`
    selects every one of them, as `forall v, u` does (not a data-dependent O(1)); so
    does the README's `where A[v, u] != 0` when the mask is `adjacency(A)` (every
    edge but the self-loops: `graph_edge_tests`).
    """
    if e is None or len(vars) != 2 or graph.mask_name is None:
        return e
    if _is_graph_test(e, vars, graph, tests):
        return None
    if isinstance(e, ir.Binary) and e.op == "and":
        left = _without_graph_mask(e.left, vars, graph, tests)
        right = _without_graph_mask(e.right, vars, graph, tests)
        if left is None or right is None:
            return right if left is None else left
        return e.model_copy(update={"left": left, "right": right})
    return e


def _zero_pins(e: ir.Expr | None, vars) -> frozenset[str]:
    """The processor variables a selection's conjunct `v == 0` fixes to node 0."""
    if isinstance(e, ir.Binary) and e.op == "and":
        return _zero_pins(e.left, vars) | _zero_pins(e.right, vars)
    if isinstance(e, ir.Binary) and e.op == "==":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if isinstance(a, ir.IndexVar) and a.name in vars and _const_value(b) == 0 and \
                    not isinstance(_const_value(b), bool):
                return frozenset([a.name])
    return frozenset()


def _reads_element(e: ir.Expr, var: str) -> bool:
    """Whether `e` reads data at the aggregation element `var` (across its edge)."""
    for x in ir.walk_expr(e):
        if isinstance(x, ir.Read) and any(var in free_ivars(i) for i in x.indices):
            return True
    return False


def _reads_data(e: ir.Expr | None) -> bool:
    return e is not None and ir.reads_state(e)


def _forall_reads_data(s: ir.Forall, input_graph: bool = False) -> bool:
    """Whether a forall's processors read any data (guard, values, indices, conditions).

    On an input graph, edge processors exist where the input has edges, so what they
    write to a node (`deg[u] = 1 by sum`, `first[u] = v by min`) is the graph itself.
    """
    if _reads_data(s.guard):
        return True
    if input_graph and len(s.vars) == 2 and any(
            isinstance(st, ir.Assign) and any(t.loc == ir.Loc.NODE for t in st.targets)
            for st, _ in ir.walk_statements(s.body)):
        return True
    for st, _ in ir.walk_statements(s.body):
        if any(_reads_data(x) for x in ir.statement_exprs(st)):
            return True
        if isinstance(st, ir.Assign) and st.accumulate:
            return True  # `x[v] += 1 by sum` adds to the value it holds: it reads x
        if isinstance(st, ir.Assign) and any(t.loc == ir.Loc.GRAPH for t in st.targets):
            return True  # a write to shared memory (e.g. a priority write of the index)
    return False


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


class _Analyser:
    def __init__(self, prog: ir.Program):
        self.prog = prog
        self.taint = Taint(prog)
        self.N = size_class(prog.nodes, path=prog.path)
        self.E = edge_class(prog.graph, self.N)
        self.edge_tests = graph_edge_tests(prog)
        self.loops: list[LoopInfo] = []
        self.loop_stack: list[int] = []
        self.innermost: dict[int, int | None] = {}
        self.records: dict[int, ir.Record] = {}
        self.mult: list[Asymptotic] = [one]
        self.sel = Selections()
        if selection.has_sites(prog, self.taint.expr):
            self.sel = selection.measure_selections(prog, self.taint.expr, self.taint.names,
                                                    _size_at)

    # ------------------------------------------------------------ expressions
    def _deg(self, node: ir.Expr | None = None, stack: list[_Binder] = ()) -> Asymptotic:
        """Worst-case (fewest) neighbours of one node: N on a complete graph, else O(1).

        A star's hub (node 0: `incoming(0)`, or `incoming(v)` under `v == 0`) has all N.
        """
        if self.prog.graph.kind == "complete":
            return self.N
        hub = GRAPH_KINDS[self.prog.graph.kind].hub if self.prog.graph.kind in GRAPH_KINDS \
            else None
        if hub == 0 and (
                _const_value(node) == 0 and not isinstance(_const_value(node), bool) or
                isinstance(node, ir.IndexVar) and any(node.name in b.zero for b in stack)):
            return self.N
        return one

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
        return _edge_cost(self._count_for(names, stack))

    def aggregate(self, e: ir.Aggregate, stack: list[_Binder]) -> Cost:
        e = normal_aggregate(e)
        names = free_ivars(e)
        owner = self._binder_for(names, stack)
        evals = owner.count
        # A graph-level reduction over `nodes` is a readout into shared memory: its
        # elements are active nodes, not graph edges.
        readout = e.domain == "nodes" and owner.kind == "seq"
        if e.domain == "nodes":
            domain = evals * self.N
        else:
            of_own = isinstance(e.of, ir.IndexVar) and \
                any(e.of.name in b.names and b.kind in ("forall", "whole") for b in stack)
            domain = self.E if of_own and evals == self.N else evals * self._deg(e.of, stack)
        if readout:
            # The controller reads the elements that decide the result: the filter's,
            # and for any/all the witnesses (data-dependent: worst case one).
            sel_exprs = [x for x in [e.filter] + ([e.body] if e.op in ("any", "all") else [])
                         if x is not None]
            pins: set[str] = set()
            for x in sel_exprs:
                pins |= pinned(x, {e.var}, self.taint)
            if any(self.taint.expr(x) for x in sel_exprs):
                total = one
            elif e.var in pins:
                total = evals
            else:
                total = domain
            out = _nodes_cost(total.at_most(self.N * evals))
        else:
            # Processors: every element the filter (or, without one, the body) is
            # evaluated on with the element's data is an active edge (every evaluated
            # comparison counts, for any/all as for min/max/sum/count).
            f = e.filter
            if f is None or _reads_element(f, e.var):
                total = domain
            elif self.taint.expr(f):
                total = one          # a data-dependent guard on the processor: worst case
            elif e.var in pinned(f, {e.var}, self.taint):
                total = evals
            else:
                total = domain
            out = _edge_cost(total.at_most(domain))
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
            cond = self._cap(self.expr(s.cond, stack) + _nodes_cost(one)) if seq else \
                self.expr(s.cond, stack)
            then_stack = else_stack = stack
            if not seq and stack[-1].kind == "forall":
                then_stack = self._refine(stack, s.cond, (s.id, "then"))
                else_stack = self._refine(stack, ir.Unary(op="not", operand=s.cond,
                                                          dtype=ir.DType.BOOL), (s.id, "else"))
            a = self.block(s.then, then_stack)
            b = self.block(s.otherwise, else_stack)
            cont = None if a.cont is None and b.cont is None else \
                cond + (_plus(a.cont, b.cont) or Cost())
            brk = _plus(a.brk, b.brk)
            return _Summary(cont, None if brk is None else cond + brk)
        if isinstance(s, (ir.While, ir.ForRange, ir.ForNodes, ir.Proc)):
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
        a data-dependent one keeps O(1), and `v == e` pins v.
        """
        top = stack[-1]
        if len(top.order) == 2:  # `if A[v, u] != 0` tests the graph: it keeps every edge
            cond = _without_graph_mask(cond, list(top.order), self.prog.graph,
                                       self.edge_tests) or ir.Const(value=True,
                                                                    dtype=ir.DType.BOOL)
        pins = pinned(cond, set(top.order), self.taint) | set(top.pins)
        _, procs = self._procs(top.order, pins)
        share = self.sel.share(key)
        if share is not None and not self.taint.expr(cond):
            full = self.N if len(top.order) == 1 else self.E
            procs = (full * share).at_most(top.count)
        top = _Binder(top.names, procs, top.kind, top.order, frozenset(pins),
                      top.zero | _zero_pins(cond, top.order))
        return stack[:-1] + [top]

    def forall(self, s: ir.Forall, stack: list[_Binder]) -> Cost:
        """A forall is a parallel update of the processors its guard selects.

        Processors that read no data (they only write constants or their own
        index: a reset such as `forall v { x[v] = false }`, the normal form of
        `x = false`) carry no information and cost nothing.
        """
        s, key = normal_forall(s, self.taint)
        guard = _without_graph_mask(s.guard, s.vars, self.prog.graph, self.edge_tests)
        pins = pinned(guard, set(s.vars), self.taint)
        nodes, procs = self._procs(tuple(s.vars), pins)
        share = self.sel.share(key)
        if share is not None and s.guard is not None and not self.taint.expr(s.guard):
            full = self.N if len(s.vars) == 1 else self.E
            procs = full * share
            nodes = procs.at_most(self.N)
        inner = stack + [_Binder(frozenset(s.vars), procs, "forall", tuple(s.vars),
                                 frozenset(pins), _zero_pins(s.guard, s.vars))]
        if not _forall_reads_data(s, self.prog.graph.kind == "input"):
            return Cost()
        out = _nodes_cost(nodes)
        if len(s.vars) == 2:
            out = out + _edge_cost(procs)  # each selected edge processor is an active edge
        # Every processor evaluates the guard, as every processor evaluates the condition
        # of an `if` in a forall (what it reads is charged to all of them); only those
        # that pass it run the body.
        _, every = self._procs(tuple(s.vars), set())
        evaluators = stack + [_Binder(frozenset(s.vars), every, "forall", tuple(s.vars))]
        out = out + self.expr(s.guard, evaluators)
        if len(s.vars) == 2 and guard is not None and self.taint.expr(guard) and \
                _reads_processor_data(guard, s.vars):
            # An edge processor that tests its edge's or its ends' data (`where key[u] <
            # key[v]`) uses its edge whether it passes or not, as with an `if`.
            out = out + _edge_cost(every)
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
        bound's class.
        """
        share = self.sel.share((s.id, "trips"))
        if share is None or share.is_zero or share == one:
            return bound
        return bound * share

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
            entry = self._cap(key + _nodes_cost(self.N))  # ordering reads every node once
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
        if per_iter.records:
            self.loops.append(LoopInfo(
                stmt=s, kind=kind, bound=iters, iterations=self.mult[-1] * iters,
                records=per_iter.frames, work=(per_iter + header).work,
                record_ids=[]))
        return _Summary(total)


def analyse(program: ir.Program) -> StaticEfficiency:
    """Worst-case rounds, work, active edges, capacity and efficiencies of `program`."""
    a = _Analyser(program)
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
