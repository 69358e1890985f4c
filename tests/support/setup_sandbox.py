"""A copy of `scripts/setup` in a scratch project whose `.venv/bin/python` is a stand-in
script: tests run the real setup logic without installing anything."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def setup_sandbox(tmp_path: Path, fake_python: str) -> Path:
    """The scratch project's root; `fake_python` is formatted with `python=` the real one."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup", tmp_path / "scripts" / "setup")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    fake = venv_bin / "python"
    fake.write_text(fake_python.format(python=sys.executable))
    fake.chmod(0o755)
    return tmp_path
