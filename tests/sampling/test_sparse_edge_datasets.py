"""Samplers, sets and dataset files with `edges="sparse"`: edge data held as edge lists
densify to exactly the `edges="dense"` arrays; the files of a dense set keep their bytes;
a sparse set drawn by several processes is the one-process set byte for byte."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.compiled import load_source
from algspec.edge_lists import EdgeGraph, EdgeLists
from algspec.feedback import feedback_of
from algspec.interp import Trajectories
from algspec.sampling import BatchSampler
from algspec.sampling.dataset import export, load_dataset, sample_dataset, stored_trace_inputs
from algspec.sampling.jobs import draw_piece, plan
from algspec.sampling.trajectory_batches import (
    concat_trajectories,
    pad_hints,
    streams,
    take_trajectories,
)
from tests.support.small_programs import EDGE_FLOW

ROOT = Path(__file__).resolve().parents[2]

PROGRAMS = ["algorithms/salsa/bfs.alg", "algorithms/parallel/bellman_ford.alg",
            "algorithms/parallel/boruvka.alg", "edge_flow"]
# Data each program holds as edge lists (zero off the graph in every sample).
SPARSE = {"bfs": {"A", "adj"}, "bellman_ford_sync": {"A", "adj"},
          "boruvka": {"A", "adj", "forest", "tree"}, "edge_flow": {"A", "adj", "flow", "used",
                                                                   "w"}}


def _load(which: str):
    if which == "edge_flow":
        return load_source(EDGE_FLOW, "edge_flow.alg")
    return algspec.load(ROOT / which)


def _groups(traj):
    for group in ("inputs", "outputs", "hints"):
        yield from ((group, k, v) for k, v in getattr(traj, group).items())


def _same_dense(sparse, dense) -> set[str]:
    """Every datum of `sparse`, densified, is `dense`'s array (dtype, shape, bytes); the
    names held as edge lists."""
    held = set()
    for group, k, x in _groups(sparse):
        y = getattr(dense, group)[k]
        assert isinstance(y, np.ndarray), (group, k)
        if isinstance(x, EdgeLists):
            held.add(k)
        d = np.asarray(x)
        assert d.dtype == y.dtype and d.shape == y.shape, (group, k)
        assert d.tobytes() == y.tobytes(), (group, k)
    assert np.asarray(sparse.lengths).tobytes() == np.asarray(dense.lengths).tobytes()
    return held


def _one_graph(traj) -> None:
    """The edge lists of one batch share one graph object (held once)."""
    graphs = {id(x.graph) for _g, _k, x in _groups(traj) if isinstance(x, EdgeLists)}
    assert len(graphs) <= 1


def _points(fb):
    return [*fb.features.inputs, *fb.features.hints, *fb.outputs]


@pytest.mark.parametrize("which", PROGRAMS)
def test_sparse_sampler_batches_densify_to_the_dense_sampler_batches(which: str) -> None:
    alg = _load(which)
    for num in (10, -1):  # a fixed set (chunks of 4: joined, padded), then on the fly
        dense = BatchSampler(alg, alg.spec, num, seed=5, length=9, chunk_size=4,
                             probe_samples=8)
        sparse = BatchSampler(alg, alg.spec, num, seed=5, length=9, chunk_size=4,
                              probe_samples=8, edges="sparse")
        assert sparse.edges == "sparse" and dense.edges == "dense"
        if num > 0:
            assert _same_dense(sparse.dataset, dense.dataset) == SPARSE[alg.name]
            _one_graph(sparse.dataset)
        for _ in range(2):
            a, b = sparse.next(6), dense.next(6)
            assert sparse.max_steps == dense.max_steps
            held = set()
            for p, q in zip(_points(a), _points(b), strict=True):
                assert p.name == q.name and isinstance(q.data, np.ndarray)
                if isinstance(p.data, EdgeLists):
                    held.add(p.name)
                assert np.asarray(p.data).tobytes() == q.data.tobytes(), p.name
                assert np.shape(p.data) == q.data.shape and p.data.dtype == q.data.dtype
            assert held == SPARSE[alg.name]
            assert np.asarray(a.features.lengths).tobytes() == \
                np.asarray(b.features.lengths).tobytes()


def test_the_compiled_samplers_pass_the_storage_on() -> None:
    alg = _load("edge_flow")
    got = alg.batch_sampler(8, num_samples=5, seed=1, edges="sparse").next(3)
    want = alg.batch_sampler(8, num_samples=5, seed=1).next(3)
    used = {p.name: p for p in _points(got)}["used"]
    assert isinstance(used.data, EdgeLists)
    assert np.asarray(used.data).tobytes() == {p.name: p for p in _points(want)}[
        "used"].data.tobytes()
    with pytest.raises(ValueError, match="edges must be one of dense, sparse"):
        alg.batch_sampler(8, num_samples=5, seed=1, edges="csr")


def test_truncated_decimals_cut_edge_list_values_as_dense_ones() -> None:
    alg = _load("edge_flow")
    a = BatchSampler(alg, alg.spec, -1, seed=2, length=8, truncate_decimals=1,
                     edges="sparse").next(4)
    b = BatchSampler(alg, alg.spec, -1, seed=2, length=8, truncate_decimals=1).next(4)
    for p, q in zip(_points(a), _points(b), strict=True):
        assert np.asarray(p.data).tobytes() == q.data.tobytes(), p.name


def test_feedback_keeps_edge_lists_and_checks_their_shape() -> None:
    alg = _load("edge_flow")
    traj = alg.sample(7, 3, 0, edges="sparse")
    fb = feedback_of(traj)
    assert all(isinstance(p.data, EdgeLists) for p in _points(fb)
               if p.name in SPARSE["edge_flow"])
    assert fb.features.hints[1].data is traj.hints["used"]  # shared, not copied
    bad = EdgeLists(EdgeGraph.from_mask(np.ones((3, 6, 6), bool)), np.zeros(108, np.float32))
    with pytest.raises(ValueError, match="probe 'A'"):
        feedback_of(Trajectories(traj.spec, {**traj.inputs, "A": bad}, traj.outputs,
                                 traj.hints, traj.lengths))
    dense = feedback_of(traj, densify=True)
    assert all(isinstance(p.data, np.ndarray) for p in _points(dense))


def _traj(graph: EdgeGraph, dense_w: bool, steps: int, seed: int) -> Trajectories:
    rng = np.random.default_rng(seed)
    mask = graph.mask()
    spec = {"A": ("input", "edge", "scalar"), "w": ("hint", "edge", "scalar")}
    A = np.where(mask, rng.random(mask.shape), 0).astype(np.float32)
    w = np.where(mask, rng.random((steps,) + mask.shape), 0).astype(np.float32)
    if dense_w:
        w[0, 0, 0, 0] = 1.0 if not mask[0, 0, 0] else w[0, 0, 0, 0]
        w[0, 0, ~mask[0]] = 2.0
    hint = w if dense_w else EdgeLists.from_dense(w, graph, frames=True)
    return Trajectories(spec, {"A": EdgeLists.from_dense(A, graph)}, {}, {"w": hint},
                        np.full(graph.batch_size, steps, np.float32))


def test_joining_taking_and_padding_match_the_dense_operations() -> None:
    rng = np.random.default_rng(0)
    g1 = EdgeGraph.from_mask(rng.random((3, 5, 5)) < 0.4)
    g2 = EdgeGraph.from_mask(rng.random((2, 5, 5)) < 0.4)
    a, b = _traj(g1, False, 2, 1), _traj(g2, False, 4, 2)
    joined = concat_trajectories([a, b])
    assert joined.inputs["A"].graph is joined.hints["w"].graph  # one joined graph
    dense = [Trajectories(t.spec, {"A": np.asarray(t.inputs["A"])}, {},
                          {"w": np.asarray(t.hints["w"])}, t.lengths) for t in (a, b)]
    _same_dense(joined, concat_trajectories(dense))
    idx = np.array([4, 0, 0, 2])
    taken = take_trajectories(joined, idx)
    assert taken.inputs["A"].graph is taken.hints["w"].graph
    _same_dense(taken, take_trajectories(concat_trajectories(dense), idx))
    padded = pad_hints(a.hints, 6)["w"]
    assert isinstance(padded, EdgeLists)
    assert np.asarray(padded).tobytes() == pad_hints(dense[0].hints, 6)["w"].tobytes()
    # a batch where a datum is not zero off the graph holds it dense: joined dense
    mixed = concat_trajectories([a, _traj(g2, True, 3, 3)])
    assert isinstance(mixed.hints["w"], np.ndarray) and isinstance(mixed.inputs["A"],
                                                                    EdgeLists)
    assert mixed.hints["w"].shape == (3, 5, 5, 5)


@pytest.mark.parametrize("which", PROGRAMS)
def test_sparse_dataset_file_loads_the_dense_dataset_arrays(tmp_path: Path,
                                                            which: str) -> None:
    alg = _load(which)
    d = export(alg, tmp_path / "d", 9, 7, 4, chunk_size=3)
    s = export(alg, tmp_path / "s", 9, 7, 4, chunk_size=3, edges="sparse")
    dm, dense = load_dataset(d)
    sm, as_dense = load_dataset(s)
    assert _same_dense(as_dense, dense) == set()  # loaded dense by default
    _, held = load_dataset(s, edges="sparse")
    assert _same_dense(held, dense) == SPARSE[alg.name]
    _one_graph(held)
    assert (held.rand_keys is None) == (dense.rand_keys is None)
    assert sm["edges"] == "sparse" and "edges" not in dm and "edge_lists" not in dm
    assert set(sm["edge_lists"]) == {f"{g}/{k}" for g, k, x in _groups(held)
                                     if isinstance(x, EdgeLists)}
    assert sm["edge_graphs"]["edge_graph"]["nodes"] == 9
    with np.load(s / "samples.npz") as z:  # the graph once, small node indices
        assert [f for f in z.files if f.startswith("edge_graph")] == [
            "edge_graph/offsets", "edge_graph/receivers", "edge_graph/senders"]
        assert z["edge_graph/senders"].dtype == np.uint8
        assert z["inputs/A"].shape == (held.inputs["A"].graph.num_edges,)
    # the shared keys of the manifests agree (the stored shapes aside)
    for key in ("algorithm", "spec_hash", "spec", "seed", "length", "num_samples",
                "chunk_size", "max_steps", "generators"):
        assert sm[key] == dm[key], key
    for i in (0, 6):  # replay's inputs: sample i made dense alone
        got, want = stored_trace_inputs(alg, held, i), stored_trace_inputs(alg, dense, i)
        assert list(got) == list(want)
        assert all(got[k].tobytes() == want[k].tobytes() for k in want)
    with pytest.raises(ValueError, match="edges must be one of"):
        load_dataset(s, edges="coo")


def test_a_dataset_of_dense_edges_is_the_same_file_sparse(tmp_path: Path) -> None:
    """`graph complete`: no edge list to gain; the samples file is the dense one."""
    text = EDGE_FLOW.replace("graph input adj", "graph complete").replace(
        "input  edge adj: mask = adjacency(A)\n", "")
    alg = load_source(text, "edge_flow_complete.alg")
    d = export(alg, tmp_path / "d", 6, 5, 0)
    s = export(alg, tmp_path / "s", 6, 5, 0, edges="sparse")
    assert (d / "samples.npz").read_bytes() == (s / "samples.npz").read_bytes()
    assert json.loads((s / "manifest.json").read_text())["edge_lists"] == {}


# The files `algspec sample algorithms/salsa/bfs.alg -n 12 -k 20 --seed 3` wrote before
# edge lists existed: a dense dataset keeps these bytes.
BFS_SAMPLES_SHA256 = "5b3151c69c2dc8fc6f19e5dba80791ef89381a03b6576390845cc9e6046fa176"
DENSE_MANIFEST_KEYS = {"algorithm", "algspec_version", "arrays", "chunk_size", "files",
                       "generators", "length", "max_steps", "num_samples", "numpy_version",
                       "params", "seed", "spec", "spec_hash", "format"}


def test_a_dense_export_keeps_its_bytes(tmp_path: Path) -> None:
    out = export(_load("algorithms/salsa/bfs.alg"), tmp_path / "d", 12, 20, 3)
    digest = hashlib.sha256((out / "samples.npz").read_bytes()).hexdigest()
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":  # the .npy header numpy writes
        assert digest == BFS_SAMPLES_SHA256
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest) == DENSE_MANIFEST_KEYS
    assert manifest["format"] == "algspec-dataset/1"


def test_the_sparse_file_is_much_smaller_at_n_200(tmp_path: Path) -> None:
    """BFS on SALSA-CLRS's sparse graphs (about 10 edges per node at n = 200): the stored
    arrays, what loading holds, are a fraction of the dense ones; on disk, where deflate
    squeezes the zeros, still a half at most."""
    alg = _load("algorithms/salsa/bfs.alg")
    d = export(alg, tmp_path / "d", 200, 4, 1)
    s = export(alg, tmp_path / "s", 200, 4, 1, edges="sparse")

    def held(folder: Path) -> int:
        with zipfile.ZipFile(folder / "samples.npz") as z:
            return sum(i.file_size for i in z.infolist())

    assert held(s) < 0.15 * held(d)
    assert (s / "samples.npz").stat().st_size < 0.6 * (d / "samples.npz").stat().st_size


@pytest.mark.parametrize(("num", "chunk"), [(10, 4), (7, 7)])
def test_pieces_drawn_apart_join_to_the_one_process_edge_lists(num: int, chunk: int) -> None:
    """The pieces of `jobs` > 1 (halves of chunks too), drawn here and joined, are the
    one-process set: the same edge lists, byte for byte."""
    alg = _load("edge_flow")
    one = sample_dataset(alg, 8, num, streams(6)[0], {}, chunk, edges="sparse")
    pieces = plan(alg, 8, num, streams(6)[0], {}, chunk, 3, "sparse")
    joined = concat_trajectories([draw_piece(alg, 8, {}, p, "sparse") for p in pieces])
    _same_edge_lists(joined, one)


def _same_edge_lists(a, b) -> None:
    for group, k, x in _groups(a):
        y = getattr(b, group)[k]
        assert type(x) is type(y), (group, k)
        if isinstance(x, EdgeLists):
            assert x.frames == y.frames and x.values.dtype == y.values.dtype
            assert x.values.tobytes() == y.values.tobytes(), (group, k)
            for f in ("offsets", "senders", "receivers"):
                assert getattr(x.graph, f).tobytes() == getattr(y.graph, f).tobytes()
        else:
            assert x.tobytes() == y.tobytes(), (group, k)


def test_two_processes_write_the_one_process_sparse_files(tmp_path: Path) -> None:
    alg = _load("algorithms/parallel/boruvka.alg")
    one = export(alg, tmp_path / "one", 8, 9, 2, chunk_size=4, edges="sparse")
    two = export(alg, tmp_path / "two", 8, 9, 2, chunk_size=4, edges="sparse", jobs=2)
    for name in ("samples.npz", "manifest.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes()


SHIPPED = [p for p in sorted((ROOT / "algorithms").rglob("*.alg"))
           if "lib" not in p.relative_to(ROOT).parts]  # lib/: included, not whole files


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_samples_the_same_bytes_with_edge_lists(path: Path) -> None:
    """`edges="sparse"` changes how edge data are held, never what they are: on every
    shipped file (dense-mode, complete-graph and padded-node files too), densified."""
    alg = algspec.load(path)
    dense, listed = alg.sample(5, 2, 7), alg.sample(5, 2, 7, edges="sparse")
    for group, k, v in _groups(dense):
        got = np.asarray(getattr(listed, group)[k])
        assert got.dtype == v.dtype and got.tobytes() == v.tobytes(), (group, k)
