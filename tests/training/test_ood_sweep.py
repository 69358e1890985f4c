"""`algspec eval RUN --sizes ... --family ...`: one call tests a run at many sizes and graph
families, each cell as `eval` at that size would, resumable cell by cell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from algspec.cli.training import register

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BFS = str(ROOT / "algorithms" / "clrs" / "bfs.alg")


def cli() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


@pytest.fixture(scope="module")
def bfs_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny BFS run on the sparse backend (message passing on the declared graph)."""
    from algspec.training.config import TrainConfig
    from algspec.training.trainer import train

    out = tmp_path_factory.mktemp("ood") / "bfs"
    cfg = TrainConfig(algorithm=BFS, processor="mpnn", hidden=8, steps=2, batch_size=4,
                      train_sizes=(5,), val_size=5, test_size=5, train_samples=8,
                      val_samples=4, test_samples=4, eval_batch_size=4, eval_every=2,
                      seed=3, backend="algspec", graph="sparse")
    train(cfg, out, progress=False)
    return out


def test_each_cell_scores_as_eval_at_that_size(bfs_run: Path, tmp_path: Path) -> None:
    from algspec.training.ood import run_sweep
    from algspec.training.trainer import evaluate_run

    lines: list[str] = []
    summary = run_sweep(bfs_run, [5, 9], ["trained"], samples=4, out=tmp_path / "s",
                        log=lines.append)
    assert [(c["family"], c["size"]) for c in summary["cells"]] == [("trained", 5),
                                                                      ("trained", 9)]
    for cell in summary["cells"]:
        alone = evaluate_run(bfs_run, cell["size"], 4, write=False)
        assert cell["score"] == pytest.approx(alone["score"], abs=1e-12)
        assert cell["per_output"] == pytest.approx(alone["per_output"], abs=1e-12)
        assert cell["peak_host_memory_gb"] > 0 and cell["sample_seconds"] >= 0
    assert sum("sampling" in line for line in lines) == 2
    table = (tmp_path / "s" / "ood.md").read_text()
    assert "| trained |" in table and "n=9" in table
    assert (tmp_path / "s" / "ood.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "s" / "ood.json").read_text()) == summary


def test_a_stopped_sweep_tests_only_the_missing_cells(bfs_run: Path, tmp_path: Path) -> None:
    from algspec.training.ood import run_sweep

    out = tmp_path / "s"
    first = run_sweep(bfs_run, [5, 6], ["trained"], samples=4, out=out, log=lambda _: None)
    (out / "cells" / "trained_n6_s4.json").unlink()
    kept = (out / "cells" / "trained_n5_s4.json").read_bytes()
    lines: list[str] = []
    again = run_sweep(bfs_run, [5, 6], ["trained"], samples=4, out=out, log=lines.append)
    assert lines[0].startswith("1 of 2 cells already tested")
    assert [line for line in lines if "sampling" in line] == [
        "[1/1] trained n=6: sampling 4 test samples"]
    assert (out / "cells" / "trained_n5_s4.json").read_bytes() == kept
    assert again["cells"][1]["score"] == pytest.approx(first["cells"][1]["score"], abs=1e-12)


def test_report_only_writes_the_table_of_the_cells_tested_so_far(bfs_run: Path,
                                                                  tmp_path: Path) -> None:
    """`eval RUN --sizes ... --report-only`: nothing is tested; the table, summary and plot
    hold the cells on disk, `-` for the others (cells that need another machine)."""
    from algspec.training.ood import run_sweep

    out = tmp_path / "s"
    run_sweep(bfs_run, [5], ["trained"], samples=4, out=out, log=lambda _: None)
    lines: list[str] = []
    summary = run_sweep(bfs_run, [5, 9], ["trained"], samples=4, out=out, log=lines.append,
                        tested_only=True)
    assert lines == [f"1 of 2 cells tested in {out}; the table shows those (1 not tested)"]
    assert [c["size"] for c in summary["cells"]] == [5] and summary["sizes"] == [5, 9]
    assert not (out / "cells" / "trained_n9_s4.json").exists()
    assert "| n=5 | n=9 |" in (out / "ood.md").read_text()
    assert "| trained | " in (out / "ood.md").read_text()
    assert (out / "ood.md").read_text().split("| trained | ")[1].split("\n")[0].endswith(
        " | - |")
    r = CliRunner().invoke(cli(), ["eval", str(bfs_run), "--sizes", "5,9", "-o", str(out),
                                   "--test-samples", "4", "--report-only", "--no-progress"])
    assert r.exit_code == 0 and "| trained |" in r.output, r.output


def test_a_family_switches_the_graph_the_run_is_tested_on(bfs_run: Path,
                                                          tmp_path: Path) -> None:
    from algspec.training.ood import run_sweep

    summary = run_sweep(bfs_run, [8], ["trained", "path"], samples=4, out=tmp_path / "s",
                        log=lambda _: None)
    edges = {c["family"]: c["mean_edges"] for c in summary["cells"]}
    # adj holds both directions of each undirected edge and every self-loop: a path on 8
    # nodes is 2 * 7 + 8 entries; the run's Erdos-Renyi graphs (this seed) are not paths
    assert edges["path"] == 2 * 7 + 8
    assert edges["trained"] != edges["path"]


def test_cli_sweep_prints_the_table_and_bad_use_is_one_line(bfs_run: Path,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "s"
    r = CliRunner().invoke(cli(), ["eval", str(bfs_run), "--sizes", "5,7", "--test-samples",
                                   "4", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.stderr
    assert "| trained |" in r.stdout and (out / "ood.md").is_file()
    for args, words in [
        (["--sizes", "5", "--test-size", "6"], "--test-size and --sizes"),
        (["--sizes", "0"], "--sizes"),
        (["--sizes", "5,x"], "--sizes"),
        (["--sizes", "5", "--family", "nonsense"], "--family nonsense"),
    ]:
        r = CliRunner().invoke(cli(), ["eval", str(bfs_run), *args, "--out", str(out / "x")])
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], lines


def test_sweeps_of_one_file_share_test_sets_that_fit(bfs_run: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec.training import ood, trainer

    drawn: list[int] = []
    draw = trainer.fixed_test_set

    def counting(source, config, size, samples):
        drawn.append(size)
        return draw(source, config, size, samples)

    monkeypatch.setattr(trainer, "fixed_test_set", counting)
    shared: dict = {}
    first = ood.run_sweep(bfs_run, [5, 6], ["trained"], samples=4, out=tmp_path / "a",
                          log=lambda _: None, shared=shared)
    again = ood.run_sweep(bfs_run, [5, 6], ["trained"], samples=4, out=tmp_path / "b",
                          log=lambda _: None, shared=shared)
    assert drawn == [5, 6] and len(shared) == 2
    assert [c["score"] for c in again["cells"]] == [c["score"] for c in first["cells"]]
    monkeypatch.setattr(ood, "SHARED_BYTES", 0)  # too large to keep: drawn again
    ood.run_sweep(bfs_run, [7], ["trained"], samples=4, out=tmp_path / "c",
                  log=lambda _: None, shared=shared)
    assert drawn == [5, 6, 7] and len(shared) == 2


def test_a_set_of_many_chunks_is_tested_as_it_is_drawn_with_the_same_scores(
        bfs_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cell whose test set takes more than one sampling chunk is drawn and tested a chunk
    at a time (never held whole): batches cut across the chunks' borders, the same
    samples, the same scores as the whole set."""
    from algspec.training.ood import run_sweep
    from algspec.training.trainer import evaluate_run

    monkeypatch.setattr("algspec.sampling.dataset.DEFAULT_CHUNK", 3)  # 10 samples: 4 chunks
    summary = run_sweep(bfs_run, [6], ["trained"], samples=10, out=tmp_path / "s",
                        batch_size=4, log=lambda _: None)
    cell = summary["cells"][0]
    assert cell["streamed"] is True
    streamed = evaluate_run(bfs_run, 6, 10, write=False, batch_size=4)
    monkeypatch.setattr("algspec.training.trainer.streams_test_set", lambda *a, **k: False)
    whole = evaluate_run(bfs_run, 6, 10, write=False, batch_size=4)
    for scored in (cell, streamed):
        assert scored["score"] == pytest.approx(whole["score"], abs=1e-12)
        assert scored["per_output"] == pytest.approx(whole["per_output"], abs=1e-12)
    assert cell["mean_edges"] > 0


def test_eval_of_a_set_of_many_chunks_never_holds_it_whole(
        bfs_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`algspec eval --test-samples` beyond one sampling chunk tests as it draws: the whole
    set is never drawn at once, and each chunk is let go before the next is drawn."""
    from algspec.training import data, trainer

    monkeypatch.setattr("algspec.sampling.dataset.DEFAULT_CHUNK", 3)
    monkeypatch.setattr(trainer, "fixed_test_set", lambda *a, **k: pytest.fail("held whole"))
    drawn: list[int] = []
    chunks = data.fixed_set_chunks

    def counted(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        for spec, fb in chunks(*args, **kwargs):
            drawn.append(int(fb.features.lengths.shape[0]))
            yield spec, fb

    monkeypatch.setattr(trainer, "fixed_set_chunks", counted)
    out = trainer.evaluate_run(bfs_run, 6, 10, write=False, batch_size=4)
    assert drawn == [3, 3, 3, 1] and out["samples"] == 10 and 0 <= out["score"] <= 1
