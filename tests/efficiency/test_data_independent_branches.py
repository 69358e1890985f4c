"""A sequential `if` that reads no input data runs the same branch on every input: T counts
the branch where it runs (docs/efficiency.md, "The worst case", rule 1), not on every trip
of the loops around it. Its condition may read sizes, loop variables and node state
computed from no input (tests/corpus/worst_case/if_once.alg, if_node_state.alg; their
classes are their headers' `# expect classes:`, tests/support/corpus_expectations.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import algspec
from algspec.efficiency.analysis import selections
from algspec.efficiency.dependence import Taint
from algspec.lint.measured import measure
from tests.support import corpus_expectations as corpus

HERE = Path(__file__).resolve().parents[1]
PROGS = HERE / "corpus" / "worst_case"

LOOP = """algorithm t
nodes n
graph complete

input node key: scalar ~ uniform()
state graph t: float = 0.0

record
for p in 0 .. n {{
    if {cond} {{
        for j in 0 .. n {{
            t = t + key[j]
            record
        }}
    }}
    record
}}
"""


def _classes(alg) -> tuple[str, ...]:
    s = alg.static_efficiency()
    return tuple(str(x) for x in (s.rounds, s.capacity, s.node_efficiency,
                                  s.edge_efficiency))


@pytest.mark.parametrize("name", ["if_once", "if_node_state"])
def test_a_branch_that_runs_once_is_counted_once(name: str) -> None:
    alg = algspec.load(PROGS / f"{name}.alg")
    want = corpus.folder("worst_case")[name].classes
    assert want == ("n", "n^2", "1/n", "1/n^2")  # T n, not n^2: the branch runs once
    assert _classes(alg) == want
    res = measure(alg, [8, 16, 32], samples=2, seed=0, worst_case=True)
    assert res.fits["T"].verdict == "agrees", res.fits["T"].ratios


@pytest.mark.parametrize("cond,T", [
    ("p == 0", "n"),                 # once
    ("p < 3", "n"),                  # a constant number of times
    ("p % 2 == 0", "n^2"),           # half the trips: still n of them
    ("p * p < n", "n^(3/2)"),        # sqrt(n) of them
    ("key[p] < 0.5", "n^2"),         # on data: both branches, on every trip
])
def test_the_share_of_trips_a_branch_runs(cond: str, T: str) -> None:
    assert _classes(algspec.load_source(LOOP.format(cond=cond)))[0] == T


def test_the_sieve_reads_its_own_node_state() -> None:
    # `if not comp[p]` reads `comp`, written only by the sieve itself from no input: the
    # skeleton follows it, so the branch is taken on the primes p <= sqrt(n) only.
    alg = algspec.load(HERE / "corpus" / "textbook" / "sieve_step.alg")
    sel = selections(alg.ir, Taint(alg.ir))
    (key,) = [k for k in sel.raw if k[1] == "then"]
    for size, share in sel.raw[key]:
        ps = range(2, int(size ** 0.5) + 1)
        primes = [p for p in ps if all(p % d for d in range(2, p))]
        assert share == pytest.approx(len(primes) / len(ps)), size
    assert str(sel.share(key)) == "1/log n"
