"""`trace` and `run` without `n=`: the problem size every input fits, and shapes that keep
their axes at n = 1."""

from __future__ import annotations

import numpy as np
import pytest

import algspec

TREE = """
algorithm tree_sum
nodes 2 * n - 1
graph complete
input  node  x: scalar ~ uniform()
hint   node  s: scalar := x
output graph total: scalar
for k in 0 .. n - 1 { let i = n - 2 - k; s[i] = s[2 * i + 1] + s[2 * i + 2]; record }
total = s[0]
"""

PLACEHOLDER = """
algorithm first_above
nodes n + 1
graph empty
input  node  key: scalar ~ sorted_uniform() pad 2.0
input  graph t: scalar ~ uniform_scalar()
hint   node  above: mask
output graph at: pointer
record
forall v { above[v] = key[v] >= t }
record
forall v where above[v] { at = v by priority }
"""

EDGES_N1 = """
algorithm degrees
nodes n + 1
graph input A
input  edge  A: mask ~ erdos_renyi(p = 0.5)
output node  deg: scalar
hint   node  d: scalar
forall v { d[v] = float(count(u != v for u in incoming(v))) }
record
deg = d
"""


def test_a_file_with_more_nodes_than_items_infers_n_from_stored_arrays():
    """`nodes 2 * n - 1` given its N = 7 stored values is n = 4, not a 13-node problem."""
    alg = algspec.load_source(TREE)
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0])
    total, probes = alg.trace(x=x)
    assert total == pytest.approx(10.0)
    assert probes["input"]["node"]["x"]["data"].shape == (7,)
    assert len(probes["hint"]["node"]["s"]["data"]) == 3  # n - 1 frames at n = 4
    same, _ = alg.trace(n=4, x=x)
    assert same == total


def test_optimal_bst_with_dm_clrs_arrays_is_n_items():
    """dm-clrs hands p padded to n + 1 and q of n + 1: the problem has n = 4 keys."""
    clrs = pytest.importorskip("clrs")
    bst = algspec.load("algorithms/clrs/optimal_bst.alg")
    rng = np.random.default_rng(3)
    w = rng.random(9)
    w /= w.sum()
    p, q = w[:4], w[4:]
    out, probes = bst.trace(p=np.append(p, 0.0), q=q)
    _, ref = clrs.algorithms.optimal_bst(p, q)
    assert out.shape == (5, 5)
    assert np.array_equal(probes["input"]["node"]["pos"]["data"],
                          ref["input"]["node"]["pos"]["data"])
    assert np.array_equal(out, ref["output"]["edge"]["root"]["data"])


def test_padded_inputs_read_as_drawn_and_stored_forms_need_n():
    alg = algspec.load_source(PLACEHOLDER)
    key = np.array([0.1, 0.4, 0.6, 0.9])
    at, probes = alg.trace(key=key, t=0.5)  # four items plus the placeholder
    assert probes["input"]["node"]["key"]["data"].shape == (5,)
    assert at == 2
    stored = probes["input"]["node"]["key"]["data"]  # N = 5 values, the pad included
    again, _ = alg.trace(n=4, key=stored, t=0.5)
    assert again == at


def test_edge_inputs_may_be_given_as_drawn_or_as_stored():
    alg = algspec.load_source(EDGES_N1)
    A = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=float)
    drawn, p1 = alg.trace(A=A)  # n = 3 items drawn; the placeholder node has no edges
    assert p1["input"]["edge"]["A"]["data"].shape == (4, 4)
    assert drawn.tolist() == [1.0, 2.0, 1.0, 0.0]
    stored, _ = alg.trace(n=3, A=p1["input"]["edge"]["A"]["data"])
    assert stored.tolist() == drawn.tolist()


def test_inputs_that_fit_no_common_size_are_refused_by_name():
    bst = algspec.load("algorithms/clrs/optimal_bst.alg")
    with pytest.raises(ValueError, match=r"no problem size n fits .*`q` has 7"):
        bst.trace(p=np.full(5, 0.1), q=np.full(7, 0.1))


def test_inputs_that_fit_several_sizes_take_their_own_length_or_are_refused():
    pow2 = algspec.load_source("""
algorithm pow2
nodes pow2ceil(n)
graph complete
input node x: scalar ~ uniform()
output node y: scalar = x
hint node h: scalar := x
record
""")
    _, probes = pow2.trace(x=np.arange(8.0))  # n = 5..8 all give N = 8: n = 8, its own
    assert probes["input"]["node"]["pos"]["data"].tolist() == (np.arange(8) / 8).tolist()
    halves = algspec.load_source("""
algorithm halves
nodes n // 2 + 1
graph complete
input node x: scalar ~ uniform()
output node y: scalar = x
hint node h: scalar := x
record
""")
    with pytest.raises(ValueError, match=r"several problem sizes \(n = 6, 7\).*pass n"):
        halves.trace(x=np.arange(4.0))
    y, _ = halves.trace(n=7, x=np.arange(4.0))
    assert y.shape == (4,)


def test_node_and_edge_axes_stay_at_n_equal_to_one():
    """dm-clrs squeezes size-1 axes at n = 1; algspec's probe shapes depend on the location
    only."""
    m = algspec.load("algorithms/clrs/minimum.alg")
    out, probes = m.trace(key=[0.3])
    assert out == 0
    for name in ("key", "pos"):
        assert probes["input"]["node"][name]["data"].shape == (1,)
    assert probes["output"]["node"]["min"]["data"].shape == (1,)
    assert probes["hint"]["node"]["min_h"]["data"].shape[1:] == (1,)
    fw = algspec.load("algorithms/clrs/floyd_warshall.alg")
    _, p = fw.trace(A=[[0.0]], adj=[[1.0]]) if "adj" in fw.primary_inputs else fw.trace(A=[[0.0]])
    assert p["input"]["edge"]["A"]["data"].shape == (1, 1)
    assert p["output"]["edge"]["Pi"]["data"].shape == (1, 1)
    assert p["input"]["graph"] == {} or all(v["data"].shape == () for v in
                                            p["input"]["graph"].values())
