"""The `Generator` record, its value domain, and parameter validation.

A generator is a named, parameterised input distribution.  Besides drawing,
it declares *what* it draws (`location`, `Domain`), so that a file whose
declared type cannot hold that output (`mask_one ~ uniform()`) is rejected at
load time rather than silently giving all-true masks when sampled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.generators.params import at_size, describe, expr_dtype, is_expr, text

ParamValue = float | int | bool | str
Location = Literal["node", "graph", "edge"]
DomainKind = Literal["real", "int", "bool", "one_hot", "categorical", "pointer", "bijection",
                     "list"]
Params = dict[str, Any]


@dataclass(frozen=True)
class Domain:
    """The set of values a generator draws, per node/edge/graph entry.

    - `real`: any real number (`low`/`high` are the range when known);
    - `int`: integers in [`low`, `high`] (inclusive; a `high` of None: depends on n, at
      most n);
    - `bool`: 0/1;
    - `one_hot`: 0/1 with exactly one 1 per sample (CLRS `mask_one`);
    - `categorical`: integers in [0, `k`);
    - `pointer`: node indices in [0, n);
    - `bijection`: a permutation of the nodes, as pointers (node i -> sigma(i));
    - `list`: predecessor pointers of a linked list over all nodes, the head
      pointing to itself (CLRS's `probing.array`, its `should_be_permutation`).

    `known=False`: the kind is right but the bounds are not known before n is
    (a parameter is an expression in n), so only the kind is checked.
    """

    kind: DomainKind
    low: float | None = None
    high: float | None = None
    k: int | None = None
    known: bool = True  # False: bounds depend on parameters given as expressions in n

    def __str__(self) -> str:
        if self.kind == "real":
            if self.low is None or self.high is None:
                return "real numbers"
            return f"real numbers in [{self.low:g}, {self.high:g})"
        if self.kind == "int":
            lo = "?" if self.low is None else f"{self.low:g}"
            hi = "n" if self.high is None else f"{self.high:g}"  # None: at most n
            return f"integers in [{lo}, {hi}]"
        return {
            "bool": "booleans (0/1)",
            "one_hot": "one-hot node masks (one node per sample)",
            "categorical": f"categories 0..{(self.k or 0) - 1}",
            "pointer": "node pointers",
            "bijection": "permutations of the nodes (as pointers)",
            "list": "linked-list predecessor pointers (CLRS's permutation encoding)",
        }[self.kind]


Check = Callable[[Params], list[str]]


def _no_check(_p: Params) -> list[str]:
    return []


@dataclass(frozen=True)
class Generator:
    """A named, parameterised input distribution.

    `defaults` doubles as the list of accepted parameter names and their types:
    a parameter whose default is a bool only accepts bools, an int default only
    ints, a float default any real number.  Parameters named in `choice` also
    accept a non-empty list of such values: each sample then draws its value
    uniformly from the list (CLRS's `p=(0.5,)` tuples and `rng.choice(p)`).

    `draw(rng, batch, n, **params)` returns the batch; for a generator that is
    one field (`part`) of a jointly drawn group (`group`), it returns a dict of every
    field's array, and inputs of one group with equal parameters share a draw
    (see `draw_inputs`).  `size(n, params)` is the number of nodes drawn (n
    unless the distribution fixes another, e.g. optimal BST's n + 1 `q`).
    """

    name: str
    location: Location
    defaults: Mapping[str, ParamValue]
    doc: str
    draw: Callable[..., Any] = field(repr=False)
    check: Check = field(repr=False, default=_no_check)
    domain: Domain | Callable[[Params], Domain] = field(default=Domain("real"))
    size: Callable[[int, Params], int] | None = field(repr=False, default=None)
    group: str | None = None
    part: str | None = None  # the field of the group's joint draw this generator gives
    choice: frozenset[str] = frozenset()
    # The names a name parameter (`family = delaunay`) accepts, default first: a file
    # spells them as bare identifiers, and the lowering lists them for an unknown one.
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # `int` domains: the inclusive range drawn at n under resolved parameters, so that an
    # input whose type bounds it (a `pointer`) is checked before any value is used.
    bounds: Callable[[int, Params], tuple[int, int]] | None = field(repr=False, default=None)
    # What it draws with its parameters as written (`integers in [0, n)`), for messages.
    shown: Callable[[Params], str] | None = field(repr=False, default=None)
    # Edge generators: `sparse(rng, batch, n, **params)` draws the same graphs as
    # `EdgeLists` (float64, over the nonzero pattern), consuming the random stream exactly
    # as `draw` does, so that densifying gives `draw`'s bytes and later draws are unchanged;
    # it never holds more than one sample's n x n. `dense_only` says why a draw is dense:
    # a reason (no `sparse`), or a function of the resolved parameters giving one or None.
    sparse: Callable[..., EdgeLists] | None = field(repr=False, default=None)
    dense_only: str | Callable[[Params], str | None] = field(repr=False, default="")

    def resolve(self, params: Mapping[str, Any]) -> Params:
        """Defaults overridden by `params`; raises ValueError on bad parameters."""
        errors = _validate(self, params)
        if errors:
            raise ValueError("; ".join(errors))
        return {**self.defaults, **params}

    def resolve_at(self, params: Mapping[str, Any], batch: int, n: int) -> Params:
        """`resolve` after evaluating parameters that are expressions in n."""
        if batch < 0 or n < 1:
            raise ValueError(f"{self.name}: need batch >= 0 and n >= 1, got {batch}, {n}")
        try:
            return self.resolve(at_size(params, n))
        except ValueError as e:
            exprs = describe(params, n)
            raise ValueError(f"{e} (at n = {n}: {exprs})" if exprs else str(e)) from None

    def domain_of(self, params: Mapping[str, Any] | None = None) -> Domain:
        """The value domain for these (resolved or partial) parameters.

        With a parameter given as an expression in n, only the kind is known.
        """
        if isinstance(self.domain, Domain):
            return self.domain
        merged = {**self.defaults, **(params or {})}
        if any(is_expr(v) for v in merged.values()):
            return Domain(self.domain(dict(self.defaults)).kind, known=False)
        return self.domain(merged)

    def count(self, n: int, params: Params) -> int:
        """Number of nodes drawn at problem size n."""
        return n if self.size is None else int(self.size(n, params))

    def shape(self, batch: int, n: int, params: Params) -> tuple[int, ...]:
        c = self.count(n, params)
        return {"node": (batch, c), "graph": (batch,), "edge": (batch, c, c)}[self.location]

    def sample(self, rng: np.random.Generator, batch: int, n: int, **params: Any) -> np.ndarray:
        """Draw `batch` independent samples of size `n` as float64.

        Shape: `[batch, size]` (node), `[batch]` (graph) or `[batch, size, size]`
        (edge), where size is n unless the generator fixes another.
        """
        resolved = self.resolve_at(params, batch, n)
        out = self.draw(rng, batch, n, **resolved)
        if self.group is not None:
            out = out[self.part]
        out = np.asarray(out, dtype=np.float64)
        expected = self.shape(batch, n, resolved)
        assert out.shape == expected, (self.name, out.shape, expected)
        return out

    def dense_reason(self, params: Params) -> str | None:
        """Why a draw at these resolved parameters is a dense array; None: `sparse` draws it."""
        if self.location != "edge" or self.group is not None:
            return "only a single edge generator draws edge lists"
        if self.sparse is None:
            return self.dense_only or "no edge-list draw"  # type: ignore[return-value]
        return self.dense_only(params) if callable(self.dense_only) else None

    def sample_sparse(self, rng: np.random.Generator, batch: int, n: int,
                      **params: Any) -> EdgeLists | None:
        """`sample` as edge lists (the same values and random stream); None, having drawn
        nothing, where `dense_reason` gives a reason."""
        resolved = self.resolve_at(params, batch, n)
        if self.dense_reason(resolved) is not None:
            return None
        out = self.sparse(rng, batch, n, **resolved)  # type: ignore[misc]
        expected = self.shape(batch, n, resolved)
        assert isinstance(out, EdgeLists) and not out.frames and out.dtype == np.float64 \
            and out.shape == expected, (self.name, out, expected)
        return out


# --------------------------------------------------------------------------
# Validation


def _scalar_ok(default: ParamValue, value: Any) -> tuple[bool, str]:
    if isinstance(default, str):  # a name (`family = ws`); its check function lists the names
        return isinstance(value, str), "a name (a string)"
    if isinstance(default, bool):
        return isinstance(value, (bool, np.bool_)), "a boolean"
    if isinstance(default, int):
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
        return ok, "an integer"
    ok = (isinstance(value, (int, float, np.integer, np.floating))
          and not isinstance(value, (bool, np.bool_)) and _finite(value))
    return ok, "a finite number"


def _finite(value: Any) -> bool:
    """Whether a number is finite as a float (an int past a float, `10 ** 400`, is not)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _type_errors(gen: Generator, params: Mapping[str, Any]) -> list[str]:
    errors = []
    for key, value in params.items():
        if key not in gen.defaults:
            accepted = ", ".join(gen.defaults) or "none"
            errors.append(
                f"generator '{gen.name}' has no parameter '{key}' (accepted: {accepted})"
            )
            continue
        default = gen.defaults[key]
        if is_expr(value):
            errors.extend(_expr_errors(gen, key, default, value))
            continue
        if key in gen.choice and isinstance(value, (list, tuple)):
            oks = [_scalar_ok(default, v)[0] for v in value]
            ok, want = bool(value) and all(oks), f"{_scalar_ok(default, 0)[1]} or a list of them"
        else:
            ok, want = _scalar_ok(default, value)
        if not ok:
            errors.append(f"generator '{gen.name}': parameter '{key}' must be {want}, "
                          f"got {value!r}")
    return errors


def _expr_errors(gen: Generator, key: str, default: ParamValue, value: Any) -> list[str]:
    """An expression in n is fine for a number parameter of a matching dtype."""
    dtype = expr_dtype(value).value
    where = f"generator '{gen.name}': parameter '{key}'"
    if isinstance(default, bool):
        return [f"{where} must be a constant boolean, not an expression in n"]
    if isinstance(default, str):
        return [f"{where} must be a name, not an expression in n"]
    if isinstance(default, int) and dtype != "int":
        hint = "(use `//`, floor or ceil)"
        return [f"{where} must be an integer, got a {dtype} expression `{text(value)}` {hint}"]
    if dtype == "bool":
        return [f"{where} must be a number, got a boolean expression"]
    return []


def _validate(gen: Generator, params: Mapping[str, Any]) -> list[str]:
    """Type errors, then the generator's own range checks.

    Range checks that involve a parameter given as an expression in n are
    left to sampling time, when n is known (`Generator.resolve_at`).
    """
    errors = _type_errors(gen, params)
    if errors:
        return errors
    merged = {**gen.defaults, **params}
    if any(is_expr(v) for v in merged.values()):
        return []
    return [f"generator '{gen.name}': {msg}" for msg in gen.check(merged)]


def values(v: Any) -> Sequence[Any]:
    """A choice parameter's values as a list (a single value is a list of one)."""
    return list(v) if isinstance(v, (list, tuple)) else [v]


def per_sample(rng: np.random.Generator, v: Any, batch: int) -> Any:
    """A scalar as is, or one value per sample drawn uniformly from a list."""
    if not isinstance(v, (list, tuple)):
        return v
    return np.asarray(v, dtype=np.float64)[rng.integers(0, len(v), size=batch)]


def check_range(p: Params) -> list[str]:
    if not p["low"] < p["high"]:
        return [f"need low < high, got low={p['low']}, high={p['high']}"]
    return []


def check_prob(*names: str) -> Check:
    def check(p: Params) -> list[str]:
        return [f"'{k}' must lie in [0, 1], got {v}" for k in names for v in values(p[k])
                if not 0.0 <= v <= 1.0]

    return check


def check_all(*checks: Check) -> Check:
    def check(p: Params) -> list[str]:
        return [msg for c in checks for msg in c(p)]

    return check


def bernoulli(rng: np.random.Generator, p: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Independent coins; `p` a number, or an array of one p per sample (leading axis)."""
    if np.ndim(p) == 0:
        return rng.random(shape) < p
    return rng.random(shape) < np.reshape(p, (-1,) + (1,) * (len(shape) - 1))


def edge_lists(batch: int, n: int, sample: np.ndarray, senders: np.ndarray,
               receivers: np.ndarray, values: np.ndarray | float = 1.0) -> EdgeLists:
    """The [batch, n, n] float64 array that writing `values` at (sample, sender, receiver)
    in order into zeros gives (a pair written twice keeps its last value), as edge lists
    over its nonzero entries, in C order."""
    sample, senders, receivers = (np.asarray(a, np.int64).reshape(-1)
                                  for a in (sample, senders, receivers))
    values = np.broadcast_to(np.asarray(values, np.float64), sample.shape)
    key, order = _sorted_writes((sample * n + senders) * n + receivers, batch * n * n)
    last = np.ones(key.size, dtype=bool)
    last[:-1] = key[1:] != key[:-1]
    order, key = order[last], key[last]
    values = values[order]
    nonzero = (values != 0) | np.signbit(values)  # -0.0 stays: densifying keeps its bytes
    key, values = key[nonzero], values[nonzero]
    b, rest = np.divmod(key, n * n)
    i, j = np.divmod(rest, n)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(b, minlength=batch))])
    return EdgeLists(EdgeGraph(n, offsets, i, j), np.ascontiguousarray(values))


def _sorted_writes(key: np.ndarray, keys: int) -> tuple[np.ndarray, np.ndarray]:
    """`key` sorted, and the order that sorts it stably (equal keys in write order).

    Key and write index packed in one int64 and sorted by value where they fit: several
    times faster than a stable argsort.
    """
    bits = int(key.size).bit_length()
    if int(keys).bit_length() + bits > 62:
        order = np.argsort(key, kind="stable")
        return key[order], order
    packed = np.sort((key << bits) | np.arange(key.size, dtype=np.int64))
    return packed >> bits, packed & ((1 << bits) - 1)


class EdgeWrites:
    """A drawn graph as its writes into a zero [batch, n, n] float64 array, in order: one
    draw behind both the dense array (`dense`) and its edge lists (`edge_lists`)."""

    def __init__(self, batch: int, n: int,
                 writes: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | float]]
                 ) -> None:
        self.batch, self.n, self.writes = batch, n, writes

    def dense(self) -> np.ndarray:
        out = np.zeros((self.batch, self.n, self.n))  # untouched pages stay lazy
        for b, u, v, w in self.writes:
            out[b, u, v] = w
        return out

    def edge_lists(self) -> EdgeLists:
        kinds = (np.int64, np.int64, np.int64, np.float64)
        each = [np.broadcast_arrays(*(np.asarray(x, t) for x, t in zip(write, kinds, strict=True)))
                for write in self.writes]
        b, u, v, w = (np.concatenate([x[k].reshape(-1) for x in each] + [np.zeros(0, t)])
                      for k, t in enumerate(kinds))
        return edge_lists(self.batch, self.n, b, u, v, w)


def nonzero_only(x: EdgeLists) -> EdgeLists:
    """`x` without the edges whose value came out 0.0 (a weight of exactly `low` = 0)."""
    zero = (x.values == 0) & ~np.signbit(x.values)
    if not zero.any():
        return x
    g = x.graph
    return edge_lists(g.batch_size, g.n, g.sample, g.senders, g.receivers, x.values)


def inverse_perms(perm: np.ndarray) -> np.ndarray:
    """inv[b, perm[b, i]] = i: where `permute_nodes` moves node u of sample b (to inv[b, u])."""
    inv = np.empty_like(perm)
    inv[np.arange(perm.shape[0])[:, None], perm] = np.arange(perm.shape[1])
    return inv


def random_perms(rng: np.random.Generator, batch: int, n: int) -> np.ndarray:
    """One uniform permutation of range(n) per sample, [batch, n]."""
    return np.argsort(rng.random((batch, n)), axis=1)


def permute_nodes(rng: np.random.Generator, mat: np.ndarray) -> np.ndarray:
    """Relabel the nodes of each graph by an independent uniform permutation.

    new[b, i, j] = old[b, perm[b, i], perm[b, j]], as CLRS's `mat[p, :][:, p]`.
    """
    batch, n = mat.shape[0], mat.shape[1]
    perm = random_perms(rng, batch, n)
    b = np.arange(batch)[:, None, None]
    return mat[b, perm[:, :, None], perm[:, None, :]]
