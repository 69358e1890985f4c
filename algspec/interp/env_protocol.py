"""What expression evaluation reads of an environment, as a protocol.

`expressions.py`, `observe.py` and `random.py` take an environment but must
not import `env.py` (which imports them to evaluate): they are typed against
this protocol, which `env.Env` (and so the running `Machine`) satisfies.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from algspec import ir
from algspec.diagnostics import Span
from algspec.interp.activity import ActivityObserver


class EvalEnv(Protocol):
    """Sizes, graph, data and locals of one batch, as evaluation sees them."""

    prog: ir.Program
    B: int
    n: int
    N: int
    m: np.ndarray
    adj: np.ndarray | None
    state: dict[str, np.ndarray]
    locals: dict[str, np.ndarray]
    obs: ActivityObserver | None
    stmt: ir.IRNode | None
    # the run's bookkeeping, declared by `Env.__init__` (see there)
    sparse: Any
    combined: dict[str, Any] | None
    rand_keys: np.ndarray | None
    given_rand_keys: np.ndarray | None
    rand_counts: dict[int, np.ndarray]
    edge_draw_sites: dict[int, list[int]]

    def decl(self, name: str) -> ir.DataDecl: ...

    def lift(self, x: np.ndarray, rank: int) -> np.ndarray: ...

    def view(self, e: ir.Expr, loc: ir.Loc) -> np.ndarray: ...

    def fault(self, code: str, message: str, bad_lanes: np.ndarray,
              span: Span | None = None) -> None: ...
