"""CLRS-30 dynamic programming and greedy algorithms in `.alg` against dm-clrs.

optimal_bst, matrix_chain_order, task_scheduling and activity_selector match
dm-clrs exactly (matrix_chain_order's and activity_selector's hint `m`, a
reserved word, is declared with `as m`), ties of dm-clrs's unstable
np.argsort included (`for x in nodes by ... unstable`).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clrs30_harness import (
    Case,
    assert_spec,
    check_all,
    check_batched,
    check_sampled,
    check_trace,
    load,
)

OPTIMAL_BST = Case("optimal_bst.alg", "optimal_bst", ("p", "q"))
TASKS = Case("task_scheduling.alg", "task_scheduling", ("d", "w"))
MATRIX_CHAIN = Case("matrix_chain_order.alg", "matrix_chain_order", ("p",))
ACTIVITIES = Case("activity_selector.alg", "activity_selector", ("s", "f"))
SIZES = (1, 2, 3, 5, 8, 16)


def test_optimal_bst() -> None:
    # e and w are float sums: a float32 run rounds the inputs first (see check_batched).
    check_all(OPTIMAL_BST, sizes=SIZES, float32=False)


def test_matrix_chain_order() -> None:
    check_all(MATRIX_CHAIN, sizes=SIZES, float32=False)


def test_task_scheduling() -> None:
    check_all(TASKS, sizes=SIZES)


def test_activity_selector() -> None:
    check_all(ACTIVITIES, sizes=SIZES)


def test_own_samplers() -> None:
    """algspec's generators feed inputs dm-clrs accepts, with the same trajectories."""
    for case in (TASKS, MATRIX_CHAIN, ACTIVITIES):
        check_sampled(case, 9, 8, seed=4)
    # optimal_bst has n + 1 nodes: dm-clrs's p is the n keys, without the padded node.
    check_sampled(OPTIMAL_BST, 9, 8, seed=4, to_clrs=lambda one: [one["p"][:-1], one["q"]])


@pytest.mark.parametrize("case", [MATRIX_CHAIN, ACTIVITIES], ids=lambda c: c.clrs_name)
def test_spec_with_hint_m(case: Case) -> None:
    assert_spec(case)
    assert "m" in load(case).spec


def test_optimal_bst_edge_cases() -> None:
    cases = {
        "n=1": ([0.5], [0.25, 0.25]),
        "uniform": ([0.1] * 4, [0.12] * 5),
        "zero keys": ([0.0, 0.0, 0.0], [0.25] * 4),
        "zero gaps": ([0.2, 0.3, 0.5], [0.0] * 4),
        "skewed": ([0.5, 0.01, 0.01, 0.3], [0.02, 0.01, 0.05, 0.05, 0.05]),
    }
    for label, (p, q) in cases.items():
        check_trace(OPTIMAL_BST, [np.array(p), np.array(q)], label)


def test_matrix_chain_edge_cases() -> None:
    cases = {
        "n=1": [0.5],
        "n=2": [0.5, 0.25],
        "equal dims (every split ties)": [0.5] * 6,
        "zero dim": [0.3, 0.0, 0.7, 0.2, 0.0],
        "increasing": list(np.linspace(0.1, 0.9, 7)),
    }
    for label, p in cases.items():
        check_trace(MATRIX_CHAIN, [np.array(p)], label)


def numpy_order_is_stable(keys: np.ndarray) -> bool:
    """Whether dm-clrs's `np.argsort(keys)` (unstable) happens to give the stable order."""
    return bool(np.array_equal(np.argsort(keys), np.argsort(keys, kind="stable")))


TASK_TIES = {
    "n=1": ([1], [0.5]),
    "equal penalties": ([2, 1, 3, 1, 2, 1], [0.5] * 6),
    "all deadline 1": ([1] * 6, [0.3, 0.9, 0.1, 0.9, 0.5, 0.2]),
    "loose deadlines": ([6] * 6, [0.3, 0.9, 0.1, 0.9, 0.5, 0.2]),
}


def test_task_scheduling_ties() -> None:
    # Ties where numpy's default argsort happens to be stable (see the unstable test below).
    for label, (d, w) in TASK_TIES.items():
        assert numpy_order_is_stable(-np.array(w)), label
        check_trace(TASKS, [np.array(d), np.array(w)], label)
    check_batched(TASKS, [[np.array(d), np.array(w)] for d, w in list(TASK_TIES.values())[1:]],
                  "ties batched")


def _unstable_ties(n: int, seed: int) -> np.ndarray:
    """Keys from two or three levels whose default np.argsort is not the stable order."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        keys = rng.integers(1, 4, n) / 4.0
        if not numpy_order_is_stable(keys):
            return keys
    raise AssertionError(f"numpy's default argsort is stable on every draw at n={n}")


def test_task_scheduling_unstable_ties() -> None:
    # `for x in nodes by -w unstable` orders as dm-clrs's np.argsort(-w), ties included.
    d, w = np.array([1 + i % 4 for i in range(16)]), np.array([0.5, 0.25] * 8)
    check_trace(TASKS, [d, w], "16 tied penalties")
    batch = [[np.array([1 + i % 5 for i in range(40)]), -_unstable_ties(40, seed)]
             for seed in range(3)]
    for i, args in enumerate(batch):
        check_trace(TASKS, args, f"40 tasks, penalties from 3 levels ({i})")
    check_batched(TASKS, batch, "unstable ties batched")


def test_activity_selector_unstable_ties() -> None:
    batch = []
    for seed in range(3):
        f = _unstable_ties(40, seed)
        batch.append([f - np.random.default_rng(seed).uniform(0.0, 0.25, 40), f])
    for i, args in enumerate(batch):
        check_trace(ACTIVITIES, args, f"40 activities, finish times from 3 levels ({i})")
    check_batched(ACTIVITIES, batch, "unstable ties batched")


def test_activity_selector_ties() -> None:
    cases = {
        "n=1": ([0.2], [0.4]),
        "touching": ([0.0, 0.2, 0.4, 0.6], [0.2, 0.4, 0.6, 0.8]),
        "equal finish": ([0.1, 0.0, 0.2, 0.3], [0.5, 0.5, 0.5, 0.9]),
        "nested": ([0.0, 0.1, 0.2, 0.3], [0.9, 0.8, 0.7, 0.6]),
        "identical": ([0.3] * 4, [0.6] * 4),
    }
    for label, (s, f) in cases.items():
        check_trace(ACTIVITIES, [np.array(s), np.array(f)], label)
