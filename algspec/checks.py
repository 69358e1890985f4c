"""Compatibility shim: the checks are the AST -> IR lowering in `algspec.lowering`.

`check(program, path)` and the old names stay importable for existing callers.
"""

from __future__ import annotations

from algspec import codes, ir
from algspec.language import ast
from algspec.lowering import COMBINERS, RESERVED, WHOLE_FUNCS, Lowering, lower

# code -> title of the errors of loading a file (parser and checks; E605 is the efficiency
# analysis's); the registry is algspec/codes.py
CODES = {k: c.title for k, c in codes.CODES.items()
         if k.startswith("E") and c.source in ("parser", "checks")}
Checker = Lowering


def check(program: ast.Program, path: str = "<string>") -> ir.Program:
    """Check an AST and lower it to the IR; raise `AlgError` with every problem found."""
    return lower(program, path)


__all__ = ["CODES", "COMBINERS", "RESERVED", "WHOLE_FUNCS", "Checker", "check"]
