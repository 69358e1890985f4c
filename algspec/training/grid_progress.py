"""The log lines of a grid while it runs: each run's outcome and the grid's progress (ETA)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from algspec.training.metrics import score_text


def duration_text(seconds: float) -> str:
    """A rough duration for an ETA: `40 s`, `12 min`, `3.5 h`."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class GridProgress:
    """Where the runs started now stand, for the grid's log lines: done, running, failed,
    left and an ETA from the pace so far (runs finished per second, side by side or not)."""

    total: int
    done: int = 0
    failed: int = 0
    skipped: int = 0  # another process holds its folder: neither done nor failed here
    start: float = field(default_factory=lambda: time.monotonic())

    def finished(self, ok: bool, skipped: bool = False) -> None:
        """Count one run that ended (done or failed), or was skipped."""
        if skipped:
            self.skipped += 1
        elif ok:
            self.done += 1
        else:
            self.failed += 1

    def status(self, running: int) -> str:
        """`3/16 done, 2 running, 1 failed, ETA 12 min`."""
        ended = self.done + self.failed + self.skipped
        left = self.total - ended
        text = f"{self.done}/{self.total} done, {running} running, {self.failed} failed"
        if self.skipped:
            text += f", {self.skipped} skipped"
        elapsed = time.monotonic() - self.start
        if ended and left:
            text += f", ETA {duration_text(elapsed / ended * left)}"
        return text


def outcome_line(k: int, total: int, name: str, result: dict[str, Any] | None,
                 error: str | None, status: str) -> str:
    """The log line of a run that ended: its named scores (or why it failed) and the grid's
    progress, e.g. `[3/16] done oets_mpnn_h8_s0: val micro-F1 0.91, test micro-F1 0.52`."""
    if error is not None:
        head = f"[{k}/{total}] failed {name}: {error}"
    elif result is not None:
        head = (f"[{k}/{total}] done {name}: val {score_text(result['val'])}, "
                f"test {score_text(result['test'])}")
        plan = result.get("memory_plan") or {}
        if plan.get("budget_bytes"):  # planned against a device budget: how it trained
            head += (f", {plan['seeds_per_program']} seed(s) per program, "
                     f"remat {'on' if plan['remat'] else 'off'}")
    else:
        head = f"[{k}/{total}] done {name}"
    return f"{head}  ({status})"


def plan_line(name: str, plan: Any) -> str:
    """A cell's memory plan (`algspec.nn.memory.MemoryPlan`) in one line, e.g.
    `plan bubble_sort/mpnn h128: 3 seeds: 1 per program (3 programs), remat on, 9.8 GB
    of 15.5 GB`."""
    return f"plan {name}: {plan.describe()}"
