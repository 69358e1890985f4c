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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import haiku as hk
import jax
import numpy as np
import optax

from algspec.nn import batch as batching
from algspec.nn import losses
from algspec.nn.data import DataPoint, Features
from algspec.nn.decoders import postprocess, to_dense
from algspec.nn.graph import DenseGraph, SparseGraph
from algspec.nn.net import Net, NetConfig, feature_dims
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
                 pad_nodes: int | None = None, complete: bool | None = None) -> None:
        self.spec = dict(spec)
        self.net_config = net
        self.sparse = sparse
        self.pad_nodes = pad_nodes
        # The interconnection graph is complete where no edge-mask input names it (an
        # `.alg` file's `graph complete`, CLRS's sorting and search tasks) unless told.
        self.complete = complete if complete is not None else not any(
            s == Stage.INPUT and loc == "edge" and t == Type.MASK
            for s, loc, t in self.spec.values())
        dims = feature_dims(self.spec, example.features, example.outputs)
        self._hint_names = [n for n, (s, _, _) in self.spec.items() if s == Stage.HINT]

        def forward(features: Features, node_mask: Any, graph: Any, repred: bool) -> Any:
            return Net(self.spec, dims, net)(features, node_mask, graph, repred=repred)

        self.net = hk.transform(forward)
        chain = [optax.clip_by_global_norm(grad_clip)] if grad_clip else []
        self.opt = optax.chain(*chain, optax.scale_by_adam(), optax.scale(-learning_rate))
        self.params: Any = None
        self.opt_state: Any = None
        self._slot_floor: dict[int, int] = {}
        self._step = jax.jit(self._train_step)
        self._predict = jax.jit(self._predict_fn)

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
             graph: Any) -> Any:
        """dm-clrs's training loss: the outputs' losses, then the hints' (when decoded)."""
        output_preds, hint_preds = self.net.apply(params, rng, features, node_mask, graph,
                                                  False)
        g = graph if graph is not None else None
        total = 0.0
        for truth in outputs:
            total = total + losses.output_loss(truth, output_preds[truth.name], node_mask, g)
        if self.net_config.decode_hints:
            for truth in features.hints:
                total = total + losses.hint_loss(truth, hint_preds[truth.name],
                                                 features.lengths, node_mask, g)
        return total

    def _train_step(self, params: Any, opt_state: Any, rng: Any, features: Features,
                    outputs: tuple, node_mask: Any, graph: Any) -> tuple[Any, Any, Any]:
        loss, grads = jax.value_and_grad(self.loss)(params, rng, features, outputs,
                                                    node_mask, graph)
        updates, opt_state = self.opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    def feedback(self, rng: Any, feedback: Any) -> Any:
        """One optimiser step on a Feedback batch; returns the loss."""
        features, outputs, node_mask, graph = _device(self.prepare(feedback.features,
                                                                   feedback.outputs))
        self.params, self.opt_state, loss = self._step(self.params, self.opt_state, rng,
                                                       features, outputs, node_mask, graph)
        return loss

    # ------------------------------------------------------------------ prediction
    def _predict_fn(self, params: Any, rng: Any, features: Features, node_mask: Any,
                    graph: Any) -> tuple[dict, dict]:
        output_preds, hint_preds = self.net.apply(params, rng, features, node_mask, graph, True)
        g = graph if graph is not None else DenseGraph(adj=None)
        final = {}
        for name, pred in output_preds.items():
            _, loc, t = self.spec[name]
            final[name], _ = postprocess(pred, loc, t, g, node_mask, hard=True,
                                         sinkhorn_steps=OUTPUT_SINKHORN_STEPS)
        return final, hint_preds

    def predict(self, rng: Any, features: Any) -> tuple[dict[str, DataPoint], dict]:
        """Hard output predictions `{name: DataPoint}` in dm-clrs's layout (indices for
        pointers, dense N x N for edges) at the batch's own node count."""
        return self.predict_with(self.params, rng, features)

    def predict_with(self, params: Any, rng: Any, features: Any
                     ) -> tuple[dict[str, DataPoint], dict]:
        """`predict` with other parameters (one seed of a `SeedStack`)."""
        prepared = self.prepare(features)
        f, _, node_mask, graph = _device(prepared)
        final, hint_preds = self._predict(params, rng, f, node_mask, graph)
        n, out = prepared.nb_nodes, {}
        for name, data in final.items():
            _, loc, t = self.spec[name]
            data = np.asarray(data)
            if graph is not None:
                data = np.asarray(to_dense(data, loc, t, prepared.graph, node_mask.shape[1]))
            out[name] = DataPoint(name, loc, t, _unpad(data, loc, t, n))
        return out, hint_preds


def _unpad(data: np.ndarray, location: str, type_: str, n: int) -> np.ndarray:
    """A prediction cut back to the batch's own n nodes."""
    if location == "graph":
        return data
    if location == "node":
        data = data[:, :n]
        return data[..., :n] if type_ == Type.PERMUTATION_POINTER and data.ndim == 3 \
            else data
    return data[:, :n, :n]
