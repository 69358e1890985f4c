"""CLRS-Text prints edge matrices: a batch holding edge lists (`edges="sparse"`) gives
the same prompts and answers as the dense batch."""

from __future__ import annotations

import numpy as np

from algspec.compiled import load_source
from algspec.edge_lists import EdgeLists
from algspec.sampling import BatchSampler
from algspec.text.format import format_sample
from algspec.text.records import one_sample
from tests.support.small_programs import EDGE_FLOW


def test_one_sample_of_edge_lists_prints_as_the_dense_sample() -> None:
    alg = load_source(EDGE_FLOW, "edge_flow.alg")
    sparse = BatchSampler(alg, alg.spec, -1, seed=1, length=6, max_steps=6,
                          edges="sparse").next(3)
    dense = BatchSampler(alg, alg.spec, -1, seed=1, length=6, max_steps=6).next(3)
    assert isinstance(sparse.features.hints[1].data, EdgeLists)
    for i in range(3):
        a, b = one_sample(sparse, i), one_sample(dense, i)
        for p, q in zip([*a.features.hints, *a.outputs], [*b.features.hints, *b.outputs],
                        strict=True):
            assert isinstance(p.data, np.ndarray) and p.data.tobytes() == q.data.tobytes()
        assert format_sample(alg.name, alg.spec, a, hints=True) == \
            format_sample(alg.name, alg.spec, b, hints=True)
