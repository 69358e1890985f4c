"""Lint samples algorithms that have no generated inputs (every datum is a hint or state)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCE = """algorithm t
nodes n
graph complete
hint node a: scalar
for k in 0 .. n {
    a[k] = 1.0
    record
}
"""


def test_lint_of_a_file_without_inputs_reports_findings_not_an_internal_error(tmp_path: Path):
    path = tmp_path / "t.alg"
    path.write_text(SOURCE)
    proc = subprocess.run([sys.executable, "-m", "algspec.cli", "lint", str(path)],
                          capture_output=True, text=True, check=False)
    assert "internal error" not in proc.stdout + proc.stderr
    assert proc.returncode == 1  # findings (W201: one node active per round), not a crash (2)
    assert "W201" in proc.stdout
