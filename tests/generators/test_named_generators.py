"""Tests for the named input distributions (algspec/generators.py)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from algspec.generators import (
    GENERATORS,
    check_declared_type,
    community_blocks,
    draw_inputs,
    validate_params,
)

# Tolerance for an empirical Bernoulli frequency over `count` trials: 6 standard
# deviations, so a correct generator fails with probability < 1e-8 (and the
# seeded streams make the outcome fixed anyway).


def _tol(p: float, count: int) -> float:
    return 6.0 * math.sqrt(max(p * (1.0 - p), 1e-12) / count)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("uniform", (5, 7)),
        ("sorted_uniform", (5, 7)),
        ("uniform_scalar", (5,)),
        ("erdos_renyi", (5, 7, 7)),
        ("clrs_erdos_renyi", (5, 7, 7)),
        ("community", (5, 7, 7)),
        ("source_node", (5, 7)),
        ("random_index", (5,)),
        ("bst_q", (5, 8)),
        ("segments_x", (5, 4)),
    ],
)
def test_shapes_and_dtype(name: str, shape: tuple[int, ...]) -> None:
    out = GENERATORS[name].sample(_rng(), 5, 7)
    assert out.shape == shape
    assert out.dtype == np.float64
    assert GENERATORS[name].location == {1: "graph", 2: "node", 3: "edge"}[len(shape)]


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_draws_its_declared_shape_and_domain(name: str) -> None:
    gen = GENERATORS[name]
    for n in (4, 9):  # community needs n >= k = 4, string matching n >= 3
        x = gen.sample(_rng(n), 6, n)
        assert x.shape == gen.shape(6, n, dict(gen.defaults))
        dom = gen.domain_of()
        if dom.kind in ("bool", "one_hot"):
            assert set(np.unique(x)) <= {0.0, 1.0}
        if dom.kind == "one_hot":
            assert (x.sum(axis=1) == 1).all()
        if dom.kind in ("int", "categorical", "pointer", "bijection", "list"):
            assert (x == np.round(x)).all()
        if dom.kind == "int" and dom.high is not None:
            assert dom.low <= x.min() and x.max() <= dom.high
        if dom.kind == "categorical":
            assert 0 <= x.min() and x.max() < dom.k
        if dom.kind in ("pointer", "bijection", "list"):
            assert 0 <= x.min() and x.max() < n
        if dom.kind == "real" and dom.low is not None:
            assert dom.low <= x.min() and x.max() < dom.high


def test_registry_fields() -> None:
    for name, gen in GENERATORS.items():
        assert gen.name == name
        assert gen.doc
        assert validate_params(name, dict(gen.defaults)) == []


def test_uniform_range_and_moments() -> None:
    x = GENERATORS["uniform"].sample(_rng(1), 400, 50, low=-2.0, high=3.0)
    assert x.min() >= -2.0 and x.max() < 3.0
    # mean of U[-2, 3) is 0.5, std 5/sqrt(12); 20000 draws.
    assert abs(x.mean() - 0.5) < 6 * (5 / math.sqrt(12)) / math.sqrt(x.size)
    # Not sorted: a sorted uniform sequence of length 50 is vanishingly unlikely.
    assert not np.all(np.diff(x, axis=1) >= 0)
    # Columns independent of position: every column has the same law.
    assert np.all(np.abs(x.mean(axis=0) - 0.5) < 6 * (5 / math.sqrt(12)) / math.sqrt(400))


def test_sorted_uniform_is_sorted_per_sample() -> None:
    x = GENERATORS["sorted_uniform"].sample(_rng(2), 100, 16, low=0.25, high=0.75)
    assert np.all(np.diff(x, axis=1) >= 0)
    assert x.min() >= 0.25 and x.max() < 0.75
    # The first order statistic of 16 U[0,1) has mean 1/17.
    first = (x[:, 0] - 0.25) / 0.5
    assert abs(first.mean() - 1 / 17) < 0.02


def test_uniform_scalar_range() -> None:
    x = GENERATORS["uniform_scalar"].sample(_rng(3), 10000, 8)
    assert x.shape == (10000,)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 6 * math.sqrt(1 / 12 / 10000)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_erdos_renyi_directed_density(p: float) -> None:
    b, n = 200, 24
    a = GENERATORS["erdos_renyi"].sample(_rng(4), b, n, p=p, directed=True)
    assert set(np.unique(a)) <= {0.0, 1.0}
    assert np.all(np.diagonal(a, axis1=1, axis2=2) == 0)
    off = a[:, ~np.eye(n, dtype=bool)]
    assert abs(off.mean() - p) < _tol(p, off.size)
    # Directed: a[i, j] and a[j, i] are independent, so both present has prob p^2.
    both = (a * a.transpose(0, 2, 1))[:, ~np.eye(n, dtype=bool)]
    assert abs(both.mean() - p * p) < _tol(p * p, both.size)


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_erdos_renyi_undirected_symmetric_density(p: float) -> None:
    b, n = 200, 24
    a = GENERATORS["erdos_renyi"].sample(_rng(5), b, n, p=p)
    np.testing.assert_array_equal(a, a.transpose(0, 2, 1))
    assert np.all(np.diagonal(a, axis1=1, axis2=2) == 0)
    iu = np.triu_indices(n, k=1)
    upper = a[:, iu[0], iu[1]]
    assert abs(upper.mean() - p) < _tol(p, upper.size)


def test_erdos_renyi_self_loops_and_acyclic() -> None:
    b, n, p = 300, 16, 0.3
    a = GENERATORS["erdos_renyi"].sample(_rng(6), b, n, p=p, self_loops=True)
    diag = np.diagonal(a, axis1=1, axis2=2)
    assert abs(diag.mean() - p) < _tol(p, diag.size)
    np.testing.assert_array_equal(a, a.transpose(0, 2, 1))

    dag = GENERATORS["erdos_renyi"].sample(_rng(7), 50, n, p=0.5, directed=True, acyclic=True)
    for g in dag:
        assert nx.is_directed_acyclic_graph(nx.from_numpy_array(g, create_using=nx.DiGraph))
    # The node relabelling makes the DAG not upper triangular (CLRS "nontrivial").
    assert any(np.tril(g, k=-1).any() for g in dag)
    # Edges present with prob p among the n(n-1)/2 pairs of the hidden order.
    assert abs(dag.sum(axis=(1, 2)).mean() / (n * (n - 1) / 2) - 0.5) < _tol(0.5, 50 * 120)


def test_clrs_erdos_renyi_conventions() -> None:
    b, n, p = 300, 16, 0.5
    a = GENERATORS["clrs_erdos_renyi"].sample(_rng(8), b, n, p=p)
    np.testing.assert_array_equal(a, a.transpose(0, 2, 1))
    diag = np.diagonal(a, axis1=1, axis2=2)
    assert abs(diag.mean() - p) < _tol(p, diag.size)
    iu = np.triu_indices(n, k=1)
    upper = a[:, iu[0], iu[1]]
    assert abs(upper.mean() - p * p) < _tol(p * p, upper.size)


def _clrs_community_reference(seed: int, b: int, n: int, **kw: float) -> np.ndarray:
    """dm-clrs's own community graphs, drawn with its sampler's private method."""
    clrs_samplers = pytest.importorskip("clrs._src.samplers")
    sampler = clrs_samplers.SccSampler.__new__(clrs_samplers.SccSampler)
    sampler._rng = np.random.RandomState(seed)
    return np.stack(
        [sampler._random_community_graph(n, directed=True, **kw) for _ in range(b)]
    )


def test_community_blocks_split_like_clrs() -> None:
    np.testing.assert_array_equal(community_blocks(10, 4), [0, 0, 1, 1, 2, 2, 3, 3, 3, 3])
    np.testing.assert_array_equal(community_blocks(8, 4), [0, 0, 1, 1, 2, 2, 3, 3])
    with pytest.raises(ValueError):
        community_blocks(3, 4)
    with pytest.raises(ValueError):
        GENERATORS["community"].sample(_rng(), 2, 3)


def test_community_structure_unshuffled() -> None:
    b, n, k, p, eps = 400, 20, 4, 0.5, 0.05
    a = GENERATORS["community"].sample(_rng(9), b, n, k=k, p=p, eps=eps, shuffle=False)
    blk = community_blocks(n, k)
    same = blk[:, None] == blk[None, :]
    fwd = blk[:, None] < blk[None, :]
    back = blk[:, None] > blk[None, :]
    # Inside a community: G(s, p) XOR Bernoulli(eps), diagonal included.
    intra_p = p * (1 - eps) + (1 - p) * eps
    intra = a[:, same]
    assert abs(intra.mean() - intra_p) < _tol(intra_p, intra.size)
    # From a lower to a higher community: only the eps noise.
    inter = a[:, fwd]
    assert abs(inter.mean() - eps) < _tol(eps, inter.size)
    # Never from a higher to a lower community (no cycle across communities).
    assert not a[:, back].any()


def test_community_matches_clrs_distribution() -> None:
    """Edge count and SCC count statistics agree with dm-clrs's own graphs."""
    b, n = 300, 16
    ours = GENERATORS["community"].sample(_rng(10), b, n)
    theirs = _clrs_community_reference(10, b, n)

    def stats(graphs: np.ndarray) -> tuple[float, float, float]:
        edges = graphs.sum(axis=(1, 2))
        loops = np.diagonal(graphs, axis1=1, axis2=2).sum(axis=1)
        sccs = [
            nx.number_strongly_connected_components(
                nx.from_numpy_array(g, create_using=nx.DiGraph)
            )
            for g in graphs
        ]
        return float(edges.mean()), float(loops.mean()), float(np.mean(sccs))

    (e1, l1, s1), (e2, l2, s2) = stats(ours), stats(theirs)
    # Expected edges: 4 blocks of 16 entries at ~0.5 plus 96 forward entries at
    # 0.01, i.e. ~33; measured per-graph std ~4.2, so the difference of two
    # 300-sample means has std ~4.2 * sqrt(2 / 300) = 0.34.
    assert abs(e1 - e2) < 6 * 4.2 * math.sqrt(2 / b)
    assert abs(l1 - l2) < 6 * math.sqrt(2 * 16 * 0.25 / b)
    # Blocks of 4 at p=0.5 are often not strongly connected, so the SCC count is
    # a sensitive statistic of the whole construction (mean ~8.3, measured
    # std per graph ~2.1; 2.5 is used as a conservative bound).
    assert abs(s1 - s2) < 6 * math.sqrt(2 * 2.5**2 / b)


def test_community_shuffled_sccs_are_the_communities() -> None:
    # With p=0.9, each community of 16 is strongly connected with overwhelming
    # probability, and the forward-only noise edges cannot merge communities:
    # every graph has exactly k SCCs whose sizes are the community sizes.
    b, n, k = 40, 64, 4
    a = GENERATORS["community"].sample(_rng(11), b, n, k=k, p=0.9, eps=0.05)
    blk = community_blocks(n, k)
    for g in a:
        sccs = list(nx.strongly_connected_components(nx.from_numpy_array(g, create_using=nx.DiGraph)))
        assert sorted(len(c) for c in sccs) == sorted(np.bincount(blk).tolist())
    # Shuffling hides the blocks: some graph has an edge below the block diagonal.
    assert any(g[blk[:, None] > blk[None, :]].any() for g in a)


def test_community_undirected_is_symmetric() -> None:
    a = GENERATORS["community"].sample(_rng(12), 20, 12, directed=False)
    np.testing.assert_array_equal(a, a.transpose(0, 2, 1))


# Generators whose output does not depend on the random stream at their defaults.
_DETERMINISTIC = {"string_split", "matcher_split", "two_sorted_runs_split"}  # n // 2


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_determinism_with_seed(name: str) -> None:
    x = GENERATORS[name].sample(_rng(42), 8, 9)
    y = GENERATORS[name].sample(_rng(42), 8, 9)
    z = GENERATORS[name].sample(_rng(43), 8, 9)
    np.testing.assert_array_equal(x, y)
    assert np.array_equal(x, z) == (name in _DETERMINISTIC)


def test_batch_samples_differ() -> None:
    x = GENERATORS["community"].sample(_rng(13), 4, 12)
    assert len({g.tobytes() for g in x}) == 4


def test_validate_params_errors() -> None:
    assert validate_params("uniform", {"low": -1.0, "high": 2}) == []
    [msg] = validate_params("nope", {})
    assert "unknown generator 'nope'" in msg and "sorted_uniform" in msg
    [msg] = validate_params("uniform", {"lo": 0.0})
    assert "'lo'" in msg and "low, high" in msg
    assert validate_params("uniform", {"low": 1.0, "high": 0.0})
    assert validate_params("uniform", {"low": float("nan")})
    assert validate_params("uniform", {"low": True})
    assert validate_params("uniform", {"low": "0"})
    assert validate_params("erdos_renyi", {"p": 1.5})
    assert validate_params("erdos_renyi", {"directed": 1})
    assert validate_params("erdos_renyi", {"acyclic": True})  # undirected
    assert validate_params("erdos_renyi", {"acyclic": True, "directed": True}) == []
    assert validate_params("community", {"k": 2.0})
    assert validate_params("community", {"k": 0})
    assert validate_params("community", {"eps": -0.1})
    assert len(validate_params("community", {"x": 1, "y": 2})) == 2


def test_sample_rejects_bad_params() -> None:
    with pytest.raises(ValueError, match="no parameter 'q'"):
        GENERATORS["erdos_renyi"].sample(_rng(), 2, 4, q=0.1)
    with pytest.raises(ValueError, match="low < high"):
        GENERATORS["uniform"].sample(_rng(), 2, 4, low=1.0, high=1.0)


# ---------------------------------------------------------------- new generators


def test_source_node_is_uniform_one_hot() -> None:
    x = GENERATORS["source_node"].sample(_rng(20), 6000, 6)
    assert (x.sum(axis=1) == 1).all()
    freq = x.mean(axis=0)
    assert np.all(np.abs(freq - 1 / 6) < _tol(1 / 6, 6000))
    i = GENERATORS["random_index"].sample(_rng(21), 6000, 6)
    assert set(np.unique(i)) == set(range(6))


def _follow(ptr: np.ndarray, start: int, steps: int) -> list[int]:
    out = [start]
    for _ in range(steps):
        out.append(int(ptr[out[-1]]))
    return out


@pytest.mark.parametrize("successor", [False, True])
def test_random_list_is_one_chain(successor: bool) -> None:
    n = 9
    x = GENERATORS["random_list"].sample(_rng(22), 300, n, successor=successor).astype(int)
    for ptr in x:
        ends = [i for i in range(n) if ptr[i] == i]
        assert len(ends) == 1  # head (pred) / tail (succ) points to itself
        # Exactly one node is pointed to by nobody: the other end.
        others = set(range(n)) - {int(p) for i, p in enumerate(ptr) if p != i}
        assert len(others) == 1
        # Walking from that end reaches every node once.
        assert sorted(_follow(ptr, others.pop(), n - 1)) == list(range(n))
    # The order is uniform: the self-pointing end is uniform over the nodes.
    ends = (x == np.arange(n)).argmax(axis=1)
    assert np.all(np.abs(np.bincount(ends, minlength=n) / 300 - 1 / n) < _tol(1 / n, 300))


def test_random_permutation_is_uniform_bijection() -> None:
    x = GENERATORS["random_permutation"].sample(_rng(23), 3000, 4).astype(int)
    assert all(sorted(p) == [0, 1, 2, 3] for p in x)
    counts = np.unique([tuple(p) for p in x], axis=0, return_counts=True)[1]
    assert len(counts) == 24
    assert np.all(np.abs(counts / 3000 - 1 / 24) < _tol(1 / 24, 3000))


def test_random_tree_is_a_tree() -> None:
    n = 10
    x = GENERATORS["random_tree"].sample(_rng(24), 200, n).astype(int)
    for parent in x:
        roots = [i for i in range(n) if parent[i] == i]
        assert len(roots) == 1
        g = nx.DiGraph([(i, int(parent[i])) for i in range(n) if parent[i] != i])
        g.add_nodes_from(range(n))
        assert nx.is_tree(g.to_undirected())


def test_deadlines_and_uniform_int_ranges() -> None:
    d = GENERATORS["deadlines"].sample(_rng(25), 2000, 7)
    assert set(np.unique(d)) == set(range(1, 8))
    assert abs(d.mean() - 4.0) < 6 * math.sqrt(4 / d.size)
    d3 = GENERATORS["deadlines"].sample(_rng(25), 200, 7, max_deadline=3)
    assert set(np.unique(d3)) == {1, 2, 3}
    u = GENERATORS["uniform_int"].sample(_rng(26), 200, 7, low=-2, high=3)
    assert set(np.unique(u)) == {-2, -1, 0, 1, 2}


def test_string_split_and_random_string() -> None:
    s = GENERATORS["string_split"].sample(_rng(), 2, 7)
    np.testing.assert_array_equal(s[0], [0, 0, 0, 0, 1, 1, 1])  # 7 // 2 = 3 at the end
    s = GENERATORS["string_split"].sample(_rng(), 2, 7, length_2=2)
    np.testing.assert_array_equal(s[1], [0, 0, 0, 0, 0, 1, 1])
    k = GENERATORS["random_string"].sample(_rng(27), 1000, 8, chars=3)
    assert set(np.unique(k)) == {0, 1, 2}


@pytest.mark.parametrize("directed", [False, True])
def test_erdos_renyi_connected(directed: bool) -> None:
    n = 12
    a = GENERATORS["erdos_renyi"].sample(_rng(28), 100, n, p=0.05, directed=directed,
                                         connected=True)
    for g in a:
        graph = nx.from_numpy_array(g, create_using=nx.DiGraph if directed else nx.Graph)
        if directed:  # some root reaches every node
            assert any(len(nx.descendants(graph, r)) == n - 1 for r in range(n))
        else:
            assert nx.is_connected(graph)
    dag = GENERATORS["erdos_renyi"].sample(_rng(29), 50, n, p=0.05, directed=True,
                                           acyclic=True, connected=True)
    for g in dag:
        graph = nx.from_numpy_array(g, create_using=nx.DiGraph)
        assert nx.is_directed_acyclic_graph(graph) and nx.is_weakly_connected(graph)


def test_erdos_renyi_weighted() -> None:
    a = GENERATORS["erdos_renyi"].sample(_rng(30), 200, 10, weighted=True, low=1.0, high=3.0)
    np.testing.assert_array_equal(a, a.transpose(0, 2, 1))
    w = a[a != 0]
    assert w.min() >= 1.0 and w.max() < 3.0
    assert abs(w.mean() - 2.0) < 6 * math.sqrt(1 / 3 / (w.size / 2))
    # The structure is the unweighted draw's (weights come after it in the stream).
    b = GENERATORS["erdos_renyi"].sample(_rng(30), 200, 10)
    np.testing.assert_array_equal(a != 0, b != 0)


def test_clrs_erdos_renyi_weighting_rules() -> None:
    g = GENERATORS["clrs_erdos_renyi"]
    und = g.sample(_rng(31), 300, 10, weighted=True)
    np.testing.assert_array_equal(und, und.transpose(0, 2, 1))
    w = und[und != 0]
    # sqrt(u v + 1e-3) for u, v ~ U[0, 1): at least sqrt(1e-3), mean about (2/3)^2.
    assert w.min() >= math.sqrt(1e-3) and abs(w.mean() - 4 / 9) < 0.02
    dag = g.sample(_rng(32), 50, 10, directed=True, acyclic=True, weighted=True, low=2.0,
                   high=4.0)
    assert (np.diagonal(dag, axis1=1, axis2=2) == 0).all()
    assert (dag[dag != 0] >= 2.0).all()
    for m in dag:
        assert nx.is_directed_acyclic_graph(nx.from_numpy_array(m, create_using=nx.DiGraph))
    assert validate_params("clrs_erdos_renyi", {"weighted": True, "low": -1.0})
    assert validate_params("clrs_erdos_renyi", {"acyclic": True})  # undirected
    assert validate_params("clrs_erdos_renyi", {"p": [0.1, 0.5]}) == []
    assert validate_params("clrs_erdos_renyi", {"p": [0.1, 1.5]})
    assert validate_params("clrs_erdos_renyi", {"p": []})
    assert validate_params("uniform", {"low": [0.0, 0.5]})  # not a choice parameter


def test_matcher_needs_room_for_the_needle() -> None:
    with pytest.raises(ValueError, match="too small"):
        GENERATORS["matcher_string"].sample(_rng(), 2, 2)
    assert GENERATORS["matcher_string"].sample(_rng(), 2, 3).shape == (2, 3)


# ---------------------------------------------------------------- joint draws


def test_draw_inputs_shares_a_joint_draw() -> None:
    reqs = {"s": ("interval_start", {}), "k": ("uniform", {}), "f": ("interval_finish", {})}
    x = draw_inputs(reqs, _rng(33), 50, 9)
    assert (x["s"] <= x["f"]).all()
    # Unequal parameters make independent draws: then start > finish happens.
    reqs["f"] = ("interval_finish", {"high": 1.5})
    y = draw_inputs(reqs, _rng(33), 50, 9)
    assert (y["s"] > y["f"]).any()
    # Alone, a field is drawn from its own joint draw.
    z = GENERATORS["interval_start"].sample(_rng(33), 50, 9)
    w = GENERATORS["interval_finish"].sample(_rng(33), 50, 9)
    assert (z <= w).all()


def test_draw_inputs_keeps_the_stream_of_independent_inputs() -> None:
    reqs = {"key": ("uniform", {}), "A": ("erdos_renyi", {"p": 0.3})}
    x = draw_inputs(reqs, _rng(34), 4, 6)
    rng = _rng(34)
    np.testing.assert_array_equal(x["key"], GENERATORS["uniform"].sample(rng, 4, 6))
    np.testing.assert_array_equal(x["A"], GENERATORS["erdos_renyi"].sample(rng, 4, 6, p=0.3))


# ---------------------------------------------------------------- type fit


@pytest.mark.parametrize(
    ("gen", "loc", "clrs_type", "k", "params", "ok"),
    [
        ("uniform", "node", "scalar", None, {}, True),
        ("uniform", "node", "mask", None, {}, False),
        ("uniform", "node", "mask_one", None, {}, False),
        ("uniform", "node", "categorical", 4, {}, False),
        ("uniform", "edge", "scalar", None, {}, False),
        ("source_node", "node", "mask_one", None, {}, True),
        ("source_node", "node", "mask", None, {}, True),
        ("random_string", "node", "categorical", 4, {}, True),
        ("random_string", "node", "categorical", 3, {}, False),
        ("random_string", "node", "categorical", 3, {"chars": 3}, True),
        ("uniform_int", "node", "categorical", 3, {"low": 0, "high": 3}, True),
        ("uniform_int", "node", "categorical", 3, {"low": 0, "high": 4}, False),
        ("uniform_int", "node", "mask", None, {}, True),
        ("uniform_int", "node", "mask", None, {"high": 3}, False),
        ("random_list", "node", "should_be_permutation", None, {}, True),
        ("random_list", "node", "pointer", None, {}, True),
        ("random_permutation", "node", "pointer", None, {}, True),
        ("random_permutation", "node", "should_be_permutation", None, {}, False),
        ("random_tree", "node", "pointer", None, {}, True),
        ("random_index", "graph", "pointer", None, {}, True),
        ("uniform_scalar", "graph", "pointer", None, {}, False),
        ("clrs_erdos_renyi", "edge", "mask", None, {}, True),
        ("clrs_erdos_renyi", "edge", "mask", None, {"weighted": True}, False),
        ("clrs_erdos_renyi", "edge", "scalar", None, {"weighted": True}, True),
        ("deadlines", "node", "scalar", None, {}, True),
        ("deadlines", "node", "pointer", None, {}, False),
        ("matcher_split", "node", "mask", None, {}, True),
    ],
)
def test_check_declared_type(gen: str, loc: str, clrs_type: str, k: int | None,
                             params: dict, ok: bool) -> None:
    problems = check_declared_type(gen, loc, clrs_type, k, params)
    assert (problems == []) == ok, problems
    if not ok:
        assert f"`{gen}`" in problems[0]


def test_check_declared_type_suggests_fitting_generators() -> None:
    [msg] = check_declared_type("uniform", "node", "mask_one")
    assert "source_node()" in msg and "uniform()" not in msg.split("fit:")[1]
    [msg] = check_declared_type("uniform", "node", "categorical", 4)
    assert "random_string()" in msg


def test_docs_tables_are_the_registry() -> None:
    from pathlib import Path

    import algspec
    from algspec.generators import clrs_table, markdown_table
    doc = (Path(algspec.__file__).parents[1] / "docs" / "generators.md").read_text()
    for marker, table in (("generators", markdown_table()), ("clrs-inputs", clrs_table())):
        start = doc.index(f"<!-- {marker}:")
        body = doc[doc.index("\n", start) + 1: doc.index(f"<!-- /{marker} -->")].strip()
        assert body == table, "regenerate it with `python -m algspec.generators`"


def test_collinear_matches_brute_force_on_planted_triples() -> None:
    from itertools import combinations

    from algspec.generators.joint import collinear
    rng = _rng(35)
    x, y = rng.random((60, 7)), rng.random((60, 7))
    x[3, 4], y[3, 4] = (x[3, 1] + x[3, 2]) / 2, (y[3, 1] + y[3, 2]) / 2  # a midpoint
    x[9, 0], y[9, 0] = x[9, 5], y[9, 5]  # a repeated point

    def brute(b: int) -> bool:
        return any(abs((x[b, j] - x[b, i]) * (y[b, k] - y[b, i])
                       - (y[b, j] - y[b, i]) * (x[b, k] - x[b, i])) < 1e-12
                   for i, j, k in combinations(range(7), 3))

    want = np.array([brute(b) for b in range(60)])
    np.testing.assert_array_equal(collinear(x, y, 1e-12), want)
    assert want[3] and want[9] and want.sum() == 2
