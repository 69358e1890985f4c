"""A node count below one at every large n (`nodes 0`, `nodes -3`, `nodes 4 - n`) is the
header's mistake, reported at compile time as E108 at the `nodes` line; before, lint and
`compile` stopped in the efficiency analysis on a division by a zero capacity and
sampling failed at every size. A count that is zero only at small n stays a run-time
E108 at that n."""

from __future__ import annotations

import pytest

import algspec
from algspec.diagnostics import AlgError
from algspec.lint import lint_source

BODY = """graph complete
input node a: scalar ~ uniform()
output node b: scalar
forall v { b[v] = a[v] }
"""


@pytest.mark.parametrize("count", ["0", "-3", "4 - n", "0 * n", "n - n"])
def test_a_node_count_below_one_at_large_n_is_e108_at_the_nodes_line(count: str) -> None:
    source = f"algorithm t\nnodes {count}\n" + BODY
    with pytest.raises(AlgError) as e:
        algspec.load_source(source, "t.alg")
    [d] = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == ("E108", 2, 7)
    assert "at least one node" in d.message
    assert [x.code for x in lint_source(source, "t.alg", sample=False)] == ["E108"]


@pytest.mark.parametrize("count", ["n // 8 + 1", "n - 3", "4", "pow2ceil(n)"])
def test_a_node_count_of_at_least_one_at_large_n_compiles(count: str) -> None:
    algspec.load_source(f"algorithm t\nnodes {count}\n" + BODY, "t.alg")
