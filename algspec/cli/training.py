"""`algspec train`, `algspec eval` and `algspec experiment` (mounted by the CLI).

This module is imported by `algspec.cli` at start-up, so it imports only
typer and the pure-Python config; jax, haiku and clrs (and with it
tensorflow) are imported inside the commands that train or evaluate.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from algspec.cli.args import (
    check_out_folder,
    parse_params,
    progress_wanted,
    split_legacy_processor,
)
from algspec.cli.args import fail as _fail
from algspec.language.source_file import is_algorithm_file_name
from algspec.nn.memory import MemoryPlanError
from algspec.nn.processor_table import processors_of
from algspec.training.config import (
    DEFAULT_BACKEND,
    MAX_HIDDEN,
    PAPER_TRAIN_SIZES,
    PROCESSORS,
    TrainConfig,
    train_command_line,
)


def _sizes(text: str, flag: str = "--train-sizes") -> tuple[int, ...]:
    try:
        sizes = tuple(int(s) for s in text.replace(" ", "").split(",") if s)
    except ValueError:
        raise _fail(f"{flag}: expected comma-separated integers, got {text!r}") from None
    if not sizes:
        raise _fail(f"{flag}: empty")
    if min(sizes) < 1:
        raise _fail(f"{flag}: sizes must be at least 1, got {text!r}")
    return sizes


def _params(items: list[str] | None) -> dict[str, Any]:
    try:
        return parse_params(items)
    except ValueError as e:
        raise _fail(str(e)) from None


def _check_alg(path: Path, params: dict[str, Any]) -> None:
    """A `.alg` file's diagnostics (exit 1) and bad `--param`s (exit 2) before JAX starts
    and before the run folder exists."""
    from algspec.cli.args import load_or_exit
    alg = load_or_exit(path)
    try:
        alg.generator_params(**params)
    except ValueError as e:
        raise _fail(str(e)) from None


def _check_run_folder(out: Path, overwrite: bool, config: TrainConfig) -> None:
    """`--out` may be new, empty or an unfinished run of the same options (resumed); a
    finished run, another configuration's run or other files there need `--overwrite`
    (one error line, before anything is computed)."""
    from algspec.process.output_files import LOCK_SUFFIX, TEMP_SUFFIX
    from algspec.training.metrics import score_text
    from algspec.training.runs import CONFIG, config_differences, read_result

    if not out.is_dir():
        return
    if overwrite:  # replaces a run, never a file of the same name that belongs to no run
        if config_differences(config, out) == [CONFIG]:
            raise _fail(f"{out / CONFIG} is not a run's configuration; --overwrite replaces "
                        "runs only: choose another --out")
        return
    res = read_result(out)
    if res is not None:
        raise _fail(f"{out} holds a finished run (test {score_text(res['test'])}); pass "
                    "--overwrite to replace it, or choose another --out")
    if not (out / CONFIG).is_file() and any(
            not p.name.endswith((LOCK_SUFFIX, TEMP_SUFFIX)) for p in out.iterdir()):
        raise _fail(f"{out} is not empty and holds no run; choose another --out, or pass "
                    "--overwrite to write the run's files there anyway")
    differ = config_differences(config, out)
    if differ:
        raise _fail(f"{out} holds an unfinished run of other options ({', '.join(differ)} "
                    "differ); choose another --out, or pass --overwrite to start this one "
                    "there")


def _left_in(out: Path) -> str:
    """What an interrupted `train` left in its run folder, in words."""
    from algspec.training.runs import CONFIG, is_finished, resumes_at

    if is_finished(out):
        return f"{out} still holds its earlier finished run"
    if (out / CONFIG).is_file():
        return f"the run folder {out} is unfinished (no result.json; it {resumes_at(out)})"
    return f"nothing was written to {out}"


CHECKPOINT_HELP = ("Save the whole training state every N steps, so that running the same "
                   "command again resumes there [default: at every validation]; 0: never.")


def train_command(
    algorithm: Annotated[str, typer.Argument(
        help="An .alg file, or a dm-clrs algorithm name such as bubble_sort.")],
    processor: Annotated[str, typer.Option(
        "--processor",
        help="Processor (dm-clrs's names). --backend algspec: "
        f"{', '.join(processors_of('algspec'))}; --backend clrs also "
        f"{', '.join(p for p in processors_of('clrs') if p not in processors_of('algspec'))}. "
        "--graph sparse: those without triplet_."
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
    learning_rate: Annotated[float, typer.Option(
        "--learning-rate", "--lr", help="Adam learning rate.")] = 1e-3,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Run folder [default: runs/ALG_PROC_hH_sSEED_DIGEST, DIGEST "
        "a short hash of every option].")] = None,
    overwrite: Annotated[bool, typer.Option(
        help="Replace a finished run in --out (or write into a folder holding other "
        "files).")] = False,
    backend: Annotated[str, typer.Option(
        help="clrs (dm-clrs's BaselineModel as published) or algspec (algspec's own "
        "model: no TensorFlow; see docs/training-backend.md).")] = DEFAULT_BACKEND,
    graph: Annotated[str, typer.Option(
        help="With --backend algspec: dense (all N x N pairs, dm-clrs's arithmetic) or "
        "sparse (the file's interconnection graph plus pointer edges).")] = "dense",
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="Generator parameter NAME=VALUE (repeatable).")] = None,
    progress: Annotated[bool, typer.Option(
        help="Show progress on stderr (data, compiling, steps, testing) when it is a "
        "terminal; elsewhere (a log file, a pipe) one line per validation.")] = True,
    checkpoint_every: Annotated[int | None, typer.Option(help=CHECKPOINT_HELP, min=0)] = None,
) -> None:
    """Train a CLRS processor on an algorithm, keep the best by validation, test OOD."""
    if hidden > MAX_HIDDEN:  # wider layers overflow the initialisers' fan-in arithmetic
        raise _fail(f"--hidden must be at most {MAX_HIDDEN}, got {hidden}")
    try:
        param, processor = split_legacy_processor(param, processor, "mpnn", PROCESSORS)
        config = TrainConfig(
            algorithm=algorithm, processor=processor, hidden=hidden, steps=steps,
            batch_size=batch_size, train_sizes=_sizes(train_sizes), val_size=val_size,
            test_size=test_size, train_samples=train_samples, val_samples=val_samples,
            test_samples=test_samples, seed=seed, eval_every=eval_every,
            learning_rate=learning_rate, generator_params=_params(param),
            backend=backend, graph=graph,
        )
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if out is None:
        stem = Path(algorithm).stem if is_algorithm_file_name(algorithm) else algorithm
        out = Path("runs") / f"{stem}_{processor}_h{hidden}_s{seed}_{config.digest()[:6]}"
    check_out_folder(out)
    from algspec.process.output_files import check_target
    check_target(out, "dir", allow_nonempty_dir=True)  # unwritable: one line, before training
    _check_run_folder(out, overwrite, config)
    if is_algorithm_file_name(algorithm) or Path(algorithm).is_file():
        _check_alg(Path(algorithm), config.generator_params)

    from algspec.cli.args import reported
    from algspec.process.interrupts import ignore_from_now
    from algspec.process.output_files import OutputError
    from algspec.training.data import SourceError
    from algspec.training.metrics import score_text
    from algspec.training.runs import (
        RunConfigMismatch,
        RunExistsError,
        TrainingInterrupted,
        is_finished,
        read_result,
    )
    from algspec.training.trainer import train

    restart = (train_command_line(config, str(out))
               or shlex.join(["algspec", "train", algorithm, "--out", str(out)]))
    if checkpoint_every is not None:
        restart += f" --checkpoint-every {checkpoint_every}"
    what = f"training of {algorithm} / {processor}"

    def stopped(exc: KeyboardInterrupt | None) -> str:
        where = exc.where if isinstance(exc, TrainingInterrupted) else \
            "before its first step (loading and generating data)"
        again = restart + (" --overwrite" if overwrite and is_finished(out) else "")
        return f"{what} stopped {where}; {_left_in(out)}; start it again with `{again}`"

    with reported(stopped, mistakes=(SourceError, RunExistsError, RunConfigMismatch,
                                     OutputError, MemoryPlanError)):
        try:
            shown = progress_wanted(progress)  # off a terminal: a plain line per validation
            result = train(config, out, progress=shown, overwrite=overwrite,
                           on_interrupt=stopped, log_lines=progress and not shown,
                           checkpoint_every=checkpoint_every)
        except TrainingInterrupted as exc:  # Ctrl-C once the result was written: success
            if exc.step < exc.total or (result := read_result(out)) is None:
                raise
    ignore_from_now()  # the run is written: a Ctrl-C now must not turn into a traceback
    print(f"{result['algorithm']} / {processor}: val {score_text(result['val'])} "
          f"(n={val_size}), test {score_text(result['test'])} (n={test_size}), "
          f"{result['seconds_per_step'] * 1000:.1f} ms/step on {result['device']} -> {out}")


def _names(text: str, flag: str) -> list[str]:
    names = [s for s in text.replace(" ", "").split(",") if s]
    if not names:
        raise _fail(f"{flag}: empty")
    return names


def eval_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `algspec train`.")],
    test_size: Annotated[int | None, typer.Option(
        help="Test size [default: the run's].", min=1)] = None,
    test_samples: Annotated[int | None, typer.Option(
        help="Test samples (per size and family) [default: the run's].", min=1)] = None,
    sizes: Annotated[str | None, typer.Option(
        help="Test at each of these sizes (comma-separated, e.g. 16,80,160,800,1600); "
             "writes a table and a plot to --out.")] = None,
    family: Annotated[str | None, typer.Option(
        help="Graph families to test on (comma-separated, e.g. er,ws,delaunay; `trained` is "
             "the run's own distribution); see docs/generators.md.")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Folder of a --sizes/--family sweep [default: RUN/ood].")] = None,
    batch_size: Annotated[int | None, typer.Option(
        help="Test batch size [default: the run's eval batch size]; smaller needs less "
             "memory at large n.", min=1)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    progress: Annotated[bool, typer.Option(
        help="Show progress on stderr (data, batches tested) when it is a terminal.")] = True,
    jobs: Annotated[int, typer.Option(
        "--jobs", "-j", min=1, help="Processes drawing each test set (the same sets for any "
        "number; see `algspec sample --jobs`).")] = 1,
    report_only: Annotated[bool, typer.Option(
        "--report-only", help="With --sizes/--family: test nothing; write the table and plot "
        "from the cells tested so far (`-` for the others).")] = False,
) -> None:
    """Re-test a trained run's best parameters at any size, or sweep sizes and graph families."""
    if sizes is not None or family is not None or out is not None or report_only:
        if test_size is not None:
            raise _fail("--test-size and --sizes: give one (--sizes 16,80 tests several sizes)")
        _eval_sweep(run_dir, sizes, family, test_samples, out, batch_size, as_json, progress,
                    jobs, report_only)
        return
    from algspec.training.data import SourceError
    from algspec.training.metrics import per_output_lines, score_text
    from algspec.training.trainer import evaluate_run

    words = ["algspec", "eval", str(run_dir)]
    for flag, value in (("--test-size", test_size), ("--test-samples", test_samples)):
        words += [flag, str(value)] if value is not None else []
    words += ["--jobs", str(jobs)] if jobs != 1 else []
    words += ["--json"] if as_json else []
    size = f" at n={test_size}" if test_size else ""
    stopped = (f"eval of {run_dir}{size} stopped before it finished; nothing was written "
               f"(the run folder is unchanged); run `{shlex.join(words)}` again to start over")
    from algspec.cli.args import reported

    with reported(lambda _: stopped, mistakes=(FileNotFoundError, SourceError, ValueError)):
        res = evaluate_run(run_dir, test_size, test_samples, progress=progress_wanted(progress),
                           on_interrupt=lambda: stopped, batch_size=batch_size, jobs=jobs)
    if as_json:
        print(json.dumps(res, indent=2))
        return
    print(f"{res['algorithm']} / {res['processor']} h{res['hidden']} seed {res['seed']}: "
          f"test {score_text(res)} at n={res['size']} ({res['samples']} samples)")
    for line in per_output_lines(res):
        print(f"  {line}")


def _eval_sweep(run_dir: Path, sizes_text: str | None, family_text: str | None,
                samples: int | None, out: Path | None, batch_size: int | None,
                as_json: bool, progress: bool, jobs: int = 1,
                report_only: bool = False) -> None:
    """`eval RUN --sizes ... --family ...`: every cell, a table, a plot; resumable
    (`report_only`: the table of the cells tested so far, testing none)."""
    from algspec.training.data import SourceError
    from algspec.training.ood import TRAINED, markdown_table, run_sweep
    from algspec.training.runs import read_result

    families = _names(family_text, "--family") if family_text is not None else [TRAINED]
    if sizes_text is not None:
        sizes = list(_sizes(sizes_text, "--sizes"))
    else:
        res = read_result(run_dir)
        if res is None:
            raise _fail(f"{run_dir}: no finished run there (give --sizes to name the sizes)")
        sizes = [int(res["test"]["size"])]
    folder = out if out is not None else run_dir / "ood"
    from algspec.process.output_files import check_target
    check_target(folder, "dir", allow_nonempty_dir=True)  # before any test data is drawn
    words = ["algspec", "eval", str(run_dir), "--sizes", ",".join(map(str, sizes)),
             "--family", ",".join(families), "--out", str(folder)]
    for flag, value in (("--test-samples", samples), ("--batch-size", batch_size)):
        words += [flag, str(value)] if value is not None else []
    words += ["--jobs", str(jobs)] if jobs != 1 else []
    stopped = (f"the sweep stopped; the cells it finished are kept in {folder / 'cells'}; "
               f"run `{shlex.join(words)}` again to test the rest")
    from algspec.cli.args import reported

    with reported(lambda _: stopped, mistakes=(FileNotFoundError, SourceError, ValueError)):
        summary = run_sweep(run_dir, sizes, families, samples, folder, batch_size,
                            progress=progress_wanted(progress), on_interrupt=lambda: stopped,
                            jobs=jobs, tested_only=report_only)
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    print(markdown_table(summary), end="")
    print(f"\nwritten: {folder / 'ood.md'}, {folder / 'ood.json'}, {folder / 'ood.png'}")


def _experiment_command_line(grid_file: Path, out: Path, jobs: int | None, launcher: str,
                             address: str | None, retries: int, gpus_per_run: float,
                             only: list[str] | None) -> str:
    """The `algspec experiment` command that resumes this grid where it stopped."""
    words = ["algspec", "experiment", str(grid_file), "-o", str(out)]
    if jobs == 1 and launcher == "local":  # what no --jobs means here
        jobs = None
    for flag, value, default in (("--jobs", jobs, None), ("--launcher", launcher, "local"),
                                 ("--address", address, None), ("--retries", retries, 1),
                                 ("--gpus-per-run", gpus_per_run, 0.0)):
        if value != default:
            words += [flag, str(value)]
    for pattern in only or []:
        words += ["--only", pattern]
    return shlex.join(words)


def _dry_run(grid: Any, out: Path, only: list[str] | None) -> None:
    """List the grid's runs as done, todo or missing (an .alg file that does not exist);
    missing files are an error after the list, as they would be for a real run."""
    from algspec.training.experiment import GridError, check_report_owner, plan, select_only

    check_report_owner(grid, out)
    runs = select_only(plan(grid, out), only,
                       log=lambda s: print(s, file=sys.stderr))
    missing: dict[str, int] = {}
    for r in runs:
        alg = r.config.algorithm
        if is_algorithm_file_name(alg) and not Path(alg).is_file():
            missing[alg] = missing.get(alg, 0) + 1
            print(f"missing  {r.dir}  (no such file: {alg})")
        else:
            print(f"{'done' if r.done else 'todo'}  {r.dir}")
    n_done = sum(r.done for r in runs)
    print(f"{len(runs)} runs: {n_done} done, {len(runs) - n_done - sum(missing.values())} "
          f"todo, {sum(missing.values())} missing", file=sys.stderr)
    if missing:
        raise GridError(f"missing algorithm file(s): {', '.join(sorted(missing))} "
                        f"({sum(missing.values())} runs cannot start)")


def _check_grid_sources(grid: Any, out: Path, only: list[str] | None) -> None:
    """Each algorithm file the chosen runs train, compiled once with its generator
    parameters: a file with an error is its diagnostics (exit 1), as for `train`, before
    any run starts rather than as a failure of each of its runs after the others trained.
    Missing files are left to the callers' list of them."""
    from algspec.training.experiment import plan, select_only

    seen: set[tuple[str, str]] = set()
    for r in select_only(plan(grid, out), only):
        alg, params = r.config.algorithm, r.config.generator_params
        key = (alg, json.dumps(params, sort_keys=True, default=str))
        if key not in seen and is_algorithm_file_name(alg) and Path(alg).is_file():
            seen.add(key)
            _check_alg(Path(alg), params)


def experiment_command(
    grid_file: Annotated[Path, typer.Argument(help="Grid YAML (see experiments/).")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Output folder [default: runs/GRID_NAME].")] = None,
    report_only: Annotated[bool, typer.Option(
        help="Only rewrite the report from finished runs.")] = False,
    dry_run: Annotated[bool, typer.Option(
        help="List the runs (done, todo, or missing their .alg file) and exit.")] = False,
    progress: Annotated[bool, typer.Option(
        help="Show each run's progress bars on stderr when it is a terminal.")] = True,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", help="Runs side by side, each in its own process with its own share "
        "of GPU memory (with --launcher ray: the most in flight) [default: 1; with "
        "--launcher ray, as many as the cluster allows].", min=1, show_default=False)] = None,
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
    checkpoint_every: Annotated[int | None, typer.Option(help=CHECKPOINT_HELP, min=0)] = None,
) -> None:
    """Run a resumable grid of trainings and write results.md (the paper's Table 2)."""
    from algspec.cli.args import check_file
    from algspec.training.experiment import GridError, load_grid, plan, run_grid, write_report

    if grid_file.is_dir():
        raise _fail(f"{grid_file} is a folder, not a grid file")
    check_file(grid_file)  # a FIFO or a device would block the read: one line instead
    try:
        grid = load_grid(grid_file)
    except GridError as exc:
        raise _fail(str(exc)) from None
    out = out or Path("runs") / grid.name
    if not dry_run:
        from algspec.process.output_files import check_target
        check_target(out, "dir", allow_nonempty_dir=True)  # a file there: one line
    from algspec.cli.args import reported

    def stopped(_: KeyboardInterrupt | None) -> str:
        resume = _experiment_command_line(grid_file, out, jobs, launcher, address, retries,
                                          gpus_per_run, only)
        if checkpoint_every is not None:
            resume += f" --checkpoint-every {checkpoint_every}"
        return _grid_stopped(grid, plan(grid, out), resume)

    try:
        with reported(stopped):
            if not report_only:
                _check_grid_sources(grid, out, only)
            if dry_run:
                _dry_run(grid, out, only)
                return
            if report_only:
                if not (out / "runs").is_dir():
                    raise GridError(f"no runs to report in {out} (train them first, "
                                    "without --report-only)")
                report = write_report(grid, out, keep_record=True)
            else:
                if address and launcher != "ray":
                    raise GridError("--address needs --launcher ray")
                report = run_grid(grid, out, progress=progress_wanted(progress), jobs=jobs,
                                  launcher=launcher, address=address, retries=retries,
                                  gpus_per_run=gpus_per_run, only=only,
                                  checkpoint_every=checkpoint_every)
    except GridError as exc:
        raise _fail(str(exc)) from None
    from algspec.process.interrupts import ignore_from_now

    ignore_from_now()  # the report is written: a late Ctrl-C must not print a traceback
    print(f"{report['finished']}/{report['total']} runs finished; report: {out / 'results.md'}")
    for skipped in report.get("skipped") or []:
        print(f"skipped: {skipped}", file=sys.stderr)
    if report.get("failures"):
        for f in report["failures"]:
            print(f"failed: {f}", file=sys.stderr)
        raise typer.Exit(1)


def _grid_stopped(grid: Any, runs: list[Any], resume: str) -> str:
    """The interrupted grid's line: runs done and left, where the started ones resume."""
    from algspec.training.resume import resume_step

    done = sum(r.done for r in runs)
    if done == len(runs):
        return (f"grid {grid.name} stopped while writing its report: all {done} runs are "
                f"done; rerun the same command to write it: `{resume}`")
    started = sorted({(r.dir.name, step) for r in runs if not r.done
                      and (step := resume_step(r.dir, r.config.digest()))})
    shown = ", ".join(f"{name} resumes at step {step}" for name, step in started[:4])
    if len(started) > 4:
        shown += f" and {len(started) - 4} more"
    where = (f"{shown}; the others start from step 0" if started
             else "none has a checkpoint yet: each starts from step 0")
    return (f"grid {grid.name} stopped: {done} of {len(runs)} runs done, {len(runs) - done} "
            f"left ({where}); rerun the same command to resume: `{resume}`")


def register(app: typer.Typer) -> None:
    """Add `train`, `eval` and `experiment` to the algspec CLI."""
    app.command("train")(train_command)
    app.command("eval")(eval_command)
    app.command("experiment")(experiment_command)
