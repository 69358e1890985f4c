"""E002/E001 say what to write instead of syntax from Python, C or pseudo-code.

Each mistake keeps the position lark reports (the unexpected token) and the
`unexpected X` start of the message, and adds what is wrong and the fix; a
syntax error no hint knows keeps the grammar's "expected ..." help.
"""

from __future__ import annotations

import pytest

import algspec
from algspec.diagnostics import AlgError, Diagnostic

H = "algorithm t\nnodes n\ngraph complete\nstate graph a: int = 0\nstate graph b: bool = false\n"


def syntax_error(body: str) -> Diagnostic:
    with pytest.raises(AlgError) as e:
        algspec.load_source(H + body, "t.alg")
    (d,) = e.value.diagnostics
    assert d.code in ("E001", "E002"), d.concise()
    return d


# (name, body, line, column, fragments of the message, fragments of the help)
CASES = [
    ("return_in_proc", "proc f(i) {\n  a = i\n  return\n}\nf(1)\n", 8, 9,
     ("unexpected 'newline'", "`return` needs a value"),
     ("`return EXPR`", "under an `if`")),
    ("return_before_brace", "proc f(i) { a = i; return }\nf(1)\n", 6, 27,
     ("`return` needs a value",), ("`break`",)),
    ("return_as_a_datum", "state node return: int = 0\nforall v { return[v] = 1 }\n", 7, 18,
     ("`return` starts the statement",), ("`as`",)),
    ("misspelt_return", "proc f(i) {\n  retrun i\n}\n", 7, 10, ("did you mean `return`?",), ()),
    ("def", "def f(i):\n  a = i\n", 6, 5, ("`def` does not define a procedure",),
     ("proc NAME(a, b) {",)),
    ("function", "function f(i) { a = i }\n", 6, 10, ("`function`",), ("proc NAME",)),
    ("elif", "if a < 1 { a = 1 } elif a < 2 { a = 2 }\n", 6, 25, ("`elif` is written `else if`",),
     ("else if",)),
    ("end", "while a < 3 bound n {\n  a += 1\nend\n", 8, 4, ("`end` does not close a block",),
     ("`}`",)),
    ("continue", "for i in 0 .. n {\n  continue\n}\n", 7, 11, ("no `continue`",), ("break",)),
    ("then", "if a < 1 then {\n  a = 1\n}\n", 6, 10, ("unexpected 'then'", "not needed"),
     ("`if ... {`",)),
    ("do", "while a < 3 bound n do {\n  a += 1\n}\n", 6, 21, ("`do` is not needed",),
     ("`while ... {`",)),
    ("python_colon", "if a < 1:\n  a = 1\n", 6, 9, ("unexpected ':'", "braces"),
     ("`if ... {`", "`}`")),
    ("else_colon", "if a < 1 { a = 1 } else:\n  a = 2\n", 6, 24, ("braces",), ("`else {`",)),
    ("proc_colon", "proc f(i):\n  a = i\n", 6, 10, ("braces",), ("`proc ... {`",)),
    ("assign_in_if", "if a = 1 {\n  a = 2\n}\n", 6, 6, ("unexpected '='", "`==`"), ("a == b",)),
    ("assign_in_while", "while a = 1 bound n { a = 2 }\n", 6, 9, ("`==`",), ("`while a == b",)),
    ("assign_in_guard", "state node c: int = 0\nforall v where c[v] = 1 { c[v] = 2 }\n", 7, 21,
     ("`==`",), ()),
    ("and_and", "if a < 1 && b {\n  a = 2\n}\n", 6, 11, ("`&&` is written `and`",), ("`and`",)),
    ("or_or", "if a < 1 || b {\n  a = 2\n}\n", 6, 11, ("`||` is written `or`",), ("`or`",)),
    ("plus_plus", "a++\n", 6, 2, ("`++` is not an operator",), ("`a += 1`",)),
    ("minus_minus_indexed", "state node c: int = 0\nforall v { c[v]-- }\n", 7, 16, ("`--`",),
     ("`c[v] -= 1`",)),
    ("walrus_in_body", "a := 1\n", 6, 3, ("`:=`",), ("`a = ...`",)),
    ("range_call", "for i in range(n) { a += i }\n", 6, 19, ("`a .. b`",), ("0 .. n",)),
    ("misspelt_statement", "whlie a < 3 bound n { a += 1 }\n", 6, 7,
     ("did you mean `while`?",), ("`whlie` is read as a name",)),
    ("misspelt_forall", "state node c: int = 0\nforal v { c[v] = 1 }\n", 7, 7,
     ("did you mean `forall`?",), ()),
    ("line_starts_with_operator", "a = 1\n  + 2\n", 7, 3, ("cannot start with `+`",),
     ("parentheses",)),
    ("declaration_after_statement", "a = 1\nstate graph y: int = 0\n", 7, 1,
     ("declarations come before the first statement",), ("move this `state` declaration",)),
]


@pytest.mark.parametrize("name, body, line, col, in_message, in_help", CASES,
                         ids=[c[0] for c in CASES])
def test_foreign_syntax_gets_a_targeted_message(name: str, body: str, line: int, col: int,
                                                in_message: tuple[str, ...],
                                                in_help: tuple[str, ...]) -> None:
    d = syntax_error(body)
    assert (d.code, d.span.line, d.span.column) == ("E002", line, col), d.concise_block()
    assert d.message.startswith("unexpected "), d.message
    for frag in in_message:
        assert frag in d.message, (frag, d.concise_block())
    for frag in in_help:
        assert frag in (d.help or ""), (frag, d.concise_block())
    assert not (d.help or "").startswith("expected "), d.concise_block()


def test_bang_is_e001_with_the_word_to_use() -> None:
    d = syntax_error("if !b {\n  a = 2\n}\n")
    assert (d.code, d.span.line, d.span.column) == ("E001", 6, 4)
    assert d.message == "unexpected character '!'" and "`not x`" in d.help


def test_a_header_keyword_typo_is_named() -> None:
    with pytest.raises(AlgError) as e:
        algspec.load_source("algoritm t\nnodes n\ngraph complete\n")
    d = e.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.column) == ("E002", 1, 1)
    assert "did you mean `algorithm`?" in d.message


# ---------------------------------------------------------------- lines that continue
WHILE_WRAPPED = "while a < 3 and\n    b bound n {\n  a += 1\n}\n"


def test_a_while_condition_broken_before_bound_says_how_to_continue_it() -> None:
    d = syntax_error(WHILE_WRAPPED)
    assert (d.code, d.span.line, d.span.column) == ("E002", 6, 16)
    assert "the `while` condition continues on the next line" in d.message
    assert "parentheses" in d.help and "newlines inside `(...)` are ignored" in d.help
    # the user's own two lines, wrapped as they would be written
    assert "`while (a < 3 and` ... `b) bound n {`" in d.help


def test_the_suggested_parentheses_parse() -> None:
    fixed = WHILE_WRAPPED.replace("while a < 3 and", "while (a < 3 and").replace(
        "b bound n", "b) bound n")
    algspec.load_source(H + fixed + "record\n")


@pytest.mark.parametrize("body, what", [
    ("if a < 3 or\n    b {\n  a = 1\n}\n", "the `if` condition"),
    ("state node c: int = 0\nforall v where c[v] < 2 and\n    c[v] > 0 { c[v] = 1 }\n",
     "the `where` guard"),
    ("let x = a +\n  1\n", "the expression"),
    ("while a < 3 bound n +\n  1 { a += 1 }\n", "the expression"),
])
def test_any_expression_broken_after_an_operator(body: str, what: str) -> None:
    d = syntax_error(body)
    assert f"{what} continues on the next line" in d.message
    assert "parentheses" in d.help


@pytest.mark.parametrize("body, head, keep", [
    ("while a < 3 and b\n    bound n {\n  a += 1\n}\n", "while", "`bound ...` and the opening"),
    ("if a < 3\n{\n  a = 1\n}\n", "if", "the opening `{`"),
    ("if a < 1 { a = 1 } else\n{ a = 2 }\n", "else", "the opening `{`"),
])
def test_a_block_opened_on_the_next_line(body: str, head: str, keep: str) -> None:
    d = syntax_error(body)
    assert f"the `{head}` statement continues on the next line" in d.message
    assert keep in d.help and f"on the `{head}` line" in d.help


# ---------------------------------------------------------------- defaults stay
def test_unknown_mistakes_keep_the_expected_list() -> None:
    d = syntax_error("a = min(1, b = 2)\n")  # a keyword argument: no targeted hint
    assert d.message == "unexpected '='" and d.help.startswith("expected ")


def test_expected_lists_name_anonymous_literals() -> None:
    d = syntax_error("hint node h: mask 3\n")
    assert d.message == "unexpected '3'" and "':='" in d.help, d.concise_block()


def test_a_name_that_is_a_foreign_keyword_still_works_as_data() -> None:
    alg = algspec.load_source(
        H.replace("state graph a", "state graph end") + "end = 1\nrecord\n")
    assert "end" in {d.name for d in alg.ir.decls}
