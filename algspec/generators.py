"""Named input distributions for `.alg` files (numpy only).

An `.alg` file names the distribution of each primary input, e.g.
``input node key: scalar ~ sorted_uniform(low=0.0, high=1.0)``.  The checker
validates the name and parameters with `validate_params`; the sampler calls
`Generator.sample`, which draws a whole batch at once (no Python loop per
sample) so that input generation never dominates sampling time.

The distributions are those of dm-clrs's samplers (same distribution, not the
same random stream): uniform sequences (`SortingSampler`), a sorted sequence
and a scalar target (`SearchSampler`), Erdos-Renyi graphs (`_random_er_graph`)
and the perturbed community graph of the SCC sampler
(`_random_community_graph`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

ParamValue = float | int | bool
Location = Literal["node", "graph", "edge"]

__all__ = ["GENERATORS", "Generator", "ParamValue", "validate_params"]


@dataclass(frozen=True)
class Generator:
    """A named, parameterised input distribution.

    `defaults` doubles as the list of accepted parameter names and their types:
    a parameter whose default is a bool only accepts bools, an int default only
    ints, a float default any real number.
    """

    name: str
    location: Location
    defaults: Mapping[str, ParamValue]
    doc: str
    draw: Callable[..., np.ndarray] = field(repr=False)
    check: Callable[[dict[str, ParamValue]], list[str]] = field(
        repr=False, default=lambda _p: []
    )

    def resolve(self, params: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
        """Defaults overridden by `params`; raises ValueError on bad parameters."""
        errors = _validate(self, params)
        if errors:
            raise ValueError("; ".join(errors))
        return {**self.defaults, **params}

    def sample(
        self, rng: np.random.Generator, batch: int, n: int, **params: ParamValue
    ) -> np.ndarray:
        """Draw `batch` independent samples of size `n` as float64.

        Shape: `[batch, n]` (node), `[batch]` (graph) or `[batch, n, n]` (edge).
        """
        if batch < 0 or n < 1:
            raise ValueError(f"{self.name}: need batch >= 0 and n >= 1, got {batch}, {n}")
        out = np.asarray(self.draw(rng, batch, n, **self.resolve(params)), dtype=np.float64)
        expected = {"node": (batch, n), "graph": (batch,), "edge": (batch, n, n)}[self.location]
        assert out.shape == expected, (self.name, out.shape, expected)
        return out


# --------------------------------------------------------------------------
# Validation


def _type_errors(gen: Generator, params: Mapping[str, ParamValue]) -> list[str]:
    errors = []
    for key, value in params.items():
        if key not in gen.defaults:
            accepted = ", ".join(gen.defaults) or "none"
            errors.append(
                f"generator '{gen.name}' has no parameter '{key}' (accepted: {accepted})"
            )
            continue
        default = gen.defaults[key]
        if isinstance(default, bool):
            ok = isinstance(value, (bool, np.bool_))
            want = "a boolean"
        elif isinstance(default, int):
            ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            want = "an integer"
        else:
            ok = (
                isinstance(value, (int, float, np.integer, np.floating))
                and not isinstance(value, (bool, np.bool_))
                and math.isfinite(float(value))
            )
            want = "a finite number"
        if not ok:
            errors.append(f"generator '{gen.name}': parameter '{key}' must be {want}, got {value!r}")
    return errors


def _validate(gen: Generator, params: Mapping[str, ParamValue]) -> list[str]:
    errors = _type_errors(gen, params)
    if errors:
        return errors
    return [f"generator '{gen.name}': {msg}" for msg in gen.check({**gen.defaults, **params})]


def validate_params(name: str, params: Mapping[str, ParamValue]) -> list[str]:
    """Error messages for an unknown generator, unknown parameter names or bad values.

    Empty list = valid.  Used by the checker and by the CLI's `--param` overrides,
    so a bad override is reported as a diagnostic instead of failing mid-sampling.
    """
    gen = GENERATORS.get(name)
    if gen is None:
        known = ", ".join(sorted(GENERATORS))
        return [f"unknown generator '{name}' (known: {known})"]
    return _validate(gen, params)


def _check_range(p: dict[str, ParamValue]) -> list[str]:
    if not p["low"] < p["high"]:
        return [f"need low < high, got low={p['low']}, high={p['high']}"]
    return []


def _check_prob(*names: str) -> Callable[[dict[str, ParamValue]], list[str]]:
    def check(p: dict[str, ParamValue]) -> list[str]:
        return [f"'{k}' must lie in [0, 1], got {p[k]}" for k in names if not 0.0 <= p[k] <= 1.0]

    return check


def _check_er(p: dict[str, ParamValue]) -> list[str]:
    errors = _check_prob("p")(p)
    if p["acyclic"] and not p["directed"]:
        errors.append("'acyclic' needs directed=true (an undirected edge is a 2-cycle)")
    if p["acyclic"] and p["self_loops"]:
        errors.append("'acyclic' excludes self_loops=true (a self-loop is a cycle)")
    return errors


def _check_community(p: dict[str, ParamValue]) -> list[str]:
    errors = _check_prob("p", "eps")(p)
    if p["k"] < 1:
        errors.append(f"'k' must be >= 1, got {p['k']}")
    return errors


# --------------------------------------------------------------------------
# Distributions


def _uniform(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    return rng.uniform(low, high, size=(batch, n))


def _sorted_uniform(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    return np.sort(rng.uniform(low, high, size=(batch, n)), axis=1)


def _uniform_scalar(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    return rng.uniform(low, high, size=(batch,))


def _bernoulli(rng: np.random.Generator, p: float, shape: tuple[int, ...]) -> np.ndarray:
    return rng.random(shape) < p


def _permute_nodes(rng: np.random.Generator, mat: np.ndarray) -> np.ndarray:
    """Relabel the nodes of each graph by an independent uniform permutation.

    new[b, i, j] = old[b, perm[b, i], perm[b, j]], as CLRS's `mat[p, :][:, p]`.
    """
    batch, n = mat.shape[0], mat.shape[1]
    perm = np.argsort(rng.random((batch, n)), axis=1)
    b = np.arange(batch)[:, None, None]
    return mat[b, perm[:, :, None], perm[:, None, :]]


def _erdos_renyi(
    rng: np.random.Generator,
    batch: int,
    n: int,
    *,
    p: float,
    directed: bool,
    self_loops: bool,
    acyclic: bool,
) -> np.ndarray:
    """G(n, p): every ordered (directed) or unordered (undirected) pair independently."""
    mat = _bernoulli(rng, p, (batch, n, n))
    off_diag = ~np.eye(n, dtype=bool)
    if acyclic:
        # CLRS: keep i < j, then relabel nodes so the topological order is random.
        mat = _permute_nodes(rng, np.triu(mat, k=1))
    elif not directed:
        upper = np.triu(mat, k=1)
        mat = upper | upper.transpose(0, 2, 1) | (mat & ~off_diag)
    if not self_loops:
        mat &= off_diag
    return mat


def _clrs_erdos_renyi(
    rng: np.random.Generator, batch: int, n: int, *, p: float, directed: bool
) -> np.ndarray:
    """Exactly CLRS's unweighted `_random_er_graph(p, directed, acyclic=False)`.

    CLRS draws all n^2 entries (so self-loops appear with probability p) and, for
    undirected graphs, multiplies by the transpose: an undirected edge then has
    probability p^2, not p.
    """
    mat = _bernoulli(rng, p, (batch, n, n))
    if not directed:
        mat &= mat.transpose(0, 2, 1)
    return mat


def community_blocks(n: int, k: int) -> np.ndarray:
    """Community index of each node before shuffling, as CLRS splits the nodes.

    The first k-1 communities hold n // k consecutive nodes; the last takes the rest.
    """
    if k > n:
        raise ValueError(f"Cannot generate graph of too many ({k}) communities for n={n}.")
    return np.minimum(np.arange(n) // (n // k), k - 1)


def _community(
    rng: np.random.Generator,
    batch: int,
    n: int,
    *,
    k: int,
    p: float,
    eps: float,
    directed: bool,
    shuffle: bool,
) -> np.ndarray:
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
    mat = _bernoulli(rng, p, (batch, n, n)) & same
    mat ^= _bernoulli(rng, eps, (batch, n, n)) & forward
    if not directed:
        upper = np.triu(mat)
        mat = upper | upper.transpose(0, 2, 1)
    return _permute_nodes(rng, mat) if shuffle else mat


GENERATORS: dict[str, Generator] = {
    g.name: g
    for g in [
        Generator(
            name="uniform",
            location="node",
            defaults={"low": 0.0, "high": 1.0},
            doc="i.i.d. U[low, high) per node (CLRS SortingSampler).",
            draw=_uniform,
            check=_check_range,
        ),
        Generator(
            name="sorted_uniform",
            location="node",
            defaults={"low": 0.0, "high": 1.0},
            doc="U[low, high) per node, sorted ascending (CLRS SearchSampler's array).",
            draw=_sorted_uniform,
            check=_check_range,
        ),
        Generator(
            name="uniform_scalar",
            location="graph",
            defaults={"low": 0.0, "high": 1.0},
            doc="One U[low, high) value per graph (CLRS SearchSampler's target).",
            draw=_uniform_scalar,
            check=_check_range,
        ),
        Generator(
            name="erdos_renyi",
            location="edge",
            defaults={"p": 0.5, "directed": False, "self_loops": False, "acyclic": False},
            doc=(
                "0/1 adjacency of G(n, p): each ordered pair (directed) or unordered "
                "pair (undirected, symmetric) is an edge with probability p; the "
                "diagonal is empty unless self_loops. acyclic (directed only) keeps "
                "i < j and relabels the nodes randomly, as CLRS does for DAGs."
            ),
            draw=_erdos_renyi,
            check=_check_er,
        ),
        Generator(
            name="clrs_erdos_renyi",
            location="edge",
            defaults={"p": 0.5, "directed": False},
            doc=(
                "CLRS's own unweighted _random_er_graph: self-loops with probability "
                "p, and undirected edges with probability p^2 (A * A^T)."
            ),
            draw=_clrs_erdos_renyi,
            check=_check_prob("p"),
        ),
        Generator(
            name="community",
            location="edge",
            defaults={"k": 4, "p": 0.5, "eps": 0.01, "directed": True, "shuffle": True},
            doc=(
                "CLRS's perturbed k-community graph (SCC sampler): G(n/k, p) "
                "communities with self-loops, eps-noise XOR-ed inside communities and "
                "on edges from lower to higher communities only, nodes shuffled."
            ),
            draw=_community,
            check=_check_community,
        ),
    ]
}
