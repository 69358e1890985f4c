"""Ctrl-C anywhere: one `interrupted: ...` line saying what stopped, what is left and the
command that resumes or restarts it; exit 130; no traceback, never an internal error.

Most cases raise KeyboardInterrupt from a stand-in for the slow part, in process;
one test interrupts a real `algspec train` while XLA compiles (once a segfault).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
SEARCH = ROOT / "algorithms" / "parallel_search.alg"


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_interrupt_line(r, *fragments: str, log_before: bool = False) -> str:
    """Exit 130 and one stderr line, `interrupted: ...`, naming `fragments`: the only line,
    or with `log_before` the last one after the command's own log lines."""
    assert r.exit_code == 130, (r.exit_code, r.output, r.exception)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert [x for x in lines if x.startswith("interrupted: ")] == lines[-1:], r.stderr
    assert log_before or len(lines) == 1, r.stderr
    assert "Traceback" not in r.output and "internal error" not in r.stderr
    for f in fragments:
        assert f in lines[-1], (f, lines[-1])
    return lines[-1]


def _raise_interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_lint_and_compile_say_what_to_rerun(monkeypatch: pytest.MonkeyPatch) -> None:
    import algspec.lint

    monkeypatch.setattr(algspec.lint, "lint_files", _raise_interrupt)
    one_interrupt_line(invoke("lint", SEARCH, "--no-sample"), "algspec lint stopped",
                       f"`algspec lint {SEARCH} --no-sample` again")
    monkeypatch.setattr("algspec.cli._length_summary", _raise_interrupt)
    one_interrupt_line(invoke("compile", SEARCH), f"`algspec compile {SEARCH}` again")


def test_an_interrupt_a_library_wrapped_is_not_an_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """pydantic turns a KeyboardInterrupt during schema building into a SchemaError (no
    exception chain): SIGINT came, so it is an interrupt, not a bug to report."""

    def wrapped(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            pass
        raise RuntimeError("SchemaError: error building a schema: KeyboardInterrupt")

    def bug(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("algspec.cli._length_summary", wrapped)
    one_interrupt_line(invoke("compile", SEARCH), "algspec compile stopped")
    monkeypatch.setattr("algspec.cli._length_summary", bug)  # no SIGINT: a bug stays a bug
    r = invoke("compile", SEARCH)
    assert r.exit_code != 130 and "interrupted" not in r.stderr
    assert isinstance(r.exception, RuntimeError)


def test_sample_leaves_nothing_and_says_how_to_start_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("algspec.sampling.dataset.sample_dataset", _raise_interrupt)
    out = tmp_path / "ds"
    one_interrupt_line(invoke("sample", SEARCH, "-n", 8, "-k", 5, "--out", out),
                       "sampling 5 samples of parallel_search at n=8 stopped",
                       f"nothing was written to {out}",
                       f"`algspec sample {SEARCH} --length 8 --num 5 --seed 0 --out {out}`")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_text_leaves_nothing_and_says_how_to_start_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("algspec.text.records.text_records", _raise_interrupt)
    out = tmp_path / "t.jsonl"
    one_interrupt_line(invoke("text", SEARCH, "-n", 8, "-k", 5, "--out", out),
                       "writing 5 text records of parallel_search stopped",
                       "nothing was written to",
                       f"`algspec text {SEARCH} --length 8 --num 5 --seed 0 --out {out}`")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_train_interrupted_then_eval_says_unfinished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.training import trainer
    from algspec.training.runs import TrainingInterrupted

    def stopped(config, out, **kwargs):
        out = Path(out)
        out.mkdir(parents=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        (out / "metrics.jsonl").write_text(json.dumps({"step": 2}) + "\n")
        raise TrainingInterrupted(out, 3, config.steps)

    monkeypatch.setattr(trainer, "train", stopped)
    out = tmp_path / "run"
    line = one_interrupt_line(
        invoke("train", SEARCH, "--steps", 10, "--hidden", 8, "--out", out),
        "training of", "stopped after step 3 of 10", f"the run folder {out} is unfinished")
    restart = line.split("start it again with `")[1].rstrip("`")
    assert restart.startswith(f"algspec train {SEARCH} --processor mpnn --hidden 8 --steps 10")
    assert restart.endswith(f"--out {out}") and "--overwrite" not in restart

    r = invoke("eval", out)
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "is an unfinished run (validated up to step 3)" in r.stderr
    assert f"to finish it, run `{restart}`" in r.stderr

    monkeypatch.setattr(trainer, "train", _raise_interrupt)  # still loading data
    fresh = tmp_path / "fresh"
    one_interrupt_line(invoke("train", SEARCH, "--out", fresh), "before its first step",
                       f"nothing was written to {fresh}")


def test_eval_interrupted_changes_nothing(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("algspec.training.trainer.evaluate_run", _raise_interrupt)
    one_interrupt_line(invoke("eval", tmp_path, "--test-size", 12),
                       f"eval of {tmp_path} at n=12 stopped", "nothing was written",
                       f"`algspec eval {tmp_path} --test-size 12` again")


def test_experiment_interrupted_counts_runs_and_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def fake(config, out, progress=True):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(out.name)
        out.mkdir(parents=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        (out / "result.json").write_text(json.dumps({"val": {"score": 1.0},
                                                     "test": {"score": 1.0, "size": 6}}))
        return {}

    monkeypatch.setattr("algspec.training.trainer.train", fake)
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": [0, 1],
        "tasks": [{"name": "T", "sequential": "binary_search", "parallel": "minimum"}]}))
    out = tmp_path / "out"
    r = invoke("experiment", grid, "-o", out, "--jobs", 1)
    line = one_interrupt_line(r, "grid g stopped: 2 of 4 runs done, 2 left",
                              f"rerun the same command to resume: `algspec experiment {grid} "
                              f"-o {out}`", log_before=True)
    assert line.endswith(f"-o {out}`")
    calls.append("resumed")
    r = invoke("experiment", grid, "-o", out)
    assert r.exit_code == 0 and "4/4 runs finished" in r.stdout
    assert len(calls) == 5, calls  # two before, the marker, the two left


def test_deferred_interrupt_waits_for_compiled_code_and_a_second_stops_at_once() -> None:
    """Inside `hold()` Ctrl-C is raised only when the block ends; a second one exits 130
    at once with the caller's line (run in a child: it ends the process)."""
    from algspec.training.runs import DeferredInterrupt

    guard = DeferredInterrupt("the step")
    finished = False
    with pytest.raises(KeyboardInterrupt), guard.hold():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
        finished = True
    assert finished, "the held block ran to its end"

    child = (
        "import os, signal, time\n"
        "from algspec.training.runs import DeferredInterrupt\n"
        "g = DeferredInterrupt('the step', on_force=lambda: 'run folder r is unfinished')\n"
        "with g.hold():\n"
        "    os.kill(os.getpid(), signal.SIGINT); time.sleep(0.2)\n"
        "    os.kill(os.getpid(), signal.SIGINT); time.sleep(5)\n"
        "print('not reached')\n")
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                       timeout=60, cwd=ROOT, check=False)
    assert p.returncode == 130 and "not reached" not in p.stdout
    assert "interrupted: run folder r is unfinished" in p.stderr


TINY = ["--hidden", "8", "--steps", "50", "--batch-size", "4", "--train-sizes", "4",
        "--val-size", "4", "--test-size", "5", "--train-samples", "8", "--val-samples", "8",
        "--test-samples", "8", "--eval-every", "10"]


@pytest.mark.slow
def test_ctrl_c_while_a_real_train_compiles(tmp_path: Path) -> None:
    """SIGINT as soon as the run folder exists (the model is being compiled): one line,
    exit 130, no crash; the folder is unfinished and `eval` says how to finish it."""
    out = tmp_path / "run"
    env = {**os.environ, "ALGSPEC_JAX_CACHE": "off"}  # compile for real, every time
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "algspec"), "train", str(SEARCH),
                             *TINY, "--out", str(out)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not (out / "config.json").exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "train never wrote its run folder"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, (proc.returncode, stderr)
    assert "Traceback" not in stderr and "internal error" not in stderr
    lines = [x for x in stderr.splitlines() if x.startswith("interrupted: ")]
    assert len(lines) == 1 and f"the run folder {out} is unfinished" in lines[0], stderr
    assert "resumes at step" in lines[0] or "starts again from step 0" in lines[0]
    assert "interrupt: stopping" not in stderr and not stderr.startswith("\n"), stderr
    assert not (out / "result.json").exists()
    r = invoke("eval", out)
    assert r.exit_code == 2 and "unfinished run" in r.stderr and "algspec train" in r.stderr
