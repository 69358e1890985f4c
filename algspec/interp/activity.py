"""The observer protocol: how the interpreter reports the activity it measures.

A leaf module, so that the environment, the evaluation and the reporting
helpers (`observe.py`) can all name the observer without importing each other.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class ActivityObserver(Protocol):
    """Receives what each statement touches, per sample.

    Optional, looked up with `getattr`:
    `loop(stmt_id, sample, iterations)`: a while/for loop finished on the samples
    `sample` after `iterations[i]` trips in sample `sample[i]`;
    `aggregate_elements(e, readout, sel, evaluated, body)`: which elements of an
    aggregation to report, from those its filter passes (`sel`), those it evaluated
    the filter on and its body's values (default: `sel`).
    """

    def nodes(self, stmt_id: int, sample: np.ndarray, node: np.ndarray) -> None: ...

    def edges(self, stmt_id: int, sample: np.ndarray, src: np.ndarray,
              dst: np.ndarray) -> None: ...

    def frame(self, sample: np.ndarray) -> None: ...
