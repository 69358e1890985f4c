"""Processors: one round of message passing over a dense or a sparse graph.

Every processor is a haiku module called as

    processor(node_fts [B, N, H], edge_fts, graph_fts [B, H], graph, hidden [B, N, H],
              node_mask [B, N]) -> (next_hidden [B, N, H], triplet edge messages or None)

with `edge_fts` `[B, N, N, H]` and `graph` a `DenseGraph`, or `[B, E, H]` and a
`SparseGraph`. Each processor is written once: it reads the graph only through
`ops_for(graph, node_mask, reads)` (`graph_ops.py`: node terms at receivers and
senders, aggregation at the receivers, attention over each receiver's senders).
The arithmetic is dm-clrs's (its `PGN`, `GAT`, `GATv2` and the
kinds of `get_processor_factory`): the node features and hidden state are
concatenated, pair messages are summed from node, edge and graph terms, and
reduced at the receiver (max, with non-adjacent pairs at -1e6; attention: a
softmax over adjacent senders). Dense: the receiver of pair `[i, j]` is `j` for
the message-passing family and `i` for the attention family, as in dm-clrs.
Sparse: slot k carries the message from `senders[k]` to `receivers[k]`, and its
edge features are the dense features `[sender, receiver]`; attention kinds read
those of the reverse slot, i.e. `[receiver, sender]`, as dm-clrs does.

Graphs per kind (`PROCESSORS[kind].reads`): "declared" kinds read the given
adjacency; "complete" kinds (mpnn, gmpnn, gat_full, gatv2_full) read all pairs
in dense mode, and in sparse mode the given edge list (the sparse form of mpnn
is mpnn on the declared graph); deepsets ("self") reads only self-loops (slots
with sender == receiver in sparse mode).

Padding nodes (`node_mask` 0) send and receive nothing, are left out of the
triplet max, and get a zero next hidden state. With every node real, the dense
numbers are dm-clrs's.

A receiver without senders (never a real node when self-loops are present, as
in every graph `edges` builds) gets, dense and sparse alike: -1e6 from the max
(dm-clrs's fill value), 0 from a mean or sum, and a zero attention readout
(dm-clrs's softmax would spread over all nodes there). The optional mean
reduction (no dm-clrs kind uses it) divides by the row sum of the adjacency
dense, as dm-clrs does, and by the in-degree sparse: the same on symmetric graphs.

Triplet messages (triplet_* kinds) are dense only. dm-clrs takes, for every
pair (j, k), a max over all N nodes i of terms that read the edge features of
(i, j) and (i, k) for every i, adjacent or not: no edge-list form gives those
numbers, and a form restricted to wedges (i -> j, i -> k both slots) needs a
per-sample wedge list whose size (the sum of squared degrees) is data-dependent.
A triplet kind called with a `SparseGraph` raises `ValueError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import haiku as hk
import jax
import jax.numpy as jnp

from algspec.nn import edges
from algspec.nn.graph import Array, Graph
from algspec.nn.graph_ops import REDUCTIONS, GraphOps, ops_for
from algspec.nn.processor_table import ALGSPEC, PROCESSOR_TABLE, ProcessorKind
from algspec.nn.types import BIG_NUMBER

# The kinds algspec's model builds, from the one processor table (`processor_table.py`).
PROCESSORS: dict[str, ProcessorKind] = {
    name: kind for name, kind in PROCESSOR_TABLE.items() if ALGSPEC in kind.backends}


def _linear(size: int, name: str, **kwargs: Any) -> hk.Linear:
    return hk.Linear(size, name=name, **kwargs)


def _layer_norm(x: Array) -> Array:
    return hk.LayerNorm(axis=-1, create_scale=True, create_offset=True, name="norm")(x)


def _finish(ret: Array, hidden_mask: Array) -> Array:
    return jnp.where(hidden_mask[..., None] > 0, ret, 0.0)


class _Base(hk.Module):
    """Shared by all kinds: which graph is read (`reads`), the width, layer norm.

    Parameterised helpers are module-level functions called from `__call__`:
    haiku would scope parameters made in another method under `~method`.
    """

    def __init__(self, out_size: int, reads: str, use_ln: bool, name: str) -> None:
        super().__init__(name=name)
        self.out_size, self.reads, self.use_ln = out_size, reads, use_ln


def _message_mlp(msgs: Array, size: int) -> Array:
    """dm-clrs's message MLP on relu(msgs): linear, relu, linear."""
    msgs = _linear(size, "msg_hidden")(jax.nn.relu(msgs))
    return _linear(size, "msg_out")(jax.nn.relu(msgs))


def _triplet_messages(z: Array, edge_fts: Array, graph_fts: Array, node_mask: Array,
                      nb_fts: int, out_size: int) -> Array:
    """Triplet edge messages `[B, N, N, H]` (Dudzik and Veličković 2022): max over the first node."""
    first = _linear(nb_fts, "tri_first")(z)
    second = _linear(nb_fts, "tri_second")(z)
    third = _linear(nb_fts, "tri_third")(z)
    e_first_second = _linear(nb_fts, "tri_edge_first_second")(edge_fts)
    e_first_third = _linear(nb_fts, "tri_edge_first_third")(edge_fts)
    e_second_third = _linear(nb_fts, "tri_edge_second_third")(edge_fts)
    glob = _linear(nb_fts, "tri_graph")(graph_fts)
    tri = (first[:, :, None, None] + second[:, None, :, None] + third[:, None, None, :]
           + e_first_second[:, :, :, None] + e_first_third[:, :, None, :]
           + e_second_third[:, None, :, :] + glob[:, None, None, None])  # [B, N, N, N, T]
    real_first = node_mask[:, :, None, None, None] > 0
    tri = jnp.max(jnp.where(real_first, tri, -BIG_NUMBER), axis=1)
    out = jax.nn.relu(_linear(out_size, "tri_out")(tri))
    return out * edges.pair_mask(node_mask)[..., None]


class MessagePassing(_Base):
    """dm-clrs's PGN family: deepsets, mpnn, pgn, their gated and triplet forms."""

    def __init__(self, out_size: int, *, reads: str = "declared", mid_size: int | None = None,
                 use_ln: bool = False, triplets: bool = False, nb_triplet_fts: int = 8,
                 gated: bool = False, reduction: str = "max", name: str = "processor") -> None:
        super().__init__(out_size, reads, use_ln, name)
        if reduction not in REDUCTIONS:
            raise ValueError(f"unknown reduction {reduction!r}: expected max, mean or sum")
        self.mid_size = out_size if mid_size is None else mid_size
        self.triplets, self.nb_triplet_fts = triplets, nb_triplet_fts
        self.gated, self.reduction = gated, reduction

    def __call__(self, node_fts: Array, edge_fts: Array, graph_fts: Array, graph: Graph,
                 hidden: Array, node_mask: Array) -> tuple[Array, Array | None]:
        ops = ops_for(graph, node_mask, self.reads)
        tri_edges = ops.all_pairs(edge_fts, "triplet messages") if self.triplets else None
        z = jnp.concatenate([node_fts, hidden], axis=-1)
        to_receiver = _linear(self.mid_size, "receiver")(z)
        from_sender = _linear(self.mid_size, "sender")(z)
        along_edge = _linear(self.mid_size, "edge")(edge_fts)
        from_graph = _linear(self.mid_size, "graph")(graph_fts)
        tri_msgs = None
        if tri_edges is not None:
            tri_msgs = _triplet_messages(z, tri_edges, graph_fts, node_mask,
                                         self.nb_triplet_fts, self.out_size)
        msgs = (ops.at_receivers(to_receiver) + ops.at_senders(from_sender)
                + ops.edge_features(along_edge) + ops.at_pairs(from_graph))
        agg = ops.aggregate(_message_mlp(msgs, self.out_size), self.reduction)
        ret = jax.nn.relu(_linear(self.out_size, "skip")(z) + _linear(self.out_size, "update")(agg))
        if self.use_ln:
            ret = _layer_norm(ret)
        if self.gated:
            gate = _linear(self.out_size, "gate_node")(z) + _linear(self.out_size, "gate_msg")(agg)
            out = _linear(self.out_size, "gate_out", b_init=hk.initializers.Constant(-3))
            gate = jax.nn.sigmoid(out(jax.nn.relu(gate)))
            ret = ret * gate + hidden * (1 - gate)
        return _finish(ret, node_mask), tri_msgs


def _gat_logits(z: Array, edge_fts: Array, graph_fts: Array, ops: GraphOps,
                heads: int, mid_size: int) -> Array:
    """GAT logits in `ops`'s (attention) pair layout, heads last."""
    del mid_size
    recv = _linear(heads, "att_receiver")(z)
    send = _linear(heads, "att_sender")(z)
    edge = _linear(heads, "att_edge")(edge_fts)
    glob = _linear(heads, "att_graph")(graph_fts)
    logits = ops.at_receivers(recv) + ops.at_senders(send) + edge + ops.at_pairs(glob)
    return jax.nn.leaky_relu(logits)


def _gatv2_logits(z: Array, edge_fts: Array, graph_fts: Array, ops: GraphOps,
                  heads: int, mid_size: int) -> Array:
    """GATv2 logits: a per-head score of leaky_relu(sender + receiver + edge + graph terms)."""
    send = _linear(mid_size, "pre_sender")(z)
    recv = _linear(mid_size, "pre_receiver")(z)
    edge = _linear(mid_size, "pre_edge")(edge_fts)
    glob = _linear(mid_size, "pre_graph")(graph_fts)
    pre = ops.at_senders(send) + ops.at_receivers(recv) + edge + ops.at_pairs(glob)
    pre = jax.nn.leaky_relu(pre.reshape(pre.shape[:-1] + (heads, -1)))
    return jnp.stack([_linear(1, f"score_{h}")(pre[..., h, :])[..., 0] for h in range(heads)],
                     axis=-1)


_LOGITS = {"gat": _gat_logits, "gatv2": _gatv2_logits}


class Attention(_Base):
    """dm-clrs's GAT (Veličković et al. 2018) and GATv2 (Brody et al. 2022).

    Attention over adjacent senders, a skip connection, relu and layer norm;
    `version` "gat" (gat, gat_full) or "gatv2" (gatv2, gatv2_full).
    """

    def __init__(self, out_size: int, nb_heads: int = 1, *, version: str = "gat",
                 reads: str = "declared", mid_size: int | None = None, use_ln: bool = False,
                 name: str = "processor") -> None:
        super().__init__(out_size, reads, use_ln, name)
        self.mid_size = out_size if mid_size is None else mid_size
        if out_size % nb_heads or self.mid_size % nb_heads:
            raise ValueError("the number of attention heads must divide the width")
        if version not in _LOGITS:
            raise ValueError(f"unknown attention {version!r}: expected gat or gatv2")
        self.nb_heads, self.head_size, self.version = nb_heads, out_size // nb_heads, version

    def __call__(self, node_fts: Array, edge_fts: Array, graph_fts: Array, graph: Graph,
                 hidden: Array, node_mask: Array) -> tuple[Array, None]:
        ops = ops_for(graph, node_mask, self.reads).attention()
        z = jnp.concatenate([node_fts, hidden], axis=-1)
        b, n, _ = z.shape
        values = _linear(self.out_size, "value")(z).reshape(b, n, self.nb_heads, self.head_size)
        logits = _LOGITS[self.version](z, ops.edge_features(edge_fts), graph_fts, ops,
                                       self.nb_heads, self.mid_size)
        ret = ops.attend(logits, values)
        ret = ret.reshape(b, n, self.out_size) + _linear(self.out_size, "skip")(z)
        ret = jax.nn.relu(ret)
        if self.use_ln:
            ret = _layer_norm(ret)
        return _finish(ret, node_mask), None


def make_processor(kind: str, out_size: int, *, use_ln: bool = False, nb_heads: int = 1,
                   nb_triplet_fts: int = 8, name: str = "processor") -> hk.Module:
    """The processor of a dm-clrs `get_processor_factory` kind (memnet kinds excepted)."""
    if kind not in PROCESSORS:
        raise ValueError(f"unknown processor kind {kind!r}: expected one of {sorted(PROCESSORS)}")
    spec = PROCESSORS[kind]
    if spec.family in _LOGITS:
        return Attention(out_size, nb_heads, version=spec.family, reads=spec.reads,
                         use_ln=use_ln, name=name)
    return MessagePassing(out_size, reads=spec.reads, use_ln=use_ln, triplets=spec.triplets,
                          nb_triplet_fts=nb_triplet_fts, gated=spec.gated, name=name)


# ---------------------------------------------------------------- dm-clrs parameter names

_MPNN_NAMES = ("receiver", "sender", "edge", "graph", "skip", "update")
_TRIPLET_NAMES = ("tri_first", "tri_second", "tri_third", "tri_edge_first_second",
                  "tri_edge_first_third", "tri_edge_second_third", "tri_graph", "tri_out")
_GATE_NAMES = ("gate_node", "gate_msg", "gate_out")
_GAT_NAMES = ("value", "skip", "att_receiver", "att_sender", "att_edge", "att_graph")
_GATV2_NAMES = ("value", "skip", "pre_sender", "pre_receiver", "pre_edge", "pre_graph")


def _numbered(names: list[str]) -> dict[str, str]:
    """dm-clrs's `hk.Linear`s are named by creation order: linear, linear_1, linear_2, ..."""
    return {("linear" if i == 0 else f"linear_{i}"): name for i, name in enumerate(names)}


def clrs_processor_names(kind: str, nb_heads: int = 1) -> dict[str, str]:
    """dm-clrs's module names inside its processor scope -> this module's names, for `kind`."""
    spec = PROCESSORS[kind]
    if spec.family == "gat":
        names = _numbered(list(_GAT_NAMES))
    elif spec.family == "gatv2":
        names = _numbered(list(_GATV2_NAMES) + [f"score_{h}" for h in range(nb_heads)])
    else:
        order = list(_MPNN_NAMES) + (list(_TRIPLET_NAMES) if spec.triplets else [])
        order += list(_GATE_NAMES) if spec.gated else []
        names = _numbered(order)
        names |= {"mlp/~/linear_0": "msg_hidden", "mlp/~/linear_1": "msg_out"}
    return names | {"layer_norm": "norm"}


def processor_params_from_clrs(params: Mapping[str, Mapping[str, Array]], kind: str,
                               nb_heads: int = 1, prefix: str = "processor",
                               ) -> dict[str, dict[str, Array]]:
    """The processor part of dm-clrs parameters (e.g. a `BaselineModel`'s) under `prefix`.

    dm-clrs's processor scope is the one path segment ending in `_clrs_processor`
    (`net/mpnn_aggr_clrs_processor/linear_4`, ...); everything else is ignored.
    """
    names = clrs_processor_names(kind, nb_heads)
    out: dict[str, dict[str, Array]] = {}
    for path, leaves in params.items():
        parts = path.split("/")
        scope = [i for i, p in enumerate(parts) if p.endswith("_clrs_processor")]
        if not scope:
            continue
        local = "/".join(parts[scope[0] + 1:])
        if local not in names:
            raise ValueError(f"dm-clrs parameter {path!r} has no counterpart in kind {kind!r}")
        out[f"{prefix}/{names[local]}"] = dict(leaves)
    return out
