"""`graph ring` / `graph ring directed` and `rand_int(low, high)` in every form: parsed,
written as YAML and read back as the same program, judged by lint's graph reads (L107)."""

from __future__ import annotations

from pathlib import Path

import pytest

import algspec
from algspec.language.yaml_form import to_alg_text
from algspec.language.yaml_writer import to_yaml
from algspec.lint import lint_source
from algspec.sampling.identity import spec_hash

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "language"


def _shift(kind: str, index: str) -> str:
    return (f"algorithm shift\nnodes n\ngraph {kind}\ninput node x: scalar ~ uniform()\n"
            "hint node y: scalar := x\noutput node o: scalar = y\nrecord\n"
            f"forall v where v > 1 and v < n - 2 {{ y[v] = x[{index}] + float(rand_int(0, 4)) }}\n"
            "record\n")


@pytest.mark.parametrize("name,kind", [("ring_leader", "ring directed"),
                                       ("quicksort_rand", "complete")])
def test_the_yaml_form_keeps_the_kind_and_the_draws(name: str, kind: str) -> None:
    path = CORPUS / f"{name}.alg"
    source = path.read_text(encoding="utf-8")
    yaml_text = to_yaml(source, str(path))
    assert f"graph: {kind}" in yaml_text
    alg, back = algspec.load_source(source, str(path)), algspec.load_source(
        to_alg_text(yaml_text, str(path.with_suffix(".yaml"))), str(path))
    assert spec_hash(alg.spec, alg.ir) == spec_hash(back.spec, back.ir)
    a, b = alg.sample(5, 3, seed=2), back.sample(5, 3, seed=2)
    for k, v in a.outputs.items():
        assert (v == b.outputs[k]).all()


@pytest.mark.parametrize("kind", ["ring", "ring directed"])
def test_a_ring_carries_the_neighbours_reads_and_no_farther(kind: str) -> None:
    for index in ("v - 1", "v + 1"):
        assert "L107" not in [d.code for d in lint_source(_shift(kind, index), "s.alg")]
    codes = [d.code for d in lint_source(_shift(kind, "v + 2"), "s.alg")]
    assert codes.count("L107") == 1


def test_a_ring_has_n_edges_as_a_class_and_its_adj_is_directed() -> None:
    alg = algspec.load(CORPUS / "ring_leader.alg")
    s = alg.static_efficiency()
    assert str(s.rounds) == "n" and str(s.edge_efficiency) == "1"
    adj = alg.sample(4, 1, seed=0).inputs["adj"][0]
    assert adj.tolist() == [[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1]]
