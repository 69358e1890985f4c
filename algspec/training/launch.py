"""Run a grid's runs side by side: local worker processes (`--jobs N`) or Ray tasks.

Both launchers keep the grid's guarantees: a run is done only when its
`result.json` exists, and that file is written atomically and last, so a
worker that dies (killed, out of memory, a lost Ray node) leaves its run
"todo". Such a run is retried `retries` times, then reported as failed; the
next `algspec experiment` on the same folder picks it up again. A run whose
training raises is reported at once (retrying would fail the same way).
Conversely a run folder holding a complete `result.json` is done whatever
its worker's exit status (it may be killed just after writing it): it is
checked before every attempt and after every exit, so a retry never starts
over, and never deletes, a finished run.

GPU memory: every run gets its own process and, unless the environment
already says otherwise, a preallocated share of 0.9 / (runs side by side) of
the GPU (`XLA_PYTHON_CLIENT_MEM_FRACTION`), so N runs fit on one GPU.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from algspec.language.source_file import is_algorithm_file_name
from algspec.process.ray_cluster import ClusterUnreachable, connect
from algspec.training.grid import GridError, RunSpec
from algspec.training.grid_progress import GridProgress, outcome_line
from algspec.training.runs import RESULT, is_finished, read_result
from algspec.training.worker import EXIT_RUN_BUSY, EXIT_RUN_FAILED

Log = Callable[[str], None]


@dataclass
class Outcome:
    """What became of one run: done, or failed with a reason (and whether its worker died),
    or skipped because another process holds its folder (`busy`)."""

    run: RunSpec
    ok: bool
    error: str = ""
    died: bool = False
    attempts: int = 1
    busy: bool = False


def memory_env(side_by_side: int) -> dict[str, str]:
    """XLA settings giving each of `side_by_side` processes its own share of a GPU."""
    env = {}
    if "XLA_PYTHON_CLIENT_MEM_FRACTION" not in os.environ:
        env["XLA_PYTHON_CLIENT_MEM_FRACTION"] = f"{0.9 / max(1, side_by_side):.3f}"
    return env


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"worker died ({signal.Signals(-code).name})"
        except ValueError:
            return f"worker died (signal {-code})"
    return f"worker exited with status {code}"


def _log_tail(path: Path, lines: int = 3) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def seed_units(todo: list[RunSpec]) -> list[list[RunSpec]]:
    """The runs grouped into what one worker trains: with the `algspec` backend, the seeds
    of one cell (configs equal but for the seed) as one program; other runs alone."""
    units: dict[str, list[RunSpec]] = {}
    for run in todo:
        config = run.config.to_dict()
        key = str(id(run)) if run.config.backend != "algspec" else json.dumps(
            {k: v for k, v in config.items() if k != "seed"}, sort_keys=True, default=str)
        units.setdefault(key, []).append(run)
    return list(units.values())


def run_local(
    todo: list[RunSpec],
    jobs: int,
    log: Log,
    *,
    retries: int = 1,
    worker_cmd: list[str] | None = None,
    checkpoint_every: int | None = None,
) -> list[Outcome]:
    """Run `todo` in at most `jobs` worker processes at a time (see `algspec.training.worker`);
    a run whose folder another process holds is skipped (`Outcome.busy`), not retried."""
    cmd = [*(worker_cmd or [sys.executable, "-m", "algspec.training.worker"]),
           *([] if checkpoint_every is None else ["--checkpoint-every", str(checkpoint_every)])]
    env = {**os.environ, **memory_env(jobs)}
    live: set[subprocess.Popen] = set()
    lock = threading.Lock()
    stopping = threading.Event()

    def one(unit: list[RunSpec]) -> list[Outcome]:
        for run in unit:
            run.dir.mkdir(parents=True, exist_ok=True)
        logfile = unit[0].dir / "worker.log"
        done: dict[Path, Outcome] = {}
        error, died = "", False
        for attempt in range(1, retries + 2):
            for run in unit:  # finished meanwhile (another grid process): keep it
                if run.dir not in done and is_finished(run.dir):
                    done[run.dir] = Outcome(run, True, attempts=attempt - 1)
            left = [run for run in unit if run.dir not in done]
            if not left:
                break
            if stopping.is_set():
                return [done.get(r.dir) or Outcome(r, False, "grid interrupted",
                                                   attempts=attempt) for r in unit]
            outs = [a for run in left for a in ("--out", str(run.dir))]
            with open(logfile, "ab") as f:
                proc = subprocess.Popen(
                    [*cmd, *outs, *(json.dumps(run.config.to_dict()) for run in left)],
                    stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True)
                with lock:
                    live.add(proc)
                code = proc.wait()
                with lock:
                    live.discard(proc)
            for run in left:  # done, whatever the exit status (killed just after)
                if is_finished(run.dir):
                    done[run.dir] = Outcome(run, True, attempts=attempt)
            if len(done) == len(unit):
                break
            if code == EXIT_RUN_BUSY:  # another process trains them: not twice
                why = _log_tail(logfile, 1).removeprefix("busy: ") or "held by another process"
                return [done.get(r.dir) or Outcome(r, False, why, attempts=attempt, busy=True)
                        for r in unit]
            if code == EXIT_RUN_FAILED:
                why = _log_tail(logfile, 1) or "training raised"
                return [done.get(r.dir) or Outcome(r, False, why, attempts=attempt)
                        for r in unit]
            died = True
            error = _describe_exit(code) if code else "worker exited without a result"
            if attempt <= retries and not stopping.is_set():
                log(f"  {left[0].dir.name}: {error}; retrying ({attempt}/{retries})")
        return [done.get(r.dir) or Outcome(r, False, error, died=died, attempts=retries + 1)
                for r in unit]

    outcomes: list[Outcome] = []
    tracker = GridProgress(len(todo))
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = {pool.submit(one, unit): unit for unit in seed_units(todo)}
        for fut in as_completed(futures):
            for o in fut.result():
                outcomes.append(o)
                tracker.finished(o.ok, skipped=o.busy)
                with lock:
                    running = len(live)
                _log_outcome(o, len(outcomes), len(todo), log, tracker.status(running))
    except BaseException:
        stopping.set()
        with lock:
            for proc in live:  # our own children only, each in its own session
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGTERM)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return outcomes


def _log_outcome(o: Outcome, k: int, total: int, log: Log, status: str) -> None:
    """One line per run that ended: its named scores or why it failed, and the grid's
    progress (`status`: done, running, failed, ETA)."""
    if o.busy:
        log(f"[{k}/{total}] skipped {o.run.dir.name}: {o.error}")
        return
    log(outcome_line(k, total, o.run.dir.name, read_result(o.run.dir) if o.ok else None,
                     None if o.ok else o.error, status))


# --- Ray -------------------------------------------------------------------------------------


def _connect(ray: Any, address: str, kwargs: dict[str, Any]) -> None:
    """`ray.init(address=...)`, or a `GridError` naming the address and what to do."""
    try:
        connect(ray, address, kwargs, "the grid")
    except ClusterUnreachable as exc:
        raise GridError(str(exc)) from None


def _alg_sources(config: dict[str, Any]) -> dict[str, str]:
    """The .alg text a remote worker needs (it may not share our file system)."""
    alg = config["algorithm"]
    if is_algorithm_file_name(alg) and Path(alg).is_file():
        return {alg: Path(alg).read_text()}
    return {}


def _train_remote(configs: list[dict[str, Any]], sources: dict[str, str], cwd: str,
                  train_fn: Callable[..., Any] | None) -> list[dict[str, bytes]]:
    """Body of a Ray task: train a unit (`seed_units`: one run, or the seeds of a cell as
    one program) into scratch folders; return each run's files.

    Runs in the driver's working directory when this node has it (a local
    instance or a shared file system), else in a scratch folder holding the
    `.alg` sources at the same relative paths, so the saved config is the
    driver's either way. `train_fn` (tests) trains one run at a time.
    """
    from algspec.training.config import TrainConfig

    scratch = Path(tempfile.mkdtemp(prefix="algspec-run-"))
    old = os.getcwd()
    try:
        here = Path(cwd)
        if not (here.is_dir() and all((here / p).is_file() for p in sources)):
            depth = max([sum(1 for part in Path(p).parts if part == "..")
                         for p in sources] or [0])
            here = scratch / "src" / Path(*(["w"] * depth)) if depth else scratch / "src"
            for p, text in sources.items():
                target = here / p
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
        here.mkdir(parents=True, exist_ok=True)
        os.chdir(here)
        runs = [TrainConfig.from_dict(c) for c in configs]
        outs = [scratch / f"run{k}" for k in range(len(runs))]
        if train_fn is None and len(runs) > 1:
            from algspec.training.trainer import train_seeds
            train_seeds(runs, outs, progress=False)
        else:
            if train_fn is None:
                from algspec.training.trainer import train as train_fn
            for config, out in zip(runs, outs, strict=True):
                train_fn(config, out, progress=False)
        return [{str(f.relative_to(out)): f.read_bytes() for f in out.rglob("*") if f.is_file()}
                for out in outs]
    finally:
        os.chdir(old)
        shutil.rmtree(scratch, ignore_errors=True)


def write_run_files(run_dir: Path, files: dict[str, bytes]) -> None:
    """Write a finished run's files, `result.json` last and atomically."""
    if RESULT not in files:
        raise ValueError(f"{run_dir.name}: the worker returned no {RESULT}")
    from algspec.process.output_files import atomic_file

    for name in sorted(files, key=lambda n: n == RESULT):
        with atomic_file(run_dir / name, "wb") as f:  # recognisable temporary, umask mode
            f.write(files[name])
            f.flush()
            os.fsync(f.fileno())


def run_ray(
    todo: list[RunSpec],
    log: Log,
    *,
    address: str | None = None,
    jobs: int | None = None,
    retries: int = 1,
    cpus_per_run: float = 1.0,
    gpus_per_run: float = 0.0,
    train_fn: Callable[..., Any] | None = None,
    num_cpus: int | None = None,
) -> list[Outcome]:
    """Run `todo` as Ray tasks on the cluster at `address`, or on a local instance.

    Ray retries a task whose worker process died (`retries` times); at most
    `jobs` runs are in flight (default: as many as the cluster's resources
    allow). `num_cpus` sizes a local instance (tests); a cluster is used as it is.
    """
    try:
        import ray
    except ImportError as exc:
        raise GridError("the Ray launcher needs ray: pip install -e '.[grid]'") from exc

    started = False
    if not ray.is_initialized():
        side = max(1, round(1 / gpus_per_run)) if gpus_per_run > 0 else 1
        env = memory_env(side)
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if env:
            kwargs["runtime_env"] = {"env_vars": env}
        if address:
            _connect(ray, address, kwargs)
        else:
            ray.init(num_cpus=num_cpus or jobs or os.cpu_count(), **kwargs)
        started = True
    log(f"ray: {ray.cluster_resources().get('CPU', 0):g} CPUs, "
        f"{ray.cluster_resources().get('GPU', 0):g} GPUs"
        + (f" at {address}" if address else " (local instance)"))
    task = ray.remote(max_retries=retries, num_cpus=cpus_per_run,
                      num_gpus=gpus_per_run)(_train_remote)
    cwd = os.getcwd()
    pending: dict[Any, list[RunSpec]] = {}
    queue = seed_units(todo)  # with the algspec backend, a cell's seeds are one task
    outcomes: list[Outcome] = []
    tracker = GridProgress(len(todo))
    limit = jobs or len(todo) or 1

    def ended(o: Outcome) -> None:
        outcomes.append(o)
        tracker.finished(o.ok, skipped=o.busy)
        _log_outcome(o, len(outcomes), len(todo), log, tracker.status(len(pending)))

    try:
        while queue or pending:
            while queue and len(pending) < limit:
                unit = []
                for r in queue.pop(0):
                    if r.done:  # finished meanwhile (another grid process): keep it
                        ended(Outcome(r, True, attempts=0))
                    else:
                        unit.append(r)
                if not unit:
                    continue
                cfgs = [r.config.to_dict() for r in unit]
                pending[task.remote(cfgs, _alg_sources(cfgs[0]), cwd, train_fn)] = unit
            if not pending:
                continue
            ready, _ = ray.wait(list(pending), num_returns=1)
            unit = pending.pop(ready[0])
            failure: Outcome | None = None
            try:
                files = ray.get(ready[0])
                for r, run_files in zip(unit, files, strict=True):
                    if not r.done:  # a finished run there is never replaced
                        write_run_files(r.dir, run_files)
            except ray.exceptions.RayTaskError as exc:  # training raised
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                failure = Outcome(unit[0], False,
                                  f"{type(cause).__name__}: {cause}".splitlines()[0])
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                    ray.exceptions.ObjectLostError) as exc:
                failure = Outcome(unit[0], False, f"worker died: {type(exc).__name__}",
                                  died=True, attempts=retries + 1)
            except ray.exceptions.RayError as exc:  # e.g. a task that could not start
                failure = Outcome(unit[0], False, f"{type(exc).__name__}: {exc}".splitlines()[0])
            except (OSError, ValueError) as exc:
                failure = Outcome(unit[0], False, f"{type(exc).__name__}: {exc}")
            for r in unit:
                if failure is None or r.done:  # finished elsewhere while this attempt failed
                    ended(Outcome(r, True, attempts=failure.attempts if failure else 1))
                else:
                    ended(Outcome(r, False, failure.error, died=failure.died,
                                  attempts=failure.attempts))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
    return outcomes
