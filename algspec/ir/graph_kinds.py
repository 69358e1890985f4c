"""The built-in interconnection graphs (`graph complete|empty|path|star|ring`): one table.

Each kind says which pairs of nodes are joined, once as a numpy mask (what
the efficiency analysis counts on) and once as an IR expression in the pair
(@i, @j) (the implicit `adj` input the lowering gives the file), with its
edge count as a class of N, its best-connected node and which node offsets
it joins (whether a processor v may read node v + c along an edge: lint's
L107 and the edges the efficiency analysis counts). A processor reads along an
edge in either direction (as over `incoming` and `outgoing`), so a directed
kind joins the offsets its mask joins one way or the other. `graph input NAME`
is the last kind: the edges are an input's, m of them.

The ring is `graph ring` (node i joined to i - 1 and i + 1 mod N, undirected
as `graph path`) or `graph ring directed` (the edge i -> i + 1 mod N: `adj[i, j]`
holds for j = i + 1 mod N, so `incoming(v)` is v - 1 mod N); both keep every
node's self-loop, as every kind does (CLRS adds self-loops to every graph).
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


def _next(x: ir.Expr) -> ir.Expr:
    """(x + 1) mod N: the ring's successor of node x."""
    return ir.Binary(op="%", left=_plus_one(x), right=ir.Size(which="N"), dtype=ir.DType.INT)


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
    directed: bool = False  # whether `adj[i, j]` may hold without `adj[j, i]`
    wraps: bool = False  # whether it joins v to (v + c) mod N wherever it joins v to v + c

    def joins_offset(self, c: int) -> bool:
        """Whether each processor v reaches node v + c (where that is a node) along an edge."""
        return self.offsets(c)


def _pairs(N: int) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(N)[:, None], np.arange(N)[None, :]


def _ring(N: int, directed: bool) -> np.ndarray:
    """Self-loops and the edges i -> i + 1 mod N (and back, undirected)."""
    i, j = _pairs(N)
    mask = (i == j) | (j == (i + 1) % N)
    return mask if directed else mask | mask.T


GRAPH_KINDS: dict[str, GraphKind] = {
    "complete": GraphKind(
        "complete", "every pair of nodes (dm-clrs's processors read all pairs)",
        lambda N: np.ones((N, N), bool), None, "N^2", lambda c: True, wraps=True),
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
    "ring": GraphKind(
        "ring", "node i joined to i - 1 and i + 1 mod N (and itself)",
        lambda N: _ring(N, directed=False),
        _or(_eq(_I, _J), _or(_eq(_next(_I), _J), _eq(_next(_J), _I))), "N",
        lambda c: abs(c) <= 1, wraps=True),
    "ring directed": GraphKind(
        "ring directed", "the edge i -> i + 1 mod N from each node i (and each node to itself)",
        lambda N: _ring(N, directed=True),
        _or(_eq(_I, _J), _eq(_next(_I), _J)), "N", lambda c: abs(c) <= 1, directed=True,
        wraps=True),
}
INPUT_KIND = "input"  # `graph input NAME`: an edge-mask input's edges (m of them)


def by_size() -> list[GraphKind]:
    """The built-in kinds, fewest edges first (table order among equals): the first that
    carries a read is the graph a message suggests."""
    return sorted(GRAPH_KINDS.values(), key=lambda k: k.edges == "N^2")


def joins_offset(kind: str, c: int, modular: bool = False) -> bool:
    """Whether graph `kind` joins each node v to v + c (`modular`: to (v + c) mod N, which
    only a graph that wraps round joins for c != 0); an input graph only to itself
    (CLRS adds self-loops to every graph)."""
    k = GRAPH_KINDS.get(kind)
    if k is None or (modular and not k.wraps):
        return c == 0
    return k.joins_offset(c)
