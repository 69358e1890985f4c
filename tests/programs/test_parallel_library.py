"""The parallel library's graph searches: level-synchronous BFS and Shiloach-Vishkin.

Each is checked against an independent reference (networkx; dm-clrs's own
`bfs` for the BFS pair, frame for frame) on random inputs and edge cases
(n = 1, 2; empty, complete, path and star graphs), and its static efficiency
classes are the textbook ones. Measured activity on each algorithm's worst
case stays within a constant factor of the static classes.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import algspec
from algspec.efficiency.asymptotic import Asymptotic
from algspec.lint.measured import ActivityRecorder, graph_edges, log_trend, ratio_verdict

ROOT = Path(__file__).resolve().parents[2] / "algorithms"
PAR = ROOT / "parallel"
SIZES = (1, 2, 3, 5, 8, 13, 16, 33)

# file -> (T, c, eta, epsilon). BFS in pull form: every node aggregates over all its
# in-neighbours every level (n levels on a path); Shiloach-Vishkin: O(log n) iterations
# of O(1) rounds over every node and edge (Awerbuch and Shiloach 1987).
TEXTBOOK = {
    # its `min` over in-neighbours filters on `frontier[u]`, a test on each neighbour's own
    # state: O(1) of them at the worst case's fewest end (epsilon n/m .. 1)
    "bfs_sync.alg": ("n", "n^2", "1", "n/m"),
    "shiloach_vishkin.alg": ("log n", "n log n", "1", "1"),
}


@pytest.mark.parametrize("path", sorted(TEXTBOOK))
def test_static_classes_are_the_textbook_classes(path: str) -> None:
    s = algspec.load(PAR / path).static_efficiency()
    want = tuple(Asymptotic.parse(x) for x in TEXTBOOK[path])
    got = (s.rounds, s.capacity, s.node_efficiency, s.edge_efficiency)
    assert got == want, (path, [str(x) for x in got])


def test_the_parallel_bfs_is_more_efficient_than_clrs_bfs() -> None:
    # The pair trains on the same inputs and output; what differs is how busy the rounds are.
    seq = algspec.load(ROOT / "clrs" / "bfs.alg").static_efficiency()
    par = algspec.load(PAR / "bfs_sync.alg").static_efficiency()
    assert seq.rounds == par.rounds
    assert seq.node_efficiency.is_O(par.node_efficiency)
    assert not par.node_efficiency.is_O(seq.node_efficiency)
    assert not par.edge_efficiency.is_O(seq.edge_efficiency)


# ---------------------------------------------------------------- graphs
def _sym(a: np.ndarray) -> np.ndarray:
    a = np.triu(a, 1)
    return a + np.swapaxes(a, -1, -2)


def _path(n: int, perm: np.ndarray | None = None) -> np.ndarray:
    perm = np.arange(n) if perm is None else perm
    a = np.zeros((n, n))
    a[perm[:-1], perm[1:]] = 1
    return np.maximum(a, a.T)


def _edge_cases(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Empty, complete, path (in order and relabelled), star and a random tree."""
    star = np.zeros((n, n))
    star[0, 1:] = star[1:, 0] = 1
    tree = np.zeros((n, n))
    for v in range(1, n):
        u = int(rng.integers(v))
        tree[u, v] = tree[v, u] = 1
    perm = rng.permutation(n)
    return [np.zeros((n, n)), 1.0 - np.eye(n), _path(n), _path(n, perm), star, tree[perm][:, perm]]


def _digraph(A: np.ndarray) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(A.shape[0]))
    g.add_edges_from((int(u), int(v)) for u, v in zip(*np.nonzero(A)) if u != v)
    return g


# ---------------------------------------------------------------- BFS
@pytest.fixture(scope="module")
def bfs_sync():
    return algspec.load(PAR / "bfs_sync.alg")


def _bfs_cases(alg, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = alg.generate(n, 6, seed)
    directed = alg.generate(n, 4, seed + 1, directed=True)
    A = np.concatenate([inputs["A"], directed["A"], np.stack(_edge_cases(n, rng))])
    s = np.zeros((len(A), n))
    s[np.arange(len(A)), rng.integers(n, size=len(A))] = 1
    s[len(inputs["A"]) + len(directed["A"]) + 2, 0] = 1    # the path from its end: n levels
    s[len(inputs["A"]) + len(directed["A"]) + 2, 1:] = 0
    return {"s": s, "A": A}


@pytest.mark.parametrize("n", SIZES)
def test_bfs_sync_levels_and_parents_match_networkx(bfs_sync, n: int) -> None:
    inputs = _bfs_cases(bfs_sync, n, 70 + n)
    t = bfs_sync.run(inputs, n, dtype=np.float64)
    for b, A in enumerate(inputs["A"]):
        src = int(np.argmax(inputs["s"][b]))
        level = nx.single_source_shortest_path_length(_digraph(A), src)
        assert t.lengths[b] == 1 + max(level.values())        # one frame per level
        pi = t.outputs["pi"][b]
        for v in range(n):
            if v not in level or v == src:
                assert pi[v] == v
            else:   # the lowest-index in-neighbour one level up (CLRS's scan order)
                want = min(u for u in range(n) if u != v and A[u, v] > 0
                           and level.get(u) == level[v] - 1)
                assert pi[v] == want
        for k in range(int(t.lengths[b])):
            near = {v for v, d in level.items() if d <= k}
            np.testing.assert_array_equal(np.nonzero(t.hints["reach_h"][k, b])[0], sorted(near))
            np.testing.assert_array_equal(np.nonzero(t.hints["frontier"][k, b])[0],
                                          sorted(v for v, d in level.items() if d == k))


@pytest.mark.parametrize("n", (1, 2, 5, 16))
def test_bfs_sync_agrees_with_clrs_bfs_frame_for_frame(bfs_sync, n: int) -> None:
    # dm-clrs's own bfs (not algspec's port of it) on the same inputs: same output pi, and the
    # same reach_h/pi_h hint frames, so the pair differs only in its extra frontier hint.
    graphs = pytest.importorskip("clrs._src.algorithms.graphs")
    inputs = _bfs_cases(bfs_sync, n, 90 + n)
    t = bfs_sync.run(inputs, n, dtype=np.float64)
    for b, A in enumerate(inputs["A"]):
        pi, probes = graphs.bfs(A, int(np.argmax(inputs["s"][b])))
        np.testing.assert_array_equal(t.outputs["pi"][b], pi)
        hints = probes["hint"]["node"]
        frames = hints["reach_h"]["data"].shape[0]
        assert t.lengths[b] == frames
        np.testing.assert_array_equal(t.hints["reach_h"][:frames, b], hints["reach_h"]["data"])
        np.testing.assert_array_equal(t.hints["pi_h"][:frames, b], hints["pi_h"]["data"])


def test_bfs_sync_has_the_spec_of_clrs_bfs_plus_a_frontier(bfs_sync) -> None:
    seq = algspec.load(ROOT / "clrs" / "bfs.alg").spec
    par = dict(bfs_sync.spec)
    assert par.pop("frontier") == ("hint", "node", "mask")
    assert par == seq


# ---------------------------------------------------------------- Shiloach-Vishkin
@pytest.fixture(scope="module")
def sv():
    return algspec.load(PAR / "shiloach_vishkin.alg")


def _components(A: np.ndarray) -> np.ndarray:
    want = np.zeros(A.shape[0])
    for comp in nx.connected_components(nx.from_numpy_array(A)):
        want[list(comp)] = min(comp)
    return want


@pytest.mark.parametrize("n", SIZES + (64,))
def test_shiloach_vishkin_labels_components_by_their_smallest_index(sv, n: int) -> None:
    rng = np.random.default_rng(110 + n)
    dense = _sym((rng.random((4, n, n)) < 0.3).astype(float))
    A = np.concatenate([sv.generate(n, 6, 110 + n)["A"], dense, np.stack(_edge_cases(n, rng))])
    t = sv.run({"A": A}, n, dtype=np.float64)
    bound = 2 * int(np.ceil(np.log2(n))) + 2
    for b in range(len(A)):
        np.testing.assert_array_equal(t.outputs["comp"][b], _components(A[b]))
        last = int(t.lengths[b]) - 1
        parent = t.hints["parent"][last, b].astype(int)
        # the final forest is one star per component, rooted inside it
        assert (parent[parent] == parent).all()
        np.testing.assert_array_equal(_components(A[b])[parent], _components(A[b]))
        assert t.hints["star"][last, b].all()
        assert last <= bound


def test_shiloach_vishkin_agrees_with_min_label_propagation(sv) -> None:
    # Same output as connected_components.alg on the same graphs, in log n instead of n frames.
    cc = algspec.load(PAR / "connected_components.alg")
    n = 32
    A = np.stack([_path(n, np.random.default_rng(k).permutation(n)) for k in range(4)])
    a, b = sv.run({"A": A}, n), cc.run({"A": A}, n)
    np.testing.assert_array_equal(a.outputs["comp"], b.outputs["comp"])
    assert a.lengths.max() <= 2 * np.log2(n) + 2 < b.lengths.min()


# ---------------------------------------------------------------- measured vs static
def _measure_on(alg, make, sizes: list[int]) -> None:
    """Measured T, c, eta, eps on `make(n)` stay within a constant factor of the static classes."""
    static = alg.static_efficiency()
    rows = []
    for n in sizes:
        rec = ActivityRecorder()
        t = alg.run(make(n), n, observer=rec)
        edges, adj = graph_edges(alg.ir, t.inputs, n, 2)
        act = rec.activity(n, edges, adj, batch_size=2)
        rows.append((float(edges.mean()), {"T": act.rounds.mean(), "c": act.capacity.mean(),
                                           "eta": act.eta.mean(), "epsilon": act.epsilon.mean()}))
    for q, cls in (("T", static.rounds), ("c", static.capacity), ("eta", static.node_efficiency),
                   ("epsilon", static.edge_efficiency)):
        ratios = [r[q] / cls.evaluate(n, e) for n, (e, r) in zip(sizes, rows)]
        spread = max(ratios) / min(ratios)
        assert ratio_verdict(q, log_trend(sizes, ratios), worst_case=True,
                             spread=spread) == "agrees", (q, ratios)
        assert spread < 4, (q, ratios)


def test_bfs_sync_on_a_path_from_its_end_agrees_with_static(bfs_sync) -> None:
    def make(n: int) -> dict[str, np.ndarray]:
        s = np.zeros((2, n))
        s[:, 0] = 1
        return {"s": s, "A": np.stack([_path(n)] * 2)}
    _measure_on(bfs_sync, make, [8, 32, 128])


def test_shiloach_vishkin_on_relabelled_paths_agrees_with_static(sv) -> None:
    # Long paths in random order take the most iterations (about log2 n); sparse random graphs
    # finish in a few, where the initial frame weighs on the measured eta.
    def make(n: int) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(n)
        return {"A": np.stack([_path(n, rng.permutation(n)) for _ in range(2)])}
    _measure_on(sv, make, [8, 32, 128, 256])


# ---------------------------------------------------------------- the grid of pairs
def test_parallel_library_grid_reports_static_efficiency_beside_scores(tmp_path: Path) -> None:
    import json

    from algspec.training.config import TrainConfig
    from algspec.training.experiment import load_grid, run_grid

    grid = load_grid(ROOT.parent / "experiments" / "parallel-library.yaml")
    grid.processors = ["mpnn"]
    parallel = {t.parallel for t in grid.tasks}

    def fake(config: TrainConfig, out: Path, progress: bool = True) -> dict:
        # parallel wins every pair but Shortest paths (where the classes are equal)
        score = 0.8 if config.algorithm in parallel and "bellman" not in config.algorithm else 0.6
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        res = {"algorithm": config.algorithm, "steps": config.steps, "device": "fake",
               "seconds_per_step": 0.1, "val": {"score": score}, "test": {"score": score, "size": 32}}
        (out / "result.json").write_text(json.dumps(res))
        return res

    report = run_grid(grid, tmp_path, train_fn=fake, log=lambda s: None)
    # the two Bellman-Fords share a file stem but not a run folder
    assert len({r["dir"] for r in report["runs"]}) == len(report["runs"]) == 10
    eff = report["efficiency"]
    md = (tmp_path / "results.md").read_text()
    assert eff["Minimum"]["sequential"]["eta"] == "1/n"
    assert eff["Minimum"]["parallel"]["eta"] == "1/log n"
    assert eff["Minimum"]["favours"] == "parallel" and eff["Minimum"]["holds"] == "yes"
    assert eff["Shortest paths"]["favours"] == "equal" and eff["Shortest paths"]["holds"] == "–"
    assert "| Shortest paths | bellman_ford | n | 1 | n/m | bellman_ford_sync | n | 1 | n/m | equal |" in md
    assert eff["BFS"]["parallel"] == {"T": "n", "c": "n^2", "eta": "1", "epsilon": "n/m",
                                      "whp": False}
    assert eff["BFS"]["score_gap"] == pytest.approx(0.2)
    assert "## Static efficiency beside the scores" in md
    assert "| BFS | bfs | n | 1/n | 1/m | bfs_sync | n | 1 | n/m | parallel | +20.0 | yes |" in md
