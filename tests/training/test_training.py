"""Training runs end to end: every shipped algorithm x processor, determinism, eval, CLI.

Runs are tiny (hidden 8, two steps, n = 5) so that the file stays fast on a
2-core CPU; they check the plumbing (samplers -> BaselineModel -> metrics ->
run folder), not learning.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from algspec.cli.training import register
from algspec.training.config import PROCESSORS, TrainConfig

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ["binary_search", "parallel_search", "bubble_sort", "oets", "kosaraju", "dcsc"]
PAPER_PROCESSORS = ["deepsets", "gat", "mpnn", "pgn"]


def source_for(stem: str) -> str:
    path = ROOT / "algorithms" / f"{stem}.alg"
    assert path.is_file(), path
    return str(path)


def tiny(algorithm: str, processor: str = "mpnn", **kw) -> TrainConfig:
    opts: dict = {"hidden": 8, "steps": 2, "batch_size": 4, "train_sizes": (5,), "val_size": 5,
                  "test_size": 5, "train_samples": 8, "val_samples": 8, "test_samples": 8,
                  "eval_batch_size": 8, "eval_every": 1, "seed": 3}
    opts.update(kw)
    return TrainConfig(algorithm=algorithm, processor=processor, **opts)


def cli() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


# Every shipped algorithm once and every paper processor at least once (a covering design:
# each cold XLA compile costs up to a minute on a 2-core CI machine, and the full 6 x 4
# cross cost several times the suite's budget without a new failure mode).
COVERING = [("binary_search", "mpnn"), ("parallel_search", "pgn"), ("bubble_sort", "deepsets"),
            ("oets", "gat"), ("kosaraju", "gat"), ("dcsc", "pgn")]


def test_covering_design_covers_every_algorithm_and_processor() -> None:
    assert {s for s, _ in COVERING} == set(SHIPPED)
    assert {p for _, p in COVERING} == set(PAPER_PROCESSORS)


@pytest.mark.slow
@pytest.mark.parametrize(("stem", "processor"), COVERING)
def test_tiny_training_every_algorithm_and_processor(tmp_path: Path, stem: str,
                                                     processor: str) -> None:
    from algspec.training.trainer import train

    source = source_for(stem)
    res = train(tiny(source, processor), tmp_path, progress=False)
    for key in ("algorithm", "processor", "hidden", "seed", "steps", "device",
                "train_seconds", "seconds_per_step", "val", "test"):
        assert key in res, key
    assert res["processor"] == processor and res["hidden"] == 8 and res["steps"] == 2
    assert res["seconds_per_step"] > 0 and res["train_seconds"] >= res["seconds_per_step"]
    for split in ("val", "test"):
        assert 0.0 <= res[split]["score"] <= 1.0
        assert res[split]["per_output"], "every output is scored"
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["test"]["score"] == res["test"]["score"]
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["step"] for x in lines] == [0, 1]
    assert (tmp_path / "curves.png").stat().st_size > 0
    assert (tmp_path / "checkpoint.pkl").is_file()
    assert json.loads((tmp_path / "config.json").read_text())["processor"] == processor


def test_processor_list_is_what_clrs_accepts() -> None:
    from algspec.training.data import import_clrs

    clrs = import_clrs()
    src = Path(clrs.__file__).parent.joinpath("_src", "processors.py").read_text()
    assert set(re.findall(r"kind == '(\w+)'", src)) == set(PROCESSORS)


def test_unknown_processor_is_a_one_line_error() -> None:
    r = CliRunner().invoke(cli(), ["train", "bubble_sort", "--processor", "gnn9000"])
    assert r.exit_code == 2
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "gnn9000" in err and "mpnn" in err and "triplet_gmpnn" in err


def test_unknown_algorithm_is_a_one_line_error(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli(), ["train", "no_such_algorithm", "--out", str(tmp_path)])
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "no_such_algorithm" in r.stderr
    r = CliRunner().invoke(cli(), ["train", str(tmp_path / "missing.alg")])
    assert r.exit_code == 2 and "no such file" in r.stderr


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tiny run through `algspec train` (shared by the tests below)."""
    out = tmp_path_factory.mktemp("run") / "bs"
    r = CliRunner().invoke(cli(), [
        "train", "binary_search", "--processor", "mpnn", "--hidden", "8", "--steps", "3",
        "--batch-size", "4", "--train-sizes", "5,6", "--val-size", "6", "--test-size", "9",
        "--train-samples", "16", "--val-samples", "16", "--test-samples", "16",
        "--eval-every", "2", "--seed", "7", "--out", str(out), "--no-progress",
    ])
    assert r.exit_code == 0, r.output + r.stderr
    assert "test" in r.stdout
    return out


@pytest.mark.slow
def test_cli_train_writes_a_complete_run_folder(cli_run: Path) -> None:
    res = json.loads((cli_run / "result.json").read_text())
    assert res["algorithm"] == "binary_search" and res["seed"] == 7
    assert res["train_sizes"] == [5, 6] and res["test"]["size"] == 9
    assert set(res["seconds_per_step_by_size"]) == {"5", "6"}
    assert [json.loads(x)["step"] for x in (cli_run / "metrics.jsonl").open()] == [0, 2]
    cfg = json.loads((cli_run / "config.json").read_text())
    assert cfg["train_sizes"] == [5, 6] and cfg["eval_every"] == 2


@pytest.mark.slow
def test_eval_reproduces_the_saved_test_score(cli_run: Path) -> None:
    from algspec.training.trainer import evaluate_run

    saved = json.loads((cli_run / "result.json").read_text())["test"]
    again = evaluate_run(cli_run)
    assert again["size"] == 9
    assert again["score"] == pytest.approx(saved["score"], abs=1e-12)
    assert again["per_output"] == pytest.approx(saved["per_output"], abs=1e-12)


@pytest.mark.slow
def test_eval_cli_at_another_size(cli_run: Path) -> None:
    r = CliRunner().invoke(cli(), ["eval", str(cli_run), "--test-size", "12", "--json"])
    assert r.exit_code == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["size"] == 12 and 0.0 <= res["score"] <= 1.0
    assert (cli_run / "eval_n12_s16.json").is_file()
    r = CliRunner().invoke(cli(), ["eval", str(cli_run.parent / "nothing")])
    assert r.exit_code == 2 and "no such run folder" in r.stderr


@pytest.mark.slow
def test_same_seed_same_numbers_on_cpu(tmp_path: Path) -> None:
    from algspec.training.trainer import train

    source = source_for("binary_search")  # few frames: a quick compile, same determinism
    cfg = tiny(source, "pgn", steps=3, train_sizes=(4, 5))
    a = train(cfg, tmp_path / "a", progress=False)
    b = train(cfg, tmp_path / "b", progress=False)
    for key in ("final_loss", "best_step"):
        assert a[key] == b[key], key
    assert a["val"] == b["val"] and a["test"] == b["test"]
    la = [json.loads(x) for x in (tmp_path / "a" / "metrics.jsonl").open()]
    lb = [json.loads(x) for x in (tmp_path / "b" / "metrics.jsonl").open()]
    assert [x["loss"] for x in la] == [x["loss"] for x in lb]
    c = train(tiny(source, "pgn", steps=3, train_sizes=(4, 5), seed=4), tmp_path / "c",
              progress=False)
    assert c["final_loss"] != a["final_loss"], "another seed must change the numbers"
