"""Writing results safely: one mechanism for every command's `--out`.

Every file or folder algspec writes goes through here, so that the rules hold
everywhere at once:

- **Whole or nothing.** A result is written under a temporary name beside its
  target and renamed into place; a kill leaves the old result or the new one.
- **Recognisable temporaries.** A temporary is named
  `.{target}.{pid}.{random}.algspec-tmp`; whoever next claims the same target
  removes the ones whose process is gone (`remove_stale_temporaries`).
- **The umask's modes.** Finished files get `0o666 & ~umask`, folders
  `0o777 & ~umask`, as `open()` and `mkdir` would give them.
- **Only what may be replaced is replaced.** `check_target` refuses devices,
  FIFOs, sockets, a folder where a file is meant and a file where a folder is
  meant; a symlink is followed deliberately (its target is written, and the
  link stays).
- **One writer per target.** `claim` holds an exclusive lock (`fcntl.flock`)
  for the life of the work; a second process is refused with `OutputBusy`.

Errors raised here are `OutputError`s: user-facing, one line, no traceback.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal

TEMP_SUFFIX = ".algspec-tmp"
LOCK_SUFFIX = ".algspec-lock"

Kind = Literal["file", "dir"]


class OutputError(Exception):
    """A result cannot be written where the user asked: a user error, said in one line."""


class OutputBusy(OutputError):
    """Another live process holds the target."""


def current_umask() -> int:
    """The process's umask (read without changing it for longer than one call)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_mode() -> int:
    return 0o666 & ~current_umask()


def dir_mode() -> int:
    return 0o777 & ~current_umask()


def resolve(path: str | os.PathLike[str]) -> Path:
    """The path a result is written to: a symlink is followed (its target is replaced,
    the link stays), and `.`/`..` are resolved so names compare."""
    p = Path(os.path.abspath(os.fspath(path)))
    try:
        link = p.is_symlink()
    except OSError:  # a name too long, say: `check_target`'s stat says so in one line
        return p
    return Path(os.path.realpath(p)) if link else p


def _describe(st: os.stat_result) -> str:
    m = st.st_mode
    if stat.S_ISDIR(m):
        return "a folder"
    if stat.S_ISCHR(m) or stat.S_ISBLK(m):
        return "a device"
    if stat.S_ISFIFO(m):
        return "a FIFO"
    if stat.S_ISSOCK(m):
        return "a socket"
    if stat.S_ISREG(m):
        return "a file"
    return "not a regular file"


def check_target(path: str | os.PathLike[str], kind: Kind, overwrite: bool = False,
                 allow_nonempty_dir: bool = False) -> Path:
    """The resolved target, after refusing what must not be written there.

    kind "file": the target is absent or a regular file (replaced only with `overwrite`).
    kind "dir": the target is absent or a folder (one with entries only with `overwrite`
    or `allow_nonempty_dir`). Missing parents are fine; a parent that is a file is not.
    """
    shown = os.fspath(path)
    target = resolve(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise OutputError(f"cannot write {shown}: a parent of it is a file") from None
    except OSError as e:
        raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
    if st is not None:
        if kind == "file":
            if not stat.S_ISREG(st.st_mode):
                raise OutputError(f"cannot write {shown}: it is {_describe(st)}, not a file")
            if not overwrite:
                raise OutputError(f"{shown} exists (pass --overwrite to replace it)")
        else:
            if not stat.S_ISDIR(st.st_mode):
                raise OutputError(f"cannot write {shown}: it is {_describe(st)}, not a folder")
            if not (overwrite or allow_nonempty_dir) and _has_entries(target):
                raise OutputError(f"{shown} is not empty (pass --overwrite to replace it)")
    _check_parent_writable(target, shown)
    return target


def _has_entries(folder: Path) -> bool:
    try:
        return any(not e.name.endswith((TEMP_SUFFIX, LOCK_SUFFIX)) for e in os.scandir(folder))
    except OSError:
        return False


def _check_parent_writable(target: Path, shown: str) -> None:
    parent = target.parent
    while not parent.exists():
        if parent.parent == parent:
            break
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise OutputError(f"cannot write {shown}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {shown}: {parent} is not writable")
    # `access` says yes to root everywhere but read-only mounts; /proc, /sys and some
    # network file systems refuse only the write itself: try one (a temporary, removed).
    probe = temp_name(parent / "probe")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as e:
        raise OutputError(f"cannot write {shown}: cannot create files in {parent} "
                          f"({e.strerror or e})") from None
    with contextlib.suppress(OSError):
        os.unlink(probe)


def temp_name(target: Path) -> Path:
    """A fresh recognisable temporary beside `target`."""
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove temporaries of `target` left by processes that no longer run (kill -9)."""
    removed: list[Path] = []
    prefix = f".{target.name}."
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for e in entries:
        name = e.name
        if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
            continue
        middle = name[len(prefix):-len(TEMP_SUFFIX)].split(".")
        if len(middle) != 2 or not middle[0].isdigit() or _pid_alive(int(middle[0])):
            continue
        p = Path(e.path)
        with contextlib.suppress(OSError):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
            removed.append(p)
    return removed


def make_parents(target: Path, shown: str | None = None) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot write {shown or target}: {e.strerror or e}") from None


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], overwrite: bool = True) -> Iterator[Path]:
    """A fresh temporary file name beside `path`, for writers that want a name (savefig,
    zip files); when the block ends without an exception the file replaces `path` whole,
    with the umask's mode. Otherwise the temporary is removed and `path` is untouched.
    Without `overwrite`, a file another process put at `path` meanwhile is never replaced."""
    shown = os.fspath(path)
    target = check_target(path, "file", overwrite=overwrite)
    make_parents(target, shown)
    remove_stale_temporaries(target)
    tmp = temp_name(target)
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as e:
        raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
    try:
        yield tmp
        os.chmod(tmp, file_mode())
        try:
            _publish_file(tmp, target, shown, overwrite)
        except OSError as e:
            raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _publish_file(tmp: Path, target: Path, shown: str, overwrite: bool) -> None:
    """Rename `tmp` onto `target`; without `overwrite` only onto nothing (a hard link
    fails atomically where a file appeared meanwhile)."""
    if overwrite:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise OutputError(f"{shown} was written by another process meanwhile; "
                          "nothing was replaced") from None
    except OSError:  # a file system without hard links: check, then rename
        if os.path.lexists(target):
            raise OutputError(f"{shown} was written by another process meanwhile; "
                              "nothing was replaced") from None
        os.replace(tmp, target)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "w", overwrite: bool = True,
                encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary beside `path` for writing; on success it replaces `path` whole,
    with the umask's mode. On any exception the temporary is removed and `path` untouched."""
    with atomic_path(path, overwrite) as tmp:
        binary = "b" in mode
        with open(tmp, mode, encoding=None if binary else encoding) as f:
            yield f


def write_text(path: str | os.PathLike[str], text: str, overwrite: bool = True) -> Path:
    """Write a text file whole or not at all."""
    with atomic_file(path, "w", overwrite=overwrite) as f:
        f.write(text)
    return resolve(path)


@contextlib.contextmanager
def temp_dir_for(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A fresh temporary folder beside `path` (removed if the block fails or does not
    publish it with `publish_dir`)."""
    target = resolve(path)
    make_parents(target, os.fspath(path))
    remove_stale_temporaries(target)
    tmp = temp_name(target)
    try:
        os.mkdir(tmp, 0o700)
    except OSError as e:
        raise OutputError(f"cannot write {os.fspath(path)}: {e.strerror or e}") from None
    try:
        yield tmp
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def publish_dir(tmp: Path, path: str | os.PathLike[str], overwrite: bool) -> Path:
    """Rename a finished temporary folder onto `path`. Without `overwrite`, an existing
    non-empty folder (one another process published meanwhile) is never replaced; with it,
    the two are exchanged in one step where the system can (Linux `renameat2`), so a kill
    leaves the old result or the new one, never neither."""
    shown = os.fspath(path)
    target = resolve(path)
    _chmod_tree(tmp)
    if not overwrite or not os.path.lexists(target):
        try:
            os.rename(tmp, target)  # onto nothing or an empty folder only
        except OSError as e:
            if e.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise OutputError(f"{shown} was written by another process meanwhile; "
                                  "nothing was replaced") from None
            if e.errno == errno.ENOTDIR:
                raise OutputError(f"cannot write {shown}: it is not a folder") from None
            raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
        return target
    if not target.is_dir():
        raise OutputError(f"cannot write {shown}: it is not a folder")
    if _exchange(tmp, target):
        shutil.rmtree(tmp, ignore_errors=True)  # now the old result
        return target
    old = temp_name(target)
    os.rename(target, old)
    try:
        os.rename(tmp, target)
    except BaseException:
        os.rename(old, target)  # put the previous result back
        raise
    shutil.rmtree(old, ignore_errors=True)
    return target


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux `renameat2(RENAME_EXCHANGE)`); False where the
    system or file system cannot, so the caller falls back to two renames."""
    import ctypes
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                   ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), os.fspath(b))


def _chmod_tree(root: Path) -> None:
    fm, dm = file_mode(), dir_mode()
    for dirpath, dirnames, filenames in os.walk(root):
        for name, mode in [(d, dm) for d in dirnames] + [(f, fm) for f in filenames]:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):  # a link's mode is its target's: leave both alone
                os.chmod(p, mode)
    os.chmod(root, dm)


class Claim:
    """An exclusive hold on one output path, for as long as the work on it lasts."""

    def __init__(self, target: Path, lock_path: Path, fd: int) -> None:
        self.target = target
        self.lock_path = lock_path
        self._fd = fd

    def release(self) -> None:
        """Remove the lock file, then let go of it (`acquire` checks that the file it
        locked is still the one at the path, so a waiter never holds an unlinked lock)."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.lock_path)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = -1


def lock_path_for(target: Path, inside: bool) -> Path:
    """Where the lock of `target` lives: inside a folder that persists (a run folder), or
    beside a result that is renamed into place."""
    return target / LOCK_SUFFIX if inside else target.with_name(f".{target.name}{LOCK_SUFFIX}")


def acquire(path: str | os.PathLike[str], inside: bool = False) -> Claim:
    """Hold `path` exclusively, or raise `OutputBusy` naming the holder's pid."""
    shown = os.fspath(path)
    target = resolve(path)
    lock = lock_path_for(target, inside)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise OutputError(f"cannot write {shown}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f" (pid {holder})" if holder else ""
            raise OutputBusy(f"{shown} is being written by another algspec process{who}; "
                             "wait for it or choose another --out") from None
        # The file may have been unlinked by its previous holder between open and flock:
        # hold it only if the path still names the file locked.
        try:
            same = os.fstat(fd).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return Claim(target, lock, fd)
        os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def claim(path: str | os.PathLike[str], inside: bool = False,
          wait_s: float = 0.0) -> Iterator[Claim]:
    """`with claim(out): ...`: the block runs holding `out`; stale temporaries of `out`
    are removed once held. A holder is waited for up to `wait_s` seconds (for short
    writes such as a report), then `OutputBusy`. If the block fails, the folders the
    claim created (the lock's missing parents) are removed again where still empty."""
    target = resolve(path)
    lock = lock_path_for(target, inside)
    made = missing_parents(lock)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            c = acquire(path, inside)
            break
        except OutputBusy:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)
    try:
        if not inside:
            remove_stale_temporaries(c.target)
        yield c
    except BaseException:
        c.release()
        remove_empty(made)
        raise
    finally:
        c.release()


def missing_parents(path: Path) -> list[Path]:
    """The folders above `path` that do not exist yet, deepest first."""
    return [d for d in (path.parent, *path.parent.parents) if not d.exists()]


def remove_empty(folders: list[Path]) -> None:
    """Remove folders a failed write created (deepest first), where still empty."""
    for d in folders:
        with contextlib.suppress(OSError):
            d.rmdir()
