"""Several seeds of one model trained as one vmapped program.

A grid trains each (algorithm, processor, hidden) cell with several seeds; as
separate runs each compiles the same programs again and keeps the device
busy with one small batch at a time. `SeedStack` holds every seed's
parameters and optimiser state stacked on a leading axis and takes one
training step for all of them in one compiled call (`jax.vmap` of the
model's step): each seed with its own batch (its own data stream) and its
own random key, so each computes what it would alone. Batches of one step
share a node count (every seed is at the same training size); their hint
time axes and, in sparse mode, their edge slots are padded to the largest,
which changes no loss (the padding tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from algspec.nn import batch as batching
from algspec.nn.data import DataPoint
from algspec.nn.model import Model, _device


def _harmonised(prepared: list[batching.Prepared]) -> list[batching.Prepared]:
    """The batches with equal shapes: hints padded to the longest time axis and, in
    sparse mode, edge slots padded to the most (dead slots)."""
    steps = max(batching.num_steps(p) for p in prepared)
    slots = max(batching.num_slots(p) for p in prepared)
    return [batching.with_shapes(p, steps=steps, slots=slots) for p in prepared]


def _stacked(trees: Sequence[Any]) -> Any:
    return jax.tree_util.tree_map(lambda *xs: np.stack(xs) if isinstance(xs[0], np.ndarray)
                                  else jnp.stack(xs), *trees)


class SeedStack:
    """`model`'s parameters for each of `seeds`, initialised on each seed's example batch
    (as `Model.init` would), trained together (see the module docstring)."""

    def __init__(self, model: Model, examples: Sequence[Any], seeds: Sequence[int]) -> None:
        self.model = model
        self.seeds = list(seeds)
        init = jax.jit(lambda key, f, m, g: model.net.init(key, f, m, g, True))
        params = []
        for example, seed in zip(examples, self.seeds, strict=True):
            features, _, node_mask, graph = _device(model.prepare(example.features,
                                                                  example.outputs))
            params.append(init(jax.random.PRNGKey(seed), features, node_mask, graph))
        self.params = _stacked(params)
        self.opt_state = jax.vmap(model.opt.init)(self.params)
        self._step = jax.jit(jax.vmap(model._train_step))

    def feedback(self, rngs: Sequence[Any], feedbacks: Sequence[Any]) -> Any:
        """One optimiser step for every seed, seed k on `feedbacks[k]` with `rngs[k]`;
        the losses `[K]`."""
        prepared = _harmonised([self.model.prepare(fb.features, fb.outputs)
                                for fb in feedbacks])
        batches = [_device(p) for p in prepared]
        features, outputs, node_mask, graph = (_stacked(part) for part in zip(*batches,
                                                                               strict=True))
        self.params, self.opt_state, losses = self._step(
            self.params, self.opt_state, jnp.stack(list(rngs)), features, outputs,
            node_mask, graph)
        return losses

    def lane(self, k: int) -> SeedLane:
        """Seed k's model, for validation and testing."""
        return SeedLane(self, k)


class SeedLane:
    """One seed of a `SeedStack` behind the `Model` interface (predict, params)."""

    def __init__(self, stack: SeedStack, k: int) -> None:
        self.stack, self.k = stack, k

    @property
    def params(self) -> Any:
        return jax.tree_util.tree_map(lambda x: x[self.k], self.stack.params)

    @params.setter
    def params(self, value: Any) -> None:
        self.stack.params = jax.tree_util.tree_map(lambda xs, x: xs.at[self.k].set(x),
                                                   self.stack.params, value)

    def predict(self, rng: Any, features: Any) -> tuple[dict[str, DataPoint], dict]:
        return self.stack.model.predict_with(self.params, rng, features)
