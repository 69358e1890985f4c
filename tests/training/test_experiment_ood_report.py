"""A grid's `ood:` section: every finished run is swept over sizes and families, and the
report sets each task's sequential algorithm beside its parallel one as n grows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from algspec.training import ood_report
from algspec.training.experiment import GridError, load_grid, run_grid
from tests.training.test_experiment import FakeTrain, write_grid

SIZES = [6, 12, 24]


def fake_sweep(calls: list[tuple[str, int]]) -> Any:
    """Stands in for `ood.run_sweep`: writes RUN/ood/ood.json with scores that fall with n,
    more slowly for the parallel files (minimum, insertion_sort)."""

    def sweep(run_dir: Path, sizes: list[int], families: list[str], samples: Any, out: Path,
              batch_size: Any, *, progress: bool, log: Any, shared: dict) -> dict:
        config = json.loads((run_dir / "config.json").read_text())
        calls.append((run_dir.name, id(shared)))
        par = config["algorithm"] in ("minimum", "insertion_sort")
        cells = [{"family": f, "size": n, "samples": 4, "metric": "micro_f1",
                  "score": 1.0 - n / (100.0 if par else 50.0) - 0.01 * config["seed"]}
                 for f in families for n in sizes]
        out.mkdir(parents=True, exist_ok=True)
        summary = {"cells": cells, "families": list(families), "sizes": list(sizes)}
        (out / "ood.json").write_text(json.dumps(summary))
        return summary

    return sweep


def test_the_report_sets_sequential_beside_parallel_out_of_distribution(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(ood_report, "run_sweep", fake_sweep(calls))
    grid = load_grid(write_grid(tmp_path, ood={"sizes": SIZES, "samples": 4}))
    out = tmp_path / "out"
    report = run_grid(grid, out, train_fn=FakeTrain(), log=lambda s: None)
    assert len(calls) == 16 and len({c[0] for c in calls}) == 16
    table = report["ood"]["8"]["Searching"]["mpnn"]
    # mean over seeds 0 and 1 of 1 - n/50 - 0.01 seed (sequential) and 1 - n/100 (parallel)
    assert table["sequential"]["trained"]["24"] == pytest.approx(1 - 24 / 50 - 0.005)
    assert table["parallel"]["trained"]["6"] == pytest.approx(1 - 6 / 100 - 0.005)
    md = (out / "results.md").read_text()
    assert "## Out of distribution" in md and "| mpnn | minimum | trained |" in md
    assert "At n=24 the parallel algorithm scores higher in 2 of 2" in md
    for name in report["figures"].values():
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    assert {"ood_searching_h8", "ood_sorting_h8"} <= set(report["figures"])


def test_runs_of_one_file_are_swept_together(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(ood_report, "run_sweep", fake_sweep(calls))
    grid = load_grid(write_grid(tmp_path, ood={"sizes": [6]}))
    run_grid(grid, tmp_path / "out", train_fn=FakeTrain(), log=lambda s: None)
    order = [name.split("_")[0] for name, _ in calls]
    firsts = [i for i, name in enumerate(order) if i == 0 or name != order[i - 1]]
    assert len(firsts) == len(set(order))  # each file's runs are consecutive


@pytest.mark.parametrize(("ood", "message"), [
    ({"families": ["er"]}, "ood needs sizes"),
    ({"sizes": [0]}, "positive"),
    ({"sizes": [8], "samples": -1}, "positive"),
    ({"sizes": [8], "colour": 1}, "colour"),
    ([8, 16], "ood needs sizes"),
])
def test_bad_ood_sections_are_rejected(tmp_path: Path, ood: Any, message: str) -> None:
    with pytest.raises(GridError, match=message):
        load_grid(write_grid(tmp_path, ood=ood))


def test_a_family_a_file_cannot_draw_stops_the_grid_before_training(tmp_path: Path) -> None:
    alg = Path(__file__).resolve().parents[2] / "algorithms" / "clrs" / "bfs.alg"
    sorted_alg = Path(__file__).resolve().parents[2] / "algorithms" / "bubble_sort.alg"
    train = FakeTrain()
    for tasks, message in [
        ([{"name": "T", "sequential": "binary_search", "parallel": "minimum"}], "dm-clrs"),
        ([{"name": "T", "sequential": str(alg), "parallel": str(sorted_alg)}], "family"),
    ]:
        path = write_grid(tmp_path, tasks=tasks, ood={"sizes": [8], "families": ["delaunay"]})
        with pytest.raises(GridError, match=message):
            run_grid(load_grid(path), tmp_path / "out", train_fn=train, log=lambda s: None)
    assert train.calls == []
    assert yaml.safe_load(path.read_text())["ood"]["families"] == ["delaunay"]
