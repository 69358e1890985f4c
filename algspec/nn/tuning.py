"""Choices that trade compile time against run time, made per device.

Measured on an H200 and on a 2-core CPU (benchmarks/training_throughput.py):

- Steps past every trajectory's end (time-axis padding) can be skipped with a
  conditional in the loop. On the CPU that saves their compute; on a GPU each
  conditional waits for the device, and bubble sort's step got 25 % slower.
- Sinkhorn's normalisation steps can run as a loop (one compiled step) or
  unrolled. On a GPU a loop inside the trajectory's loop pays a launch round
  trip per iteration; on the CPU the loop compiles faster and runs as fast.

The choices are configuration (`DeviceChoices`, carried by `NetConfig.device`),
made once when a model is built (`DeviceChoices.for_device`) and read by the
layers from their configuration, never from this module while tracing.

Deprecated: assigning the module attributes `SKIP_PADDED_STEPS` or
`UNROLL_SINKHORN` (True or False forces a choice, None chooses by device) still
works, with a `DeprecationWarning`, for models built afterwards.
"""

from __future__ import annotations

import sys
import types
import warnings
from dataclasses import dataclass

_OVERRIDES: dict[str, bool | None] = {"SKIP_PADDED_STEPS": None, "UNROLL_SINKHORN": None}


@dataclass(frozen=True)
class DeviceChoices:
    """How the model is compiled for its device (see the module docstring)."""

    skip_padded_steps: bool
    unroll_sinkhorn: bool

    @classmethod
    def for_device(cls, backend: str | None = None) -> DeviceChoices:
        """The measured choices for `backend` (default: `jax.default_backend()`), with any
        deprecated module-level override applied."""
        if backend is None:
            import jax

            backend = jax.default_backend()
        cpu = backend == "cpu"
        skip, unroll = _OVERRIDES["SKIP_PADDED_STEPS"], _OVERRIDES["UNROLL_SINKHORN"]
        return cls(skip_padded_steps=cpu if skip is None else bool(skip),
                   unroll_sinkhorn=(not cpu) if unroll is None else bool(unroll))


def skip_padded_steps() -> bool:
    """Whether a model built now skips steps past every sample's end."""
    return DeviceChoices.for_device().skip_padded_steps


def unroll_sinkhorn() -> bool:
    """Whether a model built now unrolls Sinkhorn's steps rather than looping."""
    return DeviceChoices.for_device().unroll_sinkhorn


class _Module(types.ModuleType):
    """Keeps the deprecated module attributes working (read and assigned)."""

    def __getattr__(self, name: str) -> bool | None:
        if name in _OVERRIDES:
            return _OVERRIDES[name]
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        if name in _OVERRIDES:
            field = name.lower()
            warnings.warn(f"algspec.nn.tuning.{name} is deprecated: set "
                          f"NetConfig(device=DeviceChoices(..., {field}=...)) instead; the "
                          "assignment applies to models built after it", DeprecationWarning,
                          stacklevel=2)
            _OVERRIDES[name] = None if value is None else bool(value)
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Module
