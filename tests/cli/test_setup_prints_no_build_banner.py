"""`scripts/setup` installs without setuptools' "Editable installation" banner (pip shows
it as a BuildBackendWarning even with -q), and without hiding any other warning."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.setup_sandbox import setup_sandbox

# Stands in for .venv/bin/python: `-m pip install -e` emits, through Python's warnings
# machinery and the environment scripts/setup gives it, the build backend's two kinds of
# warning: the editable-install banner and a deprecation that must stay visible.
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  printf '#!/bin/sh\\n' > "$(dirname "$0")/algspec"; chmod +x "$(dirname "$0")/algspec"
  case "$*" in *" -e "*)
    exec {python} -c 'import warnings
warnings.warn("Editable installation.\\n!!\\nPlease be careful with folders", UserWarning)
warnings.warn("License classifiers are deprecated.", UserWarning)' ;;
  esac
  exit 0
fi
exec {python} "$@"
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="scripts/setup is a bash script and this system has no bash")
def test_setup_silences_only_the_editable_install_banner(tmp_path: Path) -> None:
    setup_sandbox(tmp_path, FAKE_PYTHON)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    r = subprocess.run(["bash", str(tmp_path / "scripts" / "setup")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={**env, "PYTHON": sys.executable}, check=False)
    assert r.returncode == 0, r.stderr
    assert "Editable installation" not in r.stdout + r.stderr
    assert "License classifiers are deprecated" in r.stderr
