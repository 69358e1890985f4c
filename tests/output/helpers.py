"""Shared pieces of the output tests: the CLI in-process, a small program, dead pids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

# A small program that is not in algorithms/: every processor compares its value with a
# threshold (one hint, one output).
THRESHOLD_ALG = """\
algorithm threshold_mark
nodes n
graph empty

input  node  x: scalar ~ uniform(low = 0.0, high = 1.0)
input  graph t: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
hint   node  above_h: mask
output node  above: mask

record
forall v { above_h[v] = x[v] > t }
record
forall v { above[v] = above_h[v] }
"""


def program(folder: Path) -> Path:
    """THRESHOLD_ALG written into `folder`."""
    p = folder / "threshold.alg"
    p.write_text(THRESHOLD_ALG)
    return p


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def one_error_line(r, codes=(1, 2)) -> str:
    """One `error:` line on stderr, an expected exit status, never a traceback."""
    assert r.exit_code in codes, (r.exit_code, r.output)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.output
    return lines[0]


def dead_pid() -> int:
    """The pid of a process that has ended (reaped)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid
