"""CLRS-30 graph algorithms in `algorithms/clrs/` reproduce dm-clrs frame for frame.

Same spec, and the same input, hint and output arrays on inputs drawn by
dm-clrs's own samplers (per sample and batched), and on graphs random
sampling rarely gives: n = 1 and 2, empty and complete graphs, self-loops,
paths, stars, cycles, several components and tied weights.

Dijkstra's and Prim's extract-min (`np.argsort(key + (1 - in_queue) * 1e9)[0]`)
is matched on tied weights too, against unmodified dm-clrs, by
`argmin(... unstable)` (numpy's default argsort order). One documented
departure is tested as such: Kruskal's `np.argsort` of its edge weights breaks
ties in whatever order numpy's sort of the day leaves them (numpy 2.x's SIMD
argsort is not stable even for 4 items), while the file takes the lowest
(i, j), i.e. a stable argsort.
`bridges` is exact, its -1 (OutputClass.MASKED) entries off the graph
included (`masked where not adj`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.support import clrs30_harness as harness
from tests.support.clrs30_harness import CLRS_DIR, Case, check_all, check_batched, check_trace


def _with_source(args: list[Any]) -> dict[str, Any]:
    """dm-clrs passes the source as an int; algspec takes it as a one-hot node input."""
    a, s = args
    onehot = np.zeros(len(a))
    onehot[int(s)] = 1.0
    return {"A": a, "s": onehot}


def _source_case(name: str) -> Case:
    return Case(f"{name}.alg", name, ("A", "s"), _with_source)


CASES = {
    "bfs": _source_case("bfs"),
    "dfs": Case("dfs.alg", "dfs", ("A",)),
    "topological_sort": Case("topological_sort.alg", "topological_sort", ("A",)),
    "dag_shortest_paths": _source_case("dag_shortest_paths"),
    "bellman_ford": _source_case("bellman_ford"),
    "floyd_warshall": Case("floyd_warshall.alg", "floyd_warshall", ("A",)),
    "dijkstra": _source_case("dijkstra"),
    "mst_prim": _source_case("mst_prim"),
    "mst_kruskal": Case("mst_kruskal.alg", "mst_kruskal", ("A",)),
    "articulation_points": Case("articulation_points.alg", "articulation_points", ("A",)),
    "strongly_connected_components": Case(
        "strongly_connected_components.alg", "strongly_connected_components", ("A",)),
}
BRIDGES = Case("bridges.alg", "bridges", ("A",))
SOURCED = {k for k, c in CASES.items() if c.convert is _with_source}
DIRECTED = {"dfs", "strongly_connected_components"}
ACYCLIC = {"topological_sort", "dag_shortest_paths"}
WEIGHTED = {"dag_shortest_paths", "bellman_ford", "floyd_warshall", "dijkstra", "mst_prim",
            "mst_kruskal"}
ARGSORT = {"mst_kruskal"}  # ties by lowest index where dm-clrs's np.argsort is unstable
UNSTABLE = {"dijkstra", "mst_prim"}  # `argmin(... unstable)`: numpy's tie order, exactly
# Distances are sums of weights: a float32 run rounds the weights first, so its
# sums differ from dm-clrs's float64 ones in the last bit (see `check_batched`).
SUMS_WEIGHTS = {"dag_shortest_paths", "bellman_ford", "dijkstra", "floyd_warshall"}


# The community sampler of SCC needs at least k = 4 nodes.
SIZES = {"strongly_connected_components": (4, 5, 12)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dm_clrs_samples(name: str) -> None:
    check_all(CASES[name], sizes=SIZES.get(name, (1, 2, 5, 8, 16)),
              float32=name not in SUMS_WEIGHTS)


def test_dense_samples() -> None:
    """Denser graphs than the samplers' defaults (Kruskal's p = 0.2 leaves few edges)."""
    for name in ("mst_kruskal", "articulation_points", "mst_prim"):
        case = CASES[name]
        for args in harness.draw(case, 12, count=3, seed=7, p=(0.9,)):
            check_trace(case, args, "p=0.9 n=12")


def test_scc_link_is_relative() -> None:
    path = CLRS_DIR / "strongly_connected_components.alg"
    assert path.is_symlink() and not path.readlink().is_absolute()
    assert path.resolve() == (CLRS_DIR.parent / "kosaraju.alg").resolve()


# ------------------------------------------------------------------ edge cases
def _sym(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, a.T)


def _cycle(n: int) -> np.ndarray:
    return np.roll(np.eye(n), 1, axis=1)


def _star(n: int) -> np.ndarray:
    a = np.zeros((n, n))
    a[0, 1:] = 1.0
    return a


def _blocks(*mats: np.ndarray) -> np.ndarray:
    n = sum(len(m) for m in mats)
    out, at = np.zeros((n, n)), 0
    for m in mats:
        out[at:at + len(m), at:at + len(m)] = m
        at += len(m)
    return out


# Directed shapes; undirected algorithms get them symmetrised. Each is 0/1.
SHAPES: dict[str, Callable[[], np.ndarray]] = {
    "n=1": lambda: np.zeros((1, 1)),
    "n=1 self-loop": lambda: np.ones((1, 1)),
    "n=2 no edge": lambda: np.zeros((2, 2)),
    "n=2 edge": lambda: np.array([[0.0, 1.0], [0.0, 0.0]]),
    "n=2 edge back": lambda: np.array([[0.0, 0.0], [1.0, 0.0]]),
    "empty": lambda: np.zeros((6, 6)),
    "self-loops only": lambda: np.eye(6),
    "complete": lambda: 1.0 - np.eye(6),
    "complete with self-loops": lambda: np.ones((6, 6)),
    "path": lambda: np.eye(7, k=1),
    "reversed path": lambda: np.eye(7, k=-1),
    "star": lambda: _star(6),
    "reversed star": lambda: _star(6).T.copy(),
    "cycle": lambda: _cycle(7),
    "components": lambda: _blocks(_cycle(3), np.zeros((1, 1)), np.eye(3, k=1), _star(3)),
}
# For DAGs: no self-loops, no cycles.
DAG_SHAPES = ("n=1", "n=2 no edge", "n=2 edge", "n=2 edge back", "empty", "path",
              "reversed path", "star", "reversed star")


def _graphs(name: str) -> dict[str, np.ndarray]:
    """The edge-case graphs for one algorithm, weighted where it reads weights."""
    rng = np.random.default_rng(11)
    out = {}
    for label, make in SHAPES.items():
        if name in ACYCLIC and label not in DAG_SHAPES and label != "complete":
            continue
        a = make()
        shapes = {label: a}
        if name in ACYCLIC and label == "complete":
            shapes = {label: np.triu(np.ones_like(a), k=1)[::-1, ::-1].copy()}  # i -> j, i > j
        elif name not in DIRECTED | ACYCLIC:
            # dm-clrs's samplers are undirected here, but its functions take any graph.
            shapes = {label: _sym(a)} | ({} if np.array_equal(a, a.T) else {"directed " + label: a})
        for key, a in shapes.items():
            if name in WEIGHTED:
                w = rng.uniform(0.1, 1.0, a.shape)
                if name not in ACYCLIC:
                    w = _sym(w)  # the same weight both ways, as dm-clrs's undirected samplers
                out[key] = a * w
                if name not in ARGSORT:
                    out[key + ", tied weights"] = a * 0.5
            else:
                out[key] = a
    return out


def _args(name: str, a: np.ndarray) -> list[list[Any]]:
    """dm-clrs argument lists: the graph alone, or with the first and last node as source."""
    if name not in SOURCED:
        return [[a]]
    return [[a, s] for s in sorted({0, len(a) - 1})]


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_cases(name: str) -> None:
    case = CASES[name]
    same_n: list[list[Any]] = []
    for label, a in _graphs(name).items():
        for args in _args(name, a):
            check_trace(case, args, f"{label} (source {args[1:]})")
            if len(a) == 6:
                same_n.append(args)
    check_batched(case, same_n, "edge cases n=6", batch_sizes=(2,))


class _StableArgsort:
    """numpy, except that `argsort` is stable: dm-clrs's tie order made deterministic."""

    def __getattr__(self, attr: str) -> Any:
        return getattr(np, attr)

    @staticmethod
    def argsort(a: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        return np.argsort(a, *args, kind="stable", **kwargs)


@pytest.mark.parametrize("name", sorted(UNSTABLE))
def test_extract_min_ties_match_numpy(name: str) -> None:
    """Tied keys: the files equal unmodified dm-clrs (numpy's default argsort order)."""
    case = CASES[name]
    for label, make in SHAPES.items():
        a = _sym(make()) * 0.5
        for args in _args(name, a):
            check_trace(case, args, f"{label}, tied weights (source {args[1:]})")
    rng = np.random.default_rng(12)
    for n in (9, 17, 24, 40):  # above 16 items numpy's argsort is introsort / SIMD sort
        for levels_count in (1, 2, 3):
            a = _sym(rng.integers(1, levels_count + 1, (n, n)) * (rng.random((n, n)) < 0.6))
            for args in _args(name, a / 4.0):
                check_trace(case, args, f"n={n}, weights from {levels_count} levels")
    batch = [[_sym((rng.random((20, 20)) < 0.5) * 0.5), int(rng.integers(20))] for _ in range(4)]
    check_batched(case, batch, "tied weights n=20", batch_sizes=(4,))


@pytest.mark.parametrize("name", sorted(ARGSORT))
def test_argsort_ties_break_by_lowest_index(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With tied weights the files equal dm-clrs run with a stable argsort."""
    from clrs._src.algorithms import graphs

    monkeypatch.setattr(graphs, "np", _StableArgsort())
    case = CASES[name]
    for label, make in SHAPES.items():
        a = _sym(make()) * 0.5
        for args in _args(name, a):
            check_trace(case, args, f"{label}, tied weights (source {args[1:]})")
    rng = np.random.default_rng(12)
    levels = _sym(rng.integers(1, 4, (9, 9)) * (rng.random((9, 9)) < 0.6)) / 4.0
    for args in _args(name, levels):
        check_trace(case, args, "weights from 3 levels")


# -------------------------------------------------------------------- bridges
def test_bridges_exact() -> None:
    """MASKED (-1) off the graph, 0 on other edges, 1 on bridges, as dm-clrs stores them."""
    check_all(BRIDGES)
    for label, make in SHAPES.items():
        check_trace(BRIDGES, [_sym(make())], label)
    a = _sym(_cycle(4)) + np.eye(4, k=2)
    _, probes = harness.clrs_run(BRIDGES, [a])
    assert (probes["output"]["edge"]["is_bridge"]["data"] == -1).any()
    check_trace(BRIDGES, [a], "cycle with a chord")


# ------------------------------------------------------------ input samplers
def _stats(a: np.ndarray) -> dict[str, tuple[float, float]]:
    """Statistics that tell dm-clrs's graph samplers apart, each with its standard error."""
    n = a.shape[-1]
    off = ~np.eye(n, dtype=bool)
    edge = a != 0
    reach = edge.astype(np.int64)  # reachability by paths of length <= n tells DAGs apart
    for _ in range(n):
        reach = np.minimum(reach @ edge.astype(np.int64) + edge, 1)
    weights = a[edge]

    def rate(x: np.ndarray) -> tuple[float, float]:
        return float(x.mean()), float(np.sqrt(0.25 / max(x.size, 1)))

    out = {
        "off-diagonal density": rate(edge[:, off]),
        "self-loop rate": rate(edge[:, ~off]),
        "symmetric": rate(np.array([np.array_equal(x, x.T) for x in a])),
        "cyclic": rate(np.trace(reach, axis1=1, axis2=2) > 0),
    }
    if weights.size > 1:
        out["weight mean"] = (float(weights.mean()), float(weights.std() / np.sqrt(weights.size)))
        out["weights < 0.2"] = rate(weights < 0.2)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_sampler_draws_dm_clrs_inputs(name: str) -> None:
    """The file's generators draw dm-clrs's input distribution (shapes and statistics)."""
    case, n, count = CASES[name], 12, 300
    ref = harness.draw(case, n, count, seed=5)
    ours = harness.load(case).generate(n, count, np.random.default_rng(5))
    ref_a = np.stack([args[0] for args in ref])
    assert ours["A"].shape == ref_a.shape
    mine, theirs = _stats(ours["A"]), _stats(ref_a)
    assert mine.keys() == theirs.keys(), f"{name}: weighted in one sampler only"
    for key, (want, se) in theirs.items():
        got = mine[key][0]
        assert abs(got - want) <= 5 * max(se, mine[key][1]), (
            f"{name}: {key} {got:.4f}, dm-clrs {want:.4f} (standard error {se:.4f})")
    if name in SOURCED:
        s = ours["s"]
        assert s.shape == (count, n) and np.all(s.sum(axis=1) == 1) and set(np.unique(s)) == {0, 1}
        hits = s.sum(axis=0)  # each node the source about count / n times
        assert hits.min() > 0.4 * count / n and hits.max() < 1.6 * count / n
