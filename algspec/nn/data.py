"""Data points, features and feedback: the model's inputs, without dm-clrs.

`DataPoint`, `Features` and `Feedback` have dm-clrs's field names and
meaning (a `Feedback` is `(features, outputs)`, `Features` is `(inputs,
hints, lengths)`, hints time-major `[T, B, ...]`), so code written for one
reads the other. `DataPoint` is a JAX pytree whose only leaf is `data`.
`from_clrs`/`to_clrs` convert whole feedback objects; `to_clrs` imports
dm-clrs, so only call it where dm-clrs is installed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import numpy as np


@jax.tree_util.register_pytree_node_class
class DataPoint:
    """One named array with its CLRS location and type (`data` is the pytree leaf)."""

    __slots__ = ("data", "location", "name", "type_")
    _FIELDS = ("name", "location", "type_", "data")

    def __init__(self, name: str, location: str, type_: str, data: Any) -> None:
        self.name, self.location, self.type_, self.data = name, location, type_, data

    def __repr__(self) -> str:
        return (f"DataPoint(name={self.name!r}, location={self.location}, type={self.type_}, "
                f"data=Array{np.shape(self.data)})")

    def replace(self, **changes: Any) -> DataPoint:
        fields = {k: getattr(self, k) for k in self._FIELDS}
        return DataPoint(**{**fields, **changes})

    def tree_flatten(self) -> tuple[tuple[Any], tuple[str, str, str]]:
        return (self.data,), (self.name, self.location, self.type_)

    @classmethod
    def tree_unflatten(cls, meta: tuple[str, str, str], data: tuple[Any]) -> DataPoint:
        return cls(*meta, data[0])


class Features(NamedTuple):
    """A batch's inputs `[B, ...]`, hints `[T, B, ...]` and trajectory lengths `[B]`."""

    inputs: tuple[DataPoint, ...]
    hints: tuple[DataPoint, ...]
    lengths: Any


class Feedback(NamedTuple):
    """A training batch: its features and the outputs to predict."""

    features: Features
    outputs: tuple[DataPoint, ...]


def _point(dp: Any) -> DataPoint:
    return DataPoint(dp.name, dp.location, dp.type_, dp.data)


def from_clrs(feedback: Any) -> Feedback:
    """A `clrs.Feedback` (or anything shaped like one) as algspec's `Feedback`."""
    f = feedback.features
    return Feedback(Features(tuple(_point(d) for d in f.inputs),
                             tuple(_point(d) for d in f.hints), f.lengths),
                    tuple(_point(d) for d in feedback.outputs))


def to_clrs(feedback: Feedback) -> Any:
    """algspec's `Feedback` as a `clrs.Feedback` (imports dm-clrs)."""
    import clrs

    def point(dp: DataPoint) -> Any:
        return clrs.DataPoint(name=dp.name, location=dp.location, type_=dp.type_, data=dp.data)

    f = feedback.features
    return clrs.Feedback(clrs.Features([point(d) for d in f.inputs],
                                       [point(d) for d in f.hints], f.lengths),
                         [point(d) for d in feedback.outputs])
