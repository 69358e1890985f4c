"""AST -> IR lowering: names, locations, types, stages, bounds and write conflicts.

Split by concern: `scope` (scopes, reporting, built-in names), `declarations`,
`expressions` (typed by the rules of `algspec.ir.ops`), `statements`, `loops` and
`procedures`; this package joins them into `Lowering` (the parts import only
`scope`, never each other or the package). Every
problem becomes a `Diagnostic` whose code is registered in `algspec.codes`; a
file that passes becomes one `algspec.ir.Program`.
"""

from __future__ import annotations

import math

from algspec import ir
from algspec.diagnostics import AlgError, Diagnostic, Span
from algspec.ir import ops
from algspec.ir.size_values import EfficiencyError, eval_size
from algspec.language import ast
from algspec.lowering.declarations import Declarations
from algspec.lowering.expressions import Expressions
from algspec.lowering.loops import Loops
from algspec.lowering.procedures import Procedures
from algspec.lowering.scope import COMBINERS, RESERVED, WHOLE_FUNCS, Scope
from algspec.lowering.statements import Statements


class Lowering(Declarations, Expressions, Procedures, Statements, Loops):
    """Lowers one AST program; `run()` returns the IR or raises `AlgError` with every problem."""

    def run(self) -> ir.Program:
        p = self.prog
        nodes = self.static_expr(p.nodes, "node count", allow_m=False)
        self.node_count = nodes  # N in n, for checks that evaluate sizes (a range's step)
        if nodes is not None and nodes.dtype != ir.DType.INT:
            self.err("E205", f"the node count must be an integer, not {nodes.dtype.value}",
                     p.nodes.span, help="use `//` for integer division, e.g. `nodes n // 2 + 1`")
        elif nodes is not None:
            self.check_node_count(nodes, p.nodes.span)
        self.declare_all()
        graph = self.lower_graph()
        body = self.lower_block(self.collect_procs(), Scope())
        if self.diags:
            raise AlgError(list({(d.code, d.path, d.span, d.message): d
                                 for d in self.diags}.values()))  # a procedure's, once
        decls = list(self.decls.values())
        return ir.Program(name=p.name, path=self.path, nodes=nodes or ir.Size(which="n"),
                          graph=graph, decls=decls, body=body, num_statements=self.next_id)

    def check_node_count(self, nodes: ir.Expr, span: Span) -> None:
        """A node count below one at every large n (`nodes 0`, `nodes 4 - n`) is the header's
        mistake: E108 here, not a division by a zero capacity in the analysis or a run-time
        fault at every size. (`nodes n // 8`, zero only at small n, stays a run-time E108.)"""
        try:
            value = eval_size(nodes, 2 ** 20)
        except (ArithmeticError, ValueError, TypeError, EfficiencyError, ops.NotASize):
            return  # undefined or beyond a float: the run-time checks say so at each n
        if not math.isnan(value) and value < 1:
            constant = math.isfinite(value) and not any(
                isinstance(x, ir.Size) for x in ir.walk_expr(nodes))
            shown = f" ({int(value)})" if constant else ""
            self.err("E108", f"the node count is below one{shown} at every large n; an "
                     "algorithm needs at least one node", span,
                     help="declare the processors in n, e.g. `nodes n` or `nodes 2 * n - 1`")


def lower(program: ast.Program, path: str = "<string>") -> ir.Program:
    """Check an AST and lower it to the IR; raise `AlgError` with every problem found."""
    return Lowering(program, path).run()


def check_library(source: str, path: str) -> list[Diagnostic]:
    """The problems of a library file on its own: syntax, includes, misplaced statements.

    Its procedures read the data of the files that include them, so their
    bodies are checked where they are called.
    """
    from algspec.language.parser import parse_library  # parser imports lark: only when needed

    try:
        stmts = parse_library(source, path)
    except AlgError as e:
        return e.diagnostics
    low = Lowering(ast.Program(name="library", nodes=ast.Num(value=1), graph_kind="complete",
                               body=stmts), path)
    for s in low.collect_procs():
        low.err("E706", "an included file holds only `proc` definitions and `include`s", s.span)
    return list({(d.code, d.path, d.span, d.message): d for d in low.diags}.values())


__all__ = ["COMBINERS", "RESERVED", "WHOLE_FUNCS", "Lowering", "check_library", "lower"]
