"""Loop bounds at run time beyond one execution: `total bound` counters and the frame bound.

A loop's `total bound T` (`ir.Loop.total`) caps its trips summed over a
sample's whole run. The machine keeps one counter per lane and source loop
(`ir.loop_site`): every execution adds its trips, wherever it runs (inside
outer loops, in a procedure inlined at any of its call sites, in a recursive
procedure's frames), so the copies of one source loop share one count. A lane
whose count passes T faults with R112. The counters live as long as the
machine, which runs one batch whose lanes are its samples: every sample (and
every `trace`) starts from 0.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.ir.size_text import size_text


def count_total(m, s: ir.Statement, lanes: np.ndarray) -> None:
    """One trip of loop `s` on `lanes`: add it to the run's count; R112 past `total`.

    Checked before the per-execution bound, which a lone `total bound T` sets to T:
    one execution past T is past the run's total too, and is reported as such.
    """
    if s.total is None:
        return
    totals = m.loop_totals  # site -> trips so far, per sample
    site = ir.loop_site(s)
    limits = m.total_limits
    if site not in totals:
        totals[site] = np.zeros(m.B, np.int64)
        limits[site] = m._bound(s, s.total)
    trips, limit = totals[site], limits[site]
    trips += lanes
    over = lanes & (trips > limit)
    if over.any():
        m.stmt = s
        b = int(limit[over][0])
        m.fault("R112", f"total loop bound exceeded: more than {b} iteration"
                f"{'' if b == 1 else 's'} over the run (`total bound {size_text(s.total)}` "
                f"at n = {m.n})", over)


def frame_bound(m) -> int:
    """An upper bound on the frames a sample records, from the loop bounds.

    A loop runs at most its per-execution bound each time, and at most its total
    bound when it declares one (whichever is smaller).
    """
    def trips(e: ir.Expr) -> float:  # as the loops read their bounds (never wrapped)
        return float(np.max(m._bound(None, e))) if m.B else 0.0

    def count(stmts: list[ir.Statement]) -> float:
        total = 0.0
        for st in stmts:
            if isinstance(st, ir.Record):
                total += 1
            elif isinstance(st, ir.If):
                total += count(st.then) + count(st.otherwise)
            elif isinstance(st, (ir.While, ir.ForRange, ir.ForEdges)):
                t = trips(st.bound) if st.total is None else min(trips(st.bound),
                                                                 trips(st.total))
                total += t * count(st.body)
            elif isinstance(st, ir.ForNodes):
                total += m.N * count(st.body)
            elif isinstance(st, ir.Proc):
                total += trips(st.calls) * count(st.body)
        return total

    return int(min(count(m.prog.body), 2 ** 31))
