"""`total bound T`: a loop's trips summed over the whole run, its forms, checks and faults.

Each form parses and lowers (`ir.Loop.total`); a total alone bounds a `while` and a range
with data-dependent ends or step; a total that is not a size expression is E601 and a
misplaced one a syntax error with a targeted message. The interpreter counts a loop's trips
per sample and per source loop (inside outer loops, at every call site of a procedure, in
recursion) and faults with R112 past T; where the bound holds, the trace equals that of the
same program without `total`. The YAML form keeps it; programs without it keep their hash.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec import ir
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.ir.size_text import size_text
from algspec.language.parser import parse
from algspec.language.yaml_form import to_alg_text
from algspec.language.yaml_writer import to_yaml
from algspec.sampling.identity import spec_hash

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "corpus" / "language"
H = "algorithm t\nnodes n\ngraph complete\n"
DECLS = ("input node key: scalar ~ uniform()\ninput edge A: mask ~ erdos_renyi()\n"
         "hint graph c: scalar := 0\nstate graph j: int = 0\nstate graph i: int = 0\n")


def _load(body: str, decls: str = DECLS) -> algspec.CompiledAlgorithm:
    return algspec.load_source(H + decls + body, "t.alg")


def _loops(alg: algspec.CompiledAlgorithm) -> list[ir.Statement]:
    return [s for s, _ in ir.walk_statements(alg.ir.body)
            if isinstance(s, (ir.While, ir.ForRange, ir.ForEdges))]


# ------------------------------------------------------------------ parsing and lowering
# body -> (kind, per-execution bound, total), as size text
FORMS = {
    "while j < n total bound 2 * n { j += 1 }": ("while", "2 * n", "2 * n"),
    "while j < n bound n total bound 2 * n { j += 1 }": ("while", "n", "2 * n"),
    "while j < n bound n whp total bound 2 * n { j += 1 }": ("while", "n", "2 * n"),
    "for x in j .. n total bound n { c += 1 }": ("for_range", "n", "n"),
    "for x in 0 .. n total bound 2 * n { c += 1 }": ("for_range", "n - 0", "2 * n"),
    "for x in j .. n step 2 bound n total bound 2 * n { c += 1 }": ("for_range", "n", "2 * n"),
    "for x in 0 .. n step j total bound n { c += 1 }": ("for_range", "n", "n"),
    "for x in reversed j .. n total bound n { c += 1 }": ("for_range", "n", "n"),
    "for (u, v) in edges(A) total bound m { c += 1 }": ("for_edges", "m", "m"),
    "for (u, v) in edges(A) by -key[u] bound m total bound n * m { c += 1 }":
        ("for_edges", "m", "n * m"),
}


@pytest.mark.parametrize("body", sorted(FORMS))
def test_each_form_parses_and_lowers(body: str) -> None:
    (stmt,) = parse(H + DECLS + body + "\n").body
    assert stmt.total is not None
    kind, bound, total = FORMS[body]
    (loop,) = _loops(_load(body + "\n"))
    assert loop.kind == kind
    assert size_text(loop.bound) == bound
    assert size_text(loop.total) == total


def test_whp_stays_with_a_total() -> None:
    (loop,) = _loops(_load("while j < n bound n whp total bound 2 * n { j += 1 }\n"))
    assert loop.whp


def test_total_is_a_name_elsewhere() -> None:
    """`total` is a keyword only after a loop's header: data may still be called `total`."""
    alg = _load("while j < n total bound n { j += 1; total += 1 }\n",
                DECLS + "output graph total: scalar := 0\n")
    (loop,) = _loops(alg)
    assert size_text(loop.total) == "n"


ERRORS = [
    # (body, code, line, column, message fragment)
    ("while j < n total bound key[0] { j += 1 }", "E601", 9, 25,
     "the total loop bound must be an expression in n and m"),
    ("while j < n total bound j { j += 1 }", "E601", 9, 25, "total loop bound"),
    ("for x in j .. n total bound i { c += 1 }", "E601", 9, 29, "total loop bound"),
    ("while j < n bound n total bound key[1] { j += 1 }", "E601", 9, 33, "total loop bound"),
    ("while j < n { j += 1 }", "E604", 9, 1, "needs a worst-case bound"),
    ("for x in 0 .. j { c += 1 }", "E602", 9, 15, "end of a range"),
    ("while j < n total bound n bound n { j += 1 }", "E002", 9, 27,
     "`total bound` comes last"),
    ("while j < n total bound n whp { j += 1 }", "E002", 9, 27, "`total bound` comes last"),
    ("for x in 0 .. j total bound n step 2 { c += 1 }", "E002", 9, 31,
     "`total bound` comes last"),
    ("for x in nodes by key total bound n { c += 1 }", "E002", 9, 23, "takes no bound"),
    ("while j < n total n { j += 1 }", "E002", 9, 19, "unexpected"),
]


@pytest.mark.parametrize("body,code,line,column,fragment", ERRORS)
def test_mistakes_are_one_diagnostic_where_they_are(body: str, code: str, line: int,
                                                   column: int, fragment: str) -> None:
    with pytest.raises(AlgError) as e:
        _load(body + "\n")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == (code, line, column), d.concise_block()
    assert fragment in d.message + (d.help or "")


def test_a_total_in_a_procedure_is_checked_where_it_is_called() -> None:
    with pytest.raises(AlgError) as e:
        _load("proc walk(t) {\n  while j < t total bound key[0] { j += 1 }\n}\nwalk(2)\n")
    assert [d.code for d in e.value.diagnostics] == ["E601"]


# ------------------------------------------------------------------ the interpreter
# An inner loop under an outer one: `LIMIT` trips per outer trip, n outer trips.
NESTED = "record\nfor x in 0 .. n {\n  j = 0\n  while j < LIMIT total bound TOTAL { j += 1; c += 1 }\n}\n"


def _keys(B: int, n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((B, n))


def test_an_inner_loop_counts_its_trips_over_the_run() -> None:
    n = 6
    alg = _load(NESTED.replace("LIMIT", "1").replace("TOTAL", "n"))
    traj = alg.run({"key": _keys(3, n)}, n)
    assert (traj.hints["c"][0] == 0).all()
    _, probes = alg.trace(key=_keys(1, n)[0])
    assert float(np.asarray(probes["hint"]["graph"]["c"]["data"])[-1]) == 0.0


def test_exceeding_the_total_faults_with_r112_and_the_size() -> None:
    n = 4
    alg = _load(NESTED.replace("LIMIT", "2").replace("TOTAL", "n"))
    with pytest.raises(RuntimeFault) as e:
        alg.run({"key": _keys(2, n)}, n)
    d = e.value.diagnostic
    assert d.code == "R112"
    assert (d.span.line, d.span.column) == (12, 3)
    assert "total loop bound exceeded: more than 4 iterations over the run " \
           "(`total bound n` at n = 4)" in d.message


def test_one_execution_past_a_lone_total_is_r112_not_r102() -> None:
    alg = _load("record\nwhile j < 2 * n total bound n { j += 1 }\n")
    with pytest.raises(RuntimeFault) as e:
        alg.run({"key": _keys(1, 3)}, 3)
    assert e.value.diagnostic.code == "R112"


def test_the_fault_names_the_sample_that_exceeds() -> None:
    """Trips are counted per lane: a sample within its total runs beside one beyond it."""
    n = 4
    alg = _load("record\nfor x in 0 .. n {\n  j = 0\n"
                "  while j < n and key[j] < 0.5 total bound n { j += 1 }\n}\n")
    fine = np.full(n, 0.9)
    many = np.array([0.1, 0.1, 0.9, 0.9])  # two trips per outer trip: 2n in all
    alg.run({"key": np.stack([fine, fine])}, n)
    with pytest.raises(RuntimeFault) as e:
        alg.run({"key": np.stack([fine, many, fine])}, n)
    assert (e.value.diagnostic.code, e.value.sample) == ("R112", 1)


def test_counters_start_at_zero_for_each_sample_and_run() -> None:
    """n trips per sample: many samples in a batch, and runs one after another, never add up."""
    n = 5
    alg = _load(NESTED.replace("LIMIT", "1").replace("TOTAL", "n"))
    for _ in range(3):
        alg.run({"key": _keys(8, n)}, n)
        alg.trace(key=_keys(1, n)[0])


PROC = ("proc walk(t) {\n  let k = 0\n  while k < t total bound n { k += 1; c += 1 }\n}\n"
        "record\nwalk(A1)\nwalk(A2)\n")


def test_a_procedure_s_loop_counts_over_all_its_call_sites() -> None:
    """Inlined at two call sites, the source loop has one count: 2 + 2 <= 4, 3 + 3 > 4."""
    n = 4
    _load(PROC.replace("A1", "2").replace("A2", "2")).run({"key": _keys(1, n)}, n)
    with pytest.raises(RuntimeFault) as e:
        _load(PROC.replace("A1", "3").replace("A2", "3")).run({"key": _keys(1, n)}, n)
    assert e.value.diagnostic.code == "R112"
    assert e.value.diagnostic.span.line == 11  # the loop in the procedure


REC = ("proc down(t) depth n + 1 calls n + 1 {\n  if t > 0 {\n    let k = 0\n"
       "    while k < STEP total bound n { k += 1; c += 1 }\n    down(t - 1)\n  }\n}\n"
       "record\ndown(n)\n")


def test_a_recursive_procedure_s_loop_counts_over_all_its_frames() -> None:
    n = 4
    _load(REC.replace("STEP", "1")).run({"key": _keys(2, n)}, n)
    with pytest.raises(RuntimeFault) as e:
        _load(REC.replace("STEP", "2")).run({"key": _keys(2, n)}, n)
    assert e.value.diagnostic.code == "R112"


def _same(a, b) -> None:
    np.testing.assert_equal(a, b)


def test_kmp_with_a_total_traces_as_with_a_bound() -> None:
    """The amortised KMP failure function: its trace is that of the per-execution bound."""
    with_total = algspec.load(PROGRAMS / "kmp_failure_total.alg")
    plain = algspec.load(PROGRAMS / "kmp_failure.alg")
    rng = np.random.default_rng(3)
    for n in (2, 5, 9, 16):
        for s in (rng.integers(0, 3, n), np.zeros(n, int), np.arange(n) % 2):
            _same(with_total.trace(s=s), plain.trace(s=s))
    traj_a = with_total.sample(n=12, batch_size=16, seed=4)
    traj_b = plain.sample(n=12, batch_size=16, seed=4)
    _same(traj_a.hints, traj_b.hints)
    _same(traj_a.outputs, traj_b.outputs)


@pytest.mark.parametrize("loop", [
    "for x in j .. n bound n TOTAL { c += key[x] }",
    "for (u, v) in edges(A) TOTAL { c += 1 }",
    "for x in 0 .. n step 2 TOTAL { c += key[x] }",
])
def test_a_total_that_holds_changes_no_trace(loop: str) -> None:
    body = "record\nfor y in 0 .. n {\n  j = y\n  LOOP\n  record\n}\n"
    with_total = _load(body.replace("LOOP", loop.replace("TOTAL", "total bound n * n + n * m")))
    plain = _load(body.replace("LOOP", loop.replace("TOTAL", "")))
    rng = np.random.default_rng(5)
    for n in (3, 6):
        key = rng.random(n)
        A = (rng.random((n, n)) < 0.5).astype(float)
        _same(with_total.trace(key=key, A=A), plain.trace(key=key, A=A))


# ------------------------------------------------------------------ YAML form and identity
def test_the_yaml_form_keeps_the_total() -> None:
    path = PROGRAMS / "kmp_failure_total.alg"
    source = path.read_text()
    yaml_text = to_yaml(source, str(path))
    assert "total bound n" in yaml_text
    back = algspec.load_source(to_alg_text(yaml_text, "t.yaml"), "t.alg")
    alg = algspec.load(path)
    assert spec_hash(back.spec, back.ir) == spec_hash(alg.spec, alg.ir)
    (loop,) = [s for s in _loops(back) if s.kind == "while"]
    assert size_text(loop.total) == "n"


def test_programs_without_a_total_keep_their_ir_and_spec_hash() -> None:
    """`total` is new: loops without it serialise as before (no `total` key), so spec hashes
    published before it are unchanged; a declared total changes the hash."""
    plain = algspec.load(PROGRAMS / "kmp_failure.alg")
    assert spec_hash(plain.spec, plain.ir) == \
        "08397f18a5ae57c6690b7c3b7b549505a9adb5652fdd45040a2a967443d68ddc"
    dumped = json.loads(plain.ir.model_dump_json())
    assert '"total"' not in json.dumps(dumped)
    alg = _load("while j < n bound n { j += 1 }\nfor x in 0 .. n { c += 1 }\n"
                "for (u, v) in edges(A) { c += 1 }\n")
    assert all("total" not in json.loads(s.model_dump_json()) for s in _loops(alg))
    with_total = algspec.load(PROGRAMS / "kmp_failure_total.alg")
    assert spec_hash(with_total.spec, with_total.ir) != spec_hash(plain.spec, plain.ir)


def test_loop_sites_name_the_source_loop() -> None:
    """The copies of a procedure's loop (two call sites) share their site; other loops don't."""
    alg = _load(PROC.replace("A1", "1").replace("A2", "1") +
                "while j < n total bound n { j += 1 }\n")
    loops = _loops(alg)
    assert len(loops) == 3 and len({s.id for s in loops}) == 3
    assert len({ir.loop_site(s) for s in loops}) == 2
