"""Where training data comes from: `.alg` files or dm-clrs built-in algorithms.

A *source* is either a path to an `.alg` file, compiled with the public API
(`algspec.load(path).batch_sampler(...)`: no dm-clrs, no TensorFlow), or the
name of a dm-clrs algorithm (`bubble_sort`, `binary_search`, ...), built with
`clrs.build_sampler`. Both give a sampler whose `next(batch_size)` returns an
`algspec.feedback.Feedback` (and `next()` the whole fixed dataset); the `clrs`
backend converts batches to dm-clrs's classes itself.

Every batch then goes through the same preprocessing as in CLRS's
`examples/run.py` (`algspec.nn.preprocess`): randomised `pos`, the constant
`pred_h` hint turned into a `pred` input for the algorithms CLRS lists, and
`should_be_permutation` outputs rewritten as permutation pointer + mask. A
file without hints gets a placeholder hint (`STEPS_HINT`) so that the model,
which reads its number of steps from the first hint, runs one step.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.feedback import DataPoint, Features, Feedback
from algspec.feedback import from_clrs as feedback_from_clrs
from algspec.language.source_file import is_algorithm_file_name

# The algorithms whose constant `pred_h` hint CLRS's run.py turns into an input.
PRED_AS_INPUT_ALGOS = frozenset({
    "binary_search", "minimum", "find_maximum_subarray", "find_maximum_subarray_kadane",
    "matrix_chain_order", "lcs_length", "optimal_bst", "activity_selector",
    "task_scheduling", "naive_string_matcher", "kmp_matcher", "jarvis_march",
})

log = logging.getLogger(__name__)

_SPLIT_CODES = {"train": 1, "val": 2, "test": 3, "pos": 4}


class SourceError(ValueError):
    """The algorithm source cannot be loaded (shown to the user as one line)."""


def compile_cache_dir() -> Path | None:
    """Where compiled XLA programs persist: $ALGSPEC_JAX_CACHE, else ~/.cache/algspec/jax.

    Set ALGSPEC_JAX_CACHE to "off" to disable. Compiling CLRS's model takes
    10-60 s per program on a CPU, and the runs of a grid or a rerun compile
    the same programs again (seeds usually share every shape), so caching
    them on disk saves most of that time; results are unchanged.
    """
    value = os.environ.get("ALGSPEC_JAX_CACHE")
    if value is not None and value.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    return Path(value) if value else Path.home() / ".cache" / "algspec" / "jax"


_SETUP_DONE = False
_CLRS_SETUP_DONE = False


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (C++ logging too) inside the block."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    sys.stderr.flush()
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def setup_jax() -> None:
    """Set up JAX once: the persistent compilation cache (see `compile_cache_dir`)."""
    global _SETUP_DONE
    if _SETUP_DONE:
        return
    import jax

    cache = compile_cache_dir()
    if cache is not None and not jax.config.jax_compilation_cache_dir:
        with contextlib.suppress(OSError):  # read-only home: run without the cache
            cache.mkdir(parents=True, exist_ok=True)
            jax.config.update("jax_compilation_cache_dir", str(cache))
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    _SETUP_DONE = True


def import_clrs() -> Any:
    """Import dm-clrs, tensorflow kept off the GPU (JAX gets all of it), and set up JAX."""
    global _CLRS_SETUP_DONE
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if not _CLRS_SETUP_DONE:
        try:
            # TF 2.21 logs start-up noise (oneDNN, CUDA probing) through absl,
            # ignoring TF_CPP_MIN_LOG_LEVEL; dm-clrs only needs it on the CPU.
            with _quiet_stderr():
                import tensorflow as tf

                tf.config.set_visible_devices([], "GPU")
        except Exception as exc:  # noqa: BLE001 - no TF GPU build, or devices already set
            log.debug("tensorflow GPU devices left as they are: %s", exc)
        _CLRS_SETUP_DONE = True
    setup_jax()
    import clrs

    return clrs


def derive_seed(seed: int, split: str, size: int) -> int:
    """A seed for one split and size, independent of the order splits are built in."""
    ss = np.random.SeedSequence([int(seed), _SPLIT_CODES[split], int(size)])
    return int(ss.generate_state(1)[0] & 0x7FFFFFFF)


@dataclass
class Source:
    """A resolved algorithm: its name, its raw CLRS spec and a sampler factory."""

    name: str
    spec: Mapping[str, tuple[str, str, str]]
    kind: str  # "alg" or "clrs"
    make: Callable[..., Any]  # (length, num_samples, seed[, jobs=, edges=]) -> sampler
    # (length, num_samples, seed, edges) -> the fixed set's trajectories chunk by chunk
    # (an `.alg` file's: `sampling.dataset.dataset_chunks`); None: only whole sets
    chunks: Callable[..., Iterator[Any]] | None = None

    def sampler(self, length: int, num_samples: int, seed: int, jobs: int = 1,
                edges: str = "dense") -> Any:
        """`jobs` processes draw an `.alg` file's fixed set (dm-clrs's: one); `edges`
        "sparse" holds an `.alg` file's edge data as edge lists (`edge_storage`)."""
        if self.kind != "alg":
            return self.make(length, num_samples, seed)
        extra = {"jobs": jobs} if jobs != 1 else {}
        if edges != "dense":
            extra["edges"] = edges
        return self.make(length, num_samples, seed, **extra)


def edge_storage(graph: str) -> str:
    """How a run holds edge inputs, hints and outputs: as edge lists (`EdgeLists`, O(m) per
    datum) when its model passes messages on an edge list (`--graph sparse`), which reads
    them where they are; as N x N arrays for a dense model."""
    return "sparse" if graph == "sparse" else "dense"


def resolve_source(source: str, generator_params: Mapping[str, Any] | None = None) -> Source:
    """Turn an `.alg` path or a dm-clrs algorithm name into a `Source`.

    An `.alg` file needs neither dm-clrs nor TensorFlow; a dm-clrs name imports both."""
    params = dict(generator_params or {})
    path = Path(source)
    if is_algorithm_file_name(source) or path.is_file():
        setup_jax()
        if not path.is_file():
            raise SourceError(f"{source}: no such file")
        from algspec.compiled import load
        from algspec.diagnostics import AlgError

        try:
            alg = load(str(path))
        except (AlgError, OSError) as exc:  # the file's diagnostics, or unreadable: one line
            msg = str(exc)
            raise SourceError(msg if msg.startswith(source) else f"{source}: {msg}") from exc

        def make_alg(length: int, num_samples: int, seed: int, jobs: int = 1,
                     edges: str = "dense") -> Any:
            return alg.batch_sampler(length=length, num_samples=num_samples, seed=seed,
                                     jobs=jobs, edges=edges, **params)

        def chunks_alg(length: int, num_samples: int, seed: int, edges: str = "dense"
                       ) -> Iterator[Any]:
            from algspec.sampling.dataset import dataset_chunks
            return dataset_chunks(alg, length, num_samples, seed, params, edges=edges)

        return Source(name=alg.name, spec=dict(alg.spec), kind="alg", make=make_alg,
                      chunks=chunks_alg)

    clrs = import_clrs()
    if source not in clrs.SPECS:
        raise SourceError(
            f"{source!r} is neither an .alg file nor a dm-clrs algorithm "
            f"(e.g. {', '.join(sorted(clrs.SPECS)[:4])}, ...)"
        )

    def make_clrs(length: int, num_samples: int, seed: int) -> Any:
        sampler, _ = clrs.build_sampler(
            source, num_samples=num_samples, length=length, seed=seed, **params
        )
        return _AlgspecFeedback(sampler)

    return Source(name=source, spec=dict(clrs.SPECS[source]), kind="clrs", make=make_clrs)


class _AlgspecFeedback:
    """A dm-clrs sampler whose batches come out as algspec's `Feedback`."""

    def __init__(self, sampler: Any) -> None:
        self._sampler = sampler

    def next(self, batch_size: int | None = None) -> Feedback:
        return feedback_from_clrs(self._sampler.next(batch_size))


def use_pred_as_input(source: Source, setting: bool | None) -> bool:
    """Whether to move `pred_h` to an input: as CLRS does, unless told otherwise."""
    if "pred_h" not in source.spec:
        return False
    if setting is None:
        return source.name in PRED_AS_INPUT_ALGOS
    return setting


# dm-clrs's model reads its number of processor steps from the first hint
# (`hints[0].data.shape[0] - 1`, at least 1), so a file without hints gets this
# placeholder: one all-zero frame, never encoded nor decoded (see `build_model`).
STEPS_HINT = "__algspec_steps__"


def _with_steps_hint(spec: dict, feedback: Feedback) -> tuple[dict, Feedback]:
    """Give a hint-free algorithm the placeholder hint: one processor step."""
    if any(stage == "hint" for stage, _, _ in spec.values()):
        return spec, feedback
    batch = int(np.asarray(feedback.features.lengths).shape[0])
    steps = DataPoint(STEPS_HINT, "graph", "scalar", np.zeros((1, batch), np.float32))
    features = feedback.features._replace(hints=(steps,))
    return {**spec, STEPS_HINT: ("hint", "graph", "scalar")}, \
        feedback._replace(features=features)


def preprocess(
    feedback: Any,
    spec: Mapping[str, tuple[str, str, str]],
    *,
    pos_rng: np.random.RandomState | None,
    pred_as_input: bool,
) -> tuple[dict, Feedback]:
    """CLRS's preprocessing of one Feedback (algspec's or dm-clrs's); returns (processed
    spec, algspec `Feedback`)."""
    from algspec.nn import preprocess as prep

    feedback = feedback_from_clrs(feedback)
    spec = dict(spec)
    if pos_rng is not None and any(dp.name == "pos" for dp in feedback.features.inputs):
        feedback = prep.randomize_pos(feedback, pos_rng)
    if pred_as_input:
        spec, feedback = prep.pred_as_input_spec(spec), prep.pred_as_input(feedback)
    spec, feedback = prep.permutations_spec(spec), prep.permutations(feedback)
    return _with_steps_hint(spec, feedback)


def pad_time(feedback: Feedback, multiple: int) -> Feedback:
    """Zero-pad the hints' time axis up to a multiple of `multiple`.

    The model reads each sample's length and freezes its outputs after it, so
    padding changes no prediction; it only lets datasets whose longest
    trajectories differ slightly share one compiled `predict`.
    """
    hints = feedback.features.hints
    if not hints or hints[0].name == STEPS_HINT:  # nothing a longer scan would change
        return feedback
    t = int(np.shape(hints[0].data)[0])
    extra = -t % multiple
    if extra == 0:
        return feedback
    padded = tuple(dp.replace(data=_zero_padded(dp.data, t + extra)) for dp in hints)
    return feedback._replace(features=feedback.features._replace(hints=padded))


def _zero_padded(data: Any, steps: int) -> Any:
    """Hint frames `[T, ...]` zero-padded to `steps` (edge lists stay edge lists)."""
    if isinstance(data, EdgeLists):
        return data.with_steps(steps)
    t = data.shape[0]
    if t == steps:
        return data
    return np.concatenate([data, np.zeros((steps - t,) + data.shape[1:], data.dtype)])


def fixed_set(
    source: Source,
    length: int,
    num_samples: int,
    seed: int,
    *,
    random_pos: bool,
    pred_as_input: bool,
    time_multiple: int = 8,
    jobs: int = 1,
    edges: str = "dense",
) -> tuple[dict, Any]:
    """A whole fixed dataset as one preprocessed Feedback (hints padded, see `pad_time`);
    an `.alg` file's is drawn by `jobs` processes (the same set for any number), its edge
    data held as `edges` says (`edge_storage`)."""
    sampler = source.sampler(length, num_samples, seed, jobs=jobs, edges=edges)
    pos_rng = np.random.RandomState(derive_seed(seed, "pos", length)) if random_pos else None
    spec, fb = preprocess(sampler.next(), source.spec, pos_rng=pos_rng,
                          pred_as_input=pred_as_input)
    return spec, pad_time(fb, time_multiple)


def fixed_set_chunks(
    source: Source,
    length: int,
    num_samples: int,
    seed: int,
    *,
    random_pos: bool,
    pred_as_input: bool,
    time_multiple: int = 8,
    edges: str = "dense",
) -> Iterator[tuple[dict, Feedback]]:
    """`fixed_set`'s samples, drawn and preprocessed one chunk at a time (its draws, in
    order): a set too large to hold is used as it is drawn. A source without chunks
    gives its whole set as one."""
    if source.chunks is None:
        yield fixed_set(source, length, num_samples, seed, random_pos=random_pos,
                        pred_as_input=pred_as_input, time_multiple=time_multiple, edges=edges)
        return
    from algspec.feedback import feedback_of

    pos_rng = np.random.RandomState(derive_seed(seed, "pos", length)) if random_pos else None
    for traj in source.chunks(length, num_samples, seed, edges):
        spec, fb = preprocess(feedback_of(traj), source.spec, pos_rng=pos_rng,
                              pred_as_input=pred_as_input)
        yield spec, pad_time(fb, time_multiple)


def rebatched(chunks: Iterator[Feedback], batch_size: int) -> Iterator[Feedback]:
    """Batches of `batch_size` cut from consecutive chunks in order, across their borders:
    the batches `batches` cuts from the whole set (hints padded per batch instead, which
    changes no prediction: see `pad_time`)."""
    carry: Feedback | None = None
    for fb in chunks:
        if carry is not None:
            fb, carry = joined(carry, fb), None
        total = int(np.shape(fb.features.lengths)[0])
        whole = total - total % batch_size
        for lo in range(0, whole, batch_size):
            yield _samples(fb, lo, lo + batch_size)
        if whole < total:
            carry = _samples(fb, whole, total)
    if carry is not None:
        yield carry


def joined(a: Feedback, b: Feedback) -> Feedback:
    """Two batches as one (hints zero padded to the longer's frames)."""
    steps = max(int(np.shape(a.features.hints[0].data)[0]),
                int(np.shape(b.features.hints[0].data)[0])) if a.features.hints else 0

    def join(x: DataPoint, y: DataPoint, axis: int) -> DataPoint:
        p, q = x.data, y.data
        if axis == 1:
            p, q = _zero_padded(p, steps), _zero_padded(q, steps)
        if isinstance(p, EdgeLists) and isinstance(q, EdgeLists):
            return x.replace(data=EdgeLists.concat([p, q]))
        return x.replace(data=np.concatenate([np.asarray(p), np.asarray(q)], axis=axis))

    fa, fb = a.features, b.features
    features = Features(
        inputs=tuple(join(x, y, 0) for x, y in zip(fa.inputs, fb.inputs, strict=True)),
        hints=tuple(join(x, y, 1) for x, y in zip(fa.hints, fb.hints, strict=True)),
        lengths=np.concatenate([np.asarray(fa.lengths), np.asarray(fb.lengths)]))
    return Feedback(features=features, outputs=tuple(
        join(x, y, 0) for x, y in zip(a.outputs, b.outputs, strict=True)))


def batches(feedback: Feedback, batch_size: int) -> Iterator[Feedback]:
    """Split a Feedback along the batch axis (hints keep their padded length)."""
    total = int(np.asarray(feedback.features.lengths).shape[0])
    for lo in range(0, total, batch_size):
        yield _samples(feedback, lo, min(lo + batch_size, total))


def _samples(feedback: Feedback, lo: int, hi: int) -> Feedback:
    """Samples lo..hi of a Feedback. Edge lists stay edge lists, the data of one edge
    graph sharing one cut graph."""
    idx = np.arange(lo, hi)
    cut_graphs: dict[int, EdgeGraph] = {}

    def rows(data: Any, axis: int) -> Any:
        if not isinstance(data, EdgeLists):
            return data[lo:hi] if axis == 0 else data[:, lo:hi]
        if id(data.graph) not in cut_graphs:
            cut_graphs[id(data.graph)] = data.graph.take(idx)
        return data.take(idx, cut_graphs[id(data.graph)])

    def cut(dps: Any, axis: int) -> tuple:
        return tuple(dp.replace(data=rows(dp.data, axis)) for dp in dps)

    f = feedback.features
    features = Features(inputs=cut(f.inputs, 0), hints=cut(f.hints, 1),
                        lengths=np.asarray(f.lengths)[lo:hi])
    return Feedback(features=features, outputs=cut(feedback.outputs, 0))


def training_stream(
    source: Source,
    length: int,
    num_samples: int,
    batch_size: int,
    seed: int,
    *,
    random_pos: bool,
    pred_as_input: bool,
    edges: str = "dense",
) -> Iterator[Any]:
    """Endless preprocessed training batches of one size from a fixed training set
    (edge data held as `edges` says, `edge_storage`).

    The training set is drawn now, not at the first batch, so that a file that
    cannot be sampled at this size fails before training starts.
    """
    sampler = source.sampler(length, num_samples, seed, edges=edges)
    pos_rng = np.random.RandomState(derive_seed(seed, "pos", length)) if random_pos else None
    return _batches_of(sampler, source.spec, batch_size, pos_rng, pred_as_input)


def _batches_of(sampler: Any, spec: Mapping[str, tuple[str, str, str]], batch_size: int,
                pos_rng: np.random.RandomState | None, pred_as_input: bool) -> Iterator[Any]:
    while True:
        _, fb = preprocess(sampler.next(batch_size), spec, pos_rng=pos_rng,
                           pred_as_input=pred_as_input)
        yield fb
