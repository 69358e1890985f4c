"""The public Python API at its edges, used as the README describes it.

`algspec.load(path)` -> `.trace`, `.sampler(...).next(B)`, `.static_efficiency()`,
`algspec.register`: sizes 1 and 2, malformed inputs and arguments (clear `ValueError`s
that name what is wrong, never an IndexError or numpy's own words), and Feedback
batches shaped as dm-clrs's own samplers shape them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.efficiency.asymptotic import Asymptotic
from tests.support.small_programs import STAND_IN_HEAD

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "algorithms").glob("*.alg")) + sorted(
    (ROOT / "algorithms" / "clrs").glob("*.alg")) + sorted(
    (ROOT / "algorithms" / "parallel").glob("*.alg"))

GRAPH_ONLY = """algorithm graph_only
nodes 1
graph complete
input graph x: scalar ~ uniform_scalar()
hint graph y: scalar
output graph z: scalar
record
y = x * 2.0
record
z = y + 1.0
"""

PRIVATE = """algorithm private_pair
""" + STAND_IN_HEAD + """output node w: scalar
record
forall v { w[v] = f[v] - s[v] }
"""


@pytest.fixture(scope="module")
def search() -> algspec.CompiledAlgorithm:
    return algspec.load(ROOT / "algorithms" / "binary_search.alg")


@pytest.fixture(scope="module")
def kosaraju() -> algspec.CompiledAlgorithm:
    return algspec.load(ROOT / "algorithms" / "kosaraju.alg")


# ------------------------------------------------------------------ trace
def test_trace_accepts_lists_arrays_float32_and_python_scalars(search) -> None:
    key = [0.1, 0.2, 0.3, 0.7]
    ref_out, ref_probes = search.trace(key=np.array(key), target=np.float64(0.25))
    for k, t in ((key, 0.25), (np.array(key, np.float32), np.float32(0.25)),
                 (tuple(key), np.array(0.25))):
        out, probes = search.trace(key=k, target=t)
        assert out == ref_out == 2  # the first position whose key is >= 0.25
        for name, p in probes["hint"]["node"].items():
            np.testing.assert_array_equal(p["data"], ref_probes["hint"]["node"][name]["data"])
    assert search.trace(key=[1, 2, 3], target=2)[0] == 1  # ints are numbers too


def test_trace_at_n_1_and_2(search, kosaraju) -> None:
    assert search.trace(key=[0.1], target=0.5)[0] == 0
    assert search.trace(key=[0.1, 0.5], target=0.25)[0] == 1
    np.testing.assert_array_equal(kosaraju.trace(A=[[0.0]])[0], [0])
    np.testing.assert_array_equal(kosaraju.trace(A=[[0, 1], [1, 0]])[0], [0, 0])


@pytest.mark.parametrize("inputs, words", [
    ({"key": [[0.1, 0.2, 0.3]], "target": 0.2}, ["`key`", "one entry per node", "(1, 3)"]),
    ({"key": 0.1, "target": 0.2}, ["`key`", "one entry per node"]),
    ({"key": ["a", "b"], "target": 0.2}, ["`key`", "not an array of numbers"]),
    ({"key": [0.1, 0.2], "target": [0.3, 0.4]}, ["`target`", "(2,)"]),
])
def test_trace_wrong_shapes_are_value_errors_naming_the_input(search, inputs, words) -> None:
    with pytest.raises(ValueError) as e:
        search.trace(**inputs)
    for w in words:
        assert w in str(e.value)


def test_trace_ragged_or_wrong_rank_edge_input(kosaraju) -> None:
    with pytest.raises(ValueError, match="`A` is not an array of numbers"):
        kosaraju.trace(A=[[0, 1], [1]])
    with pytest.raises(ValueError, match="`A` is edge data and needs an n x n array"):
        kosaraju.trace(A=[0, 1, 1])
    with pytest.raises(ValueError, match=r"`A` is edge data and needs an n x n array.*\(2, 3\)"):
        kosaraju.trace(A=[[0, 1, 1], [1, 0, 0]])


def test_trace_missing_extra_and_misspelt_inputs(search) -> None:
    with pytest.raises(TypeError, match=r"missing \['target'\], unexpected \['taget'\]"):
        search.trace(key=[0.1, 0.2], taget=0.1)
    with pytest.raises(TypeError, match=r"unexpected \['foo'\]"):
        search.trace(key=[0.1, 0.2], target=0.1, foo=1)


def test_trace_with_graph_data_only_says_to_pass_n() -> None:
    alg = algspec.load_source(GRAPH_ONLY)
    assert alg.primary_inputs == ["x"]
    with pytest.raises(ValueError, match="n=4"):
        alg.trace(x=0.3)
    out, probes = alg.trace(x=0.3, n=3)
    assert out == pytest.approx(1.6)
    np.testing.assert_allclose(probes["hint"]["graph"]["y"]["data"], [0.0, 0.6])


def test_trace_of_private_draws_or_their_views() -> None:
    alg = algspec.load_source(PRIVATE)
    assert alg.primary_inputs == ["a", "b"]
    assert list(alg.spec) == ["pos", "s", "f", "w"]
    np.testing.assert_allclose(alg.trace(a=[0.1, 0.9], b=[0.5, 0.2])[0], [0.4, 0.7])
    np.testing.assert_allclose(alg.trace(s=[0.1, 0.2], f=[0.5, 0.9])[0], [0.4, 0.7])
    with pytest.raises(TypeError, match=r"derived inputs \['f', 's'\]"):
        alg.trace(s=[0.1, 0.2])


# ---------------------------------------------------------------- sampler
@pytest.mark.parametrize("kwargs, what", [
    ({"length": 2.5}, "length"), ({"length": 0}, "length"), ({"length": "4"}, "length"),
    ({"length": 4, "num_samples": 0}, "num_samples"), ({"length": 4, "num_samples": -2}, "num_samples"),
    ({"length": 4, "seed": -1}, "seed"), ({"length": 4, "seed": "a"}, "seed"),
    ({"length": 4, "seed": 1.5}, "seed"),
])
def test_sampler_rejects_bad_arguments_by_name(search, kwargs, what) -> None:
    with pytest.raises(ValueError, match=what):
        search.sampler(**kwargs)


def test_sampler_rejects_unknown_generator_parameters(search) -> None:
    with pytest.raises(ValueError, match="unknown generator parameter `hihg`.*key.high"):
        search.sampler(length=4, hihg=2.0)


def test_next_batch_sizes(search) -> None:
    fly = search.sampler(length=4, num_samples=-1, seed=0)
    with pytest.raises(ValueError, match="batch_size"):
        fly.next(-1)
    assert fly.next(2.0).features.lengths.shape == (2,)
    assert fly.next(1).features.inputs[1].data.shape == (1, 4)
    assert fly.next(600).features.inputs[1].data.shape == (600, 4)
    fixed = search.sampler(length=4, num_samples=3, seed=0)
    with pytest.raises(ValueError, match="batch_size"):
        fixed.next(-1)
    with pytest.raises(ValueError, match="Batch size 5 > dataset size 3"):
        fixed.next(5)  # as dm-clrs
    assert fixed.next().features.lengths.shape == (3,)


def _keys(fb) -> np.ndarray:
    return {d.name: d.data for d in fb.features.inputs}["key"]


@pytest.mark.parametrize("num_samples", [-1, 16])
def test_seeds_and_repeated_next(search, num_samples) -> None:
    a = search.sampler(length=6, num_samples=num_samples, seed=3)
    b = search.sampler(length=6, num_samples=num_samples, seed=3)
    c = search.sampler(length=6, num_samples=num_samples, seed=4)
    first = _keys(a.next(4))
    np.testing.assert_array_equal(first, _keys(b.next(4)))
    assert not np.array_equal(first, _keys(c.next(4)))
    assert not np.array_equal(first, _keys(a.next(4)))  # next batch, new samples
    if num_samples > 0:  # drawn from the fixed set
        pool = {tuple(r) for r in _keys(a.next())}
        assert {tuple(r) for r in _keys(a.next(8))} <= pool


@pytest.mark.parametrize("name, path", [("bubble_sort", "bubble_sort.alg"),
                                        ("binary_search", "binary_search.alg"),
                                        ("insertion_sort", "clrs/insertion_sort.alg")])
@pytest.mark.parametrize("length", [1, 5])
def test_feedback_has_dm_clrs_form(name, path, length) -> None:
    import clrs
    alg = algspec.load(ROOT / "algorithms" / path)
    assert alg.spec == dict(clrs.SPECS[name]) and list(alg.spec) == list(clrs.SPECS[name])
    theirs = clrs.build_sampler(name, num_samples=6, length=length, seed=0)[0].next(4)
    ours = alg.sampler(length=length, num_samples=6, seed=0).next(4)
    assert type(ours) is type(theirs)
    for a, b, skip in ((ours.features.inputs, theirs.features.inputs, 0),
                       (ours.features.hints, theirs.features.hints, 1),  # T: data-dependent
                       (ours.outputs, theirs.outputs, 0)):
        assert [(d.name, d.location, d.type_) for d in a] == \
            [(d.name, d.location, d.type_) for d in b]
        for x, y in zip(a, b):
            if length > 1 or skip:  # dm-clrs squeezes inputs' node axis away at n = 1
                assert x.data.shape[skip:] == y.data.shape[skip:], x.name
            assert x.data.shape[skip:skip + 1] == (4,)
            assert np.issubdtype(x.data.dtype, np.floating)  # float32 by design
    assert ours.features.lengths.dtype == theirs.features.lengths.dtype
    assert ours.features.lengths.shape == (4,)


# ------------------------------------------------------------- efficiency
def test_static_efficiency_evaluates_at_every_size() -> None:
    for path in SHIPPED:
        e = algspec.load(path).static_efficiency()
        for n, m in ((1, 1), (2, 2), (2, 4), (3, 9), (10 ** 6, 10 ** 6), (10 ** 6, 10 ** 12)):
            c = e.capacity.evaluate(n=n, m=m)
            assert math.isfinite(c) and c > 0, (path.name, str(e.capacity), n)
            for share in (e.node_efficiency, e.edge_efficiency):
                v = share.evaluate(n=n, m=m)
                assert 0 < v <= 1 + 1e-9, (path.name, str(share), n, m, v)


def test_evaluate_log_counts_at_least_one_and_sizes_are_checked() -> None:
    assert Asymptotic.parse("n log n").evaluate(n=64) == 64 * 6  # unchanged for n >= 2
    assert Asymptotic.parse("n log n").evaluate(n=1) == 1.0
    assert Asymptotic.parse("1/(n log n)").evaluate(n=1) == 1.0
    for bad in (0, -1, float("nan"), "4"):
        with pytest.raises(ValueError, match="n >= 1"):
            Asymptotic.parse("n").evaluate(n=bad)
    with pytest.raises(ValueError, match="m >= 1"):
        Asymptotic.parse("1/m").evaluate(n=4, m=0)
    with pytest.raises(ValueError, match="pass m="):
        Asymptotic.parse("1/m").evaluate(n=4)


def test_efficiency_str_is_the_cli_static_text(search) -> None:
    e = search.static_efficiency()
    text = str(e)
    for cls in (e.capacity, e.node_efficiency, e.edge_efficiency):
        assert str(cls) in text
    assert "capacity c = n log n" in text and "eta = 1/n" in text


# --------------------------------------------------------------- register
def test_register_replaces_and_refuses_non_algorithms(search) -> None:
    import clrs

    from algspec.clrs_bridge.register import unregister
    oets = algspec.load(ROOT / "algorithms" / "oets.alg")
    with pytest.raises(TypeError, match="compiled algorithm"):
        algspec.register("algorithms/oets.alg")
    with pytest.raises(ValueError, match="replace=True"):
        algspec.register(search)  # binary_search is dm-clrs's own
    try:
        assert algspec.register(search, name="edge_case_alg") == "edge_case_alg"
        assert algspec.register(oets, name="edge_case_alg") == "edge_case_alg"
        sampler, spec = clrs.build_sampler("edge_case_alg", num_samples=4, length=5, seed=1)
        assert spec == oets.spec == dict(clrs.SPECS["edge_case_alg"])
        ref = oets.sampler(length=5, num_samples=4, seed=1)
        np.testing.assert_array_equal(_keys(sampler.next()), _keys(ref.next()))
    finally:
        unregister("edge_case_alg")
    assert "edge_case_alg" not in clrs.SPECS


def test_trace_checks_an_explicit_n(search) -> None:
    assert search.trace(n=3.0, key=[0.1, 0.2, 0.3], target=0.2)[0] == 1
    for bad in ("3", 2.5, None.__class__):
        with pytest.raises(ValueError, match="n must be an integer"):
            search.trace(n=bad, key=[0.1, 0.2, 0.3], target=0.2)
    with pytest.raises(ValueError, match="E108"):
        search.trace(n=0, key=[], target=0.2)


def test_trace_takes_categorical_inputs_one_hot_as_the_feedback_holds_them() -> None:
    alg = algspec.load(ROOT / "algorithms" / "clrs" / "lcs_length.alg")
    fb = alg.sampler(length=5, num_samples=2, seed=1).next()
    ins = {d.name: d.data for d in fb.features.inputs}
    hints = {d.name: d.data for d in fb.features.hints}
    assert ins["key"].shape == (2, 5, 4)  # one-hot in the Feedback
    for i in range(2):
        one_hot = {k: ins[k][i] for k in alg.primary_inputs}
        indices = {**one_hot, "key": np.argmax(one_hot["key"], axis=-1)}
        (o1, p1), (o2, p2) = alg.trace(**one_hot), alg.trace(**indices)
        np.testing.assert_array_equal(o1, o2)
        frames = int(fb.features.lengths[i])
        for name, h in p1["hint"]["edge"].items():
            np.testing.assert_array_equal(h["data"], p2["hint"]["edge"][name]["data"])
            np.testing.assert_allclose(h["data"], hints[name][:frames, i])
    with pytest.raises(ValueError, match="`key` is categorical.*not one-hot"):
        alg.trace(**{**one_hot, "key": one_hot["key"] * 2})


def test_generator_faults_say_which_parameters_to_change(kosaraju) -> None:
    with pytest.raises(ValueError, match=r"parameters of `A` \(.*\bk\b.*\): sampler") as e:
        kosaraju.sampler(length=3, seed=0)
    assert "E105" in str(e.value)
    assert kosaraju.sampler(length=3, seed=0, k=1).next(2).features.lengths.shape == (2,)
