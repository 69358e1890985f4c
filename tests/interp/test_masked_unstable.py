"""Two CLRS encodings of the language: `masked where` (probe entries holding
CLRS's MASKED value -1) and `for x in nodes by key unstable` (numpy's default
argsort order, ties included, as dm-clrs's samplers order)."""

from __future__ import annotations

import numpy as np
import pytest

from algspec.compiled import CompiledAlgorithm, load_source
from algspec.diagnostics import AlgError

MASKED = """\
algorithm masked_demo
nodes n
graph complete

input  node x: scalar ~ uniform()
output node big: mask = x > 0.5 masked where index == 0
hint   node seen: scalar masked where index > t
hint   edge cls[u, v]: categorical(3) := 2 masked where u > v
hint   graph t: scalar

for k in 0 .. n {
    seen[k] = x[k]; t = k
    record
}
"""

ORDER = """\
algorithm order_demo
nodes n
graph complete

input  node k: scalar ~ uniform()
hint   node at: mask_one = onehot(cur)
state  graph cur: int = 0

for x in nodes by k {how} {{   # allow: W201
    cur = x
    record
}}
"""


def _compile(src: str) -> CompiledAlgorithm:
    return load_source(src, "<test>")


def test_masked_entries_are_minus_one_per_frame() -> None:
    alg = _compile(MASKED)
    x = np.random.default_rng(0).random((3, 5))
    t = alg.run({"x": x}, dtype=np.float64)
    big = t.outputs["big"]
    assert np.array_equal(big[:, 0], -np.ones(3))
    assert np.array_equal(big[:, 1:], (x[:, 1:] > 0.5).astype(float))
    seen = t.hints["seen"]  # frame k: nodes after k are MASKED, the others hold what was seen
    for k in range(5):
        assert np.array_equal(seen[k, :, k + 1:], -np.ones((3, 4 - k)))
        assert np.array_equal(seen[k, :, : k + 1], x[:, : k + 1])
    cls = t.hints["cls"][0, 0]  # categorical: the stored class's one-hot, negated, below the diagonal
    below = np.tril(np.ones((5, 5), bool), -1)
    assert np.array_equal(cls[below], np.tile([0.0, 0.0, -1.0], (below.sum(), 1)))
    assert np.array_equal(cls[~below], np.tile([0.0, 0.0, 1.0], ((~below).sum(), 1)))


@pytest.mark.parametrize(("line", "code"), [
    ("state  node s: float masked where index == 0", "E105"),   # not a probe
    ("hint   node s: scalar masked where index", "E205"),        # not a condition
])
def test_masked_errors(line: str, code: str) -> None:
    src = MASKED.replace("hint   graph t: scalar", "hint   graph t: scalar\n" + line)
    with pytest.raises(AlgError) as err:
        _compile(src)
    assert code in [d.code for d in err.value.diagnostics]


def test_unstable_order_is_numpys_default_argsort_row_by_row() -> None:
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, (8, 40)) / 4.0  # three levels: many ties
    unstable = [not np.array_equal(np.argsort(r), np.argsort(r, kind="stable")) for r in keys]
    assert any(unstable)  # else the test could not tell the orders apart
    for how, kind in (("unstable", None), ("", "stable")):
        alg = _compile(ORDER.format(how=how))
        for batch in (keys, keys[:1], keys[5:6]):
            visited = alg.run({"k": batch}, dtype=np.float64).hints["at"].argmax(-1).T
            expect = np.stack([np.argsort(r, kind=kind) for r in batch])
            assert np.array_equal(visited, expect), (how, batch.shape)
