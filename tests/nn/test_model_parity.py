"""algspec's dense model computes what dm-clrs's `BaselineModel` computes.

With dm-clrs's parameters converted (`algspec.nn.convert.from_clrs`), on the
same preprocessed Feedback: the same hard predictions, the same training loss
and, after one optimiser step, the same parameters. The algorithms between
them cover node, edge and graph data of every type CLRS trains on: scalar,
mask, mask_one, categorical, pointer and permutation (oets's sorted order),
plus a file without hints (one processor step, nothing decoded but outputs).
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest

from algspec.feedback import to_clrs, to_clrs_features
from algspec.nn.convert import from_clrs
from algspec.training.backends.algspec_backend import AlgspecBackend
from algspec.training.backends.clrs_backend import ClrsBackend
from algspec.training.config import TrainConfig
from algspec.training.data import fixed_set, resolve_source
from tests.support.small_programs import HINT_FREE_MAX

pytest.importorskip("clrs")
ROOT = Path(__file__).resolve().parents[2]

HINT_FREE = HINT_FREE_MAX

CASES = [  # (source, processor, what it covers): each type in some case; gat and the
    # other processors are compared layer by layer in test_nn_processors.py
    (str(ROOT / "algorithms" / "oets.alg"), "mpnn", "permutation, pointer, edge mask"),
    ("dfs", "pgn", "categorical, edge input, pointers"),
    ("hint_free", "triplet_mpnn", "no hints"),
]


def _source(name: str, tmp_path: Path) -> str:
    if name != "hint_free":
        return name
    path = tmp_path / "hint_free.alg"
    path.write_text(HINT_FREE)
    return str(path)


@pytest.mark.slow
@pytest.mark.parametrize("source,processor,covers", CASES, ids=[c[0].split("/")[-1]
                                                                for c in CASES])
def test_dense_model_equals_baseline_model(source: str, processor: str, covers: str,
                                           tmp_path: Path) -> None:
    src = resolve_source(_source(source, tmp_path))
    spec, fb = fixed_set(src, 5, 3, 3, random_pos=True, pred_as_input=False)
    config = TrainConfig(algorithm=source, processor=processor, hidden=8, nb_heads=2,
                         train_sizes=(5,), backend="algspec")
    theirs = ClrsBackend().build(spec, fb, config, tmp_path).baseline
    ours = AlgspecBackend().build(spec, fb, config, tmp_path)
    converted = from_clrs(theirs.params, spec, processor, nb_heads=2,
                          encode_hints="__algspec_steps__" not in spec,
                          decode_hints="__algspec_steps__" not in spec)
    assert set(converted) == set(ours.params)
    for module, leaves in converted.items():
        for name, value in leaves.items():
            assert value.shape == ours.params[module][name].shape, (module, name)
    ours.params, ours.opt_state = converted, ours.opt.init(converted)
    key = jax.random.PRNGKey(5)

    want, _ = theirs.predict(key, to_clrs_features(fb.features))
    got, _ = ours.predict(key, fb.features)
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_allclose(np.asarray(got[name].data, np.float64),
                                   np.asarray(want[name].data, np.float64), atol=1e-5,
                                   err_msg=name)

    # The training loss, then the loss after one optimiser step (each `feedback` returns
    # the loss before its step): equal losses at the stepped parameters say the
    # gradients and Adam's update agree. (Leaf by leaf they cannot be compared: Adam's
    # first step is about +-lr wherever a gradient is not rounding-sized.)
    clrs_fb = to_clrs(fb)
    assert float(ours.feedback(key, fb)) == pytest.approx(
        float(theirs.feedback(key, clrs_fb)), rel=1e-4, abs=1e-5)
    key2 = jax.random.PRNGKey(6)
    got_after = float(ours.feedback(key2, fb))
    want_after = float(theirs.feedback(key2, clrs_fb))
    assert got_after == pytest.approx(want_after, rel=2e-5)
