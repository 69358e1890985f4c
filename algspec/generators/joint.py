"""Jointly drawn inputs: interval pairs, optimal-BST weights, string matching, point sets.

Some CLRS samplers draw several inputs together (an activity's start is below
its finish; the needle is embedded in the haystack; a point's x and y come
from one polar draw).  Each such distribution is one `draw` that returns
every field, exposed as one generator per field sharing a `group`:
`input node s: scalar ~ interval_start()` and `input node f: scalar ~
interval_finish()` in one file are drawn together when their parameters are
equal (`algspec.generators.draw_inputs`).
"""

from __future__ import annotations

import numpy as np

from algspec.generators.base import Domain, Generator, Params, check_range
from algspec.ir import libm

# ------------------------------------------------------------------ intervals


def _intervals(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    """CLRS ActivitySampler: two U[low, high) per node; start = min, finish = max."""
    a = rng.uniform(low, high, size=(batch, n))
    b = rng.uniform(low, high, size=(batch, n))
    return {"start": np.minimum(a, b), "finish": np.maximum(a, b)}


# ------------------------------------------------------------------ optimal BST


def _optimal_bst(rng: np.random.Generator, batch: int, n: int):
    """CLRS OptimalBSTSampler: 2n + 1 U[0, 1) normalised to sum 1; p = first n, q = last n + 1."""
    arr = rng.uniform(0.0, 1.0, size=(batch, 2 * n + 1))
    arr /= arr.sum(axis=1, keepdims=True)
    return {"p": arr[:, :n], "q": arr[:, n:]}


# ------------------------------------------------------------------ string matching


def needle_lengths(rng: np.random.Generator, batch: int, n: int, length_needle: int) -> np.ndarray:
    """Needle length per sample, as CLRS's MatcherSampler.

    0: n // 5 (1 below n = 5); positive: that length; negative: uniform in
    [1, -length_needle] per sample.
    """
    if length_needle == 0:
        return np.full(batch, 1 if n < 5 else n // 5)
    if length_needle > 0:
        return np.full(batch, length_needle)
    return rng.integers(1, 1 - length_needle, size=batch)


def _matcher(rng: np.random.Generator, batch: int, n: int, *, length_needle: int, chars: int):
    """Haystack then needle over n nodes; the needle is copied into the haystack.

    As CLRS: the needle takes the last L nodes, the haystack the first n - L;
    the needle is written at a uniform position in [0, n - 2L) of the haystack.
    """
    longest = abs(length_needle) if length_needle else (1 if n < 5 else n // 5)
    if n - 2 * longest < 1:
        raise ValueError(f"string matching: n={n} is too small for a needle of {longest} "
                         "(CLRS needs n - 2 * needle >= 1)")
    lengths = needle_lengths(rng, batch, n, length_needle)
    key = rng.integers(0, chars, size=(batch, n))
    hay = n - lengths
    embed = np.floor(rng.random(batch) * (hay - lengths)).astype(np.int64)
    i = np.arange(n)[None, :]
    inside = (i >= embed[:, None]) & (i < (embed + lengths)[:, None])
    src = np.where(inside, hay[:, None] + i - embed[:, None], i)
    key = np.take_along_axis(key, src, axis=1)
    return {"string": key, "split": i >= hay[:, None]}


# ------------------------------------------------------------------ points


def collinear(xs: np.ndarray, ys: np.ndarray, eps: float) -> np.ndarray:
    """Per sample: whether some three points have |cross product| < eps.  [B, n] -> [B].

    One anchor at a time, against every pair of later points (broadcast, no gathers).
    """
    batch, n = xs.shape
    out = np.zeros(batch, dtype=bool)
    for a in range(n - 2):
        dx = xs[:, a + 1:] - xs[:, a:a + 1]
        dy = ys[:, a + 1:] - ys[:, a:a + 1]
        cross = dx[:, :, None] * dy[:, None, :] - dy[:, :, None] * dx[:, None, :]
        k = dx.shape[1]
        upper = np.triu(np.ones((k, k), dtype=bool), k=1)
        out |= ((np.abs(cross) < eps) & upper).any(axis=(1, 2))
    return out


def _disk(rng: np.random.Generator, batch: int, n: int, *, origin_x: float, origin_y: float,
          radius: float):
    """CLRS ConvexHullSampler: n points uniform over a disk, redrawn while three are collinear."""
    xs = np.empty((batch, n))
    ys = np.empty((batch, n))
    todo = np.arange(batch)
    for _ in range(1000):
        theta = rng.uniform(0.0, 2.0 * np.pi, size=(len(todo), n))
        r = radius * np.sqrt(rng.uniform(0.0, 1.0, size=(len(todo), n)))
        # libm: numpy's SIMD cos/sin differ by CPU in the last bit; the same seed gives the same bytes
        x, y = r * libm.cos(theta) + origin_x, r * libm.sin(theta) + origin_y
        bad = collinear(x, y, 1e-12)
        xs[todo[~bad]], ys[todo[~bad]] = x[~bad], y[~bad]
        todo = todo[bad]
        if not len(todo):
            return {"x": xs, "y": ys}
    raise ValueError(f"disk points: no {n} points without three collinear in 1000 tries")


def _ccw(xa, ya, xb, yb, xc, yc) -> np.ndarray:
    """Whether a, b, c turn counter-clockwise (collinear counts as not)."""
    return (yc - ya) * (xb - xa) > (yb - ya) * (xc - xa)


def segments_intersect(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Whether segment (p0, p1) crosses (p2, p3), per sample; CLRS's test ignoring collinearity."""
    p = [(x[:, k], y[:, k]) for k in range(4)]
    return ((_ccw(*p[0], *p[2], *p[3]) != _ccw(*p[1], *p[2], *p[3]))
            & (_ccw(*p[0], *p[1], *p[2]) != _ccw(*p[0], *p[1], *p[3])))


def _segments(rng: np.random.Generator, batch: int, n: int, *, low: float, high: float):
    """CLRS SegmentsSampler: 4 points; a fair coin decides whether the segments cross."""
    want = rng.random(batch) < 0.5
    xs = np.empty((batch, 4))
    ys = np.empty((batch, 4))
    todo = np.arange(batch)
    while len(todo):
        x = rng.uniform(low, high, size=(len(todo), 4))
        y = rng.uniform(low, high, size=(len(todo), 4))
        ok = segments_intersect(x, y) == want[todo]
        xs[todo[ok]], ys[todo[ok]] = x[ok], y[ok]
        todo = todo[~ok]
    return {"x": xs, "y": ys}


# ------------------------------------------------------------------ two sorted runs


def run_split(n: int, split: int) -> int | None:
    """The fixed start of the second run (0: n // 2), or None when drawn per sample (< 0)."""
    if split < 0:
        return None
    return n // 2 if split == 0 else split


def _two_sorted_runs(rng: np.random.Generator, batch: int, n: int, *, split: int, low: float,
                     high: float):
    """Keys U[low, high) whose runs [0, k) and [k, n) are each sorted ascending, and k.

    Draws, in order: k per sample (split < 0: uniform in [0, n]), then the keys.
    """
    fixed = run_split(n, split)
    if fixed is not None and fixed > n:
        raise ValueError(f"two_sorted_runs: split={split} exceeds n={n}")
    k = rng.integers(0, n + 1, size=batch) if fixed is None else np.full(batch, fixed)
    raw = rng.uniform(low, high, size=(batch, n))
    second = np.arange(n)[None, :] >= k[:, None]
    order = np.lexsort((raw, second), axis=-1)  # by run, then by key: each run sorted in place
    return {"key": np.take_along_axis(raw, order, axis=1), "split": k}


# ------------------------------------------------------------------ registry


def _check_matcher(p: Params) -> list[str]:
    return [] if p["chars"] >= 1 else [f"'chars' must be >= 1, got {p['chars']}"]


def _check_disk(p: Params) -> list[str]:
    return [] if p["radius"] > 0 else [f"'radius' must be > 0, got {p['radius']}"]


def _fields(group: str, draw, location: str, defaults: dict, check, doc: str,
            fields: dict[str, tuple[str, object, object]]) -> list[Generator]:
    """One generator per field: name -> (field, domain, size)."""
    return [
        Generator(name=name, location=location, defaults=defaults, draw=draw, check=check,
                  domain=domain, size=size, group=group, part=fld,
                  doc=f"{doc} This generator gives `{fld}`; drawn jointly with "
                      + ", ".join(f"`{o}`" for o in fields if o != name)
                      + " under equal parameters.")
        for name, (fld, domain, size) in fields.items()
    ]


def _real(p: Params) -> Domain:
    return Domain("real", low=p["low"], high=p["high"])


def _split_domain(p: Params) -> Domain:
    fixed = p["split"] if p["split"] > 0 else None
    return Domain("int", low=fixed or 0, high=fixed)


def _split_shown(p: Params) -> str:
    s = p["split"]
    return ("an integer in [0, n]" if s < 0 else "n // 2" if s == 0
            else f"the integer {s}")


def _split_bounds(n: int, p: Params) -> tuple[int, int]:
    fixed = run_split(n, p["split"])
    return (0, n) if fixed is None else (fixed, fixed)


_RUNS_DOC = ("Two sorted runs: U[low, high) keys whose nodes [0, k) and [k, n) are each "
             "sorted ascending (the input of a merge), split at k = split (0: n // 2; "
             "negative: uniform in [0, n] per sample).")
_RUNS = {"split": 0, "low": 0.0, "high": 1.0}


GENERATORS: list[Generator] = [
    *_fields(
        "intervals", _intervals, "node", {"low": 0.0, "high": 1.0}, check_range,
        "Interval pairs (CLRS ActivitySampler): two U[low, high) per node, start = min, "
        "finish = max.",
        {"interval_start": ("start", _real, None), "interval_finish": ("finish", _real, None)},
    ),
    *_fields(
        "optimal_bst", _optimal_bst, "node", {}, lambda _p: [],
        "Optimal-BST weights (CLRS OptimalBSTSampler): 2n + 1 U[0, 1) normalised to sum "
        "1; p is the first n (declare `nodes n + 1`; p's last node is padded), q the last "
        "n + 1.",
        {"bst_p": ("p", Domain("real", 0.0, 1.0), None),
         "bst_q": ("q", Domain("real", 0.0, 1.0), lambda n, _p: n + 1)},
    ),
    *_fields(
        "matcher", _matcher, "node", {"length_needle": 0, "chars": 4}, _check_matcher,
        "String matching (CLRS MatcherSampler): a haystack of n - L characters then a "
        "needle of L (length_needle; 0: n // 5, at least 1; negative: uniform in "
        "[1, -length_needle] per sample), over `chars` letters, the needle copied into the "
        "haystack at a uniform position.",
        {"matcher_string": ("string", lambda p: Domain("categorical", k=p["chars"]), None),
         "matcher_split": ("split", Domain("bool"), None)},
    ),
    *_fields(
        "disk", _disk, "node", {"origin_x": 0.0, "origin_y": 0.0, "radius": 2.0}, _check_disk,
        "Points uniform over a disk (CLRS ConvexHullSampler: graham_scan, jarvis_march), "
        "redrawn while three are collinear (cross product below 1e-12).",
        {"disk_x": ("x", Domain("real"), None), "disk_y": ("y", Domain("real"), None)},
    ),
    *_fields(
        "segments", _segments, "node", {"low": 0.0, "high": 1.0}, check_range,
        "Two segments (p0, p1), (p2, p3) with coordinates U[low, high) (CLRS "
        "SegmentsSampler): always 4 points whatever n (declare `nodes 4`), crossing "
        "with probability 1/2.",
        {"segments_x": ("x", _real, lambda _n, _p: 4), "segments_y": ("y", _real, lambda _n, _p: 4)},
    ),
    Generator(
        name="two_sorted_runs", location="node", defaults=_RUNS, draw=_two_sorted_runs,
        check=check_range, domain=_real, group="two_sorted_runs", part="key",
        doc=f"{_RUNS_DOC} This generator gives the keys; drawn jointly with "
            "`two_sorted_runs_split` under equal parameters."),
    Generator(
        name="two_sorted_runs_split", location="graph", defaults=_RUNS, draw=_two_sorted_runs,
        check=check_range, domain=_split_domain, group="two_sorted_runs", part="split",
        bounds=_split_bounds, shown=_split_shown,
        doc=f"{_RUNS_DOC} This generator gives k, the first node of the second run (a "
            "graph `scalar`, or a `pointer` when k < N); drawn jointly with "
            "`two_sorted_runs` under equal parameters."),
]
