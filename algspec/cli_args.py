"""Argument helpers shared by every `algspec` command: one-line errors, generator overrides."""

from __future__ import annotations

import errno
import json
import sys
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 parses with its own copy of click, whose exceptions these are
    from typer import _click as click
except ImportError:  # pragma: no cover - older typer on plain click
    import click


class OneLineErrors(TyperGroup):
    """The CLI's group: click's usage errors (unknown option, bad or missing value) print
    one line, `error: ... (see 'algspec CMD --help')`, and exit 2, like algspec's own
    argument checks, instead of a usage block and a boxed message."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:  # bare `algspec`: the help, as before
            click.echo(e.ctx.get_help())
            sys.exit(e.exit_code)
        except click.exceptions.ClickException as e:
            text = " ".join(e.format_message().split())
            ctx = getattr(e, "ctx", None)
            if isinstance(e, click.exceptions.UsageError) and ctx is not None:
                names = []  # the subcommand path; the program is `algspec` however started
                while ctx.parent is not None:
                    names.append(ctx.info_name)
                    ctx = ctx.parent
                text += f" (see '{' '.join(['algspec', *reversed(names)])} --help')"
            print(f"error: {text}", file=sys.stderr)
            sys.exit(e.exit_code)
        except MemoryError as e:  # sizes or sample counts too big for this machine
            print(f"error: out of memory ({e}); try smaller sizes or fewer samples",
                  file=sys.stderr)
            sys.exit(1)
        except typer.Abort:
            print("aborted", file=sys.stderr)
            sys.exit(1)
        except OSError as e:
            if e.errno != errno.EPIPE:  # stdout closed early (`| head`): stop quietly
                raise
            sys.stderr = click.utils.PacifyFlushWrapper(sys.stderr)
            sys.stdout = click.utils.PacifyFlushWrapper(sys.stdout)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error (no traceback) and return the Exit to raise."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


def check_file(path) -> None:
    """A one-line error (exit 2) unless `path` is an existing file: missing, or a folder."""
    from pathlib import Path
    p = Path(path)
    if p.is_dir():
        raise fail(f"{p} is a folder, not a .alg file")
    if not p.is_file():
        raise fail(f"no such file: {p}")


def check_out_folder(out, flag: str = "--out") -> None:
    """A one-line error (exit 2) unless `out` can be a folder: not a file, nor under one."""
    from pathlib import Path
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise fail(f"{flag} {p} exists and is not a folder")
    blocker = next((a for a in p.parents if a.exists() and not a.is_dir()), None)
    if blocker is not None:
        raise fail(f"{flag} {p}: {blocker} is not a folder")


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """`--param key=value` generator overrides; values parsed as JSON when they can be.

    Raises ValueError on an item without `=`.
    """
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param: expected NAME=VALUE (key=value), got {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out
