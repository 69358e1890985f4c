"""The shipped sequential algorithms reproduce dm-clrs exactly, frame for frame.

`algorithms/binary_search.alg`, `bubble_sort.alg` and `kosaraju.alg` must have
dm-clrs's spec and, on the same inputs, the same input, hint and output arrays
as `binary_search`, `bubble_sort` and `strongly_connected_components`: per
sample through `alg.trace`, and batched through `alg.run` / `alg.sample`.

Values are compared exactly.  Where algspec stores a probe as float32 (the
`Trajectories` contract), dm-clrs's float64 value is rounded to float32 first:
the comparison is then still exact, and every discrete probe (masks, pointers,
one-hots) is unaffected by the rounding.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

clrs = pytest.importorskip("clrs")

from clrs._src import algorithms as clrs_algorithms

from algspec.clrs_bridge.feedback import batch_probes
from algspec.generators import GENERATORS

ROOT = Path(__file__).resolve().parents[2]
CASES = {
    # file -> (dm-clrs name, primary input names in dm-clrs argument order)
    "binary_search.alg": ("binary_search", ["target", "key"]),
    "bubble_sort.alg": ("bubble_sort", ["key"]),
    "kosaraju.alg": ("strongly_connected_components", ["A"]),
}
# dm-clrs's functions, captured before anything registers over their names.
CLRS_FN: dict[str, Callable[..., Any]] = {
    name: getattr(clrs_algorithms, name) for name, _ in CASES.values()
}

_LOADED: dict[str, Any] = {}


def load_alg(fname: str) -> Any:
    """The compiled shipped algorithm (compiled once per test session)."""
    if fname not in _LOADED:
        import algspec

        path = ROOT / "algorithms" / fname
        assert path.exists(), f"{path} is not written yet"
        _LOADED[fname] = algspec.load(path)
    return _LOADED[fname]


def clrs_trace(fname: str, inputs: dict[str, Any]) -> tuple[Any, dict]:
    name, args = CASES[fname]
    return CLRS_FN[name](*[copy.deepcopy(inputs[a]) for a in args])  # bubble_sort sorts in place


# ------------------------------------------------------------- comparison
def _same(ours: Any, theirs: Any, where: str) -> None:
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.shape == b.shape, f"{where}: shape {a.shape}, dm-clrs {b.shape}"
    if a.dtype == np.float32 and b.dtype != np.float32:
        b = b.astype(np.float32)
    if not np.array_equal(a, b):
        diff = np.argwhere(a != b)
        first = tuple(int(i) for i in diff[0])
        raise AssertionError(
            f"{where}: {len(diff)} entries differ, first at index {first}: "
            f"algspec {a[first]!r}, dm-clrs {b[first]!r}\n algspec: {a!r}\n dm-clrs: {b!r}"
        )


def assert_probes_equal(ours: dict, theirs: dict, spec: dict, ctx: str) -> None:
    """Every probe equal; for hints, report the earliest frame that differs."""
    hints = []
    for name, (stage, loc, type_) in spec.items():
        mine = ours[stage][loc][name]
        ref = theirs[stage][loc][name]
        assert mine["type_"] == type_ == ref["type_"], f"{ctx}: type of '{name}'"
        if stage == "hint":
            hints.append(name)
            continue
        data = np.asarray(ref["data"])  # dm-clrs's `probing.finalize` squeezes n = 1 axes
        if data.shape == np.squeeze(mine["data"]).shape:
            data = data.reshape(np.shape(mine["data"]))
        _same(mine["data"], data, f"{ctx}: {stage} '{name}'")
    if not hints:
        return
    loc_of = {h: spec[h][1] for h in hints}
    ours_h = {h: np.asarray(ours["hint"][loc_of[h]][h]["data"]) for h in hints}
    ref_h = {h: np.asarray(theirs["hint"][loc_of[h]][h]["data"]) for h in hints}
    t_ours = {h: len(v) for h, v in ours_h.items()}
    t_ref = len(next(iter(ref_h.values())))
    for frame in range(min(t_ref, *t_ours.values())):
        for h in hints:
            _same(ours_h[h][frame], ref_h[h][frame], f"{ctx}: hint '{h}' frame {frame}")
    assert set(t_ours.values()) == {t_ref}, (
        f"{ctx}: algspec records {t_ours} hint frames, dm-clrs {t_ref} "
        "(all frames before that agree)"
    )


def check_trace(fname: str, inputs: dict[str, Any], ctx: str) -> None:
    alg = load_alg(fname)
    out, probes = alg.trace(**copy.deepcopy(inputs))
    ref_out, ref_probes = clrs_trace(fname, inputs)
    assert_probes_equal(probes, ref_probes, clrs.SPECS[CASES[fname][0]], ctx)
    if fname != "bubble_sort.alg":  # dm-clrs returns the sorted keys there, not a probe
        _same(out, ref_out, f"{ctx}: returned output")


def check_batch(fname: str, traj: Any, inputs: dict[str, np.ndarray], ctx: str) -> None:
    """A batched run equals dm-clrs run per sample, batched and padded as dm-clrs does."""
    name, args = CASES[fname]
    spec = clrs.SPECS[name]
    batch = len(np.asarray(inputs[args[0]]))
    per_sample = []
    for b in range(batch):
        sample = {a: np.asarray(inputs[a][b], dtype=np.float64) for a in args}
        if "target" in sample:
            sample["target"] = float(sample["target"])
        per_sample.append(clrs_trace(fname, sample)[1])
    ref = batch_probes(per_sample, spec)
    _same(traj.lengths, ref.lengths, f"{ctx}: lengths")
    for stage, group in (("input", "inputs"), ("output", "outputs")):
        for key in (k for k, v in spec.items() if v[0] == stage):
            _same(getattr(traj, group)[key], getattr(ref, group)[key], f"{ctx}: {stage} '{key}'")
    for key in (k for k, v in spec.items() if v[0] == "hint"):
        ours = traj.hints[key]
        assert ours.shape[0] == int(ref.lengths.max()), (
            f"{ctx}: hint '{key}' padded to {ours.shape[0]} frames, longest is {ref.lengths.max()}"
        )
        for b in range(batch):
            steps = int(ref.lengths[b])
            for frame in range(steps):
                _same(ours[frame, b], ref.hints[key][frame, b],
                      f"{ctx}: sample {b} hint '{key}' frame {frame}")
            assert not np.any(ours[steps:, b]), f"{ctx}: sample {b} hint '{key}' padding not zero"


# ------------------------------------------------------------------- specs
@pytest.mark.parametrize("fname", sorted(CASES))
def test_spec_equals_clrs(fname: str) -> None:
    alg = load_alg(fname)
    ref = clrs.SPECS[CASES[fname][0]]
    assert alg.spec == dict(ref)
    assert list(alg.spec) == list(ref)  # same data point order in the Feedback
    assert sorted(alg.primary_inputs) == sorted(CASES[fname][1])


# ---------------------------------------------------------- binary search
def _search_inputs(rng: np.random.Generator, n: int) -> dict[str, Any]:
    return {"key": np.sort(rng.uniform(size=n)), "target": float(rng.uniform())}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 64])
def test_binary_search_random(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    for i in range(6):
        check_trace("binary_search.alg", _search_inputs(rng, n), f"binary_search n={n} #{i}")


BINARY_SEARCH_EDGES = {
    "target below all": (np.array([0.2, 0.4, 0.6, 0.8]), 0.1),
    "target above all": (np.array([0.2, 0.4, 0.6, 0.8]), 0.9),
    "target equals first": (np.array([0.2, 0.4, 0.6, 0.8]), 0.2),
    "target equals middle": (np.array([0.1, 0.2, 0.4, 0.6, 0.8]), 0.4),
    "target equals last": (np.array([0.2, 0.4, 0.6, 0.8]), 0.8),
    "duplicates equal target": (np.array([0.1, 0.5, 0.5, 0.5, 0.5, 0.9]), 0.5),
    "all equal": (np.full(7, 0.3), 0.3),
    "all equal, target above": (np.full(7, 0.3), 0.7),
    "n=1 below": (np.array([0.5]), 0.1),
    "n=1 above": (np.array([0.5]), 0.9),
    "n=2 between": (np.array([0.25, 0.75]), 0.5),
    "n=2 equal second": (np.array([0.25, 0.75]), 0.75),
}


@pytest.mark.parametrize("case", sorted(BINARY_SEARCH_EDGES))
def test_binary_search_edge_cases(case: str) -> None:
    key, target = BINARY_SEARCH_EDGES[case]
    check_trace("binary_search.alg", {"key": key, "target": target}, f"binary_search {case}")


def test_binary_search_batched() -> None:
    alg = load_alg("binary_search.alg")
    rng = np.random.default_rng(7)
    for n in (1, 5, 16):
        key = GENERATORS["sorted_uniform"].sample(rng, 24, n)
        target = GENERATORS["uniform_scalar"].sample(rng, 24, n)
        target[:3] = [key[0, 0], -1.0, 2.0]  # equal, below all, above all
        inputs = {"key": key, "target": target}
        check_batch("binary_search.alg", alg.run(inputs, n), inputs, f"binary_search run n={n}")
    traj = alg.sample(13, 32, 5)
    check_batch("binary_search.alg", traj, traj.inputs, "binary_search sample n=13")


# ------------------------------------------------------------- bubble sort
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 11, 16])
def test_bubble_sort_random(n: int) -> None:
    rng = np.random.default_rng(200 + n)
    for i in range(5):
        check_trace("bubble_sort.alg", {"key": rng.uniform(size=n)}, f"bubble_sort n={n} #{i}")


BUBBLE_SORT_EDGES = {
    "n=1": np.array([0.5]),
    "n=2 sorted": np.array([0.1, 0.9]),
    "n=2 reversed": np.array([0.9, 0.1]),
    "n=2 equal": np.array([0.4, 0.4]),
    "sorted": np.linspace(0.0, 0.9, 8),
    "reverse sorted": np.linspace(0.9, 0.0, 8),
    "all equal": np.full(6, 0.25),
    "duplicates": np.array([0.3, 0.1, 0.3, 0.2, 0.1, 0.3, 0.0]),
    "one out of place": np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.0]),
}


@pytest.mark.parametrize("case", sorted(BUBBLE_SORT_EDGES))
def test_bubble_sort_edge_cases(case: str) -> None:
    check_trace("bubble_sort.alg", {"key": BUBBLE_SORT_EDGES[case].copy()}, f"bubble_sort {case}")


def test_bubble_sort_batched() -> None:
    alg = load_alg("bubble_sort.alg")
    rng = np.random.default_rng(8)
    for n in (1, 2, 7):
        key = GENERATORS["uniform"].sample(rng, 16, n)
        if n > 1:
            key[0] = np.sort(key[0])
            key[1] = np.sort(key[1])[::-1]
            key[2] = key[2, 0]  # all equal
        inputs = {"key": key}
        check_batch("bubble_sort.alg", alg.run(inputs, n), inputs, f"bubble_sort run n={n}")
    traj = alg.sample(9, 16, 6)
    check_batch("bubble_sort.alg", traj, traj.inputs, "bubble_sort sample n=9")


# ---------------------------------------------------------------- kosaraju
def _cycle(n: int) -> np.ndarray:
    return np.roll(np.eye(n), 1, axis=1)


def _dag(rng: np.random.Generator, n: int) -> np.ndarray:
    return GENERATORS["erdos_renyi"].sample(rng, 1, n, p=0.5, directed=True, acyclic=True)[0]


SCC_EDGES: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "n=1 no edge": lambda r: np.zeros((1, 1)),
    "n=1 self-loop": lambda r: np.ones((1, 1)),
    "n=2 no edges": lambda r: np.zeros((2, 2)),
    "n=2 one edge": lambda r: np.array([[0.0, 1.0], [0.0, 0.0]]),
    "n=2 two-cycle": lambda r: np.array([[0.0, 1.0], [1.0, 0.0]]),
    "no edges": lambda r: np.zeros((6, 6)),
    "self-loops only": lambda r: np.eye(6),
    "complete with self-loops": lambda r: np.ones((6, 6)),
    "complete without self-loops": lambda r: 1.0 - np.eye(6),
    "single big cycle": lambda r: _cycle(8),
    "reversed big cycle": lambda r: _cycle(8).T.copy(),
    "path": lambda r: np.eye(7, k=1),
    "reversed path": lambda r: np.eye(7, k=-1),
    "star out": lambda r: np.pad(np.ones((1, 6)), ((0, 6), (1, 0)))[:7, :7],
    "two cycles joined": lambda r: np.block([[_cycle(4), np.eye(4)], [np.zeros((4, 4)), _cycle(4)]]),
    "dag": lambda r: _dag(r, 9),
    "dag 2": lambda r: _dag(r, 12),
    "weighted": lambda r: GENERATORS["community"].sample(r, 1, 8)[0] * r.uniform(0.1, 2.0, (8, 8)),
}


@pytest.mark.parametrize("case", sorted(SCC_EDGES))
def test_kosaraju_edge_cases(case: str) -> None:
    adj = SCC_EDGES[case](np.random.default_rng(300))
    check_trace("kosaraju.alg", {"A": adj}, f"kosaraju {case}")


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 12, 16])
def test_kosaraju_random(n: int) -> None:
    rng = np.random.default_rng(400 + n)
    for i in range(4):
        adj = GENERATORS["community"].sample(rng, 1, n, k=min(4, n))[0]
        check_trace("kosaraju.alg", {"A": adj}, f"kosaraju community n={n} #{i}")
        p = (0.1, 0.3, 0.5, 0.8)[i]
        adj = GENERATORS["erdos_renyi"].sample(rng, 1, n, p=p, directed=True, self_loops=True)[0]
        check_trace("kosaraju.alg", {"A": adj}, f"kosaraju ER(p={p}) n={n} #{i}")


def test_kosaraju_batched() -> None:
    alg = load_alg("kosaraju.alg")
    rng = np.random.default_rng(9)
    for n in (1, 4, 10):
        adj = GENERATORS["community"].sample(rng, 12, n, k=min(4, n))
        if n > 1:
            adj[0] = 0.0
            adj[1] = 1.0
            adj[2] = _cycle(n)
        inputs = {"A": adj}
        check_batch("kosaraju.alg", alg.run(inputs, n), inputs, f"kosaraju run n={n}")
    traj = alg.sample(8, 16, 7)
    check_batch("kosaraju.alg", traj, traj.inputs, "kosaraju sample n=8")
