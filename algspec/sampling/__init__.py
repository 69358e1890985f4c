"""Batched samplers over a compiled algorithm, with dm-clrs's `Sampler` semantics.

`BatchSampler` asks the compiled algorithm for whole batches (`alg.sample(n,
batch, rng)`, vectorised across the batch) and hands them out as algspec's
`Feedback` (`algspec.feedback`), with neither dm-clrs nor TensorFlow.
`algspec.clrs_bridge.sampler.AlgspecSampler` is the same sampler as a
`clrs.Sampler` returning `clrs.Feedback`: one seed gives the same batches
from both.

Behaviour mirrors `clrs.Sampler`:
- `num_samples > 0`: the dataset is generated in the constructor (in batched
  chunks), hints padded to the dataset's longest trajectory; `next(b)` draws
  `b` indices with replacement, `next()` returns the whole set.
- `num_samples == -1`: every `next(b)` samples afresh.  With
  `track_max_steps`, batches are padded to the longest trajectory seen so far,
  so jitted models do not recompile.  dm-clrs learns the initial bound by
  running 1000 samples one by one; here it is the `max_steps` argument, the
  algorithm's own `max_hint_steps(n, **params)` if it has one, or else one
  batched pass over `probe_samples` samples.

`edges="sparse"` draws and holds edge data as `algspec.edge_lists.EdgeLists` (one value
per edge of each sample's graph; `alg.sample(..., edges="sparse")`): the fixed dataset
of large sparse graphs holds O(m) per edge datum, and algspec's `Feedback` carries the
edge lists (`np.asarray(dp.data)` densifies: the very arrays of `edges="dense"`).
`AlgspecSampler` densifies its batches, since dm-clrs's models read N x N.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists, check_edges
from algspec.feedback import feedback_of
from algspec.interp.memory import small_pages
from algspec.sampling.dataset import fitting_chunk, sample_dataset
from algspec.sampling.trajectory_batches import (
    concat_trajectories,
    hint_steps,
    pad_hints,
    replace_fields,
    storage_kwargs,
    streams,
    take_trajectories,
)

log = logging.getLogger(__name__)

__all__ = ["BatchSampler", "compiled_of"]

TrajectoriesLike = Any


def compiled_of(algorithm: Any) -> Any:
    """The compiled algorithm behind `algorithm` (itself, or a registered runner)."""
    if hasattr(algorithm, "sample") and hasattr(algorithm, "spec"):
        return algorithm
    inner = getattr(algorithm, "compiled", None)
    if inner is not None:
        return inner
    raise TypeError(
        f"{algorithm!r} is neither a compiled algorithm (with .sample and .spec) "
        "nor a runner registered by algspec.clrs_bridge.register"
    )


def _count(what: str, value: Any, least: int) -> int:
    """`value` as an int >= `least`; a bool, a fraction or a string is a clear ValueError."""
    ok = isinstance(value, (int, np.integer)) or (
        isinstance(value, (float, np.floating)) and float(value).is_integer())
    if not ok or isinstance(value, bool) or int(value) < least:
        raise ValueError(f"{what} must be an integer >= {least}, got {value!r}")
    return int(value)


def _check_seed(seed: Any) -> None:
    """A seed numpy's `SeedSequence` takes (None, an int >= 0 or a list of them), said plainly."""
    try:
        if isinstance(seed, (bool, float, str)):
            raise TypeError
        np.random.SeedSequence(seed)
    except (TypeError, ValueError):
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}") from None


def _take(traj: TrajectoriesLike, idx: np.ndarray) -> TrajectoriesLike:
    return take_trajectories(traj, idx)


class BatchSampler:
    """Batches of a compiled algorithm's samples, as Feedback (dm-clrs's sampler semantics).

    Constructible as `clrs.build_sampler` constructs sampler classes:
    `(algorithm, spec, num_samples, *args, seed=, track_max_steps=,
    truncate_decimals=, length=, **params)`, where `algorithm` is the compiled
    algorithm or the runner `register` put in `clrs`'s algorithm namespace, and
    `params` are generator parameter overrides passed on to `alg.sample`. `jobs` > 1
    draws a fixed dataset in that many processes (the same samples:
    `algspec.sampling.jobs`). `edges="sparse"` holds edge data as edge lists (see the
    module docstring): the same batches, densified.

    `last_rand_keys` holds the rand keys of the samples of the last `next()` batch
    (None for a program without `rand()`): a Feedback cannot carry them, and
    `alg.trace(..., rand_key=sampler.last_rand_keys[b])` replays sample b.
    """

    CAN_TRUNCATE_INPUT_DATA = True

    def _feedback(self, traj: TrajectoriesLike) -> Any:
        """A batch's trajectories as algspec's `Feedback` (no dm-clrs needed)."""
        return feedback_of(traj)

    def __init__(
        self,
        algorithm: Any,
        spec: Mapping[str, tuple[str, str, str]] | None,
        num_samples: int,
        *args: Any,
        seed: int | None = None,
        track_max_steps: bool = True,
        truncate_decimals: int | None = None,
        length: int | None = None,
        chunk_size: int | None = None,
        max_steps: int | None = None,
        probe_samples: int = 1000,
        jobs: int = 1,
        edges: str = "dense",
        **params: Any,
    ) -> None:
        alg = compiled_of(algorithm)
        self._edges = check_edges(edges)
        if args:  # dm-clrs passes the length as the first positional sampler arg
            if length is not None or len(args) > 1:
                raise TypeError(f"unexpected positional arguments {args!r}")
            length = args[0]
        if length is None:
            raise TypeError("AlgspecSampler needs the problem size `length`")
        length = _count("length", length, 1)
        num_samples = _count("num_samples", num_samples, -1)
        if num_samples == 0:
            raise ValueError(f"num_samples must be positive or -1, got {num_samples}")
        _check_seed(seed)
        jobs = _count("jobs", jobs, 1)
        chunk_size = fitting_chunk(length, chunk_size)
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        alg_spec = {k: tuple(v) for k, v in alg.spec.items()}
        if spec is not None and {k: tuple(v) for k, v in spec.items()} != alg_spec:
            raise ValueError(f"spec given for '{alg.name}' differs from the algorithm's spec")

        self._alg = alg
        self._spec = alg_spec
        self._num_samples = num_samples
        self._algorithm = algorithm
        self._args = ()
        self._kwargs = dict(params)
        self._length = int(length)
        self._params = dict(params)
        self._track_max_steps = track_max_steps
        self._truncate_decimals = truncate_decimals
        self._chunk_size = chunk_size
        # Independent streams: data, batch indices, max-steps probe.  The data
        # stream does not depend on how many samples the probe used.
        self._data_rng, self._rng, self._probe_rng = streams(seed)
        self.last_rand_keys: np.ndarray | None = None
        # `clrs.Sampler` attribute names, for code that reads them.
        self._inputs = self._outputs = self._hints = self._lengths = None

        if num_samples > 0:
            if truncate_decimals:
                data = concat_trajectories([
                    self._batch(min(chunk_size, num_samples - start))
                    for start in range(0, num_samples, chunk_size)
                ])
            else:  # the samples `algspec.sampling.dataset.export` writes for this seed
                data = sample_dataset(alg, self._length, num_samples, self._data_rng,
                                      self._params, chunk_size, jobs=jobs, edges=edges)
            self._data: TrajectoriesLike | None = data
            self.max_steps = hint_steps(data)
            # Edge lists are kept as they are here: dm-clrs's Feedback would densify the set.
            fb = self._feedback(data) if edges == "dense" else feedback_of(data)
            self._inputs, self._hints = fb.features.inputs, fb.features.hints
            self._lengths, self._outputs = fb.features.lengths, fb.outputs
        else:
            self._data = None
            self.max_steps = 0
            if track_max_steps:
                self.max_steps = self._initial_max_steps(max_steps, probe_samples)

    # ------------------------------------------------------------------ data
    def _batch(self, size: int, rng: np.random.Generator | None = None) -> TrajectoriesLike:
        """`size` fresh samples, truncating float inputs first if asked to."""
        rng = self._data_rng if rng is None else rng
        storage = storage_kwargs(self._edges)
        if not self._truncate_decimals:
            return self._alg.sample(self._length, size, rng, **storage, **self._params)
        if not (hasattr(self._alg, "generate") and hasattr(self._alg, "run")):
            raise TypeError("truncate_decimals needs alg.generate and alg.run")
        scale = 10.0 ** self._truncate_decimals
        inputs = self._alg.generate(self._length, size, rng, **storage, **self._params)
        inputs = {k: _truncated(v, scale) for k, v in inputs.items()}
        keys = getattr(self._alg, "draw_rand_keys", lambda _r, _b: None)(rng, size)
        return self._alg.run(inputs, self._length, rand_keys=keys, **storage) \
            if keys is not None else self._alg.run(inputs, self._length, **storage)

    @property
    def edges(self) -> str:
        """How edge data are held: "dense" arrays or "sparse" edge lists."""
        return self._edges

    def _initial_max_steps(self, max_steps: int | None, probe_samples: int) -> int:
        if max_steps is not None:
            return int(max_steps)
        bound = getattr(self._alg, "max_hint_steps", None)
        if callable(bound):
            value = bound(self._length, **self._params)
            if value is not None:
                return int(value)
        longest = 0
        for start in range(0, probe_samples, self._chunk_size):
            size = min(self._chunk_size, probe_samples - start)
            longest = max(longest, int(np.max(self._batch(size, self._probe_rng).lengths)))
        return longest

    def _sample_data(self, length: int, *args: Any, **kwargs: Any) -> list[np.ndarray]:
        """One sample's primary inputs, as dm-clrs samplers return them."""
        if not hasattr(self._alg, "generate"):
            raise TypeError("the compiled algorithm has no generate()")
        inputs = self._alg.generate(length, 1, self._data_rng, **{**self._params, **kwargs})
        return [np.asarray(v)[0] for v in inputs.values()]

    @property
    def dataset(self) -> TrajectoriesLike | None:
        """The fixed dataset as `Trajectories` (None when sampling on the fly)."""
        return self._data

    # ------------------------------------------------------------------ next
    def next(self, batch_size: int | None = None) -> Any:
        """A Feedback batch (see the class docstring); `_feedback` builds it."""
        if batch_size is not None:
            batch_size = _count("batch_size", batch_size, 0)
        if not batch_size:
            if self._data is None:
                raise ValueError("batch_size is required when sampling on the fly")
            self.last_rand_keys = getattr(self._data, "rand_keys", None)
            return self._feedback(self._data)
        if self._data is not None:
            if batch_size > self._num_samples:
                raise ValueError(f"Batch size {batch_size} > dataset size {self._num_samples}.")
            idx = self._rng.choice(self._num_samples, size=batch_size, replace=True)
            with small_pages():
                batch = _take(self._data, idx)
                self.last_rand_keys = getattr(batch, "rand_keys", None)
                return self._feedback(batch)
        traj = concat_trajectories([
            self._batch(min(self._chunk_size, batch_size - start))
            for start in range(0, batch_size, self._chunk_size)
        ])
        if self._track_max_steps:
            steps = hint_steps(traj)
            if steps > self.max_steps:
                log.warning("Increasing hint length from %i to %i", self.max_steps, steps)
                self.max_steps = steps
            traj = replace_fields(traj, hints=pad_hints(traj.hints, self.max_steps))
        self.last_rand_keys = getattr(traj, "rand_keys", None)
        return self._feedback(traj)


def _truncated(v: Any, scale: float) -> Any:
    """Float inputs cut to `log10(scale)` decimals (edge lists: their values)."""
    if not np.issubdtype(v.dtype if isinstance(v, EdgeLists) else np.asarray(v).dtype,
                         np.floating):
        return v
    if isinstance(v, EdgeLists):
        return v.with_values(np.trunc(v.values * scale) / scale)
    return np.trunc(v * scale) / scale
