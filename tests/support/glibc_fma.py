"""glibc runs FMA or non-FMA code for its transcendental functions by CPU; switching its
FMA variants off (`GLIBC_TUNABLES`) stands in for a CPU without them. The ops tests run
one probe program both ways and compare what it prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FMA_OFF = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"}


def printed(probe: str, extra: dict[str, str]) -> list[str]:
    """The words `probe` (Python source) prints, run in a fresh interpreter."""
    env = {**os.environ, **extra}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return out.split()


def assert_ours_unchanged_with_fma_off(probe: str) -> None:
    """`probe` prints (digest of ours, digest of the C library's): ours must not change with
    glibc's FMA code off; a C library with nothing to switch off skips."""
    ours, libc = printed(probe, {})
    ours_off, libc_off = printed(probe, FMA_OFF)
    assert ours_off == ours
    if libc_off == libc:
        pytest.skip("this CPU or C library has no FMA variant to switch off")
