"""Sparse processors differentiate like dense ones: training takes gradients through them.

Padding nodes are present (noise, adjacent to everything), so the masked max, the
segment softmax and the zeroed padding outputs are all on the gradient's path.
"""

from __future__ import annotations

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from algspec.nn import edges
from algspec.nn.graph import DenseGraph, SparseGraph
from algspec.nn.processors import make_processor

B, N, REAL, H = 2, 5, 3, 8


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(12)
    a = rng.random((B, N, N)) < 0.4
    adj = (a | a.transpose(0, 2, 1) | np.eye(N, dtype=bool)).astype(np.float32)
    adj[:, REAL:, :] = adj[:, :, REAL:] = 1.0          # padding nodes touch everything
    mask = np.zeros((B, N), np.float32)
    mask[:, :REAL] = 1.0
    return {"node": rng.normal(size=(B, N, H)).astype(np.float32),
            "edge": rng.normal(size=(B, N, N, H)).astype(np.float32),
            "graph": rng.normal(size=(B, H)).astype(np.float32),
            "hidden": rng.normal(size=(B, N, H)).astype(np.float32),
            "adj": adj, "mask": mask}


@pytest.mark.parametrize("kind", ["gpgn", "gatv2"])
def test_sparse_gradients_match_dense(kind: str) -> None:
    x = _inputs()
    model = hk.without_apply_rng(hk.transform(
        lambda *a: make_processor(kind, H, use_ln=True, nb_heads=2)(*a)))
    params = model.init(jax.random.PRNGKey(0), x["node"], x["edge"], x["graph"],
                        DenseGraph(x["adj"]), x["hidden"], x["mask"])
    graph = edges.static_graph(B, N, edge_masks=[x["adj"]])

    def loss(p: dict, graph: DenseGraph | SparseGraph, edge_fts: jax.Array,
             hidden: jax.Array) -> jax.Array:
        out = model.apply(p, x["node"], edge_fts, x["graph"], graph, hidden, x["mask"])[0]
        return jnp.sum(jnp.sin(out))

    grad = jax.jit(jax.grad(loss, argnums=(0, 3)))      # one compilation, not one per op
    dense = grad(params, DenseGraph(x["adj"]), x["edge"], x["hidden"])
    sparse = grad(params, graph, edges.gather_edges(x["edge"], graph), x["hidden"])
    for d, s in zip(jax.tree_util.tree_leaves(dense), jax.tree_util.tree_leaves(sparse),
                    strict=True):
        d, s = np.asarray(d), np.asarray(s)
        assert np.isfinite(d).all() and np.isfinite(s).all()
        assert np.abs(d - s).max() <= 1e-4 * max(1.0, np.abs(d).max())
    hidden_grad = np.asarray(sparse[1])
    assert np.abs(hidden_grad[:, :REAL]).max() > 0 and not hidden_grad[:, REAL:].any()
