"""A run folder belongs to one configuration and, while it trains, to one process.

The default `--out` names the configuration (a short digest of every option), a folder
holding another configuration's run is refused in one line, a folder another process
holds is refused in one line, and a second grid on the same output skips the runs
another process is training instead of training them twice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from algspec.cli import app
from algspec.process.output_files import acquire
from algspec.training.config import TrainConfig

COUNT_UP = """\
algorithm count_up
nodes n
graph complete

input  node  x: scalar ~ uniform()
hint   node  y: scalar := x
output node  z: scalar = y

record
forall v { y[v] = y[v] + 1.0 }
record
"""

TINY = ["--hidden", "8", "--batch-size", "4", "--train-sizes", "4", "--val-size", "4",
        "--test-size", "5", "--train-samples", "8", "--val-samples", "8",
        "--test-samples", "8", "--no-progress"]


@pytest.fixture
def alg(tmp_path: Path) -> Path:
    path = tmp_path / "count_up.alg"
    path.write_text(COUNT_UP)
    return path


@pytest.fixture
def trained(monkeypatch: pytest.MonkeyPatch) -> list[tuple[TrainConfig, Path]]:
    """`train` replaced by a recorder: which config went to which folder (nothing runs)."""
    calls: list[tuple[TrainConfig, Path]] = []

    def record(config, out, **kwargs):
        calls.append((config, Path(out)))
        return {"algorithm": "count_up", "val": {"score": 1.0, "metric": "micro_f1"},
                "test": {"score": 1.0, "metric": "micro_f1"}, "seconds_per_step": 0.0,
                "device": "cpu"}

    monkeypatch.setattr("algspec.training.trainer.train", record)
    return calls


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_the_default_folder_names_the_configuration(
        alg: Path, tmp_path: Path, trained: list, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for steps in (20, 60000, 20):
        r = invoke("train", alg, *TINY, "--steps", steps)
        assert r.exit_code == 0, r.stderr
    for extra in (["--backend", "clrs"], ["--graph", "sparse"]):
        assert invoke("train", alg, *TINY, "--steps", 20, *extra).exit_code == 0
    outs = [out for _, out in trained]
    assert all(o.parent == Path("runs") and o.name.startswith("count_up_mpnn_h8_s42_")
               for o in outs), outs
    assert outs[0] == outs[2], "the same options: the same folder (a rerun resumes it)"
    assert len({outs[0], outs[1], outs[3], outs[4]}) == 4, "other options: another folder"
    assert outs[0].name.endswith(trained[0][0].digest()[:6])


def test_a_folder_of_other_options_is_refused_in_one_line(
        alg: Path, tmp_path: Path, trained: list) -> None:
    out = tmp_path / "run"
    out.mkdir()
    other = TrainConfig(algorithm=str(alg), hidden=8, steps=60000)
    (out / "config.json").write_text(json.dumps(other.to_dict()))
    r = invoke("train", alg, *TINY, "--steps", 20, "--out", out)
    assert r.exit_code == 2 and not trained
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "other options" in lines[0] and "steps" in lines[0] and "--overwrite" in lines[0]
    r = invoke("train", alg, *TINY, "--steps", 20, "--out", out, "--overwrite")
    assert r.exit_code == 0 and len(trained) == 1


def test_a_lock_left_by_a_killed_run_does_not_make_the_folder_foreign(
        alg: Path, tmp_path: Path, trained: list) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / ".algspec-lock").write_text("12345\n")  # its holder died: the lock is free
    assert invoke("train", alg, *TINY, "--steps", 20, "--out", out).exit_code == 0
    assert trained and trained[0][1] == out


def test_a_folder_another_process_holds_is_refused(alg: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    held = acquire(out, inside=True)  # a second open file: flock treats it as another holder
    try:
        r = invoke("train", alg, *TINY, "--steps", 20, "--out", out)
    finally:
        held.release()
    assert r.exit_code == 2, (r.stderr, r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "another algspec process" in lines[0]
    assert not (out / "config.json").exists(), "nothing was written there"


def _grid(tmp_path: Path, alg: Path, seeds: list[int]) -> Path:
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": seeds,
        "variants": [{"name": "cu", "algorithm": str(alg)}],
        "train": {"steps": 2, "batch_size": 4, "train_sizes": [4], "val_size": 4,
                  "test_size": 5, "train_samples": 8, "val_samples": 8, "test_samples": 8}}))
    return grid


def test_a_second_grid_skips_the_runs_another_holds(alg: Path, tmp_path: Path) -> None:
    from algspec.training.experiment import load_grid, plan, run_grid

    grid = load_grid(_grid(tmp_path, alg, [0]))
    out = tmp_path / "out"
    (run,) = plan(grid, out)
    held = acquire(run.dir, inside=True)
    logs: list[str] = []
    try:
        report = run_grid(grid, out, progress=False, log=logs.append)
    finally:
        held.release()
    assert report["finished"] == 0 and not report["failures"]
    assert len(report["skipped"]) == 1 and "another algspec process" in report["skipped"][0]
    assert any(f"skipped {run.dir.name}" in line for line in logs), logs
    assert not (run.dir / "config.json").exists(), "not trained a second time"


def test_a_worker_skips_a_run_another_process_holds(alg: Path, tmp_path: Path) -> None:
    """`--jobs N`: the worker of a held run says `busy` and exits EXIT_RUN_BUSY; the grid
    reports it skipped, and does not retry it."""
    from algspec.training.experiment import load_grid, plan
    from algspec.training.launch import run_local

    grid = load_grid(_grid(tmp_path, alg, [0, 1]))
    runs = plan(grid, tmp_path / "out")
    held = [acquire(r.dir, inside=True) for r in runs]
    logs: list[str] = []
    try:
        outcomes = run_local(runs, 2, logs.append, retries=2)
    finally:
        for h in held:
            h.release()
    assert all(o.busy and not o.ok and o.attempts == 1 for o in outcomes), outcomes
    assert not any("retrying" in line for line in logs), logs
    assert sum("skipped" in line for line in logs) == 2



def test_overwrite_replaces_runs_only_not_a_foreign_config(
        alg: Path, tmp_path: Path, trained: list) -> None:
    """`--overwrite` on a folder whose config.json is no run's (a home folder, a project)
    is refused: it would replace that file with the run's."""
    out = tmp_path / "project"
    out.mkdir()
    (out / "config.json").write_text('{"editor": "vim"}')
    (out / "notes.txt").write_text("mine")
    r = invoke("train", alg, *TINY, "--steps", 2, "--out", out, "--overwrite")
    assert r.exit_code == 2 and not trained
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a run's configuration" in lines[0], r.stderr
    assert (out / "config.json").read_text() == '{"editor": "vim"}'
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "notes.txt"]


def test_a_grid_skipping_a_held_run_counts_it_as_skipped_not_failed(
        alg: Path, tmp_path: Path) -> None:
    from algspec.training.experiment import load_grid, plan, run_grid

    grid = load_grid(_grid(tmp_path, alg, [0]))
    (run,) = plan(grid, tmp_path / "out")
    held = acquire(run.dir, inside=True)
    logs: list[str] = []
    try:
        run_grid(grid, tmp_path / "out", progress=False, log=logs.append)
    finally:
        held.release()
    line = next(x for x in logs if f"skipped {run.dir.name}" in x)
    assert "0 failed, 1 skipped" in line, line


def test_a_grid_stopped_after_its_last_run_says_only_the_report_is_left(
        alg: Path, tmp_path: Path) -> None:
    from algspec.cli.training import _grid_stopped
    from algspec.training.experiment import load_grid, plan

    grid = load_grid(_grid(tmp_path, alg, [0]))
    (run,) = plan(grid, tmp_path / "out")
    run.dir.mkdir(parents=True)
    (run.dir / "result.json").write_text(json.dumps(
        {"val": {"score": 1.0}, "test": {"score": 1.0}}))
    line = _grid_stopped(grid, [run], "algspec experiment grid.yaml")
    assert "all 1 runs are done" in line and "report" in line, line
    assert "step 0" not in line and "left" not in line, line
