"""Ctrl-C in a long command: held back while compiled code runs, one `interrupted:` line.

The first Ctrl-C prints nothing of its own (the command prints the one line when it
stops); an exception raised while it is pending (a compiler killed by the same
Ctrl-C) is the interrupt, not a failure, so a grid stops instead of recording the run
as failed; once a command's results are written, a Ctrl-C is ignored.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from algspec.cli import app
from algspec.process.interrupts import DeferredInterrupt


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def _sigint() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.1)


def test_the_first_ctrl_c_prints_nothing_and_stops_at_the_outermost_hold(
        capfd: pytest.CaptureFixture[str]) -> None:
    notes: list[str] = []
    guard = DeferredInterrupt("the step", on_pending=lambda: notes.append("stopping"))
    reached = []
    with pytest.raises(KeyboardInterrupt), guard.hold():
        with guard.hold():  # a nested hold (a validation batch) does not stop the step
            _sigint()
        reached.append("after the inner hold")
    assert reached and notes == ["stopping"]
    assert capfd.readouterr().err == "", "the command prints the one line, not the guard"


def test_an_exception_while_an_interrupt_is_pending_is_the_interrupt() -> None:
    guard = DeferredInterrupt("the step")

    class JaxRuntimeError(RuntimeError):
        """Stands in for jax's error when XLA's compiler is killed by the same Ctrl-C."""

    with pytest.raises(KeyboardInterrupt) as stop, guard.hold():
        _sigint()
        raise JaxRuntimeError("INTERNAL: ptxas exited with non-zero error code 2")
    assert isinstance(stop.value.__cause__, JaxRuntimeError)
    with pytest.raises(ValueError), guard.hold():  # no Ctrl-C: an error stays an error
        raise ValueError("a real failure")


def test_a_run_failing_because_of_ctrl_c_stops_the_grid_unrecorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []

    def compiler_killed(config, out, progress=True):
        started.append(out.name)
        _sigint()  # the grid's own handler records it; the compiler dies of it
        raise RuntimeError("INTERNAL: ptxas exited with non-zero error code 2")

    monkeypatch.setattr("algspec.training.trainer.train", compiler_killed)
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": [0, 1],
        "tasks": [{"name": "T", "sequential": "binary_search", "parallel": "minimum"}]}))
    r = invoke("experiment", grid, "-o", tmp_path / "out")
    assert r.exit_code == 130, (r.stderr, r.exception)
    assert len(started) == 1, "the grid stopped at the interrupted run"
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert lines[-1].startswith("interrupted: grid g stopped: 0 of 4 runs done, 4 left")
    assert "starts from step 0" in lines[-1]
    assert "RuntimeError" not in r.stderr and not any(x.startswith("failed") for x in lines)
    assert not r.stderr.startswith("\n")


def test_ctrl_c_after_the_result_is_written_is_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`train` returned: a Ctrl-C while the command prints and Python tears down (XLA's gc
    callbacks) lands on SIG_IGN, not in a traceback; in-process the handler is restored."""
    def done(config, out, **kwargs):
        out.mkdir(parents=True)
        res = {"algorithm": "binary_search", "seconds_per_step": 0.001, "device": "cpu",
               "val": {"score": 1.0, "metric": "micro_f1", "mse": None, "per_output": {}},
               "test": {"score": 1.0, "metric": "micro_f1", "mse": None, "per_output": {}}}
        (out / "result.json").write_text(json.dumps(res))
        return res

    monkeypatch.setattr("algspec.training.trainer.train", done)
    before = signal.getsignal(signal.SIGINT)
    r = invoke("train", "binary_search", "--hidden", 8, "--out", tmp_path / "run",
               "--no-progress")
    assert r.exit_code == 0, (r.stderr, r.exception)
    assert signal.getsignal(signal.SIGINT) is before, "in-process: the handler is restored"


def test_ignore_from_now_ignores_sigint() -> None:
    from algspec.process.interrupts import ignore_from_now

    before = signal.getsignal(signal.SIGINT)
    try:
        ignore_from_now()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        _sigint()  # nothing happens
    finally:
        signal.signal(signal.SIGINT, before)
