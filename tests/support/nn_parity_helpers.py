"""Random data, graphs and padding for the parity tests of algspec.nn against dm-clrs."""

from __future__ import annotations

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from algspec.nn.graph import DenseGraph, SparseGraph

B, N, H, C = 2, 5, 6, 3
TOL = 1e-5


def adjacency(rng: np.random.RandomState, n: int = N, batch: int = B, p: float = 0.5,
              complete: bool = False) -> np.ndarray:
    """A random symmetric 0/1 adjacency `[B, n, n]` with self-loops."""
    if complete:
        return np.ones((batch, n, n), np.float32)
    upper = np.triu(rng.rand(batch, n, n) < p, 1)
    adj = upper | upper.transpose(0, 2, 1) | np.eye(n, dtype=bool)
    return adj.astype(np.float32)


def sparse_of(adj: np.ndarray, rng: np.random.RandomState) -> SparseGraph:
    """The nonzero pairs of `adj` as shuffled slots, then dead slots up to `n * n + 2`.

    A fixed slot count per node count keeps shapes, hence compiled ops, shared by tests.
    """
    pairs = [np.argwhere(a > 0) for a in adj]
    slots = adj.shape[1] ** 2 + 2
    senders = np.zeros((len(adj), slots), np.int32)
    receivers = np.zeros((len(adj), slots), np.int32)
    mask = np.zeros((len(adj), slots), bool)
    for b, p in enumerate(pairs):
        p = p[rng.permutation(len(p))]
        senders[b, :len(p)], receivers[b, :len(p)] = p[:, 0], p[:, 1]
        mask[b, :len(p)] = True
    return SparseGraph(jnp.asarray(senders), jnp.asarray(receivers), jnp.asarray(mask))


def dense(adj: np.ndarray) -> DenseGraph:
    return DenseGraph(jnp.asarray(adj))


def ones_mask(batch: int = B, n: int = N) -> jnp.ndarray:
    return jnp.ones((batch, n), jnp.float32)


def pad_nodes(x: np.ndarray, axes: tuple[int, ...], extra: int, rng: np.random.RandomState,
              low: float | None = None, high: float | None = None) -> np.ndarray:
    """`x` grown by `extra` junk entries along each of `axes` (random, or integers in range)."""
    x = np.asarray(x)
    for axis in axes:
        shape = list(x.shape)
        shape[axis] = extra
        if low is None:
            junk = rng.randn(*shape).astype(x.dtype)
        else:
            junk = rng.randint(int(low), int(high), shape).astype(x.dtype)
        x = np.concatenate([x, junk], axis=axis)
    return x


def padded_mask(batch: int, n: int, extra: int) -> jnp.ndarray:
    return jnp.concatenate([jnp.ones((batch, n)), jnp.zeros((batch, extra))], axis=1)


def run(fn, *args, params=None, seed: int = 0, **kwargs):
    """`fn` under `hk.transform`: (params, output); given `params`, applied with them."""
    model = hk.transform(lambda: fn(*args, **kwargs))
    key = jax_key(seed)
    if params is None:
        params = model.init(key)
    return params, model.apply(params, key)


def jax_key(seed: int):
    return jax.random.PRNGKey(seed)


def max_diff(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def scaled_diff(a, b) -> float:
    """Max of |a - b| / max(1, |b|): rounding of large log-probabilities (Sinkhorn's
    temperature makes them ~100, its forbidden diagonal ~1e6) differs with the reduction
    order, which changes with the array size (padding) or layout (slots)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))) if a.size else 0.0
