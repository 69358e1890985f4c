"""A Feedback made ready for the jitted model, on the host: padding and the edge list.

- Node padding: a batch of n nodes is padded to `nodes` (the largest training
  size), with `node_mask` marking the real ones, so every training size runs
  one compiled step; the layers leave padding nodes out (`algspec.nn.graph`).
- Time padding: the hints' time axis is zero-padded to a bucket (`time_bucket`:
  at most a quarter longer), so trajectories of similar lengths share a compiled program;
  each sample's length still ends its trajectory (outputs freeze, hint losses
  stop).
- Sparse mode: the edge list (`edges.static_graph`: edge-mask inputs, input
  pointers and the first frame's hint pointers, symmetrised, with self-loops)
  and every edge-located array gathered at its slots, so nothing N x N reaches
  the device. Edge data held as edge lists (`algspec.edge_lists.EdgeLists`) are
  read at their edges and never made N x N on the host either; dense mode makes
  them dense arrays here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.feedback import DataPoint, Features
from algspec.nn import edges
from algspec.nn.graph import SparseGraph
from algspec.nn.types import Location, Stage, Type

Spec = Mapping[str, tuple[str, str, str]]


class Prepared(NamedTuple):
    """What the jitted model reads: features and outputs as algspec data points, the node
    mask, and the edge list (sparse mode) or None (dense mode)."""

    features: Features
    outputs: tuple[DataPoint, ...]
    node_mask: np.ndarray
    graph: SparseGraph | None
    nb_nodes: int  # before padding


def time_bucket(steps: int) -> int:
    """The padded length of a hint time axis (`edges.size_bucket`): similar lengths share
    a compiled program, and a trajectory runs at most a quarter more steps than its own."""
    return edges.size_bucket(steps)


def node_count(features: Any) -> int:
    """N of a batch, from its first node or edge datum."""
    for dp in list(features.inputs):
        if dp.location in (Location.NODE, Location.EDGE):
            return int(np.shape(dp.data)[1])
    for dp in list(features.hints):
        if dp.location in (Location.NODE, Location.EDGE):
            return int(np.shape(dp.data)[2])
    raise ValueError("a batch without node or edge data has no node count")


def _pad_nodes(data: np.ndarray, location: str, type_: str, lead: int, extra: int
               ) -> np.ndarray:
    """Zero-pad the node axes (after `lead` leading axes) by `extra` nodes."""
    if extra == 0 or location == Location.GRAPH:
        return data
    axes = 1 if location == Location.NODE else 2
    widths = [(0, 0)] * data.ndim
    for k in range(axes):
        widths[lead + k] = (0, extra)
    if location == Location.NODE and type_ == Type.PERMUTATION_POINTER \
            and data.ndim == lead + 2:  # one-hot rows over the nodes: pad the columns too
        widths[lead + 1] = (0, extra)
    return np.pad(data, widths)


def _pad_time(data: np.ndarray, steps: int) -> np.ndarray:
    if data.shape[0] >= steps:
        return data
    return np.concatenate([data, np.zeros((steps - data.shape[0],) + data.shape[1:],
                                          data.dtype)])


def _is_edge_mask(spec: Spec, dp: Any) -> bool:
    return spec[dp.name][1] == Location.EDGE and spec[dp.name][2] == Type.MASK


def _is_node_pointer(spec: Spec, dp: Any) -> bool:
    return spec[dp.name][1] == Location.NODE and \
        spec[dp.name][2] in (Type.POINTER, Type.PERMUTATION_POINTER)


def prepare(features: Any, outputs: Any, spec: Spec, *, sparse: bool,
            nodes: int | None = None, bucket_time: bool = True,
            complete: bool = False) -> Prepared:
    """Pad `features`/`outputs` (dm-clrs's or algspec's data points) to `nodes` nodes and
    a time bucket, and in sparse mode build the edge list and gather edge data at it.

    `complete`: the interconnection graph is complete (an `.alg` file's `graph
    complete`), so the edge list holds every pair of real nodes; otherwise it is the
    edge-mask inputs (the file's `graph input`, or the implicit `adj` of `graph
    empty`/`path`/`star`)."""
    n = node_count(features)
    target = max(n, int(nodes or n))
    extra = target - n
    batch = int(np.shape(features.lengths)[0])
    node_mask = np.zeros((batch, target), np.float32)
    node_mask[:, :n] = 1.0
    hints = list(features.hints)
    steps = int(np.shape(hints[0].data)[0]) if hints else 0
    steps = time_bucket(steps) if bucket_time and steps else steps

    def pad(dp: Any, stage: str) -> DataPoint:
        if sparse and isinstance(dp.data, EdgeLists):  # gathered at the slots below
            data = dp.data.with_steps(max(steps, len(dp.data))) if stage == Stage.HINT \
                else dp.data
            return DataPoint(dp.name, dp.location, dp.type_, data)
        data = np.asarray(dp.data)  # dense mode: edge lists made dense here
        lead = 2 if stage == Stage.HINT else 1
        data = _pad_nodes(data, dp.location, dp.type_, lead, extra)
        if stage == Stage.HINT:
            data = _pad_time(data, steps)
        return DataPoint(dp.name, dp.location, dp.type_, data)

    inputs = [pad(dp, Stage.INPUT) for dp in features.inputs]
    hints = [pad(dp, Stage.HINT) for dp in hints]
    outs = [pad(dp, Stage.OUTPUT) for dp in outputs]
    graph = None
    if sparse:
        masks = [dp.data for dp in inputs if _is_edge_mask(spec, dp)]
        if complete:
            masks.append(np.ones((batch, target, target), np.float32))
        pointers = [dp.data for dp in inputs if _is_node_pointer(spec, dp)]
        pointers += [dp.data[0] for dp in hints if _is_node_pointer(spec, dp)]
        graph = edges.static_graph(batch, target, edge_masks=masks, pointers=pointers,
                                   node_mask=node_mask)

        def gather(dp: DataPoint, time_major: bool) -> DataPoint:
            if dp.location != Location.EDGE:
                return dp
            return dp.replace(data=edges.gather_edges(dp.data, graph, time_major=time_major))

        inputs = [gather(dp, False) for dp in inputs]
        hints = [gather(dp, True) for dp in hints]
        outs = [gather(dp, False) for dp in outs]
    lengths = np.asarray(features.lengths)
    return Prepared(Features(tuple(inputs), tuple(hints), lengths), tuple(outs), node_mask,
                    graph, n)


def _pad_axis(data: np.ndarray, axis: int, size: int) -> np.ndarray:
    if data.shape[axis] >= size:
        return data
    widths = [(0, 0)] * data.ndim
    widths[axis] = (0, size - data.shape[axis])
    return np.pad(data, widths)


def with_shapes(prepared: Prepared, *, steps: int = 0, slots: int = 0) -> Prepared:
    """`prepared` with its hints padded to at least `steps` frames and, in sparse mode, its
    edge list to at least `slots` slots (dead ones). Neither changes a loss or a
    prediction; both let batches share compiled programs."""
    graph = prepared.graph
    slots = max(slots, graph.senders.shape[1]) if graph is not None else 0

    def fit(dp: Any, stage: str) -> DataPoint:
        data = np.asarray(dp.data)
        lead = 1 if stage == Stage.HINT else 0
        if stage == Stage.HINT:
            data = _pad_axis(data, 0, steps)
        if graph is not None and dp.location == Location.EDGE:
            data = _pad_axis(data, lead + 1, slots)
        return DataPoint(dp.name, dp.location, dp.type_, data)

    f = prepared.features
    features = f._replace(inputs=tuple(fit(d, Stage.INPUT) for d in f.inputs),
                          hints=tuple(fit(d, Stage.HINT) for d in f.hints))
    if graph is not None:
        graph = SparseGraph(*(_pad_axis(np.asarray(a), 1, slots) for a in graph))
    return prepared._replace(features=features, graph=graph,
                             outputs=tuple(fit(d, Stage.OUTPUT) for d in prepared.outputs))


def num_steps(prepared: Prepared) -> int:
    """The length of the prepared hints' time axis (0 without hints)."""
    hints = prepared.features.hints
    return int(np.shape(hints[0].data)[0]) if hints else 0


def num_slots(prepared: Prepared) -> int:
    """The prepared edge list's slot count (0 in dense mode)."""
    return 0 if prepared.graph is None else int(prepared.graph.senders.shape[1])
