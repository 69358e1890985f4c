"""Edge-located generators: Erdos-Renyi graphs (CLRS's and the textbook's), community graphs.

`clrs_erdos_renyi` is dm-clrs's `_random_er_graph` with all its parameters,
so each graph sampler of CLRS-30 is one parameter set of it (see the table in
`algspec.generators`); `erdos_renyi` is the textbook G(n, p) with optional
weights and connectivity, for the parallel algorithms.  Both take a
`family` (`algspec.generators.families.FAMILIES`): `er`, their own law, by
default (the same bytes as before the option existed), or another graph
family, so an input's family can change with `--param A.family=delaunay`.

Both also draw as edge lists (`sparse`): the same random stream, one sample's
n x n of coins or weights at a time, keeping only the edges; `community`
draws dense only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.generators.base import (
    Domain,
    Generator,
    Params,
    bernoulli,
    check_all,
    check_prob,
    edge_lists,
    inverse_perms,
    nonzero_only,
    per_sample,
    permute_nodes,
    random_perms,
)
from algspec.generators.families import (
    check_family,
    draw_family,
    family_doc,
    family_edge_lists,
    family_names,
)

# (sample, i, j) index arrays of a batch's pairs.
Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]


def _tree_edges(rng: np.random.Generator, batch: int, n: int) -> np.ndarray:
    """A random recursive tree as a [batch, n, n] mask (`_tree_pairs`)."""
    tree = np.zeros((batch, n, n), dtype=bool)
    tree[_tree_pairs(rng, batch, n)] = True
    return tree


def _tree_pairs(rng: np.random.Generator, batch: int, n: int) -> Pairs:
    """A random recursive tree in rank order: node k > 0 below a uniform j < k (edge j -> k),
    as (sample, j, k) pairs."""
    parent = np.floor(rng.random((batch, n)) * np.arange(n)).astype(np.int64)
    b = np.repeat(np.arange(batch), max(n - 1, 0))
    return b, parent[:, 1:].reshape(-1), np.tile(np.arange(1, n), batch)


def _coin_pairs(rng: np.random.Generator, batch: int, n: int, p: Any,
                both_ways: bool = False) -> Pairs:
    """The true pairs of `bernoulli(rng, p, (batch, n, n))` (the same stream, drawn one
    sample's n x n at a time); `both_ways`: of it AND its transpose."""
    found = []
    for s in range(batch):
        coins = rng.random((n, n)) < (p if np.ndim(p) == 0 else p[s])
        if both_ways:
            coins &= coins.T
        found.append(np.nonzero(coins))
    counts = [i.size for i, _ in found]
    empty = np.zeros(0, np.int64)
    return (np.repeat(np.arange(batch), counts),
            np.concatenate([i for i, _ in found] + [empty]),
            np.concatenate([j for _, j in found] + [empty]))


def _cat(*parts: Pairs) -> Pairs:
    return tuple(np.concatenate(x) for x in zip(*parts, strict=True))  # type: ignore[return-value]


def _where(pairs: Pairs, keep: np.ndarray) -> Pairs:
    return pairs[0][keep], pairs[1][keep], pairs[2][keep]


def _permuted(rng: np.random.Generator, batch: int, n: int, pairs: Pairs) -> Pairs:
    """The pairs after `permute_nodes` (the same draw): node u of sample b moves to inv[b, u]."""
    inv = inverse_perms(random_perms(rng, batch, n))
    b, i, j = pairs
    return b, inv[b, i], inv[b, j]


def _mirrored(pairs: Pairs) -> Pairs:
    b, i, j = pairs
    return _cat(pairs, (b, j, i))


def _weighted(rng: np.random.Generator, graph: EdgeLists, low: float, high: float,
              rule: Any) -> EdgeLists:
    """`graph` with `rule(w, i, j)` at each edge, w the sample's `rng.uniform(low, high,
    (n, n))` block of one [batch, n, n] draw (the same stream, one sample at a time)."""
    g = graph.graph
    out = np.empty(g.num_edges)
    for s in range(g.batch_size):
        w = rng.uniform(low, high, size=(g.n, g.n))
        lo, hi = g.offsets[s], g.offsets[s + 1]
        out[lo:hi] = rule(w, g.senders[lo:hi].astype(np.int64),
                          g.receivers[lo:hi].astype(np.int64))
    return nonzero_only(graph.with_values(out))


def _symmetric_upper(x: np.ndarray) -> np.ndarray:
    """Mirror the strict upper triangle onto the lower one (the diagonal is kept)."""
    upper = np.triu(x, k=1)
    diag = x * np.eye(x.shape[-1], dtype=x.dtype)
    return upper + upper.transpose(0, 2, 1) + diag


def _erdos_renyi(rng: np.random.Generator, batch: int, n: int, *, p: Any, directed: bool,
                 self_loops: bool, acyclic: bool, connected: bool, weighted: bool, low: float,
                 high: float, family: str = "er") -> np.ndarray:
    """G(n, p): every ordered (directed) or unordered (undirected) pair independently.

    Another `family`: that family's generator with these options (p unused).
    """
    if family != "er":
        return draw_family(rng, batch, n, family, directed=directed, acyclic=acyclic,
                           self_loops=self_loops, connected=connected, weighted=weighted,
                           low=low, high=high)
    mat = bernoulli(rng, per_sample(rng, p, batch), (batch, n, n))
    off_diag = ~np.eye(n, dtype=bool)
    if acyclic:
        # CLRS: keep i < j, then relabel nodes so the topological order is random.
        mat = np.triu(mat, k=1)
        if connected:
            mat |= _tree_edges(rng, batch, n)
        mat = permute_nodes(rng, mat)
    else:
        if not directed:
            upper = np.triu(mat, k=1)
            mat = upper | upper.transpose(0, 2, 1) | (mat & ~off_diag)
        if connected:
            tree = permute_nodes(rng, _tree_edges(rng, batch, n))
            mat |= tree if directed else tree | tree.transpose(0, 2, 1)
    if not self_loops:
        mat &= off_diag
    if not weighted:
        return mat
    w = rng.uniform(low, high, size=(batch, n, n))
    return mat * (w if directed else _symmetric_upper(w))


def _erdos_renyi_sparse(rng: np.random.Generator, batch: int, n: int, *, p: Any,
                       directed: bool, self_loops: bool, acyclic: bool, connected: bool,
                       weighted: bool, low: float, high: float, family: str = "er") -> EdgeLists:
    """`_erdos_renyi` as edge lists: the same draws in the same order."""
    if family != "er":
        return family_edge_lists(rng, batch, n, family, directed=directed, acyclic=acyclic,
                                 self_loops=self_loops, connected=connected,
                                 weighted=weighted, low=low, high=high)
    coins = _coin_pairs(rng, batch, n, per_sample(rng, p, batch))
    if acyclic:
        pairs = _where(coins, coins[1] < coins[2])
        if connected:
            pairs = _cat(pairs, _tree_pairs(rng, batch, n))
        pairs = _permuted(rng, batch, n, pairs)
    else:
        pairs = coins
        if not directed:
            upper = _where(coins, coins[1] < coins[2])
            pairs = _cat(_mirrored(upper), _where(coins, coins[1] == coins[2]))
        if connected:
            tree = _permuted(rng, batch, n, _tree_pairs(rng, batch, n))
            pairs = _cat(pairs, tree if directed else _mirrored(tree))
    if not self_loops:
        pairs = _where(pairs, pairs[1] != pairs[2])
    graph = edge_lists(batch, n, *pairs)
    if not weighted:
        return graph
    if directed:
        return _weighted(rng, graph, low, high, lambda w, i, j: w[i, j])
    return _weighted(rng, graph, low, high, lambda w, i, j: w[
        np.minimum(i, j), np.maximum(i, j)])  # `_symmetric_upper`


def _negative_weights(p: Params) -> str | None:
    """G(n, p) weights are `mat * w`, so a negative w puts -0.0 off the edges."""
    if p["family"] == "er" and p["weighted"] and p["low"] < 0:
        return ("weights with low < 0 leave -0.0 at the non-edges of the dense draw, which "
                "edge lists hold as 0.0")
    return None


def _clrs_erdos_renyi(rng: np.random.Generator, batch: int, n: int, *, p: Any, directed: bool,
                      acyclic: bool, weighted: bool, low: float, high: float,
                      family: str = "er") -> np.ndarray:
    """CLRS's `_random_er_graph`, with its quirks.

    All n^2 entries are drawn, so self-loops appear with probability p
    (except in DAGs); an undirected graph is `A * A^T`, so an edge has
    probability p^2; undirected weights are `sqrt(w * w^T + 1e-3)`.
    Another `family`: its 0/1 graph (directed, acyclic as given; no
    self-loops), weighted by CLRS's rule: U[low, high) per directed edge,
    `sqrt(w1 * w2 + 1e-3)` with two such draws per undirected edge.
    """
    if family != "er":
        mat = draw_family(rng, batch, n, family, directed=directed, acyclic=acyclic)
        if not weighted:
            return mat
        b, i, j = np.nonzero(mat)
        if not directed:  # each undirected edge once
            b, i, j = b[i < j], i[i < j], j[i < j]
        w = rng.uniform(low, high, size=(b.size, 1 if directed else 2))
        out = np.zeros((batch, n, n))
        if directed:
            out[b, i, j] = w[:, 0]
        else:
            out[b, i, j] = out[b, j, i] = np.sqrt(w[:, 0] * w[:, 1] + 1e-3)
        return out
    mat = bernoulli(rng, per_sample(rng, p, batch), (batch, n, n))
    if not directed:
        mat &= mat.transpose(0, 2, 1)
    elif acyclic:
        mat = permute_nodes(rng, np.triu(mat, k=1))
    if not weighted:
        return mat
    w = rng.uniform(low, high, size=(batch, n, n))
    if not directed:
        w = np.sqrt(w * w.transpose(0, 2, 1) + 1e-3)
    return mat * w


def _clrs_erdos_renyi_sparse(rng: np.random.Generator, batch: int, n: int, *, p: Any,
                            directed: bool, acyclic: bool, weighted: bool, low: float,
                            high: float, family: str = "er") -> EdgeLists:
    """`_clrs_erdos_renyi` as edge lists: the same draws in the same order."""
    if family != "er":
        graph = family_edge_lists(rng, batch, n, family, directed=directed, acyclic=acyclic)
        if not weighted:
            return graph
        g = graph.graph
        key = (g.sample.astype(np.int64) * n + g.senders) * n + g.receivers
        upper = g.senders < g.receivers
        w = rng.uniform(low, high, size=(int(upper.sum()) if not directed else key.size,
                                         1 if directed else 2))
        if directed:
            return nonzero_only(graph.with_values(w[:, 0].copy()))
        lo, hi = np.minimum(g.senders, g.receivers), np.maximum(g.senders, g.receivers)
        at = np.searchsorted(key[upper], (g.sample.astype(np.int64) * n + lo) * n + hi)
        return nonzero_only(graph.with_values(np.sqrt(w[:, 0] * w[:, 1] + 1e-3)[at]))
    pairs = _coin_pairs(rng, batch, n, per_sample(rng, p, batch), both_ways=not directed)
    if directed and acyclic:
        pairs = _permuted(rng, batch, n, _where(pairs, pairs[1] < pairs[2]))
    graph = edge_lists(batch, n, *pairs)
    if not weighted:
        return graph
    if directed:
        return _weighted(rng, graph, low, high, lambda w, i, j: w[i, j])
    return _weighted(rng, graph, low, high, lambda w, i, j: np.sqrt(
        w[i, j] * w[j, i] + 1e-3))


def community_blocks(n: int, k: int) -> np.ndarray:
    """Community index of each node before shuffling, as CLRS splits the nodes.

    The first k-1 communities hold n // k consecutive nodes; the last takes the rest.
    """
    if k > n:
        raise ValueError(f"Cannot generate graph of too many ({k}) communities for n={n}.")
    return np.minimum(np.arange(n) // (n // k), k - 1)


def _community(rng: np.random.Generator, batch: int, n: int, *, k: int, p: Any, eps: float,
               directed: bool, shuffle: bool) -> np.ndarray:
    """CLRS's perturbed k-community graph (its SCC sampler's input).

    As `_random_community_graph`: each community is a directed G(s, p) including
    its diagonal; an eps-noise matrix restricted to community pairs (a, b) with
    a <= b is XOR-ed in, so it flips edges inside communities and adds edges
    from lower to higher communities only (no cycle spans two communities); the
    nodes are then shuffled.  `directed=False` keeps the pairs i <= j of that
    graph and mirrors them, so each unordered pair is drawn once.
    """
    blk = community_blocks(n, k)
    same = blk[:, None] == blk[None, :]
    forward = blk[:, None] <= blk[None, :]
    mat = bernoulli(rng, per_sample(rng, p, batch), (batch, n, n)) & same
    mat ^= bernoulli(rng, eps, (batch, n, n)) & forward
    if not directed:
        upper = np.triu(mat)
        mat = upper | upper.transpose(0, 2, 1)
    return permute_nodes(rng, mat) if shuffle else mat


# ------------------------------------------------------------------ checks


def _check_er(p: Params) -> list[str]:
    errors = []
    if p["acyclic"] and not p["directed"]:
        errors.append("'acyclic' needs directed=true (an undirected edge is a 2-cycle)")
    if p["acyclic"] and p["self_loops"]:
        errors.append("'acyclic' excludes self_loops=true (a self-loop is a cycle)")
    if p["weighted"] and not p["low"] < p["high"]:
        errors.append(f"need low < high, got low={p['low']}, high={p['high']}")
    return errors


def _check_clrs_er(p: Params) -> list[str]:
    errors = []
    if p["acyclic"] and not p["directed"]:
        errors.append("'acyclic' needs directed=true (CLRS ignores it on undirected graphs)")
    if p["weighted"] and not p["low"] < p["high"]:
        errors.append(f"need low < high, got low={p['low']}, high={p['high']}")
    if p["weighted"] and not p["directed"] and p["low"] < 0:
        errors.append("undirected weights need low >= 0 (CLRS takes sqrt(w * w^T + 1e-3))")
    return errors


def _check_community(p: Params) -> list[str]:
    return [f"'k' must be >= 1, got {p['k']}"] if p["k"] < 1 else []


def _weighted_domain(p: Params) -> Domain:
    return Domain("real") if p["weighted"] else Domain("bool")


GENERATORS: list[Generator] = [
    Generator(
        name="erdos_renyi", location="edge",
        defaults={"p": 0.5, "directed": False, "self_loops": False, "acyclic": False,
                  "connected": False, "weighted": False, "low": 0.0, "high": 1.0,
                  "family": "er"},
        doc=("0/1 adjacency of G(n, p): each ordered pair (directed) or unordered pair "
             "(undirected, symmetric) is an edge with probability p; the diagonal is empty "
             "unless self_loops. acyclic (directed only) keeps i < j and relabels the nodes "
             "randomly, as CLRS does for DAGs. connected adds the edges of a random "
             "recursive tree (undirected: connected; directed: its root reaches every node; "
             "not G(n, p) conditioned on connectivity). weighted multiplies each edge by "
             "U[low, high), drawn once per undirected edge. "
             + family_doc("directed, acyclic, self_loops, connected (ws), weighted, low, high")),
        draw=_erdos_renyi, check=check_all(check_prob("p"), _check_er, check_family),
        sparse=_erdos_renyi_sparse, dense_only=_negative_weights,
        domain=_weighted_domain, choice=frozenset({"p"}),
        names={"family": tuple(family_names())},
    ),
    Generator(
        name="clrs_erdos_renyi", location="edge",
        defaults={"p": 0.5, "directed": False, "acyclic": False, "weighted": False,
                  "low": 0.0, "high": 1.0, "family": "er"},
        doc=("CLRS's own _random_er_graph: all n^2 entries drawn (self-loops with "
             "probability p, except in DAGs); undirected = A * A^T (edges with probability "
             "p^2); acyclic (directed) keeps i < j and relabels; weights U[low, high), "
             "undirected sqrt(w * w^T + 1e-3). p may be a list (one choice per sample). "
             + family_doc("directed and acyclic (no self-loops), weighted by the rule above "
                          "(undirected: sqrt(w1 * w2 + 1e-3) of two U[low, high) per edge)")),
        draw=_clrs_erdos_renyi, check=check_all(check_prob("p"), _check_clrs_er, check_family),
        sparse=_clrs_erdos_renyi_sparse, dense_only=_negative_weights,
        domain=_weighted_domain, choice=frozenset({"p"}),
        names={"family": tuple(family_names())},
    ),
    Generator(
        name="community", location="edge",
        defaults={"k": 4, "p": 0.5, "eps": 0.01, "directed": True, "shuffle": True},
        doc=("CLRS's perturbed k-community graph (SCC sampler): G(n/k, p) communities "
             "with self-loops, eps-noise XOR-ed inside communities and on edges from lower "
             "to higher communities only, nodes shuffled. p may be a list."),
        draw=_community, check=check_all(check_prob("p", "eps"), _check_community),
        dense_only=("dense by design: G(n/k, p) communities at p = 0.5 hold about n^2 / (2k) "
                    "edges, so edge lists would not be smaller"),
        domain=Domain("bool"), choice=frozenset({"p"}),
    ),
]
