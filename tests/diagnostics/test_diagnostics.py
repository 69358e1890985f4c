"""Diagnostics: one minimal malformed program per code, and the three renderings.

Each case asserts the code, the line and column the diagnostic points at, and
that its message says what is wrong. Every malformed program must fail with
`AlgError` (never another Python exception).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import algspec
from algspec import codes
from algspec.diagnostics import AlgError, Diagnostic, Severity, Span, render

H = "algorithm t\nnodes n\ngraph complete\n"
GX = "state graph x: int = 0\n"

# code -> (source, line, column, fragments the message must contain)
CASES: dict[str, tuple[str, int, int, tuple[str, ...]]] = {
    "E001": (H + GX + "x = 1 $ 2\n", 5, 7, ("unexpected character", "'$'")),
    "E002": (H + GX + "x = = 2\n", 5, 5, ("unexpected", "'='")),
    "E003": ("", 1, 1, ("empty file",)),
    "E004": (H + GX + "x = " + "-" * 5000 + "1\n", 5, 1, ("nested too deeply",)),
    "E101": (H + GX + "state node x: int = 0\n", 5, 12, ("`x`", "declared twice")),
    "E102": (H + "hint node h: banana\n", 4, 1, ("unknown type", "`banana`")),
    "E103": (H + "hint graph h: mask_one\n", 4, 1, ("mask_one", "node or edge")),
    "E104": (H + "input node k: scalar ~ gaussian(mu = 0)\n", 4, 22,
             ("unknown generator", "`gaussian`")),
    "E105": (H + "input node k: scalar ~ uniform(lo = 0.0)\n", 4, 22, ("'lo'",)),
    "E106": (H + "input node k: scalar\n", 4, 1, ("`k`", "generator")),
    "E107": (H + "state node s: float = 0.0\ninput node k: scalar = s\n", 5, 24,
             ("`k`", "`s`", "inputs may only depend on inputs")),
    "E108": (H.replace("complete", "input B") + "input edge A: scalar ~ erdos_renyi()\n", 3, 13,
             ("graph input B", "edge mask")),
    "E109": (H + "state graph n: int = 0\n", 4, 13, ("`n`", "reserved")),
    "E110": (H + "input node s: mask_one ~ uniform()\n", 4, 24, ("`uniform`", "mask_one")),
    "E201": (H + GX + "state node a: int = 0\nx = a\n", 6, 5, ("`a` is node data", "index it")),
    "E202": (H + GX + "state node a: int = 0\nx = a[0, 1]\n", 6, 5, ("`a`", "1 index, not 2")),
    "E203": (H + GX + "state node a: int = 0\nx = a[0.5]\n", 6, 7, ("integer", "float")),
    "E204": (H + "hint node p: pointer\nstate graph y: float = 0.0\ny = p[0] * 0.5\n", 6, 5,
             ("`p` is a pointer", "number")),
    "E205": (H + GX + "x = true\n", 5, 5, ("bool", "cannot be stored as int")),
    "E206": (H + GX + "x = y + 1\n", 5, 5, ("unknown name", "`y`")),
    "E207": (H + GX + "x = frob(1)\n", 5, 5, ("unknown function", "`frob`")),
    "E301": (H + "input node k: scalar ~ uniform()\nforall v { k[v] = 0.0 }\n", 5, 12,
             ("`k` is an input", "cannot be written")),
    "E302": (H + GX + "hint node h: mask_one = onehot(x)\nforall v { h[v] = false }\n", 6, 12,
             ("`h`", "view")),
    "E303": (H + GX + "state graph y: int = 0\nx, y = 1\n", 6, 1, ("2 targets", "1 value")),
    "E401": (H + GX + "forall v { x = v }\n", 5, 12, ("`x`", "concurrently")),
    "E402": (H + GX + "forall v { x = v by first }\n", 5, 21, ("unknown combiner", "`first`")),
    "E403": (H + GX + "x = 1 by min\n", 5, 10, ("`by min`", "sequential")),
    "E404": (H + GX + "round { forall v { x = v by sum }\n forall v { x = v by max } }\n", 6, 13,
             ("`x`", "`by sum` (line 5)", "`by max`")),
    "E501": (H + GX + "round { record }\n", 5, 9, ("`record`", "round")),
    "E502": (H + "state node a: int = 0\nround { forall v { forall u { a[v] = 1 } } }\n", 5, 20,
             ("`forall`", "nested")),
    "E503": (H + GX + "break\n", 5, 1, ("`break`", "outside a loop")),
    "E601": (H + GX + "while x < 3 bound x { x += 1 }\n", 5, 19, ("bound", "n and m")),
    "E602": (H + GX + "state graph y: int = 3\nfor i in 0 .. y { x += 1 }\n", 6, 15,
             ("end of a range", "n and m")),
    "E604": (H + GX + "while x < 3 { x += 1 }\n", 5, 1, ("`while`", "bound")),
    "E606": (H + GX + "for i in 0 .. n step -1 { x += i }\n", 5, 22, ("`step -1` counts down",)),
    "E607": (H + GX + "for (u, v) in edges(x) { x += u }\n", 5, 21, ("edge array",)),
    "E701": (H + GX + "f(1)\n", 5, 1, ("unknown procedure", "`f`")),
    "E702": (H + GX + "proc f(a) { x = a }\nf(1, 2)\n", 6, 1, ("`f` takes 1 argument", "not 2")),
    "E703": (H + GX + "proc f(a) { f(a) }\nf(1)\n", 5, 1, ("recursive", "depth")),
    "E704": (H + GX + 'include "no_such_file.alg"\n', 5, 1, ("cannot include",)),
    "E705": (H + GX + 'include "bad.alg"\n', 5, 1, ("include cycle",)),
    "E706": (H + GX + "if x > 0 { proc f() { x = 1 } }\n", 5, 12, ("top level",)),
    "E707": (H + GX + "proc f() { x = 1 }\nproc f() { x = 2 }\n", 6, 1, ("defined twice",)),
    "E708": (H + GX + "proc f() { record }\nround { f() }\n", 5, 12, ("inside a round",)),
    "E709": (H + GX + "return 1\n", 5, 1, ("`return` outside a procedure",)),
    "E710": (H + GX + "proc f(a) {\n  return a\n}\nwhile f(x) < 3 bound n { x += 1 }\n", 8, 7,
             ("`f(...)`", "`while` condition")),
    "E711": (H + GX + "proc f(a) depth n {\n  return f(a)\n}\nx = f(1)\n", 5, 1,
             ("returns a value and is recursive",)),
}


def diagnostics(source: str, path: str = "bad.alg") -> list[Diagnostic]:
    with pytest.raises(AlgError) as e:
        algspec.load_source(source, path)
    assert e.value.diagnostics
    return e.value.diagnostics


def only(source: str, path: str = "bad.alg") -> Diagnostic:
    ds = diagnostics(source, path)
    assert len(ds) == 1, [d.concise() for d in ds]
    return ds[0]


# The errors of loading a file (the parser's and the lowering checks'; E605 is the
# efficiency analysis's), from the code registry.
# E006 refuses a file before its text is read (a FIFO, a huge file): `FILE_CASES` in
# test_diagnostic_codes.py.
LOAD_ERRORS = {k for k, c in codes.CODES.items()
               if k.startswith("E") and c.source in ("parser", "checks")} - {"E006"}


def test_every_documented_code_has_a_case() -> None:
    assert set(CASES) == LOAD_ERRORS


@pytest.mark.parametrize("code", sorted(CASES))
def test_code(code: str) -> None:
    src, line, col, fragments = CASES[code]
    d = only(src)
    assert d.code == code, d.concise()
    assert (d.span.line, d.span.column) == (line, col), d.concise()
    assert d.severity == Severity.ERROR and d.path == "bad.alg"
    for f in fragments:
        assert f in d.message, (f, d.message)
    lines = src.split("\n")
    if src.strip():
        assert d.span.column <= len(lines[d.span.line - 1]) + 1


@pytest.mark.parametrize("code", sorted(CASES))
def test_full_rendering_shows_the_line_and_a_caret(code: str) -> None:
    src, line, col, _ = CASES[code]
    d = only(src)
    out = d.full(src).splitlines()
    assert out[0] == f"error[{code}]: {d.message}"
    assert out[1] == f"  --> bad.alg:{line}:{col}"
    if not src.strip():
        return
    assert out[2] == "   | " + src.split("\n")[line - 1]
    caret = out[3][len("   | "):]
    assert caret.index("^") == col - 1 and set(caret.strip()) == {"^"}
    if d.span.end_line == d.span.line:
        assert len(caret.strip()) == max(1, d.span.end_column - d.span.column)


# ---------------------------------------------------- variants from the brief
def test_e001_e002_syntax_errors_name_what_was_expected() -> None:
    d = only(H + GX + "if x < 1 {\n  x = 2\n")
    assert d.code == "E002" and "end of file" in d.message and "'}'" in d.help
    d = only(H + "state graph x int = 0\n")
    assert (d.code, d.span.line, d.span.column) == ("E002", 4, 15) and "':'" in d.help


@pytest.mark.parametrize("src", ["", "   ", "\n\n\t\n"])
def test_empty_file(src: str) -> None:
    d = only(src)
    assert (d.code, d.span.line, d.span.column) == ("E003", 1, 1)
    assert "algorithm" in d.message and "algorithm" in d.help


def test_file_of_comments_only_reports_a_missing_header() -> None:
    d = only("# nothing here\n# yet\n")
    assert d.code in ("E002", "E003")
    assert "algorithm" in (d.help or "") + d.message
    assert d.span.line in (1, 2, 3)


def test_unknown_names_in_reads_writes_and_indices() -> None:
    d = only(H + GX + "y = 1\n")
    assert (d.code, d.span.line, d.span.column) == ("E206", 5, 1) and "`y`" in d.message
    d = only(H + GX + "x = b[0]\n")
    assert (d.code, d.span.column) == ("E206", 5) and "`b`" in d.message
    d = only(H + "state node a: int = 0\nforall v { a[v] = a[w] }\n")
    assert (d.code, d.span.column) == ("E206", 21) and "`w`" in d.message


def test_several_errors_are_all_reported_in_order() -> None:
    ds = diagnostics(H + GX + "x = y\nx = true\nbreak\n")
    assert [(d.code, d.span.line) for d in ds] == [("E206", 5), ("E205", 6), ("E503", 7)]


def test_location_mismatches() -> None:
    # A node array used as one value, and a graph value indexed.
    d = only(H + GX + "state node a: int = 0\nif a { x = 1 }\n")
    assert (d.code, d.span.line, d.span.column) == ("E201", 6, 4)
    d = only(H + GX + "x = x[0]\n")
    assert d.code == "E202" and "0 indices" in d.message
    # An edge array with one index.
    d = only(H + GX + "state edge e: int = 0\nx = e[0]\n")
    assert d.code == "E202" and "2 indices" in d.message
    # `index` outside a node/edge definition.
    d = only(H + GX + "x = index\n")
    assert (d.code, d.span.column) == ("E201", 5) and "`index`" in d.message


def test_type_mismatches() -> None:
    d = only(H + GX + "if x { x = 1 }\n")
    assert (d.code, d.span.column) == ("E205", 4) and "boolean" in d.message
    d = only(H + "state graph b: bool = false\nb = 1 < true\n")
    assert d.code == "E205" and "numbers" in d.message
    d = only(H + GX + "x = 1.5\n")
    assert d.code == "E205" and "float value cannot be stored as int" in d.message
    d = only(H + GX + "x = 1 if 2 else 3\n")
    assert (d.code, d.span.column) == ("E205", 10)
    d = only(H + "state graph b: bool = false\nforall v { b = v by any }\n")
    assert (d.code, d.span.line) == ("E205", 5) and "booleans" in d.message


def test_writes_to_inputs_every_form() -> None:
    inp = H + "input node k: scalar ~ uniform()\ninput graph t: scalar ~ uniform_scalar()\n"
    for stmt, col in (("k = pos", 1), ("t = 0.5", 1), ("t += 1.0", 1), ("k[0] = 1.0", 1),
                      ("forall v { k[v] = 1.0 }", 12)):
        d = only(inp + stmt + "\n")
        assert (d.code, d.span.line, d.span.column) == ("E301", 6, col), stmt
    d = only(H + "forall v { pos[v] = 0.0 }\n")
    assert d.code == "E301" and "`pos`" in d.message


def test_loops_without_bounds() -> None:
    d = only(H + GX + "while true { x += 1 }\n")
    assert (d.code, d.span.line, d.span.column) == ("E604", 5, 1)
    assert "bound" in d.help
    d = only(H + GX + "while x < n bound x + n { x += 1 }\n")
    assert (d.code, d.span.column) == ("E601", 19)
    d = only(H + GX + "state node a: int = 0\nfor i in 0 .. a[0] { x = i }\n")
    assert (d.code, d.span.line, d.span.column) == ("E602", 6, 15)


def test_node_count_must_be_static() -> None:
    d = only("algorithm t\nnodes m\ngraph complete\n")
    assert (d.code, d.span.line, d.span.column) == ("E601", 2, 7)


def test_write_conflicts_without_a_combiner() -> None:
    # Graph-level write from every processor.
    d = only(H + GX + "forall v { x = v }\n")
    assert d.code == "E401" and "by priority" in d.help
    # Remote node write (not the processor's own element).
    d = only(H + "state node a: int = 0\nstate node t: int = 0\nforall v { a[t[v]] = v }\n")
    assert (d.code, d.span.line, d.span.column) == ("E401", 6, 12)
    # Node write from an edge processor.
    d = only(H + "state node a: int = 0\nforall v, u { a[v] = u }\n")
    assert d.code == "E401"
    # The processor's own element needs no combiner.
    algspec.load_source(H + "state node a: int = 0\nforall v { a[v] = v }\n")
    algspec.load_source(H + "state edge a: int = 0\nforall v, u { a[v, u] = v + u }\n")


def test_pointers_used_as_scalars() -> None:
    src = H + "hint node p: pointer\nstate graph y: float = 0.0\n"
    for expr, col in (("p[0] * 0.5", 5), ("-p[0] + 0.5", 6), ("0.5 + p[0]", 11),
                      ("sqrt(p[0])", 10)):
        d = only(src + f"y = {expr}\n")
        assert (d.code, d.span.line, d.span.column) == ("E204", 6, col), expr
    # Comparing and indexing with a pointer is fine.
    algspec.load_source(src + "state graph b: bool = false\nb = p[0] == 2\nb = p[p[0]] == 1\n")


def test_reserved_names() -> None:
    for name in ("index", "m", "N"):
        d = only(H + f"state graph {name}: int = 0\n")
        assert (d.code, d.span.column) == ("E109", 13), name
    d = only(H + GX + "let N = 1\n")
    assert d.code == "E109"


def test_a_declared_pos_must_be_a_node_scalar_input() -> None:
    """A file may declare its own `pos` (tests/language/test_declarations.py), but only as CLRS's kind."""
    d = only(H + "hint node pos: mask\n")
    assert (d.code, d.span.line, d.span.column) == ("E103", 4, 11), d.concise()
    assert "declared twice" not in d.message


def test_implicit_adj_of_a_builtin_graph_cannot_be_redeclared() -> None:
    src = ("algorithm t\nnodes n\ngraph star\ninput edge A: scalar ~ erdos_renyi()\n"
           "input edge adj: mask = adjacency(A)\n")
    d = only(src)
    assert (d.code, d.span.line, d.span.column) == ("E108", 5, 12) and "star" in d.message


def test_generator_errors() -> None:
    d = only(H + "input graph k: scalar ~ uniform()\n")
    assert d.code == "E104" and "node data" in d.message
    d = only(H + "input node k: scalar ~ uniform(low = 2.0, high = 1.0)\n")
    assert d.code == "E105" and "low < high" in d.message
    d = only(H + "input node k: scalar ~ uniform(low = m)\n")  # `low = n` is fine
    assert (d.code, d.span.column) == ("E105", 38) and "constant" in d.message
    d = only(H + "hint node k: scalar ~ uniform()\n")
    assert d.code == "E106" and "only inputs" in d.message
    d = only(H + "input graph t: scalar ~ uniform_scalar() pad 0.0\n")
    assert d.code == "E105" and "pad" in d.message


def test_categorical_needs_its_size() -> None:
    d = only(H + "hint node c: categorical\n")
    assert d.code == "E103" and "categorical(K)" in d.message
    d = only(H + "hint node c: categorical(0)\n")
    assert d.code == "E103"


def test_combiner_must_be_known_and_parallel() -> None:
    d = only(H + GX + "forall v { x = v by last }\n")
    assert d.code == "E402" and "priority" in d.help
    d = only(H + "state node a: int = 0\nfor i in 0 .. n { a[i] = 1 by max }\n")
    assert (d.code, d.span.column) == ("E403", 31)


def test_statements_not_allowed_in_rounds() -> None:
    d = only(H + GX + "round { while x < 1 bound n { x = 1 } }\n")
    assert d.code == "E501" and "loops" in d.message
    d = only(H + GX + "round { round { x = 1 } }\n")
    assert d.code == "E501" and "nest" in d.message


# ------------------------------------------------- malformed beyond the codes
def test_cyclic_view_definitions_are_rejected() -> None:
    """Views defined from each other have no value: a check error, not a crash."""
    ds = diagnostics(H + "input node k: scalar ~ uniform()\nhint graph a: scalar = b\n"
                     "hint graph b: scalar = a\nrecord\n")
    assert ds[0].code == "E107" and ds[0].span.line in (5, 6)


def test_integer_literal_out_of_range_is_a_diagnostic() -> None:
    """An int literal beyond int64 cannot be stored; it must not crash at run time."""
    src = H + "input node k: scalar ~ uniform()\n" + GX + "x = 99999999999999999999999\n"
    with pytest.raises(AlgError) as e:
        alg = algspec.load_source(src)
        alg.sample(4, 1, 0)
    assert e.value.diagnostics[0].span.line == 6


def test_duplicate_generator_parameter_is_an_error() -> None:
    d = only(H + "input node k: scalar ~ uniform(low = 0.0, low = 0.5)\n")
    assert d.code == "E105" and "low" in d.message


def test_node_count_must_be_an_integer() -> None:
    d = only("algorithm t\nnodes n / 2\ngraph complete\ninput node k: scalar ~ uniform()\n")
    assert d.span.line == 2 and d.code.startswith("E")


# --------------------------------------------------------------- rendering
def _sample_diags() -> tuple[str, list[Diagnostic]]:
    src = H + GX + "x = y\nforall v { x = v }\n"
    return src, diagnostics(src, "dir/f.alg")


def test_concise_rendering() -> None:
    _, ds = _sample_diags()
    out = render(ds, "concise")
    assert out.splitlines() == [
        "dir/f.alg:5:5: E206 unknown name `y`",
        "dir/f.alg:6:12: E401 processors may write `x` concurrently; say how the writes combine",
        f"  help: {ds[1].help}",
    ]
    assert str(AlgError(ds)) == out


def test_full_rendering() -> None:
    src, ds = _sample_diags()
    out = render(ds, "full", {"dir/f.alg": src})
    blocks = out.split("\n\n")
    assert len(blocks) == 2
    first = blocks[0].splitlines()
    assert first[:4] == ["error[E206]: unknown name `y`", "  --> dir/f.alg:5:5",
                         "   | x = y", "   |     ^"]
    second = blocks[1].splitlines()
    assert second[2] == "   | forall v { x = v }"
    assert second[3] == "   |            ^"
    assert second[4].startswith("   = help: append `by priority`")


def test_full_rendering_without_the_source() -> None:
    _, ds = _sample_diags()
    out = render(ds, "full")
    assert "   | " not in out and "--> dir/f.alg:5:5" in out


def test_full_rendering_caret_width_follows_the_span() -> None:
    d = Diagnostic(code="E205", message="m", span=Span(line=2, column=3, end_line=2,
                                                         end_column=7), path="p")
    out = d.full("first\nabcdefgh\n").splitlines()
    assert out[2:4] == ["   | abcdefgh", "   |   ^^^^"]
    multi = Diagnostic(code="E205", message="m", span=Span(line=1, column=2, end_line=2,
                                                             end_column=1))
    assert multi.full("abcd\nx").splitlines()[3] == "   |  ^^^"


def test_json_rendering() -> None:
    _, ds = _sample_diags()
    data = json.loads(render(ds, "json"))
    assert [d["code"] for d in data] == ["E206", "E401"]
    first = data[0]
    assert first["severity"] == "error" and first["path"] == "dir/f.alg"
    assert first["span"] == {"line": 5, "column": 5, "end_line": 5, "end_column": 6}
    assert first["message"] == "unknown name `y`"
    assert "help" in first
    assert json.loads(render([], "json")) == []


def test_warnings_render_their_severity() -> None:
    d = Diagnostic(code="L101", severity=Severity.WARNING, message="unused", path="a.alg",
                   span=Span(line=1, column=1, end_line=1, end_column=2))
    assert d.full("x").startswith("warning[L101]: unused")
    assert json.loads(render([d], "json"))[0]["severity"] == "warning"


# ================================================================ code registry
def test_every_code_written_in_the_sources_is_registered() -> None:
    """Codes are strings in the emitters; each one must be in algspec/codes.py, and vice versa."""
    import re
    from pathlib import Path


    root = Path(algspec.__file__).parent
    used: set[str] = set()
    for f in root.rglob("*.py"):
        if f.name != "codes.py":
            used |= set(re.findall(r"[\"']([ELWR]\d{3})[\"']", f.read_text()))
    assert used - set(codes.CODES) == set()
    assert set(codes.CODES) - used == set(), "registered but never emitted"
    for c in codes.CODES.values():
        assert c.title and c.doc and c.severity in ("error", "warning")
        assert (c.severity == "warning") == (c.code[0] in "LW")


def test_unregistered_code_is_rejected_and_severity_defaults_from_the_registry() -> None:
    with pytest.raises(ValueError, match="unregistered diagnostic code"):
        Diagnostic(code="E999", message="x")
    assert Diagnostic(code="L101", message="x").severity == Severity.WARNING
    assert Diagnostic(code="E205", message="x").severity == Severity.ERROR


def test_diagnostics_doc_code_table_is_the_registry() -> None:
    from pathlib import Path


    doc = (Path(algspec.__file__).parents[1] / "docs" / "diagnostics.md").read_text()
    start = doc.index("<!-- codes:")
    table = doc[doc.index("\n", start) + 1: doc.index("<!-- /codes -->")].strip()
    assert table == codes.markdown_table(), "regenerate it with `python -m algspec.codes`"


# ================================================================ edge cases
P = "algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"


@pytest.mark.parametrize("write", [
    "forall i { msk[i, i] = i >= 1 }",           # one processor, its own diagonal cell
    "forall v, u { msk[u, v] = v < u }",         # the indices in the other order
    "forall v { msk[v, 0] = true }",             # a constant second index
    "forall v { msk[v, p[v]] = true }",          # data in the other index
    "forall v, u { msk[v + u, u] = true }",      # solved one index at a time: u, then v
    "forall v { msk[n - 1 - v, v] = true }",     # c - v
])
def test_private_writes_need_no_combiner(write: str) -> None:
    """A write whose index tuple is injective in the processors is conflict-free."""
    src = P + "hint node p: pointer = index\nhint edge msk: mask\nrecord\n" + write + "\nrecord\n"
    algspec.load_source(src)


@pytest.mark.parametrize("write", [
    "forall v, u { msk[v, v] = true }",          # u is not determined: n writers per cell
    "forall v { msk[p[v], 0] = true }",          # data-dependent row
    "forall v, u { msk[v + u, 0] = true }",      # v + u does not determine both
    "forall v { msk[0, 0] = true }",
])
def test_shared_writes_still_need_a_combiner(write: str) -> None:
    src = P + "hint node p: pointer = index\nhint edge msk: mask\nrecord\n" + write + "\nrecord\n"
    assert [d.code for d in diagnostics(src)] == ["E401"]


def test_diagonal_write_runs_as_written() -> None:
    alg = algspec.load_source(P + "hint edge msk: mask\nhint edge w: scalar\nrecord\n"
                              "forall i { msk[i, i] = i >= 1 }\n"
                              "forall v, u { w[u, v] = float(v * 10 + u) }\nrecord\n")
    tr = alg.sample(n=5, batch_size=3, seed=0)
    want = np.diag(np.arange(5) >= 1).astype(float)
    assert np.array_equal(tr.hints["msk"][-1], np.broadcast_to(want, (3, 5, 5)))
    v, u = np.meshgrid(np.arange(5), np.arange(5))  # w[u, v]: row u, column v
    assert np.array_equal(tr.hints["w"][-1][0], v * 10 + u)


@pytest.mark.parametrize("decl", ["hint node p: pointer", "hint graph p: pointer",
                                  "hint node p: categorical(3)"])
def test_pointer_written_by_sum_is_e204(decl: str) -> None:
    """`by sum` adds node indices as numbers (it used to fail only at run time, R101)."""
    target = "p[0]" if "node" in decl else "p"
    src = P + decl + "\nrecord\nforall v { " + target + " = v by sum }\nrecord\n"
    d = only(src)
    assert d.code == "E204" and "`by sum`" in d.message and "priority" in d.help
    algspec.load_source(src.replace("by sum", "by min"))


def test_compound_assignment_uses_the_operator_type_rule() -> None:
    d = only(P + "state graph x: int = 0\nx += true\n")
    assert d.code == "E205" and "`+` needs numbers" in d.message
