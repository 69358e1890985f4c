"""Lowering of procedures, calls and includes.

A procedure is lowered at each call site, in a scope of its own: it sees the
file's data and its parameters, never the caller's locals, and its locals are
renamed apart (`x` -> `x@K`, K unique per call site), so inlining is
hygienic. A procedure that is not recursive is inlined (parameters become
`let`s), so the interpreter, the efficiency analysis and lint see ordinary
statements. A recursive procedure (one on a cycle of the call graph) must
declare `depth D` (and `calls C` unless it calls itself once, outside any
loop); its outside call becomes an `ir.Proc` statement and its recursive calls
`ir.Recur` statements, run on a per-lane call stack by the interpreter.

`include "lib.alg"` (relative to the including file) brings in the procedures
of a library file: a file of `proc`s and `include`s only.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from algspec import ir
from algspec.diagnostics import AlgError
from algspec.ir import ops
from algspec.language import ast
from algspec.lowering.scope import RESERVED, RETURN, Abort, Reporter, Scope

# The longest chain of files including each other (far beyond any real library).
MAX_INCLUDE_DEPTH = 64


class Procedures(Reporter):
    """Collects procedure definitions (with includes) and lowers calls of them."""

    def __init__(self, prog: ast.Program, path: str):
        super().__init__(prog, path)
        self.recursive: dict[str, set[str]] = {}
        self.call_sites = 0
        # statements of the procedure calls in the expressions of the statement being lowered,
        # which run before it (`Statements.lower_block` collects them); None outside statements
        self.hoisted: list[ir.Statement] | None = None

    def collect_procs(self) -> list[ast.Stmt]:
        """Gather this file's procedures and included ones; return the other top-level statements."""
        body = self._collect(self.prog.body, self.path, [self._key(self.path)])
        self.recursive = _recursive(self.procs)
        for p in self.procs.values():
            if p.name in self.recursive and self.returns(p):
                self.err("E711", f"procedure `{p.name}` returns a value and is recursive", p.span,
                         help="a value procedure is inlined where it is used, so it cannot call "
                              "itself; write the result to declared state in a recursive "
                              "procedure without `return`, or loop with `while`", path=p.origin)
            elif p.name in self.recursive and p.depth is None:
                self.err("E703", f"procedure `{p.name}` is recursive and declares no depth bound",
                         p.span, help=f"e.g. `proc {p.name}(...) depth n {{ ... }}`: the "
                         "interpreter enforces it and the efficiency analysis counts it",
                         path=p.origin)
            for span, message, help in _return_problems(p):
                self.err("E709", message, span, help=help, path=p.origin)
        return body

    def returns(self, p: ast.ProcDef) -> bool:
        """Whether a procedure has a value: its paths end in `return EXPR`."""
        return _has_return(p.body)

    @staticmethod
    def _key(path: str) -> str:
        try:
            return str(Path(path).resolve())
        except (OSError, RuntimeError):
            return path

    def _collect(self, stmts: list[ast.Stmt], path: str, chain: list[str]) -> list[ast.Stmt]:
        rest: list[ast.Stmt] = []
        for s in stmts:
            if isinstance(s, ast.ProcDef):
                origin = None if path == self.path else path
                if s.name in self.procs:
                    self.err("E707", f"procedure `{s.name}` is defined twice", s.span, path=origin)
                    continue
                self.procs[s.name] = s.model_copy(update={"origin": origin})
            elif isinstance(s, ast.IncludeStmt):
                self._include(s, path, chain)
            else:
                rest.append(s)
        return rest

    def _include(self, s: ast.IncludeStmt, path: str, chain: list[str]) -> None:
        from algspec.language.parser import parse_library  # parser imports lark: only when needed
        from algspec.language.source_file import read_source

        origin = None if path == self.path else path
        target = Path(path).parent / s.path if path not in ("<string>", "") else Path(s.path)
        key = self._key(str(target))
        if len(chain) > MAX_INCLUDE_DEPTH:  # each level is a few host frames (recursive)
            self.err("E704", f"cannot include `{s.path}`: includes nested more than "
                     f"{MAX_INCLUDE_DEPTH} files deep", s.span, path=origin)
            return
        if key in chain:
            self.err("E705", f"include cycle: {' -> '.join(Path(c).name for c in chain[chain.index(key):])}"
                     f" -> {target.name}", s.span, path=origin)
            return
        try:  # a regular file of bounded size: never a FIFO, a device or a huge file
            text = read_source(target)
        except AlgError as e:  # not UTF-8, not a regular file, too large
            reason = e.diagnostics[0].message.removeprefix("cannot read the file: ")
            self.err("E704", f"cannot include `{s.path}`: {reason}", s.span,
                     help=f"the path is relative to the including file ({target})",
                     path=origin)
            return
        except OSError as e:
            self.err("E704", f"cannot include `{s.path}`: {e.strerror or e}",
                     s.span, help=f"the path is relative to the including file ({target})",
                     path=origin)
            return
        try:
            lib = parse_library(text, str(target))
        except AlgError as e:
            self.diags.extend(e.diagnostics)
            return
        for x in lib:
            if not isinstance(x, (ast.ProcDef, ast.IncludeStmt)):
                self.err("E706", "an included file holds only `proc` definitions and `include`s",
                         x.span, path=str(target))
        self._collect([x for x in lib if isinstance(x, (ast.ProcDef, ast.IncludeStmt))],
                      str(target), chain + [key])

    # ------------------------------------------------------------ calls
    def call_proc(self, s: ast.CallStmt, scope: Scope) -> list[ir.Statement]:
        p = self.procs.get(s.name)
        if p is None:
            self.fail("E701", f"unknown procedure `{s.name}`", s.span,
                      help=("procedures: " + ", ".join(sorted(self.procs))) if self.procs else
                      "define it with `proc NAME(params) { ... }` or `include` a file that does")
        if scope.in_round:
            self._round_call_problems(p, s.span)
        if len(s.args) != len(p.params):
            self.fail("E702", f"`{s.name}` takes {len(p.params)} argument"
                      f"{'' if len(p.params) == 1 else 's'}, not {len(s.args)}", s.span)
        args, axes = self._args(s.args, scope)
        for name, irname, dtypes in reversed(self.proc_stack):
            if name == s.name:  # a recursive call of an enclosing invocation
                return [ir.Recur(id=self.new_id(), name=irname, span=s.span,
                                 args=[self.coerce(v, dt, a.span)
                                       for v, dt, a in zip(args, dtypes, s.args)])]
        if p.name in self.recursive and self.returns(p):
            raise Abort()  # E711 at its definition
        if p.name not in self.recursive:
            return self._inline(p, args, s.span, scope, axes)[0]
        self.call_sites += 1
        k = self.call_sites
        dtypes = [v.dtype for v in args]
        body = self._lower_body(p, dtypes, f"{p.name}#{k}")
        ren = {q: f"{q}@{k}" for q in _own_locals(body) | set(p.params)}
        body = [_rename(st, ren, p.origin) for st in body]
        params = [ren[q] for q in p.params]
        depth = self.static_expr(p.depth, "recursion depth") if p.depth is not None else None
        calls = self._calls_bound(p, depth)
        if depth is None or calls is None:
            raise Abort()
        return [ir.Proc(id=self.new_id(), name=f"{p.name}#{k}", params=params, args=args,
                        depth=depth, calls=calls, locals=params + sorted(
                            set(ren.values()) - set(params)), body=body, span=s.span)]

    def _args(self, exprs: list[ast.Expr], scope: Scope
              ) -> tuple[list[ir.Expr], list[frozenset[int]]]:
        """A call's arguments: one value each (per processor inside a round)."""
        args: list[ir.Expr] = []
        axes: list[frozenset[int]] = []
        for a in exprs:
            v, ax = self.expr(a, scope)
            if ax - frozenset(range(scope.processors)):
                self.fail("E201", "a procedure argument must be one value", a.span)
            args.append(v)
            axes.append(ax)
        return args, axes

    def _inline(self, p: ast.ProcDef, args: list[ir.Expr], span, caller: Scope | None = None,
                axes: list[frozenset[int]] | None = None
                ) -> tuple[list[ir.Statement], dict[str, str], ir.DType | None]:
        """A non-recursive procedure's statements at a call site (parameters bound by `let`),
        its locals renamed apart, and the dtype of its value (None without `return`).

        Called inside a round, the body is lowered per processor (`_lane`): a parameter
        given a processor variable is that variable (so `x[p] = ...` stays the
        processor's own cell), the others are per-lane locals."""
        self.call_sites += 1
        k = self.call_sites
        lane = aliases = back = None
        if caller is not None and caller.in_round:
            lane, aliases, back = self._lane(p, args, axes or [frozenset()] * len(args), caller)
            self.lane_calls.append((p.name, span))
        try:
            body = self._lower_body(p, [v.dtype for v in args], f"{p.name}#{k}", lane)
        finally:
            if lane is not None:
                self.lane_calls.pop()
        dtype = self._return_dtype(p, body)
        ren = {q: f"{q}@{k}" for q in _own_locals(body) | set(p.params)}
        body = [_rename(st, ren, p.origin) for st in body]
        if back:
            body = _rename_ivars(body, back)
        lets: list[ir.Statement] = [ir.Let(id=self.new_id(), name=ren[q], value=v, span=span)
                                    for q, v in zip(p.params, args) if q not in (aliases or {})]
        return lets + body, ren, dtype

    def _lane(self, p: ast.ProcDef, args: list[ir.Expr], axes: list[frozenset[int]],
              caller: Scope) -> tuple[Scope, dict[str, int], dict[tuple[str, int], str]]:
        """The scope of a procedure inlined per processor of a round; the parameters that are
        the caller's processor variables (name -> axis); the renaming of the body's processor
        variables back to the caller's names.

        The body sees the processors through its parameters only (hygiene): a processor
        variable it is not given has a name no source can spell (`@lane0`)."""
        procs = caller.index_vars[:caller.processors]
        written = _assigned_names(p.body)
        aliases: dict[str, int] = {}
        for q, v in zip(p.params, args):
            if isinstance(v, ir.IndexVar) and v.axis < len(procs) and v.name == procs[v.axis] \
                    and v.axis not in aliases.values() and q not in written and q not in aliases:
                aliases[q] = v.axis
        names = [next((q for q, a in aliases.items() if a == ax), f"@lane{ax}")
                 for ax in range(len(procs))]
        fwd = {(c, ax): names[ax] for ax, c in enumerate(procs)}
        pins = tuple((names[procs.index(v)], _rename_ivars(e, fwd))
                     for v, e in caller.pins if v in procs)
        scope = Scope(index_vars=names, in_forall=caller.in_forall, in_round=True,
                      processors=len(names), per_lane=True, pins=pins)
        for q, v, ax in zip(p.params, args, axes):
            if q not in aliases:
                scope.locals[q] = (v.dtype, ax)
        back = {(q, ax): procs[ax] for ax, q in enumerate(names)}
        return scope, aliases, back

    def _round_call_problems(self, p: ast.ProcDef, span) -> None:
        """E708 for a procedure that cannot run per processor of a round."""
        if p.name in self.recursive:
            self.fail("E708", f"recursive procedure `{p.name}` called inside a round", span,
                      help="a recursive procedure runs on one call stack per sample, not one "
                           "per processor: call it outside the round, or write the recursion "
                           "as a bounded `while` loop in a procedure that does not recurse")
        for bad, what, help in _round_problems(p.body):
            self.err("E708", f"`{p.name}` is called inside a round (line {span.line}), but it "
                     f"{what}", bad.span, help=help, path=p.origin)
            raise Abort()

    def _return_dtype(self, p: ast.ProcDef, body: list[ir.Statement]) -> ir.DType | None:
        """The type of a procedure's value: the join of its `return`s (ints widen to float)."""
        rets = [st for st, _ in ir.walk_statements(body)
                if isinstance(st, ir.Let) and st.name == RETURN]
        if not rets:
            if self.returns(p):
                raise Abort()  # a `return` that did not lower was reported
            return None
        dt = rets[0].value.dtype
        for r in rets[1:]:
            joined = ops.join(dt, r.value.dtype)
            if joined is None:
                self.fail("E205", f"`{p.name}` returns {dt.value} on one path and "
                          f"{r.value.dtype.value} on another", r.span)
            dt = joined
        for r in rets:
            r.value = self.coerce(r.value, dt, r.span)
        return dt

    def value_call(self, e: ast.CallExpr, scope: Scope) -> tuple[ir.Expr, frozenset[int]]:
        """`f(x)` in an expression: f's statements run before the statement that holds the
        call (in `self.hoisted`), and the call is the local its `return` sets."""
        p = self.procs[e.func]
        where = scope.no_calls
        if where is None and (scope.derived_of is not None or self.hoisted is None):
            where = "in a declaration"
        if where is None and scope.implicit:
            where = "in a whole-array expression (one value per node or edge)"
        if where is None and len(scope.index_vars) > scope.processors:
            where = "inside an aggregation (once per element)"
        if where is not None:
            self.fail("E710", f"`{e.func}(...)` runs statements, so its value cannot be "
                      f"computed {where}", e.span,
                      help=f"compute it first where statements run, `let y = {e.func}(...)`, "
                           "and use `y` here")
        if len(e.args) != len(p.params):
            self.fail("E702", f"`{e.func}` takes {len(p.params)} argument"
                      f"{'' if len(p.params) == 1 else 's'}, not {len(e.args)}", e.span)
        if p.name in self.recursive:
            raise Abort()  # E711 at its definition
        if scope.in_round:
            self._round_call_problems(p, e.span)
        args, axes = self._args(e.args, scope)
        stmts, ren, dtype = self._inline(p, args, e.span, scope, axes)
        self.hoisted.extend(stmts)
        # inside a round the value is one per processor
        per = frozenset(range(scope.processors)) if scope.in_round else frozenset()
        return ir.VarRef(name=ren[RETURN], local=True, dtype=dtype, span=e.span), per

    def _lower_body(self, p: ast.ProcDef, dtypes: list[ir.DType], irname: str,
                    lane: Scope | None = None) -> list[ir.Statement]:
        if len(self.proc_stack) > 64:  # unreachable: recursion becomes Recur, not inlining
            raise Abort()
        saved_path = self.path
        scope = Scope() if lane is None else lane
        seen: set[str] = set()
        spans = p.param_spans or [p.span] * len(p.params)
        for q, dt, q_span in zip(p.params, dtypes, spans):
            if q in RESERVED or q in self.decls or q in seen:
                self.err("E101", f"parameter `{q}` of `{p.name}` is already defined "
                         "(a built-in, a declared datum or another parameter)", q_span,
                         path=p.origin)
            seen.add(q)
            if lane is None:
                scope.locals[q] = (dt, frozenset())
        self.path = p.origin or self.path
        self.proc_stack.append((p.name, irname, dtypes))
        try:
            return self.lower_block(p.body, scope)
        finally:
            self.proc_stack.pop()
            self.path = saved_path

    def _calls_bound(self, p: ast.ProcDef, depth: ir.Expr | None) -> ir.Expr | None:
        if p.calls is not None:
            return self.static_expr(p.calls, "call bound")
        if depth is None:
            return None
        sites = list(_call_sites(p.body, p.name, False))
        if len(sites) == 1 and not sites[0] and p.name in self.recursive and \
                self.recursive[p.name] == {p.name}:
            return depth  # linear recursion: one invocation per level
        self.err("E703", f"procedure `{p.name}` may call itself several times per invocation: "
                 "declare how many invocations one outside call makes", p.span,
                 help=f"e.g. `proc {p.name}(...) depth n calls 2 * n + 1 {{ ... }}`",
                 path=p.origin)
        return None


_LOOPS = (ast.WhileStmt, ast.ForRangeStmt, ast.ForNodesStmt, ast.ForEdgesStmt)


def _has_return(stmts: list[ast.Stmt]) -> bool:
    return any(isinstance(x, ast.ReturnStmt) for x in _ast_nodes(stmts))


def _ends_in_return(stmts: list[ast.Stmt]) -> bool:
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.ReturnStmt):
        return True
    return isinstance(last, ast.IfStmt) and bool(last.otherwise) and \
        _ends_in_return(last.then) and _ends_in_return(last.otherwise)


def _return_problems(p: ast.ProcDef):
    """E709s of a procedure: each `return` must end its path (the last statement of the body,
    or of a branch of an `if` that ends it), outside loops and rounds; and once a procedure
    returns a value, every path must."""
    found = False

    def visit(stmts: list[ast.Stmt], tail: bool, where: str | None):
        nonlocal found
        for k, s in enumerate(stmts):
            last = tail and k == len(stmts) - 1
            if isinstance(s, ast.ReturnStmt):
                found = True
                if where is not None:
                    yield (s.span, f"`return` {where}: it must end its procedure",
                           ("leave the loop with `break` (after setting a local), and `return` "
                           "after it"))
                elif not last:
                    yield (s.span, "`return` must be the last statement of its procedure's path",
                           ("statements after it would never run; for an early exit, put the "
                           "rest under `if ... { } else { ... }` with a `return` in each branch"))
            elif isinstance(s, ast.IfStmt):
                yield from visit(s.then, last, where)
                yield from visit(s.otherwise, last, where)
            elif isinstance(s, _LOOPS):
                yield from visit(s.body, False, where or "inside a loop")
            elif isinstance(s, (ast.RoundStmt, ast.ForallStmt)):
                yield from visit(s.body, False, where or "inside a round")

    problems = list(visit(p.body, True, None))
    yield from problems  # one mistake, one error: a misplaced `return` leaves the paths open
    if found and not problems and not _ends_in_return(p.body):
        yield (p.span, f"procedure `{p.name}` returns a value on some paths only",
               ("end every path with `return EXPR`: the body's last statement, or an `if` with "
               "an `else` whose branches each end in `return`"))


def _ast_nodes(x):
    """Every AST node under `x` (statements, blocks and expressions), depth first."""
    if isinstance(x, list):
        for y in x:
            yield from _ast_nodes(y)
    elif isinstance(x, ast.Node):
        yield x
        for f in type(x).model_fields:
            v = getattr(x, f)
            if isinstance(v, (list, ast.Node)):
                yield from _ast_nodes(v)


def _call_sites(stmts: list[ast.Stmt], name: str, in_loop: bool):
    """Yield, for each call of `name`, whether it sits inside a loop."""
    for s in stmts:
        if isinstance(s, ast.CallStmt) and s.name == name:
            yield in_loop
        loop = in_loop or isinstance(s, (ast.WhileStmt, ast.ForRangeStmt, ast.ForNodesStmt,
                                         ast.ForEdgesStmt))
        for f in ("then", "otherwise", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                yield from _call_sites(sub, name, loop)


def _calls_in(stmts: list[ast.Stmt]) -> set[str]:
    """The procedures a body calls: as statements and in expressions (a value's `f(x)`)."""
    out: set[str] = set()
    for x in _ast_nodes(stmts):
        if isinstance(x, ast.CallStmt):
            out.add(x.name)
        elif isinstance(x, ast.CallExpr):
            out.add(x.func)
    return out


def _recursive(procs: dict[str, ast.ProcDef]) -> dict[str, set[str]]:
    """The procedures on a cycle of the call graph, each with its cycle (strongly connected set)."""
    calls = {k: _calls_in(p.body) & set(procs) for k, p in procs.items()}

    def reach(k: str) -> set[str]:
        seen: set[str] = set()
        todo = list(calls[k])
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(calls[x])
        return seen

    r = {k: reach(k) for k in procs}
    return {k: {j for j in r[k] if k in r[j]} for k in procs if k in r[k]}


def _own_locals(stmts: list[ir.Statement]) -> set[str]:
    """Locals a lowered body defines itself (names of inlined procedures are renamed already)."""
    out: set[str] = set()
    for s, _ in ir.walk_statements(stmts):
        if isinstance(s, ir.Let):
            out.add(s.name)
        elif isinstance(s, (ir.ForRange, ir.ForNodes)) and s.var_local:
            out.add(s.var)
        elif isinstance(s, ir.ForEdges):
            out.update(x for x, local in zip(s.vars, s.vars_local) if local)
    return {x for x in out if "@" not in x}


def _rename(x, ren: dict[str, str], origin: str | None = None):
    """A copy of an IR subtree with the locals in `ren` renamed; statements from `origin`."""
    if isinstance(x, list):
        return [_rename(i, ren, origin) for i in x]
    if not isinstance(x, BaseModel):
        return x
    upd = {f: _rename(getattr(x, f), ren, origin) for f in type(x).model_fields
           if isinstance(getattr(x, f), (list, BaseModel))}
    if origin is not None and isinstance(x, ir.Stmt) and x.path is None:
        upd["path"] = origin
    local = (isinstance(x, (ir.VarRef, ir.Target)) and x.local) or isinstance(x, ir.Let) or \
        (isinstance(x, (ir.ForRange, ir.ForNodes)) and x.var_local)
    if local:
        key = "var" if isinstance(x, (ir.ForRange, ir.ForNodes)) else "name"
        upd[key] = ren.get(getattr(x, key), getattr(x, key))
    if isinstance(x, ir.ForEdges):
        upd["vars"] = [ren.get(v, v) if local else v for v, local in zip(x.vars, x.vars_local)]
    return x.model_copy(update=upd)


def _round_problems(stmts: list[ast.Stmt], in_loop: bool = False):
    """What keeps a procedure from running per processor of a round: (statement, what it
    does, help), for its `record`s, rounds and `forall`s, and `break`s outside its own loops."""
    for s in stmts:
        if isinstance(s, ast.RecordStmt):
            yield (s, "records a frame (`record`)",
                   ("a round is one step of the trajectory: record after the round, or call "
                   "the procedure outside it"))
        elif isinstance(s, (ast.RoundStmt, ast.ForallStmt)):
            yield (s, f"holds a {'round' if isinstance(s, ast.RoundStmt) else '`forall`'}",
                   ("rounds do not nest: each processor runs the procedure's statements on its "
                   "own lane; write them for one processor, or call the procedure outside the "
                   "round"))
        elif isinstance(s, ast.BreakStmt) and not in_loop:
            yield (s, "leaves its caller's loop with `break`",
                   ("its processors cannot leave the loop around the round: compute a flag in "
                   "the round and `break` after it"))
        loop = in_loop or isinstance(s, _LOOPS)
        for f in ("then", "otherwise", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                yield from _round_problems(sub, loop)


def _assigned_names(stmts: list[ast.Stmt]) -> set[str]:
    """The bare names a body assigns or loops over (a parameter it changes is a local)."""
    out: set[str] = set()
    for x in _ast_nodes(stmts):
        if isinstance(x, ast.AssignStmt):
            out.update(t.name for t in x.targets if not t.indices)
        elif isinstance(x, (ast.ForRangeStmt, ast.ForNodesStmt)):
            out.add(x.var)
        elif isinstance(x, ast.ForEdgesStmt):
            out.update(x.vars)
    return out


def _rename_ivars(x, ren: dict[tuple[str, int], str]):
    """A copy of an IR subtree with the processor variables (name, axis) in `ren` renamed."""
    if isinstance(x, list):
        return [_rename_ivars(i, ren) for i in x]
    if not isinstance(x, BaseModel):
        return x
    upd = {f: _rename_ivars(getattr(x, f), ren) for f in type(x).model_fields
           if isinstance(getattr(x, f), (list, BaseModel))}
    if isinstance(x, ir.IndexVar) and (x.name, x.axis) in ren:
        upd["name"] = ren[(x.name, x.axis)]
    return x.model_copy(update=upd)
