"""One mistake is one diagnostic: what a reported mistake leaves undefined is not reported again.

A `let` whose value was reported (E204, E206, ...) leaves a local that later reads and
writes use silently; a datum whose declaration was reported (E102, E103, E109) likewise;
an unknown name is reported once, its later uses listed in the help.
"""

from __future__ import annotations

import pytest

import algspec
from algspec.diagnostics import AlgError, Diagnostic

H = "algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"


def diagnostics(src: str) -> list[Diagnostic]:
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "t.alg")
    return e.value.diagnostics


def codes(src: str) -> list[tuple[str, int]]:
    return [(d.code, d.span.line) for d in diagnostics(src)]


def test_a_failed_let_is_reported_once() -> None:
    src = H + ("hint node p: pointer := index\nstate graph x: float = 0.0\n"
               "let y = p[0] * 1.5\n"        # line 7: E204, pointer used as a number
               "x = y\nx = y + 1.0\n"        # reads of y
               "y = 2.0\n"                   # a write of y
               "record\n")
    assert codes(src) == [("E204", 7)]


def test_a_failed_let_inside_a_forall_and_a_procedure_call() -> None:
    src = H + ("hint node p: pointer := index\nstate node c: float = 0.0\n"
               "state graph x: float = 0.0\nproc f(q) { x = q }\n"
               "forall v { let y = p[v] * 1.5; c[v] = y }\n"
               "let z = unknown_thing\nf(z)\nx = z + c[0]\nrecord\n")
    assert codes(src) == [("E204", 9), ("E206", 10)]


def test_the_local_is_defined_again_by_a_later_good_let() -> None:
    src = H + ("hint node p: pointer := index\nstate graph x: float = 0.0\n"
               "let y = p[0] * 1.5\nlet y = 2.5\nx = y\nx = w\nrecord\n")
    assert codes(src) == [("E204", 7), ("E206", 10)]


def test_a_failed_let_does_not_leak_out_of_its_block() -> None:
    src = H + ("hint node p: pointer := index\nstate graph x: float = 0.0\n"
               "if x > 0.0 { let y = p[0] * 1.5 }\nx = y\nrecord\n")
    ds = diagnostics(src)
    assert [(d.code, d.span.line) for d in ds] == [("E204", 7), ("E206", 8)]
    assert ds[1].message == "unknown name `y`"


@pytest.mark.parametrize("decl, code", [
    ("hint node h: banana", "E102"),
    ("hint node h: categorical", "E103"),
    ("state node h: scalar = 0.0", "E103"),
])
def test_uses_of_a_rejected_declaration_add_nothing(decl: str, code: str) -> None:
    src = H + decl + ("\nstate graph x: float = 0.0\n"
                      "x = h[0]\nforall v { h[v] = 1 }\nx = float(h[1]) + 1.0\nrecord\n")
    assert codes(src) == [(code, 5)]


def test_a_datum_with_a_reserved_name_is_reported_once() -> None:
    src = H + "state graph index: int = 0\nstate graph x: int = 0\nindex = 3\nx = index\nrecord\n"
    assert codes(src) == [("E109", 5)]


def test_an_unknown_name_is_reported_once_with_its_other_lines() -> None:
    src = H + ("state graph x: float = 0.0\nx = zz\nx = zz * 2.0\n"
               "forall v { x = zz by max }\nx = zz + zz\nrecord\n")
    ds = diagnostics(src)
    assert [(d.code, d.span.line, d.span.column) for d in ds] == [("E206", 6, 5)]
    assert "`zz` is also used on lines 7, 8, 9" in ds[0].help


def test_an_unknown_name_keeps_its_own_help_and_distinct_names_are_each_reported() -> None:
    src = H + "state graph x: int = 0\nzz = 1\nzz = 2\nx = yy\nrecord\n"
    ds = diagnostics(src)
    assert [(d.code, d.span.line) for d in ds] == [("E206", 6), ("E206", 8)]
    assert ds[0].help.startswith("declare it") and "also used on line 7" in ds[0].help
    assert ds[1].message == "unknown name `yy`"


def test_an_unknown_name_in_a_procedure_called_twice_is_one_diagnostic() -> None:
    src = H + "state graph x: int = 0\nproc f(a) { x = qq + a }\nf(1)\nf(2)\nrecord\n"
    ds = diagnostics(src)
    assert [(d.code, d.span.line) for d in ds] == [("E206", 6)]
    assert "also used" not in (ds[0].help or "")
