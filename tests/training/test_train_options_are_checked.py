"""Every training option is checked for its kind and range when a run is configured, so
that `train` and a grid refuse a value in one line instead of failing inside JAX."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from algspec.cli import app
from algspec.training.config import MAX_SEED, TrainConfig


def test_a_seed_jax_cannot_hold_is_one_error_line(tmp_path: Path) -> None:
    """JAX keeps 32 bits of a seed: 2**32 would silently repeat seed 0's initialisation,
    a seed past 2**63 failed deep in JAX after the data was drawn."""
    out = tmp_path / "run"
    for seed in (MAX_SEED + 1, 10**20):
        r = CliRunner().invoke(app, ["train", "bubble_sort", "--seed", str(seed),
                                     "--out", str(out)])
        assert r.exit_code == 2, r.output
        assert r.stderr.strip() == f"error: seed must be at most {MAX_SEED}, got {seed}"
    assert not out.exists()


@pytest.mark.parametrize(("field", "value", "words"), [
    ("steps", 2.5, "steps must be an integer"),
    ("hidden", True, "hidden must be an integer"),
    ("train_sizes", 4, "train_sizes must be a list of integers"),
    ("use_ln", "yes", "use_ln must be true or false"),
    ("pred_as_input", 1, "pred_as_input must be true, false or null"),
    ("generator_params", ["a"], "generator_params must be a mapping"),
    ("grad_clip", float("nan"), "grad_clip must be a number at least 0"),
    ("nb_triplet_fts", 0, "nb_triplet_fts must be at least 1"),
    ("encoder_init", "zeros", "encoder_init must be one of"),
])
def test_an_option_of_the_wrong_kind_is_named(field: str, value: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        TrainConfig(algorithm="bubble_sort", **{field: value})


def test_the_defaults_and_a_saved_config_still_load() -> None:
    config = TrainConfig(algorithm="bubble_sort", seed=MAX_SEED, grad_clip=0)
    assert TrainConfig.from_dict(config.to_dict()) == config
