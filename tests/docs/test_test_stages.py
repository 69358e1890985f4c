"""Each test folder belongs to one pipeline stage, and `scripts/test STAGE` runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import STAGES, stage_of

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def test_every_test_folder_names_its_stage() -> None:
    folders = {p.name for p in TESTS.iterdir()
               if p.is_dir() and p.name != "support" and any(p.rglob("test_*.py"))}
    assert folders == set(STAGES), "add the new folder to tests/conftest.py's STAGES"


def test_stages_are_declared_markers() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for stage in set(STAGES.values()):
        assert f'"{stage}: ' in text


def test_a_test_file_takes_its_folder_stage() -> None:
    assert stage_of(TESTS / "nn" / "test_x.py") == "nn"
    assert stage_of(TESTS / "language" / "deep" / "test_x.py") == "core"
    assert stage_of(TESTS / "test_top.py") == "core"


def test_a_stage_marker_selects_only_its_folders() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-m", "nn",
         "tests/nn", "tests/ops"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
    files = {line.split("::")[0] for line in out.stdout.splitlines() if "::" in line}
    assert files and all(f.startswith("tests/nn/") for f in files), out.stdout[-2000:]
