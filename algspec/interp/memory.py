"""Allocation policy for the interpreter's large, write-once arrays.

Snapshot buffers and hint arrays are hundreds of MB (bubble sort at n = 64:
T = 2017 frames x B x n). numpy asks the kernel for transparent huge pages on
large arrays (`madvise(MADV_HUGEPAGE)`); where the kernel then compacts memory
on the fault path (THP `defrag=madvise`, the common default), a first touch
of such an array costs 2-4x more system time than with ordinary pages on a
busy machine. Measured here: filling Kosaraju's constant `A_t` hint at n = 64,
B = 256 took 1.8-3.8 s of system time with huge pages, 0.8-0.9 s without.
`small_pages()` turns numpy's huge-page advice off for the duration of a run
and restores it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

try:  # numpy >= 2
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # pragma: no cover - numpy 1.x
    try:
        from numpy.core.multiarray import _set_madvise_hugepage
    except ImportError:
        _set_madvise_hugepage = None


@contextmanager
def small_pages() -> Iterator[None]:
    """Within the block, numpy does not advise huge pages for new arrays."""
    if _set_madvise_hugepage is None:
        yield
        return
    previous = _set_madvise_hugepage(False)
    try:
        yield
    finally:
        _set_madvise_hugepage(previous)
