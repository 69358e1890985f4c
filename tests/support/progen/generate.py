"""Random well-typed `.alg` programs (as `tests/support/progen/model.py` programs) and their inputs.

The generator is written against a tiny `Chooser` interface so that the same
code serves hypothesis (`programs()`, which shrinks towards fewer and simpler
features) and plain seeded runs (`RandomChooser`, for the benchmark script).

Programs are well typed by construction and avoid run-time faults: every
computed index is reduced `% N`, pointers `% N`, categoricals `% K`, loops
carry counters below their bounds, integer division is by positive constants,
and `min`/`max` aggregations that may be empty have a default. Floats stay
dyadic (inputs are multiples of 1/16, constants multiples of 1/4) so that
numpy's and Python's arithmetic agree; the reference evaluator rejects the
rare program whose sums would round (see `reference.exact_sum`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import numpy as np

from .model import (
    Agg,
    Assign,
    Bin,
    Break,
    Call,
    Cond,
    Const,
    Decl,
    Expr,
    Forall,
    ForNodes,
    ForRange,
    If,
    Let,
    Program,
    Read,
    Record,
    Round,
    Size,
    Target,
    Un,
    Var,
    While,
    Whole,
    mentions,
    number_assigns,
)

GRAPHS = ("complete", "empty", "path", "star", "input")
COMBINERS = {"bool": ("priority", "any", "all"), "int": ("priority", "min", "max", "sum"),
             "float": ("priority", "min", "max", "sum")}


class Chooser:
    """Where the random choices come from."""

    def int(self, lo: int, hi: int) -> int:  # inclusive; shrinks towards lo
        raise NotImplementedError

    def choice(self, seq):  # shrinks towards seq[0]
        return seq[self.int(0, len(seq) - 1)]

    def chance(self, p: float) -> bool:  # shrinks towards False
        return self.int(0, 99) >= 100 - round(100 * p)


class RandomChooser(Chooser):
    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.r.randint(lo, hi)


class DrawChooser(Chooser):
    """Choices drawn from hypothesis (inside `st.composite`)."""

    def __init__(self, draw):
        from hypothesis import strategies as st
        self.draw, self.st = draw, st

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))


@dataclass
class Ctx:
    """What an expression may use where it stands."""

    names: dict = field(default_factory=dict)  # bound name -> kind ("int", "float", "bool")
    assignable: dict = field(default_factory=dict)  # `let`s this level may reassign -> kind
    nodevars: tuple = ()  # bound names that are node indices (processors, aggregation vars)
    procs: tuple = ()  # the forall's processor variables
    view: str | None = None  # location of the view being defined (implicit `index`)
    inputs_only: bool = False  # an input view or a pad: inputs only
    in_round: bool = False
    in_loop: bool = False
    agg_depth: int = 0
    # the round's combiner per datum (one per datum and round, else E404); shared by
    # every forall of a `round` (the same dict object), fresh for a lone forall
    round_combs: dict | None = None

    def scope(self) -> Ctx:
        """A nested block: its `let`s stay inside it."""
        return replace(self, names=dict(self.names), assignable=dict(self.assignable))

    def bind(self, name: str, kind: str, node: bool = False) -> Ctx:
        return replace(self, names={**self.names, name: kind},
                       nodevars=self.nodevars + ((name,) if node else ()))


class Gen:
    """One program's generator state: declarations, fresh names, budgets."""

    def __init__(self, c: Chooser, max_stmts: int = 14, avoid: frozenset = frozenset(),
                 faults: bool = False):
        self.c = c
        self.faults = faults  # sometimes leave out the guards: indices, divisors, defaults
        self.avoid = avoid  # known bugs to steer around (see KNOWN_BUGS in test_differential)
        self.decls: list[Decl] = []
        self.counter = 0
        self.budget = max_stmts  # statements left to place
        self.loops = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -------------------------------------------------------------- data
    def data(self, ctx: Ctx, kind: str | None = None, loc: str | None = None,
             writable: bool = False) -> list[Decl]:
        out = []
        for d in self.decls:
            if kind is not None and d.kind != kind:
                continue
            if loc is not None and d.loc != loc:
                continue
            if writable and (d.stage == "input" or d.view is not None):
                continue
            if ctx.inputs_only and d.stage != "input":
                continue
            if ctx.view is not None and d.view is not None and d.stage != "input" and \
                    "view-of-view" in self.avoid:
                continue
            if d.type == "mask_one" and ctx.view is not None:
                continue
            out.append(d)
        return out

    # -------------------------------------------------------------- expressions
    def node_index(self, ctx: Ctx, depth: int) -> Expr:
        """An int expression that is a valid node index."""
        c = self.c
        opts = ["const"]
        if ctx.nodevars:
            opts += ["var", "var"]
        if ctx.view in ("node", "edge"):
            opts += ["index"]
        if depth > 0 and any(d.type == "pointer" for d in self.data(ctx, "int")):
            opts += ["ptr"]
        if depth > 0:
            opts += ["mod"]
        k = c.choice(opts)
        if k == "const":
            return Const(c.int(0, 2))
        if k == "var":
            return Var(c.choice(ctx.nodevars))
        if k == "index":
            return Var("index")
        if k == "ptr":
            d = c.choice([d for d in self.data(ctx, "int") if d.type == "pointer"])
            return self.read_at(d, ctx, depth - 1)
        if self.faults and c.chance(0.15):
            return self.expr("int", ctx, depth - 1)  # may be out of range: R101
        return Bin("%", self.expr("int", ctx, depth - 1), Size("N"))

    def read_at(self, d: Decl, ctx: Ctx, depth: int) -> Expr:
        """Read datum `d` with an index form chosen at random (raw value; pointers unwrapped)."""
        c = self.c
        if d.loc == "graph":
            return Var(d.name)
        if ctx.view is not None and (d.loc == ctx.view or (d.loc == "node" and ctx.view == "edge")):
            if c.chance(0.6):
                return Read(d.name)  # pointwise
            if d.loc == "edge" and c.chance(0.5):
                return Whole("transpose", d.name)
        if d.loc == "edge" and ctx.view is not None and ctx.view != "edge":
            return Read(d.name, (self.node_index(ctx, depth), self.node_index(ctx, depth)))
        if d.loc == "node":
            return Read(d.name, (self.node_index(ctx, depth),))
        # Edge reads: own, transposed, diagonal, row/column, both computed.
        p = ctx.nodevars
        forms = ["computed"]
        if p:
            forms += ["diag", "row", "col"]
        if len(p) >= 2:
            forms += ["own", "own", "transposed"]
        f = c.choice(forms)
        if f == "own":
            a, b = p[-2], p[-1]
            return Read(d.name, (Var(a), Var(b)))
        if f == "transposed":
            a, b = p[-2], p[-1]
            return Read(d.name, (Var(b), Var(a)))
        if f == "diag":
            a = Var(c.choice(p))
            return Read(d.name, (a, a))
        if f in ("row", "col"):
            a = Var(c.choice(p))
            other = self.node_index(replace(ctx, nodevars=()), depth)  # graph-level or computed
            return Read(d.name, (a, other) if f == "row" else (other, a))
        return Read(d.name, (self.node_index(ctx, depth), self.node_index(ctx, depth)))

    def leaf(self, kind: str, ctx: Ctx, depth: int) -> Expr:
        c = self.c
        opts = ["const"]
        names = [k for k, v in ctx.names.items() if v == kind]
        if names:
            opts += ["name", "name"]
        data = [d for d in self.data(ctx, kind) if d.type != "mask_one" or ctx.view is None]
        if data:
            opts += ["read", "read", "read"]
        if kind == "int":
            opts += ["size"]
            if ctx.view in ("node", "edge"):
                opts += ["index"]
        k = c.choice(opts)
        if k == "const":
            if kind == "bool":
                return Const(c.chance(0.5))
            if kind == "int":
                return Const(c.int(0, 5))
            return Const(c.int(-8, 8) / 4)
        if k == "name":
            return Var(c.choice(names))
        if k == "size":
            return Size(c.choice(["n", "N", "m"] if not ctx.inputs_only else ["n", "N"]))
        if k == "index":
            return Var("index")
        d = c.choice(data)
        r = self.read_at(d, ctx, depth)
        if d.type in ("pointer", "categorical"):  # E204: used as a number only with ints
            return Bin("+", r, Const(c.int(0, 3)))
        return r

    def expr(self, kind: str, ctx: Ctx, depth: int) -> Expr:
        c = self.c
        if depth <= 0 or c.chance(0.3):
            return self.leaf(kind, ctx, depth)
        d = depth - 1
        agg_ok = ctx.agg_depth < 2 and not ctx.inputs_only
        if kind == "float":
            k = c.choice(["add", "sub", "scale", "half", "neg", "float", "minmax", "cond", "abs",
                          "agg", "mul", "sqrt", "mix", "idiv"])
            if k == "mix":  # int and float: the int is promoted
                a, b = self.expr("int", ctx, d), self.expr("float", ctx, d)
                return Bin(c.choice(["+", "-", "*"]), *((a, b) if c.chance(0.5) else (b, a)))
            if k == "idiv":
                return Bin("/", self.expr("int", ctx, d), Const(c.choice([2, 4])))
            if k in ("add", "sub"):
                return Bin("+" if k == "add" else "-", self.expr("float", ctx, d),
                           self.expr("float", ctx, d))
            if k == "scale":
                return Bin("*", self.expr("float", ctx, d), Const(c.choice([0.5, 2.0, -1.0, 0.25])))
            if k == "half":
                return Bin("/", self.expr("float", ctx, d), Const(c.choice([2.0, 4.0])))
            if k == "neg":
                return Un("-", self.expr("float", ctx, d))
            if k == "float":
                return Call("float", (self.expr("int", ctx, d),))
            if k == "minmax":
                return Call(c.choice(["min", "max"]), (self.expr("float", ctx, d),
                                                        self.expr("float", ctx, d)))
            if k == "cond":
                return Cond(self.expr("bool", ctx, d), self.expr("float", ctx, d),
                            self.expr("float", ctx, d))
            if k == "abs":
                return Call("abs", (self.expr("float", ctx, d),))
            if k == "mul":
                return Bin("*", self.expr("float", ctx, d), self.expr("float", ctx, d))
            if k == "sqrt":
                return Call("sqrt", (Call("abs", (self.expr("float", ctx, d),)),))
            if agg_ok:
                return self.agg(c.choice(["sum", "min", "max"]), "float", ctx, d)
            return self.leaf(kind, ctx, d)
        if kind == "int":
            k = c.choice(["add", "sub", "scale", "div", "mod", "conv", "minmax", "cond", "abs",
                          "count", "agg", "neg"])
            if k == "neg":
                return Un("-", self.expr("int", ctx, d))
            if k in ("add", "sub"):
                return Bin("+" if k == "add" else "-", self.expr("int", ctx, d),
                           self.expr("int", ctx, d))
            if k == "scale":
                return Bin("*", self.expr("int", ctx, d), Const(c.int(2, 3)))
            if k == "div" and self.faults and c.chance(0.3):  # may divide by zero: R104
                return Bin(c.choice(["//", "%"]), self.expr("int", ctx, d),
                           self.expr("int", ctx, d))
            if k == "div":
                return Bin("//", self.expr("int", ctx, d), Const(c.int(2, 4)))
            if k == "mod":
                return Bin("%", self.expr("int", ctx, d), Const(c.int(2, 5)))
            if k == "conv":
                return Call(c.choice(["int", "floor", "ceil"]), (self.expr("float", ctx, d),))
            if k == "minmax":
                return Call(c.choice(["min", "max"]), (self.expr("int", ctx, d),
                                                        self.expr("int", ctx, d)))
            if k == "cond":
                return Cond(self.expr("bool", ctx, d), self.expr("int", ctx, d),
                            self.expr("int", ctx, d))
            if k == "abs":
                return Call("abs", (self.expr("int", ctx, d),))
            if agg_ok:
                op = "count" if k == "count" else c.choice(["sum", "min", "max"])
                return self.agg(op, "int", ctx, d)
            return self.leaf(kind, ctx, d)
        k = c.choice(["cmp", "cmp", "and", "or", "not", "agg", "cmpi", "cmpx"])
        if k == "cmpx":  # an int against a float
            op = c.choice(["<", "<=", ">", ">=", "==", "!="])
            return Bin(op, self.expr("int", ctx, d), self.expr("float", ctx, d))
        if k in ("cmp", "cmpi"):
            sub = "float" if k == "cmp" else "int"
            op = c.choice(["<", "<=", ">", ">=", "==", "!="])
            return Bin(op, self.expr(sub, ctx, d), self.expr(sub, ctx, d))
        if k in ("and", "or"):
            return Bin(k, self.expr("bool", ctx, d), self.expr("bool", ctx, d))
        if k == "not":
            return Un("not", self.expr("bool", ctx, d))
        if agg_ok:
            return self.agg(c.choice(["any", "all"]), "bool", ctx, d)
        return self.leaf(kind, ctx, d)

    def agg(self, op: str, kind: str, ctx: Ctx, depth: int) -> Agg:
        c = self.c
        var = self.fresh("w")
        domain = c.choice(["nodes", "incoming", "outgoing"])
        of = None if domain == "nodes" else self.node_index(ctx, depth)
        inner = replace(ctx.bind(var, "int", node=True), agg_depth=ctx.agg_depth + 1)
        body_kind = "bool" if op in ("any", "all", "count") else kind
        body = self.expr(body_kind, inner, depth)
        filt = self.expr("bool", inner, depth) if c.chance(0.5) else None
        if "const-agg" in self.avoid and domain == "nodes" and op in ("sum", "count") and \
                not mentions(body, var) and (filt is None or not mentions(filt, var)):
            filt = Bin("==", Var(var), Var(var)) if filt is None else Bin("and", filt, Bin(
                "==", Var(var), Var(var)))
        default = None
        if op in ("min", "max") and (filt is not None or c.chance(0.3)) and \
                not (self.faults and c.chance(0.3)):  # no default: may be empty, R103
            default = self.expr(kind, ctx, 0)
        return Agg(op, var, domain, of, body, filt, default)

    def value_for(self, d: Decl, ctx: Ctx, depth: int) -> Expr:
        """A value that may be stored in `d` without a run-time fault."""
        e = self.expr(d.kind, ctx, depth)
        if d.limit is not None:
            return Bin("%", e, Size("N") if d.limit == "N" else Const(d.limit))
        return e

    # -------------------------------------------------------------- declarations
    def declarations(self) -> tuple[str, str]:
        c = self.c
        graph = c.choice(GRAPHS)
        edge_input = graph == "input" or c.chance(0.3)
        nodes = "n + 1" if not edge_input and c.chance(0.25) else "n"
        g_input = c.chance(0.5)
        if g_input:
            self.decls.append(Decl("input", "graph", "s", "scalar",
                                   generator="uniform_scalar(low = 0.0, high = 2.0)"))
        pad = None
        if nodes != "n":
            pad = Var("s") if g_input and c.chance(0.5) else Const(1.5)
        self.decls.insert(0, Decl("input", "node", "key", "scalar",
                                  generator="uniform(low = 0.0, high = 2.0)", pad=pad))
        if edge_input:
            self.decls.append(Decl("input", "edge", "A", "scalar",
                                   generator="erdos_renyi(p = 0.5, directed = true)"))
        if graph == "input":
            self.decls.append(Decl("input", "edge", "adj", "mask",
                                   view=c.choice([Whole("adjacency", "A"),
                                                  Whole("adjacency_t", "A")])))
        if c.chance(0.2):
            vctx = Ctx(view="node", inputs_only=True)
            self.decls.append(Decl("input", "node", "kk", "scalar",
                                   view=self.expr("float", vctx, 1)))
        # Stored data: at least one hint and one output.
        stages = ["hint", "output"] + [c.choice(["state", "hint", "output"])
                                       for _ in range(c.int(1, 5))]
        for stage in stages:
            loc = c.choice(["node", "graph", "edge"])
            if stage == "state":
                typ = c.choice(["int", "float", "bool"])
            elif loc == "edge":
                typ = c.choice(["scalar", "mask", "pointer"])
            else:
                typ = c.choice(["scalar", "mask", "pointer", "categorical"])
            d = Decl(stage, loc, self.fresh(loc[0] + typ[0]), typ,
                     categories=c.int(2, 4) if typ == "categorical" else None)
            if c.chance(0.5):
                d.initial = self.value_for(d, Ctx(view=loc, inputs_only=True), 1)
            self.decls.append(d)
        # Views of the state: hints and outputs, mask_one as onehot of a graph int.
        for _ in range(c.int(0, 2)):
            stage = c.choice(["hint", "output"])
            loc = c.choice(["node", "graph", "edge"])
            ints = [d for d in self.data(Ctx(), "int", "graph") if d.stage != "input"]
            if loc == "node" and ints and c.chance(0.5):
                octx = Ctx(view="graph", agg_depth=2 if "onehot-agg" in self.avoid else 0)
                d = Decl(stage, "node", self.fresh("v1"), "mask_one",
                         view=Whole("onehot", Bin("%", self.expr("int", octx, 1), Size("N"))))
            else:
                typ = c.choice(["scalar", "mask"])
                d = Decl(stage, loc, self.fresh("v" + typ[0]), typ)
                d.view = self.expr(d.kind, Ctx(view=loc), 2)
            self.decls.append(d)
        return nodes, graph

    # -------------------------------------------------------------- statements
    def block(self, ctx: Ctx, n_max: int, depth: int) -> list:
        out = []
        for _ in range(self.c.int(1, n_max)):
            if self.budget <= 0:
                break
            self.budget -= 1
            out += self.stmt(ctx, depth)
        return out

    def stmt(self, ctx: Ctx, depth: int) -> list:
        c = self.c
        kinds = ["assign", "assign", "let", "if", "forall", "forall"]
        if ctx.assignable:
            kinds += ["lassign"]
        if not ctx.in_round:
            kinds += ["record", "record", "round"]
            if depth > 0 and self.loops < 3:
                kinds += ["for", "while", "fornodes"]
        if ctx.in_loop and not ctx.in_round:
            kinds += ["break"]
        k = c.choice(kinds)
        if k == "record":
            return [Record()]
        if k == "break":
            return [If(self.expr("bool", ctx, 2), [Break()])]
        if k == "let":
            kind = c.choice(["int", "float", "bool"])
            name = self.fresh("l")
            stmt = Let(name, self.expr(kind, ctx, 2))
            ctx.names[name] = kind  # visible to the end of the block
            ctx.assignable[name] = kind
            return [stmt]
        if k == "lassign":
            return [self.local_assign(ctx)]
        if k == "assign":
            return self.seq_assign(ctx)
        if k == "if":
            cond = self.expr("bool", ctx, 2)
            then = self.block(ctx.scope(), 2, depth - 1)
            els = self.block(ctx.scope(), 2, depth - 1) if c.chance(0.5) else []
            return [If(cond, then, els)]
        if k == "forall":
            return [self.forall(ctx)]
        if k == "round":
            body = self.block(replace(ctx.scope(), in_round=True, round_combs={}), 3, 1)
            return [Round(body)]
        self.loops += 1
        inner = replace(ctx.scope(), in_loop=True)
        if k == "fornodes":
            var = self.fresh("x")
            key = self.expr(c.choice(["float", "int"]), Ctx(view="node"), 1)
            body = self.block(inner.bind(var, "int", node=True), 3, depth - 1)
            return [ForNodes(var, key, body)]
        if k == "for":
            var = self.fresh("i")
            stop = c.choice([Size("n"), Size("N"), Const(3), Bin("-", Size("n"), Const(1))])
            start = Const(c.int(0, 1)) if c.chance(0.6) else \
                Bin("%", self.expr("int", ctx, 1), Size("n"))
            body = self.block(inner.bind(var, "int"), 3, depth - 1)
            return [ForRange(var, start, stop, c.chance(0.4), body)]
        # while: a counter below its bound, plus a data-dependent condition.
        cnt = Decl("state", "graph", self.fresh("wc"), "int")
        self.decls.append(cnt)
        limit = c.choice([Size("n"), Bin("-", Size("n"), Const(1)), Const(2)])
        cond = Bin("<", Var(cnt.name), limit)
        if c.chance(0.6):
            cond = Bin("and", cond, self.expr("bool", ctx, 2))
        body = self.block(inner, 3, depth - 1)
        body.append(Assign([Target(cnt.name)], [Const(1)], op="+="))
        start = Const(0) if c.chance(0.7) else Bin("%", self.expr("int", ctx, 1), Const(3))
        return [Assign([Target(cnt.name)], [start]),
                While(cond, c.choice([Size("n"), Bin("+", Size("n"), Const(1)), Size("m")]), body)]

    def local_assign(self, ctx: Ctx) -> Assign:
        """Reassign a `let` of this level (plain or compound)."""
        name = self.c.choice(sorted(ctx.assignable))
        kind = ctx.assignable[name]
        op = self.c.choice(["=", "+=", "-=", "*="]) if kind != "bool" else "="
        return Assign([Target(name)], [self.expr(kind, ctx, 2)], op=op)

    def seq_assign(self, ctx: Ctx) -> list:
        """A sequential write: a graph datum, one indexed element, a whole array, or a swap."""
        c = self.c
        writable = [d for d in self.data(ctx, writable=True) if not d.name.startswith("wc")]
        if not writable:
            return []
        d = c.choice(writable)
        if d.loc == "graph":
            if c.chance(0.2):
                others = [e for e in writable if e.loc == "graph" and e.name != d.name]
                if others:
                    e = c.choice(others)
                    return [Assign([Target(d.name), Target(e.name)],
                                   [self.value_for(d, ctx, 2), self.value_for(e, ctx, 2)])]
            if d.limit is None and d.kind != "bool" and c.chance(0.3):
                return [Assign([Target(d.name)], [self.expr(d.kind, ctx, 2)],
                               op=c.choice(["+=", "-="]))]
            return [Assign([Target(d.name)], [self.value_for(d, ctx, 2)])]
        if c.chance(0.2):  # whole array: pointwise (bare names read at each element)
            v = self.value_for(d, Ctx(view=d.loc), c.int(0, 1))
            return [Assign([Target(d.name)], [v])]
        idx = tuple(Bin("%", self.expr("int", ctx, 1), Size("N")) if c.chance(0.5)
                    else Const(c.int(0, 2)) for _ in range(1 if d.loc == "node" else 2))
        if d.loc == "node" and c.chance(0.2):  # swap two elements, Python style
            j = (Const(c.int(0, 2)),)
            return [Assign([Target(d.name, idx), Target(d.name, j)],
                           [Read(d.name, j), Read(d.name, idx)])]
        return [Assign([Target(d.name, idx)], [self.value_for(d, ctx, 2)])]

    def forall(self, ctx: Ctx) -> Forall:
        c = self.c
        edge = c.chance(0.35)
        vars_ = ("v", "u") if edge else ("v",)
        inner = replace(ctx.scope(), procs=vars_, assignable={},
                        round_combs=ctx.round_combs if ctx.in_round else {})
        for v in vars_:
            inner = inner.bind(v, "int", node=True)
        guard = self.expr("bool", inner, 2) if c.chance(0.5) else None
        body = self.forall_block(inner, c.int(1, 3), 1)
        return Forall(vars_, guard, body)

    def forall_block(self, ctx: Ctx, count: int, depth: int) -> list:
        c = self.c
        out = []
        for _ in range(count):
            k = c.choice(["write", "write", "write", "let", "if"] if depth > 0 else
                         ["write", "write", "let"] + (["lassign"] if ctx.assignable else []))
            if k == "lassign" and ctx.assignable:
                out.append(self.local_assign(ctx))
            elif k == "let":
                kind = c.choice(["int", "float", "bool"])
                name = self.fresh("l")
                out.append(Let(name, self.expr(kind, ctx, 2)))
                ctx.names[name] = kind
                ctx.assignable[name] = kind
            elif k == "if":
                then = self.forall_block(ctx.scope(), c.int(1, 2), 0)
                els = self.forall_block(ctx.scope(), c.int(1, 2), 0) \
                    if c.chance(0.5) else []
                out.append(If(self.expr("bool", ctx, 2), then, els))
            else:
                out += self.par_write(ctx)
        return out

    @staticmethod
    def round_comb(ctx: Ctx, name: str, comb: str | None) -> str | None:
        """`comb`, or the combiner this round already uses for `name`."""
        if comb is None or ctx.round_combs is None:
            return comb
        return ctx.round_combs.setdefault(name, comb)

    def par_write(self, ctx: Ctx) -> list:
        """A write from a forall: own element, remote element, or graph datum."""
        c = self.c
        writable = [d for d in self.data(ctx, writable=True) if not d.name.startswith("wc")]
        if not writable:
            return []
        d = c.choice(writable)
        p = ctx.procs
        own = (d.loc == "node" and len(p) == 1) or (d.loc == "edge" and len(p) == 2)
        if own and c.chance(0.6):
            idx = tuple(Var(v) for v in p)
            if d.limit is None and d.kind != "bool" and c.chance(0.25):
                comb = self.round_comb(ctx, d.name, "sum") \
                    if d.kind == "int" and c.chance(0.5) else None
                return [Assign([Target(d.name, idx)], [self.expr(d.kind, ctx, 2)],
                               op=c.choice(["+=", "-="]), comb=comb if comb == "sum" else None)]
            comb = self.round_comb(ctx, d.name, c.choice(COMBINERS[d.kind][:1] + (None,) * 3))
            return [Assign([Target(d.name, idx)], [self.value_for(d, ctx, 2)], comb=comb)]
        combs = [x for x in COMBINERS[d.kind] if not (x == "sum" and d.limit is not None)]
        comb = self.round_comb(ctx, d.name, c.choice(combs))
        # `x += e by sum` (fetch-and-add: x plus every writer's e, once), on int data so
        # that the order of the additions cannot matter
        op = c.choice(["+=", "-="]) if comb == "sum" and d.kind == "int" and c.chance(0.6) \
            else "="
        value = self.expr(d.kind, ctx, 2) if op != "=" else self.value_for(d, ctx, 2)
        if d.loc == "graph":
            return [Assign([Target(d.name)], [value], op=op, comb=comb)]
        n_idx = 1 if d.loc == "node" else 2
        idx = tuple(self.node_index(ctx, 2) for _ in range(n_idx))
        return [Assign([Target(d.name, idx)], [value], op=op, comb=comb)]

    # -------------------------------------------------------------- program
    def program(self) -> Program:
        nodes, graph = self.declarations()
        body = []
        if self.c.chance(0.7):
            body.append(Record())
        body += self.block(Ctx(), 6, 2)
        body.append(Record())
        prog = Program(nodes, graph, self.decls, body)
        number_assigns(prog)
        return prog


def gen_program(c: Chooser, max_stmts: int = 14, avoid: frozenset = frozenset(),
                faults: bool = False) -> Program:
    """A random program; `avoid` names known bugs whose trigger the generator steers around.

    `faults`: some indices, divisors and `min`/`max` defaults are left unguarded,
    so that runs may fault (R101, R103, R104); algspec must fault alike.
    """
    return Gen(c, max_stmts, avoid, faults).program()


def programs(max_stmts: int = 14, avoid: frozenset = frozenset(), faults: bool = False):
    """A hypothesis strategy of programs."""
    from hypothesis import strategies as st

    @st.composite
    def _programs(draw):
        return gen_program(DrawChooser(draw), max_stmts, avoid, faults)

    return _programs()


# ------------------------------------------------------------------ inputs
def node_count(p: Program, n: int) -> int:
    return n + 1 if p.nodes == "n + 1" else n


def gen_inputs(p: Program, n: int, batch: int, seed: int) -> dict[str, np.ndarray]:
    """Primary inputs for `batch` samples: dyadic values (multiples of 1/16) in [0, 2)."""
    r = np.random.default_rng(seed)
    N = node_count(p, n)
    out = {}
    for d in p.primary_inputs:
        if d.loc == "graph":
            out[d.name] = r.integers(0, 32, batch) / 16
        elif d.loc == "node":
            out[d.name] = r.integers(0, 32, (batch, n)) / 16
        else:
            a = r.integers(1, 32, (batch, N, N)) / 16
            out[d.name] = np.where(r.random((batch, N, N)) < 0.45, a, 0.0)
    return out
