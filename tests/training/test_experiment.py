"""Experiment grids: parsing, resuming after a kill, the Table-2 report, shipped grids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from algspec.cli.training import register
from algspec.training.config import TrainConfig
from algspec.training.experiment import GridError, load_grid, plan, run_grid

ROOT = Path(__file__).resolve().parents[2]


def write_grid(tmp_path: Path, **over: Any) -> Path:
    grid = {
        "name": "g",
        "tasks": [
            {"name": "Searching", "sequential": "binary_search", "parallel": "minimum"},
            {"name": "Sorting", "sequential": "bubble_sort", "parallel": "insertion_sort"},
        ],
        "processors": ["mpnn", "pgn"],
        "hidden": [8],
        "seeds": [0, 1],
        "train": {"steps": 2, "batch_size": 4, "train_sizes": [5], "val_size": 5,
                  "test_size": 6, "train_samples": 8, "val_samples": 8, "test_samples": 8,
                  "eval_batch_size": 8, "eval_every": 1},
    }
    grid.update(over)
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(grid))
    return path


class FakeTrain:
    """Stands in for `trainer.train`: writes a run folder instantly, records calls.

    The score is a function of the run so that the report's arithmetic can be
    checked; `die_at` raises KeyboardInterrupt in that call after writing a
    partial folder (no result.json), as a kill mid-run would leave it.
    """

    def __init__(self, die_at: int | None = None) -> None:
        self.calls: list[str] = []
        self.die_at = die_at

    def __call__(self, config: TrainConfig, out: Path, progress: bool = True) -> dict:
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        (out / "metrics.jsonl").write_text(
            "".join(json.dumps({"step": s, "loss": 1.0 / (s + 1), "val_score": s / 2})
                    + "\n" for s in (0, 1, 2)))
        self.calls.append(out.name)
        if self.die_at is not None and len(self.calls) == self.die_at:
            raise KeyboardInterrupt
        par = config.algorithm in ("minimum", "insertion_sort")
        score = (0.9 if par else 0.5) + 0.01 * config.seed
        res = {"algorithm": config.algorithm, "processor": config.processor,
               "hidden": config.hidden, "seed": config.seed, "steps": config.steps,
               "device": "fake", "train_seconds": 1.0, "seconds_per_step": 0.1,
               "seconds_per_step_by_size": {"5": 0.1 if par else 0.3},
               "val": {"score": score, "per_output": {}},
               "test": {"score": score, "per_output": {}, "size": 6}}
        (out / "result.json").write_text(json.dumps(res))
        return res


def test_load_grid_resolves_paths_against_the_grid_file(tmp_path: Path) -> None:
    path = write_grid(tmp_path, tasks=[{"name": "T", "sequential": "../algs/a.alg",
                                        "parallel": "bubble_sort"}])
    grid = load_grid(path)
    assert Path(grid.tasks[0].sequential).resolve() == (tmp_path.parent / "algs" / "a.alg")
    assert grid.tasks[0].parallel == "bubble_sort"
    runs = plan(grid, tmp_path / "out")
    assert len(runs) == 1 * 2 * 2 * 1 * 2  # tasks x roles x processors x hidden x seeds
    assert {r.dir.name for r in runs} >= {"a_mpnn_h8_s0", "bubble_sort_pgn_h8_s1"}


@pytest.mark.parametrize(("over", "message"), [
    ({"processors": ["mpnn", "nope"]}, "unknown processor 'nope'"),
    ({"train": {"stepz": 3}}, "stepz"),
    ({"train": {"hidden": 3}}, "hidden"),
    ({"tasks": [{"name": "x", "sequential": "bubble_sort"}]}, "parallel"),
    ({"colour": "blue"}, "colour"),
])
def test_bad_grids_are_rejected(tmp_path: Path, over: dict, message: str) -> None:
    with pytest.raises(GridError, match=message):
        load_grid(write_grid(tmp_path, **over))


def test_resume_after_kill_redoes_only_unfinished_runs(tmp_path: Path) -> None:
    grid = load_grid(write_grid(tmp_path))
    out = tmp_path / "out"
    names = [r.dir.name for r in plan(grid, out)]
    assert len(names) == 16  # 2 tasks x 2 roles x 2 processors x 2 seeds

    killed = FakeTrain(die_at=3)
    with pytest.raises(KeyboardInterrupt):
        run_grid(grid, out, train_fn=killed, log=lambda s: None)
    assert killed.calls == names[:3]
    assert not (out / "runs" / names[2] / "result.json").exists()

    resumed = FakeTrain()
    report = run_grid(grid, out, train_fn=resumed, log=lambda s: None)
    assert resumed.calls == names[2:], "finished runs are skipped, the killed one redone"
    assert report["finished"] == report["total"] == 16

    (out / "runs" / names[5] / "result.json").unlink()
    again = FakeTrain()
    run_grid(grid, out, train_fn=again, log=lambda s: None)
    assert again.calls == [names[5]]


def test_changed_options_do_not_silently_reuse_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_grid(load_grid(write_grid(tmp_path)), out, train_fn=FakeTrain(), log=lambda s: None)
    changed = write_grid(tmp_path, train={"steps": 5, "batch_size": 4, "train_sizes": [5],
                                          "train_samples": 8})
    with pytest.raises(GridError, match="steps"):
        run_grid(load_grid(changed), out, train_fn=FakeTrain(), log=lambda s: None)


def test_report_has_table2_layout_and_figures(tmp_path: Path) -> None:
    grid = load_grid(write_grid(tmp_path))
    out = tmp_path / "out"
    report = run_grid(grid, out, train_fn=FakeTrain(), log=lambda s: None)
    md = (out / "results.md").read_text()
    assert "| Arch. | Searching seq. | Searching par. | Sorting seq. | Sorting par. |" in md
    # seeds 0, 1: sequential 0.50, 0.51 -> 50.5% ± 0.7; parallel 90.5% ± 0.7, in bold
    row = next(line for line in md.splitlines() if line.startswith("| mpnn |"))
    assert row.count("50.5% ± 0.7") == 2 and row.count("**90.5% ± 0.7**") == 2
    cell = report["table"]["8"]["pgn"]["Sorting/parallel"]
    assert cell["n"] == 2 and cell["mean"] == pytest.approx(0.905)
    assert report["time_ratio"]["8"]["Sorting"]["mpnn"] == pytest.approx(3.0)
    for name in report["figures"].values():
        assert (out / name).stat().st_size > 0
    assert {"time_ratio_h8", "curves_searching_h8", "curves_sorting_h8"} <= set(report["figures"])
    saved = json.loads((out / "results.json").read_text())
    assert saved["finished"] == 16 and len(saved["runs"]) == 16
    # which model produced the numbers (the fake runs name none: dm-clrs's, as old runs)
    assert "model: backend clrs." in md


@pytest.mark.slow
def test_real_grid_then_resume(tmp_path: Path) -> None:
    """A real (tiny) grid through the CLI; deleting a result redoes just that run."""
    grid_path = write_grid(tmp_path, tasks=[{"name": "Searching", "sequential": "binary_search",
                                             "parallel": "minimum"}],
                           processors=["mpnn"], seeds=[0])
    app = typer.Typer()
    register(app)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "2/2 runs finished" in r.stdout
    runs = sorted((out / "runs").iterdir())
    first = json.loads((runs[0] / "result.json").read_text())
    stamp = (runs[1] / "result.json").stat().st_mtime_ns
    (runs[0] / "result.json").unlink()
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0, r.stderr
    assert "1 done, 1 to go" in r.stderr
    assert (runs[1] / "result.json").stat().st_mtime_ns == stamp, "finished run not redone"
    redone = json.loads((runs[0] / "result.json").read_text())
    assert redone["test"] == first["test"], "same seed, same numbers"
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out), "--dry-run"])
    assert r.stdout.count("done") == 2


@pytest.mark.parametrize("name", ["paper.yaml", "cpu-small.yaml"])
def test_shipped_grids_parse(name: str) -> None:
    grid = load_grid(ROOT / "experiments" / name)
    stems = {Path(s).stem for t in grid.tasks for s in (t.sequential, t.parallel)}
    assert stems == {"binary_search", "parallel_search", "bubble_sort", "oets", "kosaraju", "dcsc"}
    assert [t.name for t in grid.tasks] == ["Searching", "Sorting", "SCC"]
    for t in grid.tasks:
        assert Path(t.sequential).resolve().parent == ROOT / "algorithms"
    if name == "paper.yaml":
        assert grid.processors == ["deepsets", "gat", "mpnn", "pgn"]
        assert sorted(grid.hidden) == [8, 32, 128] and len(grid.seeds) == 3
        cfg = plan(grid, Path("/tmp/x"))[0].config
        assert (cfg.steps, cfg.batch_size, cfg.train_sizes, cfg.val_size, cfg.test_size) == (
            2000, 32, (4, 7, 11, 13, 16), 16, 64)


def test_the_gpu_window_grid_is_the_papers_sorting_and_scc_rows() -> None:
    """experiments/paper-sorting-scc.yaml (what `scripts/gpu-window` runs) is paper.yaml's
    protocol, restricted to Sorting and SCC at hidden 128 on algspec's backend."""
    paper = plan(load_grid(ROOT / "experiments" / "paper.yaml"), Path("/tmp/x"))
    gpu = plan(load_grid(ROOT / "experiments" / "paper-sorting-scc.yaml"), Path("/tmp/x"))
    rows = {"bubble_sort", "oets", "kosaraju", "dcsc"}
    want = {r.dir.name: r.config.to_dict() for r in paper
            if r.config.hidden == 128 and Path(r.config.algorithm).stem in rows}
    got = {r.dir.name: r.config.to_dict() for r in gpu}
    assert len(got) == 48 and set(got) == set(want)
    for name, cfg in got.items():
        assert cfg == {**want[name], "backend": "algspec"}, name


# --- variants (the parallel-search gap) ---------------------------------------------------


def test_variants_plan_and_report_against_the_reference(tmp_path: Path) -> None:
    path = write_grid(tmp_path, tasks=[], processors=["mpnn", "pgn"], seeds=[0, 1],
                      variants_title="Parallel search",
                      reference={"label": "paper", "score": 1.0},
                      variants=[
                          {"name": "a", "algorithm": "minimum", "note": "first"},
                          {"name": "b", "algorithm": "insertion_sort", "processors": ["gat_full"],
                           "train": {"steps": 3}},
                      ])
    grid = load_grid(path)
    runs = plan(grid, tmp_path / "out")
    # seeds outermost, then variants in file order, each with its own processors
    assert [r.dir.name for r in runs] == [
        "a_mpnn_h8_s0", "a_pgn_h8_s0", "b_gat_full_h8_s0",
        "a_mpnn_h8_s1", "a_pgn_h8_s1", "b_gat_full_h8_s1"]
    assert runs[2].config.steps == 3 and runs[0].config.steps == 2
    report = run_grid(grid, tmp_path / "out", train_fn=FakeTrain(), log=lambda s: None)
    md = (tmp_path / "out" / "results.md").read_text()
    assert "## Parallel search" in md and "Reference: paper, 100.0%" in md
    row_a = next(line for line in md.splitlines() if line.startswith("| a |"))
    # FakeTrain scores `minimum` 0.90 + 0.01 * seed: seeds 0, 1 -> 90.5% ± 0.7, Δ -9.5
    assert row_a.count("90.5% ± 0.7 (n=2)") == 2 and "| -9.5 |" in row_a and "first" in row_a
    assert report["variants"]["8"]["b"]["gat_full"]["n"] == 2
    assert "## Hidden size" not in md, "no task tables without tasks"


@pytest.mark.parametrize(("over", "message"), [
    ({"variants": [{"name": "a"}]}, "needs name and algorithm"),
    ({"variants": [{"name": "a b", "algorithm": "minimum"}]}, "name"),
    ({"variants": [{"name": "a", "algorithm": "minimum"}] * 2}, "duplicate"),
    ({"variants": [{"name": "a", "algorithm": "minimum", "train": {"hidden": 4}}]}, "hidden"),
    ({"variants": [{"name": "a", "algorithm": "minimum", "processors": ["nope"]}]}, "nope"),
    ({"reference": {"label": "x"}}, "numeric score"),
])
def test_bad_variants_are_rejected(tmp_path: Path, over: dict, message: str) -> None:
    with pytest.raises(GridError, match=message):
        load_grid(write_grid(tmp_path, **over))


def test_parallel_search_variants_grid_and_files() -> None:
    """The shipped variants: paper protocol, one change each, same answers as the shipped file."""
    import numpy as np

    import algspec

    grid = load_grid(ROOT / "experiments" / "parallel-search-variants.yaml")
    cfg = plan(grid, Path("/tmp/x"))[0].config
    assert (cfg.hidden, cfg.steps, cfg.train_sizes, cfg.val_size, cfg.test_size) == (
        128, 2000, (4, 7, 11, 13, 16), 16, 64)
    assert grid.seeds == [0, 1, 2] and grid.reference["score"] == 1.0
    shipped = algspec.load(str(ROOT / "algorithms" / "parallel_search.alg"))
    base = shipped.sample(16, 64, 5)
    answer = base.outputs["rank"]
    names = set()
    for v in grid.variants:
        if not v.algorithm.endswith(".alg"):
            continue
        alg = algspec.load(v.algorithm)
        names.add(alg.name)
        t = alg.sample(16, 64, 5)
        out = t.outputs["rank"]
        got = out.argmax(-1) if out.ndim == 2 else out
        np.testing.assert_array_equal(got, answer, err_msg=v.name)
    assert len(names) == len({v.algorithm for v in grid.variants}), "each file its own name"
    # the `<=` variant is not in the grid because its data are the shipped data
    le = algspec.load(str(ROOT / "experiments" / "parallel-search" / "ps_le_mask.alg")).sample(
        16, 64, 5)
    for part in ("inputs", "hints", "outputs"):
        for k, v in getattr(base, part).items():
            np.testing.assert_array_equal(getattr(le, part)[k], v, err_msg=k)
    # frame0_mask: the first frame already holds the final mask
    f0 = algspec.load(str(ROOT / "experiments" / "parallel-search" / "ps_frame0_mask.alg")
                      ).sample(16, 64, 5)
    np.testing.assert_array_equal(f0.hints["below"][0], base.hints["below"][-1])
    assert not base.hints["below"][0].any()


# --- parallel launchers (--jobs, Ray) --------------------------------------------------------

FAKE_WORKER = '''
import json, os, signal, sys, time
from pathlib import Path
out = Path(sys.argv[sys.argv.index("--out") + 1]); cfg = json.loads(sys.argv[-1])
out.mkdir(parents=True, exist_ok=True)
log = Path(os.environ["FAKE_LOG"])
start = time.time()
die = os.environ.get("FAKE_DIE", "")
marker = log.parent / ("died_" + out.name)
(out / "config.json").write_text(json.dumps(cfg))
if out.name.startswith(die) and die and (os.environ.get("FAKE_DIE_ALWAYS") or not marker.exists()):
    marker.write_text("x")
    os.kill(os.getpid(), signal.SIGKILL)
time.sleep(0.4)
res = {"algorithm": cfg["algorithm"], "processor": cfg["processor"], "hidden": cfg["hidden"],
       "seed": cfg["seed"], "steps": cfg["steps"], "device": "fake",
       "val": {"score": 0.5, "per_output": {}}, "test": {"score": 0.5, "per_output": {}, "size": 6}}
(out / "result.json").write_text(json.dumps(res))
with open(log, "a") as f:
    f.write(json.dumps([out.name, start, time.time(),
                        os.environ.get("XLA_PYTHON_CLIENT_MEM_FRACTION")]) + "\\n")
'''


def _fake_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> list[str]:
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE_WORKER)
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.delenv("XLA_PYTHON_CLIENT_MEM_FRACTION", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    import sys

    return [sys.executable, str(script)]


def _calls(tmp_path: Path) -> list[list]:
    path = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_jobs_run_side_by_side_and_a_dead_worker_is_retried(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = _fake_worker(tmp_path, monkeypatch, FAKE_DIE="minimum_mpnn_h8_s0")
    grid = load_grid(write_grid(tmp_path, backend="clrs"))  # one run per worker process
    out = tmp_path / "out"
    logs: list[str] = []
    report = run_grid(grid, out, jobs=4, worker_cmd=cmd, log=logs.append)
    assert report["finished"] == report["total"] == 16 and not report["failures"]
    calls = _calls(tmp_path)
    assert len(calls) == 16 and {c[3] for c in calls} == {"0.225"}, "each its share of memory"
    assert (tmp_path / "died_minimum_mpnn_h8_s0").exists()
    assert any("minimum_mpnn_h8_s0: worker died (SIGKILL); retrying" in s for s in logs)
    spans = sorted((c[1], c[2]) for c in calls)
    overlap = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert overlap >= 2, "runs ran side by side"


def test_a_worker_that_keeps_dying_leaves_its_run_todo(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = _fake_worker(tmp_path, monkeypatch, FAKE_DIE="bubble_sort", FAKE_DIE_ALWAYS="1")
    grid = load_grid(write_grid(tmp_path, backend="clrs"))  # one run per worker process
    out = tmp_path / "out"
    report = run_grid(grid, out, jobs=3, retries=1, worker_cmd=cmd, log=lambda s: None)
    dead = [r for r in plan(grid, out) if not r.done]
    assert {r.dir.name.split("_")[0] for r in dead} == {"bubble"} and len(dead) == 4
    assert len(report["failures"]) == 4 and all("SIGKILL" in f for f in report["failures"])
    assert report["finished"] == 12
    monkeypatch.delenv("FAKE_DIE_ALWAYS")
    (tmp_path / "calls.jsonl").unlink()
    for m in tmp_path.glob("died_*"):
        m.unlink()
    monkeypatch.setenv("FAKE_DIE", "none")
    again = run_grid(grid, out, jobs=3, worker_cmd=cmd, log=lambda s: None)
    assert again["finished"] == 16 and sorted(c[0] for c in _calls(tmp_path)) == sorted(
        r.dir.name for r in dead), "the rerun trains only the runs left todo"


@pytest.mark.slow
def test_real_tiny_grid_with_jobs(tmp_path: Path) -> None:
    """Two real (tiny) runs in two worker processes through the CLI."""
    grid_path = write_grid(tmp_path, tasks=[{"name": "Searching", "sequential": "binary_search",
                                             "parallel": "minimum"}],
                           processors=["mpnn"], seeds=[0])
    app = typer.Typer()
    register(app)
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["experiment", str(grid_path), "--out", str(out), "--jobs", "2"])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "2/2 runs finished" in r.stdout and "(local, 2 at a time)" in r.stderr
    for run in (out / "runs").iterdir():
        res = json.loads((run / "result.json").read_text())
        assert 0.0 <= res["test"]["score"] <= 1.0 and (run / "checkpoint.pkl").is_file()


def test_cli_rejects_address_without_ray(tmp_path: Path) -> None:
    app = typer.Typer()
    register(app)
    r = CliRunner().invoke(app, ["experiment", str(write_grid(tmp_path)), "--address", "auto"])
    assert r.exit_code == 2 and "--address needs --launcher ray" in r.stderr
    r = CliRunner().invoke(app, ["experiment", str(write_grid(tmp_path)), "--launcher", "mpi"])
    assert r.exit_code == 2 and "unknown launcher 'mpi'" in r.stderr


def test_report_only_without_runs_is_a_usage_error(tmp_path: Path) -> None:
    app = typer.Typer()
    register(app)
    out = tmp_path / "nowhere"
    r = CliRunner().invoke(app, ["experiment", str(write_grid(tmp_path)), "-o", str(out),
                                 "--report-only"])
    assert r.exit_code == 2 and "no runs to report" in r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert not out.exists()


@pytest.fixture(scope="module")
def local_ray(ray_cluster: str):
    ray = pytest.importorskip("ray")
    import sys

    # Ray pickles functions of importable modules by reference; the workers
    # cannot import this test module, so ship its helpers (FakeTrain) by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(address=ray_cluster, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_real_tiny_run(tmp_path: Path, local_ray) -> None:
    """One real (tiny) run as a Ray task: its files come back whole to the run folder."""
    grid = load_grid(write_grid(tmp_path, tasks=[], processors=["mpnn"], seeds=[0],
                                variants=[{"name": "v", "algorithm": "minimum"}]))
    out = tmp_path / "out"
    report = run_grid(grid, out, launcher="ray", log=lambda s: None)
    assert report["finished"] == 1 and not report["failures"]
    for run in plan(grid, out):
        res = json.loads((run.dir / "result.json").read_text())
        assert res["processor"] == "mpnn" and 0.0 <= res["test"]["score"] <= 1.0
        saved = json.loads((run.dir / "config.json").read_text())
        assert saved == run.config.to_dict()
        assert (run.dir / "checkpoint.pkl").is_file() and (run.dir / "metrics.jsonl").is_file()


def test_ray_retries_a_dead_worker_and_reports_a_failed_run(tmp_path: Path, local_ray) -> None:
    import os

    marker = tmp_path / "died"
    fake = FakeTrain()

    def flaky(config: TrainConfig, out: Path, progress: bool = True) -> dict:
        if config.seed == 0 and config.algorithm == "minimum" and not marker.exists():
            marker.write_text("x")
            os._exit(1)  # the worker process dies mid-run
        if config.algorithm == "bubble_sort":
            raise ValueError("bad run")
        return fake(config, out, progress)

    grid = load_grid(write_grid(tmp_path))
    out = tmp_path / "out"
    report = run_grid(grid, out, launcher="ray", jobs=2, retries=1, train_fn=flaky,
                      log=lambda s: None)
    assert marker.exists()
    assert len(report["failures"]) == 4 and all("ValueError: bad run" in f
                                                for f in report["failures"])
    assert report["finished"] == 12
    assert all(r.done == (r.config.algorithm != "bubble_sort") for r in plan(grid, out))


def test_only_trains_the_matching_runs(tmp_path: Path) -> None:
    grid = load_grid(write_grid(tmp_path))
    out = tmp_path / "out"
    fake = FakeTrain()
    logs: list[str] = []
    report = run_grid(grid, out, train_fn=fake, log=logs.append, only=["minimum_*_s1", "x*"])
    assert sorted(fake.calls) == ["minimum_mpnn_h8_s1", "minimum_pgn_h8_s1"]
    assert report["finished"] == 2 and "16 to go, 2 of them now" in logs[0]


def test_a_remote_worker_without_our_files_gets_the_sources(tmp_path: Path) -> None:
    """A Ray node without the driver's folder trains from the shipped .alg text."""
    from algspec.training.launch import _train_remote, write_run_files

    seen: dict[str, str] = {}

    def fake(config: TrainConfig, out: Path, progress: bool = True) -> dict:
        seen["text"] = Path(config.algorithm).read_text()
        out.mkdir(parents=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        (out / "result.json").write_text("{}")
        return {}

    cfg = TrainConfig(algorithm="../../algs/a.alg").to_dict()
    (files,) = _train_remote([cfg], {"../../algs/a.alg": "algorithm a\n"},
                             str(tmp_path / "not-here"), fake)
    assert seen["text"] == "algorithm a\n"
    assert json.loads(files["config.json"])["algorithm"] == "../../algs/a.alg"
    write_run_files(tmp_path / "run", files)
    assert (tmp_path / "run" / "result.json").read_text() == "{}"
    with pytest.raises(ValueError, match="no result.json"):
        write_run_files(tmp_path / "run2", {"config.json": b"{}"})
    assert not (tmp_path / "run2" / "result.json").exists()
