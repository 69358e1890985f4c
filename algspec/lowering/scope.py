"""What every part of the lowering shares: scopes, reporting, built-in names.

`Reporter` collects diagnostics; `fail` also aborts the expression or
statement being lowered (`Abort`), so one file reports all its problems.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algspec import ir
from algspec.diagnostics import Diagnostic, Span
from algspec.ir import ops
from algspec.language import ast

COMBINERS = set(ops.COMBINERS)  # the rules of each are in algspec.ir.ops.REDUCTIONS
WHOLE_FUNCS = {"onehot", "adjacency", "transpose", "chain"}
PROBED_TYPES = set(ir.CLRS_TYPES)
STATE_TYPES = {"int": ir.DType.INT, "float": ir.DType.FLOAT, "bool": ir.DType.BOOL}
RESERVED = {"n", "N", "m", "index", "inf", "pos", "nodes", "true", "false"}
INDEX_TYPES = ("pointer", "should_be_permutation", "categorical")  # node indices, not numbers
RETURN = "return"  # the local a procedure's `return` sets (renamed apart per call site)


class Abort(Exception):
    """Stop lowering one expression/statement after a diagnostic was emitted."""


@dataclass
class Scope:
    """What an expression can see: bound index variables and locals."""

    index_vars: list[str] = field(default_factory=list)
    implicit: bool = False  # whole-array context: bare node/edge names read pointwise
    locals: dict[str, tuple[ir.DType, frozenset[int]]] = field(default_factory=dict)
    in_forall: bool = False
    in_round: bool = False
    loop_depth: int = 0
    derived_of: str | None = None  # lowering the definition of this datum
    derived_stage: str | None = None
    # `v == e` a forall guard or enclosing `if` holds: v is a function of e (see
    # `statements.private_write`), so `forall v, u where v == 0 { x[u] = .. }` is private
    pins: tuple[tuple[str, ir.Expr], ...] = ()
    # locals whose `let` was reported invalid: their uses abort quietly (one error per mistake)
    failed: set[str] = field(default_factory=set)
    # where a procedure's value cannot be computed first (its statements run before the
    # statement that uses it): e.g. "on the right of `and`"; None where it can
    no_calls: str | None = None
    # the leading `index_vars` that are the processors of the enclosing `forall` (the rest
    # are aggregation variables)
    processors: int = 0
    # lowering a procedure inlined per processor of a round (its own loops run per lane)
    per_lane: bool = False

    def child(self, **kw) -> Scope:
        s = Scope(list(self.index_vars), self.implicit, dict(self.locals), self.in_forall,
                  self.in_round, self.loop_depth, self.derived_of, self.derived_stage,
                  self.pins, set(self.failed), self.no_calls, self.processors, self.per_lane)
        for k, v in kw.items():
            setattr(s, k, v)
        return s


def implicit_vars(loc: ir.Loc) -> list[str]:
    """The implicit index variables of a whole-array expression at `loc`."""
    return ["@i", "@j"][: ir.rank(loc)]


class Reporter:
    """State shared by the lowering passes: the AST, the declarations so far, diagnostics."""

    def __init__(self, prog: ast.Program, path: str):
        self.prog = prog
        self.path = path
        self.diags: list[Diagnostic] = []
        self.decls: dict[str, ir.DataDecl] = {}
        self.decl_ast: dict[str, ast.Decl] = {}
        self.rejected: set[str] = set()  # declared, but the declaration was reported invalid
        # (path, name) -> its one E206, that E206's own help, the lines of its later uses
        self.unknown: dict[tuple[str, str], tuple[Diagnostic, str | None, list[int]]] = {}
        self.next_id = 0
        # Read by several passes (each pass is a mixin of `Lowering`), so declared here once:
        self.procs: dict[str, ast.ProcDef] = {}  # the procedures by name (with includes)
        # the procedures being inlined: (proc, IR name, param dtypes)
        self.proc_stack: list[tuple[str, str, list[ir.DType]]] = []
        # the procedures being inlined per processor of a round: (name, call span)
        self.lane_calls: list[tuple[str, object]] = []
        self.rand_sites = 0  # `rand()` call sites numbered so far (ir.Rand.site)
        self.node_count: ir.Expr | None = None  # N in n, once lowered
        # the innermost `edges(A)` loop's ends and its procedure depth: its draws are per edge
        self.edge_loop: tuple[object, int] | None = None

    def err(self, code: str, message: str, span: Span, help: str | None = None,
            path: str | None = None) -> None:
        """Report a problem; `path` names an included file it is in (default: this file)."""
        self.diags.append(Diagnostic(code=code, message=message, span=span, help=help,
                                     path=path or self.path))

    def fail(self, code: str, message: str, span: Span, help: str | None = None):
        self.err(code, message, span, help)
        raise Abort()

    def unknown_name(self, name: str, span: Span, help: str | None = None):
        """E206, unless `name` was declared and its declaration already reported (no cascade).

        A name is reported unknown once per file: its later uses are the same mistake, so
        they only add their lines to the first diagnostic's help.
        """
        if name in self.rejected:
            raise Abort()
        key = (self.path, name)
        if key not in self.unknown:
            self.err("E206", f"unknown name `{name}`", span, help)
            self.unknown[key] = (self.diags[-1], help, [])
            raise Abort()
        first, base, lines = self.unknown[key]
        if span.line != first.span.line and span.line not in lines:
            lines.append(span.line)
            also = f"`{name}` is also used on line{'s' if len(lines) > 1 else ''} " + \
                ", ".join(map(str, lines))
            first.help = f"{base}; {also}" if base else also
        raise Abort()

    def new_id(self) -> int:
        """Statement ids number the statements in source order (hint frames name them)."""
        self.next_id += 1
        return self.next_id - 1
