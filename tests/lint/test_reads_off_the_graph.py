"""L107: a processor reads another node's data only along the declared interconnection
graph (its neighbours, an offset the graph joins, a pointer probe's edge) or through
shared data; any other read names the read and the graph that would carry it."""

from __future__ import annotations

import pytest

import algspec
from algspec.lint import ir_rules, lint_source
from tests.support.small_programs import HILLIS_STEELE


def _messages(source: str) -> list[str]:
    prog = algspec.load_source(source, "t.alg").ir
    return [d.message for d in ir_rules(prog) if d.code == "L107"]


def _says(read: str, graph: str, fits: str) -> str:
    """L107's message for `read` (`x[i]`) under `graph`, suggesting `graph fits`."""
    index = read[read.index("[") + 1:-1]
    return (f"`{read}` reads processor {index}, which graph {graph} does not connect to v; "
            f"declare `graph {fits}`")


def _program(graph: str, decls: str, body: str) -> str:
    return (f"algorithm t\nnodes n\ngraph {graph}\n"
            "input node x: scalar ~ uniform()\n" + decls +
            "hint node h: scalar\nrecord\n" + body + "record\n")


@pytest.mark.parametrize("graph", ["empty", "path", "star"])
def test_hillis_steele_off_a_small_graph_is_reported(graph: str) -> None:
    (d,) = [d for d in lint_source(HILLIS_STEELE.format(graph=graph), "hs.alg", sample=False)
            if d.code == "L107"]
    assert d.message == (f"`cur[v - d]` reads processor v - d, which graph {graph} does not "
                         "connect to v; declare `graph complete`")
    assert (d.span.line, d.span.column) == (12, 50)
    assert d.severity.value == "warning" and d.help


def test_hillis_steele_on_the_complete_graph_is_clean() -> None:
    assert _messages(HILLIS_STEELE.format(graph="complete")) == []


def test_local_and_shared_reads_are_clean_on_any_graph() -> None:
    body = ("let s = n - 1\nround {\n  forall v { h[v] = x[v] + x[s] + x[0] + "
            "max(x[w] for w in nodes) }\n}\n")
    for graph in ("empty", "path", "star"):
        assert _messages(_program(graph, "", body)) == [], graph


def test_sequential_reads_are_the_controllers() -> None:
    body = "for i in 1 .. n {\n  h[i] = x[i - 1] + x[n - i]\n}\n"
    assert _messages(_program("empty", "", body)) == []


def test_neighbour_aggregations_travel_the_graph() -> None:
    body = "forall v { h[v] = max(x[u] for u in incoming(v), default = 0.0) }\n"
    assert _messages(_program("path", "", body)) == []
    assert _messages(_program("empty", "", body)) == []
    graph_input = ("input edge A: mask ~ erdos_renyi(p = 0.5)\n")
    assert _messages(_program("input A", graph_input, body)) == []
    filtered = "forall v { h[v] = max(x[u] for u in nodes if A[v, u], default = 0.0) }\n"
    assert _messages(_program("input A", graph_input, filtered)) == []


def test_an_aggregation_over_all_nodes_that_depends_on_the_processor_is_remote() -> None:
    graph_input = "input edge A: mask ~ erdos_renyi(p = 0.5)\n"
    body = "forall v { h[v] = float(count(x[u] < x[v] for u in nodes)) }\n"
    assert _messages(_program("input A", graph_input, body)) == [_says("x[u]", "input A", "complete")]


def test_pointer_dereferences_travel_pointer_edges() -> None:
    body = "forall v { h[v] = x[p[v]] }\n"
    pointer_input = "input node p: pointer ~ random_tree()\n"
    assert _messages(_program("empty", pointer_input, body)) == []
    # state exposed as a pointer hint: CLRS's adjacency holds its edges too
    exposed = "state node p: int = index\nhint node ph: pointer = p\n"
    assert _messages(_program("empty", exposed, body)) == []
    # an int state no probe shows is no edge of the graph a model sees
    hidden = "state node p: int = index\n"
    assert _messages(_program("empty", hidden, body)) == [_says("x[p[v]]", "empty", "complete")]


def test_an_offset_is_judged_by_the_graph_kinds_table() -> None:
    body = "forall v where v + 1 < n { h[v] = x[v + 1] }\n"
    assert _messages(_program("path", "", body)) == []
    assert _messages(_program("empty", "", body)) == [_says("x[v + 1]", "empty", "path")]
    # a larger graph must keep the declared edges as well: only complete holds both
    assert _messages(_program("input A", "input edge A: mask ~ erdos_renyi(p = 0.5)\n",
                              body))[0].endswith("declare `graph complete`")
    assert _messages(_program("path", "", body.replace("v + 1", "v + 2")))[0].endswith(
        "declare `graph complete`")


@pytest.mark.parametrize("index", ["(v + 1) % n", "(v - 1) % n", "(v + 1) % N",
                                   "(v - 1 + n) % n", "(n + v - 1) % N"])
def test_a_read_round_the_ring_is_along_its_edges(index: str) -> None:
    body = f"forall v {{ h[v] = x[{index}] }}\n"
    for graph in ("ring", "ring directed", "complete"):
        assert _messages(_program(graph, "", body)) == [], graph
    # off the end of a path or a star: the smallest graph that wraps round and keeps
    # the declared edges (the path's are the ring's; the star's only the complete graph's)
    assert _messages(_program("path", "", body)) == [_says(f"x[{index}]", "path", "ring")]
    assert _messages(_program("empty", "", body)) == [_says(f"x[{index}]", "empty", "ring")]
    assert _messages(_program("star", "", body)) == [_says(f"x[{index}]", "star", "complete")]


def test_a_modulus_other_than_the_node_count_is_not_round_the_ring() -> None:
    body = "forall v { h[v] = x[(v + 1) % n] }\n"
    wider = _program("ring", "", body).replace("nodes n\n", "nodes n + 1\n")
    assert _messages(wider) == [_says("x[(v + 1) % n]", "ring", "complete")]
    assert _messages(_program("ring", "", body.replace("% n", "% 3"))) == [
        _says("x[(v + 1) % 3]", "ring", "complete")]


def test_a_processor_local_is_followed_to_its_value() -> None:
    body = ("round {\n  forall v {\n    let q = v - 1 if v > 0 else v\n    h[v] = x[q]\n  }\n}\n"
            "round {\n  forall v {\n    let k = 1\n    h[v] = x[k]\n  }\n}\n")
    assert _messages(_program("empty", "", body)) == [_says("x[q]", "empty", "path")]


def test_an_allow_comment_silences_it() -> None:
    source = HILLIS_STEELE.format(graph="path").replace(
        "cur[v - d]) }", "cur[v - d]) }  # allow: L107")
    assert [d for d in lint_source(source, "hs.alg", sample=False) if d.code == "L107"] == []


def test_a_clamped_or_conditional_index_is_judged_by_each_value() -> None:
    clamped = "forall v { h[v] = x[max(v - 1, 0)] }\n"
    assert _messages(_program("path", "", clamped)) == []
    assert _messages(_program("empty", "", clamped)) == [
        _says("x[max(v - 1, 0)]", "empty", "path")]
    either = ("round {\n  forall v {\n    let q = v + 1 if v % 2 == 0 else v - 1\n"
              "    if q >= 0 and q < n { h[v] = x[q] }\n  }\n}\n")
    assert _messages(_program("path", "", either)) == []
    mixed = "forall v { h[v] = x[v + 1 if v == 0 else v - 2] }\n"
    assert _messages(_program("path", "", mixed))[0].endswith("declare `graph complete`")
