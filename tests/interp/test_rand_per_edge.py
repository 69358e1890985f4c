"""Per-edge draws: `rand()` / `rand_int` in an edge round or an `edges(A)` loop draw one value
per ordered edge, `symmetric = true` one per unordered pair; keyed as every draw is (the
sample's rand key, site, count), so batching and `trace(rand_key=...)` give the same values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "language"

EDGES = """
algorithm edge_draws
nodes n
graph complete
input edge A: mask ~ erdos_renyi(p = 0.5)
output edge sym_round: scalar := 0.0
output edge own_round: scalar := 0.0
output edge sym_loop: scalar := 0.0
output edge own_loop: scalar := 0.0
output edge int_loop: scalar := 0.0
output edge twice: scalar := 0.0
forall v, u where A[v, u] or A[u, v] { sym_round[v, u] = rand(symmetric = true) }
forall v, u where A[v, u] or A[u, v] { own_round[v, u] = rand() }
for (a, b) in edges(A) { sym_loop[a, b] = rand(symmetric = true) }
for (a, b) in edges(A) by -float(a) { own_loop[a, b] = rand() }
for (a, b) in edges(A) { int_loop[a, b] = float(rand_int(0, 1000, symmetric = true)) }
for (a, b) in edges(A) {
    for k in 0 .. 2 { twice[a, b] = twice[a, b] + rand(symmetric = true) * float(10 ** k) }
}
"""


@pytest.fixture(scope="module")
def edges():
    return algspec.load_source(EDGES, "edge_draws.alg")


@pytest.fixture(scope="module")
def batch(edges):
    return edges.sample(7, 6, seed=3)


def _both_ways(t):
    A = t.inputs["A"] != 0
    return A & A.transpose(0, 2, 1)


@pytest.mark.parametrize("name", ["sym_round", "sym_loop", "int_loop", "twice"])
def test_symmetric_draws_are_equal_both_ways(batch, name):
    x, both = batch.outputs[name], _both_ways(batch)
    assert both.sum() > 20
    assert np.array_equal(x[both], x.transpose(0, 2, 1)[both])
    assert len(np.unique(x[both])) > both.sum() // 3  # yet differ between edges


@pytest.mark.parametrize("name", ["own_round", "own_loop"])
def test_plain_draws_differ_per_ordered_edge(batch, name):
    x, both = batch.outputs[name], _both_ways(batch)
    off = both & ~np.eye(7, dtype=bool)
    assert not (x[off] == x.transpose(0, 2, 1)[off]).any()


def test_a_loop_draw_is_keyed_by_the_edge_not_by_the_trip(batch):
    """`by -float(a)` visits the edges in another order: still one draw per edge, and a
    repeated draw inside one trip (an inner loop) gets a fresh value each time."""
    tw = batch.outputs["twice"]
    live = batch.inputs["A"] != 0
    digits = tw[live]
    assert ((digits >= 0) & (digits < 11)).all()
    assert len(np.unique(batch.outputs["own_loop"][live])) == live.sum()


def test_batched_and_traced_alone_draw_the_same(edges, batch):
    for b in range(batch.outputs["sym_loop"].shape[0]):
        out, _ = edges.trace(n=7, rand_key=int(batch.rand_keys[b]), A=batch.inputs["A"][b])
        for name, x in out.items():
            assert np.array_equal(np.float32(x), batch.outputs[name][b]), name
    part = edges.run({"A": batch.inputs["A"][3:1:-1]}, 7, rand_keys=batch.rand_keys[3:1:-1])
    for name in batch.outputs:  # another batch, other positions: the same draws
        assert np.array_equal(part.outputs[name], batch.outputs[name][3:1:-1]), name


def test_edge_matching_is_a_maximal_matching_for_any_draws():
    alg = algspec.load(CORPUS / "edge_matching.alg")
    for seed in (0, 1):
        t = alg.sample(12, 16, seed=seed)
        for b in range(16):
            A = (t.inputs["A"][b] != 0) & ~np.eye(12, dtype=bool)
            mate = t.outputs["mate"][b].astype(int)
            matched = mate != np.arange(12)
            assert all(A[v, mate[v]] and mate[mate[v]] == v for v in np.nonzero(matched)[0])
            # maximal: no edge joins two unmatched nodes
            assert not (A & np.outer(~matched, ~matched)).any()


@pytest.mark.parametrize("body, says", [
    ("forall v { h[v] = rand(symmetric = true) }", "needs an edge"),
    ("forall v { h[v] = rand(per = true) }", "no `per` argument"),
    ("forall v { h[v] = rand(symmetric = 1) }", "`true` or `false`"),
    ("forall v { h[v] = floor(2.5, symmetric = true) }", "no `symmetric = ...` argument"),
    ("h[0] = rand(symmetric = true)", "needs an edge"),
])
def test_misused_options_are_one_clear_error(body, says):
    src = ("algorithm t\nnodes n\ngraph complete\nhint node h: scalar := 0.0\nrecord\n"
           f"{body}\nrecord\n")
    with pytest.raises(AlgError) as err:
        algspec.load_source(src, "t.alg")
    d = err.value.diagnostics
    assert len(d) == 1 and d[0].code == "E207" and says in d[0].message, d


def test_files_without_the_option_keep_their_ir_dump():
    """The new `ir.Rand` fields are left out of the dump at their defaults (spec hashes)."""
    alg = algspec.load_source(EDGES, "edge_draws.alg")
    dumped = alg.ir.model_dump_json()
    assert dumped.count('"symmetric":true') == 4
    plain = algspec.load_source(
        "algorithm p\nnodes n\ngraph complete\nhint node h: scalar := 0.0\nrecord\n"
        "forall v { h[v] = rand() }\nrecord\n", "p.alg")
    assert '"pair"' not in plain.ir.model_dump_json()
    assert '"symmetric"' not in plain.ir.model_dump_json()
