"""A dm-clrs `BaselineModel`'s parameters as algspec's parameter tree.

With converted parameters, algspec's dense model computes what dm-clrs's
does on the same Feedback (the parity tests), so a run can be compared, or
continued, across backends. The tree is assembled from each layer kind's own
mapping: `encoders.from_clrs_params`, `decoders.from_clrs_params` and
`processors.processor_params_from_clrs`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from algspec.nn import decoders, encoders
from algspec.nn.processors import processor_params_from_clrs
from algspec.nn.types import Stage

NET = "net/~"  # algspec's layers live under the net's constructor scope


def from_clrs(clrs_params: Mapping[str, Mapping[str, Any]], spec: Mapping[str, tuple],
              processor: str, *, nb_heads: int = 1, encode_hints: bool = True,
              decode_hints: bool = True) -> dict[str, dict[str, np.ndarray]]:
    """algspec's parameters equal to a dm-clrs `BaselineModel`'s `params` for `spec`."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, (stage, loc, t) in spec.items():
        if stage == Stage.INPUT or (stage == Stage.HINT and encode_hints):
            out.update(encoders.from_clrs_params(clrs_params, f"{NET}/encoder_{name}", name,
                                                 loc, t))
        if stage == Stage.OUTPUT or (stage == Stage.HINT and decode_hints):
            out.update(decoders.from_clrs_params(clrs_params, f"{NET}/decoder_{name}", name,
                                                 loc, t))
    out.update(processor_params_from_clrs(clrs_params, processor, nb_heads,
                                          prefix=f"{NET}/processor"))
    return {k: {a: np.asarray(b) for a, b in v.items()} for k, v in out.items()}
