"""Semantics of the batched interpreter, checked against plain numpy on small programs.

Covers synchronous rounds, guards, combiners, aggregations on every kind of
interconnection graph, sequential control flow, derived hints, the CLRS probe
encodings, padding, batch independence, and the run-time faults R101-R106.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.diagnostics import RuntimeFault

ALGORITHMS = sorted((Path(__file__).resolve().parents[2] / "algorithms").glob("*.alg"))
KEY = "input node key: scalar ~ uniform()\n"


def compile_alg(body: str, decls: str = "", graph: str = "complete", nodes: str = "n",
                inputs: str = KEY):
    return algspec.load_source(f"algorithm t\nnodes {nodes}\ngraph {graph}\n{inputs}{decls}"
                               f"\n{body}\n", "t.alg")


def run(alg, n: int | None = None, **inputs):
    batch = {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}
    if n is None:
        n = next(v.shape[1] for v in batch.values() if v.ndim >= 2)
    return alg.run(batch, n, dtype=np.float64)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# ============================================================ parallel rounds
def test_round_swaps_neighbours_in_one_step() -> None:
    alg = compile_alg("record\nround { forall v { a[v] = a[v + 1 if v % 2 == 0 else v - 1] } }\n"
                      "record", "hint node a: scalar := key\n")
    key = rng().random((3, 6))
    t = run(alg, key=key)
    swapped = key.reshape(3, 3, 2)[:, :, ::-1].reshape(3, 6)
    np.testing.assert_array_equal(t.hints["a"][0], key)
    np.testing.assert_array_equal(t.hints["a"][1], swapped)


def test_round_rotation_reads_the_old_state() -> None:
    alg = compile_alg("forall v { a[v] = a[(v + 1) % n] }\nrecord", "hint node a: scalar := key\n")
    key = rng(1).random((2, 7))
    np.testing.assert_array_equal(run(alg, key=key).hints["a"][0], np.roll(key, -1, axis=1))


def test_consecutive_foralls_see_each_other_but_not_inside_one_round() -> None:
    decls = "state node a: float = key\noutput node b: scalar\noutput node c: scalar\n"
    alg = compile_alg("forall v { a[v] = a[v] + 1.0 }\nforall v { b[v] = a[v] }\n"
                      "round { forall v { a[v] = a[v] + 1.0 } forall v { c[v] = a[v] } }", decls)
    key = rng(2).random((2, 5))
    t = run(alg, key=key)
    np.testing.assert_allclose(t.outputs["b"], key + 1)
    np.testing.assert_allclose(t.outputs["c"], key + 1)  # the old a, before the round's +1


def test_let_inside_a_round_reads_the_old_state() -> None:
    decls = "state node a: float = key\noutput node b: scalar\n"
    alg = compile_alg("round { forall v { a[v] = 0.0; let old = a[v]; b[v] = old } }", decls)
    key = rng(3).random((2, 4))
    np.testing.assert_allclose(run(alg, key=key).outputs["b"], key)


def test_round_swaps_graph_values() -> None:
    """`round { x = y; y = x }` swaps: both reads see the state before the round."""
    decls = "state graph x: int = 1\nstate graph y: int = 2\noutput graph r: scalar\n"
    alg = compile_alg("round { x = y; y = x }\nr = x * 10 + y", decls)
    assert run(alg, key=np.zeros((1, 3))).outputs["r"].tolist() == [21.0]


def test_multi_assign_swaps_graph_values() -> None:
    """`x, y = y, x` reads every value before writing, as in Python."""
    decls = "state graph x: int = 1\nstate graph y: int = 2\noutput graph r: scalar\n"
    alg = compile_alg("x, y = y, x\nr = x * 10 + y", decls)
    assert run(alg, key=np.zeros((1, 3))).outputs["r"].tolist() == [21.0]


def test_round_graph_write_then_read_into_node_array() -> None:
    decls = "state graph x: int = 1\noutput node a: scalar\n"
    alg = compile_alg("round { x = 5; a[0] = x }", decls)
    assert run(alg, key=np.zeros((1, 3))).outputs["a"][0, 0] == 1.0


def test_multi_assign_swaps_node_elements() -> None:
    alg = compile_alg("a[0], a[2] = a[2], a[0]", "output node a: scalar := key\n")
    key = rng(4).random((2, 4))
    want = key.copy()
    want[:, [0, 2]] = key[:, [2, 0]]
    np.testing.assert_array_equal(run(alg, key=key).outputs["a"], want)


# ===================================================================== guards
def test_guard_masks_processors() -> None:
    alg = compile_alg("forall v where key[v] > 0.5 { a[v] = key[v] * 2.0 }",
                      "output node a: scalar := -1.0\n")
    key = rng(5).random((4, 9))
    np.testing.assert_allclose(run(alg, key=key).outputs["a"], np.where(key > 0.5, 2 * key, -1))


def test_if_inside_forall_is_per_processor() -> None:
    alg = compile_alg("forall v { if v % 3 == 0 { a[v] = 1.0 } else if key[v] < 0.5 { a[v] = 2.0 }"
                      " else { a[v] = 3.0 } }", "output node a: scalar\n")
    key = rng(6).random((3, 7))
    v = np.arange(7)
    want = np.where(v % 3 == 0, 1.0, np.where(key < 0.5, 2.0, 3.0))
    np.testing.assert_array_equal(run(alg, key=key).outputs["a"], want)


# ================================================================== combiners
COMB_DECLS = """input node tg: scalar ~ uniform()
state node ti: int
output node mn: scalar := 100.0
output node mx: scalar := -100.0
output node sm: scalar := 7.0
output node pr: scalar := 9.0
output node an: mask
output node al: mask := true
"""


def test_remote_writes_with_each_combiner() -> None:
    body = ("ti = int(tg)\nforall v { mn[ti[v]] = key[v] by min; mx[ti[v]] = key[v] by max\n"
            "sm[ti[v]] = key[v] by sum; pr[ti[v]] = key[v] by priority }\n"
            "forall v { an[ti[v]] = key[v] > 0.5 by any; al[ti[v]] = key[v] > 0.5 by all }")
    alg = compile_alg(body, COMB_DECLS)
    r = rng(7)
    key, tg = r.random((5, 8)), r.integers(0, 4, (5, 8)).astype(float)
    t = run(alg, key=key, tg=tg)
    for b in range(5):
        for j in range(8):
            w = key[b][tg[b] == j]
            if len(w) == 0:  # nobody wrote: the old value stays
                want = (100.0, -100.0, 7.0, 9.0, 0.0, 1.0)
            else:  # the writers combine among themselves, the old value is replaced
                first = key[b][np.argmax(tg[b] == j)]
                want = (w.min(), w.max(), w.sum(), first, float((w > 0.5).any()),
                        float((w > 0.5).all()))
            got = tuple(t.outputs[k][b, j] for k in ("mn", "mx", "sm", "pr", "an", "al"))
            np.testing.assert_allclose(got, want, err_msg=f"sample {b} node {j}")


def test_priority_is_the_lowest_processor_index() -> None:
    alg = compile_alg("forall v where key[v] > 0.5 { first = v by priority }\n"
                      "forall v where key[v] > 0.5 { last = v by max }",
                      "output graph first: pointer\noutput graph last: pointer\n")
    key = rng(8).random((6, 10))
    key[:, -1] = 0.9  # everyone has at least one candidate
    t = run(alg, key=key)
    np.testing.assert_array_equal(t.outputs["first"], np.argmax(key > 0.5, axis=1))
    np.testing.assert_array_equal(t.outputs["last"], 9)


def test_priority_with_edge_processors_prefers_lowest_v_then_u() -> None:
    alg = compile_alg("forall v, u where A[v, u] != 0 and v != u { w = v * n + u by priority }",
                      "output graph w: scalar := -1.0\n", graph="input adj",
                      inputs="input edge A: scalar ~ erdos_renyi()\n"
                             "input edge adj: mask = adjacency(A)\n")
    A = (rng(9).random((4, 5, 5)) < 0.3).astype(float)
    A[0] = 0  # no edge at all: nobody writes
    t = run(alg, A=A)
    for b in range(4):
        ij = np.argwhere((A[b] != 0) & ~np.eye(5, dtype=bool))
        want = -1.0 if len(ij) == 0 else ij[0][0] * 5 + ij[0][1]
        assert t.outputs["w"][b] == want


def test_graph_level_combiners() -> None:
    decls = ("output graph s: scalar\noutput graph lo: scalar\noutput graph hi: scalar\n"
             "output graph some: mask\noutput graph every: mask\n")
    body = ("forall v { s = key[v] by sum; lo = key[v] by min; hi = key[v] by max\n"
            "some = key[v] > 0.9 by any; every = key[v] > 0.1 by all }")
    key = rng(10).random((8, 6))
    t = run(compile_alg(body, decls), key=key)
    np.testing.assert_allclose(t.outputs["s"], key.sum(1))
    np.testing.assert_allclose(t.outputs["lo"], key.min(1))
    np.testing.assert_allclose(t.outputs["hi"], key.max(1))
    np.testing.assert_array_equal(t.outputs["some"], (key > 0.9).any(1))
    np.testing.assert_array_equal(t.outputs["every"], (key > 0.1).all(1))


def test_integer_sum_combiner_counts_writers() -> None:
    alg = compile_alg("ti = int(tg)\nforall v { c[ti[v]] = 1 by sum }",
                      "input node tg: scalar ~ uniform()\nstate node ti: int\n"
                      "state node c: int = 0\noutput node co: scalar = c\n")
    tg = rng(11).integers(0, 6, (3, 6)).astype(float)
    t = run(alg, key=np.zeros((3, 6)), tg=tg)
    np.testing.assert_array_equal(t.outputs["co"], [np.bincount(r.astype(int), minlength=6)
                                                   for r in tg])


# =============================================================== aggregations
def graph_adj(kind: str, n: int) -> np.ndarray:
    i, j = np.indices((n, n))
    if kind == "complete":
        return np.ones((n, n), bool)
    if kind == "empty":
        return i == j
    if kind == "path":
        return np.abs(i - j) <= 1
    if kind == "star":
        return (i == j) | (i == 0) | (j == 0)
    raise ValueError(kind)


AGG_DECLS = """output node cin: scalar
output node cout: scalar
output node sin: scalar
output node mout: scalar
output node anyin: mask
output node allout: mask
output graph best: scalar
output graph none: scalar
"""
AGG_BODY = """forall v {
    cin[v] = float(count(true for u in incoming(v)))
    cout[v] = float(count(u != v for u in outgoing(v)))
    sin[v] = sum(key[u] for u in incoming(v) if u != v)
    mout[v] = min(key[u] for u in outgoing(v) if u != v, default = -1.0)
    anyin[v] = any(key[u] > 0.5 for u in incoming(v))
    allout[v] = all(key[u] > 0.2 for u in outgoing(v) if u > v)
}
best = max(key[u] for u in nodes if key[u] < 0.5, default = -2.0)
none = min(key[u] for u in nodes if key[u] > 5.0, default = -3.0)
"""


def check_aggregates(t, key: np.ndarray, adj: np.ndarray) -> None:
    """adj[b, u, v]: edge u -> v; incoming(v) = {u : adj[u, v]}, outgoing(v) = {u : adj[v, u]}."""
    B, n = key.shape
    eye = np.eye(n, dtype=bool)
    for b in range(B):
        a, k = adj[b], key[b]
        inn, out = a.T, a  # inn[v, u] = adj[u, v]
        np.testing.assert_array_equal(t.outputs["cin"][b], inn.sum(1))
        np.testing.assert_array_equal(t.outputs["cout"][b], (out & ~eye).sum(1))
        np.testing.assert_allclose(t.outputs["sin"][b], (inn & ~eye) @ k)
        mout = np.where(out & ~eye, k[None, :], np.inf).min(1)
        np.testing.assert_allclose(t.outputs["mout"][b], np.where(np.isinf(mout), -1.0, mout))
        np.testing.assert_array_equal(t.outputs["anyin"][b], (inn & (k > 0.5)[None]).any(1))
        upper = np.triu(np.ones((n, n), bool), 1)
        np.testing.assert_array_equal(t.outputs["allout"][b],
                                      (~(out & upper) | (k > 0.2)[None]).all(1))
        below = k[k < 0.5]
        assert t.outputs["best"][b] == (below.max() if len(below) else -2.0)
        assert t.outputs["none"][b] == -3.0


@pytest.mark.parametrize("kind", ["complete", "empty", "path", "star"])
def test_aggregations_on_builtin_graphs(kind: str) -> None:
    alg = compile_alg(AGG_BODY, AGG_DECLS, graph=kind)
    key = rng(12).random((3, 6))
    key[0] = 0.7  # no node below 0.5: `best` takes its default
    t = run(alg, key=key)
    adj = np.broadcast_to(graph_adj(kind, 6), (3, 6, 6))
    check_aggregates(t, key, adj)
    if kind == "complete":  # CLRS convention: a complete graph has no edge-mask input
        assert "adj" not in alg.spec and "adj" not in t.inputs
    else:
        names = list(alg.spec)
        assert alg.spec["adj"] == ("input", "edge", "mask")
        assert names.index("adj") == names.index("key") + 1  # right after the declared inputs
        np.testing.assert_array_equal(t.inputs["adj"], adj)
        assert np.all(np.diagonal(t.inputs["adj"], axis1=1, axis2=2) == 1)  # self-loops


def test_aggregations_on_an_input_graph() -> None:
    inputs = (KEY + "input edge A: scalar ~ erdos_renyi(directed = true)\n"
              "input edge adj: mask = adjacency(A)\n")
    alg = compile_alg(AGG_BODY, AGG_DECLS, graph="input adj", inputs=inputs)
    r = rng(13)
    A = (r.random((4, 6, 6)) < 0.35).astype(float) * r.random((4, 6, 6))
    A[1] = 0.0  # only self-loops
    key = r.random((4, 6))
    t = run(alg, key=key, A=A)
    adj = (A != 0) | np.eye(6, dtype=bool)
    np.testing.assert_array_equal(t.inputs["adj"], adj)
    check_aggregates(t, key, adj)


@pytest.mark.parametrize("kind", ["complete", "empty", "path", "star"])
def test_edge_processors_are_the_edges_of_the_interconnection_graph(kind: str) -> None:
    alg = compile_alg("forall v, u { e[v, u] = true; c[v] = 1 by sum }",
                      "output edge e: mask\noutput node c: scalar\n", graph=kind)
    t = run(alg, key=np.zeros((2, 5)))
    want = np.broadcast_to(graph_adj(kind, 5), (2, 5, 5))
    np.testing.assert_array_equal(t.outputs["e"], want)
    np.testing.assert_array_equal(t.outputs["c"], want.sum(2))


def test_aggregation_at_graph_level_over_neighbours_of_a_node() -> None:
    alg = compile_alg("s = sum(key[u] for u in outgoing(2))\nc = count(true for u in incoming(0))",
                      "output graph s: scalar\noutput graph c: scalar\n", graph="path")
    key = rng(14).random((2, 5))
    t = run(alg, key=key)
    np.testing.assert_allclose(t.outputs["s"], key[:, 1:4].sum(1))
    np.testing.assert_array_equal(t.outputs["c"], 2.0)


def test_nested_aggregation_and_edge_processors() -> None:
    # For each edge processor (v, u): the number of common in-neighbours.
    decls = "output edge common: scalar\n"
    body = ("forall v, u { common[v, u] = float(count(adj[w, v] and adj[w, u] "
            "for w in nodes)) }")
    inputs = "input edge A: scalar ~ erdos_renyi()\ninput edge adj: mask = adjacency(A)\n"
    alg = compile_alg(body, decls, graph="input adj", inputs=inputs)
    A = (rng(15).random((2, 5, 5)) < 0.4).astype(float)
    t = run(alg, A=A)
    adj = ((A != 0) | np.eye(5, dtype=bool)).astype(int)
    want = np.einsum("bwv,bwu->bvu", adj, adj) * adj  # only edges (v, u) are processors
    np.testing.assert_array_equal(t.outputs["common"], want)


# ===================================================== sequential control flow
def test_for_range_order_and_reversed() -> None:
    decls = "output graph f: scalar\noutput graph r: scalar\n"
    alg = compile_alg("for i in 0 .. n { f = f * 10.0 + float(i) }\n"
                      "for i in reversed 1 .. n { r = r * 10.0 + float(i) }", decls)
    t = run(alg, key=np.zeros((1, 5)))
    assert (t.outputs["f"][0], t.outputs["r"][0]) == (1234.0, 4321.0)


def test_loop_variable_keeps_its_last_value_like_python() -> None:
    decls = ("state graph i: int = 42\nstate graph j: int = 42\nstate graph k: int = 42\n"
             "state graph b: int = 42\noutput node out: scalar\n")
    body = ("for i in 2 .. n { }\nfor j in reversed 1 .. n - 1 { }\nfor k in n .. n { }\n"
            "for b in 0 .. n { if b == 3 { break } }\n"
            "out[0] = i; out[1] = j; out[2] = k; out[3] = b")
    t = run(compile_alg(body, decls), key=np.zeros((1, 6)))
    py = {}  # the reference: Python's own loops, with empty bodies
    for py["i"] in range(2, 6):
        pass
    for py["j"] in reversed(range(1, 5)):
        pass
    py["k"] = 42
    for py["k"] in range(6, 6):
        pass
    for py["b"] in range(6):
        if py["b"] == 3:
            break
    np.testing.assert_array_equal(t.outputs["out"][0, :4], [py["i"], py["j"], py["k"], py["b"]])


def test_range_bounds_per_sample() -> None:
    alg = compile_alg("for i in int(s) .. n { c += 1 }", "input graph s: scalar ~ uniform_scalar()"
                      "\noutput graph c: scalar\n")
    t = run(alg, 5, key=np.zeros((4, 5)), s=np.array([0.0, 2.0, 5.0, 7.0]))
    np.testing.assert_array_equal(t.outputs["c"], [5, 3, 0, 0])


def test_for_nodes_by_key_visits_in_ascending_key_ties_by_index() -> None:
    decls = "state graph step: int = 0\noutput node when: scalar\n"
    alg = compile_alg("for s in nodes by key { when[s] = step; step += 1 }", decls)
    key = np.array([[0.3, 0.1, 0.3, 0.0, 0.1, 0.3], [5, 4, 3, 2, 1, 0]], dtype=float)
    t = run(alg, key=key)
    want = np.argsort(np.argsort(key, axis=1, kind="stable"), axis=1, kind="stable")
    np.testing.assert_array_equal(t.outputs["when"], want)


def test_for_nodes_by_a_negated_state_key() -> None:
    decls = "state node f: float = key\nstate graph step: int = 0\noutput node order: scalar\n"
    alg = compile_alg("for s in nodes by -f { order[step] = s; step += 1 }", decls)
    key = rng(16).random((3, 7))
    np.testing.assert_array_equal(run(alg, key=key).outputs["order"],
                                  np.argsort(-key, axis=1, kind="stable"))


def test_break_leaves_only_the_innermost_loop() -> None:
    decls = "output graph c: scalar\noutput graph outer: scalar\n"
    body = ("for i in 0 .. n {\n  outer += 1.0\n  for j in 0 .. n {\n    if j == i { break }\n"
            "    c += 1.0\n  }\n}")
    t = run(compile_alg(body, decls), key=np.zeros((1, 6)))
    assert (t.outputs["c"][0], t.outputs["outer"][0]) == (15.0, 6.0)  # sum(range(6))


def test_break_in_while_and_per_sample_break() -> None:
    decls = "input graph s: scalar ~ uniform_scalar()\nstate graph x: int = 0\n" \
            "output graph r: scalar\n"
    body = "while true bound 2 * n { if x >= int(s) { break }; x += 1 }\nr = x"
    t = run(compile_alg(body, decls), 4, key=np.zeros((3, 4)), s=np.array([0.0, 3.0, 7.0]))
    np.testing.assert_array_equal(t.outputs["r"], [0, 3, 7])


def test_while_runs_until_its_condition_fails() -> None:
    decls = "input graph s: scalar ~ uniform_scalar()\noutput graph r: scalar\n" \
            "state graph x: int = 1\n"
    body = "while x < int(s) bound n { x *= 2; record }\nr = x"
    alg = compile_alg(body, decls)
    t = run(alg, 8, key=np.zeros((3, 8)), s=np.array([0.0, 5.0, 100.0]))
    np.testing.assert_array_equal(t.outputs["r"], [1, 8, 128])
    np.testing.assert_array_equal(t.lengths, [0, 3, 7])


# ============================================================ data and probes
def test_pad_fills_the_extra_node() -> None:
    alg = compile_alg("record", "", nodes="n + 1", graph="empty",
                      inputs="input node key: scalar ~ sorted_uniform() pad target\n"
                             "input graph target: scalar ~ uniform_scalar()\n")
    key, target = rng(17).random((3, 4)), rng(18).random(3)
    t = run(alg, 4, key=key, target=target)
    assert t.inputs["key"].shape == (3, 5) and t.inputs["pos"].shape == (3, 5)
    np.testing.assert_array_equal(t.inputs["key"], np.concatenate([key, target[:, None]], 1))
    np.testing.assert_allclose(t.inputs["pos"], np.broadcast_to(np.arange(5) / 5, (3, 5)))
    np.testing.assert_array_equal(t.inputs["adj"], np.broadcast_to(np.eye(5), (3, 5, 5)))


def test_pos_is_index_over_node_count() -> None:
    t = run(compile_alg("record"), key=np.zeros((2, 4)))
    np.testing.assert_allclose(t.inputs["pos"], [[0, 0.25, 0.5, 0.75]] * 2)
    assert list(compile_alg("record").spec)[:2] == ["pos", "key"]


def test_derived_hints_are_evaluated_at_every_frame() -> None:
    decls = ("state graph x: int = 0\nhint node mm: mask_one = onehot(x)\n"
             "hint graph y: scalar = float(x) * 0.5\nhint node k2: scalar = key * float(x)\n")
    alg = compile_alg("record\nwhile x < n - 1 bound n { x += 1; record }", decls)
    key = rng(19).random((2, 5))
    t = run(alg, key=key)
    assert t.hints["mm"].shape == (5, 2, 5)
    np.testing.assert_array_equal(t.hints["mm"], np.broadcast_to(np.eye(5)[:, None], (5, 2, 5)))
    np.testing.assert_allclose(t.hints["y"], np.broadcast_to(np.arange(5)[:, None] * 0.5, (5, 2)))
    np.testing.assert_allclose(t.hints["k2"], np.arange(5)[:, None, None] * key[None])


def test_outputs_are_read_at_the_end() -> None:
    decls = "state graph x: int = 0\noutput node o: mask_one = onehot(x)\n"
    t = run(compile_alg("x = n - 2", decls), key=np.zeros((1, 5)))
    np.testing.assert_array_equal(t.outputs["o"], [[0, 0, 0, 1, 0]])


def clrs_array(a_pos: np.ndarray) -> np.ndarray:
    """dm-clrs `probing.array`: predecessor pointers of a list (the first points to itself)."""
    probe = np.arange(a_pos.shape[0])
    for i in range(1, a_pos.shape[0]):
        probe[a_pos[i]] = a_pos[i - 1]
    return probe


def test_chain_equals_clrs_probing_array() -> None:
    decls = ("input node t: scalar ~ uniform()\nstate node order: int = index\n"
             "hint node pred_h: pointer = chain(order)\noutput node pred: permutation = "
             "chain(order)\n")
    alg = compile_alg("record\nforall v { order[v] = int(t[v]) }\nrecord", decls, inputs="")
    r = rng(20)
    for n in (1, 2, 5, 9):
        perms = np.stack([r.permutation(n) for _ in range(6)]).astype(float)
        t = run(alg, t=perms)
        want = np.stack([clrs_array(p.astype(int)) for p in perms])
        np.testing.assert_array_equal(t.hints["pred_h"][1], want)
        np.testing.assert_array_equal(t.outputs["pred"], want)
        np.testing.assert_array_equal(t.hints["pred_h"][0], [clrs_array(np.arange(n))] * 6)
    assert alg.spec["pred"] == ("output", "node", "should_be_permutation")


def test_categorical_probes_are_one_hot() -> None:
    decls = "hint node c: categorical(3)\noutput node oc: categorical(4)\n"
    alg = compile_alg("record\nforall v { c[v] = v % 3; oc[v] = (v + 1) % 4 }\nrecord", decls)
    t = run(alg, key=np.zeros((2, 5)))
    assert t.hints["c"].shape == (2, 2, 5, 3) and t.outputs["oc"].shape == (2, 5, 4)
    np.testing.assert_array_equal(t.hints["c"][0], np.broadcast_to([1, 0, 0], (2, 5, 3)))
    np.testing.assert_array_equal(t.hints["c"][1], np.broadcast_to(np.eye(3)[np.arange(5) % 3],
                                                                   (2, 5, 3)))
    np.testing.assert_array_equal(t.outputs["oc"][0], np.eye(4)[(np.arange(5) + 1) % 4])
    assert alg.spec["c"] == ("hint", "node", "categorical")


def test_mask_one_probes() -> None:
    decls = ("hint node h: mask_one\noutput node o: mask_one = onehot(best)\n"
             "state graph best: int\n")
    body = ("best = min(u for u in nodes if key[u] == max(key[w] for w in nodes))\n"
            "forall v { h[v] = v == best }\nrecord")
    key = rng(21).random((4, 6))
    t = run(compile_alg(body, decls), key=key)
    np.testing.assert_array_equal(t.hints["h"][0], np.eye(6)[key.argmax(1)])
    np.testing.assert_array_equal(t.outputs["o"], np.eye(6)[key.argmax(1)])


def test_hints_are_zero_padded_after_a_samples_end() -> None:
    decls = ("input graph s: scalar ~ uniform_scalar()\nstate graph x: int = 0\n"
             "hint graph hx: scalar = float(x) + 1.0\nhint node hm: mask_one = onehot(x)\n")
    alg = compile_alg("record\nwhile x < int(s) bound n { x += 1; record }", decls)
    s = np.array([0.0, 4.0, 2.0, 1.0])
    t = run(alg, 6, key=np.zeros((4, 6)), s=s)
    np.testing.assert_array_equal(t.lengths, s + 1)
    assert t.hints["hx"].shape == (5, 4)
    for b, L in enumerate((s + 1).astype(int)):
        np.testing.assert_array_equal(t.hints["hx"][:L, b], np.arange(1, L + 1))
        assert not t.hints["hx"][L:, b].any() and not t.hints["hm"][L:, b].any()
        np.testing.assert_array_equal(t.hints["hm"][:L, b], np.eye(6)[:L])


def test_trace_returns_dm_clrs_probes() -> None:
    alg = compile_alg("record\nforall v { a[v] = key[v] * 2.0 }\nrecord",
                      "hint node a: scalar\noutput graph o: scalar = 3.0\n")
    key = np.array([0.5, 0.25, 1.0])
    out, probes = alg.trace(key=key)
    assert out == 3.0
    assert set(probes) == {"input", "output", "hint"}
    np.testing.assert_array_equal(probes["input"]["node"]["key"]["data"], key)
    assert probes["input"]["node"]["key"]["type_"] == "scalar"
    np.testing.assert_array_equal(probes["hint"]["node"]["a"]["data"], [[0, 0, 0], key * 2])
    assert probes["output"]["graph"]["o"]["type_"] == "scalar"


def test_sample_is_reproducible_and_seeded() -> None:
    alg = compile_alg("record\nforall v { a[v] = key[v] + 1.0 }\nrecord", "hint node a: scalar\n")
    t1, t2, t3 = alg.sample(5, 4, 0), alg.sample(5, 4, 0), alg.sample(5, 4, 1)
    np.testing.assert_array_equal(t1.inputs["key"], t2.inputs["key"])
    assert not np.array_equal(t1.inputs["key"], t3.inputs["key"])
    assert t1.hints["a"].dtype == np.float32 and t1.lengths.dtype == np.float32
    np.testing.assert_allclose(t1.hints["a"][1], t1.inputs["key"] + 1, rtol=1e-6)


# ========================================================= batch independence
def _slice_equal(batch, single, b: int) -> None:
    assert int(batch.lengths[b]) == int(single.lengths[0])
    L = int(single.lengths[0])
    for k in batch.inputs:
        np.testing.assert_array_equal(batch.inputs[k][b], single.inputs[k][0], err_msg=k)
    for k in batch.outputs:
        np.testing.assert_array_equal(batch.outputs[k][b], single.outputs[k][0], err_msg=k)
    for k in batch.hints:
        np.testing.assert_array_equal(batch.hints[k][:L, b], single.hints[k][:L, 0], err_msg=k)
        assert not batch.hints[k][L:, b].any(), k


@pytest.mark.parametrize("path", ALGORITHMS, ids=lambda p: p.stem)
def test_batched_run_equals_per_sample_traces(path: Path) -> None:
    alg = algspec.load(path)
    n = 6
    inputs = alg.generate(n, 4, 123)
    batch = alg.run(inputs, n)
    assert batch.batch_size == 4
    for b in range(4):
        single = alg.run({k: v[b:b + 1] for k, v in inputs.items()}, n)
        _slice_equal(batch, single, b)
        _, probes = alg.trace(**{k: v[b] for k, v in inputs.items()})
        L = int(batch.lengths[b])
        for stage, by_loc in probes.items():
            for name, p in (kv for loc in by_loc.values() for kv in loc.items()):
                if stage == "hint":
                    want = batch.hints[name][:L, b]
                else:
                    want = (batch.inputs if stage == "input" else batch.outputs)[name][b]
                np.testing.assert_allclose(np.squeeze(p["data"]), np.squeeze(want), rtol=1e-6,
                                           err_msg=f"{name} sample {b}")
                assert p["type_"] == alg.spec[name][2]


def test_batch_with_very_different_samples_does_not_mix() -> None:
    decls = ("input graph s: scalar ~ uniform_scalar()\nstate graph x: int = 0\n"
             "hint node a: scalar := key\noutput graph r: scalar\n")
    body = ("record\nwhile x < int(s) bound n {\n  x += 1\n"
            "  forall v where key[v] > 0.5 { a[v] = a[v] + 1.0 }\n"
            "  if x % 2 == 0 { record }\n}\nr = sum(a[u] for u in nodes)")
    alg = compile_alg(body, decls)
    r = rng(22)
    key, s = r.random((5, 6)), np.array([0.0, 6.0, 3.0, 1.0, 4.0])
    batch = run(alg, key=key, s=s)
    for b in range(5):
        single = run(alg, key=key[b:b + 1], s=s[b:b + 1])
        _slice_equal(batch, single, b)
        k = int(s[b])
        np.testing.assert_allclose(batch.outputs["r"][b], key[b].sum() + k * (key[b] > 0.5).sum())


# ================================================================ view bugs
def test_a_hint_may_be_a_view_of_another_view() -> None:
    decls = ("state graph s: int = 0\nhint node g: mask_one = onehot(s)\n"
             "hint node h: mask = g\n")
    t = run(compile_alg("record\ns = 2\nrecord", decls), key=np.zeros((1, 4)))
    np.testing.assert_array_equal(t.hints["h"][:, 0], [[1, 0, 0, 0], [0, 0, 1, 0]])


def test_a_graph_level_view_can_be_read_in_the_body() -> None:
    decls = ("state graph s: float = 1.5\nhint graph g: scalar = s * 2.0\n"
             "output graph o: scalar\n")
    t = run(compile_alg("o = g\nrecord", decls), key=np.zeros((1, 4)))
    assert t.outputs["o"][0] == 3.0


def test_a_node_level_view_can_be_read_in_the_body() -> None:
    decls = "state graph s: int = 1\nhint node g: mask_one = onehot(s)\noutput graph o: mask\n"
    t = run(compile_alg("o = g[1]\nrecord", decls), key=np.zeros((1, 4)))
    assert t.outputs["o"][0] == 1.0


def test_initialiser_may_read_state_declared_later() -> None:
    decls = "state graph a: int = b + 1\nstate graph b: int = 1\noutput graph o: scalar\n"
    try:
        t = run(compile_alg("o = a", decls), key=np.zeros((1, 4)))
    except algspec.AlgError as e:  # or reject it with a diagnostic
        assert e.diagnostics[0].code == "E107"
    else:
        assert t.outputs["o"][0] == 2.0


def test_hints_without_any_record_fault_r110() -> None:
    """CLRS trajectories start with a frame: hints that are never recorded are a fault."""
    alg = compile_alg("forall v { p[v] = v }", "hint node p: pointer\n")
    with pytest.raises(RuntimeFault) as e:
        run(alg, key=np.zeros((2, 4)))
    assert e.value.diagnostic.code == "R110" and "no `record`" in e.value.diagnostic.message


def test_program_without_generated_inputs_can_be_sampled() -> None:
    alg = algspec.load_source("algorithm t\nnodes n\ngraph complete\n"
                              "hint node a: scalar\nforall v { a[v] = pos[v] }\nrecord\n")
    t = alg.sample(4, 3, 0)
    assert t.batch_size == 3
    np.testing.assert_allclose(t.hints["a"][0], np.broadcast_to(np.arange(4) / 4, (3, 4)))


# ============================================================ run-time faults
FAULT_DECLS = "input graph s: scalar ~ uniform_scalar()\n"


def fault(alg, s: list[float], n: int = 4) -> RuntimeFault:
    with pytest.raises(RuntimeFault) as e:
        run(alg, n, key=np.tile(np.arange(n) / n, (len(s), 1)), s=np.asarray(s))
    return e.value


def line_of(alg, text: str, nth: int = 0) -> int:
    """1-based number of the `nth` source line that is exactly `text`."""
    return [k for k, x in enumerate(alg.source.split("\n"), 1) if x == text][nth]


def assert_fault(f: RuntimeFault, code: str, sample: int, alg, src_line: str,
                 stmt: str) -> None:
    """The fault names the sample, and its span lies inside `stmt` on the line `src_line`."""
    line = line_of(alg, src_line)
    d = f.diagnostic
    assert d.code == code, d.concise()
    assert f.sample == sample and f"(sample {sample})" in d.message, d.message
    assert d.path == "t.alg" and d.span.line == line, d.concise()
    start = src_line.index(stmt) + 1
    assert start <= d.span.column < start + len(stmt), (d.concise(), stmt)
    assert d.concise().startswith(f"t.alg:{line}:{d.span.column}: {code} ")


def test_r101_read_out_of_range_names_the_sample() -> None:
    line = "x = key[int(s)]"
    alg = compile_alg(line, FAULT_DECLS + "state graph x: float = 0.0\n")
    f = fault(alg, [0, 1, 9, 2])
    assert_fault(f, "R101", 2, alg, line, "key[int(s)]")
    assert "`key`" in f.diagnostic.message


def test_r101_write_out_of_range() -> None:
    line = "a[int(s) - 1] = 1.0"
    alg = compile_alg(line, FAULT_DECLS + "state node a: float\n")
    assert_fault(fault(alg, [1, 2, 4, 0]), "R101", 3, alg, line, "a[int(s) - 1]")


def test_r101_remote_write_from_a_forall() -> None:
    line = "forall v { a[v + int(s)] = 1.0 by max }"
    alg = compile_alg(line, FAULT_DECLS + "state node a: float\n")
    assert_fault(fault(alg, [0, 0, 1, 0]), "R101", 2, alg, line, line)


def test_r101_pointer_probe_out_of_range() -> None:
    line = "p = int(s)"
    alg = compile_alg(line + "\nrecord", FAULT_DECLS + "output graph p: pointer\n")
    f = fault(alg, [0, 3, 2, 4, 1])
    assert f.diagnostic.code == "R101" and f.sample == 3 and "(sample 3)" in f.diagnostic.message
    assert "`p`" in f.diagnostic.message
    assert f.diagnostic.span.line == line_of(alg, "output graph p: pointer")  # the declaration


def test_r101_constant_index_out_of_range_inside_a_forall() -> None:
    line = "forall v { a[v] = key[int(s)] }"
    alg = compile_alg(line, FAULT_DECLS + "state node a: float\n")
    assert_fault(fault(alg, [0, 1, 7, 0]), "R101", 2, alg, line, "key[int(s)]")


def test_r102_loop_bound_exceeded() -> None:
    line = "while x < int(s) bound n { x += 1 }"
    alg = compile_alg(line, FAULT_DECLS + "state graph x: int = 0\n")
    f = fault(alg, [4, 0, 5, 3])
    assert_fault(f, "R102", 2, alg, line, line)
    assert "4" in f.diagnostic.message  # the bound that was exceeded


def test_r103_empty_min_without_default() -> None:
    line = "x = min(key[u] for u in nodes if key[u] >= s)"
    alg = compile_alg(line, FAULT_DECLS + "state graph x: float = 0.0\n")
    f = fault(alg, [0.1, 0.5, 0.7, 3.0])
    assert_fault(f, "R103", 3, alg, line, "min(key[u] for u in nodes if key[u] >= s)")
    assert "default" in f.diagnostic.message


def test_r103_only_counts_live_processors() -> None:
    line = "forall v where v > 0 { a[v] = max(key[u] for u in nodes if u < v) }"
    alg = compile_alg(line, FAULT_DECLS + "output node a: scalar := -1.0\n")
    t = run(alg, 4, key=np.tile(np.arange(4.0), (2, 1)), s=np.zeros(2))
    np.testing.assert_array_equal(t.outputs["a"], [[-1, 0, 1, 2]] * 2)


def test_r104_integer_division_by_zero() -> None:
    line = "x = 10 // int(s) + 10 % int(s)"
    alg = compile_alg(line, FAULT_DECLS + "state graph x: int = 0\n")
    f = fault(alg, [1, 2, 3, 0.5])
    assert_fault(f, "R104", 3, alg, line, line)
    t = run(alg, 4, key=np.zeros((2, 4)), s=np.array([3.0, 4.0]))
    assert t.batch_size == 2


def test_r104_not_raised_in_an_untaken_branch() -> None:
    line = "if int(s) != 0 { x = 10 // int(s) }"
    alg = compile_alg(line + "\nr = x", FAULT_DECLS + "state graph x: int = 0\n"
                      "output graph r: scalar\n")
    t = run(alg, 4, key=np.zeros((3, 4)), s=np.array([2.0, 0.0, 5.0]))
    np.testing.assert_array_equal(t.outputs["r"], [5, 0, 2])


def test_r105_categorical_out_of_range() -> None:
    line = "forall v { c[v] = int(s) }"
    alg = compile_alg("record\n" + line + "\nrecord", FAULT_DECLS + "hint node c: categorical(3)\n")
    f = fault(alg, [0, 2, 1, 3, 0])
    d = f.diagnostic
    assert d.code == "R105" and f.sample == 3 and "(sample 3)" in d.message
    assert "`c`" in d.message and "3 categories" in d.message
    assert d.span.line == line_of(alg, "record", 1)  # the `record` of the bad frame
    assert "frame 1" in d.message


def test_r106_mask_one_not_one_hot() -> None:
    line = "forall v { h[v] = key[v] >= s }"
    alg = compile_alg(line + "\nrecord", FAULT_DECLS + "hint node h: mask_one\n")
    f = fault(alg, [0.75, 0.7, 0.5, 0.8])
    d = f.diagnostic
    assert d.code == "R106" and f.sample == 2 and "(sample 2)" in d.message
    assert "`h`" in d.message and "one-hot" in d.message
    assert d.span.line == line_of(alg, "record")  # the `record` of the bad frame


def test_r106_mask_one_output() -> None:
    alg = compile_alg("forall v { o[v] = key[v] >= s }", FAULT_DECLS + "output node o: mask_one\n")
    f = fault(alg, [0.75, 0.75, 0.0])
    assert f.diagnostic.code == "R106" and f.sample == 2 and "`o`" in f.diagnostic.message
