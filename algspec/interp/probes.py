"""Probe encoding: a datum's value in an environment, as dm-clrs encodes it.

Node arrays `[B, N]`, edge `[B, N, N]`, graph `[B]`; `mask_one` and
`categorical` one-hot (`categorical` adds a last axis of size k); pointers as
the node index stored as float; masks 0/1. `none` (`ir.NONE`) in an optional
datum is CLRS's absent value: a `pointer?` of node v holding none is a
self-pointer (v), a `mask_one?` holding none is all zeros. Values that break
their CLRS type raise the run-time faults R101, R105 and R106.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.interp.env import Env

# the help of R101/R106 on a datum that is not optional
NONE_HELP = {"pointer": "a pointer that may be absent is `pointer?`: `none` is then a "
                        "self-pointer (docs/language.md)",
             "mask_one": "a one-hot that may be empty is `mask_one?`: `onehot(none)` is then "
                         "an all-zero mask (docs/language.md)"}


def onehot_of(d: ir.DataDecl) -> ir.Expr | None:
    """`x` when node datum `d` is the view `onehot(x)` of a graph-level value."""
    e = d.derived
    if d.loc == ir.Loc.NODE and isinstance(e, ir.Binary) and e.op == "==" and \
            isinstance(e.left, ir.IndexVar) and not any(
                isinstance(x, (ir.IndexVar, ir.Aggregate)) for x in ir.walk_expr(e.right)):
        return e.right
    return None


def probe_shape(d: ir.DataDecl, N: int) -> tuple[int, ...]:
    """The shape of one sample's probe of `d` (no batch axis)."""
    shape = (N,) * ir.rank(d.loc)
    return shape + ((d.categories,) if d.clrs_type == "categorical" else ())


def probe(env: Env, d: ir.DataDecl, lanes: np.ndarray | None = None,
          out: np.ndarray | None = None) -> np.ndarray:
    """The CLRS encoding of datum `d` in `env`, as `env.dtype`.

    Type faults only count in `lanes`. With `out` (shape `(B, *probe_shape)`),
    the encoding is written there. Views are evaluated unobserved. Entries where
    `d.masked` holds are CLRS's MASKED value: -1 (a categorical: -1 at its class).
    """
    B = env.B
    lanes = np.ones(B, bool) if lanes is None else lanes
    if out is None:
        out = np.empty((B,) + probe_shape(d, env.N), env.dtype)
    _encode(env, d, lanes, out)
    if d.masked is not None:
        where = np.broadcast_to(env.view(d.masked, d.loc), out.shape[:1 + ir.rank(d.loc)])
        if d.clrs_type == "categorical":
            out[where] *= -1  # dm-clrs's [0, .., 0, -1]: the one-hot of the stored class, negated
        else:
            out[where] = -1
    return out


def _encode(env: Env, d: ir.DataDecl, lanes: np.ndarray, out: np.ndarray) -> np.ndarray:
    """`probe` without the MASKED entries."""
    B, N = env.B, env.N
    hot = onehot_of(d) if d.stage != ir.Stage.INPUT else None
    if hot is not None:  # build the one-hot directly: no comparison over all nodes
        with env.unobserved():
            x = np.broadcast_to(env.eval(hot, 0, lanes), (B,)).astype(np.int64)
        absent = (x == ir.NONE) if d.optional else np.zeros(B, bool)
        bad = ((x < 0) | (x >= N)) & lanes & ~absent
        if bad.any():
            env.fault("R106", f"mask_one {d.stage.value} `{d.name}` is not one-hot: "
                      "its node is out of range", bad, d.span, help=NONE_HELP["mask_one"])
        out[...] = 0
        out[np.arange(B), np.clip(x, 0, N - 1)] = 1
        out[absent] = 0
        return out
    if d.derived is not None and d.stage != ir.Stage.INPUT:
        v = env.view(d.derived, d.loc)
    else:
        v = env.state[d.name]
    lane = lanes.reshape((B,) + (1,) * (v.ndim - 1))
    what = f"{d.stage.value} `{d.name}`"
    t = d.clrs_type
    if t == "categorical":
        bad = ((v < 0) | (v >= d.categories)) & lane
        if bad.any():
            env.fault("R105", f"categorical {what} is outside its {d.categories} "
                      "categories", bad, d.span)
        out[...] = v[..., None] == np.arange(d.categories)
        return out
    if t == "mask_one":
        ones = v.sum(axis=tuple(range(1, v.ndim)))
        bad = ((ones > 1) if d.optional else (ones != 1)) & lanes
        if bad.any():
            env.fault("R106", f"mask_one {what} is not one-hot", bad, d.span,
                      help=None if d.optional else NONE_HELP["mask_one"])
    if t in ("pointer", "should_be_permutation") and not isinstance(d.derived, ir.Chain):
        absent = (v == ir.NONE) if d.optional else False
        bad = ((v < 0) | (v >= N)) & lane & ~absent
        if bad.any():
            env.fault("R101", f"pointer {what} is out of range", bad, d.span,
                      help=NONE_HELP["pointer"] if t == "pointer" and not d.optional else None)
        if d.optional:  # none: a self-pointer, as CLRS encodes an absent pointer
            v = np.where(absent, np.arange(N).reshape((1, N) + (1,) * (v.ndim - 2)), v)
    out[...] = v
    return out
