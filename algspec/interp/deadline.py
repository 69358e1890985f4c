"""A time limit on runs, for callers that sample a file only to describe it.

`algspec lint` and `algspec compile` run a few small instances of a file. A hostile or
mistaken file (`for k in 0 .. 10 ** 12 { ... }`, a `while` whose bound is astronomically
large) would make them run for days. Within `time_limit(seconds)` every loop trip and
recursive call checks the clock, and past the limit the run stops with R116 at the loop
it was in, saying how many trips that loop had run. Runs outside such a block (`sample`,
training) have no limit: a long run there is asked for, and Ctrl-C stops it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from algspec import ir
from algspec.diagnostics import RuntimeFault, Span

_LIMIT: ContextVar[tuple[float, float] | None] = ContextVar("algspec_run_limit", default=None)


class PastTimeLimit(RuntimeFault):
    """R116: a run passed the time limit its caller set. It concerns the whole batch, so it
    names no sample."""

    def __init__(self, message: str, span: Span, path: str) -> None:
        super().__init__("R116", message, span, 0, path=path,
                         help="check the loop's bounds: small instances of a file should "
                              "end within seconds")
        self.diagnostic = self.diagnostic.model_copy(update={"message": message})
        self.args = (self.diagnostic.concise_block(),)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Runs inside stop with R116 once `seconds` have passed (nested limits: the inner)."""
    token = _LIMIT.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def check(prog: ir.Program, s: ir.Statement, trips: np.ndarray | None, n: int) -> None:
    """Raise `PastTimeLimit` at statement `s` when the current limit has passed."""
    limit = _LIMIT.get()
    if limit is None or time.monotonic() <= limit[0]:
        return
    done = f"after {int(np.max(trips)):,} trips " if trips is not None and trips.size else ""
    raise PastTimeLimit(f"the run at n = {n} passed its time limit of {limit[1]:g} s in this "
                        f"{_kind(s)} {done}".rstrip(), s.span or Span(), s.path or prog.path)


def _kind(s: ir.Statement) -> str:
    return {"While": "`while` loop", "ForRange": "`for` loop", "ForEdges": "edges loop",
            "ForNodes": "nodes loop", "Recur": "recursive call"}.get(type(s).__name__,
                                                                       "statement")
