"""Reading a `.alg` file from disk: one place that turns bytes into source text.

A file that is not UTF-8 is the user's mistake, not an algspec bug: it becomes
an `E001` diagnostic at the line and column of the first bad byte, so every
command (lint, compile, sample, efficiency, demo, train) reports it as
`path:line:col: E001 ...` instead of an internal error.
"""

from __future__ import annotations

import os

from algspec.diagnostics import AlgError, Diagnostic, Span


def decode_source(data: bytes, path: str) -> str:
    """UTF-8 text of a file's bytes, with Windows and old Mac line ends read as newlines (as
    `open()` reads text); raises `AlgError` (E001) at the first undecodable byte."""
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as e:
        before = data[:e.start].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        raise AlgError([Diagnostic(
            code="E001", path=path, span=Span(line=line, column=column, end_line=line,
                                              end_column=column + 1),
            message=f"the file is not UTF-8 text (byte 0x{data[e.start]:02x})",
            help="save the file as UTF-8")]) from None


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of a `.alg` file; OSError as `open` raises it, AlgError (E001) if not UTF-8."""
    with open(path, "rb") as f:
        return decode_source(f.read(), str(path))


def write_source_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write a source file whole or not at all (a temporary file renamed into place)."""
    import tempfile
    from pathlib import Path

    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


ALGORITHM_SUFFIXES = (".alg", ".yaml", ".yml")  # a .alg file, or its YAML form


def is_algorithm_file_name(name: str | os.PathLike[str]) -> bool:
    """Whether a name is an algorithm file's (`.alg`, or the YAML form) rather than, say,
    the name of a dm-clrs algorithm."""
    return str(name).lower().endswith(ALGORITHM_SUFFIXES)
