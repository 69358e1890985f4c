"""`libm.exp`, `log`, `log2`, `pow` and `atan2` are correctly rounded, in arithmetic that
no CPU changes.

glibc computes these with FMA code on CPUs that have it and without elsewhere, and the
two differ in the last bit now and then, so algspec evaluates them in double-double
(`algspec.ir.exp_log`, `algspec.ir.atan2_dd`): only + - * / on float64, which IEEE 754
rounds exactly on every CPU. These tests compare with independent references (50-digit
decimal arithmetic, rounded once), pin the exact and special values, and check that the
results do not move when glibc's FMA code is switched off.
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

from algspec.ir import atan2_dd, libm
from tests.support.glibc_fma import assert_ours_unchanged_with_fma_off

RNG = np.random.default_rng(20261201)


def _ref(f, *args: float) -> float:
    """`f` on the exact decimal values of `args` in 50 digits, rounded once to float64."""
    with localcontext() as ctx:
        ctx.prec = 50
        return f(*(Decimal(a) for a in args))


def _exp(x: Decimal) -> float:
    return math.inf if x > 710 else (0.0 if x < -746 else float(x.exp()))


def _log2(x: Decimal) -> float:
    return float(x.ln() / Decimal(2).ln())


def _pow(x: Decimal, y: Decimal) -> float:
    odd = x < 0 and y == y.to_integral_value() and y % 2 != 0
    v = _exp(y * abs(x).ln())
    return -v if odd else v


def _atan2(y: Decimal, x: Decimal) -> float:
    a, b = abs(y), abs(x)
    t = min(a, b) / max(a, b)
    ang = t - t**3 / 3 + t**5 / 5 if t < Decimal(10) ** -12 else atan2_dd._atan(t)
    pi = 4 * atan2_dd._atan(Decimal(1))
    ang = pi / 2 - ang if a > b else ang
    ang = pi - ang if x < 0 else ang
    return math.copysign(float(ang), y)


def _wide(count: int) -> np.ndarray:
    return 10.0 ** RNG.uniform(-300, 300, count)


CASES = {
    "exp": (libm.exp, _exp, lambda: (np.concatenate([
        RNG.uniform(-745.1, 709.7, 600), RNG.uniform(-1, 1, 200), 10.0 ** RNG.uniform(-20, 0, 100),
        RNG.uniform(-745.1, -708, 100)]),)),
    "log": (libm.log, lambda x: float(x.ln()), lambda: (np.concatenate([
        _wide(600), 1 + RNG.uniform(-1e-3, 1e-3, 200), 1 + RNG.uniform(-1e-12, 1e-12, 100),
        RNG.uniform(0, 1e-310, 100)]),)),
    "log2": (libm.log2, _log2, lambda: (np.concatenate([
        _wide(600), 1 + RNG.uniform(-1e-3, 1e-3, 200), RNG.uniform(0, 1e-310, 100)]),)),
    "pow": (libm.pow, _pow, lambda: (
        np.concatenate([10.0 ** RNG.uniform(-30, 30, 500), RNG.uniform(0, 3, 300),
                        -RNG.uniform(0, 10, 200)]),
        np.concatenate([RNG.uniform(-20, 20, 500), RNG.uniform(-300, 300, 300),
                        RNG.integers(-60, 60, 200).astype(float)]))),
    "atan2": (libm.atan2, _atan2, lambda: (
        np.concatenate([RNG.uniform(-10, 10, 600), _wide(400) * RNG.choice([-1.0, 1.0], 400)]),
        np.concatenate([RNG.uniform(-10, 10, 600), _wide(400) * RNG.choice([-1.0, 1.0], 400)]))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_correctly_rounded_on_random_points(name):
    ours, ref, points = CASES[name]
    args = points()
    got = ours(*args).tolist()
    cols = [a.tolist() for a in args]
    bad = [(p, g, w) for p, g in zip(zip(*cols), got) if g != (w := _ref(ref, *p))]
    assert not bad, bad[:5]


def _bits_equal(got, want) -> bool:
    return all((math.isnan(g) and math.isnan(w)) or
               (g == w and math.copysign(1.0, g) == math.copysign(1.0, w))
               for g, w in zip(np.asarray(got).tolist(), want))


def test_exact_results_are_exact():
    k = np.arange(-1074, 1024)
    assert libm.log2(np.ldexp(1.0, k)).tolist() == k.astype(float).tolist()
    assert libm.exp(np.array([0.0, -0.0])).tolist() == [1.0, 1.0]
    assert _bits_equal(libm.log(np.array([1.0])), [0.0])  # +0.0
    assert libm.pow(np.array([2.0, 9.0, 7.0, 0.25, -2.0, -3.0, 10.0, 2.0]),
                    np.array([10.0, 0.5, 0.0, -1.5, 3.0, 4.0, 22.0, 1023.0])).tolist() == \
        [1024.0, 3.0, 1.0, 8.0, -8.0, 81.0, 1e22, 2.0**1023]
    # exactly half-way between two floats: ties to even, as the exact value rounds
    for x, n in [(94906267.0, 2), (94906265.0, 2), (3 * 2.0**-215, 5), (2.0, -1075)]:
        assert libm.pow(np.array([x]), np.array([float(n)]))[0] == float(Fraction(x) ** n), (x, n)


def test_special_values_are_c99s():
    with np.errstate(all="ignore"):
        assert _bits_equal(libm.exp(np.array([710.0, -746.0, math.inf, -math.inf, math.nan])),
                           [math.inf, 0.0, math.inf, 0.0, math.nan])
        assert libm.exp(np.array([-745.0]))[0] == 5e-324  # subnormal, rounded once
        for f in (libm.log, libm.log2):
            assert _bits_equal(f(np.array([0.0, -0.0, -1.0, -math.inf, math.inf, math.nan])),
                               [-math.inf, -math.inf, math.nan, math.nan, math.inf, math.nan])
        assert _bits_equal(libm.pow(np.array([-8.0, 10.0, -10.0, 10.0, -10.0, math.nan, 1.0]),
                                    np.array([1 / 3, -400.0, -401.0, 400.0, 401.0, 0.0, math.nan])),
                           [math.nan, 0.0, -0.0, math.inf, -math.inf, 1.0, 1.0])
        specials = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 2.5, math.inf, -math.inf, math.nan]
        xs, ys = np.meshgrid(specials, specials)
        xs, ys = xs.ravel(), ys.ravel()
        assert _bits_equal(libm.pow(xs, ys), [libm._pow(a, b) for a, b in zip(xs.tolist(), ys.tolist())])
        assert _bits_equal(libm.atan2(ys, xs), [math.atan2(b, a) for a, b in zip(xs.tolist(), ys.tolist())])
        assert libm.atan2(np.array([1e-320, -1e-320]), np.array([1.0, -3.0])).tolist() == \
            [1e-320, -math.pi]


_PROBE = """\
import hashlib, math, numpy as np
from algspec.ir import libm
rng = np.random.default_rng(5)
x, y = rng.uniform(0.01, 50.0, 40000), rng.uniform(-8.0, 8.0, 40000)
ours = [libm.exp(y), libm.log(x), libm.log2(x), libm.pow(x, y), libm.atan2(y, x - 25.0)]
libc = [[f(*v) for v in zip(x.tolist(), y.tolist())]
        for f in (lambda a, b: math.exp(b), lambda a, b: math.log(a), math.pow)]
print(hashlib.sha256(b"".join(o.tobytes() for o in ours)).hexdigest(),
      hashlib.sha256(np.array(libc).tobytes()).hexdigest())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="GLIBC_TUNABLES, glibc's switch for its FMA code, exists on Linux only")
def test_same_bits_with_the_c_librarys_fma_code_off():
    """With glibc's FMA variants off (`GLIBC_TUNABLES`) `math.exp` and friends change,
    ours do not."""
    assert_ours_unchanged_with_fma_off(_PROBE)
