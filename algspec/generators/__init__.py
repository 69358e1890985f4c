"""Named input distributions for `.alg` files (numpy only).

An `.alg` file names the distribution of each primary input, e.g.
``input node key: scalar ~ sorted_uniform(low=0.0, high=1.0)``.  The checker
validates the name and parameters with `validate_params` and the fit of the
output to the declared type with `check_declared_type`; the sampler calls
`draw_inputs`, which draws a whole batch at once (no Python loop per sample)
and draws grouped generators (interval start/finish, haystack/needle, point
x/y) jointly.

The distributions are those of dm-clrs's samplers (same distribution, not the
same random stream), with the same parameters and defaults.  `CLRS_INPUTS`
says which generator call gives each input of each CLRS-30 algorithm.

Modules: `base` (the `Generator` record, domains, validation), `sequences`
(node/graph values, strings, source nodes, pointer structures), `graphs`
(Erdos-Renyi, community), `families` (sparse G(n, p), Watts-Strogatz,
Delaunay, grid, Barabasi-Albert, uniform tree, path; the `family` option of
the Erdos-Renyi generators), `joint` (inputs drawn together), `fit` (type fit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists, check_edges
from algspec.generators import families, graphs, joint, sequences
from algspec.generators.base import Domain, Generator, Location, ParamValue, _validate
from algspec.generators.fit import check_declared_type as _check_fit
from algspec.generators.fit import pointer_range_problem
from algspec.generators.graphs import community_blocks
from algspec.generators.params import is_expr, jsonable
from algspec.generators.params import text as param_text

GENERATORS: dict[str, Generator] = {
    g.name: g for g in [*sequences.GENERATORS, *graphs.GENERATORS, *families.GENERATORS,
                        *joint.GENERATORS]
}

# Parameters added after spec hashes were published: at these defaults they are left out
# of the hash (`algspec.sampling.identity`), so a dataset exported before keeps replaying.
HASH_NEUTRAL_DEFAULTS: dict[str, dict[str, Any]] = {
    "erdos_renyi": {"family": "er"},
    "clrs_erdos_renyi": {"family": "er"},
}


def validate_params(name: str, params: Mapping[str, Any]) -> list[str]:
    """Error messages for an unknown generator, unknown parameter names or bad values.

    Empty list = valid.  Used by the checker and by the CLI's `--param` overrides,
    so a bad override is reported as a diagnostic instead of failing mid-sampling.
    """
    gen = GENERATORS.get(name)
    if gen is None:
        known = ", ".join(sorted(GENERATORS))
        return [f"unknown generator '{name}' (known: {known})"]
    return _validate(gen, params)


def check_declared_type(gen: Generator | str, loc: str, clrs_type: str | None,
                        categories: int | None = None,
                        params: Mapping[str, Any] | None = None) -> list[str]:
    """Why generator `gen` cannot give a `loc` input of `clrs_type`; [] if it can.

    `clrs_type` as dm-clrs spells it (`mask_one`, `should_be_permutation`, ...),
    `categories` the K of `categorical(K)`, `params` the file's parameters
    (the output domain may depend on them, e.g. `random_string(chars=...)`).
    """
    g = GENERATORS[gen] if isinstance(gen, str) else gen
    return _check_fit(g, loc, clrs_type, categories, params, GENERATORS)


def draw_inputs(requests: Mapping[str, tuple[str, Mapping[str, Any]]],
                rng: np.random.Generator, batch: int, n: int,
                edges: str = "dense") -> dict[str, np.ndarray | EdgeLists]:
    """Draw the inputs `{name: (generator, params)}` of `batch` samples of size n.

    Inputs are drawn in order from one stream.  Inputs whose generators are
    fields of one group (`interval_start`/`interval_finish`, ...) and have
    equal parameters share one joint draw, made when the first is reached.

    `edges="sparse"`: an edge input whose generator draws edge lists at its
    parameters (`Generator.sparse`, `dense_reason`) comes as `EdgeLists` over its
    nonzero entries, never N x N; the stream is consumed exactly as by the dense
    draw, so `np.asarray` of it is the dense draw's bytes and later inputs are
    unchanged.  Every other input is the same dense array as with "dense".
    """
    check_edges(edges)
    out: dict[str, np.ndarray | EdgeLists] = {}
    joint_draws: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    for name, (gen_name, params) in requests.items():
        gen = GENERATORS[gen_name]
        try:
            if gen.group is None:
                drawn = (gen.sample_sparse(rng, batch, n, **params)
                         if edges == "sparse" and gen.location == "edge" else None)
                out[name] = gen.sample(rng, batch, n, **params) if drawn is None else drawn
                continue
            resolved = gen.resolve_at(params, batch, n)
            key = (gen.group, repr(sorted(resolved.items())))
            if key not in joint_draws:
                joint_draws[key] = gen.draw(rng, batch, n, **resolved)
        except ValueError as e:  # a parameter or size it cannot draw with: name the input
            e.input_name = getattr(e, "input_name", name)
            raise
        x = np.asarray(joint_draws[key][gen.part], dtype=np.float64)
        assert x.shape == gen.shape(batch, n, resolved), (gen.name, x.shape)
        out[name] = x
    return out


def markdown_table() -> str:
    """The generator reference table of docs/generators.md (`python -m algspec.generators`)."""
    rows = ["| generator | location | draws | parameters (defaults) | distribution |",
            "|---|---|---|---|---|"]
    for name, g in GENERATORS.items():
        params = ", ".join(f"{k} = {param_text(v)}" for k, v in g.defaults.items()) or "none"
        rows.append(f"| `{name}` | {g.location} | {g.domain_of()} | {params} | "
                    f"{g.doc.replace('|', '/')} |")
    return "\n".join(rows)


def clrs_table() -> str:
    """Which generator call gives each CLRS-30 input (docs/generators.md)."""
    rows = ["| CLRS-30 algorithm | inputs |", "|---|---|"]
    for alg, inputs in CLRS_INPUTS.items():
        calls = "; ".join(
            f"`{k} ~ {g}(" + ", ".join(f"{a} = {param_text(b)}" for a, b in ps.items()) + ")`"
            for k, (g, ps) in inputs.items())
        rows.append(f"| {alg} | {calls} |")
    return "\n".join(rows)


# Each CLRS-30 algorithm's generated inputs: name -> (generator, parameters
# differing from the defaults).  `pos` and `adj` are not generated (`adj` is
# `adjacency(A)`).  Samplers as in dm-clrs's `samplers.SAMPLERS`.
_SORTING = {"key": ("uniform", {})}
_GRAPH = {"A": ("clrs_erdos_renyi", {"directed": True})}
_UNDIRECTED = {"A": ("clrs_erdos_renyi", {})}
_WEIGHTED = {"s": ("source_node", {}), "A": ("clrs_erdos_renyi", {"weighted": True})}
_MATCHER = {"string": ("matcher_split", {}), "key": ("matcher_string", {})}
_HULL = {"x": ("disk_x", {}), "y": ("disk_y", {})}
CLRS_INPUTS: dict[str, dict[str, tuple[str, dict[str, ParamValue]]]] = {
    "insertion_sort": _SORTING, "bubble_sort": _SORTING, "heapsort": _SORTING,
    "quicksort": _SORTING, "quickselect": _SORTING, "minimum": _SORTING,
    "binary_search": {"key": ("sorted_uniform", {}), "target": ("uniform_scalar", {})},
    "find_maximum_subarray_kadane": {"key": ("uniform", {"low": -1.0})},
    "matrix_chain_order": {"p": ("uniform", {})},
    "lcs_length": {"string": ("string_split", {}), "key": ("random_string", {})},
    "optimal_bst": {"p": ("bst_p", {}), "q": ("bst_q", {})},
    "activity_selector": {"s": ("interval_start", {}), "f": ("interval_finish", {})},
    "task_scheduling": {"d": ("deadlines", {}), "w": ("uniform", {})},
    "dfs": _GRAPH,
    "topological_sort": {"A": ("clrs_erdos_renyi", {"directed": True, "acyclic": True})},
    "strongly_connected_components": {"A": ("community", {})},
    "articulation_points": {"A": ("clrs_erdos_renyi", {"p": 0.2})},
    "bridges": {"A": ("clrs_erdos_renyi", {"p": 0.2})},
    "bfs": {"s": ("source_node", {}), **_UNDIRECTED},
    "mst_kruskal": {"A": ("clrs_erdos_renyi", {"p": 0.2, "weighted": True})},
    "mst_prim": _WEIGHTED, "bellman_ford": _WEIGHTED, "dijkstra": _WEIGHTED,
    "dag_shortest_paths": {"s": ("source_node", {}), "A": (
        "clrs_erdos_renyi", {"directed": True, "acyclic": True, "weighted": True})},
    "floyd_warshall": {"A": ("clrs_erdos_renyi", {"weighted": True})},
    "naive_string_matcher": _MATCHER, "kmp_matcher": _MATCHER,
    "segments_intersect": {"x": ("segments_x", {}), "y": ("segments_y", {})},
    "graham_scan": _HULL, "jarvis_march": _HULL,
}

__all__ = ["CLRS_INPUTS", "GENERATORS", "Domain", "Generator", "Location",
           "ParamValue", "check_declared_type", "community_blocks", "draw_inputs", "is_expr",
           "jsonable", "markdown_table", "param_text", "pointer_range_problem", "validate_params"]
