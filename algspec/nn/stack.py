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

Memory (`algspec.nn.memory`): `plan` measures the compiled step and, when
the seeds together do not fit the device's budget, trains them in smaller
groups (one program per group, one after another, each seed still its own
lane) and, when one seed alone does not fit, rematerialises the hint loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from algspec.nn import batch as batching
from algspec.nn import memory
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


@jax.jit
def _lane_of(tree: Any, k: Any) -> Any:
    """Lane k of every stacked array, in one launch (a validation reads a lane's parameters:
    one slice per array would be a host round trip each)."""
    return jax.tree_util.tree_map(lambda x: x[k], tree)


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
        self._steps = {remat: jax.jit(jax.vmap(model.train_step_fn(remat)))
                       for remat in (False, True)}
        longest = max(examples, key=lambda e: batching.num_steps(
            model.prepare(e.features, e.outputs)))
        self.memory_plan = self.plan(longest)

    def plan(self, example: Any, budget: int | None = None) -> memory.MemoryPlan:
        """Choose seeds per program and rematerialisation from the compiled step's footprint
        on `example` (the largest training size) against `budget` (default: the device's).
        The programs measured are the ones training runs: nothing compiles twice."""
        budget = memory.device_budget() if budget is None else budget
        batch, margin = self.model.planning_batch(example)
        rng = jax.random.PRNGKey(0)

        def measure(k: int, remat: bool) -> int | None:
            def shapes(tree: Any) -> Any:
                return jax.tree_util.tree_map(
                    lambda x: jax.ShapeDtypeStruct((k,) + np.shape(x)[1:], x.dtype), tree)

            lanes = _stacked([batch] * k)
            compiled = self._steps[remat].lower(
                shapes(self.params), shapes(self.opt_state),
                jnp.stack([rng] * k),
                *lanes).compile()
            nbytes = memory.program_bytes(compiled)
            return None if nbytes is None else int(nbytes * margin)

        self.memory_plan = memory.choose(len(self.seeds), measure, budget)
        return self.memory_plan

    def feedback(self, rngs: Sequence[Any], feedbacks: Sequence[Any]) -> np.ndarray:
        """One optimiser step for every seed, seed k on `feedbacks[k]` with `rngs[k]`;
        the losses `[K]`, on the host (one transfer; iterating a device array would
        launch a program per element)."""
        prepared = _harmonised([self.model.prepare(fb.features, fb.outputs)
                                for fb in feedbacks])
        batches = [_device(p) for p in prepared]
        plan = self.memory_plan
        step = self._steps[plan.remat]
        keys = jnp.stack(list(rngs))
        if plan.programs == 1:
            features, outputs, node_mask, graph = (_stacked(part) for part in zip(
                *batches, strict=True))
            self.params, self.opt_state, losses = step(
                self.params, self.opt_state, keys, features, outputs, node_mask, graph)
            return np.asarray(losses)
        params, states, losses = [], [], []
        for lo in range(0, len(self.seeds), plan.per_program):
            hi = min(lo + plan.per_program, len(self.seeds))
            group = jax.tree_util.tree_map(lambda x: x[lo:hi],  # noqa: B023 - used at once
                                           (self.params, self.opt_state, keys))
            features, outputs, node_mask, graph = (_stacked(part) for part in zip(
                *batches[lo:hi], strict=True))
            p, o, loss = step(*group, features, outputs, node_mask, graph)
            params.append(p)
            states.append(o)
            losses.append(np.asarray(loss))
        self.params, self.opt_state = (jax.tree_util.tree_map(
            lambda *xs: jnp.concatenate(xs), *trees) for trees in (params, states))
        return np.concatenate(losses)

    def lane(self, k: int) -> SeedLane:
        """Seed k's model, for validation and testing."""
        return SeedLane(self, k)


class SeedLane:
    """One seed of a `SeedStack` behind the `Model` interface (predict, params)."""

    def __init__(self, stack: SeedStack, k: int) -> None:
        self.stack, self.k = stack, k

    @property
    def params(self) -> Any:
        return _lane_of(self.stack.params, self.k)

    @params.setter
    def params(self, value: Any) -> None:
        self.stack.params = jax.tree_util.tree_map(lambda xs, x: xs.at[self.k].set(x),
                                                   self.stack.params, value)

    def predict(self, rng: Any, features: Any) -> tuple[dict[str, DataPoint], dict]:
        return self.stack.model.predict_with(self.params, rng, features)
