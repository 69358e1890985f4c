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
import numbers
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

ENCODER_INITS = ("default", "xavier_on_scalars")
MAX_SEED = 2**32 - 1  # JAX's PRNGKey keeps 32 bits of a seed
MAX_HIDDEN = 65536  # a layer of 65536 x 65536 weights is 16 GiB already

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
        _check_types(self)
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
        if int(self.seed) > MAX_SEED:  # JAX keeps 32 bits: 2**32 would repeat seed 0
            raise ValueError(f"seed must be at most {MAX_SEED}, got {self.seed}")
        if int(self.hidden) > MAX_HIDDEN:
            raise ValueError(f"hidden must be at most {MAX_HIDDEN}, got {self.hidden}")
        for name in ("nb_heads", "nb_triplet_fts"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not 0 <= float(self.grad_clip) < float("inf"):  # 0: no clipping
            raise ValueError(f"grad_clip must be a number at least 0, got {self.grad_clip}")
        if self.encoder_init not in ENCODER_INITS:
            raise ValueError(f"encoder_init must be one of {', '.join(ENCODER_INITS)}, not "
                             f"{self.encoder_init!r}")
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


# The kind of value each option holds, checked before any other check so that a grid's
# `steps: 2.5`, `hidden: true` or `train_sizes: 4` is one line naming the option rather
# than a truncated number or a TypeError deep in the trainer.
_INT, _REAL, _BOOL, _TEXT = "an integer", "a number", "true or false", "a string"
_KINDS: dict[str, str] = {
    "algorithm": _TEXT, "processor": _TEXT, "hint_mode": _TEXT, "encoder_init": _TEXT,
    "backend": _TEXT, "graph": _TEXT, "learning_rate": _REAL, "grad_clip": _REAL,
    "random_pos": _BOOL, "test_random_pos": _BOOL, "use_ln": _BOOL,
    **{name: _INT for name in ("hidden", "steps", "batch_size", "val_size", "test_size",
                               "train_samples", "val_samples", "test_samples",
                               "eval_batch_size", "eval_every", "seed", "nb_heads",
                               "nb_triplet_fts")},
}


def _is_kind(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == _BOOL
    if kind == _INT:
        return isinstance(value, numbers.Integral)
    if kind == _REAL:
        return isinstance(value, numbers.Real)
    return isinstance(value, str) if kind == _TEXT else False


def _check_types(config: TrainConfig) -> None:
    """Raise ValueError naming the first option whose value is of the wrong kind."""
    for name, kind in _KINDS.items():
        value = getattr(config, name)
        if not _is_kind(value, kind):
            raise ValueError(f"{name} must be {kind}, not {value!r}")
    sizes = config.train_sizes
    if not isinstance(sizes, list | tuple) or not all(_is_kind(n, _INT) for n in sizes):
        raise ValueError(f"train_sizes must be a list of integers, not {sizes!r}")
    if config.pred_as_input is not None and not isinstance(config.pred_as_input, bool):
        raise ValueError(f"pred_as_input must be true, false or null, not "
                         f"{config.pred_as_input!r}")
    params = config.generator_params
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise ValueError(f"generator_params must be a mapping of parameter names to values, "
                         f"not {params!r}")


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
