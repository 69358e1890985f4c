"""Batches of trajectories: seeded streams, padding hints, joining batches.

A leaf shared by the samplers (`sampling.BatchSampler`, the dm-clrs bridge)
and the export (`dataset.py`). The chunked sampling both draw a fixed dataset
with (`sample_dataset`, `fitting_chunk`) is the export's: a chunk size is part
of a dataset's identity.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["concat_trajectories", "hint_steps", "pad_hints", "replace_fields", "streams"]

_FIELDS = ("spec", "inputs", "outputs", "hints", "lengths")


def streams(seed: int | None) -> tuple[np.random.Generator, ...]:
    """Independent (data, batch index, max-steps probe) generators for a seed.

    Spawned from one SeedSequence so the data stream never depends on how
    many draws the other two make.
    """
    return tuple(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))


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
        if h.shape[0] < steps:
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
    return replace_fields(
        first,
        inputs={k: np.concatenate([t.inputs[k] for t in trajs]) for k in first.inputs},
        outputs={k: np.concatenate([t.outputs[k] for t in trajs]) for k in first.outputs},
        hints={k: np.concatenate([p[k] for p in padded], axis=1) for k in first.hints},
        lengths=np.concatenate([np.asarray(t.lengths) for t in trajs]),
        **_concat_rand_keys(trajs),
    )


def _concat_rand_keys(trajs: list[Any]) -> dict[str, Any]:
    """The batches' rand keys joined (`Trajectories.rand_keys`), where they carry them."""
    keys = [getattr(t, "rand_keys", None) for t in trajs]
    if not hasattr(trajs[0], "rand_keys"):
        return {}
    return {"rand_keys": None if any(k is None for k in keys) else np.concatenate(keys)}
