"""Tests for the named input distributions (algspec/generators.py)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from algspec.generators import GENERATORS, community_blocks, validate_params

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
    ],
)
def test_shapes_and_dtype(name: str, shape: tuple[int, ...]) -> None:
    out = GENERATORS[name].sample(_rng(), 5, 7)
    assert out.shape == shape
    assert out.dtype == np.float64
    assert GENERATORS[name].location == {1: "graph", 2: "node", 3: "edge"}[len(shape)]


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


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_determinism_with_seed(name: str) -> None:
    x = GENERATORS[name].sample(_rng(42), 8, 9)
    y = GENERATORS[name].sample(_rng(42), 8, 9)
    z = GENERATORS[name].sample(_rng(43), 8, 9)
    np.testing.assert_array_equal(x, y)
    assert not np.array_equal(x, z)


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
