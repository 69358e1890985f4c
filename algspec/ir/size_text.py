"""A size expression (`nodes`, loop bounds) as source text, for messages.

Sizes are constants, n and m under the operators of `algspec.ir.ops`, whose
table also says how each operator prints.
"""

from __future__ import annotations

from algspec import ir
from algspec.ir import ops


def size_text(e: ir.Expr) -> str:
    """Source-like text of a size expression; op text from `algspec.ir.ops`."""
    def leaf(x: ir.Expr) -> str:
        if isinstance(x, ir.Const):
            return str(x.value)
        if isinstance(x, ir.Size):
            return x.which
        return "?"
    return ops.text(e, leaf)
