"""The numpy dtype of each IR dtype: one table for evaluation, writes and the machine."""

from __future__ import annotations

import numpy as np

from algspec import ir

NP_DTYPE: dict[ir.DType, type[np.generic]] = {
    ir.DType.INT: np.int64, ir.DType.FLOAT: np.float64, ir.DType.BOOL: np.bool_}
