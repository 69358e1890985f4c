"""Random functions, integers feeding pointers, a graph-level integer and two sorted runs.

`f: pointer ~ uniform_int(low = 0, high = n)` was E110 (integers are not pointers), a
subset-sum target had to be a `random_index()`, and a random function or two sorted runs
needed a private draw plus views.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.generators import GENERATORS, draw_inputs, validate_params
from algspec.lint import lint_source

HEAD = "algorithm t\nnodes n\ngraph complete\n"
COPY = "output node o: pointer\nforall v { o[v] = f[v] }\n"


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _errors(src: str) -> list:
    return [d for d in lint_source(HEAD + src, "t.alg") if d.severity == "error"]


# ------------------------------------------------------------------ random_pointer


def test_random_pointer_is_a_uniform_random_function() -> None:
    n, b = 6, 20000
    x = GENERATORS["random_pointer"].sample(_rng(1), b, n)
    assert x.shape == (b, n) and (x == np.round(x)).all() and 0 <= x.min() and x.max() < n
    freq = np.bincount(x.astype(int).ravel(), minlength=n) / x.size
    assert np.abs(freq - 1 / n).max() < 0.01
    # independent targets: self-pointers and repeated targets occur, unlike a permutation
    assert (x == np.arange(n)).mean() == pytest.approx(1 / n, abs=0.01)
    assert np.mean([len(set(row)) < n for row in x]) > 0.9  # P(bijection) = 6!/6^6


def test_random_pointer_and_random_permutation_feed_pointers() -> None:
    for gen in ("random_pointer", "random_permutation"):
        alg = algspec.load_source(HEAD + f"input node f: pointer ~ {gen}()\n" + COPY, "t.alg")
        t = alg.sample(5, 4, seed=0)
        np.testing.assert_array_equal(t.outputs["o"], t.inputs["f"])


# ------------------------------------------------------------------ uniform_int -> pointer


def test_uniform_int_in_n_feeds_a_pointer_and_stays_in_range() -> None:
    alg = algspec.load_source(HEAD + "input node f: pointer ~ uniform_int(low = 0, high = n)\n"
                              + COPY, "t.alg")
    for n in (1, 2, 7):
        f = alg.sample(n, 50, seed=n).inputs["f"]
        assert 0 <= f.min() and f.max() <= n - 1
    assert alg.sample(7, 200, seed=0).inputs["f"].max() == 6  # the whole range is drawn


def test_uniform_int_past_the_nodes_is_r101_at_every_seed_with_its_bounds_as_written() -> None:
    src = HEAD + "input node f: pointer ~ uniform_int(low = 0, high = n + 1)\n" + COPY
    alg = algspec.load_source(src, "t.alg")  # not provably out of range at load
    for seed in (0, 1):
        with pytest.raises(RuntimeFault) as e:
            alg.sample(4, 1, seed=seed)
        d = e.value.diagnostic
        assert d.code == "R101" and d.span.line == 4, d.concise()
        assert "integers in [0, n + 1) = integers in [0, 4] at n = 4" in d.message, d.message
        assert "node indices in [0, 3]" in d.message
    [d] = _errors("input node f: pointer ~ uniform_int(low = -1, high = n)\n" + COPY)
    assert d.code == "R101" and "integers in [-1, n)" in d.message  # lint samples the file


def test_an_override_past_the_nodes_is_r101() -> None:
    alg = algspec.load_source(HEAD + "input node f: pointer ~ uniform_int(low = 0, high = n)\n"
                              + COPY, "t.alg")
    with pytest.raises(RuntimeFault, match=r"R101 .*integers in \[0, 9\)"):
        alg.sample(5, 2, seed=0, f__high=9)


def test_a_constant_integer_range_is_e110_unless_it_is_node_zero() -> None:
    [d] = _errors("input node f: pointer ~ uniform_int(low = 0, high = 4)\n" + COPY)
    assert d.code == "E110" and "draws integers in [0, 3]" in d.message, d.message
    assert "in [0, n) at every n" in d.message and "`high = n`" in d.message
    assert "random_pointer()" in d.message
    assert not _errors("input node f: pointer ~ uniform_int(low = 0, high = 1)\n" + COPY)
    # integers without a range the generator can state at n stay E110
    [d] = _errors("input node f: pointer ~ deadlines()\n" + COPY)
    assert d.code == "E110" and "whatever their range" in d.message


# ------------------------------------------------------------------ graph-level integers


def test_uniform_int_scalar_draws_one_integer_per_graph() -> None:
    g = GENERATORS["uniform_int_scalar"]
    assert g.location == "graph" and g.domain_of().kind == "int"
    x = g.sample(_rng(2), 5000, 4, low=1, high=40)
    assert x.shape == (5000,) and (x == np.round(x)).all()
    assert x.min() == 1 and x.max() == 39 and abs(x.mean() - 20) < 0.5
    assert validate_params("uniform_int_scalar", {"low": 3, "high": 3})  # empty range


def test_graph_target_from_an_expression_in_n() -> None:
    src = HEAD + ("input graph target: scalar ~ uniform_int_scalar(low = 1, high = 10 * n)\n"
                  "output graph o: scalar = target\nrecord\n")
    alg = algspec.load_source(src, "t.alg")
    t = alg.sample(3, 400, seed=0).outputs["o"]
    assert t.min() >= 1 and t.max() <= 29 and len(np.unique(t)) > 20


def test_uniform_int_on_a_graph_input_points_at_its_graph_form() -> None:
    with pytest.raises(AlgError) as e:
        algspec.load_source(HEAD + "input graph t: scalar ~ uniform_int(low = 1, high = 9)\n"
                            "output graph o: scalar = t\nrecord\n", "t.alg")
    [d] = e.value.diagnostics
    assert d.code == "E104" and "uniform_int_scalar()" in (d.help or ""), d.concise()


def test_a_graph_integer_feeds_a_graph_pointer() -> None:
    src = HEAD + ("input graph r: pointer ~ uniform_int_scalar(low = 0, high = n)\n"
                  "output graph o: pointer = r\nrecord\n")
    r = algspec.load_source(src, "t.alg").sample(6, 300, seed=0).outputs["o"]
    assert r.min() == 0 and r.max() == 5


# ------------------------------------------------------------------ two sorted runs


def _runs(n: int, batch: int, seed: int = 0, **params) -> tuple[np.ndarray, np.ndarray]:
    out = draw_inputs({"key": ("two_sorted_runs", params),
                       "k": ("two_sorted_runs_split", params)}, _rng(seed), batch, n)
    return out["key"], out["k"]


@pytest.mark.parametrize(("split", "n"), [(0, 9), (3, 9), (-1, 9), (0, 1), (-1, 1), (9, 9)])
def test_each_run_is_sorted_and_the_split_is_drawn_with_the_keys(split: int, n: int) -> None:
    key, k = _runs(n, 300, split=split)
    assert key.shape == (300, n) and k.shape == (300,)
    for row, h in zip(key, k.astype(int)):
        assert 0 <= h <= n
        assert (np.diff(row[:h]) >= 0).all() and (np.diff(row[h:]) >= 0).all()
    if split >= 0:
        assert (k == (n // 2 if split == 0 else split)).all()
    else:  # uniform over [0, n], empty runs included
        assert set(k.astype(int)) == set(range(n + 1))


def test_the_keys_are_sorted_uniform_draws_and_usually_not_one_run() -> None:
    key, _ = _runs(8, 4000, split=4, low=2.0, high=3.0)
    assert 2.0 <= key.min() and key.max() < 3.0
    assert abs(key.mean() - 2.5) < 0.01
    assert np.mean(key[:, 3] > key[:, 4]) > 0.4  # the runs are independent of each other


def test_a_split_past_n_is_a_parameter_error_at_that_n() -> None:
    with pytest.raises(ValueError, match="split=5 exceeds n=4"):
        _runs(4, 2, split=5)
    src = HEAD + ("input node key: scalar ~ two_sorted_runs(split = 5)\n"
                  "output node o: scalar = key\nrecord\n")
    with pytest.raises(RuntimeFault, match="E105"):
        algspec.load_source(src, "t.alg").sample(4, 1, seed=0)


def test_a_split_below_n_feeds_a_graph_pointer_and_an_empty_run_cannot() -> None:
    src = HEAD + ("input node key: scalar ~ two_sorted_runs()\n"
                  "input graph k: pointer ~ two_sorted_runs_split()\n"
                  "output graph o: pointer = k\nrecord\n")
    alg = algspec.load_source(src, "t.alg")
    assert (alg.sample(7, 3, seed=0).outputs["o"] == 3).all()
    with pytest.raises(RuntimeFault, match=r"R101 .*an integer in \[0, n\]"):
        algspec.load_source(src.replace("()", "(split = -1)"), "t.alg").sample(7, 3, seed=0)


# ------------------------------------------------------------------ reproducibility

# The bytes of each new generator at one seed: integers, uniform floats and sorting only,
# so these hold on every CPU.
PINNED = [
    ("random_pointer", {}, "1fbbe3d4d9f5a503"),
    ("uniform_int_scalar", {"low": 1, "high": 50}, "5a64749546d12c13"),
    ("two_sorted_runs", {"split": -1}, "2cc33b012059cfe6"),
    ("two_sorted_runs_split", {"split": -1}, "5ff7920eb65a4946"),
]


@pytest.mark.parametrize(("name", "params", "digest"), PINNED)
def test_new_generators_give_pinned_bytes(name: str, params: dict, digest: str) -> None:
    x = GENERATORS[name].sample(_rng(7), 5, 11, **params)
    assert hashlib.sha256(x.tobytes()).hexdigest()[:16] == digest


def test_every_integer_generator_with_bounds_is_complete() -> None:
    """`bounds` says the range drawn at n, `shown` the range as written: both or neither."""
    for name, gen in GENERATORS.items():
        assert (gen.bounds is None) == (gen.shown is None), name
        if gen.bounds is None:
            continue
        assert gen.domain_of().kind == "int", name
        for n in (1, 5, 12):
            low, high = gen.bounds(n, dict(gen.defaults))
            x = gen.sample(_rng(n), 200, n)
            assert low <= x.min() and x.max() <= high, name
        assert gen.shown(dict(gen.defaults))
