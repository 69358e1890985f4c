"""The IR's base types and expression nodes (re-exported by `algspec.ir`, the one IR).

An expression is evaluated in a *scope*, the ordered list of node-index
variables bound around it (`forall v`, `forall v, u`, an aggregation's
variable, or the implicit `@i`/`@j` of a node/edge-located whole-array
expression). A value has one axis per scope variable. Kept apart from the
statements so each module holds one layer of the IR.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, model_serializer

from algspec.diagnostics import Span


class DType(str, Enum):
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"


class Loc(str, Enum):
    NODE = "node"
    EDGE = "edge"
    GRAPH = "graph"



class IRNode(BaseModel):
    span: Span = Span()


# ---------------------------------------------------------------- expressions
class Const(IRNode):
    kind: Literal["const"] = "const"
    value: float | int | bool
    dtype: DType


class Size(IRNode):
    """The problem size `n`, the node count `N`, or the edge count `m`."""

    kind: Literal["size"] = "size"
    which: Literal["n", "N", "m"]
    dtype: DType = DType.INT


class IndexVar(IRNode):
    """A bound node index: its value along scope axis `axis` is the node number."""

    kind: Literal["ivar"] = "ivar"
    name: str
    axis: int
    dtype: DType = DType.INT


class VarRef(IRNode):
    """A graph-level value: a declared graph datum or a `let`/loop local."""

    kind: Literal["var"] = "var"
    name: str
    local: bool = False
    dtype: DType


class Read(IRNode):
    """`x[e]` of a node array or `A[e1, e2]` of an edge array."""

    kind: Literal["read"] = "read"
    name: str
    loc: Loc
    indices: list[Expr]
    dtype: DType


class Unary(IRNode):
    kind: Literal["unary"] = "unary"
    op: Literal["-", "not", "~"]
    operand: Expr
    dtype: DType


class Binary(IRNode):
    kind: Literal["binary"] = "binary"
    op: str
    left: Expr
    right: Expr
    dtype: DType


class Cond(IRNode):
    kind: Literal["cond"] = "cond"
    cond: Expr
    then: Expr
    otherwise: Expr
    dtype: DType


class Call(IRNode):
    """A pointwise builtin: abs, floor, ceil, sqrt, log2, min, max, float, int."""

    kind: Literal["call"] = "call"
    func: str
    args: list[Expr]
    dtype: DType


class Chain(IRNode):
    """Predecessor pointers of the list `order` (CLRS's `probing.array`): node-located."""

    kind: Literal["chain"] = "chain"
    order: str
    axis: int
    dtype: DType = DType.INT


class Aggregate(IRNode):
    """Reduce `body` over a new index variable at scope axis `axis`.

    `domain` is all nodes, or the in-/out-neighbours of node `of` on the
    interconnection graph; `filter` restricts the reduced set.
    """

    kind: Literal["agg"] = "agg"
    op: Literal["min", "max", "sum", "any", "all", "count", "argmin", "argmax"]
    var: str
    axis: int
    domain: Literal["nodes", "incoming", "outgoing"]
    of: Expr | None = None
    filter: Expr | None = None
    body: Expr
    default: Expr | None = None
    dtype: DType
    # argmin over `nodes` only: the first node passing `filter` in the order of numpy's
    # default `np.argsort` of `body` over all N nodes as float64 (dm-clrs's extract-min).
    unstable: bool = False


class Rand(IRNode):
    """`rand()`: a uniform float in [0, 1), one draw per processor lane per evaluation.

    The stream is counter-based (`algspec.interp.random`): a hash of the sample's
    key, `site` (this call's number in the program), how often the site ran for
    that sample, and the lane's node indices; batching cannot change a value.
    """

    kind: Literal["rand"] = "rand"
    site: int
    dtype: DType = DType.FLOAT
    # Per edge of a `for (u, v) in edges(A)` loop: the loop's two ends (graph-level int
    # reads), which key the draw instead of the trip; None elsewhere (an edge round's
    # processors are its lanes already).
    pair: list[Expr] | None = None
    # `symmetric = true`: one draw per unordered pair, (u, v) and (v, u) draw alike.
    symmetric: bool = False

    @model_serializer(mode="wrap")
    def _hash_stable(self, handler):
        """Leave the edge-keying fields out at their defaults: files written before they
        existed keep their spec hashes (`algspec.sampling.identity` hashes the dumped IR)."""
        out = handler(self)
        if isinstance(out, dict):
            if self.pair is None:
                out.pop("pair", None)
            if not self.symmetric:
                out.pop("symmetric", None)
        return out


class Tuple(IRNode):
    """A lexicographic key `(a, b, ...)`: only the key of argmin/argmax (aggregation or combiner)."""

    kind: Literal["tuple"] = "tuple"
    args: list[Expr]
    dtype: DType = DType.FLOAT


Expr = (Const | Size | IndexVar | VarRef | Read | Unary | Binary | Cond | Call | Chain | Aggregate
        | Rand | Tuple)


for _m in (Read, Unary, Binary, Cond, Call, Aggregate, Tuple):
    _m.model_rebuild()
