"""An OOD cell's "peak host GB" is that cell's own peak, not a larger cell's before it,
and the table says which figures are the whole process's peak."""

from __future__ import annotations

import numpy as np
import pytest

from algspec.training import ood


def test_a_small_cell_after_a_large_one_shows_its_own_peak() -> None:
    if not ood.reset_peak_rss():
        pytest.skip("this kernel cannot reset the resident-memory peak (/proc/self/clear_refs); "
                    "there a cell shows the process peak, marked so (the next test)")
    big = np.ones(400 * 2**20 // 8)  # 400 MB resident, as a large cell's test set
    large_peak = ood.peak_rss_gb()
    assert large_peak > 0.35
    del big
    assert ood.reset_peak_rss()  # the next cell starts
    small = np.ones(2**20)
    record = ood._host_peak(True)
    del small
    assert record["peak_host_memory_scope"] == "cell"
    assert record["peak_host_memory_gb"] < large_peak - 0.3  # not the 400 MB cell's


def _summary(scopes: list[str | None]) -> dict:
    cells = []
    for n, scope in zip((16, 160), scopes, strict=True):
        cell = {"family": "er", "size": n, "score": 0.5, "metric": "micro_f1",
                "mean_edges": None, "sample_seconds": 1.0, "test_seconds": 2.0,
                "peak_host_memory_gb": 1.25}
        if scope:
            cell["peak_host_memory_scope"] = scope
        cells.append(cell)
    return {"algorithm": "x", "processor": "mpnn", "hidden": 8, "seed": 0, "backend": "algspec",
            "graph": "dense", "train_sizes": [4], "samples": 8, "device": "cpu",
            "families": ["er"], "sizes": [16, 160], "cells": cells}


def test_the_table_marks_a_process_wide_peak() -> None:
    per_cell = ood.markdown_table(_summary(["cell", "cell"]))
    assert "| 1.25 |" in per_cell and "*" not in per_cell
    assert "while the cell was sampled and tested" in per_cell
    older = ood.markdown_table(_summary(["cell", None]))  # a cell written before scopes
    assert "| 1.25 * |" in older and "whole sweep so far" in older
