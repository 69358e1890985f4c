"""Lint and compile run small instances of a file within a time limit
(`interp.deadline.time_limit`): a loop or a recursion that would run for days at small n
stops with R116 at that loop, saying how many trips it had run, instead of hanging the
command. Runs outside a limit are untouched."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

import algspec
from algspec.diagnostics import RuntimeFault
from algspec.interp.deadline import PastTimeLimit, time_limit

HEAD = "algorithm t\nnodes n\ngraph complete\nstate graph x: int = 0\n" \
       "output graph y: scalar = float(x)\n"
LOOPS = {
    "for": (HEAD + "for k in 0 .. 10 ** 12 { x += 1 }\n", 6, "`for` loop"),
    "while": (HEAD + "while x >= 0 bound 10 ** 15 { x += 1 }\n", 6, "`while` loop"),
    "nested": (HEAD + "for i in 0 .. n {\n  for k in 0 .. 10 ** 12 { x += 1 }\n}\n", 7,
               "`for` loop"),
    "recursion": (HEAD + "proc f(k) depth 64 calls 2 ** 62 { if k > 0 { x += 1; f(k - 1); "
                  "f(k - 1) } }\n"
                  "f(60)\n", 6, "recursive call"),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_run_stops_at_its_time_limit_at_the_loop_it_was_in(name: str) -> None:
    src, line, kind = LOOPS[name]
    alg = algspec.load_source(src, "t.alg")
    start = time.perf_counter()
    with pytest.raises(PastTimeLimit) as e, time_limit(0.3):
        alg.sample(4, 2, 0)
    assert time.perf_counter() - start < 5
    d = e.value.diagnostic
    assert (d.code, d.path, d.span.line) == ("R116", "t.alg", line)
    assert f"passed its time limit of 0.3 s in this {kind}" in d.message
    assert isinstance(e.value, RuntimeFault) and "(sample" not in d.message


def test_runs_outside_a_limit_and_after_it_are_untouched() -> None:
    alg = algspec.load_source(HEAD + "for k in 0 .. 50 { x += 1 }\n", "t.alg")
    with time_limit(0.0001):
        time.sleep(0.01)  # the limit passes inside the block, with no run to stop
    out, _ = alg.trace(n=3)  # the limit above has passed, but it no longer applies
    assert out == 50.0
    with time_limit(60):
        assert alg.trace(n=3)[0] == 50.0


def test_lint_reports_a_runaway_loop_as_r116_and_goes_on(tmp_path, monkeypatch) -> None:
    from algspec import lint
    from algspec.lint import lint_files

    monkeypatch.setattr(lint, "RUN_TIME_LIMIT", 0.5)
    monkeypatch.setenv("ALGSPEC_NO_CACHE", "1")
    runaway, fine = tmp_path / "runaway.alg", tmp_path / "fine.alg"
    runaway.write_text(LOOPS["for"][0])
    fine.write_text(HEAD + "x = n\n")
    found, _ = lint_files([str(runaway), str(fine)], jobs=1)
    assert ("R116", 6) in [(d.code, d.span.line) for d in found if d.path == str(runaway)]
    assert not [d for d in found if d.path == str(fine) and d.code == "R116"]


def test_compile_of_a_runaway_loop_is_one_diagnostic_not_a_hang(tmp_path, monkeypatch) -> None:
    from algspec import cli

    monkeypatch.setattr(cli, "COMPILE_RUN_LIMIT", 0.5)
    path = tmp_path / "runaway.alg"
    path.write_text(LOOPS["while"][0])
    result = CliRunner().invoke(cli.app, ["compile", str(path)])
    assert result.exit_code == 1
    assert f"{path}:6:1: R116 the run at n = 16 passed its time limit of 0.5 s" in result.output
