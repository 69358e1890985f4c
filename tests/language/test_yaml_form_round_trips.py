"""The YAML form: every .alg file converts to YAML and back to the same program (spec hash),
a broken file to the same diagnostics; YAML diagnostics point into the YAML file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import algspec
from algspec.diagnostics import AlgError
from algspec.language.parser import is_library
from algspec.language.yaml_form import to_alg_text
from algspec.language.yaml_writer import to_yaml
from algspec.sampling.identity import spec_hash

ROOT = Path(__file__).resolve().parents[2]
ALG_FILES = sorted(p for p in list((ROOT / "algorithms").rglob("*.alg"))
                   + list((ROOT / "tests").rglob("*.alg"))
                   if "lib" not in p.parts and not is_library(
                       p.read_text(encoding="utf-8", errors="replace")))


def _outcome(source: str, path: Path) -> tuple[str, ...]:
    """What loading gives: the spec hash, or the diagnostics' codes and messages."""
    try:
        alg = algspec.load_source(source, str(path))
    except AlgError as e:
        return tuple(f"{d.code} {d.message}" for d in e.diagnostics)
    return (spec_hash(alg.spec, alg.ir),)


@pytest.mark.parametrize("path", ALG_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_yaml_form_is_the_same_program(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    try:
        yaml_text = to_yaml(source, str(path))
    except AlgError:  # a syntax error: nothing to convert
        return
    yaml_path = path.with_suffix(".yaml")  # a name only: includes resolve beside the file
    want = _outcome(source, path)
    assert _outcome(yaml_text, yaml_path) == want
    assert _outcome(to_alg_text(yaml_text, str(yaml_path)), path) == want


def _yaml(body: str = "record\n", data: str = "  - 'input node k: scalar ~ uniform()'\n"
          ) -> str:
    indented = "".join(f"  {line}\n" for line in body.splitlines())
    return f"algorithm: t\nnodes: n\ngraph: complete\ndata:\n{data}body: |\n{indented}"


def _diagnostic(text: str):
    with pytest.raises(AlgError) as e:
        algspec.load_source(text, "t.yaml")
    return e.value.diagnostics[0]


def test_diagnostics_point_into_the_yaml_file() -> None:
    body = _diagnostic(_yaml("record\nx = = 1\n"))  # body line 2 is file line 8
    assert (body.code, body.path, body.span.line, body.span.column) == ("E002", "t.yaml", 8, 7)
    data = _diagnostic(_yaml(data="  - 'input node k: banana ~ uniform()'\n"))
    assert (data.code, data.span.line, data.span.column) == ("E102", 5, 6)
    header = _diagnostic(_yaml().replace("graph: complete", "graph: input Q"))
    assert header.code == "E108" and header.span.line == 3


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("algorithm: t\nnodes: n: m\n", 2, "not YAML"),
    ("- a\n- b\n", 1, "expected a mapping"),
    (_yaml() + "extra: 1\n", 8, "unknown key 'extra'"),
    (_yaml(data="  - {a: 1}\n"), 5, "one line of text"),
    ("algorithm: t\nnodes: n\n", 1, "`graph` must be given"),
])
def test_a_malformed_yaml_form_is_one_e005(text: str, line: int, fragment: str) -> None:
    d = _diagnostic(text)
    assert d.code == "E005" and d.span.line == line and fragment in d.message, d.concise()


def test_convert_writes_both_ways_and_every_command_reads_yaml(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "algspec.cli", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, check=False)

    alg = ROOT / "algorithms" / "parallel" / "bfs_sync.alg"
    yaml_path, back = tmp_path / "bfs.yaml", tmp_path / "bfs.alg"
    assert run("convert", str(alg), "--out", str(yaml_path)).returncode == 0
    assert run("convert", str(yaml_path), "--to", "alg", "--out", str(back)).returncode == 0
    again = run("convert", str(alg), "--out", str(yaml_path))
    assert again.returncode == 2 and "--overwrite" in again.stderr
    assert _outcome(yaml_path.read_text(), yaml_path) == _outcome(alg.read_text(), alg) \
        == _outcome(back.read_text(), back)
    assert "# reached so far" in yaml_path.read_text() and "# reached so far" in back.read_text()
    assert run("lint", str(yaml_path)).returncode == 0
    sampled = run("sample", str(yaml_path), "-n", "5", "-k", "3", "--out", "data")
    assert sampled.returncode == 0, sampled.stderr
    assert run("text", str(yaml_path), "-n", "5", "-k", "2", "--out", "text").returncode == 0
