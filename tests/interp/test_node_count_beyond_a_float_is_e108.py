"""A node count beyond a float's range (`nodes n + 10 ** 400`) is E108 at the `nodes` line
when inputs are drawn, before any size is computed from it; before, the drawn-shape check
computed N on Python numbers and stopped with an OverflowError (an internal error)."""

from __future__ import annotations

import pytest

import algspec
from algspec.diagnostics import RuntimeFault

SOURCE = """algorithm beyond_a_float
nodes {nodes}
graph complete
input node a: scalar ~ uniform()
output node b: scalar
forall v {{ b[v] = a[v] }}
"""


@pytest.mark.parametrize("nodes", ["n + 10 ** 400", "-(10 ** 400)", "n * 2 ** 1024"])
def test_drawing_inputs_for_a_node_count_beyond_a_float_is_e108(nodes: str) -> None:
    alg = algspec.load_source(SOURCE.format(nodes=nodes), "beyond.alg")
    for draw in (lambda: alg.generate(4, 2, 0), lambda: alg.sample(4, 2, seed=0)):
        with pytest.raises(RuntimeFault) as e:
            draw()
        d = e.value.diagnostic
        assert (d.code, d.span.line, d.span.column) == ("E108", 2, 7)
        assert "too large at n = 4" in d.message
