"""Lowering of declarations: data, their types, generators, views and the graph."""

from __future__ import annotations

from contextlib import suppress

import numpy as np

from algspec import ir
from algspec.diagnostics import Span
from algspec.generators import GENERATORS, Generator, check_declared_type, validate_params
from algspec.ir import ops
from algspec.ir.graph_kinds import GRAPH_KINDS
from algspec.language import ast
from algspec.lowering.scope import (
    PROBED_TYPES,
    RESERVED,
    STATE_TYPES,
    Abort,
    Reporter,
    Scope,
    implicit_vars,
)

MAX_CATEGORIES = 4096  # one-hot columns per categorical probe (dm-clrs uses <= 5)


class Declarations(Reporter):
    """Declarations -> `ir.DataDecl`s: names first, then definitions (so views may look ahead)."""

    def declare_all(self) -> None:
        pos = ir.DataDecl(name="pos", stage=ir.Stage.INPUT, loc=ir.Loc.NODE, clrs_type="scalar",
                          dtype=ir.DType.FLOAT, implicit=True,
                          derived=ir.Binary(op="/", dtype=ir.DType.FLOAT,
                                            left=ir.IndexVar(name="@i", axis=0),
                                            right=ir.Size(which="N")))
        if not any(d.name == "pos" for d in self.prog.decls):
            self.decls["pos"] = pos  # CLRS's default, first; a file may declare its own
        # First pass: names, types, stages (so definitions may refer to later decls).
        for d in self.prog.decls:
            if d.name in RESERVED and d.name != "pos":
                self.err("E109", f"`{d.name}` is a reserved name", d.name_span,
                         help=f"n, N, m, index and inf are built in; give the datum another "
                              f"name and keep `{d.name}` in the CLRS spec with `as`, e.g. "
                              f"`hint node {d.name}_ as {d.name}: ...`")
                self.rejected.add(d.name)  # its writes are not more mistakes
                continue
            if d.name in self.decls or d.name in self.decl_ast:
                self.err("E101", f"`{d.name}` is declared twice", d.name_span)
                continue
            decl = self.declare(d)
            if decl is not None and self.spec_fidelity(decl, d):
                self.decls[d.name] = decl
                self.decl_ast[d.name] = d
            else:
                self.rejected.add(d.name)  # its uses are not "unknown names"
        # Implicit interconnection-graph input, after the declared inputs.
        kind = GRAPH_KINDS.get(self.prog.graph_kind)
        if kind is not None and kind.ir_mask is not None:
            clash = next((k for k, x in self.decls.items()
                          if k == "adj" or (x.probed and x.spec_name == "adj")), None)
            if clash is not None:
                self.err("E108", "`adj` is the implicit interconnection-graph input of a "
                         f"`{self.prog.graph_kind}` graph", self.decl_ast[clash].name_span,
                         help="rename it, or use `graph input adj`")
            else:
                adj = ir.DataDecl(name="adj", stage=ir.Stage.INPUT, loc=ir.Loc.EDGE,
                                  clrs_type="mask", dtype=ir.DType.BOOL, implicit=True,
                                  derived=kind.ir_mask)
                items = list(self.decls.items())
                last_input = max(k for k, (_, dd) in enumerate(items) if dd.stage == ir.Stage.INPUT)
                items.insert(last_input + 1, ("adj", adj))
                self.decls = dict(items)
        # Second pass: definitions, initialisers, generators.
        for name, d in self.decl_ast.items():
            with suppress(Abort):  # reported already; check the other declarations too
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
                    raise Abort()
                if state.get(j) is None:
                    visit(j, path + [j])
            state[k] = 2

        for k in views:
            if state.get(k) is None:
                try:
                    visit(k, [k])
                except Abort:
                    return

    def declare(self, d: ast.Decl) -> ir.DataDecl | None:
        stage = ir.Stage(d.stage)
        loc = ir.Loc(d.location)
        if d.private and d.type_name in STATE_TYPES:  # private inputs: plain values, or
            return ir.DataDecl(name=d.name, stage=stage, loc=loc, private=True,  # CLRS types
                               dtype=STATE_TYPES[d.type_name], span=d.span)
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
        if ctype == "categorical" and d.type_arg > MAX_CATEGORIES:
            self.err("E103", f"categorical({d.type_arg}) has too many categories (at most "
                     f"{MAX_CATEGORIES}): each is one column of its one-hot probe", d.span,
                     help="a node index is a `pointer`; a number is a `scalar`")
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
        if d.optional and not (ctype == "mask_one" or ctype == "pointer" and
                               loc == ir.Loc.NODE):
            self.err("E103", f"`{d.type_name}?` cannot be optional: `?` (may be `none`) is "
                     "for a node `pointer?` or a `mask_one?`", d.span,
                     help="an absent pointer is a self-pointer, which only a node pointer "
                          "has; an absent one-hot is an all-zero mask")
            return None
        return ir.DataDecl(name=d.name, stage=stage, loc=loc, clrs_type=ctype,
                           categories=d.type_arg, dtype=ir.CLRS_DTYPES[ctype], span=d.span,
                           private=d.private, optional=d.optional)

    def spec_fidelity(self, decl: ir.DataDecl, d: ast.Decl) -> bool:
        """Check a declared `pos`, a spec name (`as`) and private inputs; False drops `decl`."""
        if d.name == "pos" and (decl.stage != ir.Stage.INPUT or decl.loc != ir.Loc.NODE or
                                decl.clrs_type != "scalar" or decl.private):
            self.err("E103", "`pos` is CLRS's node position input: declare it as "
                     "`input node pos: scalar = ...`", d.name_span)
            return False
        if d.spec_name is not None:
            if decl.private or decl.stage == ir.Stage.STATE:
                self.err("E103", f"`{d.name}` is not in the CLRS spec, so it has no spec name",
                         d.spec_name_span, help="`as` renames inputs, outputs and hints")
                return False
            decl.clrs_name = d.spec_name
        if decl.probed:
            taken = {x.spec_name: x for x in self.decls.values() if x.probed}
            if decl.spec_name in taken or (decl.spec_name == "pos" and d.name != "pos"):
                self.err("E101", f"two probes are called `{decl.spec_name}` in the CLRS spec",
                         d.spec_name_span if d.spec_name else d.name_span)
                return False
        return True

    def index_scope(self, decl: ir.DataDecl, d: ast.Decl) -> Scope:
        """The scope of a definition: `@i`/`@j`, or the names the declaration gives them."""
        names = d.index_names or implicit_vars(decl.loc)
        if d.index_names:
            if len(names) != ir.rank(decl.loc):
                self.fail("E202", f"{decl.loc.value} data has {ir.rank(decl.loc)} "
                          f"ind{'ex' if ir.rank(decl.loc) == 1 else 'ices'}; `{decl.name}` "
                          f"names {len(names)}", d.index_span)
            if d.derived is None and d.initial is None:
                self.fail("E107", f"`{decl.name}[{', '.join(names)}]` names the indices of a "
                          f"definition, and `{decl.name}` has none", d.index_span,
                          help=_index_names_help(decl, d))
            for nm in names:
                if nm in self.decls or nm in RESERVED or names.count(nm) > 1:
                    self.fail("E101", f"index name `{nm}` is already defined here", d.index_span)
        return Scope(index_vars=list(names), implicit=True, derived_of=decl.name,
                     derived_stage=d.stage)

    def lower_definition(self, e: ast.Expr, scope: Scope, loc: ir.Loc) -> ir.Expr:
        """A whole-array definition, with named indices (`w[u, v] = ...`) renamed to `@i`/`@j`."""
        out = self.lower_whole(e, scope, loc)
        rename = dict(zip(scope.index_vars, implicit_vars(loc)))
        for x in ir.walk_expr(out):
            if isinstance(x, ir.IndexVar) and x.name in rename and x.axis < ir.rank(loc):
                x.name = rename[x.name]
        return out

    def define(self, decl: ir.DataDecl, d: ast.Decl) -> None:
        implicit_scope = self.index_scope(decl, d)
        if d.generator is not None:
            if decl.stage != ir.Stage.INPUT:
                self.fail("E106", f"only inputs are generated; `{decl.name}` is {d.stage}",
                          d.generator.span)
            gen = GENERATORS.get(d.generator.name)
            if gen is None:
                self.fail("E104", f"unknown generator `{d.generator.name}`", d.generator.span,
                          help="one of: " + ", ".join(sorted(GENERATORS)))
            if gen.location != decl.loc.value:
                twin = GENERATORS.get(f"{gen.name}_scalar")  # `uniform_int` -> graph twin
                self.fail("E104", f"generator `{gen.name}` makes {gen.location} data but "
                          f"`{decl.name}` is {decl.loc.value} data", d.generator.span,
                          help=f"its {twin.location}-level form is `{twin.name}()`"
                          if twin is not None and twin.location == decl.loc.value else None)
            for k in d.generator.duplicates:
                self.fail("E105", f"generator parameter `{k}` is given twice", d.generator.span)
            params = {k: self.generator_param(k, v, gen) for k, v in d.generator.params.items()}
            problems = validate_params(gen.name, params)
            if problems:
                self.fail("E105", "; ".join(problems), d.generator.span,
                          help="parameters: " + ", ".join(f"{k}={v}" for k, v in
                                                          gen.defaults.items()))
            decl.generator = ir.GeneratorSpec(name=gen.name, params={**gen.defaults, **params})
            misfit = check_declared_type(gen, decl.loc.value, decl.clrs_type, decl.categories,
                                         decl.generator.params)
            if misfit:
                self.fail("E110", misfit[0], d.generator.span,
                          help="see docs/generators.md for what each generator draws")
            if d.pad is not None:
                if decl.loc != ir.Loc.NODE:
                    self.fail("E105", "`pad` applies to node inputs", d.pad.span)
                pad = _mask_pad(self.value(d.pad, Scope(derived_of=decl.name,
                                                        derived_stage="input")), decl.dtype)
                if decl.dtype == ir.DType.BOOL and pad.dtype != ir.DType.BOOL:
                    self.fail("E205", f"the pad of `{decl.name}` must be `false` or `true` (or "
                              f"0 or 1), not {'an' if pad.dtype == ir.DType.INT else 'a'} "
                              f"{pad.dtype.value}", d.pad.span,
                              help="write `pad false` (or `pad true`)")
                decl.pad = self.coerce(pad, decl.dtype, d.pad.span)
        elif d.pad is not None:
            self.fail("E105", "`pad` needs a generated input", d.pad.span)
        if d.derived is not None:
            e = self.lower_definition(d.derived, implicit_scope, decl.loc)
            decl.derived = self.coerce(e, decl.dtype, d.derived.span)
        if d.masked is not None:
            if not decl.probed:
                self.fail("E105", f"`masked where` marks probe entries; `{decl.name}` is not a "
                          "probe", d.masked.span)
            # a stored datum's condition may read its own value (`masked where d == inf`)
            own = implicit_scope if d.derived is not None else \
                implicit_scope.child(derived_of=None)
            e = self.lower_definition(d.masked, own, decl.loc)
            if e.dtype != ir.DType.BOOL:
                self.fail("E205", f"`masked where` needs a condition, not a {e.dtype.value}",
                          d.masked.span, help="e.g. `masked where not adj`")
            decl.masked = e
        if d.initial is not None:
            e = self.lower_definition(d.initial, implicit_scope.child(derived_stage="initial"),
                                      decl.loc)
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

    def generator_param(self, key: str, v: ast.Expr,
                        gen: Generator | None = None) -> float | int | bool | str | ir.Expr:
        """A generator parameter: a constant, a name (`family = delaunay`), or a size
        expression in n evaluated when sampling."""
        names = gen.names.get(key) if gen is not None else None
        if names:
            return self.generator_name(gen.name, key, v, names)
        if isinstance(v, ast.Num):
            return v.value
        if isinstance(v, ast.UnaryExpr) and v.op == "-" and isinstance(v.operand, ast.Num):
            return -v.operand.value
        if not _in_n(v):
            self.fail("E105", f"generator parameter `{key}` must be a constant or an "
                      "expression in n", v.span,
                      help="e.g. `p = 2.0 / n`; inputs are drawn before N, m and data exist")
        return self.expr(v, Scope())[0]

    def generator_name(self, gen: str, key: str, v: ast.Expr, names: tuple[str, ...]) -> str:
        """A name parameter, written as a bare identifier and checked against its table."""
        listed = ", ".join(names)
        if not isinstance(v, ast.Name):
            self.fail("E105", f"generator parameter `{key}` of `{gen}` takes a name, one of: "
                      f"{listed}", v.span, help=f"e.g. `{key} = {names[-1]}`")
        if v.name not in names:
            self.fail("E105", f"`{v.name}` is not a `{key}` of generator `{gen}`; one of: "
                      f"{listed}", v.span, help="see docs/generators.md")
        return v.name

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


def _index_names_help(decl: ir.DataDecl, d: ast.Decl) -> str:
    """How to fix index names without a definition, as the user's declaration with `:= zero`.

    Named indices serve `=` and `:=`; a stored datum starts at its type's zero anyway, so
    writing that zero as its initial value keeps its meaning and gives the names a home.
    """
    zero = {ir.DType.BOOL: "false", ir.DType.INT: "0", ir.DType.FLOAT: "0.0"}[decl.dtype]
    stage = "private" if d.private else d.stage
    spec = f" as {d.spec_name}" if d.spec_name else ""
    tname = f"{d.type_name}({d.type_arg})" if d.type_arg is not None else d.type_name
    head = f"{stage} {d.location} {d.name}[{', '.join(d.index_names)}]{spec}: {tname}"
    if decl.stage == ir.Stage.INPUT:  # inputs are generated or defined, never stored
        return f"define `{d.name}` (`{head} = ...`), or drop `[{', '.join(d.index_names)}]`"
    if d.masked is not None:
        return (f"give `{d.name}` an initial value to name them in: `{head} := {zero} masked "
                "where ...` (the value it starts with anyway)")
    return (f"give `{d.name}` an initial value (`{head} := {zero}`) or a definition "
            f"(`= ...`), or drop `[{', '.join(d.index_names)}]`")


def _mask_pad(pad: ir.Expr, dtype: ir.DType) -> ir.Expr:
    """A mask's (bool's) pad written 0 or 1, as CLRS stores masks, read as false or true.

    Any int expression of constant value 0 or 1 counts (`0`, `1 - 1`); other values and
    non-constant ints stay ints, which the caller reports (E205).
    """
    if dtype != ir.DType.BOOL or pad.dtype != ir.DType.INT:
        return pad
    value = _constant(pad)
    if value not in (0, 1):
        return pad
    return ir.Const(value=bool(value), dtype=ir.DType.BOOL, span=pad.span)


def _constant(e: ir.Expr) -> int | float | bool | None:
    """The value of an expression of constants only (`1 - 1`, `min(0, 1)`), else None."""
    if isinstance(e, ir.Const):
        return e.value
    op = ops.op_of(e)
    if op is None:
        return None
    args = [e.operand] if isinstance(e, ir.Unary) else \
        [e.left, e.right] if isinstance(e, ir.Binary) else list(e.args)
    values = [_constant(a) for a in args]
    if any(v is None for v in values):
        return None
    try:
        with np.errstate(all="ignore"):
            return np.asarray(op.numpy(*(np.asarray(v) for v in values))).item()
    except (ArithmeticError, ValueError, TypeError):
        return None


def _in_n(e: ast.Expr) -> bool:
    """Whether `e` is built from numbers and `n` with operators and calls only."""
    if isinstance(e, ast.Name):
        return e.name == "n"
    if isinstance(e, ast.UnaryExpr):
        return _in_n(e.operand)
    if isinstance(e, ast.BinaryExpr):
        return _in_n(e.left) and _in_n(e.right)
    if isinstance(e, ast.CallExpr):  # a size builtin (not `rand()` or `onehot`)
        return e.func in ops.CALLS and all(_in_n(a) for a in e.args)
    return isinstance(e, ast.Num)
