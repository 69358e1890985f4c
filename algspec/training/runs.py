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
from pathlib import Path
from typing import Any

from algspec.process.interrupts import DeferredInterrupt  # noqa: F401 - re-exported

RESULT = "result.json"
CHECKPOINT = "checkpoint.pkl"  # the best parameters of a finished run (`algspec eval`)
CONFIG = "config.json"


class RunExistsError(ValueError):
    """A start-up found a finished run where it would write (it is never deleted silently)."""


class RunConfigMismatch(ValueError):
    """A start-up found another configuration's run where it would write."""


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during training: where it stopped and where it resumes (`resume_at`, the
    step of the folder's last checkpoint; 0: from the beginning)."""

    def __init__(self, out: Path, step: int, total: int, resume_at: int = 0) -> None:
        super().__init__(f"interrupted at step {step} of {total}")
        self.out, self.step, self.total, self.resume_at = out, step, total, resume_at

    @property
    def where(self) -> str:
        """How far the run got, in words: `after step 12 of 2000`, or `while testing`."""
        if self.step >= self.total:
            return f"while testing, after all {self.total} steps"
        return f"after step {self.step} of {self.total}"


def resumes_at(run_dir: str | Path) -> str:
    """Where an unfinished run starts again, in words: `resumes at step 150`, or
    `starts again from step 0` (no checkpoint yet)."""
    from algspec.training.resume import resume_step

    step = resume_step(run_dir)
    return f"resumes at step {step}" if step else "starts again from step 0"


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


def config_differences(config: Any, run_dir: str | Path) -> list[str] | None:
    """The options in which `run_dir/config.json` differs from the `TrainConfig` `config`
    (["config.json"] when it cannot be read as one), or None: no config there, or the same."""
    from algspec.training.config import TrainConfig

    try:
        saved = json.loads((Path(run_dir) / CONFIG).read_text())
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return [CONFIG]
    try:
        saved = TrainConfig.from_dict(saved).to_dict()
    except (TypeError, ValueError):
        return [CONFIG]
    mine = config.to_dict()
    differ = sorted(k for k in set(saved) | set(mine) if saved.get(k) != mine.get(k))
    return differ or None


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
                f"running, so it has no {CHECKPOINT} or {RESULT} yet ({resumes_at(d)}); "
                f"{finish_hint(d)}")
    return f"{d} is not a run folder (no {CONFIG})"


def finish_hint(run_dir: str | Path) -> str:
    """How to finish (resume) an unfinished run, from its saved config.json."""
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
