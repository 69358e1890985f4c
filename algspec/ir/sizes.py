"""The problem size n of given inputs: one rule for `trace` and `run` without `n=`.

A file's node count N is an expression in n (`nodes n + 1`, `nodes 2 * n - 1`,
`nodes pow2ceil(n)`), so an array's length alone does not say n. Each given
node or edge input narrows the sizes it fits:

- every input fits the sizes whose N equals its length (the stored form: a
  dataset holds N values per node array);
- an input that may also be given as drawn (a node input with `pad`, whose
  remaining nodes take the pad value; an edge input, whose padded nodes have
  no edges) also fits the sizes at which its generator draws that many.

n is the size every input fits. When several fit (`nodes n + 1` with only
padded inputs: 8 keys are 8 items plus the placeholder, or 7 items and the
placeholder's own value), the size equal to an input's own length wins: the
inputs are read as their generators draw them, n items each. Otherwise the
call is refused with the sizes that fit, and n must be given.
"""

from __future__ import annotations

from collections.abc import Callable

from algspec import ir


def node_count(program: ir.Program, n: int) -> int | None:
    """N at size n, or None where the header gives no node count (an error elsewhere)."""
    from algspec.ir.size_values import EfficiencyError, eval_size
    try:
        value = eval_size(program.nodes, n)
    except (EfficiencyError, ArithmeticError, ValueError):
        return None
    return int(value) if value >= 1 and float(value).is_integer() else None


def infer_n(program: ir.Program, lengths: dict[str, int],
            drawn_count: Callable[[str, int], int | None]) -> int:
    """The problem size that every given input's length fits (module docstring).

    `lengths` maps each given node or edge input to its entries per axis;
    `drawn_count(name, n)` is how many entries its generator draws at n when the
    input may be given that way, else None. Raises ValueError naming the inputs
    when no size fits or when the fit is ambiguous.
    """
    longest = max(lengths.values())
    fits: dict[str, set[int]] = {}
    for size in range(1, 4 * longest + 9):
        N = node_count(program, size)
        for name, length in lengths.items():
            drawn = drawn_count(name, size)
            if length == N or (drawn is not None and length == drawn):
                fits.setdefault(name, set()).add(size)
    common = set.intersection(*(fits.get(name, set()) for name in lengths))
    if len(common) == 1:
        return common.pop()
    given = ", ".join(f"`{k}` has {v}" for k, v in lengths.items())
    if not common:
        raise ValueError(f"{program.name}: no problem size n fits the inputs' lengths ({given} "
                         f"entries per axis; the file has `nodes {_text(program.nodes)}`); "
                         "check their shapes, or pass n")
    own = sorted(common & set(lengths.values()))
    if len(own) == 1:
        return own[0]
    sizes = ", ".join(map(str, sorted(common)[:6])) + (", ..." if len(common) > 6 else "")
    raise ValueError(f"{program.name}: the inputs' lengths ({given} entries per axis) fit "
                     f"several problem sizes (n = {sizes}) under `nodes "
                     f"{_text(program.nodes)}`; pass n")


def _text(e: ir.Expr) -> str:
    from algspec.ir.size_text import size_text
    return size_text(e)
