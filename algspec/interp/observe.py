"""The observer protocol: how the interpreter reports the activity it measures.

`algspec.efficiency.measured` counts active nodes and edges per round from
these reports, so the measured efficiency needs no second copy of any
algorithm. Views (derived data) are never reported: they are encodings, not
work of the algorithm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from algspec import ir

if TYPE_CHECKING:
    from algspec.interp.env import Env


class ActivityObserver(Protocol):
    """Receives what each statement touches, per sample.

    Optional, looked up with `getattr`:
    `loop(stmt_id, sample, iterations)`: a while/for loop finished on the samples
    `sample` after `iterations[i]` trips in sample `sample[i]`.
    """

    def nodes(self, stmt_id: int, sample: np.ndarray, node: np.ndarray) -> None: ...

    def edges(self, stmt_id: int, sample: np.ndarray, src: np.ndarray,
              dst: np.ndarray) -> None: ...

    def frame(self, sample: np.ndarray) -> None: ...


def _sid(env: Env) -> int:
    return env.stmt.id if env.stmt is not None else -1


def observe_read(env: Env, e: ir.Read, rank: int, idx: list[np.ndarray], mask: np.ndarray,
                 shape: tuple[int, ...]) -> None:
    """Report an indexed read: an edge read is that edge; a pointer read, src -> processor."""
    # The lane mask may vary along axes the indices do not (an aggregation's filter
    # reading `x[k + 1, j]` in a `forall i, j`): observe over both.
    shape = np.broadcast_shapes(shape, np.shape(mask))
    pos = np.nonzero(np.broadcast_to(mask, shape))
    if not len(pos[0]):
        return
    idx = [np.broadcast_to(i, shape) for i in idx]
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


def observe_aggregate(env: Env, e: ir.Aggregate, rank: int, sel: np.ndarray,
                      of: np.ndarray | None, evaluated: np.ndarray | None = None,
                      body: np.ndarray | None = None) -> None:
    """Report the edges (or nodes) of the elements an aggregation chooses, by the
    worst-case rule (`algspec.efficiency.worst_case.reported`): those its filter passes
    (`sel`), every `evaluated` one when the filter reads two places, and of an
    `any`/`all`/`count` whose predicate does not, the witnesses in `body` only."""
    every, witness = _reported(e, rank == 0)
    if every and evaluated is not None:
        sel = evaluated
    if witness and body is not None:
        holds = np.asarray(body).astype(bool)
        sel = sel & (~holds if e.op == "all" else holds)
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


_REPORTED: dict[tuple[int, bool], tuple[ir.Aggregate, tuple[bool, bool]]] = {}


def _reported(e: ir.Aggregate, readout: bool) -> tuple[bool, bool]:
    """`worst_case.reported`, cached per aggregation (the rule reads the IR only)."""
    hit = _REPORTED.get((id(e), readout))
    if hit is None or hit[0] is not e:
        from algspec.efficiency.worst_case import reported
        if len(_REPORTED) > 4096:
            _REPORTED.clear()
        hit = _REPORTED[(id(e), readout)] = (e, reported(e, readout))
    return hit[1]


def report_loop(obs: ActivityObserver | None, stmt_id: int, lanes: np.ndarray,
                iters: np.ndarray) -> None:
    """Call the optional `obs.loop` with the trip counts of the samples in `lanes`."""
    report = None if obs is None else getattr(obs, "loop", None)
    if report is not None:
        sample = np.nonzero(lanes)[0]
        report(stmt_id, sample, iters[sample])
