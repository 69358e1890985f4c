"""Interpreter edge cases, each pinned by a test that fails without its handling.

- the row/column fast path of edge reads took a node-long index for a
  per-sample one when the batch size equals the node count;
- the efficiency observer crashed on a read whose lane mask varies along
  axes its indices do not;
- `trace` gave numpy scalars for graph data, which dm-clrs rejects;
- sampled hints were computed from float64 inputs stored as float32, so a
  stored sample did not reproduce its own hints;
- batched runs equal one-sample runs at every batch size, B == n included.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec

ALGORITHMS = sorted((Path(__file__).resolve().parents[2] / "algorithms").glob("*.alg"))
KEY = "input node key: scalar ~ uniform()\n"


def compile_alg(body: str, decls: str = "", inputs: str = KEY):
    return algspec.load_source(f"algorithm t\nnodes n\ngraph complete\n{inputs}{decls}\n{body}\n",
                               "t.alg")


def _rows(traj, b: int) -> dict[str, np.ndarray]:
    """Sample b's arrays (hints cut to its own length), keyed `stage:name`."""
    L = int(traj.lengths[b])
    out = {f"input:{k}": v[b] for k, v in traj.inputs.items()}
    out |= {f"output:{k}": v[b] for k, v in traj.outputs.items()}
    out |= {f"hint:{k}": v[:L, b] for k, v in traj.hints.items()}
    return out


def assert_batch_equals_singles(alg, inputs: dict[str, np.ndarray], n: int) -> None:
    batch = alg.run(inputs, n)
    B = batch.batch_size
    for b in range(B):
        single = alg.run({k: v[b:b + 1] for k, v in inputs.items()}, n)
        assert int(batch.lengths[b]) == int(single.lengths[0]), f"length of sample {b}"
        got, want = _rows(batch, b), _rows(single, 0)
        for k in want:
            np.testing.assert_array_equal(got[k], want[k], err_msg=f"{k} sample {b} of {B}")
        for k, v in batch.hints.items():  # padding after the sample's end
            assert not v[int(batch.lengths[b]):, b].any(), k


# ======================================================= B == n edge reads
def test_diagonal_read_when_batch_equals_n() -> None:
    alg = compile_alg("forall i, j { A[i, j] = key[i] * 10.0 + key[j] }\n"
                      "forall v { dd[v] = A[v, v] }", "state edge A: float\noutput node dd: scalar\n")
    key = np.random.default_rng(0).random((3, 3))
    t = alg.run({"key": key}, 3, dtype=np.float64)
    np.testing.assert_allclose(t.outputs["dd"], key * 11.0)


@pytest.mark.parametrize("form", ["A[v, c]", "A[c, v]", "A[v, v]", "A[c, c]"])
def test_row_and_column_reads_at_every_batch_size(form: str) -> None:
    decls = ("state edge A: float\nstate graph c: int = 1\noutput node dd: scalar\n"
             "input graph s: scalar ~ uniform_scalar()\n")
    body = ("c = int(s * 4.0)\nforall i, j { A[i, j] = key[i] * 10.0 + key[j] }\n"
            f"forall v {{ dd[v] = {form} }}")
    alg = compile_alg(body, decls)
    n = 4
    for B in (1, 2, n, n + 1, 7):
        inputs = alg.generate(n, B, B)
        assert_batch_equals_singles(alg, inputs, n)
        key, c = inputs["key"], np.trunc(inputs["s"] * 4).astype(int)
        A = key[:, :, None] * 10.0 + key[:, None, :]
        b = np.arange(B)[:, None]
        v = np.arange(n)[None, :]
        want = {"A[v, c]": A[b, v, c[:, None]], "A[c, v]": A[b, c[:, None], v],
                "A[v, v]": A[b, v, v], "A[c, c]": np.repeat(A[b[:, 0], c, c][:, None], n, 1)}
        np.testing.assert_allclose(alg.run(inputs, n, dtype=np.float64).outputs["dd"],
                                   want[form], rtol=1e-6, err_msg=f"B={B}")


# Trajectory lengths depend on reads `s[v, v + 1]` (index constant per sample, node-long).
SUPERDIAGONAL = """algorithm superdiagonal
nodes n
graph complete
input node p: scalar ~ uniform()
state edge s: int
state node d: int
state graph steps: int = 0
hint graph h: scalar = steps
output graph o: scalar = steps
forall i, j { s[i, j] = int(p[j] * 4.0) + i }
forall v where v + 1 < n { d[v] = s[v, v + 1] }
record
while steps < sum(d[u] for u in nodes) bound 8 * n * n {
    steps = steps + 1
    record
}
"""


def test_sequential_edge_reads_at_batch_equal_n() -> None:
    alg = algspec.load_source(SUPERDIAGONAL, "superdiagonal.alg")
    n = 8
    inputs = alg.generate(n, 8, 3)
    assert_batch_equals_singles(alg, inputs, n)
    p = inputs["p"].astype(np.float32)
    want = (np.trunc(p[:, 1:] * 4.0) + np.arange(n - 1)).sum(1)
    np.testing.assert_array_equal(alg.run(inputs, n).lengths, want + 1)


# ============================================================ observer crash
def test_observer_on_a_read_masked_along_other_axes() -> None:
    from algspec.lint.measured import ActivityRecorder
    alg = compile_alg("forall i, j { x[i, j] = sum(key[k] for k in nodes if k + 1 < n "
                      "and x[k + 1, j] == 0.0) }", "output edge x: scalar\n")
    inputs = alg.generate(4, 2, 0)
    rec = ActivityRecorder()
    observed = alg.run(inputs, 4, observer=rec)
    plain = alg.run(inputs, 4)
    np.testing.assert_array_equal(observed.outputs["x"], plain.outputs["x"])
    key = inputs["key"].astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(plain.outputs["x"],
                               np.broadcast_to(key[:, :3].sum(1)[:, None, None], (2, 4, 4)),
                               rtol=1e-6)


# ========================================================= probes are arrays
def test_trace_gives_ndarrays_for_graph_data() -> None:
    alg = algspec.load(Path(__file__).resolve().parents[2] / "algorithms/parallel_search.alg")
    inputs = alg.generate(5, 1, 0)
    _, probes = alg.trace(**{k: v[0] for k, v in inputs.items()})
    graph = [p for stage in probes.values() for p in stage["graph"].values()]
    assert graph
    for by_loc in probes.values():
        for p in (p for loc in by_loc.values() for p in loc.values()):
            assert isinstance(p["data"], np.ndarray) and not np.isscalar(p["data"])
    assert any(p["data"].ndim == 0 for p in graph)


# ================================================ stored inputs reproduce hints
HASH_LIKE = compile_alg(
    "record\nforall v { h[v] = int(floor(key[v] * 100000000.0)) % 2 == 1 }\n"
    "t = sum(key[u] for u in nodes) * 1000000.0\nrecord",
    "hint node h: mask\nhint graph t: scalar\noutput graph o: scalar = t\n")


def _primary_value(alg, name: str, stored: np.ndarray) -> np.ndarray:
    t = alg.spec[name][2]
    return np.argmax(stored, -1) if t in ("categorical", "mask_one") else stored


@pytest.mark.parametrize("alg", [algspec.load(p) for p in ALGORITHMS] + [HASH_LIKE],
                         ids=[p.stem for p in ALGORITHMS] + ["hash_like"])
def test_trace_of_stored_inputs_reproduces_stored_hints(alg) -> None:
    n, B = 6, 5
    traj = alg.sample(n, B, 11)
    assert all(v.dtype == np.float32 for v in traj.hints.values())
    for b in range(B):
        prim = {k: _primary_value(alg, k, traj.inputs[k][b]) for k in alg.primary_inputs}
        _, probes = alg.trace(n=n, **prim)
        L = int(traj.lengths[b])
        for stage, by_loc in probes.items():
            for name, p in (kv for loc in by_loc.values() for kv in loc.items()):
                got = np.asarray(p["data"]).astype(np.float32)
                want = traj.hints[name][:L, b] if stage == "hint" else \
                    (traj.inputs if stage == "input" else traj.outputs)[name][b]
                np.testing.assert_array_equal(got, np.reshape(want, got.shape),
                                              err_msg=f"{alg.name}: {name} sample {b}")


def test_float_inputs_are_rounded_before_running() -> None:
    traj = HASH_LIKE.sample(6, 4, 5)
    key = traj.inputs["key"].astype(np.float64)
    np.testing.assert_array_equal(traj.hints["h"][1],
                                  (np.floor(key * 1e8).astype(np.int64) % 2 == 1))


# ======================================== batched == one at a time, all sizes
@pytest.mark.parametrize("path", ALGORITHMS, ids=lambda p: p.stem)
def test_shipped_algorithms_batched_equals_singles(path: Path) -> None:
    alg = algspec.load(path)
    n = 5
    pool = alg.generate(n, 7, 2024)
    for B in (1, 2, n, n + 1, 7):
        assert_batch_equals_singles(alg, {k: v[:B] for k, v in pool.items()}, n)


# ============================================== observer protocol
class _Log:
    """An observer that keeps every call."""

    def __init__(self, with_loop: bool = True) -> None:
        self.calls: list[tuple] = []
        if with_loop:
            self.loop = lambda sid, sample, iters: self.calls.append(
                ("loop", sid, list(sample), list(iters)))

    def nodes(self, stmt_id, sample, node) -> None:
        self.calls.append(("nodes", stmt_id, list(sample), list(node)))

    def edges(self, stmt_id, sample, src, dst) -> None:
        self.calls.append(("edges", stmt_id, list(sample), list(src), list(dst)))

    def frame(self, sample) -> None:
        self.calls.append(("frame", list(sample)))


def test_views_are_not_observed() -> None:
    decls = ("state graph lo: int = 0\n"
             "hint node g: scalar = sum(key[u] for u in nodes if u >= lo)\n"
             "hint node mo: mask_one = onehot(lo)\n"
             "output graph o: scalar = max(key[u] for u in nodes)\n")
    alg = compile_alg("record\nlo = 1\nrecord", decls)
    log = _Log()
    alg.run(alg.generate(4, 3, 0), 4, observer=log)
    assert [c[0] for c in log.calls] == ["frame", "frame"]


def test_views_read_in_the_body_are_not_observed() -> None:
    decls = "hint graph g: scalar = max(key[u] for u in nodes)\noutput graph o: scalar\n"
    alg = compile_alg("o = g\nrecord", decls)
    log = _Log()
    alg.run(alg.generate(4, 2, 0), 4, observer=log)
    assert [c[0] for c in log.calls] == ["frame"]


def test_loop_trip_counts_are_reported_per_sample() -> None:
    decls = ("input graph s: scalar ~ uniform_scalar()\nstate graph x: int = 0\n"
             "state graph y: int = 0\noutput graph o: scalar = x + y\n")
    body = ("while x < int(s * 10.0) bound 10 { x = x + 1 }\n"
            "for k in 0 .. n { if k >= int(s * 10.0) { break }\n y = y + 1 }\n"
            "for v in nodes by key { if key[v] > 0.15 { break } }")
    alg = compile_alg(body, decls)
    s = np.array([0.05, 0.31, 0.77])
    key = np.array([[0.9, 0.8, 0.7], [0.1, 0.05, 0.2], [0.1, 0.05, 0.12]])
    log = _Log()
    run = alg.run({"key": key, "s": s}, 3, observer=log, dtype=np.float64)
    np.testing.assert_array_equal(run.outputs["o"], [0, 6, 10])
    loops = {c[1]: (c[2], c[3]) for c in log.calls if c[0] == "loop"}
    assert len(loops) == 3
    (w, f, fn) = (loops[k] for k in sorted(loops))
    assert w == ([0, 1, 2], [0, 3, 7])
    assert f == ([0, 1, 2], [1, 3, 3])  # the trip that breaks counts
    assert fn == ([0, 1, 2], [1, 3, 3])


def test_loop_callback_is_optional() -> None:
    alg = compile_alg("while x < 2 bound 4 { x = x + 1 }", "state graph x: int = 0\n")
    log = _Log(with_loop=False)
    alg.run(alg.generate(3, 2, 0), 3, observer=log)
    assert not [c for c in log.calls if c[0] == "loop"]


# ====================================================== compact snapshots
def test_int_snapshots_widen_when_values_outgrow_them() -> None:
    decls = ("state graph x: int = 1\nstate node y: int\nhint graph h: scalar = x\n"
             "hint node hy: scalar = y\nhint node c: categorical(3) = y % 3\n")
    body = ("record\nwhile x < 10000000000000 bound 20 {\n  x = x * 10 + 7\n"
            "  forall v { y[v] = x - v * 100000 }\n  record\n}")
    alg = compile_alg(body, decls)
    xs = [1]
    while xs[-1] < 10 ** 13:
        xs.append(xs[-1] * 10 + 7)
    t = alg.run(alg.generate(4, 2, 0), 4, dtype=np.float64)
    np.testing.assert_array_equal(t.hints["h"][:, 0], xs)
    ys = np.array([[0] * 4] + [[x - v * 100000 for v in range(4)] for x in xs[1:]])
    np.testing.assert_array_equal(t.hints["hy"][:, 1], ys)
    np.testing.assert_array_equal(t.hints["c"][:, 1], np.eye(3)[ys % 3])


def test_a_fault_in_an_earlier_frame_s_hint_view_is_reported_first() -> None:
    # Hint views are evaluated after the run; when the run faults later (R101 at line 10),
    # the view's fault in frame 0 (R104) came first in program order and is the one reported.
    from algspec.diagnostics import RuntimeFault
    alg = algspec.load_source("""algorithm t
nodes n
graph complete
input node key: scalar ~ uniform()
state graph g: int = 0
hint node vm: scalar = key[(1 // g) % N]
record
g = 1
record
let z = key[n + 5]
record
""")
    with pytest.raises(RuntimeFault) as err:
        alg.trace(key=np.arange(4.0))
    d = err.value.diagnostic
    assert (d.code, d.span.line) == ("R104", 7)


def test_a_deferred_write_out_of_range_faults_before_a_later_statement() -> None:
    # Writes in a forall wait for the round's end; their index is still checked at the
    # statement, so the R101 of line 8 comes before the R104 of line 9 (program order).
    from algspec.diagnostics import RuntimeFault
    alg = algspec.load_source("""algorithm t
nodes n
graph complete
input node key: scalar ~ uniform()
state node a: int
state node b: int
forall v {
    a[v + 1] = 1 by max
    b[v] = n // v
}
record
""")
    with pytest.raises(RuntimeFault) as err:
        alg.trace(key=np.arange(4.0))
    d = err.value.diagnostic
    assert (d.code, d.span.line) == ("R101", 8)
