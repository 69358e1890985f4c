"""The CLRS bridge against dm-clrs itself: Feedback layout, sampler, registration, model."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np
import pytest

clrs = pytest.importorskip("clrs")

from clrs._src import algorithms as clrs_algorithms
from clrs._src import samplers as clrs_samplers

from algspec.clrs_bridge import (
    AlgspecSampler,
    batch_probes,
    is_registered,
    to_feedback,
    unregister,
)
from algspec.clrs_bridge.register import register
from algspec.generators import GENERATORS

CLRS_NAMES = ["binary_search", "bubble_sort", "strongly_connected_components"]
# dm-clrs's functions, captured before any test registers over their names.
CLRS_FUNCTIONS = {name: getattr(clrs_algorithms, name) for name in CLRS_NAMES}


# ---------------------------------------------------------------- helpers
def clrs_inputs(name: str, n: int, count: int, seed: int) -> list[list[Any]]:
    """The algorithm arguments dm-clrs's own sampler draws for `seed`, in order.

    `Sampler.__init__` seeds a RandomState and calls `_sample_data(length)` once
    per sample; replaying that on a bare instance gives the same inputs.
    """
    cls = clrs_samplers.SAMPLERS[name]
    bare = cls.__new__(cls)
    bare._rng = np.random.RandomState(seed)
    bare._truncate_decimals = None
    return [bare._sample_data(n) for _ in range(count)]


def run_clrs(name: str, args: list[Any]) -> dict:
    """dm-clrs's probes for one sample (inputs copied: bubble_sort sorts in place)."""
    _, probes = CLRS_FUNCTIONS[name](*copy.deepcopy(args))
    return probes


def assert_feedback_equal(ours: Any, theirs: Any, hint_dtype: bool = True) -> None:
    """Same data points in the same order, same names/locations/types/shapes/values."""
    pairs = [
        (ours.features.inputs, theirs.features.inputs),
        (ours.features.hints, theirs.features.hints),
        (ours.outputs, theirs.outputs),
    ]
    for mine, ref in pairs:
        assert [(d.name, d.location, d.type_) for d in mine] == [
            (d.name, d.location, d.type_) for d in ref
        ]
        for a, b in zip(mine, ref, strict=True):
            assert a.data.shape == b.data.shape, a.name
            np.testing.assert_array_equal(a.data, b.data, err_msg=a.name)
    if hint_dtype:
        for a, b in zip(ours.features.hints, theirs.features.hints, strict=True):
            assert a.data.dtype == b.data.dtype, a.name
    np.testing.assert_array_equal(ours.features.lengths, theirs.features.lengths)
    assert ours.features.lengths.dtype == theirs.features.lengths.dtype


class FakeAlg:
    """A CompiledAlgorithm stand-in: dm-clrs's algorithm, inputs from algspec generators.

    Only the interface matters here (name, spec, generate, run, sample, trace,
    param_defaults); the real compiled algorithm is tested in the conformance tests.
    """

    INPUTS: ClassVar[dict[str, list[tuple[str, str]]]] = {  # dm-clrs argument order -> (generator, location)
        "binary_search": [("x", "uniform_scalar"), ("A", "sorted_uniform")],
        "bubble_sort": [("A", "uniform")],
        "strongly_connected_components": [("A", "community")],
    }

    def __init__(self, clrs_name: str, name: str | None = None) -> None:
        self.clrs_name = clrs_name
        self.name = name or f"fake_{clrs_name}"
        self.spec = dict(clrs.SPECS[clrs_name])
        self.primary_inputs = [arg for arg, _ in self.INPUTS[clrs_name]]
        self.param_defaults: dict[str, Any] = {}
        for _, gen in self.INPUTS[clrs_name]:
            self.param_defaults.update(GENERATORS[gen].defaults)
        self.sample_calls: list[int] = []

    def generate(self, n: int, batch_size: int, rng: Any, **params: Any) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(rng)
        out = {}
        for arg, gen_name in self.INPUTS[self.clrs_name]:
            gen = GENERATORS[gen_name]
            mine = {k: v for k, v in params.items() if k in gen.defaults}
            out[arg] = gen.sample(rng, batch_size, n, **mine)
        return out

    def run(self, inputs: dict[str, np.ndarray], n: int) -> Any:
        batch = len(next(iter(inputs.values())))
        probes = [
            run_clrs(self.clrs_name, [inputs[a][b] for a in self.primary_inputs])
            for b in range(batch)
        ]
        return batch_probes(probes, self.spec)

    def sample(self, n: int, batch_size: int, rng: Any, **params: Any) -> Any:
        self.sample_calls.append(batch_size)
        return self.run(self.generate(n, batch_size, rng, **params), n)

    def trace(self, **inputs: Any) -> Any:
        return CLRS_FUNCTIONS[self.clrs_name](
            *[copy.deepcopy(inputs[a]) for a in self.primary_inputs]
        )


# ------------------------------------------------------- feedback layout
@pytest.mark.parametrize("name", CLRS_NAMES)
@pytest.mark.parametrize("n", [5, 8])
def test_to_feedback_equals_clrs_sampler_dataset(name: str, n: int) -> None:
    """Probes of the same samples, batched by us, equal dm-clrs's own dataset."""
    count, seed = 12, 3 + n
    sampler, spec = clrs.build_sampler(name, num_samples=count, length=n, seed=seed)
    theirs = sampler.next()  # the whole dataset
    probes = [run_clrs(name, args) for args in clrs_inputs(name, n, count, seed)]
    ours = to_feedback(batch_probes(probes, spec))
    assert_feedback_equal(ours, theirs)
    assert isinstance(ours, clrs.Feedback)
    # dm-clrs pads hints with zeros past each length: so do we.
    for dp in ours.features.hints:
        for b, length in enumerate(ours.features.lengths.astype(int)):
            assert not dp.data[length:, b].any()


def test_to_feedback_follows_spec_order_not_dict_order() -> None:
    spec = dict(clrs.SPECS["binary_search"])
    traj = batch_probes([run_clrs("binary_search", a)
                         for a in clrs_inputs("binary_search", 6, 3, 0)], spec)
    traj.inputs = dict(reversed(list(traj.inputs.items())))
    traj.hints = dict(reversed(list(traj.hints.items())))
    fb = to_feedback(traj)
    assert [d.name for d in fb.features.inputs] == ["pos", "key", "target"]
    assert [d.name for d in fb.features.hints] == ["pred_h", "low", "high", "mid"]
    assert [d.name for d in fb.outputs] == ["return"]


def test_to_feedback_dtype_cast_and_sharing() -> None:
    spec = dict(clrs.SPECS["bubble_sort"])
    traj = batch_probes([run_clrs("bubble_sort", a)
                         for a in clrs_inputs("bubble_sort", 4, 2, 0)], spec)
    shared = to_feedback(traj)
    assert shared.features.inputs[1].data is traj.inputs["key"]
    cast = to_feedback(traj, dtype=np.float32)
    assert all(d.data.dtype == np.float32 for d in cast.features.hints + cast.outputs)


def test_to_feedback_rejects_malformed() -> None:
    spec = dict(clrs.SPECS["bubble_sort"])
    traj = batch_probes([run_clrs("bubble_sort", a)
                         for a in clrs_inputs("bubble_sort", 4, 2, 0)], spec)
    bad = copy.copy(traj)
    bad.hints = {k: v for k, v in traj.hints.items() if k != "j"}
    with pytest.raises(ValueError, match="hint 'j'"):
        to_feedback(bad)
    bad = copy.copy(traj)
    bad.inputs = {**traj.inputs, "key": traj.inputs["key"][:, :3]}
    with pytest.raises(ValueError, match="'key'"):
        to_feedback(bad)
    bad = copy.copy(traj)
    bad.lengths = traj.lengths + 100
    with pytest.raises(ValueError, match="exceeds"):
        to_feedback(bad)


def test_batch_probes_restores_squeezed_axes_at_n1() -> None:
    # dm-clrs's probing.finalize squeezes [1] node inputs to scalars at n=1.
    spec = dict(clrs.SPECS["strongly_connected_components"])
    probes = [run_clrs("strongly_connected_components", [np.ones((1, 1))])] * 2
    traj = batch_probes(probes, spec)
    assert traj.inputs["A"].shape == (2, 1, 1)
    assert traj.inputs["pos"].shape == (2, 1)
    assert traj.outputs["scc_id"].shape == (2, 1)
    assert traj.hints["color"].shape[1:] == (2, 1, 3)
    to_feedback(traj)  # shapes pass the layout check


# ---------------------------------------------------------------- sampler
def _flat(fb: Any) -> list[np.ndarray]:
    return [d.data for d in fb.features.inputs + fb.features.hints + fb.outputs] + [
        fb.features.lengths
    ]


def test_sampler_fixed_dataset_shapes_and_cycle() -> None:
    alg = FakeAlg("strongly_connected_components")
    s = AlgspecSampler(alg, alg.spec, 10, length=6, seed=1, chunk_size=4)
    assert isinstance(s, clrs.Sampler)
    assert alg.sample_calls == [4, 4, 2]  # generated once, in chunks
    full = s.next()
    lengths = full.features.lengths
    assert lengths.shape == (10,)
    steps = int(lengths.max())
    assert s.max_steps == steps
    for dp in full.features.hints:
        assert dp.data.shape[:2] == (steps, 10)
    batch = s.next(4)
    assert alg.sample_calls == [4, 4, 2]  # next() does not sample again
    by_name = {d.name: d.data for d in batch.features.inputs}
    assert by_name["A"].shape == (4, 6, 6)
    assert by_name["pos"].shape == (4, 6)
    for dp in batch.features.hints:
        assert dp.data.shape[:2] == (steps, 4)  # padded to the dataset's longest
    # Every batch row is one of the dataset's samples, hints and all.
    full_a = {d.name: d.data for d in full.features.inputs}["A"]
    full_color = {d.name: d.data for d in full.features.hints}["color"]
    batch_color = {d.name: d.data for d in batch.features.hints}["color"]
    for b in range(4):
        [i] = [i for i in range(10) if np.array_equal(full_a[i], by_name["A"][b])]
        np.testing.assert_array_equal(batch_color[:, b], full_color[:, i])
        assert batch.features.lengths[b] == lengths[i]
    with pytest.raises(ValueError, match="dataset size"):
        s.next(11)


def test_sampler_fixed_dataset_matches_direct_batching() -> None:
    """Chunked generation gives the samples of the data stream, padded consistently."""
    alg = FakeAlg("binary_search")
    s = AlgspecSampler(alg, None, 7, length=11, seed=5, chunk_size=3)
    full = s.next()
    # Rebuild the inputs from the same data stream and run dm-clrs per sample.
    rng = np.random.default_rng(np.random.SeedSequence(5).spawn(3)[0])
    chunks = [alg.generate(11, k, rng) for k in (3, 3, 1)]
    probes = [
        run_clrs("binary_search", [c["x"][b], c["A"][b]]) for c in chunks for b in range(len(c["x"]))
    ]
    assert_feedback_equal(full, to_feedback(batch_probes(probes, alg.spec)))


def test_sampler_determinism() -> None:
    alg = FakeAlg("binary_search")

    def draws(seed: int) -> list[np.ndarray]:
        s = AlgspecSampler(alg, alg.spec, 16, length=9, seed=seed)
        return [x for _ in range(3) for x in _flat(s.next(5))]

    a, b, c = draws(7), draws(7), draws(8)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert any(x.shape != y.shape or not np.array_equal(x, y) for x, y in zip(a, c, strict=False))


def test_sampler_on_the_fly() -> None:
    alg = FakeAlg("strongly_connected_components")
    s = AlgspecSampler(alg, alg.spec, -1, length=5, seed=0, probe_samples=40, chunk_size=16)
    assert alg.sample_calls == [16, 16, 8]  # one batched probe for max_steps
    probed = s.max_steps
    assert probed > 0
    seen = []
    for _ in range(3):
        fb = s.next(6)
        seen.append(fb.features.inputs[1].data.copy())
        assert fb.features.lengths.shape == (6,)
        assert fb.features.lengths.max() <= s.max_steps
        for dp in fb.features.hints:
            assert dp.data.shape[:2] == (s.max_steps, 6)
    assert s.max_steps >= probed
    assert not np.array_equal(seen[0], seen[1])  # fresh samples each call
    with pytest.raises(ValueError):
        s.next()


def test_sampler_on_the_fly_bounds() -> None:
    alg = FakeAlg("bubble_sort")
    # An explicit bound skips the probe; a longer batch raises the bound.
    s = AlgspecSampler(alg, alg.spec, -1, length=4, seed=0, max_steps=2)
    assert alg.sample_calls == []
    fb = s.next(3)
    assert s.max_steps == 7  # bubble sort on 4 keys: 1 + 4*3/2 frames
    assert fb.features.hints[0].data.shape[0] == 7
    # An algorithm-provided bound is used as is, and pads beyond the longest.
    alg.max_hint_steps = lambda n, **_: n * (n - 1) // 2 + 3
    s = AlgspecSampler(alg, alg.spec, -1, length=4, seed=0)
    assert s.max_steps == 9 and alg.sample_calls == [3]
    assert s.next(2).features.hints[0].data.shape[0] == 9
    # Without tracking, batches are as long as their own longest sample.
    s = AlgspecSampler(alg, alg.spec, -1, length=4, seed=0, track_max_steps=False)
    assert s.next(2).features.hints[0].data.shape[0] == 7


def test_sampler_params_and_truncation() -> None:
    alg = FakeAlg("bubble_sort")
    s = AlgspecSampler(alg, alg.spec, 20, length=6, seed=0, low=5.0, high=6.0,
                       truncate_decimals=1)
    key = {d.name: d.data for d in s.next().features.inputs}["key"]
    assert key.min() >= 5.0 and key.max() < 6.0
    np.testing.assert_array_equal(key, np.round(key, 1))
    with pytest.raises(ValueError, match="differs"):
        AlgspecSampler(alg, clrs.SPECS["insertion_sort"] | {"x": ("input", "node", "scalar")},
                       4, length=4)
    with pytest.raises(TypeError, match="length"):
        AlgspecSampler(alg, alg.spec, 4)
    # dm-clrs's positional form: the length as the first sampler argument.
    assert AlgspecSampler(alg, alg.spec, 2, 5, seed=0).next().features.inputs[0].data.shape == (2, 5)


def test_sampler_serves_the_exported_dataset(tmp_path: Any) -> None:
    from algspec.sampling.dataset import export, load_dataset

    alg = FakeAlg("strongly_connected_components")
    _, traj = load_dataset(export(alg, tmp_path / "ds", 6, 9, seed=4, chunk_size=4))
    s = AlgspecSampler(alg, alg.spec, 9, length=6, seed=4, chunk_size=4)
    assert_feedback_equal(s.next(), to_feedback(traj))


# ----------------------------------------------------------- registration
def test_register_and_build_sampler() -> None:
    alg = FakeAlg("binary_search", name="algspec_test_search")
    try:
        assert register(alg) == "algspec_test_search"
        assert register(alg) == "algspec_test_search"  # idempotent
        assert is_registered("algspec_test_search")
        assert clrs.SPECS["algspec_test_search"] == clrs.SPECS["binary_search"]
        sampler, spec = clrs.build_sampler(
            "algspec_test_search", num_samples=6, length=7, seed=2, low=2.0, high=3.0, bogus=1
        )
        assert isinstance(sampler, AlgspecSampler)
        assert spec == alg.spec
        fb = sampler.next(3)
        key = {d.name: d.data for d in fb.features.inputs}["key"]
        assert key.shape == (3, 7) and key.min() >= 2.0  # `low` reached the generator
        # The runner in clrs's algorithm namespace traces like dm-clrs's functions.
        x, arr = 0.3, np.linspace(0, 1, 5)
        _, probes = clrs_algorithms.algspec_test_search(x=x, A=arr)
        _, ref = clrs_algorithms.binary_search(x, arr)
        np.testing.assert_array_equal(probes["output"]["node"]["return"]["data"],
                                      ref["output"]["node"]["return"]["data"])
    finally:
        unregister("algspec_test_search")
    assert "algspec_test_search" not in clrs.SPECS
    assert not hasattr(clrs_algorithms, "algspec_test_search")
    with pytest.raises(NotImplementedError):
        clrs.build_sampler("algspec_test_search", num_samples=2, length=4)


def test_register_refuses_clrs_names_unless_replace() -> None:
    alg = FakeAlg("bubble_sort", name="bubble_sort")
    original_fn = CLRS_FUNCTIONS["bubble_sort"]
    with pytest.raises(ValueError, match="replace=True"):
        register(alg)
    assert clrs_samplers.SAMPLERS["bubble_sort"] is clrs_samplers.SortingSampler
    try:
        register(alg, replace=True)
        sampler, _ = clrs.build_sampler("bubble_sort", num_samples=3, length=4, seed=0)
        assert isinstance(sampler, AlgspecSampler)
    finally:
        unregister("bubble_sort")
    assert clrs_samplers.SAMPLERS["bubble_sort"] is clrs_samplers.SortingSampler
    assert clrs_algorithms.bubble_sort is original_fn
    assert clrs.SPECS["bubble_sort"] == alg.spec
    # Under another name no replace is needed.
    try:
        register(alg, name="algspec_bubble_sort")
        assert clrs.build_sampler("algspec_bubble_sort", num_samples=2, length=4)[1] == alg.spec
    finally:
        unregister("algspec_bubble_sort")


# ------------------------------------------------------------------ model
@pytest.mark.slow
def test_baseline_model_accepts_sampler_feedback() -> None:
    """BaselineModel init + one training step on bubble sort data through the bridge."""
    alg = FakeAlg("bubble_sort", name="algspec_model_bubble_sort")
    register(alg)
    try:
        sampler, spec = clrs.build_sampler("algspec_model_bubble_sort", num_samples=8,
                                           length=4, seed=0)

        def batches():
            while True:
                yield sampler.next(4)

        spec, it = clrs.process_permutations(spec, batches(), enforce_permutations=True)
        it = clrs.process_random_pos(it, np.random.RandomState(0))
        fb = next(it)
        model = clrs.models.BaselineModel(
            spec=spec,
            dummy_trajectory=fb,
            processor_factory=clrs.get_processor_factory("mpnn", use_ln=True, nb_triplet_fts=0),
            hidden_dim=8,
            encode_hints=True,
            decode_hints=True,
        )
        model.init(fb.features, seed=0)
        jax = pytest.importorskip("jax")
        loss = model.feedback(jax.random.PRNGKey(0), next(it))
        assert np.isfinite(float(loss))
        names = {d.name for d in fb.outputs}
        assert names == {"pred", "pred_mask"}
    finally:
        unregister("algspec_model_bubble_sort")


@pytest.mark.parametrize("stem", ["parallel_search", "binary_search", "dcsc"])
def test_split_stages_accepts_trace_probes(stem: str) -> None:
    """dm-clrs's `split_stages` checks `isinstance(data, np.ndarray)`: graph data is 0-d."""
    from pathlib import Path

    from clrs._src import probing

    import algspec
    alg = algspec.load(Path(__file__).resolve().parents[2] / "algorithms" / f"{stem}.alg")
    inputs = alg.generate(6, 1, 4)
    _, probes = alg.trace(**{k: v[0] for k, v in inputs.items()})
    ins, outs, hints = probing.split_stages(probes, alg.spec)
    assert {d.name for d in ins + outs + hints} == set(alg.spec)
    for d in ins + outs:
        assert d.data.shape[0] == 1  # the batch axis split_stages adds
    graph = [d for d in ins + outs + hints if d.location == "graph"]
    for d in graph:
        assert d.data.ndim == (2 if d.name in {h.name for h in hints} else 1)
