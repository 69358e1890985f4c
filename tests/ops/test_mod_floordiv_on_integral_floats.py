"""`%` and `//` of floats holding integers are Python's integer arithmetic, exactly rounded;
a float operand that is not an integer is the run-time fault R114 (lint samples report it),
a zero divisor R104 as for ints."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import RuntimeFault
from algspec.ir import ops
from algspec.lint import lint_source

INTS = [0, 1, 2, 3, 7, 10, 999, 2 ** 52 + 1, 2 ** 53, 2 ** 60 + 2 ** 9, 2 ** 62]


@pytest.mark.parametrize("op", ["%", "//"])
def test_integral_floats_give_the_integer_result_rounded_once(op):
    f = ops.BINARY[op].numpy
    py = (lambda x, y: x % y) if op == "%" else (lambda x, y: x // y)
    vals = [s * x for x in INTS for s in (1, -1)]
    a = np.array([x for x in vals for y in vals if y], np.float64)
    b = np.array([y for x in vals for y in vals if y], np.float64)
    got = f(a, b)
    want = np.array([float(py(int(x), int(y))) for x, y in zip(a, b)])  # exact, then rounded
    assert got.dtype == np.float64 and np.array_equal(got, want)
    assert not np.signbit(got[got == 0]).any()  # 0 is +0.0, as float(0)
    assert f(np.float32(7), np.float32(-2)).dtype == np.float32


def test_ints_keep_their_rule():
    assert ops.BINARY["%"].numpy(np.array([-7]), np.array([2])).tolist() == [1]
    assert ops.BINARY["//"].numpy(np.array([-7]), np.array([2])).tolist() == [-4]


PROGRAM = """
algorithm digits
nodes n
graph complete
input node a: scalar ~ uniform_int(low = -500, high = 5000)
input node b: scalar ~ uniform_int(low = 1, high = 40)
output node r: scalar = a % b
output node q: scalar = a // b
output node d: scalar := 0.0
forall v { d[v] = (a[v] // 10) % 10 }
"""


def test_scalar_inputs_holding_integers_need_no_casts():
    t = algspec.load_source(PROGRAM, "digits.alg").sample(9, 8, seed=2)
    a, b = t.inputs["a"].astype(np.int64), t.inputs["b"].astype(np.int64)
    assert np.array_equal(t.outputs["r"], a % b) and np.array_equal(t.outputs["q"], a // b)
    assert np.array_equal(t.outputs["d"], a // 10 % 10)


@pytest.mark.parametrize("a, b, code, says", [
    (2.5, 2.0, "R114", "left operand of `//` holds 2.5"),
    (7.0, 0.5, "R114", "right operand of `%` holds 0.5"),
    (np.inf, 2.0, "R114", "holds inf"),
    (7.0, 0.0, "R104", "by zero"),
])
def test_a_non_integer_or_zero_operand_is_a_fault(a, b, code, says):
    alg = algspec.load_source(PROGRAM, "digits.alg")
    with pytest.raises(RuntimeFault) as err:
        alg.trace(a=np.array([4.0, a]), b=np.array([3.0, b]))
    assert err.value.diagnostic.code == code and says in err.value.diagnostic.message


def test_lint_reports_a_fractional_operand_from_its_samples():
    src = PROGRAM.replace("~ uniform_int(low = 1, high = 40)", "~ uniform(low = 1, high = 40)")
    codes = [d.code for d in lint_source(src, "frac.alg")]
    assert "R114" in codes
