"""`trace` takes a value for a derived input in place of its definition only where that
definition reads nothing recorded. A datum computed from recorded inputs is taken only with
those inputs and only where it is what its definition computes (at the stored precision):
otherwise the run would follow the given value while the probes record inputs that
contradict it. Such values are refused, naming the input to give instead."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from tests.support.small_programs import STAND_IN_HEAD

COUNTED = """algorithm counted
nodes n
graph complete
input node flag: mask ~ uniform_int()
private graph cnt: int = count(not flag[u] for u in nodes)
output graph out: scalar
record
out = float(cnt)
"""

CHAINED = """algorithm chained
""" + STAND_IN_HEAD + """input node key: scalar ~ uniform()
private node gap: float = f - s
input node score: scalar = gap + key
output node w: scalar
record
forall v { w[v] = score[v] }
"""


def test_a_private_count_of_a_recorded_input_is_refused() -> None:
    alg = algspec.load_source(COUNTED)
    assert alg.stand_in_inputs == []
    with pytest.raises(TypeError, match=r"unexpected `cnt`.*recorded input `flag`.*"
                                        r"give `flag` instead"):
        alg.trace(n=4, cnt=1)
    with pytest.raises(ValueError, match=r"the given `cnt` is not what its definition "
                                         r"computes from the input `flag`.*leave `cnt` out"):
        alg.trace(flag=[0, 0, 1, 1], cnt=3)
    out, probes = alg.trace(flag=[0, 0, 1, 1])
    assert out == 2.0
    np.testing.assert_array_equal(probes["input"]["node"]["flag"]["data"], [0, 0, 1, 1])
    assert alg.trace(flag=[0, 0, 1, 1], cnt=2)[0] == 2.0  # what it computes: accepted


def test_the_missing_input_message_offers_only_views_that_may_stand_in() -> None:
    counted = algspec.load_source(COUNTED)
    with pytest.raises(TypeError) as e:
        counted.trace(n=4)
    assert "missing ['flag']" in str(e.value) and "cnt" not in str(e.value)
    assert "in place of" not in str(e.value)
    chained = algspec.load_source(CHAINED)
    assert chained.stand_in_inputs == ["s", "f"]
    with pytest.raises(TypeError, match=r"derived inputs \['f', 's'\], which stand in for "
                                        r"the private draws"):
        chained.trace(key=[0.1, 0.2])


def test_a_view_read_through_private_data_names_every_recorded_source() -> None:
    """`score` reads `key` and, through the private `gap`, the recorded `s` and `f`."""
    alg = algspec.load_source(CHAINED)
    assert alg.recorded_sources("score") == ["s", "f", "key"]
    with pytest.raises(TypeError, match=r"unexpected `score`.*recorded inputs `s`, `f`, "
                                        r"`key`.*give `key` instead"):
        alg.trace(s=[0.1, 0.2], f=[0.3, 0.4], score=[9.0, 9.0])
    with pytest.raises(ValueError, match=r"`score`.*inputs `s`, `f`, `key` \(2 of its 2 "
                                         r"entries differ\)"):
        alg.trace(s=[0.1, 0.2], f=[0.3, 0.4], key=[0.0, 0.0], score=[9.0, 9.0])
    out, probes = alg.trace(s=[0.1, 0.2], f=[0.3, 0.5], key=[0.0, 1.0])
    np.testing.assert_allclose(out, [0.2, 1.3])
    np.testing.assert_allclose(probes["input"]["node"]["score"]["data"], [0.2, 1.3])


def test_a_computed_float_view_given_at_the_stored_precision_is_run_as_given() -> None:
    """A sample runs on its float32 views; given back with their inputs they replay it."""
    alg = algspec.load_source(CHAINED)
    s, f, key = [0.1, 0.2], [0.3, 0.5], [1 / 3, 1.0]
    stored = np.float32(np.array([0.2, 0.3]) + np.array(key))  # what a dataset holds
    out, _ = alg.trace(s=s, f=f, key=key, score=stored)
    assert np.array_equal(out, stored.astype(np.float64))
    with pytest.raises(ValueError, match="1 of its 2 entries differ"):
        alg.trace(s=s, f=f, key=key, score=stored + np.float32([0.0, 1e-3]))


def test_pos_is_refused_as_computed_from_the_size() -> None:
    alg = algspec.load_source(COUNTED)
    with pytest.raises(TypeError, match=r"unexpected `pos`: it is computed from the problem "
                                        r"size"):
        alg.trace(flag=[0, 1], pos=[0.0, 0.5])
