"""What the CLI says when algspec itself fails: a bug report, not a diagnostic.

By default a few lines (no traceback, exit 2, as ruff does): that it is a bug
in algspec, how to report it, and where the traceback was written. With
`ALGSPEC_DEBUG=1` the traceback is printed too.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from pathlib import Path

DEBUG_ENV = "ALGSPEC_DEBUG"


def _debug() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def write_log(exc: BaseException, argv: list[str] | None = None) -> Path | None:
    """Write the command line and traceback to a fresh log file; None if that fails too."""
    text = "algspec internal error\ncommand: " + " ".join(argv if argv is not None else sys.argv)
    text += "\n\n" + "".join(traceback.format_exception(exc))
    try:
        fd, name = tempfile.mkstemp(prefix="algspec-internal-error-", suffix=".log")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return Path(name)
    except OSError:
        return None


def message(exc: BaseException, log: Path | None) -> str:
    """The lines printed to stderr for an internal error."""
    lines = [f"internal error: {type(exc).__name__}: {exc}",
             ("  this is a bug in algspec, not a problem with your file; please report it to the "
              "algspec maintainers (the project's issue tracker) with the command and the .alg "
              "file")]
    if log is not None:
        lines.append(f"  the traceback is in {log}")
    if not _debug():
        lines.append(f"  rerun with {DEBUG_ENV}=1 to print the traceback")
    return "\n".join(lines)


def report(exc: BaseException, argv: list[str] | None = None) -> None:
    """Print the internal-error message (and the traceback under ALGSPEC_DEBUG=1) to stderr."""
    log = write_log(exc, argv)
    if _debug():
        traceback.print_exception(exc, file=sys.stderr)
    print(message(exc, log), file=sys.stderr)
