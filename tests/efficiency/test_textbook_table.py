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
strict xfail naming the cause (MISMATCH below). An amortised count is a property of the
run, not of one execution: a program that declares only a per-execution `bound` gets
the class of what it declares (T is at most what the file states), and its twin with
`total bound` (a loop's trips summed over the whole run) gets the amortised class.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import algspec
from algspec.efficiency.asymptotic import Asymptotic
from algspec.efficiency.measured import measure

HERE = Path(__file__).resolve().parents[1] / "corpus" / "textbook"
P = Asymptotic.parse

LIN = ("n", "n^2", "1/n", "1/n^2")
NLOGN = ("n log n", "n^2 log n", "1/n", "1/n^2")
QUAD = ("n^2", "n^3", "1/n", "1/n^2")
EDGES = ("m", "nm", "1/n", "1/m")

# Groups of programs for one algorithm in equivalent styles -> hand-derived (T, c, eta, eps).
GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, str, str, str]]] = {
    "sieve of Eratosthenes": (("sieve_step", "sieve_while"),
                              ("n log log n", "n^2 log log n", "1/n", "1/n^2")),
    # Only `bound n` per execution declared: T is the declared n per position, n^2;
    # `total bound n` (z_total) states the amortised count.
    "Z-algorithm, frame per comparison, bound per execution": (("z_while",), QUAD),
    "Z-algorithm, frame per comparison, total bound": (("z_total",), LIN),
    "Z-algorithm, frame per position": (("z_per_i",), LIN),
    "union-find, frame per edge": (("uf_iter", "uf_rec"), EDGES),
    "union-find, frame per pointer step": (("uf_total",),
                                           ("m log n", "nm log n", "1/n", "1/m")),
    "Shell sort, frame per insertion": (("shell_while", "shell_for"), NLOGN),
    # `bound n` per shifting loop: n on each of the n log n insertions; `total bound
    # n * n` (shell_total) states the amortised count.
    "Shell sort, frame per shift, bound per execution": (("shell_shift",),
                                                         ("n^2 log n", "n^3 log n", "1/n",
                                                          "1/n^2")),
    "Shell sort, frame per shift, total bound": (("shell_total",), QUAD),
    "merge sort": (("msort_rec", "msort_bu", "msort_total"), NLOGN),
    "Dijkstra, binary heap": (("dijkstra_heap", "dijkstra_heap_rec"),
                              ("m log n", "nm log n", "n/(m log n) + 1/n",
                               "n^2/(m^2 log n) + 1/m")),
    "k-core peeling": (("kcore_node", "kcore_edge"), ("n", "n^2", "1/n", "1/n")),
    "Cole-Vishkin 3-colouring": (("cole_vishkin", "cole_vishkin_for"),
                                 ("log* n", "n log* n", "1", "1/n")),
    "push-relabel": (("push_relabel", "push_relabel_readout"),
                     ("n^2 m", "n^3 m", "1/n", "1/m")),
    "Gale-Shapley": (("gale_shapley", "gale_shapley_for"), QUAD),
    "Kahn, queue and row scan": (("kahn_queue",), ("n", "n^2", "1", "n/m")),
    "Kahn, readout": (("kahn_min",), ("n", "n^2", "1/n", "1/n")),
    "Blelloch scan": (("blelloch_while", "blelloch_for"),
                      ("log n", "n log n", "1/log n", "1/(n log n)")),
    "bitonic sort": (("bitonic_while", "bitonic_flat"), ("log^2 n", "n log^2 n", "1", "1/n")),
    "Wyllie list ranking": (("wyllie_for", "wyllie_while"), ("log n", "n log n", "1", "1/n")),
    "connected components by hooking": (("cc_node", "cc_edge"), ("n", "n^2", "1", "1")),
    "Floyd-Warshall": (("fw_where", "fw_if"), ("n", "n^2", "1", "1")),
    # `bound n` per fall-back loop: n on each of the n characters; `total bound n`
    # (kmp_total) states the amortised count.
    "KMP matcher, bound per execution": (("kmp_while",), QUAD),
    "KMP matcher, total bound": (("kmp_total",), LIN),
    "counting sort": (("counting_for", "counting_while"), LIN),
    "LCS, frame per cell": (("lcs_cell",), QUAD),
    "LCS, wavefront": (("lcs_wave",), ("n", "n^2", "1", "1/n")),
    "interval scheduling": (("interval_by", "interval_argmin"), LIN),
    "quickselect": (("qselect_rec", "qselect_loop"), QUAD),
    "Kruskal": (("kruskal_iter", "kruskal_rec"), EDGES),
}
EXPECTED = {name: want for names, want in GROUPS.values() for name in names}

# Static classes that differ from the hand derivation: analysis gaps, each with its cause.
MISMATCH = {
    "sieve_step": "static T n^(3/2)/log n, textbook n log log n. The data-independent `if not "
                  "comp[p]` is evaluated (the skeleton follows `comp`, node state computed from "
                  "no input): its branch runs on a 1/log n share of the p <= sqrt(n). But the "
                  "inner `for j in p * p .. n step p bound n` runs n/p - p trips, and the "
                  "skeleton fits one mean share of the bound per execution (n^a log^b n, no "
                  "log log n): the mean over the primes, sum 1/p / pi(sqrt n), is 0.25 .. 0.16 "
                  "at n = 8 .. 512 and fits a constant, so sqrt(n) * 1/log n * n. A mean per "
                  "execution cannot give the sum over primes of 1/p (log log n), and a fit of "
                  "the run's total trips at these sizes picks n log n over n log log n (the "
                  "lower-order n M - sum p dominates up to n = 1024)",
    "sieve_while": "static T n^(3/2)/log n, textbook n log log n: as sieve_step (the `while j "
                   "< n` trips fitted as one mean share of the bound per execution)",
    "dijkstra_heap": "static T n^2 log n (eta 1/n, eps 1/m), textbook m log n (eta "
                     "n/(m log n) + 1/n, eps n^2/(m^2 log n) + 1/m): the relaxation `if A[u, v] != 0 "
                     "and ...` in the scan of u's adjacency-matrix row counts its recording "
                     "branch (a relaxation and its log n sift-up steps) on all n columns of "
                     "each of the n rows; a graph with m edges has at most m relaxations, but only "
                     "because each node is extracted once (`u = hp[0]` differs on every trip "
                     "of the outer loop): an invariant of the heap's data, which no "
                     "data-independent rule sees (with u repeated, n^2 relaxations are "
                     "possible as far as the control flow tells)",
    "dijkstra_heap_rec": "static T n^2 log n, textbook m log n: as dijkstra_heap (the "
                         "recording relaxation branch charged on every matrix column)",
}
# Groups whose equivalent styles get different static classes (and why).
UNEQUAL: dict[str, str] = {}


def _marks(name: str) -> list:
    if name in MISMATCH:
        return [pytest.mark.xfail(strict=True, reason=MISMATCH[name])]
    return []


def _classes(name: str) -> tuple[Asymptotic, ...]:
    s = algspec.load(HERE / f"{name}.alg").static_efficiency()
    return s.rounds, s.capacity, s.node_efficiency, s.edge_efficiency


# ------------------------------------------------------------------ references
def _classes_of(key: np.ndarray) -> np.ndarray:
    key = np.asarray(key)
    return key.argmax(-1) if key.ndim == 2 else key.astype(int)


def _graph(A: np.ndarray, directed: bool = False, weighted: bool = False):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(A.shape[0]))
    for u, v in zip(*np.nonzero(A)):
        if u != v:
            g.add_edge(int(u), int(v), **({"weight": float(A[u, v])} if weighted else {}))
    return g


def _components_min(A: np.ndarray) -> np.ndarray:
    rep = np.arange(A.shape[0])
    for comp in nx.connected_components(_graph(A)):
        for v in comp:
            rep[v] = min(comp)
    return rep


def ref_sieve(n):
    return {"prime": [int(v >= 2 and all(v % d for d in range(2, int(v ** 0.5) + 1)))
                      for v in range(n)]}


def ref_z(n, key):
    s = _classes_of(key)[:n]
    z = [0] * n
    for i in range(1, n):
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
    return {"zout": z}


def ref_uf(n, A):
    return {"rep": _components_min(A)}


def ref_sorted(n, key):
    return {"out": np.sort(np.asarray(key, np.float64))}


def ref_dijkstra(n, s, A):
    src = int(np.argmax(s))
    pred, _ = nx.dijkstra_predecessor_and_distance(_graph(A, weighted=True), src)
    pi = np.arange(n)
    for v, ps in pred.items():
        if ps:
            assert len(ps) == 1, ps
            pi[v] = ps[0]
    return {"pi": pi}


def ref_kcore(n, A):
    core = nx.core_number(_graph(A))
    return {"core": [core[v] for v in range(n)]}


def ref_cole_vishkin(n, parent):
    par = np.asarray(parent).astype(int)
    c = np.arange(n)
    while (c >= 6).any():
        x = c ^ c[par]
        i = np.where(x != 0, np.log2(np.maximum(x & -x, 1)).astype(int), 0)
        c = 2 * i + ((c >> i) & 1)
    for cc in (5, 4, 3):
        prev = c.copy()
        c = np.where(par != np.arange(n), c[par], np.where(c == 0, 1, 0))
        a, b = c[par], prev
        new = np.where((a != 0) & (b != 0), 0, np.where((a != 1) & (b != 1), 1, 2))
        c = np.where(c == cc, new, c)
    nonroot = par != np.arange(n)
    assert (c < 3).all() and (c[nonroot] != c[par][nonroot]).all(), c
    return {"colour": c}


def ref_max_flow(n, C):
    if n < 2:
        return {}
    g = _graph(C, directed=True, weighted=True)
    value = nx.maximum_flow_value(g, 0, n - 1, capacity="weight") if n > 1 else 0.0
    want = np.full(n, np.nan)  # the first phase leaves excess on nodes cut from the sink
    want[n - 1] = value
    return {"excess": want}


def ref_gale_shapley(n, mp, wp):
    wife, husband, nxt = [None] * n, [None] * n, [0] * n
    order = [sorted(range(n), key=lambda v, u=u: -mp[u, v]) for u in range(n)]
    free = list(range(n))
    while free:
        m0 = min(free)
        w0 = order[m0][nxt[m0]]
        nxt[m0] += 1
        if husband[w0] is None:
            husband[w0], wife[m0] = m0, w0
            free.remove(m0)
        elif wp[w0, m0] > wp[w0, husband[w0]]:
            free.append(husband[w0])
            wife[husband[w0]] = None
            husband[w0], wife[m0] = m0, w0
            free.remove(m0)
    return {"wife": wife}


def check_topological(n, A, order):
    order = np.asarray(order).astype(int)
    assert sorted(order) == list(range(n)), order
    for u, v in zip(*np.nonzero(A)):
        if u != v:
            assert order[u] < order[v], (u, v, order)


def ref_kahn_min(n, A):
    return {"order": np.argsort(list(nx.lexicographical_topological_sort(
        _graph(A, directed=True))))}


def ref_blelloch(n, x):
    x = np.asarray(x, np.float64)
    return {"scan": np.concatenate([[0.0], np.cumsum(x)[:-1]])}


def ref_bitonic(n, key):
    order = np.argsort(np.asarray(key)[:n], kind="stable")
    pred = np.zeros(n, dtype=int)
    pred[order[0]] = order[0]
    for p in range(1, n):
        pred[order[p]] = order[p - 1]
    return {"pred": pred}


def ref_wyllie(n, next):
    nxt = np.asarray(next).astype(int)
    rank = np.zeros(n)
    for v in range(n):
        x = v
        while nxt[x] != x:
            x = nxt[x]
            rank[v] += 1
    return {"rank": rank}


def ref_cc(n, A):
    return {"comp": _components_min(A)}


def ref_fw(n, w):
    D = np.asarray(w, np.float64).copy()
    for k in range(n):
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    return {"dist": D}


def ref_kmp(n, string, split):
    s = _classes_of(string)[:n]
    h = int((np.asarray(split)[:n] == 0).sum())
    needle, hay = list(s[h:]), list(s[:h])
    hit = np.zeros(n)
    for t in range(h - len(needle) + 1):
        if hay[t:t + len(needle)] == needle:
            hit[t] = 1
    return {"match": hit}


def ref_counting(n, key):
    return {"out": np.sort(np.floor(np.asarray(key, np.float64) * n).astype(int))}


def ref_lcs(n, key):
    s = _classes_of(key)[:n]
    x, y = s[: n // 2], s[n // 2:]
    L = np.zeros((len(x) + 1, len(y) + 1))
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            L[i, j] = L[i - 1, j - 1] + 1 if x[i - 1] == y[j - 1] else max(L[i - 1, j],
                                                                           L[i, j - 1])
    return {"len": L[-1, -1]}


def ref_interval(n, s, f):
    sel, last = np.zeros(n), -1.0
    for x in np.argsort(np.asarray(f), kind="stable"):
        if s[x] >= last:
            sel[x], last = 1, f[x]
    return {"chosen": sel}


def ref_qselect(n, key):
    return {"kth": np.sort(np.asarray(key, np.float64))[n // 2]}


def ref_kruskal(n, A):
    t = np.zeros((n, n))
    for u, v in nx.minimum_spanning_edges(_graph(A, weighted=True), data=False):
        t[u, v] = t[v, u] = 1
    return {"in_mst": t}


REFERENCES = {
    "sieve": (ref_sieve, ()), "z": (ref_z, ("key",)), "uf": (ref_uf, ("A",)),
    "shell": (ref_sorted, ("key",)), "msort": (ref_sorted, ("key",)),
    "dijkstra": (ref_dijkstra, ("s", "A")), "kcore": (ref_kcore, ("A",)),
    "cole": (ref_cole_vishkin, ("parent",)), "push": (ref_max_flow, ("C",)),
    "gale": (ref_gale_shapley, ("mp", "wp")), "kahn_min": (ref_kahn_min, ("A",)),
    "kahn_queue": (None, ("A",)), "blelloch": (ref_blelloch, ("x",)),
    "bitonic": (ref_bitonic, ("key",)), "wyllie": (ref_wyllie, ("next",)),
    "cc": (ref_cc, ("A",)), "fw": (ref_fw, ("w",)), "kmp": (ref_kmp, ("string", "split")),
    "counting": (ref_counting, ("key",)), "lcs": (ref_lcs, ("key",)),
    "interval": (ref_interval, ("s", "f")), "qselect": (ref_qselect, ("key",)),
    "kruskal": (ref_kruskal, ("A",)),
}


def _reference(name: str):
    for prefix in sorted(REFERENCES, key=len, reverse=True):
        if name.startswith(prefix):
            return REFERENCES[prefix]
    raise KeyError(name)


# ------------------------------------------------------------------ the tests
def test_every_program_has_an_expectation_and_a_reference() -> None:
    files = {p.stem for p in HERE.glob("*.alg")}
    assert files == set(EXPECTED)
    assert len(files) >= 40 and len(GROUPS) >= 20
    assert set(MISMATCH) <= files
    for name in files:
        _reference(name)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_program_matches_its_reference(name: str) -> None:
    alg = algspec.load(HERE / f"{name}.alg")
    alg.sampler(length=8, num_samples=2, seed=0).next(2)
    ref, args = _reference(name)
    for n, seed in ((3, 0), (5, 1), (8, 2), (11, 3)):
        traj = alg.sample(n, batch_size=3, seed=seed)
        for b in range(3):
            ins = [np.asarray(traj.inputs[a][b]) for a in args]
            outs = {k: np.asarray(v[b], np.float64) for k, v in traj.outputs.items()}
            if ref is None:  # kahn_queue: any topological order
                check_topological(n, ins[0], outs["order"][:n])
                continue
            for k, want in ref(n, *ins).items():
                want = np.asarray(want, np.float64)
                got = outs[k][tuple(slice(0, s) for s in want.shape)]
                keep = ~np.isnan(want)
                assert np.allclose(got[keep], want[keep], atol=1e-4), (name, n, b, k, got,
                                                                       want)


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(EXPECTED)])
def test_static_classes_are_the_hand_derived_classes(name: str) -> None:
    want = tuple(P(x) for x in EXPECTED[name])
    got = _classes(name)
    assert got == want, (name, [str(x) for x in got])


def _group_marks(group: str) -> list:
    if group in UNEQUAL:
        return [pytest.mark.xfail(strict=True, reason=UNEQUAL[group])]
    return []


@pytest.mark.parametrize("group", [pytest.param(g, marks=_group_marks(g)) for g in
                                   sorted(g for g, (names, _) in GROUPS.items()
                                          if len(names) > 1)])
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
