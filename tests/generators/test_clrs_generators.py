"""algspec's generators draw dm-clrs's input distributions (CLRS_INPUTS, every CLRS-30 sampler).

For each distinct dm-clrs sampler, inputs drawn by its own `_sample_data` at
the same n are put in CLRS's probe encoding (checked against dm-clrs's
algorithms on a few samples) and compared with algspec's draws: shapes, the
value set, and per-sample statistics (per-position means, densities, degree
moments, symmetry, weights) by a two-sample z-test at 6 standard errors.
"""

from __future__ import annotations

import copy
import math

import networkx as nx
import numpy as np
import pytest

from algspec.generators import CLRS_INPUTS, GENERATORS, draw_inputs

samplers = pytest.importorskip("clrs._src.samplers")
clrs_algorithms = pytest.importorskip("clrs._src.algorithms")
clrs_specs = pytest.importorskip("clrs._src.specs")

N = 12
S = 300  # samples per side

# One algorithm per distinct (sampler, inputs) pair: the others draw the same.
_DISTINCT: dict[tuple, str] = {}
for _alg, _inputs in CLRS_INPUTS.items():
    _DISTINCT.setdefault((samplers.SAMPLERS[_alg], repr(sorted(_inputs.items()))), _alg)
ALGS = sorted(_DISTINCT.values())


def _clrs_sampler(alg: str, seed: int):
    cls = samplers.SAMPLERS[alg]
    s = cls.__new__(cls)
    s._rng = np.random.RandomState(seed)
    s._truncate_decimals = None
    return s


def _onehot(i: int, n: int) -> np.ndarray:
    out = np.zeros(n)
    out[i] = 1.0
    return out


def _categorical(x: np.ndarray, k: int) -> np.ndarray:
    return (np.asarray(x)[..., None] == np.arange(k)).astype(float)


def _encode(alg: str, data: list) -> dict[str, np.ndarray]:
    """dm-clrs's raw `_sample_data` output in its probe encoding (inputs other than pos/adj)."""
    names = [k for k, v in clrs_specs.SPECS[alg].items()
             if v[0] == "input" and k not in ("pos", "adj")]
    if set(names) == {"key"}:
        return {"key": data[0]}
    if alg == "binary_search":
        return {"target": np.asarray(data[0]), "key": data[1]}
    if alg in ("lcs_length", "naive_string_matcher", "kmp_matcher"):
        a, b = data
        return {"string": np.r_[np.zeros(len(a)), np.ones(len(b))],
                "key": _categorical(np.r_[a, b], 4)}
    if alg == "optimal_bst":
        p, q = data
        return {"p": np.r_[p, 0.0], "q": q}
    if set(names) == {"A"}:
        return {"A": data[0]}
    if set(names) == {"s", "A"}:
        return {"A": data[0], "s": _onehot(data[1], data[0].shape[0])}
    return dict(zip(names, data, strict=True))


def _ours_encoded(alg: str, x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """algspec's draws in probe encoding: categorical one-hot, p padded (`nodes n + 1`)."""
    out = dict(x)
    if "key" in out and alg in ("lcs_length", "naive_string_matcher", "kmp_matcher"):
        out["key"] = _categorical(out["key"], 4)
    if alg == "optimal_bst":
        out["p"] = np.pad(out["p"], ((0, 0), (0, 1)))
    return out


def _draw_clrs(alg: str, seed: int, count: int) -> dict[str, np.ndarray]:
    s = _clrs_sampler(alg, seed)
    rows = [_encode(alg, s._sample_data(N)) for _ in range(count)]
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]}


def _draw_ours(alg: str, seed: int, count: int) -> dict[str, np.ndarray]:
    x = draw_inputs(CLRS_INPUTS[alg], np.random.default_rng(seed), count, N)
    return _ours_encoded(alg, x)


@pytest.mark.parametrize("alg", sorted(CLRS_INPUTS))
def test_encoding_matches_clrs_probes(alg: str) -> None:
    """The test's own conversion of raw samples equals dm-clrs's input probes."""
    s = _clrs_sampler(alg, 7)
    for _ in range(2):
        data = s._sample_data(N)
        _, probes = getattr(clrs_algorithms, alg)(*copy.deepcopy(data))  # sorts in place
        flat = {k: v["data"] for loc in probes["input"].values() for k, v in loc.items()}
        for k, v in _encode(alg, data).items():
            np.testing.assert_allclose(np.asarray(flat[k], dtype=float), v, err_msg=k)


@pytest.mark.parametrize("alg", sorted(CLRS_INPUTS))
def test_every_clrs_input_has_a_fitting_generator(alg: str) -> None:
    from algspec.generators import check_declared_type
    spec = clrs_specs.SPECS[alg]
    wanted = {k for k, v in spec.items() if v[0] == "input" and k not in ("pos", "adj")}
    assert set(CLRS_INPUTS[alg]) == wanted
    for name, (gen, params) in CLRS_INPUTS[alg].items():
        _, loc, t = spec[name]
        k = 4 if t == "categorical" else None
        assert check_declared_type(gen, loc, t, k, params) == [], (alg, name)


def _features(x: np.ndarray, loc: str) -> dict[str, np.ndarray]:
    """Per-sample statistics ([S] arrays) of one input."""
    f: dict[str, np.ndarray] = {}
    flat = x.reshape(x.shape[0], -1)
    f["mean"] = flat.mean(axis=1)
    f["square"] = (flat ** 2).mean(axis=1)
    f["nonzero"] = (flat != 0).mean(axis=1)
    if loc == "node":
        for i in range(x.shape[1]):
            cols = x[:, i].reshape(x.shape[0], -1)
            for c in range(cols.shape[1]):
                f[f"pos{i}.{c}"] = cols[:, c]
        if x.ndim == 2:
            f["ascending"] = (np.diff(x, axis=1) >= 0).mean(axis=1)
    if loc == "edge":
        a = x != 0
        deg = a.sum(axis=2)
        f["diag"] = np.diagonal(a, axis1=1, axis2=2).mean(axis=1)
        f["symmetric"] = (a & a.transpose(0, 2, 1)).mean(axis=(1, 2))
        f["deg_var"] = deg.var(axis=1)
        f["indeg_var"] = a.sum(axis=1).var(axis=1)
        f["lower"] = np.tril(a, k=-1).mean(axis=(1, 2))
        edges = a.sum(axis=(1, 2))
        f["weight"] = np.where(a, x, 0).sum(axis=(1, 2)) / np.maximum(edges, 1)
    return f


def _loc(alg: str, name: str) -> str:
    return clrs_specs.SPECS[alg][name][1]


@pytest.mark.parametrize("alg", ALGS)
def test_statistics_match_clrs_sampler(alg: str) -> None:
    # dm-clrs's convex-hull sampler checks collinearity triple by triple in Python: fewer.
    count = 100 if alg in ("graham_scan", "jarvis_march") else S
    theirs = _draw_clrs(alg, 1, count)
    ours = _draw_ours(alg, 1, count)
    assert set(ours) == set(theirs)
    for name in theirs:
        a, b = ours[name], theirs[name]
        assert a.shape == b.shape, name
        assert np.isfinite(a).all()
        # Same kind of values: integer-valued where dm-clrs's are, in the same range.
        assert np.array_equal(a == np.round(a), b == np.round(b)) or not (b == np.round(b)).all()
        assert a.min() >= b.min() - 0.05 * (b.max() - b.min() + 1e-9), name
        assert a.max() <= b.max() + 0.05 * (b.max() - b.min() + 1e-9), name
        fa, fb = _features(a, _loc(alg, name)), _features(b, _loc(alg, name))
        for key in fa:
            m1, m2 = fa[key].mean(), fb[key].mean()
            se = math.sqrt((fa[key].var() + fb[key].var()) / count)
            assert abs(m1 - m2) <= 6 * se + 1e-9, (alg, name, key, m1, m2, se)


def test_dag_inputs_are_acyclic_and_relabelled() -> None:
    a = _draw_ours("dag_shortest_paths", 3, 100)["A"]
    for g in a:
        assert nx.is_directed_acyclic_graph(nx.from_numpy_array(g, create_using=nx.DiGraph))
    assert np.tril(a, k=-1).any()
    assert (a[a != 0] > 0).all() and (a < 1).all()


def test_activity_intervals_are_ordered() -> None:
    x = _draw_ours("activity_selector", 4, 500)
    assert (x["s"] <= x["f"]).all()
    # E[min of two U(0,1)] = 1/3, E[max] = 2/3.
    assert abs(x["s"].mean() - 1 / 3) < 0.01 and abs(x["f"].mean() - 2 / 3) < 0.01


def test_optimal_bst_weights_sum_to_one() -> None:
    x = _draw_ours("optimal_bst", 5, 50)
    np.testing.assert_allclose(x["p"].sum(axis=1) + x["q"].sum(axis=1), 1.0)
    assert (x["p"][:, -1] == 0).all()


@pytest.mark.parametrize("length_needle", [0, 2, -3])
def test_matcher_needle_occurs_in_haystack(length_needle: int) -> None:
    n = 15
    reqs = {"key": ("matcher_string", {"length_needle": length_needle}),
            "string": ("matcher_split", {"length_needle": length_needle})}
    x = draw_inputs(reqs, np.random.default_rng(6), 200, n)
    lengths = x["string"].sum(axis=1).astype(int)
    assert (x["string"] == (np.arange(n) >= n - lengths[:, None])).all()
    want = {0: {3}, 2: {2}, -3: {1, 2, 3}}[length_needle]
    assert set(lengths.tolist()) == want
    for key, ell in zip(x["key"], lengths, strict=True):
        hay, needle = key[: n - ell].tolist(), key[n - ell:].tolist()
        assert any(hay[i:i + ell] == needle for i in range(n - 2 * ell))


def test_segments_cross_half_the_time_like_clrs() -> None:
    from algspec.generators.joint import segments_intersect
    ours = _draw_ours("segments_intersect", 8, 2000)
    theirs = _draw_clrs("segments_intersect", 8, 2000)
    f1 = segments_intersect(ours["x"], ours["y"]).mean()
    f2 = segments_intersect(theirs["x"], theirs["y"]).mean()
    assert abs(f1 - 0.5) < 6 * math.sqrt(0.25 / 2000)
    assert abs(f1 - f2) < 6 * math.sqrt(0.5 / 2000)


def test_disk_points_lie_in_the_disk_uniformly() -> None:
    x = draw_inputs({"x": ("disk_x", {"radius": 3.0, "origin_x": 1.0}),
                     "y": ("disk_y", {"radius": 3.0, "origin_x": 1.0})},
                    np.random.default_rng(9), 400, 10)
    r2 = ((x["x"] - 1.0) ** 2 + x["y"] ** 2) / 9.0
    assert r2.max() <= 1.0
    # Uniform over the disk: r^2 / R^2 is U[0, 1).
    assert abs(r2.mean() - 0.5) < 6 * math.sqrt(1 / 12 / r2.size)


def test_clrs_p_list_is_chosen_per_sample() -> None:
    """CLRS's `p=(0.1, 0.9)`: each graph uses one of the values (bimodal density)."""
    g = GENERATORS["clrs_erdos_renyi"]
    a = g.sample(np.random.default_rng(10), 400, 20, p=[0.1, 0.9], directed=True)
    dens = a.mean(axis=(1, 2))
    assert ((dens < 0.3) | (dens > 0.7)).all()
    assert 0.4 < (dens > 0.5).mean() < 0.6
