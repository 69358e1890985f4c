"""Seconds spent compiling, as JAX reports them (`jax.monitoring`).

A run compiles many programs: a training step per shape (node count, hint
bucket), validation and test predictions, and dm-clrs recompiles its step for
each new trajectory length. Timing "the first step" misses most of them; the
compiler's own events count every one, whichever backend built the model. A
program read from the persistent compilation cache costs no compile time.
"""

from __future__ import annotations

from typing import Any, Self

# XLA's compile of a lowered program (the bulk); tracing and lowering are reported apart.
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
LOWER_EVENTS = ("/jax/core/compile/jaxpr_trace_duration",
                "/jax/core/compile/jaxpr_to_mlir_module_duration")


class CompileClock:
    """A context that adds up compile seconds and compiled programs while it is open."""

    def __init__(self) -> None:
        self.compile_seconds = 0.0
        self.trace_seconds = 0.0
        self.programs = 0

    def _listen(self, event: str, duration: float, **_: Any) -> None:
        if event == COMPILE_EVENT:
            self.compile_seconds += duration
            self.programs += 1
        elif event in LOWER_EVENTS:
            self.trace_seconds += duration

    def __enter__(self) -> Self:
        import jax.monitoring

        jax.monitoring.register_event_duration_secs_listener(self._listen)
        return self

    def __exit__(self, *_: object) -> None:
        import jax.monitoring

        jax.monitoring.unregister_event_duration_listener(self._listen)
