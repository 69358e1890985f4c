"""The headline classes are the fewest end of each range, the paper's worst case (its
Table 2: Kosaraju and DCSC at eta = 1/n); the most end stays beside them in `ranges`.

Two spellings of one program (a data-dependent `where`, and the guard-free conditional
update) compute the same samples and share the most end of work; the guard's fewest end
is the idle processors it may leave.
"""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.efficiency.worst_case import HEADLINE, RANGED

HEAD = """algorithm {name}
nodes n
graph complete
input node x: scalar ~ uniform()
hint node y: scalar
record
for t in 0 .. n {{
    round {{ {body} }}
    record
}}
"""
GUARDED = "forall v where x[v] > 0.5 { y[v] = y[v] + 1.0 }"
GUARD_FREE = "forall v { y[v] = y[v] + (1.0 if x[v] > 0.5 else 0.0) }"


def _load(name: str, body: str):
    return algspec.load_source(HEAD.format(name=name, body=body), f"{name}.alg")


def test_guarded_and_guard_free_spellings_share_the_most_end_of_work() -> None:
    guarded, free = _load("counter", GUARDED), _load("counter", GUARD_FREE)
    a, b = guarded.sample(8, 3, 0), free.sample(8, 3, 0)
    for k in a.hints:  # one program: identical samples
        np.testing.assert_array_equal(a.hints[k], b.hints[k])
    sg, sf = guarded.static_efficiency(), free.static_efficiency()
    assert str(sg.range("work")) == "n .. n^2"      # the guard is a data-dependent choice
    assert sg.range("work").most == sf.range("work").most == sf.work
    assert (str(sg.work), str(sg.node_efficiency)) == ("n", "1/n")  # the fewest end


@pytest.mark.parametrize("body", [GUARDED, GUARD_FREE])
def test_each_headline_class_is_its_headline_end(body: str) -> None:
    s = _load("counter", body).static_efficiency()
    fields = {"work": s.work, "active_edges": s.active_edges, "eta": s.node_efficiency,
              "epsilon": s.edge_efficiency}
    for q in RANGED:
        assert fields[q] == s.range(q).at(HEADLINE[q]), q
    assert s.node_efficiency == s.work / s.capacity
    assert s.json_dict()["work"] == str(s.work)


def test_epsilon_keeps_the_fewest_end() -> None:
    s = _load("counter", GUARDED).static_efficiency()
    assert str(s.range("epsilon")) == "1/n^2 .. 1/n"
    assert str(s.edge_efficiency) == "1/n^2"


@pytest.mark.parametrize("name", ["kosaraju", "dcsc"])
def test_the_paper_s_table_2_eta_is_the_headline(name: str) -> None:
    s = algspec.load(f"algorithms/{name}.alg").static_efficiency()
    assert str(s.node_efficiency) == "1/n"
    assert s.range("eta").fewest == s.node_efficiency
