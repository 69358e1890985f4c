"""Static efficiency of small programs written from the README alone (tests/corpus/efficiency/).

Each program states its textbook classes, derived by hand, in its header comment;
programs that compute the same thing in different syntax (a guard or an `if`, a
whole-array assignment or a forall, a while loop with a counter or a for loop, a
helper procedure or inline code, a `let` or the expression inline, node or edge
processors) must get the same classes. The derivations, in brief (complete graph:
|E| = n^2, input graph: |E| = m):

* a sequential pass, one element per round: T = n, c = n^2, work n (eta 1/n), one
  dereference per round (eps n / (n n^2) = 1/n^2); binary search: the same with
  T = log n;
* tree reduction: log n rounds selecting n/2 + n/4 + ... = n processors: eta 1/log n,
  one read each: eps n / (n^2 log n) = 1/(n log n);
* Hillis-Steele, pointer jumping, odd-even transposition, a triangular sweep
  (`v < i` in round i): a constant share of the nodes busy every round (eta 1), one
  read each (eps 1/n on the complete graph);
* all-pairs comparisons in one round (rank sort, max over neighbours): eta 1, eps 1;
* label propagation and degrees on an input graph: every node and edge busy every
  round: eta 1, eps 1, whether written with node or edge processors;
* a pass over a prefix that doubles each phase: 1 + 2 + 4 + ... < 2n rounds: T = n.

Edge cases these programs pin:

* `forall v, u where A[v, u] != 0` (the README's edge-forall idiom, on a graph whose
  mask is `adjacency(A)`) was a data-dependent O(1) selection: label propagation got
  eta 1/n, eps 1/m instead of 1, 1;
* a loop over a prefix that doubles each phase counted its declared bound n on each
  of the log n phases: T = n log n instead of n;
* an edge forall's guard on its ends' data (`where key[u] < key[v]`) charged only
  the selected edges (rank sort eps 1/n^2 instead of 1, the `if` form's).

A graph-level `any` readout is decided by its witnesses (parallel OR as a readout:
eta 1/n .. 1), as the guarded CRCW form; the unguarded CRCW form, where every
processor writes its test's value, keeps every node busy (docs/efficiency.md, the
worst case).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import algspec
from algspec.efficiency.asymptotic import Asymptotic
from algspec.lint.measured import measure
from tests.support import corpus_expectations as corpus

HERE = Path(__file__).resolve().parents[1] / "corpus" / "efficiency"
P = Asymptotic.parse

# Each file's textbook (T, c, eta, epsilon) and its group of equivalent programs are in its
# header (`# expect classes:`, `# expect group:`; tests/support/corpus_expectations.py). A merged
# duplicate runs its kept copy under its old name (root_jump: parallel/forest_roots,
# bsearch_while: sequential_efficiency/bs_while).
FILES = corpus.folder("efficiency")
PATHS = {name: e.path for name, e in FILES.items()}
EXPECTED = {name: e.classes for name, e in FILES.items() if e.classes is not None}
GROUPS = {group: (tuple(names), EXPECTED[names[0]])
          for group, names in corpus.groups(FILES).items()}


def _classes(name: str) -> tuple[Asymptotic, ...]:
    s = algspec.load(PATHS[name]).static_efficiency()
    return s.rounds, s.capacity, s.node_efficiency, s.edge_efficiency


def test_every_program_has_an_expectation() -> None:
    files = {p.stem for p in HERE.glob("*.alg")}
    assert files - set(EXPECTED) <= {"rank_edge_where", "or_readout"}
    assert set(EXPECTED) <= files | {"root_jump", "bsearch_while"}
    assert len(GROUPS) == 21 and len(EXPECTED) == 61
    for names, want in GROUPS.values():  # a group states one set of classes
        assert all(EXPECTED[name] == want for name in names), names


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_static_classes_are_the_textbook_classes(name: str) -> None:
    want = tuple(P(x) for x in EXPECTED[name])
    got = _classes(name)
    assert got == want, (name, [str(x) for x in got])


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_equivalent_programs_get_equal_classes(group: str) -> None:
    names = GROUPS[group][0]
    first = [str(x) for x in _classes(names[0])]
    for other in names[1:]:
        assert [str(x) for x in _classes(other)] == first, (group, other)


# Measured activity on sampled (worst-case) inputs must agree with the static classes up to
# a constant factor (no log-factor trend). Sizes stay small: a few seconds in all.
MEASURED = ["seq_sum_for", "seq_search_break", "doubling_seq", "bsearch_while",
            "tree_sum_guard", "tree_sum_halves", "scan_guard_while", "root_jump", "oets_guard",
            "tri_guard", "rank_count", "rank_edge_if", "max_crcw", "label_node", "label_edge_A",
            "degree_edge", "stencil_path_ptr", "closure_if", "smooth_let", "star_gather"]


@pytest.mark.parametrize("name", MEASURED)
def test_measured_agrees_with_static(name: str) -> None:
    res = measure(algspec.load(PATHS[name]), [8, 16, 32, 64], samples=2, seed=1,
                  worst_case=True)
    for q in ("T", "c", "eta", "epsilon"):
        f = res.fits[q]
        assert f.verdict == "agrees", (name, q, f.ratios)
        assert max(f.ratios) / min(f.ratios) < 4, (name, q, f.ratios)


# ------------------------------------------------------------ edge cases
def test_the_readme_edge_idiom_selects_every_edge() -> None:
    # `forall v, u where A[v, u] != 0` with `adj = adjacency(A)` runs on every edge of the
    # graph but the self-loops: label propagation keeps all nodes and edges busy.
    eta, eps = _classes("label_edge_A")[2:]
    assert (eta, eps) == (P("1"), P("1")), (str(eta), str(eps))
    assert _classes("degree_edge") == _classes("degree_node")


GRAPH_HEAD = """algorithm t
nodes n
graph input adj
input  edge  A: scalar ~ erdos_renyi(p = 0.5, weighted = true)
input  edge  adj: mask = %s
state  node  lab: int := index
hint   node  h: pointer = lab
record
for k in 0 .. n {
    forall v, u where %s { lab[v] = min(lab[v], lab[u]) by min }
    record
}
"""


@pytest.mark.parametrize(("mask", "guard", "eps"), [
    ("adjacency(A)", "A[v, u] != 0", "1"),
    ("adjacency(A)", "0 != A[v, u]", "1"),
    ("adjacency(A) or adjacency(transpose(A))", "A[u, v] != 0", "1"),  # DCSC's mask
    ("adjacency(A)", "A[v, u] != 0 and v < u", "1"),          # half the edges
])
def test_edge_tests_of_the_graph_mask_select_every_edge(mask: str, guard: str,
                                                        eps: str) -> None:
    s = algspec.load_source(GRAPH_HEAD % (mask, guard)).static_efficiency()
    assert (str(s.node_efficiency), str(s.edge_efficiency)) == ("1", eps)


def test_an_edge_guard_on_its_ends_is_evaluated_on_every_edge() -> None:
    # Rank sort by edge processors: every pair compares key[u] with key[v] whether the
    # comparison is a guard or an `if`; both use all n^2 edges (eps 1).
    where = algspec.load(HERE / "rank_edge_where.alg").static_efficiency()
    as_if = algspec.load(HERE / "rank_edge_if.alg").static_efficiency()
    assert where.edge_efficiency == as_if.edge_efficiency == P("1")
    # A guard on graph-level state alone is not read across the edge: no such charge.
    s = algspec.load_source("""algorithm t
nodes n
graph complete
input node key: scalar ~ uniform()
output node r: scalar := 0.0
state graph go: bool = key[0] < 0.5
record
forall v, u where go { r[v] += key[u] by sum }
record
""").static_efficiency()
    assert s.edge_efficiency == P("1/n^2")


def test_a_doubling_prefix_counts_its_real_trips() -> None:
    # Pass k visits 2^k cells: 1 + 2 + ... + n/2 < n trips in all, not log n passes of n.
    assert _classes("doubling_seq")[0] == P("n")
    # A loop with a sloppy bound counts what it runs: `while i < n bound n * n`.
    s = algspec.load_source("""algorithm t
nodes n
graph complete
input node x: scalar ~ uniform()
hint graph acc: scalar := 0.0
state graph i: int = 0
record
while i < n bound n * n {
    acc = acc + x[i]
    i += 1
    record
}
""").static_efficiency()
    assert s.rounds == P("n")
    # A data-dependent stop keeps the bound (its worst case).
    s = algspec.load_source("""algorithm t
nodes n
graph complete
input node x: scalar ~ uniform()
hint graph acc: scalar := 0.0
state graph i: int = 0
record
while acc < 100.0 bound n * n {
    acc = acc + x[i % n]
    i += 1
    record
}
""").static_efficiency()
    assert s.rounds == P("n^2")


def test_parallel_or_as_a_readout_is_decided_by_its_witnesses() -> None:
    # `hit = any(key[u] > 0.9 for u in nodes)` is decided by its witnesses, chosen by a
    # test on each element's own data: O(1) .. n of them, eta 1/n .. 1, as the guarded
    # CRCW form `forall v where key[v] > 0.9 { hit = true by any }`. or_crcw writes the
    # test's value from every processor (`hit = key[v] > 0.9 by any`): every node runs,
    # eta 1 at both ends, another program rather than a spelling of the readout (this was
    # a strict xfail asking for equal classes).
    readout = algspec.load(HERE / "or_readout.alg").static_efficiency()
    crcw = algspec.load(HERE / "or_crcw.alg").static_efficiency()
    assert str(readout.range("eta")) == "1/n .. 1" and str(crcw.range("eta")) == "1"
    guarded = algspec.load_source((HERE / "or_crcw.alg").read_text().replace(
        "forall v { hit = key[v] > 0.9 by any }",
        "forall v where key[v] > 0.9 { hit = true by any }")).static_efficiency()
    assert {q: str(readout.range(q)) for q in ("work", "eta", "epsilon")} == \
        {q: str(guarded.range(q)) for q in ("work", "eta", "epsilon")}


def test_measured_counts_a_data_independent_if_as_the_guard_it_is() -> None:
    # `forall v { if v % (2 * step) == 0 { ... } }` is the tree reduction's guard: the
    # interpreter used to report all n processors every round (measured eta ~ 1 vs 1/log n).
    res = measure(algspec.load(HERE / "tree_sum_if.alg"), [8, 16, 32, 64], samples=2, seed=1)
    ref = measure(algspec.load(HERE / "tree_sum_guard.alg"), [8, 16, 32, 64], samples=2, seed=1)
    assert res.fits["eta"].verdict == "agrees", res.fits["eta"].ratios
    assert [s.work for s in res.sizes] == [s.work for s in ref.sizes]


def test_measured_counts_a_whole_array_update_that_reads_data() -> None:
    # `y = 0.5 * (y + mean)` updates every node: work n per round, as its forall form;
    # a reset `y = 0.0` stays free.
    whole = measure(algspec.load(HERE / "smooth_whole.alg"), [8, 16], samples=2, seed=1)
    inline = measure(algspec.load(HERE / "smooth_inline.alg"), [8, 16], samples=2, seed=1)
    assert [s.work for s in whole.sizes] == [s.work for s in inline.sizes]
    assert whole.fits["eta"].verdict == "agrees"
    reset = algspec.load_source("""algorithm t
nodes n
graph complete
input node x: scalar ~ uniform()
hint node y: scalar := x
record
y = 0.0
record
""")
    (s,) = measure(reset, [8], samples=2, seed=1).sizes
    assert s.work == s.T  # a reset is no work: only the node recording each round
