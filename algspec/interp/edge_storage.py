"""Edge probes stored at the interconnection graph's edges (`algspec.edge_lists`).

With `edges="sparse"` a run hands out its edge inputs, outputs and hints as `EdgeLists`
over the graph it ran on (the file's `graph input` mask, or the declared graph), so a
dataset of large sparse graphs holds O(m) per edge datum and frame, not N x N. Data that
are not zero at every pair off that graph (a complete graph, an edge hint initialised
everywhere, a categorical's one-hot of class 0) stay dense arrays: `from_dense` refuses
them, and densifying what it accepts gives back the same bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from algspec import ir
from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.interp.edge_values import at_graph, edge_valued

if TYPE_CHECKING:
    from algspec.interp.env import Env

Trajectories = Any  # `recording.Trajectories`, which reads its input probes from here

def storage_graph(env: Env) -> EdgeGraph | None:
    """The edges edge data are stored at: the interconnection graph's, None for a complete
    graph (every pair is an edge: nothing to gain). Built once per run."""
    if env.prog.graph.mask_name is None:
        return None
    if env.adj_graph is None:
        ix = env.sparse
        # the sparse mode's edge list is in C order already
        env.adj_graph = ix.storage_graph() if ix is not None else EdgeGraph.from_mask(env.adj)
    return env.adj_graph


def input_probe(env: Env, d: ir.DataDecl) -> EdgeLists | None:
    """The probe of an edge input held at its edges (`edge_values`), at the storage graph's
    edges and in the probes' dtype; None for any other input (`probes.probe` encodes it)."""
    held = edge_valued(env.state, d.name)
    graph = None if held is None else storage_graph(env)
    if graph is None:
        return None
    return EdgeLists(graph, at_graph(held, graph).astype(env.dtype))


def dense_probes(traj: Trajectories) -> Trajectories:
    """`traj` with every edge-list probe made dense (a run asked for `edges="dense"`)."""
    for probes in (traj.inputs, traj.outputs, traj.hints):
        for name, x in probes.items():
            if isinstance(x, EdgeLists):
                probes[name] = x.dense()
    return traj


def stored_at_edges(traj: Trajectories, env: Env) -> Trajectories:
    """`traj` with each edge probe that is zero off the graph as `EdgeLists`."""
    graph = storage_graph(env)
    if graph is None:
        return traj
    mask = None
    for stage in ("inputs", "outputs", "hints"):
        probes = getattr(traj, stage)
        for name, (st, loc, _t) in traj.spec.items():
            if loc != "edge" or name not in probes or isinstance(probes[name], EdgeLists):
                continue
            if mask is None:
                mask = env.adj.astype(bool, copy=False)
            x = EdgeLists.from_dense(np.asarray(probes[name]), graph, frames=stage == "hints",
                                     mask=mask)
            if x is not None:
                probes[name] = x
    return traj
