"""Active edges are distinct per round, and a trip count is a count (docs/efficiency.md,
"The worst case"): a record-free loop that re-reads the same edges on every trip touches
one trip's edges in its round (tests/corpus/worst_case/reread_edges.alg), and a loop the
skeleton sees run the same number of trips at every size runs O(1) of them whatever its
bound (while_twice_bound_m.alg). Both classes are in that folder's headers; here, the
cases the rules must not take for them."""

from __future__ import annotations

import pytest

import algspec
from algspec.lint.measured import measure

LOOP = """algorithm t
nodes n
graph complete

input edge D: scalar ~ erdos_renyi(p = 1.0, directed = true)
state graph t: float = 0.0
state graph p: int = 0

record
for i in 0 .. n {{
    for j in 0 .. n {{
        t = t + D[{row}, j]
    }}
    {after}
}}
record
"""


@pytest.mark.parametrize("row,after,active", [
    ("0", "", "n"),                          # the same row on every trip
    ("p", "", "n"),                          # a row nothing in the loop changes
    ("i", "", "n^2"),                        # a row per trip: n rows
    ("p", "p = (p + 1) % n", "n^2"),         # a row the loop moves on each trip
    ("p", "record", "n^2"),                  # one round per trip: each counts its own
])
def test_a_loop_re_reading_its_edges_counts_them_once_a_round(row, after, active) -> None:
    alg = algspec.load_source(LOOP.format(row=row, after=after), "t.alg")
    assert str(alg.static_efficiency().active_edges) == active


def test_the_controllers_choice_keeps_its_branch_re_reads() -> None:
    """At the fewest end a sequential `if` on data takes the cheaper branch, re-reads and all."""
    src = LOOP.format(row="0", after="").replace(
        "        t = t + D[0, j]",
        "        if D[0, j] > 0.5 {\n            t = t + D[0, j]\n        } else {\n"
        "            t = t - D[1, j]\n        }")
    s = algspec.load_source(src, "t.alg").static_efficiency()
    assert str(s.range("active_edges")) == "n"


def test_a_read_through_a_pointer_the_loop_writes_is_not_fixed() -> None:
    src = LOOP.format(row="p", after="p = int(D[p, 0] * n) % n").replace(
        "state graph t", "state graph q: int = 0\nstate graph t")
    assert str(algspec.load_source(src, "t.alg").static_efficiency().active_edges) == "n^2"


WHILE = """algorithm w
nodes n
graph complete

input node key: scalar ~ uniform()
state graph wc: int
hint node h: scalar

wc = 0
while (wc < {stop}) bound m {{
    forall v {{
        h[v] = key[v] + 1.0
    }}
    record
    wc += 1
}}
"""


@pytest.mark.parametrize("stop,T", [("2", "1"), ("n", "n"), ("n * n", "m")])
def test_a_constant_trip_count_is_constant_whatever_the_bound(stop: str, T: str) -> None:
    s = algspec.load_source(WHILE.format(stop=stop), "w.alg").static_efficiency()
    assert str(s.rounds) == T


def test_the_extreme_sample_settles_a_bimodal_mean() -> None:
    """A random graph-level flag decides a filter: two modes of epsilon, whose mean moves
    with the share of each; the sample furthest to the unsafe side does not."""
    alg = algspec.load_source("""algorithm b
nodes n
graph complete

input node key: scalar ~ uniform()
input graph s: scalar ~ uniform_scalar(low = 0.0, high = 2.0)
hint node h: scalar

for i in 0 .. n {
    forall v where s < 1.0 or v == 0 {
        h[v] = sum(key[u] for u in nodes if s < 1.0)
    }
    record
}
""", "b.alg")
    res = measure(alg, [8, 16, 32], samples=8, seed=1, extreme=True)
    low = [r.per_sample["epsilon"].min() for r in res.sizes]
    assert res.fits["epsilon"].ratios == pytest.approx(
        [x / res.static.edge_efficiency.evaluate(r.n, r.edges) for x, r in zip(low, res.sizes)])
    assert res.fits["epsilon"].verdict != "EXCEEDS worst case"


def test_the_extreme_sample_still_sees_a_wrong_class() -> None:
    """Compared against a class that is too small (T = 1 for a program of n rounds), the
    sample furthest to the unsafe side exceeds it, as the mean does."""
    from pathlib import Path
    progs = Path(__file__).resolve().parents[1] / "corpus" / "worst_case"
    alg = algspec.load(progs / "if_once.alg")
    wrong = algspec.load(progs / "while_twice_bound_m.alg").static_efficiency()
    for extreme in (False, True):
        res = measure(alg, [8, 16, 32], samples=4, seed=1, static=wrong, extreme=extreme)
        assert res.fits["T"].verdict == "EXCEEDS worst case", res.fits["T"].ratios
