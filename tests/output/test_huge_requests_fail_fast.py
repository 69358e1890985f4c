"""A request whose data cannot fit (memory for `sample` and a fixed test set, disk for
`text`) is refused within seconds, in one line naming the estimate, with nothing written."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import algspec
from algspec.process.memory_budget import TooLarge
from tests.output.helpers import invoke, one_error_line, program


@pytest.mark.parametrize("args,fragment", [
    (["sample", "{alg}", "--num", 999999999999999, "--out", "{out}"], "of memory"),
    (["text", "{alg}", "--num", 999999999999, "--out", "{out}"], "free"),
    (["text", "{alg}", "--num", 999999999999, "--out", "{out}", "--format", "hf"],
     "of memory"),
])
def test_a_request_too_big_for_this_machine_fails_at_once(tmp_path: Path, args: list,
                                                          fragment: str) -> None:
    alg = program(tmp_path)
    start = time.monotonic()
    r = invoke(*[str(a).format(alg=alg, out=tmp_path / "out") for a in args])
    line = one_error_line(r)
    assert time.monotonic() - start < 10 and fragment in line and "about" in line
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_fixed_test_set_too_big_for_memory_is_refused(tmp_path: Path) -> None:
    """`eval --test-samples N` draws its test set through the fixed-dataset sampler."""
    alg = algspec.load(program(tmp_path))
    start = time.monotonic()
    with pytest.raises(TooLarge, match="99999999999 samples at n=16 need about"):
        alg.batch_sampler(length=16, num_samples=99999999999, seed=0)
    assert time.monotonic() - start < 10


def test_a_request_that_fits_is_not_refused(tmp_path: Path) -> None:
    r = invoke("sample", program(tmp_path), "-n", 3, "-k", 600, "--out", tmp_path / "ok")
    assert r.exit_code == 0, r.output
