"""`algspec efficiency` reads folders as `algspec lint` does, and --static needs no sizes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
EVERYDAY = ROOT / "tests" / "corpus" / "loop_bounds"
PREFIX_SUMS = ROOT / "algorithms" / "parallel" / "prefix_sums.alg"


def invoke(*args: object):
    return CliRunner().invoke(app, ["efficiency", *map(str, args)])


def test_static_accepts_one_size_and_ignores_it() -> None:
    one = invoke("--static", "--json", "--sizes", "8", PREFIX_SUMS)
    assert one.exit_code == 0, one.output
    default = invoke("--static", "--json", PREFIX_SUMS)
    assert json.loads(one.stdout) == json.loads(default.stdout)
    assert json.loads(one.stdout)["prefix_sums"]["T"] == "log n"
    assert "ignored with --static" in " ".join(invoke("--help").stdout.split())


def test_sampling_still_needs_two_sizes() -> None:
    r = invoke("--sizes", "8", PREFIX_SUMS)
    assert r.exit_code == 2 and "at least two distinct sizes" in r.output


def test_folder_is_every_alg_file_under_it_sorted() -> None:
    r = invoke("--static", "--json", EVERYDAY)
    assert r.exit_code == 0, r.output
    want = sorted(EVERYDAY.rglob("*.alg"))
    assert list(json.loads(r.stdout)) == [p.stem for p in want]


def test_folder_and_its_file_count_once(tmp_path: Path) -> None:
    r = invoke("--static", "--json", EVERYDAY, EVERYDAY / "heap_pq.alg")
    assert r.exit_code == 0, r.output
    assert list(json.loads(r.stdout)).count("heap_pq") == 1


def test_folder_skips_libraries_of_procedures(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "step.alg").write_text("proc step() { c += 1 }\n")
    (tmp_path / "main.alg").write_text(
        "algorithm main\nnodes n\ngraph complete\n"
        "input node key: scalar ~ uniform()\noutput graph o: scalar = float(c)\n"
        'state graph c: int = 0\ninclude "lib/step.alg"\n'
        "record\nfor i in 0 .. n {\n  step()\n  record\n}\n")
    r = invoke("--static", "--json", tmp_path)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["main"]["T"] == "n"
    assert "skipped 1 library" in r.stderr and "step.alg" in r.stderr


def test_folder_without_algorithms(tmp_path: Path) -> None:
    r = invoke("--static", tmp_path)
    assert r.exit_code == 2 and f"no .alg files in folder {tmp_path}" in r.output
    r = invoke("--static", tmp_path / "missing")
    assert r.exit_code == 2 and "no such file or folder" in r.output
