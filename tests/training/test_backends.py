"""The backend seam: one table of backends, chosen per run (`--backend`, a grid's
`backend:`), and configs saved before the choice existed read as dm-clrs's model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from algspec.training.backends import BACKENDS, get_backend
from algspec.training.config import BACKENDS as NAMES
from algspec.training.config import TrainConfig
from algspec.training.experiment import GridError, _config_mismatch, load_grid, plan


def test_every_backend_in_the_table_is_complete() -> None:
    get_backend("algspec")  # loaded on first use
    assert set(BACKENDS) == set(NAMES)
    for name, backend in BACKENDS.items():
        assert backend.name == name
        assert callable(backend.build) and callable(backend.restore)
    with pytest.raises(ValueError, match="valid: clrs, algspec"):
        get_backend("torch")


def test_config_checks_the_backend_and_graph() -> None:
    default = TrainConfig(algorithm="x")
    assert (default.backend, default.graph) == ("algspec", "dense")  # dense parity by default
    with pytest.raises(ValueError, match="unknown backend"):
        TrainConfig(algorithm="x", backend="tf")
    with pytest.raises(ValueError, match="graph must be one of dense, sparse"):
        TrainConfig(algorithm="x", backend="algspec", graph="knn")
    with pytest.raises(ValueError, match="sparse needs backend algspec"):
        TrainConfig(algorithm="x", backend="clrs", graph="sparse")
    TrainConfig(algorithm="x", backend="algspec", graph="sparse")
    with pytest.raises(ValueError, match="triplet_mpnn is dense only"):
        TrainConfig(algorithm="x", processor="triplet_mpnn", backend="algspec", graph="sparse")


def _grid(tmp_path: Path, **extra) -> Path:
    g = {"name": "g", "tasks": [{"name": "S", "sequential": "binary_search",
                                  "parallel": "minimum"}],
         "processors": ["mpnn"], "hidden": [8], "seeds": [0], **extra}
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(g))
    return path


def test_a_grid_names_its_backend_at_the_top_or_under_train(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, backend="algspec", graph="sparse"))
    assert all(r.config.backend == "algspec" and r.config.graph == "sparse"
               for r in plan(grid, tmp_path / "out"))
    assert load_grid(_grid(tmp_path, train={"backend": "algspec"})).train["backend"] == "algspec"
    with pytest.raises(GridError, match="backend must be one of clrs, algspec"):
        load_grid(_grid(tmp_path, backend="torch"))
    with pytest.raises(GridError, match="top level but 'clrs' under train"):
        load_grid(_grid(tmp_path, backend="algspec", train={"backend": "clrs"}))
    with pytest.raises(GridError, match="sparse needs backend algspec"):
        load_grid(_grid(tmp_path, backend="clrs", graph="sparse"))
    assert load_grid(_grid(tmp_path, graph="sparse")).train["graph"] == "sparse"


def test_a_run_saved_before_backends_existed_is_not_a_changed_run(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, backend="clrs"))  # as the committed grids name it
    run = plan(grid, tmp_path / "out")[0]
    run.dir.mkdir(parents=True)
    saved = run.config.to_dict()
    del saved["backend"], saved["graph"]
    (run.dir / "config.json").write_text(json.dumps(saved))
    assert _config_mismatch(run) == []
    other = load_grid(_grid(tmp_path))  # the default is algspec's model: not that run
    assert _config_mismatch(plan(other, tmp_path / "out")[0]) == ["backend"]


def test_a_grid_trains_the_seeds_of_a_cell_as_one_program_with_algspec(tmp_path: Path) -> None:
    from algspec.training.launch import seed_units

    def units(**extra) -> list[list[tuple[str, str, int]]]:
        grid = load_grid(_grid(tmp_path, **extra))
        grid.seeds = [0, 1, 2]
        return [[(Path(r.config.algorithm).name, r.config.processor, r.config.seed)
                 for r in unit] for unit in seed_units(plan(grid, tmp_path / "out"))]

    algspec_units = units(backend="algspec", processors=["mpnn", "gat"])
    assert sorted(len(u) for u in algspec_units) == [3, 3, 3, 3]  # 2 algorithms x 2 processors
    for unit in algspec_units:
        assert len({(a, p) for a, p, _ in unit}) == 1 and [s for *_, s in unit] == [0, 1, 2]
    assert all(len(u) == 1 for u in units(backend="clrs"))  # dm-clrs's model: one per process
    assert units() == units(backend="algspec")  # the default groups seeds


def test_a_config_saved_before_the_backend_existed_means_dm_clrs_dense() -> None:
    saved = {k: v for k, v in TrainConfig(algorithm="x", backend="algspec").to_dict().items()
             if k not in ("backend", "graph")}
    old = TrainConfig.from_dict(saved)
    assert (old.backend, old.graph) == ("clrs", "dense")
    assert TrainConfig.default_of("backend") == "clrs"
    assert TrainConfig.from_dict({**saved, "backend": "algspec"}).backend == "algspec"
