"""Hostile source text is a diagnostic at its place, never a Python exception.

Deep nesting (YAML collections, .alg expressions and blocks), duplicate YAML
keys, YAML aliases, integer literals of thousands of digits and programs past
the parser's size are each refused by the front end with a code and a position.
"""

from __future__ import annotations

import gc
import time

import pytest

import algspec
from algspec.diagnostics import AlgError
from algspec.language import parser
from algspec.lint import lint_source

YAML = """algorithm: hostile
nodes: n
graph: empty
data:
  - 'input graph t: scalar ~ uniform_scalar(low = 0.0, high = 1.0)'
  - 'output graph r: scalar'
body: |
  r = t
  record
"""

ALG = """algorithm hostile
nodes n
graph empty
input graph t: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
output graph r: scalar
r = {value}
record
"""


def _errors(source: str, path: str) -> list:
    with pytest.raises(AlgError) as e:
        algspec.load_source(source, path)
    return e.value.diagnostics


def test_the_fixtures_load() -> None:
    assert algspec.load_source(YAML, "h.yaml").name == "hostile"
    assert algspec.load_source(ALG.format(value="t"), "h.alg").name == "hostile"


def test_deeply_nested_yaml_is_E005_where_it_nests() -> None:
    (d,) = _errors(YAML + "extra: " + "[" * 5000 + "\n", "h.yaml")
    assert d.code == "E005" and "nested too deeply" in d.message and d.span.line == 10
    deep_item = YAML.replace("  - 'output graph r: scalar'", "  - " + "[" * 3000 + "1" + "]" * 3000)
    (d,) = _errors(deep_item, "h.yaml")
    assert d.code == "E005" and d.span.line == 6
    assert [x.code for x in lint_source(deep_item, "h.yaml", sample=False)] == ["E005"]


def test_a_duplicate_yaml_key_is_E005_at_the_second() -> None:
    (d,) = _errors(YAML.replace("nodes: n\n", "nodes: n\nalgorithm: other\n"), "h.yaml")
    assert (d.code, d.span.line, d.span.column) == ("E005", 3, 1)
    assert "duplicate key `algorithm`" in d.message


def test_a_yaml_alias_is_E005() -> None:
    text = YAML.replace("nodes: n", "nodes: &x n").replace("graph: empty",
                                                            "graph: empty\nextra: *x")
    (d,) = _errors(text, "h.yaml")
    assert d.code == "E005" and "alias" in d.message


@pytest.mark.parametrize("value", ["-" * 10_000 + "t", " + ".join(["t"] * 5_000),
                                   "(" * 200 + "-" * 300 + "t" + ")" * 200])
def test_deep_expressions_are_E004(value: str) -> None:
    (d,) = _errors(ALG.format(value=value), "h.alg")
    assert d.code == "E004" and d.span.line == 6 and "at most" in (d.help or "")


def test_deep_blocks_are_E004() -> None:
    body = "if t > 0.5 {\n" * 500 + "r = t\n" + "}\n" * 500
    (d,) = _errors(ALG.format(value="t").replace("r = t\n", body), "h.alg")
    assert d.code == "E004"


def test_nesting_below_the_limit_runs_through_every_stage() -> None:
    """Everything the parser takes, the checks, efficiency and interpreter take too."""
    def source(blocks: int, terms: int) -> str:
        body = ("if t > 0.5 {\n" * blocks + "r = " + " + ".join(["t"] * terms) + "\n" +
                "}\n" * blocks)
        return ALG.format(value="t").replace("r = t\n", body)

    for blocks, terms in [(parser.MAX_NESTING // 2, 1), (parser.MAX_NESTING // 4, 100),
                          (1, parser.MAX_NESTING)]:
        while True:  # the deepest program of this shape that the parser takes
            try:
                alg = algspec.load_source(source(blocks, terms), "h.alg")
                break
            except AlgError as e:
                assert e.diagnostics[0].code == "E004"
                blocks, terms = (blocks - 1, terms) if terms == 1 else (blocks, terms - 1)
        alg.static_efficiency()
        assert lint_source(source(blocks, terms), "h.alg", sample=True) is not None
        _, probes = alg.trace(n=4, t=0.75)
        assert float(probes["output"]["graph"]["r"]["data"]) == pytest.approx(terms * 0.75)


def test_parentheses_alone_do_not_nest() -> None:
    alg = algspec.load_source(ALG.format(value="(" * 10_000 + "t" + ")" * 10_000), "h.alg")
    assert alg.name == "hostile"


def test_a_5000_digit_literal_is_out_of_range() -> None:
    (d,) = _errors(ALG.format(value="9" * 5000), "h.alg")
    assert d.code == "E205" and "5000 digits" in d.message
    assert (d.path, d.span.line, d.span.column) == ("h.alg", 6, 5)


def test_a_program_past_the_token_limit_is_E006(monkeypatch) -> None:
    monkeypatch.setattr(parser, "MAX_TOKENS", 500)
    (d,) = _errors(ALG.format(value="t") + "r = t + 1.0\n" * 200, "h.alg")
    assert d.code == "E006" and "more than 500 tokens" in d.message and d.span.line > 6


def _parse_seconds(lines: int) -> float:
    source = ALG.format(value="t") + "r = t * 2.0 + 1.0\n" * lines
    best = float("inf")
    gc.collect()
    gc.disable()  # a collection landing in one run would count against its size
    try:
        for _ in range(3):
            start = time.process_time()
            parser.parse(source, "h.alg")
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def test_parsing_time_grows_linearly() -> None:
    parser.parse(ALG.format(value="t"), "h.alg")  # the parser is built once
    small, large = _parse_seconds(500), _parse_seconds(2000)
    assert large / max(small, 1e-3) < 8  # 4 when linear, 16 when quadratic
