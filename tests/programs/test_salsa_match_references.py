"""The SALSA-CLRS suite (algorithms/salsa/) against networkx references.

Each file is sampled through the public sampler at n = 4, 7, 16 and 40 on its own
generators (sparse connected undirected G(n, p)), and its outputs are checked against
networkx: BFS parents form the lowest-index BFS tree, DFS parents networkx's DFS tree
with neighbours in index order, Dijkstra's distances and tree, Prim's tree weight, the
MIS is independent and maximal, the eccentricity is networkx's (in the source's
component). Hints are checked where they have a closed form: frame counts (BFS
ecc(s) + 1, DFS 3n, Dijkstra and Prim n + 1, eccentricity 2 ecc(s) + 2, MIS two per
round), the flood's distances frame by frame, and each MIS round replayed from its
recorded draws. `batch_sampler` is `sampler` without importing dm-clrs (same batches).
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import algspec

SALSA = Path(__file__).resolve().parents[2] / "algorithms" / "salsa"
SIZES = (4, 7, 16, 40)
BATCH = 12


@pytest.fixture(scope="module")
def algs() -> dict[str, algspec.CompiledAlgorithm]:
    return {p.stem: algspec.load(p) for p in sorted(SALSA.glob("*.alg"))}


def _sample(alg, n: int, seed: int) -> dict:
    """One batch as {name: array} (hints time-major [T, B, ...]) plus `lengths`."""
    fb = alg.batch_sampler(length=n, num_samples=BATCH, seed=seed).next(BATCH)
    out = {dp.name: np.asarray(dp.data) for dp in
           list(fb.features.inputs) + list(fb.features.hints) + list(fb.outputs)}
    out["lengths"] = np.asarray(fb.features.lengths).astype(int)
    return out


def _graph(A: np.ndarray) -> nx.Graph:
    """Undirected graph of A's nonzero entries, neighbours listed in index order."""
    g = nx.Graph()
    g.add_nodes_from(range(len(A)))
    for u in range(len(A)):
        for v in range(u + 1, len(A)):
            if A[u, v] != 0:
                g.add_edge(u, v, weight=float(A[u, v]))
    return g


def _batches(algs, name: str):
    for n in SIZES:
        yield n, _sample(algs[name], n, seed=100 + n)


def test_the_suite_is_the_six_salsa_algorithms(algs):
    assert {a.name for a in algs.values()} == {"bfs", "dfs", "dijkstra", "mst_prim", "fast_mis",
                                                "eccentricity"}
    for alg in algs.values():  # message passing on the input graph, not a complete graph
        assert alg.spec["adj"] == ("input", "edge", "mask")


@pytest.mark.parametrize("name", ["bfs", "dfs", "dijkstra", "mst_prim", "fast_mis",
                                  "eccentricity"])
def test_inputs_are_sparse_connected_undirected_graphs(algs, name):
    n = 40
    z = _sample(algs[name], n, seed=5)
    for b in range(BATCH):
        A, adj = z["A"][b], z["adj"][b]
        assert (A == A.T).all() and not np.diag(A).any()
        assert (adj == ((A != 0) | np.eye(n, dtype=bool))).all()
        assert nx.is_connected(_graph(A))
    # p is SALSA-CLRS's midpoint 2 ln n / n (plus a spanning tree): far below CLRS-30's 0.5
    density = (z["A"] != 0).sum() / (BATCH * n * (n - 1))
    assert density < 0.25


def test_bfs_parents_are_the_bfs_tree_and_frames_are_levels(algs):
    for n, z in _batches(algs, "bfs"):
        for b in range(BATCH):
            g, s = _graph(z["A"][b]), int(np.argmax(z["s"][b]))
            dist = nx.single_source_shortest_path_length(g, s)
            pi = z["pi"][b].astype(int)
            assert pi[s] == s
            for v in range(n):
                if v != s:  # the lowest-index neighbour one level up
                    assert pi[v] == min(u for u in g[v] if dist[u] == dist[v] - 1)
            T = z["lengths"][b]
            assert T == max(dist.values()) + 1
            assert z["reach_h"][T - 1, b].all()
            for t in range(T):
                assert (z["reach_h"][t, b] == [dist[v] <= t for v in range(n)]).all()


def test_dfs_parents_are_the_dfs_tree_with_neighbours_in_index_order(algs):
    for n, z in _batches(algs, "dfs"):
        for b in range(BATCH):
            g = _graph(z["A"][b])
            want = nx.dfs_predecessors(g, 0)  # connected: one tree, rooted at node 0
            pi = z["pi"][b].astype(int)
            assert pi[0] == 0 and all(pi[v] == want[v] for v in range(1, n))
            assert z["lengths"][b] == 3 * n  # root, then a discovery, push and finish each
            T = z["lengths"][b]
            d, f = z["d"][T - 1, b], z["f"][T - 1, b]
            assert (d < f).all()
            for u, v in g.edges:  # undirected DFS: every edge joins ancestor and descendant
                assert (d[u] < d[v] < f[v] < f[u]) or (d[v] < d[u] < f[u] < f[v])


def test_dijkstra_distances_and_tree_are_networkx(algs):
    for n, z in _batches(algs, "dijkstra"):
        for b in range(BATCH):
            A = z["A"][b].astype(np.float64)
            g, s = _graph(A), int(np.argmax(z["s"][b]))
            want = nx.single_source_dijkstra_path_length(g, s)
            T = z["lengths"][b]
            assert T == n + 1
            d = z["d"][T - 1, b]
            np.testing.assert_allclose(d, [want[v] for v in range(n)], rtol=1e-5, atol=1e-6)
            pi = z["pi"][b].astype(int)
            assert pi[s] == s
            for v in range(n):
                if v != s:
                    assert A[pi[v], v] > 0
                    assert abs(want[int(pi[v])] + A[pi[v], v] - want[v]) < 1e-5


def test_prim_tree_is_a_minimum_spanning_tree(algs):
    for n, z in _batches(algs, "mst_prim"):
        for b in range(BATCH):
            A = z["A"][b].astype(np.float64)
            g, s = _graph(A), int(np.argmax(z["s"][b]))
            pi = z["pi"][b].astype(int)
            assert pi[s] == s and z["lengths"][b] == n + 1
            tree = _graph(np.zeros_like(A))
            for v in range(n):
                if v != s:
                    assert A[pi[v], v] > 0
                    tree.add_edge(int(pi[v]), v, weight=A[pi[v], v])
            assert nx.is_tree(tree)
            want = nx.minimum_spanning_tree(g).size(weight="weight")
            assert tree.size(weight="weight") == pytest.approx(want, rel=1e-6)


def _mis_round(A: np.ndarray, alive: np.ndarray, inmis: np.ndarray, r: np.ndarray):
    """One round of SALSA-CLRS's rule from its draws: an alive node joins when its draw is
    below every alive neighbour's (equal draws: the higher index wins); the set's closed
    neighbourhood dies."""
    n = len(A)
    joins = alive.copy()
    for v in range(n):
        for u in range(n):
            if alive[v] and alive[u] and A[v, u] and (r[v], -v) > (r[u], -u):
                joins[v] = False
    inmis = inmis | joins
    covered = inmis | (A.astype(bool) & inmis[None, :]).any(axis=1)
    return alive & ~covered, inmis


def test_fast_mis_is_maximal_independent_and_replays_from_its_draws(algs):
    for n, z in _batches(algs, "fast_mis"):
        for b in range(BATCH):
            A = z["A"][b].astype(bool)
            g = _graph(A)
            chosen = {int(v) for v in np.nonzero(z["inmis"][b])[0]}
            assert not any(g.has_edge(u, v) for u in chosen for v in chosen)  # independent
            assert nx.is_dominating_set(g, chosen)                            # maximal
            T = z["lengths"][b]
            assert T % 2 == 0 and T // 2 <= 4 * np.log2(n) + 4
            assert (z["phase_h"][:T, b] == np.arange(T) % 2).all()
            alive, inmis = np.ones(n, bool), np.zeros(n, bool)
            for t in range(0, T, 2):  # frame t: the round's start; t + 1: after it
                assert (z["alive_h"][t, b] == alive).all()
                assert (z["inmis_h"][t, b] == inmis).all()
                r = z["randomness"][t, b]
                assert (z["randomness"][t + 1, b] == r).all()  # one round's draws, two frames
                alive, inmis = _mis_round(A, alive, inmis, r)
                assert (z["alive_h"][t + 1, b] == alive).all()
                assert (z["inmis_h"][t + 1, b] == inmis).all()
            assert not alive.any() and (inmis == z["inmis"][b]).all()
            live = z["alive_h"][:T, b].astype(bool)
            assert (z["Ain_h"][:T, b] == (A[None] & live[:, :, None] & live[:, None, :])).all()


def test_eccentricity_is_networkx_and_the_flood_is_bfs(algs):
    for n, z in _batches(algs, "eccentricity"):
        for b in range(BATCH):
            g, s = _graph(z["A"][b]), int(np.argmax(z["s"][b]))
            ecc = nx.eccentricity(g, v=s)
            assert z["eccentricity"][b] == ecc
            dist = nx.single_source_shortest_path_length(g, s)
            dist = np.array([dist[v] for v in range(n)])
            T = z["lengths"][b]
            assert T == 2 * ecc + 2
            for t in range(T):  # round t floods level t - 1 and reaches level t
                assert (z["visited_h"][t, b] == (dist <= t - 1)).all()
                assert (z["floodstate_h"][t, b] == np.where(dist <= t, dist, 0)).all()
            last = T - 1
            assert (z["leaf_h"][last, b] == (np.arange(n) != s)).all()  # everyone else echoed
            assert (z["msgphase_h"][last, b] == 1).all()
            assert not z["tree_h"][last, b].any()                       # every flood answered
            assert z["echostate_h"][last, b, s] == ecc
            assert (np.diff(z["eccentricity_h"][:T, b]) >= 0).all()
            assert z["eccentricity_h"][last, b] == ecc
            for k in (last - 1, last):  # the echo reaches s one round before the run ends
                assert z["eccentricity_h"][k, b] == ecc


def test_eccentricity_stays_in_the_source_component_and_at_one_node(algs):
    alg = algs["eccentricity"]
    A = np.zeros((7, 7))
    for u, v in [(0, 1), (1, 2), (2, 3), (1, 4), (5, 6)]:  # a tree of 5 nodes, and an edge
        A[u, v] = A[v, u] = 1
    for s, want in [(0, 3), (1, 2), (3, 3), (5, 1)]:
        out, probes = alg.trace(A=A, s=np.eye(7)[s])
        assert out == want
        assert len(probes["hint"]["graph"]["eccentricity_h"]["data"]) == 2 * want + 2
    out, _ = alg.trace(A=np.zeros((1, 1)), s=np.ones(1))
    assert out == 0
