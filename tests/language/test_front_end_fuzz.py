"""Fuzzing the front end: any text is a diagnostic (`AlgError`) or a program, quickly.

Inputs are programs generated from the grammar (`grammar.lark`, tokens spaced so
that they lex as generated) and shipped algorithms, in `.alg` and YAML form,
under random edits: insertions of hostile snippets, deletions, duplicated lines
and deep nesting. Each goes through `algspec.load_source` and lint without
sampling, in process. Derandomized and database-less, so every run tries the
same inputs.
"""

from __future__ import annotations

import contextlib
import os
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from unittest import mock

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

import algspec
from algspec.diagnostics import AlgError
from algspec.language.parser import _GRAMMAR, is_library
from algspec.language.yaml_writer import to_yaml
from algspec.lint import lint_source

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "algorithms").rglob("*.alg"))

FUZZ = settings(deadline=timedelta(seconds=5), derandomize=True,
                database=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large,
                                                      HealthCheck.filter_too_much])

SNIPPETS = ["(" * 60, ")" * 60, "[" * 60, "{", "}", '"', "'", "\x00", "\t", "\\\n", "#", "9" * 5000,
            "-" * 400, " + ".join(["x"] * 300), 'include "/dev/zero"\n', "\nalgorithm x\n",
            "key: [", "&a ", "*a", "- - - -", ": |", "forall v {", "while true {",
            "proc f(i) depth 100000000 calls 100000000 { f(i) }\n", "nodes n ** 100\n", "1e999", "\r",
            "\ufeff", "é", "\n" * 3, ";;", "by", "else", "..", "**", "record\n"]


def _check(text: str, path: str) -> None:
    """A diagnostic or success, from loading and from lint (no sampling, no cache)."""
    with mock.patch.dict(os.environ, {"ALGSPEC_NO_CACHE": "1"}):
        with contextlib.suppress(AlgError):  # a diagnostic is an allowed outcome
            algspec.load_source(text, path)
        assert isinstance(lint_source(text, path, sample=False), list)


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Imports and the parser are built once, outside the per-input time limit."""
    _check((ROOT / SHIPPED[0]).read_text(), SHIPPED[0])


@lru_cache(maxsize=1)
def _grammar_programs() -> st.SearchStrategy[str]:
    g = lark.Lark(_GRAMMAR.read_text(), parser="lalr", start=["start", "library"])
    names = st.sampled_from(["n", "m", "N", "x", "key", "target", "v", "u", "i", "f",
                             "scalar", "mask", "pointer", "node", "edge", "graph", "input",
                             "hint", "output", "state", "uniform", "complete", "empty"])
    explicit = {t.name: st.just(f" {t.pattern.value} ") for t in g.terminals
                if isinstance(t.pattern, lark.lexer.PatternStr)}
    explicit.update({
        "NAME": names.map(lambda s: f" {s} "),
        "NUMBER": st.sampled_from(["0", "1", "2", "0.5", "1e3", "99999999999999999999"]),
        "INT": st.sampled_from(["0", "1", "8"]),
        "STRING": st.just(' "probe" '),
        "STRING_PATH": st.sampled_from(['"missing.alg"', '"/dev/null"', '"."']),
        "ASSIGN_OP": st.sampled_from([" = ", " += "]),
        "COMP_OP": st.sampled_from([" < ", " == ", " >= "]),
        "SHIFT_OP": st.just(" << "),
        "ADD_OP": st.sampled_from([" + ", " - "]),
        "MUL_OP": st.sampled_from([" * ", " // ", " % "]),
        "AGG_OP": st.sampled_from([" min", " sum", " argmax"]),
        "_ELSE": st.just("\nelse "),
        "_NL": st.just("\n"),
        "COMMENT": st.just(" # c"),
    })
    return from_lark(g, start="start", explicit=explicit)


@st.composite
def _mutated(draw) -> tuple[str, str]:
    path = draw(st.sampled_from(SHIPPED))
    text = (ROOT / path).read_text()
    if draw(st.booleans()) and not is_library(text):
        text, path = to_yaml(text), path.removesuffix(".alg") + ".yaml"
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "nest"]))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(SNIPPETS) | st.text(max_size=20)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 200)):]
        elif kind == "duplicate":
            lines = text.split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            lines[k:k] = [lines[k]] * draw(st.integers(1, 3))
            text = "\n".join(lines)
        else:
            end = draw(st.integers(at, min(len(text), at + 80)))
            opener = draw(st.sampled_from(["(", "[", "{", "-", "not "]))
            closer = {"(": ")", "[": "]", "{": "}"}.get(opener, "")
            depth = draw(st.integers(1, 400))
            text = text[:at] + opener * depth + text[at:end] + closer * depth + text[end:]
    return text, path


@settings(FUZZ, max_examples=150)
@given(_mutated())
def test_mutated_shipped_files_give_diagnostics(case: tuple[str, str]) -> None:
    _check(*case)


@settings(FUZZ, max_examples=12)  # generating from the grammar is the slow part
@given(st.data())
def test_programs_from_the_grammar_give_diagnostics(data) -> None:
    text = data.draw(_grammar_programs())
    _check(text, "generated.alg")
    if data.draw(st.booleans()):  # its YAML form, where it has one
        with contextlib.suppress(AlgError):  # some programs have no YAML form
            _check(to_yaml(text), "generated.yaml")
