"""The shipped example programs compute what they claim (numpy as the reference)."""

from pathlib import Path

import numpy as np
import pytest

import algspec

PARALLEL = Path(__file__).resolve().parents[2] / "algorithms" / "parallel"


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 31])
def test_prefix_sums_equal_cumsum(n: int) -> None:
    alg = algspec.load(PARALLEL / "prefix_sums.alg")
    x = np.random.default_rng(n).random(n)
    out, probes = alg.trace(x=x)
    np.testing.assert_allclose(out, np.cumsum(x), rtol=1e-12)
    # one frame before the loop and one per doubling round
    assert probes["hint"]["node"]["partial"]["data"].shape[0] == 1 + int(np.ceil(np.log2(n)))


def test_prefix_sums_batched_equals_single() -> None:
    alg = algspec.load(PARALLEL / "prefix_sums.alg")
    inputs = alg.generate(12, 5, np.random.default_rng(3))
    traj = alg.run(inputs, 12, dtype=np.float64)
    for b in range(5):
        np.testing.assert_allclose(traj.outputs["total"][b], np.cumsum(inputs["x"][b]))


def test_prefix_sums_is_node_efficient() -> None:
    eff = algspec.load(PARALLEL / "prefix_sums.alg").static_efficiency()
    assert str(eff.capacity) == "n log n"
    assert str(eff.node_efficiency) == "1"
