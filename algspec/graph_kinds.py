"""The built-in interconnection graphs (`graph complete|empty|path|star`): one table.

Each kind says which pairs of nodes are joined, once as a numpy mask (what
the efficiency analysis counts on) and once as an IR expression in the pair
(@i, @j) (the implicit `adj` input the lowering gives the file), with its
edge count as a class of N, its best-connected node and which node offsets
it joins (whether a processor v may read node v + c along an edge: lint's
L107 and the edges the efficiency analysis counts). `graph input NAME` is the
fifth kind: the edges are an input's, m of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from algspec import ir


def _eq(x: ir.Expr, y: ir.Expr) -> ir.Expr:
    return ir.Binary(op="==", left=x, right=y, dtype=ir.DType.BOOL)


def _or(x: ir.Expr, y: ir.Expr) -> ir.Expr:
    return ir.Binary(op="or", left=x, right=y, dtype=ir.DType.BOOL)


def _plus_one(x: ir.Expr) -> ir.Expr:
    return ir.Binary(op="+", left=x, right=ir.Const(value=1, dtype=ir.DType.INT),
                     dtype=ir.DType.INT)


_I, _J = ir.IndexVar(name="@i", axis=0), ir.IndexVar(name="@j", axis=1)
_ZERO = ir.Const(value=0, dtype=ir.DType.INT)


@dataclass(frozen=True)
class GraphKind:
    """A built-in interconnection graph."""

    name: str
    doc: str
    mask: Callable[[int], np.ndarray]  # N -> [N, N] bool: which pairs are joined
    ir_mask: ir.Expr | None  # the same pointwise in (@i, @j); None: no `adj` input (complete)
    edges: str  # |E| as a class of N: "N^2" or "N"
    offsets: Callable[[int], bool]  # c -> whether every node v is joined to v + c (a node)
    hub: int | None = None  # a node joined to all others (its degree is N), if any

    def joins_offset(self, c: int) -> bool:
        """Whether each processor v reaches node v + c (where that is a node) along an edge."""
        return self.offsets(c)


def _pairs(N: int) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(N)[:, None], np.arange(N)[None, :]


GRAPH_KINDS: dict[str, GraphKind] = {
    "complete": GraphKind(
        "complete", "every pair of nodes (dm-clrs's processors read all pairs)",
        lambda N: np.ones((N, N), bool), None, "N^2", lambda c: True),
    "empty": GraphKind(
        "empty", "self-loops only: nodes exchange nothing but through graph features",
        lambda N: np.equal(*_pairs(N)), _eq(_I, _J), "N", lambda c: c == 0),
    "path": GraphKind(
        "path", "node i joined to i - 1 and i + 1 (and itself)",
        lambda N: np.abs(np.subtract(*_pairs(N))) <= 1,
        _or(_eq(_I, _J), _or(_eq(_plus_one(_I), _J), _eq(_plus_one(_J), _I))), "N",
        lambda c: abs(c) <= 1),
    "star": GraphKind(
        "star", "node 0 joined to every node (and each node to itself)",
        lambda N: np.equal(*_pairs(N)) | (_pairs(N)[0] == 0) | (_pairs(N)[1] == 0),
        _or(_eq(_I, _J), _or(_eq(_I, _ZERO), _eq(_J, _ZERO))), "N", lambda c: c == 0, hub=0),
}
INPUT_KIND = "input"  # `graph input NAME`: an edge-mask input's edges (m of them)


def by_size() -> list[GraphKind]:
    """The built-in kinds, fewest edges first (table order among equals): the first that
    carries a read is the graph a message suggests."""
    return sorted(GRAPH_KINDS.values(), key=lambda k: k.edges == "N^2")


def joins_offset(kind: str, c: int) -> bool:
    """Whether graph `kind` joins each node v to v + c; an input graph only to itself
    (CLRS adds self-loops to every graph)."""
    k = GRAPH_KINDS.get(kind)
    return k.joins_offset(c) if k is not None else c == 0
