"""algspec's batch preprocessing equals dm-clrs's (`process_random_pos`,
`process_pred_as_input`, `process_permutations`): the same spec, in the same order,
and the same arrays, on dm-clrs's own samplers."""

from __future__ import annotations

import numpy as np
import pytest

from algspec.feedback import from_clrs
from algspec.training.data import preprocess

clrs = pytest.importorskip("clrs")


def _clrs_preprocess(name: str, fb, seed: int, pred_as_input: bool):
    spec = dict(clrs.SPECS[name])
    it = clrs.process_random_pos(iter([fb]), np.random.RandomState(seed))
    if pred_as_input:
        spec, it = clrs.process_pred_as_input(spec, it)
    spec, it = clrs.process_permutations(spec, it, True)
    return spec, next(it)


def _points(dps):
    return [(d.name, d.location, d.type_, np.asarray(d.data)) for d in dps]


@pytest.mark.parametrize("name,pred_as_input", [
    ("insertion_sort", False),    # permutation output, pointer hints
    ("binary_search", True),      # pred_h becomes an input
    ("kmp_matcher", True),        # pos in two segments
    ("dfs", False),
])
def test_preprocessing_equals_dm_clrs(name: str, pred_as_input: bool) -> None:
    sampler, _ = clrs.build_sampler(name, num_samples=6, length=8, seed=2)
    raw = sampler.next(6)
    want_spec, want = _clrs_preprocess(name, raw, 9, pred_as_input)
    got_spec, got = preprocess(from_clrs(raw), clrs.SPECS[name],
                               pos_rng=np.random.RandomState(9), pred_as_input=pred_as_input)
    assert list(got_spec.items()) == [(k, tuple(v)) for k, v in want_spec.items()]
    for got_dps, want_dps in ((got.features.inputs, want.features.inputs),
                              (got.features.hints, want.features.hints),
                              (got.outputs, want.outputs)):
        g, w = _points(got_dps), _points(want_dps)
        assert [x[:3] for x in g] == [x[:3] for x in w]
        for (n, _, _, a), (_, _, _, b) in zip(g, w, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=n)
    np.testing.assert_array_equal(got.features.lengths, want.features.lengths)
