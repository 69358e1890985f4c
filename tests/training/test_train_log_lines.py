"""`train` off a terminal (a log file, a pipe) writes a plain line per validation, so a
long run is not silent until its last line; `--no-progress` keeps it quiet."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from algspec.cli import app
from tests.support.small_programs import FIRST_ABOVE

TINY = ["--hidden", "4", "--steps", "3", "--eval-every", "2", "--batch-size", "2",
        "--train-sizes", "4", "--val-size", "4", "--test-size", "4", "--train-samples", "2",
        "--val-samples", "2", "--test-samples", "2"]


@pytest.fixture
def alg(tmp_path: Path) -> Path:
    path = tmp_path / "first_above.alg"
    path.write_text(FIRST_ABOVE)
    return path


def test_piped_train_prints_a_line_per_validation(tmp_path: Path, alg: Path) -> None:
    # CliRunner's stderr is not a terminal, as a pipe or a log file is not
    r = CliRunner().invoke(app, ["train", str(alg), *TINY, "--out", str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stderr.splitlines() if x.startswith("first_above/mpnn: step ")]
    # validation at step 0, every 2 steps, and at the last step: steps 1 and 3 of 3
    assert [x.split(",")[0] for x in lines] == ["first_above/mpnn: step 1/3",
                                                "first_above/mpnn: step 3/3"], r.stderr
    assert all("val micro-F1" in x and "loss" in x and "\r" not in x for x in lines)
    assert "(best)" in lines[0]


def test_no_progress_keeps_piped_train_quiet(tmp_path: Path, alg: Path, monkeypatch) -> None:
    seen = {}

    def fake_train(config, out, **kwargs):
        seen.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr("algspec.training.trainer.train", fake_train)
    CliRunner().invoke(app, ["train", str(alg), *TINY, "--no-progress",
                             "--out", str(tmp_path / "run")])
    assert seen["log_lines"] is False and seen["progress"] is False
