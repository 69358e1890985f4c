"""Training backends: the one table of models `train`, `eval` and `experiment` can use.

Each entry builds a `Model` (see `base.py`): initialise from a batch, take a
training step on a Feedback, predict from features, expose parameters for
checkpoints. The trainer never reaches into a model's internals.
"""

from __future__ import annotations

from algspec.training.backends.base import Backend, Model
from algspec.training.backends.clrs_backend import ClrsBackend
from algspec.training.config import BACKENDS as NAMES

BACKENDS: dict[str, Backend] = {
    "clrs": ClrsBackend(),
}


def get_backend(name: str) -> Backend:
    """The backend called `name` (a `ValueError` naming the valid ones otherwise)."""
    if name == "algspec" and name not in BACKENDS:
        from algspec.training.backends.algspec_backend import AlgspecBackend
        BACKENDS[name] = AlgspecBackend()
    try:
        return BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; valid: {', '.join(NAMES)}") from None


__all__ = ["BACKENDS", "Backend", "Model", "get_backend"]
