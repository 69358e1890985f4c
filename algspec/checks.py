"""Compatibility shim: the checks are the AST -> IR lowering in `algspec.lowering`.

`check(program, path)` and the old names stay importable for existing callers.
"""

from __future__ import annotations

from algspec import codes, ir
from algspec.language import ast
from algspec.lowering import COMBINERS, RESERVED, WHOLE_FUNCS, Lowering, lower

CODES = codes.titles("E")  # code -> title of the check errors; the registry is algspec/codes.py
Checker = Lowering


def check(program: ast.Program, path: str = "<string>") -> ir.Program:
    """Check an AST and lower it to the IR; raise `AlgError` with every problem found."""
    return lower(program, path)


__all__ = ["CODES", "COMBINERS", "RESERVED", "WHOLE_FUNCS", "Checker", "check"]
