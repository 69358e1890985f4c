"""Which `forall` writes are private (no E401): index forms injective over the nodes."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError

HEAD = ("algorithm t\nnodes {nodes}\ngraph complete\ninput node key: scalar ~ uniform()\n"
        "output node y: scalar\n")


def _load(nodes: str, body: str):
    return algspec.load_source(HEAD.format(nodes=nodes) + body + "\nrecord\n", "t.alg")


@pytest.mark.parametrize("nodes, body, target", [
    ("n", "forall v { y[(v + 1) % n] = key[v] }", lambda k: np.roll(k, 1)),
    ("n", "forall v { y[(v + n - 2) % N] = key[v] }", lambda k: np.roll(k, -2)),
    ("n", "forall v { y[(n - 1 - v) % n] = key[v] }", lambda k: k[::-1]),
    ("n", "forall v { y[v ^ 1] = key[v] }", lambda k: k.reshape(-1, 2)[:, ::-1].ravel()),
])
def test_injective_indices_are_private_and_write_every_cell(nodes, body, target) -> None:
    """A rotation, a reflection and an XOR partner: each cell gets exactly its one writer."""
    alg = _load(nodes, body)
    rng = np.random.default_rng(0)
    for n in (2, 4, 8):
        keys = rng.random((3, n)).astype(np.float32)
        run = alg.run({"key": keys}, n)
        for k, y in zip(keys, run.outputs["y"]):
            np.testing.assert_array_equal(y, target(k))


@pytest.mark.parametrize("nodes, body", [
    ("n + 1", "forall v { y[(v + 1) % n] = key[v] }"),        # N = n + 1: v = 0 and n collide
    ("n", "forall v { y[(v + 1) % (n - 1)] = key[v] }"),      # not the node count
    ("n", "forall v { y[v // 2] = key[v] }"),
    ("n", "forall v { let w = v\n y[v - w] = key[v] }"),      # every processor writes y[0]
    ("n", "forall v { let w = int(key[v] * 3.0)\n y[(v + w) % n] = key[v] }"),
    ("n", "forall v { let w = v\n y[w ^ v] = key[v] }"),
])
def test_colliding_or_unprovable_indices_need_a_combiner(nodes, body) -> None:
    with pytest.raises(AlgError) as e:
        _load(nodes, body)
    assert [d.code for d in e.value.diagnostics] == ["E401"]
    _load(nodes, body.replace("= key[v]", "= key[v] by max"))  # a combiner makes it legal


def test_two_combiners_for_one_datum_in_one_round_is_e404() -> None:
    body = ("state graph u: float = 0.0\nrecord\nround {\n"
            "  forall v where key[v] > 0.5 { u = key[v] by sum }\n"
            "  forall v where key[v] <= 0.5 { u = key[v] by max }\n}\n")
    with pytest.raises(AlgError) as e:
        algspec.load_source(HEAD.format(nodes="n").replace("output node y: scalar\n", "")
                            + body + "record\n", "t.alg")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line) == ("E404", 9)
    assert "`by sum` (line 8)" in d.message and "`by max`" in d.message


def test_one_combiner_from_two_statements_combines_across_them() -> None:
    """`by sum` from both branches adds every writer once (the round commits them together)."""
    src = HEAD.format(nodes="n").replace("output node y: scalar\n", "output graph u: scalar := 0.0\n")
    alg = algspec.load_source(src + "record\nforall v {\n  if key[v] > 0.5 { u = key[v] by sum }"
                              " else { u = 1.0 by sum }\n}\nrecord\n", "t.alg")
    keys = np.array([[0.1, 0.75, 0.25, 0.5]], np.float32)
    out = alg.run({"key": keys}, 4).outputs["u"]
    assert float(out[0]) == pytest.approx(0.75 + 3.0)
