"""CLRS-30 sorting and searching in `.alg` reproduce dm-clrs frame for frame.

minimum, insertion_sort, heapsort, quicksort, quickselect,
find_maximum_subarray_kadane, plus the linked binary_search and bubble_sort:
same spec, and the same input, hint and output arrays on inputs drawn by
dm-clrs's own samplers (per sample and batched) and on ties and orders that
random floats never produce.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clrs30_harness import (
    CLRS_DIR,
    Case,
    check_all,
    check_batched,
    check_sampled,
    check_trace,
)

SORTS = {
    "insertion_sort": Case("insertion_sort.alg", "insertion_sort", ("key",)),
    "heapsort": Case("heapsort.alg", "heapsort", ("key",)),
    "quicksort": Case("quicksort.alg", "quicksort", ("key",)),
    "bubble_sort": Case("bubble_sort.alg", "bubble_sort", ("key",)),
}
SCANS = {
    "minimum": Case("minimum.alg", "minimum", ("key",)),
    "quickselect": Case("quickselect.alg", "quickselect", ("key",)),
    "find_maximum_subarray_kadane": Case(
        "find_maximum_subarray_kadane.alg", "find_maximum_subarray_kadane", ("key",)),
}
SEARCH = Case("binary_search.alg", "binary_search", ("target", "key"))
CASES = {**SORTS, **SCANS, "binary_search": SEARCH}

# dm-clrs's quicksort records no hint frame at n = 1 and then fails in
# `probing.finalize` (np.stack of nothing): n = 1 cannot be compared there.
SIZES = {"quicksort": (2, 5, 8, 16)}
# Kadane's running sums: a float32 run rounds inputs first (see check_batched).
FLOAT32_EXACT = {"find_maximum_subarray_kadane": False}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dm_clrs_samples(name: str) -> None:
    check_all(CASES[name], sizes=SIZES.get(name, (1, 2, 5, 8, 16)),
              float32=FLOAT32_EXACT.get(name, True))


@pytest.mark.parametrize("name", sorted(CASES))
def test_own_sampler(name: str) -> None:
    """algspec's generators feed inputs dm-clrs accepts, with the same trajectories."""
    check_sampled(CASES[name], 9, 8, seed=3)


def test_links_are_relative_symlinks() -> None:
    for fname in ("binary_search.alg", "bubble_sort.alg"):
        path = CLRS_DIR / fname
        assert path.is_symlink() and not path.readlink().is_absolute()
        assert path.resolve() == (CLRS_DIR.parent / fname).resolve()


ORDERS = {
    "n=2 sorted": [0.1, 0.9],
    "n=2 reversed": [0.9, 0.1],
    "n=2 equal": [0.4, 0.4],
    "sorted": list(np.linspace(0.0, 0.9, 8)),
    "reversed": list(np.linspace(0.9, 0.0, 8)),
    "all equal": [0.25] * 6,
    "duplicates": [0.3, 0.1, 0.3, 0.2, 0.1, 0.3, 0.0],
    "one out of place": [0.1, 0.2, 0.3, 0.4, 0.5, 0.0],
    "negative and positive": [-0.5, 0.2, -0.1, 0.7, -0.9, 0.3, 0.3],
}


@pytest.mark.parametrize("name", sorted({**SORTS, **SCANS}))
def test_ties_and_orders(name: str) -> None:
    case = CASES[name]
    for label, key in ORDERS.items():
        check_trace(case, [np.array(key)], label)
    if name != "quicksort":
        check_trace(case, [np.array([0.5])], "n=1")
    same_n = [[np.array(k)] for k in ORDERS.values() if len(k) == 6]
    check_batched(case, same_n, "ties batched", batch_sizes=(1,))


def test_binary_search_ties() -> None:
    for key, target in [([0.5, 0.5, 0.5, 0.5], 0.5), ([0.1, 0.5, 0.5, 0.9], 0.5),
                        ([0.2, 0.4], 0.1), ([0.2, 0.4], 0.9), ([0.3], 0.3)]:
        check_trace(SEARCH, [target, np.array(key)], f"key={key} target={target}")
