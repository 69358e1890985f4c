"""Programs over the whole language (tests/corpus/newcomer/), checked against references.

Each deterministic program is checked frame for frame, outputs included, against an
independent numpy/networkx reference, through the public API only: sampled batches
(`alg.sampler(...).next(B)`) at n = 1, 2, 3, 5, 8 and several seeds, and `alg.trace` on
hand-made edge cases (empty, disconnected and directed graphs, ties). The two randomised
programs (`rand_int` per node and per edge) are checked by the properties every run must
have at every frame (a proper partial colouring, a growing matching) and at the end
(complete, maximal), and by replaying a trace with the same inputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import algspec

HERE = Path(__file__).resolve().parents[1] / "corpus" / "newcomer"
SIZES = (1, 2, 3, 5, 8)
SEEDS = (0, 1, 2)
B = 12

Frames = dict[str, list[np.ndarray]]


# ================================================================ references
def _ring_nbrs(N: int, v: int) -> set[int]:
    return {(v - 1) % N, v, (v + 1) % N}


def ref_ring_flood_leader(key: np.ndarray) -> tuple[Frames, dict]:
    N = len(key)
    best, hops, changed = key.astype(float).copy(), np.zeros(N), True
    fr: Frames = {"best": [], "changed": [], "hops": []}

    def rec() -> None:
        fr["best"].append(best.copy())
        fr["changed"].append(np.array(float(changed)))
        fr["hops"].append(hops.copy())

    rec()
    while changed:
        b = np.array([max(best[u] for u in _ring_nbrs(N, v)) for v in range(N)])
        changed = bool((b > best).any())
        best = b
        rec()
    hops[key != best] = N
    changed = True
    rec()
    while changed:
        d = np.array([min([hops[u] + 1 for u in _ring_nbrs(N, v) if u != v], default=N)
                      for v in range(N)])
        upd = d < hops
        hops = np.where(upd, d, hops)
        changed = bool(upd.any())
        rec()
    return fr, {"leader": (key == best).astype(float), "dist": hops}


def ref_tri_count(A: np.ndarray) -> tuple[Frames, dict]:
    N = len(A)
    a = A != 0
    adj = a | np.eye(N, dtype=bool)
    common = np.zeros((N, N))
    for v in range(N):
        for u in range(N):
            if a[v, u] and v != u:
                common[v, u] = sum(a[v, w] and a[u, w] for w in range(N) if w not in (v, u))
    tri = np.array([sum(common[v, u] for u in range(N) if adj[v, u] and u != v) / 2
                    for v in range(N)])
    return {"common": [np.zeros((N, N)), common]}, {"tri": tri, "total": tri.sum() / 3}


def ref_coreness(A: np.ndarray) -> tuple[Frames, dict]:
    N = len(A)
    a = (A != 0) & ~np.eye(N, dtype=bool)
    alive, core, k = np.ones(N, bool), np.zeros(N), 0
    fr: Frames = {"alive": [], "core_h": [], "k": []}

    def rec() -> None:
        fr["alive"].append(alive.astype(float))
        fr["core_h"].append(core.copy())
        fr["k"].append(np.array(float(k)))

    rec()
    while alive.any():
        # alive u in incoming(v) (adj[u, v]) with A[v, u]
        deg = np.array([sum(1 for u in range(N) if u != v and alive[u] and a[v, u] and a[u, v])
                        for v in range(N)])
        out = alive & (deg <= k)
        if out.any():
            core[out] = k
            alive = alive & ~out
        else:
            k += 1
        rec()
    return fr, {"core": core}


def ref_two_colour(A: np.ndarray) -> tuple[Frames, dict]:
    N = len(A)
    a = (A != 0) & ~np.eye(N, dtype=bool)
    side, clash = np.zeros(N, int), False
    fr: Frames = {"side": [], "clash": []}

    def rec() -> None:
        fr["side"].append(np.eye(3)[side])
        fr["clash"].append(np.array(float(clash)))

    rec()
    while (side == 0).any():
        # u -> v along an edge u -> v of A: u in incoming(v) and A[u, v]
        waves = [min((u for u in range(N) if a[u, v] and side[u] != 0), default=v)
                 for v in range(N)]
        if any(side[v] == 0 and waves[v] != v for v in range(N)):
            side = np.array([3 - side[waves[v]] if side[v] == 0 and waves[v] != v else side[v]
                             for v in range(N)])
        else:
            side[int(np.flatnonzero(side == 0)[0])] = 1
        clash = any(a[u, v] and side[u] != 0 and side[u] == side[v]
                    for u in range(N) for v in range(N))
        rec()
    return fr, {"part": np.eye(2)[side - 1], "bipartite": float(not clash)}


def ref_voronoi_ws(src: np.ndarray, A: np.ndarray) -> tuple[Frames, dict]:
    N = len(src)
    a = A != 0
    owner = np.where(src != 0, np.arange(N), -1)
    dist = np.where(src != 0, 0.0, -1.0)
    frontier = src != 0
    fr: Frames = {"owner_h": [], "frontier": []}

    def rec() -> None:
        fr["owner_h"].append(np.where(owner < 0, np.arange(N), owner).astype(float))
        fr["frontier"].append(frontier.astype(float))

    rec()
    lvl = 0
    while frontier.any():
        lvl += 1
        new = owner.copy()
        nxt = np.zeros(N, bool)
        for v in range(N):
            cands = [owner[u] for u in range(N) if frontier[u] and a[u, v] and owner[v] < 0]
            if cands:
                new[v], nxt[v], dist[v] = min(cands), True, lvl
        owner, frontier = new, nxt
        rec()
    return fr, {"owner": np.where(owner < 0, np.arange(N), owner), "dist": dist}


def ref_seg_scan(x: np.ndarray, start: np.ndarray) -> tuple[Frames, dict]:
    N = len(x)
    s, f = x.astype(float).copy(), start != 0
    fr: Frames = {"s": [s.copy()], "f": [f.astype(float)]}
    for k in range(math.ceil(math.log2(N))):
        d = 1 << k
        s2, f2 = s.copy(), f.copy()
        for v in range(d, N):
            if not f[v]:
                s2[v] = s[v - d] + s[v]
            f2[v] = f[v] or f[v - d]
        s, f = s2, f2
        fr["s"].append(s.copy())
        fr["f"].append(f.astype(float))
    # independent check: the sums of each segment so far, left to right
    want, acc = np.zeros(N), 0.0
    for v in range(N):
        acc = x[v] if (start[v] or v == 0) else acc + x[v]
        want[v] = acc
    assert np.array_equal(s, want)
    return fr, {"total": s}


def ref_merge_rank(key: np.ndarray, k: float) -> tuple[Frames, dict]:
    N, k = len(key), int(k)
    at = np.array([v + int(np.sum(key[k:] < key[v])) if v < k
                   else v - k + int(np.sum(key[:k] <= key[v])) for v in range(N)])
    # independent check: the stable sort's inverse permutation
    assert np.array_equal(at, np.argsort(np.argsort(key, kind="stable"), kind="stable"))
    return {"at": [np.arange(N).astype(float), at.astype(float)]}, {"place": at}


REFS: dict[str, tuple[Callable, tuple[str, ...]]] = {
    "ring_flood_leader": (ref_ring_flood_leader, ("key",)),
    "tri_count": (ref_tri_count, ("A",)),
    "coreness": (ref_coreness, ("A",)),
    "two_colour": (ref_two_colour, ("A",)),
    "voronoi_ws": (ref_voronoi_ws, ("src", "A")),
    "seg_scan": (ref_seg_scan, ("x", "start")),
    "merge_rank": (ref_merge_rank, ("key", "k")),
}


# ================================================================ helpers
def _load(name: str) -> algspec.CompiledAlgorithm:
    return algspec.load(HERE / f"{name}.alg")


def _batch(alg, n: int, seed: int):
    return alg.sampler(length=n, num_samples=B, seed=seed).next(B)


def _by_name(points) -> dict[str, np.ndarray]:
    return {p.name: np.asarray(p.data) for p in points}


def _check_frames(name: str, got: np.ndarray, want: list[np.ndarray], what: str) -> None:
    assert got.shape[0] >= len(want), f"{what}: {got.shape[0]} frames, want {len(want)}"
    for t, w in enumerate(want):
        np.testing.assert_array_equal(got[t], np.asarray(w, got.dtype),
                                      err_msg=f"{what}: hint {name} frame {t}")


def _check_sample(name: str, fb, i: int) -> None:
    ref, keys = REFS[name]
    ins = _by_name(fb.features.inputs)
    hints = _by_name(fb.features.hints)
    outs = _by_name(fb.outputs)
    frames, want_out = ref(*(ins[k][i].astype(np.float64) for k in keys))
    length = int(fb.features.lengths[i])
    what = f"{name} sample {i}"
    for h, w in frames.items():
        assert length == len(w), f"{what}: length {length}, reference {len(w)} frames"
        _check_frames(h, hints[h][:, i], w, what)
        assert not np.any(hints[h][length:, i]), f"{what}: {h} not zero-padded"
    for o, w in want_out.items():
        np.testing.assert_array_equal(outs[o][i], np.asarray(w, np.float32),
                                      err_msg=f"{what}: output {o}")


# ================================================================ sampled batches
@pytest.mark.parametrize("name", sorted(REFS))
def test_sampled_batches_match_the_reference(name: str) -> None:
    alg = _load(name)
    for n in SIZES:
        for seed in SEEDS:
            fb = _batch(alg, n, seed)
            for i in range(B):
                _check_sample(name, fb, i)


# ================================================================ hand-made traces
def _trace_check(name: str, **inputs) -> None:
    alg = _load(name)
    ref, keys = REFS[name]
    _, probes = alg.trace(**inputs)
    frames, want_out = ref(*(np.asarray(inputs[k], np.float64) for k in keys))
    for h, w in frames.items():
        got = np.asarray(probes["hint"][alg.spec[h][1]][h]["data"])
        assert got.shape[0] == len(w), f"{name}: {h} has {got.shape[0]} frames, want {len(w)}"
        _check_frames(h, got, w, f"{name} trace")
    for o, w in want_out.items():
        got = np.asarray(probes["output"][alg.spec[o][1]][o]["data"])
        np.testing.assert_array_equal(got, np.asarray(w, got.dtype), err_msg=f"output {o}")


def _graph(n: int, edges, directed: bool = False) -> np.ndarray:
    A = np.zeros((n, n))
    for u, v in edges:
        A[u, v] = 1
        if not directed:
            A[v, u] = 1
    return A


TRIANGLE_PLUS = _graph(6, [(0, 1), (1, 2), (0, 2), (2, 3), (4, 5)])   # a triangle, a tail, a pair
K4 = _graph(4, [(i, j) for i in range(4) for j in range(i + 1, 4)])
C5 = _graph(5, [(i, (i + 1) % 5) for i in range(5)])

HAND: list[tuple[str, dict]] = [
    ("ring_flood_leader", {"key": [0.5]}),
    ("ring_flood_leader", {"key": [0.2, 0.7]}),
    ("ring_flood_leader", {"key": [0.4, 0.4, 0.4]}),                  # every node ties
    ("ring_flood_leader", {"key": [0.9, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.9]}),
    ("tri_count", {"A": np.zeros((1, 1))}),
    ("tri_count", {"A": np.zeros((4, 4))}),
    ("tri_count", {"A": TRIANGLE_PLUS}),
    ("tri_count", {"A": K4}),
    ("tri_count", {"A": _graph(3, [(0, 1), (1, 2), (0, 2), (2, 0)], directed=True)}),
    ("coreness", {"A": np.zeros((1, 1))}),
    ("coreness", {"A": np.zeros((3, 3))}),
    ("coreness", {"A": K4}),
    ("coreness", {"A": TRIANGLE_PLUS}),
    ("two_colour", {"A": np.zeros((1, 1))}),
    ("two_colour", {"A": np.zeros((3, 3))}),
    ("two_colour", {"A": C5}),
    ("two_colour", {"A": TRIANGLE_PLUS}),
    ("two_colour", {"A": _graph(6, [(0, 3), (3, 1), (1, 4), (4, 2), (5, 2)])}),
    ("voronoi_ws", {"src": [0], "A": np.zeros((1, 1))}),
    ("voronoi_ws", {"src": [0, 0, 0], "A": K4[:3, :3]}),               # no source at all
    ("voronoi_ws", {"src": [0, 0, 1, 0, 0, 1], "A": TRIANGLE_PLUS}),  # a source per component
    ("voronoi_ws", {"src": [0, 1, 0, 1, 0], "A": C5}),                # node 2 ties: sources 1, 3
    ("voronoi_ws", {"src": [1, 0, 0, 0], "A": _graph(4, [(1, 0), (1, 2), (2, 3)],
                                                     directed=True)}),   # 0 reaches nothing
    ("seg_scan", {"x": [3.0], "start": [0]}),
    ("seg_scan", {"x": [1.0, 2.0], "start": [1, 1]}),
    ("seg_scan", {"x": [1.0, 2, 3, 4, 5, 6, 7], "start": [0, 0, 1, 0, 0, 0, 1]}),
    ("merge_rank", {"key": [0.5], "k": 0.0}),
    ("merge_rank", {"key": [0.5], "k": 1.0}),
    ("merge_rank", {"key": [0.3, 0.3], "k": 1.0}),                     # a tie across runs
    ("merge_rank", {"key": [0.1, 0.4, 0.4, 0.2, 0.4, 0.9], "k": 3.0}),
    ("merge_rank", {"key": [0.1, 0.2, 0.3], "k": 3.0}),                # second run empty
]


@pytest.mark.parametrize(("name", "inputs"), [
    pytest.param(nm, ins, id=f"{nm}-{i}") for i, (nm, ins) in enumerate(HAND)])
def test_hand_made_traces_match_the_reference(name: str, inputs: dict) -> None:
    _trace_check(name, **inputs)


def test_coreness_and_two_colour_agree_with_networkx() -> None:
    core, two = _load("coreness"), _load("two_colour")
    for n in (3, 8):
        for fb in (_batch(core, n, 5),):
            A = _by_name(fb.features.inputs)["A"]
            got = _by_name(fb.outputs)["core"]
            for i in range(B):
                g = nx.from_numpy_array(A[i])
                g.remove_edges_from(nx.selfloop_edges(g))
                want = nx.core_number(g)
                assert [want[v] for v in range(n)] == got[i].tolist()
        fb = _batch(two, n, 5)
        A = _by_name(fb.features.inputs)["A"]
        got = _by_name(fb.outputs)["bipartite"]
        for i in range(B):
            assert bool(got[i]) == nx.is_bipartite(nx.from_numpy_array(A[i]))


# ================================================================ randomised programs
def check_trial_colour(A: np.ndarray, colour: np.ndarray, length: int, col: np.ndarray) -> None:
    """Every frame a proper partial colouring that only grows; at the end complete."""
    N = len(A)
    a = (A != 0) & ~np.eye(N, dtype=bool)
    deg = a.sum(0)
    assert length >= 2 and np.all(colour[0] == -1)
    for t in range(1, length):
        was, now = colour[t - 1], colour[t]
        assert np.all(now[was >= 0] == was[was >= 0]), "a colour changed"
        c = now >= 0
        assert np.all(now[c] <= deg[c]) and np.all(now[c] == np.floor(now[c]))
        assert not np.any(a & c[:, None] & c[None, :] & (now[:, None] == now[None, :]))
        if t < length - 1:
            assert (now < 0).any(), "frames after every node is coloured"
    assert np.all(colour[length - 1] >= 0) and np.array_equal(col, colour[length - 1])


def check_proposal_matching(A: np.ndarray, mate: np.ndarray, length: int,
                            match: np.ndarray) -> None:
    """Every frame a matching on A's edges that only grows; the last one maximal."""
    N = len(A)
    a = (A != 0) & ~np.eye(N, dtype=bool)
    idx = np.arange(N)

    def free_edge(m: np.ndarray) -> bool:
        free = m == idx
        return bool(np.any(a & a.T & free[:, None] & free[None, :]))

    assert np.array_equal(mate[0], idx)           # none is a self-pointer
    for t in range(length):
        m = mate[t].astype(int)
        assert np.array_equal(m[m], idx), "not symmetric"
        assert all(a[v, m[v]] and a[m[v], v] for v in idx if m[v] != v)
        if t:
            was = mate[t - 1].astype(int)
            assert np.all(m[was != idx] == was[was != idx]), "a match changed"
        assert free_edge(m) == (t < length - 1), f"frame {t} of {length}"
    assert np.array_equal(match, mate[length - 1])


RANDOMISED = {"trial_colour": ("colour", "col", check_trial_colour),
              "proposal_matching": ("mate", "match", check_proposal_matching)}


@pytest.mark.parametrize("name", sorted(RANDOMISED))
def test_randomised_programs_keep_their_invariants(name: str) -> None:
    hint, out, check = RANDOMISED[name]
    alg = _load(name)
    for n in (*SIZES, 40):
        for seed in SEEDS:
            fb = _batch(alg, n, seed)
            A = _by_name(fb.features.inputs)["A"]
            h, o = _by_name(fb.features.hints)[hint], _by_name(fb.outputs)[out]
            for i in range(B):
                check(A[i], h[:, i], int(fb.features.lengths[i]), o[i])


@pytest.mark.parametrize("name", sorted(RANDOMISED))
def test_randomised_traces_replay_and_keep_their_invariants(name: str) -> None:
    hint, out, check = RANDOMISED[name]
    alg = _load(name)
    for A in (np.zeros((1, 1)), np.zeros((3, 3)), K4, C5, TRIANGLE_PLUS):
        for key in (None, 7, 8):
            kw = {} if key is None else {"rand_key": key}
            _, probes = alg.trace(A=A, **kw)
            h = probes["hint"]["node"][hint]["data"]
            o = probes["output"]["node"][out]["data"]
            check(A, h, len(h), o)
            _, again = alg.trace(A=A, **kw)
            np.testing.assert_array_equal(again["hint"]["node"][hint]["data"], h)


# ================================================================ figures, families, text, CLI
STATIC = {  # T, c, eta, epsilon as `algspec compile` prints them
    "ring_flood_leader": ("n", "n^2", "1", "1"),
    "seg_scan": ("log n", "n log n", "1", "1/n"),
    "merge_rank": ("1", "n", "1", "1/n"),
    "proposal_matching": ("log n", "n log n", "1", "1"),
}


@pytest.mark.parametrize("name", sorted(STATIC))
def test_static_figures(name: str) -> None:
    s = _load(name).static_efficiency()
    got = tuple(str(x) for x in (s.rounds, s.capacity, s.node_efficiency, s.edge_efficiency))
    assert got == STATIC[name]


def test_named_families_draw_their_graphs() -> None:
    """`family = ws` (k = 4) has n k / 2 edges, `family = ba` (m = 2) m (n - m); both
    undirected without self-loops; `A__family` overrides the file's choice."""
    n = 10
    for name, want, kw in (("voronoi_ws", 2 * n, {}), ("coreness", 2 * (n - 2), {}),
                           ("voronoi_ws", 12, {"A__family": "grid"})):
        size = 9 if kw else n
        A = _by_name(_load(name).sampler(length=size, num_samples=4, seed=0, **kw)
                     .next(4).features.inputs)["A"]
        assert np.array_equal(A, A.transpose(0, 2, 1)) and not A.diagonal(0, 1, 2).any()
        assert np.all(A.sum((1, 2)) == 2 * want)


def test_generated_masks_and_runs() -> None:
    fb = _batch(_load("seg_scan"), 8, 0)
    ins = _by_name(fb.features.inputs)
    assert set(np.unique(ins["start"])) == {0.0, 1.0}
    assert set(np.unique(ins["x"])) <= set(range(10))
    fb = _load("merge_rank").sampler(length=8, num_samples=64, seed=0).next(64)
    ins = _by_name(fb.features.inputs)
    ks = ins["k"].astype(int)
    assert set(ks) <= set(range(9)) and len(set(ks)) > 3
    for key, k in zip(ins["key"], ks):
        assert np.all(np.diff(key[:k]) >= 0) and np.all(np.diff(key[k:]) >= 0)


ALL = sorted(p.stem for p in HERE.glob("*.alg"))


@pytest.mark.parametrize("n", (1, 2))
def test_text_and_sample_at_tiny_sizes(n: int, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import algspec.text
    from algspec.cli import app
    for name in ALL:
        alg = _load(name)
        recs = list(algspec.text.text_records(alg, n, 3, 0))
        assert len(recs) == 3 and all(r["prompt"].startswith(f"{name}:\n") for r in recs)
        out = _by_name(alg.sampler(length=n, num_samples=-1, seed=0).next(3).outputs)
        if name == "seg_scan":   # the answer is the output, as numpy prints float32
            for r, total in zip(recs, out["total"]):
                assert r["references"] == [f"[{' '.join(f'{x:.1f}' for x in total)}]\n\n"]
        res = CliRunner().invoke(app, ["sample", str(HERE / f"{name}.alg"), "--length", str(n),
                                       "--num", "3", "--out", str(tmp_path / f"{name}{n}")])
        assert res.exit_code == 0, res.output
        assert (tmp_path / f"{name}{n}" / "samples.npz").is_file()
        res = CliRunner().invoke(app, ["text", str(HERE / f"{name}.alg"), "--length", str(n),
                                       "--num", "3", "--out", str(tmp_path / f"t{name}{n}")])
        assert res.exit_code == 0, res.output
        assert (tmp_path / f"t{name}{n}" / "data.jsonl").read_text().count("\n") == 3


@pytest.mark.parametrize("name", sorted(RANDOMISED))
def test_sampled_randomised_runs_replay_from_their_rand_keys(name: str) -> None:
    from algspec.sampling.dataset import stored_trace_inputs
    hint, out, _ = RANDOMISED[name]
    alg = _load(name)
    for n in (1, 2, 5, 8):
        sampler = alg.sampler(length=n, num_samples=-1, seed=4)
        fb = sampler.next(6)
        keys = sampler.last_rand_keys
        inputs = _by_name(fb.features.inputs)
        hints = _by_name(fb.features.hints)[hint]
        outs = _by_name(fb.outputs)[out]
        for b in range(6):
            got, probes = alg.trace(n=n, rand_key=int(keys[b]),
                                    **stored_trace_inputs(alg, inputs, b))
            h = probes["hint"]["node"][hint]["data"]
            assert len(h) == int(fb.features.lengths[b])
            np.testing.assert_array_equal(h, hints[:len(h), b])
            np.testing.assert_array_equal(np.asarray(got, np.float32), outs[b])


# ================================================================ diagnostics
BAD = HERE / "bad"  # files that must be refused, each with its diagnostic


def _lint(path: Path) -> list:
    from algspec.lint import lint_source
    return lint_source(path.read_text(encoding="utf-8"), str(path))


def test_ring_neighbour_read_by_index_is_not_l107() -> None:
    path = HERE / "ring_neighbour_read.alg"
    out, _ = algspec.load(path).trace(key=[0.0, 0.1, 0.2])
    np.testing.assert_array_equal(out, [0.1, 0.2, 0.0])   # the run itself is right
    assert [d.code for d in _lint(path)] == []


@pytest.mark.parametrize("stem", ["rand_int_in_initial_value",
                                  "rand_int_symmetric_in_node_round"])
def test_rand_int_diagnostics_name_rand_int(stem: str) -> None:
    (d,) = _lint(BAD / f"{stem}.alg")
    assert "rand_int" in d.message and "rand()" not in d.message + str(d.help)


def test_per_lane_binary_search_counts_its_edge_reads_at_the_most_end() -> None:
    """A per-node binary search (a `while` in a procedure called in a round) stops on
    data, so it is a choice: O(1) trips at the fewest end, which the figures head with,
    and its bound at the most end (docs/efficiency.md): n .. n log n active edges."""
    s = _load("merge_rank").static_efficiency()
    assert str(s.active_edges) == "n"
    assert (str(s.ranges["active_edges"].fewest), str(s.ranges["active_edges"].most)) == (
        "n", "n log n")
