"""The `.alg` parser: every construct of the grammar, checked on the AST it builds.

Also a property test: `parse` raises nothing but `AlgError` on any text (and on
mutations of the shipped algorithms), and every diagnostic points inside the
source.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from algspec.diagnostics import AlgError
from algspec.language import ast
from algspec.language.parser import is_library, parse

ALGORITHMS = sorted((Path(__file__).resolve().parents[2] / "algorithms").glob("*.alg"))
SOURCES = {p.name: p.read_text() for p in ALGORITHMS}
HEADER = "algorithm t\nnodes n\ngraph complete\n"


def body(text: str) -> list[ast.Stmt]:
    """Parse statements after a fixed header."""
    return parse(HEADER + text).body


def expr_of(text: str) -> ast.Expr:
    """The value of `x = <text>`."""
    (stmt,) = body(f"x = {text}\n")
    assert isinstance(stmt, ast.AssignStmt)
    return stmt.values[0]


def shape(e) -> object:
    """A compact, span-free rendering of an expression tree for comparisons."""
    if isinstance(e, ast.Num):
        return e.value
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.IndexExpr):
        return (e.name, [shape(i) for i in e.indices])
    if isinstance(e, ast.UnaryExpr):
        return (e.op, shape(e.operand))
    if isinstance(e, ast.BinaryExpr):
        return (e.op, shape(e.left), shape(e.right))
    if isinstance(e, ast.CondExpr):
        return ("?", shape(e.cond), shape(e.then), shape(e.otherwise))
    if isinstance(e, ast.CallExpr):
        return ("call", e.func, [shape(a) for a in e.args])
    if isinstance(e, ast.AggExpr):
        return ("agg", e.op, shape(e.body), e.var, e.domain, shape(e.of), shape(e.filter),
                shape(e.default))
    assert e is None, e
    return None


# ------------------------------------------------------------------ header
def test_header_name_nodes_and_graph() -> None:
    p = parse("algorithm my_alg\nnodes n\ngraph complete\n")
    assert isinstance(p, ast.Program)
    assert p.name == "my_alg"
    assert (p.name_span.line, p.name_span.column) == (1, 11)
    assert shape(p.nodes) == "n"
    assert p.graph_kind == "complete" and p.graph_input is None
    assert p.decls == [] and p.body == []


def test_nodes_is_an_expression() -> None:
    p = parse("algorithm a\nnodes n + 1\ngraph empty\n")
    assert shape(p.nodes) == ("+", "n", 1)
    assert (p.nodes.span.line, p.nodes.span.column, p.nodes.span.end_column) == (2, 7, 12)
    p = parse("algorithm a\nnodes 2 * n - 1\ngraph empty\n")
    assert shape(p.nodes) == ("-", ("*", 2, "n"), 1)


@pytest.mark.parametrize("kind", ["complete", "empty", "path", "star", "ring", "ring directed"])
def test_builtin_graph_kinds(kind: str) -> None:
    p = parse(f"algorithm a\nnodes n\ngraph {kind}\n")
    assert p.graph_kind == kind and p.graph_input is None
    assert (p.graph_span.line, p.graph_span.column) == (3, 7)


def test_graph_input() -> None:
    p = parse("algorithm a\nnodes n\ngraph input adj\n")
    assert p.graph_kind == "input"
    assert p.graph_input == "adj"
    assert (p.graph_span.line, p.graph_span.column, p.graph_span.end_column) == (3, 13, 16)


def test_header_must_come_first_and_be_complete() -> None:
    for src in ("nodes n\nalgorithm a\ngraph complete\n", "algorithm a\ngraph complete\n",
                "algorithm a\nnodes n\n", "algorithm a\nnodes n\ngraph torus\n"):
        with pytest.raises(AlgError) as e:
            parse(src)
        assert e.value.diagnostics[0].code in ("E001", "E002")


def test_leading_blank_lines_and_comments_before_header() -> None:
    p = parse("\n\n# a comment\n   \nalgorithm a # trailing\nnodes n\ngraph path\n")
    assert p.name == "a" and p.name_span.line == 5 and p.graph_kind == "path"


# ------------------------------------------------------------- declarations
def decl(text: str) -> ast.Decl:
    (d,) = parse(HEADER + text + "\n").decls
    return d


@pytest.mark.parametrize("stage", ["input", "output", "hint", "state"])
@pytest.mark.parametrize("loc", ["node", "edge", "graph"])
def test_decl_stage_and_location(stage: str, loc: str) -> None:
    d = decl(f"{stage} {loc} x: mask")
    assert (d.stage, d.location, d.name, d.type_name, d.type_arg) == (stage, loc, "x", "mask",
                                                                      None)
    assert d.derived is None and d.initial is None and d.generator is None and d.pad is None
    assert d.name_span.line == 4 and d.name_span.column == len(f"{stage} {loc} ") + 1


def test_decl_view() -> None:
    d = decl("hint node mid: mask_one = onehot((lo + hi) // 2)")
    assert shape(d.derived) == ("call", "onehot", [("//", ("+", "lo", "hi"), 2)])
    assert d.initial is None


def test_decl_initial_value() -> None:
    d = decl("hint node s: pointer := index")
    assert shape(d.initial) == "index" and d.derived is None


def test_state_with_equals_is_an_initial_value_not_a_view() -> None:
    d = decl("state graph hi: int = n - 1")
    assert shape(d.initial) == ("-", "n", 1) and d.derived is None


def test_decl_generator_with_keyword_params() -> None:
    d = decl("input edge A: scalar ~ community(k = 4, p = 0.5, eps = 0.01)")
    g = d.generator
    assert isinstance(g, ast.GeneratorCall) and g.name == "community"
    assert {k: shape(v) for k, v in g.params.items()} == {"k": 4, "p": 0.5, "eps": 0.01}
    assert isinstance(g.params["k"].value, int) and isinstance(g.params["p"].value, float)
    assert (g.span.line, g.span.column) == (4, 22)  # from the `~`


def test_decl_generator_without_params_and_negative_param() -> None:
    assert decl("input node k: scalar ~ uniform()").generator.params == {}
    d = decl("input node k: scalar ~ uniform(low = -1.5, high = 2)")
    assert shape(d.generator.params["low"]) == ("-", 1.5)
    assert shape(d.generator.params["high"]) == 2


def test_decl_pad() -> None:
    d = decl("input node key: scalar ~ sorted_uniform(low = 0.0, high = 1.0) pad target")
    assert d.generator.name == "sorted_uniform"
    assert shape(d.pad) == "target"


def test_decl_categorical_argument() -> None:
    d = decl("hint node color: categorical(3)")
    assert d.type_name == "categorical" and d.type_arg == 3


def test_several_decls_keep_their_order_and_spans() -> None:
    p = parse(HEADER + "input node a: scalar ~ uniform()\nstate graph b: int = 0; "
              "hint node c: mask\n")
    assert [d.name for d in p.decls] == ["a", "b", "c"]
    assert [d.span.line for d in p.decls] == [4, 5, 5]
    assert p.decls[2].name_span.column == len("state graph b: int = 0; hint node ") + 1


def test_decls_after_statements_are_a_syntax_error() -> None:
    with pytest.raises(AlgError) as e:
        parse(HEADER + "record\nstate graph x: int = 0\n")
    d = e.value.diagnostics[0]
    assert d.code == "E002" and (d.span.line, d.span.column) == (5, 1)


# --------------------------------------------------------------- statements
def test_assign_simple_and_indexed() -> None:
    s1, s2, s3 = body("x = 1\na[i] = 2\nA[u, v] = 3\n")
    for s in (s1, s2, s3):
        assert isinstance(s, ast.AssignStmt) and s.op == "=" and s.combiner is None
    assert [(t.name, [shape(i) for i in t.indices]) for t in s1.targets] == [("x", [])]
    assert [(t.name, [shape(i) for i in t.indices]) for t in s2.targets] == [("a", ["i"])]
    assert [(t.name, [shape(i) for i in t.indices]) for t in s3.targets] == [("A", ["u", "v"])]
    assert (s3.span.line, s3.span.column, s3.span.end_column) == (6, 1, 12)


def test_multi_assign() -> None:
    (s,) = body("a, b = b, a\n")
    assert [t.name for t in s.targets] == ["a", "b"]
    assert [shape(v) for v in s.values] == ["b", "a"]
    (s,) = body("a[i], a[i - 1] = a[i - 1], a[i]\n")
    assert [shape(t.indices[0]) for t in s.targets] == ["i", ("-", "i", 1)]


@pytest.mark.parametrize("op", ["+=", "-=", "*="])
def test_augmented_assign(op: str) -> None:
    (s,) = body(f"time {op} 0.01\n")
    assert s.op == op and s.targets[0].name == "time" and shape(s.values[0]) == 0.01


def test_let() -> None:
    (s,) = body("let c = (lo + hi) // 2\n")
    assert isinstance(s, ast.LetStmt) and s.name == "c"
    assert shape(s.value) == ("//", ("+", "lo", "hi"), 2)


def test_record_and_break() -> None:
    r, w = body("record\nwhile true bound n { break }\n")
    assert isinstance(r, ast.RecordStmt) and (r.span.line, r.span.column) == (4, 1)
    (b,) = w.body
    assert isinstance(b, ast.BreakStmt) and (b.span.line, b.span.column) == (5, 22)


def test_if_without_else() -> None:
    (s,) = body("if a < b { x = 1 }\n")
    assert isinstance(s, ast.IfStmt) and shape(s.cond) == ("<", "a", "b")
    assert len(s.then) == 1 and s.otherwise == []


def test_if_else_if_else_chain() -> None:
    (s,) = body("if a { x = 1 } else if b { x = 2 } else { x = 3 }\n")
    assert shape(s.cond) == "a"
    (inner,) = s.otherwise
    assert isinstance(inner, ast.IfStmt) and shape(inner.cond) == "b"
    assert shape(inner.then[0].values[0]) == 2 and shape(inner.otherwise[0].values[0]) == 3


def test_else_on_the_next_line_and_after_a_comment() -> None:
    (s,) = body("if a {\n    x = 1\n}\nelse {\n    x = 2\n}\n")
    assert shape(s.otherwise[0].values[0]) == 2
    (s,) = body("if a {\n    x = 1\n}\n# why\n\n  else if b { x = 2 }\nelse { x = 3 }\n")
    (inner,) = s.otherwise
    assert shape(inner.cond) == "b" and shape(inner.otherwise[0].values[0]) == 3


def test_a_name_starting_with_else_is_not_else() -> None:
    s1, s2 = body("if a { x = 1 }\nelsewhere = 2\n")
    assert isinstance(s1, ast.IfStmt) and s1.otherwise == []
    assert s2.targets[0].name == "elsewhere"


def test_while_with_bound() -> None:
    (s,) = body("while lo < hi bound ceil(log2(n)) { lo += 1 }\n")
    assert isinstance(s, ast.WhileStmt)
    assert shape(s.cond) == ("<", "lo", "hi")
    assert shape(s.bound) == ("call", "ceil", [("call", "log2", ["n"])])
    assert len(s.body) == 1


def test_while_without_bound_parses_with_none() -> None:
    s1, s2 = body("while x bound 2 * n + m { }\nwhile x { }\n")
    assert shape(s1.bound) == ("+", ("*", 2, "n"), "m")
    assert isinstance(s2, ast.WhileStmt) and s2.bound is None and s2.body == []


def test_for_range_and_reversed_range() -> None:
    s1, s2 = body("for i in 0 .. n { record }\nfor j in reversed i + 1 .. n - 1 { record }\n")
    assert isinstance(s1, ast.ForRangeStmt) and not s1.reverse
    assert (s1.var, shape(s1.start), shape(s1.stop)) == ("i", 0, "n")
    assert isinstance(s2, ast.ForRangeStmt) and s2.reverse
    assert (s2.var, shape(s2.start), shape(s2.stop)) == ("j", ("+", "i", 1), ("-", "n", 1))


def test_for_nodes_by_key() -> None:
    (s,) = body("for s in nodes by key { record }\n")
    assert isinstance(s, ast.ForNodesStmt) and s.var == "s" and shape(s.key) == "key"
    (s,) = body("for s in nodes by -f { record }\n")
    assert shape(s.key) == ("-", "f")


def test_round_block() -> None:
    (s,) = body("round {\n  x = 1\n  forall v { a[v] = x }\n}\n")
    assert isinstance(s, ast.RoundStmt)
    assert [type(x) for x in s.body] == [ast.AssignStmt, ast.ForallStmt]
    assert (s.span.line, s.span.end_line) == (4, 7)


def test_forall_with_guard_and_two_variables() -> None:
    s1, s2, s3 = body("forall v { a[v] = 1 }\nforall v where not b[v] { a[v] = 2 }\n"
                      "forall v, u where A[v, u] { E[v, u] = true }\n")
    assert isinstance(s1, ast.ForallStmt) and s1.vars == ["v"] and s1.guard is None
    assert s2.vars == ["v"] and shape(s2.guard) == ("not", ("b", ["v"]))
    assert s3.vars == ["v", "u"] and shape(s3.guard) == ("A", ["v", "u"])


@pytest.mark.parametrize("comb", ["priority", "min", "max", "sum", "any", "all"])
def test_combiners(comb: str) -> None:
    (s,) = body(f"forall v {{ x[t[v]] = v by {comb} }}\n")
    (a,) = s.body
    assert a.combiner == comb
    assert shape(a.targets[0].indices[0]) == ("t", ["v"])
    assert (a.combiner_span.line, a.combiner_span.column) == (4, 27)


# -------------------------------------------------------------- expressions
@pytest.mark.parametrize("dom, of", [("nodes", None), ("incoming(v)", "v"),
                                     ("outgoing(v)", "v")])
def test_aggregation_domains(dom: str, of) -> None:
    e = expr_of(f"min(d[u] for u in {dom})")
    assert isinstance(e, ast.AggExpr)
    assert (e.op, shape(e.body), e.var, e.domain.split("(")[0], shape(e.of)) == (
        "min", ("d", ["u"]), "u", dom.split("(")[0], of)
    assert e.filter is None and e.default is None


def test_aggregation_with_filter_and_default() -> None:
    e = expr_of("min(x for u in incoming(v) if c, default = 0)")
    assert shape(e) == ("agg", "min", "x", "u", "incoming", "v", "c", 0)
    e = expr_of("max(f[x] for x in nodes, default = -1)")
    assert shape(e) == ("agg", "max", ("f", ["x"]), "x", "nodes", None, None, ("-", 1))


@pytest.mark.parametrize("op", ["min", "max", "sum", "any", "all", "count"])
def test_aggregation_operators(op: str) -> None:
    e = expr_of(f"{op}(b[w] for w in outgoing(src) if b[w])")
    assert isinstance(e, ast.AggExpr) and e.op == op and e.domain == "outgoing"


def test_min_max_calls_are_not_aggregations() -> None:
    assert shape(expr_of("max(index - 1, 0)")) == ("call", "max", [("-", "index", 1), 0])
    assert shape(expr_of("min (p, q)")) == ("call", "min", ["p", "q"])


def test_calls() -> None:
    assert shape(expr_of("onehot(hi)")) == ("call", "onehot", ["hi"])
    assert shape(expr_of("adjacency(transpose(A))")) == (
        "call", "adjacency", [("call", "transpose", ["A"])])
    assert shape(expr_of("f()")) == ("call", "f", [])


def test_ternary_is_lowest_precedence_and_right_nested() -> None:
    assert shape(expr_of("a if c else b")) == ("?", "c", "a", "b")
    assert shape(expr_of("p + 1 if p % 2 == t % 2 else p - 1")) == (
        "?", ("==", ("%", "p", 2), ("%", "t", 2)), ("+", "p", 1), ("-", "p", 1))
    assert shape(expr_of("a if c else b if d else e")) == ("?", "c", "a", ("?", "d", "b", "e"))


def test_operator_precedence_and_associativity() -> None:
    assert shape(expr_of("1 + 2 * 3")) == ("+", 1, ("*", 2, 3))
    assert shape(expr_of("1 - 2 - 3")) == ("-", ("-", 1, 2), 3)
    assert shape(expr_of("a // b % c")) == ("%", ("//", "a", "b"), "c")
    assert shape(expr_of("-a * b")) == ("*", ("-", "a"), "b")
    assert shape(expr_of("not a and b or c")) == ("or", ("and", ("not", "a"), "b"), "c")
    assert shape(expr_of("a or b and c")) == ("or", "a", ("and", "b", "c"))
    assert shape(expr_of("a + 1 < b * 2")) == ("<", ("+", "a", 1), ("*", "b", 2))
    assert shape(expr_of("-(a - b)")) == ("-", ("-", "a", "b"))


def test_comparisons_do_not_chain() -> None:
    with pytest.raises(AlgError) as e:
        expr_of("a < b < c")
    assert e.value.diagnostics[0].code == "E002"
    for op in ("<", "<=", ">", ">=", "==", "!="):
        assert shape(expr_of(f"a {op} b")) == (op, "a", "b")


def test_literals() -> None:
    assert expr_of("3").value == 3 and isinstance(expr_of("3").value, int)
    assert expr_of("3.25").value == 3.25
    assert expr_of("1e3").value == 1000.0 and isinstance(expr_of("1e3").value, float)
    assert expr_of("true").value is True and expr_of("false").value is False
    assert expr_of("inf").value == float("inf")


def test_indexing_one_and_two_indices() -> None:
    assert shape(expr_of("key[order[max(p, q)]]")) == (
        "key", [("order", [("call", "max", ["p", "q"])])])
    assert shape(expr_of("A[u, v] != 0")) == ("!=", ("A", ["u", "v"]), 0)


def test_expression_spans() -> None:
    e = expr_of("lo + hi * 2")
    assert (e.span.line, e.span.column, e.span.end_column) == (4, 5, 16)
    assert (e.right.span.column, e.right.span.end_column) == (10, 16)


def test_newlines_inside_parentheses_and_brackets() -> None:
    (s,) = body("x = min(w for w in nodes if c[w] and\n        (p == 0 or\n f[w] == 1))\n")
    assert shape(s.values[0].filter) == ("and", ("c", ["w"]), (
        "or", ("==", "p", 0), ("==", ("f", ["w"]), 1)))
    (s,) = body("x = a[\n  1\n]\n")
    assert shape(s.values[0]) == ("a", [1])


def test_backslash_line_continuation() -> None:
    (s,) = body("x = 1 + \\\n    2\n")
    assert shape(s.values[0]) == ("+", 1, 2)


def test_newline_outside_parentheses_ends_the_statement() -> None:
    with pytest.raises(AlgError) as e:
        body("x = 1 +\n2\n")
    d = e.value.diagnostics[0]
    assert d.code == "E002" and d.span.line == 4


def test_semicolons_separate_statements() -> None:
    stmts = body("x = 1; y = 2;; record\nforall v { a[v] = 1; b[v] = 2 }\n")
    assert [type(s) for s in stmts] == [ast.AssignStmt, ast.AssignStmt, ast.RecordStmt,
                                        ast.ForallStmt]
    assert [t.name for s in stmts[3].body for t in s.targets] == ["a", "b"]
    assert stmts[1].span.column == 8


def test_comments_are_ignored_everywhere() -> None:
    stmts = body("# leading\nx = 1  # trailing\nif a { # after brace\n  y = 2 # inside\n"
                 "} # after block\n# final\n")
    assert [type(s) for s in stmts] == [ast.AssignStmt, ast.IfStmt]
    assert stmts[0].span.line == 5 and stmts[1].then[0].span.line == 7


def test_last_statement_may_omit_the_newline() -> None:
    assert isinstance(body("x = 1\nrecord")[-1], ast.RecordStmt)
    assert isinstance(body("round { x = 1 }")[-1], ast.RoundStmt)


def test_block_statements_can_share_a_line() -> None:
    stmts = body("if a { x = 1 } if b { x = 2 }\n")
    assert [shape(s.cond) for s in stmts] == ["a", "b"]


def test_crlf_line_endings() -> None:
    p = parse(HEADER.replace("\n", "\r\n") + "if a {\r\n  x = 1\r\n}\r\nelse {\r\n  x = 2\r\n}\r\n")
    (s,) = p.body
    assert shape(s.otherwise[0].values[0]) == 2 and s.then[0].span.line == 5


def test_every_shipped_algorithm_parses() -> None:
    assert len(SOURCES) == 6
    for name, src in SOURCES.items():
        p = parse(src, name)
        assert p.decls and p.body, name
    p = parse(SOURCES["parallel_search.alg"])
    assert shape(p.nodes) == ("+", "n", 1) and p.graph_kind == "empty"
    key = next(d for d in p.decls if d.name == "key")
    assert shape(key.pad) == "target"
    assert p.body[-1].guard is not None and p.body[-1].body[0].combiner == "priority"
    p = parse(SOURCES["kosaraju.alg"])
    assert (p.graph_kind, p.graph_input) == ("input", "adj")
    color = next(d for d in p.decls if d.name == "color")
    assert (color.type_name, color.type_arg) == ("categorical", 3)


# ------------------------------------------------------------ syntax errors
def test_syntax_error_location_and_path() -> None:
    with pytest.raises(AlgError) as e:
        parse(HEADER + "x = (1 + 2\nrecord\n", "f.alg")
    (d,) = e.value.diagnostics
    assert d.code == "E002" and d.path == "f.alg"
    assert (d.span.line, d.span.column) == (5, 1)
    assert "record" in d.message


def test_unexpected_character() -> None:
    with pytest.raises(AlgError) as e:
        parse(HEADER + "x = 1 @ 2\n")
    (d,) = e.value.diagnostics
    assert d.code == "E001" and "'@'" in d.message
    assert (d.span.line, d.span.column) == (4, 7)


def test_unexpected_end_of_file() -> None:
    with pytest.raises(AlgError) as e:
        parse(HEADER + "while x bound n {\n  x = 1\n")
    (d,) = e.value.diagnostics
    assert d.code == "E002" and "end of file" in d.message
    assert d.span.line == 5 and "'}'" in (d.help or "")


@pytest.mark.parametrize("src", ["", " ", "\n\n", "\t \n  "])
def test_empty_file(src: str) -> None:
    with pytest.raises(AlgError) as e:
        parse(src)
    (d,) = e.value.diagnostics
    assert d.code == "E003" and "empty" in d.message


# ------------------------------------------------------------ property tests
def _check_diagnostics(source: str) -> None:
    """parse raises only AlgError; each diagnostic's line/column lies in the source."""
    try:
        parse(source, "fuzz.alg")
    except AlgError as e:
        assert e.diagnostics, "AlgError without diagnostics"
        lines = source.split("\n")
        # a text that starts like a library (`include ...`, `proc ...`) is one E706
        codes = ("E001", "E002", "E003") + (("E706",) if is_library(source) else ())
        for d in e.diagnostics:
            assert d.code in codes, d
            assert d.path == "fuzz.alg"
            assert 1 <= d.span.line <= len(lines), (d, len(lines))
            assert 1 <= d.span.column <= len(lines[d.span.line - 1]) + 1, d
            assert (d.span.end_line, d.span.end_column) >= (d.span.line, d.span.column), d


# Characters str.splitlines() takes for line breaks but the lexer does not:
# exercised separately in test_line_numbers_agree_with_the_renderer.
_ODD_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_parse_arbitrary_text_raises_only_alg_error(source: str) -> None:
    try:
        parse(source)
    except AlgError as e:
        assert e.diagnostics


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_characters=_ODD_BREAKS)))
def test_parse_arbitrary_text_diagnostics_point_inside_the_source(source: str) -> None:
    _check_diagnostics(source)


_TOKENS = ["algorithm", "nodes", "graph", "complete", "empty", "path", "star", "input", "output",
           "hint", "state", "node", "edge", "mask", "scalar", "pointer", "categorical", "(", ")",
           "{", "}", "[", "]", ",", ";", ":", "=", ":=", "~", "+=", "..", "if", "else", "while",
           "bound", "for", "in", "reversed", "by", "round", "forall", "where", "record", "break",
           "let", "min", "any", "count", "incoming", "outgoing", "default", "x", "v", "0", "1",
           "2.5", "+", "-", "*", "/", "//", "%", "<", "==", "not", "and", "or", "#", "\n"]


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS + [HEADER, " ", "\n"]), max_size=40).map(" ".join))
def test_parse_token_soup(source: str) -> None:
    _check_diagnostics(source)


_NOISE = "{}()[],;:=~.#\n\t x1-+<>!@$\\\"'é"


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SOURCES)), st.randoms(use_true_random=False),
       st.integers(min_value=1, max_value=4))
def test_parse_mutated_shipped_files(name: str, rnd: random.Random, edits: int) -> None:
    src = SOURCES[name]
    for _ in range(edits):
        op = rnd.randrange(5)
        toks = re.findall(r"\s+|\w+|.", src)
        if op == 0 and src:  # delete a character
            i = rnd.randrange(len(src))
            src = src[:i] + src[i + 1:]
        elif op == 1:  # insert a character
            i = rnd.randrange(len(src) + 1)
            src = src[:i] + rnd.choice(_NOISE) + src[i:]
        elif op == 2 and len(src) > 1:  # swap two adjacent characters
            i = rnd.randrange(len(src) - 1)
            src = src[:i] + src[i + 1] + src[i] + src[i + 2:]
        elif op == 3 and toks:  # delete a token
            del toks[rnd.randrange(len(toks))]
            src = "".join(toks)
        elif toks:  # swap two tokens
            i, j = rnd.randrange(len(toks)), rnd.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
            src = "".join(toks)
    _check_diagnostics(src)


@pytest.mark.parametrize("brk", ["\r", "\x0c", "\u2028"], ids=["CR", "FF", "LS"])
def test_line_numbers_agree_with_the_renderer(brk: str) -> None:
    """A form feed, lone CR, etc. inside a comment must not shift reported lines.

    The lexer counts lines by '\\n' only; `Diagnostic.full` and the end-of-file
    span must count them the same way, or the caret lands on the wrong line.
    """
    src = f"# a comment{brk}with an odd break\n" + HEADER + "x = 1 $ 2\n"
    with pytest.raises(AlgError) as e:
        parse(src)
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column) == ("E001", 5, 7)
    rendered = d.full(src).splitlines()
    assert rendered[2] == "   | x = 1 $ 2", rendered
    src_eof = f"#{brk}0"
    with pytest.raises(AlgError) as e:
        parse(src_eof)
    (d,) = e.value.diagnostics
    assert d.span.line == 1, d


def test_long_expressions_do_not_crash_the_parser() -> None:
    """Machine-written files can have long sums; they parse or fail with a diagnostic."""
    for text in (" + ".join(["1"] * 1000), "-" * 1000 + "1", "(" * 1000 + "1" + ")" * 1000):
        try:
            (s,) = body(f"x = {text}\n")
        except AlgError as e:
            assert e.diagnostics[0].code.startswith("E")
        else:
            assert isinstance(s, ast.AssignStmt)


# ============================================================ bits and powers
@pytest.mark.parametrize("text,want", [
    ("a << b", ("<<", "a", "b")), ("a<<b", ("<<", "a", "b")), ("a >> 1", (">>", "a", 1)),
    ("a <= b", ("<=", "a", "b")), ("a < -b", ("<", "a", ("-", "b"))),
    ("a ** b", ("**", "a", "b")), ("a**b", ("**", "a", "b")), ("a * b", ("*", "a", "b")),
    ("a | b ^ c & d", ("|", "a", ("^", "b", ("&", "c", "d")))),
    ("a & b << c + d", ("&", "a", ("<<", "b", ("+", "c", "d")))),
    ("-a ** b", ("-", ("**", "a", "b"))), ("a ** -b", ("**", "a", ("-", "b"))),
    ("a ** b ** c", ("**", "a", ("**", "b", "c"))), ("~a + 1", ("+", ("~", "a"), 1)),
    ("a | b == c", ("==", ("|", "a", "b"), "c")),
])
def test_bitwise_and_power_precedence_is_pythons(text: str, want: object) -> None:
    assert shape(expr_of(text)) == want


def _value(expr: str) -> float:
    import algspec
    alg = algspec.load_source(HEADER + "input node key: scalar ~ uniform()\n"
                              "output graph r: scalar\nr = float(" + expr + ")\n")
    out, _ = alg.trace(key=[0.0, 0.0])
    return float(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.integers(0, 9).map(str), lambda sub: st.one_of(
    st.tuples(sub, st.sampled_from(["+", "-", "*", "|", "^", "&", "<<", ">>", "//", "%"]),
              sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    st.tuples(sub, st.sampled_from(["+", "*", "|", "^", "&", "<<", ">>", "-"]), sub)
    .map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
    sub.map(lambda x: f"~{x}"), sub.map(lambda x: f"-{x}")), max_leaves=6))
def test_integer_expressions_evaluate_as_python(expr: str) -> None:
    """Python's own evaluator is the reference for precedence and int semantics."""
    if _python_values(expr) is None:
        return  # a fault (division by zero), a clamped shift count or int64 overflow
    assert _value(expr) == eval(expr), expr


def _python_values(expr: str) -> list[int] | None:
    """Python's value of every sub-expression; None when algspec's ints would differ."""
    import ast as pyast
    def value(node):
        return eval(compile(pyast.Expression(node), "<e>", "eval"))

    out = []
    for node in pyast.walk(pyast.parse(expr, mode="eval").body):
        if not isinstance(node, pyast.expr):
            continue  # operator tokens
        try:
            v = value(node)
        except (ZeroDivisionError, ValueError):
            return None
        shift = isinstance(node, pyast.BinOp) and isinstance(node.op, (pyast.LShift, pyast.RShift))
        if abs(v) >= 2 ** 52 or (shift and not 0 <= value(node.right) <= 63):
            return None
        out.append(v)
    return out


def test_power_and_pow2ceil_values() -> None:
    assert _value("-2 ** 2") == -4 and _value("2 ** 3 ** 2") == 512
    assert _value("2 ** -1") == 0 and _value("(-1) ** -3") == -1 and _value("2.0 ** -1") == 0.5
    assert [_value(f"pow2ceil({k})") for k in (0, 1, 2, 3, 5, 8, 9)] == [1, 1, 2, 4, 8, 8, 16]
