"""Choices that trade compile time against run time, made per device.

Measured on an H200 and on a 2-core CPU (benchmarks/training_throughput.py):

- Steps past every trajectory's end (time-axis padding) can be skipped with a
  conditional in the loop. On the CPU that saves their compute; on a GPU each
  conditional waits for the device, and bubble sort's step got 25 % slower.
- Sinkhorn's normalisation steps can run as a loop (one compiled step) or
  unrolled. On a GPU a loop inside the trajectory's loop pays a launch round
  trip per iteration; on the CPU the loop compiles faster and runs as fast.

`None` chooses by device (`jax.default_backend()` when the model is traced);
True or False forces a choice, to measure it.
"""

from __future__ import annotations

SKIP_PADDED_STEPS: bool | None = None  # None: on the CPU only
UNROLL_SINKHORN: bool | None = None  # None: everywhere but the CPU


def _on_cpu() -> bool:
    import jax

    return jax.default_backend() == "cpu"


def skip_padded_steps() -> bool:
    """Whether the trajectory loop skips steps past every sample's end."""
    return _on_cpu() if SKIP_PADDED_STEPS is None else SKIP_PADDED_STEPS


def unroll_sinkhorn() -> bool:
    """Whether Sinkhorn's steps are unrolled rather than looped."""
    return not _on_cpu() if UNROLL_SINKHORN is None else UNROLL_SINKHORN
