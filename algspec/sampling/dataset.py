"""Batched dataset generation and reproducible export to disk (numpy only).

A dataset is named by its manifest: algorithm, spec hash, generator
parameters, seed, size.  Rebuilding from the same manifest (same algspec and
numpy versions) gives the same bytes: the `.npz` zip is written entry by
entry with fixed timestamps, the manifest holds no clock time, and the random
stream depends only on the seed and the chunk size.

`sample_dataset` is also what the samplers use for their fixed dataset, so
`AlgspecSampler(alg, ..., num_samples=K, seed=S, length=N)` serves exactly the
samples `export(alg, dir, N, K, S)` writes.

With `edges="sparse"` (large sparse graphs) the edge data that are zero off each
sample's graph are stored as edge lists (`algspec.edge_lists`): the graph once per
dataset (`edge_graph/offsets` [K + 1], `edge_graph/senders`, `edge_graph/receivers`
[M], C order) and one value per edge for each datum (`inputs/A` [M(, k)], `hints/h`
[T, M(, k)]); the manifest says `"edges": "sparse"` and, per such datum, its graph and
dense shape (`"edge_lists"`). A dense dataset's files are what they always were.
`load_dataset` densifies them unless asked for `edges="sparse"`.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeGraph, EdgeLists, check_edges
from algspec.process import output_files
from algspec.process.memory_budget import check_samples_fit, trajectory_bytes
from algspec.sampling import identity
from algspec.sampling.jobs import check_jobs, sample_in_jobs
from algspec.sampling.trajectory_batches import (
    concat_trajectories,
    hint_steps,
    pad_hints,
    replace_fields,
    storage_kwargs,
    streams,
)
from algspec.version import __version__

__all__ = [
    "DEFAULT_CHUNK",
    "EDGE_ENTRIES_PER_CHUNK",
    "FORMAT",
    "Progress",
    "concat_trajectories",
    "dataset_chunks",
    "export",
    "fitting_chunk",
    "load_dataset",
    "pad_hints",
    "replace_fields",
    "sample_dataset",
    "spec_hash",
    "streams",
]

FORMAT = "algspec-dataset/1"
# Samples per interpreter batch. Large enough to amortise per-statement Python
# overhead, small enough that a batch of long trajectories (bubble sort at
# n=64: 2017 frames) fits in memory.  Part of a dataset's identity: the random
# stream is split across chunks, so the manifest records it.
DEFAULT_CHUNK = 256
# Entries of one N x N edge array in a chunk, at most: from n = 513 on a chunk holds fewer
# than DEFAULT_CHUNK samples (26 at n = 1600), so that sampling at scale fits in memory.
EDGE_ENTRIES_PER_CHUNK = 2**26
SAMPLES_FILE = "samples.npz"
MANIFEST_FILE = "manifest.json"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can hold
GRAPH_ENTRY = "edge_graph"  # the edge lists' graph: `edge_graph/offsets`, ... in the npz
_GRAPH_FIELDS = ("offsets", "senders", "receivers")
# progress(stage, done, total): "sampling" counts samples, "writing" arrays written.
Progress = Callable[[str, int, int], None]


# ------------------------------------------------------------ sampling in chunks
def dataset_chunks(alg: Any, length: int, num_samples: int, seed: int | None,
                   params: Mapping[str, Any] | None = None, chunk_size: int | None = None,
                   edges: str = "dense") -> Iterator[Any]:
    """The fixed set `BatchSampler(alg, ..., num_samples, seed=seed, length=length)` holds,
    one chunk of trajectories at a time (the same draws, in order), so that a set too
    large to hold (1,000 samples of n frames at n = 1600) can be used as it is drawn."""
    chunk = fitting_chunk(length, chunk_size)
    rng = streams(seed)[0]
    for start in range(0, num_samples, chunk):
        yield alg.sample(length, min(chunk, num_samples - start), rng,
                         **storage_kwargs(edges), **dict(params or {}))


def fitting_chunk(length: int, chunk_size: int | None = None) -> int:
    """Samples per interpreter batch at size `length`: `chunk_size` (default
    DEFAULT_CHUNK), fewer where a chunk's N x N arrays would pass EDGE_ENTRIES_PER_CHUNK."""
    if chunk_size is not None:
        return chunk_size
    return max(1, min(DEFAULT_CHUNK, EDGE_ENTRIES_PER_CHUNK // max(1, length * length)))


def sample_dataset(
    alg: Any,
    length: int,
    num_samples: int,
    rng: np.random.Generator | int | None,
    params: Mapping[str, Any] | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    *,
    jobs: int = 1,
    launcher: str = "local",
    address: str | None = None,
    edges: str = "dense",
) -> Any:
    """`num_samples` trajectories of size `length`, drawn in batched chunks.

    An int `rng` is a seed: the samples come from `streams(seed)[0]`.
    `progress("sampling", done, num_samples)` is called after each chunk.
    `jobs` > 1 draws the same set in that many processes (`algspec.sampling.jobs`:
    local ones, or Ray tasks with `launcher="ray"` on the cluster at `address`).
    `edges="sparse"`: edge data as `EdgeLists` where they are zero off the graph
    (`alg.sample(..., edges=)`); densified, the very arrays of `edges="dense"`.
    """
    if num_samples < 1:
        raise ValueError(f"num_samples must be >= 1, got {num_samples}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    jobs = check_jobs(jobs)
    storage = storage_kwargs(check_edges(edges))
    if not isinstance(rng, np.random.Generator):
        rng = streams(rng)[0]
    if min(jobs, num_samples) > 1 or launcher != "local":
        return sample_in_jobs(alg, length, num_samples, rng, params or {}, chunk_size, jobs,
                              launcher=launcher, address=address, progress=progress,
                              edges=edges)
    chunks = []
    for start in range(0, num_samples, chunk_size):
        chunks.append(alg.sample(length, min(chunk_size, num_samples - start), rng, **storage,
                                 **dict(params or {})))
        if start == 0 and num_samples > chunk_size:  # refuse what cannot fit, before the rest
            check_samples_fit(trajectory_bytes(chunks[0]) / chunk_size, num_samples, length)
        if progress is not None:  # a long export says how far it got
            progress("sampling", min(start + chunk_size, num_samples), num_samples)
    return concat_trajectories(chunks)


# ------------------------------------------------------------------ hashing
def spec_hash(alg: Any) -> str:
    """The one spec hash (`algspec.sampling.identity`): the spec plus the IR when `alg` has one."""
    program = getattr(alg, "ir", None)
    return identity.spec_hash(alg.spec, program if hasattr(program, "model_dump_json") else None)


def _generators(alg: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    """Per-input generator name and resolved parameters, as far as `alg` tells."""
    resolve = getattr(alg, "generator_params", None)
    if not callable(resolve):
        return {}
    out = {}
    for name, resolved in resolve(**params).items():
        entry: dict[str, Any] = {"params": {k: _jsonable(v) for k, v in resolved.items()}}
        with suppress(AttributeError, KeyError):  # duck-typed algorithms may have no IR
            entry["generator"] = alg.ir.decl(name).generator.name
        out[name] = entry
    return out


def _jsonable(v: Any) -> Any:
    from algspec.generators import jsonable  # a parameter in n (`p = 2.0 / n`) as its text
    return v.item() if isinstance(v, np.generic) else jsonable(v)


# ------------------------------------------------------------------- export
def _write_npz(path: Path, arrays: Mapping[str, np.ndarray],
               progress: Progress | None = None) -> None:
    """An `np.load`-readable .npz whose bytes depend only on the arrays.

    `np.savez` stamps each zip entry with the current time; here every entry
    gets a fixed date and permission bits, in sorted name order.
    """
    with zipfile.ZipFile(path, "w") as zf:
        for k, name in enumerate(sorted(arrays)):
            if progress is not None:  # compressing long hints takes a while too
                progress("writing", k, len(arrays))
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, buf.getvalue(), compresslevel=6)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def export(
    alg: Any,
    out_dir: str | os.PathLike[str],
    length: int,
    num_samples: int,
    seed: int,
    params: Mapping[str, Any] | None = None,
    *,
    chunk_size: int | None = None,
    overwrite: bool = False,
    progress: Progress | None = None,
    jobs: int = 1,
    launcher: str = "local",
    address: str | None = None,
    edges: str = "dense",
) -> Path:
    """Write `num_samples` samples of size `length` to `out_dir`; return its path.

    `out_dir` gets `samples.npz` (entries `inputs/<name>`, `outputs/<name>`,
    `hints/<name>` `[T, B, ...]` zero padded, `lengths`, and `rand_keys` for a
    program that draws `rand()`) and `manifest.json`.
    Everything is written to a temporary sibling directory that is renamed
    into place at the end, so a failure leaves nothing behind.  An existing
    non-empty `out_dir` is replaced only with `overwrite=True`. `progress`, if
    given, hears how far sampling and writing got (see `Progress`). `chunk_size`
    (samples per interpreter batch, recorded in the manifest) defaults to
    `fitting_chunk(length)`. `jobs`, `launcher` and `address` split the drawing
    (`sample_dataset`); the files are the same bytes for any of them. `edges="sparse"`
    stores edge data as edge lists (see the module docstring).
    """
    check_edges(edges)
    chunk_size = fitting_chunk(length, chunk_size)
    out = Path(out_dir)
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"export needs an integer seed to be reproducible, got {seed!r}")
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} is not empty (pass overwrite=True to replace it)")
    real = Path(os.path.abspath(out))  # `.`, `a/..`: name the folder itself
    if real == Path.cwd() or real in Path.cwd().parents:
        raise FileExistsError(f"{out} is the working folder or holds it; name a new folder")
    params = dict(params or {})
    generators = _generators(alg, params)  # fails early on unknown parameters
    traj = sample_dataset(alg, length, num_samples, int(seed), params, chunk_size, progress,
                          jobs=jobs, launcher=launcher, address=address, edges=edges)

    arrays: dict[str, np.ndarray] = {"lengths": np.asarray(traj.lengths)}
    stored = _EdgeEntries()
    for group in ("inputs", "outputs", "hints"):
        for name, arr in getattr(traj, group).items():
            arrays[f"{group}/{name}"] = stored.add(f"{group}/{name}", arr)
    arrays.update(stored.graph_arrays())
    if getattr(traj, "rand_keys", None) is not None:  # replay: trace(rand_key=rand_keys[i])
        arrays["rand_keys"] = np.asarray(traj.rand_keys, dtype=np.uint64)

    made = output_files.missing_parents(real)  # removed again if anything fails
    try:
        with output_files.temp_dir_for(real) as tmp:  # `.NAME.PID.RAND.algspec-tmp`
            _write_npz(tmp / SAMPLES_FILE, arrays, progress)
            if progress is not None:
                progress("writing", len(arrays), len(arrays))
            manifest = {
                "format": FORMAT,
                "algorithm": alg.name,
                "spec_hash": spec_hash(alg),
                # A list, not an object: the order is CLRS's data point order.
                "spec": [[k, *v] for k, v in alg.spec.items()],
                "generators": generators,
                "params": {k: _jsonable(v) for k, v in params.items()},
                "seed": int(seed),
                "length": int(length),
                "num_samples": int(num_samples),
                "chunk_size": int(chunk_size),
                "max_steps": hint_steps(traj),
                "arrays": {k: {"shape": list(v.shape), "dtype": v.dtype.str}
                           for k, v in sorted(arrays.items())},
                "algspec_version": __version__,
                "numpy_version": np.__version__,
                "files": {SAMPLES_FILE: {"sha256": _sha256(tmp / SAMPLES_FILE),
                                         "bytes": (tmp / SAMPLES_FILE).stat().st_size}},
                **(stored.manifest() if edges != "dense" else {}),
            }
            (tmp / MANIFEST_FILE).write_text(
                json.dumps(manifest, indent=2, sort_keys=True) + "\n")
            # Without overwrite, a folder another process filled meanwhile is kept.
            output_files.publish_dir(tmp, real, overwrite)
    except BaseException:
        output_files.remove_empty(made)
        raise
    return out


class _EdgeEntries:
    """The edge lists of a dataset being written: their graphs, each stored once
    (`edge_graph`, `edge_graph_1`, ...), and what the manifest says of them."""

    def __init__(self) -> None:
        self.graphs: list[EdgeGraph] = []
        self.data: dict[str, dict[str, Any]] = {}

    def add(self, key: str, arr: Any) -> np.ndarray:
        """The array stored for datum `key`: its values if it is edge lists."""
        if not isinstance(arr, EdgeLists):
            return np.asarray(arr)
        for k, g in enumerate(self.graphs):
            if g.same_as(arr.graph):
                break
        else:
            k = len(self.graphs)
            self.graphs.append(arr.graph)
        self.data[key] = {"graph": self._name(k), "shape": list(arr.shape)}
        return arr.values

    @staticmethod
    def _name(k: int) -> str:
        return GRAPH_ENTRY if k == 0 else f"{GRAPH_ENTRY}_{k}"

    def graph_arrays(self) -> dict[str, np.ndarray]:
        """Each graph's arrays; node indices in the smallest unsigned type that holds them
        (uint8 up to 256 nodes, uint16 up to 65,536; read back as int32)."""
        out = {}
        for k, g in enumerate(self.graphs):
            small = np.min_scalar_type(max(g.n - 1, 0))
            out[f"{self._name(k)}/offsets"] = g.offsets
            out[f"{self._name(k)}/senders"] = g.senders.astype(small)
            out[f"{self._name(k)}/receivers"] = g.receivers.astype(small)
        return out

    def manifest(self) -> dict[str, Any]:
        return {"edges": "sparse", "edge_lists": self.data,
                "edge_graphs": {self._name(k): {"nodes": g.n, "edges": g.num_edges}
                                for k, g in enumerate(self.graphs)}}


def _edge_lists(root: Path, manifest: dict, z: Any) -> dict[str, EdgeLists]:
    """The stored edge lists of a dataset (`"edge_lists"` in its manifest), by entry."""
    graphs: dict[str, EdgeGraph] = {}
    out: dict[str, EdgeLists] = {}
    try:
        for name, meta in manifest.get("edge_graphs", {}).items():
            graphs[name] = EdgeGraph(int(meta["nodes"]),
                                     *(z[f"{name}/{field}"] for field in _GRAPH_FIELDS))
        for key, meta in manifest.get("edge_lists", {}).items():
            x = EdgeLists(graphs[meta["graph"]], z[key], frames=key.startswith("hints/"))
            if list(x.shape) != list(meta["shape"]):
                raise ValueError(f"{key} has shape {list(x.shape)}, the manifest says "
                                 f"{meta['shape']}")
            out[key] = x
    except (KeyError, ValueError, TypeError) as e:
        raise ValueError(f"{root}: malformed edge lists ({e})") from None
    return out


def load_dataset(path: str | os.PathLike[str], verify: bool = True,
                 edges: str = "dense") -> tuple[dict, Any]:
    """Read an exported dataset back as `(manifest, Trajectories)`.

    With `verify`, the file checksums in the manifest are checked first. Edge data
    stored as edge lists come back dense (`edges="dense"`: the arrays a dense dataset
    holds) or as `EdgeLists` (`edges="sparse"`); dense entries stay arrays either way.
    """
    check_edges(edges)
    root = Path(path)
    manifest = json.loads((root / MANIFEST_FILE).read_text())
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{root}: unknown dataset format {manifest.get('format')!r}")
    if verify:
        for fname, meta in manifest["files"].items():
            if _sha256(root / fname) != meta["sha256"]:
                raise ValueError(f"{root / fname}: checksum mismatch")
    groups: dict[str, dict[str, Any]] = {"inputs": {}, "outputs": {}, "hints": {}}
    with np.load(root / SAMPLES_FILE, allow_pickle=False) as z:
        lengths = z["lengths"]
        rand_keys = z["rand_keys"] if "rand_keys" in z.files else None
        sparse = _edge_lists(root, manifest, z)
        for key in z.files:
            if "/" in key:
                group, name = key.split("/", 1)
                if group not in groups:  # an edge graph: read with its edge lists
                    continue
                x = sparse.get(key)
                groups[group][name] = z[key] if x is None else \
                    x if edges == "sparse" else x.dense()
    spec = {name: (stage, loc, type_) for name, stage, loc, type_ in manifest["spec"]}
    from algspec.interp import Trajectories

    traj = Trajectories(
        spec=spec,
        inputs={k: groups["inputs"][k] for k, v in spec.items() if v[0] == "input"},
        outputs={k: groups["outputs"][k] for k, v in spec.items() if v[0] == "output"},
        hints={k: groups["hints"][k] for k, v in spec.items() if v[0] == "hint"},
        lengths=lengths,
        rand_keys=rand_keys,
    )
    return manifest, traj


def stored_trace_inputs(alg: Any, stored: Any, i: int) -> dict[str, Any]:
    """Sample i's stored inputs, by the file's names, as `alg.trace` takes them.

    `stored` is the dataset's `samples.npz` as `np.load` opens it (entries
    `inputs/<spec name>`), a mapping of spec names to batched arrays
    (`Trajectories.inputs`), or a `Trajectories`. A dataset stores the probes (spec
    names; no private draws, `pos` computed): the primary inputs are passed as stored,
    a derived input that stands in for the private draws it is defined from
    (`alg.stand_in_inputs`) in their place, and a derived input computed from recorded
    ones with them, as stored (at float32, as the sample ran on it; `trace` checks it
    against its definition). `pos` is left out: `trace` computes it from n.
    """
    from algspec import ir
    arrays = getattr(stored, "inputs", stored)  # a Trajectories: its inputs
    takes = set(alg.primary_inputs) | {
        d.name for d in alg.ir.decls
        if d.stage == ir.Stage.INPUT and d.derived is not None and not d.implicit}
    out: dict[str, Any] = {}
    for d in alg.ir.decls:
        if d.name not in takes:
            continue
        for key in (d.spec_name, f"inputs/{d.spec_name}"):
            if key in arrays:
                x = arrays[key]  # edge lists: only sample i made dense
                out[d.name] = x.take([i]).dense()[0] if isinstance(x, EdgeLists) else \
                    np.asarray(x)[i]
                break
    return out


def replay(alg: Any, path: str | os.PathLike[str], i: int) -> tuple[Any, dict]:
    """Re-run sample i of an exported dataset: `alg.trace`'s `(output, probes)`, equal to
    the stored sample's arrays (at float64: the stored float32 values exactly)."""
    manifest, traj = load_dataset(path)
    if manifest["spec_hash"] != spec_hash(alg):
        raise ValueError(f"{path} was sampled from another version of {manifest['algorithm']} "
                         "(its spec hash differs)")
    if not 0 <= i < int(manifest["num_samples"]):
        raise IndexError(f"{path} holds samples 0..{manifest['num_samples'] - 1}, not {i}")
    keys = getattr(traj, "rand_keys", None)
    return alg.trace(n=int(manifest["length"]),
                     rand_key=None if keys is None else int(keys[i]),
                     **stored_trace_inputs(alg, traj.inputs, i))
