"""Device memory, planned before a program runs instead of discovered by an out-of-memory.

A program's footprint is XLA's own account of the compiled program
(`compiled.memory_analysis()`: arguments + outputs + temporaries - aliased
buffers). Compiling for the analysis costs nothing extra: `jax.jit` keeps
the compiled program, and the first real call reuses it.

The budget is, in order: `ALGSPEC_DEVICE_MEMORY` (e.g. ``200MB``, ``12GiB``;
``off`` for no planning), else the device allocator's limit (on a GPU its
share of the device: `algspec experiment --jobs N` gives each process
0.9 / N of it), divided by `ALGSPEC_DEVICE_JOBS` when processes share one
allocator; on the CPU there is no budget unless one is forced. Plans keep
`HEADROOM` of it free for fragmentation.

Training plans `seeds per program` (a cell's seeds as smaller vmapped groups)
and rematerialisation of the hint loop (`jax.checkpoint` of its body: the
backward pass recomputes each step instead of storing it) when even one seed
does not fit. Evaluation plans the batch in chunks. Neither changes a
result: seeds are independent lanes, rematerialised steps compute the same
numbers, and evaluation draws no randomness.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ENV_MEMORY = "ALGSPEC_DEVICE_MEMORY"
ENV_JOBS = "ALGSPEC_DEVICE_JOBS"
HEADROOM = 0.9  # of the budget a plan may use (the rest: allocator fragmentation)

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9,
          "gb": 10**9, "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30,
          "tib": 2**40}


class MemoryPlanError(ValueError):
    """A program that does not fit the budget however it is split, or a malformed budget:
    the user's settings (budget, batch size, hidden size, sizes) must change."""


def parse_bytes(text: str) -> int:
    """`200MB`, `1.5GiB`, `4096` as a byte count; a `ValueError` that names the form."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _UNITS:
        raise ValueError(f"{text!r} is not a memory size (e.g. 200MB, 12GiB, 4096)")
    return int(float(m.group(1)) * _UNITS[unit])


def format_bytes(n: float | None) -> str:
    """A byte count for a log line: `812 MB`, `15.5 GB`."""
    if n is None:
        return "?"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} B"


def device_budget() -> int | None:
    """Bytes a program of this process may use on its device; None: unplanned (see the
    module docstring). A malformed `ALGSPEC_DEVICE_MEMORY` raises `MemoryPlanError`."""
    forced = os.environ.get(ENV_MEMORY, "").strip()
    if forced.lower() in ("off", "none", "0"):
        return None
    if forced:
        try:
            return parse_bytes(forced)
        except ValueError as exc:
            raise MemoryPlanError(f"{ENV_MEMORY}: {exc}") from None
    import jax

    dev = jax.devices()[0]
    if dev.platform == "cpu":
        return None
    try:
        stats = dev.memory_stats() or {}
    except Exception:  # noqa: BLE001 - a backend without memory statistics
        return None
    limit = stats.get("bytes_limit")
    if not limit:
        return None
    jobs = os.environ.get(ENV_JOBS, "").strip()
    return int(limit) // max(1, int(jobs)) if jobs.isdigit() else int(limit)


def program_bytes(compiled: Any) -> int | None:
    """A compiled program's device footprint by XLA's memory analysis (None if unknown)."""
    try:
        m = compiled.memory_analysis()
    except Exception:  # noqa: BLE001 - a backend without the analysis
        return None
    if m is None:
        return None
    return int(m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes
               - m.alias_size_in_bytes)


def fits(nbytes: int | None, budget: int | None) -> bool:
    return budget is None or nbytes is None or nbytes <= budget * HEADROOM


@dataclass(frozen=True)
class MemoryPlan:
    """How a cell's seeds train: `per_program` seeds in each vmapped program, the hint
    loop rematerialised or not; `nbytes` is one program's footprint (None: not measured,
    no budget)."""

    seeds: int
    per_program: int
    remat: bool
    nbytes: int | None
    budget: int | None

    @property
    def programs(self) -> int:
        return -(-self.seeds // self.per_program)

    def describe(self) -> str:
        """`3 seeds: 1 per program (3 programs), remat on, 5.1 GB of 15.5 GB`."""
        text = f"{self.seeds} seed{'s' if self.seeds != 1 else ''}: {self.per_program} " \
               f"per program"
        if self.programs > 1:
            text += f" ({self.programs} programs)"
        text += f", remat {'on' if self.remat else 'off'}"
        if self.budget is None:
            return text + ", no memory budget"
        return text + f", {format_bytes(self.nbytes)} of {format_bytes(self.budget)}"

    def to_dict(self) -> dict[str, Any]:
        return {"seeds": self.seeds, "seeds_per_program": self.per_program,
                "remat": self.remat, "program_bytes": self.nbytes, "budget_bytes": self.budget}


def choose(seeds: int, measure: Callable[[int, bool], int | None],
           budget: int | None, what: str = "the training step") -> MemoryPlan:
    """The largest seed group that fits, without rematerialisation if any group does; groups
    are equal (a divisor of `seeds`), so one compiled program serves them all.

    `measure(k, remat)` is the footprint of a program of k seeds (it compiles it). Each
    miss narrows k by a linear estimate, so a plan compiles a few programs at most."""
    if budget is None:
        return MemoryPlan(seeds, seeds, False, None, None)
    smallest = None
    for remat in (False, True):
        k = seeds
        while k >= 1:
            nbytes = measure(k, remat)
            if fits(nbytes, budget):
                even = max(d for d in range(1, k + 1) if seeds % d == 0)  # one program shape
                if even != k:
                    k, nbytes = even, measure(even, remat)
                return MemoryPlan(seeds, k, remat, nbytes, budget)
            assert nbytes is not None
            smallest = nbytes if k == 1 else smallest
            k = min(k - 1, int(budget * HEADROOM * k // nbytes))
    raise MemoryPlanError(
        f"{what} needs {format_bytes(smallest)} for one seed even with rematerialisation; "
        f"the device memory budget is {format_bytes(budget)} ({ENV_MEMORY}, or fewer "
        "--jobs, a smaller batch, hidden size or training size)")


def chunk_size(batch: int, measure: Callable[[int], int | None], budget: int | None,
               what: str = "evaluation") -> int:
    """The largest divisor of `batch` (halving) whose program fits the budget."""
    if budget is None:
        return batch
    size = batch
    while True:
        nbytes = measure(size)
        if fits(nbytes, budget):
            return size
        if size == 1:
            raise MemoryPlanError(
                f"{what} needs {format_bytes(nbytes)} for one sample; the device memory "
                f"budget is {format_bytes(budget)} ({ENV_MEMORY}, or fewer --jobs)")
        size = next(d for d in range(size // 2, 0, -1) if batch % d == 0)
