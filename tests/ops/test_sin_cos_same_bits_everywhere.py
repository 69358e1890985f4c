"""`libm.sin` and `libm.cos` are correctly rounded, in arithmetic that no CPU changes.

glibc computes `math.sin`/`math.cos` with FMA code on CPUs that have it and without
elsewhere, and the two differ in the last bit now and then, so algspec evaluates them
in double-double (`algspec.ir.double_double`): only + - * on float64, which IEEE 754
rounds exactly on every CPU. These tests compare with an independent reference (a
Taylor series in 80-digit decimal arithmetic, rounded once) and check that the result
does not move when glibc's FMA code is switched off.
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal, localcontext

import numpy as np
import pytest

from algspec.ir import double_double, libm
from tests.support.glibc_fma import assert_ours_unchanged_with_fma_off


def _pi() -> Decimal:
    with localcontext() as ctx:  # Machin: pi/4 = 4 atan(1/5) - atan(1/239)
        ctx.prec = 90
        return 4 * sum((Decimal(-1) ** i * (4 / ((2 * i + 1) * Decimal(5) ** (2 * i + 1))
                                            - 1 / ((2 * i + 1) * Decimal(239) ** (2 * i + 1)))
                        for i in range(70)), Decimal(0))


PI = _pi()


def _sin_reference(x: float, quarter_turns: int = 0) -> float:
    """sin(x + quarter_turns * pi/2), to 80 digits, then rounded once to float64."""
    with localcontext() as ctx:
        ctx.prec = 90
        y = Decimal(x) + quarter_turns * PI / 2
        k = int((y / PI).to_integral_value())
        r = y - k * PI
        total, term, i = Decimal(0), r, 1
        while term != 0 and abs(term) > abs(r) * Decimal(10) ** -85:
            total += term
            term = -term * r * r / ((i + 1) * (i + 2))
            i += 2
        return float(-total if k % 2 else total)


def _points() -> np.ndarray:
    rng = np.random.default_rng(20261128)
    return np.concatenate([
        rng.uniform(0.0, 2 * math.pi, 800),  # the disk generator's angles
        rng.uniform(-60.0, 60.0, 300),
        10.0 ** rng.uniform(-20, 5, 300) * rng.choice([-1.0, 1.0], 300),
        [0.5 * math.pi, math.pi, 1.5 * math.pi, 2 * math.pi, 1e-300, 5e-324, 3.0, 355.0,
         524287.0, -524287.5],
    ])


@pytest.mark.parametrize("ours, shift", [(libm.sin, 0), (libm.cos, 1)], ids=["sin", "cos"])
def test_sin_and_cos_are_correctly_rounded(ours, shift):
    xs = _points()
    got = ours(xs)
    want = np.array([_sin_reference(x, shift) for x in xs.tolist()])
    bad = [(x, g, w) for x, g, w in zip(xs.tolist(), got.tolist(), want.tolist()) if g != w]
    assert not bad, bad[:5]


def test_edge_values_dtypes_and_shapes():
    assert math.copysign(1.0, float(libm.sin(np.array(-0.0)))) == -1.0
    assert libm.cos(np.array([0.0, -0.0])).tolist() == [1.0, 1.0]
    assert np.isnan(libm.sin(np.array([math.inf, -math.inf, math.nan]))).all()
    big = np.array([1e6, -3e10, 1e300])  # beyond the reduction: the C library's value
    assert libm.sin(big).tolist() == [math.sin(v) for v in big.tolist()]
    assert libm.cos(np.float32(0.25)).dtype == np.float32
    assert libm.sin(np.zeros((0, 3))).shape == (0, 3)
    assert libm.cos(np.ones((2, 3))).shape == (2, 3)
    assert double_double.REDUCED_BELOW == 2.0**19


_PROBE = """\
import hashlib, numpy as np
from algspec.ir import libm
x = np.random.default_rng(5).uniform(0.0, 6.3, 50000)
print(hashlib.sha256(libm.sin(x).tobytes() + libm.cos(x).tobytes()).hexdigest(),
      hashlib.sha256(np.array([__import__("math").sin(v) for v in x.tolist()]).tobytes())
      .hexdigest())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="GLIBC_TUNABLES, glibc's switch for its FMA code, exists on Linux only")
def test_same_bits_with_the_c_librarys_fma_code_off():
    """With glibc's FMA variants off (`GLIBC_TUNABLES`) `math.sin` changes, ours does not."""
    assert_ours_unchanged_with_fma_off(_PROBE)
