"""Experiment grids: parsing, resuming after a kill, the Table-2 report, shipped grids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from algspec.training.commands import register
from algspec.training.config import TrainConfig
from algspec.training.experiment import GridError, load_grid, plan, run_grid

ROOT = Path(__file__).resolve().parents[1]


def write_grid(tmp_path: Path, **over: Any) -> Path:
    grid = {
        "name": "g",
        "tasks": [
            {"name": "Searching", "sequential": "binary_search", "parallel": "minimum"},
            {"name": "Sorting", "sequential": "bubble_sort", "parallel": "insertion_sort"},
        ],
        "processors": ["mpnn", "pgn"],
        "hidden": [8],
        "seeds": [0, 1],
        "train": {"steps": 2, "batch_size": 4, "train_sizes": [5], "val_size": 5,
                  "test_size": 6, "train_samples": 8, "val_samples": 8, "test_samples": 8,
                  "eval_batch_size": 8, "eval_every": 1},
    }
    grid.update(over)
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(grid))
    return path


class FakeTrain:
    """Stands in for `trainer.train`: writes a run folder instantly, records calls.

    The score is a function of the run so that the report's arithmetic can be
    checked; `die_at` raises KeyboardInterrupt in that call after writing a
    partial folder (no result.json), as a kill mid-run would leave it.
    """

    def __init__(self, die_at: int | None = None) -> None:
        self.calls: list[str] = []
        self.die_at = die_at

    def __call__(self, config: TrainConfig, out: Path, progress: bool = True) -> dict:
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        (out / "metrics.jsonl").write_text(
            "".join(json.dumps({"step": s, "loss": 1.0 / (s + 1), "val_score": s / 2})
                    + "\n" for s in (0, 1, 2)))
        self.calls.append(out.name)
        if self.die_at is not None and len(self.calls) == self.die_at:
            raise KeyboardInterrupt
        par = config.algorithm in ("minimum", "insertion_sort")
        score = (0.9 if par else 0.5) + 0.01 * config.seed
        res = {"algorithm": config.algorithm, "processor": config.processor,
               "hidden": config.hidden, "seed": config.seed, "steps": config.steps,
               "device": "fake", "train_seconds": 1.0, "seconds_per_step": 0.1,
               "seconds_per_step_by_size": {"5": 0.1 if par else 0.3},
               "val": {"score": score, "per_output": {}},
               "test": {"score": score, "per_output": {}, "size": 6}}
        (out / "result.json").write_text(json.dumps(res))
        return res


def test_load_grid_resolves_paths_against_the_grid_file(tmp_path: Path) -> None:
    path = write_grid(tmp_path, tasks=[{"name": "T", "sequential": "../algs/a.alg",
                                        "parallel": "bubble_sort"}])
    grid = load_grid(path)
    assert Path(grid.tasks[0].sequential).resolve() == (tmp_path.parent / "algs" / "a.alg")
    assert grid.tasks[0].parallel == "bubble_sort"
    runs = plan(grid, tmp_path / "out")
    assert len(runs) == 1 * 2 * 2 * 1 * 2  # tasks x roles x processors x hidden x seeds
    assert {r.dir.name for r in runs} >= {"a_mpnn_h8_s0", "bubble_sort_pgn_h8_s1"}


@pytest.mark.parametrize(("over", "message"), [
    ({"processors": ["mpnn", "nope"]}, "unknown processor 'nope'"),
    ({"train": {"stepz": 3}}, "stepz"),
    ({"train": {"hidden": 3}}, "hidden"),
    ({"tasks": [{"name": "x", "sequential": "bubble_sort"}]}, "parallel"),
    ({"colour": "blue"}, "colour"),
])
def test_bad_grids_are_rejected(tmp_path: Path, over: dict, message: str) -> None:
    with pytest.raises(GridError, match=message):
        load_grid(write_grid(tmp_path, **over))


def test_resume_after_kill_redoes_only_unfinished_runs(tmp_path: Path) -> None:
    grid = load_grid(write_grid(tmp_path))
    out = tmp_path / "out"
    names = [r.dir.name for r in plan(grid, out)]
    assert len(names) == 16  # 2 tasks x 2 roles x 2 processors x 2 seeds

    killed = FakeTrain(die_at=3)
    with pytest.raises(KeyboardInterrupt):
        run_grid(grid, out, train_fn=killed, log=lambda s: None)
    assert killed.calls == names[:3]
    assert not (out / "runs" / names[2] / "result.json").exists()

    resumed = FakeTrain()
    report = run_grid(grid, out, train_fn=resumed, log=lambda s: None)
    assert resumed.calls == names[2:], "finished runs are skipped, the killed one redone"
    assert report["finished"] == report["total"] == 16

    (out / "runs" / names[5] / "result.json").unlink()
    again = FakeTrain()
    run_grid(grid, out, train_fn=again, log=lambda s: None)
    assert again.calls == [names[5]]


def test_changed_options_do_not_silently_reuse_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_grid(load_grid(write_grid(tmp_path)), out, train_fn=FakeTrain(), log=lambda s: None)
    changed = write_grid(tmp_path, train={"steps": 5, "batch_size": 4, "train_sizes": [5],
                                          "train_samples": 8})
    with pytest.raises(GridError, match="steps"):
        run_grid(load_grid(changed), out, train_fn=FakeTrain(), log=lambda s: None)


def test_report_has_table2_layout_and_figures(tmp_path: Path) -> None:
    grid = load_grid(write_grid(tmp_path))
    out = tmp_path / "out"
    report = run_grid(grid, out, train_fn=FakeTrain(), log=lambda s: None)
    md = (out / "results.md").read_text()
    assert "| Arch. | Searching seq. | Searching par. | Sorting seq. | Sorting par. |" in md
    # seeds 0, 1: sequential 0.50, 0.51 -> 50.5% ± 0.7; parallel 90.5% ± 0.7, in bold
    row = next(line for line in md.splitlines() if line.startswith("| mpnn |"))
    assert row.count("50.5% ± 0.7") == 2 and row.count("**90.5% ± 0.7**") == 2
    cell = report["table"]["8"]["pgn"]["Sorting/parallel"]
    assert cell["n"] == 2 and cell["mean"] == pytest.approx(0.905)
    assert report["time_ratio"]["8"]["Sorting"]["mpnn"] == pytest.approx(3.0)
    for name in report["figures"].values():
        assert (out / name).stat().st_size > 0
    assert {"time_ratio_h8", "curves_searching_h8", "curves_sorting_h8"} <= set(report["figures"])
    saved = json.loads((out / "results.json").read_text())
    assert saved["finished"] == 16 and len(saved["runs"]) == 16


def test_real_grid_then_resume(tmp_path: Path) -> None:
    """A real (tiny) grid through the CLI; deleting a result redoes just that run."""
    grid_path = write_grid(tmp_path, tasks=[{"name": "Searching", "sequential": "binary_search",
                                             "parallel": "minimum"}],
                           processors=["mpnn"], seeds=[0])
    app = typer.Typer()
    register(app)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "2/2 runs finished" in r.stdout
    runs = sorted((out / "runs").iterdir())
    first = json.loads((runs[0] / "result.json").read_text())
    stamp = (runs[1] / "result.json").stat().st_mtime_ns
    (runs[0] / "result.json").unlink()
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0, r.stderr
    assert "1 done, 1 to go" in r.stderr
    assert (runs[1] / "result.json").stat().st_mtime_ns == stamp, "finished run not redone"
    redone = json.loads((runs[0] / "result.json").read_text())
    assert redone["test"] == first["test"], "same seed, same numbers"
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out), "--dry-run"])
    assert r.stdout.count("done") == 2


@pytest.mark.parametrize("name", ["paper.yaml", "cpu-small.yaml"])
def test_shipped_grids_parse(name: str) -> None:
    grid = load_grid(ROOT / "experiments" / name)
    stems = {Path(s).stem for t in grid.tasks for s in (t.sequential, t.parallel)}
    assert stems == {"binary_search", "parallel_search", "bubble_sort", "oets", "kosaraju", "dcsc"}
    assert [t.name for t in grid.tasks] == ["Searching", "Sorting", "SCC"]
    for t in grid.tasks:
        assert Path(t.sequential).resolve().parent == ROOT / "algorithms"
    if name == "paper.yaml":
        assert grid.processors == ["deepsets", "gat", "mpnn", "pgn"]
        assert sorted(grid.hidden) == [8, 32, 128] and len(grid.seeds) == 3
        cfg = plan(grid, Path("/tmp/x"))[0].config
        assert (cfg.steps, cfg.batch_size, cfg.train_sizes, cfg.val_size, cfg.test_size) == (
            2000, 32, (4, 7, 11, 13, 16), 16, 64)
