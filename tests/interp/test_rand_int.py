"""`rand_int(low, high)`: an exactly uniform int in [low, high) per processor, keyed as
`rand()` is (the sample's rand key, site, count, lane), in integer arithmetic only."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.ir import ops
from algspec.ir.op_rand_int import rand_int_numpy, rand_int_python

DRAWS = """
algorithm draws
nodes n
graph empty
state node r: int = 0
hint  node h: scalar := 0.0
output node out: scalar = float(r)
record
forall v { r[v] = rand_int(v - 2, v + 5) }
forall v { h[v] = float(rand_int(0, 3) + rand_int(0, 3)) }
record
"""


@pytest.fixture(scope="module")
def draws():
    return algspec.load_source(DRAWS, "draws.alg")


def test_every_value_is_an_int_in_its_processors_range(draws):
    out = draws.sample(6, 50, seed=1).outputs["out"]
    v = np.arange(6)
    assert (out == np.round(out)).all()
    assert ((out >= v - 2) & (out < v + 5)).all()
    # every value of the range is drawn somewhere
    assert all(set(out[:, k].astype(int)) == set(range(k - 2, k + 5)) for k in range(6))


def test_the_same_seed_draws_the_same_values_and_another_seed_others(draws):
    a, b = draws.sample(6, 20, seed=3), draws.sample(6, 20, seed=3)
    np.testing.assert_array_equal(a.outputs["out"], b.outputs["out"])
    assert not np.array_equal(a.outputs["out"], draws.sample(6, 20, seed=4).outputs["out"])


def test_a_samples_values_are_those_it_draws_alone(draws):
    traj = draws.sample(5, 9, seed=7)
    for b in range(9):
        out, probes = draws.trace(n=5, rand_key=int(traj.rand_keys[b]))
        np.testing.assert_array_equal(out, traj.outputs["out"][b])
        np.testing.assert_array_equal(probes["hint"]["node"]["h"]["data"],
                                      traj.hints["h"][:, b])


def test_values_are_roughly_uniform(draws):
    out = draws.sample(8, 400, seed=0).outputs["out"].astype(int) - np.arange(8)
    counts = np.bincount(out.ravel() + 2, minlength=7)
    # 3200 draws over 7 values: about 457 each (binomial sd ~20)
    assert counts.min() > 380 and counts.max() < 540, counts


def test_the_numpy_rule_is_the_exact_integer_rule_rejections_included() -> None:
    """Lemire's multiply-high with rejection on 64-bit hashes, the same on numpy and Python
    ints; the span 3 * 2^61 rejects a quarter of the hashes (re-mixed)."""
    bits = np.random.default_rng(0).integers(-2 ** 63, 2 ** 63 - 1, 500, dtype=np.int64)
    for low, high in ((0, 1), (0, 7), (-5, 3), (-2 ** 62, 2 ** 63 - 1), (0, 3 * 2 ** 61)):
        got = rand_int_numpy(np.full(500, low), np.full(500, high), bits)
        want = [rand_int_python(low, high, int(x)) for x in bits]
        np.testing.assert_array_equal(got, want)
        assert got.min() >= low and got.max() < high
    assert ops.CALLS["rand_int"].text("0", "n", "bits") == "rand_int(0, n)"


def test_float_bounds_and_wrong_arity_are_errors() -> None:
    for call, code in (("rand_int(0.5, n)", "E205"), ("rand_int(0, 1.0 * n)", "E205"),
                       ("rand_int(n)", "E207")):
        with pytest.raises(AlgError) as err:
            algspec.load_source(DRAWS.replace("rand_int(v - 2, v + 5)", call), "bad.alg")
        assert [d.code for d in err.value.diagnostics] == [code]


def test_an_empty_range_is_a_run_time_fault() -> None:
    alg = algspec.load_source(DRAWS.replace("rand_int(v - 2, v + 5)", "rand_int(v, 2)"),
                              "empty.alg")
    with pytest.raises(RuntimeFault) as err:
        alg.sample(4, 2, seed=0)
    assert err.value.diagnostic.code == "R113"
