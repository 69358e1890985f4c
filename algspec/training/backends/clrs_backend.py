"""dm-clrs's `BaselineModel`, as dm-clrs ships it: the `clrs` backend.

Results stay comparable with published CLRS numbers. The model is built with
the configured processor factory; its parameters are initialised by one
jitted program rather than dm-clrs's op-by-op `init` (same key, same values).
Batches arrive as algspec's `Feedback` and are handed to dm-clrs as its own
classes (`algspec.feedback.to_clrs`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from algspec.feedback import to_clrs, to_clrs_features
from algspec.training.config import TrainConfig
from algspec.training.data import STEPS_HINT, import_clrs


class ClrsBackend:
    """Builds `clrs.models.BaselineModel`s."""

    name = "clrs"

    def build(self, spec: dict, example: Any, config: TrainConfig, run_dir: Path) -> Any:
        example = to_clrs(example)
        model = _baseline_model(spec, example, config, run_dir)
        _init(model, example.features, config.seed)
        return BaselineAdapter(model)

    def restore(self, spec: dict, example: Any, config: TrainConfig, run_dir: Path,
                params: Any) -> Any:
        model = _baseline_model(spec, to_clrs(example), config, run_dir)
        model.params = params
        return BaselineAdapter(model)


class BaselineAdapter:
    """A `BaselineModel` behind the trainer's `Model` protocol: batches converted to
    dm-clrs's classes; `baseline` is the model itself (its other methods, `_loss`...)."""

    def __init__(self, baseline: Any) -> None:
        self.baseline = baseline

    @property
    def params(self) -> Any:
        return self.baseline.params

    @params.setter
    def params(self, value: Any) -> None:
        self.baseline.params = value

    def feedback(self, rng: Any, feedback: Any) -> Any:
        return self.baseline.feedback(rng, to_clrs(feedback))

    def predict(self, rng: Any, features: Any) -> tuple[dict[str, Any], Any]:
        return self.baseline.predict(rng, to_clrs_features(features))


def _baseline_model(spec: dict, dummy: Any, config: TrainConfig, checkpoint_dir: Path) -> Any:
    """A BaselineModel with the configured processor (parameters not yet set)."""
    clrs = import_clrs()
    hints = config.hint_mode
    if STEPS_HINT in spec:  # no hints of its own: nothing to encode or decode
        hints = "none"
    factory = clrs.get_processor_factory(
        config.processor,
        use_ln=config.use_ln,
        nb_triplet_fts=config.nb_triplet_fts,
        nb_heads=config.nb_heads,
    )
    return clrs.models.BaselineModel(
        spec=spec,
        dummy_trajectory=dummy,
        processor_factory=factory,
        hidden_dim=config.hidden,
        encode_hints=hints == "encoded_decoded",
        decode_hints=hints != "none",
        encoder_init=config.encoder_init,
        learning_rate=config.learning_rate,
        grad_clip_max_norm=config.grad_clip,
        checkpoint_path=str(checkpoint_dir),
    )


def _init(model: Any, features: Any, seed: int) -> None:
    """`BaselineModel.init`, but with the parameter initialisation jitted.

    CLRS runs `net_fn.init` eagerly, op by op (several seconds of small
    compilations on a CPU); one jitted program is faster and lands in the
    persistent compilation cache. Same key, same initial parameters.
    """
    import jax
    import jax.numpy as jnp

    def init_fn(key: Any, feats: Any) -> Any:
        return model.net_fn.init(key, [feats], True, algorithm_index=-1,
                                 return_hints=False, return_all_outputs=False)

    params = jax.jit(init_fn)(jax.random.PRNGKey(seed), features)
    model.params = params
    model.opt_state = model.opt.init(params)
    model.opt_state_skeleton = model.opt.init(jnp.zeros(1))
