"""A mask's `pad` may be written 0 or 1, as CLRS stores masks: read as `false` or `true`.

Any int expression of constant value 0 or 1 counts; other ints, floats and
non-constant ints stay E205, with a message that says to write `pad false`.
"""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError

SRC = ("algorithm t\nnodes n + 2\ngraph complete\n"
       "input node flag: mask ~ uniform_int(low = 0, high = 2) pad {pad}\n"
       "hint node h: mask := flag\nrecord\n")


@pytest.mark.parametrize("pad, value", [
    ("0", False), ("1", True), ("1 - 1", False), ("max(0, 1)", True), ("false", False),
    ("true", True),
])
def test_a_mask_pad_of_zero_or_one_is_false_or_true(pad: str, value: bool) -> None:
    alg = algspec.load_source(SRC.format(pad=pad))
    t = alg.sample(5, 3, seed=0)
    m = np.asarray(t.inputs["flag"])
    assert m.shape == (3, 7)
    np.testing.assert_array_equal(m[:, 5:], np.full((3, 2), float(value)))


@pytest.mark.parametrize("pad, kind", [("2", "an int"), ("n", "an int"), ("0.0", "a float"),
                                       ("-1", "an int")])
def test_other_mask_pads_say_to_write_false(pad: str, kind: str) -> None:
    with pytest.raises(AlgError) as e:
        algspec.load_source(SRC.format(pad=pad), "t.alg")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == ("E205", 4, 60)
    assert d.message == f"the pad of `flag` must be `false` or `true` (or 0 or 1), not {kind}"
    assert "`pad false`" in d.help


def test_a_scalar_pad_is_unchanged() -> None:
    src = SRC.replace("mask ~ uniform_int(low = 0, high = 2)", "scalar ~ uniform()") \
        .replace("hint node h: mask := flag", "hint node h: scalar := flag")
    t = algspec.load_source(src.format(pad="1")).sample(5, 2, seed=0)
    np.testing.assert_array_equal(np.asarray(t.inputs["flag"])[:, 5:], np.ones((2, 2)))


def test_storing_an_int_in_a_mask_elsewhere_says_true_or_false() -> None:
    src = "algorithm t\nnodes n\ngraph complete\nhint node h: mask := 0\nrecord\n"
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "t.alg")
    (d,) = e.value.diagnostics
    assert d.code == "E205" and d.message == "an int value cannot be stored as bool"
    assert "`true` or `false`" in d.help
