"""A stopped run resumes from its last checkpoint and ends with the uninterrupted result.

The run is stopped by SIGKILL (a worker killed, a GPU window ending) or by Ctrl-C in the
middle of its steps; running it again prints `resumed from step K`, records
`resumed_from`, and its result.json, metrics and best step equal those of a run that
was never stopped (on the CPU, exactly). A finished folder carries no checkpoint.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from algspec.training.config import TrainConfig
from tests.support.small_programs import PREFIX_MAX

ROOT = Path(__file__).resolve().parents[2]


# Timing and the resume record differ between a resumed and an uninterrupted run.
NOT_COMPARED = {"train_seconds", "seconds_per_step", "seconds_per_step_by_size",
                "first_steps_seconds", "compile_seconds", "trace_seconds",
                "compiled_programs", "test_seconds", "resumed_from", "memory_plan"}

# Run in a child: train with `step` patched to SIGKILL the process in its 5th step
# (after the checkpoint of step 4), as `kill -9` would mid-run.
KILLED_IN_STEP_5 = """
import json, os, signal, sys
from algspec.training import trainer
from algspec.training.config import TrainConfig

step = trainer._Trainer.step
calls = []

def dying(self, keys, feedbacks):
    calls.append(1)
    if len(calls) == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return step(self, keys, feedbacks)

trainer._Trainer.step = dying
configs = [TrainConfig.from_dict(c) for c in json.loads(sys.argv[1])]
trainer.train_seeds(configs, sys.argv[2:], progress=False, checkpoint_every=%d)
"""


@pytest.fixture(scope="module")
def alg(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("alg") / "prefix_max_doubling.alg"
    path.write_text(PREFIX_MAX)
    return str(path)


@pytest.fixture(scope="module")
def whole(alg: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """The uninterrupted run of `_config(alg)`: its result and folder."""
    from algspec.training.trainer import train

    out = tmp_path_factory.mktemp("whole") / "run"
    return train(_config(alg), out, progress=False), out


def _config(algorithm: str, **kw) -> TrainConfig:
    opts: dict = {"hidden": 8, "steps": 7, "batch_size": 4, "train_sizes": (4, 5),
                  "val_size": 5, "test_size": 6, "train_samples": 8, "val_samples": 8,
                  "test_samples": 8, "eval_batch_size": 8, "eval_every": 3, "seed": 3}
    opts.update(kw)
    return TrainConfig(algorithm=algorithm, **opts)


def _compared(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in NOT_COMPARED}


def _metrics(run: Path) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != "elapsed"}
            for line in (run / "metrics.jsonl").open()]


def _kill_in_step_5(configs: list[TrainConfig], outs: list[Path], every: int = 2) -> None:
    child = subprocess.run(
        [sys.executable, "-c", KILLED_IN_STEP_5 % every,
         json.dumps([c.to_dict() for c in configs]), *map(str, outs)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]


@pytest.mark.slow
def test_a_run_killed_mid_way_resumes_to_the_uninterrupted_result(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], alg: str,
        whole: tuple[dict, Path]) -> None:
    from algspec.training.resume import resume_step
    from algspec.training.trainer import train

    config = _config(alg)
    killed = tmp_path / "killed"
    _kill_in_step_5([config], [killed])
    at = resume_step(killed)
    assert at == 3, "saved after steps 1 and 3 (every 2 steps, as validation is: 0, 2, ...)"
    assert not (killed / "result.json").exists()

    resumed = train(config, killed, progress=False)
    assert f"resumed from step {at} of {config.steps}" in capfd.readouterr().err
    assert resumed["resumed_from"] == [at]
    assert not (killed / "resume.pkl").exists(), "a finished run carries no checkpoint"

    reference, folder = whole
    assert reference["resumed_from"] == []
    assert _compared(resumed) == _compared(reference)
    assert _metrics(killed) == _metrics(folder)
    saved = json.loads((killed / "result.json").read_text())
    assert saved["resumed_from"] == [at] and saved["test"] == reference["test"]


@pytest.mark.slow
def test_seeds_in_one_program_resume_together_after_ctrl_c(tmp_path: Path, alg: str) -> None:
    """Ctrl-C in step 4 of two seeds trained as one vmapped program: each seed's state is
    saved when the step ends, and the rerun continues both from step 4 exactly."""
    from algspec.training import trainer
    from algspec.training.resume import resume_step
    from algspec.training.runs import TrainingInterrupted

    configs = [_config(alg, seed=s, backend="algspec", steps=5) for s in (0, 1)]
    stopped = [tmp_path / "s0", tmp_path / "s1"]
    step = trainer._Trainer.step
    calls: list[int] = []

    def interrupted(self, keys, feedbacks):
        calls.append(1)
        if len(calls) == 4:
            os.kill(os.getpid(), signal.SIGINT)  # held until the step (and its state) is done
        return step(self, keys, feedbacks)

    trainer._Trainer.step = interrupted
    try:
        with pytest.raises(TrainingInterrupted) as stop:
            trainer.train_seeds(configs, stopped, progress=False, checkpoint_every=100)
    finally:
        trainer._Trainer.step = step
    assert stop.value.step == 4 and stop.value.resume_at == 4
    assert [resume_step(d) for d in stopped] == [4, 4]

    resumed = trainer.train_seeds(configs, stopped, progress=False)
    whole = trainer.train_seeds(configs, [tmp_path / "w0", tmp_path / "w1"], progress=False)
    for r, w, d in zip(resumed, whole, ("w0", "w1"), strict=True):
        assert r["resumed_from"] == [4]
        assert _compared(r) == _compared(w)
        assert _metrics(tmp_path / f"s{d[1]}") == _metrics(tmp_path / d)


@pytest.mark.slow
def test_a_grid_killed_mid_run_resumes_that_run(tmp_path: Path, alg: str,
                                                whole: tuple[dict, Path]) -> None:
    """`algspec experiment` killed (SIGKILL) in a run's 5th step: the same command again
    finishes the grid, that run resumed from its checkpoint with the uninterrupted result."""
    from algspec.training.experiment import load_grid, plan, run_grid

    config = _config(alg)
    train_opts = {k: v for k, v in config.to_dict().items()
                  if k not in ("algorithm", "seed", "hidden", "processor")}
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": [3],
        "variants": [{"name": "pm", "algorithm": alg}], "train": train_opts}))
    out = tmp_path / "out"
    child = subprocess.run([sys.executable, "-c", (
        "import os, signal, sys\n"
        "from algspec.training import trainer\n"
        "step = trainer._Trainer.step\n"
        "calls = []\n"
        "def dying(self, keys, feedbacks):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 5:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return step(self, keys, feedbacks)\n"
        "trainer._Trainer.step = dying\n"
        "from algspec.cli import main\n"
        "sys.argv = ['algspec', 'experiment', sys.argv[1], '-o', sys.argv[2],\n"
        "            '--checkpoint-every', '2', '--no-progress']\n"
        "main()\n"), str(grid_file), str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    grid = load_grid(grid_file)
    (run,) = plan(grid, out)
    assert (run.dir / "resume.pkl").is_file() and not run.done

    logs: list[str] = []
    report = run_grid(grid, out, progress=False, log=logs.append)
    assert report["finished"] == 1 and not report["failures"]
    resumed = json.loads((run.dir / "result.json").read_text())
    assert resumed["resumed_from"] == [3]
    assert not (run.dir / "resume.pkl").exists()
    assert {**run.config.to_dict(), "algorithm": alg} == config.to_dict(), \
        "the grid's run is the reference run (its path to the file aside)"
    path_free = {"source", "config_digest"}
    assert ({k: v for k, v in _compared(resumed).items() if k not in path_free}
            == {k: v for k, v in _compared(whole[0]).items() if k not in path_free})
