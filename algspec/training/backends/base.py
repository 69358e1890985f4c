"""What a training backend provides: the protocol the trainer is written against."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from algspec.training.config import TrainConfig


class Model(Protocol):
    """A trainable model. `params` is a haiku-style `{module: {name: array}}` tree that
    the trainer saves in checkpoints and sets back for evaluation."""

    params: Any

    def feedback(self, rng: Any, feedback: Any) -> Any:
        """One optimiser step on a Feedback batch; the loss (a scalar, possibly on device)."""

    def predict(self, rng: Any, features: Any) -> tuple[dict[str, Any], Any]:
        """`({output name: DataPoint of predictions}, hint predictions)` for a batch."""


class Backend(Protocol):
    """Builds models for one algorithm's (processed) spec."""

    name: str

    def build(self, spec: dict, example: Any, config: TrainConfig, run_dir: Path) -> Model:
        """A model for `spec`, its parameters initialised from `config.seed` on the
        Feedback batch `example` (the largest training size)."""

    def restore(self, spec: dict, example: Any, config: TrainConfig, run_dir: Path,
                params: Any) -> Model:
        """A model for `spec` with saved `params` (a checkpoint), ready to predict."""
