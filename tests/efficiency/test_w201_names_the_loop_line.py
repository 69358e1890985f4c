"""W201 says which line the idle loop is on, and separately which `record` lines it runs:
a `record` line is never given as the loop's own."""

from __future__ import annotations

import algspec
from algspec.lint.efficiency_rules import efficiency_lints

SEQUENTIAL = """algorithm seq_walk
nodes n
graph complete
hint node seen: mask
output node out: mask
state graph i: int = 0
record
# a comment, so the loop and its record are far apart
while i < n bound n {
    seen[i] = true

    i = i + 1
    record
}
forall v { out[v] = seen[v] }
"""


def test_w201_message_gives_the_loop_line_and_the_record_line() -> None:
    alg = algspec.load_source(SEQUENTIAL, "seq.alg")
    (d,) = efficiency_lints(alg.ir)
    assert d.code == "W201" and d.span.line == 9
    assert "this `while` loop (line 9) records (`record` on line 13)" in d.message, d.message
    assert "loop (line 13)" not in d.message


def test_w201_lists_every_record_line_of_the_loop() -> None:
    two = SEQUENTIAL.replace("    seen[i] = true\n", "    seen[i] = true\n    record\n")
    (d,) = efficiency_lints(algspec.load_source(two, "seq.alg").ir)
    assert "this `while` loop (line 9) records (`record`s on lines 11, 14)" in d.message, \
        d.message
