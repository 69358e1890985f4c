"""`algspec efficiency` (mounted by the CLI with `register(app)`).

Imports only typer at module level so `algspec --help` and `algspec lint`
stay fast; numpy, matplotlib and the interpreter load when the command runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from algspec.cli.args import fail as _fail
from algspec.cli.args import parse_params as _params
from algspec.cli.args import progress_option


def parse_sizes(text: str) -> list[int]:
    """`8,16,32,64` -> [8, 16, 32, 64]: at least two distinct sizes >= 2, ascending."""
    try:
        sizes = sorted({int(s) for s in text.replace(" ", "").split(",") if s})
    except ValueError:
        raise ValueError(f"--sizes: expected comma-separated integers, got {text!r}") from None
    if len(sizes) < 2:
        raise ValueError(f"--sizes: need at least two distinct sizes to fit a growth exponent, "
                         f"got {text!r}")
    if sizes[0] < 2:
        raise ValueError(f"--sizes: sizes must be at least 2, got {sizes[0]}")
    return sizes


def print_static(alg_or_program, file=None) -> str:
    """Print (and return) the static classes of a compiled algorithm or IR program.

    For `algspec compile`: a few lines with T, N, |E|, c, eta and epsilon.
    """
    from algspec.efficiency.analysis import analyse
    from algspec.efficiency.results import format_static

    prog = getattr(alg_or_program, "ir", alg_or_program)
    text = format_static(analyse(prog))
    print(text, file=file or sys.stdout)
    return text


def efficiency_command(
    files: Annotated[list[Path], typer.Argument(
        help=".alg files or folders (every *.alg file under a folder, sorted).")],
    sizes: Annotated[str, typer.Option(
        help="Comma-separated problem sizes n to sample at (at least two); ignored with "
             "--static, whose classes need no sizes.")] = "8,16,32,64",
    samples: Annotated[int, typer.Option(help="Samples per size.")] = 8,
    seed: Annotated[int, typer.Option(help="Random seed of the inputs.", min=0)] = 0,
    plot: Annotated[Path | None, typer.Option(
        help="Write a PNG: active nodes/edges per round of one sample, and growth curves.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    table: Annotated[bool, typer.Option(
        help="Print the paper's Table 1 (static class, measured value at n = 64) in "
             "markdown.")] = False,
    static_only: Annotated[bool, typer.Option(
        "--static", help="Only the static classes; no sampling.")] = False,
    param: Annotated[list[str] | None, typer.Option(
        help="Generator parameter override key=value (repeatable).")] = None,
    worst_case: Annotated[bool, typer.Option(
        "--worst-case", help="Sample the inputs a file names as its worst case "
                             "(`# worst case: p = 0.0` comment) and report any trend of "
                             "measured / static as `differs`.")] = False,
    show_range: Annotated[bool, typer.Option(
        "--range", help="Show both ends of work, active edges, eta and epsilon (fewest "
                        ".. most a data-dependent choice can select; tables print the "
                        "fewest, the worst case), and measured against the most end.")
    ] = False,
    progress: Annotated[bool, progress_option()] = True,
) -> None:
    """Static efficiency classes (c, eta, epsilon) beside measured figures and fitted exponents."""
    try:
        size_list = [] if static_only else parse_sizes(sizes)
        params = _params(param)
    except ValueError as e:
        raise _fail(str(e)) from None
    if samples < 1:
        raise _fail(f"--samples must be at least 1, got {samples}")
    if not files:
        raise _fail("no .alg files given")
    files = expand_paths(files)
    if plot is not None:
        check_plot_path(plot, static_only)
    from algspec.diagnostics import AlgError, RuntimeFault, render
    try:
        _run(files, size_list, samples, seed, plot, as_json, table, static_only, params,
             worst_case, show_range)
    except AlgError as e:  # the file's own mistakes, in lint's concise format
        print(render(e.diagnostics, "concise"), file=sys.stderr)
        raise typer.Exit(1) from None
    except RuntimeFault as e:  # a sampled input broke a bound or a type
        print(e.diagnostic.concise_block(), file=sys.stderr)
        raise typer.Exit(1) from None
    except ValueError as e:  # a generator parameter the file's generators reject
        raise _fail(str(e)) from None
    except OSError as e:  # writing --plot failed after the checks (the save left no file)
        raise _fail(f"cannot write {plot}: {e.strerror or e}") from None


def expand_paths(paths: list[Path]) -> list[Path]:
    """The files to analyse, as `algspec lint` reads its arguments: a folder stands for every
    *.alg file under it, sorted; a file named twice (or via its folder) counts once.

    Libraries of procedures found in a folder are skipped with a note on stderr (they have
    no classes of their own; a library named by itself is an error, E706).
    """
    from algspec.diagnostics import AlgError
    from algspec.language.parser import is_library
    from algspec.language.source_file import read_source

    files: list[Path] = []
    skipped: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(p.rglob("*.alg"))
            if not found:
                raise _fail(f"no .alg files in folder {p}")
            for f in found:
                try:
                    library = is_library(read_source(f))
                except (OSError, AlgError):  # unreadable or not UTF-8: loading reports it
                    library = False
                (skipped if library else files).append(f)
        elif p.is_file():
            files.append(p)
        else:
            raise _fail(f"no such file or folder: {p}")
    files = list(dict.fromkeys(files))
    if skipped:
        print(f"skipped {len(skipped)} librar{'y' if len(skipped) == 1 else 'ies'} of "
              f"procedures (included by other files): {', '.join(map(str, skipped))}",
              file=sys.stderr)
    if not files:
        raise _fail("no algorithms among the files given")
    return files


def check_plot_path(plot: Path, static_only: bool = False) -> None:
    """Reject a `--plot` path that cannot be written before any sampling (one-line error)."""
    import os

    if static_only:
        raise _fail("--plot draws measured activity; it cannot be combined with --static")
    if plot.is_dir():
        raise _fail(f"--plot {plot} is a folder; name an image file, e.g. {plot / 'plot.png'}")
    folder = plot.parent
    if not folder.is_dir():
        raise _fail(f"--plot {plot}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _fail(f"--plot {plot}: cannot write in {folder}")
    from algspec.process.output_files import OutputError, check_target
    try:  # a device or FIFO is never replaced by an image; a link is followed
        check_target(plot, "file", overwrite=True)
    except OutputError as e:
        raise _fail(str(e)) from None
    fmt = plot.suffix[1:].lower()
    if fmt:
        from matplotlib.backend_bases import FigureCanvasBase
        known = FigureCanvasBase.get_supported_filetypes()
        if fmt not in known:
            raise _fail(f"--plot {plot}: unknown image format .{fmt}; use one of "
                        + ", ".join(f".{k}" for k in sorted(known)))


def _run(files: list[Path], sizes: list[int], samples: int, seed: int, plot: Path | None,
         as_json: bool, table: bool, static_only: bool, params: dict[str, Any],
         worst_case: bool = False, show_range: bool = False) -> None:
    import algspec
    from algspec.cli import efficiency_report as report
    from algspec.efficiency.analysis import analyse
    from algspec.lint.measured import measure

    try:
        algs = [algspec.load(f) for f in files]
    except OSError as e:  # unreadable: a usage error, not a failed --plot write
        raise ValueError(f"cannot read {e.filename}: {e.strerror or e}") from None
    statics = [analyse(a.ir) for a in algs]
    if static_only:
        if as_json:  # keyed by algorithm name; by path where two files share a name
            names = [a.name for a in algs]
            print(json.dumps({(a.name if names.count(a.name) == 1 else str(f)):
                              s.json_dict()
                              for f, a, s in zip(files, algs, statics)}, indent=2))
        elif table:
            print(report.static_markdown_table(statics, show_range))
        else:
            print("\n\n".join(report.static_text(s, show_range) for s in statics))
        return
    unused = [k for k in params if not any(_accepts(a, k) for a in algs)]
    if unused:
        raise ValueError(f"--param {unused[0]}: no generator of these algorithms takes it")
    results = []
    for a, st in zip(algs, statics):
        own = {k: v for k, v in params.items() if _accepts(a, k)}
        results.append(measure(a, sizes, samples, seed, static=st, worst_case=worst_case,
                               **own))
    if as_json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
    elif table:
        print(report.markdown_table(results, at=64, show_range=show_range))
    else:
        print("\n\n".join(report.measurement_text(r, show_range) for r in results))
    if plot is not None:
        out = report.plot(results, plot)
        print(f"wrote {out}", file=sys.stderr)


def _accepts(alg, key: str) -> bool:
    """Whether a `--param` applies to this algorithm's generators (others skip it)."""
    target, _, param = key.replace("__", ".").rpartition(".")
    return any(param in ps and (not target or target == name)
               for name, ps in alg.generator_params().items())


def register(app: typer.Typer) -> None:
    """Add the `efficiency` command to the algspec CLI."""
    app.command("efficiency")(efficiency_command)


__all__ = ["check_plot_path", "efficiency_command", "expand_paths", "parse_sizes",
           "print_static", "register"]
