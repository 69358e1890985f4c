"""An aggregation over an empty set: its `default`, or R103 where a lane needs a value.

One rule for the dense rounds (`expressions.aggregate`) and the sparse ones
(`sparse_edges.aggregate`), so both modes fault and fill alike.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from algspec import ir
from algspec.interp.env_protocol import EvalEnv


def fill_empty(env: EvalEnv, e: ir.Aggregate, empty: np.ndarray, out: np.ndarray, rank: int,
               mask: np.ndarray,
               evaluate: Callable[[ir.Expr, int, np.ndarray], np.ndarray]) -> np.ndarray:
    """`out` with `e.default` where the set is `empty`; without a default, R103 on the
    empty sets of lanes in `mask`."""
    if not empty.any():
        return out
    if e.default is None:
        live = empty & env.lift(mask, rank)
        if live.any():
            env.fault("R103", f"`{e.op}` over an empty set has no `default`", live, e.span)
        return out
    return np.where(empty, evaluate(e.default, rank, mask), out)
