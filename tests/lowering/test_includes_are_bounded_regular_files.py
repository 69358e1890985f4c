"""Sources are read only from regular files of bounded size: an `include` (and the main
file) that names a device, a FIFO or a huge file is refused at once, never read."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

import algspec
from algspec.diagnostics import AlgError
from algspec.language import source_file
from algspec.lint import lint_source
from algspec.lowering import procedures

MAIN = """algorithm uses_lib
nodes n
graph empty
input graph t: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
output graph r: scalar
include "{target}"
r = t
record
"""


@pytest.fixture(autouse=True)
def _no_hang():
    """A read that blocks (a FIFO) fails the test instead of hanging the suite."""
    def stuck(*_):
        raise TimeoutError("reading the source blocked")
    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _include_error(tmp_path: Path, target: str) -> str:
    main = tmp_path / "main.alg"
    main.write_text(MAIN.format(target=target))
    with pytest.raises(AlgError) as e:
        algspec.load(main)
    (d,) = e.value.diagnostics
    assert d.code == "E704"
    assert (d.path, d.span.line) == ("<string>", 6) or Path(d.path).parent == tmp_path
    assert [x.code for x in lint_source(main.read_text(), str(main), sample=False)] == ["E704"]
    return d.message


def test_include_of_a_device_is_refused(tmp_path: Path) -> None:
    assert "a device, not a regular file" in _include_error(tmp_path, "/dev/zero")


def test_include_of_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.alg")
    assert "named pipe" in _include_error(tmp_path, "pipe.alg")


def test_include_of_a_huge_file_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(source_file, "MAX_SOURCE_BYTES", 1000)  # the main file is smaller
    (tmp_path / "lib.alg").write_text("proc f(x) {\n  let y = x\n}\n" * 100)
    assert "too large" in _include_error(tmp_path, "lib.alg")


def test_a_long_chain_of_includes_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(procedures, "MAX_INCLUDE_DEPTH", 3)
    for k in range(6):
        (tmp_path / f"lib{k}.alg").write_text(f'include "lib{k + 1}.alg"\n')
    (tmp_path / "lib6.alg").write_text("proc f(x) {\n  let y = x\n}\n")
    assert "nested more than 3 files deep" in _include_error(tmp_path, "lib0.alg")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_the_main_file_must_be_a_regular_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "main.alg"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    with pytest.raises(AlgError) as e:
        algspec.load(path)
    assert e.value.diagnostics[0].code == "E006"


def test_a_huge_main_file_is_refused_before_parsing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(source_file, "MAX_SOURCE_BYTES", 100)
    path = tmp_path / "main.alg"
    path.write_text(MAIN.format(target="x.alg") + "# padding\n" * 20)
    with pytest.raises(AlgError) as e:
        algspec.load(path)
    assert e.value.diagnostics[0].code == "E006" and "too large" in e.value.diagnostics[0].message
