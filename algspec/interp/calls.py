"""Recursive procedures in the batched interpreter: a per-lane call stack.

An `ir.Proc` (the outside call of a recursive procedure) and each `ir.Recur`
(a recursive call) run the procedure's body for the lanes that reach them,
SIMT-style like every other statement. The host's recursion is the stack: each
invocation saves the caller's locals (one array per local, over all lanes),
binds the parameters on the calling lanes, runs the body under their mask and
restores the locals, so every lane sees its own frames. Lanes that do not call
sit the body out. Per lane, the stack depth and the invocations since the
outside call are counted and checked against `depth` and `calls` (R108), and
against the depth the host's stack holds (`HOST_FRAMES`), also R108, so that a
huge declared bound never asks Python for an unbounded recursion limit.
"""

from __future__ import annotations

import sys

import numpy as np

from algspec import ir
from algspec.interp import deadline

# The most Python frames a recursion may take (Python 3.11 keeps them off the C stack);
# the depth it allows is this over the frames one level of the procedure takes.
HOST_FRAMES = 200_000


class _Frame:
    """The state of one outside call: the procedure, its bounds and counters per lane."""

    def __init__(self, s: ir.Proc, depth: np.ndarray, calls: np.ndarray):
        self.proc = s
        self.max_depth = depth
        self.max_calls = calls
        self.depth = np.zeros_like(depth)
        self.calls = np.zeros_like(calls)
        self.per_level = _frames_per_level(s)
        self.host_depth = 1  # set by `call_proc`


def _frames_per_level(s: ir.Proc) -> int:
    """Host frames one level of the recursion may take: a few per nested block."""
    nesting = max((len(outer) for _, outer in ir.walk_statements(s.body)), default=0)
    return 8 * (nesting + 2)


def call_proc(m, s: ir.Proc, mask: np.ndarray) -> None:
    """Run an outside call of a recursive procedure on the lanes in `mask`."""
    frames = getattr(m, "proc_frames", None)
    if frames is None:
        frames = m.proc_frames = {}
    outer = frames.get(s.name)
    frame = _Frame(s, m._bound(s, s.depth), m._bound(s, s.calls))
    frames[s.name] = frame
    # Each level of the .alg recursion takes a few host frames per nested block: raise
    # Python's limit for the depth this call may reach, never past `HOST_FRAMES`.
    declared = int(frame.max_depth[mask].max(initial=0))
    frame.host_depth = max(1, (HOST_FRAMES - 3000) // frame.per_level)
    need = frame.per_level * min(declared, frame.host_depth) + 3000
    if sys.getrecursionlimit() < need:
        sys.setrecursionlimit(need)
    try:
        _invoke(m, frame, s, s.args, mask)
    finally:
        if outer is None:
            del frames[s.name]
        else:
            frames[s.name] = outer


def recur(m, s: ir.Recur, mask: np.ndarray) -> None:
    """A recursive call: a new frame of the enclosing invocation's procedure."""
    frame = m.proc_frames[s.name]
    _invoke(m, frame, s, s.args, mask)


def _invoke(m, frame: _Frame, s: ir.Statement, args: list[ir.Expr], mask: np.ndarray) -> None:
    values = [m.eval(a, 0, mask) for a in args]
    frame.depth += mask
    frame.calls += mask
    m.stmt = s
    deadline.check(m.prog, s, frame.calls, m.n)
    over = mask & (frame.depth > frame.max_depth)
    if over.any():
        m.fault("R108", f"recursion deeper than its bound: more than "
                f"{int(frame.max_depth[over][0])} nested calls of `{_name(frame)}`", over)
    over = mask & (frame.calls > frame.max_calls)
    if over.any():
        m.fault("R108", f"more than {int(frame.max_calls[over][0])} calls of `{_name(frame)}` "
                "in one outside call", over)
    over = mask & (frame.depth > frame.host_depth)
    if over.any():  # within the declared bound, beyond what the interpreter's stack holds
        m.fault("R108", f"recursion deeper than the interpreter runs: more than "
                f"{frame.host_depth} nested calls of `{_name(frame)}`", over)
    saved = dict(m.locals)
    for name, v in zip(frame.proc.params, values):
        old = m.locals.get(name)
        v = np.broadcast_to(v, (m.B,))
        m.locals[name] = v.copy() if old is None else np.where(mask, v, old)
    m.block(frame.proc.body, mask, 0)
    m.locals = saved
    frame.depth -= mask


def _name(frame: _Frame) -> str:
    return frame.proc.name.split("#", 1)[0]
