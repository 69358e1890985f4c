"""`algspec efficiency`: output, Table 1, JSON, plot, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from algspec.cli.efficiency import parse_sizes, print_static, register

ALGS = Path(__file__).resolve().parents[2] / "algorithms"
SIX = ["binary_search", "parallel_search", "bubble_sort", "oets", "kosaraju", "dcsc"]


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.command("other")
    def other() -> None:  # a second command keeps `efficiency` a subcommand
        pass

    return app


def run(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, ["efficiency", *args])


def test_static_table_is_table_1(app: typer.Typer) -> None:
    # files in any order; the table follows the paper's column order
    files = [str(ALGS / f"{n}.alg") for n in reversed(SIX)]
    r = run(app, *files, "--static", "--table")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[0].split("|")[2].strip() == "binary_search"
    assert lines[2] == "| c | n log n | n | n^3 | n^2 | nm | n^3 |"   # n(n+m) = nm as n <= m
    assert lines[3] == "| η | 1/n | 1 | 1/n | 1 | 1/n | 1/n |"
    assert lines[4] == "| ε | 1/n^2 | 1 | 1/n^2 | 1/n | 1/m | 1/m |"


def test_measured_table_puts_values_beside_classes(app: typer.Typer) -> None:
    files = [str(ALGS / f"{n}.alg") for n in ("binary_search", "oets")]
    r = run(app, *files, "--table", "--samples", "2", "--sizes", "16,32,64")
    assert r.exit_code == 0, r.output
    assert "n = 64" in r.output.splitlines()[0]
    # binary search at n = 64: T = 7 frames, c = 448
    assert "| c | n log n (448) | n^2 (" in r.output


def test_text_report_with_fits(app: typer.Typer) -> None:
    r = run(app, str(ALGS / "binary_search.alg"), "--sizes", "8,16,32", "--samples", "2")
    assert r.exit_code == 0, r.output
    assert "capacity c = n log n" in r.output
    assert "growth exponents" in r.output and "agrees" in r.output


def test_json_output(app: typer.Typer) -> None:
    r = run(app, str(ALGS / "parallel_search.alg"), "--sizes", "4,8", "--samples", "2",
            "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data[0]["static"]["c"] == "n"
    assert [s["n"] for s in data[0]["sizes"]] == [4, 8]
    assert data[0]["fits"]["eta"]["verdict"] == "agrees"


def test_plot_writes_png(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "eff.png"
    r = run(app, str(ALGS / "oets.alg"), "--sizes", "4,8", "--samples", "2", "--plot",
            str(out))
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--sizes", "8,x"], "--sizes"),
    (["--sizes", "8"], "at least two"),
    (["--sizes", "1,8"], "at least 2"),
    (["--samples", "0"], "--samples"),
    (["--param", "nonsense"], "key=value"),
    (["--param", "zzz=1"], "zzz"),
])
def test_bad_arguments_exit_2_in_one_line(app: typer.Typer, args: list[str],
                                          message: str) -> None:
    r = run(app, str(ALGS / "binary_search.alg"), *args)
    assert r.exit_code == 2
    assert message in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_missing_and_malformed_files(app: typer.Typer, tmp_path: Path) -> None:
    r = run(app, str(tmp_path / "nope.alg"))
    assert r.exit_code == 2 and "no such file" in r.output
    bad = tmp_path / "bad.alg"
    bad.write_text("algorithm bad\nnodes n\ngraph complete\nrecord\nwhile true bound {\n}\n")
    r = run(app, str(bad), "--static")
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert re.match(r"\S*bad\.alg:5:\d+: E\d{3} ", r.output), r.output


def test_parse_sizes_sorts_and_dedups() -> None:
    assert parse_sizes("32, 8,16,8") == [8, 16, 32]


def test_print_static(capsys: pytest.CaptureFixture[str]) -> None:
    import algspec
    text = print_static(algspec.load(ALGS / "kosaraju.alg"))
    assert "capacity c = nm" in capsys.readouterr().out
    assert "edge efficiency epsilon = 1/m" in text


def test_range_shows_both_ends_of_each_class(app: typer.Typer) -> None:
    # docs/efficiency.md, the worst case: tables print the fewest end; `--range` adds the
    # most, `--json` always carries both under "range".
    r = run(app, str(ALGS / "dcsc.alg"), "--static", "--range")
    assert r.exit_code == 0, r.output
    assert "node efficiency eta = 1/n" in r.output                 # the worst case, as before
    assert "range (fewest .. most):" in r.output and "eta = 1/n .. 1" in r.output
    r = run(app, str(ALGS / "dcsc.alg"), "--static", "--json")
    data = json.loads(r.output)["dcsc"]
    assert data["eta"] == "1/n" and data["range"]["eta"] == {"fewest": "1/n", "most": "1"}
    r = run(app, str(ALGS / "dcsc.alg"), str(ALGS / "oets.alg"), "--static", "--table",
            "--range")
    assert "| 1/n .. 1 |" in r.output and "| 1 |" in r.output     # dcsc's range, oets' one
    r = run(app, str(ALGS / "parallel_search.alg"), "--sizes", "4,8", "--samples", "2",
            "--range")
    assert r.exit_code == 0, r.output
    assert "against both ends" in r.output and "vs most" in r.output
    r = run(app, str(ALGS / "parallel_search.alg"), "--sizes", "4,8", "--samples", "2",
            "--json")
    assert set(json.loads(r.output)[0]["range"]) == {"work", "active_edges", "eta",
                                                     "epsilon"}
