"""The cost pass's values: what a stretch of execution costs, and where it is evaluated.

`Cost` sums frames, active nodes and edges, apart from what amortised loops (`total
bound`) cost once per run, which enclosing trips do not multiply; `Binder` says which index variables an
expression is evaluated under and how many evaluations they make; `Summary` keeps
the paths that fall through apart from those that `break`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algspec.efficiency.asymptotic import Asymptotic, zero


@dataclass
class Cost:
    """Totals over a stretch of execution: frames, active nodes, edges besides self-loops.

    `once` holds the amortised part: per source loop with a `total bound`
    (`ir.loop_site`), what all its trips cost over the whole run. It is charged
    once however often the stretch runs, so `times` leaves it alone.
    """

    records: dict[int, Asymptotic] = field(default_factory=dict)
    work: Asymptotic = field(default_factory=lambda: zero)
    derefs: Asymptotic = field(default_factory=lambda: zero)
    once: dict[tuple, Cost] = field(default_factory=dict)
    fixed: dict[tuple[frozenset[int], int], Asymptotic] = field(default_factory=dict)

    def __add__(self, o: Cost) -> Cost:
        return Cost(_merge(self.records, o.records), self.work + o.work,
                    self.derefs + o.derefs, _merge(self.once, o.once),
                    _merge(self.fixed, o.fixed))

    def times(self, k: Asymptotic) -> Cost:
        """k executions of this stretch (a branch's share: its fixed edges are read at all)."""
        return Cost({i: v * k for i, v in self.records.items()}, self.work * k,
                    self.derefs * k, self.once, self.fixed)

    def trips(self, k: Asymptotic, loop: int) -> Cost:
        """k trips of loop `loop`: fixed edges it re-reads count once; those it held are
        plain edges from here out."""
        out = Cost({i: v * k for i, v in self.records.items()}, self.work * k,
                   self.derefs * k, self.once)
        for key, v in self.fixed.items():
            out = out + Cost(fixed={key: v if loop in key[0] else v * k})
        return out.released(loop)

    def released(self, loop: int) -> Cost:
        """Fixed edges held up to `loop` become plain edges."""
        kept = {key: v for key, v in self.fixed.items() if key[1] != loop}
        freed = [v for key, v in self.fixed.items() if key[1] == loop]
        derefs = self.derefs
        for v in freed:
            derefs = derefs + v
        return Cost(self.records, self.work, derefs, self.once, kept)

    def flat(self) -> Cost:
        """Every fixed edge as a plain one."""
        out = Cost(self.records, self.work, self.derefs, self.once)
        for v in self.fixed.values():
            out.derefs = out.derefs + v
        return out

    def per_execution(self) -> Cost:
        """This cost without its amortised part."""
        return Cost(self.records, self.work, self.derefs, fixed=self.fixed)

    def whole_run(self) -> Cost:
        """The per-execution part plus every amortised loop's cost, as one flat cost."""
        out = self.per_execution().flat()
        for c in self.once.values():
            out = out + c.whole_run()
        return out

    @property
    def frames(self) -> Asymptotic:
        out = zero
        for v in self.records.values():
            out = out + v
        return out


def _merge(a: dict, b: dict) -> dict:
    """Sum two maps key by key (copies of one amortised loop add up to a constant)."""
    out = dict(a)
    for k, v in b.items():
        out[k] = out[k] + v if k in out else v
    return out


def nodes_cost(k: Asymptotic) -> Cost:
    """k active nodes."""
    return Cost(work=k)


def edge_cost(k: Asymptotic) -> Cost:
    """k active edges besides self-loops."""
    return Cost(derefs=k)


@dataclass(frozen=True)
class Binder:
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
class Summary:
    """Cost of the paths that fall through (`cont`) and that end in `break` (`brk`)."""

    cont: Cost | None
    brk: Cost | None = None


def plus(a: Cost | None, b: Cost | None) -> Cost | None:
    """The sum of two optional costs (None: no such path)."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def fewer(a: Cost, b: Cost) -> Cost:
    """Two branches of a sequential `if` on data at the fewest end: the one with more
    rounds (the inputs that attain T take it), else the fewer nodes and edges."""
    both = a + b  # T keeps both branches' records (a sum is within 2 of the max)
    fa, fb = a.whole_run().frames, b.whole_run().frames
    if fa == fb:  # the fewer edges: a branch with its re-read edges, if one has fewer
        x, y = a.flat().derefs, b.flat().derefs
        work = a.work.at_most(b.work)
        if x.is_O(y) or y.is_O(x):
            kept = a if x.is_O(y) else b
            return Cost(both.records, work, kept.derefs, both.once, kept.fixed)
        return Cost(both.records, work, x.at_most(y), both.once)
    if fb.is_O(fa) or fa.is_O(fb):
        kept = a if fb.is_O(fa) else b
        return Cost(both.records, kept.work, kept.derefs, both.once, kept.fixed)
    return both


__all__ = ["Binder", "Cost", "Summary", "edge_cost", "fewer", "nodes_cost", "plus"]
