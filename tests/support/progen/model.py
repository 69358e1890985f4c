"""The program model of the random-program generator, and its rendering to `.alg` text.

This model is deliberately separate from algspec's AST and IR: the generator
builds it, `render` prints it as source for algspec, and the reference
evaluator (`tests/support/progen/reference.py`) interprets it directly, so a bug in
algspec's parser, checks or interpreter cannot hide in a shared data structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# ------------------------------------------------------------------ expressions
# Kinds of values: "int", "float", "bool".


@dataclass(frozen=True)
class Const:
    value: int | float | bool


@dataclass(frozen=True)
class Size:
    which: str  # "n", "N" or "m"


@dataclass(frozen=True)
class Var:
    """A bound name (processor, aggregation or loop variable, `let`, `index`) or a graph datum."""

    name: str


@dataclass(frozen=True)
class Read:
    """A node or edge datum at explicit indices; no indices: pointwise in a view."""

    name: str
    idx: tuple = ()


@dataclass(frozen=True)
class Un:
    op: str  # "-" or "not"
    x: Expr


@dataclass(frozen=True)
class Bin:
    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Cond:
    c: Expr
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Call:
    f: str
    args: tuple


@dataclass(frozen=True)
class Whole:
    """`transpose(E)`, `adjacency(E)`, `adjacency(transpose(E))` or `onehot(x)` in a view."""

    f: str  # "transpose", "adjacency", "adjacency_t", "onehot"
    arg: str | Expr


@dataclass(frozen=True)
class Agg:
    op: str  # min max sum any all count
    var: str
    domain: str  # nodes, incoming, outgoing
    of: Expr | None
    body: Expr
    filt: Expr | None = None
    default: Expr | None = None


Expr = Const | Size | Var | Read | Un | Bin | Cond | Call | Whole | Agg


# ------------------------------------------------------------------ statements
@dataclass
class Target:
    name: str
    idx: tuple | None = None  # None: a graph datum, or a whole node/edge array


@dataclass
class Assign:
    targets: list[Target]
    values: list[Expr]
    op: str = "="  # "=", "+=", "-=", "*="
    comb: str | None = None
    order: int = 0  # pre-order number: commit order of a round's write groups


@dataclass
class Let:
    name: str
    value: Expr


@dataclass
class Record:
    pass


@dataclass
class Break:
    pass


@dataclass
class If:
    cond: Expr
    then: list
    els: list = field(default_factory=list)


@dataclass
class ForRange:
    var: str
    start: Expr
    stop: Expr  # static: in n, N, m and constants
    reverse: bool
    body: list


@dataclass
class ForNodes:
    """`for var in nodes by key`: ascending key (a pointwise node expression), ties by index."""

    var: str
    key: Expr
    body: list


@dataclass
class While:
    cond: Expr
    bound: Expr  # static
    body: list


@dataclass
class Round:
    body: list


@dataclass
class Forall:
    vars: tuple  # ("v",) or ("v", "u")
    guard: Expr | None
    body: list


Stmt = Assign | Let | Record | Break | If | ForRange | ForNodes | While | Round | Forall


# ------------------------------------------------------------------ declarations
@dataclass
class Decl:
    stage: str  # input output hint state
    loc: str  # node edge graph
    name: str
    type: str  # scalar mask mask_one pointer categorical int float bool
    categories: int | None = None
    generator: str | None = None  # rendered generator call, e.g. "uniform(low = 0.0, high = 2.0)"
    pad: Expr | None = None
    view: Expr | None = None  # `= expr`: derived data
    initial: Expr | None = None  # `:= expr`

    @property
    def kind(self) -> str:
        if self.type in ("scalar", "float"):
            return "float"
        if self.type in ("mask", "mask_one", "bool"):
            return "bool"
        return "int"

    @property
    def limit(self) -> str | int | None:
        """Values must lie in [0, limit): "N" for pointers, K for categoricals."""
        if self.type == "pointer":
            return "N"
        if self.type == "categorical":
            return self.categories
        return None


@dataclass
class Program:
    nodes: str  # "n" or "n + 1"
    graph: str  # complete empty path star input
    decls: list[Decl]
    body: list
    name: str = "prog"

    def decl(self, name: str) -> Decl:
        return next(d for d in self.decls if d.name == name)

    @property
    def primary_inputs(self) -> list[Decl]:
        return [d for d in self.decls if d.generator is not None]


# ------------------------------------------------------------------ rendering
def render_expr(e: Expr) -> str:
    if isinstance(e, Const):
        v = e.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            s = repr(abs(v))
            return f"(-{s})" if v < 0 or (v == 0 and str(v).startswith("-")) else s
        return f"(-{-v})" if v < 0 else str(v)
    if isinstance(e, Size):
        return e.which
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Read):
        if not e.idx:
            return e.name
        return f"{e.name}[{', '.join(render_expr(i) for i in e.idx)}]"
    if isinstance(e, Un):
        return f"(not {render_expr(e.x)})" if e.op == "not" else f"(-{render_expr(e.x)})"
    if isinstance(e, Bin):
        return f"({render_expr(e.a)} {e.op} {render_expr(e.b)})"
    if isinstance(e, Cond):
        return f"({render_expr(e.a)} if {render_expr(e.c)} else {render_expr(e.b)})"
    if isinstance(e, Call):
        return f"{e.f}({', '.join(render_expr(a) for a in e.args)})"
    if isinstance(e, Whole):
        if e.f == "onehot":
            return f"onehot({render_expr(e.arg)})"
        if e.f == "adjacency_t":
            return f"adjacency(transpose({e.arg}))"
        return f"{e.f}({e.arg})"
    if isinstance(e, Agg):
        dom = "nodes" if e.domain == "nodes" else f"{e.domain}({render_expr(e.of)})"
        s = f"{e.op}({render_expr(e.body)} for {e.var} in {dom}"
        if e.filt is not None:
            s += f" if {render_expr(e.filt)}"
        if e.default is not None:
            s += f", default = {render_expr(e.default)}"
        return s + ")"
    raise TypeError(e)


def _render_target(t: Target) -> str:
    if t.idx is None:
        return t.name
    return f"{t.name}[{', '.join(render_expr(i) for i in t.idx)}]"


def render_block(stmts: list, indent: int) -> list[str]:
    pad = "    " * indent
    out: list[str] = []
    for s in stmts:
        if isinstance(s, Assign):
            line = (", ".join(_render_target(t) for t in s.targets) + f" {s.op} " +
                    ", ".join(render_expr(v) for v in s.values))
            if s.comb:
                line += f" by {s.comb}"
            out.append(pad + line)
        elif isinstance(s, Let):
            out.append(f"{pad}let {s.name} = {render_expr(s.value)}")
        elif isinstance(s, Record):
            out.append(pad + "record")
        elif isinstance(s, Break):
            out.append(pad + "break")
        elif isinstance(s, If):
            out.append(f"{pad}if {render_expr(s.cond)} {{")
            out += render_block(s.then, indent + 1)
            if s.els:
                out.append(pad + "} else {")
                out += render_block(s.els, indent + 1)
            out.append(pad + "}")
        elif isinstance(s, ForRange):
            rev = "reversed " if s.reverse else ""
            out.append(f"{pad}for {s.var} in {rev}{render_expr(s.start)} .. "
                       f"{render_expr(s.stop)} {{")
            out += render_block(s.body, indent + 1)
            out.append(pad + "}")
        elif isinstance(s, ForNodes):
            out.append(f"{pad}for {s.var} in nodes by {render_expr(s.key)} {{")
            out += render_block(s.body, indent + 1)
            out.append(pad + "}")
        elif isinstance(s, While):
            out.append(f"{pad}while {render_expr(s.cond)} bound {render_expr(s.bound)} {{")
            out += render_block(s.body, indent + 1)
            out.append(pad + "}")
        elif isinstance(s, Round):
            out.append(pad + "round {")
            out += render_block(s.body, indent + 1)
            out.append(pad + "}")
        elif isinstance(s, Forall):
            guard = f" where {render_expr(s.guard)}" if s.guard is not None else ""
            out.append(f"{pad}forall {', '.join(s.vars)}{guard} {{")
            out += render_block(s.body, indent + 1)
            out.append(pad + "}")
        else:
            raise TypeError(s)
    return out


def render_decl(d: Decl) -> str:
    t = f"categorical({d.categories})" if d.type == "categorical" else d.type
    s = f"{d.stage} {d.loc} {d.name}: {t}"
    if d.generator is not None:
        s += f" ~ {d.generator}"
        if d.pad is not None:
            s += f" pad {render_expr(d.pad)}"
    elif d.view is not None:
        s += f" = {render_expr(d.view)}"
    elif d.initial is not None:
        s += f" := {render_expr(d.initial)}"
    return s


def render(p: Program) -> str:
    graph = "input adj" if p.graph == "input" else p.graph
    lines = [f"algorithm {p.name}", f"nodes {p.nodes}", f"graph {graph}"]
    lines += [render_decl(d) for d in p.decls]
    lines += render_block(p.body, 0)
    return "\n".join(lines) + "\n"


def walk_stmts(stmts: list):
    """Every statement, pre-order."""
    for s in stmts:
        yield s
        for sub in ("then", "els", "body"):
            if hasattr(s, sub):
                yield from walk_stmts(getattr(s, sub))


def number_assigns(p: Program) -> None:
    """Give each assignment its pre-order number (the order a round commits its writes)."""
    for k, s in enumerate(walk_stmts(p.body)):
        if isinstance(s, Assign):
            s.order = k


def mentions(e, name: str) -> bool:
    """Whether expression `e` refers to the bound name `name`."""
    if isinstance(e, Var):
        return e.name == name
    if isinstance(e, (Const, Size)) or e is None:
        return False
    if isinstance(e, Read):
        return any(mentions(i, name) for i in e.idx)
    if isinstance(e, Un):
        return mentions(e.x, name)
    if isinstance(e, Bin):
        return mentions(e.a, name) or mentions(e.b, name)
    if isinstance(e, Cond):
        return mentions(e.c, name) or mentions(e.a, name) or mentions(e.b, name)
    if isinstance(e, Call):
        return any(mentions(a, name) for a in e.args)
    if isinstance(e, Whole):
        return not isinstance(e.arg, str) and mentions(e.arg, name)
    if isinstance(e, Agg):
        return any(mentions(x, name) for x in (e.of, e.body, e.filt, e.default))
    raise TypeError(e)
