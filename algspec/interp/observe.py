"""Reporting the activity the interpreter measures to its observer (`activity.py`).

`algspec.lint.measured` counts active nodes and edges per round from
these reports, so the measured efficiency needs no second copy of any
algorithm. Views (derived data) are never reported: they are encodings, not
work of the algorithm.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.interp.activity import ActivityObserver
from algspec.interp.env_protocol import EvalEnv

__all__ = ["ActivityObserver", "observe_aggregate", "observe_read", "report_loop"]


def _sid(env: EvalEnv) -> int:
    return env.stmt.id if env.stmt is not None else -1


def observe_read(env: EvalEnv, e: ir.Read, rank: int, idx: list[np.ndarray], mask: np.ndarray,
                 shape: tuple[int, ...]) -> None:
    """Report an indexed read: an edge read is that edge; a pointer read, src -> processor."""
    # The lane mask may vary along axes the indices do not (an aggregation's filter
    # reading `x[k + 1, j]` in a `forall i, j`): observe over both.
    if np.shape(mask) != shape:  # (broadcast only when needed: reads are many and small)
        shape = np.broadcast_shapes(shape, np.shape(mask))
        mask = np.broadcast_to(mask, shape)
    pos = np.nonzero(mask)
    if not len(pos[0]):
        return
    idx = [i if i.shape == shape else np.broadcast_to(i, shape) for i in idx]
    b, sid, obs = pos[0], _sid(env), env.obs
    if e.loc == ir.Loc.EDGE:
        obs.edges(sid, b, idx[0][pos], idx[1][pos])
        if rank == 0:  # a sequential read touches the edge's ends, as a node read its node
            obs.nodes(sid, b, idx[0][pos])
            obs.nodes(sid, b, idx[1][pos])
        return
    src = idx[0][pos]
    if rank >= 1:  # a processor dereferencing a pointer: one edge src -> processor
        proc = pos[1]
        other = src != proc
        obs.edges(sid, b[other], src[other], proc[other])
        obs.nodes(sid, b, proc)
    obs.nodes(sid, b, src)


def observe_aggregate(env: EvalEnv, e: ir.Aggregate, rank: int, sel: np.ndarray,
                      of: np.ndarray | None, evaluated: np.ndarray | None = None,
                      body: np.ndarray | None = None) -> None:
    """Report the edges (or nodes) of the elements an aggregation chooses: those its
    filter passes (`sel`), or those the observer's optional
    `aggregate_elements(e, readout, sel, evaluated, body)` picks from `sel`, the ones it
    evaluated the filter on and the values of its body."""
    pick = getattr(env.obs, "aggregate_elements", None)
    if pick is not None:
        sel = pick(e, rank == 0, sel, evaluated, body)
    pos = np.nonzero(sel)
    if not len(pos[0]):
        return
    sid, obs = _sid(env), env.obs
    b, u = pos[0], pos[-1]
    if of is not None:
        tgt = np.broadcast_to(of, sel.shape)[pos]
        if e.domain == "incoming":
            obs.edges(sid, b, u, tgt)
        else:
            obs.edges(sid, b, tgt, u)
        obs.nodes(sid, b, tgt)
    elif rank >= 1:
        obs.edges(sid, b, u, pos[1])
    else:
        obs.nodes(sid, b, u)


def report_loop(obs: ActivityObserver | None, stmt_id: int, lanes: np.ndarray,
                iters: np.ndarray) -> None:
    """Call the optional `obs.loop` with the trip counts of the samples in `lanes`."""
    report = None if obs is None else getattr(obs, "loop", None)
    if report is not None:
        sample = np.nonzero(lanes)[0]
        report(stmt_id, sample, iters[sample])
