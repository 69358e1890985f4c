"""algspec's own JAX model (`algspec.nn`): the `algspec` backend.

Dense (`--graph dense`) it computes what dm-clrs's `BaselineModel` computes
(the parity tests); sparse (`--graph sparse`) it passes messages only along
the file's interconnection graph and the pointers, so memory and time grow
with edges, not n^2.

Shapes. Hint time axes are padded to a bucket (at most a quarter longer). On
an accelerator, training batches of every size are also padded to the largest
training size, so sizes whose trajectories share a bucket share one compiled
step: there a step costs about the same at any n and compiling dominates. On
the CPU compute grows with n^2, so each size keeps its own node count.
Padding changes no prediction and no loss (the padding tests).

Memory. Before training, the compiled step is measured against the device's
budget (`algspec.nn.memory`): seeds trained as one program split into
smaller groups, and the hint loop is rematerialised, when they would not
fit; prediction runs in chunks that fit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from algspec.training.config import TrainConfig
from algspec.training.data import STEPS_HINT


def net_config(spec: dict, config: TrainConfig) -> Any:
    """The architecture a `TrainConfig` asks for (`algspec.nn.net.NetConfig`)."""
    from algspec.nn.net import NetConfig

    hints = "none" if STEPS_HINT in spec else config.hint_mode
    return NetConfig(hidden=config.hidden, processor=config.processor,
                     encode_hints=hints == "encoded_decoded", decode_hints=hints != "none",
                     use_ln=config.use_ln, nb_heads=config.nb_heads,
                     nb_triplet_fts=config.nb_triplet_fts, encoder_init=config.encoder_init,
                     graph=config.graph)


def pad_nodes(config: TrainConfig) -> int | None:
    """The node count training batches are padded to: the largest training size on an
    accelerator, none on the CPU (see the module docstring)."""
    import jax

    return None if jax.default_backend() == "cpu" else max(config.train_sizes)


class AlgspecBackend:
    """Builds `algspec.nn.model.Model`s."""

    name = "algspec"

    def _model(self, spec: dict, example: Any, config: TrainConfig) -> Any:
        from algspec.nn.model import Model

        return Model(spec, example, net_config(spec, config), learning_rate=config.learning_rate,
                     grad_clip=config.grad_clip, pad_nodes=pad_nodes(config))

    def build(self, spec: dict, example: Any, config: TrainConfig, run_dir: Path) -> Any:
        model = self._model(spec, example, config)
        model.init(example, config.seed)
        model.plan_training(example)  # rematerialise the hint loop if the step does not fit
        return model

    def restore(self, spec: dict, example: Any, config: TrainConfig, run_dir: Path,
                params: Any) -> Any:
        model = self._model(spec, example, config)
        model.params = params
        return model
