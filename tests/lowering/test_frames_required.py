"""A program with hints records at least one frame per sample (CLRS trajectories start with
one); a sample that ends without one is the run-time fault R110, which lint finds too."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import RuntimeFault
from algspec.lint import lint_source

CONDITIONAL = """algorithm cond_rec
nodes n
graph complete
input node x: scalar ~ uniform()
hint node h: scalar := x
output graph s: scalar
if x[0] > 0.5 { record }
s = x[0]
"""

NO_HINTS = """algorithm readout
nodes n
graph complete
input node x: scalar ~ uniform()
output graph s: scalar
s = max(x[u] for u in nodes)
"""


def test_a_sample_without_a_frame_is_r110_naming_the_record_and_the_sample():
    alg = algspec.load_source(CONDITIONAL, "cond.alg")
    with pytest.raises(RuntimeFault) as e:
        alg.trace(x=np.array([0.1, 0.9]))
    d = e.value.diagnostic
    assert d.code == "R110" and (d.span.line, d.span.column) == (7, 17)
    assert "sample 0" in d.message and "`record`" in d.message
    x = np.array([[0.9, 0.0], [0.8, 0.0], [0.2, 0.0]])
    with pytest.raises(RuntimeFault, match=r"sample 2"):
        alg.run({"x": x}, n=2)
    ok = alg.run({"x": x[:2]}, n=2)  # every sample records: no fault
    assert ok.lengths.tolist() == [1.0, 1.0]


def test_lint_reports_r110_from_its_samples():
    codes = [d.code for d in lint_source(CONDITIONAL, "cond.alg")]
    assert "R110" in codes


def test_a_program_without_hints_needs_no_frame():
    alg = algspec.load_source(NO_HINTS)
    traj = alg.sample(5, 4, seed=0)
    assert traj.hints == {} and traj.lengths.tolist() == [0.0] * 4
    assert alg.trace(x=[0.2, 0.7, 0.1])[0] == pytest.approx(0.7)
