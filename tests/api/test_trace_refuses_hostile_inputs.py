"""`trace` refuses inputs that cannot be what the file means, with a ValueError naming them:
NaN (or None entries, which become NaN), complex numbers (casting would drop their
imaginary part) and a rand key that a dataset's uint64
`rand_keys` cannot hold (never numpy's OverflowError, never a silently truncated key)."""

from __future__ import annotations

import numpy as np
import pytest

import algspec

SOURCE = """algorithm hostile_inputs
nodes n
graph complete
input node a: scalar ~ uniform()
output node b: scalar
forall v { b[v] = a[v] + rand() }
"""


@pytest.fixture(scope="module")
def alg():
    return algspec.load_source(SOURCE, "hostile_inputs.alg")


@pytest.mark.parametrize("value, words", [
    ([0.5, np.nan, 0.2], ["`a`", "NaN"]),
    ([0.5, None, 0.2], ["`a`", "NaN"]),
    (None, ["`a`", "not an array of numbers"]),
    (np.array([0.5, 0.1, 0.2]) + 1j, ["`a`", "not an array of numbers"]),
    ([[0.5], [0.1, 0.2]], ["`a`", "not an array of numbers"]),
])
def test_trace_refuses_values_that_are_not_real_numbers(alg, value, words) -> None:
    with pytest.raises(ValueError) as e:
        alg.trace(a=value)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_trace_keeps_infinities_the_pad_value_may_hold(alg) -> None:
    out, _ = alg.trace(a=[0.5, np.inf, -np.inf], rand_key=1)
    assert np.isinf(out[1]) and np.isinf(out[2])


@pytest.mark.parametrize("key", [-1, 2 ** 64, 2 ** 70, 1.5, "7", True, float("nan")])
def test_trace_refuses_a_rand_key_the_datasets_cannot_hold(alg, key) -> None:
    with pytest.raises(ValueError, match="rand_key must be an integer in 0..2\\*\\*64 - 1"):
        alg.trace(a=[0.5, 0.1, 0.2], rand_key=key)


def test_trace_takes_every_uint64_rand_key(alg) -> None:
    for key in (0, 2 ** 64 - 1, np.uint64(2 ** 63)):
        alg.trace(a=[0.5, 0.1, 0.2], rand_key=key)
