"""A run whose data cannot fit this machine's memory is refused before numpy tries: R115 at
the file's `nodes` line with the need (a run-time fault lint reports as a finding, and a
`TooLarge` the commands print as one `error:` line): a node count of 10**9 at n = 4, or a
loop that records more frames than memory holds, not numpy's MemoryError from deep in the
interpreter after the run filled the machine's memory."""

from __future__ import annotations

import time

import pytest

import algspec
from algspec.interp import recording
from algspec.process import memory_budget
from algspec.process.memory_budget import TooLarge

HUGE = """algorithm huge
nodes n + 1000000000
graph complete
hint node b: scalar
forall v { b[v] = 1.0 }
record
"""

FRAMES = """algorithm many_frames
nodes n
graph complete
input node a: scalar ~ uniform()
hint node b: scalar
for k in 0 .. 1000000000 {
    forall v { b[v] = b[v] + a[v] }
    record
}
"""


def test_a_billion_nodes_are_refused_at_once_naming_the_nodes_line() -> None:
    alg = algspec.load_source(HUGE, "huge.alg")
    start = time.perf_counter()
    with pytest.raises(TooLarge, match=r"^huge\.alg:2:7: R115 a batch of 2 at n = 4 on "
                                       r"N = 1,000,000,004 nodes needs about .* available"):
        alg.sample(4, 2, seed=0)
    assert time.perf_counter() - start < 5


def test_recording_more_frames_than_memory_holds_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(memory_budget, "available_bytes", lambda: 20_000)
    monkeypatch.setattr(recording, "_RESERVE_BYTES", 1024)  # grow early, not at 1 GiB
    alg = algspec.load_source(FRAMES, "many_frames.alg")
    with pytest.raises(TooLarge, match=r"^many_frames\.alg:2:7: R115 recording [\d,]+ frames of "
                                       r"`\w+` needs about .* available"):
        alg.sample(4, 2, seed=0)


def test_lint_reports_a_run_beyond_memory_as_a_finding_and_goes_on(tmp_path) -> None:
    from algspec.lint import lint_files, lint_source

    huge, fine = tmp_path / "huge.alg", tmp_path / "other.alg"
    huge.write_text(HUGE)
    other = HUGE.replace("huge", "other").replace(" + 1000000000", "").replace(
        "hint node b: scalar", "hint node b: scalar\nhint node c: mask")  # c: never written
    fine.write_text(other)
    found, _ = lint_files([str(huge), str(fine)], jobs=1)
    assert ("R115", 2) in [(d.code, d.span.line) for d in found if d.path == str(huge)]
    alone = lint_source(other, str(fine))
    assert alone and [d for d in found if d.path == str(fine)] == alone
