"""`AlgspecSampler`: a `clrs.Sampler` backed by a compiled `.alg` algorithm.

It is `algspec.sampling.BatchSampler` (batched sampling, dm-clrs's `Sampler`
semantics) whose batches are `clrs.Feedback`, so dm-clrs's models,
`process_permutations`, `process_random_pos` and the rest accept its output
unchanged. One seed gives the same batches as `BatchSampler`; with `edges="sparse"`
the set is held as edge lists and each batch is made dense here (`to_feedback`).
"""

from __future__ import annotations

from typing import Any

import clrs

from algspec.clrs_bridge.feedback import TrajectoriesLike, to_feedback
from algspec.sampling import BatchSampler, compiled_of

__all__ = ["AlgspecSampler", "compiled_of"]


class AlgspecSampler(BatchSampler, clrs.Sampler):
    """A `clrs.Sampler` whose samples come from a compiled algorithm, in batches (see
    `algspec.sampling.BatchSampler` for the constructor and `next`)."""

    def _feedback(self, traj: TrajectoriesLike) -> Any:
        return to_feedback(traj)
