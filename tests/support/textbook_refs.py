"""Independent references (plain numpy/networkx) for the tests/corpus/textbook programs.

A header names one as `# expect reference: textbook/NAME` (tests/support/corpus_expectations.py).
Each entry of REFERENCES is (reference, the input names it takes): the reference takes n and
those inputs of one sample and returns the expected outputs by name (NaN: not checked);
None is kahn_queue's, where any topological order is right (`check_topological`).
"""
from __future__ import annotations

import networkx as nx
import numpy as np


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


def check(alg, name: str, runs=((3, 0), (5, 1), (8, 2), (11, 3))) -> None:
    """`alg`'s outputs equal the reference NAME's on 3 samples at each (n, seed) of `runs`."""
    ref, args = REFERENCES[name]
    for n, seed in runs:
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
