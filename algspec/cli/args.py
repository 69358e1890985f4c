"""Argument helpers shared by every `algspec` command: one-line errors, generator overrides."""

from __future__ import annotations

import errno
import json
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import typer
from typer.core import TyperGroup

from algspec.process.interrupts import (
    IGNORING,
    INTERRUPT,
    INTERRUPTED,
    caused_by_interrupt,
    clear_terminal_line,
)
from algspec.process.output_files import OutputError

try:  # typer >= 0.20 parses with its own copy of click, whose exceptions these are
    from typer import _click as click
except ImportError:  # pragma: no cover - older typer on plain click
    import click


class OneLineErrors(TyperGroup):
    """The CLI's group: click's usage errors (unknown option, bad or missing value) print
    one line, `error: ... (see 'algspec CMD --help')`, and exit 2, like algspec's own
    argument checks, instead of a usage block and a boxed message."""

    def format_commands(self, ctx, formatter) -> None:
        """The command list with each command's whole first sentence, wrapped, not cut
        to the first line's width with '...'."""
        rows = [(name, cmd.get_short_help_str(limit=10_000))
                for name in self.list_commands(ctx)
                if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        argv = [str(a) for a in (sys.argv[1:] if args is None else args)]
        try:
            with recording_sigint():
                rv = super().main(args, prog_name, complete_var, standalone_mode=False,
                                  **extra)
            if rv == INTERRUPTED and not INTERRUPT.reported:  # typer's silent Exit(130)
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            print(f"interrupted: {generic_interrupt(argv)}", file=sys.stderr)
            sys.exit(INTERRUPTED)
        except click.exceptions.NoArgsIsHelpError as e:  # bare `algspec`: the help, once
            help_text = e.format_message()  # the help, already rendered when the error was made
            if help_text.strip():  # (a rich help prints itself then; a plain one is returned)
                click.echo(help_text)
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
            from algspec.process.memory_budget import TooLarge
            if isinstance(e, TooLarge):  # refused up front, with the estimate
                print(f"error: {e}", file=sys.stderr)
            else:
                print(f"error: out of memory ({e}); try smaller sizes or fewer samples",
                      file=sys.stderr)
            sys.exit(1)
        except typer.Abort:
            print("aborted", file=sys.stderr)
            sys.exit(1)
        except OutputError as e:  # an --out that cannot be written, or one another run holds
            print(f"error: {e}", file=sys.stderr)
            sys.exit(2)
        except OSError as e:
            if caused_by_interrupt(e):
                print(f"interrupted: {generic_interrupt(argv)}", file=sys.stderr)
                sys.exit(INTERRUPTED)
            if e.errno != errno.EPIPE:  # stdout closed early (`| head`): stop quietly
                raise
            sys.stderr = click.utils.PacifyFlushWrapper(sys.stderr)
            sys.stdout = click.utils.PacifyFlushWrapper(sys.stdout)
            sys.exit(1)
        except Exception as e:  # a Ctrl-C that a library wrapped is no internal error
            if device_out_of_memory(e):  # XLA could not allocate: sizes, not a bug
                print(f"error: out of device memory ({str(e).splitlines()[0][:200]}); try "
                      "a smaller --hidden, batch or size", file=sys.stderr)
                sys.exit(1)
            if not caused_by_interrupt(e):
                raise
            print(f"interrupted: {generic_interrupt(argv)}", file=sys.stderr)
            sys.exit(INTERRUPTED)
        sys.exit(rv if isinstance(rv, int) else 0)


def device_out_of_memory(e: BaseException) -> bool:
    """Whether `e` is JAX/XLA's out-of-memory error (RESOURCE_EXHAUSTED), which is no
    MemoryError: a model or batch larger than the device, said in one line."""
    return type(e).__name__ in ("JaxRuntimeError", "XlaRuntimeError") and \
        str(e).startswith("RESOURCE_EXHAUSTED")


def _record_sigint(signum: int, frame: FrameType | None) -> None:
    INTERRUPT.seen = True
    raise KeyboardInterrupt


@contextmanager
def recording_sigint() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt as usual, and is remembered: a library that turns
    it into another exception on its way up (pydantic's schema builder raises SchemaError,
    an import an ImportError) is still told apart from a bug in algspec."""
    INTERRUPT.seen = INTERRUPT.reported = False
    IGNORING.on = False
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _record_sigint)
    try:
        yield
    finally:
        # the command's results are written: the console script ignores Ctrl-C to its exit
        signal.signal(signal.SIGINT, signal.SIG_IGN if IGNORING.on else previous)


def command_line(argv: list[str]) -> str:
    """The `algspec ...` command that was run, quoted for a shell."""
    return shlex.join(["algspec", *argv])


def generic_interrupt(argv: list[str]) -> str:
    """What Ctrl-C stopped, for a command that writes nothing it could leave half done."""
    name = next((a for a in argv if not a.startswith("-")), "the command")
    return (f"algspec {name} stopped before it finished; run `{command_line(argv)}` "
            "again to start over")


def interrupted(message: str) -> typer.Exit:
    """Print the one line a command says when Ctrl-C stops it (what stopped, what is left,
    how to resume) and return the Exit (status 130) to raise."""
    print(f"interrupted: {message}", file=sys.stderr, flush=True)
    INTERRUPT.reported = True
    return typer.Exit(INTERRUPTED)


# Every command takes --progress/--no-progress, so a script can pass --no-progress to
# any of them; commands without progress output accept it and show nothing either way.
NO_PROGRESS_HELP = ("Show progress on stderr when it is a terminal (this command shows none; "
                    "--no-progress is accepted by every command).")


def progress_option(help: str = NO_PROGRESS_HELP) -> Any:
    """The `--progress/--no-progress` option every command takes."""
    return typer.Option("--progress/--no-progress", help=help)


def progress_wanted(flag: bool = True, stream: Any = None) -> bool:
    """Progress bars and notes only when asked for and stderr is a terminal (a log file or
    a pipe gets the results, not a stream of carriage returns)."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(flag) and stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error (no traceback) and return the Exit to raise."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


def stat_or_fail(p, shown: str) -> None:
    """A one-line error (exit 2) for a path the system cannot even look up (a name too
    long, a loop of links); a missing one is left to the caller's own message."""
    try:
        os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        return  # missing: the caller says so in its own words
    except OSError as e:
        raise fail(f"{shown}: {e.strerror or e}") from None


def check_file(path) -> None:
    """A one-line error (exit 2) unless `path` is an existing file: missing, or a folder."""
    from pathlib import Path
    p = Path(path)
    stat_or_fail(p, str(p))
    if p.is_dir():
        raise fail(f"{p} is a folder, not a .alg file")
    if not p.is_file():
        raise fail(f"{p} is not a regular file" if p.exists() else f"no such file: {p}")


def check_out_folder(out, flag: str = "--out") -> None:
    """A one-line error (exit 2) unless `out` can be a folder: not a file, nor under one."""
    from pathlib import Path
    p = Path(out)
    stat_or_fail(p, f"{flag} {p}")
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


def split_legacy_processor(items: list[str] | None, processor: str, default: str,
                           processors: tuple[str, ...]) -> tuple[list[str], str]:
    """`train FILE -p gat`: `-p` was `--processor` in `train` before it meant `--param` in
    every command. A `-p` value without `=` that names a processor still selects it, with
    a one-line note on stderr; everything else stays a generator parameter.

    Returns the remaining `--param` items and the processor. Raises ValueError when the
    old spelling and `--processor` name two different processors.
    """
    params, legacy = [], []
    for item in items or []:
        (legacy if "=" not in item and item.strip() in processors else params).append(item)
    if not legacy:
        return params, processor
    chosen = legacy[-1].strip()
    if len({x.strip() for x in legacy}) > 1 or processor not in (default, chosen):
        raise ValueError(f"two processors given: {processor!r} and {chosen!r}; "
                         "name one with --processor")
    print(f"note: '-p {chosen}' selects the processor as before; write '--processor {chosen}' "
          "(-p is --param NAME=VALUE in every command)", file=sys.stderr)
    return params, chosen


def load_or_exit(path):
    """Compile an algorithm file (`.alg` or its YAML form), or print its diagnostics and
    exit 1; a path that is not a readable file is one `error:` line (exit 2)."""
    from algspec.compiled import load_source
    from algspec.diagnostics import AlgError, render
    from algspec.language.source_file import read_source
    check_file(path)
    try:
        return load_source(read_source(path), str(path))
    except OSError as e:  # unreadable (permissions, a vanished file)
        raise fail(f"cannot read {path}: {e.strerror or e}") from None
    except AlgError as e:
        print(render(e.diagnostics, "concise"), file=sys.stderr)
        raise typer.Exit(1) from None


@contextmanager
def reported(describe: Callable[[KeyboardInterrupt | None], str],
             mistakes: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Run a command's work; a Ctrl-C (or an exception it caused: `caused_by_interrupt`)
    prints `interrupted: {describe(exc)}` and exits with status 130. A file's diagnostics
    (`AlgError`: a run's or a grid's file that no longer compiles) print as they are, exit
    1; an exception of a type in `mistakes` that no Ctrl-C caused is the user's: one
    `error:` line, exit 2.
    The work starts with no Ctrl-C remembered (an earlier command in the same process may
    have been stopped; this one's would have raised before it got here)."""
    INTERRUPT.seen = INTERRUPT.reported = False
    try:
        yield
    except KeyboardInterrupt as exc:
        clear_terminal_line()
        raise interrupted(describe(exc)) from None
    except typer.Exit:
        raise
    except Exception as exc:
        if not caused_by_interrupt(exc):
            from algspec.diagnostics import AlgError, render
            diags = next((e for e in (exc, exc.__cause__) if isinstance(e, AlgError)), None)
            if diags is not None:  # a file the work compiled (a run's, a grid's)
                print(render(diags.diagnostics, "concise"), file=sys.stderr)
                raise typer.Exit(1) from None
            if isinstance(exc, mistakes):
                raise fail(str(exc)) from None
            raise
        clear_terminal_line()
        raise interrupted(describe(None)) from None
