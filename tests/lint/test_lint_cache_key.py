"""The lint cache is keyed by all of algspec's code: an edit anywhere in the pipeline
(language, lowering, IR, interpreter) gives a new key, so a fixed message is not served
stale from the cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import algspec
from algspec.lint import cache

PACKAGE = Path(algspec.__file__).resolve().parent


@pytest.mark.parametrize("module", ["lowering/expressions.py", "interp/runtime.py",
                                    "language/grammar.lark", "lint/cache.py"])
def test_an_edit_to_any_algspec_module_changes_the_cache_key(module: str) -> None:
    path = PACKAGE / module

    def key() -> str:  # the fingerprint is taken once per process: take it afresh
        cache.code_fingerprint.cache_clear()
        return cache.key("algorithm a\n", "a.alg", False)

    before = key()
    st = path.stat()
    try:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        assert key() != before
    finally:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert key() == before
