"""Training configuration (pure Python: importing this costs no jax/tensorflow).

Defaults are the paper's protocol (section 4 and appendix): hidden size 128,
2000 steps of batch 32, training sizes 4, 7, 11, 13, 16 cycled step by step,
validation at n = 16, out-of-distribution test at n = 64. The model options
that the paper inherits from CLRS's `examples/run.py` keep that script's
defaults: hints encoded and decoded, learning rate 1e-3, gradient clipping at
norm 1, layer norm, xavier initialisation on scalar encoders, one GAT head.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from algspec.nn.processor_table import PROCESSOR_TABLE
from algspec.nn.processor_table import check_processor as check_backend_processor

# Every processor name either backend builds, from the one processor table
# (`algspec/nn/processor_table.py`: which backends have each, which have a sparse form).
PROCESSORS: tuple[str, ...] = tuple(PROCESSOR_TABLE)

HINT_MODES = ("encoded_decoded", "decoded_only", "none")

# Training backends (`algspec.training.backends.BACKENDS` holds their implementations):
# dm-clrs's BaselineModel as it is, or algspec's own model (`algspec.nn`).
BACKENDS = ("clrs", "algspec")
DEFAULT_BACKEND = "algspec"  # what `train` and a grid use unless told (a run keeps its own)
# How algspec's model passes messages: over all N x N pairs (dm-clrs's parity mode), or
# along the edge list of the file's interconnection graph plus pointer edges.
GRAPH_MODES = ("dense", "sparse")

PAPER_TRAIN_SIZES: tuple[int, ...] = (4, 7, 11, 13, 16)

# What a saved config without these fields meant: they were added with these values
# (dm-clrs's model, dense), so runs trained before keep meaning what they meant.
SAVED_BEFORE: dict[str, Any] = {"backend": "clrs", "graph": "dense"}


def check_processor(name: str, backend: str = DEFAULT_BACKEND, graph: str = "dense") -> None:
    """Raise ValueError (one line, naming what `backend` has) unless `backend` builds
    processor `name` on `graph`."""
    check_backend_processor(name, backend, graph)


@dataclass
class TrainConfig:
    """Everything that determines a training run (saved as config.json).

    Datasets: each training size has a fixed training set of `train_samples`
    samples (CLRS's default split size, 1000), from which batches are drawn
    at random with replacement; a fixed training set pads every batch of one
    size to the same trajectory length, so each size compiles once. The
    validation set (`val_samples` at `val_size`) and the test set
    (`test_samples` at `test_size`) are fixed too and evaluated in full, in
    batches of `eval_batch_size`. Each split's seed is derived from `seed`,
    the split and the size, so `algspec eval` rebuilds the same test set.
    """

    algorithm: str
    processor: str = "mpnn"
    hidden: int = 128
    steps: int = 2000
    batch_size: int = 32
    train_sizes: tuple[int, ...] = PAPER_TRAIN_SIZES
    val_size: int = 16
    test_size: int = 64
    train_samples: int = 1000
    val_samples: int = 128
    test_samples: int = 128
    eval_batch_size: int = 32
    eval_every: int = 50
    learning_rate: float = 1e-3
    seed: int = 42
    grad_clip: float = 1.0
    hint_mode: str = "encoded_decoded"
    random_pos: bool = True  # train and validation, as CLRS's run.py
    test_random_pos: bool = False  # CLRS's run.py tests on the plain `pos`
    use_ln: bool = True
    nb_heads: int = 1
    nb_triplet_fts: int = 8
    encoder_init: str = "xavier_on_scalars"
    pred_as_input: bool | None = None  # None: as CLRS, for the algorithms it lists
    backend: str = DEFAULT_BACKEND
    graph: str = "dense"
    generator_params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.train_sizes = tuple(int(n) for n in self.train_sizes)
        if self.hint_mode not in HINT_MODES:
            raise ValueError(f"hint_mode must be one of {', '.join(HINT_MODES)}")
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; valid: {', '.join(BACKENDS)}")
        if self.graph not in GRAPH_MODES:
            raise ValueError(f"graph must be one of {', '.join(GRAPH_MODES)}, not "
                             f"{self.graph!r}")
        if self.graph == "sparse" and self.backend != "algspec":
            raise ValueError("graph sparse needs backend algspec (dm-clrs's model is dense)")
        check_processor(self.processor, self.backend, self.graph)
        for name in ("hidden", "steps", "batch_size", "val_size", "test_size",
                     "train_samples", "val_samples", "test_samples", "eval_batch_size",
                     "eval_every"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not self.train_sizes or min(self.train_sizes) < 1:
            raise ValueError("train_sizes must be a non-empty list of positive sizes")
        if self.batch_size > self.train_samples:
            raise ValueError("batch_size must not exceed train_samples")
        if int(self.seed) < 0:  # numpy's and JAX's seeds are unsigned
            raise ValueError(f"seed must be at least 0, got {self.seed}")
        if not 0 < float(self.learning_rate) < float("inf"):  # also rejects NaN
            raise ValueError(f"learning_rate must be a positive number, got {self.learning_rate}")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["train_sizes"] = list(self.train_sizes)
        return d

    @classmethod
    def default_of(cls, name: str) -> Any:
        """What a config saved before the field existed meant: `SAVED_BEFORE`'s value where
        the default has changed since, else the field's default."""
        if name in SAVED_BEFORE:
            return SAVED_BEFORE[name]
        f = next(f for f in dataclasses.fields(cls) if f.name == name)
        return f.default_factory() if f.default_factory is not dataclasses.MISSING \
            else f.default

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        """A saved config (config.json, a checkpoint): missing fields as `default_of` says."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown training option(s): {', '.join(sorted(unknown))}")
        return cls(**{**{k: v for k, v in SAVED_BEFORE.items() if k in known}, **d})

    def digest(self) -> str:
        """Short stable hash of the configuration (to detect a changed grid)."""
        blob = json.dumps(self.to_dict(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]


def option_names() -> list[str]:
    """The names a grid file may set under `train:`."""
    return [f.name for f in dataclasses.fields(TrainConfig) if f.name != "algorithm"]


# TrainConfig fields that `algspec train` sets by a flag of the same name (dashes for
# underscores); the others keep their defaults there and are set only by a grid's `train:`.
TRAIN_FLAGS = ("processor", "hidden", "steps", "batch_size", "train_sizes", "val_size",
               "test_size", "train_samples", "val_samples", "test_samples", "seed",
               "eval_every", "learning_rate", "backend", "graph")


def train_command_line(config: TrainConfig, out: str) -> str | None:
    """The `algspec train` command that starts this run again into `out` (an unfinished
    run there resumes; a finished one is kept unless `--overwrite` is added), or None
    when an option has no `train` flag (a grid's run: rerun its grid)."""
    import shlex

    default = TrainConfig(algorithm=config.algorithm)
    cli_only = {f.name for f in dataclasses.fields(TrainConfig)} - {
        "algorithm", "generator_params", *TRAIN_FLAGS}
    if any(getattr(config, k) != getattr(default, k) for k in cli_only):
        return None
    words = ["algspec", "train", config.algorithm]
    for name in TRAIN_FLAGS:
        value = getattr(config, name)
        if name in ("processor", "seed") or value != getattr(default, name):
            if name == "train_sizes":
                value = ",".join(map(str, value))
            words += [f"--{name.replace('_', '-')}", str(value)]
    for key, value in config.generator_params.items():
        words += ["--param", f"{key}={json.dumps(value)}"]
    words += ["--out", str(out)]
    return shlex.join(words)
