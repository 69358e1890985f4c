"""Float results do not depend on the CPU: every transcendental op goes through `libm`.

numpy's float64 `arctan2`, `power`, `log2`, `sin`, ... run SIMD kernels picked
by CPU feature (AVX-512 or not) whose last bit differs from the C library's.
algspec computes them through `algspec.ir.libm` instead (double-double arithmetic,
tests/ops/test_sin_cos_same_bits_everywhere.py and
tests/ops/test_exp_log_pow_atan2_same_bits_everywhere.py), so these tests pin the
IEEE / C99 values where the C library raises, and check that every op of the
semantics table whose value is not exactly rounded by IEEE 754 goes through it, in
the interpreter and in size expressions alike.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from algspec import ir
from algspec.ir import libm, ops

RNG = np.random.default_rng(20261125)
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 1e-310, -1e-310, 1e308, -1e308, 3.0, -3.0,
           math.inf, -math.inf, math.nan, 710.0, -745.5, 1e-5, 7.0]


def _points(count: int) -> np.ndarray:
    """Floats of every magnitude and sign, plus the special values."""
    mags = 10.0 ** RNG.uniform(-12, 12, count)
    signs = RNG.choice([-1.0, 1.0], count)
    return np.concatenate([mags * signs, RNG.uniform(-4, 4, count), SPECIAL])


def _same_bits(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


# No transcendental is the C library's own any more (its FMA and non-FMA code differ by
# CPU): sin/cos, exp/log/log2/pow and atan2 are double-double, compared there with
# independent references instead of with `math`.


def test_values_where_the_c_library_raises_are_the_ieee_ones():
    with np.errstate(all="ignore"):
        cases = [
            (libm.log2(np.array([0.0, -0.0, -1.0, -math.inf])), [-math.inf, -math.inf, math.nan,
                                                                 math.nan]),
            (libm.log(np.array([0.0, -3.0])), [-math.inf, math.nan]),
            (libm.exp(np.array([1000.0])), [math.inf]),
            (libm.sin(np.array([math.inf, -math.inf])), [math.nan, math.nan]),
            (libm.cos(np.array([math.inf])), [math.nan]),
            (libm.pow(np.array([0.0, -0.0, -0.0, 10.0, -10.0, -2.0]),
                      np.array([-1.0, -3.0, -2.0, 400.0, 401.0, 0.5])),
             [math.inf, -math.inf, math.inf, math.inf, -math.inf, math.nan]),
        ]
    for got, want in cases:
        for g, w in zip(got.tolist(), want):
            assert _same_bits(g, w), (got, want)


def test_shapes_broadcast_and_float32_stays_float32():
    y = libm.atan2(np.ones((3, 1)), np.arange(4.0))
    assert y.shape == (3, 4)
    assert y[2, 3] == math.atan2(1.0, 3.0)  # correctly rounded, as the C library here
    x32 = np.array([0.3, 2.0], dtype=np.float32)
    assert libm.log2(x32).dtype == np.float32
    assert libm.log2(x32)[0] == np.float32(math.log2(float(x32[0])))
    assert libm.log2(np.zeros((0, 3))).shape == (0, 3)
    assert libm.pow(2.0, 0.5).shape == ()


# Ops whose float value IEEE 754 rounds exactly (one correctly rounded operation, or an
# exact one): numpy's kernel cannot differ between CPUs for these. `rand_int` is integer
# arithmetic only (algspec/ir/op_rand_int.py).
EXACT = {"rand_int", "-", "+", "*", "/", "//", "%", "abs", "floor", "ceil", "int", "float", "sqrt", "min",
         "max", "<", "<=", ">", ">=", "==", "!=", "not", "and", "or", "~", "|", "^", "&", "<<",
         ">>", "pow2ceil"}


@pytest.mark.parametrize("op", [o for o in ops.ALL if o.name not in EXACT],
                         ids=lambda o: f"{o.kind}:{o.name}")
def test_every_inexact_op_gives_the_same_result_in_numpy_and_in_sizes(op):
    """An op outside EXACT is a transcendental: on random floats its numpy rule (the
    interpreter's) equals its size rule (Python floats, through `libm.scalar`) bit for
    bit. A new op that calls numpy's SIMD kernel or the C library in one rule fails
    here, and must be listed in EXACT only if IEEE 754 rounds it exactly."""
    args = [np.abs(_points(1500)[:1500]) * RNG.choice([1.0, -1.0], 1500)
            for _ in range(op.arity)]
    if op.name == "**":
        args[1] = RNG.uniform(-6, 6, 1500)
    op.type_rule(tuple(ir.DType.FLOAT for _ in args))
    with np.errstate(all="ignore"):
        got = op.numpy(*args)
    checked = 0
    for k in range(1500):
        try:
            want = op.size(*(float(a[k]) for a in args))
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        assert _same_bits(float(got[k]), float(want)), (op.name, [a[k] for a in args])
        checked += 1
    assert checked > 500


def test_every_op_is_classified_as_exact_or_checked():
    names = {o.name for o in ops.ALL}
    assert EXACT <= names, EXACT - names  # a stale entry would hide a renamed op
