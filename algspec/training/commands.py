"""`algspec train`, `algspec eval` and `algspec experiment` (mounted by the CLI).

This module is imported by `algspec.cli` at start-up, so it imports only
typer and the pure-Python config; jax, haiku and clrs (and with it
tensorflow) are imported inside the commands that train or evaluate.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from algspec.cli_args import check_out_folder, parse_params
from algspec.cli_args import fail as _fail
from algspec.training.config import PAPER_TRAIN_SIZES, TrainConfig


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(s) for s in text.replace(" ", "").split(",") if s)
    except ValueError:
        raise _fail(f"--train-sizes: expected comma-separated integers, got {text!r}") from None
    if not sizes:
        raise _fail("--train-sizes: empty")
    return sizes


def _params(items: list[str] | None) -> dict[str, Any]:
    try:
        return parse_params(items)
    except ValueError as e:
        raise _fail(str(e)) from None


def _check_alg(path: Path, params: dict[str, Any]) -> None:
    """A `.alg` file's diagnostics (exit 1) and bad `--param`s (exit 2) before JAX starts
    and before the run folder exists."""
    from algspec.cli import load_or_exit
    alg = load_or_exit(path)
    try:
        alg.generator_params(**params)
    except ValueError as e:
        raise _fail(str(e)) from None


def train_command(
    algorithm: Annotated[str, typer.Argument(
        help="An .alg file, or a dm-clrs algorithm name such as bubble_sort.")],
    processor: Annotated[str, typer.Option(
        "--processor", "-p",
        help="CLRS processor: deepsets, gat, mpnn, pgn, ... (any of clrs.get_processor_factory)."
    )] = "mpnn",
    hidden: Annotated[int, typer.Option(help="Hidden size.")] = 128,
    steps: Annotated[int, typer.Option(help="Training steps.")] = 2000,
    batch_size: Annotated[int, typer.Option(help="Training batch size.")] = 32,
    train_sizes: Annotated[str, typer.Option(
        help="Training sizes, cycled step by step.")] = ",".join(map(str, PAPER_TRAIN_SIZES)),
    val_size: Annotated[int, typer.Option(help="Validation size.")] = 16,
    test_size: Annotated[int, typer.Option(help="Out-of-distribution test size.")] = 64,
    train_samples: Annotated[int, typer.Option(
        help="Fixed training set per size (samples).")] = 1000,
    val_samples: Annotated[int, typer.Option(help="Validation samples.")] = 128,
    test_samples: Annotated[int, typer.Option(help="Test samples.")] = 128,
    seed: Annotated[int, typer.Option(help="Seed of data, initialisation and training.",
                                      min=0)] = 42,
    eval_every: Annotated[int, typer.Option(help="Validate every N steps.")] = 50,
    learning_rate: Annotated[float, typer.Option("--learning-rate", "--lr")] = 1e-3,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Run folder [default: runs/ALG_PROC_hH_sSEED].")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", help="Generator parameter key=value (repeatable).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Train a CLRS processor on an algorithm, keep the best by validation, test OOD."""
    try:
        config = TrainConfig(
            algorithm=algorithm, processor=processor, hidden=hidden, steps=steps,
            batch_size=batch_size, train_sizes=_sizes(train_sizes), val_size=val_size,
            test_size=test_size, train_samples=train_samples, val_samples=val_samples,
            test_samples=test_samples, seed=seed, eval_every=eval_every,
            learning_rate=learning_rate, generator_params=_params(param),
        )
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if out is None:
        stem = Path(algorithm).stem if algorithm.endswith(".alg") else algorithm
        out = Path("runs") / f"{stem}_{processor}_h{hidden}_s{seed}"
    check_out_folder(out)
    if algorithm.endswith(".alg") or Path(algorithm).is_file():
        _check_alg(Path(algorithm), config.generator_params)

    from algspec.training.data import SourceError
    from algspec.training.trainer import train

    try:
        result = train(config, out, progress=progress)
    except SourceError as exc:
        raise _fail(str(exc)) from None
    print(f"{result['algorithm']} / {processor}: val {result['val']['score']:.4f} "
          f"(n={val_size}), test {result['test']['score']:.4f} (n={test_size}), "
          f"{result['seconds_per_step'] * 1000:.1f} ms/step on {result['device']} -> {out}")


def eval_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `algspec train`.")],
    test_size: Annotated[int | None, typer.Option(
        help="Test size [default: the run's].", min=1)] = None,
    test_samples: Annotated[int | None, typer.Option(
        help="Test samples [default: the run's].", min=1)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Re-test a trained run's best parameters at any size."""
    from algspec.training.data import SourceError
    from algspec.training.trainer import evaluate_run

    try:
        res = evaluate_run(run_dir, test_size, test_samples)
    except (FileNotFoundError, SourceError, ValueError) as exc:
        raise _fail(str(exc)) from None
    if as_json:
        print(json.dumps(res, indent=2))
        return
    print(f"{res['algorithm']} / {res['processor']} h{res['hidden']} seed {res['seed']}: "
          f"test micro-F1 {res['score']:.4f} at n={res['size']} ({res['samples']} samples)")
    for name, value in res["per_output"].items():
        print(f"  {name}: {value:.4f}")


def experiment_command(
    grid_file: Annotated[Path, typer.Argument(help="Grid YAML (see experiments/).")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Output folder [default: runs/GRID_NAME].")] = None,
    report_only: Annotated[bool, typer.Option(
        help="Only rewrite the report from finished runs.")] = False,
    dry_run: Annotated[bool, typer.Option(help="List the runs and exit.")] = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    jobs: Annotated[int, typer.Option(
        "--jobs", "-j", help="Runs side by side, each in its own process with its own share "
        "of GPU memory (with --launcher ray: the most in flight).", min=1)] = 1,
    launcher: Annotated[str, typer.Option(
        help="local (this machine) or ray (a Ray cluster: --address, else a local one).")
    ] = "local",
    address: Annotated[str | None, typer.Option(
        help="Ray cluster address (e.g. auto, ray://head:10001) [default: start a local one].")
    ] = None,
    retries: Annotated[int, typer.Option(
        help="Retries of a run whose worker died (a run that raises is not retried).",
        min=0)] = 1,
    gpus_per_run: Annotated[float, typer.Option(
        help="GPUs each Ray task asks for (0.25: four runs per GPU).", min=0.0)] = 0.0,
    only: Annotated[list[str] | None, typer.Option(
        help="Train only the runs whose folder name matches this shell pattern "
        "(repeatable), e.g. 'frame0_mask_gat_*'.")] = None,
) -> None:
    """Run a resumable grid of trainings and write results.md (the paper's Table 2)."""
    from algspec.training.experiment import GridError, load_grid, plan, run_grid, write_report

    try:
        grid = load_grid(grid_file)
        out = out or Path("runs") / grid.name
        if dry_run:
            for r in plan(grid, out):
                if not only or any(fnmatch.fnmatchcase(r.dir.name, p) for p in only):
                    print(f"{'done' if r.done else 'todo'}  {r.dir}")
            return
        if report_only:
            if not (out / "runs").is_dir():
                raise GridError(f"no runs to report in {out} (train them first, without "
                                "--report-only)")
            report = write_report(grid, out)
        else:
            if address and launcher != "ray":
                raise GridError("--address needs --launcher ray")
            report = run_grid(grid, out, progress=progress, jobs=jobs, launcher=launcher,
                              address=address, retries=retries, gpus_per_run=gpus_per_run,
                              only=only)
    except GridError as exc:
        raise _fail(str(exc)) from None
    print(f"{report['finished']}/{report['total']} runs finished; report: {out / 'results.md'}")
    if report.get("failures"):
        for f in report["failures"]:
            print(f"failed: {f}", file=sys.stderr)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add `train`, `eval` and `experiment` to the algspec CLI."""
    app.command("train")(train_command)
    app.command("eval")(eval_command)
    app.command("experiment")(experiment_command)
