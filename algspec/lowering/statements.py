"""Lowering of statements: blocks, rounds, foralls and writes (with conflicts); loops are
`algspec.lowering.loops`."""

from __future__ import annotations

from algspec import ir
from algspec.ir import ops
from algspec.language import ast
from algspec.lowering.scope import (
    COMBINERS,
    INDEX_TYPES,
    RESERVED,
    RETURN,
    Abort,
    Reporter,
    Scope,
    implicit_vars,
)


class Statements(Reporter):
    """Statements -> IR statements; rounds and foralls checked for what they may hold."""

    def lower_block(self, stmts: list[ast.Stmt], scope: Scope) -> list[ir.Statement]:
        out: list[ir.Statement] = []
        scope = scope.child()  # lets are visible to the end of their block
        for s in stmts:
            # the procedure calls in the statement's expressions run first (`value_call`)
            saved, self.hoisted = self.hoisted, []
            try:
                lowered = self.stmt(s, scope)
            except Abort:
                continue
            finally:
                first, self.hoisted = self.hoisted, saved
            out.extend(first + lowered)
        return out

    def stmt(self, s: ast.Stmt, scope: Scope) -> list[ir.Statement]:
        if isinstance(s, ast.RecordStmt):
            if scope.in_round:
                self.fail("E501", "`record` inside a round: record after the round", s.span)
            return [ir.Record(id=self.new_id(), span=s.span)]
        if isinstance(s, ast.BreakStmt):
            if scope.in_round and not (scope.per_lane and scope.loop_depth > 0):
                what = "a `forall`" if scope.in_forall else "a round"
                self.fail("E501", f"`break` inside {what}: its processors cannot leave a loop",
                          s.span, help="compute a flag in the round and `break` after it: "
                                       "`if done { break }`")
            if scope.loop_depth == 0:
                self.fail("E503", "`break` outside a loop", s.span)
            return [ir.Break(id=self.new_id(), span=s.span)]
        if isinstance(s, ast.LetStmt):
            if s.name in RESERVED:
                self.fail("E109", f"`{s.name}` is a built-in name", s.span,
                          help="n, N and m are the sizes, index the node number")
            if s.name in self.decls or s.name in scope.index_vars:
                self.fail("E101", f"`{s.name}` is already defined", s.span)
            try:
                v, ax = self.expr(s.value, scope)
            except Abort:  # reported: later uses of the local are not more mistakes
                scope.failed.add(s.name)
                raise
            scope.failed.discard(s.name)
            scope.locals[s.name] = (v.dtype, ax)
            return [ir.Let(id=self.new_id(), name=s.name, value=v, span=s.span)]
        if isinstance(s, ast.AssignStmt):
            return [self.assign(s, scope)]
        if isinstance(s, ast.ReturnStmt):
            if not self.proc_stack:
                self.fail("E709", "`return` outside a procedure", s.span,
                          help="`return EXPR` ends a procedure with its value; the program "
                               "itself ends at its last statement")
            v, ax = self.expr(s.value, scope)
            if ax - frozenset(range(scope.processors)):  # per processor is one value each
                self.fail("E201", "a procedure's value must be one value", s.value.span)
            return [ir.Let(id=self.new_id(), name=RETURN, value=v, span=s.span)]
        if isinstance(s, ast.IfStmt):
            try:
                c, ax = self.expr(s.cond, scope)
                if c.dtype != ir.DType.BOOL:
                    self.fail("E205", "an `if` condition must be boolean", s.cond.span)
                if ax and not scope.in_forall:
                    self.fail("E201", "an `if` condition must be one value", s.cond.span)
            except Abort:  # the branches' own mistakes are reported too; in a forall they
                if not scope.in_forall:  # would miss the condition's pins (false E401s)
                    self.lower_block(s.then, scope)
                    self.lower_block(s.otherwise, scope)
                raise
            sid = self.new_id()
            varying = {k for k, (_, ax) in scope.locals.items() if ax}  # per-processor lets
            then_scope = scope.child(pins=scope.pins + equations(c, scope.index_vars, varying)) \
                if scope.in_forall else scope
            return [ir.If(id=sid, cond=c, then=self.lower_block(s.then, then_scope),
                          otherwise=self.lower_block(s.otherwise, scope), span=s.span)]
        if isinstance(s, (ast.WhileStmt, ast.ForRangeStmt, ast.ForNodesStmt, ast.ForEdgesStmt)):
            return [self.loop(s, scope)]
        if isinstance(s, ast.RoundStmt):
            if scope.in_round:
                self.fail("E501", "rounds do not nest", s.span)
            sid = self.new_id()
            body = self.lower_block(s.body, scope.child(in_round=True))
            return [self.one_combiner_per_datum(ir.Round(id=sid, body=body, span=s.span))]
        if isinstance(s, ast.CallStmt):
            return self.call_proc(s, scope)
        if isinstance(s, (ast.ProcDef, ast.IncludeStmt)):
            what = "procedure" if isinstance(s, ast.ProcDef) else "include"
            self.fail("E706", f"a {what} belongs at the top level of a file", s.span)
        if isinstance(s, ast.ForallStmt):
            if scope.in_forall:
                self.fail("E502", "`forall` cannot be nested; use `forall v, u` for edges", s.span)
            if not scope.in_round:  # sugar: a lone forall is a round of its own
                return [self.one_combiner_per_datum(ir.Round(
                    id=self.new_id(), span=s.span, body=self.stmt(s, scope.child(in_round=True))))]
            return [self.forall(s, scope)]
        raise AssertionError(type(s))

    def one_combiner_per_datum(self, r: ir.Round) -> ir.Round:
        """E404: writes that combine into one datum in one round must agree on how.

        Combined writes from several statements of a round combine together (two
        `by sum` branches add up); `by sum` in one and `by max` in another has no order
        to apply them in, so it is an error rather than a silent choice.
        """
        first: dict[str, tuple[str, ir.Assign]] = {}
        for st, _ in ir.walk_statements(r.body):
            if not isinstance(st, ir.Assign) or st.combiner is None:
                continue
            for t in st.targets:
                seen = first.setdefault(t.name, (st.combiner, st))
                if seen[0] != st.combiner:
                    self.err("E404", f"`{t.name}` is combined `by {seen[0]}` (line "
                             f"{seen[1].span.line}) and `by {st.combiner}` in the same round",
                             t.span, help="use one combiner for the datum in this round, or "
                                          "split the writes into two rounds")
        return r

    def forall(self, s: ast.ForallStmt, scope: Scope) -> ir.Forall:
        spans = s.var_spans or [s.span] * len(s.vars)
        for v, v_span in zip(s.vars, spans):
            if v in self.decls or v in scope.locals or v in RESERVED:
                self.fail("E101", f"`{v}` is already defined; pick another processor name",
                          v_span)
        if len(s.vars) == 2 and s.vars[0] == s.vars[1]:
            self.fail("E101", "the two processor variables must differ", spans[-1])
        inner = scope.child(index_vars=list(s.vars), in_forall=True, processors=len(s.vars))
        guard = None
        if s.guard is not None:
            guard, _ = self.expr(s.guard, inner.child(
                no_calls="in a `where` guard (a procedure's statements run in the body)"))
            if guard.dtype != ir.DType.BOOL:
                self.fail("E205", "a `where` guard must be boolean", s.guard.span)
        sid = self.new_id()
        body = self.lower_block(s.body, inner.child(pins=equations(guard, list(s.vars))))
        return ir.Forall(id=sid, vars=list(s.vars), guard=guard, body=body, span=s.span)

    def target(self, lv: ast.LValue, scope: Scope, comb: str | None) -> tuple[ir.Target, bool]:
        """Lower an assignment target; the flag says whether concurrent writers may collide."""
        if lv.name in scope.locals and not lv.indices:
            dt, _ = scope.locals[lv.name]
            return ir.Target(name=lv.name, loc=ir.Loc.GRAPH, local=True, dtype=dt,
                             span=lv.span), False
        if lv.name in scope.failed and lv.name not in self.decls:
            raise Abort()  # a local whose `let` was reported
        d = self.decls.get(lv.name)
        if d is None and lv.name in self.rejected and lv.name not in scope.index_vars:
            raise Abort()  # its declaration was reported
        if d is None and (lv.name in RESERVED or lv.name in scope.index_vars):
            what = "a processor variable" if lv.name in scope.index_vars else "built in"
            self.fail("E109", f"`{lv.name}` is {what} and cannot be written", lv.span,
                      help="declare state to write (`state graph x: int = 0`) or bind a local "
                           "with `let`")
        if d is None:
            self.unknown_name(lv.name, lv.span,
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
            self.fail("E202", f"`{lv.name}` is {d.loc.value} data and takes {want} "
                      f"ind{'ex' if want == 1 else 'ices'}, not {len(lv.indices)}", lv.span)
        idx = []
        for x in lv.indices:
            xe, _ = self.expr(x, scope)
            if xe.dtype != ir.DType.INT:
                self.fail("E203", "index must be an integer", x.span)
            idx.append(xe)
        varying = frozenset(k for k, (_, ax) in scope.locals.items() if ax)  # per-processor
        conflict = scope.in_forall and not private_write(idx, scope.index_vars, scope.pins,
                                                         self.node_count_sizes(), varying)
        return ir.Target(name=d.name, loc=d.loc, indices=idx, dtype=d.dtype, span=lv.span), \
            conflict

    def node_count_sizes(self) -> frozenset[str]:
        """The sizes equal to the node count N: `N`, and `n` when the file says `nodes n`."""
        nodes = self.prog.nodes
        return frozenset({"N", "n"}) if isinstance(nodes, ast.Name) and nodes.name == "n" \
            else frozenset({"N"})

    def assign(self, s: ast.AssignStmt, scope: Scope) -> ir.Assign:
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
        key: list[ir.Expr] = []
        if comb is not None:
            key = self.combiner_key(s, scope)
        targets, values = [], []
        for lv, ve in zip(s.targets, s.values):
            t, conflict = self.target(lv, scope, comb)
            if conflict and comb is None:
                why = ""
                if scope.per_lane and self.lane_calls:
                    name, at = self.lane_calls[-1]
                    why = (f"`{name}` runs once per processor of the round that calls it "
                           f"(line {at.line}), and in a round each processor writes only its "
                           "own cells unless the write says how concurrent writes combine: ")
                self.fail("E401", f"processors may write `{lv.name}` concurrently; say how "
                          "the writes combine", lv.span,
                          help=why + "append `by priority` (lowest index wins), `by min`, "
                               "`by max`, `by sum`, `by any`, `by all` or `by argmin KEY` / "
                               "`by argmax KEY` (the writer with the smallest/largest key)")
            if t.whole:
                v = self.lower_whole(ve, scope.child(index_vars=implicit_vars(t.loc),
                                                     implicit=True), t.loc)
            else:
                v, ax = self.expr(ve, scope)
                if ax and not scope.in_forall:
                    self.fail("E201", "the value is an array; assign it to a whole node array "
                              "or index it", ve.span)
            if s.op != "=":
                cur_ast = ast.IndexExpr(name=lv.name, indices=lv.indices, span=lv.span) \
                    if lv.indices else ast.Name(name=lv.name, span=lv.span)
                cur, _ = self.expr(cur_ast, scope)
                dt = self.apply_op(ops.BINARY[s.op[0]], [cur_ast, ve], [cur, v], s.span)
                if comb == "sum" and s.op in ("+=", "-="):  # fetch-and-add: sum increments
                    v = v if s.op == "+=" else ir.Unary(op="-", operand=v, dtype=v.dtype,
                                                        span=ve.span)
                else:
                    v = ir.Binary(op=s.op[0], left=cur, right=v, dtype=dt, span=s.span)
            if comb is not None and not ops.COMBINERS[comb].picks and not t.local and \
                    self.decls[t.name].clrs_type in INDEX_TYPES:
                d = self.decls[t.name]
                self.fail("E204", f"`{t.name}` is a {d.clrs_type}: `by {comb}` adds the written "
                          "node indices as numbers", s.combiner_span or s.span,
                          help="pointers index nodes; pick one of the written values with "
                               "`by priority`, `by min` or `by max`")
            if comb is not None:
                try:
                    ops.COMBINERS[comb].type_rule(v.dtype)
                except ops.OpTypeError as err:
                    self.fail("E205", f"`by {comb}` combines values: {err.message}", ve.span)
            targets.append(t)
            values.append(self.coerce(v, t.dtype, ve.span))
        return ir.Assign(id=self.new_id(), targets=targets, values=values, combiner=comb,
                         key=key, span=s.span,
                         accumulate=comb == "sum" and s.op in ("+=", "-="))

    def combiner_key(self, s: ast.AssignStmt, scope: Scope) -> list[ir.Expr]:
        """`by argmin KEY` / `by argmax KEY`: the key each writer is ranked by (a tuple or one value)."""
        comb = s.combiner
        keyed = ops.COMBINERS[comb].keyed
        if s.combiner_key is None:
            if keyed:
                self.fail("E402", f"`by {comb}` needs a key: the writer with the "
                          f"{'smallest' if comb == 'argmin' else 'largest'} key wins",
                          s.combiner_span or s.span, help=f"e.g. `best[v] = u by {comb} (w, u)`")
            return []
        if not keyed:
            self.fail("E402", f"`by {comb}` takes no key; only `by argmin`/`by argmax` do",
                      s.combiner_key.span)
        k, _ = self.key(s.combiner_key, scope, f"by {comb}")
        return list(k.args) if isinstance(k, ir.Tuple) else [k]


def _procs_in(e: ir.Expr, procs: set[str], varying: frozenset[str]) -> set[str]:
    """The processor variables `e` may depend on: its own, and all of them when it reads a
    processor's own `let` (`let w = v` hides v)."""
    if any(isinstance(x, ir.VarRef) and x.local and x.name in varying for x in ir.walk_expr(e)):
        return set(procs)
    return ir.free_ivars(e) & procs


def _shift_of(e: ir.Expr, procs: set[str], node_count: frozenset[str] = frozenset({"N"}),
              varying: frozenset[str] = frozenset()) -> str | None:
    """The processor variable v if `e` is v, -e', e' +/- c or e' ^ c with c free of processor
    variables, or e' % M with M the node count: a rotation `(v + 1) % n` on `nodes n`.

    Such an index is injective in v (over the nodes 0..N-1) once the other processor
    variables are fixed; `node_count` names the sizes that equal N (`N`, and `n` on
    `nodes n`).
    """
    if isinstance(e, ir.IndexVar):
        return e.name if e.name in procs else None
    if isinstance(e, ir.Unary) and e.op == "-":
        return _shift_of(e.operand, procs, node_count, varying)
    if isinstance(e, ir.Binary) and e.op in ("+", "-", "^"):
        for a, c in ((e.left, e.right), (e.right, e.left)):
            if not _procs_in(c, procs, varying):
                v = _shift_of(a, procs, node_count, varying)
                if v is not None:
                    return v
    if isinstance(e, ir.Binary) and e.op == "%" and isinstance(e.right, ir.Size) \
            and e.right.which in node_count:
        return _shift_of(e.left, procs, node_count, varying)
    return None


def private_write(indices: list[ir.Expr], proc_vars: list[str],
                  pins: tuple[tuple[str, ir.Expr], ...] = (),
                  node_count: frozenset[str] = frozenset({"N"}),
                  varying: frozenset[str] = frozenset()) -> bool:
    """Whether each processor of a `forall` writes its own cell (no two write the same place).

    That holds when the index tuple is injective in the processor variables:
    solve for them one index at a time. An index `v` (or `v + c`, `c - v`, ...)
    determines v once the processor variables in c are determined; the write is
    private when every processor variable gets determined, whatever the order of
    the indices (`x[v]`, `A[v, u]`, `A[u, v]`, `A[v, v]` in `forall v`, `A[v, 0]`).
    A guard `v == e` (`pins`) determines v once the processor variables in e are.
    """
    procs = set(proc_vars)
    known: set[str] = set()
    changed = True
    while changed:
        changed = False
        for e in indices:
            v = _shift_of(e, procs - known, node_count, varying)
            if v is not None and v not in known and \
                    _procs_in(e, procs, varying) - {v} <= known:
                known.add(v)
                changed = True
        for v, e in pins:
            if v in procs and v not in known and (ir.free_ivars(e) & procs) - {v} <= known:
                known.add(v)
                changed = True
    return known == procs


def equations(cond: ir.Expr | None, proc_vars: list[str], varying: set[str] = frozenset()
              ) -> tuple[tuple[str, ir.Expr], ...]:
    """The equations `v + c == e` among the conjuncts of a guard, for `private_write`.

    Each is (v, the equation): it fixes v once the equation's other processor
    variables are fixed, when one side is v shifted (`v`, `v + c`, `c - v` with c
    free of v, as in `_shift_of`) and the other free of v. Neither side may read a
    `varying` local (a processor's own `let` may hide v: `let w = v; if v == w`).
    """
    if isinstance(cond, ir.Binary) and cond.op == "and":
        return equations(cond.left, proc_vars, varying) + \
            equations(cond.right, proc_vars, varying)
    out: tuple[tuple[str, ir.Expr], ...] = ()
    if not (isinstance(cond, ir.Binary) and cond.op == "==") or any(
            isinstance(x, ir.VarRef) and x.local and x.name in varying
            for x in ir.walk_expr(cond)):
        return out
    for a, b in ((cond.left, cond.right), (cond.right, cond.left)):
        v = _shift_of(a, set(proc_vars))
        if v is not None and v not in ir.free_ivars(b):
            out += ((v, cond),)
    return out
