"""A fixed set drawn by several processes, byte for byte the set one process draws.

How one process draws a set (`dataset.sample_dataset`): one seeded generator,
chunk after chunk; each chunk draws its primary inputs (`alg.generate`), then
its rand keys (`alg.draw_rand_keys`), and runs them as one batch. A chunk's
draws depend on the earlier chunks only through the generator's state, and a
sample's trajectory depends only on its own inputs and rand key (the
interpreter works lane by lane; `rand()` hashes the sample's key, never its
place in the batch).

So the split is exact:

1. `plan` walks the generator through every chunk, drawing and dropping its
   inputs and keys (cheap next to running them), and records the state where
   each chunk starts. It leaves the generator where the one-process draw
   leaves it, so a caller that goes on drawing from it draws the same.
2. The set is cut into `jobs` near-equal runs of consecutive samples; where a
   run meets a chunk is a `Piece` (the chunk's start state and size, and the
   samples `lo:hi` of the chunk it runs).
3. A worker restores a piece's state, draws the whole chunk's inputs and keys
   as the one-process draw did, and runs only samples `lo:hi`.
4. The pieces, in order, are joined (`concat_trajectories`: hints zero padded
   to the longest trajectory of the set, as the chunks are).

Workers are local processes (`launcher="local"`) or Ray tasks
(`launcher="ray"`, the grids' launcher; ray is imported only then).

With `edges="sparse"` every piece is drawn and run with that storage, and its edge data
travel as edge lists (`algspec.edge_lists`): a sample's edges and values do not depend on
its batch, so the joined pieces are the one-process set's edge lists, byte for byte.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.process.memory_budget import check_samples_fit, trajectory_bytes
from algspec.sampling.trajectory_batches import concat_trajectories, storage_kwargs

__all__ = ["LAUNCHERS", "Piece", "SampleJobsError", "check_jobs", "plan", "sample_in_jobs"]

LAUNCHERS = ("local", "ray")
Progress = Callable[[str, int, int], None]


class SampleJobsError(RuntimeError):
    """A worker process died, or the Ray launcher cannot run (said in one line)."""


@dataclass(frozen=True)
class Piece:
    """Samples `lo:hi` of one chunk of the set: what one worker task draws."""

    index: int  # place among the pieces (their order is the set's)
    chunk_size: int  # samples the chunk draws
    lo: int
    hi: int
    state: Mapping[str, Any]  # the generator's state where the chunk starts

    @property
    def size(self) -> int:
        return self.hi - self.lo


def check_jobs(jobs: Any) -> int:
    """`jobs` as an int >= 1; anything else (0, -1, 1.5, True) is a ValueError."""
    ok = isinstance(jobs, (int, np.integer)) and not isinstance(jobs, bool)
    if not ok or int(jobs) < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    return int(jobs)


def _advance(alg: Any, length: int, size: int, rng: np.random.Generator,
             params: Mapping[str, Any], edges: str = "dense",
             ) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Draw one chunk's inputs and rand keys, exactly as `alg.sample` draws them."""
    inputs = alg.generate(length, size, rng, **storage_kwargs(edges), **dict(params))
    keys = getattr(alg, "draw_rand_keys", lambda _r, _b: None)(rng, size)
    return inputs, keys


def plan(alg: Any, length: int, num_samples: int, rng: np.random.Generator,
         params: Mapping[str, Any], chunk_size: int, jobs: int,
         edges: str = "dense") -> list[Piece]:
    """The pieces of the set, in order (see the module docstring); `rng` ends where the
    one-process draw leaves it. A generator fault is raised here, as that draw raises it."""
    if not (hasattr(alg, "generate") and hasattr(alg, "run")):
        raise TypeError("jobs > 1 needs a compiled algorithm (with generate and run)")
    starts = []
    for start in range(0, num_samples, chunk_size):
        size = min(chunk_size, num_samples - start)
        starts.append((start, size, rng.bit_generator.state))
        _advance(alg, length, size, rng, params, edges)
    bounds = [num_samples * j // jobs for j in range(jobs + 1)]
    pieces: list[Piece] = []
    for a, b in itertools.pairwise(bounds):
        for start, size, state in starts:
            lo, hi = max(a, start), min(b, start + size)
            if lo < hi:
                pieces.append(Piece(len(pieces), size, lo - start, hi - start, state))
    return pieces


def draw_piece(alg: Any, length: int, params: Mapping[str, Any], piece: Piece,
               edges: str = "dense") -> Any:
    """A piece's trajectories: its chunk's draws replayed, samples `lo:hi` run. A whole
    chunk is the one-process call itself (`alg.sample` from the chunk's state)."""
    bit_generator = getattr(np.random, piece.state["bit_generator"])()
    bit_generator.state = dict(piece.state)
    rng = np.random.Generator(bit_generator)
    storage = storage_kwargs(edges)
    if piece.size == piece.chunk_size:
        return alg.sample(length, piece.size, rng, **storage, **dict(params))
    inputs, keys = _advance(alg, length, piece.chunk_size, rng, params, edges)
    part = slice(piece.lo, piece.hi)
    return alg.run({k: _rows(v, part) for k, v in inputs.items()}, length,
                   batch_size=piece.size, rand_keys=None if keys is None else keys[part],
                   **storage)


def _rows(x: Any, part: slice) -> Any:
    """Samples `part` of one drawn input (edge lists: their samples' edges)."""
    if isinstance(x, EdgeLists):
        return x.take(np.arange(x.shape[0])[part])
    return np.asarray(x)[part]


@dataclass(frozen=True)
class _Failed:
    """A piece that raised in a worker (re-run here, so its error is raised as it is)."""

    why: str


def _draw_or_fail(alg: Any, length: int, params: Mapping[str, Any], piece: Piece,
                  edges: str = "dense") -> Any:
    try:
        return draw_piece(alg, length, params, piece, edges)
    except Exception as exc:  # noqa: BLE001 - its exception may not pickle; re-run here
        return _Failed(f"{type(exc).__name__}: {exc}")


def _raise_here(alg: Any, length: int, params: Mapping[str, Any], piece: Piece,
                failed: _Failed, edges: str = "dense") -> None:
    """Re-run a failed piece's whole chunk in this process: it raises the error the
    one-process draw raises for that chunk (a run-time fault with its diagnostic)."""
    whole = Piece(piece.index, piece.chunk_size, 0, piece.chunk_size, piece.state)
    draw_piece(alg, length, params, whole, edges)
    raise SampleJobsError(f"a sampling process failed ({failed.why}), but the same samples "
                          "drew without error in this process")


def sample_in_jobs(alg: Any, length: int, num_samples: int, rng: np.random.Generator,
                   params: Mapping[str, Any], chunk_size: int, jobs: int, *,
                   launcher: str = "local", address: str | None = None,
                   progress: Progress | None = None, edges: str = "dense") -> Any:
    """The set `sample_dataset` draws from `rng`, drawn by `jobs` workers; the same
    Trajectories, with `progress("sampling", done, num_samples)` as pieces arrive.
    `edges`: the storage of edge data (`alg.sample(..., edges=)`)."""
    if launcher not in LAUNCHERS:
        raise ValueError(f"unknown launcher {launcher!r} (one of {', '.join(LAUNCHERS)})")
    pieces = plan(alg, length, num_samples, rng, params, chunk_size, jobs, edges)
    got: dict[int, Any] = {}
    done = 0

    def arrived(piece: Piece, traj: Any) -> None:
        nonlocal done
        if isinstance(traj, _Failed):
            _raise_here(alg, length, params, piece, traj, edges)
        if not got and num_samples > chunk_size:  # refuse what cannot fit, before the rest
            check_samples_fit(trajectory_bytes(traj) / piece.size, num_samples, length)
        got[piece.index] = traj
        done += piece.size
        if progress is not None:
            progress("sampling", done, num_samples)

    run = _run_ray if launcher == "ray" else _run_local
    run((alg, length, dict(params), edges), pieces, min(jobs, len(pieces)), arrived, address)
    return concat_trajectories([got[p.index] for p in pieces])


# --- local processes --------------------------------------------------------------------
# A worker is a fork of this process where that is safe (one thread, no JAX: nothing to
# start or import, the algorithm already loaded), else a `python -m algspec.sampling.jobs`
# process, as the grids' are `python -m algspec.training.worker` (a fresh interpreter
# that never re-runs the caller's main script). Either way it runs in its own session
# (Ctrl-C is the parent's to report; the parent stops its workers itself) and, over its
# pipes, takes (the algorithm, size, parameters and edge storage once, then) a piece in
# and sends its trajectories out, until EOF.


Work = tuple[Any, int, dict[str, Any], str]  # (algorithm, length, params, edges)


def _serve(stdin: Any, stdout: Any, loaded: Work | None = None) -> None:
    """A worker's loop (see above); `loaded` is what a fork already holds."""
    try:
        alg, length, params, edges = loaded if loaded is not None else pickle.load(stdin)
    except EOFError:  # the parent stopped before sending any work
        return
    while True:
        try:
            piece = pickle.load(stdin)
        except EOFError:
            return
        pickle.dump(_draw_or_fail(alg, length, params, piece, edges), stdout,
                    protocol=pickle.HIGHEST_PROTOCOL)
        stdout.flush()


def _fork_safe() -> bool:
    """A fork copies the parent's threads' locks but not the threads: safe with one thread
    and without JAX (whose runtime threads a fork would leave half there)."""
    return hasattr(os, "fork") and threading.active_count() == 1 and "jax" not in sys.modules


@dataclass
class _Handle:
    """One worker: its pipes, its stderr (kept for a death's reason), how to stop it."""

    pid: int
    stdin: Any
    stdout: Any
    log: Any
    popen: subprocess.Popen | None = None
    code: int | None = None

    def wait(self) -> int:
        if self.popen is not None:
            return self.popen.wait()
        if self.code is None:
            self.code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.code

    def kill(self) -> None:
        if self.popen is not None:
            self.popen.kill()
        elif self.code is None:  # not reaped yet, so the pid is still this worker's
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def why(self) -> str:
        code = self.wait()
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else (f"killed by signal {-code}" if code < 0
                                        else f"exit status {code}")


def _start(loaded: Work, fork: bool, others: list[_Handle]) -> _Handle:
    """Start one worker (see above); `others` are the workers started before it."""
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the pipes by _run_local
    if not fork:
        proc = subprocess.Popen([sys.executable, "-m", "algspec.sampling.jobs"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                start_new_session=True)
        proc.stdin.write(pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL))
        return _Handle(proc.pid, proc.stdin, proc.stdout, log, proc)
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # none in between
    try:
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            code = 0
            try:
                os.setsid()
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                os.dup2(log.fileno(), 2)
                for f in [down_w, up_r, *(h.stdin for h in others), *(h.stdout for h in others)]:
                    with contextlib.suppress(OSError):  # an earlier worker's EOF is its own
                        os.close(f if isinstance(f, int) else f.fileno())
                with open(down_r, "rb") as stdin, open(up_w, "wb") as stdout:
                    _serve(stdin, stdout, loaded)
            except BaseException:  # noqa: BLE001 - said on its stderr, its exit status says it
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)  # no atexit, no flushing the parent's buffers twice
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    os.close(down_r)
    os.close(up_w)
    return _Handle(pid, open(down_w, "wb"), open(up_r, "rb"), log)


def _run_local(work: Work, pieces: list[Piece], jobs: int,
               arrived: Callable[[Piece, Any], None], address: str | None) -> None:
    if address:
        raise ValueError("an address needs the Ray launcher")
    queue = list(pieces)
    lock = threading.Lock()
    stopping = threading.Event()
    workers: list[_Handle] = []

    def feed(w: _Handle) -> None:
        try:
            while not stopping.is_set():
                with lock:
                    if not queue:
                        break
                    piece = queue.pop(0)
                pickle.dump(piece, w.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                w.stdin.flush()
                traj = pickle.load(w.stdout)
                with lock:
                    if not stopping.is_set():
                        arrived(piece, traj)
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            if not stopping.is_set():
                raise SampleJobsError(f"a sampling process died ({w.why()}); try fewer "
                                      "jobs or a smaller set") from None
        finally:
            with contextlib.suppress(OSError):
                w.stdin.close()  # EOF: the worker ends
            if stopping.is_set():
                w.kill()
            w.wait()

    pool = None
    try:
        fork = _fork_safe()  # asked before any thread of ours starts
        for _ in range(jobs):
            workers.append(_start(work, fork, workers))
        pool = ThreadPoolExecutor(max_workers=jobs)
        for fut in as_completed([pool.submit(feed, w) for w in workers]):
            fut.result()  # a worker's death (or a piece's error, re-raised by `arrived`)
    except BaseException:
        stopping.set()  # Ctrl-C, a fault, too large: stop our own workers now
        for w in workers:
            w.kill()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        for w in workers:
            for f in (w.stdin, w.stdout, w.log):
                with contextlib.suppress(OSError):
                    f.close()
            if pool is None:  # never fed: reap it here
                w.wait()


# --- Ray --------------------------------------------------------------------------------


def _draw_remote(alg: Any, length: int, params: dict[str, Any], piece: Piece,
                 edges: str = "dense") -> Any:
    return _draw_or_fail(alg, length, params, piece, edges)


def _run_ray(work: Work, pieces: list[Piece], jobs: int,
             arrived: Callable[[Piece, Any], None], address: str | None) -> None:
    alg, length, params, edges = work
    try:
        import ray
    except ImportError:
        raise SampleJobsError("the Ray launcher needs ray: pip install -e '.[grid]'") from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address:
            from algspec.process.ray_cluster import ClusterUnreachable, connect
            try:
                connect(ray, address, kwargs, "the set")
            except ClusterUnreachable as exc:
                raise SampleJobsError(str(exc)) from None
        else:
            ray.init(num_cpus=jobs, **kwargs)
        started = True
    task = ray.remote(num_cpus=1, max_retries=1)(_draw_remote)
    pending: dict[Any, Piece] = {}
    try:
        ref = ray.put(alg)
        queue = list(pieces)
        while queue or pending:
            while queue and len(pending) < jobs:
                piece = queue.pop(0)
                pending[task.remote(ref, length, params, piece, edges)] = piece
            ready, _ = ray.wait(list(pending), num_returns=1)
            piece = pending.pop(ready[0])
            try:
                traj = ray.get(ready[0])
            except ray.exceptions.RayError as exc:
                why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise SampleJobsError(f"a Ray sampling task failed: {why}") from None
            arrived(piece, traj)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


if __name__ == "__main__":  # what it sends back must unpickle as `algspec.sampling.jobs.*`
    from algspec.sampling.jobs import _serve as serve
    serve(sys.stdin.buffer, sys.stdout.buffer)
