"""Modules that moved into packages by pipeline stage keep their old import path for one
release: the same module object, with a DeprecationWarning naming the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from algspec.process.moved_modules import MOVED

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module_with_a_warning(old: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"has moved to {MOVED[old]};"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


def test_from_algspec_import_an_old_name_in_a_fresh_process() -> None:
    code = """
import warnings
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    from algspec import ops
from algspec.ir import ops as new
print(ops is new, [str(w.message) for w in seen])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.startswith("True") and "algspec.ops has moved to algspec.ir.ops" in out


def test_no_module_of_the_project_imports_an_old_path() -> None:
    for path in [*ROOT.glob("algspec/**/*.py"), *ROOT.glob("tests/**/*.py"),
                 *ROOT.glob("benchmarks/*.py"), *ROOT.glob("docs/*.md")]:
        if path.name in ("moved_modules.py", Path(__file__).name):
            continue
        text = path.read_text(encoding="utf-8")
        for old in MOVED:
            assert f"import {old}\n" not in text and f"from {old} import" not in text, \
                (path, old)
