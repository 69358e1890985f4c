"""`algspec text` (mounted by the CLI with `register(app)`): a file's samples as CLRS-Text.

Imports only typer at module level so `algspec --help` stays fast.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from algspec.cli.args import check_out_folder, fail, parse_params, progress_wanted


def text_command(
    file: Annotated[Path, typer.Argument(help="The .alg file, or its .yaml form.")],
    length: Annotated[int, typer.Option("--length", "-n", help="Problem size n.")] = 16,
    num: Annotated[int, typer.Option("--num", "-k", help="Number of records.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed.", min=0)] = 0,
    out: Annotated[Path, typer.Option(help="Output folder (gets data.jsonl).")]
    = Path("out/text"),
    hints: Annotated[bool, typer.Option(
        "--hints", help="Trace each output's `<output>_h` hint in the prompt and answer.")]
    = False,
    decimals: Annotated[int | None, typer.Option(
        help="Truncate input floats to this many decimals, 0 to 15 (CLRS-Text's generator "
             "uses 3 for Hugging Face).", min=0)] = None,
    format_: Annotated[str, typer.Option(
        "--format", help="jsonl (DIR/data.jsonl) or hf (DIR/hf, a Hugging Face dataset; "
        "needs the `datasets` package).")] = "jsonl",
    overwrite: Annotated[bool, typer.Option(help="Replace existing output.")] = False,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="Generator parameter override NAME=VALUE; repeatable.")] = None,
    progress: Annotated[bool, typer.Option(
        help="Show progress on stderr when it is a terminal.")] = True,
) -> None:
    """Write K samples of size N as CLRS-Text records (`prompt`, `references`) in DIR/data.jsonl."""
    from algspec.cli.args import load_or_exit
    from algspec.diagnostics import RuntimeFault
    from algspec.text.errors import TextError
    from algspec.text.records import (
        DATA_FILE,
        FORMATS,
        HF_FOLDER,
        text_records,
        write_hf,
        write_jsonl,
    )

    if length < 1 or num < 1:
        raise fail("--length and --num must be positive")
    from algspec.text.request import check_decimals, check_hints
    try:
        check_decimals(decimals)
    except TextError as e:
        raise fail(f"--{e}") from None
    if format_ not in FORMATS:
        raise fail(f"--format must be one of {', '.join(FORMATS)}, not {format_!r}")
    if format_ == "hf":
        try:
            import datasets  # noqa: F401
        except ImportError:
            raise fail("--format hf needs the `datasets` package: pip install datasets"
                       ) from None
    check_out_folder(out)
    target = out / (HF_FOLDER if format_ == "hf" else DATA_FILE)
    from algspec.process.output_files import check_target, claim
    check_target(out, "dir", allow_nonempty_dir=True)
    check_target(target, "dir" if format_ == "hf" else "file", overwrite=overwrite)
    try:
        params = parse_params(param)
    except ValueError as e:
        raise fail(str(e)) from None
    alg = load_or_exit(file)
    try:
        alg.generator_params(**params)
    except ValueError as e:
        raise fail(str(e)) from None
    if hints:
        try:
            check_hints(alg.name, alg.spec)
        except TextError as e:
            raise fail(f"{file}: {e}") from None
    bar = None
    if progress_wanted(progress):
        from tqdm import tqdm
        bar = tqdm(total=num, desc=f"formatting {alg.name}", unit="record", file=sys.stderr,
                   dynamic_ncols=True, leave=False)
    words = ["algspec", "text", str(file), "--length", str(length), "--num", str(num),
             "--seed", str(seed), "--out", str(out), *(["--hints"] if hints else []),
             *(["--decimals", str(decimals)] if decimals is not None else []),
             *(["--format", format_] if format_ != "jsonl" else [])]
    from algspec.cli.args import reported
    from algspec.process.memory_budget import TooLarge
    stopped = (f"writing {num} text records of {alg.name} stopped; nothing was written to "
               f"{target}; run `{shlex.join(words)}` again")
    try:
        # Held for the whole run: a second `text` into the same target fails at once.
        with reported(lambda _: stopped), claim(target):
            records = text_records(alg, length, num, seed, hints=hints, decimals=decimals,
                                   progress=None if bar is None else (lambda _: bar.update(1)),
                                   **params)
            path = (write_hf if format_ == "hf" else write_jsonl)(
                records, out, total=num, overwrite=overwrite)
    except TooLarge as e:
        raise fail(str(e), 1) from None
    except OSError as e:  # a write that failed part way (a full disk): nothing was kept
        raise fail(f"cannot write {target}: {e.strerror or e}", 1) from None
    except RuntimeFault as f:
        print(f.diagnostic.concise_block(), file=sys.stderr)
        raise typer.Exit(1) from None
    except TextError as e:  # a value not of its type's form; any other error is a bug
        raise fail(f"{file}: {e}", 1) from None
    finally:
        if bar is not None:
            bar.close()
    print(f"wrote {num} text records of {alg.name} at n={length} to {path}")


def register(app: typer.Typer) -> None:
    """Add the `text` command to the algspec CLI."""
    app.command("text")(text_command)
