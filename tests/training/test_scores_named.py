"""Training scores say what they are: micro-F1 over the non-scalar outputs, MSE for
scalar ones, named in `train`'s last line, `eval`, result.json, grid logs and results.md.

The metric arithmetic is checked against hand-computed numbers; two tiny real
trainings (hidden 8, two steps, n = 4) check that an all-scalar file reports an
MSE and a mixed file both figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
import yaml
from typer.testing import CliRunner

from algspec.cli.training import register
from algspec.training.metrics import (
    Tally,
    per_output_lines,
    score_text,
    selection_key,
)

SCALAR_ONLY = """\
algorithm scalar_only
nodes n
graph empty

input  node  x: scalar ~ uniform()
hint   node  y_h: scalar := 0.0
output node  y: scalar = y_h
output edge  z[u, v]: scalar = x[u] * x[v]

record
forall v { y_h[v] = 2.0 * x[v] }
record
"""

MIXED = """\
algorithm mixed_tiny
nodes n
graph empty

input  node  x: scalar ~ uniform()
hint   node  y_h: scalar := 0.0
output node  y: scalar = y_h
output node  big: mask = x > 0.5

record
forall v { y_h[v] = 2.0 * x[v] }
record
"""

TINY = ["--hidden", "8", "--steps", "2", "--batch-size", "4", "--train-sizes", "4",
        "--val-size", "4", "--test-size", "5", "--train-samples", "8", "--val-samples", "8",
        "--test-samples", "8", "--eval-every", "1", "--seed", "1"]


@dataclass
class DP:
    name: str
    location: str
    type_: str
    data: Any


def _batch() -> tuple[list[DP], dict[str, DP]]:
    """A mask (TP 1, FP 1, FN 1), a pointer (2 of 3 right), a node scalar (SSE 4 over 2
    entries) and an edge scalar (SSE 4 over 4 entries)."""
    truth = [DP("m", "node", "mask", np.array([1.0, 0, 1, 0])),
             DP("p", "node", "pointer", np.array([0.0, 1, 2])),
             DP("s", "node", "scalar", np.array([1.0, 2.0])),
             DP("z", "edge", "scalar", np.zeros((2, 2)))]
    preds = {"m": DP("m", "node", "mask", np.array([1.0, 1, 0, 0])),
             "p": DP("p", "node", "pointer", np.array([0.0, 1, 0])),
             "s": DP("s", "node", "scalar", np.array([1.0, 4.0])),
             "z": DP("z", "edge", "scalar", np.ones((2, 2)))}
    return truth, preds


def test_mixed_summary_pools_f1_and_reports_the_scalar_mse_beside_it() -> None:
    truth, preds = _batch()
    tally = Tally()
    tally.add(truth, preds)
    s = tally.summary()
    # pooled TP 3, FP 2, FN 2: F1 = 6 / 10; scalars: SSE 8 over 6 entries
    assert s["metric"] == "micro_f1" and s["score"] == pytest.approx(0.6)
    assert s["mse"] == pytest.approx(8 / 6)
    assert s["per_output"] == pytest.approx({"m": 0.5, "p": 2 / 3, "s": 2.0, "z": 1.0})
    assert s["per_output_metric"] == {"m": "f1", "p": "accuracy", "s": "mse", "z": "mse"}
    assert score_text(s) == "micro-F1 0.6000, scalar MSE 1.3333"
    assert per_output_lines(s)[:3] == ["m (f1): 0.5000", "p (accuracy): 0.6667",
                                       "s (mse): 2.0000"]


def test_all_scalar_summary_is_a_named_negative_mse() -> None:
    truth, preds = _batch()
    tally = Tally()
    tally.add(truth[2:], preds)
    s = tally.summary()
    assert s["metric"] == "neg_mse" and s["score"] == pytest.approx(-8 / 6)
    assert s["mse"] == pytest.approx(8 / 6)
    assert score_text(s) == "MSE 1.3333" and "F1" not in score_text(s)


def test_selection_prefers_the_score_then_the_lower_scalar_mse() -> None:
    truth, preds = _batch()
    tally = Tally()
    tally.add(truth, preds)
    s = tally.summary()
    assert selection_key(s) == pytest.approx((0.6, -8 / 6))
    same_f1_better_mse = {**s, "mse": 1.0}
    assert selection_key(same_f1_better_mse) > selection_key(s)
    assert selection_key({**s, "score": 0.61, "mse": 5.0}) > selection_key(same_f1_better_mse)
    scalar = {"score": -2.0, "metric": "neg_mse", "mse": 2.0}
    assert selection_key(scalar) == (-2.0, 0.0)
    assert selection_key({"score": -1.0, "metric": "neg_mse", "mse": 1.0}) > selection_key(scalar)
    # a summary written before metrics were named is a micro-F1 without scalars
    assert selection_key({"score": 0.5}) == (0.5, 0.0) and score_text({"score": 0.5}) == \
        "micro-F1 0.5000"


def _cli() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


@pytest.mark.slow
def test_all_scalar_file_trains_and_reports_mse(tmp_path: Path) -> None:
    alg = tmp_path / "scalar_only.alg"
    alg.write_text(SCALAR_ONLY)
    out = tmp_path / "run"
    r = CliRunner().invoke(_cli(), ["train", str(alg), *TINY, "--out", str(out)])
    assert r.exit_code == 0, r.output + r.stderr
    assert "val MSE " in r.stdout and "test MSE " in r.stdout and "F1" not in r.stdout
    res = json.loads((out / "result.json").read_text())
    for split in ("val", "test"):
        part = res[split]
        assert part["metric"] == "neg_mse" and part["mse"] == pytest.approx(-part["score"])
        assert part["mse"] > 0 and part["per_output_metric"] == {"y": "mse", "z": "mse"}
    assert f"test MSE {res['test']['mse']:.4f}" in r.stdout
    metrics = [json.loads(x) for x in (out / "metrics.jsonl").open()]
    assert {m["val_metric"] for m in metrics} == {"neg_mse"}

    r = CliRunner().invoke(_cli(), ["eval", str(out)])
    assert r.exit_code == 0, r.stderr
    assert f"test MSE {res['test']['mse']:.4f} at n=5" in r.stdout and "F1" not in r.stdout
    assert "  y (mse): " in r.stdout and "  z (mse): " in r.stdout


@pytest.mark.slow
def test_mixed_file_reports_micro_f1_and_scalar_mse(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    from algspec.training.config import TrainConfig
    from algspec.training.trainer import train

    alg = tmp_path / "mixed.alg"
    alg.write_text(MIXED)
    config = TrainConfig(algorithm=str(alg), hidden=8, steps=2, batch_size=4, train_sizes=(4,),
                         val_size=4, test_size=5, train_samples=8, val_samples=8,
                         test_samples=8, eval_batch_size=8, eval_every=1, seed=1)
    res = train(config, tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    assert "generating data: 8 training samples at n=4" in err and "compiling" in err
    test = res["test"]
    assert test["metric"] == "micro_f1" and 0.0 <= test["score"] <= 1.0
    assert test["per_output_metric"] == {"y": "mse", "big": "f1"}
    assert test["mse"] == pytest.approx(test["per_output"]["y"])  # the one scalar output
    assert test["score"] == pytest.approx(test["per_output"]["big"])  # the one F1 output
    assert score_text(test).startswith("micro-F1 ") and ", scalar MSE " in score_text(test)


def test_grid_logs_and_report_name_each_score(tmp_path: Path) -> None:
    from algspec.training.experiment import load_grid, run_grid

    def fake(config: Any, out: Path, progress: bool = True) -> dict:
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        if config.algorithm == "minimum":  # all outputs scalar
            split = {"score": -0.25, "metric": "neg_mse", "mse": 0.25,
                     "per_output": {"s": 0.25}, "per_output_metric": {"s": "mse"}}
        else:  # a pointer and a scalar
            split = {"score": 0.5, "metric": "micro_f1", "mse": 0.125,
                     "per_output": {"p": 0.5, "s": 0.125},
                     "per_output_metric": {"p": "accuracy", "s": "mse"}}
        res = {"algorithm": config.algorithm, "device": "fake", "steps": 2,
               "seconds_per_step_by_size": {"5": 0.1}, "val": split,
               "test": {**split, "size": 6}}
        (out / "result.json").write_text(json.dumps(res))
        return res

    grid_path = tmp_path / "grid.yaml"
    grid_path.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": [0],
        "tasks": [{"name": "T", "sequential": "binary_search", "parallel": "minimum"}],
        "variants": [{"name": "v", "algorithm": "minimum"}]}))
    logs: list[str] = []
    out = tmp_path / "out"
    run_grid(load_grid(grid_path), out, train_fn=fake, log=logs.append)
    done = [x for x in logs if "] done " in x]
    assert any("binary_search_mpnn_h8_s0: val micro-F1 0.5000, scalar MSE 0.1250" in x
               for x in done), done
    assert any("minimum_mpnn_h8_s0: val MSE 0.2500, test MSE 0.2500" in x for x in done), done
    md = (out / "results.md").read_text()
    assert "| mpnn | 50.0%; MSE 0.125 | MSE 0.25 |" in md, md  # one seed: no spread
    assert "| v | MSE 0.25 (n=1) [MSE 0.25] |" in md, md
    assert "-25.0%" not in md and "micro-F1" in md and "MSE" in md
    report = json.loads((out / "results.json").read_text())
    assert report["efficiency"]["T"]["score_gap"] is None, "an F1 minus an MSE is no gap"
