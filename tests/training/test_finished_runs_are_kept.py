"""A run folder with a complete result.json is done, whatever became of its worker: a
worker killed just after writing it is not retried, and nothing that starts a run (a
retry, the worker, `train` itself) deletes a finished run unless told to."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from algspec.training.config import TrainConfig
from algspec.training.experiment import RunSpec

# Writes a complete result.json and a checkpoint, says `done:`, then is killed (SIGKILL),
# as a worker killed between its last write and its exit. Every start is logged.
KILLED_AFTER_RESULT = r'''
import json, os, signal, sys
from pathlib import Path
out = Path(sys.argv[sys.argv.index("--out") + 1])
with open(os.environ["STARTS"], "a") as f:
    f.write(out.name + "\n")
if (out / "checkpoint.pkl").exists():  # a start-up that would retrain: wipe, as train() did
    (out / "result.json").unlink(missing_ok=True)
    (out / "checkpoint.pkl").unlink()
out.mkdir(parents=True, exist_ok=True)
(out / "checkpoint.pkl").write_bytes(b"best parameters")
res = {"val": {"score": 0.75, "metric": "micro_f1", "mse": None},
       "test": {"score": 0.5, "metric": "micro_f1", "mse": None}}
tmp = out / "result.json.tmp"
tmp.write_text(json.dumps(res))
os.replace(tmp, out / "result.json")
print("done: val micro-F1 0.7500, test micro-F1 0.5000", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
'''


def _run(tmp_path: Path, name: str) -> RunSpec:
    # dm-clrs's backend: one run per worker process (algspec's groups a cell's seeds)
    config = TrainConfig(algorithm="binary_search", hidden=8, steps=2, seed=0, backend="clrs")
    return RunSpec("T", "sequential", "mpnn", 8, 0, config, tmp_path / "runs" / name)


def _worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    script = tmp_path / "killed_after_result.py"
    script.write_text(KILLED_AFTER_RESULT)
    monkeypatch.setenv("STARTS", str(tmp_path / "starts.txt"))
    return [sys.executable, str(script)]


def _starts(tmp_path: Path) -> list[str]:
    path = tmp_path / "starts.txt"
    return path.read_text().split() if path.exists() else []


def test_a_worker_killed_after_its_result_is_done_not_retried(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.training.launch import run_local

    cmd = _worker(tmp_path, monkeypatch)
    runs = [_run(tmp_path, "a"), _run(tmp_path, "b")]
    logs: list[str] = []
    outcomes = run_local(runs, 2, logs.append, retries=2, worker_cmd=cmd)
    assert all(o.ok for o in outcomes), [o.error for o in outcomes]
    assert sorted(_starts(tmp_path)) == ["a", "b"], "one start per run: no retry"
    assert not any("retrying" in line for line in logs), logs
    for r in runs:
        assert json.loads((r.dir / "result.json").read_text())["test"]["score"] == 0.5
        assert (r.dir / "checkpoint.pkl").read_bytes() == b"best parameters"
        assert "done: val micro-F1" in (r.dir / "worker.log").read_text()
    assert sum("] done " in line and "test micro-F1 0.5000" in line for line in logs) == 2


def test_a_finished_folder_is_never_started_again(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.training.launch import run_local

    cmd = _worker(tmp_path, monkeypatch)
    run = _run(tmp_path, "a")
    run_local([run], 1, lambda s: None, worker_cmd=cmd)
    before = (run.dir / "result.json").read_text()
    outcomes = run_local([run], 1, lambda s: None, retries=3, worker_cmd=cmd)
    assert outcomes[0].ok and outcomes[0].attempts == 0
    assert _starts(tmp_path) == ["a"], "the finished run was not started again"
    assert (run.dir / "result.json").read_text() == before
    assert (run.dir / "checkpoint.pkl").is_file()


def test_an_incomplete_result_is_not_done(tmp_path: Path) -> None:
    from algspec.training.runs import is_finished

    run = tmp_path / "r"
    run.mkdir()
    (run / "result.json").write_text('{"val": {"score": 0.5}')  # cut short
    assert not is_finished(run) and not _run(tmp_path, "r").done
    (run / "result.json").write_text('{"val": {"score": 0.5}, "test": {"score": 0.25}}')
    assert is_finished(run)


def test_train_and_the_worker_keep_a_finished_run(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    from algspec.training.runs import RunExistsError
    from algspec.training.trainer import train
    from algspec.training.worker import main as worker_main

    out = tmp_path / "run"
    out.mkdir()
    result = {"val": {"score": 0.75}, "test": {"score": 0.5, "metric": "micro_f1"}}
    (out / "result.json").write_text(json.dumps(result))
    (out / "checkpoint.pkl").write_bytes(b"best parameters")
    config = TrainConfig(algorithm="binary_search", hidden=8, steps=2)
    with pytest.raises(RunExistsError, match="finished run .*micro-F1 0.5000"):
        train(config, out, progress=False)
    assert worker_main(["--out", str(out), json.dumps(config.to_dict())]) == 0
    assert "done (already): val micro-F1 0.7500, test micro-F1 0.5000" in capsys.readouterr().out
    assert json.loads((out / "result.json").read_text()) == result
    assert (out / "checkpoint.pkl").read_bytes() == b"best parameters"


def test_ray_keeps_a_run_finished_elsewhere(tmp_path: Path, ray_cluster: str) -> None:
    """The Ray launcher neither trains nor overwrites a folder that holds a finished run,
    and a task that dies after another process finished its run counts as done."""
    ray = pytest.importorskip("ray")
    from algspec.training.launch import run_ray

    done, dies = _run(tmp_path, "done"), _run(tmp_path, "dies")
    done.dir.mkdir(parents=True)
    kept = json.dumps({"val": {"score": 0.75}, "test": {"score": 0.5}})
    (done.dir / "result.json").write_text(kept)
    flag = str(dies.dir / "result.json")

    def train_fn(config: TrainConfig, out: Path, progress: bool = True) -> dict:
        import os
        from pathlib import Path as P
        P(flag).parent.mkdir(parents=True, exist_ok=True)
        P(flag).write_text(kept)  # another process finishes the run meanwhile ...
        os._exit(1)  # ... and this worker dies

    ray.init(address=ray_cluster, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        outcomes = run_ray([done, dies], lambda s: None, retries=0, train_fn=train_fn)
    finally:
        ray.shutdown()
    assert [o.ok for o in outcomes] == [True, True], [o.error for o in outcomes]
    assert (done.dir / "result.json").read_text() == kept
