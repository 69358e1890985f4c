"""The textbook table: static efficiency of textbook algorithms, each in two or more styles
(tests/corpus/textbook/).

Every program states its hand derivation of T, c = N T, eta = work / c and epsilon (the
worst case of docs/efficiency.md: T the maximum over inputs, work and active edges at the
rule's fewest end on the inputs that attain T) in its header comment. The test checks
(1) every program loads, samples and computes what a plain Python/numpy/networkx reference
computes on sampled inputs; (2) its static classes are the hand-derived ones, and programs
of one algorithm written in equivalent styles (a `while` or a `for ... bound`, recursion or
a loop, a `where` guard or an `if`, node processors with an aggregation or edge processors,
a scan with `break` or a readout, nested loops or one flat loop) get equal classes;
(3) measured activity agrees with the static classes up to a constant factor on a few cheap
programs. The derivations, in brief (complete graph |E| = n^2, input graph |E| = m):

* one elementary step per frame (a sequential algorithm): one node a round, O(1) cells
  read: eta 1/n, eps 1/n^2 (1/m on an input graph); T counts the steps: the sieve
  n log log n (sum over primes p <= sqrt n of n/p), Z-algorithm, KMP, counting sort and
  interval scheduling n (amortised where an inner loop records: the Z-box's right end,
  KMP's q), Shell sort n log n insertions (n^2 shifts with Shell's gaps), merge sort
  n log n (n per level), quickselect n^2, LCS n^2, Gale-Shapley n^2 proposals,
  generic push-relabel n^2 m operations; on input graphs union-find and Kruskal m (one
  frame per edge; m log n pointer steps with path compression), heap Dijkstra
  (n + m) log n = m log n (its adjacency-matrix row scans add n^2 reads: eta
  n/(m log n) + 1/n);
* loops that record nothing and stop on data (finds, shifts, scans with `break`) are a
  choice: O(1) at the fewest end; a scan without `break` (Kahn's row scan) reads n cells
  a round: eta 1, eps n/m;
* synchronous rounds: Cole-Vishkin log* n rounds of all n nodes reading their parent
  (eta 1, eps 1/n); Wyllie and bitonic sort log n and log^2 n rounds likewise; Blelloch's
  scan 2 log n rounds selecting n/2 + n/4 + ... (eta 1/log n, eps 1/(n log n));
  label propagation and Floyd-Warshall n rounds of every node and edge (eta 1, eps 1);
  an LCS wavefront n rounds over n^2/4 cells (eta 1, eps 1/n); k-core peeling n rounds
  whose `alive` guards select O(1) nodes at the fewest end (eta 1/n, eps 1/n from the
  first round's degree count over m edges).

Where algspec's analysis gives another class than the hand derivation, the case is a
strict xfail naming the cause (the header's `# expect xfail classes:` and `# expect xfail
reason:`). An amortised count is a property of the run, not of one execution: a program
that declares only a per-execution `bound` gets the class of what it declares (T is at most what the file states), and its twin with
`total bound` (a loop's trips summed over the whole run) gets the amortised class.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import algspec
from algspec.efficiency.asymptotic import Asymptotic
from algspec.lint.measured import measure
from tests.support import corpus_expectations as corpus
from tests.support import textbook_refs
from tests.support.feedback_check import compare

HERE = Path(__file__).resolve().parents[1] / "corpus" / "textbook"
P = Asymptotic.parse

# Each file's header states its hand-derived (T, c, eta, eps) (`# expect classes:`, or
# `# expect xfail classes:` with `# expect xfail reason:` where algspec's analysis gives
# another class), its group of programs for one algorithm in equivalent styles
# (`# expect group:`) and its reference (`# expect reference: textbook/NAME`, in
# tests/support/textbook_refs.py); tests/support/corpus_expectations.py reads them.
FILES = corpus.folder("textbook")
EXPECTED = {name: e.classes if e.classes is not None else e.xfail_classes
            for name, e in FILES.items()}
# Groups of programs for one algorithm in equivalent styles -> hand-derived (T, c, eta, eps).
GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, str, str, str]]] = {
    group: (tuple(names), EXPECTED[names[0]])
    for group, names in corpus.groups(FILES).items()}
# Static classes that differ from the hand derivation: analysis gaps, each with its cause.
MISMATCH = {name: e.xfail_reason for name, e in FILES.items() if e.xfail_classes is not None}


def _marks(name: str) -> list:
    if name in MISMATCH:
        return [pytest.mark.xfail(strict=True, reason=MISMATCH[name])]
    return []


def _classes(name: str) -> tuple[Asymptotic, ...]:
    s = algspec.load(HERE / f"{name}.alg").static_efficiency()
    return s.rounds, s.capacity, s.node_efficiency, s.edge_efficiency


def _reference(name: str) -> str:
    """The key of textbook_refs.REFERENCES the file's header names."""
    table, key = FILES[name].reference.split("/", 1)
    assert table == "textbook", name
    textbook_refs.REFERENCES[key]
    return key


# ------------------------------------------------------------------ the tests
def test_every_program_has_an_expectation_and_a_reference() -> None:
    files = {p.stem for p in HERE.glob("*.alg")}
    assert files == set(EXPECTED) and None not in EXPECTED.values()
    assert len(files) >= 40 and len(GROUPS) >= 20
    assert set(MISMATCH) <= files and all(MISMATCH.values())  # every gap names its cause
    for name in files:
        assert FILES[name].group is not None, name
        _reference(name)
    for names, want in GROUPS.values():  # a group states one set of classes
        assert all(EXPECTED[name] == want for name in names), names


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_program_matches_its_reference(name: str) -> None:
    alg = algspec.load(HERE / f"{name}.alg")
    alg.sampler(length=8, num_samples=2, seed=0).next(2)
    textbook_refs.check(alg, _reference(name), ((3, 0), (5, 1), (8, 2), (11, 3)))


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(EXPECTED)])
def test_static_classes_are_the_hand_derived_classes(name: str) -> None:
    want = tuple(P(x) for x in EXPECTED[name])
    got = _classes(name)
    assert got == want, (name, [str(x) for x in got])


@pytest.mark.parametrize("group", sorted(g for g, (names, _) in GROUPS.items()
                                          if len(names) > 1))
def test_equivalent_styles_get_equal_classes(group: str) -> None:
    names = GROUPS[group][0]
    first = [str(x) for x in _classes(names[0])]
    for other in names[1:]:
        assert [str(x) for x in _classes(other)] == first, (group, other)


# Measured activity on the worst-case inputs (a file's `# worst case:` line) agrees with the
# static classes up to a constant factor: cheap programs only (under a second each).
MEASURED = ["cole_vishkin", "wyllie_for", "blelloch_while", "bitonic_while", "counting_for",
            "interval_by", "cc_node", "fw_where", "lcs_wave", "z_per_i"]


@pytest.mark.parametrize("name", MEASURED)
def test_measured_agrees_with_static(name: str) -> None:
    res = measure(algspec.load(HERE / f"{name}.alg"), [8, 16, 32], samples=2, seed=1,
                  worst_case=True)
    for q in ("T", "c", "eta", "epsilon"):
        f = res.fits[q]
        assert f.verdict == "agrees", (name, q, f.verdict, f.ratios)


# The programs whose run-time state is new to the interpreter (a `total bound`'s counters over
# a run, recursion frames): a batch of 1, 2 or n samples equals each sample traced alone,
# hints and padding included (tests/support/feedback_check.py).
PER_LANE = sorted(name for name, e in FILES.items()
                  if "total bound" in e.path.read_text() or "depth" in e.path.read_text())


@pytest.mark.parametrize("name", PER_LANE)
def test_batches_of_1_2_and_n_equal_samples_traced_alone(name: str) -> None:
    alg = algspec.load(FILES[name].path)
    for B in (1, 2, 6):
        compare(alg, name, 6, B, seed=B)
