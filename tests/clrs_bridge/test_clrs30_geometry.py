"""CLRS-30 geometry in `.alg` against dm-clrs: segments_intersect, graham_scan, jarvis_march.

Points come from dm-clrs's own samplers and from hand-made degenerate cases:
touching and collinear segments, hulls with an inner point, ties in the
lowest point. (dm-clrs's Graham scan assumes no three collinear points, as its
sampler ensures; the degenerate hulls are run through Jarvis' march only, but
for points on rays from the lowest one, whose tied angles Graham's scan takes
in numpy's default argsort order: `by ... unstable`.)
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clrs30_harness import Case, check_all, check_batched, check_sampled, check_trace

SEGMENTS = Case("segments_intersect.alg", "segments_intersect", ("x", "y"))
JARVIS = Case("jarvis_march.alg", "jarvis_march", ("x", "y"))
GRAHAM = Case("graham_scan.alg", "graham_scan", ("x", "y"))


def test_segments_intersect() -> None:
    # dm-clrs always draws 4 points; `dir` is a float product (see check_batched on float32).
    check_all(SEGMENTS, sizes=(4,), per_size=12, batched_size=4, batched_count=8, float32=False)


def test_jarvis_march() -> None:
    check_all(JARVIS, sizes=(1, 2, 3, 5, 8, 12))


def test_graham_scan() -> None:
    # `atans` is atan2 of differences: a float32 run rounds the inputs first.
    check_all(GRAHAM, sizes=(1, 2, 3, 5, 8, 12), float32=False)


def test_graham_scan_general_position() -> None:
    cases = {
        "triangle with inner point": ([0.0, 1.0, 0.5, 0.5], [0.0, 0.0, 1.0, 0.3]),
        "square with centre": ([0.0, 1.0, 1.1, 0.0, 0.5], [0.0, 0.1, 1.0, 1.0, 0.45]),
        "convex pentagon": (list(np.cos(np.arange(5) * 1.25 + 0.1)),
                            list(np.sin(np.arange(5) * 1.25 + 0.1))),
    }
    for label, (x, y) in cases.items():
        check_trace(GRAHAM, [np.array(x), np.array(y)], label)


def _rays(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The origin and pairs of points on 9 rays from it (exact binary fractions: tied angles)."""
    rays = [(a / 4, 1.0) for a in range(-4, 5)]
    pts = [(0.0, 0.0)] + [(k * a / 2, k * b / 2) for a, b in rays for k in (1, 2)]
    pts = [pts[i] for i in np.random.default_rng(seed).permutation(len(pts))]
    return np.array([p[0] for p in pts]), np.array([p[1] for p in pts])


def test_graham_scan_unstable_angle_ties() -> None:
    """Tied angles are taken in numpy's default np.argsort order, as dm-clrs takes them."""
    batch = []
    for seed in range(3):
        x, y = _rays(seed)
        key = np.arctan2(y, x)
        key[np.argmin(y)] = -123456789.0
        assert not np.array_equal(np.argsort(key), np.argsort(key, kind="stable"))
        batch.append([x, y])
        check_trace(GRAHAM, [x, y], f"rays of tied angles ({seed})")
    check_batched(GRAHAM, batch, "rays batched")


def test_own_samplers() -> None:
    """algspec's generators feed inputs dm-clrs accepts, with the same trajectories."""
    check_sampled(SEGMENTS, 4, 8, seed=5)
    check_sampled(GRAHAM, 9, 6, seed=5)
    check_sampled(JARVIS, 9, 6, seed=5)


SEGMENT_CASES = {
    "crossing": ([0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]),
    "disjoint": ([0.0, 0.25, 0.5, 1.0], [0.0, 0.25, 0.5, 1.0]),
    "shared endpoint": ([0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 0.0]),
    "T junction": ([0.0, 1.0, 0.5, 0.5], [0.0, 0.0, 0.0, 1.0]),
    "collinear overlapping": ([0.0, 0.5, 0.25, 1.0], [0.0, 0.0, 0.0, 0.0]),
    "collinear apart": ([0.0, 0.25, 0.5, 1.0], [0.0, 0.0, 0.0, 0.0]),
    "parallel": ([0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.5, 0.5]),
    "point segment on the other": ([0.5, 0.5, 0.0, 1.0], [0.5, 0.5, 0.0, 1.0]),
}


@pytest.mark.parametrize("label", sorted(SEGMENT_CASES))
def test_segments_degenerate(label: str) -> None:
    x, y = SEGMENT_CASES[label]
    check_trace(SEGMENTS, [np.array(x), np.array(y)], label)


HULL_CASES = {
    "n=1": ([0.3], [0.7]),
    "n=2": ([0.5, -0.5], [0.1, 0.1]),
    "triangle with inner point": ([0.0, 1.0, 0.5, 0.5], [0.0, 0.0, 1.0, 0.3]),
    "square with centre": ([0.0, 1.0, 1.0, 0.0, 0.5], [0.0, 0.0, 1.0, 1.0, 0.5]),
    "point on an edge": ([0.0, 1.0, 2.0, 1.0], [0.0, 0.0, 0.0, 1.0]),
    "tied lowest y": ([1.0, 0.0, 0.5, 2.0], [0.0, 0.0, 1.0, 0.0]),
    "pentagon": (list(np.cos(np.arange(5) * 2 * np.pi / 5)), list(np.sin(np.arange(5) * 2 * np.pi / 5))),
}


@pytest.mark.parametrize("label", sorted(HULL_CASES))
def test_jarvis_degenerate(label: str) -> None:
    x, y = HULL_CASES[label]
    check_trace(JARVIS, [np.array(x), np.array(y)], label)


def test_jarvis_batched_mixed_lengths() -> None:
    four = [[np.array(x), np.array(y)] for x, y in HULL_CASES.values() if len(x) == 4]
    check_batched(JARVIS, four, "degenerate batched")
