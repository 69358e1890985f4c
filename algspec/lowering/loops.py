"""Lowering of loops: `while`, ranges (with steps), node orders, edge lists, and their bounds.

Every loop gets a worst-case trip count per execution (`bound`) that the
interpreter enforces and the efficiency analysis counts; a loop may also
declare `total bound T`, its trips summed over the whole run (`ir.Loop.total`).
Where a per-execution bound is required (a `while`, data-dependent range
ends or step), a declared total alone satisfies it: one execution is part of
the run, so T bounds it too.
"""

from __future__ import annotations

import math

from algspec import ir
from algspec.diagnostics import Span
from algspec.ir import ops
from algspec.ir.size_text import size_text
from algspec.language import ast
from algspec.lowering import draws
from algspec.lowering.scope import RESERVED, Abort, Reporter, Scope


class Loops(Reporter):
    """Loop statements -> IR loops, with their per-execution and total bounds."""

    def loop(self, s, scope: Scope) -> ir.Statement:
        if scope.in_round and scope.per_lane:
            self.per_lane_loop(s)
        elif scope.in_round:
            self.fail("E501", "loops are not allowed inside a round", s.span,
                      help="a round is one synchronous step; put the loop around the round")
        inner = scope.child(loop_depth=scope.loop_depth + 1)
        try:
            return self.loop_parts(s, scope, inner)
        except Abort:
            if id(s.body) not in self.lowered_bodies:  # a wrong header: the body's own
                self.body_after_error(s, inner)      # mistakes are reported all the same
            raise

    def per_lane_loop(self, s) -> None:
        """E501 for a loop of a procedure called in a round that cannot run per processor:
        each processor runs `while` and `for x in a .. b` loops on its own lane."""
        what = None
        if isinstance(s, ast.ForNodesStmt):
            what = "`for ... in nodes by` orders every node"
        elif isinstance(s, ast.ForEdgesStmt):
            what = "`for ... in edges(...)` lists every edge"
        elif isinstance(s, ast.ForRangeStmt) and s.step is not None:
            what = "a range with `step`"
        elif getattr(s, "total", None) is not None:
            what = "`total bound` (trips over the run)"
        if what is not None:
            self.fail("E501", f"{what} cannot run per processor in a procedure called in a "
                      "round", s.span, help="inside a round each processor runs `while` and "
                      "`for x in a .. b` loops with a per-execution `bound`; call the procedure "
                      "outside the round for anything else")

    @property
    def lowered_bodies(self) -> set[int]:
        """The loop bodies lowered so far (by `id`), so a failed header lowers its body once."""
        return self.__dict__.setdefault("_lowered_bodies", set())

    def loop_body(self, s, inner: Scope) -> list[ir.Statement]:
        self.lowered_bodies.add(id(s.body))
        return self.lower_block(s.body, inner)

    def body_after_error(self, s, inner: Scope) -> None:
        """Lower the body of a loop whose header was reported, for the errors it holds itself;
        the loop variables it could not bind are poisoned (their uses are no new mistake)."""
        names = list(getattr(s, "vars", None) or []) + \
            ([s.var] if getattr(s, "var", None) else [])
        for name in names:
            if name not in inner.locals and name not in self.decls:
                inner.failed.add(name)
        self.loop_body(s, inner)

    def loop_parts(self, s, scope: Scope, inner: Scope) -> ir.Statement:
        """The loop's header (condition, range, bounds) and body, lowered in that order."""
        total = self.total_bound(s)
        if isinstance(s, ast.WhileStmt):
            c, _ = self.expr(s.cond, scope.child(
                no_calls="in a `while` condition (evaluated before every trip)"))
            if c.dtype != ir.DType.BOOL:
                self.fail("E205", "a `while` condition must be boolean", s.cond.span)
            if s.bound is None and total is None:
                self.fail("E604", "`while` needs a worst-case bound in n and m", s.span,
                          help="e.g. `while lo < hi bound log2(n) + 1 { ... }`, or `total bound "
                               "EXPR` for its trips over the whole run; the interpreter "
                               "enforces it and the efficiency analysis counts it")
            bound = self.static_expr(s.bound, "loop bound") if s.bound is not None else \
                total.model_copy(deep=True)
            if bound is None:
                raise Abort()
            sid = self.new_id()
            return ir.While(id=sid, cond=c, bound=bound, whp=s.whp, total=total,
                            body=self.loop_body(s, inner), span=s.span)
        if isinstance(s, ast.ForEdgesStmt):
            return self.for_edges(s, scope, inner, total)
        var_local = self.loop_var(s.var, s.span, scope, inner)
        if isinstance(s, ast.ForRangeStmt):
            start, _ = self.expr(s.start, scope)
            stop, _ = self.expr(s.stop, scope)
            for x, a in ((start, s.start), (stop, s.stop)):
                if x.dtype != ir.DType.INT:
                    self.fail("E203", "range ends must be integers", a.span)
            step, down = self.range_step(s, start, stop, scope) if s.step is not None else \
                (None, False)
            bound = self.range_bound(start, stop, s, step, down, total)
            sid = self.new_id()
            extra = {"step": step} if step is not None else {}
            return ir.ForRange(id=sid, var=s.var, var_local=var_local, start=start, stop=stop,
                               reverse=s.reverse, bound=bound, total=total,
                               body=self.loop_body(s, inner), span=s.span, **extra)
        key = self.lower_whole(s.key, scope.child(index_vars=["@i"], implicit=True), ir.Loc.NODE)
        if key.dtype not in ops.NUMERIC:
            self.fail("E205", "nodes are ordered by a numeric key", s.key.span)
        sid = self.new_id()
        return ir.ForNodes(id=sid, var=s.var, var_local=var_local, key=key, unstable=s.unstable,
                           body=self.loop_body(s, inner), span=s.span)

    def total_bound(self, s) -> ir.Expr | None:
        """`total bound T`: the loop's trips summed over the run, in n and m (E601 otherwise)."""
        if getattr(s, "total", None) is None:
            return None
        total = self.static_expr(s.total, "total loop bound")
        if total is None:
            raise Abort()
        return total

    def loop_var(self, name: str, span: Span, scope: Scope, inner: Scope) -> bool:
        d = self.decls.get(name)
        if d is not None and scope.per_lane:
            self.fail("E501", f"loop variable `{name}` is declared data: every processor of the "
                      "round would write it", span, help="in a procedure called in a round, "
                      "count with a local loop variable (an undeclared name)")
        if d is not None:
            if d.loc != ir.Loc.GRAPH or d.dtype != ir.DType.INT or d.stage != ir.Stage.STATE:
                self.fail("E205", f"loop variable `{name}` is declared but is not a graph-level "
                          "int state", span)
            return False
        if name in RESERVED or name in scope.index_vars:
            self.fail("E101", f"`{name}` cannot be a loop variable", span)
        # per processor in a round: each lane counts its own range
        inner.locals[name] = (ir.DType.INT, frozenset(range(scope.processors))
                              if scope.per_lane else frozenset())
        return True

    def range_bound(self, start: ir.Expr, stop: ir.Expr, s: ast.ForRangeStmt,
                    step: ir.Expr | None = None, down: bool = False,
                    total: ir.Expr | None = None) -> ir.Expr:
        if s.bound is not None:  # `for x in a .. b bound B`: B trips at most, checked at run time
            bound = self.static_expr(s.bound, "loop bound")
            if bound is None:
                raise Abort()
            return bound
        if total is not None and not _ends_bound(start, stop, step, down):
            return total.model_copy(deep=True)  # one execution's trips are within the run's
        if step is not None:
            return self.step_bound(start, stop, s, step, down)
        if not _static(stop):
            self.fail("E602", "the end of a range must be an expression in n and m", s.stop.span,
                      help="declare its worst-case trips: `for x in a .. b bound EXPR` (or "
                           "`total bound EXPR`, its trips over the whole run), or use "
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
            if s.bound is None and s.total is None:
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
        return self.node_count

    def for_edges(self, s: ast.ForEdgesStmt, scope: Scope, inner: Scope,
                  total: ir.Expr | None = None) -> ir.ForEdges:
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
        outer_loop = self.edge_loop  # draws in the body are per edge
        self.edge_loop = (draws.loop_ends(list(s.vars), local), len(self.proc_stack))
        try:
            body = self.loop_body(s, inner)
        finally:
            self.edge_loop = outer_loop
        return ir.ForEdges(id=sid, vars=list(s.vars), vars_local=local, array=d.name,
                           select=select, key=key, unstable=s.unstable, bound=bound, total=total,
                           body=body, span=s.span)

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


def _ends_bound(start: ir.Expr, stop: ir.Expr, step: ir.Expr | None, down: bool) -> bool:
    """Whether a range's trips follow from its ends and step (its far end and step are
    expressions in n and m), so it needs no declared bound."""
    if step is None:
        return _static(stop)
    return _static(step) and _static(start if down else stop)


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
