"""What a run folder's state is, and how to stop a run cleanly (pure Python, no jax).

A run folder is *finished* when it holds a complete `result.json`: written
last and atomically (a temporary file renamed over it), so a file that
parses as a JSON object with a validation and a test score is the whole
result. Whatever happened afterwards (the worker killed just after writing
it, a non-zero exit status), such a folder is done, and nothing that starts a
run deletes it unless told to (`algspec train --overwrite`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

RESULT = "result.json"
CHECKPOINT = "checkpoint.pkl"
CONFIG = "config.json"


class RunExistsError(ValueError):
    """A start-up found a finished run where it would write (it is never deleted silently)."""


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during training: where it stopped, so the caller can say how to start again."""

    def __init__(self, out: Path, step: int, total: int) -> None:
        super().__init__(f"interrupted at step {step} of {total}")
        self.out, self.step, self.total = out, step, total

    @property
    def where(self) -> str:
        """How far the run got, in words: `after step 12 of 2000`, or `while testing`."""
        if self.step >= self.total:
            return f"while testing, after all {self.total} steps"
        return f"after step {self.step} of {self.total}"


def read_result(run_dir: str | Path) -> dict[str, Any] | None:
    """The run's result if its `result.json` is complete, else None."""
    try:
        res = json.loads((Path(run_dir) / RESULT).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(res, dict):
        return None
    for split in ("val", "test"):
        part = res.get(split)
        if not (isinstance(part, dict) and isinstance(part.get("score"), int | float)):
            return None
    return res


def is_finished(run_dir: str | Path) -> bool:
    """True when the folder holds a complete `result.json` (see the module docstring)."""
    return read_result(run_dir) is not None


def describe_unfinished(run_dir: str | Path) -> str:
    """Why a folder is not a finished run, in a few words, for one-line errors."""
    d = Path(run_dir)
    if not d.exists():
        return f"no such run folder: {d}"
    if not d.is_dir():
        return f"{d} is not a run folder (it is a file)"
    if (d / CONFIG).is_file() and not is_finished(d):
        steps = 0
        with contextlib.suppress(OSError):
            lines = (d / "metrics.jsonl").read_text().splitlines()
            with contextlib.suppress(ValueError, KeyError, IndexError, TypeError):
                steps = int(json.loads(lines[-1])["step"]) + 1
        done = f" (validated up to step {steps})" if steps else ""
        return (f"{d} is an unfinished run{done}: its training was interrupted or is still "
                f"running, so it has no {CHECKPOINT} or {RESULT} yet; {finish_hint(d)}")
    return f"{d} is not a run folder (no {CONFIG})"


def finish_hint(run_dir: str | Path) -> str:
    """How to finish (restart) an unfinished run, from its saved config.json."""
    from algspec.training.config import TrainConfig, train_command_line

    d = Path(run_dir)
    try:
        config = TrainConfig.from_dict(json.loads((d / CONFIG).read_text()))
        command = train_command_line(config, str(d))
    except (OSError, ValueError, TypeError):  # a config written by hand or another version
        command = None
    if command is None and d.parent.name == "runs":
        return (f"it is a grid's run: rerun `algspec experiment GRID.yaml -o {d.parent.parent}` "
                "with its grid file to finish it")
    if command is None:
        return "train it again with the options in its config.json"
    return f"to finish it, run `{command}`"


class DeferredInterrupt:
    """Hold back Ctrl-C while compiled code runs, and raise it at a safe point.

    A KeyboardInterrupt raised inside JAX while XLA compiles or runs a program
    can crash the process (a segfault, exit 139) instead of stopping it. Inside
    `hold()`, SIGINT only records that it came (and says once that the run
    stops after the current step); `check()` raises the KeyboardInterrupt once
    the jitted call has returned. A second Ctrl-C while held stops the process at
    once (exit 130) after printing `on_force()`, the line saying what is left
    and how to resume: compiling can take minutes, and nothing half-written
    is lost (result files are written atomically). Outside the main thread
    (signals cannot be caught there) both are no-ops.
    """

    def __init__(self, what: str = "the current step",
                 on_force: Callable[[], str] | None = None) -> None:
        self.pending = False
        self.what = what
        self.on_force = on_force

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.pending:  # the second Ctrl-C: the user will not wait for the compiler
            note = self.on_force() if self.on_force else (
                f"stopped at once, during {self.what}; what it was writing is left unfinished "
                "(finished results are kept): run the same command again to resume or restart")
            print(f"\ninterrupted: {note}", file=sys.stderr, flush=True)
            os._exit(130)
        print(f"\ninterrupt: stopping after {self.what} (compiled code is running; "
              "Ctrl-C again stops at once)", file=sys.stderr, flush=True)
        self.pending = True

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Defer SIGINT for the duration of the block, then raise it if it came."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self._handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
        self.check()

    def check(self) -> None:
        """Raise the deferred KeyboardInterrupt, if one came."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt
