"""Decoders: each output's (and decoded hint's) predictions from node, edge and graph embeddings.

`nodes` is what dm-clrs decodes from, the node features, previous and new hidden
states concatenated `[B, N, 3H]`; `edges` the edge features (with the processor's
edge output, if any, concatenated); `graph_fts` the graph features `[B, H]`.
The arithmetic is dm-clrs's:

- node scalar, mask, mask_one: one linear layer to a logit per node; categorical:
  to a logit per class;
- node pointer: "a points to c" scores `score(max(query(h_a), key(h_c) + edge(e_ca)))`;
  a permutation pointer then goes through 10 log-space Sinkhorn steps
  (temperature 0.1, diagonal forbidden), with Gumbel noise when training;
- edge data: `sender(h_i) + receiver(h_j) + edge(e_ij)`; an edge pointer then
  scores every node k with `score(max(that, target(h_k)))`;
- graph data: `nodes(max over nodes of h) + graph(g)`; a graph pointer adds
  `target(h_k)` for each node k.

`inf_bias` (node pointers) and `inf_bias_edge` (edge masks) push the logits of
non-adjacent pairs below every other logit, as dm-clrs does for the processors
that ask for it.

Padding nodes (`node_mask` 0) are never pointed at, never chosen by a mask_one,
left out of graph readouts and of Sinkhorn: their logits are `slots.ABSENT`.

Sparse graphs (rule in `algspec.nn.slots`): edge-located predictions are `[B, E, ...]`,
one per slot; a node pointer's logits are `[B, E]`, slot `(s, r)` scoring "r points
to s", normalised over each receiver's live slots (segment softmax); a permutation
pointer's Sinkhorn alternates that with the normalisation over each sender's slots;
an edge mask_one is normalised over each sender's slots, as a dense row is. The
logits on the slots equal the dense logits of the same pairs; `inf_bias` has
nothing to do there (every slot is adjacent).

`postprocess` turns raw predictions into hint inputs for the next step ("soft":
softmax / sigmoid, gradients flow; "hard": argmax / threshold, no gradient) and
into final predictions, as dm-clrs's `postprocess` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import haiku as hk
import jax
import jax.numpy as jnp

from algspec.nn import slots
from algspec.nn.data import DataPoint
from algspec.nn.graph import Array, Graph
from algspec.nn.graph_ops import choose, ops_for
from algspec.nn.graph_ops import mask_last_axis as _mask_last_axis
from algspec.nn.types import Location, Type

ABSENT = slots.ABSENT
CLRS_SCOPE = "net/~_construct_encoders_decoders"
_SCORES = (Type.SCALAR, Type.MASK, Type.MASK_ONE)
_NODE_POINTERS = (Type.POINTER, Type.PERMUTATION_POINTER)
# dm-clrs's Sinkhorn settings inside the decoder.
DECODER_SINKHORN_STEPS = 10
SINKHORN_TEMPERATURE = 0.1


def layers(location: str, type_: str, hidden: int, num_classes: int | None = None
           ) -> tuple[tuple[str, int], ...]:
    """The decoder's linear layers `(name, size)`, in dm-clrs's creation order."""
    width = num_classes if type_ == Type.CATEGORICAL else 1
    if type_ == Type.CATEGORICAL and not num_classes:
        raise ValueError("a categorical decoder needs num_classes")
    if location == Location.NODE:
        if type_ in _NODE_POINTERS:
            return (("query", hidden), ("key", hidden), ("edge", hidden), ("score", 1))
        if type_ in _SCORES or type_ == Type.CATEGORICAL:
            return (("out", width),)
    elif location == Location.EDGE:
        if type_ == Type.POINTER:
            return (("sender", hidden), ("receiver", hidden), ("edge", hidden),
                    ("target", hidden), ("score", 1))
        if type_ in _SCORES or type_ == Type.CATEGORICAL:
            return (("sender", width), ("receiver", width), ("edge", width))
    elif location == Location.GRAPH:
        if type_ == Type.POINTER:
            return (("nodes", 1), ("graph", 1), ("target", 1))
        if type_ in _SCORES or type_ == Type.CATEGORICAL:
            return (("nodes", width), ("graph", width))
    raise ValueError(f"no decoder for a {location} {type_}")


class Decoder(hk.Module):
    """The decoder of one output or hint datum (its spec's location and type)."""

    def __init__(self, datum: str, location: str, type_: str, hidden: int,
                 num_classes: int | None = None, *, unroll_sinkhorn: bool = False,
                 name: str | None = None) -> None:
        super().__init__(name=name or f"{datum}_decoder")
        self.location, self.type_, self.num_classes = location, type_, num_classes
        self.unroll_sinkhorn = unroll_sinkhorn  # `tuning.DeviceChoices`
        self._layers = {layer: hk.Linear(size, name=layer)
                        for layer, size in layers(location, type_, hidden, num_classes)}

    @property
    def draws_noise(self) -> bool:
        """Whether training adds Gumbel noise here (a node permutation pointer)."""
        return self.location == Location.NODE and self.type_ == Type.PERMUTATION_POINTER

    def pred_shape(self, batch: int, nb_nodes: int, slots: int | None) -> tuple[int, ...]:
        """The shape `__call__` returns: dense when `slots` is None, else on `slots` slots."""
        pairs = (batch, nb_nodes, nb_nodes) if slots is None else (batch, slots)
        classes = (self.num_classes,) if self.type_ == Type.CATEGORICAL else ()
        if self.location == Location.NODE:
            return pairs if self.type_ in _NODE_POINTERS else (batch, nb_nodes) + classes
        if self.location == Location.EDGE:
            return pairs + ((nb_nodes,) if self.type_ == Type.POINTER else classes)
        return (batch, nb_nodes) if self.type_ == Type.POINTER else (batch,) + classes

    def _apply(self, layer: str, x: Array) -> Array:
        return self._layers[layer](x)

    def __call__(self, nodes: Array, edges: Array, graph_fts: Array, graph: Graph,
                 node_mask: Array, *, inf_bias: bool = False, inf_bias_edge: bool = False,
                 noise_key: Array | None = None) -> Array:
        """Raw predictions (logits, scores; log-probabilities for permutation pointers).

        `noise_key` adds Gumbel noise to permutation pointers (dm-clrs: when training,
        with one key drawn for each permutation decoder; `draws_noise` says which).
        """
        if self.location == Location.NODE:
            return self._node(nodes, edges, graph, node_mask, inf_bias, noise_key)
        if self.location == Location.EDGE:
            return self._edge(nodes, edges, graph, node_mask, inf_bias_edge)
        return self._graph(nodes, graph_fts, node_mask)

    def _node(self, nodes: Array, edges: Array, graph: Graph, node_mask: Array,
              inf_bias: bool, noise_key: Array | None) -> Array:
        if self.type_ == Type.CATEGORICAL:
            return self._apply("out", nodes)
        if self.type_ in _SCORES:
            preds = self._apply("out", nodes)[..., 0]
            return _mask_nodes(preds, node_mask) if self.type_ == Type.MASK_ONE else preds
        ops = ops_for(graph, node_mask)
        query = self._apply("query", nodes)
        key = self._apply("key", nodes)
        edge = self._apply("edge", edges)
        query, keyed = ops.pointer_scores(query, key, edge)  # decoder orientation
        preds = self._apply("score", jnp.maximum(query, keyed))[..., 0]
        preds = ops.mask_pointer_logits(preds, inf_bias)
        if self.type_ == Type.PERMUTATION_POINTER:
            preds = log_sinkhorn(preds, graph, node_mask, steps=DECODER_SINKHORN_STEPS,
                                 temperature=SINKHORN_TEMPERATURE, zero_diagonal=True,
                                 noise_key=noise_key, unroll=self.unroll_sinkhorn)
        return preds

    def _edge(self, nodes: Array, edges: Array, graph: Graph, node_mask: Array,
              inf_bias_edge: bool) -> Array:
        ops = ops_for(graph, node_mask)
        sender = self._apply("sender", nodes)
        receiver = self._apply("receiver", nodes)
        edge = self._apply("edge", edges)
        pred = ops.at_senders(sender) + ops.at_receivers(receiver) + edge
        if self.type_ == Type.CATEGORICAL:
            return pred
        if self.type_ == Type.POINTER:
            target = ops.at_pairs(self._apply("target", nodes))
            preds = self._apply("score", jnp.maximum(pred[..., None, :], target))[..., 0]
            return _mask_last_axis(preds, node_mask)
        preds = pred[..., 0]
        if inf_bias_edge and self.type_ in (Type.MASK, Type.MASK_ONE):
            preds = ops.edge_inf_bias(preds)
        if self.type_ == Type.MASK_ONE:
            preds = ops.mask_edge_rows(preds)
        return preds

    def _graph(self, nodes: Array, graph_fts: Array, node_mask: Array) -> Array:
        real = node_mask > 0
        readout = jnp.max(jnp.where(real[..., None], nodes, -jnp.inf), axis=1)
        readout = jnp.where(jnp.any(real, axis=1)[:, None], readout, 0.0)
        pred = self._apply("nodes", readout) + self._apply("graph", graph_fts)
        if self.type_ == Type.CATEGORICAL:
            return pred
        if self.type_ == Type.POINTER:
            return _mask_nodes(pred + self._apply("target", nodes)[..., 0], node_mask)
        return pred[..., 0]


def _mask_nodes(preds: Array, node_mask: Array) -> Array:
    """`[B, N]` logits with padding nodes at ABSENT."""
    return jnp.where(node_mask > 0, preds, ABSENT)


def log_sinkhorn(x: Array, graph: Graph, node_mask: Array, *, steps: int, temperature: float,
                 zero_diagonal: bool, noise_key: Array | None = None,
                 unroll: bool = False) -> Array:
    """Log of a doubly stochastic matrix from permutation-pointer logits (row = pointing node).

    Dense `[B, N, N]`: rows and columns are normalised in turn, as dm-clrs's
    `log_sinkhorn` (a loop, or unrolled with `unroll`: `tuning.DeviceChoices`);
    padding nodes are a separate block (each points to itself),
    so the real block is normalised alone. Sparse `[B, E]` (decoder orientation):
    the same on the live slots, rows grouped by receiver, columns by sender.
    """
    if noise_key is not None:  # standard Gumbel noise
        u = jax.random.uniform(noise_key, x.shape)
        x = x - jnp.log(-jnp.log(u + 1e-12) + 1e-12)
    x = x / temperature
    return ops_for(graph, node_mask).log_sinkhorn(x, steps, zero_diagonal, unroll)


def postprocessed_type(type_: str, hard: bool) -> str:
    """The type `postprocess` gives: a soft pointer for a pointer in soft mode, else `type_`."""
    return Type.SOFT_POINTER if type_ == Type.POINTER and not hard else type_


def postprocess(pred: Array, location: str, type_: str, graph: Graph, node_mask: Array, *,
                hard: bool, sinkhorn_steps: int = 25,
                sinkhorn_temperature: float = SINKHORN_TEMPERATURE,
                unroll_sinkhorn: bool = False) -> tuple[Array, str]:
    """Raw predictions as data `(array, type)`: dm-clrs's hard or soft postprocessing.

    dm-clrs uses 25 Sinkhorn steps for hints fed back, 50 for final outputs. Soft
    pointers come back as `soft_pointer`: `[B, N, N]` dense, `[B, E]` sparse (decoder
    orientation); hard ones as indices `[B, N]` (float, as dm-clrs).
    """
    ops = ops_for(graph, node_mask)
    if type_ == Type.SCALAR:
        return (jax.lax.stop_gradient(pred) if hard else pred), type_
    if type_ == Type.MASK:
        return ((pred > 0.0) * 1.0 if hard else jax.nn.sigmoid(pred)), type_
    if type_ == Type.CATEGORICAL or (type_ == Type.MASK_ONE and location == Location.GRAPH):
        return choose(pred, hard), type_
    if type_ == Type.MASK_ONE and location == Location.NODE:
        return choose(_mask_nodes(pred, node_mask), hard), type_
    if type_ == Type.MASK_ONE:  # edge: over each row, i.e. each sender's pairs
        return ops.choose_edge_rows(pred, hard), type_
    if type_ == Type.POINTER:
        if location == Location.NODE:
            data, soft = ops.node_pointer(pred, hard)
        else:  # edge pointers point over nodes, the last axis in both layouts
            data, soft = _pointer_over_nodes(_mask_last_axis(pred, node_mask), hard)
        return data, (Type.SOFT_POINTER if soft else type_)
    if type_ == Type.PERMUTATION_POINTER:
        probs = jnp.exp(log_sinkhorn(pred, graph, node_mask, steps=sinkhorn_steps,
                                     temperature=sinkhorn_temperature, zero_diagonal=True,
                                     unroll=unroll_sinkhorn))
        return (ops.hard_permutation(probs) if hard else probs), type_
    raise ValueError(f"cannot postprocess a {location} {type_}")


def _pointer_over_nodes(pred: Array, hard: bool) -> tuple[Array, bool]:
    """Indices (hard) or a softmax over the last axis (soft) of masked pointer logits."""
    if hard:
        return jnp.argmax(pred, axis=-1).astype(jnp.float32), False
    return jax.nn.softmax(pred, axis=-1), True


def postprocess_all(spec: Mapping[str, tuple[str, str, str]], preds: Mapping[str, Array],
                    graph: Graph, node_mask: Array, *, hard: bool, sinkhorn_steps: int = 25,
                    sinkhorn_temperature: float = SINKHORN_TEMPERATURE) -> dict[str, DataPoint]:
    """`postprocess` of every prediction, as named data points."""
    out = {}
    for name, pred in preds.items():
        _, location, type_ = spec[name]
        data, new_type = postprocess(pred, location, type_, graph, node_mask, hard=hard,
                                     sinkhorn_steps=sinkhorn_steps,
                                     sinkhorn_temperature=sinkhorn_temperature)
        out[name] = DataPoint(name, location, new_type, data)
    return out


def _all_nodes(data: Array, nb_nodes: int) -> Array:
    """A node mask of every node, for layout operations that read no mask."""
    return jnp.ones((jnp.shape(data)[0], nb_nodes), jnp.float32)


def as_soft_pointer(data: Array, location: str, graph: Graph, nb_nodes: int) -> Array:
    """Pointer indices in the layout of a soft pointer (to mix truth and predictions).

    One-hot over nodes, except a sparse node pointer: `[B, E]` in decoder orientation.
    """
    if location == Location.NODE:
        return ops_for(graph, _all_nodes(data, nb_nodes)).pointer_layout(data)
    return jax.nn.one_hot(jnp.asarray(data).astype(jnp.int32), nb_nodes)


def to_dense(data: Array, location: str, type_: str, graph: Graph, nb_nodes: int) -> Array:
    """A sparse prediction in the dense layout (0 off the slots), e.g. to score it."""
    soft = type_ in (Type.SOFT_POINTER, Type.PERMUTATION_POINTER)
    return ops_for(graph, _all_nodes(data, nb_nodes)).to_dense(data, location, soft)


def clrs_module_names(datum: str, location: str, type_: str, *, algo_index: int = 0,
                      scope: str = CLRS_SCOPE) -> dict[str, str]:
    """Each of this decoder's linear layers -> the dm-clrs module holding its weights."""
    base = f"algo_{algo_index}_{datum}_dec_linear"
    if scope:
        base = f"{scope}/{base}"
    names = [name for name, _ in layers(location, type_, 1, 1)]
    return {layer: base if i == 0 else f"{base}_{i}" for i, layer in enumerate(names)}


def from_clrs_params(clrs_params: Mapping[str, Mapping[str, Any]], module_path: str,
                     datum: str, location: str, type_: str, *, algo_index: int = 0,
                     scope: str = CLRS_SCOPE) -> dict[str, dict[str, Any]]:
    """The parameters of the `Decoder` at `module_path` (its `module_name`), from dm-clrs's."""
    names = clrs_module_names(datum, location, type_, algo_index=algo_index, scope=scope)
    return {f"{module_path}/~/{layer}": dict(clrs_params[clrs_name])
            for layer, clrs_name in names.items()}
