"""Values computed on lanes a guard masks off (a log of 0, an int of inf, a division by zero)
are discarded without numpy warnings: a user sees only what concerns live samples."""

from __future__ import annotations

import warnings

import numpy as np

import algspec

GUARDED = """
algorithm guarded_math
nodes n
graph complete
input node x: scalar ~ uniform(low = -2.0, high = 2.0)
hint node k: scalar
output node o: scalar = k
state node d: int
record
forall v { d[v] = v % 3 }
forall v { if v > 0 { k[v] = float(int(log2(float(v)))) } }
forall v {
    if x[v] > 0.0 {
        k[v] = k[v] + sqrt(x[v]) + log2(x[v]) + float(floor(1.0 / x[v])) + x[v] ** -1.5
    }
    if x[v] > 100.0 {
        k[v] = float(int(x[v] / 0.0)) + float(ceil(log2(x[v] - x[v]))) + atan2(x[v], 0.0)
    }
}
record
forall v { if d[v] != 0 { k[v] = k[v] + float(7 // d[v] + 7 % d[v] + 2 ** (0 - d[v])) } }
record
"""


def test_guarded_lanes_raise_no_numpy_warnings():
    alg = algspec.load_source(GUARDED)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traj = alg.sample(7, 64, seed=0)
    assert np.isfinite(traj.outputs["o"]).all()
    x = traj.inputs["x"].astype(np.float64)[3]
    out, _ = alg.trace(x=x)  # the same values as a reference computed in Python
    for v in range(7):
        want = float(int(np.log2(v))) if v > 0 else 0.0
        if x[v] > 0:
            want += x[v] ** 0.5 + np.log2(x[v]) + (1.0 // x[v]) + x[v] ** -1.5
        if v % 3:
            want += 7 // (v % 3) + 7 % (v % 3) + 0
        assert out[v] == np.float64(want) or abs(out[v] - want) < 1e-12, (v, out[v], want)
