"""The one processor table: every entry builds on every backend it claims, every
processor a backend can build is in it, and `--processor` is checked against it at
the flag (before any data are drawn)."""

from __future__ import annotations

import inspect
import re

import haiku as hk
import jax
import numpy as np
import pytest
from typer.testing import CliRunner

from algspec.cli import app
from algspec.nn.graph import DenseGraph, SparseGraph
from algspec.nn.processor_table import ALGSPEC, CLRS, PROCESSOR_TABLE, processors_of
from algspec.nn.processors import make_processor
from algspec.training.config import TrainConfig

clrs_processors = pytest.importorskip("clrs._src.processors")

B, N, H = 1, 3, 4
CLAIMS = [(name, backend) for name, kind in PROCESSOR_TABLE.items()
          for backend in sorted(kind.backends)]


def _inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    return (rng.normal(size=(B, N, H)).astype(np.float32),
            rng.normal(size=(B, N, N, H)).astype(np.float32),
            rng.normal(size=(B, H)).astype(np.float32),
            np.ones((B, N, N), np.float32),
            rng.normal(size=(B, N, H)).astype(np.float32))


def _build_clrs(name: str) -> np.ndarray:
    factory = clrs_processors.get_processor_factory(name, use_ln=True, nb_triplet_fts=2,
                                                    nb_heads=1)
    f = hk.transform(lambda *a: factory(H)(*a, batch_size=B, nb_nodes=N))
    args = _inputs()
    params = f.init(jax.random.PRNGKey(0), *args)
    return np.asarray(f.apply(params, None, *args)[0])


def _build_algspec(name: str, sparse: bool) -> np.ndarray:
    node, edge, graph_fts, adj, hidden = _inputs()
    if sparse:
        s, r = np.nonzero(np.ones((N, N)))
        graph = SparseGraph(s[None].astype(np.int32), r[None].astype(np.int32),
                            np.ones((B, len(s)), bool))
        edge = edge[:, s, r]
    else:
        graph = DenseGraph(adj)
    f = hk.without_apply_rng(hk.transform(lambda *a: make_processor(name, H, nb_triplet_fts=2)(*a)))
    args = (node, edge, graph_fts, graph, hidden, np.ones((B, N), np.float32))
    return np.asarray(f.apply(f.init(jax.random.PRNGKey(0), *args), *args)[0])


@pytest.mark.parametrize("name,backend", CLAIMS)
def test_every_entry_builds_on_every_backend_it_claims(name: str, backend: str) -> None:
    if backend == CLRS:
        out = _build_clrs(name)
    else:
        out = _build_algspec(name, sparse=False)
        if PROCESSOR_TABLE[name].sparse:
            assert _build_algspec(name, sparse=True).shape == (B, N, H)
    assert out.shape == (B, N, H) and np.isfinite(out).all()


def test_every_buildable_processor_is_in_the_table() -> None:
    source = inspect.getsource(clrs_processors.get_processor_factory)
    assert set(re.findall(r"kind == '(\w+)'", source)) == set(processors_of(CLRS))
    for name, kind in PROCESSOR_TABLE.items():
        if ALGSPEC not in kind.backends:
            with pytest.raises(ValueError, match="unknown processor kind"):
                make_processor(name, H)


@pytest.mark.parametrize("name", [n for n, k in PROCESSOR_TABLE.items()
                                  if ALGSPEC in k.backends and not k.sparse])
def test_a_dense_only_entry_has_no_sparse_form(name: str) -> None:
    with pytest.raises(ValueError, match="dense only"):
        _build_algspec(name, sparse=True)


def test_config_accepts_exactly_what_each_backend_has() -> None:
    for name, kind in PROCESSOR_TABLE.items():
        for backend in (CLRS, ALGSPEC):
            for graph in ("dense", "sparse") if backend == ALGSPEC else ("dense",):
                ok = backend in kind.backends and (graph == "dense" or kind.sparse)
                if ok:
                    TrainConfig(algorithm="x", processor=name, backend=backend, graph=graph)
                else:
                    with pytest.raises(ValueError):
                        TrainConfig(algorithm="x", processor=name, backend=backend,
                                    graph=graph)


def test_a_processor_the_backend_lacks_is_refused_at_the_flag(tmp_path, monkeypatch) -> None:
    """One `error:` line listing what the backend has, exit 2, before any data are drawn."""
    from algspec.training import data

    def no_draws(*a, **k):
        raise AssertionError("data drawn before the processor was checked")

    for fn in [n for n in dir(data) if not n.startswith("_") and callable(getattr(data, n))]:
        monkeypatch.setattr(data, fn, no_draws)
    alg = tmp_path / "tiny.alg"
    alg.write_text("algorithm tiny\n")
    r = CliRunner().invoke(app, ["train", str(alg), "--processor", "memnet_full",
                                   "--backend", "algspec", "--out", str(tmp_path / "run")])
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:")
    assert "memnet_full" in err and "--backend clrs" in err
    assert all(p in err for p in processors_of(ALGSPEC))
    assert not (tmp_path / "run").exists()
