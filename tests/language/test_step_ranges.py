"""`for x in a .. b step s`: Python's `range(a, b, s)`, its checks, faults and trip classes.

Every program is traced on random inputs at several sizes and compared with a plain-Python
reference built on `range`; ragged batches (data-dependent ends and steps in m) must equal
each sample traced alone; mistakes give one diagnostic at their exact line and column.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.sampling.identity import spec_hash

H = "algorithm t\nnodes n\ngraph complete\n"
KEY = "input node key: scalar ~ uniform()\n"
F32 = np.float32


def _load(body: str, decls: str = KEY, head: str = H) -> algspec.CompiledAlgorithm:
    return algspec.load_source(head + decls + body, "t.alg")


def _keys(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.random(n).astype(F32).astype(np.float64)  # what the interpreter runs on


def _frames(probes: dict, name: str, loc: str = "graph") -> np.ndarray:
    return np.asarray(probes["hint"][loc][name]["data"])


# ------------------------------------------------------------------ traces vs Python
# name -> (body, reference(n) -> the visited values, in order)
VISITS = {
    "up_by_2": ("for i in 0 .. n step 2 {", lambda n: range(0, n, 2)),
    "up_by_3_from_1": ("for i in 1 .. n step 3 {", lambda n: range(1, n, 3)),
    "down_to_0": ("for i in n - 1 .. -1 step -1 {", lambda n: range(n - 1, -1, -1)),
    "down_by_2": ("for i in n - 1 .. 0 step -2 {", lambda n: range(n - 1, 0, -2)),
    "step_in_n": ("for i in 0 .. n step max(1, n // 3) {", lambda n: range(0, n, max(1, n // 3))),
    "down_step_in_n": ("for i in n .. 0 step -max(1, n // 2) {",
                       lambda n: range(n, 0, -max(1, n // 2))),
    "unit_step": ("for i in 2 .. n step 1 {", lambda n: range(2, n, 1)),
    "beyond_the_end": ("for i in 0 .. n + 5 step 4 {", lambda n: range(0, n + 5, 4)),
}


@pytest.mark.parametrize("name", sorted(VISITS))
def test_visits_equal_python_range(name: str) -> None:
    head, ref = VISITS[name]
    alg = _load("record\n" + head + "\n  h = float(i)\n  acc = acc + key[i % n]\n  record\n}\n",
                KEY + "hint graph h: scalar\noutput graph acc: scalar\n")
    rng = np.random.default_rng(7)
    for n in (2, 3, 5, 8, 13):
        key = _keys(rng, n)
        out, probes = alg.trace(key=key)
        seen = list(ref(n))
        assert _frames(probes, "h").tolist() == [0.0] + [float(i) for i in seen], (n, seen)
        acc = 0.0
        for i in seen:
            acc = acc + key[i % n]
        assert out == pytest.approx(acc, abs=0, rel=0)


def test_shell_sort_gaps_with_a_step_match_a_python_shell_sort() -> None:
    """Shell sort over gaps n // 2, n // 4, ... with a stepped insertion pass per offset."""
    src = """
input  node key: scalar ~ uniform()
hint   node a: scalar := key
output node out: scalar = a
state  graph gap: int = n // 2
state  graph j: int = 0
state  graph t: float = 0.0
record
while gap > 0 bound ceil(log2(n)) + 1 {
  for off in 0 .. gap bound n {
    for i in off + gap .. n step gap bound n {
      t = a[i]
      j = i
      while j >= gap and a[j - gap] > t bound n {
        a[j] = a[j - gap]
        j -= gap
      }
      a[j] = t
    }
  }
  record
  gap = gap // 2
}
"""
    alg = algspec.load_source(H + src, "shell.alg")
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 9, 16):
        key = _keys(rng, n)
        a = list(key)
        frames = [list(a)]
        gap = n // 2
        while gap > 0:
            for off in range(gap):
                for i in range(off + gap, n, gap):
                    t, j = a[i], i
                    while j >= gap and a[j - gap] > t:
                        a[j] = a[j - gap]
                        j -= gap
                    a[j] = t
            frames.append(list(a))
            gap //= 2
        out, probes = alg.trace(key=key)
        assert out.tolist() == sorted(key.tolist())
        assert _frames(probes, "a", "node").tolist() == frames


def test_data_dependent_ends_and_a_step_in_m_batched_equal_alone() -> None:
    """Ragged trips: each sample's own ends (from its data) and step (from its m)."""
    alg = algspec.load_source("""algorithm t
nodes n
graph input A
input  edge  A: mask ~ erdos_renyi(p = 0.4)
input  node  key: scalar ~ uniform()
hint   graph h: scalar
output graph total: scalar
record
let lo = int(key[0] * float(n))
for i in lo .. n * n step max(1, m // 3) bound n * n {
  h = float(i)
  total = total + float(i)
  record
}
for j in n - 1 .. lo - 1 step -2 {
  total = total - key[j]
}
""", "ragged.alg")
    n, B = 7, 9
    batch = alg.generate(n, B, np.random.default_rng(1))
    traj = alg.run(batch, n)
    for b in range(B):
        A, key = batch["A"][b], batch["key"][b].astype(F32).astype(np.float64)
        m = int((A != 0).sum())
        lo = int(key[0] * n)
        seen = list(range(lo, n * n, max(1, m // 3)))
        total = 0.0
        for i in seen:
            total = total + float(i)
        for j in range(n - 1, lo - 1, -2):
            total = total - key[j]
        assert traj.lengths[b] == 1 + len(seen)
        assert traj.hints["h"][1:1 + len(seen), b].tolist() == [float(i) for i in seen]
        assert traj.outputs["total"][b] == pytest.approx(total, rel=1e-6)
        out, _ = alg.trace(A=A, key=key)  # alone, on the values the batch ran on
        assert out == pytest.approx(total, rel=1e-12)


def test_break_and_a_declared_state_variable_keep_python_semantics() -> None:
    alg = _load("""output graph last: int = i
state graph i: int = -1
for i in n - 1 .. -1 step -3 {
  if key[i] < 0.5 { break }
}
""".replace("output graph last: int = i", "output graph last: pointer = i"))
    rng = np.random.default_rng(5)
    for n in (1, 4, 10):
        for _ in range(5):
            key = _keys(rng, n)
            last = -1
            for i in range(n - 1, -1, -3):
                last = i
                if key[i] < 0.5:
                    break
            out, _ = alg.trace(key=key)
            assert out == last


def test_sampler_runs_a_stepped_file() -> None:
    alg = _load("record\nfor i in 0 .. n step 2 {\n  h = key[i]\n  record\n}\n",
                KEY + "hint graph h: scalar\n")
    fb = alg.batch_sampler(length=9, num_samples=4, seed=0).next(4)
    assert np.asarray(fb.features.lengths).tolist() == [6.0] * 4


def test_a_range_without_step_keeps_its_ir_and_spec_hash() -> None:
    """`step` is new: the IR of a unit range serialises as before (no `step` key)."""
    alg = _load("state graph x: int = 0\nfor i in 0 .. n { x += i }\n")
    (loop,) = [s for s in alg.ir.body if s.kind == "for_range"]
    assert "step" not in json.loads(loop.model_dump_json())
    stepped = _load("state graph x: int = 0\nfor i in 0 .. n step 1 { x += i }\n")
    assert spec_hash(alg.spec, alg.ir) != spec_hash(stepped.spec, stepped.ir)


# ------------------------------------------------------------------ diagnostics
GX = "state graph x: int = 0\n"
ERRORS = [
    # (body, code, line, column, message fragments)
    ("for i in 0 .. n step 0 { x += i }\n", "E606", 6, 22, ("`0` is 0",)),
    ("for i in 0 .. n step 2 - 2 { x += i }\n", "E606", 6, 22, ("is 0",)),
    ("for i in 0 .. n step -1 { x += i }\n", "E606", 6, 22, ("`0 .. n` runs up",)),
    ("for i in n - 1 .. 0 step 1 { x += i }\n", "E606", 6, 26, ("counts up", "runs down")),
    ("for i in 0 .. n step 4 - n { x += i }\n", "E606", 6, 22, ("changes with n",)),
    ("for i in reversed 0 .. n step 2 { x += i }\n", "E606", 6, 31, ("`reversed`",)),
    ("for i in 0 .. n step x { x += i }\n", "E602", 6, 22, ("step reads data",)),
    ("for i in 0 .. n step int(key[0]) { x += i }\n", "E602", 6, 22, ("step reads data",)),
    ("for i in 0 .. n step key { x += i }\n", "E201", 6, 22, ("`key` is node data",)),
    ("for i in 0 .. n step 0.5 { x += i }\n", "E203", 6, 22, ("integer",)),
    ("for i in 0 .. x step 2 { x += i }\n", "E602", 6, 15, ("end of a range",)),
    ("for i in x .. 0 step -2 { x += i }\n", "E602", 6, 10, ("start of a range that counts down",)),
    ("for i in 0 .. n bound n step 2 { x += i }\n", "E002", 6, 25, ("'step'",)),
    ("round { for i in 0 .. n step 2 { x += i } }\n", "E501", 6, 9, ("loops",)),
]


@pytest.mark.parametrize("case", ERRORS, ids=[f"{c[1]}-{i}" for i, c in enumerate(ERRORS)])
def test_mistakes_are_one_diagnostic_at_their_place(case) -> None:
    body, code, line, col, fragments = case
    with pytest.raises(AlgError) as e:
        _load(body, KEY + GX)
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == (code, line, col), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.message)


def test_data_dependent_ends_are_no_static_error() -> None:
    """Ends that read data cannot be judged statically: an empty or wrong-way range with
    data-dependent ends is left to the run time."""
    _load("for i in x .. n step 2 { x += i }\n", KEY + GX)
    _load("for i in n - 1 .. x step -2 { x += i }\n", KEY + GX)


FAULTS = [
    # (body, inputs, code, fragments)
    ("for j in int(s) .. 0 step 1 bound n { x += 1 }\n", {"s": 2.0}, "R111",
     ("2 .. 0 step 1", "runs up")),
    ("for j in 0 .. int(s) step -1 bound n { x += 1 }\n", {"s": 2.0}, "R111",
     ("0 .. 2 step -1", "runs down")),
    ("for j in 0 .. n step n // 8 { x += j }\n", {"s": 0.0}, "R111", ("`n // 8` is 0 at n = 3",)),
    ("for j in 0 .. int(s) step 2 bound 1 { x += j }\n", {"s": 5.0}, "R102", ("bound",)),
    ("for j in 0 .. n step int(s) bound n { x += j }\n", {"s": 0.0}, "R111", ("step is 0 here",)),
    ("for j in 0 .. n step -int(s) bound n { x += j }\n", {"s": 2.0}, "R111",
     ("0 .. 3 step -2", "runs down")),
]


@pytest.mark.parametrize("case", FAULTS, ids=[f"{c[2]}-{i}" for i, c in enumerate(FAULTS)])
def test_run_time_faults(case) -> None:
    body, inputs, code, fragments = case
    alg = _load(body, KEY + "input graph s: scalar ~ uniform_scalar()\n" + GX)
    with pytest.raises(RuntimeFault) as e:
        alg.trace(key=[0.1, 0.2, 0.3], **inputs)
    d = e.value.diagnostic
    assert (d.code, d.span.line, d.span.column) == (code, 7, 1), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.message)


def test_a_step_that_reads_data_takes_its_direction_at_run_time() -> None:
    alg = _load("hint graph h: scalar\nrecord\nlet d = 1 if key[0] < 0.5 else -1\n"
                "for i in (0 if d > 0 else n - 1) .. (n if d > 0 else -1) step d * 2 bound n {\n"
                "  h = key[i]\n  record\n}\n")
    rng = np.random.default_rng(11)
    for n in (1, 4, 7):
        for _ in range(4):
            key = _keys(rng, n)
            seen = range(0, n, 2) if key[0] < 0.5 else range(n - 1, -1, -2)
            _, probes = alg.trace(key=key)
            assert _frames(probes, "h").tolist() == [0.0] + [key[i] for i in seen]


def test_equal_ends_run_no_trips_whatever_the_step() -> None:
    alg = _load("output graph c: scalar = float(x)\n" + GX + "for j in int(s) .. int(s) step -1 bound n "
                "{ x += 1 }\nfor j in int(s) .. int(s) step 3 bound n { x += 1 }\n",
                KEY + "input graph s: scalar ~ uniform_scalar()\n")
    out, _ = alg.trace(key=[0.1, 0.2, 0.3], s=2.0)
    assert out == 0


# ------------------------------------------------------------------ static classes
CLASSES = [
    ("for i in 0 .. n step 2 { h = float(i); record }", "n"),
    ("for i in n - 1 .. -1 step -1 { h = float(i); record }", "n"),
    ("for i in 0 .. n * n step n { h = float(i); record }", "n"),
    ("for i in 0 .. n step max(1, n // 4) { h = float(i); record }", "1"),
    ("for i in 0 .. n step max(1, n // ceil(log2(n))) { h = float(i); record }", "log n"),
    ("for i in 0 .. m step 2 { h = float(i); record }", "m"),
    ("for i in 0 .. n step 2 { for j in i .. n step 3 { h = float(j); record } }", "n^2"),
    ("for i in n .. x step -3 { h = float(i); record }", "n"),
    ("for i in 0 .. n step 2 bound log2(n) + 1 { h = float(i); record }", "log n"),
]


@pytest.mark.parametrize("body,T", CLASSES)
def test_rounds_are_the_span_over_the_step(body: str, T: str) -> None:
    alg = _load("record\n" + body + "\n", "hint graph h: scalar\n" + GX)
    assert str(alg.static_efficiency().rounds) == T


def test_trip_bound_is_ceil_of_span_over_step() -> None:
    """The bound the interpreter enforces is exact: a loop that runs to it never faults."""
    for n in range(1, 12):
        for s in (1, 2, 3, 5):
            alg = _load(f"output graph c: scalar = float(x)\n{GX}for i in 0 .. n + 1 step {s} {{ x += 1 }}\n"
                        f"for i in n .. -2 step -{s} {{ x += 1 }}\n")
            out, _ = alg.trace(key=np.zeros(n))
            assert out == math.ceil((n + 1) / s) + math.ceil((n + 2) / s)


# ------------------------------------------------------------------ the CLI
def test_lint_compile_and_efficiency_read_a_stepped_file(tmp_path) -> None:
    p = tmp_path / "stepped.alg"
    p.write_text(H + KEY + "hint graph h: scalar\nrecord\nfor i in n - 1 .. -1 step -2 {\n"
                 "  h = key[i]\n  record\n}\n")
    r = CliRunner().invoke(app, ["lint", str(p)])
    assert r.exit_code in (0, 1) and "error" not in r.output.split("finding")[0], r.output
    r = CliRunner().invoke(app, ["compile", str(p), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["static"]["T"] == "n"
    r = CliRunner().invoke(app, ["efficiency", str(p), "--static"])
    assert r.exit_code == 0 and "T = n" in r.output, r.output
    bad = tmp_path / "bad.alg"
    bad.write_text(H + GX + "for i in 0 .. n step -1 { x += i }\n")
    r = CliRunner().invoke(app, ["lint", str(bad)])
    assert r.exit_code == 1 and f"{bad}:5:22: E606 " in r.output, r.output
