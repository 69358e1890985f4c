"""A sampler at large n draws fewer samples per interpreter batch, so that a batch's
N x N arrays fit in memory (n = 1600: 26 samples per chunk instead of 256)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.sampling import dataset
from algspec.sampling.dataset import DEFAULT_CHUNK, EDGE_ENTRIES_PER_CHUNK, fitting_chunk

BFS = Path(__file__).resolve().parents[2] / "algorithms" / "clrs" / "bfs.alg"


@pytest.mark.parametrize("n", [1, 16, 64, 512, 513, 800, 1600, 100_000])
def test_a_chunk_holds_at_most_the_budget_of_edge_entries(n: int) -> None:
    chunk = fitting_chunk(n)
    assert 1 <= chunk <= DEFAULT_CHUNK
    assert chunk == 1 or chunk * n * n <= EDGE_ENTRIES_PER_CHUNK
    assert chunk == DEFAULT_CHUNK or (chunk + 1) * n * n > EDGE_ENTRIES_PER_CHUNK
    assert fitting_chunk(n, 7) == 7  # a chunk asked for is kept (a manifest's replays)


def test_the_sampler_draws_in_fitting_chunks_and_exports_record_them(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(dataset, "EDGE_ENTRIES_PER_CHUNK", 7 * 36)  # 7 samples at n = 6
    alg = algspec.load(str(BFS))
    calls: list[int] = []
    sample = alg.sample

    def counting(length: int, batch: int, *args, **kwargs):
        calls.append(batch)
        return sample(length, batch, *args, **kwargs)

    monkeypatch.setattr(alg, "sample", counting)
    fb = alg.batch_sampler(length=6, num_samples=10, seed=1).next()
    assert calls == [7, 3] and np.shape(fb.features.lengths) == (10,)
    calls.clear()
    out = dataset.export(alg, tmp_path / "d", 6, 10, seed=1)
    assert calls == [7, 3]
    manifest = (out / dataset.MANIFEST_FILE).read_text()
    assert '"chunk_size": 7' in manifest
    _, again = dataset.load_dataset(out)  # the same seed and chunks: the same samples
    assert np.array_equal(np.asarray(again.lengths), np.asarray(fb.features.lengths))
    assert np.array_equal(again.inputs["A"], fb.features.inputs[[d.name for d in
                                                                 fb.features.inputs].index("A")].data)
