"""The trainable model: parameters, the jitted training step, prediction.

`Model(spec, example, config)` builds the net for a (preprocessed) spec. Its
interface is the trainer's (`algspec.training.backends.base.Model`):
`feedback(rng, feedback)` takes one optimiser step and returns the loss,
`predict(rng, features)` returns the outputs' hard predictions (dense
layout, so metrics read them as dm-clrs's), `params` is the parameter tree.

The loss is dm-clrs's: each output's loss plus, when hints are decoded, each
hint's loss over the trajectory. The optimiser is Adam after clipping the
gradients' global norm (dm-clrs's `BaselineModel` with `grad_clip_max_norm`).
Batches are padded on the host (`algspec.nn.batch`): in dense mode a batch
keeps its node count unless `pad_nodes` is set (training pads every size to
the largest, so one step compiles for all of them).

Memory (`algspec.nn.memory`): `plan_training` measures the compiled step and
rematerialises the hint loop when it does not fit the device's budget;
`predict` runs a batch in chunks that fit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import haiku as hk
import jax
import numpy as np
import optax

from algspec.nn import batch as batching
from algspec.nn import graph_ops, losses, memory
from algspec.nn.data import DataPoint, Features
from algspec.nn.decoders import postprocess, to_dense
from algspec.nn.graph import SparseGraph
from algspec.nn.net import Net, NetConfig, feature_dims
from algspec.nn.tuning import DeviceChoices
from algspec.nn.types import Stage, Type

Spec = Mapping[str, tuple[str, str, str]]
OUTPUT_SINKHORN_STEPS = 50  # dm-clrs's final-prediction Sinkhorn steps


def _device(prepared: batching.Prepared) -> tuple[Features, tuple, Any, Any]:
    """The prepared batch as jit-ready pytrees of numpy arrays (float32 data, int32 edge
    slots): a jitted call moves them to the device together, in one transfer."""
    def point(dp: Any) -> DataPoint:
        return DataPoint(dp.name, dp.location, dp.type_, np.asarray(dp.data, np.float32))

    f = prepared.features
    features = Features(tuple(point(d) for d in f.inputs), tuple(point(d) for d in f.hints),
                        np.asarray(f.lengths, np.float32))
    graph = prepared.graph
    if graph is not None:
        graph = SparseGraph(np.asarray(graph.senders, np.int32),
                            np.asarray(graph.receivers, np.int32), np.asarray(graph.mask))
    return features, tuple(point(d) for d in prepared.outputs), \
        np.asarray(prepared.node_mask, np.float32), graph


class Model:
    """algspec's model for one spec: see the module docstring."""

    def __init__(self, spec: Spec, example: Any, net: NetConfig, *, sparse: bool = False,
                 learning_rate: float = 1e-3, grad_clip: float = 1.0,
                 pad_nodes: int | None = None, complete: bool | None = None,
                 remat: bool = False) -> None:
        self.spec = dict(spec)
        # The layout and the device choices are made here, once: the net's configuration
        # carries them (`sparse=True` is `NetConfig(graph="sparse")`).
        self.layout = graph_ops.layout_of("sparse" if sparse else net.graph)
        net = net._replace(graph=self.layout.name, device=net.device if net.device is not None
                           else DeviceChoices.for_device())
        self.net_config = net
        self.sparse = self.layout.sparse
        self.pad_nodes = pad_nodes
        # The interconnection graph is complete where no edge-mask input names it (an
        # `.alg` file's `graph complete`, CLRS's sorting and search tasks) unless told.
        self.complete = complete if complete is not None else not any(
            s == Stage.INPUT and loc == "edge" and t == Type.MASK
            for s, loc, t in self.spec.values())
        dims = feature_dims(self.spec, example.features, example.outputs)
        self._hint_names = [n for n, (s, _, _) in self.spec.items() if s == Stage.HINT]

        def transformed(config: NetConfig) -> hk.Transformed:
            def forward(features: Features, node_mask: Any, graph: Any, repred: bool) -> Any:
                return Net(self.spec, dims, config)(features, node_mask, graph, repred=repred)

            return hk.transform(forward)

        # The same parameters either way; the rematerialised net only trains.
        self._nets = {False: transformed(net._replace(remat=False)),
                      True: transformed(net._replace(remat=True))}
        self.net = self._nets[False]
        self.remat = remat
        self.memory_plan: memory.MemoryPlan | None = None
        chain = [optax.clip_by_global_norm(grad_clip)] if grad_clip else []
        self.opt = optax.chain(*chain, optax.scale_by_adam(), optax.scale(-learning_rate))
        self.params: Any = None
        self.opt_state: Any = None
        self._slot_floor: dict[int, int] = {}
        self._steps = {remat: jax.jit(self.train_step_fn(remat)) for remat in (False, True)}
        self._predict = jax.jit(self._predict_fn)
        self._chunks: dict[tuple, int] = {}

    # ------------------------------------------------------------------ preparation
    def prepare(self, features: Any, outputs: Any = ()) -> batching.Prepared:
        """A batch made ready for the jitted programs. In sparse mode the slot count of a
        node count never shrinks: random graphs vary in edges from batch to batch, and
        each new count would compile the step again."""
        prepared = batching.prepare(features, outputs, self.spec, sparse=self.sparse,
                                    nodes=self.pad_nodes, complete=self.complete)
        if prepared.graph is None:
            return prepared
        nodes = prepared.node_mask.shape[1]
        floor = self._slot_floor.get(nodes, 0)
        self._slot_floor[nodes] = max(floor, batching.num_slots(prepared))
        return batching.with_shapes(prepared, slots=floor)

    def init(self, example: Any, seed: int) -> None:
        """Initialise parameters (from `seed`) and the optimiser on an example batch."""
        features, _, node_mask, graph = _device(self.prepare(example.features,
                                                             example.outputs))
        init = jax.jit(lambda key, f, m, g: self.net.init(key, f, m, g, True))
        self.params = init(jax.random.PRNGKey(seed), features, node_mask, graph)
        self.opt_state = self.opt.init(self.params)

    # ------------------------------------------------------------------ loss, step
    def loss(self, params: Any, rng: Any, features: Features, outputs: tuple, node_mask: Any,
             graph: Any, remat: bool = False) -> Any:
        """dm-clrs's training loss: the outputs' losses, then the hints' (when decoded)."""
        output_preds, hint_preds = self._nets[remat].apply(params, rng, features, node_mask,
                                                           graph, False)
        g = self.layout.layout_graph(graph, node_mask)
        total = 0.0
        for truth in outputs:
            total = total + losses.output_loss(truth, output_preds[truth.name], node_mask, g)
        if self.net_config.decode_hints:
            for truth in features.hints:
                total = total + losses.hint_loss(truth, hint_preds[truth.name],
                                                 features.lengths, node_mask, g)
        return total

    def _train_step(self, params: Any, opt_state: Any, rng: Any, features: Features,
                    outputs: tuple, node_mask: Any, graph: Any, remat: bool = False
                    ) -> tuple[Any, Any, Any]:
        loss, grads = jax.value_and_grad(self.loss)(params, rng, features, outputs,
                                                    node_mask, graph, remat)
        updates, opt_state = self.opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    def train_step_fn(self, remat: bool) -> Callable[..., tuple[Any, Any, Any]]:
        """The (unjitted) optimiser step, its hint loop rematerialised or not."""
        return functools.partial(self._train_step, remat=remat)

    @property
    def _step(self) -> Any:
        return self._steps[self.remat]

    def feedback(self, rng: Any, feedback: Any) -> Any:
        """One optimiser step on a Feedback batch; returns the loss."""
        features, outputs, node_mask, graph = _device(self.prepare(feedback.features,
                                                                   feedback.outputs))
        self.params, self.opt_state, loss = self._step(self.params, self.opt_state, rng,
                                                       features, outputs, node_mask, graph)
        return loss

    def planning_batch(self, example: Any) -> tuple[tuple, float]:
        """The device batch a training plan measures (`example`, the largest training size,
        prepared as training prepares it) and the factor its footprint is scaled by: a
        later batch may reach the next time bucket, and a step's memory grows with it."""
        prepared = self.prepare(example.features, example.outputs)
        steps = batching.num_steps(prepared)
        margin = batching.time_bucket(steps + 1) / steps if steps else 1.0
        return _device(prepared), margin

    def plan_training(self, example: Any, budget: int | None = None) -> memory.MemoryPlan:
        """Measure the training step on `example` and rematerialise its hint loop if it does
        not fit `budget` (default: the device's, `memory.device_budget`)."""
        budget = memory.device_budget() if budget is None else budget
        batch, margin = self.planning_batch(example)
        rng = jax.random.PRNGKey(0)

        def measure(k: int, remat: bool) -> int | None:
            compiled = self._steps[remat].lower(self.params, self.opt_state, rng,
                                                *batch).compile()
            nbytes = memory.program_bytes(compiled)
            return None if nbytes is None else int(nbytes * margin)

        self.memory_plan = memory.choose(1, measure, budget)
        self.remat = self.memory_plan.remat
        return self.memory_plan

    # ------------------------------------------------------------------ prediction
    def _predict_fn(self, params: Any, rng: Any, features: Features, node_mask: Any,
                    graph: Any) -> tuple[dict, dict]:
        output_preds, hint_preds = self.net.apply(params, rng, features, node_mask, graph, True)
        g = self.layout.layout_graph(graph, node_mask)
        final = {}
        for name, pred in output_preds.items():
            _, loc, t = self.spec[name]
            final[name], _ = postprocess(pred, loc, t, g, node_mask, hard=True,
                                         sinkhorn_steps=OUTPUT_SINKHORN_STEPS,
                                         unroll_sinkhorn=self.net_config.device.unroll_sinkhorn)
        return final, hint_preds

    def predict(self, rng: Any, features: Any) -> tuple[dict[str, DataPoint], dict]:
        """Hard output predictions `{name: DataPoint}` in dm-clrs's layout (indices for
        pointers, dense N x N for edges) at the batch's own node count."""
        return self.predict_with(self.params, rng, features)

    def predict_with(self, params: Any, rng: Any, features: Any
                     ) -> tuple[dict[str, DataPoint], dict]:
        """`predict` with other parameters (one seed of a `SeedStack`)."""
        prepared = self.prepare(features)
        total = prepared.node_mask.shape[0]
        chunk = self._eval_chunk(params, rng, prepared)
        if chunk == total:
            final, hint_preds = self._predict(params, rng, *_predict_args(prepared))
            final = jax.device_get(final)
        else:  # one chunk's program at a time: the device holds one chunk's outputs
            parts = [jax.device_get(self._predict(params, rng, *_predict_args(
                _rows(prepared, lo, lo + chunk)))) for lo in range(0, total, chunk)]
            final = {name: np.concatenate([p[0][name] for p in parts]) for name in parts[0][0]}
            hint_preds = {name: np.concatenate([p[1][name] for p in parts], axis=1)
                          for name in parts[0][1]}
        n, out = prepared.nb_nodes, {}
        for name, data in final.items():
            _, loc, t = self.spec[name]
            data = np.asarray(data)
            if prepared.graph is not None:
                data = np.asarray(to_dense(data, loc, t, prepared.graph,
                                           prepared.node_mask.shape[1]))
            out[name] = DataPoint(name, loc, t, _unpad(data, loc, t, n))
        return out, hint_preds

    def _eval_chunk(self, params: Any, rng: Any, prepared: batching.Prepared) -> int:
        """The rows of `prepared` one prediction program may take (the whole batch when no
        budget is set): the largest divisor of the batch whose program fits."""
        budget = memory.device_budget()
        total = prepared.node_mask.shape[0]
        if budget is None:
            return total
        key = (total, prepared.node_mask.shape[1], batching.num_steps(prepared),
               batching.num_slots(prepared), budget)
        if key not in self._chunks:
            def measure(rows: int) -> int | None:
                args = _predict_args(_rows(prepared, 0, rows))
                return memory.program_bytes(self._predict.lower(params, rng, *args).compile())

            self._chunks[key] = memory.chunk_size(total, measure, budget,
                                                  what=f"prediction at n={prepared.nb_nodes}")
        return self._chunks[key]


def _predict_args(prepared: batching.Prepared) -> tuple[Features, Any, Any]:
    f, _, node_mask, graph = _device(prepared)
    return f, node_mask, graph


def _rows(prepared: batching.Prepared, lo: int, hi: int) -> batching.Prepared:
    """Samples lo..hi of a prepared batch (hints keep their time axis)."""
    def cut(dps: tuple, axis: int) -> tuple:
        return tuple(dp.replace(data=np.asarray(dp.data)[lo:hi] if axis == 0
                                else np.asarray(dp.data)[:, lo:hi]) for dp in dps)

    f = prepared.features
    features = f._replace(inputs=cut(f.inputs, 0), hints=cut(f.hints, 1),
                          lengths=np.asarray(f.lengths)[lo:hi])
    graph = prepared.graph
    if graph is not None:
        graph = type(graph)(*(np.asarray(a)[lo:hi] for a in graph))
    return prepared._replace(features=features, outputs=cut(prepared.outputs, 0),
                             node_mask=np.asarray(prepared.node_mask)[lo:hi], graph=graph)


def _unpad(data: np.ndarray, location: str, type_: str, n: int) -> np.ndarray:
    """A prediction cut back to the batch's own n nodes."""
    if location == "graph":
        return data
    if location == "node":
        data = data[:, :n]
        return data[..., :n] if type_ == Type.PERMUTATION_POINTER and data.ndim == 3 \
            else data
    return data[:, :n, :n]
