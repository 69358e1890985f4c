"""Connecting to a Ray cluster: one clear error when none answers at an address.

Shared by the grids (`algspec experiment --launcher ray`) and split sampling
(`algspec sample --launcher ray`); ray itself is imported by the caller.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def held_stderr() -> Iterator[Callable[[], None]]:
    """Hold back what is written to file descriptor 2 (C++ logs too) inside the block;
    calling the yielded function replays it. A failed connection's retry warnings are then
    dropped for one error line, and a good connection's messages still show."""
    try:
        saved = os.dup(2)
    except OSError:
        yield lambda: None
        return
    replayed = False

    def replay() -> None:
        nonlocal replayed
        replayed = True

    with tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        os.dup2(sink.fileno(), 2)
        try:
            yield replay
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            if replayed:
                sink.seek(0)
                sys.stderr.write(sink.read().decode(errors="replace"))
                sys.stderr.flush()


class ClusterUnreachable(Exception):
    """No Ray cluster answers at the address: the message says what to do."""


def connect(ray: Any, address: str, kwargs: dict[str, Any], work: str) -> None:
    """`ray.init(address=...)`, or `ClusterUnreachable` naming the address and what to do
    when no cluster answers there (`work` is what would run: "the grid", "the set")."""
    def unreachable(why: str) -> ClusterUnreachable:
        return ClusterUnreachable(
            f"--address {address}: no Ray cluster could be reached ({why}); start one "
            "with `ray start --head` on this machine (then --address auto), or leave out "
            f"--address to run {work} on a local Ray instance (or use --jobs N without Ray)")

    why = _probe(address)  # Ray itself retries a silent host:port for minutes
    if why is not None:
        raise unreachable(why)
    with held_stderr() as replay:
        try:
            ray.init(address=address, **kwargs)
        except Exception as exc:  # noqa: BLE001 - ConnectionError, TimeoutError, RuntimeError...
            raise unreachable((str(exc).strip().splitlines() or [type(exc).__name__])[0]) \
                from None
        replay()


def _probe(address: str, timeout: float = 5.0) -> str | None:
    """Why nothing answers at a `host:port` (or `ray://host:port`) address, or None when
    something listens there or the address names no port (`auto`)."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return None
    except OSError as e:
        return f"nothing answers at {host}:{port}: {e.strerror or e}"
