"""Independent references (plain numpy/networkx) for the tests/corpus/sequential programs.

Each reference takes the primary inputs of one sample as numpy arrays and
returns the expected outputs, keyed by spec name (pointers as int arrays).
"""
from __future__ import annotations

from bisect import bisect_left

import networkx as nx
import numpy as np


def chain(order: np.ndarray) -> np.ndarray:
    """Predecessor pointers of the list `order` (head points to itself)."""
    pred = np.zeros(len(order), dtype=int)
    pred[order[0]] = order[0]
    for p in range(1, len(order)):
        pred[order[p]] = order[p - 1]
    return pred


def insertion_sort_ptr(key):
    return {"pred": chain(np.argsort(key, kind="stable"))}


def selection_sort(key):
    a = list(key)
    order = list(range(len(a)))
    for i in range(len(a) - 1):
        m = min(range(i, len(a)), key=lambda x: (a[x], x))
        a[i], a[m] = a[m], a[i]
        order[i], order[m] = order[m], order[i]
    assert all(key[order[p]] <= key[order[p + 1]] for p in range(len(a) - 1))
    return {"pred": chain(np.array(order))}


def count_inversions(key):
    n = len(key)
    return {"inv": float(sum(key[i] > key[j] for i in range(n) for j in range(i + 1, n)))}


def _digraph(A):
    g = nx.DiGraph()
    g.add_nodes_from(range(A.shape[0]))
    for u, v in zip(*np.nonzero(A)):
        if u != v:
            g.add_edge(int(u), int(v), weight=float(A[u, v]))
    return g


def bfs_dist(s, A):
    n = len(s)
    src = int(np.argmax(s))
    pi = np.arange(n)
    dist = np.zeros(n)
    seen = {src}
    frontier = [src]
    level = 0
    while frontier:
        level += 1
        new = []
        for v in range(n):
            if v in seen:
                continue
            ps = [u for u in frontier if A[u, v] and u != v]
            if ps:
                pi[v] = min(ps)
                dist[v] = level
                new.append(v)
        seen.update(new)
        frontier = new
    lengths = nx.single_source_shortest_path_length(_digraph(A), src)
    for v in range(n):
        assert (v in lengths) == (v in seen) and lengths.get(v, 0) == dist[v]
    return {"pi": pi, "dist": dist}


def dfs_stack(s, A):
    n = len(s)
    src = int(np.argmax(s))
    pi = np.arange(n)
    color = [0] * n
    color[src] = 1
    stack = [src]
    while stack:
        u = stack[-1]
        ws = [x for x in range(n) if A[u, x] and color[x] == 0]
        if ws:
            w = ws[0]
            color[w] = 1
            pi[w] = u
            stack.append(w)
        else:
            color[u] = 2
            stack.pop()
    reach = nx.descendants(_digraph(A), src) | {src}
    assert {v for v in range(n) if color[v] == 2} == reach
    return {"pi": pi}


def prim_stable(s, W):
    n = len(s)
    src = int(np.argmax(s))
    pi = np.arange(n)
    key = np.zeros(n)
    inq = np.zeros(n, bool)
    intree = np.zeros(n, bool)
    inq[src] = True
    while inq.any():
        cur = min(np.flatnonzero(inq), key=lambda x: (key[x], x))
        inq[cur] = False
        intree[cur] = True
        for v in range(n):
            if W[cur, v] != 0 and not intree[v] and (not inq[v] or W[cur, v] < key[v]):
                key[v] = W[cur, v]
                pi[v] = cur
                inq[v] = True
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from((int(u), int(v), float(W[u, v])) for u, v in zip(*np.nonzero(W)) if u < v)
    want = nx.minimum_spanning_tree(g).size(weight="weight")
    got = sum(W[pi[v], v] for v in range(n) if v != src)
    assert abs(want - got) < 1e-6, (want, got)
    return {"pi": pi}


def fw_dist(A):
    d = nx.floyd_warshall_numpy(_digraph(A), nodelist=range(A.shape[0]))
    return {"dist": np.where(np.isinf(d), -1.0, d)}


def kahn_topo(A):
    order = np.array(list(nx.lexicographical_topological_sort(_digraph(A))))
    return {"pred": chain(order)}


def cycle_detect(A):
    return {"has_cycle": float(not nx.is_directed_acyclic_graph(_digraph(A)))}


def lis(key):
    n = len(key)
    L = [1] * n
    prv = list(range(n))
    for i in range(n):
        best = None
        for j in range(i):
            if key[j] < key[i] and (best is None or L[j] > L[best]):
                best = j
        if best is not None:
            L[i], prv[i] = L[best] + 1, best
    tails: list[float] = []          # patience sorting: an independent length
    for x in key:
        k = bisect_left(tails, x)
        tails[k:k + 1] = [x]
    assert max(L) == len(tails)
    return {"prev": np.array(prv), "last": int(np.argmax(L))}


def prefix_max(key):
    pm = np.maximum.accumulate(key)
    at = np.array([int(np.argmax(key[: i + 1])) for i in range(len(key))])
    return {"pm": pm, "at": at}


def merge_halves(key):
    return {"pred": chain(np.argsort(key, kind="stable"))}


def gcd_all(val):
    return {"g_out": float(np.gcd.reduce(val.astype(int)))}


def union_find(A):
    g = nx.Graph()
    g.add_nodes_from(range(A.shape[0]))
    g.add_edges_from((int(u), int(v)) for u, v in zip(*np.nonzero(A)) if u != v)
    root = np.arange(A.shape[0])
    for comp in nx.connected_components(g):
        root[list(comp)] = min(comp)
    return {"root": root}


def bellman_ford_seq(s, A):
    n = len(s)
    src = int(np.argmax(s))
    lengths = nx.single_source_bellman_ford_path_length(_digraph(A), src)
    dist = np.array([lengths.get(v, -1.0) for v in range(n)], dtype=float)
    return {"dist": dist}


REFERENCES = {f.__name__: f for f in [
    insertion_sort_ptr, selection_sort, count_inversions, bfs_dist, dfs_stack, prim_stable,
    fw_dist, kahn_topo, cycle_detect, lis, prefix_max, merge_halves, gcd_all, union_find,
    bellman_ford_seq]}


def dfs_recursive(A):
    n = A.shape[0]
    pi = np.arange(n)
    color = [0] * n
    f = np.zeros(n)
    time = 0

    def visit(u):
        nonlocal time
        time += 1
        color[u] = 1
        for v in range(n):
            if A[u, v] and v != u and color[v] == 0:
                pi[v] = u
                visit(v)
        time += 1
        f[u] = time
        color[u] = 2

    for s in range(n):
        if color[s] == 0:
            visit(s)
    return {"pi": pi, "fin": f}


REFERENCES["dfs_recursive"] = dfs_recursive
