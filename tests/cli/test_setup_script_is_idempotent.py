"""`scripts/setup` installs once per pyproject.toml: a second call does nothing (no pip,
no output), a changed pyproject.toml installs again."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.setup_sandbox import setup_sandbox

# Stands in for .venv/bin/python: logs pip calls, installs an `algspec` script, and runs
# the real interpreter for anything else (the stamp's hash).
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  echo "pip $*" >> "$(dirname "$0")/../pip.log"
  printf '#!/bin/sh\\n' > "$(dirname "$0")/algspec"; chmod +x "$(dirname "$0")/algspec"
  exit 0
fi
exec {python} "$@"
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="scripts/setup is a bash script and this system has no bash")
def test_setup_is_a_no_op_until_pyproject_changes(tmp_path: Path) -> None:
    import sys

    setup_sandbox(tmp_path, FAKE_PYTHON)

    def setup() -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(tmp_path / "scripts" / "setup")], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHON": sys.executable}, check=False)

    def pip_calls() -> int:
        log = tmp_path / ".venv" / "pip.log"
        return len(log.read_text().splitlines()) if log.exists() else 0

    first = setup()
    assert first.returncode == 0, first.stderr
    assert pip_calls() == 2  # pip itself, then algspec
    again = setup()
    assert again.returncode == 0 and again.stdout == again.stderr == ""
    assert pip_calls() == 2, "nothing reinstalled"
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '2'\n")
    assert setup().returncode == 0 and pip_calls() == 4, "a changed pyproject reinstalls"
    assert setup().returncode == 0 and pip_calls() == 4
