"""`algspec text`'s user mistakes are one `error:` line, before any sample is drawn, and
the same mistakes through the Python API raise a `TextError`; a bug while formatting is an
internal error (exit 2, a bug report and a log), never passed off as a user's mistake."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.text.errors import BadDecimals, NothingToTrace, TextError
from algspec.text.records import text_records
from algspec.text.request import MAX_DECIMALS

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

NO_TRACE = """\
algorithm first_above
nodes n
graph empty

input  node  key: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node  above: mask
output graph first: pointer

record
forall v { above[v] = key[v] > 0.5 }
record
forall v where above[v] { first = v by priority }
"""

FAN_IN = """\
algorithm fan_in
nodes n
graph complete

input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
output node pred: permutation = chain(order)
hint   node pred_h: pointer = 0

state  node order: int = index

record
record
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prog.alg"
    path.write_text(text)
    return path


def _one_error_line(r, code: int, *fragments: str) -> str:
    assert r.exit_code == code, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def test_hints_on_a_file_with_nothing_to_trace_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, NO_TRACE)
    r = runner.invoke(app, ["text", str(path), "-n", "4", "-k", "2", "--hints",
                            "--out", str(tmp_path / "out")])
    _one_error_line(r, 2, "--hints", "first_h", "drop --hints")
    assert not (tmp_path / "out" / "data.jsonl").exists()
    alg = algspec.load(path)
    with pytest.raises(NothingToTrace, match="first_h"):
        next(text_records(alg, 4, 2, 0, hints=True))
    assert next(text_records(alg, 4, 2, 0))["auxiliary"]["use_hints"] is False


@pytest.mark.parametrize("decimals", ["99999", "16", "-1"])
def test_decimals_out_of_range_is_one_line_at_the_flag(tmp_path: Path, decimals: str) -> None:
    path = _write(tmp_path, NO_TRACE)
    r = runner.invoke(app, ["text", str(path), "-n", "4", "-k", "2", "--decimals", decimals,
                            "--out", str(tmp_path / "out")])
    _one_error_line(r, 2, "--decimals")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("decimals", [99999, 16, -1, 2.5, True])
def test_decimals_out_of_range_through_the_api(decimals) -> None:
    alg = algspec.load(ROOT / "algorithms" / "parallel_search.alg")
    with pytest.raises(BadDecimals, match=f"0 to {MAX_DECIMALS}"):
        next(text_records(alg, 4, 1, 0, decimals=decimals))


def test_the_largest_decimals_truncates_nothing_away() -> None:
    alg = algspec.load(ROOT / "algorithms" / "parallel_search.alg")
    assert next(text_records(alg, 4, 1, 0, decimals=MAX_DECIMALS)) == \
        next(text_records(alg, 4, 1, 0))


def test_a_hint_that_is_not_a_chain_is_a_user_error_naming_it(tmp_path: Path) -> None:
    """A pointer hint of a permutation output prints as that permutation (CLRS-Text's
    sorts); one whose frame is not a chain has no such text, said in one line."""
    path = _write(tmp_path, FAN_IN)
    r = runner.invoke(app, ["text", str(path), "-n", "3", "-k", "1", "--hints",
                            "--out", str(tmp_path / "out")])
    _one_error_line(r, 1, "pred_h (frame 0", "one chain")
    assert not (tmp_path / "out" / "data.jsonl").exists()
    with pytest.raises(TextError):
        next(text_records(algspec.load(path), 3, 1, 0, hints=True))


def _boom(error: Exception):
    def value_text(*args, **kwargs):
        raise error
    return value_text


@pytest.mark.parametrize("error", [ZeroDivisionError("division by zero"),
                                   ValueError("not enough values to unpack (expected 1, got 0)")])
def test_a_bug_while_formatting_is_an_internal_error(tmp_path: Path, monkeypatch, capsys,
                                                     error: Exception) -> None:
    """Through the console script's `main`: exit 2, the internal-error notice and a log with
    the traceback, even for a ValueError (no longer read as a user's mistake)."""
    import algspec.text.format as fmt
    from algspec.cli import main

    monkeypatch.setattr(fmt, "value_text", _boom(error))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("ALGSPEC_DEBUG", raising=False)
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["algspec", "text", str(ROOT / "algorithms" / "oets.alg"),
                                      "-n", "3", "-k", "2", "--out", str(out)])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"internal error: {type(error).__name__}: "), err
    assert "bug in algspec" in err and "error: " not in err.replace("internal error: ", "")
    (log,) = tmp_path.glob("algspec-internal-error-*.log")
    assert "Traceback" in log.read_text() and "value_text" in log.read_text()
    assert not (out / "data.jsonl").exists()


def test_value_text_still_raises_a_value_error_for_the_api() -> None:
    from algspec.text.format import value_text

    with pytest.raises(ValueError):
        value_text(np.zeros(3), "node", "mask_one")
