"""The net: encode, process, decode, step after step along a trajectory.

dm-clrs's `Net` (Veličković et al. 2022) with algspec's layers: at step i the
inputs and the step's hints are encoded into node, edge and graph features;
the processor updates the hidden state on the step's graph; the decoders
predict the outputs and the next frame's hints from the node features and the
previous and new hidden states. The first step reads the first frame of the
hints; later steps read the previous step's decoded hint predictions
(teacher forcing mixes in ground truth with the configured probability; 0,
the default of dm-clrs's examples, never does), soft or hard as configured.
Output predictions freeze once a sample's trajectory has ended, so padding
the time axis changes nothing.

Graphs. Dense: every step's adjacency is dm-clrs's (self-loops, edge masks,
node pointers of the inputs and of the hints fed in, symmetrised). Sparse: the
edge list is fixed for the whole trajectory, built on the host
(`algspec.nn.batch`): the file's interconnection graph and other edge-mask
inputs, the input pointers and the first frame's hint pointers, symmetrised,
with self-loops. A node pointer predicted later lies on these edges by
construction (its softmax runs over a node's slots), so nothing is lost by
not rebuilding the list; edge-mask hints add no edges.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import haiku as hk
import jax
import jax.numpy as jnp

from algspec.nn import edges
from algspec.nn.data import DataPoint, Features
from algspec.nn.decoders import Decoder, as_soft_pointer, postprocess
from algspec.nn.encoders import Encoder, encode
from algspec.nn.graph import Array, DenseGraph, Graph, SparseGraph
from algspec.nn.processors import PROCESSORS, make_processor
from algspec.nn.types import Stage, Type

Spec = Mapping[str, tuple[str, str, str]]


class NetConfig(NamedTuple):
    """The architecture: what `algspec.training.config.TrainConfig` sets, and dm-clrs's
    defaults for what it does not."""

    hidden: int
    processor: str
    encode_hints: bool = True
    decode_hints: bool = True
    use_ln: bool = True
    nb_heads: int = 1
    nb_triplet_fts: int = 8
    encoder_init: str = "xavier_on_scalars"
    hint_teacher_forcing: float = 0.0
    dropout: float = 0.0  # on the processor's output, when training
    hint_repred_mode: str = "soft"  # "soft", "hard" or "hard_on_eval"


class _State(NamedTuple):
    hint_preds: dict[str, Array]
    output_preds: dict[str, Array]
    hidden: Array


def _is_not_done(lengths: Array, step: Array, like: Array) -> Array:
    """1 where a sample's trajectory goes on after `step`, broadcast like `like`."""
    done = (jnp.asarray(lengths) > step + 1).astype(jnp.float32)
    return done.reshape(done.shape + (1,) * (like.ndim - 1))


class Net(hk.Module):
    """Encode-process-decode over a whole trajectory (see the module docstring)."""

    def __init__(self, spec: Spec, dims: Mapping[str, int], config: NetConfig,
                 name: str = "net") -> None:
        super().__init__(name=name)
        self.spec, self.dims, self.config = dict(spec), dict(dims), config
        kind = PROCESSORS[config.processor]
        self._inf_bias = kind.inf_bias
        self._inf_bias_edge = kind.inf_bias and kind.family == "mpnn"
        # Layers are made here, in the constructor: parameters are `net/encoder_NAME/...`.
        c = self.config
        self.encoders: dict[str, Encoder] = {}
        self.decoders: dict[str, Decoder] = {}
        for datum, (stage, loc, t) in self.spec.items():
            if stage == Stage.INPUT or (stage == Stage.HINT and c.encode_hints):
                self.encoders[datum] = Encoder(datum, stage, loc, t, c.hidden,
                                               encoder_init=c.encoder_init,
                                               name=f"encoder_{datum}")
            if stage == Stage.OUTPUT or (stage == Stage.HINT and c.decode_hints):
                self.decoders[datum] = Decoder(datum, loc, t, c.hidden,
                                               num_classes=self.dims.get(datum),
                                               name=f"decoder_{datum}")
        self.processor = make_processor(c.processor, c.hidden, use_ln=c.use_ln,
                                        nb_heads=c.nb_heads, nb_triplet_fts=c.nb_triplet_fts)

    # ------------------------------------------------------------------ one step
    def _step_graph(self, data: list[DataPoint], graph: Graph | None, node_mask: Array
                    ) -> Graph:
        if graph is not None:  # sparse: one edge list for the whole trajectory
            return graph
        batch, nb_nodes = node_mask.shape
        return DenseGraph(edges.dense_adjacency(data, batch, nb_nodes, node_mask))

    def _one_step(self, inputs: list[DataPoint], hints: list[DataPoint], hidden: Array,
                  graph: Graph | None, node_mask: Array, repred: bool
                  ) -> tuple[Array, dict[str, Array], dict[str, Array], Graph]:
        """One step's predictions: `(next hidden, output preds, hint preds, graph)`."""
        c = self.config
        data = list(inputs) + (list(hints) if c.encode_hints else [])
        step_graph = self._step_graph(data, graph, node_mask)
        node_fts, edge_fts, graph_fts = encode(self.encoders, data, step_graph, node_mask,
                                               c.hidden)
        nxt_hidden, nxt_edge = self.processor(node_fts, edge_fts, graph_fts, step_graph,
                                              hidden, node_mask)
        if not repred:  # training: dropout, drawing its key even at rate 0 (dm-clrs's order)
            nxt_hidden = hk.dropout(hk.next_rng_key(), c.dropout, nxt_hidden)
        h_t = jnp.concatenate([node_fts, hidden, nxt_hidden], axis=-1)
        e_t = edge_fts if nxt_edge is None else jnp.concatenate([edge_fts, nxt_edge], axis=-1)
        outputs, hint_preds = {}, {}
        for name, decoder in self.decoders.items():
            pred = decoder(h_t, e_t, graph_fts, step_graph, node_mask,
                           inf_bias=self._inf_bias, inf_bias_edge=self._inf_bias_edge,
                           gumbel=not repred)
            (hint_preds if self.spec[name][0] == Stage.HINT else outputs)[name] = pred
        return nxt_hidden, outputs, hint_preds, step_graph

    def _hints_in(self, state: _State, hints: list[DataPoint], step: Array, first: bool,
                  repred: bool, graph: Graph | None, node_mask: Array) -> list[DataPoint]:
        """The hints step `step` reads: the frame itself first, then decoded predictions
        (mixed with the frame by teacher forcing, when it is on and not evaluating)."""
        c = self.config
        frames = [h.replace(data=jnp.asarray(h.data)[step]) for h in hints]
        if first or not c.decode_hints:
            return frames
        hard = c.hint_repred_mode == "hard" or (c.hint_repred_mode == "hard_on_eval" and repred)
        prev_graph = graph if graph is not None else DenseGraph(adj=None)  # layout only
        decoded = {}
        for name, pred in state.hint_preds.items():
            _, loc, t = self.spec[name]
            data, new_type = postprocess(pred, loc, t, prev_graph, node_mask, hard=hard)
            decoded[name] = DataPoint(name, loc, new_type, data)
        if repred:
            return [decoded[h.name] for h in hints]
        if c.hint_teacher_forcing >= 1.0:
            return frames
        batch = node_mask.shape[0]
        force = jax.random.bernoulli(hk.next_rng_key(), c.hint_teacher_forcing, (batch,))
        mixed = []
        for frame in frames:
            _, loc, t = self.spec[frame.name]
            data, typ = frame.data, t
            if t == Type.POINTER and decoded[frame.name].type_ == Type.SOFT_POINTER:
                data = as_soft_pointer(data, loc, prev_graph, node_mask.shape[1])
                typ = Type.SOFT_POINTER
            keep = force.reshape((batch,) + (1,) * (jnp.ndim(data) - 1))
            mixed.append(DataPoint(frame.name, loc, typ,
                                   jnp.where(keep, data, decoded[frame.name].data)))
        return mixed

    # ------------------------------------------------------------------ the trajectory
    def __call__(self, features: Features, node_mask: Array, graph: SparseGraph | None = None,
                 *, repred: bool = False) -> tuple[dict[str, Array], dict[str, Array]]:
        """`(output predictions, hint predictions)`: raw decoder outputs; hint predictions
        stacked over steps 1.. `[T - 1, B, ...]` (frame t + 1 predicted at step t)."""
        inputs, hints = list(features.inputs), list(features.hints)
        lengths = features.lengths
        batch, nb_nodes = node_mask.shape
        steps = max(1, int(jnp.shape(hints[0].data)[0]) - 1) if hints else 1
        state = _State({}, {}, jnp.zeros((batch, nb_nodes, self.config.hidden)))

        def step_fn(state: _State, step: Array, first: bool) -> tuple[_State, dict]:
            cur = self._hints_in(state, hints, step, first, repred, graph, node_mask)
            hidden, outputs, hint_preds, _ = self._one_step(inputs, cur, state.hidden, graph,
                                                            node_mask, repred)
            if not first:
                outputs = {k: _is_not_done(lengths, step, v) * v
                           + (1.0 - _is_not_done(lengths, step, v)) * state.output_preds[k]
                           for k, v in outputs.items()}
            new = _State(hint_preds, outputs, hidden)
            return new, hint_preds

        state, first_hints = step_fn(state, jnp.asarray(0), True)
        if steps > 1:
            state, rest = hk.scan(lambda s, i: step_fn(s, i, False), state,
                                  jnp.arange(1, steps))
            hint_preds = {k: jnp.concatenate([first_hints[k][None], rest[k]])
                          for k in first_hints}
        else:
            hint_preds = {k: v[None] for k, v in first_hints.items()}
        return state.output_preds, hint_preds


def feature_dims(spec: Spec, example: Features, outputs: Any) -> dict[str, int]:
    """The number of classes of each categorical datum, read off an example batch."""
    dims = {}
    for dp in list(example.inputs) + list(example.hints) + list(outputs):
        if spec[dp.name][2] == Type.CATEGORICAL:
            dims[dp.name] = int(jnp.shape(dp.data)[-1])
    return dims
