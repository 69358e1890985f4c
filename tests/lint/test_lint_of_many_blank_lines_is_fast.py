"""The lint cache's key finds `include` lines in time linear in the file: a file of
many blank lines (a hostile or broken file) is keyed in milliseconds, not minutes (a
`^\\s*` that ran across the blank lines from every line start was quadratic)."""

from __future__ import annotations

import time

from algspec.lint import cache


def test_the_cache_key_of_many_blank_lines_takes_milliseconds() -> None:
    source = "\n" * 200_000 + "\t \n" * 50_000 + 'include "' + "x" * 100_000
    start = time.perf_counter()
    cache.key(source, "blank.alg", False)
    assert time.perf_counter() - start < 2.0  # quadratic: minutes


def test_the_cache_key_still_reads_includes(tmp_path) -> None:
    lib = tmp_path / "lib.alg"
    lib.write_text("proc p(i) { }\n")
    source = '  include "lib.alg"\nalgorithm t\n'
    before = cache.key(source, str(tmp_path / "t.alg"), False)
    lib.write_text("proc p(i) { }\n# changed\n")
    assert cache.key(source, str(tmp_path / "t.alg"), False) != before
