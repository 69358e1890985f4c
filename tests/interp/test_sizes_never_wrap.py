"""Sizes the interpreter computes in int64 never wrap silently, and a recursion's huge
declared bound never asks Python for an unbounded stack."""

from __future__ import annotations

import sys

import pytest

import algspec
from algspec.diagnostics import RuntimeFault
from algspec.interp import calls
from algspec.lint import lint_source

PROGRAM = """algorithm sizes
nodes {nodes}
graph empty
input graph t: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
output graph r: scalar
r = 0.0
while r < 3.0 bound {bound} {{
  r = r + 1.0
}}
record
"""


def test_a_node_count_past_int64_is_E108_too_large() -> None:
    alg = algspec.load_source(PROGRAM.format(nodes="n ** 100", bound="n"))
    with pytest.raises(RuntimeFault) as e:
        alg.trace(n=16, t=0.5)
    d = e.value.diagnostic
    assert d.code == "E108" and "too large" in d.message and "0 at" not in d.message


def test_a_loop_bound_past_int64_is_not_wrapped_to_zero() -> None:
    # 16 ** 100 wraps to 0 in int64: the loop would not run at all
    alg = algspec.load_source(PROGRAM.format(nodes="n", bound="n ** 100"))
    _, probes = alg.trace(n=16, t=0.5)
    assert float(probes["output"]["graph"]["r"]["data"]) == 3.0


def test_a_huge_exponent_in_a_size_is_refused_at_once() -> None:
    # `2 ** 10000000000` exactly would take minutes and gigabytes
    diags = lint_source(PROGRAM.format(nodes="n + 2 ** 10000000000", bound="n"), sample=False)
    assert "E605" in [d.code for d in diags]


RECURSIVE = """algorithm deep
nodes n
graph empty
input graph t: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
output graph r: scalar
proc f(i) depth 100000000 calls 100000000 {{
  if i > 0 {{
    r = r + 1.0
    f(i - 1)
  }}
}}
f({calls})
record
"""


def test_a_huge_recursion_bound_runs_shallow_calls() -> None:
    _, probes = algspec.load_source(RECURSIVE.format(calls=3)).trace(n=4, t=0.5)
    assert float(probes["output"]["graph"]["r"]["data"]) == 3.0
    assert sys.getrecursionlimit() <= calls.HOST_FRAMES + 10_000


def test_recursion_deeper_than_the_host_stack_is_R108(monkeypatch) -> None:
    monkeypatch.setattr(calls, "HOST_FRAMES", 5000)
    alg = algspec.load_source(RECURSIVE.format(calls=100_000))
    with pytest.raises(RuntimeFault) as e:
        alg.trace(n=4, t=0.5)
    d = e.value.diagnostic
    assert d.code == "R108" and "deeper than the interpreter runs" in d.message
