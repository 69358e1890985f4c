"""Loop bounds get the class of their value, or E605 at the expression, never a crash.

Each expected class is derived by hand in the comment beside it and checked against
the bound's actual value: value / class must stay within a constant factor from
n = 2^8 to n = 2^60 (a missing log log n factor moves it by 2x there).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import algspec
from algspec import ir
from algspec.cli import app
from algspec.diagnostics import AlgError
from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import Asymptotic
from algspec.efficiency.size_eval import size_class
from algspec.ir.size_values import EfficiencyError, eval_size

PREFIX = "while i < n and key[0] >= 0.0 bound "
TEMPLATE = ("algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
            "state graph i: int = 0\nrecord\n" + PREFIX + "BOUND {\n    i += 1\n    record\n}\n")


def _alg(bound: str, path: str = "t.alg"):
    return algspec.load_source(TEMPLATE.replace("BOUND", bound), path)


def _bound(alg) -> ir.Expr:
    return next(s.bound for s, _ in ir.walk_statements(alg.ir.body) if isinstance(s, ir.While))


@pytest.mark.parametrize("bound,cls", [
    ("2 ** ceil(log2(n))", "n"),                   # 2^ceil(log2 n) is n .. 2n
    ("1 << ceil(log2(n))", "n"),                   # the same power of two
    ("2 ** (2 * log2(n) + 1)", "n^2"),             # 2 n^2
    ("4 ** ceil(log2(n))", "n^2"),                 # (2^ceil(log2 n))^2
    ("2 ** log2(log2(n))", "log n"),               # 2^(log2 x) = x
    ("2 ** (log2(n) - log2(log2(n)))", "n/log n"),
    ("0.5 ** log2(n)", "1/n"),                     # 2^(-log2 n)
    ("2 ** log2(m)", "m"),
    ("log2(log2(n))", "log log n"),
    ("n * log2(log2(n))", "n log log n"),
    ("ceil(log2(n)) * floor(log2(log2(n)))", "log n log log n"),
    ("log2(log2(n)) ** 3", "(log log n)^3"),
    ("sqrt(log2(n))", "log^(1/2) n"),
    ("n ** 0.5", "n^(1/2)"),
    ("log2(n) ** 2", "log^2 n"),
    ("n // log2(n)", "n/log n"),                   # the divisor is Theta(log n), not 0
    ("n // log2(log2(n))", "n/log log n"),
    ("min(n, log2(n))", "log n"),
    ("max(n, log2(n))", "n"),
    ("n - log2(n)", "n"),                          # log2 n = o(n) cannot cancel n
    ("abs(0 - n)", "n"),                           # |-n| = n, not 0
    ("(0 - n) * (0 - n)", "n^2"),                  # (-n)(-n) = n^2, not 0
    ("(n - 1) ** 2", "n^2"),
    ("n >> ceil(log2(n))", "1"),                   # n / 2^ceil(log2 n) <= 1
    ("n >> (ceil(log2(n)) // 2)", "n^(1/2)"),      # n / 2^(log2(n) / 2)
    ("log2(m)", "log n"),                          # log m <= 2 log n
])
def test_bound_class_matches_its_value(bound: str, cls: str) -> None:
    e = _bound(_alg(bound))
    got = size_class(e)
    want = Asymptotic.parse(cls)
    assert got == want, (bound, str(got))
    # value / class, both at n and m = n^1.5: constant across sizes
    ratios = []
    for k in (8, 60):
        size, edges = 2.0 ** k, 2.0 ** (1.5 * k)
        ratios.append(eval_size(e, size, edges) / want.evaluate(size, edges))
    assert all(1 / 16 <= r <= 16 for r in ratios), (bound, ratios)
    assert 1 / 1.5 <= ratios[1] / ratios[0] <= 1.5, (bound, ratios)


@pytest.mark.parametrize("bound,at,fragment", [
    ("2 ** n", "2 ** n", "faster than any power of n"),
    ("n ** log2(n)", "n ** log2(n)", "faster than any power of n"),
    ("1 << n", "1 << n", "faster than any power of n"),
    ("2 ** sqrt(log2(n))", "2 ** sqrt(log2(n))", "slower than n"),
    ("2 ** (log2(n) * log2(n))", "2 ** (log2(n) * log2(n))", "faster than any power of n"),
    ("n + log2(log2(log2(n)))", "log2(log2(log2(n)))", "log log log n"),
    ("3 ** ceil(log2(n))", "3 ** ceil(log2(n))", "not a rational number"),
    ("n / (n - n)", "n / (n - n)", "divisor may be 0"),
    ("n // (n % 3)", "n // (n % 3)", "divisor may be 0"),
    ("n // 0", "n // 0", "divides by zero"),
])
def test_bound_without_a_class_is_e605_at_the_expression(bound: str, at: str,
                                                        fragment: str) -> None:
    alg = _alg(bound)
    with pytest.raises(EfficiencyError) as e:
        analyse(alg.ir)
    (d,) = e.value.diagnostics
    col = len(PREFIX) + 1 + bound.index(at)
    assert (d.code, d.path, d.span.line, d.span.column) == ("E605", "t.alg", 7, col), d.concise()
    assert f"`{at}`" in d.message and fragment in d.message, d.message
    # the Python API raises the same documented exception, an AlgError and a ValueError
    with pytest.raises(AlgError) as api:
        alg.static_efficiency()
    assert isinstance(api.value, ValueError) and api.value.diagnostics == [d]


def test_a_huge_bound_on_a_counted_loop_is_refused_not_run() -> None:
    # `while i < n` reads no data, so the analysis runs the loop's skeleton to count its
    # trips: a bound of 2^n must not be materialised or iterated to the end.
    src = TEMPLATE.replace(PREFIX, "while i < n bound ").replace("BOUND", "2 ** n")
    with pytest.raises(EfficiencyError, match="faster than any power of n"):
        analyse(algspec.load_source(src).ir)


def test_node_count_without_a_class() -> None:
    alg = algspec.load_source("algorithm t\nnodes n + floor(2 ** sqrt(log2(n)))\n"
                              "graph complete\n", "nodes.alg")
    with pytest.raises(EfficiencyError) as e:
        alg.static_efficiency()
    assert e.value.diagnostics[0].concise().startswith("nodes.alg:2:17: E605 ")


# ------------------------------------------------------------------ every command says so
SAMPLES_FINE = "n + 2 ** sqrt(log2(n))"  # samples fine (n trips), but has no class


def _file(tmp_path: Path) -> Path:
    p = tmp_path / "noclass.alg"
    p.write_text(TEMPLATE.replace("BOUND", SAMPLES_FINE))
    return p


def _expect_e605(output: str, path: Path) -> None:
    col = len(PREFIX) + 1 + SAMPLES_FINE.index("2 **")
    assert f"{path}:7:{col}: E605 `2 ** sqrt(log2(n))` has no asymptotic class" in output
    assert "internal error" not in output and "Traceback" not in output


@pytest.mark.parametrize("args", [["lint"], ["efficiency", "--static"],
                                  ["efficiency", "--sizes", "4,8", "--samples", "2"]])
def test_cli_prints_the_diagnostic(tmp_path: Path, args: list[str]) -> None:
    path = _file(tmp_path)
    r = CliRunner().invoke(app, [*args, str(path)], env={"ALGSPEC_NO_CACHE": "1"})
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    _expect_e605(r.output, path)


@pytest.mark.parametrize("command", ["compile", "demo"])
def test_compile_and_demo_print_the_diagnostic(tmp_path: Path, command: str) -> None:
    path = _file(tmp_path)
    r = subprocess.run([sys.executable, "-m", "algspec.cli", command, str(path)],
                       check=False, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "ALGSPEC_NO_CACHE": "1"})
    _expect_e605(r.stdout + r.stderr, path)
    assert r.returncode == 1
