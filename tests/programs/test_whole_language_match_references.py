"""Programs covering the whole language (tests/corpus/language/*.alg) and the bugs they found.

Each program is checked against an independent plain-Python/networkx reference
(tests/corpus/language/lang_refs.py) through `sampler(...).next(B)` and through `trace` of every
sample alone (batched == single, Feedback names/shapes/dtypes/encodings as the spec says);
one-mistake variants must give one `path:line:col: CODE message` diagnostic, no traceback.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.diagnostics import AlgError, RuntimeFault

HERE = Path(__file__).resolve().parents[1] / "corpus" / "language"
from tests.support import corpus_expectations as corpus
from tests.support.feedback_check import compare
from tests.support.language_refs import REFERENCES

FILES = corpus.folder("language")  # each names its reference in its header
PROGRAMS = sorted(FILES)
# the sizes a file's header asks for (`# expect sizes:`; naive_match: a needle of 1 needs
# n >= 3, CLRS's matcher)
SIZES = {name: e.sizes for name, e in FILES.items() if e.sizes is not None}


def test_every_program_has_a_reference() -> None:
    assert len(PROGRAMS) >= 25 and set(PROGRAMS) <= set(REFERENCES)
    assert all(FILES[name].reference == f"language/{name}" for name in PROGRAMS)
    assert SIZES == {"naive_match": (3, 5, 16)}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_reference_batched_and_single(name: str) -> None:
    alg = algspec.load(FILES[name].path)
    sizes = SIZES.get(name, (1, 2, 5, 16))
    ref = corpus.reference_of(FILES[name].path)
    for k, n in enumerate(sizes):
        compare(alg, name, n, (1, 7, 2, 3)[k], seed=k, ref=ref)


def test_heap_build_leaves_a_min_heap() -> None:
    alg = algspec.load(HERE / "heap_build.alg")
    t = alg.sample(9, 20, seed=4)
    for b in range(20):
        key, h = t.inputs["key"][b], t.outputs["heap"][b].astype(int)
        size = 9 - 3
        assert sorted(h) == list(range(9))
        assert all(key[h[(c - 1) // 2]] <= key[h[c]] for c in range(1, size))
        assert set(h[size:]) == set(np.nonzero(t.outputs["taken"][b])[0])


def test_luby_output_is_a_maximal_independent_set() -> None:
    alg = algspec.load(HERE / "luby_whp.alg")
    t = alg.sample(12, 20, seed=5)
    for b in range(20):
        A = t.inputs["A"][b] != 0
        s = t.outputs["mis"][b] != 0
        np.fill_diagonal(A, False)
        assert not (A & np.outer(s, s)).any()                 # independent
        assert all(s[v] or (A[v] & s).any() for v in range(12))  # maximal


def test_floyd_warshall_hint_masks_unreachable_pairs() -> None:
    """`masked where D[u, v] == inf` reads the datum's own stored value."""
    alg = algspec.load(HERE / "floyd_warshall.alg")
    A = np.array([[0, 0.5, 0], [0, 0, 0.25], [0, 0, 0]])
    out, probes = alg.trace(A=A)
    D = probes["hint"]["edge"]["D"]["data"]
    np.testing.assert_allclose(D[-1], [[0, 0.5, 0.75], [-1, 0, 0.25], [-1, -1, 0]])
    np.testing.assert_array_equal(out["reach"], [[1, 1, 1], [0, 1, 1], [0, 0, 1]])


# ---------------------------------------------------------------- edge cases

MASKED_SELF = """algorithm masked_self
nodes n
graph complete

input  node key: scalar ~ uniform()
output node best: scalar = d masked where d == inf
hint   node d: scalar masked where d == inf
forall v where key[v] < 0.5 { d[v] = inf }
record
"""


def test_masked_where_may_read_its_own_stored_value() -> None:
    """It was E107 "`d` is defined from itself", though a stored datum is no view."""
    alg = algspec.load_source(MASKED_SELF, "masked_self.alg")
    out, probes = alg.trace(key=[0.25, 0.75, 0.5])
    np.testing.assert_array_equal(out, [-1, 0, 0])
    np.testing.assert_array_equal(probes["hint"]["node"]["d"]["data"], [[-1, 0, 0]])


def test_a_view_masked_by_itself_stays_an_error() -> None:
    src = MASKED_SELF.replace("output node best: scalar = d masked where d == inf",
                              "output node best: scalar = d masked where best == 0.0")
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "v.alg")
    assert str(e.value).startswith("v.alg:6:43: E107 ")


BAD_INPUTS = [  # (program, inputs, message)
    ("cycle_walk", {"key": [.1, .2, .3], "nxt": [1, 2, 0], "start": 3}, "`start` is pointer.*0..2"),
    ("cycle_walk", {"key": [.1, .2, .3], "nxt": [1, 2, 0], "start": 1.5}, "`start`.*whole numbers"),
    ("cycle_walk", {"key": [.1, .2, .3], "nxt": [1, 2, 5], "start": 0}, "`nxt` is pointer.*got 5"),
    ("kmp_failure", {"s": [0, 1, 0.5]}, "`s` is categorical.*whole numbers"),
    ("kmp_failure", {"s": [0, 3, 1]}, "`s` is categorical.*class indices in 0..2"),
    ("bfs_edges", {"s": [1, 1, 0], "A": np.ones((3, 3))}, "`s` is mask_one.*exactly one"),
    ("bfs_edges", {"s": [0, 0, 0], "A": np.ones((3, 3))}, "`s` is mask_one.*exactly one"),
    ("bfs_edges", {"s": [1, 0, 0], "A": [[0, 2, 0], [1, 0, 0], [0, 0, 0]]}, "`A` is mask.*0 or 1"),
    ("list_rank", {"prev": [0, 0, np.nan]}, "`prev` is should_be_permutation.*whole"),
]


@pytest.mark.parametrize(("name", "inputs", "match"), BAD_INPUTS)
def test_trace_rejects_values_the_input_type_cannot_hold(name: str, inputs: dict,
                                                         match: str) -> None:
    """Pointers 1.5 and classes 0.5 ran truncated; pointer 3 of 3 nodes faulted (R101) at a
    read that did not name the input; a mask 2 ran as true; mask_one gave R106, no ValueError."""
    alg = algspec.load(HERE / f"{name}.alg")
    with pytest.raises(ValueError, match=match):
        alg.trace(**inputs)


def test_int_of_inf_is_a_fault_not_an_arbitrary_integer() -> None:
    """`int(inf)` was numpy's cast: -9223372036854775808, with only a RuntimeWarning."""
    src = ("algorithm to_int\nnodes n\ngraph complete\n\ninput node key: scalar ~ uniform()\n"
           "output node o: scalar = x\nstate node x: int\n"
           "forall v where key[v] > 0.5 { x[v] = int(1.0 / (key[v] - 0.75)) }\n")
    alg = algspec.load_source(src, "to_int.alg")
    np.testing.assert_array_equal(alg.trace(key=[0.25, 1.0, 0.5])[0], [0, 4, 0])  # guarded
    with pytest.raises(RuntimeFault) as e:
        alg.trace(key=[0.25, 0.75, 0.5])
    assert str(e.value).startswith("to_int.alg:8:38: R109 ")
    for f in ("floor", "ceil"):
        with pytest.raises(RuntimeFault, match="R109"):
            algspec.load_source(src.replace("int(1.0", f"{f}(1.0"), "f.alg").trace(
                key=[0.75, 0.75, 0.75])


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("key, code", [([0.5, 0.25], "R114"), ([2.0, 3.0], "R104")])
def test_float_floor_division_and_modulo_by_zero_warn_nothing(op, key, code) -> None:
    """Floats compute on integer values: a fraction is R114, a zero divisor R104, each one
    clean fault without a numpy warning."""
    src = ("algorithm fdiv\nnodes n\ngraph complete\n\ninput node key: scalar ~ uniform()\n"
           "output node q: scalar = a\nstate node a: float\n"
           f"forall v {{ a[v] = key[v] {op} 0.0 }}\n")
    alg = algspec.load_source(src, "fdiv.alg")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeFault) as err:
            alg.trace(key=key)
    assert err.value.diagnostic.code == code


def test_replay_with_private_inputs_passes_the_stored_derived_inputs() -> None:
    """The README's replay recipe over `primary_inputs` names the private draws, which a
    dataset does not store; its derived inputs replay the sample bit for bit."""
    alg = algspec.load(HERE / "own_pos.alg")
    assert alg.primary_inputs == ["a", "b"]
    t = alg.sample(5, 3, seed=2)
    assert "a" not in t.inputs
    for b in range(3):
        _, probes = alg.trace(n=5, lo=t.inputs["lo"][b], hi=t.inputs["hi"][b])
        T = int(t.lengths[b])
        assert np.array_equal(np.float32(probes["hint"]["node"]["w"]["data"]), t.hints["w"][:T, b])


# ---------------------------------------------------------------- wrong variants

WRONG = [  # (program, old, new, code, line, column)
    ("insertion_sort", "> key[k] bound n {", "> key[k] {", "E604", 20, 5),
    ("union_find_rec", "proc find(x) depth n + 1 {", "proc find(x) {", "E703", 16, 1),
    ("merge_sort_rec", "depth ceil(log2(n)) + 2 calls 2 * n {", "depth ceil(log2(n)) + 2 {",
     "E703", 34, 1),
    ("selection_inc", '"lib/swap.alg"', '"lib/swapp.alg"', "E704", 19, 1),
    ("heap_build", "    sift_up(i)\n", "    sift_up(i, 2)\n", "E702", 43, 5),
    ("bfs_edges", "nxt[v] = true by any", "nxt[v] = true", "E401", 27, 9),
    ("bfs_edges", "pi_h[v] = u by argmin u", "pi_h[v] = u by argmin", "E402", 26, 24),
    ("bellman_argmin", "hint   node d: scalar masked", "state  node d: float masked",
     "E105", 14, 35),
    ("prefix_max_scan", "step = step << 1\n", "step = step << 1.0\n", "E205", 24, 20),
    ("kmp_failure", "categorical(3) ~ random_string(chars = 3)",
     "categorical(2) ~ random_string(chars = 3)", "E110", 9, 31),
    ("counting_sort", "hint   graph nxt: categorical(4)", "hint   graph nxt: mask_one",
     "E103", 12, 1),
    ("cycle_walk", "input  graph start: pointer", "input  node start: pointer", "E104", 11, 28),
    ("list_rank", "    round {\n", "    round {\n        record\n", "E501", 19, 9),
    ("int_prefix", "state  graph run: int = 0", "state  graph N: int = 0", "E109", 15, 14),
    ("subtree_size", "visit(c, d + 1)", "visit(c, d + 1.5)", "E205", 23, 22),
    ("naive_match", "found[sh] = ok", "found[sh, sh] = ok", "E202", 27, 9),
    ("reach_closure", "changed = true by any", "changed = 1 by any", "E205", 23, 19),
    ("bits", "forall v { g[v] = v ^ (v >> 1) }",
     "forall v { forall u { g[v] = v ^ (v >> 1) } }", "E502", 19, 12),
    ("quicksort_rec", "    qsort(lo, i)\n", "    round { qsort(lo, i) }\n", "E708", 24, 13),
    ("lcs_dp", "string_split()", "string_split(length_2 = 0.5)", "E105", 10, 25),
]


@pytest.mark.parametrize(("name", "old", "new", "code", "line", "col"), WRONG,
                         ids=[f"{w[0]}-{w[3]}" for w in WRONG])
def test_wrong_variant_gives_one_clear_diagnostic(name: str, old: str, new: str, code: str,
                                                  line: int, col: int, tmp_path: Path) -> None:
    src = (HERE / f"{name}.alg").read_text()
    assert src.count(old) == 1
    (tmp_path / "lib").mkdir()
    for lib in (HERE / "lib").glob("*.alg"):
        (tmp_path / "lib" / lib.name).write_text(lib.read_text())
    path = tmp_path / f"{name}.alg"
    path.write_text(src.replace(old, new))
    with pytest.raises(AlgError) as e:
        algspec.load(path)
    assert str(e.value).startswith(f"{path}:{line}:{col}: {code} "), str(e.value)
    res = CliRunner().invoke(app, ["lint", str(path)], env={"ALGSPEC_NO_CACHE": "1"})
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.output.startswith(f"{path}:{line}:{col}: {code} "), res.output
