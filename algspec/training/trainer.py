"""Train a model on one algorithm and test it out of distribution.

The model comes from the configured backend (`algspec.training.backends`):
dm-clrs's `BaselineModel` (`clrs`) or algspec's own (`algspec`).

A run folder holds:

- ``config.json``   the `TrainConfig`;
- ``metrics.jsonl`` one line per validation: step, mean training loss since
  the previous validation, validation score (``val_metric`` names it) and
  per-output scores (``val_per_output_metric`` names theirs);
- ``curves.png``    loss and validation score over steps;
- ``checkpoint.pkl`` best-by-validation parameters (numpy) + config + spec,
  which `evaluate_run` re-tests at any size;
- ``result.json``   written last and atomically: a run folder with it is done,
  and no later start-up deletes it unless asked to (``overwrite``).

Scores are named where they are stored: ``metric`` says whether ``score`` is
a micro-F1 or a negated MSE, ``per_output_metric`` what each output's figure
is (see `algspec.training.metrics`). Progress (data generation, compiling,
steps, evaluation) goes to stderr when ``progress`` is on. Ctrl-C is held
back while compiled code runs and raised between steps, as
`TrainingInterrupted`, which says where the run stopped.

The training loop follows the protocol of CLRS's `examples/run.py` (one
sampler per training size, sizes cycled step by step, full trajectories, no
chunking; validate every `eval_every` steps and keep the parameters with the
best validation score; test those), written for a single algorithm.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from algspec.diagnostics import RuntimeFault
from algspec.training.backends import get_backend
from algspec.training.compile_clock import CompileClock
from algspec.training.config import TrainConfig
from algspec.training.data import (
    Source,
    SourceError,
    batches,
    derive_seed,
    fixed_set,
    resolve_source,
    training_stream,
    use_pred_as_input,
)
from algspec.training.metrics import Tally, score_text, selection_key
from algspec.training.runs import (
    CHECKPOINT,
    RESULT,
    DeferredInterrupt,
    RunExistsError,
    TrainingInterrupted,
    describe_unfinished,
    read_result,
)

CHECKPOINT_FORMAT = "algspec-checkpoint/1"


class UnfinishedRunError(FileNotFoundError):
    """A folder without a checkpoint: not a run, or a run not finished (interrupted)."""

    def __init__(self, run_dir: Path, message: str) -> None:
        super().__init__(message)
        self.run_dir = run_dir


def write_json_atomic(path: Path, obj: Any) -> None:
    """Write JSON so that a reader (or a killed process) never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def device_description() -> str:
    """The device JAX computes on, e.g. ``cpu`` or ``gpu:NVIDIA H100 80GB HBM3``."""
    import jax

    dev = jax.devices()[0]
    kind = getattr(dev, "device_kind", "") or ""
    if dev.platform == "cpu":
        return f"cpu ({os.cpu_count()} cores, {platform.machine()})"
    return f"{dev.platform}:{kind}" if kind else dev.platform


def _installed_version(distribution: str) -> str | None:
    """A distribution's version, without importing it (None if not installed)."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _note(progress: bool, message: str) -> None:
    """A progress line on stderr (the progress bars' stream), only when progress is on."""
    if progress:
        print(message, file=sys.stderr, flush=True)


def evaluate(model: Any, feedback: Any, batch_size: int, seed: int, *,
             progress: bool = False, desc: str = "evaluating",
             interrupt: DeferredInterrupt | None = None) -> dict[str, Any]:
    """The scores of the model's outputs on a whole fixed dataset (see `metrics.Tally`).

    `progress` shows a bar over the batches (a large test set takes minutes);
    `interrupt` holds Ctrl-C back while `predict` compiles and runs."""
    import jax
    from tqdm import tqdm

    key = jax.random.PRNGKey(seed)
    tally = Tally()
    guard = interrupt or DeferredInterrupt("this batch")
    total = -(-int(np.shape(feedback.features.lengths)[0]) // batch_size)
    for batch in tqdm(batches(feedback, batch_size), total=total, desc=desc, unit="batch",
                      disable=not progress, leave=False, dynamic_ncols=True, file=sys.stderr):
        with guard.hold():
            preds, _ = model.predict(key, batch.features)
            preds = jax.device_get(preds)
        tally.add(batch.outputs, preds)
    return tally.summary()


def _numpy_params(params: Any) -> dict[str, dict[str, np.ndarray]]:
    """Haiku params as plain nested dicts of numpy arrays (picklable without haiku)."""
    return {mod: {k: np.asarray(v) for k, v in p.items()} for mod, p in params.items()}


def source_for_run(config: TrainConfig, saved_path: str | None = None,
                   params: dict[str, Any] | None = None) -> Source:
    """The run's algorithm; a moved working directory falls back to the saved path.

    `params` replaces the run's generator parameters (another graph family)."""
    algorithm = config.algorithm
    if saved_path and not Path(algorithm).exists() and Path(saved_path).exists():
        algorithm = saved_path
    return resolve_source(algorithm, config.generator_params if params is None else params)


@contextlib.contextmanager
def _data_errors(source: Source) -> Iterator[None]:
    """Inputs a file's sampler rejects (a `--param` that draws values its type cannot
    hold) as a one-line `SourceError`; run-time faults (R1xx) pass through as they are."""
    try:
        yield
    except RuntimeFault:
        raise
    except ValueError as exc:
        if source.kind != "alg":
            raise
        raise SourceError(f"{source.name}: {exc}") from exc


def fixed_test_set(source: Source, config: TrainConfig, size: int,
                   samples: int) -> tuple[dict, Any]:
    """A run's test set at `size`: the same samples for the same seed, size and count."""
    return fixed_set(
        source, size, samples, derive_seed(config.seed, "test", size),
        random_pos=config.test_random_pos,
        pred_as_input=use_pred_as_input(source, config.pred_as_input),
    )


def _clear_for_start(out: Path, overwrite: bool) -> None:
    """Make `out` ready for a new run: a finished run there is kept unless `overwrite`;
    an unfinished run's leftovers are replaced (its stale checkpoint too)."""
    if not overwrite and (res := read_result(out)) is not None:
        raise RunExistsError(
            f"{out} holds a finished run (test {score_text(res['test'])}); "
            "use another output folder, or overwrite it explicitly")
    for stale in (RESULT, CHECKPOINT):  # a restart must not leave an old "done" marker
        (out / stale).unlink(missing_ok=True)


def train(config: TrainConfig, out_dir: str | Path, *, progress: bool = True,
          overwrite: bool = False,
          on_interrupt: Callable[[TrainingInterrupted], str] | None = None) -> dict[str, Any]:
    """Train, keep the best-by-validation parameters, test them; write the run folder.

    A folder that already holds a finished run raises `RunExistsError` unless
    `overwrite`. Ctrl-C raises `TrainingInterrupted` (a KeyboardInterrupt)
    after the step in flight; the folder is then left unfinished (no
    result.json), and starting the run again trains it from the beginning.
    A second Ctrl-C while compiled code runs stops the process at once, after
    printing `on_interrupt(...)` (what is left, how to resume). Ctrl-C before
    the run folder is written (loading, data generation) is a plain
    KeyboardInterrupt: nothing was written.
    """
    return train_seeds([config], [out_dir], progress=progress, overwrite=overwrite,
                       on_interrupt=on_interrupt)[0]


def train_seeds(configs: list[TrainConfig], out_dirs: list[str | Path], *,
                progress: bool = True, overwrite: bool = False,
                on_interrupt: Callable[[TrainingInterrupted], str] | None = None
                ) -> list[dict[str, Any]]:
    """Train runs that differ only in their seed as one program: one run folder each.

    With the `algspec` backend, several configs train as one vmapped program
    (`algspec.nn.stack.SeedStack`): each seed keeps its own parameters, data and
    validation, and gets what training it alone gives (within float rounding).
    One config is `train`. See `train` for folders, overwriting and Ctrl-C.
    """
    if not configs or len(configs) != len(out_dirs):
        raise ValueError("train_seeds needs one output folder per config")
    first = configs[0].to_dict()
    for c in configs[1:]:
        differ = sorted(k for k, v in c.to_dict().items() if k != "seed" and v != first[k])
        if differ:
            raise ValueError(f"runs trained as one program differ in {', '.join(differ)}")
    if len(configs) > 1 and configs[0].backend != "algspec":
        raise ValueError("seeds train as one program only with backend algspec")
    outs = [Path(o) for o in out_dirs]
    for out in outs:
        if not overwrite and read_result(out) is not None:  # before data generation
            _clear_for_start(out, overwrite)
    _note(progress, "loading JAX" + (", TensorFlow and dm-clrs"
                                      if configs[0].backend == "clrs" else ""))
    lanes = [_prepare_lane(c, out, progress) for c, out in zip(configs, outs, strict=True)]
    for lane in lanes:
        lane.out.mkdir(parents=True, exist_ok=True)
        _clear_for_start(lane.out, overwrite)
        write_json_atomic(lane.out / "config.json", lane.config.to_dict())

    config = configs[0]
    state = _LoopState()
    guard = DeferredInterrupt("the current step", on_force=None if on_interrupt is None else (
        lambda: on_interrupt(TrainingInterrupted(outs[0], state.steps_done, config.steps))))
    try:
        with CompileClock() as clock:
            with guard.hold():
                _note(progress, f"compiling: model initialisation ({config.processor}, "
                      f"hidden {config.hidden})")
                trainer = _build(lanes)
            return _train_loop(lanes, trainer, guard, state, progress, clock)
    except TrainingInterrupted:
        raise
    except KeyboardInterrupt:
        raise TrainingInterrupted(outs[0], state.steps_done, config.steps) from None


@dataclass
class _LoopState:
    """How far the loop got (read when Ctrl-C stops it)."""

    steps_done: int = 0


@dataclass
class _Lane:
    """One run in a training loop: its config, folder, data and best parameters so far."""

    config: TrainConfig
    out: Path
    source: Source
    spec: dict
    streams: list[Iterator[Any]]
    val_set: Any
    init_batch: Any
    key: Any = None
    losses_since_eval: list[float] = field(default_factory=list)
    best_key: tuple[float, float] = (-np.inf, -np.inf)
    best_params: Any = None
    best_step: int = -1
    best_val: dict[str, Any] = field(default_factory=dict)
    last_val: dict[str, Any] | None = None
    last_loss: float = float("nan")


def _prepare_lane(config: TrainConfig, out: Path, progress: bool) -> _Lane:
    """A run's source and data (training streams, validation set, initialisation batch).

    A bad source, or a file that cannot be sampled, fails here: before any run
    folder is written."""
    source = source_for_run(config)
    pred_as_input = use_pred_as_input(source, config.pred_as_input)
    sizes = list(config.train_sizes)
    with _data_errors(source):
        streams = []
        for n in sizes:
            _note(progress, f"generating data: {config.train_samples} training samples "
                  f"at n={n}")
            streams.append(training_stream(
                source, n, config.train_samples, config.batch_size,
                derive_seed(config.seed, "train", n), random_pos=config.random_pos,
                pred_as_input=pred_as_input))
        _note(progress, f"generating data: {config.val_samples} validation samples "
              f"at n={config.val_size}")
        spec, val_set = fixed_set(
            source, config.val_size, config.val_samples,
            derive_seed(config.seed, "val", config.val_size),
            random_pos=config.random_pos, pred_as_input=pred_as_input,
        )
        # Initialise on the largest training size: the model reads feature widths
        # from this batch, and the longest trajectories exercise every hint.
        init_batch = next(streams[int(np.argmax(sizes))])
        fixed_test_set(source, config, config.test_size, 2)  # the test size samples too
    return _Lane(config, out, source, spec, streams, val_set, init_batch)


class _Trainer:
    """The model(s) of a loop: `step` trains every lane one step; `lane(k)` is lane k's
    model for evaluation (a `Model` whose `params` are that lane's)."""

    def __init__(self, models: list[Any], stack: Any = None) -> None:
        self.models, self.stack = models, stack

    def step(self, keys: list[Any], feedbacks: list[Any]) -> list[Any]:
        if self.stack is not None:
            return list(self.stack.feedback(keys, feedbacks))
        return [m.feedback(k, fb) for m, k, fb in zip(self.models, keys, feedbacks,
                                                      strict=True)]

    def lane(self, k: int) -> Any:
        return self.stack.lane(k) if self.stack is not None else self.models[k]


def _build(lanes: list[_Lane]) -> _Trainer:
    """One model per lane, or one stacked program for several seeds (algspec backend)."""
    first = lanes[0]
    backend = get_backend(first.config.backend)
    if len(lanes) == 1:
        return _Trainer([backend.build(first.spec, first.init_batch, first.config,
                                       first.out)])
    from algspec.nn.stack import SeedStack

    model = backend.restore(first.spec, first.init_batch, first.config, first.out, None)
    stack = SeedStack(model, [lane.init_batch for lane in lanes],
                      [lane.config.seed for lane in lanes])
    return _Trainer([], stack)


def _train_loop(lanes: list[_Lane], trainer: _Trainer, guard: DeferredInterrupt,
                state: _LoopState, progress: bool, clock: CompileClock
                ) -> list[dict[str, Any]]:
    """The training steps, validation, test and the run folders' files."""
    import jax
    from tqdm import tqdm

    config = lanes[0].config
    sizes = list(config.train_sizes)
    for lane in lanes:
        lane.key = jax.random.PRNGKey(lane.config.seed)
    step_times: dict[int, list[float]] = {n: [] for n in sizes}
    first_steps_seconds = 0.0
    seen_sizes: set[int] = set()
    seeds = ",".join(str(lane.config.seed) for lane in lanes)
    desc = f"{lanes[0].source.name}/{config.processor}" + \
        (f" seeds {seeds}" if len(lanes) > 1 else "")
    bar = tqdm(total=config.steps, desc=desc, disable=not progress, dynamic_ncols=True,
               leave=True, file=sys.stderr)
    t_start = time.perf_counter()
    with contextlib.ExitStack() as files:
        metrics = [files.enter_context(open(lane.out / "metrics.jsonl", "w"))
                   for lane in lanes]
        for step in range(config.steps):
            i = step % len(sizes)
            batch = [next(lane.streams[i]) for lane in lanes]
            subs = []
            for lane in lanes:
                lane.key, sub = jax.random.split(lane.key)
                subs.append(sub)
            first = sizes[i] not in seen_sizes
            if first and progress:  # the first step of a size compiles it: minutes on a CPU
                bar.set_postfix_str(f"compiling the step at n={sizes[i]}")
            t0 = time.perf_counter()
            with guard.hold():
                losses = trainer.step(subs, batch)
                jax.block_until_ready(losses)  # dispatch is async: time the finished step
            dt = time.perf_counter() - t0
            if first:
                seen_sizes.add(sizes[i])
                first_steps_seconds += dt
            else:
                step_times[sizes[i]].append(dt)
            for k, lane in enumerate(lanes):
                lane.last_loss = float(losses[k])
                lane.losses_since_eval.append(lane.last_loss)
                if step % config.eval_every == 0 or step == config.steps - 1:
                    if progress and step == 0:
                        bar.set_postfix_str(f"compiling validation at n={config.val_size}")
                    _validate(lane, trainer.lane(k), step, metrics[k], guard, t_start)
            state.steps_done = step + 1
            last = lanes[0]
            bar.set_postfix(loss=f"{last.last_loss:.3f}",
                            val=("-" if last.last_val is None
                                 else score_text(last.last_val, 3)), refresh=False)
            bar.update(1)
    train_seconds = time.perf_counter() - t_start
    bar.close()

    steady = [t for n in sizes for t in step_times[n]]
    timing = {
        "train_seconds": train_seconds,
        "seconds_per_step": (statistics.fmean(steady) if steady
                             else (first_steps_seconds + sum(steady)) / config.steps),
        "seconds_per_step_by_size": {str(n): (statistics.fmean(ts) if ts else None)
                                     for n, ts in step_times.items()},
        "first_steps_seconds": first_steps_seconds,
        "seeds_in_program": len(lanes),
    }
    tests = [_test(lane, trainer.lane(k), guard, progress) for k, lane in enumerate(lanes)]
    # Every program the run compiled (initialisation, steps, validation, test); seeds in
    # one program share them, so each of their runs reports the program's total.
    timing.update(compile_seconds=clock.compile_seconds, trace_seconds=clock.trace_seconds,
                  compiled_programs=clock.programs)
    return [_write(lane, test, timing) for lane, test in zip(lanes, tests, strict=True)]


def _validate(lane: _Lane, model: Any, step: int, metrics: Any, guard: DeferredInterrupt,
              t_start: float) -> None:
    """Score the lane's model on its validation set; log it; keep the best parameters."""
    config = lane.config
    val = evaluate(model, lane.val_set, config.eval_batch_size,
                   derive_seed(config.seed, "val", 0), interrupt=guard)
    lane.last_val = val
    record = {
        "step": step,
        "loss": float(np.mean(lane.losses_since_eval)),
        "last_loss": lane.last_loss,
        "val_score": val["score"],
        "val_metric": val["metric"],
        "val_mse": val["mse"],
        "val_per_output": val["per_output"],
        "val_per_output_metric": val["per_output_metric"],
        "elapsed": time.perf_counter() - t_start,
    }
    metrics.write(json.dumps(record) + "\n")
    metrics.flush()
    lane.losses_since_eval = []
    if selection_key(val) > lane.best_key:
        lane.best_key = selection_key(val)
        lane.best_params = _numpy_params(model.params)
        lane.best_step = step
        lane.best_val = val


def _test(lane: _Lane, model: Any, guard: DeferredInterrupt, progress: bool
          ) -> tuple[dict[str, Any], Any, float]:
    """The lane's best parameters on its test set: (summary, test spec, seconds)."""
    config, source = lane.config, lane.source
    model.params = lane.best_params
    with _data_errors(source):
        _note(progress, f"generating data: {config.test_samples} test samples "
              f"at n={config.test_size}")
        test_spec, test_set = fixed_test_set(source, config, config.test_size, config.test_samples)
    t0 = time.perf_counter()
    test = evaluate(model, test_set, config.eval_batch_size, derive_seed(config.seed, "val", 0),
                    progress=progress, desc=f"testing at n={config.test_size}", interrupt=guard)
    return test, test_spec, time.perf_counter() - t0


def _write(lane: _Lane, tested: tuple[dict[str, Any], Any, float], timing: dict[str, Any]
           ) -> dict[str, Any]:
    """The lane's checkpoint, curves and result.json."""
    import jax

    from algspec.training.plots import plot_run

    config, source, out = lane.config, lane.source, lane.out
    test, test_spec, test_seconds = tested
    with open(out / CHECKPOINT, "wb") as f:
        pickle.dump({
            "format": CHECKPOINT_FORMAT,
            "config": config.to_dict(),
            "algorithm": source.name,
            "source_path": (str(Path(config.algorithm).resolve())
                            if source.kind == "alg" else None),
            "spec": {k: tuple(v) for k, v in lane.spec.items()},
            "params": lane.best_params,
            "best_step": lane.best_step,
        }, f)

    result = {
        "algorithm": source.name,
        "source": config.algorithm,
        "processor": config.processor,
        "hidden": config.hidden,
        "seed": config.seed,
        "steps": config.steps,
        "batch_size": config.batch_size,
        "train_sizes": list(config.train_sizes),
        "device": device_description(),
        "jax": jax.__version__,
        "backend": config.backend,
        "graph": config.graph,
        "clrs": _installed_version("dm-clrs"),
        **timing,
        "test_seconds": test_seconds,
        "final_loss": lane.last_loss,
        "best_step": lane.best_step,
        "config_digest": config.digest(),
        "val": {**scores_of(lane.best_val), "size": config.val_size,
                "samples": config.val_samples},
        "test": {**scores_of(test), "size": config.test_size, "samples": config.test_samples},
    }
    assert test_spec == lane.spec, "test and training specs differ"
    try:
        plot_run(out / "metrics.jsonl", out / "curves.png", title=f"{source.name} / "
                 f"{config.processor} / h{config.hidden} / seed {config.seed}")
    except Exception as exc:  # noqa: BLE001 - a missing figure must not lose a run
        result["plot_error"] = str(exc)
    write_json_atomic(out / RESULT, result)
    return result


def scores_of(summary: dict[str, Any]) -> dict[str, Any]:
    """A split's scores as result.json stores them: each figure with the name of its metric."""
    return {"score": summary["score"], "metric": summary["metric"], "mse": summary["mse"],
            "per_output": summary["per_output"],
            "per_output_metric": summary["per_output_metric"]}


def load_checkpoint(run_dir: str | Path) -> dict[str, Any]:
    """The pickled checkpoint of a run folder."""
    path = Path(run_dir) / CHECKPOINT
    if not path.is_file():
        raise UnfinishedRunError(Path(run_dir), describe_unfinished(run_dir))
    with open(path, "rb") as f:
        try:
            ckpt = pickle.load(f)
        except Exception as e:  # noqa: BLE001 - truncated or foreign bytes: the user's file
            raise ValueError(f"{path}: not a checkpoint written by `algspec train` "
                             f"({type(e).__name__}: {e})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        found = ckpt.get("format") if isinstance(ckpt, dict) else type(ckpt).__name__
        raise ValueError(f"{path}: unknown checkpoint format {found!r}")
    return ckpt


def evaluate_run(
    run_dir: str | Path, test_size: int | None = None, test_samples: int | None = None,
    *, write: bool = True, progress: bool = False,
    on_interrupt: Callable[[], str] | None = None, batch_size: int | None = None,
) -> dict[str, Any]:
    """Re-test a saved run's best parameters on a fresh test set at `test_size`.

    The test set is derived from the run's seed and the size, so at the run's
    own test size (and sample count) it is the set the run was tested on.
    A folder without a checkpoint raises `UnfinishedRunError`; `progress`
    reports data generation and the batches tested on stderr; a second Ctrl-C
    while compiled code runs stops at once after printing `on_interrupt()`.
    """
    ckpt = load_checkpoint(run_dir)
    config = TrainConfig.from_dict(ckpt["config"])
    size = int(test_size or config.test_size)
    samples = int(test_samples or config.test_samples)
    _note(progress, "loading JAX" + (", TensorFlow and dm-clrs" if config.backend == "clrs"
                                      else ""))
    source = source_for_run(config, ckpt.get("source_path"))
    _note(progress, f"generating data: {samples} test samples at n={size}")
    spec, test_set = fixed_test_set(source, config, size, samples)
    saved_spec = {k: tuple(v) for k, v in ckpt["spec"].items()}
    if {k: tuple(v) for k, v in spec.items()} != saved_spec:
        raise ValueError(f"{config.algorithm}: its spec changed since the run was trained")
    guard = DeferredInterrupt("this batch", on_force=on_interrupt)
    with guard.hold():
        model = get_backend(config.backend).restore(
            spec, next(batches(test_set, batch_size or config.eval_batch_size)), config,
            Path(run_dir), ckpt["params"])
    t0 = time.perf_counter()
    scores = evaluate(model, test_set, batch_size or config.eval_batch_size,
                      derive_seed(config.seed, "val", 0), progress=progress,
                      desc=f"testing at n={size} (the first batch compiles)", interrupt=guard)
    out = {
        "algorithm": ckpt["algorithm"],
        "processor": config.processor,
        "hidden": config.hidden,
        "seed": config.seed,
        "size": size,
        "samples": samples,
        **scores_of(scores),
        "seconds": time.perf_counter() - t0,
        "device": device_description(),
    }
    if write:
        write_json_atomic(Path(run_dir) / f"eval_n{size}_s{samples}.json", out)
    return out
