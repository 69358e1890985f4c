"""The cost pass: rounds, work and active edges of every statement, at one end of the
worst case (docs/efficiency.md, "The worst case" and "Counting rules").

It reads the program in normal form (`normal_forms.normal_program`), the data
dependence (`dependence.Taint`) and what data-independent tests select
(`selection`), and sums, per statement:

* A round is one `record`: T counts `Record` executions. Sequences add, loops
  multiply by their bound (`ForRange.bound`, `While.bound`, N for `ForNodes`; times
  the share of it a loop on data-independent graph state runs), branches add
  (sum ~ max), and a record on a path that ends in `break` counts once per
  execution of its loop, not once per iteration.
* Activity between two records belongs to the later round; activity before the
  first record belongs to round 1 and after the last record to round T, so the
  totals simply sum every statement's activity.
* Active nodes: a forall's selected processors, and every candidate whose test
  reads across an edge; one per sequential statement; N per `for .. in nodes by`
  ordering; the elements a readout's filter (any/all: witnesses) selects.
* Active edges: every active node's self-loop; one per pointer dereference per
  evaluation; the elements a processor's aggregation selects (distinct per round);
  one per processor writing elsewhere; the selected edge processors, and every one
  whose test reads across its edge. The graph's own edge test (`adj[v, u]`, or
  `A[v, u] != 0` under `adj = adjacency(A)`) selects every edge.

Statement rules are tables keyed by IR statement class (`STATEMENT_RULES`,
`LOOP_RULES`): a statement kind without a rule raises.
"""

from __future__ import annotations

from collections.abc import Callable

from algspec import ir
from algspec.efficiency import worst_case
from algspec.efficiency.asymptotic import Asymptotic, one, zero
from algspec.efficiency.conjuncts import const_value
from algspec.efficiency.cost_terms import (
    Binder,
    Cost,
    Summary,
    edge_cost,
    fewer,
    nodes_cost,
    plus,
)
from algspec.efficiency.dependence import Taint
from algspec.efficiency.invariance import fixed_loops
from algspec.efficiency.normal_forms import (
    NormalProgram,
    forall_reads_data,
    graph_edge_tests,
    split_test,
    without_graph_mask,
    zero_pins,
)
from algspec.efficiency.results import LoopInfo
from algspec.efficiency.selection import Selections
from algspec.efficiency.size_eval import trips_class
from algspec.ir.graph_kinds import GRAPH_KINDS
from algspec.ir.size_values import EfficiencyError, constant_truth


class CostPass:
    """One pass over a program in normal form, resolving each data-dependent count at
    `end` (`algspec.efficiency.worst_case`); the driver runs one per end."""

    def __init__(self, normal: NormalProgram, end: worst_case.End, taint: Taint,
                 sel: Selections, nodes: Asymptotic, edges: Asymptotic,
                 used_edges: Asymptotic | None = None):
        self.normal = normal
        self.prog = normal.program
        self.end = end
        self.taint = taint
        self.sel = sel
        self.N = nodes
        self.E = edges  # the declared graph's: edge processors, neighbourhoods
        # the edges reads travel, the declared graph's and those of the graph that carries
        # reads it does not (`algspec.efficiency.graph_reads`): what one statement can touch
        self.E_used = edges if used_edges is None else used_edges
        self.edge_tests = graph_edge_tests(self.prog)
        self.loops: list[LoopInfo] = []
        self.loop_stack: list[int] = []
        self.innermost: dict[int, int | None] = {}
        self.records: dict[int, ir.Record] = {}
        self.mult: list[Asymptotic] = [one]
        self.enclosing: list[ir.Statement] = []  # loops around the statement, outermost first

    # ------------------------------------------------------------ expressions
    def _deg(self, node: ir.Expr | None = None, stack: list[Binder] = ()) -> Asymptotic:
        """Neighbours of one node at this end (`worst_case.degree`).

        A star's hub (node 0: `incoming(0)`, or `incoming(v)` under `v == 0`) has all N.
        """
        kind = self.prog.graph.kind
        hub = GRAPH_KINDS[kind].hub if kind in GRAPH_KINDS else None
        at_hub = hub == 0 and (
            const_value(node) == 0 and not isinstance(const_value(node), bool) or
            isinstance(node, ir.IndexVar) and any(node.name in b.zero for b in stack))
        return worst_case.degree(self.end, kind, at_hub, self.N)

    def _pins(self, e: ir.Expr | None, vars: set[str]) -> set[str]:
        return worst_case.pins(e, vars, self.taint.expr, self.end)

    def expr(self, e: ir.Expr | None, stack: list[Binder]) -> Cost:
        """The activity of evaluating `e` once in the context `stack` (outermost first)."""
        if e is None:
            return Cost()
        if isinstance(e, ir.Aggregate):
            return self.aggregate(e, stack)
        out = Cost()
        if isinstance(e, ir.Read):
            out = out + self.read(e, stack)
        for c in ir.children(e):
            out = out + self.expr(c, stack)
        return out

    def _binder_for(self, names: set[str], stack: list[Binder]) -> Binder:
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

    def _count_for(self, names: set[str], stack: list[Binder]) -> Asymptotic:
        return self._binder_for(names, stack).count

    def read(self, e: ir.Read, stack: list[Binder]) -> Cost:
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
        names = set().union(*(ir.free_ivars(x) for x in e.indices))
        binder = self._binder_for(names, stack)
        count = binder.count
        if e.loc == ir.Loc.EDGE:  # the edge read is the active edge: distinct ones per round
            if not names:
                count = count.at_most(one)       # `D[1, 2]`, however many evaluate it
            elif len(binder.names) == 2 and len(names & binder.names) == 1:
                count = count.at_most(self.N)    # `D[i, k]` in `forall i, j`: n of them
        if all(b.kind in ("seq", "whole") for b in stack):  # no guard picks the evaluators
            skip, release = fixed_loops(e.indices, self.enclosing)
            if release is not None:
                return Cost(fixed={(skip, release): count})
        return edge_cost(count)

    def aggregate(self, e: ir.Aggregate, stack: list[Binder]) -> Cost:
        names = ir.free_ivars(e)
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
            filt = without_graph_mask(filt, ends, self.prog.graph, self.edge_tests)
            pred = without_graph_mask(pred, ends, self.prog.graph, self.edge_tests) or \
                ir.Const(value=True, dtype=ir.DType.BOOL)
        chosen, act = worst_case.elements(e, self.taint.expr, self.end, readout, filt, pred)
        total = {worst_case.ALL: domain, worst_case.EACH: evals, worst_case.ONE: one}[chosen]
        active = {worst_case.ALL: distinct, worst_case.EACH: evals.at_most(distinct),
                  worst_case.ONE: one}[act]
        if readout:
            out = nodes_cost(active.at_most(self.N * evals))
        else:
            out = edge_cost(active.at_most(distinct))
        out = out + self.expr(e.of, stack) + self.expr(e.default, stack)
        # The filter is evaluated over the whole domain, the body over the selection.
        out = out + self.expr(e.filter, stack + [Binder(frozenset([e.var]), domain, "agg")])
        out = out + self.expr(e.body, stack + [Binder(frozenset([e.var]), total, "agg")])
        return out

    # ------------------------------------------------------------ statements
    def block(self, stmts: list[ir.Statement], stack: list[Binder]) -> Summary:
        cont: Cost | None = Cost()
        brk: Cost | None = None
        for s in stmts:
            if cont is None:
                break  # unreachable after a break
            sm = self.stmt(s, stack)
            if sm.brk is not None:
                brk = plus(brk, cont + sm.brk)
            cont = cont + sm.cont if sm.cont is not None else None
        return Summary(cont, brk)

    def _seq(self, stack: list[Binder]) -> bool:
        return len(stack) == 1 and stack[0].kind == "seq"

    def stmt(self, s: ir.Statement, stack: list[Binder]) -> Summary:
        """The cost of one statement in the context `stack` (its rule in `STATEMENT_RULES`)."""
        rule = STATEMENT_RULES.get(type(s))
        if rule is None:
            raise EfficiencyError(f"unknown statement {type(s).__name__}", s.span)
        return rule(self, s, stack)

    def _record(self, s: ir.Record, stack: list[Binder]) -> Summary:
        self.records[s.id] = s
        self.innermost[s.id] = self.loop_stack[-1] if self.loop_stack else None
        return Summary(Cost(records={s.id: one}))

    def _break(self, s: ir.Break, stack: list[Binder]) -> Summary:
        return Summary(None, Cost())

    def _assign(self, s: ir.Assign, stack: list[Binder]) -> Summary:
        c = self.assign(s, stack)
        return Summary(self._cap(c) if self._seq(stack) else c)

    def _let(self, s: ir.Let, stack: list[Binder]) -> Summary:
        c = self.expr(s.value, stack)
        return Summary(self._cap(c + nodes_cost(one)) if self._seq(stack) else c)

    def _if(self, s: ir.If, stack: list[Binder]) -> Summary:
        seq = self._seq(stack)
        known = constant_truth(s.cond)
        if known is not None:  # `if true`, `if n > 0 and false`: one branch runs
            return self.block(s.then if known else s.otherwise, stack)
        cond = self._cap(self.expr(s.cond, stack) + nodes_cost(one)) if seq else \
            self.expr(s.cond, stack)
        then_stack = else_stack = stack
        if not seq and stack[-1].kind == "forall":
            then_stack = self._refine(stack, s.cond, (s.id, "then"))
            else_stack = self._refine(stack, ir.Unary(op="not", operand=s.cond,
                                                      dtype=ir.DType.BOOL), (s.id, "else"))
        a = self.block(s.then, then_stack)
        b = self.block(s.otherwise, else_stack)
        if seq and not self.taint.expr(s.cond):
            a, b = self._branch_share(s, "then", a), self._branch_share(s, "else", b)
        if seq and self.end is worst_case.FEWEST and self.taint.expr(s.cond) and \
                None not in (a.cont, b.cont) and a.brk is None is b.brk:
            # the controller's choice on data: the branch T needs, else the cheaper
            return Summary(cond + fewer(a.cont, b.cont))
        cont = None if a.cont is None and b.cont is None else \
            cond + (plus(a.cont, b.cont) or Cost())
        brk = plus(a.brk, b.brk)
        return Summary(cont, None if brk is None else cond + brk)

    def _branch_share(self, s: ir.If, side: str, branch: Summary) -> Summary:
        """A sequential branch on a data-independent condition, charged for the share of
        the `if`'s executions that take it (`selection` counts them): `if p == 0` in a
        loop of n trips runs its branch once, not n times."""
        share = self.sel.share((s.id, side))
        if share is None or share == one:
            return branch

        def part(c: Cost | None) -> Cost | None:  # a branch that never runs: no path
            return None if c is None or share.is_zero else c.times(share)
        return Summary(part(branch.cont), part(branch.brk))

    def _recur(self, s: ir.Recur, stack: list[Binder]) -> Summary:
        c = Cost()  # its body is counted by the Proc's `calls` bound
        for a in s.args:
            c = c + self.expr(a, stack)
        return Summary(self._cap(c + nodes_cost(one)))

    def _round(self, s: ir.Round, stack: list[Binder]) -> Summary:
        return self.block(s.body, stack)

    def _forall(self, s: ir.Forall, stack: list[Binder]) -> Summary:
        return Summary(self.forall(s, stack))

    def assign(self, s: ir.Assign, stack: list[Binder]) -> Cost:
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
                    names = set().union(*(ir.free_ivars(x) for x in t.indices))
                    out = out + edge_cost(self._count_for(names, stack))
        if counted:
            out = out + nodes_cost(one)
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
        out = nodes_cost(self.N) + self.expr(v, [Binder(names, procs, "whole")])
        if t.loc == ir.Loc.EDGE:
            out = out + edge_cost(self.E)
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

    def _refine(self, stack: list[Binder], cond: ir.Expr, key: tuple[int, str]
                ) -> list[Binder]:
        """Narrow the processors executing an `if` branch inside a forall.

        A data-independent condition is counted (`algspec.efficiency.selection`):
        the branch keeps its measured share of the forall's processors. Otherwise
        a data-dependent one keeps O(1) at the fewest end and all at the most, and
        `v == e` pins v at both (`worst_case.pins`).
        """
        top = stack[-1]
        if len(top.order) == 2:  # `if A[v, u] != 0` tests the graph: it keeps every edge
            cond = without_graph_mask(cond, list(top.order), self.prog.graph,
                                       self.edge_tests) or ir.Const(value=True,
                                                                    dtype=ir.DType.BOOL)
        pins = self._pins(cond, set(top.order)) | set(top.pins)
        _, procs = self._procs(top.order, pins)
        share = self.sel.share(key)
        if share is not None and not self.taint.expr(cond):
            full = self.N if len(top.order) == 1 else self.E
            procs = (full * share).at_most(top.count)
        top = Binder(top.names, procs, top.kind, top.order, frozenset(pins),
                      top.zero | zero_pins(cond, top.order))
        return stack[:-1] + [top]

    def _chosen(self, vars: list[str], guard: ir.Expr | None, key: tuple[int, str]
                ) -> tuple[Asymptotic, Asymptotic, set[str]]:
        """(active nodes, processors, pinned variables) a forall guard chooses at this end;
        a data-independent guard's count comes from `algspec.efficiency.selection`."""
        pins = self._pins(without_graph_mask(guard, vars, self.prog.graph, self.edge_tests),
                          set(vars))
        nodes, procs = self._procs(tuple(vars), pins)
        share = self.sel.share(key)
        if share is not None and guard is not None and not self.taint.expr(guard):
            procs = (self.N if len(vars) == 1 else self.E) * share
            nodes = procs.at_most(self.N)
        return nodes, procs, pins

    @staticmethod
    def _evaluators(stack: list[Binder], vars: list[str], procs: Asymptotic) -> list[Binder]:
        return stack + [Binder(frozenset(vars), procs, "forall", tuple(vars))]

    def forall(self, s: ir.Forall, stack: list[Binder]) -> Cost:
        """A forall is a parallel update of the processors its guard selects.

        Processors that read no data (they only write constants or their own
        index: a reset such as `forall v { x[v] = false }`, the normal form of
        `x = false`) carry no information and cost nothing.
        """
        origin = self.normal.origin(s)
        outer, key = origin.guard, origin.key
        nodes, procs, pins = self._chosen(s.vars, s.guard, key)
        inner = stack + [Binder(frozenset(s.vars), procs, "forall", tuple(s.vars),
                                 frozenset(pins), zero_pins(s.guard, s.vars))]
        if not forall_reads_data(s, self.prog.graph.kind == "input"):
            return Cost()
        out = nodes_cost(nodes)
        if len(s.vars) == 2:
            out = out + edge_cost(procs)  # each selected edge processor is an active edge
        # Every candidate evaluates the guard, as it evaluates the condition of an `if`
        # (what it reads is charged to all of them), and the condition of an `if` the
        # normal form made a guard is evaluated by those the guard before it chose. Only
        # the chosen run the body; a test that reads across an edge (`key[u] < key[v]`,
        # `x[p[v]] > 0`) uses it, chosen or not: its evaluators are active with their
        # edge (`worst_case.reads_messages`), while a test on their own state is not.
        tests = [(outer, *self._procs(tuple(s.vars), set()))]
        if origin.merged:
            cond = s.guard if outer is None else s.guard.right
            tests.append((cond, *self._chosen(s.vars, outer, (s.id, "guard"))[:2]))
        for test, t_nodes, t_procs in tests:
            local, remote = split_test(test, s.vars, self.prog.graph, self.edge_tests)
            out = out + self.expr(local, self._evaluators(stack, s.vars, t_procs))
            if remote is not None:  # evaluated by the candidates the local conjuncts keep
                r_nodes, r_procs, _ = self._chosen(s.vars, local, None)
                r_nodes, r_procs = r_nodes.at_most(t_nodes), r_procs.at_most(t_procs)
                out = out + self.expr(remote, self._evaluators(stack, s.vars, r_procs)) + \
                    nodes_cost(r_nodes) + (edge_cost(r_procs) if len(s.vars) == 2 else Cost())
        body = self.block(s.body, inner)
        return self._cap(out + (plus(body.cont, body.brk) or Cost()))

    def _cap(self, c: Cost) -> Cost:
        """One statement's activity in one round: at most N nodes and the |E| edges its
        reads travel."""
        return Cost(c.records, c.work.at_most(self.N), c.derefs.at_most(self.E_used), c.once,
                    {k: v.at_most(self.E_used) for k, v in c.fixed.items()})

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
        if share.is_zero:  # a condition that never holds
            return zero
        if s.id in self.sel.constant_trips:  # the same count at every size: O(1)
            return bound.at_most(one)
        if bound.depends_on_m() and not self.E.depends_on_m():  # the share is fitted in n
            bound = trips_class(s.bound, self.N, s.path or self.prog.path, self.E)
        return bound * share

    # A loop's rule: (bound on its trips, cost per trip before the body, cost on entry,
    # its kind's name for `LoopInfo`).
    def _while_header(self, s: ir.While, stack: list[Binder], path: str | None) -> _Header:
        header = self._cap(self.expr(s.cond, stack) + nodes_cost(one))
        return trips_class(s.bound, self.N, path), header, Cost(), "while"

    def _range_header(self, s: ir.ForRange, stack: list[Binder], path: str | None) -> _Header:
        entry = self._cap(self.expr(s.start, stack) + self.expr(s.stop, stack))
        return trips_class(s.bound, self.N, path), Cost(), entry, "for"

    def _edges_header(self, s: ir.ForEdges, stack: list[Binder], path: str | None) -> _Header:
        # one trip per edge: its bound (m unless declared)
        whole = [Binder(frozenset(["@i", "@j"]), self.E, "whole")]
        listing = self.expr(s.select, whole) + self.expr(s.key, whole)
        # listing the edges reads every node's row and every edge once
        entry = self._cap(listing + nodes_cost(self.N) + edge_cost(self.E))
        return trips_class(s.bound, self.N, path), Cost(), entry, "for edges"

    def _proc_header(self, s: ir.Proc, stack: list[Binder], path: str | None) -> _Header:
        # like a loop of `calls` trips: each invocation runs the body
        entry = Cost()
        for a in s.args:
            entry = entry + self.expr(a, stack)
        entry = self._cap(entry + nodes_cost(one))
        return trips_class(s.calls, self.N, path), Cost(), entry, "recursive"

    def _nodes_header(self, s: ir.ForNodes, stack: list[Binder], path: str | None) -> _Header:
        key = self.expr(s.key, [Binder(frozenset(["@i"]), self.N, "whole")])
        # the ordering reads every node once (a key of no data, `by 0.0`, reads none)
        entry = self._cap(key + nodes_cost(self.N if ir.reads_state(s.key) else zero))
        return self.N, Cost(), entry, "for nodes"

    def _run_trips(self, s: ir.Statement, bound: Asymptotic, path: str | None
                   ) -> Asymptotic | None:
        """The trips of a `total bound` loop over the whole run, or None to count per execution.

        The trips over the run are at most the total and at most the per-execution
        bound times the trips around the loop; the total is used unless the product
        is strictly smaller (a total looser than what the loop nest allows).
        """
        total = getattr(s, "total", None)
        if total is None:
            return None
        run = trips_class(total, self.N, path)
        nest = self.mult[-1] * bound
        if nest.is_O(run) and not run.is_O(nest):
            return None
        return run

    def loop(self, s: ir.Statement, stack: list[Binder]) -> Summary:
        """A loop, or a recursive procedure: its header (`LOOP_RULES`) and body times its trips.

        A loop with a `total bound` charges its trips once per run (`Cost.once`, keyed
        by its source loop), so enclosing loops, recursion and inlined copies do not
        multiply them. Inside a forall (a procedure called in a round) it is each
        processor's own loop: its trips multiply that processor's activity, within its round.
        """
        path = s.path or self.prog.path
        self.enclosing.append(s)
        bound, header, entry, kind = LOOP_RULES[type(s)](self, s, stack, path)
        bound = self._trips(s, bound)
        run = self._run_trips(s, bound, path)
        self.loop_stack.append(s.id)
        self.mult.append(self.mult[-1] * bound if run is None else run)
        body = self.block(s.body, stack)
        self.mult.pop()
        self.loop_stack.pop()
        self.enclosing.pop()
        per_iter = plus(body.cont, body.brk) or Cost()
        if body.cont is None:  # every path breaks: one iteration
            total = entry + header + (body.brk or Cost())
            iters = one
        elif run is None:
            total = entry + header + (header + body.cont).trips(bound, s.id) + \
                (body.brk or Cost())
            iters = bound
        else:  # amortised: the trips over the run, once; entry and break per execution
            trips = (header + body.cont).trips(run, s.id)
            total = entry + header + (body.brk or Cost()) + Cost(once=trips.once) + \
                Cost(once={ir.loop_site(s): trips.per_execution()})
            iters = bound
        total = total.released(s.id)
        if not per_iter.records:  # it runs within one round: at most N nodes, |E| edges
            total = self._cap(total)
        if per_iter.records:
            self.loops.append(LoopInfo(
                stmt=s, kind=kind, bound=iters,
                iterations=self.mult[-1] * iters if run is None else run,
                records=per_iter.frames, work=(per_iter + header).work,
                record_ids=[]))
        return Summary(total)


_Header = tuple[Asymptotic, Cost, Cost, str]
_Rule = Callable[[CostPass, ir.Statement, list[Binder]], Summary]

# One rule per IR statement class: (pass, statement, context) -> Summary.
STATEMENT_RULES: dict[type, _Rule] = {
    ir.Record: CostPass._record, ir.Break: CostPass._break, ir.Assign: CostPass._assign,
    ir.Let: CostPass._let, ir.If: CostPass._if, ir.While: CostPass.loop,
    ir.ForRange: CostPass.loop, ir.ForEdges: CostPass.loop, ir.ForNodes: CostPass.loop,
    ir.Proc: CostPass.loop, ir.Recur: CostPass._recur, ir.Round: CostPass._round,
    ir.Forall: CostPass._forall,
}

# The header of each statement kind `CostPass.loop` runs.
LOOP_RULES: dict[type, Callable[..., _Header]] = {
    ir.While: CostPass._while_header, ir.ForRange: CostPass._range_header,
    ir.ForEdges: CostPass._edges_header, ir.Proc: CostPass._proc_header,
    ir.ForNodes: CostPass._nodes_header,
}


__all__ = ["LOOP_RULES", "STATEMENT_RULES", "CostPass"]
