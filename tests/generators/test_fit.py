"""Generators in `.alg` files: type fit at load time (E110) and parameters in n.

`categorical(4) ~ uniform()`, `mask ~ uniform()` and `mask_one ~
uniform()` used to load and lint clean, then sample category 0, all-true masks
or an R106. `p = 2.0 / n` used to be an E105.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.diagnostics import AlgError

H = "algorithm t\nnodes n\ngraph complete\n"
BODY = "output node o: mask\nforall v { o[v] = true }\n"


def _load(decl: str, body: str = BODY):
    return algspec.load_source(H + decl + "\n" + body, "bad.alg")


def _only(decl: str):
    with pytest.raises(AlgError) as e:
        _load(decl)
    [d] = e.value.diagnostics
    return d


@pytest.mark.parametrize(
    ("decl", "fragments"),
    [
        ("input node key: categorical(4) ~ uniform()",
         ("`uniform`", "real numbers", "categorical(4)", "random_string()")),
        ("input node s: mask ~ uniform()", ("`uniform`", "mask", "0/1")),
        ("input node s: mask_one ~ uniform()", ("mask_one", "one node", "source_node()")),
        ("input node k: categorical(3) ~ random_string()", ("categories 0..3", "categorical(3)")),
        ("input node p: permutation ~ random_permutation()", ("permutation", "random_list()")),
        ("input node p: pointer ~ uniform_int(low = 0, high = 4)", ("pointer", "node indices")),
        ("input edge A: mask ~ clrs_erdos_renyi(weighted = true)", ("real numbers", "mask")),
        ("input graph t: pointer ~ uniform_scalar()", ("pointer",)),
    ],
)
def test_generator_that_does_not_fit_its_type_is_e110(decl: str, fragments: tuple) -> None:
    d = _only(decl)
    assert d.code == "E110", d.concise()
    assert d.span.line == 4 and d.span.column > decl.index("~"), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.message)
    assert d.concise().startswith("bad.alg:4:")


@pytest.mark.parametrize(
    "decl",
    [
        "input node key: categorical(4) ~ random_string()",
        "input node key: categorical(3) ~ random_string(chars = 3)",
        "input node key: categorical(5) ~ uniform_int(low = 0, high = 5)",
        "input node s: mask ~ uniform_int()",
        "input node s: mask_one ~ source_node()",
        "input node p: permutation ~ random_list()",
        "input node p: pointer ~ random_permutation()",
        "input node p: pointer ~ random_tree()",
        "input graph r: pointer ~ random_index()",
        "input edge A: scalar ~ clrs_erdos_renyi(weighted = true)",
        "input edge A: mask ~ erdos_renyi()",
        "input node d: scalar ~ deadlines()",
    ],
)
def test_generators_that_fit_load_and_sample(decl: str) -> None:
    alg = _load(decl)
    traj = alg.sample(6, 5, seed=0)
    assert traj.inputs[decl.split(":")[0].split()[-1]].shape[0] == 5


def test_location_mismatch_is_still_e104() -> None:
    d = _only("input node A: scalar ~ erdos_renyi()")
    assert d.code == "E104" and "edge data" in d.message


# ---------------------------------------------------------------- parameters in n


def test_parameter_in_n_is_evaluated_when_sampling() -> None:
    alg = _load("input edge A: mask ~ erdos_renyi(p = 2.0 / n)")
    for n in (8, 32):
        a = alg.sample(n, 64, seed=1).inputs["A"]
        dens = a.sum() / (64 * n * (n - 1))
        assert abs(dens - 2.0 / n) < 6 * np.sqrt(2.0 / n / (64 * n * (n - 1) / 2)), (n, dens)


def test_integer_parameter_in_n() -> None:
    alg = _load("input node d: scalar ~ deadlines(max_deadline = n // 2 + 1)")
    d = alg.sample(10, 200, seed=2).inputs["d"]
    assert d.min() == 1 and d.max() == 6


def test_parameter_in_n_out_of_range_fails_when_sampling_with_its_value() -> None:
    alg = _load("input edge A: mask ~ erdos_renyi(p = 2.0 / n)")
    with pytest.raises(ValueError, match=r"'p' must lie in \[0, 1\], got 2.0 \(at n = 1: p = 2.0 / n"):
        alg.sample(1, 2, seed=0)


def test_override_replaces_a_parameter_in_n() -> None:
    alg = _load("input edge A: mask ~ erdos_renyi(p = 2.0 / n)")
    a = alg.sample(16, 64, seed=3, p=1.0).inputs["A"]
    assert a.sum() == 64 * 16 * 15


def test_parameter_in_n_changes_the_spec_hash() -> None:
    h1 = _load("input edge A: mask ~ erdos_renyi(p = 2.0 / n)").spec_hash()
    h2 = _load("input edge A: mask ~ erdos_renyi(p = 3.0 / n)").spec_hash()
    assert h1 != h2


@pytest.mark.parametrize(
    ("decl", "fragment"),
    [
        ("input node d: scalar ~ deadlines(max_deadline = n / 2)", "must be an integer"),
        ("input edge A: mask ~ erdos_renyi(directed = n > 2)", "constant boolean"),
        ("input edge A: mask ~ erdos_renyi(p = 1.0 / N)", "in n"),
        ("input edge A: mask ~ erdos_renyi(p = 1.0 / m)", "in n"),
        ("input node k: scalar ~ uniform()\ninput node j: scalar ~ uniform(high = k)", "in n"),
    ],
)
def test_bad_parameter_expressions_are_e105(decl: str, fragment: str) -> None:
    with pytest.raises(AlgError) as e:
        _load(decl)
    codes = [d.code for d in e.value.diagnostics]
    assert "E105" in codes, [d.concise() for d in e.value.diagnostics]
    assert any(fragment in d.message for d in e.value.diagnostics)


def test_compile_json_shows_a_parameter_in_n_as_text(tmp_path) -> None:
    f = tmp_path / "er.alg"
    f.write_text(H + "input edge A: mask ~ erdos_renyi(p = 2.0 / n)\n" + BODY)
    result = CliRunner().invoke(app, ["compile", str(f), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["generators"]["A"]["p"] == "2.0 / n"
    text = CliRunner().invoke(app, ["compile", str(f)])
    assert "A ~ erdos_renyi(p=2.0 / n" in text.output


# ---------------------------------------------------------------- joint inputs in a file


def test_interval_pair_in_a_file_is_drawn_jointly() -> None:
    alg = _load("input node s: scalar ~ interval_start()\ninput node f: scalar ~ interval_finish()")
    x = alg.generate(12, 100, 4)
    assert (x["s"] <= x["f"]).all()
    assert alg.primary_inputs == ["s", "f"]


def test_samples_are_reproducible_by_seed() -> None:
    alg = _load("input node s: scalar ~ interval_start()\ninput node f: scalar ~ interval_finish()\n"
                "input edge A: mask ~ erdos_renyi(p = 2.0 / n, connected = true)")
    a, b, c = (alg.generate(9, 20, seed) for seed in (5, 5, 6))
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
        assert not np.array_equal(a[k], c[k])


def test_clrs_p_list_as_an_override() -> None:
    """CLRS's `p=(0.1, 0.9)` tuples: from Python (or `--param p=[0.1,0.9]`) only."""
    alg = _load("input edge A: scalar ~ clrs_erdos_renyi(directed = true)")
    dens = alg.generate(20, 300, 7, p=[0.1, 0.9])["A"].mean(axis=(1, 2))
    assert ((dens < 0.3) | (dens > 0.7)).all() and 0.35 < (dens > 0.5).mean() < 0.65
