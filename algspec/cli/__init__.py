"""The `algspec` command line: lint, compile, sample, text, efficiency, train, eval, experiment.

User mistakes (bad files, bad arguments) print diagnostics or a one-line
error and exit with 1 (findings) or 2 (usage); they never show a traceback.
Ctrl-C prints one `interrupted: ...` line (what stopped, what is left, the
command that resumes or restarts it) and exits with 130.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any, Self

import typer

from algspec.cli.args import (
    OneLineErrors,
    check_file,
    check_out_folder,
    fail,
    load_or_exit,
    progress_option,
    progress_wanted,
    reported,
    stat_or_fail,
)
from algspec.cli.args import parse_params as _parse_params
from algspec.diagnostics import AlgError, RuntimeFault, render
from algspec.edge_lists import EDGE_STORAGES

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  cls=OneLineErrors,
                  # every command's help: -h or --help (click passes this to subcommands)
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="Write a neural algorithmic reasoning task once as a .alg file: lint it, "
                       "compile it into a CLRS sampler, measure its efficiency, train on it.")


def _print_version(value: bool) -> None:
    if value:
        from algspec.version import __version__
        print(f"algspec {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version,
        help="Print algspec's version and exit.")] = False,
) -> None:
    """Options before the command (`algspec --version`)."""


def parse_params(items: list[str] | None) -> dict[str, Any]:
    try:
        return _parse_params(items)
    except ValueError as e:
        raise fail(str(e)) from None


ParamOpt = Annotated[list[str] | None, typer.Option(
    "--param", "-p", help="Generator parameter override NAME=VALUE (or INPUT.NAME=VALUE); "
                          "repeatable.")]


@app.command()
def lint(
    paths: Annotated[list[Path], typer.Argument(help=".alg files or folders.")],
    output_format: Annotated[str, typer.Option(
        "--output-format", help="concise, full or json.")] = "concise",
    no_sample: Annotated[bool, typer.Option(
        "--no-sample", help="Skip the rules that sample small instances.")] = False,
    progress: Annotated[bool, progress_option()] = True,
) -> None:
    """Report errors and suspicious constructs; exit 0 clean, 1 findings, 2 usage error."""
    if output_format not in ("concise", "full", "json"):
        raise fail(f"--output-format must be concise, full or json, not {output_format!r}")
    from algspec.lint import lint_files
    files: list[Path] = []
    for p in paths:
        stat_or_fail(p, f"cannot read {p}")  # a name too long, a loop of links: one line
        if p.is_dir():
            files += sorted(p.rglob("*.alg"))
        elif p.exists():  # a FIFO or a device is refused by reading it (E006), unopened
            files.append(p)
        else:
            raise fail(f"no such file or folder: {p}")
    files = list(dict.fromkeys(files))  # a file named twice (or via its folder) is linted once
    try:
        diags, sources = lint_files([str(f) for f in files], sample=not no_sample)
    except OSError as e:  # unreadable (permissions, a vanished file)
        raise fail(f"cannot read {e.filename}: {e.strerror or e}") from None
    if diags or output_format == "json":
        print(render(diags, output_format, sources))
    if output_format != "json":
        n_err = sum(d.severity.value == "error" for d in diags)
        summary = (f"{len(diags)} finding{'s' if len(diags) != 1 else ''} "
                   f"({n_err} error{'s' if n_err != 1 else ''}) in {len(files)} "
                   f"file{'s' if len(files) != 1 else ''}") if diags else \
            f"all clean: {len(files)} file{'s' if len(files) != 1 else ''}"
        print(summary, file=sys.stderr)
    raise typer.Exit(1 if diags else 0)


COMPILE_RUN_LIMIT = 120.0  # seconds for the sampled lengths (R116 past it)


def _length_summary(alg, n: int, samples: int, seed: int, params: dict) -> dict:
    traj = alg.sample(n, samples, seed, **params)
    lengths = traj.lengths
    return {"n": n, "samples": samples, "min": int(lengths.min()),
            "mean": float(lengths.mean()), "max": int(lengths.max())}


@app.command()
def compile(
    file: Annotated[Path, typer.Argument(help="The .alg file, or its .yaml form.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    samples: Annotated[int, typer.Option(help="Samples per size for the lengths.", min=1)] = 32,
    seed: Annotated[int, typer.Option(help="Seed for the sampled lengths.", min=0)] = 0,
    param: ParamOpt = None,
    progress: Annotated[bool, progress_option()] = True,
) -> None:
    """Compile FILE: print its CLRS spec, interconnection graph, lengths and static efficiency."""
    alg = load_or_exit(file)
    params = parse_params(param)
    try:  # unknown names or bad values; any other ValueError later is a bug in algspec
        alg.generator_params(**params)
    except ValueError as e:
        raise fail(str(e)) from None
    from algspec.interp.deadline import time_limit
    try:
        with time_limit(COMPILE_RUN_LIMIT):  # a loop of 10 ** 12 trips: R116, not a hang
            lengths = [_length_summary(alg, n, samples, seed, params) for n in (16, 64)]
    except RuntimeFault as f:  # a generator that cannot draw at this size, a broken bound
        print(f.diagnostic.concise_block(), file=sys.stderr)
        raise typer.Exit(1) from None
    from algspec.efficiency.analysis import analyse
    from algspec.generators import jsonable
    static = analyse(alg.ir)
    g = alg.ir.graph
    graph = g.kind if g.kind != "input" else f"input `{g.input}`"
    from algspec.interp.mode import describe as describe_mode
    mode, mode_why = describe_mode(alg.ir)
    if as_json:
        print(json.dumps({
            "name": alg.name, "path": str(file), "spec_hash": alg.spec_hash(),
            "spec": {k: list(v) for k, v in alg.spec.items()},
            "graph": {"kind": g.kind, "input": g.input, "edge_mask_input": g.mask_name},
            "generators": {k: {a: jsonable(b) for a, b in v.items()}  # `p = 2.0 / n` as text
                           for k, v in alg.generator_params(**params).items()},
            "lengths": lengths,
            "interpreter_mode": {"mode": mode, "reason": mode_why},
            # `efficiency --static --json`'s keys and values; the four long names are
            # deprecated aliases of T, c, eta and epsilon, kept for existing readers.
            "static": {**static.json_dict(),
                       "rounds": str(static.rounds), "capacity": str(static.capacity),
                       "node_efficiency": str(static.node_efficiency),
                       "edge_efficiency": str(static.edge_efficiency)},
        }, indent=2))
        return
    print(f"algorithm {alg.name}  ({file})")
    print(f"interconnection graph: {graph}"
          + (f"  (edge-mask input `{g.mask_name}`)" if g.mask_name else
             "  (complete: no edge-mask input, as in CLRS)"))
    print(f"interpreter mode: {mode}: {mode_why}")
    print("spec:")
    width = max(len(k) for k in alg.spec)
    for name, (stage, loc, t) in alg.spec.items():
        print(f"  {name:<{width}}  {stage:<6}  {loc:<5}  {t}")
    print("generators: " + "; ".join(
        f"{k} ~ {alg.ir.decl(k).generator.name}(" + ", ".join(f"{a}={jsonable(b)}" for a, b in v.items())
        + ")" for k, v in alg.generator_params(**params).items()))
    for s in lengths:
        print(f"trajectory length at n={s['n']}: min {s['min']}, mean {s['mean']:.1f}, "
              f"max {s['max']} ({s['samples']} samples)")
    from algspec.efficiency.results import format_static
    print(format_static(static))


LOCAL_JOBS_PER_CPU = 8  # more local processes than this per CPU only thrash the machine


def _sample_jobs(jobs: int, num: int, launcher: str) -> int:
    """`--jobs`, at most one per sample (the same bytes for any number, so nothing
    changes); a local launcher's processes are bounded by this machine's CPUs (each is a
    process: `--jobs 100000` would start that many)."""
    import os
    if launcher == "local":
        cpus = os.cpu_count() or 1
        if jobs > LOCAL_JOBS_PER_CPU * cpus:
            raise fail(f"--jobs {jobs} would start that many processes on this machine of "
                       f"{cpus} CPUs; use at most {LOCAL_JOBS_PER_CPU * cpus} (or --launcher "
                       "ray for a cluster)")
    return min(jobs, num)


@app.command()
def sample(
    file: Annotated[Path, typer.Argument(help="The .alg file, or its .yaml form.")],
    length: Annotated[int, typer.Option("--length", "-n", help="Problem size n.")] = 16,
    num: Annotated[int, typer.Option("--num", "-k", help="Number of samples.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed.", min=0)] = 0,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("out/dataset"),
    overwrite: Annotated[bool, typer.Option(help="Replace an existing folder.")] = False,
    param: ParamOpt = None,
    progress: Annotated[bool, typer.Option(
        help="Show progress (samples drawn, arrays written) on stderr when it is a terminal."
    )] = True,
    jobs: Annotated[int, typer.Option(
        "--jobs", "-j", min=1, help="Processes (with --launcher ray: Ray tasks) drawing the "
        "set side by side; the files are the same bytes for any number.")] = 1,
    launcher: Annotated[str, typer.Option(
        help="local (processes on this machine) or ray (a Ray cluster: --address, else a "
        "local one).")] = "local",
    address: Annotated[str | None, typer.Option(
        help="Ray cluster address (e.g. auto, ray://head:10001) [default: start a local one].")
    ] = None,
    edges: Annotated[str, typer.Option(
        help="How edge data are stored: dense (N x N arrays per sample) or sparse (one value "
        "per edge of each sample's graph, the graph once; for large sparse graphs, where "
        "N x N is mostly zeros). Loading gives the same arrays either way.")] = "dense",
) -> None:
    """Write K samples of size N as .npz with a manifest (reproducible byte for byte)."""
    if length < 1 or num < 1:
        raise fail("--length and --num must be positive")
    if edges not in EDGE_STORAGES:
        raise fail(f"unknown --edges {edges!r}; use {' or '.join(EDGE_STORAGES)}")
    _check_sample_launcher(launcher, address)
    jobs = _sample_jobs(jobs, num, launcher)
    alg = load_or_exit(file)  # the input's mistakes first, then the output's
    check_out_folder(out)
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise fail(f"{out} is not empty; pass --overwrite to replace it")
    params = parse_params(param)
    try:
        alg.generator_params(**params)
    except ValueError as e:
        raise fail(str(e)) from None
    from algspec.sampling.dataset import export
    words = ["algspec", "sample", str(file), "--length", str(length), "--num", str(num),
             "--seed", str(seed), "--out", str(out), *(["--overwrite"] if overwrite else [])]
    for item in param or []:
        words += ["--param", item]
    words += ["--jobs", str(jobs)] if jobs != 1 else []
    words += ["--launcher", launcher] if launcher != "local" else []
    words += ["--address", address] if address else []
    words += ["--edges", edges] if edges != "dense" else []
    from algspec.process.memory_budget import TooLarge
    from algspec.process.output_files import check_target, claim
    from algspec.sampling.jobs import SampleJobsError
    check_target(out, "dir", overwrite=overwrite)  # a device, an unwritable parent: one line
    bar: _SampleProgress | None = None

    def stopped(_: KeyboardInterrupt | None) -> str:
        left = ("the earlier dataset there is untouched" if out.is_dir() and any(out.iterdir())
                else f"nothing was written to {out}")
        drawn = (f" after {bar.drawn} of {num} were drawn"
                 if bar is not None and bar.drawn < num else "")
        return (f"sampling {num} samples of {alg.name} at n={length} stopped{drawn}; {left}; "
                f"run `{shlex.join(words)}` again to start over")

    try:
        # Held for the whole run: a second `sample` into the same --out fails at once.
        with reported(stopped), claim(out), \
                _SampleProgress(progress_wanted(progress), num, out) as bar:
            path = export(alg, out, length, num, seed, params, overwrite=overwrite,
                          progress=bar.update, jobs=jobs, launcher=launcher, address=address,
                          edges=edges)
    except TooLarge as e:  # known from the first chunk: nothing was written
        raise fail(str(e), 1) from None
    except SampleJobsError as e:  # a worker died, Ray cannot run: nothing was written
        raise fail(str(e), 1) from None
    except RuntimeFault as f:
        print(f.diagnostic.concise_block(), file=sys.stderr)
        raise typer.Exit(1) from None
    except OSError as e:  # an unwritable or odd --out; `export` has removed what it made
        blocker = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
        why = f"{blocker} is not a folder" if blocker else (e.strerror or str(e))
        raise fail(f"cannot write {out}: {why}") from None
    except MemoryError:
        raise fail(f"out of memory sampling {num} samples at n={length}; try a smaller "
                   "--num or --length", 1) from None
    print(f"wrote {num} samples of {alg.name} at n={length} to {path}")


def _check_sample_launcher(launcher: str, address: str | None) -> None:
    """`sample --launcher/--address` mistakes, before anything is compiled or drawn."""
    if launcher not in ("local", "ray"):
        raise fail(f"unknown launcher {launcher!r}; use local or ray")
    if address and launcher != "ray":
        raise fail("--address needs --launcher ray")
    if launcher == "ray":
        try:
            import ray  # noqa: F401 - only asked whether it is there
        except ImportError:
            raise fail("--launcher ray needs ray: pip install -e '.[grid]'") from None


class _SampleProgress:
    """`algspec sample`'s progress on stderr: a bar over the samples drawn, then one over
    the arrays compressed into samples.npz (both can take minutes for long hints).
    `drawn` counts the samples drawn so far, shown or not (what a Ctrl-C stopped)."""

    def __init__(self, enabled: bool, num: int, out: Path) -> None:
        self.enabled, self.num, self.out = enabled, num, out
        self.bar: Any = None
        self.stage = ""
        self.drawn = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

    def update(self, stage: str, done: int, total: int) -> None:
        """The `algspec.sampling.dataset.Progress` callback."""
        if stage == "sampling":
            self.drawn = done
        if not self.enabled:
            return
        if stage != self.stage:
            from tqdm import tqdm
            if self.bar is not None:
                self.bar.close()
            desc, unit = (("sampling", "sample") if stage == "sampling"
                          else (f"writing {self.out}", "array"))
            self.bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr,
                            dynamic_ncols=True, leave=False)
            self.stage = stage
        self.bar.update(done - self.bar.n)


def _quickstart_summary(paths: list[Path]) -> int:
    """`algspec demo`: lint, compile and sample every shipped algorithm (the quick start);
    a file whose sample faults is its diagnostic on stderr. Returns how many faulted."""
    from algspec.compiled import load
    from algspec.efficiency.analysis import analyse
    from algspec.lint import lint_path
    print("| algorithm | file | lint findings | inputs / hints / outputs | T at n=16 "
          "(min / mean / max, 64 samples) | c | eta | epsilon |")
    print("|---|---|---|---|---|---|---|---|")
    faulted = 0
    for p in paths:
        findings = lint_path(p)
        alg = load(p)
        try:
            traj = alg.sample(16, 64, 0)
        except RuntimeFault as f:
            print(f.diagnostic.concise_block(), file=sys.stderr)
            faulted += 1
            continue
        stages = [s for s, _, _ in alg.spec.values()]
        counts = " / ".join(str(stages.count(s)) for s in ("input", "hint", "output"))
        st = analyse(alg.ir)
        lengths = traj.lengths
        print(f"| {alg.name} | {p.name} | {len(findings)} | {counts} | {int(lengths.min())} / "
              f"{lengths.mean():.1f} / {int(lengths.max())} | {st.capacity} | "
              f"{st.node_efficiency} | {st.edge_efficiency} |")
    return faulted


@app.command()
def demo(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Files or folders (every *.alg under a folder) [default: algorithms/*.alg].")]
    = None,
    progress: Annotated[bool, progress_option()] = True,
) -> None:
    """Lint, compile and sample (n=16, 64 samples) each algorithm; print a summary table.

    A file that does not compile is its diagnostics, and the others are still shown;
    the exit status is 1 when any file failed."""
    from algspec.cli.efficiency import expand_paths
    files = expand_paths(paths) if paths else sorted(Path("algorithms").glob("*.alg"))
    if not files:
        raise fail("no .alg files given and none in ./algorithms")
    good = []
    for f in files:
        try:
            load_or_exit(f)
            good.append(f)
        except typer.Exit as e:
            if e.exit_code != 1:  # not a file with errors: a usage error, said once
                raise
    failed = len(files) - len(good) + _quickstart_summary(good)
    if failed:
        raise typer.Exit(1)


@app.command()
def convert(
    file: Annotated[Path, typer.Argument(help="A .alg file or its .yaml form.")],
    to: Annotated[str | None, typer.Option(
        help="yaml or alg [default: the other form of FILE: alg for a .yaml/.yml file, "
             "yaml otherwise].", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        help="Where to write [default: FILE with the other suffix].")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an existing file.")] = False,
    progress: Annotated[bool, progress_option()] = True,
) -> None:
    """Write an algorithm in its YAML form or back as .alg (the same program: same spec
    hash; comments kept)."""
    from algspec.language import yaml_form
    from algspec.language.yaml_writer import to_yaml
    is_yaml = yaml_form.is_yaml_path(str(file))
    to = to or ("alg" if is_yaml else "yaml")  # the other form of FILE
    if to not in ("yaml", "alg"):
        raise fail(f"--to must be yaml or alg, not {to!r}")
    check_file(file)
    target = out or file.with_suffix(".yaml" if to == "yaml" else ".alg")
    if target.resolve() == file.resolve():
        hint = (f" (it is already {to}; --to {'alg' if to == 'yaml' else 'yaml'} converts "
                "it to the other form)") if is_yaml == (to == "yaml") else ""
        raise fail(f"{target} is the file being converted; give another --out{hint}")
    from algspec.process.output_files import check_target
    # Only a regular file is replaced; a link is followed (its target is written).
    real = check_target(target, "file", overwrite=overwrite)
    from algspec.language.source_file import read_source
    try:
        text = read_source(file)
        if to == "yaml":
            converted = to_yaml(yaml_form.to_alg_text(text, str(file)) if is_yaml else text,
                                str(file))
        else:
            converted = yaml_form.to_alg_text(text, str(file)) if is_yaml else text
        load_or_exit(file)  # converts only what loads: same program, same spec hash
    except OSError as e:
        raise fail(f"cannot read {file}: {e.strerror or e}") from None
    except AlgError as e:
        print(render(e.diagnostics, "concise"), file=sys.stderr)
        raise typer.Exit(1) from None
    from algspec.language.source_file import write_source_atomic
    try:
        write_source_atomic(target, converted, overwrite=overwrite)
    except OSError as e:
        raise fail(f"cannot write {target}: {e.strerror or e}") from None
    print(f"wrote {real} (through the link {target})" if target.is_symlink()
          else f"wrote {target}")


@app.command()
def explain(
    code: Annotated[str, typer.Argument(help="A diagnostic code, e.g. E401.")],
    progress: Annotated[bool, progress_option()] = True,
) -> None:
    """Print what a diagnostic code means (from the registry in algspec/codes.py)."""
    from algspec import codes
    try:
        print(codes.explain(code))
    except ValueError:
        raise fail(f"unknown code {code!r}; codes: " + ", ".join(codes.CODES)) from None


def _mount_subcommands() -> None:
    from algspec.cli.efficiency import register as register_efficiency
    from algspec.cli.text import register as register_text
    from algspec.cli.training import register as register_training
    register_efficiency(app)
    register_text(app)
    register_training(app)


_mount_subcommands()


def main() -> None:
    """The console script: the app, with Ctrl-C, run-time faults and bugs each reported in
    its own words (a Ctrl-C is never an internal error)."""
    import signal

    from algspec.cli.args import INTERRUPTED, caused_by_interrupt, generic_interrupt
    try:
        try:
            app()
        finally:  # the command has ended: a Ctrl-C while Python shuts JAX down changes nothing
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        print(f"interrupted: {generic_interrupt(sys.argv[1:])}", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except RuntimeFault as f:
        print(f.diagnostic.concise_block(), file=sys.stderr)
        sys.exit(1)
    except AlgError as e:  # a file's own mistake found late (a loop bound with no class)
        print(render(e.diagnostics, "concise"), file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - an internal error: a bug report, exit 2, as ruff does
        if caused_by_interrupt(e):
            print(f"interrupted: {generic_interrupt(sys.argv[1:])}", file=sys.stderr)
            sys.exit(INTERRUPTED)
        from algspec.process.internal_error import report
        report(e)
        sys.exit(2)

