"""A run whose data cannot fit this machine's memory is refused before numpy tries, with
one line naming the file's `nodes` line and the need (`TooLarge`, a MemoryError the
commands print as one `error:` line): a node count of 10**9 at n = 4, or a loop that
records more frames than memory holds. Before, numpy's own MemoryError came from deep in
the interpreter, or the run first filled the machine's memory."""

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
    with pytest.raises(TooLarge, match=r"^huge\.alg:2:7: a batch of 2 at n = 4 on "
                                       r"N = 1,000,000,004 nodes needs about .* available"):
        alg.sample(4, 2, seed=0)
    assert time.perf_counter() - start < 5


def test_recording_more_frames_than_memory_holds_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(memory_budget, "available_bytes", lambda: 20_000)
    monkeypatch.setattr(recording, "_RESERVE_BYTES", 1024)  # grow early, not at 1 GiB
    alg = algspec.load_source(FRAMES, "many_frames.alg")
    with pytest.raises(TooLarge, match=r"^many_frames\.alg:2:7: recording [\d,]+ frames of "
                                       r"`\w+` needs about .* available"):
        alg.sample(4, 2, seed=0)
