"""Encoders: each input or hint datum's additive contribution to node, edge and graph features.

The arithmetic is dm-clrs's (a linear layer per datum, its outputs summed over data):

- node scalar, mask, mask_one, categorical -> node features `[B, N, H]`;
- node pointer and permutation pointer -> edge features: "i points to j" at the
  pair `(i, j)`;
- edge data -> edge features; an edge pointer (pair `(i, j)` points to node k) has
  two linear layers: the first embeds, at `(x, y)`, the fraction of pairs
  `(i, x)` pointing to y, the second the fraction of pairs `(x, j)` pointing to y;
- graph pointer -> node features (one-hot over nodes); other graph data -> graph
  features `[B, H]`.

Pointers arrive as indices (`pointer`) or as distributions (`soft_pointer`: a hint
predicted and fed back). Outputs are never encoded. With `encoder_init=
"xavier_on_scalars"`, scalar hints get weights drawn with stddev `1/sqrt(H)`.

Padding nodes: the edge-pointer fractions count real nodes only; everything else
at a padding node is left for the processor to ignore.

Sparse graphs (see `algspec.nn.slots` for the orientation rule): edge data
arrives gathered at the slots, `[B, E, ...]`; a node pointer gives slot `(s, r)`
the embedding of "s points to r" (from indices, from a soft pointer in decoder
orientation `[B, E]`, or from a permutation matrix `[B, N, N]`); an edge pointer's
fractions count the live slots only, so they equal the dense ones when every pair
that carries a pointer is a slot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import haiku as hk
import jax
import jax.numpy as jnp

from algspec.nn.data import DataPoint
from algspec.nn.graph import Array, Graph
from algspec.nn.graph_ops import GraphOps, ops_for
from algspec.nn.types import Location, Stage, Type

_POINTERS = (Type.POINTER, Type.SOFT_POINTER, Type.PERMUTATION_POINTER)
# dm-clrs's encoder module scope inside a `BaselineModel`'s parameters.
CLRS_SCOPE = "net/~_construct_encoders_decoders"


class Encoding(NamedTuple):
    """One datum's additions; `None` where it adds nothing."""

    nodes: Array | None = None
    edges: Array | None = None
    graph: Array | None = None


def layer_names(location: str, type_: str) -> tuple[str, ...]:
    """The encoder's linear layers, in dm-clrs's creation order."""
    if location == Location.EDGE and type_ in (Type.POINTER, Type.SOFT_POINTER):
        return ("embed_in", "embed_out")
    return ("embed",)


def _check(location: str, type_: str) -> None:
    if type_ == Type.PERMUTATION_POINTER and location != Location.NODE:
        raise ValueError(f"a {location} permutation pointer cannot be encoded")
    if type_ == Type.SHOULD_BE_PERMUTATION:
        raise ValueError("should_be_permutation data must be preprocessed first")


class Encoder(hk.Module):
    """The encoder of one input or hint datum (its spec's stage, location and type)."""

    def __init__(self, datum: str, stage: str, location: str, type_: str, hidden: int,
                 encoder_init: str = "default", name: str | None = None) -> None:
        super().__init__(name=name or f"{datum}_encoder")
        if stage == Stage.OUTPUT:
            raise ValueError(f"output {datum!r} is never encoded")
        if encoder_init not in ("default", "xavier_on_scalars"):
            raise ValueError(f"encoder_init {encoder_init!r} is not supported")
        _check(location, type_)
        self.location, self.type_, self.hidden = location, type_, hidden
        scaled = encoder_init == "xavier_on_scalars" and stage == Stage.HINT \
            and type_ == Type.SCALAR
        w_init = hk.initializers.TruncatedNormal(stddev=1.0 / jnp.sqrt(hidden)) \
            if scaled else None
        self._layers = {layer: hk.Linear(hidden, w_init=w_init, name=layer)
                        for layer in layer_names(location, type_)}

    def _embed(self, x: Array, layer: str = "embed") -> Array:
        """Linear layer on a scalar per entry (or on the last axis for categoricals)."""
        return self._layers[layer](x if self.type_ == Type.CATEGORICAL else x[..., None])

    def __call__(self, dp: DataPoint, graph: Graph, node_mask: Array) -> Encoding:
        """`dp.data` is `[B, ...]` (one step); `dp.type_` may be soft_pointer for a fed-back hint."""
        _check(dp.location, dp.type_)
        nb_nodes = node_mask.shape[1]
        ops = ops_for(graph, node_mask)
        pointer = dp.type_ in _POINTERS
        if dp.location == Location.NODE:
            if pointer:
                return Encoding(edges=self._embed(_node_pointer(dp, ops)))
            return Encoding(nodes=self._embed(_as_float(dp.data)))
        if dp.location == Location.GRAPH:
            if pointer:
                return Encoding(nodes=self._embed(_one_hot_if_index(dp, nb_nodes)))
            return Encoding(graph=self._embed(_as_float(dp.data)))
        if dp.location != Location.EDGE:
            raise ValueError(f"unknown location {dp.location!r}")
        if not pointer:
            return Encoding(edges=self._embed(_as_float(dp.data)))
        into, out_of = _edge_pointer_fractions(_one_hot_if_index(dp, nb_nodes), ops, node_mask)
        return Encoding(edges=self._embed(into, "embed_in") + self._embed(out_of, "embed_out"))


def _as_float(data: Array) -> Array:
    return jnp.asarray(data).astype(jnp.float32)


def _one_hot_if_index(dp: DataPoint, nb_nodes: int) -> Array:
    if dp.type_ == Type.POINTER:  # indices; MASKED (-1) gives all zeros, as in dm-clrs
        return jax.nn.one_hot(jnp.asarray(dp.data).astype(jnp.int32), nb_nodes)
    return _as_float(dp.data)


def _node_pointer(dp: DataPoint, ops: GraphOps) -> Array:
    """"i points to j" at pair `(i, j)`: `[B, N, N]` dense, `[B, E]` sparse."""
    return ops.encoded_pointer(dp.data, dp.type_ == Type.POINTER)


def _edge_pointer_fractions(onehot: Array, ops: GraphOps, node_mask: Array
                            ) -> tuple[Array, Array]:
    """Per pair `(x, y)`: fractions of pairs `(., x)` and `(x, .)` that point to y."""
    count = jnp.sum(node_mask.astype(jnp.float32), axis=1)
    into, out_of = ops.pointer_counts(onehot)
    scale = 1.0 / count.reshape((-1,) + (1,) * (into.ndim - 1))
    return into * scale, out_of * scale


def encode(encoders: Mapping[str, Encoder], data: Iterable[DataPoint], graph: Graph,
           node_mask: Array, hidden: int) -> tuple[Array, Array, Array]:
    """Sum the encodings of `data` (in order, from zeros, as dm-clrs does).

    Returns node `[B, N, H]`, edge (`[B, N, N, H]` or `[B, E, H]`) and graph `[B, H]`
    features. Data without an encoder (outputs, unencoded hints) are skipped.
    """
    batch, nb_nodes = node_mask.shape
    edge_shape = ops_for(graph, node_mask).pair_shape()
    nodes = jnp.zeros((batch, nb_nodes, hidden))
    edges = jnp.zeros(edge_shape + (hidden,))
    graph_fts = jnp.zeros((batch, hidden))
    for dp in data:
        if dp.name not in encoders:
            continue
        enc = encoders[dp.name](dp, graph, node_mask)
        if enc.edges is not None:
            edges = edges + enc.edges
        if enc.nodes is not None:
            nodes = nodes + enc.nodes
        if enc.graph is not None:
            graph_fts = graph_fts + enc.graph
    return nodes, edges, graph_fts


def clrs_module_names(datum: str, location: str, type_: str, *, algo_index: int = 0,
                      scope: str = CLRS_SCOPE) -> dict[str, str]:
    """Each of this encoder's linear layers -> the dm-clrs module holding its weights."""
    base = f"algo_{algo_index}_{datum}_enc_linear"
    if scope:
        base = f"{scope}/{base}"
    return {layer: base if i == 0 else f"{base}_{i}"
            for i, layer in enumerate(layer_names(location, type_))}


def from_clrs_params(clrs_params: Mapping[str, Mapping[str, Any]], module_path: str,
                     datum: str, location: str, type_: str, *, algo_index: int = 0,
                     scope: str = CLRS_SCOPE) -> dict[str, dict[str, Any]]:
    """The parameters of the `Encoder` at `module_path` (its `module_name`), from dm-clrs's.

    `clrs_params` is a dm-clrs `BaselineModel.params` dict (or its part under `scope`).
    """
    names = clrs_module_names(datum, location, type_, algo_index=algo_index, scope=scope)
    return {f"{module_path}/~/{layer}": dict(clrs_params[clrs_name])
            for layer, clrs_name in names.items()}


__all__ = ["CLRS_SCOPE", "Encoder", "Encoding", "clrs_module_names", "encode", "from_clrs_params",
           "layer_names"]
