"""Procedures, bounded recursion, `include` and `for .. bound`: against independent references.

Inlined procedures are checked against numpy's sort, recursive ones against
plain Python recursion (frame by frame) and networkx's DFS, the bounds
against the faults they must raise, includes against the files they name.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import algspec
from algspec import ir
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.efficiency.analysis import analyse
from algspec.lint import lint_source

H = "algorithm t\nnodes n\ngraph complete\n"
ROOT = Path(__file__).resolve().parents[2]

HEAP = H + """
input node key: scalar ~ uniform()
state node a: float = key
output node out: scalar = a
state graph bad: int = 0
output graph clobbered: scalar = float(bad)

proc swap(i, j) { a[i], a[j] = a[j], a[i] }

proc sift(i, size) {                # called from two places
    let cur = i
    while cur < size bound n {
        let l = 2 * cur + 1
        let big = cur
        if l < size and a[l] > a[big] { big = l }
        if l + 1 < size and a[l + 1] > a[big] { big = l + 1 }
        if big == cur { break }
        swap(cur, big)
        cur = big
    }
}

for k in reversed 0 .. n // 2 { sift(k, n) }
for k in reversed 1 .. n {
    let i = k                       # the names of sift's parameter and local:
    let cur = k                     # the calls must not clobber them
    swap(0, k)
    sift(0, k)
    if i != k or cur != k { bad += 1 }
    record
}
"""

QSORT = H + """
input node key: scalar ~ uniform()
state node a: float = key
output node out: scalar = a
hint graph calls_made: scalar = float(c)
hint graph pivot: scalar = float(q0)
state graph c: int = 0
state graph q0: int = 0

proc qsort(lo, hi) depth DEPTH calls CALLS {
    c += 1
    if lo < hi {
        let x = a[hi]
        let i = lo - 1
        for j in lo .. hi bound n {
            if a[j] <= x {
                i = i + 1
                a[i], a[j] = a[j], a[i]
            }
        }
        a[i + 1], a[hi] = a[hi], a[i + 1]
        q0 = i + 1
        record
        qsort(lo, i)
        qsort(i + 2, hi)            # `i` is this call's own, whatever the first call did
    }
}
qsort(0, n - 1)
"""


def qsort_src(depth: str = "n", calls: str = "2 * n + 1") -> str:
    return QSORT.replace("DEPTH", depth).replace("CALLS", calls)


def qsort_reference(key: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Plain recursive quicksort: the array and (calls so far, pivot) at each frame."""
    a, frames, calls = list(key), [], [0]

    def qs(lo: int, hi: int) -> None:
        calls[0] += 1
        if lo < hi:
            x, i = a[hi], lo - 1
            for j in range(lo, hi):
                if a[j] <= x:
                    i += 1
                    a[i], a[j] = a[j], a[i]
            a[i + 1], a[hi] = a[hi], a[i + 1]
            frames.append((calls[0], i + 1))
            qs(lo, i)
            qs(i + 2, hi)

    qs(0, len(a) - 1)
    return np.array(a), frames


def test_procedures_inline_at_each_call_site_hygienically() -> None:
    alg = algspec.load_source(HEAP)
    for n in (1, 2, 7, 16):
        key = np.random.default_rng(n).random((6, n))
        tr = alg.run({"key": key}, n, dtype=np.float64)
        np.testing.assert_array_equal(tr.outputs["out"], np.sort(key, axis=1))
        assert not tr.outputs["clobbered"].any()
    # No procedure statement reaches the IR: inlined; locals renamed apart per call site.
    kinds = {s.kind for s, _ in ir.walk_statements(alg.ir.body)}
    assert "proc" not in kinds and "recur" not in kinds
    lets = [s.name for s, _ in ir.walk_statements(alg.ir.body)
            if s.kind == "let"]
    assert len(lets) == len(set(lets)) and all("@" in x for x in lets if x not in ("i", "cur"))


@pytest.mark.parametrize("n", [1, 2, 5, 13])
def test_recursion_matches_python_recursion_frame_for_frame(n: int) -> None:
    alg = algspec.load_source(qsort_src())
    key = np.random.default_rng(n).random((8, n))
    key[0] = np.sort(key[0])  # the worst case: n deep
    key[1] = 0.5              # ties everywhere: also n deep
    if n == 1:  # one item: no call partitions, so no frame is recorded (R110)
        with pytest.raises(RuntimeFault) as e:
            alg.run({"key": key}, n, dtype=np.float64)
        assert e.value.diagnostic.code == "R110" and qsort_reference(key[0])[1] == []
        return
    tr = alg.run({"key": key}, n, dtype=np.float64)
    for b in range(key.shape[0]):
        out, frames = qsort_reference(key[b])
        np.testing.assert_array_equal(tr.outputs["out"][b], out)
        got = [(int(tr.hints["calls_made"][t, b]), int(tr.hints["pivot"][t, b]))
               for t in range(len(frames))]
        assert got == frames


def test_recursion_bounds_are_enforced() -> None:
    key = np.sort(np.random.default_rng(0).random((3, 6)), axis=1)  # recursion 6 deep
    with pytest.raises(RuntimeFault) as e:
        algspec.load_source(qsort_src(depth="3")).run({"key": key}, 6)
    assert e.value.diagnostic.code == "R108" and "deeper" in e.value.diagnostic.message
    with pytest.raises(RuntimeFault) as e:
        algspec.load_source(qsort_src(calls="n")).run({"key": key}, 6)
    assert e.value.diagnostic.code == "R108" and "calls" in e.value.diagnostic.message
    # The declared bounds hold: 2n + 1 calls, n deep, on every input.
    algspec.load_source(qsort_src()).run({"key": key}, 6)


DFS = """algorithm rdfs
nodes n
graph input adj
input edge A: scalar ~ erdos_renyi(p = 0.3, directed = true)
input edge adj: mask = adjacency(A)
output node d: scalar
state node seen: bool = false
state graph time: int = 0

proc visit(u) depth n calls n {
    seen[u] = true
    time += 1
    d[u] = float(time)
    for v in nodes by index {
        if adj[u, v] and not seen[v] { visit(v) }
    }
}
for s in nodes by index {
    if not seen[s] { visit(s) }
}
"""


def test_recursive_dfs_calls_inside_loops_match_networkx() -> None:
    alg = algspec.load_source(DFS)
    n = 9
    inputs = alg.generate(n, 6, 3)
    tr = alg.run(inputs, n, dtype=np.float64)
    adj = np.asarray(tr.inputs["adj"]).astype(bool)
    for b in range(6):
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from((u, v) for u in range(n) for v in range(n) if adj[b, u, v] and u != v)
        order = list(nx.dfs_preorder_nodes(g))
        np.testing.assert_array_equal(np.argsort(tr.outputs["d"][b]), order)


def test_linear_and_mutual_recursion() -> None:
    src = H + """state graph x: int = 0
output graph out: scalar = float(x)
proc down(k) depth n + 1 { if k > 0 { x += 1; down(k - 1) } }
proc even(k) depth n + 1 calls n + 1 { if k > 0 { x += 10; odd(k - 1) } }
proc odd(k) depth n + 1 calls n + 1 { if k > 0 { x += 100; even(k - 1) } }
down(n)
even(3)
"""
    alg = algspec.load_source(src)
    tr = alg.run({}, 5, batch_size=2)
    assert tr.outputs["out"].tolist() == [5 + 10 + 100 + 10] * 2
    with pytest.raises(AlgError) as e:  # two recursive calls per invocation need `calls`
        algspec.load_source(H + "state graph x: int = 0\n"
                            "proc f(k) depth n { if k > 0 { f(k - 1); f(k - 1) } }\nf(2)\n")
    assert [d.code for d in e.value.diagnostics] == ["E703"]


def test_static_efficiency_counts_calls_times_the_body() -> None:
    # Each of the 2n + 1 calls may record n frames (one per comparison): T = n^2.
    rec = qsort_src().replace("            if a[j] <= x {", "            record\n"
                              "            if a[j] <= x {")
    alg = algspec.load_source(rec)
    st = analyse(alg.ir)
    assert str(st.rounds) == "n^2"
    for n in (4, 9):
        key = np.sort(np.random.default_rng(n).random((4, n)), axis=1)
        frames = alg.run({"key": key}, n).lengths.max()
        assert frames <= st.rounds.evaluate(n=n) * 2 + 1  # the bound's constant: 2n + 1 calls
    # The inlined procedures of HEAP cost what their loops cost, at both call sites.
    assert str(analyse(algspec.load_source(HEAP).ir).rounds) == "n"


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_include_shares_procedures_relative_to_the_including_file(tmp_path: Path) -> None:
    write(tmp_path, "lib/swap.alg", "proc swap(i, j) { a[i], a[j] = a[j], a[i] }\n")
    write(tmp_path, "lib/sort.alg", 'include "swap.alg"\n'
          "proc bubble() {\n  for p in 0 .. n { for j in 0 .. n - 1 {\n"
          "    if a[j] > a[j + 1] { swap(j, j + 1) } } }\n}\n")
    main = write(tmp_path, "algs/main.alg", H + "input node key: scalar ~ uniform()\n"
                 "state node a: float = key\noutput node out: scalar = a\n"
                 'include "../lib/sort.alg"\nbubble()\n')
    alg = algspec.load(main)
    key = np.random.default_rng(1).random((4, 6))
    np.testing.assert_array_equal(alg.run({"key": key}, 6, dtype=np.float64).outputs["out"],
                                  np.sort(key, axis=1))
    assert lint_source(main.read_text(), str(main)) == []
    assert lint_source((tmp_path / "lib/sort.alg").read_text(), str(tmp_path / "lib/sort.alg")) == []


def test_include_problems_are_diagnostics_at_the_include(tmp_path: Path) -> None:
    write(tmp_path, "a.alg", 'proc f() { x = 1 }\ninclude "b.alg"\n')
    write(tmp_path, "b.alg", '\ninclude "a.alg"\n')
    main = write(tmp_path, "main.alg", H + "state graph x: int = 0\ninclude \"a.alg\"\nf()\n")
    with pytest.raises(AlgError) as e:
        algspec.load(main)
    (d,) = e.value.diagnostics
    assert d.code == "E705" and d.path.endswith("b.alg") and d.span.line == 2
    assert "a.alg -> b.alg -> a.alg" in d.message
    write(tmp_path, "bad_lib.alg", "proc g() { x = y }\nx = 2\n")
    main2 = write(tmp_path, "main2.alg", H + "state graph x: int = 0\n"
                  'include "bad_lib.alg"\ninclude "gone.alg"\ng()\ng()\n')
    with pytest.raises(AlgError) as e:
        algspec.load(main2)
    got = sorted((d.code, Path(d.path).name, d.span.line) for d in e.value.diagnostics)
    # The error in g's body is reported once, in the library, though g is called twice.
    assert got == [("E206", "bad_lib.alg", 1), ("E704", "main2.alg", 6),
                   ("E706", "bad_lib.alg", 2)]


def test_for_range_with_data_dependent_ends_and_a_bound() -> None:
    src = H + """input node key: scalar ~ uniform()
input graph lo: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
state graph s: float = 0.0
state graph a: int = 0
state graph b: int = 0
output graph total: scalar = s
a = int(lo * float(n)) // 2
b = a + (n - a) // 2
for j in a .. b bound n { s += key[j] }
for j in reversed a .. b bound n // 2 + 1 { s += key[j] }
"""
    alg = algspec.load_source(src)
    n = 10
    inputs = alg.generate(n, 16, 0)
    tr = alg.run(inputs, n, dtype=np.float64)
    key, lo = inputs["key"].astype(np.float64), inputs["lo"].astype(np.float64)
    for b in range(16):
        a = int(np.float32(lo[b]) * n) // 2
        want = 2 * key[b, a: a + (n - a) // 2].sum()
        assert tr.outputs["total"][b] == pytest.approx(want)
    tight = algspec.load_source(src.replace("bound n // 2 + 1", "bound 1"))
    with pytest.raises(RuntimeFault) as e:
        tight.run(inputs, n)
    assert e.value.diagnostic.code == "R102"
    without = src.replace(" bound n {", " {")
    with pytest.raises(AlgError) as e:
        algspec.load_source(without)
    assert [d.code for d in e.value.diagnostics] == ["E602"]


def test_shipped_dfs_library_is_included_by_several_clrs_files() -> None:
    users = [p.name for p in sorted((ROOT / "algorithms" / "clrs").glob("*.alg"))
             if 'include "lib/dfs_stack.alg"' in p.read_text()]
    assert len(users) >= 2, users
    for name in users:
        alg = algspec.load(ROOT / "algorithms" / "clrs" / name)
        assert "dfs_pop" not in str(alg.ir.body)  # inlined: plain statements


def test_runtime_fault_in_an_included_procedure_names_its_file(tmp_path: Path) -> None:
    write(tmp_path, "lib.alg", "\n\nproc put(i) {\n    a[i] = 1.0\n}\n")
    main = write(tmp_path, "main.alg", H + "state node a: float = 0.0\n"
                 "output node out: scalar = a\ninclude \"lib.alg\"\nput(0)\nput(n)\n")
    alg = algspec.load(main)
    with pytest.raises(RuntimeFault) as e:
        alg.run({}, 4, batch_size=2)
    d = e.value.diagnostic
    assert d.code == "R101" and Path(d.path).name == "lib.alg" and d.span.line == 4


def test_a_library_is_linted_alone_but_not_loaded_as_an_algorithm(tmp_path: Path) -> None:
    lib = ROOT / "algorithms" / "clrs" / "lib" / "dfs_stack.alg"
    assert lint_source(lib.read_text(), str(lib)) == []
    with pytest.raises(AlgError) as e:
        algspec.load(lib)
    assert [d.code for d in e.value.diagnostics] == ["E706"]
    bad = write(tmp_path, "rec.alg", "proc f(k) { f(k) }\n")  # recursion without a bound
    assert [d.code for d in lint_source(bad.read_text(), str(bad))] == ["E703"]


def test_language_doc_procedure_example_sorts() -> None:
    text = (ROOT / "docs" / "language.md").read_text()
    section = text[text.index("## Procedures, recursion and includes"):]
    block = section.split("```")[1]
    alg = algspec.load_source(H + "input node key: scalar ~ uniform()\n"
                              "state node a: float = key\noutput node out: scalar = a\n" + block)
    key = np.random.default_rng(5).random((4, 11))
    np.testing.assert_array_equal(alg.run({"key": key}, 11, dtype=np.float64).outputs["out"],
                                  np.sort(key, axis=1))


def test_lint_findings_in_an_included_procedure_name_its_file(tmp_path: Path) -> None:
    lib = write(tmp_path, "lib.alg", "proc scan() {\n    for k in 0 .. n {\n"
                "        a[k] = key[k] * 2.0\n        record\n    }\n}\n")
    main = write(tmp_path, "main.alg", H + "input node key: scalar ~ uniform()\n"
                 'hint node a: scalar\ninclude "lib.alg"\nscan()\n')
    found = [(d.code, Path(d.path).name, d.span.line)
             for d in lint_source(main.read_text(), str(main), sample=False)]
    assert found == [("W201", "lib.alg", 2)]
    lib.write_text(lib.read_text().replace("0 .. n {", "0 .. n {   # allow: W201"))
    assert lint_source(main.read_text(), str(main), sample=False) == []
