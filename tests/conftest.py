"""Fixtures shared across test modules."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# The pipeline stage of each test folder: `-m core` (or `scripts/test core`) is the fast
# loop from the language to lint, text and sampling, without JAX models or dm-clrs's
# processors; `nn`, `training` and `clrs_bridge` are the stages after it. Every folder of
# tests/ is listed (tests/docs/test_test_stages.py checks it), so a new folder says its stage.
STAGES = {
    "api": "core", "cli": "core", "corpus": "core", "diagnostics": "core", "docs": "core",
    "efficiency": "core", "generators": "core", "interp": "core", "language": "core",
    "lint": "core", "lowering": "core", "ops": "core", "output": "core", "programs": "core",
    "sampling": "core", "text": "core",
    "clrs_bridge": "clrs_bridge",
    "nn": "nn",
    "training": "training",
}
TESTS = Path(__file__).resolve().parent


def stage_of(path: Path) -> str:
    """The stage of a test file: its folder's entry in `STAGES` (a file directly under
    tests/ is core)."""
    relative = Path(path).resolve().relative_to(TESTS)
    return STAGES[relative.parts[0]] if len(relative.parts) > 1 else "core"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with its folder's stage, then put modules with slow tests first:
    with several workers, a long test started last would leave the others idle while it
    finishes. A module's tests stay together and in order, so its module-scoped fixtures
    (a trained run) are built once, not again after another module's tests."""
    for item in items:
        item.add_marker(stage_of(item.path))
    has_slow = {item.module for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.module not in has_slow)


@pytest.fixture(autouse=True)
def _jax_compile_cache(request: pytest.FixtureRequest) -> None:
    """A test that uses JAX compiles through the persistent cache that `algspec train` uses
    (`algspec.training.data.setup_jax`), whichever test of its worker came first: a test
    that builds dm-clrs's model directly otherwise compiles it again on every run. The
    model stages set it up first; elsewhere it is set up once a module has imported JAX."""
    if stage_of(request.node.path) in ("nn", "training") or "jax" in sys.modules:
        from algspec.training.data import setup_jax

        setup_jax()


@pytest.fixture(scope="session")
def feedback_check():
    """The one Feedback/probe checker (tests/support/feedback_check.py: `compare`, `check_feedback`,
    `check_probe`); modules may also import it as `from tests.support.feedback_check import ...`."""
    from tests.support import feedback_check
    return feedback_check


@pytest.fixture(scope="session")
def corpus():
    """The `.alg` fixtures' header expectations (tests/support/corpus_expectations.py)."""
    from tests.support import corpus_expectations
    return corpus_expectations


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """The address of a private two-CPU Ray cluster for this test session (token
    authentication off, as a local development cluster; drivers connect with
    `RAY_AUTH_MODE=disabled` too).

    It is started by `ray start --head` in a fresh process, not by `ray.init()` here:
    Ray starts its daemons with a `preexec_fn`, which runs this process's fork hooks, and
    once JAX is initialised in the test process its hook warns that a fork of a
    multithreaded process can deadlock. Its own temp dir keeps it out of `--address
    auto`'s reach, and the fixture stops exactly the processes it started.
    """
    pytest.importorskip("ray")
    ray_bin = Path(sys.executable).with_name("ray")
    if not ray_bin.exists():
        pytest.skip("the ray command is not installed")
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths are
    port = _free_port()                                # limited to about 100 characters
    proc = subprocess.Popen(
        [str(ray_bin), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"})
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            break
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.skip("a local Ray cluster did not start")
        time.sleep(0.5)
    try:
        yield address
    finally:
        _stop_tree(proc)
        shutil.rmtree(temp, ignore_errors=True)


def _stop_tree(proc: subprocess.Popen) -> None:
    """Stop a process and every process it started (Ray's workers start sessions of
    their own, so its process group alone would leave them running)."""
    import psutil

    try:
        tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        tree = []
    for p in tree:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.terminate()
    _, alive = psutil.wait_procs(tree, timeout=10)
    for p in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    psutil.wait_procs(alive, timeout=10)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
