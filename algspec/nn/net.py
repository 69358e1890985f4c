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

from algspec.nn import graph_ops
from algspec.nn.data import DataPoint, Features
from algspec.nn.decoders import Decoder, as_soft_pointer, postprocess
from algspec.nn.encoders import Encoder, encode
from algspec.nn.graph import Array, SparseGraph
from algspec.nn.processors import PROCESSORS, make_processor
from algspec.nn.tuning import DeviceChoices
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
    remat: bool = False  # recompute each hint step in the backward pass (`algspec.nn.memory`)
    graph: str = "dense"  # `--graph`: "dense" or "sparse" (`graph_ops.layout_of`)
    device: DeviceChoices | None = None  # compile choices (`tuning.py`); None: this device's


class _StepKeys(NamedTuple):
    """One step's random keys (None where the step draws none)."""

    teacher: Array | None
    dropout: Array | None
    noise: dict[str, Array]  # decoder name -> Gumbel noise key


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
        self.layout = graph_ops.layout_of(config.graph)
        self.device = config.device if config.device is not None else \
            DeviceChoices.for_device()
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
                                               unroll_sinkhorn=self.device.unroll_sinkhorn,
                                               name=f"decoder_{datum}")
        self.processor = make_processor(c.processor, c.hidden, use_ln=c.use_ln,
                                        nb_heads=c.nb_heads, nb_triplet_fts=c.nb_triplet_fts)

    # ------------------------------------------------------------------ one step
    def _one_step(self, inputs: list[DataPoint], hints: list[DataPoint], hidden: Array,
                  graph: SparseGraph | None, node_mask: Array, keys: _StepKeys
                  ) -> tuple[Array, dict[str, Array], dict[str, Array]]:
        """One step's predictions: `(next hidden, output preds, hint preds)`."""
        c = self.config
        data = list(inputs) + (list(hints) if c.encode_hints else [])
        step_graph = self.layout.step_graph(data, graph, node_mask)
        node_fts, edge_fts, graph_fts = encode(self.encoders, data, step_graph, node_mask,
                                               c.hidden)
        nxt_hidden, nxt_edge = self.processor(node_fts, edge_fts, graph_fts, step_graph,
                                              hidden, node_mask)
        if keys.dropout is not None:  # training
            nxt_hidden = hk.dropout(keys.dropout, c.dropout, nxt_hidden)
        h_t = jnp.concatenate([node_fts, hidden, nxt_hidden], axis=-1)
        e_t = edge_fts if nxt_edge is None else jnp.concatenate([edge_fts, nxt_edge], axis=-1)
        outputs, hint_preds = {}, {}
        for name, decoder in self.decoders.items():
            pred = decoder(h_t, e_t, graph_fts, step_graph, node_mask,
                           inf_bias=self._inf_bias, inf_bias_edge=self._inf_bias_edge,
                           noise_key=keys.noise.get(name))
            (hint_preds if self.spec[name][0] == Stage.HINT else outputs)[name] = pred
        return nxt_hidden, outputs, hint_preds

    # ------------------------------------------------------------------ randomness
    def _draw_keys(self, first: bool, repred: bool) -> _StepKeys:
        """A step's random keys, drawn with `hk.next_rng_key()` in dm-clrs's order (teacher
        forcing after the first step, dropout, then each permutation decoder's noise),
        so the same seed draws the same numbers as dm-clrs."""
        c = self.config
        teacher = None
        if not first and not repred and c.decode_hints and c.hint_teacher_forcing < 1.0:
            teacher = hk.next_rng_key()
        if repred:
            return _StepKeys(teacher, None, {})
        dropout = hk.next_rng_key()
        noise = {name: hk.next_rng_key() for name, d in self.decoders.items() if d.draws_noise}
        return _StepKeys(teacher, dropout, noise)

    def _trajectory_keys(self, steps: int, repred: bool) -> _StepKeys:
        """Every step's keys, stacked `[steps, ...]`: the first step's drawn as dm-clrs draws
        them outside its loop, the later ones by a loop that only draws (so haiku hands
        out the keys dm-clrs's loop gets). The first step has no teacher-forcing draw;
        it reads the frame, so a stand-in key fills its place."""
        first = self._draw_keys(True, repred)
        if steps == 1:
            return jax.tree_util.tree_map(lambda k: k[None], first)
        _, later = hk.scan(lambda carry, _: (carry, self._draw_keys(False, repred)), 0,
                           jnp.arange(1, steps))
        if later.teacher is not None:
            first = first._replace(teacher=jnp.zeros_like(later.teacher[0]))
        return jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[None], b]), first, later)

    # ------------------------------------------------------------------ hints read
    def _hints_in(self, state: _State, hints: list[DataPoint], step: Array, repred: bool,
                  graph: SparseGraph | None, node_mask: Array, teacher_key: Array | None
                  ) -> list[DataPoint]:
        """The hints step `step` reads: the frame itself at step 0, then decoded predictions
        (mixed with the frame by teacher forcing, when it is on and not evaluating).

        Every step reads the same types, so one loop body serves all of them: where
        later steps read soft pointers, the first step's frame is turned into one (a
        one-hot row, encoded exactly as the index is)."""
        c = self.config
        frames = [h.replace(data=jnp.asarray(h.data)[step]) for h in hints]
        if not c.decode_hints or (c.hint_teacher_forcing >= 1.0 and not repred):
            return frames
        hard = c.hint_repred_mode == "hard" or (c.hint_repred_mode == "hard_on_eval" and repred)
        prev_graph = self.layout.layout_graph(graph, node_mask)
        first = step == 0
        batch = node_mask.shape[0]
        take_frame = jnp.broadcast_to(first, (batch,))
        if not repred and teacher_key is not None:  # no key: a one-step trajectory
            take_frame = take_frame | jax.random.bernoulli(teacher_key,
                                                           c.hint_teacher_forcing, (batch,))
        mixed = []
        for frame in frames:
            _, loc, t = self.spec[frame.name]
            decoded, typ = postprocess(state.hint_preds[frame.name], loc, t, prev_graph,
                                       node_mask, hard=hard,
                                       unroll_sinkhorn=self.device.unroll_sinkhorn)
            data = frame.data
            if typ == Type.SOFT_POINTER and t == Type.POINTER:
                data = as_soft_pointer(data, loc, prev_graph, node_mask.shape[1])
            keep = take_frame.reshape((batch,) + (1,) * (jnp.ndim(data) - 1))
            mixed.append(DataPoint(frame.name, loc, typ, jnp.where(keep, data, decoded)))
        return mixed

    # ------------------------------------------------------------------ the trajectory
    def _initial_state(self, batch: int, nb_nodes: int, graph: SparseGraph | None) -> _State:
        """Zero predictions of the right shapes: what the loop carries into step 0 (which
        reads frames and keeps its own outputs, so the zeros never reach a result)."""
        slots = self.layout.num_slots(graph)
        preds: dict[str, dict[str, Array]] = {Stage.HINT: {}, Stage.OUTPUT: {}}
        for name, decoder in self.decoders.items():
            shape = decoder.pred_shape(batch, nb_nodes, slots)
            preds[self.spec[name][0]][name] = jnp.zeros(shape, jnp.float32)
        return _State(preds[Stage.HINT], preds[Stage.OUTPUT],
                      jnp.zeros((batch, nb_nodes, self.config.hidden)))

    def __call__(self, features: Features, node_mask: Array, graph: SparseGraph | None = None,
                 *, repred: bool = False) -> tuple[dict[str, Array], dict[str, Array]]:
        """`(output predictions, hint predictions)`: raw decoder outputs; hint predictions
        stacked over steps 1.. `[T - 1, B, ...]` (frame t + 1 predicted at step t).

        All steps run in one loop with one body (dm-clrs runs the first step before its
        loop, compiling the step twice): step 0 reads the frame and keeps its outputs;
        later steps read decoded hints and freeze the outputs of ended trajectories."""
        inputs, hints = list(features.inputs), list(features.hints)
        lengths = features.lengths
        batch, nb_nodes = node_mask.shape
        steps = max(1, int(jnp.shape(hints[0].data)[0]) - 1) if hints else 1
        keys = self._trajectory_keys(steps, repred)

        def run(state: _State, step: Array, step_keys: _StepKeys) -> tuple[_State, dict]:
            cur = self._hints_in(state, hints, step, repred, graph, node_mask,
                                 step_keys.teacher)
            hidden, outputs, hint_preds = self._one_step(inputs, cur, state.hidden, graph,
                                                         node_mask, step_keys)
            first = (step == 0).astype(jnp.float32)
            frozen = {}
            for k, v in outputs.items():
                on = jnp.maximum(first, _is_not_done(lengths, step, v))
                frozen[k] = on * v + (1.0 - on) * state.output_preds[k]
            return _State(hint_preds, frozen, hidden), hint_preds

        def skip(state: _State, step: Array, step_keys: _StepKeys) -> tuple[_State, dict]:
            return state, jax.tree_util.tree_map(jnp.zeros_like, state.hint_preds)

        def step_fn(state: _State, xs: tuple[Array, _StepKeys]) -> tuple[_State, dict]:
            """A step past every trajectory's end (time-axis padding) may be skipped at run
            time (`DeviceChoices.skip_padded_steps`): its hint predictions are masked out of the
            loss and its outputs would be frozen anyway."""
            step, step_keys = xs
            if hk.running_init() or not hints or not self.device.skip_padded_steps:
                return run(state, step, step_keys)
            live = (step == 0) | (step + 1 < jnp.max(jnp.asarray(lengths)))
            return hk.cond(live, run, skip, state, step, step_keys)

        body = hk.remat(step_fn) if self.config.remat and not hk.running_init() else step_fn
        state, hint_preds = hk.scan(body, self._initial_state(batch, nb_nodes, graph),
                                    (jnp.arange(steps), keys))
        return state.output_preds, hint_preds


def feature_dims(spec: Spec, example: Features, outputs: Any) -> dict[str, int]:
    """The number of classes of each categorical datum, read off an example batch."""
    dims = {}
    for dp in list(example.inputs) + list(example.hints) + list(outputs):
        if spec[dp.name][2] == Type.CATEGORICAL:
            dims[dp.name] = int(jnp.shape(dp.data)[-1])
    return dims
