"""The syntax tree of a `.alg` file, close to what was written, with source spans.

Names are not resolved here; `algspec.lowering` resolves them and lowers the
tree into the IR (`algspec.ir`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from algspec.diagnostics import Span


class Node(BaseModel):
    span: Span = Span()


# ---------------------------------------------------------------- expressions
class Num(Node):
    kind: Literal["num"] = "num"
    value: float | int | bool


class Name(Node):
    kind: Literal["name"] = "name"
    name: str


class IndexExpr(Node):
    kind: Literal["index"] = "index"
    name: str
    indices: list[Expr]


class UnaryExpr(Node):
    kind: Literal["unary"] = "unary"
    op: str  # "-" or "not"
    operand: Expr


class BinaryExpr(Node):
    kind: Literal["binary"] = "binary"
    op: str  # + - * / // % < <= > >= == != and or
    left: Expr
    right: Expr


class CondExpr(Node):
    kind: Literal["cond"] = "cond"
    cond: Expr
    then: Expr
    otherwise: Expr


class CallExpr(Node):
    kind: Literal["call"] = "call"
    func: str
    args: list[Expr]
    # `name = value` arguments after the positional ones, in source order (`rand(symmetric =
    # true)`); only `rand` and `rand_int` take any
    kwargs: list[tuple[str, Expr]] = []


class AggExpr(Node):
    kind: Literal["agg"] = "agg"
    op: str  # min max sum any all count argmin argmax
    body: Expr
    var: str
    domain: Literal["nodes", "incoming", "outgoing"]
    of: Expr | None = None
    filter: Expr | None = None
    default: Expr | None = None
    unstable: bool = False  # `argmin(k for x in nodes if f unstable)`: np.argsort(k)'s order


class TupleExpr(Node):
    """`(a, b, ...)`: a lexicographic key, only for argmin/argmax."""

    kind: Literal["tuple"] = "tuple"
    items: list[Expr]


Expr = (Num | Name | IndexExpr | UnaryExpr | BinaryExpr | CondExpr | CallExpr | AggExpr | TupleExpr)


# ----------------------------------------------------------------- statements
class LValue(Node):
    name: str
    indices: list[Expr] = []


class AssignStmt(Node):
    kind: Literal["assign"] = "assign"
    targets: list[LValue]
    op: str  # = += -= *=
    values: list[Expr]
    combiner: str | None = None
    combiner_span: Span | None = None
    combiner_key: Expr | None = None  # `by argmin KEY`


class LetStmt(Node):
    kind: Literal["let"] = "let"
    name: str
    value: Expr


class RecordStmt(Node):
    kind: Literal["record"] = "record"


class BreakStmt(Node):
    kind: Literal["break"] = "break"


class IfStmt(Node):
    kind: Literal["if"] = "if"
    cond: Expr
    then: list[Stmt]
    otherwise: list[Stmt] = []


class WhileStmt(Node):
    kind: Literal["while"] = "while"
    cond: Expr
    bound: Expr | None
    whp: bool = False  # `bound EXPR whp`: holds with high probability
    total: Expr | None = None  # `total bound T`: trips summed over the whole run
    body: list[Stmt]


class ForRangeStmt(Node):
    kind: Literal["for_range"] = "for_range"
    var: str
    start: Expr
    stop: Expr
    reverse: bool = False
    bound: Expr | None = None  # `for x in a .. b bound B`: data-dependent ends, B trips at most
    step: Expr | None = None  # `for x in a .. b step s`: a, a + s, ... before b (s < 0: down)
    total: Expr | None = None  # `total bound T`: trips summed over the whole run
    body: list[Stmt]


class ForEdgesStmt(Node):
    """`for (u, v) in edges(A) [by KEY [unstable]] [bound B] [total bound T] { ... }`."""

    kind: Literal["for_edges"] = "for_edges"
    vars: list[str]
    var_spans: list[Span] = []
    func: str  # `edges` (anything else is reported by the lowering)
    func_span: Span = Span()
    array: str
    array_span: Span = Span()
    key: Expr | None = None  # `by KEY`: an edge expression, ascending
    unstable: bool = False
    bound: Expr | None = None  # worst-case trips (default: m)
    total: Expr | None = None  # `total bound T`: trips summed over the whole run
    body: list[Stmt]


class ForNodesStmt(Node):
    kind: Literal["for_nodes"] = "for_nodes"
    var: str
    key: Expr
    unstable: bool = False  # `by key unstable`: numpy's default argsort order
    body: list[Stmt]


class RoundStmt(Node):
    kind: Literal["round"] = "round"
    body: list[Stmt]


class ForallStmt(Node):
    kind: Literal["forall"] = "forall"
    vars: list[str]
    guard: Expr | None = None
    body: list[Stmt]
    var_spans: list[Span] = []  # where each processor variable is named


class CallStmt(Node):
    """`f(a, b)` as a statement: a call of a procedure."""

    kind: Literal["call_stmt"] = "call_stmt"
    name: str
    args: list[Expr]


class ReturnStmt(Node):
    """`return EXPR`: the value of the procedure it ends (the last statement of its paths)."""

    kind: Literal["return"] = "return"
    value: Expr


class ProcDef(Node):
    """`proc f(a, b) [depth D] [calls C] { ... }`: a procedure (only at the top level)."""

    kind: Literal["proc"] = "proc"
    name: str
    params: list[str]
    depth: Expr | None = None
    calls: Expr | None = None
    body: list[Stmt]
    param_spans: list[Span] = []  # where each parameter is named
    origin: str | None = None  # the file it was included from (None: this file)


class IncludeStmt(Node):
    """`include "lib.alg"`: the procedures of another file, relative to this one."""

    kind: Literal["include"] = "include"
    path: str


Stmt = (AssignStmt | LetStmt | RecordStmt | BreakStmt | IfStmt | WhileStmt | ForRangeStmt | ForEdgesStmt | ForNodesStmt
        | RoundStmt | ForallStmt | CallStmt | ReturnStmt | ProcDef | IncludeStmt)


# --------------------------------------------------------------- declarations
class GeneratorCall(Node):
    name: str
    params: dict[str, Expr] = {}
    duplicates: list[str] = []


class Decl(Node):
    stage: Literal["input", "output", "hint", "state"]
    location: Literal["node", "edge", "graph"]
    name: str
    name_span: Span = Span()
    type_name: str
    type_arg: int | None = None
    optional: bool = False  # `pointer?`/`mask_one?`: may hold `none`
    derived: Expr | None = None  # `= expr`: a view evaluated at every frame
    initial: Expr | None = None  # `:= expr` (or `= expr` on state): initial value
    generator: GeneratorCall | None = None
    pad: Expr | None = None
    masked: Expr | None = None  # `masked where COND`: probe entries that are CLRS's MASKED (-1)
    private: bool = False  # `private node a: ...`: an input kept out of the CLRS spec
    index_names: list[str] = []  # `w[u, v]`: names of the datum's indices in its definition
    index_span: Span = Span()
    spec_name: str | None = None  # `as m`: its name in the CLRS spec (default: `name`)
    spec_name_span: Span = Span()


class Program(Node):
    name: str
    name_span: Span = Span()
    nodes: Expr
    graph_kind: str  # complete | empty | path | star | ring | ring directed | input
    graph_input: str | None = None
    graph_span: Span = Span()
    decls: list[Decl] = []
    body: list[Stmt] = []


for _m in (IndexExpr, TupleExpr, UnaryExpr, BinaryExpr, CondExpr, CallExpr, AggExpr, AssignStmt, LValue,
           IfStmt, WhileStmt, ForRangeStmt, ForEdgesStmt, ForNodesStmt, RoundStmt, ForallStmt, LetStmt,
           CallStmt, ReturnStmt, ProcDef, IncludeStmt,
           GeneratorCall, Decl, Program):
    _m.model_rebuild()
