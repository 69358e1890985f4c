"""Graph families as edge generators (algspec/generators/families.py) and the `family`
option of `erdos_renyi` / `clrs_erdos_renyi`.

Structure against networkx and scipy (edge counts, connectivity, isomorphism
on small n), statistics against their closed forms, determinism, n = 1, 2, 3,
and `--param A.family=...` end to end on CLRS-30's BFS.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from scipy.spatial import Delaunay
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.generators import GENERATORS, families, validate_params
from algspec.generators.families import (
    COMMON,
    FAMILIES,
    delaunay_edges,
    families_table,
    family_names,
    grid_shape,
    uniform_points,
)

ROOT = Path(__file__).resolve().parents[2]
BFS = ROOT / "algorithms" / "clrs" / "bfs.alg"
FAMILY_GENERATORS = sorted(f.generator.name for f in FAMILIES.values())
# Families whose graph is connected for every draw (ws only with connected = true).
CONNECTED = sorted(set(FAMILY_GENERATORS) - {"watts_strogatz"})


def _draw(name: str, n: int, batch: int = 4, seed: int = 0, **params) -> np.ndarray:
    return GENERATORS[name].sample(np.random.default_rng(seed), batch, n, **params)


def _graph(a: np.ndarray) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(len(a)))
    g.add_edges_from(zip(*np.nonzero(np.triu(a, k=1)), strict=True))
    return g


def _edge_count(a: np.ndarray) -> int:
    return int(np.count_nonzero(np.triu(a, k=1)))


# ------------------------------------------------------------------ every family


@pytest.mark.parametrize("name", FAMILY_GENERATORS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 30])
def test_undirected_simple_symmetric(name: str, n: int) -> None:
    x = _draw(name, n, batch=5, seed=n)
    assert x.shape == (5, n, n) and x.dtype == np.float64
    assert set(np.unique(x)) <= {0.0, 1.0}
    np.testing.assert_array_equal(x, x.transpose(0, 2, 1))
    assert not x[:, np.arange(n), np.arange(n)].any()
    if name in CONNECTED:
        for a in x:
            assert nx.is_connected(_graph(a)), (name, n)


@pytest.mark.parametrize("name", FAMILY_GENERATORS)
def test_same_seed_same_bytes_other_seed_other_graphs(name: str) -> None:
    a = _draw(name, 40, seed=5, weighted=True, low=-1.0, high=2.0)
    b = _draw(name, 40, seed=5, weighted=True, low=-1.0, high=2.0)
    c = _draw(name, 40, seed=6, weighted=True, low=-1.0, high=2.0)
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, c)
    assert len({g.tobytes() for g in a}) == len(a)  # each sample its own draw


@pytest.mark.parametrize("name", FAMILY_GENERATORS)
def test_weights_in_range_symmetric_on_the_edges(name: str) -> None:
    plain = _draw(name, 25, seed=3)
    w = _draw(name, 25, seed=3, weighted=True, low=2.0, high=5.0)
    np.testing.assert_array_equal(w, w.transpose(0, 2, 1))
    np.testing.assert_array_equal(w != 0, plain != 0)  # the same graph, weighted
    on = w[plain != 0]
    assert on.min() >= 2.0 and on.max() < 5.0
    assert len(np.unique(on)) == on.size // 2  # one draw per undirected edge


@pytest.mark.parametrize("name", FAMILY_GENERATORS)
def test_directed_orients_each_edge_once(name: str) -> None:
    und = _draw(name, 30, seed=4)
    d = _draw(name, 30, seed=4, directed=True)
    assert not (d * d.transpose(0, 2, 1)).any()  # no 2-cycles
    np.testing.assert_array_equal(np.maximum(d, d.transpose(0, 2, 1)), und)
    ups = np.triu(d, k=1).sum() / d.sum()
    assert 0.3 < ups < 0.7  # random orientations, about half upwards
    dag = _draw(name, 30, seed=4, directed=True, acyclic=True)
    assert not np.tril(dag).any()  # lower to higher label: acyclic
    np.testing.assert_array_equal(np.maximum(dag, dag.transpose(0, 2, 1)), und)


@pytest.mark.parametrize("name", FAMILY_GENERATORS)
def test_self_loops_and_parameter_errors(name: str) -> None:
    x = _draw(name, 6, self_loops=True)
    assert (x[:, np.arange(6), np.arange(6)] == 1).all()
    assert validate_params(name, {"acyclic": True})  # undirected
    assert validate_params(name, {"directed": True, "acyclic": True, "self_loops": True})
    assert validate_params(name, {"weighted": True, "low": 1.0, "high": 1.0})
    assert validate_params(name, {"directed": True, "acyclic": True}) == []


def test_node_labels_are_shuffled() -> None:
    """A path in index order (0-1, 1-2, ...) would reveal the structure."""
    x = _draw("path", 50, batch=20)
    assert (np.diagonal(x, offset=1, axis1=1, axis2=2).mean(axis=1) < 0.5).all()
    deg0 = _draw("barabasi_albert", 50, batch=200)[:, 0].sum(axis=1)
    assert deg0.mean() < 6  # node 0 (the star's centre before relabelling) is not the hub


# ------------------------------------------------------------------ per family


def test_sparse_erdos_renyi_mean_degree() -> None:
    """The G(n, p) edges with p = degree / (n - 1), plus a random tree's edges not already
    there: mean degree (n - 1) p + 2 (n - 1) (1 - p) / n = degree + 2 (n - 1 - degree) / n."""
    n, degree, batch = 200, 6.0, 40
    x = _draw("sparse_erdos_renyi", n, batch=batch, degree=degree)
    mean = x.sum() / (batch * n)
    expected = degree + 2 * (n - 1 - degree) / n
    # sd of the mean: sqrt(2 * pairs * p * (1 - p) * batch) * 2 / (n * batch), tree edges fixed
    p = degree / (n - 1)
    sd = 2 * math.sqrt(n * (n - 1) / 2 * p * (1 - p) * batch) / (n * batch)
    assert abs(mean - expected) < 6 * sd, (mean, expected)
    assert all(nx.is_connected(_graph(a)) for a in x)
    dense = _draw("sparse_erdos_renyi", 12, degree=50.0)  # p clipped to 1: complete
    assert (dense.sum(axis=(1, 2)) == 12 * 11).all()
    tree = _draw("sparse_erdos_renyi", 60, degree=0.0)  # only the tree
    assert (tree.sum(axis=(1, 2)) == 2 * 59).all()


@pytest.mark.parametrize(("n", "k"), [(40, 4), (41, 6), (9, 2), (10, 8), (200, 4)])
def test_watts_strogatz_edges_and_beta(n: int, k: int) -> None:
    for beta in (0.0, 0.3, 1.0):
        x = _draw("watts_strogatz", n, batch=6, k=k, beta=beta)
        assert (x.sum(axis=(1, 2)) == n * k).all(), (n, k, beta)  # n k / 2 edges
    lattice = _graph(_draw("watts_strogatz", n, batch=1, k=k, beta=0.0)[0])
    assert nx.is_isomorphic(lattice, nx.watts_strogatz_graph(n, k, 0.0))
    # The labels are shuffled, so look at degrees: beta = 0 keeps every degree k,
    # beta = 1 spreads them.
    assert (_draw("watts_strogatz", n, k=k, beta=0.0).sum(axis=2) == k).all()
    if n >= 40:
        spread = _draw("watts_strogatz", n, k=k, beta=1.0).sum(axis=2).std()
        assert spread > 0.5


def test_watts_strogatz_small_and_connected(monkeypatch: pytest.MonkeyPatch) -> None:
    for n in (1, 2, 3, 4, 5):
        x = _draw("watts_strogatz", n, k=4, beta=0.5)  # k >= n - 1: complete
        assert (x.sum(axis=(1, 2)) == n * (n - 1)).all(), n
    # connected = false asserts nothing about connectivity; connected = true always is.
    x = _draw("watts_strogatz", 300, batch=8, k=2, beta=0.02, connected=True)
    assert all(nx.is_connected(_graph(a)) for a in x)
    assert (x.sum(axis=(1, 2)) == 2 * 300).all()
    monkeypatch.setattr(families, "_CONNECT_TRIES", 1)  # k = 2, beta = 1: rarely connected
    with pytest.raises(ValueError, match="no connected graph in 1 draws"):
        _draw("watts_strogatz", 400, batch=2, k=2, beta=1.0, connected=True)
    assert validate_params("watts_strogatz", {"k": 3})
    assert validate_params("watts_strogatz", {"k": 0})
    assert validate_params("watts_strogatz", {"beta": 1.5})


def test_delaunay_is_scipys_triangulation() -> None:
    n, batch = 60, 5
    x = _draw("delaunay", n, batch=batch, seed=9)
    pts = uniform_points(np.random.default_rng(9), batch, n)
    for a, p in zip(x, pts, strict=True):
        tri = Delaunay(p)
        ref = {tuple(sorted((int(s[i]), int(s[j])))) for s in tri.simplices
               for i, j in ((0, 1), (1, 2), (0, 2))}
        assert _edge_count(a) == len(ref) <= 3 * n - 6
        g = nx.Graph(list(ref))
        assert nx.is_isomorphic(_graph(a), g)
    w = _draw("delaunay", n, batch=batch, seed=9, weighted=True, weights="euclidean")
    for a, p in zip(w, pts, strict=True):
        u, v = delaunay_edges(p)
        d = p[u] - p[v]
        lengths = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])
        np.testing.assert_array_equal(np.sort(a[np.triu(a, k=1) > 0]), np.sort(lengths))
    assert validate_params("delaunay", {"weights": "manhattan"})
    assert validate_params("delaunay", {"weights": 1})
    # Euclidean weights ignore low/high; uniform ones need low < high.
    assert validate_params("delaunay", {"weighted": True, "weights": "euclidean",
                                        "low": 1.0, "high": 1.0}) == []


def test_delaunay_degenerate_points_give_a_path() -> None:
    for pts in (np.zeros((1, 2)), np.array([[0.3, 0.1], [0.2, 0.9]]),
                np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0], [3.0, 3.0]])):
        u, v = delaunay_edges(pts)
        g = nx.Graph(list(zip(u.tolist(), v.tolist(), strict=True)))
        g.add_nodes_from(range(len(pts)))
        assert nx.is_isomorphic(g, nx.path_graph(len(pts)))
    u, v = delaunay_edges(np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0]]))
    assert sorted(zip(u.tolist(), v.tolist(), strict=True)) == [(0, 2), (1, 2)]  # in line order
    dup = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    u, v = delaunay_edges(dup)  # a duplicate point is joined, not dropped
    g = nx.Graph(list(zip(u.tolist(), v.tolist(), strict=True)))
    assert set(g) == set(range(5)) and nx.is_connected(g)


def _grid_reference(n: int) -> nx.Graph:
    rows, cols = grid_shape(n)
    g = nx.grid_2d_graph(rows, cols)
    g.remove_nodes_from([(rows - 1, c) for c in range(cols) if (rows - 1) * cols + c >= n])
    return g


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 9, 12, 13, 16, 23, 25])
def test_grid_is_networkx_grid(n: int) -> None:
    a = _draw("grid", n, batch=2)
    for g in a:
        assert nx.is_isomorphic(_graph(g), _grid_reference(n))
    r = math.isqrt(n)
    if r * r == n:
        assert _edge_count(a[0]) == nx.grid_2d_graph(r, r).number_of_edges()
    assert grid_shape(13) == (4, 4) and grid_shape(12) == (3, 4)
    assert grid_shape(10, cols=5) == (2, 5) and grid_shape(3, cols=9) == (1, 3)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 20])
def test_path_and_tree(n: int) -> None:
    for g in _draw("path", n):
        assert nx.is_isomorphic(_graph(g), nx.path_graph(n))
    for g in _draw("uniform_tree", n):
        assert nx.is_tree(_graph(g))


def test_uniform_tree_is_uniform() -> None:
    """All 4^2 = 16 labelled trees on 4 nodes equally likely (Cayley): 12 paths, 4 stars."""
    x = _draw("uniform_tree", 4, batch=3200, seed=1)
    kinds = {}
    for g in x:
        key = g.tobytes()
        kinds[key] = kinds.get(key, 0) + 1
    assert len(kinds) == 16
    counts = np.array(list(kinds.values()))
    assert abs(counts - 200).max() < 6 * math.sqrt(200)
    stars = int((x.sum(axis=2).max(axis=1) == 3).sum())
    assert abs(stars - 800) < 6 * math.sqrt(3200 * 0.25 * 0.75)


@pytest.mark.parametrize(("n", "m"), [(1, 2), (2, 2), (3, 2), (4, 2), (30, 1), (30, 3), (50, 5)])
def test_barabasi_albert_edges(n: int, m: int) -> None:
    x = _draw("barabasi_albert", n, m=m)
    me = min(m, n - 1)
    expected = me * (n - me)
    if n > m:
        assert expected == nx.barabasi_albert_graph(n, m, seed=0).number_of_edges()
    for a in x:
        assert _edge_count(a) == expected
        assert n == 1 or nx.is_connected(_graph(a))


def test_barabasi_albert_is_preferential() -> None:
    """Heavy tail: the max degree far above a uniform attachment's (the oldest nodes grow)."""
    x = _draw("barabasi_albert", 400, batch=8, m=2)
    deg = x.sum(axis=2)
    assert (deg >= 2).all()
    assert deg.max(axis=1).mean() > 20  # uniform attachment: about 2 ln(400) + 2 = 14


# ------------------------------------------------------------------ the family option

# sha256 prefixes of draws made before `family` existed (seed 7, batch 5, n 11).
PINNED = [
    ("erdos_renyi", {}, "a4d23c45f55920c7"),
    ("erdos_renyi", {"directed": True, "connected": True, "weighted": True}, "95e0371975cafef6"),
    ("erdos_renyi", {"directed": True, "acyclic": True, "p": 0.3}, "36ff763178be6b94"),
    ("clrs_erdos_renyi", {}, "16a3f9f4e2905bf8"),
    ("clrs_erdos_renyi", {"weighted": True}, "5682a95d5ba55cb3"),
    ("clrs_erdos_renyi", {"directed": True, "acyclic": True, "weighted": True, "p": [0.2, 0.7]},
     "f4e3a5fe7773427b"),
]


@pytest.mark.parametrize(("name", "params", "digest"), PINNED)
def test_family_er_is_byte_identical_to_before(name: str, params: dict, digest: str) -> None:
    for extra in ({}, {"family": "er"}):
        x = _draw(name, 11, batch=5, seed=7, **params, **extra)
        assert hashlib.sha256(x.tobytes()).hexdigest()[:16] == digest


def test_every_family_entry_is_complete() -> None:
    assert family_names() == ["er", *FAMILIES]
    for fam, entry in FAMILIES.items():
        gen = entry.generator
        assert GENERATORS[gen.name] is gen and gen.location == "edge"
        assert entry.doc and "\n" not in entry.doc and gen.doc
        assert set(COMMON) <= set(gen.defaults)
        for er in ("erdos_renyi", "clrs_erdos_renyi"):
            assert validate_params(er, {"family": fam}) == []
            x = _draw(er, 12, family=fam)
            np.testing.assert_array_equal(x, x.transpose(0, 2, 1))
            assert set(np.unique(x)) <= {0.0, 1.0}
            if gen.name in CONNECTED:
                assert all(nx.is_connected(_graph(a)) for a in x), (er, fam)
        # erdos_renyi passes its options on: the family generator's own draw, same stream
        np.testing.assert_array_equal(
            _draw("erdos_renyi", 15, family=fam, directed=True, weighted=True, low=1.0, high=3.0),
            _draw(gen.name, 15, directed=True, weighted=True, low=1.0, high=3.0))
    assert validate_params("erdos_renyi", {"family": "ws", "connected": True}) == []
    x = _draw("erdos_renyi", 300, batch=4, family="ws", connected=True)
    assert all(nx.is_connected(_graph(a)) for a in x)


def test_clrs_family_keeps_clrs_weights() -> None:
    x = _draw("clrs_erdos_renyi", 30, batch=6, family="grid", weighted=True, low=0.0, high=1.0)
    plain = _draw("grid", 30, batch=6)
    np.testing.assert_array_equal(x != 0, plain != 0)
    np.testing.assert_array_equal(x, x.transpose(0, 2, 1))
    on = x[np.triu(x, k=1) > 0]
    assert on.min() >= math.sqrt(1e-3) and on.max() < math.sqrt(1 + 1e-3)
    assert abs(np.mean(on ** 2) - (0.25 + 1e-3)) < 0.03  # E[w1 w2] = 1/4
    d = _draw("clrs_erdos_renyi", 30, family="delaunay", directed=True, acyclic=True,
              weighted=True, low=2.0, high=3.0)
    assert not np.tril(d).any() and d[d > 0].min() >= 2.0 and d.max() < 3.0


def test_bad_family_is_a_parameter_error() -> None:
    for er in ("erdos_renyi", "clrs_erdos_renyi"):
        [msg] = validate_params(er, {"family": "smallworld"})
        assert "'family' must be one of er, sparse_er, ws" in msg and "'smallworld'" in msg
        [msg] = validate_params(er, {"family": 3})
        assert "must be a name" in msg
    with pytest.raises(ValueError, match="'family' must be one of"):
        algspec.load(BFS).generate(8, 2, rng=0, A__family="smallworld")


def test_docs_family_table_is_the_registry() -> None:
    doc = (ROOT / "docs" / "generators.md").read_text()
    start = doc.index("<!-- graph-families:")
    body = doc[doc.index("\n", start) + 1: doc.index("<!-- /graph-families -->")].strip()
    assert body == families_table(), "regenerate it with `python -m algspec.generators`"


# ------------------------------------------------------------------ end to end


def _bfs_ok(a: np.ndarray, s: np.ndarray, pi: np.ndarray) -> None:
    """CLRS BFS: every node reached (connected), pi[v] the lowest-index neighbour one level up."""
    g = _graph(a)
    src = int(np.argmax(s))
    dist = nx.single_source_shortest_path_length(g, src)
    assert len(dist) == len(a)
    for v in range(len(a)):
        if v == src:
            assert pi[v] == src
        else:
            assert pi[v] == min(u for u in g[v] if dist[u] == dist[v] - 1)


@pytest.mark.parametrize("family", ["delaunay", "grid", "tree", "ba"])
def test_bfs_samples_on_a_family(family: str) -> None:
    alg = algspec.load(BFS)
    fb = alg.batch_sampler(length=16, num_samples=4, seed=0, A__family=family).next(4)
    inputs = {d.name: np.asarray(d.data) for d in fb.features.inputs}
    [pi] = [np.asarray(d.data) for d in fb.outputs]
    assert pi.shape == (4, 16)
    for b in range(4):
        _bfs_ok(inputs["A"][b], inputs["s"][b], pi[b].astype(int))
    ref = alg.batch_sampler(length=16, num_samples=4, seed=0).next(4)
    er = {d.name: np.asarray(d.data) for d in ref.features.inputs}["A"]
    assert not np.array_equal(er, inputs["A"])


def test_cli_family_param(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "ds"
    r = runner.invoke(app, ["sample", str(BFS), "-n", "12", "-k", "3", "--out", str(out),
                            "--param", "A.family=delaunay"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["sample", str(BFS), "-n", "12", "-k", "3", "--out",
                            str(tmp_path / "bad"), "--param", "A.family=smallworld"])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "'family' must be one of" in lines[0] and "smallworld" in lines[0]
    assert not (tmp_path / "bad").exists()


def test_the_family_option_at_its_default_keeps_published_spec_hashes() -> None:
    """Datasets exported before `family` existed replay: at `er` it is not in the hash."""
    import algspec
    from algspec.sampling.identity import spec_hash

    alg = algspec.load(str(Path(__file__).resolve().parents[2] / "algorithms/clrs/bfs.alg"))
    before = alg.ir.model_copy(deep=True)
    graph = next(d for d in before.decls if d.generator and "family" in d.generator.params)
    del graph.generator.params["family"]
    assert spec_hash(alg.spec, before) == alg.spec_hash()
    graph.generator.params["family"] = "ws"
    assert spec_hash(alg.spec, before) != alg.spec_hash()
