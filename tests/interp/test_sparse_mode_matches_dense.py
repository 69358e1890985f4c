"""The sparse execution mode gives the dense mode's bytes on every program it is chosen for.

Every shipped (algorithms/**) and corpus (tests/corpus/**) program that the mode rule
(`interp.mode.sparse_blocker`) lets run sparse is run in both modes, forced, at
B = 1, 2 and n: every input, output, hint and length must be equal byte for byte, and
a run that faults must fault alike in both.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.interp import run
from algspec.interp.edge_values import EdgeValued
from algspec.interp.mode import describe, sparse_blocker
from algspec.interp.runtime import Machine

ROOT = Path(__file__).resolve().parents[2]
N = 9  # small: the test is about equality, not speed


def _programs() -> list[Path]:
    files = sorted((ROOT / "algorithms").rglob("*.alg")) + \
        sorted((ROOT / "tests" / "corpus").rglob("*.alg"))
    out = []
    for f in files:
        try:
            alg = algspec.load(f)
        except AlgError:  # fixtures of mistakes (diagnostics) and includes do not load
            alg = None
        if alg is not None and sparse_blocker(alg.ir) is None:
            out.append(f)
    return out


PROGRAMS = _programs()


def _outcome(alg, inputs, B: int, mode: str, edges: str = "dense"):
    try:
        return run(alg.ir, inputs, N, batch_size=B, mode=mode, edges=edges)
    except RuntimeFault as f:
        return (f.diagnostic.code, f.sample)


def _as_edge_lists(inputs: dict) -> dict:
    """Edge inputs as `EdgeLists` over their own nonzero pairs, as a sparse draw gives them."""
    out = {}
    for k, v in inputs.items():
        x = EdgeLists.from_dense(v, EdgeGraph.from_mask(v != 0)) if np.ndim(v) == 3 else None
        out[k] = v if x is None else x
    return out


# (mode, inputs as edge lists, edges stored as edge lists)
VARIANTS = [("sparse", False, "dense"), ("sparse", True, "sparse"), ("dense", True, "sparse")]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_sparse_mode_gives_the_dense_bytes(path: Path) -> None:
    """Also with the inputs given as edge lists (held at their edges while running,
    `interp.edge_values`) and the probes stored as edge lists (`interp.edge_storage`)."""
    alg = algspec.load(path)
    for B in (1, 2, N):
        inputs = alg.generate(N, B, np.random.default_rng(B))
        dense = _outcome(alg, inputs, B, "dense")
        for mode, listed, edges in VARIANTS:
            given = _as_edge_lists(inputs) if listed else inputs
            other = _outcome(alg, given, B, mode, edges)
            if isinstance(dense, tuple) or isinstance(other, tuple):
                assert dense == other, (mode, listed, edges)
                continue
            for part in ("inputs", "outputs", "hints"):
                a, b = getattr(dense, part), getattr(other, part)
                assert a.keys() == b.keys()
                for k in a:
                    if edges == "dense":
                        assert not isinstance(b[k], EdgeLists), (part, k)
                    got = np.asarray(b[k])
                    assert a[k].dtype == got.dtype and a[k].shape == got.shape, (part, k)
                    assert a[k].tobytes() == got.tobytes(), (part, k, B, mode, listed)
            assert dense.lengths.tobytes() == other.lengths.tobytes()


def test_edge_inputs_run_and_are_stored_at_their_edges() -> None:
    """salsa/bfs with its graph as edge lists: the weights are never built N x N, and
    every edge probe comes back as edge lists over the interconnection graph."""
    alg = algspec.load(ROOT / "algorithms/salsa/bfs.alg")
    n = 60
    inputs = _as_edge_lists(alg.generate(n, 3, np.random.default_rng(0)))
    mach = Machine(alg.ir, inputs, n, mode="sparse")
    mach.run()
    for name in ("A", "adj"):  # still held at the edges after the run
        assert isinstance(mach.state.edge_valued(name), EdgeValued), name
    traj = run(alg.ir, inputs, n, mode="sparse", edges="sparse")
    a, adj = traj.inputs["A"], traj.inputs["adj"]
    assert isinstance(a, EdgeLists) and isinstance(adj, EdgeLists)
    assert a.graph is adj.graph  # one graph for the batch: adj has A's edges and the loops
    assert adj.graph.num_edges == inputs["A"].graph.num_edges + 3 * n


def test_the_rule_makes_the_sparse_graph_files_sparse() -> None:
    for f in ("salsa/bfs.alg", "parallel/bellman_ford.alg", "salsa/fast_mis.alg",
              "parallel/luby_mis.alg", "salsa/eccentricity.alg", "salsa/dfs.alg"):
        mode, why = describe(algspec.load(ROOT / "algorithms" / f).ir)
        assert mode == "sparse", (f, why)


def test_the_rule_keeps_complete_graph_and_arbitrary_pair_files_dense() -> None:
    mode, why = describe(algspec.load(ROOT / "algorithms/parallel/boruvka.alg").ir)
    assert mode == "dense" and "arbitrary pairs" in why
    mode, why = describe(algspec.load(ROOT / "algorithms/clrs/floyd_warshall.alg").ir)
    assert mode == "dense" and "complete" in why


MIXED = """algorithm sparse_mix
nodes n
graph input adj

input  edge  A: scalar ~ erdos_renyi(p = 0.3, weighted = true)
input  edge  adj: mask = adjacency(A)
hint   node  x: scalar := 1.0
hint   node  c: scalar
hint   edge  live: mask := true
hint   node  best: pointer := index

record
for k in 0 .. 3 {
    round {
        forall v, w where A[v, w] > 0 {
            live[v, w] = live[v, w] and x[v] < x[w] + A[v, w]
            x[w] = x[v] * 0.5 + A[v, w] by min
        }
    }
    forall v {
        c[v] = float(count(live[u, v] for u in incoming(v))
                     + sum(1 for u in outgoing(v) if A[v, u] > 0.5))
        best[v] = argmax((x[u], -u) for u in incoming(v) if live[u, v], default = v)
    }
    record
}
"""


def test_edge_rounds_combining_writes_and_keyed_aggregations_match(tmp_path: Path) -> None:
    """Own-edge writes in a round, `by min` onto nodes, count, int sum, a tuple-keyed
    argmax with default, and an edge hint whose cells off the graph stay `true`."""
    path = tmp_path / "sparse_mix.alg"
    path.write_text(MIXED)
    alg = algspec.load(path)
    assert sparse_blocker(alg.ir) is None
    for n, B in ((7, 1), (16, 3)):
        inputs = alg.generate(n, B, np.random.default_rng(n))
        dense, sparse = (run(alg.ir, inputs, n, mode=m) for m in ("dense", "sparse"))
        assert dense.hints["live"][:, :, 0, 0].all()  # a non-edge cell keeps its `true`
        for k in dense.hints:
            assert dense.hints[k].tobytes() == sparse.hints[k].tobytes(), k


def test_a_float_sum_over_neighbours_keeps_the_file_dense(tmp_path: Path) -> None:
    path = tmp_path / "fsum.alg"
    path.write_text(MIXED.replace("sum(1 for u", "int(sum(A[v, u] for u").replace(
        "A[v, u] > 0.5))", "A[v, u] > 0.5)))"))
    mode, why = describe(algspec.load(path).ir)
    assert mode == "dense" and "float `sum`" in why


def test_an_unknown_mode_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    alg = algspec.load(ROOT / "algorithms/salsa/bfs.alg")
    inputs = alg.generate(5, 1, np.random.default_rng(0))
    monkeypatch.setenv("ALGSPEC_INTERP_MODE", "sparce")
    with pytest.raises(ValueError, match="unknown interpreter mode"):
        run(alg.ir, inputs, 5)


@pytest.mark.parametrize("name", ["salsa/eccentricity.alg", "salsa/fast_mis.alg"])
def test_edge_hints_come_from_the_snapshots_at_the_edges(name: str, monkeypatch) -> None:
    """A sparse run's edge hints are stored as edge lists straight from its snapshots at
    the edges: no [T, B, N, N] frames are built and converted back."""
    alg = algspec.load(ROOT / "algorithms" / name)
    n = 50
    inputs = alg.generate(n, 3, np.random.default_rng(1))
    dense = run(alg.ir, inputs, n, mode="dense")
    converted = []
    real = EdgeLists.from_dense

    def counting(arr, graph, frames=False, mask=None):
        converted.append(frames)
        return real(arr, graph, frames=frames, mask=mask)

    monkeypatch.setattr(EdgeLists, "from_dense", staticmethod(counting))
    listed = run(alg.ir, _as_edge_lists(inputs), n, mode="sparse", edges="sparse")
    edge_hints = [k for k, (st, loc, _t) in alg.spec.items() if st == "hint" and loc == "edge"]
    assert edge_hints and True not in converted
    for k in edge_hints:
        assert isinstance(listed.hints[k], EdgeLists), k
        assert np.asarray(listed.hints[k]).tobytes() == dense.hints[k].tobytes(), k


def test_an_edge_hint_not_zero_off_the_graph_after_a_while_is_stored_dense(
        tmp_path, monkeypatch) -> None:
    """An edge view that is zero off the graph in its first frames and not later: found
    out block by block (here one frame a block), then probed dense, the same bytes as a
    dense run."""
    monkeypatch.setattr("algspec.interp.recording._BLOCK_ELEMS", 1)
    src = MIXED.replace("hint   edge  live: mask := true",
                        "hint   edge  live: mask := false\n"
                        "hint   edge  late[u, w]: mask = c[u] > 2.0 and c[w] > 2.0")
    path = tmp_path / "late.alg"
    path.write_text(src)
    alg = algspec.load(path)
    inputs = alg.generate(16, 3, np.random.default_rng(4))
    dense = run(alg.ir, inputs, 16, mode="dense")
    listed = run(alg.ir, _as_edge_lists(inputs), 16, mode="sparse", edges="sparse")
    late = dense.hints["late"]
    assert not late[0].any() and late.any()  # zero at first, later set off the graph too
    assert not isinstance(listed.hints["late"], EdgeLists)
    assert listed.hints["late"].tobytes() == late.tobytes()


def test_rand_keys_and_edge_views_never_build_the_inputs_n_by_n() -> None:
    """salsa/fast_mis draws `rand()` (keyed by a hash of its inputs) and records an edge
    view of its input (`Ain_h`): with the input held at its edges, the key is hashed and
    the view evaluated there, with the dense run's bytes and no N x N input built."""
    alg = algspec.load(ROOT / "algorithms/salsa/fast_mis.alg")
    n = 60
    inputs = alg.generate(n, 3, np.random.default_rng(2), family="sparse_er")
    keys = np.array([11, 12, 13], np.uint64)
    dense = run(alg.ir, inputs, n, mode="dense", rand_keys=keys)
    mach = Machine(alg.ir, _as_edge_lists(inputs), n, mode="sparse")
    mach.given_rand_keys = keys
    mach.edge_probes = True
    traj = mach.run()
    assert isinstance(mach.state.edge_valued("A"), EdgeValued)
    assert isinstance(traj.hints["Ain_h"], EdgeLists)
    for k in dense.hints:
        assert np.asarray(traj.hints[k]).tobytes() == dense.hints[k].tobytes(), k
    for k in dense.outputs:
        assert np.asarray(traj.outputs[k]).tobytes() == dense.outputs[k].tobytes(), k
