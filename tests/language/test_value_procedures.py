"""Procedures with a value: `proc f(x) { ...; return EXPR }`, called in expressions.

Traces against plain-Python references (union-find roots, a heap's parent and larger child,
nested calls, calls in every place a statement evaluates expressions), evaluation order
(the calls of a statement run before it, left to right), diagnostics at their exact line
and column, and the static classes of programs that use them (a call is its inlined body).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.diagnostics import AlgError

F32 = np.float32
H = "algorithm t\nnodes n\ngraph complete\n"
KEY = "input node key: scalar ~ uniform()\n"


def _keys(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.random(n).astype(F32).astype(np.float64)


def _hint(probes: dict, name: str, loc: str = "graph") -> list:
    return np.asarray(probes["hint"][loc][name]["data"]).tolist()


# ------------------------------------------------------------------ traces vs Python
def test_argmax_by_a_loop_in_a_value_procedure() -> None:
    alg = algspec.load_source(H + KEY + """output graph best: pointer
output graph top: scalar
proc argmax_from(lo) {
  let b = lo
  for i in lo .. n bound n {
    if key[i] > key[b] { b = i }
  }
  return b
}
best = argmax_from(0)
top = key[argmax_from(n // 2)] + key[argmax_from(0)]
""", "argmax.alg")
    rng = np.random.default_rng(1)
    for n in (1, 2, 5, 12):
        key = _keys(rng, n)
        out, _ = alg.trace(key=key)
        assert out["best"] == int(np.argmax(key))
        half = n // 2 + int(np.argmax(key[n // 2:]))
        assert out["top"] == key[half] + key[int(np.argmax(key))]


def test_branch_returns_and_nested_calls_equal_python() -> None:
    alg = algspec.load_source(H + KEY + """hint graph h: pointer
proc parent(i) {
  return (i - 1) // 2
}
proc larger(i, j) {
  if key[i] >= key[j] { return i } else { return j }
}
proc clamp(i) {
  if i < 0 {
    return 0
  } else if i >= n {
    return n - 1
  } else {
    return i
  }
}
record
for c in 1 .. n {
  h = larger(parent(c), clamp(c + parent(c) - 1))
  record
}
""", "heap.alg")
    rng = np.random.default_rng(2)
    for n in (1, 2, 6, 11):
        key = _keys(rng, n)

        def larger(i, j, key=key):
            return i if key[i] >= key[j] else j

        want = [0] + [larger((c - 1) // 2, min(max(c + (c - 1) // 2 - 1, 0), n - 1))
                      for c in range(1, n)]
        _, probes = alg.trace(key=key)
        assert _hint(probes, "h") == want


def test_union_find_roots_in_kruskal_over_edges() -> None:
    """The README's program: an edge loop by weight, a value procedure per end."""
    src = """algorithm kruskal_scan
nodes n
graph input adj
input  edge A: scalar ~ erdos_renyi(p = 0.4, weighted = true)
input  edge adj: mask = adjacency(A)
output edge in_mst: mask = t
state  edge t: bool
hint   node pi: pointer := index
proc root(x) {
  let r = x
  while pi[r] != r bound n { r = pi[r] }
  return r
}
record
for (u, v) in edges(A) by A {
  let ru = root(u)
  let rv = root(v)
  if u < v and ru != rv {
    t[u, v] = true; t[v, u] = true
    pi[ru] = rv
    record
  }
}
"""
    alg = algspec.load_source(src, "k.alg")
    rng = np.random.default_rng(3)
    for n in (2, 5, 10):
        w = (rng.random((n, n)) * (rng.random((n, n)) < 0.5)).astype(F32).astype(np.float64)
        w = np.triu(w, 1) + np.triu(w, 1).T
        pi = list(range(n))

        def root(x, pi=pi):
            while pi[x] != x:
                x = pi[x]
            return x

        mst = np.zeros((n, n), bool)
        frames = [list(pi)]
        es = sorted(((u, v) for u in range(n) for v in range(n) if w[u, v] != 0),
                    key=lambda e: w[e])
        for u, v in es:
            ru, rv = root(u), root(v)
            if u < v and ru != rv:
                mst[u, v] = mst[v, u] = True
                pi[ru] = rv
                frames.append(list(pi))
        out, probes = alg.trace(A=w)
        assert (np.asarray(out) != 0).tolist() == mst.tolist()
        assert _hint(probes, "pi", "node") == frames
    # T = m: one frame per edge at most
    assert str(alg.static_efficiency().rounds) == "m"


def test_calls_run_before_their_statement_left_to_right() -> None:
    """A value procedure may write data and record; its calls in a statement run first, in
    order (inner calls before outer), then the statement with their values."""
    alg = algspec.load_source(H + KEY + """hint graph h: scalar
state graph calls: int = 0
output graph order: scalar
proc tick(x) {
  calls += 1
  order = order * 10.0 + float(x)
  h = float(calls)
  record
  return x * 2
}
record
let y = tick(tick(1) + tick(2))
order = order * 10.0 + float(y)
if tick(3) > 5 { order = order + 0.5 }
""", "order.alg")
    out, probes = alg.trace(key=[0.5, 0.5])
    # tick(1) -> 2, tick(2) -> 4, tick(6) -> 12, then y = 12, then tick(3) -> 6 > 5
    assert out == ((((1 * 10 + 2) * 10 + 6) * 10 + 12) * 10 + 3) + 0.5
    assert _hint(probes, "h") == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_calls_in_every_place_a_statement_evaluates() -> None:
    """let, assignment values and indices, `+=`, if conditions, range ends (with a bound),
    call arguments, `return`, and a statement call whose value is dropped."""
    alg = algspec.load_source(H + KEY + """state node a: int = 0
state graph s: int = 0
output node out: scalar = float(a)
output graph total: scalar = float(s)
proc inc(x) {
  return x + 1
}
proc put(i, v) {
  a[i] = v
}
proc twice(x) {
  return inc(inc(x)) - 2 + x
}
let k = inc(0)
a[inc(0)] = inc(inc(1))
s += twice(3)
if inc(s) > 6 { s = s * 2 }
for i in inc(-1) .. inc(n - 1) bound n + 1 { put(i, inc(a[i])) }
inc(5)
""", "places.alg")
    for n in (2, 4):
        a = [0] * n
        a[1] = 3
        s = 3 + 3
        if s + 1 > 6:
            s *= 2
        a = [x + 1 for x in a]
        out, _ = alg.trace(key=np.zeros(n))
        assert out["out"].tolist() == a and out["total"] == s


def test_a_float_return_widens_an_int_one() -> None:
    alg = algspec.load_source(H + KEY + """output graph y: scalar
proc half(i) {
  if i % 2 == 0 { return i // 2 } else { return float(i) / 2.0 }
}
y = half(3) + half(4)
""", "widen.alg")
    out, _ = alg.trace(key=[0.1, 0.2])
    assert out == 1.5 + 2.0


def test_batched_equals_each_sample_alone() -> None:
    alg = algspec.load_source(H + KEY + """hint graph h: pointer
proc first_above(t) {
  let j = 0
  while j < n - 1 and key[j] <= t bound n { j += 1 }
  return j
}
record
for i in 0 .. n {
  h = first_above(key[i])
  record
}
""", "batch.alg")
    n, B = 7, 6
    batch = alg.generate(n, B, np.random.default_rng(4))
    traj = alg.run(batch, n)
    for b in range(B):
        key = batch["key"][b].astype(F32).astype(np.float64)
        want = [0]
        for i in range(n):
            j = 0
            while j < n - 1 and key[j] <= key[i]:
                j += 1
            want.append(j)
        assert traj.hints["h"][:, b].tolist() == want
        _, probes = alg.trace(key=key)
        assert _hint(probes, "h") == want


def test_value_procedures_from_an_include(tmp_path) -> None:
    (tmp_path / "lib.alg").write_text("proc parent(i) {\n  return (i - 1) // 2\n}\n")
    main = tmp_path / "main.alg"
    main.write_text(H + KEY + 'output graph p: pointer\ninclude "lib.alg"\np = parent(n - 1)\n')
    out, _ = algspec.load(main).trace(key=np.zeros(9))
    assert out == 3  # (9 - 1 - 1) // 2


# ------------------------------------------------------------------ diagnostics
GX = "state graph x: int = 0\n"
F = "proc f(a) {\n  return a + 1\n}\n"  # lines 6-8 after H + KEY + GX
ERRORS = [
    # (body after H + KEY + GX, code, line, column, message fragments)
    ("return 1\n", "E709", 6, 1, ("outside a procedure",)),
    ("proc g(a) {\n  return a\n  x = 1\n}\nx = g(1)\n", "E709", 7, 3, ("last statement",)),
    ("proc g(a) {\n  for i in 0 .. n { return i }\n  return a\n}\nx = g(1)\n", "E709", 7, 21,
     ("inside a loop",)),
    ("proc g(a) {\n  round { return a }\n  return a\n}\nx = g(1)\n", "E709", 7, 11,
     ("inside a round",)),
    ("proc g(a) {\n  if a > 0 { return 1 }\n}\nx = g(1)\n", "E709", 6, 1,
     ("some paths only",)),
    ("proc g(a) depth n {\n  if a > 0 { return g(a - 1) } else { return 0 }\n}\nx = g(3)\n",
     "E711", 6, 1, ("`g` returns a value and is recursive",)),
    (F + "x = 1 if key[0] < 0.5 else f(2)\n", "E710", 9, 28, ("branch of",)),
    (F + "if x > 0 and f(x) > 2 { x = 1 }\n", "E710", 9, 14, ("right of `and`",)),
    (F + "if x > 0 or f(x) > 2 { x = 1 }\n", "E710", 9, 13, ("right of `or`",)),
    (F + "while f(x) < 5 bound n { x += 1 }\n", "E710", 9, 7, ("`while` condition",)),
    (F + "x = max(f(u) for u in nodes)\n", "E710", 9, 9, ("aggregation",)),
    (F + "while x < 3 bound f(n) { x += 1 }\n", "E710", 9, 19, ("loop bound",)),
    (F + "for v in nodes by float(f(1)) { x += v }\n", "E710", 9, 25, ("whole-array",)),
    ("proc g(a) {\n  forall v { x = v by max }\n  return a\n}\nforall v { x = g(v) by max }\n",
     "E708", 7, 3, ("`g` is called inside a round", "holds a `forall`")),
    (F + "x = f(1, 2)\n", "E702", 9, 5, ("1 argument, not 2",)),
    ("proc h(a) { x = a }\nx = h(1)\n", "E207", 7, 5, ("`h` has no value",)),
    ("proc g(a) {\n  if a > 0 { return true } else { return 2 }\n}\nx = g(1)\n", "E205", 7, 35,
     ("`g` returns bool on one path and int on another",)),
    ("proc g(a) {\n  return key\n}\nx = g(1)\n", "E201", 7, 10, ("`key` is node data",)),
]


@pytest.mark.parametrize("case", ERRORS, ids=[f"{c[1]}-{i}" for i, c in enumerate(ERRORS)])
def test_mistakes_are_one_diagnostic_at_their_place(case) -> None:
    body, code, line, col, fragments = case
    with pytest.raises(AlgError) as e:
        algspec.load_source(H + KEY + GX + body, "e.alg")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == (code, line, col), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.concise())


def test_a_declaration_cannot_call_a_value_procedure() -> None:
    """Declarations come before procedures are callable: `= f(1)` there is E710."""
    src = H + KEY + "state graph y: int = f(1)\n" + F
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "d.alg")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == ("E710", 5, 22), d.concise()
    assert "in a declaration" in d.message


def test_data_named_return_is_still_declared_and_read() -> None:
    """dm-clrs's binary search output is `return`: a declaration and reads still work."""
    alg = algspec.load(__import__("pathlib").Path(__file__).parents[2] / "algorithms" /
                       "binary_search.alg")
    assert "return" in alg.spec


# ------------------------------------------------------------------ static classes
def test_a_call_costs_its_inlined_body() -> None:
    def T(body: str) -> str:
        alg = algspec.load_source(H + KEY + "hint graph h: scalar\nstate graph x: int = 0\n"
                                  "proc walk(k) {\n  let s = 0.0\n  for i in 0 .. n {\n"
                                  "    s = s + key[i]\n    record\n  }\n  return s\n}\n"
                                  "record\n" + body, "c.alg")
        return str(alg.static_efficiency().rounds)

    assert T("h = walk(0)\n") == "n"
    assert T("for j in 0 .. n { h = walk(j) }\n") == "n^2"
    assert T("h = walk(0) + walk(1)\n") == "n"


# ------------------------------------------------------------------ the CLI
def test_lint_compile_and_efficiency_read_value_procedures(tmp_path) -> None:
    p = tmp_path / "v.alg"
    p.write_text(H + KEY + "hint graph h: scalar\nproc sq(x) {\n  return x * x\n}\nrecord\n"
                 "for i in 0 .. n {\n  h = sq(key[i])\n  record\n}\n")
    r = CliRunner().invoke(app, ["lint", str(p)])
    assert " error" not in r.output.split("finding")[0], r.output
    r = CliRunner().invoke(app, ["compile", str(p), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["static"]["T"] == "n", r.output
    r = CliRunner().invoke(app, ["efficiency", str(p), "--static"])
    assert r.exit_code == 0 and "T = n" in r.output, r.output
    bad = tmp_path / "bad.alg"
    bad.write_text(H + KEY + GX + "return 1\n")
    r = CliRunner().invoke(app, ["lint", str(bad)])
    assert r.exit_code == 1 and f"{bad}:6:1: E709 " in r.output, r.output
