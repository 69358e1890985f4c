"""The CLRS-facing layer: Trajectories -> clrs.Feedback, a clrs.Sampler, registration.

`import clrs` imports tensorflow (seconds), so nothing here is imported until one
of the names below is first used; the core never imports this package at module
level.

`register` is a submodule (`from algspec.clrs_bridge.register import register`);
its function is not re-exported here because the submodule's name would
shadow it as soon as the submodule is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from algspec.clrs_bridge.feedback import batch_probes, to_feedback
    from algspec.clrs_bridge.register import is_registered, unregister
    from algspec.clrs_bridge.sampler import AlgspecSampler

_EXPORTS = {
    "to_feedback": "feedback",
    "batch_probes": "feedback",
    "AlgspecSampler": "sampler",
    "unregister": "register",
    "is_registered": "register",
}

__all__ = ["AlgspecSampler", "batch_probes", "is_registered", "to_feedback", "unregister"]


def __getattr__(name: str) -> Any:
    """Import the submodule (and clrs) only when one of its names is used."""
    if name in _EXPORTS:
        module = importlib.import_module(f"algspec.clrs_bridge.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'algspec.clrs_bridge' has no attribute {name!r}")
