"""Edge generators drawn as edge lists: the dense draw's bytes and random stream, exactly.

`draw_inputs(..., edges="sparse")` hands an edge input out as `EdgeLists` when its
generator has a `sparse` draw; densifying it must give the dense draw's bytes and leave
the generator in the state the dense draw leaves it in, so later inputs do not change.
"""

from __future__ import annotations

import itertools
import zlib
from typing import Any

import numpy as np
import pytest

from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.generators import GENERATORS, draw_inputs
from algspec.generators.base import EdgeWrites
from algspec.generators.families import FAMILIES

BATCHES = (1, 3)
SIZES = (1, 2, 5, 40)

# (directed, acyclic, self_loops): the orientations every generator with these options takes.
_SHAPES = [(False, False, False), (False, False, True), (True, False, False),
           (True, False, True), (True, True, False)]


def _er_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for (d, a, sl), connected, weighted in itertools.product(_SHAPES, (False, True), (False, True)):
        for p in (0.3, [0.05, 0.6, 1.0]):
            cases.append(("erdos_renyi", {"p": p, "directed": d, "acyclic": a, "self_loops": sl,
                                          "connected": connected, "weighted": weighted,
                                          "low": 0.5, "high": 2.0}))
    cases += [("erdos_renyi", {"p": 0.0, "connected": True}),
              ("erdos_renyi", {"p": 1.0, "directed": True, "weighted": True}),
              ("erdos_renyi", {"p": 0.2, "weighted": True, "low": 0.0, "high": 1.0})]
    for family, (d, a, sl) in itertools.product(FAMILIES, _SHAPES):
        cases.append(("erdos_renyi", {"family": family, "directed": d, "acyclic": a,
                                      "self_loops": sl, "connected": True, "weighted": True,
                                      "low": -1.0, "high": 1.0}))
    return cases


def _clrs_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for (d, a), weighted, p in itertools.product([(False, False), (True, False), (True, True)],
                                                 (False, True), (0.5, [0.1, 0.9])):
        cases.append(("clrs_erdos_renyi", {"p": p, "directed": d, "acyclic": a,
                                           "weighted": weighted, "low": 0.25, "high": 3.0}))
    for family, (d, a), weighted in itertools.product(
            FAMILIES, [(False, False), (True, False), (True, True)], (False, True)):
        cases.append(("clrs_erdos_renyi", {"family": family, "directed": d, "acyclic": a,
                                           "weighted": weighted, "low": 0.1, "high": 2.0}))
    cases.append(("clrs_erdos_renyi", {"directed": True, "family": "grid", "weighted": True,
                                       "low": -2.0, "high": -1.0}))
    return cases


_OWN = {"sparse_erdos_renyi": [{"degree": 1.5}, {"degree": 40.0}],
        "watts_strogatz": [{"k": 2, "beta": 0.5, "connected": True}, {"k": 6, "beta": 0.3}],
        "delaunay": [{"weights": "euclidean", "weighted": True}],
        "grid": [{"cols": 3}],
        "barabasi_albert": [{"m": 3}, {"m": 1}],
        "uniform_tree": [], "path": []}


def _family_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for fam in FAMILIES.values():
        name = fam.generator.name
        for (d, a, sl), weighted in itertools.product(_SHAPES, (False, True)):
            cases.append((name, {"directed": d, "acyclic": a, "self_loops": sl,
                                 "weighted": weighted, "low": -0.5, "high": 1.5}))
        cases += [(name, own) for own in _OWN[name]]
    return cases


CASES = _er_cases() + _clrs_cases() + _family_cases()


def _seed(gen: str, params: dict[str, Any], batch: int, n: int) -> int:
    return zlib.crc32(f"{gen} {sorted(params.items())} {batch} {n}".encode())


def _assert_same_draw(gen: str, params: dict[str, Any], batch: int, n: int) -> EdgeLists:
    seed = _seed(gen, params, batch, n)
    dense_rng, sparse_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    dense = GENERATORS[gen].sample(dense_rng, batch, n, **params)
    sparse = GENERATORS[gen].sample_sparse(sparse_rng, batch, n, **params)
    where = f"{gen}({params}) at batch {batch}, n {n}"
    assert isinstance(sparse, EdgeLists), where
    assert not sparse.frames and sparse.values.dtype == np.float64 and dense.dtype == np.float64
    assert np.asarray(sparse).tobytes() == dense.tobytes(), where
    assert sparse.graph.same_as(EdgeGraph.from_mask(dense != 0)), where  # its nonzero pattern
    assert sparse_rng.bit_generator.state == dense_rng.bit_generator.state, where
    assert sparse_rng.random(4).tobytes() == dense_rng.random(4).tobytes(), where
    return sparse


@pytest.mark.parametrize(("gen", "params"), CASES,
                         ids=[f"{g}-{i}" for i, (g, _) in enumerate(CASES)])
def test_sparse_draw_is_the_dense_draw_byte_for_byte(gen: str, params: dict[str, Any]) -> None:
    for batch, n in itertools.product(BATCHES, SIZES):
        _assert_same_draw(gen, params, batch, n)


def test_the_cases_reach_edges_weights_and_loops() -> None:
    """The byte comparison is not vacuous: the draws at n = 40 have edges, loops, weights."""
    loops = weights = 0
    for gen, params in CASES:
        x = _assert_same_draw(gen, params, 3, 40)
        g = x.graph
        assert g.num_edges > 0 or params.get("p") == 0.0, (gen, params)
        loops += int((g.senders == g.receivers).sum())
        weights += int((x.values != 1.0).sum())
    assert loops > 0 and weights > 0


def test_every_edge_generator_draws_edge_lists_or_says_why_not() -> None:
    for gen in GENERATORS.values():
        if gen.location != "edge":
            continue
        if gen.sparse is None:
            assert isinstance(gen.dense_only, str) and len(gen.dense_only) > 20, gen.name
        else:
            assert gen.group is None, gen.name
            assert gen.dense_reason(dict(gen.defaults)) is None, gen.name
    for name, fam in FAMILIES.items():
        assert fam.generator.sparse is not None, name


def test_negative_er_weights_stay_dense_because_their_zeros_are_negative() -> None:
    """`mat * w` leaves -0.0 where w < 0 and there is no edge, which edge lists cannot hold."""
    params = {"directed": True, "weighted": True, "low": -1.0, "high": 1.0}
    for gen in ("erdos_renyi", "clrs_erdos_renyi"):
        dense = GENERATORS[gen].sample(np.random.default_rng(0), 2, 20, **params)
        assert np.signbit(dense[dense == 0]).any()
        rng = np.random.default_rng(0)
        assert GENERATORS[gen].sample_sparse(rng, 2, 20, **params) is None
        assert rng.bit_generator.state == np.random.default_rng(0).bit_generator.state


def test_draw_inputs_sparse_changes_only_the_edge_lists_inputs() -> None:
    requests = {
        "s": ("source_node", {}),
        "A": ("erdos_renyi", {"p": 0.1, "connected": True, "weighted": True}),
        "C": ("community", {"k": 2}),
        "N": ("clrs_erdos_renyi", {"directed": True, "weighted": True, "low": -1.0}),
        "F": ("clrs_erdos_renyi", {"family": "ws", "weighted": True}),
        "key": ("uniform", {}),
        "start": ("interval_start", {}), "finish": ("interval_finish", {}),
    }
    dense_rng, sparse_rng = np.random.default_rng(11), np.random.default_rng(11)
    dense = draw_inputs(requests, dense_rng, 3, 30)
    sparse = draw_inputs(requests, sparse_rng, 3, 30, edges="sparse")
    assert {k for k, v in sparse.items() if isinstance(v, EdgeLists)} == {"A", "F"}
    for name in requests:
        assert isinstance(dense[name], np.ndarray), name
        assert np.asarray(sparse[name]).tobytes() == dense[name].tobytes(), name
    assert sparse_rng.random() == dense_rng.random()


def test_draw_inputs_rejects_an_unknown_edge_mode() -> None:
    with pytest.raises(ValueError, match="edges must be one of dense, sparse"):
        draw_inputs({"A": ("erdos_renyi", {})}, np.random.default_rng(0), 1, 4, edges="csr")


def test_edge_lists_of_writes_keep_the_last_write_and_drop_zeros() -> None:
    """As assigning into zeros in order: a pair written twice keeps its last value, a 0.0
    written is no edge, a -0.0 is one (its bytes differ from the zeros')."""
    rng = np.random.default_rng(5)
    b, u, v = (rng.integers(0, k, 400) for k in (3, 6, 6))
    w = rng.choice([0.0, -0.0, 1.5, -2.0, 3.25], 400)
    writes = EdgeWrites(3, 6, [(b[:300], u[:300], v[:300], w[:300]),
                               (b[300:], v[300:], u[300:], 1.0)])
    dense = np.zeros((3, 6, 6))
    dense[b[:300], u[:300], v[:300]] = w[:300]
    dense[b[300:], v[300:], u[300:]] = 1.0
    lists = writes.edge_lists()
    assert np.asarray(lists).tobytes() == dense.tobytes() == writes.dense().tobytes()
    assert lists.graph.same_as(EdgeGraph.from_mask((dense != 0) | np.signbit(dense)))
    assert np.signbit(lists.values).any()
