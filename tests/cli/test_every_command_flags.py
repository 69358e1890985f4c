"""Flags every command shares: `--no-progress` (accepted by all, so a script can pass it
anywhere), `-h` beside `--help`, `algspec --version`; and `convert` taking the other form
of its file by default."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from algspec.cli import app
from algspec.version import __version__
from tests.support.small_programs import FIRST_ABOVE

COMMANDS = sorted(typer.main.get_command(app).commands)

PROGRAM = FIRST_ABOVE.replace("first_above", "flip")


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_the_command_list_is_complete() -> None:
    assert {"lint", "compile", "sample", "demo", "convert", "explain", "efficiency", "text",
            "train", "eval", "experiment"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_accepts_no_progress(command: str) -> None:
    params = typer.main.get_command(app).commands[command].params
    assert any("--no-progress" in p.secondary_opts for p in params), command
    r = invoke(command, "--no-progress", "--help")  # parsed before the help is shown
    assert r.exit_code == 0, r.output
    assert "--no-progress" in r.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_h_for_help(command: str) -> None:
    r = invoke(command, "-h")
    assert r.exit_code == 0 and r.stdout.split()[:3][2:] == [command], r.output
    assert r.stdout.startswith("Usage: ")


def test_no_progress_runs_a_command_that_shows_none(tmp_path: Path) -> None:
    alg = tmp_path / "flip.alg"
    alg.write_text(PROGRAM)
    for args in (["lint", alg, "--no-sample"], ["compile", alg, "--samples", "1"],
                 ["efficiency", alg, "--static"], ["explain", "E401"]):
        r = invoke(*args, "--no-progress")
        assert r.exit_code == 0, (args, r.output)


def test_version_and_short_help() -> None:
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"algspec {__version__}"
    r = invoke("-h")
    assert r.exit_code == 0 and "--version" in r.stdout and "Commands" in r.stdout


def test_convert_takes_the_other_form_of_its_file(tmp_path: Path) -> None:
    alg = tmp_path / "flip.alg"
    alg.write_text(PROGRAM)
    assert invoke("convert", alg).exit_code == 0
    yaml_file = tmp_path / "flip.yaml"
    assert yaml_file.is_file()
    alg.unlink()
    r = invoke("convert", yaml_file)  # no --to: a .yaml file converts to .alg
    assert r.exit_code == 0, r.output
    assert alg.read_text().startswith("algorithm flip")


def test_convert_to_its_own_form_suggests_the_other(tmp_path: Path) -> None:
    alg = tmp_path / "flip.alg"
    alg.write_text(PROGRAM)
    invoke("convert", alg)
    r = invoke("convert", tmp_path / "flip.yaml", "--to", "yaml")
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--to alg" in lines[0]


@pytest.mark.parametrize("command", ["sample", "text", "compile"])
def test_file_help_says_yaml_works(command: str) -> None:
    r = invoke(command, "--help")
    assert "The .alg file, or its .yaml form." in " ".join(r.stdout.split())
