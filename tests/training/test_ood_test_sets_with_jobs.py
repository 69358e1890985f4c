"""The out-of-distribution sweep draws its test sets with `jobs` processes (the grid's
`ood: jobs:`): the same sets, hence the same scores, as one process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from algspec.training import ood_report
from algspec.training.config import TrainConfig
from algspec.training.data import resolve_source
from algspec.training.experiment import GridError, load_grid
from algspec.training.ood import family_params
from algspec.training.trainer import fixed_test_set
from tests.sampling.test_sample_jobs import GRAPH
from tests.training.test_experiment import write_grid


def test_a_cells_test_set_is_the_same_drawn_by_two_processes(tmp_path: Path) -> None:
    path = tmp_path / "reach.alg"
    path.write_text(GRAPH)
    config = TrainConfig(algorithm=str(path), seed=5)
    source = resolve_source(str(path), family_params(config, "ws"))
    spec1, one = fixed_test_set(source, config, 9, 7)
    spec2, two = fixed_test_set(source, config, 9, 7, jobs=2)
    assert spec1 == spec2
    for a, b in zip([*one.features.inputs, *one.features.hints, *one.outputs],
                    [*two.features.inputs, *two.features.hints, *two.outputs], strict=True):
        assert a.name == b.name and np.asarray(a.data).tobytes() == np.asarray(b.data).tobytes()
    assert np.array_equal(one.features.lengths, two.features.lengths)


def test_the_grids_ood_jobs_reach_the_sweep(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    grid = load_grid(write_grid(tmp_path, ood={"sizes": [6], "jobs": 2}))
    assert grid.ood is not None and grid.ood.jobs == 2
    seen: list[Any] = []
    monkeypatch.setattr(ood_report, "run_sweep",
                        lambda *a, **kw: seen.append(kw.get("jobs")))
    run = type("Run", (), {"config": TrainConfig(algorithm="x.alg"), "seed": 0,
                           "dir": tmp_path / "run"})()
    assert ood_report.sweep_runs(grid.ood, [run], False, lambda line: None) == []
    assert seen == [2]


@pytest.mark.parametrize("jobs", [0, -2, 1.5, True])
def test_bad_ood_jobs_are_rejected(tmp_path: Path, jobs: Any) -> None:
    with pytest.raises(GridError, match="jobs must be positive"):
        load_grid(write_grid(tmp_path, ood={"sizes": [8], "jobs": jobs}))


def test_eval_jobs_reach_the_sweep_and_its_rerun_line(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import typer
    from typer.testing import CliRunner

    from algspec.cli.training import register

    seen: list[Any] = []

    def stopped(*args: Any, **kwargs: Any) -> None:
        seen.append(kwargs.get("jobs"))
        raise KeyboardInterrupt

    monkeypatch.setattr("algspec.training.ood.run_sweep", stopped)
    app = typer.Typer()
    register(app)
    run = tmp_path / "run"
    r = CliRunner().invoke(app, ["eval", str(run), "--sizes", "5", "--jobs", "2"])
    assert r.exit_code == 130 and seen == [2]
    assert "--jobs 2` again" in r.stderr
    r = CliRunner().invoke(app, ["eval", str(run), "--sizes", "5", "--jobs", "0"])
    assert r.exit_code == 2 and "--jobs" in r.stderr and seen == [2]
