"""Device memory planned before training: a budget forced small on the CPU splits a cell's
seeds into smaller programs or rematerialises the hint loop, and the runs' results are
those of the unplanned run; a program that cannot fit is a clear error, never an OOM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from algspec.nn import memory
from tests.support.small_programs import PREFIX_MAX

ROOT = Path(__file__).resolve().parents[2]


def test_memory_sizes_parse_in_decimal_and_binary_units() -> None:
    assert memory.parse_bytes("200MB") == 200_000_000
    assert memory.parse_bytes("1.5GiB") == int(1.5 * 2**30)
    assert memory.parse_bytes("4096") == 4096
    with pytest.raises(ValueError, match="not a memory size"):
        memory.parse_bytes("lots")


def test_the_plan_splits_seeds_then_rematerialises_then_refuses() -> None:
    def measure(k: int, remat: bool) -> int:
        return k * (40 if remat else 100)

    assert memory.choose(3, measure, None).per_program == 3  # no budget: nothing measured
    assert memory.choose(3, measure, 1000) == memory.MemoryPlan(3, 3, False, 300, 1000)
    split = memory.choose(4, measure, 250)  # two fit (200 <= 225); groups stay equal
    assert (split.per_program, split.programs, split.remat) == (2, 2, False)
    assert memory.choose(3, measure, 250).per_program == 1  # 3 seeds: groups of 1
    remat = memory.choose(3, measure, 60)
    assert (remat.per_program, remat.remat) == (1, True)
    assert "remat on" in remat.describe() and "3 programs" in remat.describe()
    with pytest.raises(memory.MemoryPlanError, match="even with rematerialisation"):
        memory.choose(3, measure, 30)


def test_evaluation_chunks_are_divisors_of_the_batch() -> None:
    assert memory.chunk_size(32, lambda rows: rows * 10, None) == 32
    assert memory.chunk_size(32, lambda rows: rows * 10, 100) == 8
    assert memory.chunk_size(6, lambda rows: rows * 10, 40) == 3
    with pytest.raises(memory.MemoryPlanError, match="one sample"):
        memory.chunk_size(4, lambda rows: 1000, 100)


def test_a_malformed_forced_budget_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(memory.ENV_MEMORY, "big")
    with pytest.raises(ValueError, match=memory.ENV_MEMORY):
        memory.device_budget()
    monkeypatch.setenv(memory.ENV_MEMORY, "200MB")
    assert memory.device_budget() == 200_000_000


def _config(algorithm: Path, seed: int) -> Any:
    from algspec.training.config import TrainConfig

    return TrainConfig(algorithm=str(algorithm), processor="mpnn", hidden=8, steps=2,
                       batch_size=4, train_sizes=(5,), val_size=5, test_size=5,
                       train_samples=8, val_samples=4, test_samples=4, eval_every=1,
                       seed=seed, backend="algspec", graph="dense")


class _Runs:
    """Trains the same two seeds under several budgets, recording every measured program."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.algorithm = root / "running_max.alg"
        self.algorithm.write_text(PREFIX_MAX)
        self.measured: list[int] = []

    def train(self, name: str, budget: str, monkeypatch: pytest.MonkeyPatch
              ) -> list[dict[str, Any]]:
        from algspec.training.trainer import train_seeds

        monkeypatch.setenv(memory.ENV_MEMORY, budget)
        outs = [self.root / name / f"s{s}" for s in (1, 2)]
        return train_seeds([_config(self.algorithm, s) for s in (1, 2)], outs,
                           progress=False)

    def metrics(self, name: str, seed: int) -> list[dict[str, Any]]:
        path = self.root / name / f"s{seed}" / "metrics.jsonl"
        return [{k: v for k, v in json.loads(line).items() if k != "elapsed"}
                for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A budget both seeds fit (the one program an unplanned run trains), then one that fits
    one seed only, then one that fits one seed only when rematerialised (budgets read off
    the programs measured before)."""
    mp = pytest.MonkeyPatch()
    state = _Runs(tmp_path_factory.mktemp("plans"))
    real = memory.program_bytes

    def recording(compiled: Any) -> int | None:
        nbytes = real(compiled)
        state.measured.append(nbytes)
        return nbytes

    mp.setattr(memory, "program_bytes", recording)
    try:
        state.whole = state.train("whole", "100GB", mp)
        two_seeds = state.whole[0]["memory_plan"]["program_bytes"]
        state.split = state.train("split", str(int(two_seeds / memory.HEADROOM) - 1), mp)
        one_seed = state.split[0]["memory_plan"]["program_bytes"]
        state.remat = state.train("remat", str(int(one_seed / memory.HEADROOM) - 1), mp)
        yield state
    finally:
        mp.undo()


@pytest.mark.slow
def test_an_ample_budget_keeps_the_seeds_in_one_program(runs: Any) -> None:
    plan = runs.whole[0]["memory_plan"]
    assert (plan["seeds_per_program"], plan["remat"]) == (2, False)
    assert plan["program_bytes"] > 0


@pytest.mark.slow
def test_a_small_budget_splits_the_seeds_and_results_are_unchanged(runs: Any) -> None:
    plan = runs.split[0]["memory_plan"]
    assert (plan["seeds_per_program"], plan["remat"]) == (1, False)
    assert plan["program_bytes"] <= plan["budget_bytes"] * memory.HEADROOM
    _assert_same_results(runs, "split", runs.split)


@pytest.mark.slow
def test_a_budget_below_one_seed_rematerialises_and_results_are_unchanged(runs: Any) -> None:
    plan = runs.remat[0]["memory_plan"]
    one_seed = runs.split[0]["memory_plan"]["program_bytes"]
    assert plan["remat"] is True  # with as many seeds per program as then fit
    assert plan["program_bytes"] < one_seed * plan["seeds_per_program"]
    assert plan["program_bytes"] <= plan["budget_bytes"] * memory.HEADROOM
    _assert_same_results(runs, "remat", runs.remat)


def _assert_same_results(runs: Any, name: str, results: list[dict[str, Any]]) -> None:
    """Equal losses and scores: seeds are independent lanes, so a narrower program differs
    from the wider one at most in float rounding (as seeds trained alone do)."""
    for seed, got, want in zip((1, 2), results, runs.whole, strict=True):
        assert got["final_loss"] == pytest.approx(want["final_loss"], rel=1e-6)
        assert got["best_step"] == want["best_step"]
        for split in ("val", "test"):
            assert got[split]["score"] == pytest.approx(want[split]["score"], rel=1e-6)
            assert got[split]["per_output"] == pytest.approx(want[split]["per_output"],
                                                             rel=1e-6)
        for x, y in zip(runs.metrics(name, seed), runs.metrics("whole", seed), strict=True):
            assert x["step"] == y["step"]
            assert x["loss"] == pytest.approx(y["loss"], rel=1e-6)
            assert x["val_score"] == pytest.approx(y["val_score"], rel=1e-6)


@pytest.mark.slow
def test_a_budget_no_program_fits_is_refused_before_training(
        runs: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(memory.MemoryPlanError, match="even with rematerialisation"):
        runs.train("none", "1kB", monkeypatch)


@pytest.mark.slow
def test_evaluation_runs_in_chunks_that_fit_and_scores_are_unchanged(
        runs: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.training.trainer import evaluate_run

    run_dir = runs.root / "whole" / "s1"
    chunks: list[int] = []
    real_chunk, real_bytes = memory.chunk_size, memory.program_bytes
    measured: list[int | None] = []

    def chunk_size(batch: int, measure: Any, budget: int | None, what: str = "") -> int:
        chunks.append(real_chunk(batch, measure, budget, what))
        return chunks[-1]

    def program_bytes(compiled: Any) -> int | None:
        measured.append(real_bytes(compiled))
        return measured[-1]

    monkeypatch.setattr(memory, "chunk_size", chunk_size)
    monkeypatch.setattr(memory, "program_bytes", program_bytes)
    monkeypatch.setenv(memory.ENV_MEMORY, "100GB")
    whole = evaluate_run(run_dir, write=False)
    batch = runs.whole[0]["test"]["samples"]
    assert chunks == [batch]
    monkeypatch.setenv(memory.ENV_MEMORY, str(int(measured[-1] / memory.HEADROOM) - 1))
    chunked = evaluate_run(run_dir, write=False)
    assert 1 <= chunks[-1] < batch
    assert chunked["score"] == pytest.approx(whole["score"], rel=1e-6)
    assert chunked["score"] == pytest.approx(runs.whole[0]["test"]["score"], rel=1e-6)


@pytest.mark.slow
def test_train_with_a_malformed_budget_is_one_error_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from algspec.cli import app

    algorithm = tmp_path / "prefix_max_doubling.alg"
    algorithm.write_text(PREFIX_MAX)
    monkeypatch.setenv(memory.ENV_MEMORY, "lots")
    r = CliRunner().invoke(app, [
        "train", str(algorithm), "--backend", "algspec", "--graph", "dense", "--hidden", "8",
        "--steps", "2", "--batch-size", "4", "--train-sizes", "4", "--val-size", "4",
        "--test-size", "4", "--train-samples", "8", "--val-samples", "4",
        "--test-samples", "4", "--no-progress", "--out", str(tmp_path / "run")])
    assert r.exit_code in (1, 2), (r.stderr, r.exception)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and memory.ENV_MEMORY in lines[-1]
    assert "Traceback" not in r.stderr
