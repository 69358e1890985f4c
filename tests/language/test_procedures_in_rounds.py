"""Procedures called per processor inside rounds: inlined per lane, with the reads and writes
a round allows (reads see the state before the round, writes go to the processor's own cells
or combine), per-lane locals and loops; and the errors for what cannot run per processor."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import algspec
from algspec.compiled import load_source
from algspec.diagnostics import AlgError, RuntimeFault

H = "algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
G = ("algorithm t\nnodes n\ngraph input adj\ninput edge A: mask ~ erdos_renyi(p = 0.5)\n"
     "input edge adj: mask = adjacency(A)\ninput node key: scalar ~ uniform()\n"
     "hint node best: scalar := key\noutput node cnt: scalar := 0.0\n")

HELPER = G + """proc top(v) {
    let b = max(key[u] for u in incoming(v) if u != v, default = -1.0)
    return max(b, best[v])
}
proc bump(v, u) {
    cnt[u] += 1.0 by sum
}
record
for t in 0 .. 3 {
    forall v { best[v] = top(v) }
    forall v, u where A[v, u] and u != v { bump(v, u) }
    record
}
"""
BY_HAND = G + """record
for t in 0 .. 3 {
    forall v {
        let b = max(key[u] for u in incoming(v) if u != v, default = -1.0)
        let r = max(b, best[v])
        best[v] = r
    }
    forall v, u where A[v, u] and u != v { cnt[u] += 1.0 by sum }
    record
}
"""


def _errors(src: str) -> list:
    with pytest.raises(AlgError) as e:
        load_source(src, "t.alg")
    return e.value.diagnostics


def test_a_helper_samples_and_costs_as_the_same_program_inlined_by_hand() -> None:
    helper, by_hand = load_source(HELPER, "t.alg"), load_source(BY_HAND, "t.alg")
    a, b = helper.sample(7, 5, seed=3), by_hand.sample(7, 5, seed=3)
    for part in ("inputs", "outputs", "hints"):
        x, y = getattr(a, part), getattr(b, part)
        assert x.keys() == y.keys()
        for k in x:
            np.testing.assert_array_equal(x[k], y[k])
    assert np.any(a.outputs["cnt"] > 0)  # the edge helper ran
    e, f = helper.static_efficiency(), by_hand.static_efficiency()
    assert str(e) == str(f)
    # every figure agrees; the loops and records differ only in their source positions
    assert replace(e, loops=[], records={}) == replace(f, loops=[], records={})
    assert [(x.kind, x.bound, x.iterations, x.records, x.work) for x in e.loops] == \
        [(x.kind, x.bound, x.iterations, x.records, x.work) for x in f.loops]
    assert e.records.keys() == f.records.keys()


def test_reads_in_a_helper_see_the_state_before_the_round() -> None:
    alg = load_source(H + "state node x: float := key\noutput node y: scalar\n"
                      "proc next_of(v) {\n  return x[(v + 1) % n]\n}\nrecord\n"
                      "forall v { x[v] = next_of(v) }\ny = x\n", "t.alg")
    key = np.array([0.5, 0.25, 0.125, 1.0])
    out, _ = alg.trace(key=key)
    np.testing.assert_array_equal(out, np.roll(key, -1))  # not a chain of updated values


def test_per_lane_loops_lets_and_breaks_run_on_each_processor() -> None:
    alg = load_source(H + "output node tri: scalar\noutput node nxt: pointer\n"
                      "proc tri_of(p) {\n  let s = 0\n  for i in 0 .. p + 1 bound n { s += i }\n"
                      "  return s\n}\n"
                      "proc first_above(p) {\n  let r = p\n  for j in 0 .. n {\n"
                      "    if key[j] > key[p] { r = j\n break }\n  }\n  return r\n}\n"
                      "record\nforall v {\n  tri[v] = float(tri_of(v))\n"
                      "  nxt[v] = first_above(v)\n}\n", "t.alg")
    key = np.array([0.3, 0.9, 0.1, 0.5, 0.2, 0.95])
    out, _ = alg.trace(key=key)
    np.testing.assert_array_equal(out["tri"], [v * (v + 1) / 2 for v in range(6)])
    want = [next((j for j in range(6) if key[j] > key[v]), v) for v in range(6)]
    np.testing.assert_array_equal(out["nxt"], want)


def test_a_per_lane_loop_past_its_bound_faults() -> None:
    alg = load_source(H + "output node y: scalar\nproc slow(p) {\n  let c = 0\n"
                      "  while c < p bound 2 { c += 1 }\n  return c\n}\nrecord\n"
                      "forall v { y[v] = float(slow(v)) }\n", "t.alg")
    with pytest.raises(RuntimeFault) as e:
        alg.trace(key=np.zeros(5))
    assert e.value.diagnostic.code == "R102"


def test_a_helper_in_the_sequential_part_of_a_round() -> None:
    alg = load_source(H + "state graph s: float := 0.0\noutput graph y: scalar\n"
                      "output node z: scalar\n"
                      "proc put(x) { s = x }\nrecord\nround {\n  forall v { z[v] = s + key[v] }\n"
                      "  put(1.0)\n}\ny = s\n", "t.alg")
    out, _ = alg.trace(key=np.array([0.5, 0.25]))
    assert out["y"] == 1.0
    np.testing.assert_array_equal(out["z"], [0.5, 0.25])  # the round read s before its write


def test_writing_another_processors_cell_is_e401_at_the_procedure_write() -> None:
    d = _errors(H + "state node x: float := 0.0\nproc spread(p) {\n  x[(p * 2) % n] = key[p]\n}\n"
                "record\nforall v { spread(v) }\n")
    assert [x.code for x in d] == ["E401"]
    assert (d[0].span.line, d[0].span.column) == (7, 3)
    assert "each processor writes only its own cells" in d[0].help


def test_a_parameter_given_the_processor_is_its_own_cell_under_any_name() -> None:
    alg = load_source(H + "output node x: scalar\nproc mark(p) {\n  x[p] = key[p] * 2.0\n}\n"
                      "record\nforall v { mark(v) }\n", "t.alg")
    out, _ = alg.trace(key=np.array([0.5, 0.25]))
    np.testing.assert_array_equal(out, [1.0, 0.5])


def test_a_helper_does_not_see_the_callers_processor_variable() -> None:
    d = _errors(H + "output node x: scalar\nproc f(p) {\n  return key[v]\n}\nrecord\n"
                "forall v { x[v] = f(0) }\n")
    assert [(x.code, x.span.line) for x in d] == [("E206", 7)]


@pytest.mark.parametrize(("loop", "what"), [
    ("for i in nodes by key { c += 1 }", "in nodes by"),
    ("for i in 0 .. n step 2 { c += 1 }", "`step`"),
    ("while c < 3 total bound n { c += 1 }", "total bound"),
])
def test_loops_that_cannot_run_per_lane_are_e501(loop: str, what: str) -> None:
    d = _errors(H + "output node y: scalar\nproc f(p) {\n  let c = 0\n  " + loop +
                "\n  return c\n}\nrecord\nforall v { y[v] = float(f(v)) }\n")
    assert [x.code for x in d] == ["E501"] and what in d[0].message


def test_a_call_in_a_forall_guard_is_e710() -> None:
    d = _errors(H + "output node y: scalar\nproc f(p) {\n  return p\n}\nrecord\n"
                "forall v where f(v) > 0 { y[v] = 1.0 }\n")
    assert [x.code for x in d] == ["E710"] and "guard" in d[0].message


@pytest.mark.parametrize("name, codes", [
    # Jones-Plassmann's worst case colours one node per round (weights rising along a
    # path): eta 1/n at the headline's fewest end, which W201 names; nothing else
    ("jp_color_proc", ["W201"]),
    ("rank_search_proc", []),
])
def test_the_corpus_helpers_lint_as_their_worst_case_says(name: str, codes: list[str]) -> None:
    from algspec.lint import lint_source
    from tests.support.corpus_expectations import TESTS

    path = TESTS / "language" / f"{name}.alg"
    assert [d.code for d in lint_source(path.read_text(), str(path))] == codes
    assert algspec.load(path).static_efficiency() is not None
