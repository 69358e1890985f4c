"""Grid launching and report text: `--jobs` caps Ray's runs in flight (1 included), a
one-seed report shows no "± 0.0", and `--report-only` keeps a results.json whose values
the runs still give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from algspec.cli import app
from algspec.training import launch
from algspec.training.experiment import load_grid, run_grid, write_report
from tests.training.test_experiment import FakeTrain


def _grid(tmp_path: Path, seeds: list[int]) -> Path:
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": seeds,
        "tasks": [{"name": "Searching", "sequential": "binary_search",
                   "parallel": "minimum"}],
        "train": {"steps": 2, "batch_size": 4, "train_sizes": [5], "val_size": 5,
                  "test_size": 6, "train_samples": 8, "val_samples": 8, "test_samples": 8,
                  "eval_batch_size": 8, "eval_every": 1}}))
    return path


@pytest.fixture
def ray_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """`launch.run_ray` replaced by a recorder: no Ray is started."""
    calls: list[dict[str, Any]] = []

    def fake_run_ray(todo: list, log: Any, **kwargs: Any) -> list:
        calls.append(kwargs)
        return []

    monkeypatch.setattr(launch, "run_ray", fake_run_ray)
    return calls


@pytest.mark.parametrize(("jobs", "passed"), [(["--jobs", "1"], 1), (["--jobs", "3"], 3),
                                              ([], None)])
def test_ray_gets_the_jobs_cap_the_command_gives(tmp_path: Path, ray_calls: list,
                                                 jobs: list[str], passed: int | None) -> None:
    r = CliRunner().invoke(app, ["experiment", str(_grid(tmp_path, [0])), "-o",
                                 str(tmp_path / "out"), "--launcher", "ray", *jobs])
    assert r.exit_code == 0, r.output
    assert [c["jobs"] for c in ray_calls] == [passed]
    cap = f"ray, {passed} at a time" if passed else "as many at a time as the cluster allows"
    assert cap in r.stderr


def test_run_grid_passes_jobs_one_to_ray(tmp_path: Path, ray_calls: list) -> None:
    run_grid(load_grid(_grid(tmp_path, [0])), tmp_path / "out", launcher="ray", jobs=1,
             log=lambda s: None)
    assert ray_calls[0]["jobs"] == 1


def test_one_seed_report_shows_no_spread(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, [0]))
    run_grid(grid, tmp_path / "out", train_fn=FakeTrain(), log=lambda s: None)
    text = (tmp_path / "out" / "results.md").read_text()
    assert "± 0.0" not in text and "90.0%" in text and "one seed (0)" in text


def test_several_seeds_report_their_spread(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, [0, 1]))
    run_grid(grid, tmp_path / "out", train_fn=FakeTrain(), log=lambda s: None)
    assert "90.5% ± 0.7" in (tmp_path / "out" / "results.md").read_text()


def test_report_only_keeps_a_record_whose_values_still_hold(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, [0]))
    out = tmp_path / "out"
    run_grid(grid, out, train_fn=FakeTrain(), log=lambda s: None)
    record = json.loads((out / "results.json").read_text())
    del record["efficiency"]  # as written before that section existed
    for cell in record["table"]["8"]["mpnn"].values():
        cell.pop("metric", None)
    older = json.dumps(record, indent=1) + "\n"  # another layout, too
    (out / "results.json").write_text(older)
    (out / "results.md").write_text("old\n")
    r = CliRunner().invoke(app, ["experiment", str(grid.path), "-o", str(out),
                                 "--report-only"])
    assert r.exit_code == 0, r.output
    assert (out / "results.json").read_text() == older
    assert (out / "results.md").read_text() != "old\n"

    record["table"]["8"]["mpnn"]["Searching/parallel"]["mean"] = 0.1  # a value the runs deny
    (out / "results.json").write_text(json.dumps(record))
    write_report(grid, out, keep_record=True)
    fresh = json.loads((out / "results.json").read_text())
    assert fresh["table"]["8"]["mpnn"]["Searching/parallel"]["mean"] == pytest.approx(0.9)
    assert "efficiency" in fresh
