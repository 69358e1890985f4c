"""The one table of processors: what each computes, which backends build it, and
whether it has a sparse (edge-list) form.

Pure Python (no jax, no haiku): `TrainConfig` validates `--processor` against it
before any data are drawn, `algspec.nn.processors` builds its layers from it, and
the CLI lists it in `--help`. Names and arithmetic are dm-clrs's
(`get_processor_factory` in dm-clrs 2.0.3); the memory-network kinds exist only
in dm-clrs's model (`--backend clrs`).
"""

from __future__ import annotations

from typing import NamedTuple

# The training backends (`--backend`): dm-clrs's BaselineModel, or algspec's own model.
CLRS = "clrs"
ALGSPEC = "algspec"
BOTH = frozenset({CLRS, ALGSPEC})


class ProcessorKind(NamedTuple):
    """What a processor kind computes, which graph it reads, and where it is built."""

    family: str            # "mpnn" (message passing, max), "gat" or "gatv2" (attention), "memnet"
    reads: str             # "declared", "complete" or "self"
    triplets: bool = False
    gated: bool = False
    inf_bias: bool = False  # dm-clrs's *_mask kinds: decoders mask non-adjacent pointers
    backends: frozenset[str] = BOTH

    @property
    def sparse(self) -> bool:
        """Whether `--graph sparse` can run it: algspec's model, without triplet messages
        (those read every node triple, which no edge list carries)."""
        return ALGSPEC in self.backends and not self.triplets


PROCESSOR_TABLE: dict[str, ProcessorKind] = {
    "deepsets": ProcessorKind("mpnn", "self"),
    "mpnn": ProcessorKind("mpnn", "complete"),
    "pgn": ProcessorKind("mpnn", "declared"),
    "pgn_mask": ProcessorKind("mpnn", "declared", inf_bias=True),
    "gmpnn": ProcessorKind("mpnn", "complete", gated=True),
    "gpgn": ProcessorKind("mpnn", "declared", gated=True),
    "gpgn_mask": ProcessorKind("mpnn", "declared", gated=True, inf_bias=True),
    "triplet_mpnn": ProcessorKind("mpnn", "complete", triplets=True),
    "triplet_pgn": ProcessorKind("mpnn", "declared", triplets=True),
    "triplet_pgn_mask": ProcessorKind("mpnn", "declared", triplets=True, inf_bias=True),
    "triplet_gmpnn": ProcessorKind("mpnn", "complete", triplets=True, gated=True),
    "triplet_gpgn": ProcessorKind("mpnn", "declared", triplets=True, gated=True),
    "triplet_gpgn_mask": ProcessorKind("mpnn", "declared", triplets=True, gated=True,
                                       inf_bias=True),
    "gat": ProcessorKind("gat", "declared"),
    "gat_full": ProcessorKind("gat", "complete"),
    "gatv2": ProcessorKind("gatv2", "declared"),
    "gatv2_full": ProcessorKind("gatv2", "complete"),
    "memnet_full": ProcessorKind("memnet", "complete", backends=frozenset({CLRS})),
    "memnet_masked": ProcessorKind("memnet", "declared", backends=frozenset({CLRS})),
}


def processors_of(backend: str, *, sparse: bool = False) -> tuple[str, ...]:
    """The processor names `backend` builds (with a sparse form, if `sparse`), table order."""
    return tuple(name for name, kind in PROCESSOR_TABLE.items()
                 if backend in kind.backends and (kind.sparse or not sparse))


def check_processor(name: str, backend: str, graph: str = "dense") -> None:
    """Raise ValueError (one line, naming what this backend and graph mode have) when
    `backend` cannot build processor `name` on `graph`."""
    kind = PROCESSOR_TABLE.get(name)
    if kind is None:
        raise ValueError(f"unknown processor {name!r}; backend {backend} has: "
                         f"{', '.join(processors_of(backend))}")
    if backend not in kind.backends:
        raise ValueError(f"processor {name!r} is not in backend {backend}; it has: "
                         f"{', '.join(processors_of(backend))} ({name} needs --backend "
                         f"{' or '.join(sorted(kind.backends))})")
    if graph == "sparse" and not kind.sparse:
        raise ValueError(f"processor {name} is dense only (its triplet messages are N^3); "
                         f"use --graph dense, or one of: "
                         f"{', '.join(processors_of(backend, sparse=True))}")
