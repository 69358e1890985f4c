"""The concise format keeps the help: `path:line:col: CODE message`, then `  help: ...`.

Every command that prints diagnostics concisely (lint, compile, sample, efficiency,
train's checks, run-time faults) prints the indented help line after the first
line, which stays as it was; `--output-format json` and `full` are unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from algspec import cli
from algspec.diagnostics import AlgError, Diagnostic, RuntimeFault, Span, render

ROOT = Path(__file__).resolve().parents[2]
SEARCH = ROOT / "algorithms" / "parallel_search.alg"
runner = CliRunner()
WRAPPED = ("algorithm t\nnodes n\ngraph complete\nstate graph a: int = 0\n"
           "while a < 3 and\n    a > 0 bound n {\n  a += 1\n}\nrecord\n")


def invoke(*args: object):
    return runner.invoke(cli.app, [str(a) for a in args])


@pytest.fixture
def wrapped(tmp_path: Path) -> Path:
    p = tmp_path / "wrapped.alg"
    p.write_text(WRAPPED)
    return p


def assert_two_lines(text: str, path: Path) -> None:
    lines = text.strip().splitlines()
    assert lines[0] == (f"{path}:5:16: E002 unexpected 'newline': the `while` condition "
                        "continues on the next line"), text
    assert lines[1].startswith("  help: a newline ends a statement") and "parentheses" in lines[1]


def test_lint_prints_the_help_under_the_first_line(wrapped: Path) -> None:
    r = invoke("lint", wrapped)
    assert r.exit_code == 1
    assert_two_lines(r.stdout, wrapped)


@pytest.mark.parametrize("args", [["compile"], ["sample", "--out", "{tmp}/o"],
                                  ["efficiency", "--static"], ["train", "--out", "{tmp}/run"]])
def test_commands_that_load_a_file_print_the_help(wrapped: Path, args: list[str]) -> None:
    argv = [args[0], wrapped, *[a.format(tmp=wrapped.parent) for a in args[1:]]]
    r = invoke(*argv)
    assert r.exit_code == 1, r.output
    assert_two_lines(r.stderr, wrapped)
    assert not (wrapped.parent / "o").exists() and not (wrapped.parent / "run").exists()


def test_json_and_full_are_unchanged(wrapped: Path) -> None:
    r = invoke("lint", "--output-format", "json", wrapped)
    (d,) = json.loads(r.stdout)
    assert d["code"] == "E002" and d["help"].startswith("a newline ends a statement")
    assert set(d) == {"code", "severity", "message", "span", "help", "path"}
    r = invoke("lint", "--output-format", "full", wrapped)
    lines = r.stdout.strip().splitlines()
    assert lines[0] == ("error[E002]: unexpected 'newline': the `while` condition continues on "
                        "the next line")
    assert lines[1] == f"  --> {wrapped}:5:16"
    assert lines[-1].startswith("   = help: a newline ends a statement")
    assert not any(x.startswith("  help:") for x in lines)


def test_a_diagnostic_without_help_is_one_line() -> None:
    d = Diagnostic(code="E206", message="unknown name `y`", span=Span(line=5, column=5),
                   path="f.alg")
    assert d.concise_block() == d.concise() == "f.alg:5:5: E206 unknown name `y`"
    assert render([d, d], "concise").splitlines() == [d.concise()] * 2


def test_multi_line_help_is_indented_under_help() -> None:
    d = Diagnostic(code="E206", message="unknown name `y`", help="first\nsecond", path="f.alg")
    assert d.concise_block().splitlines()[1:] == ["  help: first", "        second"]
    assert str(AlgError([d])) == d.concise_block()


def _fault() -> RuntimeFault:
    f = RuntimeFault("R101", "index 9 out of range", Span(line=6, column=3), 2, path="f.alg")
    f.diagnostic.help = "check the index"
    return f


def _raise_fault(*args, **kwargs):
    raise _fault()


FAULT_LINES = ["f.alg:6:3: R101 index 9 out of range (sample 2)", "  help: check the index"]


def test_run_time_faults_in_compile_sample_and_efficiency(monkeypatch, tmp_path: Path) -> None:
    import algspec.cli.efficiency
    import algspec.sampling.dataset

    monkeypatch.setattr(cli, "_length_summary", _raise_fault)
    monkeypatch.setattr(algspec.sampling.dataset, "export", _raise_fault)
    monkeypatch.setattr(algspec.cli.efficiency, "_run", _raise_fault)
    for args in (["compile", SEARCH], ["sample", SEARCH, "--out", tmp_path / "o"],
                 ["efficiency", SEARCH]):
        r = invoke(*args)
        assert r.exit_code == 1, (args, r.output)
        assert r.stderr.strip().splitlines() == FAULT_LINES, args


def test_a_fault_that_reaches_main(monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "app", _raise_fault)
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 1
    assert capsys.readouterr().err.strip().splitlines() == FAULT_LINES
