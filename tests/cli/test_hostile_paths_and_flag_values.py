"""Paths and flag values no command can use give one `error:` line and exit 2, never an
internal error or a hang: a name longer than the system allows (ENAMETOOLONG from a
`stat`), a grid file that is a FIFO (reading it would block), `--jobs` beyond what one
machine can start as processes, `--hidden` beyond what the initialisers compute with."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
SEARCH = ROOT / "algorithms" / "parallel_search.alg"
runner = CliRunner()


def one_error_line(args: list[str], *fragments: str) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "internal error" not in r.output
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.mark.parametrize("command", [
    ["sample", str(SEARCH), "-n", "4", "-k", "2", "--out", "{long}"],
    ["text", str(SEARCH), "-n", "4", "-k", "2", "--out", "{long}"],
    ["convert", str(SEARCH), "--out", "{long}.yaml"],
    ["compile", "{long}.alg"],
    ["lint", "{long}.alg"],
    ["sample", "{long}.alg", "-n", "4", "-k", "2", "--out", "{tmp}/out"],
])
def test_a_name_longer_than_the_system_allows_is_one_line(tmp_path: Path, command) -> None:
    long = str(tmp_path / ("x" * 300))
    args = [a.format(long=long, tmp=tmp_path) for a in command]
    one_error_line(args, "too long")
    assert os.listdir(tmp_path) == []


def test_a_grid_file_that_is_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "grid.yaml"
    os.mkfifo(fifo)
    one_error_line(["experiment", str(fifo), "--dry-run"], "not a regular file")


@pytest.mark.parametrize("jobs", ["99999999999999999999", "100000"])
def test_more_local_jobs_than_the_machine_can_run_is_one_line(tmp_path: Path, jobs) -> None:
    one_error_line(["sample", str(SEARCH), "-n", "4", "-k", "2", "--jobs", jobs,
                    "--out", str(tmp_path / "out")], f"--jobs {jobs}", "CPUs")
    assert not (tmp_path / "out").exists()


def test_more_jobs_than_samples_draws_the_same_set(tmp_path: Path) -> None:
    for jobs, out in (("1", "one"), ("5", "five")):
        r = runner.invoke(app, ["sample", str(SEARCH), "-n", "4", "-k", "2", "--jobs", jobs,
                                "--out", str(tmp_path / out), "--no-progress"])
        assert r.exit_code == 0, r.output
    assert (tmp_path / "one" / "samples.npz").read_bytes() == \
        (tmp_path / "five" / "samples.npz").read_bytes()


def test_a_hidden_size_beyond_the_initialisers_is_one_line(tmp_path: Path) -> None:
    one_error_line(["train", str(SEARCH), "--hidden", "99999999999999999999",
                    "--out", str(tmp_path / "run")], "--hidden must be at most")
