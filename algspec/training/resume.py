"""A run's whole training state, saved every few steps so that a stopped run resumes.

`resume.pkl` in an unfinished run folder holds everything the rest of the run
depends on: parameters, optimiser state, the random key, the step reached,
the best-validation tracker (score, step, parameters) and the metrics so
far. The data streams need no state of their own: they are deterministic in
the seed, so the resumed run draws (and drops) the batches the first steps
used, and the batches after resume are the ones an uninterrupted run gets.
The file is written atomically (`algspec.process.output_files`), so a kill at any
moment leaves the previous checkpoint or the new one, and it is removed once
the run's `result.json` is written. Arrays are stored as numpy (`device_get`),
readable without a device.

The file is two pickles: a small header (format, config digest, step), read
alone by messages that say where a run will resume, then the state.
"""

from __future__ import annotations

import contextlib
import pickle
from pathlib import Path
from typing import Any

RESUME = "resume.pkl"  # an unfinished run's training state, beside its checkpoint
RESUME_FORMAT = "algspec-resume/1"


def save(out: Path, digest: str, step: int, state: dict[str, Any]) -> None:
    """Write `out/resume.pkl` whole or not at all: the state after `step` steps."""
    from algspec.process.output_files import atomic_file

    with atomic_file(out / RESUME, "wb") as f:
        pickle.dump({"format": RESUME_FORMAT, "config_digest": digest, "step": int(step)}, f,
                    protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)

RESUME = "resume.pkl"  # an unfinished run's training state


def _header(f: Any) -> dict[str, Any] | None:
    try:
        head = pickle.load(f)
    except Exception:  # noqa: BLE001 - truncated or foreign bytes: no checkpoint
        return None
    if not isinstance(head, dict) or head.get("format") != RESUME_FORMAT:
        return None
    return head


def resume_step(out: str | Path, digest: str | None = None) -> int | None:
    """The step a run folder resumes at (None: it starts from the beginning); with
    `digest`, only a checkpoint of that config counts."""
    with contextlib.suppress(OSError), open(Path(out) / RESUME, "rb") as f:
        head = _header(f)
        if head is not None and (digest is None or head.get("config_digest") == digest):
            return int(head["step"])
    return None


def load(out: Path, digest: str) -> tuple[int, dict[str, Any]] | None:
    """(step, state) of the folder's checkpoint for this config, else None (none there,
    another config's, or unreadable: the run starts from the beginning)."""
    try:
        with open(out / RESUME, "rb") as f:
            head = _header(f)
            if head is None or head.get("config_digest") != digest:
                return None
            state = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError,
            ValueError):
        return None
    return (int(head["step"]), state) if isinstance(state, dict) else None


def remove(out: Path) -> None:
    """Drop the checkpoint (the run finished, or restarts from the beginning)."""
    (out / RESUME).unlink(missing_ok=True)


def host(tree: Any) -> Any:
    """A pytree's arrays as numpy (picklable, readable without a device)."""
    import jax
    import numpy as np

    return jax.tree_util.tree_map(np.asarray, jax.device_get(tree))
