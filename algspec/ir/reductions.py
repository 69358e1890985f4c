"""Aggregations (`min(x[u] for u in nodes)`) and write combiners (`by min`).

Each `Reduction` carries its type rule, neutral element (read by the
efficiency normal forms), numpy ufunc (read by the interpreter's combining
writes) and whether the result is one of the inputs (only those may combine
pointers: E204). `ops` re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from algspec.ir import DType
from algspec.ir.op_basics import NUMERIC, OpTypeError

__all__ = ["AGGREGATIONS", "COMBINERS", "REDUCTIONS", "Reduction"]


@dataclass(frozen=True)
class Reduction:
    """An aggregation (`min(x[u] for u in nodes)`) and/or a write combiner (`by min`).

    `type_rule(value dtype) -> result dtype` (OpTypeError); `identity` is the
    neutral value (`op(b if c else identity ...)` reduces like a filter);
    `ufunc` combines two values elementwise (numpy); `picks` says the result is
    one of the inputs (so it may combine pointers: `sum` computes a new value).
    """

    name: str
    type_rule: Callable[[DType], DType]
    identity: float | bool | None
    ufunc: Any
    picks: bool
    aggregate: bool
    combiner: bool
    doc: str
    keyed: bool = False  # argmin/argmax: a (tuple) key picks the element; ties by lowest index


def _reduce_rule(name: str, want: str, result: DType | None = None):
    def rule(t: DType) -> DType:
        if want == "bool" and t != DType.BOOL:
            raise OpTypeError(f"`{name}` needs booleans, not {t.value}", 0)
        if want == "number" and t not in NUMERIC:
            raise OpTypeError(f"`{name}` needs numbers, not {t.value}", 0)
        return result or t
    return rule


REDUCTIONS: dict[str, Reduction] = {r.name: r for r in [
    Reduction("min", _reduce_rule("min", "number"), math.inf, np.minimum, True, True, True,
              "the smallest value (an empty aggregation needs `default`, R103)"),
    Reduction("max", _reduce_rule("max", "number"), -math.inf, np.maximum, True, True, True,
              "the largest value (an empty aggregation needs `default`, R103)"),
    Reduction("sum", _reduce_rule("sum", "number"), 0, np.add, False, True, True,
              "the sum (0 for an empty set); computes a new value, so never of pointers (E204)"),
    Reduction("any", _reduce_rule("any", "bool"), False, np.logical_or, True, True, True,
              "some value is true (false for an empty set)"),
    Reduction("all", _reduce_rule("all", "bool"), True, np.logical_and, True, True, True,
              "every value is true (true for an empty set)"),
    Reduction("count", _reduce_rule("count", "bool", DType.INT), False, np.add, False, True,
              False, "how many values are true (an int)"),
    Reduction("argmin", _reduce_rule("argmin", "any", DType.INT), None, None, True, True, True,
              "as an aggregation, the node whose key is smallest (keys compare "
              "lexicographically, ties by lowest index; empty needs `default`, R103); as a "
              "combiner `v by argmin KEY`, the write whose key is smallest (ties: lowest "
              "processor index)", keyed=True),
    Reduction("argmax", _reduce_rule("argmax", "any", DType.INT), None, None, True, True, True,
              "as argmin, for the largest key (ties still by lowest index)", keyed=True),
    Reduction("priority", _reduce_rule("priority", "any"), None, None, True, False, True,
              "the write of the lowest processor index wins (priority CRCW)"),
]}
AGGREGATIONS = {k: r for k, r in REDUCTIONS.items() if r.aggregate}
COMBINERS = {k: r for k, r in REDUCTIONS.items() if r.combiner}
