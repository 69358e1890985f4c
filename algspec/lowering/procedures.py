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
from algspec.diagnostics import AlgError, Diagnostic
from algspec.language import ast
from algspec.lowering.scope import RESERVED, Abort, Reporter, Scope


class Procedures(Reporter):
    """Collects procedure definitions (with includes) and lowers calls of them."""

    def __init__(self, prog: ast.Program, path: str):
        super().__init__(prog, path)
        self.procs: dict[str, ast.ProcDef] = {}
        self.recursive: dict[str, set[str]] = {}
        self.proc_stack: list[tuple[str, str, list[ir.DType]]] = []  # (proc, IR name, param dtypes)
        self.call_sites = 0

    def collect_procs(self) -> list[ast.Stmt]:
        """Gather this file's procedures and included ones; return the other top-level statements."""
        body = self._collect(self.prog.body, self.path, [self._key(self.path)])
        self.recursive = _recursive(self.procs)
        for p in self.procs.values():
            if p.name in self.recursive and p.depth is None:
                self.err("E703", f"procedure `{p.name}` is recursive and declares no depth bound",
                         p.span, help=f"e.g. `proc {p.name}(...) depth n {{ ... }}`: the "
                         "interpreter enforces it and the efficiency analysis counts it",
                         path=p.origin)
        return body

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

        origin = None if path == self.path else path
        target = Path(path).parent / s.path if path not in ("<string>", "") else Path(s.path)
        key = self._key(str(target))
        if key in chain:
            self.err("E705", f"include cycle: {' -> '.join(Path(c).name for c in chain[chain.index(key):])}"
                     f" -> {target.name}", s.span, path=origin)
            return
        try:
            text = target.read_text()
        except (OSError, UnicodeDecodeError) as e:
            self.err("E704", f"cannot include `{s.path}`: {getattr(e, 'strerror', None) or e}",
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
            self.fail("E708", f"call of `{s.name}` inside a round", s.span,
                      help="a procedure runs sequential statements; call it outside the round")
        if len(s.args) != len(p.params):
            self.fail("E702", f"`{s.name}` takes {len(p.params)} argument"
                      f"{'' if len(p.params) == 1 else 's'}, not {len(s.args)}", s.span)
        args: list[ir.Expr] = []
        for a in s.args:
            v, ax = self.expr(a, scope)
            if ax:
                self.fail("E201", "a procedure argument must be one value", a.span)
            args.append(v)
        for name, irname, dtypes in reversed(self.proc_stack):
            if name == s.name:  # a recursive call of an enclosing invocation
                return [ir.Recur(id=self.new_id(), name=irname, span=s.span,
                                 args=[self.coerce(v, dt, a.span)
                                       for v, dt, a in zip(args, dtypes, s.args)])]
        self.call_sites += 1
        k = self.call_sites
        dtypes = [v.dtype for v in args]
        body = self._lower_body(p, dtypes, f"{p.name}#{k}")
        ren = {q: f"{q}@{k}" for q in _own_locals(body) | set(p.params)}
        body = [_rename(st, ren, p.origin) for st in body]
        params = [ren[q] for q in p.params]
        if p.name not in self.recursive:
            return [ir.Let(id=self.new_id(), name=q, value=v, span=s.span)
                    for q, v in zip(params, args)] + body
        depth = self.static_expr(p.depth, "recursion depth") if p.depth is not None else None
        calls = self._calls_bound(p, depth)
        if depth is None or calls is None:
            raise Abort()
        return [ir.Proc(id=self.new_id(), name=f"{p.name}#{k}", params=params, args=args,
                        depth=depth, calls=calls, locals=params + sorted(
                            set(ren.values()) - set(params)), body=body, span=s.span)]

    def _lower_body(self, p: ast.ProcDef, dtypes: list[ir.DType], irname: str) -> list[ir.Statement]:
        if len(self.proc_stack) > 64:  # unreachable: recursion becomes Recur, not inlining
            raise Abort()
        saved_path = self.path
        scope = Scope()
        seen: set[str] = set()
        spans = p.param_spans or [p.span] * len(p.params)
        for q, dt, q_span in zip(p.params, dtypes, spans):
            if q in RESERVED or q in self.decls or q in seen:
                self.err("E101", f"parameter `{q}` of `{p.name}` is already defined "
                         "(a built-in, a declared datum or another parameter)", q_span,
                         path=p.origin)
            seen.add(q)
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


def check_library(source: str, path: str) -> list[Diagnostic]:
    """The problems of a library file on its own: syntax, includes, misplaced statements.

    Its procedures read the data of the files that include them, so their
    bodies are checked where they are called.
    """
    from algspec.language.parser import parse_library
    from algspec.lowering import Lowering

    try:
        stmts = parse_library(source, path)
    except AlgError as e:
        return e.diagnostics
    low = Lowering(ast.Program(name="library", nodes=ast.Num(value=1), graph_kind="complete",
                               body=stmts), path)
    for s in low.collect_procs():
        low.err("E706", "an included file holds only `proc` definitions and `include`s", s.span)
    return list({(d.code, d.path, d.span, d.message): d for d in low.diags}.values())


def _call_sites(stmts: list[ast.Stmt], name: str, in_loop: bool):
    """Yield, for each call of `name`, whether it sits inside a loop."""
    for s in stmts:
        if isinstance(s, ast.CallStmt) and s.name == name:
            yield in_loop
        loop = in_loop or isinstance(s, (ast.WhileStmt, ast.ForRangeStmt, ast.ForNodesStmt))
        for f in ("then", "otherwise", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                yield from _call_sites(sub, name, loop)


def _calls_in(stmts: list[ast.Stmt]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, ast.CallStmt):
            out.add(s.name)
        for f in ("then", "otherwise", "body"):
            sub = getattr(s, f, None)
            if isinstance(sub, list):
                out |= _calls_in(sub)
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
    return x.model_copy(update=upd)
