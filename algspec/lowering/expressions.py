"""Lowering of expressions: names, reads, operators (typed by `algspec.ir.ops`), aggregations."""

from __future__ import annotations

from algspec import ir
from algspec.diagnostics import Span
from algspec.ir import ops
from algspec.language import ast
from algspec.lowering import draws
from algspec.lowering.scope import INDEX_TYPES, WHOLE_FUNCS, Abort, Reporter, Scope


class Expressions(Reporter):
    """Expressions -> typed IR expressions, with the scope axes each value varies along."""

    def static_expr(self, e: ast.Expr, what: str, allow_m: bool = True) -> ir.Expr | None:
        """An expression in n (and m): node counts and loop bounds."""
        try:
            out, _ = self.expr(e, Scope(no_calls=f"in a {what}"))
        except Abort:
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

    def value(self, e: ast.Expr, scope: Scope) -> ir.Expr:
        """Lower an expression that must be a single value per processor (no whole arrays)."""
        out, _ = self.expr(e, scope)
        return out

    def lower_whole(self, e: ast.Expr, scope: Scope, loc: ir.Loc) -> ir.Expr:
        """Lower a whole-array expression at `loc`, pointwise over implicit index variables."""
        if isinstance(e, ast.CallExpr) and e.func in WHOLE_FUNCS:
            return self.whole_call(e, scope, loc)
        out, _ = self.expr(e, scope)
        return out

    def whole_call(self, e: ast.CallExpr, scope: Scope, loc: ir.Loc) -> ir.Expr:
        want = {"onehot": ir.Loc.NODE, "chain": ir.Loc.NODE, "adjacency": ir.Loc.EDGE,
                "transpose": ir.Loc.EDGE}[e.func]
        if loc != want or len(e.args) != 1:
            self.fail("E207", f"`{e.func}(x)` takes one argument and makes {want.value} data",
                      e.span)
        arg = e.args[0]
        i, j = ir.IndexVar(name="@i", axis=0), ir.IndexVar(name="@j", axis=1)
        if e.func == "onehot":
            # x is one value per sample, but the view is evaluated per node (axis 0):
            # a hidden @i keeps the variables of aggregations in x off that axis.
            x = self.value(arg, scope.child(index_vars=["@i"], implicit=False))
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

    def check_readable(self, d: ir.DataDecl, span: Span, scope: Scope) -> None:
        """Derived inputs may only read inputs; initialisers only inputs and earlier state."""
        if scope.derived_stage == "input" and d.stage != ir.Stage.INPUT:
            self.fail("E107", f"input `{scope.derived_of}` is defined from `{d.name}`, "
                      f"which is {d.stage.value} data; inputs may only depend on inputs", span)
        if d.name == scope.derived_of and scope.derived_of is not None:
            self.fail("E107", f"`{d.name}` is defined from itself", span)

    def expr(self, e: ast.Expr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
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
            dt = self.apply_op(ops.UNARY[e.op], [e.operand], [x], sp)
            return ir.Unary(op=e.op, operand=x, dtype=dt, span=sp), ax
        if isinstance(e, ast.BinaryExpr):
            return self.binary(e, scope)
        if isinstance(e, ast.CondExpr):
            c, a1 = self.expr(e.cond, scope)
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "the condition of `if ... else` must be boolean", e.cond.span)
            branch = scope.child(no_calls="in a branch of `... if ... else ...` (only one "
                                          "branch is evaluated)")
            t, a2 = self.expr(e.then, branch)
            o, a3 = self.expr(e.otherwise, branch)
            dt = ops.join(t.dtype, o.dtype)
            if dt is None:
                self.fail("E205", f"branches have types {t.dtype.value} and {o.dtype.value}", sp)
            return ir.Cond(cond=c, then=t, otherwise=o, dtype=dt, span=sp), a1 | a2 | a3
        if isinstance(e, ast.CallExpr):
            return self.call(e, scope)
        if isinstance(e, ast.AggExpr):
            return self.aggregate(e, scope)
        if isinstance(e, ast.TupleExpr):
            self.fail("E205", "a tuple is only a key of `argmin`/`argmax`", sp,
                      help="e.g. `argmin((w[u], u) for u in nodes)` or `v by argmin (w[v], v)`")
        raise AssertionError(type(e))

    def name(self, e: ast.Name, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
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
            if nm in self.rejected:
                raise Abort()  # declared as data, reported E109 there
            self.fail("E201", "`index` (the node number) is only defined in node or edge data "
                      "definitions", e.span, help="inside `forall v`, use `v`")
        if nm == "inf":
            return ir.Const(value=float("inf"), dtype=ir.DType.FLOAT, span=e.span), frozenset()
        d = self.decls.get(nm)
        if d is None and nm == "none" and nm not in scope.failed:
            # no node: `pointer?`/`mask_one?` encode it (docs/language.md); data a file
            # declares as `none` keep that name
            return ir.Const(value=ir.NONE, dtype=ir.DType.INT, span=e.span), frozenset()
        if d is None:
            if nm in scope.failed:
                raise Abort()  # a local whose `let` was reported
            self.unknown_name(nm, e.span)
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

    def index(self, e: ast.IndexExpr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
        d = self.decls.get(e.name)
        if d is None:
            if e.name in scope.locals or e.name in scope.index_vars:
                self.fail("E202", f"`{e.name}` is a single value and cannot be indexed", e.span)
            if e.name in scope.failed:
                raise Abort()  # a local whose `let` was reported
            self.unknown_name(e.name, e.span)
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
            return d is not None and d.clrs_type in INDEX_TYPES
        return False

    def apply_op(self, op: ops.Op, args_ast: list[ast.Expr], args: list[ir.Expr],
                 span: Span) -> ir.DType:
        """The result dtype of `op` on `args` by its type rule; E205/E204 if it rejects them."""
        try:
            dt = op.type_rule(tuple(a.dtype for a in args))
        except ops.OpTypeError as err:
            self.fail("E205", err.message, span if err.arg is None else args_ast[err.arg].span,
                      help=_bool_compare_help(op.name, args_ast, args))
        for k, (a, x) in enumerate(zip(args_ast, args)):
            if not self.is_pointer_read(x) or op.pointer == "ok":
                continue
            others = [y for j, y in enumerate(args) if j != k]
            if op.pointer == "never" or any(y.dtype == ir.DType.FLOAT for y in others):
                d = self.decls[x.name]
                self.fail("E204", f"`{x.name}` is a {d.clrs_type} and is used as a number",
                          a.span, help="pointers index nodes; compare them with == or use them "
                                       "as indices")
        return dt

    def binary(self, e: ast.BinaryExpr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
        left, a1 = self.expr(e.left, scope)
        if e.op in ("and", "or"):  # the right side runs only where the left does not decide
            scope = scope.child(no_calls=f"on the right of `{e.op}` (evaluated only where the "
                                         "left side does not decide)")
        right, a2 = self.expr(e.right, scope)
        dt = self.apply_op(ops.BINARY[e.op], [e.left, e.right], [left, right], e.span)
        return ir.Binary(op=e.op, left=left, right=right, dtype=dt, span=e.span), a1 | a2

    def call(self, e: ast.CallExpr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
        if e.func in WHOLE_FUNCS - {"chain"} and scope.implicit and scope.index_vars:
            loc = ir.Loc.NODE if len(scope.index_vars) == 1 else ir.Loc.EDGE
            out = self.whole_call(e, scope, loc)
            return out, frozenset(range(len(scope.index_vars)))
        if e.func in WHOLE_FUNCS:
            self.fail("E207", f"`{e.func}(...)` makes a whole array; use it as the definition "
                      "of node/edge data", e.span)
        if e.kwargs and e.func not in ("rand", "rand_int"):
            draws.no_kwargs(self, e)
        if e.func == "rand":
            return self.rand(e, scope)
        if e.func == "rand_int":
            return self.rand_int(e, scope)
        op = ops.CALLS.get(e.func)
        proc = self.procs.get(e.func)
        if op is None and proc is None and any(  # declarations are lowered before procedures
                isinstance(x, ast.ProcDef) and x.name == e.func for x in self.prog.body):
            self.fail("E710", f"`{e.func}(...)` runs statements, so its value cannot be computed "
                      "in a declaration", e.span, help="compute it in the body and write it to "
                      "declared state: `y = f(...)`")
        if op is None and proc is not None:
            if self.returns(proc):
                return self.value_call(e, scope)
            self.fail("E207", f"procedure `{e.func}` has no value: no `return` ends it", e.span,
                      help=f"end its paths with `return EXPR` to use `{e.func}(...)` in an "
                           f"expression, or call it as a statement: `{e.func}(...)`")
        if op is None:
            self.fail("E207", f"unknown function `{e.func}`", e.span,
                      help="functions: " + ", ".join(sorted(set(ops.CALLS) | WHOLE_FUNCS)))
        if len(e.args) != op.arity:
            self.fail("E207", f"`{e.func}` takes {op.arity} argument"
                      f"{'s' if op.arity > 1 else ''}", e.span)
        args, ax = [], frozenset()
        for a in e.args:
            x, aa = self.expr(a, scope)
            args.append(x)
            ax |= aa
        dt = self.apply_op(op, e.args, args, e.span)
        return ir.Call(func=e.func, args=args, dtype=dt, span=e.span), ax

    def aggregate(self, e: ast.AggExpr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
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
        if ops.AGGREGATIONS[e.op].keyed:
            body, ab = self.key(e.body, inner, e.op)
        else:
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
        try:
            dt = ops.AGGREGATIONS[e.op].type_rule(body.dtype)
        except ops.OpTypeError as err:
            self.fail("E205", f"{err.message} (aggregated values)", e.body.span)
        if ops.AGGREGATIONS[e.op].keyed and default is not None and \
                default.dtype != ir.DType.INT:
            self.fail("E203", f"the default of `{e.op}` is a node index (an int)", e.default.span)
        if default is not None and e.op in ("min", "max", "sum"):  # the default is a value
            dt = ops.join(dt, default.dtype) or dt
        if e.unstable and (e.op != "argmin" or e.domain != "nodes" or isinstance(body, ir.Tuple)
                           or body.dtype not in ops.NUMERIC):
            self.fail("E207", "`unstable` takes `argmin(KEY for x in nodes ...)` with one "
                      "numeric key (numpy's argsort order)", e.span)
        axes = (ab | af) - {axis}
        return (ir.Aggregate(op=e.op, var=e.var, axis=axis, domain=e.domain, of=of, filter=filt,
                             body=body, default=default, dtype=dt, unstable=e.unstable,
                             span=e.span),
                frozenset(axes) | ax_of)

    def key(self, e: ast.Expr, scope: Scope, what: str) -> tuple[ir.Expr, frozenset[int]]:
        """The key of argmin/argmax: one value or a lexicographic tuple of numbers/booleans.

        Pointers may take part (comparing node indices is how ties are broken).
        """
        items = e.items if isinstance(e, ast.TupleExpr) else [e]
        out, axes = [], frozenset()
        for x in items:
            xe, ax = self.expr(x, scope)
            if xe.dtype not in ops.NUMERIC and xe.dtype != ir.DType.BOOL:
                self.fail("E205", f"the key of `{what}` must be numbers or booleans", x.span)
            out.append(xe)
            axes |= ax
        if len(out) == 1:
            return out[0], axes
        return ir.Tuple(args=out, span=e.span), axes

    def rand(self, e: ast.CallExpr, scope: Scope, called: ast.CallExpr | None = None
             ) -> tuple[ir.Expr, frozenset[int]]:
        """`rand()`: only in the body (definitions and initial values are deterministic).
        Per edge in `for (u, v) in edges(A)` (`lowering.draws`); `symmetric = true`: one
        draw per unordered pair. `called`: the user's call when it is another draw
        (`rand_int`), which the messages name."""
        if e.args:
            self.fail("E207", "`rand()` takes no arguments besides `symmetric = true`", e.span)
        symmetric = draws.symmetric_option(self, e)
        user = called or e
        shown = "rand_int(low, high)" if user.func == "rand_int" else "rand()"
        if scope.derived_of is not None or scope.derived_stage is not None:
            self.fail("E107", f"`{shown}` is only allowed in the algorithm body, not in "
                      "data definitions or initial values", e.span,
                      help=f"draw it in the body: `forall v {{ r[v] = {shown} }}`")
        site = self.rand_sites
        self.rand_sites = site + 1
        # A draw per processor: it varies along every bound index variable.
        pair = draws.edge_keying(self, user, scope, symmetric)
        return ir.Rand(site=site, pair=pair, symmetric=symmetric, span=e.span), \
            frozenset(range(len(scope.index_vars)))

    def rand_int(self, e: ast.CallExpr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
        """`rand_int(low, high)`: `rand()`'s draw, taken as its whole 64-bit hash (an int
        `ir.Rand`), made an int in [low, high) by the ops table's `rand_int`."""
        if len(e.args) != 2:
            self.fail("E207", "`rand_int(low, high)` takes two arguments: the smallest int "
                      "it may draw and one past the largest", e.span)
        bits, axes = self.rand(ast.CallExpr(func="rand", args=[], kwargs=e.kwargs, span=e.span),
                               scope, called=e)
        bits = bits.model_copy(update={"dtype": ir.DType.INT})
        (low, a1), (high, a2) = (self.expr(x, scope) for x in e.args)
        dt = self.apply_op(ops.CALLS["rand_int"], [*e.args, e], [low, high, bits], e.span)
        return ir.Call(func="rand_int", args=[low, high, bits], dtype=dt, span=e.span), \
            axes | a1 | a2

    def coerce(self, e: ir.Expr, dt: ir.DType, span: Span) -> ir.Expr:
        """Check that a value of e.dtype may be stored in a `dt` place."""
        if e.dtype == dt or (dt == ir.DType.FLOAT and e.dtype == ir.DType.INT):
            return e
        article = "an" if e.dtype == ir.DType.INT else "a"
        help = "convert explicitly with int(...) or float(...), or compare to get a bool"
        if dt == ir.DType.BOOL:  # masks and bools hold `true`/`false`, not 0/1
            help = "a mask or bool holds `true` or `false`; compare to get one, e.g. `x != 0`"
        self.fail("E205", f"{article} {e.dtype.value} value cannot be stored as {dt.value}",
                  span, help=help)

    # ------------------------------------------------------------ statements


def _bool_compare_help(op: str, args_ast: list[ast.Expr], args: list[ir.Expr]) -> str | None:
    """`A[u, v] != 0` on a mask: the mask is already the truth value, so say to use it."""
    if op not in ("==", "!=") or len(args) != 2:
        return None
    for k in (0, 1):
        other = args_ast[1 - k]
        if args[k].dtype == ir.DType.BOOL and isinstance(other, ast.Num) and \
                not isinstance(other.value, bool) and other.value in (0, 1):
            text = _read_text(args_ast[k])
            itself = (op == "!=") == (other.value == 0)
            what = "the other side" if text is None else f"`{text}`"
            use = ("it itself" if itself else "`not` it") if text is None else \
                (f"`{text}` itself" if itself else f"`not {text}`")
            return (f"{what} is a boolean (a mask): use {use} instead of comparing it "
                    f"with {other.value}")
    return None


def _read_text(e: ast.Expr) -> str | None:
    """A name or an indexed read as written (`A[u, v]`); None for anything longer."""
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.IndexExpr) and all(isinstance(i, (ast.Name, ast.Num))
                                            for i in e.indices):
        idx = ", ".join(i.name if isinstance(i, ast.Name) else str(i.value) for i in e.indices)
        return f"{e.name}[{idx}]"
    return None
