"""Sequential and graph programs written from the README (tests/corpus/sequential/*.alg) and the edge cases they pin.

Each program is checked against an independent plain-Python/networkx reference
(tests/corpus/sequential/refs.py) through the batched sampler and through `trace` of
every sample (batched == single, CLRS Feedback shapes/dtypes); wrong variants
must give one clear diagnostic, not a traceback.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.diagnostics import AlgError
from algspec.sampling.dataset import stored_trace_inputs

HERE = Path(__file__).resolve().parents[1] / "corpus" / "sequential"
from tests.support import corpus_expectations as corpus
from tests.support.feedback_check import compare
from tests.support.sequential_refs import REFERENCES

FILES = corpus.folder("sequential")  # each names its reference in its header
PROGRAMS = sorted(FILES)


def test_every_program_has_a_reference() -> None:
    assert len(PROGRAMS) >= 12 and set(PROGRAMS) <= set(REFERENCES)
    assert all(FILES[name].reference == f"sequential/{name}" for name in PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_reference_batched_and_single(name: str) -> None:
    alg = algspec.load(FILES[name].path)
    ref = corpus.reference_of(FILES[name].path)
    for n, batch, seed in ((1, 2, 0), (2, 3, 1), (5, 6, 2), (16, 3, 3)):
        compare(alg, name, n, batch, seed, ref)


# ---------------------------------------------------------------- edge cases

LINE_TIES = """algorithm line_ties
nodes n
graph complete
{x_decl}
input  edge w[u, v]: scalar = abs(x[u] - x[v])
output edge Pi: pointer = P
hint   edge D: scalar := w
hint   edge P: pointer := index
record
for k in 0 .. n {{
    forall i, j where D[i, k] + D[k, j] < D[i, j] {{
        D[i, j] = D[i, k] + D[k, j]
        P[i, j] = P[k, j]
    }}
    record
}}
"""


@pytest.mark.parametrize("x_decl", ["private node x: float ~ uniform()",
                                    "input node x: scalar ~ uniform()"])
def test_sample_replays_from_its_stored_derived_input(x_decl: str) -> None:
    """A float32 run computed on a derived float input in float64 but stored it rounded,
    so tracing the stored `w` (points on a line: every detour ties exactly) disagreed.
    The stored inputs `trace` takes are `w` where `x` is private, `x` and `w` where `x` is
    recorded (`w` then holds the stored rounding, checked against its definition)."""
    alg = algspec.load_source(LINE_TIES.format(x_decl=x_decl), "line_ties.alg")
    traj = alg.sample(8, 12, seed=0)
    for b in range(12):
        given = stored_trace_inputs(alg, traj, b)
        assert list(given) == (["w"] if "private" in x_decl else ["x", "w"])
        out, probes = alg.trace(**given)
        assert np.array_equal(out, traj.outputs["Pi"][b]), b
        T = int(traj.lengths[b])
        assert np.array_equal(probes["hint"]["edge"]["P"]["data"], traj.hints["P"][:T, b])


def test_trace_rejects_a_scalar_for_node_data_clearly() -> None:
    alg = algspec.load(HERE / "prefix_max.alg")
    with pytest.raises(ValueError, match="`key` is node data"):
        alg.trace(key=0.5)


def test_unknown_type_does_not_cascade_into_unknown_names() -> None:
    src = (HERE / "prefix_max.alg").read_text().replace(
        "hint   node at_h: pointer", "hint   node at_h: pointr")
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "p.alg")
    assert [d.code for d in e.value.diagnostics] == ["E102"]


# ---------------------------------------------------------------- wrong variants

WRONG = [  # (program, old, new, code, line)
    ("prefix_max", "m_h[i] = key[i]\n", "m_h[i] = key[i] and true\n", "E205", 19),
    ("dfs_stack", "pi_h[w] = u\n", "pi_h[w] = uu\n", "E206", 27),
    ("dfs_stack", "bound 2 * n", "bound top", "E601", 22),
    ("selection_sort", "a[i], a[mn] = a[mn], a[i]", "key[i] = 0.0", "E301", 19),
    ("count_inversions", "cnt += count", "partial = 1.0; cnt += count", "E302", 17),
    ("bfs_dist", "directed = true)", "directed = true, bogus = 2)", "E105", 9),
    ("lis", "        prv[i] = j\n    }\n", "        prv[i] = j\n", "E002", 23),
    ("gcd_all", "uniform_int(", "uniform_integer(", "E104", 7),
    ("kahn_topo", "{ indeg[v] -= 1 }", "{ u = v }", "E401", 23),
    ("fw_dist", "            D[i, j] = D[i, k]", "            D[i] = D[i, k]", "E202", 19),
    ("gcd_all", "euclid(g, int(val[i]))", "euclid(g)", "E702", 28),
    ("prefix_max", "\nrecord\n", "\nrecord; break\n", "E503", 16),
    ("prim_stable", "s: mask_one ~ source_node()", "s: mask_one ~ uniform()", "E110", 8),
    ("insertion_sort_ptr", "j -= 1", "j -= 1 $", "E001", 21),
    ("union_find", "proc find_b(x)", "proc find_a(x)", "E707", 22),
]


@pytest.mark.parametrize(("name", "old", "new", "code", "line"), WRONG,
                         ids=[f"{w[0]}-{w[3]}" for w in WRONG])
def test_wrong_variant_gives_one_clear_diagnostic(name: str, old: str, new: str, code: str,
                                                  line: int) -> None:
    src = (HERE / f"{name}.alg").read_text()
    assert src.count(old) == 1
    with pytest.raises(AlgError) as e:
        algspec.load_source(src.replace(old, new), f"{name}.alg")
    first = e.value.diagnostics[0]
    assert (first.code, first.span.line) == (code, line), str(e.value)
    assert str(e.value).startswith(f"{name}.alg:{line}:{first.span.column}: {code} ")


def test_wrong_variant_cli_exit_codes_and_no_partial_output(tmp_path: Path) -> None:
    from algspec.cli import app
    name, old, new, code, line = WRONG[1]
    bad = tmp_path / "bad.alg"
    bad.write_text((HERE / f"{name}.alg").read_text().replace(old, new))
    runner = CliRunner()
    for args, rc in ((["lint", str(bad)], 1), (["compile", str(bad)], 1),
                     (["sample", str(bad), "-n", "4", "-k", "2", "--out", str(tmp_path / "ds")], 1)):
        r = runner.invoke(app, args)
        assert r.exit_code == rc and "Traceback" not in r.output, (args, r.output)
        assert f"bad.alg:{line}:" in r.output and code in r.output
    assert not (tmp_path / "ds").exists()


FETCH_AND_ADD = """algorithm fetch_and_add
nodes n
graph input adj
input  edge A: mask ~ erdos_renyi(p = 0.5, directed = true)
input  edge adj: mask = adjacency(A)
output node left: scalar = float(indeg)
output graph tot: scalar = total
hint   node own: scalar := 5.0
state  node indeg: int = 100
state  graph total: float = 1.5
forall u, v where A[u, v] { indeg[v] += 2 by sum }
record
forall u, v where A[u, v] { indeg[v] -= 1 by sum }
round {
    forall v { total += 1.0 by sum }
    forall v where v > 0 { total -= 0.5 by sum }
}
forall v { own[v] += float(v) by sum }
record
"""


def test_compound_assignment_by_sum_adds_the_increments_once() -> None:
    """`x += e by sum` summed every writer's `x + e` (k x + sum e): 3 writers of
    `cnt += 1` on cnt = 10 gave 33, and `indeg[v] -= 1 by sum` from 100 gave k*99."""
    alg = algspec.load_source(FETCH_AND_ADD, "faa.alg")
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 9):
        A = (rng.random((n, n)) < 0.5).astype(float)
        np.fill_diagonal(A, 0)
        out, probes = alg.trace(A=A)
        assert np.array_equal(out["left"], 100 + A.sum(0))
        assert out["tot"] == pytest.approx(1.5 + n - 0.5 * (n - 1))
        assert np.array_equal(probes["hint"]["node"]["own"]["data"][-1], 5.0 + np.arange(n))


def test_sample_into_a_nonempty_folder_names_the_cli_flag(tmp_path: Path) -> None:
    from algspec.cli import app
    args = ["sample", str(HERE / "prefix_max.alg"), "-n", "3", "-k", "2", "--out",
            str(tmp_path / "ds")]
    assert CliRunner().invoke(app, args).exit_code == 0
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2 and "--overwrite" in r.output and "overwrite=True" not in r.output


@pytest.mark.parametrize("stage", ["input", "output", "hint", "state", "private"])
def test_declaration_after_the_body_began_says_so(stage: str) -> None:
    src = (HERE / "prefix_max.alg").read_text() + f"{stage} graph late: scalar\n"
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "late.alg")
    (d,) = e.value.diagnostics
    assert d.code == "E002" and "declarations come before the first statement" in d.message
    assert d.span.line == src.count("\n") and "above the body" in (d.help or "")


def test_fewer_nodes_than_items_is_a_diagnostic_not_an_internal_error(tmp_path: Path) -> None:
    """`nodes n - 1` with a node generator crashed inside numpy (broadcast ValueError),
    which lint, compile and sample reported as an internal error."""
    from algspec.cli import app
    from algspec.diagnostics import RuntimeFault
    src = ("algorithm few\nnodes n - 1\ngraph complete\n"
           "input node key: scalar ~ uniform()\noutput node o: scalar = key\nrecord\n")
    bad = tmp_path / "few.alg"
    bad.write_text(src)
    with pytest.raises(RuntimeFault) as e:
        algspec.load(bad).sample(5, 2, seed=0)
    assert e.value.diagnostic.code == "R101" and e.value.diagnostic.span.line == 4
    for cmd in (["lint"], ["sample", "-n", "4", "-k", "2", "--out", str(tmp_path / "ds")]):
        r = CliRunner().invoke(app, [cmd[0], str(bad), *cmd[1:]])
        assert r.exit_code == 1 and "few.alg:4:1: R101" in r.output, r.output
        assert "internal error" not in r.output
    assert not (tmp_path / "ds").exists()


def test_utf8_byte_order_mark_is_ignored() -> None:
    src = (HERE / "prefix_max.alg").read_text()
    alg = algspec.load_source("\ufeff" + src, "bom.alg")
    assert alg.spec == algspec.load_source(src, "p.alg").spec


def test_fetch_and_add_costs_what_the_explicit_update_costs() -> None:
    """`c[v] += 1.0 by sum` reads c like `c[v] = c[v] + 1.0`: not a free reset."""
    head = ("algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
            "output node o: scalar = c\nhint node c: scalar\nrecord\n")
    a = algspec.load_source(head + "forall v { c[v] += 1.0 by sum }\nrecord\n", "a.alg")
    b = algspec.load_source(head + "forall v { c[v] = c[v] + 1.0 }\nrecord\n", "b.alg")
    assert str(a.static_efficiency()).split(":", 1)[1] == \
        str(b.static_efficiency()).split(":", 1)[1]


@pytest.mark.parametrize(("decl", "n", "code"), [
    ("input node q: scalar ~ bst_q()", 4, "R101"),           # n + 1 values on `nodes n`
    ("input edge A: mask ~ community()", 3, "E105"),         # 4 communities on 3 nodes
    ("input edge A: mask ~ erdos_renyi(p = 2.0 / n)", 1, "E105"),
])
def test_inputs_that_cannot_be_drawn_are_diagnostics(tmp_path: Path, decl: str, n: int,
                                                     code: str) -> None:
    """These were ValueErrors from inside the draw: `lint`/`sample` called them internal
    errors ("a bug in algspec"); they are the file's (or the size's) problem."""
    from algspec.cli import app
    bad = tmp_path / "gen.alg"
    bad.write_text(f"algorithm gen\nnodes n\ngraph complete\n{decl}\n"
                   "output graph o: scalar\nrecord\no = 1.0\n")
    with pytest.raises(ValueError) as e:  # still a ValueError for Python callers
        algspec.load(bad).sample(n, 2, seed=0)
    assert f"gen.alg:4:1: {code} " in str(e.value)
    r = CliRunner().invoke(app, ["sample", str(bad), "-n", str(n), "-k", "2", "--out",
                                 str(tmp_path / "ds")])
    assert r.exit_code == 1 and f"gen.alg:4:1: {code} " in r.output, r.output
    assert "internal error" not in r.output and not (tmp_path / "ds").exists()
    if n > 1:  # compile samples at n = 16 and 64: the same diagnostic, exit 1
        r = CliRunner().invoke(app, ["compile", str(bad)])
        assert r.exit_code in (0, 1) and "internal error" not in r.output
        assert r.exit_code == 0 or f"gen.alg:4:1: {code} " in r.output, r.output


def test_node_count_below_one_is_a_diagnostic(tmp_path: Path) -> None:
    from algspec.cli import app
    bad = tmp_path / "n8.alg"
    bad.write_text("algorithm t\nnodes n // 8\ngraph complete\n"
                   "input graph g: scalar ~ uniform_scalar()\noutput graph o: scalar = g\nrecord\n")
    r = CliRunner().invoke(app, ["lint", str(bad)])
    assert r.exit_code == 1 and "n8.alg:2:7: E108 the node count is 0" in r.output, r.output
    with pytest.raises(ValueError, match="E108"):
        algspec.load(bad).sample(4, 2, seed=0)


def test_fetch_and_add_reads_its_target_for_lint() -> None:
    """As `total += 1.0` (sequential) reads total, so does `total += key[v] by sum`: no L101."""
    from algspec.lint import lint_source
    src = ("algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
           "output node o: scalar = key\nstate graph total: float = 0.0\nrecord\n"
           "forall v { total += key[v] by sum }\nrecord\n")
    assert not [d for d in lint_source(src, "t.alg", False) if d.code == "L101"]


def test_misfit_message_reads_an_edge() -> None:
    src = ("algorithm t\nnodes n\ngraph complete\n"
           "input edge A: mask ~ erdos_renyi(weighted = true)\noutput graph o: scalar\n"
           "record\no = 1.0\n")
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "w.alg")
    assert "which an edge `mask` input cannot hold" in str(e.value)
