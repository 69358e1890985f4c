"""Checks on the AST and its lowering into the IR.

Names, locations, types, stages, loop bounds and write conflicts are checked
here; every problem becomes a `Diagnostic` with a code (see `CODES`). A file
that passes is lowered into `algspec.ir.Program`.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field

from algspec import ir
from algspec.diagnostics import AlgError, Diagnostic, Span
from algspec.generators import GENERATORS, validate_params
from algspec.language import ast

CODES = {
    "E001": "unexpected character",
    "E002": "syntax error",
    "E003": "empty file",
    "E004": "expression nested too deeply",
    "E101": "duplicate declaration",
    "E102": "unknown type",
    "E103": "type not allowed for this stage or location",
    "E104": "unknown generator",
    "E105": "bad generator parameters",
    "E106": "input without a generator or a definition",
    "E107": "derived data refers to something it cannot",
    "E108": "bad interconnection graph",
    "E109": "reserved name",
    "E201": "location mismatch (array used as a value or vice versa)",
    "E202": "wrong number of indices",
    "E203": "index is not an integer",
    "E204": "pointer used as a scalar",
    "E205": "type mismatch",
    "E206": "unknown name",
    "E207": "unknown function or wrong arguments",
    "E301": "write to an input",
    "E302": "write to derived data",
    "E303": "assignment shape mismatch",
    "E401": "concurrent write without a combiner",
    "E402": "unknown combiner",
    "E403": "combiner outside a parallel update",
    "E501": "statement not allowed inside a round",
    "E502": "forall outside a round body or nested",
    "E503": "break outside a loop",
    "E601": "loop bound is not an expression in n and m",
    "E602": "range is not statically bounded",
    "E604": "loop without a bound",
}

COMBINERS = {"min", "max", "sum", "any", "all", "priority"}
POINTWISE_FUNCS = {
    "abs": 1, "floor": 1, "ceil": 1, "sqrt": 1, "log2": 1, "float": 1, "int": 1,
    "min": 2, "max": 2,
}
WHOLE_FUNCS = {"onehot", "adjacency", "transpose", "chain"}
PROBED_TYPES = set(ir.CLRS_TYPES)
STATE_TYPES = {"int": ir.DType.INT, "float": ir.DType.FLOAT, "bool": ir.DType.BOOL}
RESERVED = {"n", "N", "m", "index", "inf", "pos", "nodes", "true", "false"}
_NUMERIC = {ir.DType.INT, ir.DType.FLOAT}


class _Abort(Exception):
    """Stop lowering one expression/statement after a diagnostic was emitted."""


@dataclass
class _Scope:
    """What an expression can see: bound index variables and locals."""

    index_vars: list[str] = field(default_factory=list)
    implicit: bool = False  # whole-array context: bare node/edge names read pointwise
    locals: dict[str, tuple[ir.DType, frozenset[int]]] = field(default_factory=dict)
    in_forall: bool = False
    in_round: bool = False
    loop_depth: int = 0
    derived_of: str | None = None  # lowering the definition of this datum
    derived_stage: str | None = None

    def child(self, **kw) -> _Scope:
        s = _Scope(list(self.index_vars), self.implicit, dict(self.locals), self.in_forall,
                   self.in_round, self.loop_depth, self.derived_of, self.derived_stage)
        for k, v in kw.items():
            setattr(s, k, v)
        return s


class Checker:
    def __init__(self, prog: ast.Program, path: str):
        self.prog = prog
        self.path = path
        self.diags: list[Diagnostic] = []
        self.decls: dict[str, ir.DataDecl] = {}
        self.decl_ast: dict[str, ast.Decl] = {}
        self.next_id = 0

    # ------------------------------------------------------------ reporting
    def err(self, code: str, message: str, span: Span, help: str | None = None) -> None:
        self.diags.append(Diagnostic(code=code, message=message, span=span, help=help,
                                     path=self.path))

    def fail(self, code: str, message: str, span: Span, help: str | None = None):
        self.err(code, message, span, help)
        raise _Abort()

    # ------------------------------------------------------------ top level
    def run(self) -> ir.Program:
        p = self.prog
        nodes = self.static_expr(p.nodes, "node count", allow_m=False)
        if nodes is not None and nodes.dtype != ir.DType.INT:
            self.err("E205", f"the node count must be an integer, not {nodes.dtype.value}",
                     p.nodes.span, help="use `//` for integer division, e.g. `nodes n // 2 + 1`")
        self.declare_all()
        graph = self.lower_graph()
        body = self.lower_block(p.body, _Scope())
        if self.diags:
            raise AlgError(self.diags)
        decls = list(self.decls.values())
        return ir.Program(name=p.name, path=self.path, nodes=nodes or ir.Size(which="n"),
                          graph=graph, decls=decls, body=body, num_statements=self.next_id)

    def declare_all(self) -> None:
        pos = ir.DataDecl(name="pos", stage=ir.Stage.INPUT, loc=ir.Loc.NODE, clrs_type="scalar",
                          dtype=ir.DType.FLOAT, implicit=True,
                          derived=ir.Binary(op="/", dtype=ir.DType.FLOAT,
                                            left=ir.IndexVar(name="@i", axis=0),
                                            right=ir.Size(which="N")))
        self.decls["pos"] = pos
        # First pass: names, types, stages (so definitions may refer to later decls).
        for d in self.prog.decls:
            if d.name in RESERVED:
                self.err("E109", f"`{d.name}` is a reserved name", d.name_span,
                         help="`pos` is added automatically, as in CLRS; n, N, m and index "
                              "are built in")
                continue
            if d.name in self.decls or d.name in self.decl_ast:
                self.err("E101", f"`{d.name}` is declared twice", d.name_span)
                continue
            decl = self.declare(d)
            if decl is not None:
                self.decls[d.name] = decl
                self.decl_ast[d.name] = d
        # Implicit interconnection-graph input, after the declared inputs.
        if self.prog.graph_kind in ("empty", "path", "star"):
            if "adj" in self.decls:
                self.err("E108", "`adj` is the implicit interconnection-graph input of a "
                         f"`{self.prog.graph_kind}` graph", self.decl_ast["adj"].name_span,
                         help="rename it, or use `graph input adj`")
            else:
                adj = ir.DataDecl(name="adj", stage=ir.Stage.INPUT, loc=ir.Loc.EDGE,
                                  clrs_type="mask", dtype=ir.DType.BOOL, implicit=True,
                                  derived=_builtin_graph(self.prog.graph_kind))
                items = list(self.decls.items())
                last_input = max(k for k, (_, dd) in enumerate(items) if dd.stage == ir.Stage.INPUT)
                items.insert(last_input + 1, ("adj", adj))
                self.decls = dict(items)
        # Second pass: definitions, initialisers, generators.
        for name, d in self.decl_ast.items():
            with suppress(_Abort):  # reported already; check the other declarations too
                self.define(self.decls[name], d)
        self.check_view_cycles()

    def check_view_cycles(self) -> None:
        """Views may read views, but not in a circle."""
        def deps(d: ir.DataDecl) -> set[str]:
            out = set()
            for x in ir.walk_expr(d.derived):
                nm = x.order if isinstance(x, ir.Chain) else getattr(x, "name", None)
                if isinstance(x, (ir.Read, ir.VarRef, ir.Chain)) and nm in self.decls and \
                        self.decls[nm].derived is not None:
                    out.add(nm)
            return out
        views = {k: deps(d) for k, d in self.decls.items() if d.derived is not None}
        state: dict[str, int] = {}

        def visit(k: str, path: list[str]) -> None:
            state[k] = 1
            for j in views.get(k, ()):
                if state.get(j) == 1:
                    cycle = path[path.index(j):] + [j] if j in path else [k, j]
                    self.err("E107", "views defined from each other: " + " -> ".join(cycle),
                             self.decl_ast[j].span if j in self.decl_ast else Span())
                    raise _Abort()
                if state.get(j) is None:
                    visit(j, path + [j])
            state[k] = 2

        for k in views:
            if state.get(k) is None:
                try:
                    visit(k, [k])
                except _Abort:
                    return

    def declare(self, d: ast.Decl) -> ir.DataDecl | None:
        stage = ir.Stage(d.stage)
        loc = ir.Loc(d.location)
        if stage == ir.Stage.STATE:
            if d.type_name not in STATE_TYPES:
                self.err("E102" if d.type_name not in PROBED_TYPES else "E103",
                         f"state `{d.name}` has type `{d.type_name}`; state is int, float or bool",
                         d.span, help="CLRS types (scalar, mask, pointer, ...) are for "
                                      "input, output and hint data")
                return None
            return ir.DataDecl(name=d.name, stage=stage, loc=loc, dtype=STATE_TYPES[d.type_name],
                               span=d.span)
        if d.type_name not in PROBED_TYPES:
            self.err("E102", f"unknown type `{d.type_name}`", d.span,
                     help="one of: " + ", ".join(sorted(PROBED_TYPES)))
            return None
        ctype = ir.CLRS_TYPES[d.type_name]
        if ctype == "categorical" and not d.type_arg:
            self.err("E103", "categorical needs its number of categories: categorical(K)", d.span)
            return None
        if ctype != "categorical" and d.type_arg is not None:
            self.err("E103", f"`{d.type_name}` takes no argument", d.span)
            return None
        if ctype == "mask_one" and loc == ir.Loc.GRAPH:
            self.err("E103", "mask_one is a node or edge type", d.span,
                     help="a graph-level choice of one node is a graph `pointer`")
            return None
        if ctype == "should_be_permutation" and loc != ir.Loc.NODE:
            self.err("E103", "a permutation is a node-level type", d.span)
            return None
        return ir.DataDecl(name=d.name, stage=stage, loc=loc, clrs_type=ctype,
                           categories=d.type_arg, dtype=ir.CLRS_DTYPES[ctype], span=d.span)

    def define(self, decl: ir.DataDecl, d: ast.Decl) -> None:
        implicit_scope = _Scope(index_vars=_implicit_vars(decl.loc), implicit=True,
                                derived_of=decl.name, derived_stage=d.stage)
        if d.generator is not None:
            if decl.stage != ir.Stage.INPUT:
                self.fail("E106", f"only inputs are generated; `{decl.name}` is {d.stage}",
                          d.generator.span)
            gen = GENERATORS.get(d.generator.name)
            if gen is None:
                self.fail("E104", f"unknown generator `{d.generator.name}`", d.generator.span,
                          help="one of: " + ", ".join(sorted(GENERATORS)))
            if gen.location != decl.loc.value:
                self.fail("E104", f"generator `{gen.name}` makes {gen.location} data but "
                          f"`{decl.name}` is {decl.loc.value} data", d.generator.span)
            for k in d.generator.duplicates:
                self.fail("E105", f"generator parameter `{k}` is given twice", d.generator.span)
            params = {}
            for k, v in d.generator.params.items():
                if not isinstance(v, ast.Num) and not (isinstance(v, ast.UnaryExpr) and v.op == "-"
                                                       and isinstance(v.operand, ast.Num)):
                    self.fail("E105", f"generator parameter `{k}` must be a constant", v.span)
                params[k] = v.value if isinstance(v, ast.Num) else -v.operand.value
            problems = validate_params(gen.name, params)
            if problems:
                self.fail("E105", "; ".join(problems), d.generator.span,
                          help="parameters: " + ", ".join(f"{k}={v}" for k, v in
                                                          gen.defaults.items()))
            decl.generator = ir.GeneratorSpec(name=gen.name, params={**gen.defaults, **params})
            if d.pad is not None:
                if decl.loc != ir.Loc.NODE:
                    self.fail("E105", "`pad` applies to node inputs", d.pad.span)
                decl.pad = self.coerce(self.value(d.pad, _Scope(derived_of=decl.name,
                                                                derived_stage="input")),
                                       decl.dtype, d.pad.span)
        elif d.pad is not None:
            self.fail("E105", "`pad` needs a generated input", d.pad.span)
        if d.derived is not None:
            e = self.lower_whole(d.derived, implicit_scope, decl.loc)
            decl.derived = self.coerce(e, decl.dtype, d.derived.span)
        if d.initial is not None:
            e = self.lower_whole(d.initial, implicit_scope.child(derived_stage="initial"), decl.loc)
            order = list(self.decls)
            for x in ir.walk_expr(e):
                nm = x.order if isinstance(x, ir.Chain) else getattr(x, "name", None)
                if isinstance(x, (ir.Read, ir.VarRef, ir.Chain)) and nm in self.decls and \
                        self.decls[nm].stage != ir.Stage.INPUT and \
                        order.index(nm) >= order.index(decl.name):
                    self.fail("E107", f"the initial value of `{decl.name}` reads `{nm}`, which is "
                              "declared after it", d.initial.span,
                              help="declare what an initial value reads before it")
            decl.initial = self.coerce(e, decl.dtype, d.initial.span)
        if decl.stage == ir.Stage.INPUT and decl.generator is None and decl.derived is None:
            self.fail("E106", f"input `{decl.name}` needs a generator (`~ uniform()`) or a "
                      "definition (`= expr`)", d.span,
                      help="generators: " + ", ".join(sorted(GENERATORS)))

    def lower_graph(self) -> ir.Graph:
        kind = self.prog.graph_kind
        if kind == "input":
            name = self.prog.graph_input
            d = self.decls.get(name)
            if d is None or d.stage != ir.Stage.INPUT or d.loc != ir.Loc.EDGE or \
                    d.clrs_type != "mask":
                self.err("E108", f"`graph input {name}` needs an edge mask input named `{name}`",
                         self.prog.graph_span,
                         help=f"declare `input edge {name}: mask = adjacency(A)`")
            return ir.Graph(kind="input", input=name, mask_name=name)
        return ir.Graph(kind=kind, mask_name=None if kind == "complete" else "adj")

    # ------------------------------------------------------------ expressions
    def static_expr(self, e: ast.Expr, what: str, allow_m: bool = True) -> ir.Expr | None:
        """An expression in n (and m): node counts and loop bounds."""
        try:
            out, _ = self.expr(e, _Scope())
        except _Abort:
            return None
        for sub in ir.walk_expr(out):
            ok = isinstance(sub, (ir.Const, ir.Binary, ir.Unary, ir.Call)) or (
                isinstance(sub, ir.Size) and (allow_m or sub.which != "m"))
            if not ok:
                self.err("E601", f"the {what} must be an expression in n" +
                         (" and m" if allow_m else ""), e.span,
                         help="e.g. `n`, `n + 1`, `log2(n) + 1`, `2 * n + m`")
                return None
        return out

    def value(self, e: ast.Expr, scope: _Scope) -> ir.Expr:
        """Lower an expression that must be a single value per processor (no whole arrays)."""
        out, _ = self.expr(e, scope)
        return out

    def lower_whole(self, e: ast.Expr, scope: _Scope, loc: ir.Loc) -> ir.Expr:
        """Lower a whole-array expression at `loc`, pointwise over implicit index variables."""
        if isinstance(e, ast.CallExpr) and e.func in WHOLE_FUNCS:
            return self.whole_call(e, scope, loc)
        out, _ = self.expr(e, scope)
        return out

    def whole_call(self, e: ast.CallExpr, scope: _Scope, loc: ir.Loc) -> ir.Expr:
        want = {"onehot": ir.Loc.NODE, "chain": ir.Loc.NODE, "adjacency": ir.Loc.EDGE,
                "transpose": ir.Loc.EDGE}[e.func]
        if loc != want or len(e.args) != 1:
            self.fail("E207", f"`{e.func}(x)` takes one argument and makes {want.value} data",
                      e.span)
        arg = e.args[0]
        i, j = ir.IndexVar(name="@i", axis=0), ir.IndexVar(name="@j", axis=1)
        if e.func == "onehot":
            x = self.value(arg, scope.child(index_vars=[], implicit=False))
            if x.dtype != ir.DType.INT:
                self.fail("E203", "onehot takes a graph-level integer", arg.span)
            return ir.Binary(op="==", left=i, right=x, dtype=ir.DType.BOOL, span=e.span)
        flip = False
        if e.func == "adjacency" and isinstance(arg, ast.CallExpr) and arg.func == "transpose" \
                and len(arg.args) == 1:
            arg, flip = arg.args[0], True  # adjacency(transpose(A))
        if not isinstance(arg, ast.Name) or arg.name not in self.decls:
            self.fail("E207", f"`{e.func}` takes the name of a declared array", arg.span)
        src = self.decls[arg.name]
        self.check_readable(src, arg.span, scope)
        if e.func == "chain":
            if src.loc != ir.Loc.NODE or src.dtype != ir.DType.INT:
                self.fail("E205", "`chain(order)` takes a node integer array (a list of nodes)",
                          arg.span)
            return ir.Chain(order=src.name, axis=0, span=e.span)
        if src.loc != ir.Loc.EDGE:
            self.fail("E201", f"`{e.func}` takes an edge array", arg.span)
        if e.func == "transpose":
            return ir.Read(name=src.name, loc=ir.Loc.EDGE, indices=[j, i], dtype=src.dtype,
                           span=e.span)
        a = ir.Read(name=src.name, loc=ir.Loc.EDGE, indices=[j, i] if flip else [i, j],
                    dtype=src.dtype, span=e.span)
        zero = ir.Const(value=False if src.dtype == ir.DType.BOOL else 0, dtype=src.dtype)
        return ir.Binary(op="or", dtype=ir.DType.BOOL, span=e.span,
                         left=ir.Binary(op="!=", left=a, right=zero, dtype=ir.DType.BOOL),
                         right=ir.Binary(op="==", left=i, right=j, dtype=ir.DType.BOOL))

    def check_readable(self, d: ir.DataDecl, span: Span, scope: _Scope) -> None:
        """Derived inputs may only read inputs; initialisers only inputs and earlier state."""
        if scope.derived_stage == "input" and d.stage != ir.Stage.INPUT:
            self.fail("E107", f"input `{scope.derived_of}` is defined from `{d.name}`, "
                      f"which is {d.stage.value} data; inputs may only depend on inputs", span)
        if d.name == scope.derived_of and scope.derived_of is not None:
            self.fail("E107", f"`{d.name}` is defined from itself", span)

    def expr(self, e: ast.Expr, scope: _Scope) -> tuple[ir.Expr, frozenset[int]]:
        """Lower one expression; returns it with the scope axes it varies along."""
        sp = e.span
        if isinstance(e, ast.Num):
            v = e.value
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2 ** 62:
                self.fail("E205", f"integer literal {v} is out of range", sp,
                          help="integers are 64-bit; use a float literal for huge values")
            dt = ir.DType.BOOL if isinstance(v, bool) else (
                ir.DType.INT if isinstance(v, int) else ir.DType.FLOAT)
            return ir.Const(value=v, dtype=dt, span=sp), frozenset()
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.IndexExpr):
            return self.index(e, scope)
        if isinstance(e, ast.UnaryExpr):
            x, ax = self.expr(e.operand, scope)
            if e.op == "not":
                if x.dtype != ir.DType.BOOL:
                    self.fail("E205", "`not` needs a boolean", e.operand.span)
                return ir.Unary(op="not", operand=x, dtype=ir.DType.BOOL, span=sp), ax
            if x.dtype not in _NUMERIC:
                self.fail("E205", "`-` needs a number", e.operand.span)
            self.no_pointer_math(e.operand, x)
            return ir.Unary(op="-", operand=x, dtype=x.dtype, span=sp), ax
        if isinstance(e, ast.BinaryExpr):
            return self.binary(e, scope)
        if isinstance(e, ast.CondExpr):
            c, a1 = self.expr(e.cond, scope)
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "the condition of `if ... else` must be boolean", e.cond.span)
            t, a2 = self.expr(e.then, scope)
            o, a3 = self.expr(e.otherwise, scope)
            dt = _join(t.dtype, o.dtype)
            if dt is None:
                self.fail("E205", f"branches have types {t.dtype.value} and {o.dtype.value}", sp)
            return ir.Cond(cond=c, then=t, otherwise=o, dtype=dt, span=sp), a1 | a2 | a3
        if isinstance(e, ast.CallExpr):
            return self.call(e, scope)
        if isinstance(e, ast.AggExpr):
            return self.aggregate(e, scope)
        raise AssertionError(type(e))

    def name(self, e: ast.Name, scope: _Scope) -> tuple[ir.Expr, frozenset[int]]:
        nm = e.name
        if nm in scope.index_vars:
            ax = scope.index_vars.index(nm)
            return ir.IndexVar(name=nm, axis=ax, span=e.span), frozenset([ax])
        if nm in scope.locals:
            dt, ax = scope.locals[nm]
            return ir.VarRef(name=nm, local=True, dtype=dt, span=e.span), ax
        if nm in ("n", "N", "m"):
            return ir.Size(which=nm, span=e.span), frozenset()
        if nm == "index":
            if scope.implicit and scope.index_vars:
                return ir.IndexVar(name="@i", axis=0, span=e.span), frozenset([0])
            self.fail("E201", "`index` (the node number) is only defined in node or edge data "
                      "definitions", e.span, help="inside `forall v`, use `v`")
        if nm == "inf":
            return ir.Const(value=float("inf"), dtype=ir.DType.FLOAT, span=e.span), frozenset()
        d = self.decls.get(nm)
        if d is None:
            self.fail("E206", f"unknown name `{nm}`", e.span)
        self.check_readable(d, e.span, scope)
        if d.loc == ir.Loc.GRAPH:
            return ir.VarRef(name=nm, dtype=d.dtype, span=e.span), frozenset()
        if scope.implicit and len(scope.index_vars) >= (1 if d.loc == ir.Loc.NODE else 2):
            idx = [ir.IndexVar(name="@i", axis=0)] + (
                [ir.IndexVar(name="@j", axis=1)] if d.loc == ir.Loc.EDGE else [])
            return (ir.Read(name=nm, loc=d.loc, indices=idx, dtype=d.dtype, span=e.span),
                    frozenset(range(len(idx))))
        self.fail("E201", f"`{nm}` is {d.loc.value} data; index it "
                  f"(`{nm}[v]`{' or `' + nm + '[u, v]`' if d.loc == ir.Loc.EDGE else ''})",
                  e.span)

    def index(self, e: ast.IndexExpr, scope: _Scope) -> tuple[ir.Expr, frozenset[int]]:
        d = self.decls.get(e.name)
        if d is None:
            if e.name in scope.locals or e.name in scope.index_vars:
                self.fail("E202", f"`{e.name}` is a single value and cannot be indexed", e.span)
            self.fail("E206", f"unknown name `{e.name}`", e.span)
        self.check_readable(d, e.span, scope)
        want = {ir.Loc.GRAPH: 0, ir.Loc.NODE: 1, ir.Loc.EDGE: 2}[d.loc]
        if len(e.indices) != want:
            self.fail("E202", f"`{e.name}` is {d.loc.value} data and takes {want} "
                      f"ind{'ex' if want == 1 else 'ices'}, not {len(e.indices)}", e.span)
        idx, axes = [], frozenset()
        for x in e.indices:
            xe, ax = self.expr(x, scope)
            if xe.dtype != ir.DType.INT:
                self.fail("E203", f"index of `{e.name}` must be an integer, not "
                          f"{xe.dtype.value}", x.span)
            idx.append(xe)
            axes |= ax
        return ir.Read(name=e.name, loc=d.loc, indices=idx, dtype=d.dtype, span=e.span), axes

    def is_pointer_read(self, e: ir.Expr) -> bool:
        if isinstance(e, (ir.Read, ir.VarRef)) and not getattr(e, "local", False):
            d = self.decls.get(e.name)
            return d is not None and d.clrs_type in ("pointer", "should_be_permutation",
                                                     "categorical")
        return False

    def no_pointer_math(self, a: ast.Expr, x: ir.Expr, other: ir.Expr | None = None) -> None:
        if self.is_pointer_read(x) and (other is None or other.dtype == ir.DType.FLOAT):
            d = self.decls[x.name]
            self.fail("E204", f"`{x.name}` is a {d.clrs_type} and is used as a number", a.span,
                      help="pointers index nodes; compare them with == or use them as indices")

    def binary(self, e: ast.BinaryExpr, scope: _Scope) -> tuple[ir.Expr, frozenset[int]]:
        op = e.op
        lscope = scope
        left, a1 = self.expr(e.left, lscope)
        right, a2 = self.expr(e.right, scope)
        ax = a1 | a2
        if op in ("and", "or"):
            if left.dtype != ir.DType.BOOL or right.dtype != ir.DType.BOOL:
                bad = e.left if left.dtype != ir.DType.BOOL else e.right
                self.fail("E205", f"`{op}` needs booleans", bad.span)
            return ir.Binary(op=op, left=left, right=right, dtype=ir.DType.BOOL, span=e.span), ax
        if op in ("==", "!="):
            if _join(left.dtype, right.dtype) is None:
                self.fail("E205", f"cannot compare {left.dtype.value} with {right.dtype.value}",
                          e.span)
            if left.dtype == ir.DType.FLOAT or right.dtype == ir.DType.FLOAT:
                self.no_pointer_math(e.left, left, right)
                self.no_pointer_math(e.right, right, left)
            return ir.Binary(op=op, left=left, right=right, dtype=ir.DType.BOOL, span=e.span), ax
        for side, x in ((e.left, left), (e.right, right)):
            if x.dtype not in _NUMERIC:
                self.fail("E205", f"`{op}` needs numbers, not {x.dtype.value}", side.span)
        self.no_pointer_math(e.left, left, right)
        self.no_pointer_math(e.right, right, left)
        if op in ("<", "<=", ">", ">="):
            return ir.Binary(op=op, left=left, right=right, dtype=ir.DType.BOOL, span=e.span), ax
        if op == "/":
            dt = ir.DType.FLOAT
        else:
            dt = _join(left.dtype, right.dtype)
        return ir.Binary(op=op, left=left, right=right, dtype=dt, span=e.span), ax

    def call(self, e: ast.CallExpr, scope: _Scope) -> tuple[ir.Expr, frozenset[int]]:
        if e.func in WHOLE_FUNCS - {"chain"} and scope.implicit and scope.index_vars:
            loc = ir.Loc.NODE if len(scope.index_vars) == 1 else ir.Loc.EDGE
            out = self.whole_call(e, scope, loc)
            return out, frozenset(range(len(scope.index_vars)))
        if e.func in WHOLE_FUNCS:
            self.fail("E207", f"`{e.func}(...)` makes a whole array; use it as the definition "
                      "of node/edge data", e.span)
        arity = POINTWISE_FUNCS.get(e.func)
        if arity is None:
            self.fail("E207", f"unknown function `{e.func}`", e.span,
                      help="functions: " + ", ".join(sorted(POINTWISE_FUNCS | {
                          k: 1 for k in WHOLE_FUNCS})))
        if len(e.args) != arity:
            self.fail("E207", f"`{e.func}` takes {arity} argument{'s' if arity > 1 else ''}",
                      e.span)
        args, ax = [], frozenset()
        for a in e.args:
            x, aa = self.expr(a, scope)
            if x.dtype not in _NUMERIC:
                self.fail("E205", f"`{e.func}` needs numbers", a.span)
            self.no_pointer_math(a, x, None if e.func not in ("float",) else x)
            args.append(x)
            ax |= aa
        if e.func in ("floor", "ceil", "int"):
            dt = ir.DType.INT
        elif e.func in ("sqrt", "log2", "float"):
            dt = ir.DType.FLOAT
        elif e.func == "abs":
            dt = args[0].dtype
        else:
            dt = _join(args[0].dtype, args[1].dtype)
        return ir.Call(func=e.func, args=args, dtype=dt, span=e.span), ax

    def aggregate(self, e: ast.AggExpr, scope: _Scope) -> tuple[ir.Expr, frozenset[int]]:
        if e.var in scope.index_vars or e.var in scope.locals or e.var in self.decls:
            self.fail("E101", f"`{e.var}` is already defined here", e.span)
        of = None
        ax_of: frozenset[int] = frozenset()
        if e.of is not None:
            of, ax_of = self.expr(e.of, scope)
            if of.dtype != ir.DType.INT:
                self.fail("E203", "the node whose neighbours are aggregated must be an integer",
                          e.of.span)
        axis = len(scope.index_vars)
        inner = scope.child(index_vars=scope.index_vars + [e.var])
        body, ab = self.expr(e.body, inner)
        filt = None
        af: frozenset[int] = frozenset()
        if e.filter is not None:
            filt, af = self.expr(e.filter, inner)
            if filt.dtype != ir.DType.BOOL:
                self.fail("E205", "the filter of an aggregation must be boolean", e.filter.span)
        default = None
        if e.default is not None:
            default, ad = self.expr(e.default, scope)
            ax_of = ax_of | ad
        if e.op in ("any", "all"):
            if body.dtype != ir.DType.BOOL:
                self.fail("E205", f"`{e.op}` aggregates booleans", e.body.span)
            dt = ir.DType.BOOL
        elif e.op == "count":
            if body.dtype != ir.DType.BOOL:
                self.fail("E205", "`count` counts booleans", e.body.span)
            dt = ir.DType.INT
        else:
            if body.dtype not in _NUMERIC:
                self.fail("E205", f"`{e.op}` aggregates numbers", e.body.span)
            dt = body.dtype
            if default is not None:
                dt = _join(dt, default.dtype) or dt
        axes = (ab | af) - {axis}
        return (ir.Aggregate(op=e.op, var=e.var, axis=axis, domain=e.domain, of=of, filter=filt,
                             body=body, default=default, dtype=dt, span=e.span),
                frozenset(axes) | ax_of)

    def coerce(self, e: ir.Expr, dt: ir.DType, span: Span) -> ir.Expr:
        """Check that a value of e.dtype may be stored in a `dt` place."""
        if e.dtype == dt or (dt == ir.DType.FLOAT and e.dtype == ir.DType.INT):
            return e
        self.fail("E205", f"a {e.dtype.value} value cannot be stored as {dt.value}", span,
                  help="convert explicitly with int(...) or float(...), or compare to get a bool")

    # ------------------------------------------------------------ statements
    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def lower_block(self, stmts: list[ast.Stmt], scope: _Scope) -> list[ir.Statement]:
        out: list[ir.Statement] = []
        scope = scope.child()  # lets are visible to the end of their block
        for s in stmts:
            try:
                lowered = self.stmt(s, scope)
            except _Abort:
                continue
            out.extend(lowered)
        return out

    def stmt(self, s: ast.Stmt, scope: _Scope) -> list[ir.Statement]:
        if isinstance(s, ast.RecordStmt):
            if scope.in_round:
                self.fail("E501", "`record` inside a round: record after the round", s.span)
            return [ir.Record(id=self.new_id(), span=s.span)]
        if isinstance(s, ast.BreakStmt):
            if scope.loop_depth == 0:
                self.fail("E503", "`break` outside a loop", s.span)
            return [ir.Break(id=self.new_id(), span=s.span)]
        if isinstance(s, ast.LetStmt):
            if s.name in RESERVED:
                self.fail("E109", f"`{s.name}` is a built-in name", s.span,
                          help="n, N and m are the sizes, index the node number")
            if s.name in self.decls or s.name in scope.index_vars:
                self.fail("E101", f"`{s.name}` is already defined", s.span)
            v, ax = self.expr(s.value, scope)
            scope.locals[s.name] = (v.dtype, ax)
            return [ir.Let(id=self.new_id(), name=s.name, value=v, span=s.span)]
        if isinstance(s, ast.AssignStmt):
            return [self.assign(s, scope)]
        if isinstance(s, ast.IfStmt):
            c, ax = self.expr(s.cond, scope)
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "an `if` condition must be boolean", s.cond.span)
            if ax and not scope.in_forall:
                self.fail("E201", "an `if` condition must be one value", s.cond.span)
            sid = self.new_id()
            return [ir.If(id=sid, cond=c, then=self.lower_block(s.then, scope),
                          otherwise=self.lower_block(s.otherwise, scope), span=s.span)]
        if isinstance(s, (ast.WhileStmt, ast.ForRangeStmt, ast.ForNodesStmt)):
            return [self.loop(s, scope)]
        if isinstance(s, ast.RoundStmt):
            if scope.in_round:
                self.fail("E501", "rounds do not nest", s.span)
            sid = self.new_id()
            body = self.lower_block(s.body, scope.child(in_round=True))
            return [ir.Round(id=sid, body=body, span=s.span)]
        if isinstance(s, ast.ForallStmt):
            if scope.in_forall:
                self.fail("E502", "`forall` cannot be nested; use `forall v, u` for edges", s.span)
            if not scope.in_round:  # sugar: a lone forall is a round of its own
                return [ir.Round(id=self.new_id(), span=s.span,
                                 body=self.stmt(s, scope.child(in_round=True)))]
            return [self.forall(s, scope)]
        raise AssertionError(type(s))

    def forall(self, s: ast.ForallStmt, scope: _Scope) -> ir.Forall:
        for v in s.vars:
            if v in self.decls or v in scope.locals or v in RESERVED:
                self.fail("E101", f"`{v}` is already defined; pick another processor name",
                          s.span)
        if len(s.vars) == 2 and s.vars[0] == s.vars[1]:
            self.fail("E101", "the two processor variables must differ", s.span)
        inner = scope.child(index_vars=list(s.vars), in_forall=True)
        guard = None
        if s.guard is not None:
            guard, _ = self.expr(s.guard, inner)
            if guard.dtype != ir.DType.BOOL:
                self.fail("E205", "a `where` guard must be boolean", s.guard.span)
        sid = self.new_id()
        body = self.lower_block(s.body, inner)
        return ir.Forall(id=sid, vars=list(s.vars), guard=guard, body=body, span=s.span)

    def loop(self, s, scope: _Scope) -> ir.Statement:
        if scope.in_round:
            self.fail("E501", "loops are not allowed inside a round", s.span,
                      help="a round is one synchronous step; put the loop around the round")
        inner = scope.child(loop_depth=scope.loop_depth + 1)
        if isinstance(s, ast.WhileStmt):
            c, _ = self.expr(s.cond, scope)
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "a `while` condition must be boolean", s.cond.span)
            if s.bound is None:
                self.fail("E604", "`while` needs a worst-case bound in n and m", s.span,
                          help="e.g. `while lo < hi bound log2(n) + 1 { ... }`; the interpreter "
                               "enforces it and the efficiency analysis counts it")
            bound = self.static_expr(s.bound, "loop bound")
            if bound is None:
                raise _Abort()
            sid = self.new_id()
            return ir.While(id=sid, cond=c, bound=bound, body=self.lower_block(s.body, inner),
                            span=s.span)
        var_local = self.loop_var(s.var, s.span, scope, inner)
        if isinstance(s, ast.ForRangeStmt):
            start, _ = self.expr(s.start, scope)
            stop, _ = self.expr(s.stop, scope)
            for x, a in ((start, s.start), (stop, s.stop)):
                if x.dtype != ir.DType.INT:
                    self.fail("E203", "range ends must be integers", a.span)
            bound = self.range_bound(start, stop, s)
            sid = self.new_id()
            return ir.ForRange(id=sid, var=s.var, var_local=var_local, start=start, stop=stop,
                               reverse=s.reverse, bound=bound,
                               body=self.lower_block(s.body, inner), span=s.span)
        key = self.lower_whole(s.key, scope.child(index_vars=["@i"], implicit=True), ir.Loc.NODE)
        if key.dtype not in _NUMERIC:
            self.fail("E205", "nodes are ordered by a numeric key", s.key.span)
        sid = self.new_id()
        return ir.ForNodes(id=sid, var=s.var, var_local=var_local, key=key,
                           body=self.lower_block(s.body, inner), span=s.span)

    def loop_var(self, name: str, span: Span, scope: _Scope, inner: _Scope) -> bool:
        d = self.decls.get(name)
        if d is not None:
            if d.loc != ir.Loc.GRAPH or d.dtype != ir.DType.INT or d.stage != ir.Stage.STATE:
                self.fail("E205", f"loop variable `{name}` is declared but is not a graph-level "
                          "int state", span)
            return False
        if name in RESERVED or name in scope.index_vars:
            self.fail("E101", f"`{name}` cannot be a loop variable", span)
        inner.locals[name] = (ir.DType.INT, frozenset())
        return True

    def range_bound(self, start: ir.Expr, stop: ir.Expr, s: ast.ForRangeStmt) -> ir.Expr:
        def static(x):
            return all(isinstance(y, (ir.Const, ir.Binary, ir.Unary, ir.Call, ir.Size))
                       for y in ir.walk_expr(x))
        if not static(stop):
            self.fail("E602", "the end of a range must be an expression in n and m", s.stop.span,
                      help="for a data-dependent loop use `while cond bound EXPR`")
        if static(start):
            return ir.Binary(op="-", left=stop, right=start, dtype=ir.DType.INT)
        return stop  # worst case: start at 0

    def target(self, lv: ast.LValue, scope: _Scope, comb: str | None) -> tuple[ir.Target, bool]:
        """Lower an assignment target; the flag says whether concurrent writers may collide."""
        if lv.name in scope.locals and not lv.indices:
            dt, _ = scope.locals[lv.name]
            return ir.Target(name=lv.name, loc=ir.Loc.GRAPH, local=True, dtype=dt,
                             span=lv.span), False
        d = self.decls.get(lv.name)
        if d is None:
            self.fail("E206", f"unknown name `{lv.name}`", lv.span,
                      help="declare it (`state graph x: int = 0`) or bind it with `let`")
        if d.stage == ir.Stage.INPUT:
            self.fail("E301", f"`{lv.name}` is an input and cannot be written", lv.span,
                      help="copy it into a state or hint first")
        if d.derived is not None:
            self.fail("E302", f"`{lv.name}` is defined as a view (`= ...`) and cannot be "
                      "written", lv.span, help="write the state it is defined from")
        if not lv.indices:
            if d.loc == ir.Loc.GRAPH:
                return ir.Target(name=d.name, loc=d.loc, dtype=d.dtype, span=lv.span), \
                    scope.in_forall
            if scope.in_forall:
                self.fail("E201", f"`{lv.name}` is {d.loc.value} data; write one element "
                          f"(`{lv.name}[v]`)", lv.span)
            return ir.Target(name=d.name, loc=d.loc, whole=True, dtype=d.dtype, span=lv.span), \
                False
        want = {ir.Loc.GRAPH: 0, ir.Loc.NODE: 1, ir.Loc.EDGE: 2}[d.loc]
        if len(lv.indices) != want:
            self.fail("E202", f"`{lv.name}` is {d.loc.value} data and takes {want} indices",
                      lv.span)
        idx = []
        own = scope.in_forall
        for k, x in enumerate(lv.indices):
            xe, _ = self.expr(x, scope)
            if xe.dtype != ir.DType.INT:
                self.fail("E203", "index must be an integer", x.span)
            idx.append(xe)
            if not (isinstance(xe, ir.IndexVar) and xe.axis == k):
                own = False
        if scope.in_forall:
            nvars = len(scope.index_vars)
            conflict = not own or nvars != want
        else:
            conflict = False
        return ir.Target(name=d.name, loc=d.loc, indices=idx, dtype=d.dtype, span=lv.span), \
            conflict

    def assign(self, s: ast.AssignStmt, scope: _Scope) -> ir.Assign:
        if len(s.targets) != len(s.values):
            self.fail("E303", f"{len(s.targets)} targets but {len(s.values)} values", s.span)
        if s.op != "=" and len(s.targets) != 1:
            self.fail("E303", f"`{s.op}` takes one target", s.span)
        comb = s.combiner
        if comb is not None and comb not in COMBINERS:
            self.fail("E402", f"unknown combiner `{comb}`", s.combiner_span or s.span,
                      help="one of: " + ", ".join(sorted(COMBINERS)))
        if comb is not None and not scope.in_forall:
            self.fail("E403", f"`by {comb}` combines concurrent writes of a `forall`; this "
                      "write is sequential", s.combiner_span or s.span)
        targets, values = [], []
        for lv, ve in zip(s.targets, s.values):
            t, conflict = self.target(lv, scope, comb)
            if conflict and comb is None:
                self.fail("E401", f"processors may write `{lv.name}` concurrently; say how "
                          "the writes combine", lv.span,
                          help="append `by priority` (lowest index wins), `by min`, `by max`, "
                               "`by sum`, `by any` or `by all`")
            if t.whole:
                v = self.lower_whole(ve, scope.child(index_vars=_implicit_vars(t.loc),
                                                     implicit=True), t.loc)
            else:
                v, ax = self.expr(ve, scope)
                if ax and not scope.in_forall:
                    self.fail("E201", "the value is an array; assign it to a whole node array "
                              "or index it", ve.span)
            if s.op != "=":
                cur, _ = self.expr(ast.IndexExpr(name=lv.name, indices=lv.indices, span=lv.span)
                                   if lv.indices else ast.Name(name=lv.name, span=lv.span), scope)
                v = ir.Binary(op=s.op[0], left=cur, right=v, dtype=_join(cur.dtype, v.dtype) or
                              v.dtype, span=s.span)
            if comb in ("any", "all") and v.dtype != ir.DType.BOOL:
                self.fail("E205", f"`by {comb}` combines booleans", ve.span)
            if comb in ("min", "max", "sum") and v.dtype not in _NUMERIC:
                self.fail("E205", f"`by {comb}` combines numbers", ve.span)
            targets.append(t)
            values.append(self.coerce(v, t.dtype, ve.span))
        return ir.Assign(id=self.new_id(), targets=targets, values=values, combiner=comb,
                         span=s.span)


def _implicit_vars(loc: ir.Loc) -> list[str]:
    return {ir.Loc.GRAPH: [], ir.Loc.NODE: ["@i"], ir.Loc.EDGE: ["@i", "@j"]}[loc]


def _join(a: ir.DType, b: ir.DType) -> ir.DType | None:
    if a == b:
        return a
    if {a, b} == {ir.DType.INT, ir.DType.FLOAT}:
        return ir.DType.FLOAT
    return None


def _builtin_graph(kind: str) -> ir.Expr:
    """The edge mask of a built-in interconnection graph, pointwise in (@i, @j)."""
    i, j = ir.IndexVar(name="@i", axis=0), ir.IndexVar(name="@j", axis=1)
    b = ir.DType.BOOL

    def eq(x, y):
        return ir.Binary(op="==", left=x, right=y, dtype=b)

    def orr(x, y):
        return ir.Binary(op="or", left=x, right=y, dtype=b)

    loop = eq(i, j)
    if kind == "empty":
        return loop
    one = ir.Const(value=1, dtype=ir.DType.INT)
    if kind == "path":
        return orr(loop, orr(eq(ir.Binary(op="+", left=i, right=one, dtype=ir.DType.INT), j),
                             eq(ir.Binary(op="+", left=j, right=one, dtype=ir.DType.INT), i)))
    zero = ir.Const(value=0, dtype=ir.DType.INT)
    return orr(loop, orr(eq(i, zero), eq(j, zero)))  # star centred on node 0


def check(program: ast.Program, path: str = "<string>") -> ir.Program:
    """Check an AST and lower it to the IR; raise `AlgError` with every problem found."""
    return Checker(program, path).run()
