"""Node and graph-level generators: sequences, strings, nodes, pointers.

The distributions of dm-clrs's samplers (same law, not the same random
stream): `SortingSampler`/`MaxSubarraySampler` (`uniform`), `SearchSampler`
(`sorted_uniform`, `uniform_scalar`), `_random_string` (`random_string`), the
LCS split (`string_split`), `TaskSampler`'s deadlines (`deadlines`) and the
source node of BFS, Bellman-Ford, Dijkstra, Prim and DAG shortest paths
(`source_node`); plus pointer structures for parallel algorithms (random
lists, permutations and trees).
"""

from __future__ import annotations

import numpy as np

from algspec.generators.base import Domain, Generator, Params, check_range, random_perms
from algspec.generators.params import text


def _uniform(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    return rng.uniform(low, high, size=(batch, n))


def _sorted_uniform(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    return np.sort(rng.uniform(low, high, size=(batch, n)), axis=1)


def _uniform_scalar(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    return rng.uniform(low, high, size=(batch,))


def _uniform_int(rng: np.random.Generator, batch: int, n: int, *, low: int, high: int):
    return rng.integers(low, high, size=(batch, n))


def _uniform_int_scalar(rng: np.random.Generator, batch: int, n: int, *, low: int, high: int):
    return rng.integers(low, high, size=(batch,))


def _random_string(rng: np.random.Generator, batch: int, n: int, *, chars: int):
    return rng.integers(0, chars, size=(batch, n))


def second_length(n: int, length_2: int) -> int:
    """Length of the second string of n nodes: `length_2`, or n // 2 (CLRS's LCS) if 0."""
    return length_2 if length_2 > 0 else n // 2


def _string_split(rng: np.random.Generator, batch: int, n: int, *, length_2: int):
    second = second_length(n, length_2)
    if second > n:
        raise ValueError(f"string_split: length_2={length_2} exceeds n={n}")
    ids = np.arange(n) >= n - second
    return np.broadcast_to(ids, (batch, n))


def _deadlines(rng: np.random.Generator, batch: int, n: int, *, max_deadline: int):
    top = max_deadline if max_deadline > 0 else n
    return rng.integers(0, top, size=(batch, n)) + 1


def _source_node(rng: np.random.Generator, batch: int, n: int):
    out = np.zeros((batch, n))
    out[np.arange(batch), rng.integers(0, n, size=batch)] = 1.0
    return out


def _random_index(rng: np.random.Generator, batch: int, n: int):
    return rng.integers(0, n, size=batch)


def _random_pointer(rng: np.random.Generator, batch: int, n: int):
    """A uniform random function of the nodes: each node points to any node, independently."""
    return rng.integers(0, n, size=(batch, n))


def _random_permutation(rng: np.random.Generator, batch: int, n: int):
    return random_perms(rng, batch, n)


def _random_list(rng: np.random.Generator, batch: int, n: int, *, successor: bool):
    """Pointers along a uniformly random order of the nodes.

    Predecessor pointers (the head points to itself), as CLRS's
    `probing.array`; `successor` gives next pointers (the tail points to itself).
    """
    order = random_perms(rng, batch, n)
    if successor:
        order = order[:, ::-1]
    out = np.empty((batch, n), dtype=np.int64)
    rows = np.arange(batch)[:, None]
    out[rows, order] = np.concatenate([order[:, :1], order[:, :-1]], axis=1)
    return out


def _random_tree(rng: np.random.Generator, batch: int, n: int):
    """Parent pointers of a uniform random recursive tree, nodes relabelled at random.

    In the hidden order, node k > 0 hangs below a uniform earlier node; the
    root points to itself.
    """
    order = random_perms(rng, batch, n)
    ranks = np.arange(n)
    parent_rank = np.floor(rng.random((batch, n)) * ranks).astype(np.int64)  # in [0, k)
    rows = np.arange(batch)[:, None]
    out = np.empty((batch, n), dtype=np.int64)
    out[rows, order] = order[rows, parent_rank]
    return out


def _check_int_range(p: Params) -> list[str]:
    if not p["low"] < p["high"]:
        return [f"need low < high (high is exclusive), got low={p['low']}, high={p['high']}"]
    return []


def _check_chars(p: Params) -> list[str]:
    return [] if p["chars"] >= 1 else [f"'chars' must be >= 1, got {p['chars']}"]


def _check_nonneg(*names: str):
    def check(p: Params) -> list[str]:
        return [f"'{k}' must be >= 0, got {p[k]}" for k in names if p[k] < 0]

    return check


def _uniform_int_domain(p: Params) -> Domain:
    return Domain("int", low=p["low"], high=p["high"] - 1)


def _int_range_bounds(_n: int, p: Params) -> tuple[int, int]:
    return p["low"], p["high"] - 1


def _int_range_shown(p: Params) -> str:
    """`integers in [0, n)`: the half-open range with its bounds as the file writes them."""
    return f"integers in [{text(p['low'])}, {text(p['high'])})"


def _deadline_domain(p: Params) -> Domain:
    return Domain("int", low=1, high=p["max_deadline"] if p["max_deadline"] > 0 else None)


def _range():
    return lambda p: Domain("real", low=p["low"], high=p["high"])


GENERATORS: list[Generator] = [
    Generator(
        name="uniform", location="node", defaults={"low": 0.0, "high": 1.0},
        doc="i.i.d. U[low, high) per node (CLRS SortingSampler; MaxSubarraySampler with "
            "low = -1.0).",
        draw=_uniform, check=check_range, domain=_range(),
    ),
    Generator(
        name="sorted_uniform", location="node", defaults={"low": 0.0, "high": 1.0},
        doc="U[low, high) per node, sorted ascending (CLRS SearchSampler's array).",
        draw=_sorted_uniform, check=check_range, domain=_range(),
    ),
    Generator(
        name="uniform_scalar", location="graph", defaults={"low": 0.0, "high": 1.0},
        doc="One U[low, high) value per graph (CLRS SearchSampler's target).",
        draw=_uniform_scalar, check=check_range, domain=_range(),
    ),
    Generator(
        name="uniform_int", location="node", defaults={"low": 0, "high": 2},
        doc="i.i.d. integers uniform in [low, high) per node. Feeds a `pointer` when the "
            "range lies in [0, N) (e.g. high = n), checked at each n.",
        draw=_uniform_int, check=_check_int_range, domain=_uniform_int_domain,
        bounds=_int_range_bounds, shown=_int_range_shown,
    ),
    Generator(
        name="uniform_int_scalar", location="graph", defaults={"low": 0, "high": 2},
        doc="One integer uniform in [low, high) per graph (a target, a count; e.g. high = "
            "10 * n). Feeds a graph `pointer` when the range lies in [0, N).",
        draw=_uniform_int_scalar, check=_check_int_range, domain=_uniform_int_domain,
        bounds=_int_range_bounds, shown=_int_range_shown,
    ),
    Generator(
        name="random_string", location="node", defaults={"chars": 4},
        doc="i.i.d. characters uniform over an alphabet of `chars` letters (CLRS "
            "_random_string; the LCS key is two such strings, i.e. one of n nodes).",
        draw=_random_string, check=_check_chars,
        domain=lambda p: Domain("categorical", k=p["chars"]),
    ),
    Generator(
        name="string_split", location="node", defaults={"length_2": 0},
        doc="String id of two strings over n nodes: 0 on the first, 1 on the last "
            "`length_2` nodes (0: n // 2, CLRS's LCSSampler; its `string` input).",
        draw=_string_split, check=_check_nonneg("length_2"), domain=Domain("bool"),
    ),
    Generator(
        name="deadlines", location="node", defaults={"max_deadline": 0},
        doc="Integer deadlines uniform in [1, max_deadline] per node (0: n), CLRS "
            "TaskSampler's `d`.",
        draw=_deadlines, check=_check_nonneg("max_deadline"), domain=_deadline_domain,
    ),
    Generator(
        name="source_node", location="node", defaults={},
        doc="A uniformly random node as a one-hot mask: CLRS's source `s` (BFS, "
            "Bellman-Ford, Dijkstra, Prim, DAG shortest paths).",
        draw=_source_node, domain=Domain("one_hot"),
    ),
    Generator(
        name="random_index", location="graph", defaults={},
        doc="A uniformly random node index as a graph-level pointer.",
        draw=_random_index, domain=Domain("pointer"),
    ),
    Generator(
        name="random_pointer", location="node", defaults={},
        doc="A uniform random function of the nodes: each node points to a uniform node "
            "(itself included), independently (n^n functions equally likely).",
        draw=_random_pointer, domain=Domain("pointer"),
    ),
    Generator(
        name="random_permutation", location="node", defaults={},
        doc="A uniform permutation of the nodes: node i points to sigma(i).",
        draw=_random_permutation, domain=Domain("bijection"),
    ),
    Generator(
        name="random_list", location="node", defaults={"successor": False},
        doc="A linked list through all nodes in a uniform random order: predecessor "
            "pointers, the head pointing to itself (CLRS's permutation encoding); "
            "successor = true gives next pointers, the tail pointing to itself.",
        draw=_random_list, domain=Domain("list"),
    ),
    Generator(
        name="random_tree", location="node", defaults={},
        doc="Parent pointers of a random recursive tree (node k of a hidden random "
            "order hangs below a uniform earlier one); the root points to itself.",
        draw=_random_tree, domain=Domain("pointer"),
    ),
]
