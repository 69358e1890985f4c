"""What the static analysis returns: the classes of one algorithm, and its one error.

Every pass of the analysis (`algspec.efficiency.analysis`) and every reader of
its result (CLI, lint, measured comparison) shares these types, so they live
apart from any pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from algspec import ir
from algspec.efficiency import worst_case
from algspec.efficiency.asymptotic import Asymptotic
from algspec.ir.size_values import (
    E605_HELP,
    EfficiencyError,
)


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
    # built-in graphs whose edges the reads travel beyond the declared graph's (lint L107);
    # `edges` counts them too
    reads_beyond_graph: tuple[str, ...] = ()
    record_counts: dict[int, Asymptotic] = field(default_factory=dict)
    loops: list[LoopInfo] = field(default_factory=list)
    records: dict[int, ir.Record] = field(default_factory=dict)
    innermost_loop: dict[int, int | None] = field(default_factory=dict)
    whp: bool = False  # a `bound ... whp` loop: the classes hold with high probability
    # Both ends of work, active edges, eta and epsilon (`worst_case.ClassRange`, keyed as
    # `worst_case.RANGED`); the fields above are the headline ends (`worst_case.HEADLINE`):
    # the fewest, the worst case.
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

    def json_dict(self) -> dict[str, Any]:
        """`efficiency --static --json`'s object (also `compile --json`'s "static"): the
        classes, their ranges and `whp` (the classes hold with high probability)."""
        return {**self.as_dict(), "range": self.ranges_dict(), "whp": self.whp}

    def __str__(self) -> str:
        return format_static(self)


def format_static(s: StaticEfficiency) -> str:
    """A few lines for `algspec compile` and `algspec efficiency`."""
    kinds = s.reads_beyond_graph  # graphs whose edges reads travel beyond the declared one
    owner = "graphs'" if len(kinds) > 1 else "graph's"
    beyond = f" + the {' and '.join(kinds)} {owner} edges its reads travel" if kinds else ""
    return (f"{s.name}: T = {s.rounds}{' (whp)' if s.whp else ''}, N = {s.nodes}, |E| = {s.edges} ({s.graph} graph{beyond})\n"
            f"  capacity c = {s.capacity}   node efficiency eta = {s.node_efficiency}   "
            f"edge efficiency epsilon = {s.edge_efficiency}\n"
            f"  work = {s.work}   active edges = {s.active_edges}   (worst case)")


__all__ = ["E605_HELP", "EfficiencyError", "LoopInfo", "StaticEfficiency", "format_static"]
