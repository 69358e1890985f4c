"""CLRS-30 string algorithms in `.alg` against dm-clrs: naive_string_matcher,
kmp_matcher, lcs_length.

All three have dm-clrs's spec, per-string `pos` (declared after `string`,
as dm-clrs's spec has it) included. All three match dm-clrs exactly,
lcs_length's MASKED cells of `b`/`b_h` ([0, 0, 0, -1] outside x-by-y:
`masked where`) included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.support.clrs30_harness import (
    Case,
    assert_spec,
    check_all,
    check_batched,
    check_sampled,
    check_trace,
    clrs_run,
    draw,
)


def _two_strings(args: list[Any]) -> dict[str, np.ndarray]:
    """dm-clrs's (T, P) / (x, y) as one node string: `string` 0 then 1, `key` the letters."""
    first, second = args
    return {"string": np.r_[np.zeros(len(first)), np.ones(len(second))],
            "key": np.r_[first, second].astype(float)}


def _split(one: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The inverse of `_two_strings` on sampled probes (`key` one-hot): dm-clrs's two strings."""
    second = one["string"] == 1
    letters = one["key"].argmax(-1)
    return [letters[~second], letters[second]]


NAIVE = Case("naive_string_matcher.alg", "naive_string_matcher", ("T", "P"),
             convert=_two_strings)
KMP = Case("kmp_matcher.alg", "kmp_matcher", ("T", "P"), convert=_two_strings)
LCS = Case("lcs_length.alg", "lcs_length", ("x", "y"), convert=_two_strings)
CASES = {c.clrs_name: c for c in (NAIVE, KMP, LCS)}


# dm-clrs's matcher sampler needs n >= 3 (a haystack longer than the needle); LCS n >= 2.
@pytest.mark.parametrize("name", sorted(CASES))
def test_dm_clrs_samples(name: str) -> None:
    sizes = (2, 3, 5, 8, 16) if name == "lcs_length" else (3, 4, 5, 8, 16)
    check_all(CASES[name], sizes=sizes, per_size=4, batched_size=12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_own_sampler(name: str) -> None:
    """algspec's generators feed inputs dm-clrs accepts, with the same trajectories."""
    check_sampled(CASES[name], 10, 8, seed=6, to_clrs=_split)


@pytest.mark.parametrize("name", ["naive_string_matcher", "kmp_matcher"])
def test_long_needles(name: str) -> None:
    """Needles of random length (dm-clrs's length_needle < 0), where KMP falls back often."""
    case = CASES[name]
    for n in (8, 12):
        samples = draw(case, n, 5, seed=40 + n, length_needle=-(n // 2 - 1))
        for i, args in enumerate(samples):
            check_trace(case, args, f"n={n} #{i}")


MATCHER_CASES = {
    "needle of 1 at 0": ([2, 0, 1], [2]),
    "repeats": ([0, 0, 0, 0, 1, 0, 0], [0, 0, 1]),
    "periodic needle": ([0, 1, 0, 1, 0, 1, 1, 0], [0, 1, 0, 1, 1]),
    "match at the end": ([3, 3, 2, 3, 3, 1], [3, 1]),
    "same letter": ([1, 1, 1, 1, 1, 1], [1, 1, 1]),
}


@pytest.mark.parametrize("name", ["naive_string_matcher", "kmp_matcher"])
def test_matcher_edge_cases(name: str) -> None:
    for label, (t, p) in MATCHER_CASES.items():
        check_trace(CASES[name], [np.array(t), np.array(p)], label)


def test_kmp_no_match() -> None:
    # dm-clrs's samplers always embed the needle. Without a match, KMP points `match` at the
    # needle's head; dm-clrs's naive matcher then skips `probing.finalize`, so only KMP here.
    check_trace(KMP, [np.array([0, 1, 2, 0, 1, 2]), np.array([3, 3])], "no match")
    check_trace(KMP, [np.array([0, 1, 0, 1, 0]), np.array([1, 1])], "no match, partial")


def test_lcs_edge_cases() -> None:
    cases = {
        "n=2 equal": ([1], [1]),
        "n=2 different": ([1], [2]),
        "identical": ([0, 1, 2, 3], [0, 1, 2, 3]),
        "disjoint alphabets": ([0, 1, 0, 1], [2, 3, 3]),
        "one letter": ([2, 2, 2, 2, 2], [2, 2, 2]),
        "reversed": ([0, 1, 2, 3], [3, 2, 1, 0]),
    }
    for label, (x, y) in cases.items():
        check_trace(LCS, [np.array(x), np.array(y)], label)
    same_n = [[np.array(x), np.array(y)] for x, y in list(cases.values())[2:]]
    check_batched(LCS, [a for a in same_n if len(a[0]) + len(a[1]) == 8], "edge cases batched")


@pytest.mark.parametrize("name", sorted(CASES))
def test_spec_exact(name: str) -> None:
    assert_spec(CASES[name])


def test_lcs_masked_cells_exact() -> None:
    _, probes = clrs_run(LCS, [np.array([0, 1, 2]), np.array([1, 2])])
    assert (probes["output"]["edge"]["b"]["data"] == -1).any()  # the reference has MASKED cells
    check_trace(LCS, [np.array([0, 1, 2]), np.array([1, 2])], "n=5")
