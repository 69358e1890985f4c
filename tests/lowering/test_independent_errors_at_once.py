"""A mistake in a loop's header or an `if` condition does not hide the mistakes of its body:
lint reports every independent error at once, not one phase per fix."""

from __future__ import annotations

import pytest

import algspec
from algspec.lint import lint_source

HEAD = """algorithm t
nodes n
graph complete
input node key: scalar ~ uniform()
hint node best: scalar
output node out: scalar = best
state graph i: int = 0
record
"""
CONFLICT = "forall v, u { best[v] = key[u] }"


def _errors(body: str) -> list[tuple[str, int]]:
    return sorted((d.code, d.span.line) for d in lint_source(HEAD + body, "t.alg")
                  if d.severity.value == "error")


@pytest.mark.parametrize(("header", "code"), [
    ("while i < n {", "E604"),                      # no bound
    ("while i < n bound n * key[0] {", "E601"),     # a bound that reads data
    ("while key[0] {", "E205"),                     # a condition that is not boolean
    ("for j in 0 .. key[0] {", "E203"),             # a range end that is not an integer
    ("for j in 0 .. i {", "E602"),                  # a data-dependent end without a bound
    ("if key[0] + true {", "E205"),                 # an `if` condition that does not type
])
def test_a_header_error_and_a_write_conflict_in_the_body_are_both_reported(header, code):
    body = f"{header}\n    {CONFLICT}\n    i = i + 1\n    record\n}}\n"
    assert _errors(body) == sorted([(code, 9), ("E401", 10)])


def test_the_loop_variable_of_a_failed_header_is_no_new_mistake() -> None:
    body = f"for j in 0 .. key[0] {{\n    {CONFLICT}\n    best[j] = 1.0\n    record\n}}\n"
    assert _errors(body) == [("E203", 9), ("E401", 10)]


def test_load_raises_with_every_error() -> None:
    body = f"while i < n {{\n    {CONFLICT}\n    i = i + 1\n    record\n}}\n"
    with pytest.raises(algspec.AlgError) as e:
        algspec.load_source(HEAD + body, "t.alg")
    assert sorted(d.code for d in e.value.diagnostics) == ["E401", "E604"]
