"""The worst case: the one definition every efficiency rule follows (docs/efficiency.md).

For inputs of size n, T is the maximum over inputs of the rounds (every loop
runs to its bound), and work and active edges are counted on the inputs that
attain it. On those inputs every data-dependent choice is resolved by one rule:

* A *test* chooses which candidates run: a forall guard (node or edge
  processors) and an `if` inside a forall choose processors; a filter (`... if
  c`, or the conditional body `b if c else identity`) chooses an aggregation's
  elements, a readout's as a processor's; the predicate of `any`/`all`/`count`
  chooses the elements that decide it (its witnesses).
* A test each candidate can evaluate on its own state (a node's own data, an
  edge's datum, one end of an edge processor, an element's own data and edge,
  shared memory) uses no edge: a candidate it leaves out is idle. If it reads
  data it chooses anything from O(1) (the *fewest* end) to all (the *most* end)
  of its candidates; an equality `v == e` chooses one at both ends; a
  data-independent test chooses what it chooses (counted by
  `algspec.efficiency.selection`).
* A test that combines state held in two places (both ends of an edge, a
  processor's and an element's data, a node reached through a pointer, a nested
  aggregation) is evaluated across an edge: every candidate uses that edge, and
  it and the edge are active at both ends, chosen or not.
* What runs is active: the chosen processors, the controller, the chosen
  elements (nodes of a readout, edges into the processor otherwise).

The headline (`HEADLINE`, the fields of `StaticEfficiency` and every table) is
the fewest end of every ranged quantity: the paper's worst case, the least
efficient execution (its Table 2 gives DCSC eta = 1/n because "there is no
guarantee for more than one node and edge being active per step"). The most
end is an upper bound on work that charges every candidate a test may choose,
and every element an aggregation may read, at every step, so for sequential
programs that scan neighbours (Kosaraju's per-frame minimum) it reaches the
capacity itself; it is kept beside the headline, not instead of it.
`ClassRange` holds both ends (`StaticEfficiency.ranges`, `algspec efficiency
--range`), and `HEADLINE` is the one place that picks. The measured side
counts by the same rule on each sampled input (`measured`, and the
interpreter's `algspec.interp.observe`, which asks `reported`).

This module holds the rule's pieces; `algspec.efficiency.analysis` runs the
cost pass (`algspec.efficiency.cost`) once per end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from algspec import ir
from algspec.efficiency.asymptotic import Asymptotic, one
from algspec.efficiency.conjuncts import conjoin, conjuncts


class End(str, Enum):
    """Which end of a data-dependent count: the fewest it can choose, or the most."""

    FEWEST = "fewest"
    MOST = "most"


FEWEST = End.FEWEST
MOST = End.MOST
# The quantities that have two ends; T, c, N and |E| have one (T is a maximum).
RANGED = ("work", "active_edges", "eta", "epsilon")

# The end each ranged quantity's headline (the printed class) takes: the fewest, the
# paper's worst case (see the module docstring for why not the most end of work).
HEADLINE: dict[str, End] = {"work": End.FEWEST, "active_edges": End.FEWEST,
                            "eta": End.FEWEST, "epsilon": End.FEWEST}


def choose(end: End, fewest, most):
    """`fewest` at the fewest end, `most` at the most end."""
    return fewest if end is FEWEST else most


# ================================================================ tests
def pins(e: ir.Expr | None, vars: set[str], tainted: Callable[[ir.Expr], bool],
         end: End) -> set[str]:
    """The variables among `vars` a test fixes to O(1) values at `end`.

    At the fewest end a test on data, or on node or edge state, fixes them all (it may
    choose one candidate; `selection` counts what a data-independent guard selects
    where it can evaluate it, and that count replaces this).
    At both ends `v == e` with e free of v fixes v (e may read data: it chooses
    one), `false` fixes all, `and` unions and `or` intersects.
    """
    if e is None:
        return set()
    if end is FEWEST and (tainted(e) or _reads_node_or_edge(e)):
        return set(vars)  # (a test on state nothing counts is a choice too: `selects`)
    if isinstance(e, ir.Const):
        return set() if e.value else set(vars)
    if isinstance(e, ir.Binary):
        if e.op == "and":
            return pins(e.left, vars, tainted, end) | pins(e.right, vars, tainted, end)
        if e.op == "or":
            return pins(e.left, vars, tainted, end) & pins(e.right, vars, tainted, end)
        if e.op == "==":
            out = set()
            for a, b in ((e.left, e.right), (e.right, e.left)):
                if isinstance(a, ir.IndexVar) and a.name in vars and \
                        a.name not in ir.free_ivars(b):
                    out.add(a.name)
            return out
    return set()


def reads_messages(e: ir.Expr | None, vars: list[str] | tuple[str, ...]) -> bool:
    """Whether a test in processor `vars` combines state held in two places (uses an edge).

    A node processor's own state is its node's data (`x[v]`); an edge processor
    (v, u) can test its datum and the reverse (`A[v, u]`, `A[u, v]`) and the data of
    one of its ends (`c[u]`: the sender decides whether to send). A test that reads
    both ends (`key[u] < key[v]`) or another node or edge (`x[p[v]]`, `D[i, k]`) is
    evaluated across an edge. Shared memory and indices are no edge, and neither is
    the value of an aggregation the processor computes: the aggregation's own
    elements are counted by its rule (`elements`).
    """
    if e is None:
        return False
    own = list(vars)
    ends: set[str] = set()
    for x in direct(e):
        if not isinstance(x, ir.Read) or x.loc == ir.Loc.GRAPH:
            continue
        names = [i.name if isinstance(i, ir.IndexVar) else None for i in x.indices]
        if len(own) == 1 and names and all(nm == own[0] for nm in names):
            continue  # a node processor's own datum, or its self-loop's (`A[v, v]`)
        if len(own) == 2 and names in (own, own[::-1]):
            continue  # an edge processor's own datum, or the reverse edge's
        if len(own) == 2 and len(names) == 1 and names[0] in own:
            ends.add(names[0])  # one end's datum
            continue
        return True
    return len(ends) == 2


def direct(e: ir.Expr):
    """`e` and its sub-expressions, less the inside of nested aggregations (each counts
    its own elements; to the test around it, its value is data where it is computed)."""
    yield e
    if not isinstance(e, ir.Aggregate):
        for c in ir.children(e):
            yield from direct(c)


def loop_choice(s: ir.Statement, tainted: Callable[[ir.Expr], bool]) -> bool:
    """Whether a loop's trips are a data-dependent choice that does not decide T.

    A loop that records no round and stops on data (a `while` condition, `for` ends
    or a `break` under a condition that read data: KMP's fallback loop, a scan that
    breaks at the first mismatch) runs anything from O(1) trips to its bound on the
    inputs that attain T. A loop that records runs to its bound there (T is a maximum).
    """
    if not isinstance(s, (ir.While, ir.ForRange, ir.Proc)) or \
            any(isinstance(x, ir.Record) for x, _ in ir.walk_statements(s.body)):
        return False
    if isinstance(s, ir.Proc):  # a recursion that stops on data (union-find's `find`)
        return _breaks_on_data(s.body, tainted, stop=ir.Recur)
    if isinstance(s, ir.While):
        ends = [s.cond]
    else:
        ends = [s.start, s.stop] + ([s.step] if getattr(s, "step", None) is not None else [])
    return any(tainted(e) for e in ends) or _breaks_on_data(s.body, tainted)


def _breaks_on_data(stmts: list[ir.Statement], tainted: Callable[[ir.Expr], bool],
                    on_data: bool = False, stop: type = ir.Break) -> bool:
    """Whether a `break` of this loop (not of a nested one), or a recursive call of this
    procedure (`stop=ir.Recur`), sits under a data test."""
    for s in stmts:
        if isinstance(s, stop) and on_data:
            return True
        if isinstance(s, ir.If) and _breaks_on_data(s.then + s.otherwise, tainted,
                                                    on_data or tainted(s.cond), stop):
            return True
    return False


ELEMENT, EVALUATOR, BOTH = "element", "evaluator", "both"


def scope(e: ir.Expr | None, var: str, readout: bool = False) -> str:
    """Where the data a test on aggregation element `var` reads is held.

    `ELEMENT`: the element's own data (`c[u]`), its edge's datum (`A[u, v]`,
    `adj[cur, u]`), what a nested aggregation computes at the element, and shared
    memory; `EVALUATOR`: the aggregating processor's data (and what it computes) and
    shared memory only (a readout's controller holds only shared memory, so what it
    reads is shared); `BOTH`: data from the two places (`key[u] < key[v]`), or another
    node reached through the element (`x[p[u]]`): each element's test uses its edge.
    """
    if e is None:
        return EVALUATOR
    element = evaluator = False
    for x in direct(e):
        if isinstance(x, ir.Aggregate) and x is not e:
            if var in ir.free_ivars(x):
                element = True  # computed at the element
            else:
                evaluator = evaluator or not readout
            continue
        if not isinstance(x, ir.Read) or x.loc == ir.Loc.GRAPH:
            continue
        if not any(var in ir.free_ivars(i) for i in x.indices):
            evaluator = evaluator or not readout
            continue
        at_var = [isinstance(i, ir.IndexVar) and i.name == var for i in x.indices]
        plain = all(isinstance(i, ir.IndexVar) or not ir.free_ivars(i) for i in x.indices)
        if plain and sum(at_var) == 1:
            element = True  # x[u], A[u, v], adj[cur, u]
        else:
            return BOTH     # x[p[u]], x[u + 1]: another node, reached through the element
    if element and evaluator:
        return BOTH
    return ELEMENT if element else EVALUATOR


# ================================================================ aggregations
ALL, EACH, ONE = "all", "each", "one"
_ORDER = {ONE: 0, EACH: 1, ALL: 2}
WITNESSED = ("any", "all", "count")  # a predicate per element: a test, as a filter is


def selects(test: ir.Expr | None, var: str, tainted: Callable[[ir.Expr], bool], end: End,
            readout: bool = False) -> str:
    """What a test on aggregation element `var`, evaluated on the element's side or the
    evaluator's, chooses at `end`: `ALL` of the domain, `EACH` (one element per
    evaluation: `u == p[v]`) or `ONE` in all. A test on node or edge state that is
    not data (no rule counts what it selects) is a choice as a test on data is."""
    if test is None:
        return ALL
    if var in pins(test, {var}, tainted, MOST):
        return EACH
    if tainted(test) or _reads_node_or_edge(test):  # on data, or on state nothing counts
        return choose(end, ONE, ALL)
    return ALL


def _reads_node_or_edge(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.Read) and x.loc != ir.Loc.GRAPH for x in ir.walk_expr(e))


_AGG = object()  # `elements`' default: the aggregation's own filter and body


def elements(agg: ir.Aggregate, tainted: Callable[[ir.Expr], bool], end: End,
             readout: bool = False, filt=_AGG, pred=_AGG) -> tuple[str, str]:
    """(chosen, active) elements of an aggregation at `end`, readouts and processors alike.

    The filter chooses the elements the body is evaluated on; `any`/`all`/`count`
    test their body too (their witnesses). Each element checks the conjuncts on its
    own side first (`scope`); those it passes decide whether it is active, and a
    conjunct that reads two places (`key[u] < key[v]`) is then evaluated over its
    edge, so every element that gets that far is active, chosen or not. `filt` and
    `pred` stand for the filter and body less the graph's own edge test (the cost
    pass removes it: it keeps every edge).
    """
    filt = agg.filter if filt is _AGG else filt
    pred = agg.body if pred is _AGG else pred
    tests = conjuncts(filt)
    chosen_local = [c for c in tests if scope(c, agg.var, readout) != BOTH]
    chosen = selects(conjoin(chosen_local), agg.var, tainted, end, readout)
    if agg.op in WITNESSED:
        tests = tests + conjuncts(pred)
    local = [c for c in tests if scope(c, agg.var, readout) != BOTH]
    return chosen, selects(conjoin(local), agg.var, tainted, end, readout)


def reported(agg: ir.Aggregate, readout: bool) -> tuple[bool, bool]:
    """What the interpreter reports for an aggregation, by the rule of `elements`:
    (every evaluated element: a test conjunct reads two places; only the witnesses
    of an `any`/`all`/`count`: none does). Reporting every evaluated element where
    the rule counts those that pass the local conjuncts counts no fewer."""
    tests = conjuncts(agg.filter) + (conjuncts(agg.body) if agg.op in WITNESSED else [])
    every = any(scope(c, agg.var, readout) == BOTH for c in tests)
    return every, agg.op in WITNESSED and not every


def degree(end: End, kind: str, hub: bool, N: Asymptotic) -> Asymptotic:
    """Neighbours of one node: N on a complete graph and at a star's hub; on an input
    graph O(1) at the fewest end and N at the most; O(1) on the other built-in graphs."""
    if kind == "complete" or hub:
        return N
    return choose(end, one, N) if kind == "input" else one


def neighbourhoods(procs: Asymptotic, deg: Asymptotic, N: Asymptotic,
                   E: Asymptotic) -> Asymptotic:
    """Distinct edges into the neighbourhoods of `procs` processors of `deg` neighbours
    each: every edge when all N aggregate (the degrees sum to |E|), else at most |E|."""
    if procs == N:
        return E
    return (procs * deg).at_most(E)


# ================================================================ results
@dataclass(frozen=True)
class ClassRange:
    """Both ends of a class: `fewest` and `most` (`HEADLINE` says which one tables print)."""

    fewest: Asymptotic
    most: Asymptotic

    def at(self, end: End) -> Asymptotic:
        """The class at `end`."""
        return self.fewest if end is FEWEST else self.most

    @property
    def loose(self) -> bool:
        """Whether the ends differ (a data-dependent choice the class cannot pin down)."""
        return self.fewest != self.most

    def __str__(self) -> str:
        return str(self.fewest) if not self.loose else f"{self.fewest} .. {self.most}"

    def as_dict(self) -> dict[str, str]:
        return {"fewest": str(self.fewest), "most": str(self.most)}


def at_end(static, end: End):
    """A copy of a `StaticEfficiency` whose work, active edges, eta and epsilon are those
    of `end` (to compare measured figures with the most end, `measure(static=...)`)."""
    from dataclasses import replace

    get = {q: static.range(q).at(end) for q in RANGED}
    return replace(static, work=get["work"], active_edges=get["active_edges"],
                   node_efficiency=get["eta"], edge_efficiency=get["epsilon"])


_ATTRS = {"work": "work", "active_edges": "active_edges", "eta": "node_efficiency",
          "epsilon": "edge_efficiency"}


def class_ranges(fewest, most) -> dict[str, ClassRange]:
    """Work, active edges, eta and epsilon of two `StaticEfficiency`s as ranges."""
    return {q: ClassRange(getattr(fewest, a), getattr(most, a)) for q, a in _ATTRS.items()}


def headline(fewest, most):
    """The `StaticEfficiency` tables print: `fewest`'s, with each ranged quantity taken at
    its `HEADLINE` end and both ends in `.ranges`."""
    from dataclasses import replace

    ranges = class_ranges(fewest, most)
    return replace(fewest, ranges=ranges,
                   **{a: ranges[q].at(HEADLINE[q]) for q, a in _ATTRS.items()})


__all__ = [
    "ALL",
    "BOTH",
    "EACH",
    "ELEMENT",
    "EVALUATOR",
    "FEWEST",
    "HEADLINE",
    "MOST",
    "ONE",
    "RANGED",
    "ClassRange",
    "End",
    "at_end",
    "choose",
    "class_ranges",
    "degree",
    "direct",
    "elements",
    "headline",
    "loop_choice",
    "neighbourhoods",
    "pins",
    "reads_messages",
    "reported",
    "scope",
    "selects",
]
