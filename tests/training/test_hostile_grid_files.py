"""A grid file with a mistake is one `error:` line (exit 2), or its .alg file's
diagnostics (exit 1), before any run starts and without a traceback.

Each value of a grid has a kind (a list of distinct integers, a string that names a
folder, a mapping of training options of their own kinds); a value of another kind is
named, never coerced (`hidden: [8.5]` is not 8, `steps: true` is not 1), an empty list
is not a grid without runs, and two runs never share a folder. An output folder that
holds another grid's report is refused rather than overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from algspec.cli.training import register
from tests.support.small_programs import PREFIX_MAX


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def _grid(tmp_path: Path, text: str | None = None, **over: Any) -> Path:
    """A grid of two tiny .alg files (written beside it), with `over` replacing keys."""
    for name in ("a.alg", "b.alg"):
        (tmp_path / name).write_text(PREFIX_MAX)
    grid: dict[str, Any] = {"name": "g", "tasks": [{"name": "T", "sequential": "a.alg",
                                                    "parallel": "b.alg"}],
                            "processors": ["mpnn"], "hidden": [8], "seeds": [0],
                            "train": {"steps": 2}}
    grid.update(over)
    path = tmp_path / "grid.yaml"
    path.write_text(text if text is not None else yaml.safe_dump(grid))
    return path


def _experiment(*args: str) -> Any:
    return CliRunner().invoke(_app(), ["experiment", *args, "--dry-run"])


def _one_error_line(result: Any, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.output
    for word in words:
        assert word in lines[0], result.output


@pytest.mark.parametrize(("over", "words"), [
    ({"tasks": 5}, ("tasks must be a list",)),
    ({"tasks": [{"name": "T", "sequential": "a.alg", "parallel": "b.alg", "x": 1}]},
     ("unknown: x",)),
    ({"tasks": [{"name": "T", "sequential": None, "parallel": "b.alg"}]}, ("None",)),
    ({"tasks": [{"name": "T", "sequential": "/etc/passwd", "parallel": "b.alg"}]},
     ("neither an algorithm file",)),
    ({"tasks": [{"name": "T", "sequential": "a.alg", "parallel": "a.alg"}]},
     ("both train into runs/a_mpnn_h8_s0",)),
    ({"variants": [{"name": "a", "algorithm": "a.alg"}]}, ("variant a", "task T")),
    ({"processors": []}, ("processors: empty",)),
    ({"seeds": []}, ("seeds: empty",)),
    ({"hidden": [8, 8]}, ("hidden: 8 given twice",)),
    ({"hidden": [8.5]}, ("hidden: expected int",)),
    ({"hidden": [True]}, ("hidden: expected int",)),
    ({"hidden": [10**20]}, ("hidden must be at most",)),
    ({"seeds": [2**32]}, ("seed must be at most",)),
    ({"name": "../../elsewhere"}, ("it names a folder",)),
    ({"name": ["a"]}, ("name: expected",)),
    ({"notes": {"a": 1}}, ("notes: expected a string",)),
    ({"reference": {"score": True}}, ("numeric score",)),
    ({"train": {"steps": 2.5}}, ("steps must be an integer",)),
    ({"train": {"steps": True}}, ("steps must be an integer",)),
    ({"train": {"train_sizes": 4}}, ("train_sizes must be a list of integers",)),
    ({"train": {"learning_rate": "fast"}}, ("learning_rate must be a number",)),
    ({"train": {"random_pos": "maybe"}}, ("random_pos must be true or false",)),
    ({"train": {"generator_params": 5}}, ("generator_params must be a mapping",)),
    ({"train": {"encoder_init": "zeros"}}, ("encoder_init must be one of",)),
    ({"train": {"grad_clip": -1}}, ("grad_clip",)),
    ({"train": {"nb_heads": 0}}, ("nb_heads must be at least 1",)),
    ({"variants": [{"name": "v", "algorithm": "a.alg", "processors": []}]},
     ("processors is empty",)),
])
def test_a_hostile_value_is_one_error_line(tmp_path: Path, over: dict, words: tuple) -> None:
    _one_error_line(_experiment(str(_grid(tmp_path, **over)), "-o", str(tmp_path / "o")),
                    "grid.yaml", *words)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("text", "words"), [
    ("", ("expected a mapping",)),
    ("- a\n- b\n", ("expected a mapping",)),
    ("name: a\nname: b\ntasks: []\n", ("grid.yaml:2:1", "'name' is given twice")),
    ("tasks: [\n", ("not valid YAML",)),
])
def test_a_file_that_is_not_a_grid_is_one_error_line(tmp_path: Path, text: str,
                                                     words: tuple) -> None:
    _one_error_line(_experiment(str(_grid(tmp_path, text)), "-o", str(tmp_path / "o")),
                    *words)


def test_a_binary_grid_file_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "grid.yaml"
    path.write_bytes(bytes(range(256)) * 2)
    _one_error_line(_experiment(str(path)), "not UTF-8")


def test_an_alg_file_with_an_error_is_its_diagnostics_before_any_run(tmp_path: Path) -> None:
    path = _grid(tmp_path)
    (tmp_path / "b.alg").write_text("algorithm broken\nnodes n\ninput node x: scalar ~ (\n")
    out = tmp_path / "o"
    for args in ([], ["--no-progress"]):  # listed (--dry-run) or trained
        r = CliRunner().invoke(_app(), ["experiment", str(path), "-o", str(out), *args])
        assert r.exit_code == 1, r.output
        assert "b.alg:3:" in r.output and " E0" in r.output, r.output
        assert "Traceback" not in r.output
        assert not out.exists(), "nothing is trained when a file does not compile"


def test_an_unknown_generator_parameter_is_refused_before_any_run(tmp_path: Path) -> None:
    path = _grid(tmp_path, train={"steps": 2, "generator_params": {"nope": 1}})
    r = CliRunner().invoke(_app(), ["experiment", str(path), "-o", str(tmp_path / "o")])
    _one_error_line(r, "nope")
    assert not (tmp_path / "o").exists()


def test_a_folder_holding_another_grids_report_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "o"
    (out / "runs").mkdir(parents=True)
    report = {"grid": "other", "finished": 1, "total": 1}
    (out / "results.json").write_text(json.dumps(report))
    path = _grid(tmp_path)
    for args in (["--dry-run"], ["--report-only"], []):
        r = CliRunner().invoke(_app(), ["experiment", str(path), "-o", str(out), *args])
        _one_error_line(r, "report of grid 'other'")
    assert json.loads((out / "results.json").read_text()) == report
    assert not any((out / "runs").iterdir()), "no run was trained"
