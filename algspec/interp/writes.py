"""Writes: committing an assignment's values to the state or the locals.

Sequential writes (rank 0) set one element per sample. Parallel writes from a
`forall` set one element per processor; several processors writing one place
combine with the declared combiner, and `priority` (or none) keeps the value
of the lowest processor index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from algspec import ir
from algspec.interp.dtypes import NP_DTYPE
from algspec.ir import ops

if TYPE_CHECKING:
    from algspec.interp.env import Env


def commit(env: Env, t: ir.Target, v, idx, mask, rank, combiner, s, keys=None) -> None:
    """Write `v` to target `t` where `mask` holds; concurrent writers combine.

    `keys` are the evaluated key components of `by argmin`/`by argmax`.
    """
    env.stmt = s
    dt = NP_DTYPE[t.dtype]
    store = env.locals if t.local else env.state
    if t.local:
        full = np.broadcast_shapes(np.shape(v), mask.shape)
        old = store.get(t.name)
        if old is None or old.shape != full:
            old = np.zeros(full, dtype=dt)
        store[t.name] = np.where(mask, v, old).astype(dt)
        return
    arr = store[t.name]
    if t.whole:
        mk = mask.reshape(mask.shape + (1,) * (arr.ndim - 1))
        store[t.name] = np.where(mk, v, arr).astype(dt)
        if env.obs is not None and t.loc != ir.Loc.GRAPH and \
                any(tt is t and ir.reads_state(x) for tt, x in zip(s.targets, s.values)):
            _observe_whole(env, t, np.asarray(mask), s.id)
        return
    if rank == 0:
        lanes = np.nonzero(mask)[0]
        if not len(lanes):
            return
        val = _at_lanes(v, lanes, env.B)
        if t.loc == ir.Loc.GRAPH:
            arr[lanes] = val
            return
        ii = [_at_lanes(i, lanes, env.B) for i in idx]
        check_index(env, ii, t, lanes)
        if env.obs is not None:
            env.obs.nodes(s.id, lanes, ii[0])
            if len(ii) == 2:
                env.obs.edges(s.id, lanes, ii[0], ii[1])
        arr[(lanes, *ii)] = val
        return
    # Parallel writes from a forall of `rank` processor axes.
    shape = (env.B,) + (env.N,) * rank
    m = np.broadcast_to(mask, shape)
    val = np.broadcast_to(v, shape)
    # Each processor writes its own cell: store directly, unless the write combines (with
    # a round to track, an earlier or later statement's writes to the same cell combine
    # with it: `x[v] = a by sum` then `x[u] = b by sum`).
    if t.loc != ir.Loc.GRAPH and all(i.kind == "ivar" and i.axis == a
                                     for a, i in enumerate(t.indices)) and \
            len(t.indices) == rank and \
            (combiner is None or env.combined is None):
        if getattr(s, "accumulate", False):  # private `x[v] += e by sum`: one increment
            val = arr + val
        store[t.name] = np.where(m, val, arr).astype(dt)
        return
    pos = np.nonzero(m)
    if not len(pos[0]):
        return
    ii = None if t.loc == ir.Loc.GRAPH else [np.broadcast_to(i, shape)[pos] for i in idx]
    kvs = [np.broadcast_to(k, shape)[pos] for k in keys or []]
    commit_at(env, t, pos, val[pos], ii, kvs, rank, combiner, s)


def commit_at(env: Env, t: ir.Target, pos: tuple, vals: np.ndarray, ii, kvs: list,
              rank: int, combiner, s) -> None:
    """A parallel write at the processors `pos` ((b, v) or (b, v, w), in C order): their
    values, target indices (`ii`, None for graph data) and `by argmin` key components.

    Shared by the dense rounds and the edge-list rounds (`sparse_edges.py`), so that
    both combine concurrent writes alike.
    """
    dt = NP_DTYPE[t.dtype]
    store = env.state
    arr = store[t.name]
    b = pos[0]
    if t.loc == ir.Loc.GRAPH:
        key = b
        size = env.B
    else:
        check_index(env, ii, t, b)
        key = b * env.N + ii[0] if len(ii) == 1 else (b * env.N + ii[0]) * env.N + ii[1]
        size = arr.size
    flat = arr.reshape(-1).copy() if t.loc != ir.Loc.GRAPH else arr.copy()
    flat[:] = flat  # keep dtype
    # Earlier combined writes to this datum in the same round (an `if`'s two branches,
    # two foralls of a `round`): the round's writes all combine, not the last statement's.
    # Writes without a combiner (private per statement) keep program order: the later wins.
    rounds = env.combined if combiner is not None else None
    prior = rounds.get(t.name) if rounds is not None else None
    if prior is not None and prior.combiner != combiner:
        prior = None  # mixed combiners: the later statement's writes replace
    if combiner in (None, "priority", "argmin", "argmax"):
        proc = pos[1] if rank == 1 else pos[1] * env.N + pos[2]
        ks = []
        for kv in kvs if combiner in ("argmin", "argmax") else []:
            kv = kv.astype(np.int64) if kv.dtype.kind == "b" else kv
            ks.append(-kv if combiner == "argmax" else kv)
        # Sort writers by (place, key components, processor order); the first of each
        # place wins (np.nonzero is in C order). np.lexsort sorts by its last key first.
        order = np.lexsort((proc, *reversed(ks), key))
        uk, first = np.unique(key[order], return_index=True)
        win = order[first]
        ranks = [kv[win].astype(np.float64) for kv in ks] + [proc[win].astype(np.float64)]
        better = np.ones(len(uk), bool) if prior is None else _beats(ranks, prior, uk)
        flat[uk[better]] = vals[win][better]
        _remember(rounds, t.name, combiner, size, uk[better], [r[better] for r in ranks],
                  prior)
    else:
        red = ops.COMBINERS[combiner]  # its ufunc and neutral element
        ufunc, ident = red.ufunc, red.identity
        acc = np.full(size, ident, dtype=np.float64 if combiner in ("min", "max", "sum")
                      else bool)
        ufunc.at(acc, key, vals)
        written = np.zeros(size, bool)
        written[key] = True
        if getattr(s, "accumulate", False):  # `x += e by sum`: the increments, added once
            acc[written] = ufunc(flat[written].astype(acc.dtype), acc[written])
        elif prior is not None:  # combine with what this round's earlier writes left
            both = written & prior.written
            acc[both] = ufunc(flat[both].astype(acc.dtype), acc[both])
        flat[written] = acc[written].astype(flat.dtype)
        _remember(rounds, t.name, combiner, size, np.nonzero(written)[0], [], prior)
    store[t.name] = flat.reshape(arr.shape).astype(dt)


class RoundWrites:
    """The places a round's combined writes to one datum reached, and who won each."""

    def __init__(self, combiner: str | None, size: int, nranks: int):
        self.combiner = combiner
        self.written = np.zeros(size, bool)
        self.ranks = [np.zeros(size) for _ in range(nranks)]  # (key..., processor) of winners


def _beats(ranks: list[np.ndarray], prior: RoundWrites, uk: np.ndarray) -> np.ndarray:
    """Where the new winner's (key..., processor) is <= the earlier winner's (or none was).

    Equal ranks mean the same processor writing again: its later write wins.
    """
    if len(ranks) != len(prior.ranks):
        return np.ones(len(uk), bool)
    less = np.zeros(len(uk), bool)
    equal = np.ones(len(uk), bool)
    for new, old in zip(ranks, prior.ranks):
        o = old[uk]
        less |= equal & (new < o)
        equal &= new == o
    return ~prior.written[uk] | less | equal


def _remember(rounds: dict | None, name: str, combiner: str | None, size: int,
              places: np.ndarray, ranks: list[np.ndarray], prior: RoundWrites | None) -> None:
    if rounds is None:
        return
    rec = prior if prior is not None else RoundWrites(combiner, size, len(ranks))
    rec.written[places] = True
    for r, new in zip(rec.ranks, ranks):
        r[places] = new
    rounds[name] = rec


def check_index(env: Env, ii, t: ir.Target, lanes) -> None:
    """R101 when a write's index is outside the nodes."""
    for i in ii:
        bad = (i < 0) | (i >= env.N)
        if bad.any():
            b = np.zeros(env.B, bool)
            b[np.asarray(lanes)[bad]] = True
            env.fault("R101", f"index out of range writing `{t.name}`", b, t.span)


def fresh(x: np.ndarray) -> np.ndarray:
    """A copy of `x`: a value read from the state may be the state's own array."""
    return np.array(x, copy=True)


def _at_lanes(x, lanes: np.ndarray, B: int) -> np.ndarray:
    """The values of a sequential (rank 0) value `x`, shape (1,) or (B,), at `lanes`."""
    x = np.asarray(x)
    if x.ndim == 1:
        return x[lanes] if x.shape[0] != 1 else np.repeat(x, len(lanes))
    return np.broadcast_to(x, (B,))[lanes]


def _observe_whole(env: Env, t: ir.Target, mask: np.ndarray, sid: int) -> None:
    """A whole-array update that reads data is a forall over every element (the static
    normal form): every node of the live samples is active, and for edge data every edge."""
    lanes = np.nonzero(mask.reshape(mask.shape[0], -1).any(axis=1))[0]
    if not len(lanes):
        return
    if t.loc == ir.Loc.EDGE and env.adj is not None:
        b, i, j = np.nonzero(np.asarray(env.adj)[lanes])
        env.obs.edges(sid, lanes[b], i, j)
    env.obs.nodes(sid, np.repeat(lanes, env.N), np.tile(np.arange(env.N), len(lanes)))

