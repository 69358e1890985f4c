"""Reading a `.alg` file from disk: one place that turns bytes into source text.

A file that is not UTF-8 is the user's mistake, not an algspec bug: it becomes
an `E001` diagnostic at the line and column of the first bad byte, so every
command (lint, compile, sample, efficiency, demo, train) reports it as
`path:line:col: E001 ...` instead of an internal error.
"""

from __future__ import annotations

import errno
import os
import stat

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


# The largest source file read (a `.alg` file, its YAML form, an include): far above any
# real program, small enough that a hostile file cannot exhaust memory.
MAX_SOURCE_BYTES = 16 * 1024 * 1024


def _refused(path: str, message: str, help: str) -> AlgError:
    return AlgError([Diagnostic(code="E006", path=path, message=message, help=help)])


def read_source_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a source file: a regular file of at most `MAX_SOURCE_BYTES`.

    A FIFO, device or socket (`/dev/zero`, a named pipe) and an oversized file are
    `AlgError` (E006) without reading it; the open never blocks (O_NONBLOCK), and the
    file is checked again once open, in case it was replaced after the first check.
    OSError as `open` raises it (missing, unreadable, a folder)."""
    name = str(path)
    before = os.stat(path)
    if not stat.S_ISDIR(before.st_mode):  # a folder: IsADirectoryError below, as `open`
        _check_kind(before, name)
    fd = _open_readonly(path)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        _check_kind(info, name)
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_large(name, len(data))
    return data


def _open_readonly(path: str | os.PathLike[str]) -> int:
    """A descriptor for reading that never blocks on a FIFO or becomes a controlling tty."""
    return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))


def _check_kind(info: os.stat_result, name: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(info.st_mode) else
                "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise _refused(name, f"cannot read the file: it is {kind}, not a regular file",
                       "give the path of a .alg file (or its YAML form)")
    if info.st_size > MAX_SOURCE_BYTES:
        raise _too_large(name, info.st_size)


def _too_large(name: str, size: int) -> AlgError:
    return _refused(name, f"the file is too large ({size / 2 ** 20:.1f} MiB; at most "
                    f"{MAX_SOURCE_BYTES // 2 ** 20} MiB)", "split the program into smaller files")


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of a `.alg` file; OSError as `open` raises it, AlgError (E001) if not UTF-8,
    AlgError (E006) if it is not a regular file or is too large (`read_source_bytes`)."""
    return decode_source(read_source_bytes(path), str(path))


def write_source_atomic(path: str | os.PathLike[str], text: str,
                        overwrite: bool = True) -> None:
    """Write a source file whole or not at all (`algspec.process.output_files`: a recognisable
    temporary renamed into place, the umask's mode, only a regular file replaced, a link
    followed). Raises `OutputError` for a target that must not be written."""
    from algspec.process.output_files import atomic_file

    with atomic_file(path, "w", overwrite=overwrite) as f:
        f.write(text)


ALGORITHM_SUFFIXES = (".alg", ".yaml", ".yml")  # a .alg file, or its YAML form


def is_algorithm_file_name(name: str | os.PathLike[str]) -> bool:
    """Whether a name is an algorithm file's (`.alg`, or the YAML form) rather than, say,
    the name of a dm-clrs algorithm."""
    return str(name).lower().endswith(ALGORITHM_SUFFIXES)
