"""A file names its graph family: `erdos_renyi(family = delaunay)`, a bare identifier.

It was E105 (the language has no string values), so only `--param A.family=...` could
choose a family. The file's choice is now part of the program; the command line and
Python still override it.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.diagnostics import AlgError
from algspec.generators import GENERATORS
from algspec.generators.families import family_names

ROOT = Path(__file__).resolve().parents[2]
BFS_DELAUNAY = ROOT / "tests" / "corpus" / "language" / "bfs_delaunay.alg"

SRC = """algorithm fam
nodes n
graph complete

input edge A: mask ~ erdos_renyi({args})
output node deg: scalar
forall v {{ deg[v] = sum(1.0 for u in nodes if A[v, u]) }}
record
"""


def _load(args: str):
    return algspec.load_source(SRC.format(args=args), "fam.alg")


def _only(args: str):
    with pytest.raises(AlgError) as e:
        _load(args)
    [d] = e.value.diagnostics
    return d


def _graphs(a: np.ndarray) -> list[nx.Graph]:
    return [nx.from_numpy_array(np.asarray(x != 0, dtype=int)) for x in a]


def test_a_family_named_in_the_file_draws_that_family() -> None:
    named = _load("family = delaunay").generate(14, 6, rng=3)["A"]
    switched = _load("").generate(14, 6, rng=3, A__family="delaunay")["A"]
    np.testing.assert_array_equal(named, switched)
    for g in _graphs(named):
        assert nx.is_connected(g) and nx.check_planarity(g)[0]
        assert 2 * 14 - 3 <= g.number_of_edges() <= 3 * 14 - 6  # a triangulation


def test_the_command_line_and_python_override_the_files_family() -> None:
    grid = _load("family = delaunay").generate(16, 3, rng=0, A__family="grid")["A"]
    np.testing.assert_array_equal(grid, _load("family = grid").generate(16, 3, rng=0)["A"])
    assert all(g.number_of_edges() == 24 for g in _graphs(grid))  # the 4 x 4 grid
    er = _load("family = delaunay").generate(16, 3, rng=0, family="er")["A"]
    np.testing.assert_array_equal(er, _load("").generate(16, 3, rng=0)["A"])


def test_other_name_parameters_take_identifiers_too() -> None:
    src = SRC.format(args="").replace(
        "mask ~ erdos_renyi()", "scalar ~ delaunay(weights = euclidean, weighted = true)"
    ).replace("if A[v, u]", "if A[v, u] > 0.0")
    w = algspec.load_source(src, "fam.alg").generate(9, 2, rng=0)["A"]
    assert 0 < w[w > 0].min() and w.max() < np.sqrt(2)  # lengths in the unit square


def test_an_unknown_family_is_e105_at_the_name_listing_the_families() -> None:
    d = _only("p = 0.3, family = delanay")
    assert d.code == "E105", d.concise()
    line = SRC.format(args="p = 0.3, family = delanay").splitlines()[4]
    assert (d.span.line, d.span.column) == (5, line.index("delanay") + 1), d.concise()
    assert "`delanay` is not a `family` of generator `erdos_renyi`" in d.message
    assert "one of: " + ", ".join(family_names()) in d.message


@pytest.mark.parametrize(("args", "fragment"), [
    ("family = 3", "takes a name, one of: er, sparse_er"),
    ("family = n", "`n` is not a `family`"),
    ("p = delaunay", "must be a constant or an expression in n"),
])
def test_a_name_where_none_belongs_and_a_number_for_a_name_are_e105(args: str,
                                                                  fragment: str) -> None:
    d = _only(args)
    assert d.code == "E105" and fragment in d.message, d.concise()


def test_writing_the_default_family_keeps_the_spec_hash() -> None:
    plain, er = _load("p = 0.3"), _load("p = 0.3, family = er")
    assert plain.spec_hash() == er.spec_hash()
    assert _load("p = 0.3, family = grid").spec_hash() != plain.spec_hash()


def test_every_name_parameter_lists_its_names() -> None:
    """A parameter whose default is a name has a `names` table: the default, and every name
    valid where the checks accept it, so the lowering can list them."""
    for name, gen in GENERATORS.items():
        named = {k for k, v in gen.defaults.items() if isinstance(v, str)}
        assert set(gen.names) == named, name
        for key, names in gen.names.items():
            assert names and names[0] == gen.defaults[key] and len(set(names)) == len(names)
            if key == "family":
                assert list(names) == family_names()


def test_corpus_file_with_its_family_samples_delaunay_and_the_cli_override_wins(
        tmp_path: Path) -> None:
    alg = algspec.load(BFS_DELAUNAY)
    [decl] = [d for d in alg.ir.decls if d.name == "A"]
    assert decl.generator.params["family"] == "delaunay"
    a = alg.generate(12, 4, rng=1)["A"]
    assert all(nx.is_connected(g) and nx.check_planarity(g)[0] and g.number_of_edges() > 11
               for g in _graphs(a))
    out = tmp_path / "ds"
    r = CliRunner().invoke(app, ["sample", str(BFS_DELAUNAY), "-n", "9", "-k", "2", "--out",
                                 str(out), "--param", "A.family=path"])
    assert r.exit_code == 0, r.output
    with np.load(next(out.rglob("*.npz"))) as z:
        A = next(z[k] for k in z.files if k.endswith("A"))
    assert all(g.number_of_edges() == 8 and nx.is_tree(g) for g in _graphs(A))
