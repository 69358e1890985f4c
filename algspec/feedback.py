"""Feedback-shaped batches without dm-clrs: `DataPoint`, `Features`, `Feedback`.

dm-clrs hands its models `Feedback(features=Features(inputs, hints, lengths),
outputs)` of `DataPoint(name, location, type_, data)`. These classes have the
same field names and meaning, so code written for one reads the other, and
they need neither dm-clrs nor TensorFlow (nor JAX: `algspec.nn` registers
`DataPoint` as a pytree when it is imported). `from_clrs`/`to_clrs` convert
whole batches; `to_clrs` imports dm-clrs.

A datum's `data` may be `algspec.edge_lists.EdgeLists` (edge data held at each
sample's edges, `edges="sparse"`): it has the dense array's shape and dtype, and
`np.asarray` densifies it. `to_clrs` densifies, since dm-clrs's models read N x N.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from algspec.edge_lists import EdgeLists, densified


class DataPoint:
    """One named array with its CLRS location and type."""

    __slots__ = ("data", "location", "name", "type_")

    def __init__(self, name: str, location: str, type_: str, data: Any) -> None:
        self.name, self.location, self.type_, self.data = name, location, type_, data

    def __repr__(self) -> str:
        return (f"DataPoint(name={self.name!r}, location={self.location}, type={self.type_}, "
                f"data=Array{np.shape(self.data)})")

    def replace(self, **changes: Any) -> DataPoint:
        fields = {"name": self.name, "location": self.location, "type_": self.type_,
                  "data": self.data}
        return DataPoint(**{**fields, **changes})


class Features(NamedTuple):
    """A batch's inputs `[B, ...]`, hints `[T, B, ...]` and trajectory lengths `[B]`."""

    inputs: tuple[DataPoint, ...]
    hints: tuple[DataPoint, ...]
    lengths: Any


class Feedback(NamedTuple):
    """A training batch: its features and the outputs to predict."""

    features: Features
    outputs: tuple[DataPoint, ...]


_STAGES = ("input", "output", "hint")
_LOCATIONS = ("node", "edge", "graph")


def location_shape(loc: str, n: int) -> tuple[int, ...]:
    """The shape of one sample's datum at `loc` with n nodes (categories not included)."""
    return {"node": (n,), "edge": (n, n), "graph": ()}[loc]


def _check_shape(name: str, loc: str, type_: str, shape: tuple[int, ...], lead: tuple[int, ...],
                 n: int | None) -> None:
    """Raise if `shape` is not `lead + location shape (+ categories)`."""
    core = shape[len(lead):]
    ok = shape[: len(lead)] == lead
    if n is not None:
        want = location_shape(loc, n)
        if type_ == "categorical":
            ok = ok and len(core) == len(want) + 1 and core[:-1] == want
        else:
            ok = ok and core == want
    if not ok:
        extra = " + [k]" if type_ == "categorical" else ""
        raise ValueError(
            f"probe '{name}' ({loc} {type_}) has shape {shape}, expected "
            f"{list(lead)} + {loc} shape{extra} with n={n}"
        )


def _node_count(traj: Any) -> int | None:
    for name, (stage, loc, _t) in traj.spec.items():
        if loc in ("node", "edge"):
            arr = {"input": traj.inputs, "output": traj.outputs, "hint": traj.hints}[stage][name]
            return int(np.shape(arr)[2 if stage == "hint" else 1])
    return None


def feedback_of(traj: Any, dtype: Any = None, *, data_point: Any = DataPoint,
                features: Any = Features, feedback: Any = Feedback,
                densify: bool = False) -> Any:
    """The probes of batched trajectories (`algspec.interp.Trajectories`) as a Feedback,
    in dm-clrs's order and layout: algspec's classes, or dm-clrs's when given theirs.

    Arrays are shared with `traj`, not copied, unless `dtype` asks for a cast.
    Edge lists stay edge lists (their dense shape is checked) unless `densify`.
    Shapes are checked against the spec, so a malformed trajectory fails here,
    with the probe's name, rather than deep inside a jitted model.
    """
    lengths = np.asarray(traj.lengths, dtype=np.float64)
    if lengths.ndim != 1:
        raise ValueError(f"lengths must be [B], got shape {lengths.shape}")
    batch = lengths.shape[0]
    n = _node_count(traj)
    steps = None
    staged: dict[str, list[Any]] = {s: [] for s in _STAGES}
    for name, (stage, loc, type_) in traj.spec.items():
        if stage not in _STAGES or loc not in _LOCATIONS:
            raise ValueError(f"probe '{name}' has bad stage/location {stage!r}/{loc!r}")
        source = {"input": traj.inputs, "output": traj.outputs, "hint": traj.hints}[stage]
        if name not in source:
            raise ValueError(f"trajectories lack the {stage} '{name}' declared in the spec")
        data = _data(source[name], dtype, densify)
        if stage == "hint":
            if steps is None:
                steps = data.shape[0]
            lead: tuple[int, ...] = (steps, batch)
        else:
            lead = (batch,)
        _check_shape(name, loc, type_, data.shape, lead, n)
        staged[stage].append(data_point(name=name, location=loc, type_=type_, data=data))
    if steps is not None and batch and lengths.max() > steps:
        raise ValueError(f"a length ({lengths.max():g}) exceeds the {steps} hint frames")
    feats = features(inputs=staged["input"], hints=staged["hint"], lengths=lengths)
    return feedback(features=feats, outputs=staged["output"])


def _data(x: Any, dtype: Any, densify: bool) -> Any:
    """A probe's array (edge lists kept, unless `densify`), cast to `dtype` if given."""
    if isinstance(x, EdgeLists) and not densify:
        return x if dtype is None or x.dtype == np.dtype(dtype) else x.astype(dtype)
    return densified(x, dtype)


def _point(dp: Any) -> DataPoint:
    return DataPoint(dp.name, dp.location, dp.type_, dp.data)


def from_clrs(feedback: Any) -> Feedback:
    """A `clrs.Feedback` (or anything shaped like one) as algspec's `Feedback`."""
    f = feedback.features
    return Feedback(Features(tuple(_point(d) for d in f.inputs),
                             tuple(_point(d) for d in f.hints), f.lengths),
                    tuple(_point(d) for d in feedback.outputs))


def _clrs_point(dp: Any) -> Any:
    import clrs

    data = dp.data.dense() if isinstance(dp.data, EdgeLists) else dp.data  # models read N x N
    return clrs.DataPoint(name=dp.name, location=dp.location, type_=dp.type_, data=data)


def to_clrs_features(features: Any) -> Any:
    """`Features` (algspec's, or anything shaped like them) as `clrs.Features`."""
    import clrs

    return clrs.Features([_clrs_point(d) for d in features.inputs],
                         [_clrs_point(d) for d in features.hints], features.lengths)


def to_clrs(feedback: Any) -> Any:
    """A `Feedback` (algspec's, or anything shaped like one) as a `clrs.Feedback`."""
    import clrs

    return clrs.Feedback(to_clrs_features(feedback.features),
                         [_clrs_point(d) for d in feedback.outputs])
