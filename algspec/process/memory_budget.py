"""Refusing, up front, a request whose data cannot fit in this machine's memory.

`sample --num 10**15` used to grow memory for minutes before the system killed
it. The samplers hold every sample of a fixed dataset at once, so the need is
known after the first chunk: its bytes per sample times the number asked for
(twice: the chunks and their joined copy are both alive while joining). A
request that needs more than the memory available is refused at once with the
estimate; anything smaller runs as before.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any


class TooLarge(MemoryError):
    """A request that cannot fit in memory: a user error, said in one line."""


def available_bytes() -> int | None:
    """Memory this process can still use: the system's available memory, capped by a
    cgroup limit when there is one; None where neither can be read."""
    avail: int | None = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                avail = int(line.split()[1]) * 1024
                break
    except (OSError, ValueError, IndexError):
        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = None
    with contextlib.suppress(OSError, ValueError):  # no cgroup v2 limit: none applies
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit.isdigit():
            left = max(0, int(limit) - used)
            avail = left if avail is None else min(avail, left)
    return avail


def trajectory_bytes(traj: Any) -> int:
    """Bytes of a batch's arrays (inputs, outputs, hints, lengths)."""
    total = 0
    for group in ("inputs", "outputs", "hints"):
        for arr in (getattr(traj, group, None) or {}).values():
            total += int(getattr(arr, "nbytes", 0))
    return total + int(getattr(getattr(traj, "lengths", None), "nbytes", 0))


def gigabytes(n: float) -> str:
    """A byte count for a message: TB, GB, MB or kB."""
    if n >= 2**40:
        return f"{n / 2**40:,.0f} TB"
    if n >= 2**27:
        return f"{n / 2**30:.3g} GB"
    return f"{n / 2**20:.3g} MB" if n >= 2**17 else f"{n / 2**10:.3g} kB"


def check_samples_fit(per_sample: float, num_samples: int, length: int,
                      copies: int = 2) -> None:
    """Raise `TooLarge` when `num_samples` samples of `per_sample` bytes (held `copies`
    times over) need more memory than is available."""
    need = per_sample * num_samples * copies
    avail = available_bytes()
    if avail is None or need <= avail:
        return
    raise TooLarge(f"{num_samples} samples at n={length} need about {gigabytes(need)} of "
                   f"memory ({gigabytes(per_sample)} per sample), more than the "
                   f"{gigabytes(avail)} available; ask for fewer samples or a smaller size")
