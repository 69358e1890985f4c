"""`.alg` files of every CLRS type and location (tests/corpus/clrs_types/) meet dm-clrs: spec, Feedback, training.

Each file covers CLRS types and locations a user may declare (categoricals at every
location, edge pointers and edge `mask_one`, graph pointers on `nodes n + 1`, MASKED
outputs, permutations, a declared `pos`, no hints at all, one frame, n^2 frames,
constant hints, `graph input/complete/path/empty/star`). The checks compare with
dm-clrs's own conventions and functions (`probing.split_stages`,
`clrs.process_random_pos`, `clrs.build_sampler`), not with algspec's code. Only two
tests train (hidden 8, two steps, n <= 5), so the file stays fast on a 2-core CPU.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import algspec
from algspec.cli.training import register as register_training
from tests.support.feedback_check import check_probe

HERE = Path(__file__).resolve().parents[1] / "corpus" / "clrs_types"
FILES = sorted(HERE.glob("*.alg"))
N, B = 4, 3
LOCATION_SHAPE = {"node": (N,), "edge": (N, N), "graph": ()}
TINY = ["--hidden", "8", "--steps", "2", "--batch-size", "2", "--train-sizes", "4",
        "--val-size", "4", "--test-size", "5", "--train-samples", "4", "--val-samples", "4",
        "--test-samples", "4", "--eval-every", "1", "--no-progress"]


def _cli() -> typer.Typer:
    app = typer.Typer()
    register_training(app)
    return app


def _nodes(fb: Any) -> int:
    """N from the `pos` input (`nodes n + 1` files have one node more than n)."""
    return next(dp.data.shape[1] for dp in fb.features.inputs if dp.name == "pos")


def _check_datapoint(alg: Any, name: str, data: np.ndarray, lead: tuple[int, ...],
                     nodes: int) -> None:
    """Shape `lead + location (+ classes)`, float32, and values the CLRS type allows (-1 only
    where the declaration is `masked`): the one probe check, tests/support/feedback_check.py."""
    masked = alg.ir.decl(name).masked is not None
    check_probe(name, alg.spec[name], data, lead, nodes, masked=masked)


@pytest.fixture(scope="module")
def clrs() -> Any:
    from algspec.training.data import import_clrs

    return import_clrs()


def test_the_corpus_covers_every_type_and_location() -> None:
    seen = {(loc, t) for f in FILES for _, loc, t in algspec.load(f).spec.values()}
    for loc in ("node", "edge", "graph"):
        for t in ("scalar", "mask", "pointer", "categorical"):
            assert (loc, t) in seen, (loc, t)
    assert {("node", "mask_one"), ("edge", "mask_one"), ("node", "should_be_permutation")} <= seen


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_feedback_is_what_the_spec_promises(clrs: Any, path: Path) -> None:
    alg = algspec.load(path)
    fb = alg.sampler(length=N, num_samples=8, seed=1).next(B)
    assert isinstance(fb, clrs.Feedback)
    groups = {"input": fb.features.inputs, "hint": fb.features.hints, "output": fb.outputs}
    for stage, dps in groups.items():  # dm-clrs's split_stages order: the spec's, by stage
        want = [(k, loc, t) for k, (s, loc, t) in alg.spec.items() if s == stage]
        assert [(dp.name, dp.location, dp.type_) for dp in dps] == want, stage
    nodes = _nodes(fb)
    lengths = np.asarray(fb.features.lengths)
    assert lengths.shape == (B,) and lengths.dtype == np.float64
    for dp in fb.features.inputs + fb.outputs:
        _check_datapoint(alg, dp.name, np.asarray(dp.data), (B,), nodes)
    for dp in fb.features.hints:  # time axis first, padded to the dataset's longest
        data = np.asarray(dp.data)
        assert data.shape[0] >= lengths.max() >= 1
        _check_datapoint(alg, dp.name, data, (data.shape[0], B), nodes)
    if "pos" in alg.spec and alg.ir.decl("pos").implicit:  # CLRS's pos: first, index / N
        assert next(iter(alg.spec)) == "pos"
        pos = next(dp.data for dp in fb.features.inputs if dp.name == "pos")
        np.testing.assert_allclose(pos, np.broadcast_to(np.arange(nodes) / nodes, (B, nodes)))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_seeded_sampling_and_registered_build_sampler(clrs: Any, path: Path) -> None:
    from algspec.clrs_bridge.register import unregister

    alg = algspec.load(path)
    flat = [dp.data for dp in _all(alg.sampler(length=N, num_samples=8, seed=5).next(B))]
    again = [dp.data for dp in _all(alg.sampler(length=N, num_samples=8, seed=5).next(B))]
    other = [dp.data for dp in _all(alg.sampler(length=N, num_samples=8, seed=6).next(B))]
    assert all(np.array_equal(a, b) for a, b in zip(flat, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(flat, other, strict=True))
    name = algspec.register(alg)
    try:
        sampler, spec = clrs.build_sampler(name, num_samples=8, length=N, seed=5)
        assert dict(spec) == alg.spec
        built = [dp.data for dp in _all(sampler.next(B))]
        assert all(np.array_equal(a, b) for a, b in zip(flat, built, strict=True))
    finally:
        unregister(name)


def _all(fb: Any) -> list[Any]:
    return list(fb.features.inputs) + list(fb.features.hints) + list(fb.outputs)


# Edge `mask_one` is left out: dm-clrs reads it one-hot per row (its loss, decoder and
# split_stages work on the last axis), algspec as one 1 in the whole matrix.
SPLITTABLE = [p for p in FILES if p.stem != "edge_mask_one"]


def test_lint_warns_that_dm_clrs_reads_an_edge_mask_one_per_row() -> None:
    from algspec.lint import lint_path
    diags = lint_path(HERE / "edge_mask_one.alg")
    assert [(d.code, d.span.line) for d in diags] == [("L106", 7), ("L106", 8)]
    assert not [d for p in SPLITTABLE for d in lint_path(p) if d.code == "L106"]


@pytest.mark.parametrize("path", SPLITTABLE, ids=lambda p: p.stem)
def test_trace_probes_pass_dm_clrs_split_stages(clrs: Any, path: Path) -> None:
    from clrs._src import probing

    alg = algspec.load(path)
    fb = alg.sampler(length=N, num_samples=4, seed=2).next(1)
    given = {dp.name: dp.data[0] for dp in fb.features.inputs if dp.name in alg.primary_inputs}
    _, probes = alg.trace(n=N, **given)
    _, outputs, hints = probing.split_stages(probes, alg.spec)
    steps = int(fb.features.lengths[0])
    for mine, theirs in zip(hints, fb.features.hints, strict=True):
        assert np.asarray(mine.data).shape[0] == steps
        np.testing.assert_allclose(np.asarray(mine.data)[:, 0], theirs.data[:steps, 0], rtol=1e-5)
    for mine, theirs in zip(outputs, fb.outputs, strict=True):
        np.testing.assert_allclose(np.asarray(mine.data)[0], theirs.data[0], rtol=1e-5)


def test_random_pos_equals_dm_clrs_on_its_own_samples(clrs: Any) -> None:
    from algspec.nn.preprocess import random_pos

    for name, n in (("kmp_matcher", 9), ("binary_search", 6)):  # split and plain pos
        sampler, _ = clrs.build_sampler(name, num_samples=8, length=n, seed=1)
        fb = sampler.next(8)
        pos = np.array(next(dp.data for dp in fb.features.inputs if dp.name == "pos"))
        ref = next(clrs.process_random_pos(iter([fb]), np.random.RandomState(3)))
        want = next(dp.data for dp in ref.features.inputs if dp.name == "pos")
        np.testing.assert_array_equal(random_pos(pos, np.random.RandomState(3)), want)


def test_training_randomises_a_declared_pos_keeping_shape_and_order(clrs: Any) -> None:
    """`pos = (n - 1 - index) / n` has its 0 last: dm-clrs's randomiser shrank it to [B, 1]."""
    from algspec.training.data import preprocess

    alg = algspec.load(HERE / "own_pos.alg")
    fb = alg.sampler(length=5, num_samples=4, seed=0).next(2)
    before = next(dp.data for dp in fb.features.inputs if dp.name == "pos")
    _, out = preprocess(fb, alg.spec, pos_rng=np.random.RandomState(0), pred_as_input=False)
    after = next(dp.data for dp in out.features.inputs if dp.name == "pos")
    assert after.shape == before.shape == (2, 5)
    assert not np.allclose(after, before) and ((after >= 0) & (after < 1)).all()
    np.testing.assert_array_equal(np.argsort(after, axis=1), np.argsort(before, axis=1))


@pytest.mark.slow
def test_a_file_without_hints_trains_and_evaluates(tmp_path: Path) -> None:
    """dm-clrs's model needs a hint to count its steps; `pad_time` indexed hints[0]."""
    out = tmp_path / "run"
    r = CliRunner().invoke(_cli(), ["train", str(HERE / "no_hints.alg"), "--processor",
                                    "mpnn", "--out", str(out), *TINY])
    assert r.exit_code == 0, r.output + r.stderr + repr(r.exception)
    res = json.loads((out / "result.json").read_text())
    assert math.isfinite(res["final_loss"])
    assert set(res["test"]["per_output"]) == {"top", "above"}
    assert [json.loads(x)["step"] for x in (out / "metrics.jsonl").open()] == [0, 1]
    assert (out / "curves.png").stat().st_size > 1000
    r = CliRunner().invoke(_cli(), ["eval", str(out), "--json"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["score"] == pytest.approx(res["test"]["score"])


@pytest.mark.slow
def test_graph_pointer_on_n_plus_1_trains_with_gat(tmp_path: Path) -> None:
    from algspec.training.config import TrainConfig
    from algspec.training.trainer import train

    cfg = TrainConfig(algorithm=str(HERE / "graph_ptr_np1.alg"), processor="gat", hidden=8,
                      steps=2, batch_size=2, train_sizes=(4,), val_size=4, test_size=5,
                      train_samples=4, val_samples=4, test_samples=4, eval_batch_size=4,
                      eval_every=1, seed=0)
    res = train(cfg, tmp_path, progress=False)
    assert math.isfinite(res["final_loss"]) and 0.0 <= res["test"]["score"] <= 1.0
    assert set(res["val"]["per_output"]) == {"top"}


@pytest.mark.slow
def test_a_param_the_type_cannot_hold_is_one_diagnostic_and_no_run_folder(
        tmp_path: Path) -> None:
    """`c ~ uniform_int(high = 5)` on a categorical(3): the file's E110 at the input, as
    `algspec sample` reports it, not an internal error; and no run folder."""
    import subprocess
    import sys
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "algspec.cli", "train", str(HERE / "cats.alg"),
                        "--param", "c.high=5", "--out", str(out), *TINY],
                       check=False, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    lines = [x for x in r.stderr.splitlines() if "E110" in x]
    assert len(lines) == 1 and lines[0].startswith(f"{HERE / 'cats.alg'}:6:1: E110")
    assert "`c`" in lines[0] and "Traceback" not in r.stderr + r.stdout
    assert not out.exists()


def test_masked_pointer_entries_are_not_scored(clrs: Any) -> None:
    """dm-clrs's pointer loss skips MASKED (-1) truths (`one_hot(-1)` is 0), and a
    model's argmax can never be -1, so counting them made 100% unreachable."""
    from algspec.training.metrics import micro_f1

    alg = algspec.load(HERE / "masked_ptr.alg")
    fb = alg.sampler(length=5, num_samples=8, seed=0).next(8)
    truth = next(dp for dp in fb.outputs if dp.name == "win")
    masked = truth.data == -1
    assert masked.any() and (~masked).any()
    rng = np.random.default_rng(0)
    guess = np.where(masked | (rng.random(truth.data.shape) < 0.3),
                     rng.integers(0, 5, truth.data.shape), truth.data)
    pred = clrs.DataPoint(name="win", location="edge", type_="pointer", data=guess)
    want = float(np.mean(guess[~masked] == truth.data[~masked]))  # accuracy where trained
    assert micro_f1([truth], {"win": pred})["score"] == pytest.approx(want)
