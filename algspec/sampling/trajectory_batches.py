"""Batches of trajectories: seeded streams, padding hints, joining batches.

A leaf shared by the samplers (`sampling.BatchSampler`, the dm-clrs bridge)
and the export (`dataset.py`). The chunked sampling both draw a fixed dataset
with (`sample_dataset`, `fitting_chunk`) is the export's: a chunk size is part
of a dataset's identity.

Edge data may be `EdgeLists` (`edges="sparse"`): joining, padding and taking work on
their values, and the data of one batch that share one `EdgeGraph` share the joined or
taken graph too, so its arrays are held once. A datum that is `EdgeLists` in some batches
and dense in others (a batch where it is not zero off the graph) is joined dense: the
same array a one-batch draw of the same samples gives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeGraph, EdgeLists

__all__ = ["concat_trajectories", "hint_steps", "pad_hints", "replace_fields",
           "storage_kwargs", "streams", "take_trajectories"]

_FIELDS = ("spec", "inputs", "outputs", "hints", "lengths")


def streams(seed: int | None) -> tuple[np.random.Generator, ...]:
    """Independent (data, batch index, max-steps probe) generators for a seed.

    Spawned from one SeedSequence so the data stream never depends on how
    many draws the other two make.
    """
    return tuple(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))


def storage_kwargs(edges: str) -> dict[str, str]:
    """`alg.sample`/`generate`/`run`'s `edges` keyword: none for the dense default, so an
    algorithm without the keyword samples as it always did."""
    return {} if edges == "dense" else {"edges": edges}


def replace_fields(traj: Any, **fields: Any) -> Any:
    """A copy of `traj` with some fields replaced, keeping any extra fields."""
    if dataclasses.is_dataclass(traj):
        return dataclasses.replace(traj, **fields)
    kept = {k: getattr(traj, k) for k in _FIELDS}
    return type(traj)(**{**kept, **fields})


def pad_hints(hints: Mapping[str, np.ndarray], steps: int) -> dict[str, np.ndarray]:
    """Zero pad every `[T, B, ...]` hint to `steps` frames (never truncates)."""
    out = {}
    for name, h in hints.items():
        if isinstance(h, EdgeLists):
            h = h.with_steps(steps) if h.shape[0] < steps else h
        elif h.shape[0] < steps:
            pad = np.zeros((steps - h.shape[0],) + h.shape[1:], dtype=h.dtype)
            h = np.concatenate([h, pad], axis=0)
        out[name] = h
    return out


def hint_steps(traj: Any) -> int:
    """Number of hint frames `T` of a batch (0 for an algorithm without hints)."""
    return int(next(iter(traj.hints.values())).shape[0]) if traj.hints else 0


def concat_trajectories(trajs: list[Any]) -> Any:
    """Concatenate batches along the batch axis, padding hints to the longest."""
    if len(trajs) == 1:
        return trajs[0]
    steps = max(hint_steps(t) for t in trajs)
    padded = [pad_hints(t.hints, steps) for t in trajs]
    first = trajs[0]
    graphs: dict[tuple[int, ...], EdgeGraph] = {}
    return replace_fields(
        first,
        inputs={k: _concat([t.inputs[k] for t in trajs], graphs) for k in first.inputs},
        outputs={k: _concat([t.outputs[k] for t in trajs], graphs) for k in first.outputs},
        hints={k: _concat([p[k] for p in padded], graphs, axis=1) for k in first.hints},
        lengths=np.concatenate([np.asarray(t.lengths) for t in trajs]),
        **_concat_rand_keys(trajs),
    )


def _concat(parts: list[Any], graphs: dict[tuple[int, ...], EdgeGraph], axis: int = 0) -> Any:
    """One datum's batches joined: `EdgeLists` when every part is (their graphs joined
    once per batch, in `graphs`), else numpy arrays."""
    if not all(isinstance(p, EdgeLists) for p in parts):
        return np.concatenate([np.asarray(p) for p in parts], axis=axis)
    key = tuple(id(p.graph) for p in parts)
    if key not in graphs:
        graphs[key] = EdgeGraph.concat([p.graph for p in parts])
    return EdgeLists.concat(parts, graphs[key])


def take_trajectories(traj: Any, idx: np.ndarray) -> Any:
    """Samples `idx` of a batch (repeats allowed), as a batch; edge lists that share a
    graph share the taken one."""
    graphs: dict[int, EdgeGraph] = {}

    def take(x: Any, hint: bool = False) -> Any:
        if not isinstance(x, EdgeLists):
            return x[:, idx] if hint else x[idx]
        if id(x.graph) not in graphs:
            graphs[id(x.graph)] = x.graph.take(idx)
        return x.take(idx, graphs[id(x.graph)])

    return replace_fields(
        traj,
        inputs={k: take(v) for k, v in traj.inputs.items()},
        outputs={k: take(v) for k, v in traj.outputs.items()},
        hints={k: take(v, hint=True) for k, v in traj.hints.items()},
        lengths=np.asarray(traj.lengths)[idx],
        **({"rand_keys": None if traj.rand_keys is None else traj.rand_keys[idx]}
           if hasattr(traj, "rand_keys") else {}),
    )


def _concat_rand_keys(trajs: list[Any]) -> dict[str, Any]:
    """The batches' rand keys joined (`Trajectories.rand_keys`), where they carry them."""
    keys = [getattr(t, "rand_keys", None) for t in trajs]
    if not hasattr(trajs[0], "rand_keys"):
        return {}
    return {"rand_keys": None if any(k is None for k in keys) else np.concatenate(keys)}
