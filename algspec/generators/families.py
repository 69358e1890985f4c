"""Graph families as edge generators, and the `family` option of the Erdos-Renyi generators.

Each family first builds its undirected edges as a list (sample, u, v), each
edge once, in an order that reveals the structure (a grid row by row, a path
in order); `_assemble` then relabels the nodes of every sample by its own
uniform permutation (`random_perms`, as `permute_nodes` does for matrices),
orients the edges when directed, draws the weights and returns the writes of
the [B, n, n] matrix (`EdgeWrites`), which each generator gives as the matrix
(`draw`) or as edge lists (`sparse`, the same draw).  Everything random comes
from the `rng` passed in, drawn in a fixed order, so a seed gives the same
bytes on every machine: the only floating point beyond uniform draws is
`sqrt(dx * dx + dy * dy)` (exactly rounded) for Euclidean Delaunay weights,
and scipy's Delaunay is deterministic on given points.

Options common to every family (`COMMON`):

- `directed`: each edge gets a uniformly random orientation (one coin per
  edge), so the skeleton stays connected but not every node reaches every
  other; `acyclic` (directed only) orients every edge from the lower to the
  higher label instead: a DAG whose topological order is uniform (the labels
  are).
- `self_loops`: a loop at every node (weighted: its own U[low, high) weight).
- `weighted`: each edge times U[low, high), drawn once per undirected edge, so
  an undirected matrix stays symmetric.

`FAMILIES` is the one table of families: the `family` names accepted by
`erdos_renyi` and `clrs_erdos_renyi`, each with its generator and a line of
documentation; `draw_family` draws from it.
"""

from __future__ import annotations

import heapq
import importlib.util
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.generators.base import (
    Domain,
    EdgeWrites,
    Generator,
    Params,
    check_all,
    check_prob,
    random_perms,
)

# (sample, u, v): the undirected edges of a batch, each once, u != v.
Edges = tuple[np.ndarray, np.ndarray, np.ndarray]

COMMON: dict[str, bool | float] = {"directed": False, "acyclic": False, "self_loops": False,
                                   "weighted": False, "low": 0.0, "high": 1.0}


def _edges(b: Any, u: Any, v: Any) -> Edges:
    return (np.asarray(b, dtype=np.int64).reshape(-1), np.asarray(u, dtype=np.int64).reshape(-1),
            np.asarray(v, dtype=np.int64).reshape(-1))


def _none() -> Edges:
    return _edges([], [], [])


def _same_each(batch: int, u: np.ndarray, v: np.ndarray) -> Edges:
    """The edges (u, v) in every sample of the batch."""
    return _edges(np.repeat(np.arange(batch), u.size), np.tile(u, batch), np.tile(v, batch))


def _complete(batch: int, n: int) -> Edges:
    u, v = np.triu_indices(n, k=1)
    return _same_each(batch, u, v)


def _assemble(rng: np.random.Generator, batch: int, n: int, edges: Edges, *, directed: bool,
              acyclic: bool, self_loops: bool, weighted: bool, low: float, high: float,
              lengths: np.ndarray | None = None) -> EdgeWrites:
    """Relabel, orient and weight the edges: the writes of the [batch, n, n] matrix.

    `lengths`: the weight of each edge (Euclidean Delaunay) instead of U[low, high).
    Draws, in order: the permutations, the orientation coins (directed, not
    acyclic), the edge weights, the loop weights.
    """
    b, u, v = edges
    perm = random_perms(rng, batch, n)
    u, v = perm[b, u], perm[b, v]
    if directed:
        if acyclic:
            u, v = np.minimum(u, v), np.maximum(u, v)
        else:
            flip = rng.random(b.size) < 0.5
            u, v = np.where(flip, v, u), np.where(flip, u, v)
    if weighted:
        w = lengths if lengths is not None else rng.uniform(low, high, size=b.size)
    else:
        w = 1.0
    # The matrix's writes in order: (u, v), (v, u) when undirected, then the loops.
    writes = [(b, u, v, w)] + ([] if directed else [(b, v, u, w)])
    if self_loops:
        i = np.arange(n)
        loops = rng.uniform(low, high, size=(batch, n)) if weighted else 1.0
        writes.append((np.arange(batch)[:, None], i[None, :], i[None, :], loops))
    return EdgeWrites(batch, n, writes)


def _connected(batch: int, n: int, edges: Edges) -> np.ndarray:
    """Whether each sample's (undirected) graph is connected, [batch] bool.

    Min-label propagation along the edges with pointer jumping, all samples at once.
    """
    b, u, v = edges
    gu, gv = b * n + u, b * n + v
    label = np.arange(batch * n)
    while True:
        new = label.copy()
        np.minimum.at(new, gu, label[gv])
        np.minimum.at(new, gv, label[gu])
        new = new[new]  # jump: a node takes its label's label
        if np.array_equal(new, label):
            break
        label = new
    label = label.reshape(batch, n)
    return (label == label[:, :1]).all(axis=1)


# ---------------------------------------------------------------- sparse G(n, p)


def _pair_of(key: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pair (i, j), i < j, of index key = j (j - 1) / 2 + i (column order of the upper triangle)."""
    j = np.arange(n + 1, dtype=np.int64)
    tri = j * (j - 1) // 2
    col = np.searchsorted(tri, key, side="right") - 1
    return key - tri[col], col


def _sparse_er_edges(rng: np.random.Generator, batch: int, n: int, degree: float) -> Edges:
    """G(n, p) with p = min(degree / (n - 1), 1), plus the edges of a random recursive tree.

    O(edges): per sample a Binomial(n (n - 1) / 2, p) edge count, then that many
    distinct pairs uniformly (so each pair is an edge with probability p,
    independently); the tree (node k below a uniform earlier node) is merged in.
    """
    if n < 2:
        return _none()
    pairs = n * (n - 1) // 2
    p = min(degree / (n - 1), 1.0)
    counts = rng.binomial(pairs, p, size=batch)
    chosen = [rng.choice(pairs, size=int(c), replace=False) for c in counts]
    child = np.arange(1, n)
    parent = np.floor(rng.random((batch, n - 1)) * child).astype(np.int64)
    tree = child * (child - 1) // 2 + parent  # key of the pair (parent, child)
    keys = np.concatenate([s * pairs + np.asarray(c, dtype=np.int64) for s, c in enumerate(chosen)]
                          + [(np.arange(batch)[:, None] * pairs + tree).reshape(-1)])
    keys = np.unique(keys)
    i, j = _pair_of(keys % pairs, n)
    return _edges(keys // pairs, i, j)


def _sparse_erdos_renyi(rng: np.random.Generator, batch: int, n: int, *, degree: float,
                        **common: Any) -> EdgeWrites:
    return _assemble(rng, batch, n, _sparse_er_edges(rng, batch, n, degree), **common)


# ---------------------------------------------------------------- Watts-Strogatz


_SETTLE_ROUNDS = 100
_CONNECT_TRIES = 100


def _settle(rng: np.random.Generator, n: int, b: np.ndarray, u: np.ndarray, v: np.ndarray,
            lattice: np.ndarray, redraw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Give each edge (u, v) marked `redraw` a far end uniform over the nodes other than u and
    its lattice end, so that no two edges of a sample coincide; returns the new (u, v).

    All redraws at once, then again for those that hit an edge already there
    (unmarked edges, then earlier draws, then lower indices win), as drawing
    in turn and skipping taken pairs would.  After `_SETTLE_ROUNDS` rounds (k
    close to n, where a node can run out of partners) the rest are placed one
    by one: among u's free partners, or when u has none, on a uniform free
    pair of the sample, so the edge count never changes.
    """
    u, v = u.copy(), v.copy()
    rank = np.zeros(b.size, dtype=np.int64)
    pending = np.flatnonzero(redraw)
    index = np.arange(b.size)
    for rnd in range(1, _SETTLE_ROUNDS + 1):
        if pending.size == 0:
            return u, v
        lo = np.minimum(u[pending], lattice[pending])
        hi = np.maximum(u[pending], lattice[pending])
        w = rng.integers(0, n - 2, size=pending.size)
        w += w >= lo
        v[pending] = w + (w >= hi)
        rank[pending] = rnd
        key = (b * n + np.minimum(u, v)) * n + np.maximum(u, v)
        order = np.lexsort((index, rank, key))
        taken = np.zeros(b.size, dtype=bool)
        taken[order[1:]] = key[order[1:]] == key[order[:-1]]
        pending = np.flatnonzero(taken)
    placed = np.ones(b.size, dtype=bool)
    placed[pending] = False
    for e in pending:  # rare: the last few, one at a time
        mine = placed & (b == b[e])
        adj = np.eye(n, dtype=bool)
        adj[u[mine], v[mine]] = adj[v[mine], u[mine]] = True
        free = np.flatnonzero(~adj[u[e]])
        if free.size:
            v[e] = free[rng.integers(0, free.size)]
        else:
            i, j = np.nonzero(np.triu(~adj, k=1))  # adj is symmetric
            pick = rng.integers(0, i.size)
            u[e], v[e] = i[pick], j[pick]
        placed[e] = True
    return u, v


def _ws_edges(rng: np.random.Generator, batch: int, n: int, k: int, beta: float,
              connected: bool) -> Edges:
    """Ring lattice (node i joined to i +- 1, ..., i +- k/2), each edge (i, i + j) rewired
    with probability beta to (i, w), w uniform among the nodes that keep the graph simple.

    k >= n - 1 is the complete graph (nothing to rewire). connected: the
    rewiring of a disconnected sample is redrawn, up to `_CONNECT_TRIES` times.
    """
    if n < 2:
        return _none()
    if k >= n - 1:
        return _complete(batch, n)
    half = k // 2
    u0 = np.tile(np.arange(n), half)
    v0 = (u0 + np.repeat(np.arange(1, half + 1), n)) % n
    b, u, lattice = _same_each(batch, u0, v0)
    redraw = rng.random(b.size) < beta
    u0 = u
    u, v = _settle(rng, n, b, u0, lattice, lattice, redraw)
    for tries in range(1, _CONNECT_TRIES + 1):
        if not connected:
            break
        bad = ~_connected(batch, n, (b, u, v))
        if not bad.any():
            break
        if tries == _CONNECT_TRIES:
            raise ValueError(f"watts_strogatz: no connected graph in {tries} draws at n = {n} "
                             f"(k = {k}, beta = {beta}); use a larger k or a smaller beta")
        again = bad[b]
        redraw = np.zeros(b.size, dtype=bool)
        redraw[again] = rng.random(int(again.sum())) < beta
        u, v = _settle(rng, n, b, np.where(again, u0, u), np.where(again, lattice, v), lattice,
                       redraw)
    return b, u, v


def _watts_strogatz(rng: np.random.Generator, batch: int, n: int, *, k: int, beta: float,
                    connected: bool, **common: Any) -> EdgeWrites:
    return _assemble(rng, batch, n, _ws_edges(rng, batch, n, k, beta, connected), **common)


# ---------------------------------------------------------------- Delaunay


def uniform_points(rng: np.random.Generator, batch: int, n: int) -> np.ndarray:
    """The points `delaunay` triangulates: [batch, n, 2], uniform in the unit square
    (its first draw, so a test can triangulate the same points)."""
    return rng.random((batch, n, 2))


def delaunay_edges(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edges (i, j), i < j, of the Delaunay triangulation of [n, 2] points, sorted.

    Fewer than 3 points, or all on one line (Qhull cannot triangulate them):
    the path through the points in (x, y) order.  A point Qhull leaves out as
    coplanar (a duplicate, in practice) is joined to its nearest vertex.
    """
    from scipy.spatial import Delaunay, QhullError

    n = len(points)
    try:
        if n < 3:
            raise QhullError("fewer than 3 points")
        tri = Delaunay(points)
    except QhullError:
        order = np.lexsort((points[:, 1], points[:, 0]))
        u, v = order[:-1], order[1:]
        return np.minimum(u, v), np.maximum(u, v)
    s = tri.simplices
    pairs = np.concatenate([s[:, [0, 1]], s[:, [1, 2]], s[:, [0, 2]],
                            np.asarray(tri.coplanar, dtype=np.int64).reshape(-1, 3)[:, [0, 2]]])
    pairs.sort(axis=1)
    keys = np.unique(pairs[:, 0].astype(np.int64) * n + pairs[:, 1])
    return keys // n, keys % n


def _delaunay(rng: np.random.Generator, batch: int, n: int, *, weights: str, weighted: bool,
              **common: Any) -> EdgeWrites:
    pts = uniform_points(rng, batch, n)
    found = [delaunay_edges(p) for p in pts]
    b = np.repeat(np.arange(batch), [len(u) for u, _ in found])
    u = np.concatenate([x for x, _ in found] + [np.zeros(0, dtype=np.int64)])
    v = np.concatenate([y for _, y in found] + [np.zeros(0, dtype=np.int64)])
    lengths = None
    if weighted and weights == "euclidean":
        d = pts[b, u] - pts[b, v]
        lengths = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])  # exactly rounded everywhere
    return _assemble(rng, batch, n, _edges(b, u, v), weighted=weighted, lengths=lengths, **common)


# ---------------------------------------------------------------- grid, path


def grid_shape(n: int, cols: int = 0) -> tuple[int, int]:
    """(rows, cols) of the grid on n nodes: cols = ceil(sqrt(n)) unless given (at most n);
    the last of the ceil(n / cols) rows holds what is left."""
    c = cols or math.isqrt(n) + (math.isqrt(n) ** 2 < n)
    c = max(1, min(c, n))
    return -(-n // c), c


def _grid_edges(batch: int, n: int, cols: int) -> Edges:
    _, c = grid_shape(n, cols)
    i = np.arange(n)
    right = i[(i % c != c - 1) & (i + 1 < n)]
    down = i[i + c < n]
    return _same_each(batch, np.concatenate([right, down]), np.concatenate([right + 1, down + c]))


def _grid(rng: np.random.Generator, batch: int, n: int, *, cols: int, **common: Any) -> EdgeWrites:
    return _assemble(rng, batch, n, _grid_edges(batch, n, cols), **common)


def _path(rng: np.random.Generator, batch: int, n: int, **common: Any) -> EdgeWrites:
    i = np.arange(max(n - 1, 0))
    return _assemble(rng, batch, n, _same_each(batch, i, i + 1), **common)


# ---------------------------------------------------------------- Barabasi-Albert


def _ba_edges(rng: np.random.Generator, batch: int, n: int, m: int) -> Edges:
    """A star on nodes 0..m (m edges), then nodes m + 1, ..., n - 1 in turn, each joined to
    m distinct earlier nodes drawn with probability proportional to degree.

    As networkx: targets are drawn from the list of edge endpoints (a node
    appears once per incident edge) until m distinct ones are found.  All
    samples step together; m >= n is taken as n - 1 (the graph is the star).
    """
    m = min(m, n - 1)
    if m < 1:
        return _none()
    ends = np.zeros((batch, 2 * m * (n - m)), dtype=np.int64)  # endpoint list per sample
    ends[:, m:2 * m] = np.arange(1, m + 1)
    size = 2 * m
    rows = np.arange(batch)[:, None]
    col = np.arange(m)
    earlier = col[None, :] < col[:, None]  # [i, j]: j before i
    targets = np.zeros((batch, max(n - m - 1, 0), m), dtype=np.int64)
    for new in range(m + 1, n):
        t = ends[rows, rng.integers(0, size, size=(batch, m))]
        rank = np.zeros((batch, m), dtype=np.int64)
        rnd = 0
        while True:  # redraw repeats, as drawing one by one until m distinct would
            rnd += 1
            same = t[:, :, None] == t[:, None, :]
            older = (rank[:, None, :] < rank[:, :, None]) | (
                (rank[:, None, :] == rank[:, :, None]) & earlier)
            bi, pi = np.nonzero((same & older).any(axis=2))
            if bi.size == 0:
                break
            t[bi, pi] = ends[bi, rng.integers(0, size, size=bi.size)]
            rank[bi, pi] = rnd
        ends[:, size:size + m] = t
        ends[:, size + m:size + 2 * m] = new
        size += 2 * m
        targets[:, new - m - 1] = t
    seed = _same_each(batch, np.zeros(m, dtype=np.int64), np.arange(1, m + 1))
    newer = np.broadcast_to(np.arange(m + 1, n)[None, :, None], targets.shape)
    grown = _edges(np.broadcast_to(rows[:, :, None], targets.shape), targets, newer)
    return tuple(np.concatenate([s, g]) for s, g in zip(seed, grown, strict=True))  # type: ignore[return-value]


def _barabasi_albert(rng: np.random.Generator, batch: int, n: int, *, m: int,
                     **common: Any) -> EdgeWrites:
    return _assemble(rng, batch, n, _ba_edges(rng, batch, n, m), **common)


# ---------------------------------------------------------------- uniform tree


def _prufer_edges(rng: np.random.Generator, batch: int, n: int) -> Edges:
    """A uniform labelled tree per sample: a uniform Pruefer sequence, decoded.

    Each of the n^(n-2) trees on n labelled nodes equally likely (Cayley), so
    its depth grows like sqrt(n), unlike a random recursive tree's log n.
    """
    if n < 2:
        return _none()
    seqs = rng.integers(0, n, size=(batch, max(n - 2, 0)))
    us, vs = [], []
    for seq in seqs.tolist():
        degree = [1] * n
        for x in seq:
            degree[x] += 1
        leaves = [i for i in range(n) if degree[i] == 1]
        heapq.heapify(leaves)
        for x in seq:
            us.append(heapq.heappop(leaves))
            vs.append(x)
            degree[x] -= 1
            if degree[x] == 1:
                heapq.heappush(leaves, x)
        us.append(heapq.heappop(leaves))
        vs.append(heapq.heappop(leaves))
    return _edges(np.repeat(np.arange(batch), n - 1), us, vs)


def _uniform_tree(rng: np.random.Generator, batch: int, n: int, **common: Any) -> EdgeWrites:
    return _assemble(rng, batch, n, _prufer_edges(rng, batch, n), **common)


# ---------------------------------------------------------------- checks, registry


def check_common(p: Params) -> list[str]:
    errors = []
    if p["acyclic"] and not p["directed"]:
        errors.append("'acyclic' needs directed=true (an undirected edge is a 2-cycle)")
    if p["acyclic"] and p["self_loops"]:
        errors.append("'acyclic' excludes self_loops=true (a self-loop is a cycle)")
    if p["weighted"] and not p["low"] < p["high"] and p.get("weights") != "euclidean":
        errors.append(f"need low < high, got low={p['low']}, high={p['high']}")
    return errors


def _check_at_least(name: str, least: float) -> Any:
    def check(p: Params) -> list[str]:
        return [f"'{name}' must be >= {least}, got {p[name]}"] if p[name] < least else []

    return check


def _check_ws(p: Params) -> list[str]:
    k = p["k"]
    return [] if k >= 2 and k % 2 == 0 else [f"'k' must be even and >= 2, got {k}"]


DELAUNAY_WEIGHTS = ("uniform", "euclidean")  # the names `weights` of `delaunay` takes


def _check_delaunay(p: Params) -> list[str]:
    errors = []
    if p["weights"] not in DELAUNAY_WEIGHTS:
        errors.append(f"'weights' must be uniform or euclidean, got {p['weights']!r}")
    if importlib.util.find_spec("scipy") is None:
        errors.append("needs scipy (scipy.spatial.Delaunay), which is not installed: "
                      "pip install scipy")
    return errors


def _domain(p: Params) -> Domain:
    return Domain("real") if p["weighted"] else Domain("bool")


_COMMON_DOC = ("directed: each edge one random orientation (acyclic: from lower to higher "
               "label, a DAG with a uniform topological order); self_loops: a loop at every "
               "node; weighted: edges times U[low, high), once per undirected edge. Nodes "
               "randomly relabelled.")


def _as(writes: Any, make: str) -> Any:
    """A family's draw of `EdgeWrites` as one of its forms (`dense`, `edge_lists`)."""
    def draw(rng: np.random.Generator, batch: int, n: int, **params: Any) -> Any:
        return getattr(writes(rng, batch, n, **params), make)()

    return draw


def _family_generator(name: str, writes: Any, doc: str, params: Mapping[str, Any],
                      *checks: Any, names: Mapping[str, tuple[str, ...]] | None = None
                      ) -> Generator:
    return Generator(name=name, location="edge", defaults={**params, **COMMON},
                     doc=f"{doc} {_COMMON_DOC}", draw=_as(writes, "dense"),
                     sparse=_as(writes, "edge_lists"),
                     check=check_all(check_common, *checks), domain=_domain,
                     names=dict(names or {}))


GENERATORS: list[Generator] = [
    _family_generator(
        "sparse_erdos_renyi", _sparse_erdos_renyi,
        "Connected sparse G(n, p), p = min(degree / (n - 1), 1), drawn in O(edges), plus the "
        "edges of a random recursive tree (as erdos_renyi's connected; the mean degree is "
        "then degree + 2 (n - 1 - degree) / n).",
        {"degree": 3.0}, _check_at_least("degree", 0.0)),
    _family_generator(
        "watts_strogatz", _watts_strogatz,
        "Watts-Strogatz small world: a ring lattice of the k nearest neighbours (k even), "
        "each edge's far end rewired with probability beta to a uniform node, keeping the "
        "graph simple (n k / 2 edges); k >= n - 1 is the complete graph. May be "
        "disconnected; connected redraws a disconnected sample's rewiring (100 tries).",
        {"k": 4, "beta": 0.1, "connected": False}, _check_ws, check_prob("beta")),
    _family_generator(
        "delaunay", _delaunay,
        "Delaunay triangulation (scipy) of n uniform points in the unit square (planar, "
        "connected, at most 3n - 6 edges); under 3 points or collinear ones: the path in (x, "
        "y) order. weights = euclidean (with weighted) weighs each edge by its length "
        "sqrt(dx^2 + dy^2) instead of U[low, high).",
        {"weights": "uniform"}, _check_delaunay, names={"weights": DELAUNAY_WEIGHTS}),
    _family_generator(
        "grid", _grid,
        "2-D grid graph, row by row with cols = ceil(sqrt(n)) columns (cols > 0: that many, "
        "at most n): a square for square n, else the last row partial (a prime n is a "
        "near-square grid, not a path).",
        {"cols": 0}, _check_at_least("cols", 0)),
    _family_generator(
        "barabasi_albert", _barabasi_albert,
        "Barabasi-Albert preferential attachment: a star on m + 1 nodes, then each new node "
        "joined to m distinct earlier nodes drawn with probability proportional to degree "
        "(m (n - m) edges; m >= n is taken as n - 1, the star).",
        {"m": 2}, _check_at_least("m", 1)),
    _family_generator(
        "uniform_tree", _uniform_tree,
        "Uniform labelled tree (each of the n^(n-2) trees equally likely), decoded from a "
        "uniform Pruefer sequence: n - 1 edges, depth about sqrt(n) (the node generator "
        "random_tree is a random recursive tree, depth about log n).",
        {}),
    _family_generator(
        "path", _path,
        "A path through all nodes in a uniform random order (n - 1 edges).",
        {}),
]

_BY_NAME = {g.name: g for g in GENERATORS}


@dataclass(frozen=True)
class Family:
    """One value of the `family` option: its generator (drawn at its defaults) and a line."""

    generator: Generator
    doc: str


FAMILIES: dict[str, Family] = {
    "sparse_er": Family(_BY_NAME["sparse_erdos_renyi"],
                        "sparse G(n, degree / (n - 1)) plus a random tree"),
    "ws": Family(_BY_NAME["watts_strogatz"], "Watts-Strogatz small world"),
    "delaunay": Family(_BY_NAME["delaunay"], "Delaunay triangulation of uniform points"),
    "grid": Family(_BY_NAME["grid"], "near-square 2-D grid"),
    "ba": Family(_BY_NAME["barabasi_albert"], "Barabasi-Albert preferential attachment"),
    "tree": Family(_BY_NAME["uniform_tree"], "uniform labelled tree"),
    "path": Family(_BY_NAME["path"], "path through all nodes"),
}

# Options of the Erdos-Renyi generators passed on to a family generator that has them.
PASSED_ON = ("directed", "acyclic", "self_loops", "connected", "weighted", "low", "high")


def family_names() -> list[str]:
    return ["er", *FAMILIES]


def check_family(p: Params) -> list[str]:
    f = p["family"]
    if f == "er":
        return []
    if f not in FAMILIES:
        return [f"'family' must be one of {', '.join(family_names())}, got {f!r}"]
    gen = FAMILIES[f].generator  # the options it is passed are checked by the caller
    return [f"family {f}: {msg}" for msg in gen.check(dict(gen.defaults))]


def family_doc(options: str) -> str:
    """The `family` sentence of the Erdos-Renyi generators' docs, from `FAMILIES`."""
    each = "; ".join(f"{name}: {fam.generator.name} ({fam.doc})" for name, fam in FAMILIES.items())
    return (f"family (default er: the law above) draws from another family instead, at that "
            f"generator's defaults with this one's {options}: {each}.")


def families_table() -> str:
    """The `family` table of docs/generators.md (`python -m algspec.generators`)."""
    from algspec.generators.params import text

    rows = ["| family | generator | its parameters (defaults) | graph |", "|---|---|---|---|",
            "| `er` (default) | the generator itself | its own | its own G(n, p) law |"]
    for name, fam in FAMILIES.items():
        own = ", ".join(f"{k} = {text(v)}" for k, v in fam.generator.defaults.items()
                        if k not in COMMON) or "none"
        rows.append(f"| `{name}` | `{fam.generator.name}` | {own} | {fam.doc} |")
    return "\n".join(rows)


def draw_family(rng: np.random.Generator, batch: int, n: int, family: str,
                **options: Any) -> np.ndarray:
    """A batch of the family's graphs: its generator at its defaults, with the `options`
    (`PASSED_ON`) that generator has."""
    gen = FAMILIES[family].generator
    return gen.draw(rng, batch, n, **gen.resolve(
        {k: v for k, v in options.items() if k in gen.defaults}))


def family_edge_lists(rng: np.random.Generator, batch: int, n: int, family: str,
                      **options: Any) -> EdgeLists:
    """`draw_family` as edge lists (the same random stream)."""
    gen = FAMILIES[family].generator
    assert gen.sparse is not None, gen.name
    return gen.sparse(rng, batch, n, **gen.resolve(
        {k: v for k, v in options.items() if k in gen.defaults}))
