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
- ``resume.pkl``    while the run is unfinished: its whole training state, saved
  every `checkpoint_every` steps (`algspec.training.resume`); starting the same
  run again continues from it, and it is removed when the run finishes;
- ``result.json``   written last and atomically: a run folder with it is done,
  and no later start-up deletes it unless asked to (``overwrite``).

Scores are named where they are stored: ``metric`` says whether ``score`` is
a micro-F1 or a negated MSE, ``per_output_metric`` what each output's figure
is (see `algspec.training.metrics`). Progress (data generation, compiling,
steps, evaluation) goes to stderr when ``progress`` is on. Ctrl-C is held
back while compiled code runs and raised between steps, as
`TrainingInterrupted`, which says where the run stopped and resumes. A run
folder is held by one process at a time (`algspec.process.output_files.claim`).

The training loop follows the protocol of CLRS's `examples/run.py` (one
sampler per training size, sizes cycled step by step, full trajectories, no
chunking; validate every `eval_every` steps and keep the parameters with the
best validation score; test those), written for a single algorithm.
"""

from __future__ import annotations

import contextlib
import itertools
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
from algspec.training import resume
from algspec.training.backends import get_backend
from algspec.training.compile_clock import CompileClock
from algspec.training.config import TrainConfig
from algspec.training.data import (
    Source,
    SourceError,
    batches,
    derive_seed,
    edge_storage,
    fixed_set,
    fixed_set_chunks,
    resolve_source,
    training_stream,
    use_pred_as_input,
)
from algspec.training.metrics import Tally, score_text, selection_key
from algspec.training.runs import (
    CHECKPOINT,
    CONFIG,
    RESULT,
    DeferredInterrupt,
    RunConfigMismatch,
    RunExistsError,
    TrainingInterrupted,
    config_differences,
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
    from algspec.process.output_files import atomic_file

    with atomic_file(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())


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
             interrupt: DeferredInterrupt | None = None,
             stop_between_batches: bool = True,
             stream: tuple[Iterator[Any], int] | None = None) -> dict[str, Any]:
    """The scores of the model's outputs on a whole fixed dataset (see `metrics.Tally`).

    `progress` shows a bar over the batches (a large test set takes minutes);
    `interrupt` holds Ctrl-C back while `predict` compiles and runs, and raises it
    between batches unless `stop_between_batches` is off (validation: the training
    loop stops after its step, where its state is whole). `stream`: (the batches, their
    number) of a set drawn as it is tested (`data.rebatched`), instead of `feedback`."""
    import jax
    from tqdm import tqdm

    key = jax.random.PRNGKey(seed)
    tally = Tally()
    guard = interrupt or DeferredInterrupt("this batch")
    if stream is not None:
        parts, total = stream
    else:
        parts = batches(feedback, batch_size)
        total = -(-int(np.shape(feedback.features.lengths)[0]) // batch_size)
    with tqdm(parts, total=total, desc=desc, unit="batch",
              disable=not progress, leave=False, dynamic_ncols=True, file=sys.stderr) as bar:
        for batch in bar:
            with guard.hold():
                preds, _ = model.predict(key, batch.features)
                preds = jax.device_get(preds)
            tally.add(batch.outputs, preds)
            if stop_between_batches:
                guard.check()
    return tally.summary()


def fixed_test_chunks(source: Source, config: TrainConfig, size: int, samples: int
                      ) -> Iterator[tuple[dict, Any]]:
    """`fixed_test_set`'s samples one drawn chunk at a time (`data.fixed_set_chunks`)."""
    return fixed_set_chunks(
        source, size, samples, derive_seed(config.seed, "test", size),
        random_pos=config.test_random_pos,
        pred_as_input=use_pred_as_input(source, config.pred_as_input),
        edges=edge_storage(config.graph))


def streams_test_set(source: Source, size: int, samples: int, jobs: int = 1) -> bool:
    """Whether a test set is tested as it is drawn, chunk by chunk, never held whole: a
    set of more than one sampling chunk drawn by one process (1,000 samples at n = 1600
    of a file with n frames hold tens of GB of hints)."""
    from algspec.sampling.dataset import fitting_chunk

    return source.chunks is not None and jobs == 1 and samples > fitting_chunk(size)


def test_as_drawn(run_dir: Path, ckpt: dict[str, Any], config: TrainConfig, source: Source,
                  size: int, samples: int, batch_size: int, *, progress: bool,
                  guard: DeferredInterrupt, desc: str,
                  seen: Callable[[Any], None] | None = None
                  ) -> tuple[dict[str, Any], float, float]:
    """A run's best parameters tested on its test set at `size`, drawn and tested a chunk
    at a time: the same samples and batches as the whole set (`data.rebatched`), one
    chunk in memory. Returns (scores, seconds drawing, seconds testing); `seen` gets each
    chunk as it is drawn."""
    from algspec.training.data import rebatched

    saved_spec = {k: tuple(v) for k, v in ckpt["spec"].items()}
    clock: dict[str, Any] = {"sampling": 0.0}  # seconds drawing; the chunks' spec

    def drawn() -> Iterator[Any]:
        chunks = fixed_test_chunks(source, config, size, samples)
        while True:
            t = time.perf_counter()
            spec, fb = next(chunks, (None, None))
            clock["sampling"] += time.perf_counter() - t
            if fb is None:
                return
            if {k: tuple(v) for k, v in spec.items()} != saved_spec:
                raise ValueError(f"{config.algorithm}: its spec changed since the run was "
                                 "trained")
            clock["spec"] = spec
            if seen is not None:
                seen(fb)
            yield fb

    parts = rebatched(drawn(), batch_size)
    first = next(parts)
    with guard.hold():
        model = get_backend(config.backend).restore(
            clock["spec"], first, config, Path(run_dir), ckpt["params"])
    t1 = time.perf_counter()
    scores = evaluate(model, None, batch_size, derive_seed(config.seed, "val", 0),
                      progress=progress, interrupt=guard, desc=desc,
                      stream=(itertools.chain([first], parts), -(-samples // batch_size)))
    return scores, clock["sampling"], time.perf_counter() - t1 - clock["sampling"]


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
                   samples: int, jobs: int = 1) -> tuple[dict, Any]:
    """A run's test set at `size`: the same samples for the same seed, size and count
    (and for any number of `jobs` drawing them); a sparse run's edge data as edge lists."""
    return fixed_set(
        source, size, samples, derive_seed(config.seed, "test", size),
        random_pos=config.test_random_pos,
        pred_as_input=use_pred_as_input(source, config.pred_as_input), jobs=jobs,
        edges=edge_storage(config.graph),
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


def _check_start(config: TrainConfig, out: Path, overwrite: bool) -> None:
    """A finished run, or another configuration's run, in `out` is refused unless
    `overwrite`; before anything is computed."""
    if overwrite:
        return
    if read_result(out) is not None:
        _clear_for_start(out, overwrite=False)  # raises RunExistsError
    differ = config_differences(config, out)
    if differ:
        raise RunConfigMismatch(
            f"{out} holds a run of other options ({', '.join(differ)} differ); use another "
            "output folder, delete that one, or overwrite it explicitly")


@contextlib.contextmanager
def _holding(outs: list[Path]) -> Iterator[None]:
    """Hold every run folder for this process (`OutputBusy` if another one holds one);
    a folder this start created and left empty (a source that failed) is removed."""
    from algspec.process.output_files import acquire

    created = [out for out in outs if not out.exists()]
    claims = []
    try:
        for out in outs:
            claims.append(acquire(out, inside=True))
        yield
    finally:
        for c in claims:
            c.release()
        for out in created:
            with contextlib.suppress(OSError):
                out.rmdir()  # only if empty


def train(config: TrainConfig, out_dir: str | Path, *, progress: bool = True,
          overwrite: bool = False,
          on_interrupt: Callable[[TrainingInterrupted], str] | None = None,
          checkpoint_every: int | None = None, log_lines: bool = False) -> dict[str, Any]:
    """Train, keep the best-by-validation parameters, test them; write the run folder.

    A folder that already holds a finished run raises `RunExistsError`, and one
    holding another configuration's run `RunConfigMismatch`, unless `overwrite`;
    one another process holds raises `OutputBusy`. The whole training state is
    saved every `checkpoint_every` steps (default: at every validation; 0: never)
    and when Ctrl-C stops the run; starting the same run again resumes from it
    (`resumed from step K` on stderr, `resumed_from` in result.json) and ends
    with the result an uninterrupted run gets. Ctrl-C raises
    `TrainingInterrupted` (a KeyboardInterrupt) after the step in flight. A
    second Ctrl-C while compiled code runs stops the process at once, after
    printing `on_interrupt(...)` (what is left, how to resume). Ctrl-C before
    the run folder is written (loading, data generation) is a plain
    KeyboardInterrupt: nothing was written.

    `log_lines` prints one plain line per validation on stderr (for a log file or a
    pipe, where the progress bar is off and a long run would otherwise say nothing).
    """
    return train_seeds([config], [out_dir], progress=progress, overwrite=overwrite,
                       on_interrupt=on_interrupt, checkpoint_every=checkpoint_every,
                       log_lines=log_lines)[0]


def train_seeds(configs: list[TrainConfig], out_dirs: list[str | Path], *,
                progress: bool = True, overwrite: bool = False,
                on_interrupt: Callable[[TrainingInterrupted], str] | None = None,
                checkpoint_every: int | None = None, log_lines: bool = False
                ) -> list[dict[str, Any]]:
    """Train runs that differ only in their seed as one program: one run folder each.

    With the `algspec` backend, several configs train as one vmapped program
    (`algspec.nn.stack.SeedStack`): each seed keeps its own parameters, data and
    validation, and gets what training it alone gives (within float rounding).
    Seeds whose folders would resume at different steps train as separate
    programs, each group from its own step. One config is `train`. See `train`
    for folders, overwriting, checkpoints and Ctrl-C.
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
    starts = [None if overwrite else resume.resume_step(out, c.digest())
              for c, out in zip(configs, outs, strict=True)]
    if len(set(starts)) > 1:  # one program steps every seed together: group by start
        groups: dict[int | None, list[int]] = {}
        for k, start in enumerate(starts):
            groups.setdefault(start, []).append(k)
        results: dict[int, dict[str, Any]] = {}
        for ks in groups.values():
            for k, res in zip(ks, train_seeds(
                    [configs[k] for k in ks], [outs[k] for k in ks], progress=progress,
                    overwrite=overwrite, on_interrupt=on_interrupt,
                    checkpoint_every=checkpoint_every, log_lines=log_lines), strict=True):
                results[k] = res
        return [results[k] for k in range(len(configs))]
    every = configs[0].eval_every if checkpoint_every is None else int(checkpoint_every)
    with _holding(outs):
        for c, out in zip(configs, outs, strict=True):  # before data generation
            _check_start(c, out, overwrite)
        return _train_held(configs, outs, progress, overwrite, on_interrupt, every, log_lines)


def _train_held(configs: list[TrainConfig], outs: list[Path], progress: bool, overwrite: bool,
                on_interrupt: Callable[[TrainingInterrupted], str] | None, every: int,
                log_lines: bool = False) -> list[dict[str, Any]]:
    """`train_seeds` once its folders are held: data, model, resume, loop, results."""
    _note(progress, "loading JAX" + (", TensorFlow and dm-clrs"
                                      if configs[0].backend == "clrs" else ""))
    lanes = [_prepare_lane(c, out, progress) for c, out in zip(configs, outs, strict=True)]
    saved = [None if overwrite else resume.load(lane.out, lane.config.digest())
             for lane in lanes]
    if any(s is None for s in saved) or len({s[0] for s in saved if s}) > 1:
        saved = [None] * len(lanes)  # start every lane from the beginning
    for lane in lanes:
        lane.out.mkdir(parents=True, exist_ok=True)
        _clear_for_start(lane.out, overwrite)
        if saved[0] is None:
            resume.remove(lane.out)
        write_json_atomic(lane.out / CONFIG, lane.config.to_dict())

    config = configs[0]
    state = _LoopState(checkpoint_every=every)
    guard = DeferredInterrupt("the current step", on_force=None if on_interrupt is None else (
        lambda: on_interrupt(TrainingInterrupted(outs[0], state.steps_done, config.steps,
                                                 state.resume_at))))
    try:
        with CompileClock() as clock, guard.hold():
            _note(progress, f"compiling: model initialisation ({config.processor}, "
                  f"hidden {config.hidden})")
            trainer = _build(lanes)
            if saved[0] is not None:
                _resume(lanes, trainer, [s[1] for s in saved], saved[0][0], state)
            _note_plan(trainer, lanes)
            return _train_loop(lanes, trainer, guard, state, progress, clock, log_lines)
    except TrainingInterrupted:
        raise
    except KeyboardInterrupt:
        raise TrainingInterrupted(outs[0], state.steps_done, config.steps,
                                  state.resume_at) from None


@dataclass
class _LoopState:
    """How far the loop got (read when Ctrl-C stops it), where it resumes (the step of
    the last checkpoint written), and the timing carried over a resume."""

    steps_done: int = 0
    resume_at: int = 0
    checkpoint_every: int = 0
    start: int = 0
    step_times: dict[int, list[float]] = field(default_factory=dict)
    first_steps_seconds: float = 0.0
    train_seconds: float = 0.0


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
    metric_lines: list[str] = field(default_factory=list)
    resumed_from: list[int] = field(default_factory=list)


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
                pred_as_input=pred_as_input, edges=edge_storage(config.graph)))
        _note(progress, f"generating data: {config.val_samples} validation samples "
              f"at n={config.val_size}")
        spec, val_set = fixed_set(
            source, config.val_size, config.val_samples,
            derive_seed(config.seed, "val", config.val_size),
            random_pos=config.random_pos, pred_as_input=pred_as_input,
            edges=edge_storage(config.graph),
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

    def _holder(self) -> Any:
        """What holds `params` and `opt_state` (dm-clrs's adapter wraps its model)."""
        if self.stack is not None:
            return self.stack
        return getattr(self.models[0], "baseline", self.models[0])

    def training_state(self, k: int) -> tuple[Any, Any]:
        """Lane k's (parameters, optimiser state), on the host."""
        import jax

        holder = self._holder()
        params, opt_state = holder.params, holder.opt_state
        if self.stack is not None:
            params, opt_state = jax.tree_util.tree_map(lambda x: x[k], (params, opt_state))
        return resume.host(params), resume.host(opt_state)

    def set_training_state(self, states: list[tuple[Any, Any]]) -> None:
        """Every lane's (parameters, optimiser state), as `training_state` gave them."""
        import jax
        import jax.numpy as jnp

        holder = self._holder()
        if self.stack is None:
            holder.params, holder.opt_state = jax.tree_util.tree_map(jnp.asarray, states[0])
            return
        holder.params, holder.opt_state = jax.tree_util.tree_map(
            lambda *xs: jnp.stack(xs), *states)

    @property
    def memory_plan(self) -> Any:
        """The device memory plan (`algspec.nn.memory.MemoryPlan`), None if not planned."""
        return getattr(self.stack if self.stack is not None else self.models[0],
                       "memory_plan", None)


def _note_plan(trainer: _Trainer, lanes: list[_Lane]) -> None:
    """The memory plan's line on stderr (a grid's log, a worker's log) when it was planned
    against a device budget."""
    from algspec.training.grid_progress import plan_line

    plan, config = trainer.memory_plan, lanes[0].config
    if plan is not None and plan.budget is not None:
        name = f"{lanes[0].source.name}/{config.processor} h{config.hidden}"
        print(plan_line(name, plan), file=sys.stderr, flush=True)


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
                state: _LoopState, progress: bool, clock: CompileClock,
                log_lines: bool = False) -> list[dict[str, Any]]:
    """The training steps, validation, test and the run folders' files (`log_lines`: a
    line per validation on stderr, see `train`)."""
    import jax
    from tqdm import tqdm

    config = lanes[0].config
    sizes = list(config.train_sizes)
    for lane in lanes:
        if lane.key is None:
            lane.key = jax.random.PRNGKey(lane.config.seed)
    step_times: dict[int, list[float]] = {n: list(state.step_times.get(n, [])) for n in sizes}
    state.step_times = step_times
    first_steps_seconds = state.first_steps_seconds
    seen_sizes: set[int] = set()
    seeds = ",".join(str(lane.config.seed) for lane in lanes)
    desc = f"{lanes[0].source.name}/{config.processor}" + \
        (f" seeds {seeds}" if len(lanes) > 1 else "")
    bar = tqdm(total=config.steps, initial=state.start, desc=desc, disable=not progress,
               dynamic_ncols=True, leave=False, file=sys.stderr)  # kept once finished
    guard.on_pending = lambda: bar.set_postfix_str(
        "stopping after this step (Ctrl-C again stops at once)")
    t_start = time.perf_counter() - state.train_seconds
    with contextlib.ExitStack() as files:
        files.callback(bar.close)
        metrics = [files.enter_context(open(lane.out / "metrics.jsonl", "w"))
                   for lane in lanes]
        for lane, f in zip(lanes, metrics, strict=True):  # what was logged before a resume
            f.write("".join(lane.metric_lines))
            f.flush()
        for step in range(state.start, config.steps):
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
                    if log_lines:
                        _validation_line(lane, desc if len(lanes) == 1 else
                                         f"{desc.split(' seeds ')[0]} seed {lane.config.seed}",
                                         step)
            state.steps_done = step + 1
            last = lanes[0]
            if not guard.pending:
                bar.set_postfix(loss=f"{last.last_loss:.3f}",
                                val=("-" if last.last_val is None
                                     else score_text(last.last_val, 3)), refresh=False)
            bar.update(1)
            state.first_steps_seconds = first_steps_seconds
            state.train_seconds = time.perf_counter() - t_start
            due = state.checkpoint_every > 0 and (  # the last too: testing can be long
                step % state.checkpoint_every == 0 or step + 1 == config.steps)
            if due or guard.pending:
                _checkpoint(lanes, trainer, step + 1, state)
            guard.check()  # a Ctrl-C stops here, with the state just saved
        bar.leave = True
    train_seconds = time.perf_counter() - t_start

    steady = [t for n in sizes for t in step_times[n]]
    timing = {
        "train_seconds": train_seconds,
        "seconds_per_step": (statistics.fmean(steady) if steady
                             else (first_steps_seconds + sum(steady)) / config.steps),
        "seconds_per_step_by_size": {str(n): (statistics.fmean(ts) if ts else None)
                                     for n, ts in step_times.items()},
        "first_steps_seconds": first_steps_seconds,
        "seeds_in_program": len(lanes),
        "memory_plan": None if trainer.memory_plan is None else trainer.memory_plan.to_dict(),
    }
    state.resume_at = resume.resume_step(lanes[0].out) or 0  # a Ctrl-C while testing
    tests = [_test(lane, trainer.lane(k), guard, progress) for k, lane in enumerate(lanes)]
    # Every program the run compiled (initialisation, steps, validation, test); seeds in
    # one program share them, so each of their runs reports the program's total.
    timing.update(compile_seconds=clock.compile_seconds, trace_seconds=clock.trace_seconds,
                  compiled_programs=clock.programs)
    return [_write(lane, test, timing) for lane, test in zip(lanes, tests, strict=True)]


def _validation_line(lane: _Lane, desc: str, step: int) -> None:
    """One plain line per validation (no carriage returns): step, loss, score, best."""
    from algspec.training.metrics import score_text

    c = lane.config
    best = " (best)" if lane.best_step == step else ""
    record = json.loads(lane.metric_lines[-1])  # what `_validate` just logged
    print(f"{desc}: step {step + 1}/{c.steps}, loss {record['loss']:.4g}, val "
          f"{score_text(lane.last_val)} at n={c.val_size}{best}, {record['elapsed']:.0f} s",
          file=sys.stderr, flush=True)


def _validate(lane: _Lane, model: Any, step: int, metrics: Any, guard: DeferredInterrupt,
              t_start: float) -> None:
    """Score the lane's model on its validation set; log it; keep the best parameters."""
    config = lane.config
    val = evaluate(model, lane.val_set, config.eval_batch_size,
                   derive_seed(config.seed, "val", 0), interrupt=guard,
                   stop_between_batches=False)
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
    line = json.dumps(record) + "\n"
    lane.metric_lines.append(line)
    metrics.write(line)
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
    from algspec.process.output_files import atomic_file

    with atomic_file(out / CHECKPOINT, "wb") as f:  # `eval` never reads half a checkpoint
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
        "resumed_from": list(lane.resumed_from),
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
    resume.remove(out)  # a finished run carries no training state
    return result


def _checkpoint(lanes: list[_Lane], trainer: _Trainer, steps_done: int,
                state: _LoopState) -> None:
    """Save every lane's whole training state after `steps_done` steps (resume.pkl)."""
    for k, lane in enumerate(lanes):
        params, opt_state = trainer.training_state(k)
        resume.save(lane.out, lane.config.digest(), steps_done, {
            "params": params, "opt_state": opt_state, "key": resume.host(lane.key),
            "losses_since_eval": list(lane.losses_since_eval),
            "best_key": lane.best_key, "best_params": lane.best_params,
            "best_step": lane.best_step, "best_val": lane.best_val,
            "last_val": lane.last_val, "last_loss": lane.last_loss,
            "metric_lines": list(lane.metric_lines),
            "resumed_from": list(lane.resumed_from),
            "step_times": {n: list(ts) for n, ts in state.step_times.items()},
            "first_steps_seconds": state.first_steps_seconds,
            "train_seconds": state.train_seconds,
        })
    state.resume_at = steps_done


def _resume(lanes: list[_Lane], trainer: _Trainer, saved: list[dict[str, Any]], start: int,
            state: _LoopState) -> None:
    """Set every lane back to its checkpoint after `start` steps; the data streams skip
    the batches those steps drew, so the batches that follow are the same."""
    import jax.numpy as jnp

    trainer.set_training_state([(s["params"], s["opt_state"]) for s in saved])
    sizes = list(lanes[0].config.train_sizes)
    for lane, s in zip(lanes, saved, strict=True):
        lane.key = jnp.asarray(s["key"])
        lane.losses_since_eval = list(s["losses_since_eval"])
        lane.best_key, lane.best_params = tuple(s["best_key"]), s["best_params"]
        lane.best_step, lane.best_val = s["best_step"], s["best_val"]
        lane.last_val, lane.last_loss = s["last_val"], s["last_loss"]
        lane.metric_lines = list(s["metric_lines"])
        lane.resumed_from = [*s["resumed_from"], start]
        for step in range(start):
            next(lane.streams[step % len(sizes)])
        print(f"resumed from step {start} of {lane.config.steps}: {lane.out}",
              file=sys.stderr, flush=True)
    first = saved[0]
    state.start = state.steps_done = state.resume_at = start
    state.step_times = {int(n): list(ts) for n, ts in first["step_times"].items()}
    state.first_steps_seconds = first["first_steps_seconds"]
    state.train_seconds = first["train_seconds"]


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
    jobs: int = 1,
) -> dict[str, Any]:
    """Re-test a saved run's best parameters on a fresh test set at `test_size`.

    The test set is derived from the run's seed and the size, so at the run's
    own test size (and sample count) it is the set the run was tested on (drawn
    by `jobs` processes: the same set for any number).
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
    batch_size = batch_size or config.eval_batch_size
    guard = DeferredInterrupt("this batch", on_force=on_interrupt)
    desc = f"testing at n={size} (the first batch compiles)"
    t0 = time.perf_counter()
    if streams_test_set(source, size, samples, jobs):
        _note(progress, f"testing {samples} samples at n={size} as they are drawn")
        scores, _, _ = test_as_drawn(Path(run_dir), ckpt, config, source, size, samples,
                                     batch_size, progress=progress, guard=guard, desc=desc)
    else:
        _note(progress, f"generating data: {samples} test samples at n={size}")
        spec, test_set = fixed_test_set(source, config, size, samples, jobs=jobs)
        saved_spec = {k: tuple(v) for k, v in ckpt["spec"].items()}
        if {k: tuple(v) for k, v in spec.items()} != saved_spec:
            raise ValueError(f"{config.algorithm}: its spec changed since the run was trained")
        with guard.hold():
            model = get_backend(config.backend).restore(
                spec, next(batches(test_set, batch_size)), config, Path(run_dir),
                ckpt["params"])
        t0 = time.perf_counter()
        scores = evaluate(model, test_set, batch_size, derive_seed(config.seed, "val", 0),
                          progress=progress, desc=desc, interrupt=guard)
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
