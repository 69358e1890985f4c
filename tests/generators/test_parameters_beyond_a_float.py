"""A generator parameter beyond a float's range (`high = 10 ** 400`, `high = 2 ** (n * 400)`)
is E105 at the input that draws with it, not an OverflowError from the size
arithmetic (an internal error in every command that samples)."""

from __future__ import annotations

import pytest

import algspec
from algspec.diagnostics import RuntimeFault

SOURCE = """algorithm huge_parameter
nodes n
graph complete
input node a: scalar ~ uniform(low = 0.0, high = {high})
output node b: scalar
forall v {{ b[v] = a[v] }}
"""


@pytest.mark.parametrize("high", ["10 ** 400", "2 ** (n * 400)", "10 ** 400 / n",
                                  "2 ** 1024 + n"])
def test_a_parameter_beyond_a_float_is_e105_at_its_input(high: str) -> None:
    alg = algspec.load_source(SOURCE.format(high=high), "huge.alg")
    with pytest.raises(RuntimeFault) as e:
        alg.sample(4, 2, seed=0)
    d = e.value.diagnostic
    assert (d.code, d.span.line) == ("E105", 4)
    assert "beyond a float's range" in d.message


def test_an_override_beyond_a_float_is_a_value_error_naming_it() -> None:
    alg = algspec.load_source(SOURCE.format(high="1.0"), "huge.alg")
    with pytest.raises(ValueError, match="'high' must be a finite number"):
        alg.sample(4, 2, seed=0, high=10 ** 400)
