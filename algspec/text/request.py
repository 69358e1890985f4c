"""What a text request may ask, checked before any sample is drawn, so that a mistake is
one line at once and not a failure (or a silent no-op) after minutes of sampling."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

from algspec.text.errors import BadDecimals, NothingToTrace
from algspec.text.format import answer_names, traced_hints

# Truncation keeps this many decimals at most: a float64 holds about 15 significant
# decimal digits, and 10**d itself overflows a float past 308.
MAX_DECIMALS = 15


def check_decimals(decimals: Any) -> int | None:
    """`decimals` as an int in [0, MAX_DECIMALS], or None; `BadDecimals` otherwise."""
    if decimals is None:
        return None
    try:
        if isinstance(decimals, bool):
            raise TypeError
        value = operator.index(decimals)
    except TypeError:
        raise BadDecimals(f"decimals must be a whole number from 0 to {MAX_DECIMALS}, "
                          f"not {decimals!r}") from None
    if not 0 <= value <= MAX_DECIMALS:
        raise BadDecimals(f"decimals must be from 0 to {MAX_DECIMALS} (a float holds about "
                          f"{MAX_DECIMALS} significant digits), not {value}")
    return value


def check_hints(name: str, spec: Mapping[str, Sequence[str]]) -> None:
    """`NothingToTrace` unless some output has a hint `<output>_h` (or, for CLRS-30's
    search and string tasks, the hints CLRS-Text traces instead) to trace."""
    outputs = [d for d, (stage, _, _) in spec.items() if stage == "output"]
    hints = [d for d, (stage, _, _) in spec.items() if stage == "hint"]
    if traced_hints(name, spec, outputs, hints):
        return
    wanted = ", ".join(f"`{h}_h`" for h in outputs) if outputs else "`<output>_h`"
    raise NothingToTrace(
        f"--hints traces each output's `<output>_h` hint, and {name} has none "
        f"(outputs: {', '.join(answer_names(name, spec, False)) or 'none'}); add a hint "
        f"such as {wanted}, or drop --hints")


def check_request(alg: Any, *, hints: bool, decimals: Any) -> int | None:
    """Check a text request of `alg` (the `TextError`s above); returns the decimals."""
    if hints:
        check_hints(alg.name, alg.spec)
    return check_decimals(decimals)
