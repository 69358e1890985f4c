"""Long steps show progress on stderr: `sample` (samples drawn, arrays written), grids
(done/total, running, failed, ETA); none when stderr is not a terminal or with
`--no-progress`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import algspec
from algspec.cli.args import progress_wanted

ROOT = Path(__file__).resolve().parents[2]
SEARCH = ROOT / "algorithms" / "parallel_search.alg"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_and_when_asked() -> None:
    assert progress_wanted(True, Tty())
    assert not progress_wanted(False, Tty())
    assert not progress_wanted(True, io.StringIO())  # a pipe or a log file
    closed = io.StringIO()
    closed.close()
    assert not progress_wanted(True, closed)
    assert not progress_wanted(True, object())  # a stream that cannot tell


def test_export_reports_samples_drawn_and_arrays_written(tmp_path: Path) -> None:
    from algspec.sampling.dataset import export, load_dataset

    alg = algspec.load(str(SEARCH))
    events: list[tuple[str, int, int]] = []
    export(alg, tmp_path / "ds", 6, 5, 0, chunk_size=2,
           progress=lambda *e: events.append(e))
    assert [e for e in events if e[0] == "sampling"] == [
        ("sampling", 2, 5), ("sampling", 4, 5), ("sampling", 5, 5)]
    writing = [e for e in events if e[0] == "writing"]
    manifest, _ = load_dataset(tmp_path / "ds")
    n_arrays = len(manifest["arrays"])
    assert writing == [("writing", k, n_arrays) for k in range(n_arrays + 1)]
    assert events.index(writing[0]) > events.index(("sampling", 5, 5))


def test_export_bytes_do_not_depend_on_progress(tmp_path: Path) -> None:
    from algspec.sampling.dataset import export

    alg = algspec.load(str(SEARCH))
    export(alg, tmp_path / "a", 6, 5, 0)
    export(alg, tmp_path / "b", 6, 5, 0, progress=lambda *e: None)
    for name in ("samples.npz", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_sample_progress_bar_counts_samples_then_arrays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.cli import _SampleProgress

    err = Tty()
    monkeypatch.setattr("sys.stderr", err)
    with _SampleProgress(True, 600, Path("ds")) as bar:
        bar.update("sampling", 256, 600)
        bar.update("sampling", 600, 600)
        assert bar.bar.n == 600 and bar.bar.total == 600
        bar.update("writing", 3, 7)
        assert bar.bar.n == 3 and bar.bar.total == 7
    text = err.getvalue()
    assert "sampling" in text and "writing ds" in text
    quiet = Tty()
    monkeypatch.setattr("sys.stderr", quiet)
    with _SampleProgress(False, 600, Path("ds")) as bar:
        bar.update("sampling", 600, 600)
    assert quiet.getvalue() == ""


def test_grid_status_has_done_running_failed_and_an_eta(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.training import grid_progress

    clock = [100.0]
    monkeypatch.setattr(grid_progress.time, "monotonic", lambda: clock[0])
    tracker = grid_progress.GridProgress(10)
    assert tracker.status(2) == "0/10 done, 2 running, 0 failed"  # no pace yet: no ETA
    clock[0] = 160.0
    tracker.finished(True)
    tracker.finished(False)
    # 2 runs ended in 60 s: 8 left take 240 s
    assert tracker.status(3) == "1/10 done, 3 running, 1 failed, ETA 4 min"
    for _ in range(8):
        tracker.finished(True)
    assert tracker.status(0) == "9/10 done, 0 running, 1 failed"


def test_grid_logs_carry_the_status(tmp_path: Path) -> None:
    import json

    import yaml

    from algspec.training.experiment import load_grid, run_grid

    def fake(config, out, progress=True):
        if config.algorithm == "minimum":
            raise ValueError("broken")
        out.mkdir(parents=True)
        (out / "config.json").write_text(json.dumps(config.to_dict()))
        (out / "result.json").write_text(json.dumps({"val": {"score": 1.0},
                                                     "test": {"score": 0.5, "size": 6}}))
        return {}

    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({
        "name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": [0, 1],
        "tasks": [{"name": "T", "sequential": "binary_search", "parallel": "minimum"}]}))
    logs: list[str] = []
    report = run_grid(load_grid(grid), tmp_path / "out", train_fn=fake, log=logs.append)
    assert len(report["failures"]) == 2
    ended = [x for x in logs if "] done " in x or "] failed " in x]
    assert len(ended) == 4
    assert ended[0].startswith("[1/4] done binary_search_mpnn_h8_s0: val micro-F1 1.0000")
    assert ended[1].startswith("[2/4] failed minimum_mpnn_h8_s0: ValueError: broken")
    assert "(1/4 done, 0 running, 1 failed, ETA " in ended[1]
    assert ended[-1].endswith("(2/4 done, 0 running, 2 failed)")
