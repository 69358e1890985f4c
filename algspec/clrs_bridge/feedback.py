"""Batched trajectories <-> CLRS `Feedback`.

dm-clrs hands its models a `Feedback(features=Features(inputs, hints, lengths),
outputs)` whose fields are lists of `DataPoint(name, location, type_, data)`.
`probing.split_stages` emits the data points in the order of the algorithm's
spec dict, filtered by stage, and `Sampler._make_batch` batches them: inputs and
outputs `[B, ...]`, hints `[T, B, ...]` zero padded to the longest trajectory,
lengths `[B]` float.  `to_feedback` builds exactly that from an
`algspec.interp.Trajectories`; `batch_probes` goes the other way round from
single-sample probe dicts (dm-clrs's algorithms, `CompiledAlgorithm.trace`), so
the two can be compared array by array.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from algspec.feedback import feedback_of, location_shape

SpecTuple = tuple[str, str, str]


class TrajectoriesLike(Protocol):
    """The fields of `algspec.interp.Trajectories` that the bridge reads."""

    spec: Mapping[str, SpecTuple]
    inputs: Mapping[str, np.ndarray]
    outputs: Mapping[str, np.ndarray]
    hints: Mapping[str, np.ndarray]
    lengths: np.ndarray


@dataclass
class _Trajectories:
    """Stand-in with the fields of `algspec.interp.Trajectories` (used if it is absent)."""

    spec: dict[str, SpecTuple]
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    hints: dict[str, np.ndarray]
    lengths: np.ndarray


def _trajectories_class() -> Any:
    try:
        from algspec.interp import Trajectories
    except ImportError:
        return _Trajectories
    return Trajectories


def to_feedback(traj: TrajectoriesLike, dtype: Any = None) -> Any:
    """A `clrs.Feedback` with the probes of `traj`, in dm-clrs's order and layout.

    Arrays are shared with `traj`, not copied, unless `dtype` asks for a cast; edge
    lists (`edges="sparse"`) are made dense, as dm-clrs's models read N x N.
    Shapes are checked against the spec (`algspec.feedback.feedback_of`), so a
    malformed trajectory fails here, with the probe's name, rather than deep
    inside a jitted model.
    """
    import clrs

    return feedback_of(traj, dtype, data_point=clrs.DataPoint, features=clrs.Features,
                       feedback=clrs.Feedback, densify=True)


def batch_probes(
    probes: Sequence[Mapping[str, Any]],
    spec: Mapping[str, SpecTuple],
    min_steps: int = 0,
) -> TrajectoriesLike:
    """Batch finalized single-sample `ProbesDict`s into padded `Trajectories`.

    As dm-clrs's `_batch_io`/`_batch_hints`: inputs/outputs stacked on a new
    batch axis, hints zero padded (float64) to max(T, `min_steps`).  Unlike
    dm-clrs, each datum is reshaped to its location's shape first, so n=1
    (where `probing.finalize` squeezes the node axis away) batches to `[B, 1]`.
    """
    if not probes:
        raise ValueError("need at least one sample")
    n = _probe_node_count(probes[0], spec)
    inputs: dict[str, np.ndarray] = {}
    outputs: dict[str, np.ndarray] = {}
    hints: dict[str, np.ndarray] = {}
    lengths = np.zeros(len(probes))
    for name, (stage, loc, type_) in spec.items():
        datas = [np.asarray(p[stage][loc][name]["data"]) for p in probes]
        if stage != "hint":
            target = inputs if stage == "input" else outputs
            target[name] = np.stack([_reshape(d, loc, type_, n) for d in datas])
            continue
        frames = [d.reshape((d.shape[0],) + _core_shape(d[0] if len(d) else d, loc, type_, n))
                  for d in datas]
        steps = max([min_steps] + [f.shape[0] for f in frames])
        out = np.zeros((steps, len(probes)) + frames[0].shape[1:])
        for b, f in enumerate(frames):
            out[: f.shape[0], b] = f
            lengths[b] = f.shape[0]
        hints[name] = out
    cls = _trajectories_class()
    return cls(spec=dict(spec), inputs=inputs, outputs=outputs, hints=hints, lengths=lengths)


def _probe_node_count(probe: Mapping[str, Any], spec: Mapping[str, SpecTuple]) -> int:
    """n from a hint (stacked, never squeezed) or else the largest input axis."""
    sizes = []
    for name, (stage, loc, _t) in spec.items():
        data = np.asarray(probe[stage][loc][name]["data"])
        if loc == "graph":
            continue
        if stage == "hint" and data.ndim >= 2:
            return int(data.shape[1])
        sizes.append(max(data.shape, default=1))
    return int(max(sizes, default=1))


def _core_shape(sample: np.ndarray, loc: str, type_: str, n: int) -> tuple[int, ...]:
    shape = location_shape(loc, n)
    if type_ == "categorical":
        size = int(np.prod(shape))
        return shape + (max(sample.size // max(size, 1), 1),)
    return shape


def _reshape(data: np.ndarray, loc: str, type_: str, n: int) -> np.ndarray:
    return data.reshape(_core_shape(data, loc, type_, n))
