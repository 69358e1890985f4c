"""`for (u, v) in edges(A)`: a sequential loop over an edge array's nonzero pairs.

Traces against plain-Python references on random graphs (row-major order, `by KEY` stable
and `unstable`, `break`, a snapshot of the list, a declared state end), ragged batches
(every sample its own edge count) equal to each sample alone, diagnostics at their exact
line and column, and the static rounds of small programs (one trip per edge: m).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.diagnostics import AlgError, RuntimeFault

F32 = np.float32
INPUT_GRAPH = """algorithm t
nodes n
graph input adj
input edge W: scalar ~ erdos_renyi(p = 0.4, weighted = true)
input edge adj: mask = adjacency(W)
"""


def _graph(rng: np.random.Generator, n: int, p: float = 0.4, directed: bool = False
           ) -> np.ndarray:
    w = (rng.random((n, n)) * (rng.random((n, n)) < p)).astype(F32).astype(np.float64)
    np.fill_diagonal(w, 0.0)
    return w if directed else np.triu(w, 1) + np.triu(w, 1).T


def _edges(w: np.ndarray) -> list[tuple[int, int]]:
    return [(u, v) for u in range(len(w)) for v in range(len(w)) if w[u, v] != 0]


def _hints(probes: dict, name: str, loc: str) -> np.ndarray:
    return np.asarray(probes["hint"][loc][name]["data"])


# ------------------------------------------------------------------ traces vs Python
WALK = INPUT_GRAPH + """hint  graph hu: pointer
hint  graph hv: pointer
output graph acc: scalar
record
for (u, v) in edges(W)ORDER {
  hu = u
  hv = v
  acc = acc * 0.5 + W[u, v]
  record
}
"""


@pytest.mark.parametrize("order", ["", " by W", " by -W", " by W unstable", " by float(u + v)",
                                   " by W[v, u] + float(index)"])
def test_visits_equal_python_over_the_edge_list(order: str) -> None:
    alg = algspec.load_source(WALK.replace("ORDER", order), "walk.alg")
    rng = np.random.default_rng(2)
    for n in (1, 2, 5, 9):
        for directed in (False, True):
            w = _graph(rng, n, directed=directed)
            if n >= 5:
                w[w != 0] = np.round(w[w != 0] * 4) / 4 + 0.25  # ties, for the order of ties
            es = _edges(w)
            key = {"": None, " by W": lambda e, w=w: w[e], " by -W": lambda e, w=w: -w[e],
                   " by W unstable": "argsort", " by float(u + v)": lambda e: e[0] + e[1],
                   " by W[v, u] + float(index)": lambda e, w=w: w[e[1], e[0]] + e[0]}[order]
            if key == "argsort":
                es = [es[k] for k in np.argsort(np.array([w[e] for e in es], np.float64))]
            elif key is not None:
                es = sorted(es, key=key)  # Python's sort is stable: ties in row-major order
            out, probes = alg.trace(W=w)
            acc = 0.0
            for e in es:
                acc = acc * 0.5 + w[e]
            assert _hints(probes, "hu", "graph")[1:].tolist() == [u for u, _ in es]
            assert _hints(probes, "hv", "graph")[1:].tolist() == [v for _, v in es]
            assert out == acc


def test_kruskal_with_an_edge_loop_equals_a_python_kruskal() -> None:
    src = INPUT_GRAPH + """output edge in_mst: mask = t
state  edge t: bool
hint   node pi: pointer := index
state  graph ru: int = 0
state  graph rv: int = 0
record
for (u, v) in edges(W) by W {
  if u < v {
    ru = u
    while pi[ru] != ru bound n { ru = pi[ru] }
    rv = v
    while pi[rv] != rv bound n { rv = pi[rv] }
    if ru != rv {
      t[u, v] = true; t[v, u] = true
      pi[ru] = rv
      record
    }
  }
}
"""
    alg = algspec.load_source(src, "kruskal.alg")
    rng = np.random.default_rng(4)
    for n in (2, 6, 11):
        w = _graph(rng, n, 0.5)
        pi = list(range(n))

        def root(x: int, pi: list[int] = pi) -> int:
            while pi[x] != x:
                x = pi[x]
            return x

        mst = np.zeros((n, n), bool)
        frames = [list(pi)]
        for u, v in sorted(_edges(w), key=lambda e: w[e]):
            if u < v:
                ru, rv = root(u), root(v)
                if ru != rv:
                    mst[u, v] = mst[v, u] = True
                    pi[ru] = rv
                    frames.append(list(pi))
        out, probes = alg.trace(W=w)
        assert (np.asarray(out) != 0).tolist() == mst.tolist()
        assert _hints(probes, "pi", "node").tolist() == frames


def test_break_snapshot_and_a_declared_state_end() -> None:
    """`break` leaves the loop; writes to A inside do not change the list it took; an end
    declared as graph state keeps its last value (as a range's variable does)."""
    src = """algorithm t
nodes n
graph complete
input  edge A: mask ~ erdos_renyi(p = 0.5)
state  edge B: bool := A
state  graph u: int = -1
output graph last: pointer = max(u, 0)
output graph trips: scalar = float(k)
state  graph k: int = 0
for (u, v) in edges(B) {
  k += 1
  B[v, u] = not B[v, u]
  if u + v >= n { break }
}
"""
    alg = algspec.load_source(src, "snap.alg")
    rng = np.random.default_rng(8)
    for n in (1, 3, 6):
        for _ in range(4):
            a = rng.random((n, n)) < 0.5
            k, last = 0, -1
            for u, v in _edges(a):
                k, last = k + 1, u
                if u + v >= n:
                    break
            out, _ = alg.trace(A=a.astype(float))
            assert (out["last"], out["trips"]) == (max(last, 0), k)


def test_ragged_batch_equals_each_sample_alone() -> None:
    """Samples with different edge counts leave the loop after their own trips."""
    alg = algspec.load_source(WALK.replace("ORDER", " by W"), "walk.alg")
    n, B = 8, 12
    batch = alg.generate(n, B, np.random.default_rng(3))
    traj = alg.run(batch, n)
    counts = [(batch["W"][b] != 0).sum() for b in range(B)]
    assert len(set(counts)) > 1
    for b in range(B):
        w = batch["W"][b].astype(F32).astype(np.float64)
        assert traj.lengths[b] == 1 + counts[b]
        out, probes = alg.trace(W=w)
        t = int(traj.lengths[b])
        assert traj.hints["hu"][:t, b].tolist() == _hints(probes, "hu", "graph").tolist()
        assert traj.hints["hv"][:t, b].tolist() == _hints(probes, "hv", "graph").tolist()
        assert (traj.hints["hu"][t:, b] == 0).all()  # padded after its end
        assert traj.outputs["acc"][b] == pytest.approx(out, rel=1e-6)


def test_sampler_and_batch_sampler_run_an_edge_loop() -> None:
    """`.sampler` (a clrs.Sampler where dm-clrs is installed, else algspec's) and
    `.batch_sampler` give the same ragged lengths: one frame per edge, plus the first."""
    alg = algspec.load_source(WALK.replace("ORDER", ""), "walk.alg")
    fb = alg.batch_sampler(length=6, num_samples=8, seed=1).next(8)
    lengths = np.asarray(fb.features.lengths)
    assert lengths.min() >= 1 and len(set(lengths.tolist())) > 1
    inputs = {d.name: np.asarray(d.data) for d in fb.features.inputs}
    assert lengths.tolist() == [1 + (w != 0).sum() for w in inputs["W"]]
    other = alg.sampler(length=6, num_samples=8, seed=1).next(8)
    assert np.asarray(other.features.lengths).tolist() == lengths.tolist()


def test_edge_loop_in_procedures_inlined_and_recursive() -> None:
    src = INPUT_GRAPH + """output graph total: scalar
proc add_edges(scale) {
  for (u, v) in edges(W) { total = total + scale * W[u, v] }
}
proc rec(k) depth 4 {
  if k > 0 {
    for (u, v) in edges(W) { total = total + W[u, v] }
    rec(k - 1)
  }
}
add_edges(1.0)
add_edges(2.0)
rec(3)
"""
    alg = algspec.load_source(src, "procs.alg")
    w = _graph(np.random.default_rng(6), 6, 0.6)
    out, _ = alg.trace(W=w)
    tot = 0.0
    for scale in (1.0, 2.0, 1.0, 1.0, 1.0):
        for e in _edges(w):
            tot = tot + scale * w[e]
    assert out == pytest.approx(tot, rel=1e-12)


# ------------------------------------------------------------------ diagnostics
H = "algorithm t\nnodes n\ngraph complete\nstate graph x: int = 0\n"
A = "input edge A: mask ~ erdos_renyi()\n"
ERRORS = [
    # (source after H, code, line, column, message fragments)
    (A + "for (u, v) in nodes(A) { x += u }\n", "E607", 6, 15, ("`edges(A)`", "`nodes(...)`")),
    (A + "for (u, v) in edges(x) { x += u }\n", "E607", 6, 21, ("`x` is graph data",)),
    ("input node k: scalar ~ uniform()\nfor (u, v) in edges(k) { x += u }\n", "E607", 6, 21,
     ("`k` is node data",)),
    (A + "let y = 1\nfor (u, v) in edges(y) { x += u }\n", "E607", 7, 21, ("local value",)),
    (A + "for (u, v) in edges(B) { x += u }\n", "E206", 6, 21, ("`B`",)),
    (A + "for (u, u) in edges(A) { x += u }\n", "E101", 6, 9, ("two names",)),
    (A + "for (n, v) in edges(A) { x += v }\n", "E101", 6, 6, ("`n`",)),
    (A + "for (u, v) in edges(A) by A { x += u }\n", "E205", 6, 27, ("numeric key",)),
    (A + "for e in edges(A) { x += 1 }\n", "E002", 6, 19, ("names both ends",)),
    (A + "round { for (u, v) in edges(A) { x += u } }\n", "E501", 6, 9, ("loops",)),
    (A + "for (u, v) in edges(A) bound x { x += u }\n", "E601", 6, 30, ("loop bound",)),
    (A + "forall w { for (u, v) in edges(A) { x += u } }\n", "E501", 6, 12, ("loops",)),
]


@pytest.mark.parametrize("case", ERRORS, ids=[f"{c[1]}-{i}" for i, c in enumerate(ERRORS)])
def test_mistakes_are_one_diagnostic_at_their_place(case) -> None:
    src, code, line, col, fragments = case
    with pytest.raises(AlgError) as e:
        algspec.load_source(H + src, "e.alg")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == (code, line, col), d.concise()
    for f in fragments:
        assert f in d.message or f in (d.help or ""), (f, d.concise())


def test_one_name_gets_a_help_that_names_both_ends() -> None:
    with pytest.raises(AlgError) as e:
        algspec.load_source(H + A + "for e in edges(A) { x += 1 }\n", "e.alg")
    assert "`for (u, v) in edges(A) { ... }`" in e.value.diagnostics[0].help


def test_more_edges_than_the_graph_is_r102_with_what_to_declare() -> None:
    alg = algspec.load_source("algorithm t\nnodes n\ngraph path\ninput edge W: mask ~ "
                              "erdos_renyi()\nstate graph x: int = 0\n"
                              "for (u, v) in edges(W) { x += 1 }\n", "r.alg")
    with pytest.raises(RuntimeFault) as e:
        alg.trace(W=np.ones((4, 4)))
    d = e.value.diagnostic
    assert (d.code, d.span.line, d.span.column) == ("R102", 6, 1), d.concise()
    assert "more than 10 iterations" in d.message and "`W` has 16 edges" in d.message
    assert "bound EXPR" in d.message
    ok = algspec.load_source("algorithm t\nnodes n\ngraph path\ninput edge W: mask ~ "
                             "erdos_renyi()\noutput graph x: scalar = float(k)\n"
                             "state graph k: int = 0\n"
                             "for (u, v) in edges(W) bound n * n { k += 1 }\n", "r.alg")
    out, _ = ok.trace(W=np.ones((4, 4)))
    assert out == 16


# ------------------------------------------------------------------ static classes
CLASSES = [
    ("for (u, v) in edges(W) { h = W[u, v]; record }", "m"),
    ("for (u, v) in edges(W) by W { h = W[u, v]; record }", "m"),
    ("for i in 0 .. n { for (u, v) in edges(W) { h = W[u, v]; record } }", "nm"),
    ("for (u, v) in edges(W) { for i in 0 .. n { h = W[u, i]; record } }", "nm"),
    ("for (u, v) in edges(W) bound n { h = W[u, v]; record }", "n"),
    ("for (u, v) in edges(W) { h = W[u, v] }\nrecord", "1"),
]


@pytest.mark.parametrize("body,T", CLASSES)
def test_rounds_count_one_trip_per_edge(body: str, T: str) -> None:
    alg = algspec.load_source(INPUT_GRAPH + "hint graph h: scalar\nrecord\n" + body + "\n",
                              "c.alg")
    assert str(alg.static_efficiency().rounds) == T


def test_sequential_edge_scan_is_eta_1_over_n_and_epsilon_1_over_m() -> None:
    alg = algspec.load_source(WALK.replace("ORDER", ""), "walk.alg")
    s = alg.static_efficiency()
    assert (str(s.rounds), str(s.capacity), str(s.node_efficiency), str(s.edge_efficiency)) == \
        ("m", "nm", "1/n", "1/m")


# ------------------------------------------------------------------ the CLI
def test_lint_compile_and_efficiency_read_an_edge_loop(tmp_path) -> None:
    p = tmp_path / "walk.alg"
    p.write_text(WALK.replace("ORDER", " by W"))
    r = CliRunner().invoke(app, ["lint", str(p)])
    assert r.exit_code in (0, 1) and " error" not in r.output.split("finding")[0], r.output
    r = CliRunner().invoke(app, ["compile", str(p), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["static"]["T"] == "m"
    r = CliRunner().invoke(app, ["efficiency", str(p), "--static"])
    assert r.exit_code == 0 and "T = m" in r.output, r.output
    bad = tmp_path / "bad.alg"
    bad.write_text(H + A + "for (u, v) in edges(x) { x += u }\n")
    r = CliRunner().invoke(app, ["lint", str(bad)])
    assert r.exit_code == 1 and f"{bad}:6:21: E607 " in r.output, r.output
