"""Dataset export: content, manifest, byte reproducibility, atomicity."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from algspec.generators import GENERATORS
from algspec.interp import Trajectories
from algspec.sampling import dataset
from algspec.sampling.dataset import export, load_dataset, sample_dataset, spec_hash

SPEC = {
    "pos": ("input", "node", "scalar"),
    "key": ("input", "node", "scalar"),
    "best": ("output", "node", "mask_one"),
    "cur": ("hint", "node", "mask_one"),
    "run_max": ("hint", "graph", "scalar"),
}


class FakeIR:
    """Stands in for the pydantic IR: only `model_dump_json` and `decl` are read."""

    def __init__(self, span: int = 0, path: str = "a.alg", op: str = "max") -> None:
        self.span, self.path, self.op = span, path, op

    def model_dump_json(self) -> str:
        return json.dumps({"name": "prefix_max", "path": self.path,
                           "body": [{"op": self.op, "span": {"line": self.span}}]})

    def decl(self, name: str) -> Any:
        if name != "key":
            raise KeyError(name)
        return type("D", (), {"generator": type("G", (), {"name": "uniform"})()})()


class FakeAlg:
    """Vectorised prefix-maximum scan whose trajectory stops at the argmax.

    Lengths vary per sample, so padding and chunk concatenation are exercised.
    """

    name = "prefix_max"

    def __init__(self, fail_on_call: int | None = None) -> None:
        self.spec = dict(SPEC)
        self.ir = FakeIR()
        self.calls = 0
        self.fail_on_call = fail_on_call

    def generator_params(self, **overrides: Any) -> dict[str, dict[str, Any]]:
        unknown = set(overrides) - {"low", "high"}
        if unknown:
            raise ValueError(f"unknown generator parameter {sorted(unknown)}")
        return {"key": GENERATORS["uniform"].resolve(overrides)}

    def sample(self, n: int, batch: int, rng: np.random.Generator, **params: Any) -> Trajectories:
        self.calls += 1
        if self.fail_on_call == self.calls:
            raise RuntimeError("boom")
        key = GENERATORS["uniform"].sample(rng, batch, n, **self.generator_params(**params)["key"])
        best = key.argmax(axis=1)
        steps = int(best.max()) + 1
        t = np.arange(steps)[:, None]
        live = t <= best[None, :]
        cur = np.zeros((steps, batch, n), np.float32)
        cur[t, np.arange(batch)[None, :], np.minimum(t, n - 1)] = 1
        cur *= live[..., None]
        run_max = np.maximum.accumulate(key.T[:steps], axis=0) * live
        return Trajectories(
            spec=self.spec,
            inputs={"pos": np.tile(np.arange(n) / n, (batch, 1)).astype(np.float32),
                    "key": key.astype(np.float32)},
            outputs={"best": np.eye(n, dtype=np.float32)[best]},
            hints={"cur": cur, "run_max": run_max.astype(np.float32)},
            lengths=(best + 1).astype(np.float64),
        )


def _bytes(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_export_contents_and_manifest(tmp_path: Path) -> None:
    alg = FakeAlg()
    out = export(alg, tmp_path / "ds", length=6, num_samples=10, seed=3,
                 params={"high": 2.0}, chunk_size=4)
    assert out == tmp_path / "ds"
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "samples.npz"]
    assert alg.calls == 3  # chunks of 4, 4, 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["algorithm"] == "prefix_max"
    assert manifest["seed"] == 3 and manifest["length"] == 6 and manifest["num_samples"] == 10
    assert manifest["params"] == {"high": 2.0}
    assert manifest["generators"] == {"key": {"generator": "uniform",
                                              "params": {"low": 0.0, "high": 2.0}}}
    assert manifest["spec"] == [[k, *v] for k, v in SPEC.items()]  # ordered
    assert manifest["spec_hash"] == spec_hash(alg)
    assert manifest["algspec_version"]
    digest = hashlib.sha256((out / "samples.npz").read_bytes()).hexdigest()
    assert manifest["files"]["samples.npz"]["sha256"] == digest

    # np.load reads it; arrays are the ones generated from the seed's stream.
    with np.load(out / "samples.npz") as z:
        assert set(z.files) == {"lengths", "inputs/pos", "inputs/key", "outputs/best",
                                "hints/cur", "hints/run_max"}
    _, traj = load_dataset(out)
    assert list(traj.spec) == list(SPEC)  # CLRS data point order survives the round trip
    ref = sample_dataset(FakeAlg(), 6, 10, 3, {"high": 2.0}, chunk_size=4)
    for group in ("inputs", "outputs", "hints"):
        for name, arr in getattr(ref, group).items():
            np.testing.assert_array_equal(getattr(traj, group)[name], arr)
            assert getattr(traj, group)[name].dtype == arr.dtype
    np.testing.assert_array_equal(traj.lengths, ref.lengths)
    assert traj.hints["cur"].shape[0] == int(ref.lengths.max()) == manifest["max_steps"]
    assert traj.inputs["key"].max() >= 1.0  # the `high` override took effect


def test_chunks_are_padded_consistently() -> None:
    ref = sample_dataset(FakeAlg(), 8, 9, 1, chunk_size=9)
    chunked = sample_dataset(FakeAlg(), 8, 9, 1, chunk_size=2)
    steps = int(chunked.lengths.max())
    for name, h in chunked.hints.items():
        assert h.shape[:2] == (steps, 9)
        for b, n in enumerate(chunked.lengths.astype(int)):
            assert not h[n:, b].any(), name  # zero padding past each length
    # Chunking changes which draws go to which sample, not the per-sample law:
    # every sample is still a consistent trajectory of its own key.
    key = chunked.inputs["key"]
    np.testing.assert_array_equal(chunked.lengths, key.argmax(axis=1) + 1)
    assert ref.inputs["key"].shape == key.shape


def test_export_is_byte_reproducible(tmp_path: Path) -> None:
    a = export(FakeAlg(), tmp_path / "a", 5, 12, seed=7, chunk_size=5)
    b = export(FakeAlg(), tmp_path / "b", 5, 12, seed=7, chunk_size=5)
    assert _bytes(a) == _bytes(b)
    c = export(FakeAlg(), tmp_path / "c", 5, 12, seed=8, chunk_size=5)
    assert _bytes(a)["samples.npz"] != _bytes(c)["samples.npz"]
    with zipfile.ZipFile(a / "samples.npz") as zf:
        infos = zf.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}


def test_export_refuses_then_overwrites(tmp_path: Path) -> None:
    out = export(FakeAlg(), tmp_path / "ds", 5, 4, seed=1)
    first = _bytes(out)
    with pytest.raises(FileExistsError):
        export(FakeAlg(), out, 5, 4, seed=2)
    assert _bytes(out) == first
    export(FakeAlg(), out, 5, 4, seed=1, overwrite=True)
    assert _bytes(out) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]  # no temp leftovers
    empty = tmp_path / "empty"
    empty.mkdir()
    export(FakeAlg(), empty, 5, 4, seed=1)  # an empty directory is fine
    assert _bytes(empty) == first


def test_failure_leaves_no_partial_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        export(FakeAlg(fail_on_call=2), tmp_path / "ds", 5, 10, seed=1, chunk_size=4)
    assert list(tmp_path.iterdir()) == []

    def broken(path: Path, arrays: Any, *progress: Any) -> None:
        path.write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(dataset, "_write_npz", broken)
    with pytest.raises(OSError, match="disk full"):
        export(FakeAlg(), tmp_path / "ds", 5, 4, seed=1)
    assert list(tmp_path.iterdir()) == []


def test_failed_overwrite_keeps_old_dataset(tmp_path: Path) -> None:
    out = export(FakeAlg(), tmp_path / "ds", 5, 4, seed=1)
    before = _bytes(out)
    with pytest.raises(RuntimeError):
        export(FakeAlg(fail_on_call=1), out, 5, 4, seed=2, overwrite=True)
    assert _bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_bad_arguments_fail_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown generator parameter"):
        export(FakeAlg(), tmp_path / "ds", 5, 4, seed=1, params={"lo": 0.0})
    with pytest.raises(TypeError, match="integer seed"):
        export(FakeAlg(), tmp_path / "ds", 5, 4, seed=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        export(FakeAlg(), tmp_path / "ds", 5, 0, seed=1)
    assert list(tmp_path.iterdir()) == []


def test_spec_hash_tracks_semantics_not_locations() -> None:
    a, b = FakeAlg(), FakeAlg()
    b.ir = FakeIR(span=42, path="elsewhere/x.alg")
    assert spec_hash(a) == spec_hash(b)
    b.ir = FakeIR(op="min")
    assert spec_hash(a) != spec_hash(b)
    c = FakeAlg()
    c.spec = {**SPEC, "cur": ("hint", "node", "mask")}
    assert spec_hash(a) != spec_hash(c)
    d = FakeAlg()
    d.ir = None
    assert len(spec_hash(d)) == 64


def test_load_detects_corruption(tmp_path: Path) -> None:
    out = export(FakeAlg(), tmp_path / "ds", 5, 4, seed=1)
    raw = bytearray((out / "samples.npz").read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    (out / "samples.npz").write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="checksum"):
        load_dataset(out)


def test_export_shipped_algorithm(tmp_path: Path) -> None:
    """The real compiled binary search exports and reloads."""
    import algspec

    path = Path(__file__).resolve().parents[2] / "algorithms" / "binary_search.alg"
    alg = algspec.load(path)
    a = export(alg, tmp_path / "a", 8, 20, seed=0, params={"high": 0.5})
    b = export(algspec.load(path), tmp_path / "b", 8, 20, seed=0, params={"high": 0.5})
    assert _bytes(a) == _bytes(b)
    manifest, traj = load_dataset(a)
    assert manifest["spec"] == [[k, *v] for k, v in alg.spec.items()]
    assert list(traj.spec) == list(alg.spec)
    assert set(manifest["generators"]) == set(alg.primary_inputs)
    assert traj.inputs["key"].max() < 0.5
    ref = alg.sample(8, 20, dataset.streams(0)[0], high=0.5)
    np.testing.assert_array_equal(traj.inputs["key"], ref.inputs["key"])
