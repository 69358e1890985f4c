"""The model's inputs: algspec's `DataPoint`, `Features` and `Feedback` (`algspec.feedback`),
with `DataPoint` registered as a JAX pytree whose only leaf is `data`."""

from __future__ import annotations

import contextlib
from typing import Any

import jax

from algspec.feedback import DataPoint, Features, Feedback, from_clrs, to_clrs


def _flatten(dp: DataPoint) -> tuple[tuple[Any], tuple[str, str, str]]:
    return (dp.data,), (dp.name, dp.location, dp.type_)


def _unflatten(meta: tuple[str, str, str], data: tuple[Any]) -> DataPoint:
    return DataPoint(*meta, data[0])


with contextlib.suppress(ValueError):  # registered already (a module reload)
    jax.tree_util.register_pytree_node(DataPoint, _flatten, _unflatten)

__all__ = ["DataPoint", "Features", "Feedback", "from_clrs", "to_clrs"]
