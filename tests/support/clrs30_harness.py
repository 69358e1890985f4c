"""Conformance harness for the CLRS-30 `.alg` files in `algorithms/clrs/`.

A file conforms when, on the same inputs, it yields dm-clrs's spec and the
same input, hint and output arrays, frame by frame: per sample through
`alg.trace` (float64), batched through `alg.run` (float64, and float32 where
that is exact; see `check_batched`), zero padding included, and through
algspec's own generators (`check_sampled`). Values are compared exactly;
where algspec holds float32, dm-clrs's values are rounded to float32 first.

Inputs come from dm-clrs's own sampler classes (`draw`), so a test does not
depend on algspec's generators. A `Case` names the `.alg` file, dm-clrs's
algorithm and the algspec input name of each positional argument of
dm-clrs's function (`None` for an argument algspec does not take, such as
a size; `convert` can turn dm-clrs's arguments into algspec inputs when the
encodings differ). Where the language cannot yet say what dm-clrs does, a
Case records the gap (`unmatched`, `ref_view`) so that all else
is still compared, and the strict `assert_spec` is an expected failure.

Typical use in `tests/test_clrs30_<group>.py`:

    CASE = Case("minimum.alg", "minimum", ("key",))
    def test_minimum():
        for n in (1, 2, 5):
            for args in draw(CASE, n, count=3, seed=n):
                check_trace(CASE, args, f"n={n}")
        check_batched(CASE, draw(CASE, 8, count=6, seed=0), "n=8")
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

clrs = pytest.importorskip("clrs")

from clrs._src import algorithms as clrs_algorithms
from clrs._src import samplers as clrs_samplers

from algspec.clrs_bridge.feedback import batch_probes

ROOT = Path(__file__).resolve().parents[2]
CLRS_DIR = ROOT / "algorithms" / "clrs"

# dm-clrs's functions, captured at import, before `algspec.register` can shadow a name.
CLRS_FN: dict[str, Callable[..., Any]] = {
    name: getattr(clrs_algorithms, name) for name in clrs_samplers.SAMPLERS
}


@dataclass(frozen=True)
class Case:
    """One `.alg` file and the dm-clrs algorithm it must reproduce."""

    alg_file: str                      # relative to algorithms/clrs/
    clrs_name: str                     # dm-clrs algorithm (spec, function, sampler)
    args: tuple[str | None, ...]       # algspec input per dm-clrs positional argument
    convert: Callable[[list[Any]], dict[str, Any]] | None = None  # args -> algspec inputs
    # dm-clrs probes the language cannot produce yet (e.g. per-string `pos`): not compared,
    # and the spec is then compared without them and without its order.
    unmatched: tuple[str, ...] = ()
    # (name, array) -> array: how a dm-clrs probe is seen before comparison, for one the
    # language can only approximate.
    ref_view: Callable[[str, np.ndarray], np.ndarray] | None = None

    def view(self, name: str, ref: Any) -> Any:
        """dm-clrs's probe `name` as compared (unchanged unless `ref_view` is set)."""
        return ref if self.ref_view is None else self.ref_view(name, np.asarray(ref))

    def inputs(self, args: Sequence[Any]) -> dict[str, Any]:
        """dm-clrs's positional arguments as algspec's named primary inputs."""
        if self.convert is not None:
            return self.convert(list(args))
        return {name: a for name, a in zip(self.args, args, strict=True) if name is not None}


_LOADED: dict[str, Any] = {}


def load(case: Case) -> Any:
    """The compiled `.alg` file (compiled once per test session)."""
    if case.alg_file not in _LOADED:
        import algspec

        path = CLRS_DIR / case.alg_file
        assert path.exists(), f"{path} is not written yet"
        _LOADED[case.alg_file] = algspec.load(path)
    return _LOADED[case.alg_file]


# ------------------------------------------------------------------ inputs
def draw(case: Case, n: int, count: int, seed: int, **kwargs: Any) -> list[list[Any]]:
    """`count` argument lists drawn by dm-clrs's own sampler for `case.clrs_name`.

    Uses the sampler class's `_sample_data` (and its truncation step) with
    dm-clrs's RNG seeded by `seed`, exactly as `clrs.build_sampler` would,
    without running the algorithm 1000 times to learn the trajectory length.
    """
    cls = clrs_samplers.SAMPLERS[case.clrs_name]
    sampler = cls(CLRS_FN[case.clrs_name], clrs.SPECS[case.clrs_name], -1, seed=seed,
                  track_max_steps=False)
    out = []
    with warnings.catch_warnings():  # dm-clrs's hull sampler calls np.cross on 2-d vectors
        warnings.simplefilter("ignore", DeprecationWarning)
        for _ in range(count):
            data = sampler._sample_data(n, **kwargs)
            out.append(sampler._trunc_array(data))
    return out


def clrs_run(case: Case, args: Sequence[Any]) -> tuple[Any, dict]:
    """dm-clrs's `(output, probes)` on deep copies (its sorts work in place)."""
    return CLRS_FN[case.clrs_name](*copy.deepcopy(list(args)))


# -------------------------------------------------------------- comparison
def same(ours: Any, theirs: Any, where: str) -> None:
    """Exact equality; float64 references are rounded when algspec holds float32."""
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.shape == b.shape, f"{where}: shape {a.shape}, dm-clrs {b.shape}"
    if a.dtype == np.float32 and b.dtype != np.float32:
        b = b.astype(np.float32)
    if not np.array_equal(a, b):
        diff = np.argwhere(a != b) if a.ndim else np.zeros((1, 0), dtype=int)
        first = tuple(int(i) for i in diff[0])
        raise AssertionError(
            f"{where}: {len(diff)} entries differ, first at index {first}: "
            f"algspec {a[first]!r}, dm-clrs {b[first]!r}\n algspec: {a!r}\n dm-clrs: {b!r}"
        )


def assert_spec(case: Case) -> None:
    """Same spec dict, in the same order (the order of the Feedback's data points)."""
    alg = load(case)
    ref = clrs.SPECS[case.clrs_name]
    assert alg.spec == dict(ref), _spec_diff(alg.spec, dict(ref))
    assert list(alg.spec) == list(ref), f"spec order {list(alg.spec)}, dm-clrs {list(ref)}"


def assert_spec_matched(case: Case) -> None:
    """Same spec without `case.unmatched`; the order too unless some probes are unmatched."""
    ref = {k: v for k, v in clrs.SPECS[case.clrs_name].items() if k not in case.unmatched}
    ours = {k: v for k, v in load(case).spec.items() if k not in case.unmatched}
    assert ours == ref, _spec_diff(ours, ref)
    if not case.unmatched:
        assert list(ours) == list(ref), f"spec order {list(ours)}, dm-clrs {list(ref)}"


def _spec_diff(ours: dict, ref: dict) -> str:
    lines = [f"  {k}: algspec {ours.get(k)}, dm-clrs {ref.get(k)}"
             for k in sorted(set(ours) | set(ref)) if ours.get(k) != ref.get(k)]
    return "spec differs:\n" + "\n".join(lines)


def _as_is(name: str, ref: Any) -> Any:
    return ref


def assert_probes_equal(ours: dict, theirs: dict, spec: dict, ctx: str,
                        skip: Sequence[str] = (),
                        view: Callable[[str, Any], Any] = _as_is) -> None:
    """Inputs and outputs equal; hints equal frame by frame (earliest difference first).

    `spec` is dm-clrs's; `skip` names probes not compared, `view(name, array)`
    transforms dm-clrs's arrays before comparison.
    """
    hints = []
    for name, (stage, loc, type_) in spec.items():
        if name in skip:
            continue
        mine, ref = ours[stage][loc][name], theirs[stage][loc][name]
        assert mine["type_"] == type_ == ref["type_"], f"{ctx}: type of '{name}'"
        data = view(name, ref["data"])
        if stage == "hint":
            hints.append((name, np.asarray(mine["data"]), np.asarray(data)))
        else:  # dm-clrs's `probing.finalize` squeezes size-1 axes (n = 1); algspec keeps them
            data = np.asarray(data)
            if data.shape == np.squeeze(mine["data"]).shape:
                data = data.reshape(np.shape(mine["data"]))
            same(mine["data"], data, f"{ctx}: {stage} '{name}'")
    if not hints:
        return
    t_ref = len(hints[0][2])
    t_ours = {name: len(mine) for name, mine, _ in hints}
    for frame in range(min(t_ref, *t_ours.values())):
        for name, mine, ref in hints:
            same(mine[frame], ref[frame], f"{ctx}: hint '{name}' frame {frame}")
    assert set(t_ours.values()) == {t_ref}, (
        f"{ctx}: algspec records {t_ours} hint frames, dm-clrs {t_ref} "
        "(all frames before that agree)"
    )


def check_trace(case: Case, args: Sequence[Any], ctx: str,
                output: Callable[[Any, Any], None] | None = None) -> None:
    """One sample: `alg.trace` against dm-clrs's probes (and, if given, `output(ours, ref)`)."""
    alg = load(case)
    out, probes = alg.trace(**copy.deepcopy(case.inputs(args)))
    ref_out, ref_probes = clrs_run(case, args)
    assert_probes_equal(probes, ref_probes, clrs.SPECS[case.clrs_name],
                        f"{case.clrs_name} {ctx}", case.unmatched, case.view)
    if output is not None:
        output(out, ref_out)


def check_batched(case: Case, samples: Sequence[Sequence[Any]], ctx: str,
                  batch_sizes: Sequence[int] = (1, 3), dtype: Any = np.float64) -> None:
    """`alg.run` on stacked samples equals dm-clrs run per sample, batched as dm-clrs does.

    The samples are run whole and also in chunks of each of `batch_sizes`, so
    padding to the longest trajectory is checked at several batch shapes.
    float64 by default: a float32 run first rounds its float inputs to float32
    (so stored datasets replay bit for bit) and computes on those, so a float
    it computes (Kadane's sums, DP tables, cross products) can differ in the
    last bit from dm-clrs's on the unrounded inputs. `dtype=np.float32` suits
    algorithms whose float hints are inputs or discrete; `check_sampled`
    covers float32 fully by giving dm-clrs the rounded inputs.
    """
    alg = load(case)
    spec = clrs.SPECS[case.clrs_name]
    ref_probes = [clrs_run(case, args)[1] for args in samples]
    inputs = [case.inputs(args) for args in samples]
    chunks = [range(len(samples))] + [
        range(i, min(i + size, len(samples)))
        for size in batch_sizes for i in range(0, len(samples), size)
    ]
    for chunk in chunks:
        batch = {k: np.stack([np.asarray(inputs[b][k], dtype=np.float64) for b in chunk])
                 for k in inputs[0]}
        traj = alg.run(batch, dtype=dtype)
        ref = batch_probes([ref_probes[b] for b in chunk], spec)
        _same_batch(traj, ref, spec, f"{case.clrs_name} {ctx} samples {chunk.start}..{chunk.stop}",
                    case.unmatched, case.view)


def _same_batch(traj: Any, ref: Any, spec: dict, ctx: str,
                skip: Sequence[str] = (), view: Callable[[str, Any], Any] = _as_is) -> None:
    same(traj.lengths, ref.lengths, f"{ctx}: lengths")
    spec = {k: v for k, v in spec.items() if k not in skip}
    for key, (stage, _loc, _t) in spec.items():
        if stage == "input":
            same(traj.inputs[key], view(key, ref.inputs[key]), f"{ctx}: input '{key}'")
        elif stage == "output":
            same(traj.outputs[key], view(key, ref.outputs[key]), f"{ctx}: output '{key}'")
    for key in (k for k, v in spec.items() if v[0] == "hint"):
        ours = traj.hints[key]
        ref_hint = view(key, ref.hints[key])
        longest = int(ref.lengths.max())
        assert ours.shape[0] == longest, (
            f"{ctx}: hint '{key}' padded to {ours.shape[0]} frames, longest is {longest}")
        for b in range(len(ref.lengths)):
            steps = int(ref.lengths[b])
            for frame in range(steps):
                same(ours[frame, b], ref_hint[frame, b],
                     f"{ctx}: sample {b} hint '{key}' frame {frame}")
            assert not np.any(ours[steps:, b]), f"{ctx}: sample {b} hint '{key}' padding not zero"


def check_all(case: Case, sizes: Sequence[int] = (1, 2, 5, 8, 16), per_size: int = 3,
              seed: int = 0, batched_size: int = 8, batched_count: int = 6,
              float32: bool = True, **kwargs: Any) -> None:
    """Spec, then dm-clrs-drawn samples per size via trace, then batched runs
    (at the smallest size and at `batched_size`).

    `float32=False` skips the float32 batched run (see `check_batched`).
    `kwargs` go to dm-clrs's `_sample_data`. A case with `unmatched` probes
    checks its spec without them (`assert_spec` is then expected to fail).
    """
    if case.unmatched:
        assert_spec_matched(case)
    else:
        assert_spec(case)
    for n in sizes:
        for i, args in enumerate(draw(case, n, per_size, seed + n, **kwargs)):
            check_trace(case, args, f"n={n} #{i}")
    smallest = draw(case, min(sizes), 3, seed + 2000, **kwargs)
    check_batched(case, smallest, f"batched n={min(sizes)}", batch_sizes=())
    samples = draw(case, batched_size, batched_count, seed + 1000, **kwargs)
    check_batched(case, samples, f"batched n={batched_size}")
    if float32:
        check_batched(case, samples, f"batched float32 n={batched_size}", batch_sizes=(),
                      dtype=np.float32)


def check_sampled(case: Case, n: int, batch: int, seed: int,
                  to_clrs: Callable[[dict[str, np.ndarray]], list[Any]] | None = None) -> None:
    """algspec's own sampler (its generators, float32) against dm-clrs run on the drawn inputs.

    dm-clrs gets the stored float32 inputs (as float64), which is what the
    float32 run computes on, so even accumulated sums agree exactly.
    `to_clrs(one_sample_inputs)` gives dm-clrs's arguments (default: by `case.args`).
    """
    alg = load(case)
    traj = alg.sample(n, batch, seed)
    spec = clrs.SPECS[case.clrs_name]
    refs = []
    for b in range(batch):
        one = {k: np.asarray(v[b], dtype=np.float64) for k, v in traj.inputs.items()}
        if to_clrs is not None:
            args = to_clrs(one)
        else:
            args = [None if a is None else (float(one[a]) if one[a].ndim == 0 else one[a])
                    for a in case.args]
        refs.append(clrs_run(case, args)[1])
    _same_batch(traj, batch_probes(refs, spec), spec, f"{case.clrs_name} sampled n={n}",
                case.unmatched, case.view)
