"""Allocation policy for the interpreter's large, write-once arrays.

Snapshot buffers and hint arrays are hundreds of MB (bubble sort at n = 64:
T = 2017 frames x B x n). numpy asks the kernel for transparent huge pages on
large arrays (`madvise(MADV_HUGEPAGE)`); where the kernel then compacts memory
on the fault path (THP `defrag=madvise`, the common default), a first touch
of such an array costs 2-4x more system time than with ordinary pages on a
busy machine. Measured here: filling Kosaraju's constant `A_t` hint at n = 64,
B = 256 took 1.8-3.8 s of system time with huge pages, 0.8-0.9 s without.
`small_pages()` turns numpy's huge-page advice off for the duration of a run
and restores it afterwards. `refuse_beyond_memory` and `check_batch_fits` refuse, up
front, an allocation that cannot fit this machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from algspec import ir
from algspec.diagnostics import RuntimeFault, Span
from algspec.process.memory_budget import TooLarge

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


class BeyondMemory(RuntimeFault, TooLarge):
    """R115 at the file's `nodes` line: a run-time fault (lint reports it as a finding of
    that file and goes on) and a `TooLarge` (commands say nothing was drawn or written).
    It concerns the whole batch, so it names no sample."""

    def __init__(self, message: str, prog: ir.Program) -> None:
        super().__init__("R115", message, prog.nodes.span or Span(), 0, path=prog.path,
                         help="try a smaller size or a smaller batch")
        self.diagnostic = self.diagnostic.model_copy(update={"message": message})
        self.args = (self.diagnostic.concise_block(),)


def refuse_beyond_memory(need: float, what: str, prog: ir.Program) -> None:
    """Raise `BeyondMemory` when `need` bytes exceed the memory available, before numpy
    tries: a run that cannot fit (`nodes n + 10**9`, a loop recording 10**12 frames) fails
    at once with its cause, not after filling the machine."""
    from algspec.process.memory_budget import available_bytes, gigabytes
    avail = available_bytes()
    if avail is None or need <= avail:
        return
    raise BeyondMemory(f"{what} needs about {gigabytes(need)} of memory, more than the "
                       f"{gigabytes(avail)} available", prog)


def check_batch_fits(prog: ir.Program, B: int, n: int, N: int,
                     dense_edge_inputs: int = 0) -> None:
    """The least a batch of B samples on N nodes holds must fit before the run allocates
    it: each node datum, each edge input given as an array (held N x N), and on the
    complete graph (always run dense) its N x N mask and each edge datum the run computes."""
    node_data = sum(1 for d in prog.decls if d.loc == ir.Loc.NODE) + 1  # + `pos`
    need = float(B) * N * 8 * node_data + float(B) * N * N * dense_edge_inputs
    if prog.graph.mask_name is None:
        per_edge = 1 + sum(8 if d.dtype != ir.DType.BOOL else 1 for d in prog.decls
                           if d.loc == ir.Loc.EDGE and d.stage != ir.Stage.INPUT)
        need += float(B) * N * N * per_edge
    refuse_beyond_memory(need, f"a batch of {B} at n = {n} on N = {N:,} nodes", prog)


def available_bytes_or_inf() -> float:
    """The memory available to this process (inf where it cannot be read)."""
    from algspec.process.memory_budget import available_bytes
    avail = available_bytes()
    return float("inf") if avail is None else float(avail)
