"""Lowering of statements: blocks, rounds, foralls, loops and writes (with conflicts)."""

from __future__ import annotations

import math

from algspec import ir, ops
from algspec.diagnostics import Span
from algspec.language import ast
from algspec.lowering.procedures import RETURN
from algspec.lowering.scope import (
    COMBINERS,
    INDEX_TYPES,
    RESERVED,
    Abort,
    Reporter,
    Scope,
    implicit_vars,
)
from algspec.size_text import size_text


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
            if scope.in_round:
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
            if ax:
                self.fail("E201", "a procedure's value must be one value", s.value.span)
            return [ir.Let(id=self.new_id(), name=RETURN, value=v, span=s.span)]
        if isinstance(s, ast.IfStmt):
            c, ax = self.expr(s.cond, scope)
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "an `if` condition must be boolean", s.cond.span)
            if ax and not scope.in_forall:
                self.fail("E201", "an `if` condition must be one value", s.cond.span)
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
        inner = scope.child(index_vars=list(s.vars), in_forall=True)
        guard = None
        if s.guard is not None:
            guard, _ = self.expr(s.guard, inner)
            if guard.dtype != ir.DType.BOOL:
                self.fail("E205", "a `where` guard must be boolean", s.guard.span)
        sid = self.new_id()
        body = self.lower_block(s.body, inner.child(pins=equations(guard, list(s.vars))))
        return ir.Forall(id=sid, vars=list(s.vars), guard=guard, body=body, span=s.span)

    def loop(self, s, scope: Scope) -> ir.Statement:
        if scope.in_round:
            self.fail("E501", "loops are not allowed inside a round", s.span,
                      help="a round is one synchronous step; put the loop around the round")
        inner = scope.child(loop_depth=scope.loop_depth + 1)
        if isinstance(s, ast.WhileStmt):
            c, _ = self.expr(s.cond, scope.child(
                no_calls="in a `while` condition (evaluated before every trip)"))
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "a `while` condition must be boolean", s.cond.span)
            if s.bound is None:
                self.fail("E604", "`while` needs a worst-case bound in n and m", s.span,
                          help="e.g. `while lo < hi bound log2(n) + 1 { ... }`; the interpreter "
                               "enforces it and the efficiency analysis counts it")
            bound = self.static_expr(s.bound, "loop bound")
            if bound is None:
                raise Abort()
            sid = self.new_id()
            return ir.While(id=sid, cond=c, bound=bound, whp=s.whp,
                            body=self.lower_block(s.body, inner), span=s.span)
        if isinstance(s, ast.ForEdgesStmt):
            return self.for_edges(s, scope, inner)
        var_local = self.loop_var(s.var, s.span, scope, inner)
        if isinstance(s, ast.ForRangeStmt):
            start, _ = self.expr(s.start, scope)
            stop, _ = self.expr(s.stop, scope)
            for x, a in ((start, s.start), (stop, s.stop)):
                if x.dtype != ir.DType.INT:
                    self.fail("E203", "range ends must be integers", a.span)
            step, down = self.range_step(s, start, stop, scope) if s.step is not None else \
                (None, False)
            bound = self.range_bound(start, stop, s, step, down)
            sid = self.new_id()
            extra = {"step": step} if step is not None else {}
            return ir.ForRange(id=sid, var=s.var, var_local=var_local, start=start, stop=stop,
                               reverse=s.reverse, bound=bound,
                               body=self.lower_block(s.body, inner), span=s.span, **extra)
        key = self.lower_whole(s.key, scope.child(index_vars=["@i"], implicit=True), ir.Loc.NODE)
        if key.dtype not in ops.NUMERIC:
            self.fail("E205", "nodes are ordered by a numeric key", s.key.span)
        sid = self.new_id()
        return ir.ForNodes(id=sid, var=s.var, var_local=var_local, key=key, unstable=s.unstable,
                           body=self.lower_block(s.body, inner), span=s.span)

    def loop_var(self, name: str, span: Span, scope: Scope, inner: Scope) -> bool:
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

    def range_bound(self, start: ir.Expr, stop: ir.Expr, s: ast.ForRangeStmt,
                    step: ir.Expr | None = None, down: bool = False) -> ir.Expr:
        if s.bound is not None:  # `for x in a .. b bound B`: B trips at most, checked at run time
            bound = self.static_expr(s.bound, "loop bound")
            if bound is None:
                raise Abort()
            return bound
        if step is not None:
            return self.step_bound(start, stop, s, step, down)
        if not _static(stop):
            self.fail("E602", "the end of a range must be an expression in n and m", s.stop.span,
                      help="declare its worst-case trips: `for x in a .. b bound EXPR`, or use "
                           "`while cond bound EXPR`")
        if _static(start):
            return ir.Binary(op="-", left=stop, right=start, dtype=ir.DType.INT)
        return stop  # worst case: start at 0

    def step_bound(self, start: ir.Expr, stop: ir.Expr, s: ast.ForRangeStmt, step: ir.Expr,
                   down: bool) -> ir.Expr:
        """ceil(span / |step|): the trips of `a .. b step s` whose far end is an expression in
        n and m. A data-dependent near end is at worst 0 going up (as a unit range assumes),
        -1 going down (so a descending range ends at most at index 0)."""
        INT = ir.DType.INT
        sp = s.step.span if s.step is not None else s.span  # where E605 points, if it must
        if down:
            far, near, far_ast = start, stop, s.start
            worst = ir.Const(value=-1, dtype=INT)
            size = _negated(step, sp)
        else:
            far, near, far_ast = stop, start, s.stop
            worst = ir.Const(value=0, dtype=INT)
            size = step
        if not _static(far):
            where = "start of a range that counts down" if down else "end of a range"
            self.fail("E602", f"the {where} must be an expression in n and m", far_ast.span,
                      help="declare its worst-case trips: `for x in a .. b step s bound EXPR`")
        near = near if _static(near) else worst
        span = far if isinstance(near, ir.Const) and near.value == 0 else \
            ir.Binary(op="-", left=far, right=near, dtype=INT, span=sp)
        trips = ir.Binary(op="/", left=span, right=size, dtype=ir.DType.FLOAT, span=sp)
        return ir.Call(func="ceil", args=[trips], dtype=INT, span=sp)

    def range_step(self, s: ast.ForRangeStmt, start: ir.Expr, stop: ir.Expr, scope: Scope
                   ) -> tuple[ir.Expr, bool]:
        """`step s`: an int whose sign is the direction. A step in n and m is checked here
        (E606 where it is 0, changes sign with n, or points away from ends in n); one that
        reads data needs a declared `bound` (E602), and the run time checks it (R111)."""
        sp = s.step.span
        if s.reverse:
            self.fail("E606", "`reversed` with `step`: a negative step counts down", sp,
                      help="count down from the first value: `for i in n - 1 .. -1 step -2` "
                           "visits n - 1, n - 3, ... down to 0 or 1")
        step, ax = self.expr(s.step, scope)
        if ax:
            self.fail("E201", "a range step must be one value", sp)
        if step.dtype != ir.DType.INT:
            self.fail("E203", f"a range step must be an integer, not {step.dtype.value}", sp)
        if not _static(step):
            if s.bound is None:
                self.fail("E602", "a range whose step reads data needs its worst-case trips",
                          sp, help="declare them: `for x in a .. b step s bound EXPR` (checked "
                                   "at run time, R102)")
            return step, False  # its direction is known at run time only
        text = size_text(step)
        signs = {v > 0 for v in _values(step, self.node_count_ir()) if v != 0}
        if not signs:
            self.fail("E606", f"the range step `{text}` is 0: the loop would never advance", sp,
                      help="step by a positive int to count up, a negative one to count down")
        if len(signs) == 2:
            pos, neg = (_first_n(step, self.node_count_ir(), f) for f in (1, -1))
            self.fail("E606", f"the sign of the range step `{text}` changes with n (positive "
                      f"at n = {pos}, negative at n = {neg}): the direction must not", sp,
                      help="a range counts up (step > 0) or down (step < 0) at every size; use "
                           "`max(1, ...)` or `min(-1, ...)` to keep the sign")
        down = signs == {False}
        if _static(start) and _static(stop):
            d = [v for v in _values(ir.Binary(op="-", left=stop, right=start, dtype=ir.DType.INT),
                                    self.node_count_ir())]
            if d and all(x * (-1 if down else 1) <= 0 for x in d) and \
                    any(x * (-1 if down else 1) < 0 for x in d):
                ends = f"{size_text(start)} .. {size_text(stop)}"
                self.fail("E606", f"`step {text}` counts {'down' if down else 'up'}, but "
                          f"`{ends}` runs {'up' if down else 'down'}: the step points away "
                          "from the end", sp,
                          help="a negative step counts down from the start: `for i in n - 1 .. "
                               "-1 step -1` visits n - 1, ..., 0; a positive one counts up: "
                               "`for i in 0 .. n step 2`")
        return step, down

    def node_count_ir(self) -> ir.Expr | None:
        return getattr(self, "node_count", None)

    def for_edges(self, s: ast.ForEdgesStmt, scope: Scope, inner: Scope) -> ir.ForEdges:
        """`for (u, v) in edges(A)`: the pairs with A[u, v] != 0, one trip each."""
        if s.func != "edges":
            self.fail("E607", f"`for ({s.vars[0]}, {s.vars[1]}) in` loops over `edges(A)`, not "
                      f"`{s.func}(...)`", s.func_span,
                      help="`for (u, v) in edges(A)` visits the pairs with A[u, v] != 0")
        d = self.decls.get(s.array)
        if d is None:
            if s.array in scope.locals or s.array in RESERVED:
                self.fail("E607", f"`edges` takes a declared edge array; `{s.array}` is "
                          f"{'a local value' if s.array in scope.locals else 'built in'}",
                          s.array_span)
            self.unknown_name(s.array, s.array_span, help="declare an edge array, e.g. "
                              "`input edge A: mask ~ erdos_renyi()`")
        if d.loc != ir.Loc.EDGE:
            self.fail("E607", f"`edges` takes an edge array; `{s.array}` is {d.loc.value} data",
                      s.array_span, help="loop over the nodes with `for x in 0 .. N` or `for "
                                         "x in nodes by KEY`" if d.loc == ir.Loc.NODE else
                      "declare the graph as edge data: `input edge A: mask ~ erdos_renyi()`")
        spans = s.var_spans or [s.span, s.span]
        if s.vars[0] == s.vars[1]:
            self.fail("E101", f"the two ends of an edge need two names, not `{s.vars[0]}` twice",
                      spans[1])
        local = [self.loop_var(x, sp, scope, inner) for x, sp in zip(s.vars, spans)]
        i, j = ir.IndexVar(name="@i", axis=0), ir.IndexVar(name="@j", axis=1)
        a = ir.Read(name=d.name, loc=ir.Loc.EDGE, indices=[i, j], dtype=d.dtype, span=s.array_span)
        zero = ir.Const(value=False if d.dtype == ir.DType.BOOL else 0, dtype=d.dtype)
        select = ir.Binary(op="!=", left=a, right=zero, dtype=ir.DType.BOOL, span=s.array_span)
        key = None
        if s.key is not None:
            # an edge expression, whose indices are the loop's names: `by w` or `by w[u, v]`
            key = self.lower_definition(s.key, scope.child(index_vars=list(s.vars),
                                                           implicit=True), ir.Loc.EDGE)
            if key.dtype not in ops.NUMERIC:
                self.fail("E205", "edges are ordered by a numeric key", s.key.span)
        if s.bound is not None:
            bound = self.static_expr(s.bound, "loop bound")
            if bound is None:
                raise Abort()
        else:
            bound = ir.Size(which="m", span=s.array_span)
        sid = self.new_id()
        return ir.ForEdges(id=sid, vars=list(s.vars), vars_local=local, array=d.name,
                           select=select, key=key, unstable=s.unstable, bound=bound,
                           body=self.lower_block(s.body, inner), span=s.span)

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
                self.fail("E401", f"processors may write `{lv.name}` concurrently; say how "
                          "the writes combine", lv.span,
                          help="append `by priority` (lowest index wins), `by min`, `by max`, "
                               "`by sum`, `by any`, `by all` or `by argmin KEY` / `by argmax KEY` "
                               "(the writer with the smallest/largest key)")
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


def _negated(e: ir.Expr, span: Span) -> ir.Expr:
    """-e for a step that counts down, written so the size classes see a positive value:
    `-s` is s, `a - b` is b - a, a constant is its negation."""
    if isinstance(e, ir.Unary) and e.op == "-":
        return e.operand
    if isinstance(e, ir.Binary) and e.op == "-":
        if isinstance(e.left, ir.Const) and e.left.value == 0:
            return e.right
        return ir.Binary(op="-", left=e.right, right=e.left, dtype=e.dtype, span=span)
    if isinstance(e, ir.Const):
        return ir.Const(value=-e.value, dtype=e.dtype, span=span)
    return ir.Unary(op="-", operand=e, dtype=e.dtype, span=span)


def _static(x: ir.Expr) -> bool:
    """Whether an expression is one in n and m only (constants, sizes, operators)."""
    return all(isinstance(y, (ir.Const, ir.Binary, ir.Unary, ir.Call, ir.Size))
               for y in ir.walk_expr(x))


# Sizes at which the lowering evaluates a step (and a stepped range's ends) to see its sign.
_SIGN_SIZES = tuple(range(1, 65)) + (100, 128, 1000, 1024, 4096, 10 ** 4, 10 ** 6)


def _value(e: ir.Expr, n: int, m: int, N: int):
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Size):
        return {"n": n, "m": m, "N": N}[e.which]
    op = ops.op_of(e)
    subs = [e.operand] if op.kind == "unary" else (
        [e.left, e.right] if op.kind == "binary" else list(e.args))
    return op.size(*(_value(x, n, m, N) for x in subs))


def _points(nodes: ir.Expr | None):
    """(n, m, N) at the sizes the sign checks use; m from n (N - 1 edges) to N^2."""
    for n in _SIGN_SIZES:
        try:
            N = int(_value(nodes, n, n, n)) if nodes is not None else n
        except (ArithmeticError, ValueError, TypeError):
            N = n
        for m in sorted({max(N - 1, 1), N * N}):
            yield n, m, N


def _values(e: ir.Expr, nodes: ir.Expr | None) -> list[float]:
    """The values of a size expression at the sign-check sizes (where it has one)."""
    out = []
    for n, m, N in _points(nodes):
        try:
            v = float(_value(e, n, m, N))
        except (ArithmeticError, ValueError, TypeError):
            continue
        if not math.isnan(v):
            out.append(v)
    return out


def _first_n(e: ir.Expr, nodes: ir.Expr | None, sign: int) -> int | None:
    for n, m, N in _points(nodes):
        try:
            if float(_value(e, n, m, N)) * sign > 0:
                return n
        except (ArithmeticError, ValueError, TypeError):
            continue
    return None


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
