"""The one typed IR of an algorithm, consumed by every interpreter.

`algspec.lowering` lowers the AST into this IR: names are resolved, every
expression carries its dtype, whole-array expressions (derived data, array
assignments) are rewritten pointwise over implicit index variables, and
surface sugar (`+=`, `else if`, a `forall` outside a `round`) is gone. The
batched interpreter (`algspec.interp`), the efficiency analysis
(`algspec.efficiency`) and lint (`algspec.lint`) all read this IR, so an
algorithm's semantics exist exactly once.

The base types and expression nodes live in `algspec.ir.expr` (scopes and
index variables are explained there); this module re-exports them, so
`ir.Read` and `ir.While` are one namespace. Here: statements, declarations,
the program and the IR queries every pass shares.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field, model_serializer

from algspec.diagnostics import Span
from algspec.ir.expr import (  # noqa: F401 - the expression layer, re-exported (`ir.Read`)
    Aggregate,
    Binary,
    Call,
    Chain,
    Cond,
    Const,
    DType,
    Expr,
    IndexVar,
    IRNode,
    Loc,
    Rand,
    Read,
    Size,
    Tuple,
    Unary,
    VarRef,
)


class Stage(str, Enum):
    INPUT = "input"
    OUTPUT = "output"
    HINT = "hint"
    STATE = "state"


# CLRS type names as dm-clrs spells them (specs.Type).
CLRS_TYPES = {
    "scalar": "scalar",
    "mask": "mask",
    "mask_one": "mask_one",
    "pointer": "pointer",
    "categorical": "categorical",
    "permutation": "should_be_permutation",
    "should_be_permutation": "should_be_permutation",
}

# Storage dtype of each CLRS type.
# `none`: the node index no node has, held by a `pointer?` or a graph int that `onehot`s a
# `mask_one?` (probes: a self-pointer, an all-zero mask)
NONE = -1

CLRS_DTYPES = {
    "scalar": DType.FLOAT,
    "mask": DType.BOOL,
    "mask_one": DType.BOOL,
    "pointer": DType.INT,
    "categorical": DType.INT,
    "should_be_permutation": DType.INT,
}


# ----------------------------------------------------------------- statements
class Target(IRNode):
    """An assignment target: a graph datum/local, `x[i]`, `A[i, j]`, or a whole array."""

    name: str
    loc: Loc
    local: bool = False
    indices: list[Expr] = Field(default_factory=list)
    whole: bool = False
    dtype: DType


class Stmt(IRNode):
    id: int = -1
    path: str | None = None  # the included file it comes from (a procedure's), else None


class Assign(Stmt):
    """Simultaneous assignment: all values (and target indices) are read first.

    Inside a round the writes are buffered and commit at the round's end;
    `combiner` names how concurrent writes to one place combine
    (min, max, sum, any, all, priority = lowest processor index wins).
    """

    kind: Literal["assign"] = "assign"
    targets: list[Target]
    values: list[Expr]
    combiner: str | None = None
    # `by argmin KEY`: the lexicographic key that picks the writer
    key: list[Expr] = Field(default_factory=list)
    # `x += e by sum` / `x -= e by sum`: `values` are the writers' increments (e, -e), added
    # to x once (fetch-and-add), not k copies of `x + e` summed.
    accumulate: bool = False


class Let(Stmt):
    kind: Literal["let"] = "let"
    name: str
    value: Expr


class Record(Stmt):
    """Record one hint frame (a round of the neural executor)."""

    kind: Literal["record"] = "record"


class Break(Stmt):
    kind: Literal["break"] = "break"


class If(Stmt):
    kind: Literal["if"] = "if"
    cond: Expr
    then: list[Statement]
    otherwise: list[Statement] = Field(default_factory=list)


class Loop(Stmt):
    """A loop that may declare `total bound T`: its trips summed over the whole run.

    `total` (in n and m, like `bound`) caps the trips of this source loop over one
    sample's run: every execution of it counts (inside outer loops, procedure
    calls, recursion), and the inlined copies of a procedure's loop share one
    counter (`loop_site`). The interpreter enforces it (R112). A loop without it
    serialises as before the field existed, so spec hashes (algspec.sampling.identity) of
    programs without `total` are unchanged; so does a range without `step`.
    """

    total: Expr | None = None

    @model_serializer(mode="wrap")
    def _without_absent_options(self, handler):
        out = handler(self)
        if isinstance(out, dict):
            for k in ("total", "step"):
                if k in out and out[k] is None:
                    del out[k]
        return out


class While(Loop):
    """A data-dependent loop; `bound` (in n and m) caps its iterations, checked at run time.

    With only `total bound T` declared, `bound` is T (one execution is part of the run).
    """

    kind: Literal["while"] = "while"
    cond: Expr
    bound: Expr
    whp: bool = False  # `bound EXPR whp`: holds with high probability (R107 if exceeded)
    body: list[Statement]


class ForRange(Loop):
    """`for var in start .. stop` (stop exclusive), optionally reversed, optionally stepped.

    `bound` is the worst-case trip count in n and m that the checks derived
    from `stop - start` (and the step), or the declared `bound`.

    `step` (an int expression in n and m; None: 1) visits start, start + step, ...
    while before `stop` in the step's direction (Python's `range(start, stop, step)`).
    A step of 0, or one pointing away from `stop` (start < stop with step < 0, or
    start > stop with step > 0), is a run-time fault (R111); equal ends run no trips.
    """

    kind: Literal["for_range"] = "for_range"
    var: str
    var_local: bool = True
    start: Expr
    stop: Expr
    reverse: bool = False
    bound: Expr
    step: Expr | None = None
    body: list[Statement]


class ForEdges(Loop):
    """`for (u, v) in edges(A)`: every pair with A[u, v] != 0, one trip each, sequentially.

    `select` is the edge-located bool expression of the edges (`A[@i, @j] != 0`),
    evaluated once when the loop starts (later writes to A do not change its list).
    The pairs come in row-major order, or in ascending `key` (an edge-located
    expression, evaluated once; ties in row-major order, or numpy's default
    `np.argsort` of the sample's key list with `unstable`). Samples have their own
    edge counts: a sample's loop ends after its own edges. `bound` (in n and m; m
    unless declared) caps the trips, checked at run time (R102).
    """

    kind: Literal["for_edges"] = "for_edges"
    vars: list[str]  # the two ends: source u, target v
    vars_local: list[bool] = Field(default_factory=lambda: [True, True])
    array: str  # the edge datum A (for messages)
    select: Expr
    key: Expr | None = None
    unstable: bool = False
    bound: Expr
    body: list[Statement]


class ForNodes(Stmt):
    """`for var in nodes by key`: every node once, in ascending `key` (ties by index).

    `unstable`: in the order of numpy's default `np.argsort` of the key,
    row by row (what dm-clrs's samplers do; its tie order is numpy's, not ours).
    """

    kind: Literal["for_nodes"] = "for_nodes"
    var: str
    var_local: bool = True
    key: Expr
    unstable: bool = False
    body: list[Statement]


class Forall(Stmt):
    """One processor per node (`vars` = [v]) or per edge of the interconnection graph ([v, u]).

    Only valid inside a `Round`. The guard masks the processors taking part.
    """

    kind: Literal["forall"] = "forall"
    vars: list[str]
    guard: Expr | None = None
    body: list[Statement]


class Round(Stmt):
    """A synchronous parallel round: every read sees the state before it; writes commit at its end."""

    kind: Literal["round"] = "round"
    body: list[Statement]


class Proc(Stmt):
    """An outside call of a recursive procedure: bind `params` (locals) to `args`, run `body`.

    Non-recursive procedures are inlined by the lowering and never reach the IR.
    A recursive one is this statement at its outside call site; its recursive
    calls inside `body` are `Recur` statements naming it. Each invocation is a
    new frame of the procedure's locals (a per-lane call stack in the
    interpreter). `depth` caps the stack depth and `calls` the invocations per
    outside call (both in n and m): the interpreter enforces them (R108) and
    the efficiency analysis counts `calls` times the body, like a loop bound.
    """

    kind: Literal["proc"] = "proc"
    name: str  # unique per outside call site
    params: list[str]
    args: list[Expr]
    depth: Expr
    calls: Expr
    locals: list[str] = Field(default_factory=list)  # every local of the body (a frame), parameters first
    body: list[Statement]


class Recur(Stmt):
    """A recursive call of the enclosing `Proc` named `name`, with new arguments."""

    kind: Literal["recur"] = "recur"
    name: str
    args: list[Expr]


Statement = (Assign | Let | Record | Break | If | While | ForRange | ForEdges | ForNodes | Forall
             | Round | Proc | Recur)


# --------------------------------------------------------------- declarations
class GeneratorSpec(BaseModel):
    name: str
    # A parameter is a constant (a number, a boolean, or a name such as a graph family)
    # or a size expression in n, evaluated when sampling.
    params: dict[str, float | int | bool | str | Expr] = {}


class DataDecl(IRNode):
    """One datum. `clrs_type` is None for internal state (stage STATE)."""

    name: str
    stage: Stage
    loc: Loc
    clrs_type: str | None = None
    categories: int | None = None
    dtype: DType
    derived: Expr | None = None
    initial: Expr | None = None
    generator: GeneratorSpec | None = None
    pad: Expr | None = None
    masked: Expr | None = None  # bool, pointwise at `loc`: where the probe is MASKED (-1)
    implicit: bool = False  # added by the compiler (pos, adj)
    private: bool = False  # an input (generated or a view) that stays out of the CLRS spec
    clrs_name: str | None = None  # its name in the CLRS spec when not `name` (`as m`)
    # `pointer?`/`mask_one?`: may hold `none` (a self-pointer, an all-zero mask in the
    # probe); left out of the spec hash when false (`identity`)
    optional: bool = False

    @property
    def probed(self) -> bool:
        """In the CLRS spec: inputs (except private ones), outputs and hints."""
        return self.stage != Stage.STATE and not self.private

    @property
    def spec_name(self) -> str:
        """The name of its probe in the CLRS spec, trajectories and Feedback."""
        return self.clrs_name or self.name


class Graph(BaseModel):
    kind: Literal["complete", "empty", "path", "star", "ring", "ring directed", "input"]
    input: str | None = None  # edge-mask datum holding the graph when kind == "input"
    mask_name: str | None = None  # the edge-mask input processors read (None: complete)


class Program(BaseModel):
    name: str
    path: str = "<string>"
    nodes: Expr
    graph: Graph
    decls: list[DataDecl]
    body: list[Statement]
    num_statements: int = 0

    def decl(self, name: str) -> DataDecl:
        for d in self.decls:
            if d.name == name:
                return d
        raise KeyError(name)

    def spec(self) -> dict[str, tuple[str, str, str]]:
        """The CLRS spec: name -> (stage, location, type), in declaration order."""
        return {d.spec_name: (d.stage.value, d.loc.value, d.clrs_type)
                for d in self.decls if d.probed}


for _m in (Target, Assign, Let, If, Loop, While, ForRange, ForEdges, ForNodes, Forall, Round,
           Proc, Recur, DataDecl, Program):
    _m.model_rebuild()


def walk_statements(stmts: list[Statement]):
    """Yield every statement, depth first, with the list of its enclosing statements."""
    stack: list = []

    def rec(ss):
        for s in ss:
            yield s, list(stack)
            children = []
            if isinstance(s, If):
                children = [s.then, s.otherwise]
            elif isinstance(s, (While, ForRange, ForEdges, ForNodes, Forall, Round, Proc)):
                children = [s.body]
            stack.append(s)
            for c in children:
                yield from rec(c)
            stack.pop()

    yield from rec(stmts)


def loop_site(s: Stmt) -> tuple:
    """The source loop a loop statement comes from: its file and span.

    A procedure is inlined at each call site, so one source loop may be several IR
    statements (several ids); a `total bound` counts the trips of the source loop,
    all copies together. A statement without a source position (built by hand) is
    its own site.
    """
    if s.span == Span():
        return ("#", s.id)
    sp = s.span
    return (s.path, sp.line, sp.column, sp.end_line, sp.end_column)


# ------------------------------------------------------------------ IR queries
# The one copy of "what is inside this expression" and "which data does it read";
# checks, the interpreter, lint and the efficiency analysis all use these.
_LIST_FIELDS = ("indices", "args")
_EXPR_FIELDS = ("operand", "left", "right", "cond", "then", "otherwise", "of", "filter", "body",
                "default")

LOC_RANK = {Loc.GRAPH: 0, Loc.NODE: 1, Loc.EDGE: 2}


def rank(loc: Loc) -> int:
    """Number of node indices of data at `loc`: graph 0, node 1, edge 2."""
    return LOC_RANK[loc]


_CHILD_FIELDS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _child_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The list and expression fields a node class has (a missing attribute costs a
    slow pydantic `__getattr__`, and the analyses walk expressions many times)."""
    f = _CHILD_FIELDS.get(cls)
    if f is None:
        names = getattr(cls, "model_fields", {})
        f = (tuple(x for x in _LIST_FIELDS if x in names),
             tuple(x for x in _EXPR_FIELDS if x in names))
        _CHILD_FIELDS[cls] = f
    return f


def children(e: Expr) -> list[Expr]:
    """The direct sub-expressions of `e`, in a fixed order (indices/args first)."""
    out: list[Expr] = []
    lists, exprs = _child_fields(type(e))
    for f in lists:
        out.extend(getattr(e, f) or [])
    for f in exprs:
        sub = getattr(e, f)
        if isinstance(sub, IRNode) and not isinstance(sub, Stmt):
            out.append(sub)
    return out


def reads_state(e: Expr) -> bool:
    """Whether an expression reads data (not only constants, sizes and indices).

    A whole-array assignment whose value does not (`x = false`, `s = index`) is a
    reset: it carries no information, so it is no work, statically or measured.
    """
    return any(isinstance(x, (Read, VarRef, Aggregate, Chain, Rand)) for x in walk_expr(e))


def walk_expr(e: Expr):
    """Yield an expression and all its sub-expressions, depth first."""
    yield e
    for c in children(e):
        yield from walk_expr(c)


def read_name(e: Expr) -> str | None:
    """The declared datum `e` itself reads (a Read, a non-local VarRef, a Chain's order)."""
    if isinstance(e, Read) or (isinstance(e, VarRef) and not e.local):
        return e.name
    if isinstance(e, Chain):
        return e.order
    return None


def reads(x: Expr | Statement | list[Statement] | None) -> set[str]:
    """The declared data an expression, a statement (with its body) or a block reads.

    Locals and index variables are not data; target indices of a write are reads.
    """
    if x is None:
        return set()
    if isinstance(x, list):
        out: set[str] = set()
        for s, _ in walk_statements(x):
            for e in statement_exprs(s):
                out |= reads(e)
            if isinstance(s, Assign) and s.accumulate:  # `x += e by sum` adds to x: reads x
                out |= {t.name for t in s.targets if not t.local}
        return out
    if isinstance(x, Stmt):
        return reads([x])
    return {nm for sub in walk_expr(x) if (nm := read_name(sub)) is not None}


def unread_inputs(prog: Program, given: set[str]) -> set[str]:
    """Generated inputs nothing reads once the views of the inputs in `given` are supplied.

    A caller may give a derived input's values directly (dm-clrs's `s` and `f`
    in place of `min(a, b)`, `max(a, b)` of private draws); the draws that only
    fed such views are then not needed.
    """
    needed = reads(prog.body)
    for d in prog.decls:
        if d.stage == Stage.INPUT and d.name in given:
            continue
        for e in (d.derived, d.initial, d.pad, d.masked):
            needed |= reads(e)
    return {d.name for d in prog.decls if d.generator is not None and d.name not in given and
            d.name not in needed}


def free_ivars(e: Expr) -> set[str]:
    """Index variables an expression mentions that it does not bind itself."""
    if isinstance(e, IndexVar):
        return {e.name}
    out: set[str] = set()
    for c in children(e):
        out |= free_ivars(c)
    if isinstance(e, Aggregate):
        out.discard(e.var)
        if e.of is not None:
            out |= free_ivars(e.of)
        if e.default is not None:
            out |= free_ivars(e.default)
    return out


def statement_exprs(s: Statement) -> list[Expr]:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    if isinstance(s, Assign):
        return [*s.values, *(i for t in s.targets for i in t.indices), *s.key]
    if isinstance(s, Let):
        return [s.value]
    if isinstance(s, (If, While)):
        return [s.cond]
    if isinstance(s, ForRange):
        return [s.start, s.stop] + ([s.step] if s.step is not None else [])
    if isinstance(s, ForEdges):
        return [s.select] + ([s.key] if s.key is not None else [])
    if isinstance(s, ForNodes):
        return [s.key]
    if isinstance(s, Forall):
        return [s.guard] if s.guard is not None else []
    if isinstance(s, (Proc, Recur)):
        return list(s.args)
    return []
