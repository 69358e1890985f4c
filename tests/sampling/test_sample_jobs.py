"""A set drawn by K processes (`jobs=K`) is the set one process draws, byte for byte:
the plan's pieces, pieces drawn anywhere, real worker processes, the samplers, Ray."""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

import numpy as np
import pytest

from algspec.compiled import load_source
from algspec.diagnostics import RuntimeFault
from algspec.sampling import jobs as sample_jobs
from algspec.sampling.dataset import export, sample_dataset
from algspec.sampling.jobs import SampleJobsError, check_jobs, draw_piece, plan, sample_in_jobs
from algspec.sampling.trajectory_batches import concat_trajectories, streams

SORT = """\
algorithm jobs_insertion
nodes n
graph complete

input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
output node pred: permutation = chain(order)
hint   node pred_h: pointer = chain(order)
hint   node j: mask_one = onehot(cur)

state  node  order: int = index
state  graph cur: int = 0
state  graph at: int = 0

record
for cur in 1 .. n {   # allow: W201
    at = cur - 1
    while at >= 0 and key[order[max(at, 0)]] > key[cur] bound n {
        order[at + 1] = order[at]
        at = at - 1
    }
    order[at + 1] = cur
    record
}
"""

# `graph input` drawn from a family (`A.family`), trajectories of varied length.
GRAPH = """\
algorithm jobs_reach
nodes n
graph input adj

input  node s: mask_one ~ source_node()
input  edge A: scalar ~ erdos_renyi(p = 0.2, connected = true)
input  edge adj: mask = adjacency(A)
output node pi: pointer = pi_h
hint   node reach_h: mask := s
hint   node pi_h: pointer := index

record
while any(not reach_h[v] and any(reach_h[u] and A[u, v] > 0 for u in incoming(v))  # allow: W201
          for v in nodes) bound n {
    forall v where not reach_h[v] {
        let p = min(u for u in incoming(v) if reach_h[u] and A[u, v] > 0, default = n)
        if p < n { pi_h[v] = p; reach_h[v] = true }
    }
    record
}
"""

# Draws `rand()`: samples carry rand keys, drawn from the stream after the inputs.
RAND = """\
algorithm jobs_color
nodes n
graph input adj

input  edge  A: mask ~ erdos_renyi(p = 0.3)
input  edge  adj: mask = adjacency(A)
state  node  color: int = -1
state  node  prop: int = -1
output node  col: scalar = float(color)

record
while any(color[u] < 0 for u in nodes) bound 8 * log2(n) + 8 whp {
    forall v where color[v] < 0 {
        let d = count(A[u, v] for u in incoming(v))
        prop[v] = int(rand() * (d + 1))
    }
    forall v where color[v] < 0 {
        let clash = any(A[u, v] and (color[u] == prop[v] or (color[u] < 0 and prop[u] == prop[v])) for u in incoming(v))
        color[v] = -1 if clash else prop[v]
    }
    record
}
"""

PROGRAMS = {"sort": (SORT, {}), "graph": (GRAPH, {"A.family": "ws"}), "rand": (RAND, {})}


def _alg(name: str):
    text, params = PROGRAMS[name]
    return load_source(text, f"{name}.alg"), params


def _same(a, b) -> None:
    """Same arrays (values, dtypes, shapes) in every field, rand keys included."""
    for group in ("inputs", "outputs", "hints"):
        x, y = getattr(a, group), getattr(b, group)
        assert list(x) == list(y)
        for k in x:
            assert x[k].dtype == y[k].dtype and x[k].shape == y[k].shape, (group, k)
            assert x[k].tobytes() == y[k].tobytes(), (group, k)
    assert np.asarray(a.lengths).tobytes() == np.asarray(b.lengths).tobytes()
    assert (a.rand_keys is None) == (b.rand_keys is None)
    if a.rand_keys is not None:
        assert a.rand_keys.tobytes() == b.rand_keys.tobytes()


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.mark.parametrize(("num", "chunk", "jobs"), [(10, 4, 3), (7, 7, 2), (3, 2, 5), (1, 4, 2)])
def test_pieces_cover_the_set_in_order(num: int, chunk: int, jobs: int) -> None:
    alg, params = _alg("sort")
    pieces = plan(alg, 5, num, streams(0)[0], params, chunk, jobs)
    covered = [(p.chunk_size, p.lo, p.hi) for p in pieces]
    starts = list(range(0, num, chunk))
    flat = [s + i for (size, lo, hi), s in zip(covered, _chunk_starts(pieces, starts))
            for i in range(lo, hi)]
    assert flat == list(range(num))  # every sample once, in the set's order
    assert all(p.size >= 1 for p in pieces) and [p.index for p in pieces] == list(
        range(len(pieces)))


def _chunk_starts(pieces, starts: list[int]) -> list[int]:
    """The set index where each piece's chunk starts (pieces of one chunk share a state)."""
    out, k, last = [], -1, None
    for p in pieces:
        if p.state != last or p.lo == 0:
            k, last = k + 1, p.state
        out.append(starts[k])
    return out


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_pieces_drawn_apart_join_into_the_one_process_set(name: str) -> None:
    """Any K, any chunk size (dividing the set or not, K above the set's size)."""
    alg, params = _alg(name)
    for num, chunk, jobs in [(11, 4, 2), (11, 4, 3), (11, 256, 3), (3, 2, 7)]:
        whole = sample_dataset(alg, 6, num, 9, params, chunk)
        rng = streams(9)[0]
        pieces = plan(alg, 6, num, rng, params, chunk, jobs)
        _same(whole, concat_trajectories([draw_piece(alg, 6, params, p) for p in pieces]))


def test_the_plan_leaves_the_stream_where_one_process_leaves_it() -> None:
    """A sampler goes on drawing from the same generator (`_sample_data`, on-the-fly
    batches): after the plan it must be where the one-process draw left it."""
    alg, params = _alg("rand")
    one, split = streams(3)[0], streams(3)[0]
    sample_dataset(alg, 5, 9, one, params, 4)
    plan(alg, 5, 9, split, params, 4, 2)
    assert one.bit_generator.state == split.bit_generator.state


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_export_is_the_same_bytes_for_one_two_and_three_processes(
        tmp_path: Path, name: str) -> None:
    alg, params = _alg(name)
    files = {}
    for jobs in (1, 2, 3):
        files[jobs] = _files(export(alg, tmp_path / f"j{jobs}", 7, 10, 4, params,
                                    chunk_size=4, jobs=jobs))
    assert files[1] == files[2] == files[3]
    assert set(files[1]) == {"samples.npz", "manifest.json"}


def test_fresh_interpreter_workers_draw_the_same_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where forking is not safe (JAX loaded, threads running), workers are
    `python -m algspec.sampling.jobs` processes, sent the algorithm by pipe."""
    monkeypatch.setattr(sample_jobs, "_fork_safe", lambda: False)
    alg, params = _alg("rand")
    one = _files(export(alg, tmp_path / "one", 6, 9, 2, params, chunk_size=4))
    assert _files(export(alg, tmp_path / "two", 6, 9, 2, params, chunk_size=4, jobs=2)) == one


class _DiesInWorkers:
    """A compiled algorithm whose draws kill the process they run in, unless it is the
    parent: a worker dying (killed, out of memory) mid-piece."""

    def __init__(self, alg) -> None:
        self._alg, self._parent = alg, os.getpid()

    def __getattr__(self, name: str):
        return getattr(self._alg, name)

    def generate(self, *args, **kwargs):
        if os.getpid() != self._parent:
            os._exit(3)
        return self._alg.generate(*args, **kwargs)

    def sample(self, *args, **kwargs):
        self.generate(*args[:2])
        return self._alg.sample(*args, **kwargs)


def _fork_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers fork this test process. Where that is not safe (JAX loaded by an earlier
    test of this pytest worker, or threads running) the test is skipped rather than risk a
    deadlocked fork; tests/cli/test_sample_jobs_cli.py forks from a fresh `algspec sample`
    in every run."""
    if not sample_jobs._fork_safe():
        pytest.skip("this test process holds JAX or threads: forking it could deadlock")
    monkeypatch.setattr(sample_jobs, "_fork_safe", lambda: True)


def test_a_worker_that_dies_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _fork_workers(monkeypatch)
    alg, params = _alg("sort")
    with pytest.raises(SampleJobsError, match=r"a sampling process died \(exit status 3\)"):
        sample_dataset(_DiesInWorkers(alg), 5, 6, 0, params, 3, jobs=2)  # whole chunks
    with pytest.raises(SampleJobsError, match=r"a sampling process died \(exit status 3\)"):
        sample_dataset(_DiesInWorkers(alg), 5, 6, 0, params, 6, jobs=2)  # halves of one


def test_more_processes_than_samples_and_the_default_chunk(tmp_path: Path) -> None:
    alg, params = _alg("rand")
    one = _files(export(alg, tmp_path / "one", 6, 2, 1, params))
    assert _files(export(alg, tmp_path / "five", 6, 2, 1, params, jobs=5)) == one


def test_the_samplers_serve_the_same_set_with_jobs() -> None:
    alg, _ = _alg("graph")
    one = alg.batch_sampler(6, num_samples=9, seed=2, A__family="ws")
    two = alg.batch_sampler(6, num_samples=9, seed=2, jobs=2, A__family="ws")
    _same(one.dataset, two.dataset)
    a, b = one.next(4), two.next(4)  # the batch stream after the set, too
    assert np.asarray(a.features.lengths).tobytes() == np.asarray(b.features.lengths).tobytes()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_jobs_must_be_a_positive_integer(bad: object) -> None:
    alg, _ = _alg("sort")
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        check_jobs(bad)
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        sample_dataset(alg, 4, 3, 0, {}, 2, jobs=bad)
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        alg.batch_sampler(4, num_samples=3, seed=0, jobs=bad)


# The loop runs int(10 key[0]) times under `bound 8`: a sample whose key[0] >= 0.9 faults
# at run time (R102). With seed 14, only sample 7 of the 9 does.
FAULT = """\
algorithm jobs_fault
nodes n
graph complete

input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
output node out: scalar = acc
state  node acc: float = key
state  graph k: int = 0

record
while k < int(key[0] * 10.0) bound 8 {
    k = k + 1
    forall v { acc[v] = acc[v] + key[v] }
}
"""


@pytest.mark.parametrize(("chunk", "fork"), [(3, True), (9, True), (9, False)])
def test_a_fault_in_a_worker_is_raised_as_one_process_raises_it(
        chunk: int, fork: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same diagnostic, naming the sample by its place in its chunk (chunk 9: the
    worker ran samples 4..8, so its own count would say 3), from a forked worker or a
    fresh interpreter."""
    if fork:
        _fork_workers(monkeypatch)
    else:
        monkeypatch.setattr(sample_jobs, "_fork_safe", lambda: False)
    alg = load_source(FAULT, "fault.alg")
    with pytest.raises(RuntimeFault) as one:
        sample_dataset(alg, 6, 9, 14, {}, chunk)
    with pytest.raises(RuntimeFault) as two:
        sample_dataset(alg, 6, 9, 14, {}, chunk, jobs=2)
    assert "R102" in one.value.diagnostic.concise_block()
    assert two.value.diagnostic.concise_block() == one.value.diagnostic.concise_block()


def test_progress_counts_every_sample_once() -> None:
    alg, params = _alg("sort")
    seen: list[tuple[str, int, int]] = []
    sample_in_jobs(alg, 5, 9, streams(0)[0], params, 4, 2,
                   progress=lambda *a: seen.append(a))
    done = [d for stage, d, total in seen if stage == "sampling" and total == 9]
    assert done == sorted(done) and done[-1] == 9


@pytest.mark.slow
def test_ray_launcher_draws_the_same_bytes(tmp_path: Path, ray_cluster: str) -> None:
    """Ray tasks on a private local cluster (conftest's `ray_cluster`; skipped where ray
    is not installed: Ray's single-process local mode no longer exists)."""
    pytest.importorskip("ray")
    alg, params = _alg("rand")
    one = _files(export(alg, tmp_path / "one", 6, 7, 5, params, chunk_size=3))
    ray = _files(export(alg, tmp_path / "ray", 6, 7, 5, params, chunk_size=3, jobs=2,
                        launcher="ray", address=ray_cluster))
    assert ray == one


def test_pieces_of_a_chunk_are_consecutive_slices() -> None:
    """Within one chunk, the pieces' slices follow each other without a gap."""
    alg, params = _alg("sort")
    pieces = plan(alg, 5, 5, streams(0)[0], params, 5, 3)
    assert [(p.lo, p.hi) for p in pieces] == [(0, 1), (1, 3), (3, 5)]
    assert all(a.hi == b.lo for a, b in itertools.pairwise(pieces))
