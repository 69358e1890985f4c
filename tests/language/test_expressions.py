"""rand(), `bound ... whp`, argmin/argmax aggregations and `by argmin`/`by argmax` combiners.

References are independent: numpy's lexsort for lexicographic argmin with
ties by lowest index, brute-force loops for the combiners, the definition of
the counter-based stream (a sample's draws do not depend on its batch).
"""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.efficiency.analysis import analyse
from algspec.efficiency.results import format_static

HEAD = "algorithm t\nnodes n\ngraph complete\n"


def _codes(src: str) -> list[str]:
    with pytest.raises(AlgError) as e:
        algspec.load_source(src)
    return [d.code for d in e.value.diagnostics]


# ------------------------------------------------------------------ rand()
RAND = HEAD + """
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node r: scalar := 0.0
hint   graph g: scalar := 0.0
state  graph k: int = 0
record
while k < 3 bound 3 {
    forall v { r[v] = rand() }
    if key[0] < 0.5 { g = rand() }
    k += 1
    record
}
"""


def test_rand_is_uniform_and_differs_between_processors_and_samples():
    alg = algspec.load_source(RAND)
    tr = alg.sample(16, 64, seed=0)
    r = tr.hints["r"][1:]  # [T, B, N] draws
    assert r.min() >= 0.0 and r.max() < 1.0
    assert abs(r.mean() - 0.5) < 0.02 and abs(r.var() - 1 / 12) < 0.01
    # equidistributed in ten bins (chi-square far below its 99.9% quantile, 27.9)
    counts = np.histogram(r, bins=10, range=(0, 1))[0]
    expected = r.size / 10
    assert ((counts - expected) ** 2 / expected).sum() < 27.9
    assert len(np.unique(r)) > 0.99 * r.size  # processors, rounds and samples all differ


def test_rand_does_not_depend_on_the_batch():
    alg = algspec.load_source(RAND)
    inputs = alg.generate(8, 7, np.random.default_rng(3))
    whole = alg.run(inputs, 8)
    for lo, hi in ((0, 1), (2, 5), (6, 7)):
        part = alg.run({k: v[lo:hi] for k, v in inputs.items()}, 8)
        np.testing.assert_array_equal(part.hints["r"], whole.hints["r"][:, lo:hi])
        np.testing.assert_array_equal(part.hints["g"], whole.hints["g"][:, lo:hi])
    reordered = alg.run({k: v[::-1] for k, v in inputs.items()}, 8)
    np.testing.assert_array_equal(reordered.hints["r"], whole.hints["r"][:, ::-1])
    # trace (float64 probes) of one sample draws what the batch drew
    _, probes = alg.trace(**{k: v[4] for k, v in inputs.items()})
    traced = probes["hint"]["node"]["r"]["data"]
    np.testing.assert_allclose(traced, whole.hints["r"][:, 4], rtol=1e-6)
    # the same seed gives the same draws: the inputs, then one rand key per sample
    sampled = alg.sample(8, 7, seed=3)
    np.testing.assert_array_equal(alg.sample(8, 7, seed=3).hints["r"], sampled.hints["r"])
    rng = np.random.default_rng(3)
    again = alg.generate(8, 7, rng)
    keyed = alg.run(again, 8, rand_keys=alg.draw_rand_keys(rng, 7))
    np.testing.assert_array_equal(keyed.hints["r"], sampled.hints["r"])
    for lo, hi in ((0, 1), (2, 5)):  # keyed samples, too, draw alike in any batch
        part = alg.run({k: v[lo:hi] for k, v in again.items()}, 8,
                       rand_keys=sampled.rand_keys[lo:hi])
        np.testing.assert_array_equal(part.hints["r"], sampled.hints["r"][:, lo:hi])


def test_rand_advances_only_where_the_statement_runs():
    """`g = rand()` runs only for samples with key[0] < 0.5: the others draw nothing,
    so a sample's draws are those it makes when run alone."""
    alg = algspec.load_source(RAND)
    inputs = alg.generate(8, 12, np.random.default_rng(5))
    whole = alg.run(inputs, 8)
    took = inputs["key"][:, 0].astype(np.float32) < 0.5
    assert took.any() and (~took).any()
    g = whole.hints["g"]
    assert (g[1:, ~took] == 0).all() and (g[1:, took] > 0).all()
    assert len(np.unique(g[1:, took])) == g[1:, took].size  # a fresh draw per iteration


def test_rand_is_refused_outside_the_body():
    assert _codes(HEAD + "hint node r: scalar = rand()\nrecord\n") == ["E107"]
    assert _codes(HEAD + "state node r: float = rand()\nhint node h: scalar := 0.0\n"
                  "record\n") == ["E107"]
    assert _codes(HEAD + "state graph x: float = 0.0\nx = rand(1)\n") == ["E207"]
    assert _codes(HEAD + "state graph k: int = 0\nwhile k < n bound rand() { k += 1 }\n") \
        == ["E601"]


# ------------------------------------------------------------------ whp bounds
WHP = HEAD + """
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
hint   graph trips: scalar := 0.0
state  graph done: bool = false
record
while not done bound BOUND whp {
    done = rand() < 0.5
    trips += 1.0
    record
}
"""


def test_whp_bound_is_checked_when_sampling():
    ok = algspec.load_source(WHP.replace("BOUND", "4 * log2(n) + 8"))
    tr = ok.sample(16, 32, seed=0)
    assert tr.hints["trips"].max() >= 2  # geometric trips, not a constant
    tight = algspec.load_source(WHP.replace("BOUND", "1"))
    with pytest.raises(RuntimeFault) as f:
        tight.sample(16, 64, seed=0)
    assert f.value.diagnostic.code == "R107" and "whp" in f.value.diagnostic.message


def test_whp_bound_is_reported_by_the_efficiency_analysis():
    s = analyse(algspec.load_source(WHP.replace("BOUND", "4 * log2(n) + 8")).ir)
    assert s.whp and str(s.rounds) == "log n"
    assert "T = log n (whp)" in format_static(s)
    plain = analyse(algspec.load_source(WHP.replace("BOUND whp", "4 * log2(n) + 8")).ir)
    assert not plain.whp and "(whp)" not in format_static(plain)


# ------------------------------------------------------------------ argmin / argmax
ARG = HEAD.replace("graph complete", "graph input adj") + """
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
input  edge A: mask ~ erdos_renyi(p = 0.3, directed = true)
input  edge adj: mask = adjacency(A)
output node lo: pointer := index
output node hi: pointer := index
output node nb: pointer := index
output graph g: pointer
state  node c: int := 0
round { forall v { c[v] = int(key[v] * 3.0) } }
forall v {
    lo[v] = argmin((c[u], -u) for u in nodes if u != v, default = v)
    hi[v] = argmax(c[u] for u in nodes if c[u] >= c[v] and u != v, default = v)
    nb[v] = argmin((c[u], key[u]) for u in incoming(v) if u != v, default = v)
}
g = argmax((c[u], key[u] < 0.5) for u in nodes)
"""


def _lex_first(keys: list[np.ndarray], ok: np.ndarray, largest: bool) -> int | None:
    """Reference: the lowest index among the lexicographically best keys (numpy lexsort)."""
    idx = np.nonzero(ok)[0]
    if not len(idx):
        return None
    sign = -1 if largest else 1
    cols = [sign * np.asarray(k, dtype=float)[idx] for k in keys]
    order = np.lexsort((idx, *reversed(cols)))
    return int(idx[order[0]])


def test_argmin_argmax_aggregations_match_lexsort():
    alg = algspec.load_source(ARG)
    n, B = 9, 40
    inputs = alg.generate(n, B, np.random.default_rng(1))
    tr = alg.run(inputs, n, dtype=np.float64)
    key = inputs["key"].astype(np.float32).astype(np.float64)
    for b in range(B):
        c = np.trunc(key[b] * 3.0)
        adj = inputs["A"][b].astype(bool) | np.eye(n, dtype=bool)
        u = np.arange(n)
        for v in range(n):
            want = _lex_first([c, -u], u != v, False)
            assert tr.outputs["lo"][b, v] == want
            want = _lex_first([c], (c >= c[v]) & (u != v), True)
            assert tr.outputs["hi"][b, v] == (v if want is None else want)
            want = _lex_first([c, key[b]], adj[:, v] & (u != v), False)
            assert tr.outputs["nb"][b, v] == (v if want is None else want)
        assert tr.outputs["g"][b] == _lex_first([c, key[b] < 0.5], np.ones(n, bool), True)


def test_empty_argmin_without_default_is_a_fault():
    src = HEAD + ("input node key: scalar ~ uniform(low = 0.0, high = 1.0)\n"
                  "output graph g: pointer\n"
                  "g = argmin(key[u] for u in nodes if key[u] > 2.0)\n")
    with pytest.raises(RuntimeFault) as f:
        algspec.load_source(src).sample(4, 2, seed=0)
    assert f.value.diagnostic.code == "R103"


COMB = HEAD.replace("graph complete", "graph input adj") + """
input  edge A: scalar ~ erdos_renyi(p = 0.4, weighted = true, low = 0.0, high = 1.0)
input  edge adj: mask = adjacency(A)
output node best: pointer := index
output node worst: pointer := index
output graph g: pointer
state  edge w: int := 0
round { forall v, u { w[v, u] = int(A[v, u] * 4.0) } }
forall v, u where v != u and A[v, u] != 0 {
    best[u] = v by argmin (w[v, u], -v)
    worst[u] = v by argmax (w[v, u])
}
forall v { g = v by argmax (v % 3, -v) }
"""


def test_argmin_argmax_combiners_match_brute_force():
    alg = algspec.load_source(COMB)
    n, B = 8, 30
    inputs = alg.generate(n, B, np.random.default_rng(2))
    tr = alg.run(inputs, n, dtype=np.float64)
    for b in range(B):
        A = inputs["A"][b]
        w = np.trunc(A * 4.0).astype(int)
        for u in range(n):
            writers = [v for v in range(n) if v != u and A[v, u] != 0]  # in processor order
            if not writers:
                assert tr.outputs["best"][b, u] == u and tr.outputs["worst"][b, u] == u
                continue
            assert tr.outputs["best"][b, u] == min(writers, key=lambda v: (w[v, u], -v))
            # max key, ties by the lowest processor index: the first writer with the max
            top = max(w[v, u] for v in writers)
            assert tr.outputs["worst"][b, u] == next(v for v in writers if w[v, u] == top)
        assert tr.outputs["g"][b] == max(range(n), key=lambda v: (v % 3, -v))


def test_key_errors_are_diagnostics():
    base = HEAD + "input node key: scalar ~ uniform(low = 0.0, high = 1.0)\noutput graph g: pointer\n"
    assert _codes(base + "forall v { g = v by argmin }\n") == ["E402"]
    assert _codes(base + "forall v { g = v by min (key[v], v) }\n") == ["E402"]
    assert _codes(base + "g = (1, 2)\n") == ["E205"]
    assert _codes(base + "g = argmin(key[u] for u in nodes, default = 0.5)\n") == ["E203"]
    assert _codes(base + "forall v { g = v by argmin key[v] }\ng = argmin(key[u] for u in nodes)\n"
                  "g = 0 by argmin key[0]\n") == ["E403"]


def test_argmin_costs_as_min_in_the_efficiency_analysis():
    """An argmin over neighbours reads the same elements as the min it replaces."""
    src = HEAD.replace("graph complete", "graph input adj") + """
input  edge A: mask ~ erdos_renyi(p = 0.3)
input  edge adj: mask = adjacency(A)
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node p: pointer := index
state  node x: float := 0.0
record
for k in 0 .. n {
    forall v { EXPR }
    record
}
"""
    a = analyse(algspec.load_source(
        src.replace("EXPR", "p[v] = argmin((key[u], u) for u in incoming(v))")).ir)
    b = analyse(algspec.load_source(
        src.replace("EXPR", "x[v] = min(key[u] for u in incoming(v))")).ir)
    assert a.as_dict() == b.as_dict()


def test_rand_processors_are_work():
    """Drawing a random number per processor is work, not a reset."""
    src = HEAD + "hint node r: scalar := 0.0\nrecord\nfor k in 0 .. n {\n" \
          "forall v { r[v] = rand() }\nrecord\n}\n"
    s = analyse(algspec.load_source(src).ir)
    assert str(s.node_efficiency) == "1"


def test_whole_array_draws_in_a_branch_do_not_depend_on_the_batch():
    """`r = rand()` (a whole-array assignment) draws only for the samples that run it."""
    src = HEAD + """
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node r: scalar := 0.0
state  graph k: int = 0
record
while k < 4 bound 4 {
    if key[k] < 0.5 { r = rand() }
    k += 1
    record
}
"""
    alg = algspec.load_source(src)
    inputs = alg.generate(6, 10, np.random.default_rng(11))
    whole = alg.run(inputs, 6)
    for b in range(10):
        one = alg.run({k: v[b:b + 1] for k, v in inputs.items()}, 6)
        np.testing.assert_array_equal(one.hints["r"][:, 0], whole.hints["r"][:, b])
    # inputs stored at float32 (a dataset) reproduce the draws
    stored = alg.run({k: v.astype(np.float32) for k, v in inputs.items()}, 6)
    np.testing.assert_array_equal(stored.hints["r"], whole.hints["r"])


def test_random_order_of_nodes_is_a_permutation():
    src = HEAD + """
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
output node order: pointer := index
state  graph k: int = 0
for s in nodes by rand() {
    order[k] = s
    k += 1
}
"""
    alg = algspec.load_source(src)
    tr = alg.sample(8, 50, seed=0)
    order = tr.outputs["order"].astype(int)
    assert (np.sort(order, axis=1) == np.arange(8)).all()
    assert len({tuple(o) for o in order}) > 40  # different samples, different orders


def test_argmin_argmax_in_views_are_evaluated_per_frame():
    src = HEAD + """
input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node d: scalar := key
hint   graph best: pointer = argmin((d[u], u) for u in nodes)
hint   node nb: pointer = argmax(d[u] for u in nodes if d[u] < d[index], default = index)
state  graph k: int = 0
record
while k < 3 bound 3 {
    forall v { d[v] = d[v] + float(v) * 0.1 }
    k += 1
    record
}
"""
    tr = algspec.load_source(src).sample(6, 4, seed=1)
    d = tr.hints["d"]
    np.testing.assert_array_equal(tr.hints["best"], d.argmin(-1))
    for t in range(d.shape[0]):
        for b in range(4):
            for v in range(6):
                below = [u for u in range(6) if d[t, b, u] < d[t, b, v]]
                want = max(below, key=lambda u: (d[t, b, u], -u)) if below else v
                assert tr.hints["nb"][t, b, v] == want
