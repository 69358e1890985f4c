"""Independent plain-Python/numpy/networkx references for tests/corpus/language/*.alg.

Each reference takes one sample's primary inputs as CLRS probe arrays
(categorical and mask_one one-hot, pointers as floats) plus `n` and `N`, and
returns the expected outputs by spec name: pointers/classes as ints (classes
are one-hot encoded by the checker), masks 0/1, scalars as floats. A key
`_hints` maps hint names to their expected frames [T, ...].
"""
from __future__ import annotations

import math

import networkx as nx
import numpy as np

INF = float("inf")


def chain(order) -> np.ndarray:
    """Predecessor pointers of the node list `order` (the head points to itself)."""
    pred = np.arange(len(order))
    for p, x in enumerate(order):
        pred[x] = order[p - 1] if p else x
    return pred


def cls(x: np.ndarray) -> np.ndarray:
    return np.argmax(x, axis=-1)


def insertion_sort(key, n, N):
    order = list(range(n))
    frames = [chain(order)]
    for i in range(1, n):
        k = order[i]
        j = i
        while j > 0 and key[order[j - 1]] > key[k]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = k
        frames.append(chain(order))
    return {"pred": chain(order), "_hints": {"pred_h": frames}}


def counting_sort(c, n, N):
    c = cls(c)
    order = sorted(range(n), key=lambda i: (c[i], i))
    dest = np.zeros(n, int)
    for p, i in enumerate(order):
        dest[i] = p
    return {"dest": dest}


def prefix_max_scan(key, n, N):
    pm = np.maximum.accumulate(key)
    pa = np.array([int(np.argmax(key[: i + 1])) for i in range(n)])
    return {"pm": pm, "pa": pa}


def matrix_chain(d, n, N):
    cost = np.zeros((n, n))
    split = np.tile(np.arange(n)[:, None], (1, n))  # `:= index` on edges: the row
    for length in range(2, n):
        for i in range(n - 1):
            j = i + length - 1
            if j >= n - 1:
                continue
            cands = [(cost[i, k] + cost[k + 1, j] + d[i] * d[k + 1] * d[j + 1], k)
                     for k in range(i, j)]
            best = min(cands)
            cost[i, j], split[i, j] = best
    return {"split": split, "total": cost[0, max(n - 2, 0)]}


def floyd_warshall(A, n, N):
    D = np.where(A != 0, A, INF)
    np.fill_diagonal(D, 0.0)
    P = np.tile(np.arange(n)[:, None], (1, n))
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if D[i, k] + D[k, j] < D[i, j]:
                    D[i, j] = D[i, k] + D[k, j]
                    P[i, j] = P[k, j]
    return {"Pi": P, "reach": (D < INF).astype(float)}


def kahn_layers(A, n, N):
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((u, v) for u, v in zip(*np.nonzero(A)) if u != v)
    layer = np.zeros(n)
    for lv, nodes in enumerate(nx.topological_generations(g)):
        for v in nodes:
            layer[v] = lv
    return {"layer": layer, "first": int(np.argmin(layer))}


def _components_lowest(A, n):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((u, v) for u, v in zip(*np.nonzero(A)) if u != v)
    rep = np.zeros(n, int)
    for comp in nx.connected_components(g):
        for v in comp:
            rep[v] = min(comp)
    return rep


def union_find_rec(A, n, N):
    return {"rep": _components_lowest(A, n)}


def merge_two_pointer(key, n, N):
    h = n // 2
    a = sorted(range(h), key=lambda i: (key[i], i))
    b = sorted(range(h, n), key=lambda i: (key[i], i))
    out, i, j = [], 0, 0
    while len(out) < n:
        if j >= len(b) or (i < len(a) and key[a[i]] <= key[b[j]]):
            out.append(a[i]); i += 1
        else:
            out.append(b[j]); j += 1
    rk = np.zeros(n)
    for t, x in enumerate(out):
        rk[x] = t
    return {"pred": chain(out), "rk": rk}


def lis_patience(key, n, N):
    best = [1] * n
    for i in range(n):
        for j in range(i):
            if key[j] < key[i]:
                best[i] = max(best[i], best[j] + 1)
    # predecessor: the tail of length L-1 current when i was placed
    tails: list[int] = []
    prev = np.arange(n)
    for i in range(n):
        lo = 0
        hi = len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if key[tails[mid]] < key[i]:
                lo = mid + 1
            else:
                hi = mid
        if lo > 0:
            prev[i] = tails[lo - 1]
        if lo == len(tails):
            tails.append(i)
        else:
            tails[lo] = i
    assert len(tails) == max(best)
    return {"length": float(max(best)), "prev": prev}


def kmp_failure(s, n, N):
    s = cls(s)
    f = [0] * n
    for i in range(1, n):  # brute force: longest proper border of s[:i + 1]
        f[i] = max(b for b in range(i + 1) if list(s[: b]) == list(s[i + 1 - b: i + 1]))
    f = np.array(f)
    return {"blen": f.astype(float), "bptr": np.where(f > 0, f - 1, np.arange(n))}


def kmp_failure_total(s, n, N):  # the same program, its inner loop under `total bound n`
    return kmp_failure(s, n, N)


def heap_build(key, n, N):
    import heapq
    items = [(key[i], i) for i in range(n)]
    heapq.heapify(items)
    gone = np.zeros(n)
    for _ in range(min(3, n)):
        gone[heapq.heappop(items)[1]] = 1
    return {"taken": gone}   # the array layout is checked by heap_array_ok


def selection_inc(key, n, N):
    order = list(range(n))
    for i in range(n - 1):
        p = min(range(i, n), key=lambda q: (key[order[q]], q))
        order[i], order[p] = order[p], order[i]
    rank = np.zeros(n, int)
    for p, x in enumerate(order):
        rank[x] = p
    return {"rank": rank, "pred": chain(order)}


def _stable_chain(key, n):
    return chain(sorted(range(n), key=lambda i: (key[i], i)))


def merge_sort_rec(key, n, N):
    return {"pred": _stable_chain(key, n)}


def quicksort_rec(key, n, N):
    a = list(range(n))

    def part(lo, hi):
        if lo < hi:
            x = key[a[hi]]
            i = lo - 1
            for j in range(lo, hi):
                if key[a[j]] <= x:
                    i += 1
                    a[i], a[j] = a[j], a[i]
            a[i + 1], a[hi] = a[hi], a[i + 1]
            part(lo, i)
            part(i + 2, hi)
    part(0, n - 1)
    return {"pred": chain(a)}


def subtree_size(par, n, N):
    par = par.astype(int)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    root = [v for v in range(n) if par[v] == v]
    assert len(root) == 1
    g.add_edges_from((int(par[v]), v) for v in range(n) if par[v] != v)
    size = np.array([1 + len(nx.descendants(g, v)) for v in range(n)], float)
    depth = nx.shortest_path_length(g, root[0])
    return {"size": size, "depth": np.array([depth[v] for v in range(n)], float),
            "root": root[0]}


def bfs_edges(s, A, n, N):
    src = int(np.argmax(s))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((u, v) for u, v in zip(*np.nonzero(A)) if u != v)
    dist = nx.single_source_shortest_path_length(g, src)
    d = np.array([dist.get(v, INF) for v in range(n)], float)
    pi = np.arange(n)
    for v in range(n):
        if v != src and v in dist:
            pi[v] = min(u for u in g.neighbors(v) if dist.get(u) == dist[v] - 1)
    return {"pi": pi, "dist": d}


def bellman_argmin(s, W, n, N):
    src = int(np.argmax(s))
    d = np.full(n, INF)
    d[src] = 0.0
    p = np.arange(n)
    for _ in range(n):
        nd, np_ = d.copy(), p.copy()
        for v in range(n):
            cands = [(d[u] + W[u, v], u) for u in range(n) if W[u, v] != 0 and u != v
                     and d[u] + W[u, v] < d[v]]
            if cands:
                nd[v], np_[v] = min(cands)
        if np.array_equal(nd, d) and np.array_equal(np_, p):
            break
        d, p = nd, np_
    return {"pi": p, "d_out": np.where(d == INF, -1.0, d)}


def cycle_walk(key, nxt, start, n, N):
    nxt = nxt.astype(int)
    cur = int(start)
    seen = np.zeros(n)
    frames = [np.eye(N)[cur]]
    while not seen[cur]:
        seen[cur] = 1
        cur = nxt[cur]
        frames.append(np.eye(N)[cur])
    top = max((v for v in range(n) if seen[v]), key=lambda v: (key[v], -v))
    return {"on_cycle": seen, "clen": seen.sum(), "top": top,
            "whole": float(seen.sum() == n), "_hints": {"at": frames}}


def list_rank(prev, n, N):
    prev = prev.astype(int)
    head = next(v for v in range(n) if prev[v] == v)
    rank = np.zeros(n)
    for v in range(n):
        x, k = v, 0
        while x != head:
            x, k = prev[x], k + 1
        rank[v] = k
    return {"rank": rank}


def bits(key, n, N):
    idx = np.arange(n)
    pop = np.array([(v).bit_count() for v in idx], float)
    low = np.array([v & -v for v in idx], float)
    return {"gray": (idx ^ (idx >> 1)).astype(float), "pop": pop, "low": low,
            "par": pop.astype(int) % 2, "big": (((idx << 1) ^ 3) > key * 8.0).astype(float)}


def tree_sum_pow2(key, n, N):
    return {"total": float(key[:n].sum()), "biggest": float(key[:n].max()), "nodes_used": float(N)}


def insert_pos(key, target, n, N):
    at = next(v for v in range(N) if not key[v] < target)
    return {"at": at, "smaller": float(sum(key[v] < target for v in range(N)))}


def edge_classes(key, A, n, N):
    k = cls(key)
    c = np.where(k[:, None] < k[None, :], 0, np.where(k[:, None] == k[None, :], 1, 2))
    onehot = np.eye(3)[c]
    cls_out = np.where((A != 0)[..., None], onehot, -onehot)
    nb = [[u for u in range(n) if A[u, v] and u != v] for v in range(n)]
    up = np.array([sum(k[u] > k[v] for u in nb[v]) for v in range(n)], float)
    # incoming(v) also holds v's self-loop, which `u != v` filters
    peak = np.array([all(k[u] <= k[v] for u in nb[v]) for v in range(n)], float)
    return {"cls": cls_out, "up": up, "peak": peak}


def lcs_dp(which, ch, n, N):
    c = cls(ch)
    a = [c[i] for i in range(n) if not which[i]]
    b = [c[i] for i in range(n) if which[i]]
    L = np.zeros((len(a) + 1, len(b) + 1))
    for i in range(len(a)):
        for j in range(len(b)):
            L[i + 1, j + 1] = L[i, j] + 1 if a[i] == b[j] else max(L[i, j + 1], L[i + 1, j])
    return {"lcs": L[-1, -1] if len(a) and len(b) else 0.0, "n1": float(len(a))}


def luby_whp(A, n, N):
    return {}   # random: checked by is_mis


def activity(s, f, n, N):
    t, taken, last = -INF, np.zeros(n), 0
    for x in sorted(range(n), key=lambda i: (f[i], i)):
        if s[x] >= t:
            taken[x], t, last = 1, f[x], x
    return {"sel": taken, "last": last}


def star_path(key, n, N):
    hub = max((key[u] for u in range(n)), default=-1.0)  # star: 0 reaches all (self-loop too)
    beaten = np.zeros(n)
    for v in range(n):
        nb = set(range(n)) if v == 0 else {0, v}
        beaten[v] = any(key[u] > key[v] for u in nb)
    return {"hub_max": hub, "beaten": beaten, "edges": float(3 * n - 2)}


def own_pos(lo, hi, n, N):
    w = hi - lo
    return {"record": w, "m": int(np.argmax(w)), "_hints": {"w": [np.where(np.arange(n) % 2 == 1, -1.0, np.where(np.arange(n) < t, w, 0.0)) for t in range(n + 1)]}}


def deadline_sched(d, w, n, N):
    busy = [False] * n
    ok, slot = np.zeros(n), np.zeros(n)
    for x in sorted(range(n), key=lambda i: (-w[i], i)):
        for t in reversed(range(min(int(d[x]), n))):
            if not busy[t]:
                busy[t] = True
                ok[x], slot[x] = 1, t + 1
                break
    return {"ok": ok, "slot": slot}


def naive_match(split, txt, n, N):
    c = cls(txt)
    hn = int((split == 0).sum())
    needle = list(c[hn:])
    hit = np.zeros(n)
    for sh in range(n):
        if sh + len(needle) <= hn:
            hit[sh] = list(c[sh: sh + len(needle)]) == needle
    first = int(np.argmax(hit)) if hit.any() else 0
    return {"hit": hit, "first": first}


def dijkstra_unstable(s, W, n, N):
    src = int(np.argmax(s))
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from((u, v, W[u, v]) for u, v in zip(*np.nonzero(W)) if u != v)
    dist = nx.single_source_dijkstra_path_length(g, src)
    return {"dist": np.array([dist.get(v, INF) for v in range(n)])}


def pair_search(key, thr, n, N):
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if key[i] + key[j] > thr]
    bi, bj = pairs[0] if pairs else (0, 0)
    pr = math.prod(float(key[q]) for q in range(min(3, n)))
    if key[0] > 0.5:
        pr = -pr
    return {"pi": bi, "pj": bj, "found": float(bool(pairs)), "prod": pr,
            "echo": int((key > 0.5).sum()) % 3}


def path_follow(n, N):
    idx = np.arange(n)
    nh = np.where(idx[:, None] == idx[None, :], idx[:, None],
                  np.where(idx[None, :] > idx[:, None], idx[:, None] + 1, idx[:, None] - 1))
    return {"hops": idx.astype(float), "nexthop": nh}


def reach_closure(A, n, N):
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((u, v) for u, v in zip(*np.nonzero(A)))
    R = np.zeros((n, n))
    for u in range(n):
        R[u, list(nx.descendants(g, u) | {u})] = 1
    return {"R": R, "ind": (A != 0).sum(0).astype(float), "pairs": R.sum()}


def int_prefix(val, n, N):
    ps = np.cumsum(val.astype(int))
    return {"ps": ps.astype(float), "half": (ps // 2).astype(float), "mod3": ps % 3}


def quicksort_rand(key, n, N):
    """Whatever pivots `rand_int` draws, the keys end sorted (ties by index: Lomuto's `<=`
    keeps no order, so the keys are distinct, as `uniform()` draws them)."""
    return {"pred": chain(sorted(range(n), key=lambda i: key[i]))}


def ring_leader(key, n, N):
    """Chang-Roberts on a unidirectional ring, message by message: the largest key's owner."""
    alive = list(range(n))  # the owners of the keys still travelling
    pos = list(range(n))  # where each travelling key is
    leader = 0 if n == 1 else None
    while n > 1 and leader is None:
        moved = [(o, (p + 1) % n) for o, p in zip(alive, pos)]
        alive = [o for o, p in moved if key[o] > key[p]]
        pos = [p for o, p in moved if key[o] > key[p]]
        leader = next((o for o, p in moved if p == o), None)
    return {"leader": np.eye(n)[leader]}


def jp_color_proc(A, w, n, N):
    """Jones-Plassmann: local weight maxima take the smallest colour their coloured
    in-neighbours leave free, all at once per round."""
    A = np.asarray(A) != 0
    color, colored = list(range(n)), [False] * n
    frames = [np.array(color)]
    while not all(colored):
        new = []
        for v in range(n):
            nb = [u for u in range(n) if A[u, v] and u != v]
            if not colored[v] and all(colored[u] or (w[u], u) < (w[v], v) for u in nb):
                used = {color[u] for u in nb if colored[u]}
                new.append((v, min(set(range(n + 1)) - used)))
        for v, c in new:
            color[v], colored[v] = c, True
        frames.append(np.array(color))
    return {"col": np.array(color), "_hints": {"color": frames}}


def rank_search_proc(s, q, n, N):
    """Each query's rank in the sorted keys: how many are below it."""
    r = np.searchsorted(np.asarray(s), np.asarray(q), side="left").astype(float)
    return {"rank": r, "_hints": {"r": [np.zeros(n), r]}}


def floyd_cycle(succ, n, N):
    """Walk from node 0 by a dict of first visits: tail length, cycle length, cycle entry."""
    succ = succ.astype(int)
    first, x = {}, 0
    while x not in first:
        first[x] = len(first)
        x = succ[x]
    return {"mu": float(first[x]), "lam": float(len(first) - first[x]), "entry": x}


def merge_runs(key, k, n, N):
    h = int(k)
    assert list(key[:h]) == sorted(key[:h]) and list(key[h:n]) == sorted(key[h:n])
    out = sorted(range(n), key=lambda i: (key[i], i >= h, i))  # stable: the first run first
    rk = np.zeros(n)
    rk[out] = np.arange(n)
    return {"pred": chain(out), "rk": rk}


def subset_sum_target(w, target, n, N):
    sums = {0}
    for x in w[:n].astype(int):
        sums |= {s + x for s in sums}
    reach = np.array([float(s in sums) for s in range(N)])
    return {"ok": reach[int(target)], "sums": reach}


def bfs_delaunay(s, A, n, N):
    return bfs_edges(s, A, n, N)


def edge_matching(A, n, N):
    return {}   # random: checked by tests/interp/test_rand_per_edge.py (a maximal matching)


def gcd_scalar(a, b, n, N):
    """Euclid per node on integer-valued floats: the gcd and its tens digit."""
    g = [math.gcd(int(x), int(y)) for x, y in zip(a[:n], b[:n])]
    return {"g": np.array(g, float), "tens": np.array([x // 10 % 10 for x in g], float)}


def next_greater(key, n, N):
    """For each node the first node to its right with a larger key, or none: a
    self-pointer (`pointer?`), and an all-zero one-hot for node 0's (`mask_one?`)."""
    nge = [next((u for u in range(v + 1, n) if key[u] > key[v]), None) for v in range(n)]
    return {"nge": np.array([v if u is None else u for v, u in enumerate(nge)], float),
            "nge0": nge[0]}


REFERENCES = {k: v for k, v in globals().items()
              if callable(v) and not k.startswith("_") and k not in {"chain", "cls"}}
