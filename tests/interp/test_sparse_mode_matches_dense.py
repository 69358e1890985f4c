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
from algspec.interp import run
from algspec.interp.mode import describe, sparse_blocker

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


def _outcome(alg, inputs, B: int, mode: str):
    try:
        return run(alg.ir, inputs, N, batch_size=B, mode=mode)
    except RuntimeFault as f:
        return (f.diagnostic.code, f.sample)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_sparse_mode_gives_the_dense_bytes(path: Path) -> None:
    alg = algspec.load(path)
    for B in (1, 2, N):
        inputs = alg.generate(N, B, np.random.default_rng(B))
        dense, sparse = (_outcome(alg, inputs, B, m) for m in ("dense", "sparse"))
        if isinstance(dense, tuple) or isinstance(sparse, tuple):
            assert dense == sparse
            continue
        for part in ("inputs", "outputs", "hints"):
            a, b = getattr(dense, part), getattr(sparse, part)
            assert a.keys() == b.keys()
            for k in a:
                assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, (part, k)
                assert a[k].tobytes() == b[k].tobytes(), (part, k, B)
        assert dense.lengths.tobytes() == sparse.lengths.tobytes()


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
