"""Ctrl-C in long commands: held back while compiled code runs, reported in one line.

Two pieces, used by `train`, `eval`, `experiment` and the sampling commands:

- `DeferredInterrupt` holds SIGINT back inside `hold()` (XLA must not be
  interrupted mid-call: that can crash the process) and raises it at a safe
  point (`check()`, or the end of the outermost `hold()`). An exception raised
  while an interrupt is pending (a compiler subprocess killed by the same
  Ctrl-C: `JaxRuntimeError: ptxas exited ...`) is the interrupt, not a failure.
- `caused_by_interrupt(exc)` tells an exception that a Ctrl-C caused (a library
  wrapped it) from a bug; the CLI's `cli_args.reported` turns either into the
  command's one `interrupted: ...` line and exit status 130.

`ignore_from_now()` is for the moment a command's results are written: a
Ctrl-C after that is dropped silently, so it can neither lose a finished
result nor print a traceback from interpreter teardown (XLA's gc callbacks).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

INTERRUPTED = 130  # the shell's exit status for a process stopped by SIGINT


class _InterruptState:
    """Whether SIGINT came during this command, and whether its one line was printed."""

    seen = False
    reported = False


INTERRUPT = _InterruptState()


def caused_by_interrupt(exc: BaseException) -> bool:
    """True when `exc` is, wraps or followed a Ctrl-C (`cli_args.recording_sigint` and
    `DeferredInterrupt` remember one that came)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return INTERRUPT.seen


class _Ignoring:
    """Whether Ctrl-C is ignored until the process exits (see `ignore_from_now`)."""

    on = False


IGNORING = _Ignoring()


def ignore_from_now() -> None:
    """Ignore SIGINT from now on (the work is done and written): until the process exits
    in the `algspec` console script, until the command returns when it runs in-process."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        IGNORING.on = os.path.basename(sys.argv[0] or "").startswith("algspec")


def _mark_seen() -> None:
    """Remember that a Ctrl-C came (`caused_by_interrupt` tells wrapped interrupts from bugs)."""
    INTERRUPT.seen = True


def clear_terminal_line(stream=None) -> None:
    """Erase a progress bar's half-drawn line before a message (terminals only)."""
    stream = sys.stderr if stream is None else stream
    with contextlib.suppress(AttributeError, ValueError, OSError):
        if stream.isatty():
            stream.write("\r\x1b[K")
            stream.flush()


class DeferredInterrupt:
    """Hold back Ctrl-C while compiled code runs, and raise it at a safe point.

    Inside `hold()` (nested holds count as one), SIGINT only records that it
    came and calls `on_pending()` (e.g. a progress bar's "stopping" note: the
    one line is printed when the command stops). `check()` raises the
    KeyboardInterrupt at a point where the caller's state is whole. A second
    Ctrl-C while held stops the process at once (exit 130) after printing
    `interrupted: {on_force()}`: compiling can take minutes, and what is kept
    is what was written atomically. Outside the main thread (signals cannot be
    caught there) holding is a no-op.
    """

    def __init__(self, what: str = "the current step",
                 on_force: Callable[[], str] | None = None,
                 on_pending: Callable[[], None] | None = None) -> None:
        self.pending = False
        self.what = what
        self.on_force = on_force
        self.on_pending = on_pending
        self._depth = 0

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        _mark_seen()
        if self.pending:  # the second Ctrl-C: the user will not wait for the compiler
            note = self.on_force() if self.on_force else (
                f"stopped at once, during {self.what}; what it was writing is left unfinished "
                "(finished results are kept): run the same command again to resume")
            clear_terminal_line()
            print(f"interrupted: {note}", file=sys.stderr, flush=True)
            os._exit(INTERRUPTED)
        self.pending = True
        if self.on_pending is not None:
            with contextlib.suppress(Exception):
                self.on_pending()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Defer SIGINT for the duration of the block, then raise it if it came. An
        exception raised while one is pending is raised as the KeyboardInterrupt."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        outermost = self._depth == 0
        previous = signal.signal(signal.SIGINT, self._handler) if outermost else None
        self._depth += 1
        try:
            yield
        except KeyboardInterrupt:
            raise
        except Exception as exc:
            if self.pending:
                self.pending = False
                raise KeyboardInterrupt from exc
            raise
        finally:
            self._depth -= 1
            if outermost:
                signal.signal(signal.SIGINT, previous)
        if outermost:
            self.check()

    def check(self) -> None:
        """Raise the deferred KeyboardInterrupt, if one came."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt
