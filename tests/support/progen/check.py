"""Differential check of one generated program: algspec (batched and per sample) vs the reference.

`check_program` returns a `Verdict`: `ok`, `rejected` (outside the exact
range, see `reference.Reject`) or `fail` with the problems found.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

import numpy as np

import algspec
from algspec.diagnostics import AlgError, RuntimeFault

from .generate import gen_inputs
from .model import Program, render
from .reference import Fault, Reference, Reject, encode

PRIME = 7


@dataclass
class Verdict:
    status: str  # ok, rejected, fail
    problems: list[str] = field(default_factory=list)
    source: str = ""
    faulted: int = 0  # samples on which the reference faults (and algspec must too)

    @property
    def ok(self) -> bool:
        return self.status != "fail"


@dataclass
class Expected:
    """The reference's result for one sample, in CLRS encoding."""

    inputs: dict
    outputs: dict
    hints: list[dict]  # one dict per frame
    fault: str | None = None


def reference(prog: Program, n: int, inputs: dict[str, np.ndarray], b: int) -> Expected:
    sample = {k: v[b] for k, v in inputs.items()}
    decls = {d.name: d for d in prog.decls}
    try:
        r = Reference(prog, n, sample).run()
    except Fault as f:
        return Expected({}, {}, [], fault=f.code)

    def enc(name, v):
        d = decls.get(name)
        return np.asarray(v, np.float64) if d is None else encode(d, v)
    return Expected({k: enc(k, v) for k, v in r.inputs.items()},
                    {k: enc(k, v) for k, v in r.outputs.items()},
                    [{k: enc(k, v) for k, v in f.items()} for f in r.frames])


def compare(traj, b: int, want: Expected, label: str) -> list[str]:
    """Sample `b` of `traj` against the reference; a list of differences (first few)."""
    out = []
    L = int(traj.lengths[b])
    if L != len(want.hints):
        out.append(f"{label}: sample {b} has {L} frames, reference {len(want.hints)}")
    for k, v in want.inputs.items():
        if k not in traj.inputs or not np.array_equal(traj.inputs[k][b], v):
            out.append(f"{label}: input {k} of sample {b} differs")
    for k, v in want.outputs.items():
        got = traj.outputs[k][b]
        if not np.array_equal(got, v):
            out.append(f"{label}: output {k} of sample {b}: got {got.tolist()}, "
                       f"want {v.tolist()}")
    for t, frame in enumerate(want.hints[:L]):
        for k, v in frame.items():
            got = traj.hints[k][t, b]
            if not np.array_equal(got, v):
                out.append(f"{label}: hint {k} frame {t} of sample {b}: got {got.tolist()}, "
                           f"want {v.tolist()}")
    for k, h in traj.hints.items():
        if h[L:, b].any():
            out.append(f"{label}: hint {k} of sample {b} not zero after its {L} frames")
    return out[:6]


def _run(alg, inputs: dict, n: int, observer=None):
    try:
        return alg.run(inputs, n, observer=observer, dtype=np.float64), None
    except RuntimeFault as f:
        return None, f.diagnostic.code


def batch_sizes(n: int) -> list[int]:
    return sorted({1, 2, n, n + 1, PRIME})


def check_program(prog: Program, n: int, seed: int = 0, singles: int | None = 2,
                  observer: bool = True, sampler: bool = False) -> Verdict:
    """Batched runs at sizes 1, 2, n, n+1 and a prime, single-sample runs, against the reference.

    `singles`: how many samples also run alone (None: all). `observer`: one
    more batched run with the efficiency observer attached, which must not
    change the result. `sampler`: `alg.sample` batched vs per sample.
    """
    src = render(prog)
    v = Verdict("ok", source=src)
    try:
        alg = algspec.load_source(src, "prog.alg")
    except AlgError as e:
        v.status = "fail"
        v.problems.append("checker rejects a well-typed program: " +
                          "; ".join(d.concise() for d in e.diagnostics))
        return v
    sizes = batch_sizes(n)
    B = max(sizes)
    inputs = gen_inputs(prog, n, B, seed)
    try:
        want = [reference(prog, n, inputs, b) for b in range(B)]
    except Reject as r:
        v.status = "rejected"
        v.problems.append(str(r))
        return v
    v.faulted = sum(w.fault is not None for w in want)
    runs = [(f"batch {k}", {name: x[:k] for name, x in inputs.items()}, range(k), None)
            for k in sizes]
    picks = range(B) if singles is None else sorted({0, B - 1, *range(min(singles, B))})
    runs += [(f"sample {b} alone", {name: x[b:b + 1] for name, x in inputs.items()}, [b], None)
             for b in picks]
    if observer:
        from algspec.lint.measured import ActivityRecorder
        runs.append((f"batch {B} observed", inputs, range(B), ActivityRecorder()))
    for label, ins, samples, obs in runs:
        try:
            traj, fault = _run(alg, ins, n, obs)
        except Exception as e:  # noqa: BLE001 - an internal error is a finding too
            v.problems.append(f"{label}: {type(e).__name__}: {e}\n" +
                              "".join(traceback.format_exc(limit=-3)))
            continue
        faults = [want[b].fault for b in samples if want[b].fault]
        if faults or fault:
            if not faults or fault is None or fault not in faults:
                v.problems.append(f"{label}: algspec fault {fault}, reference faults {faults}")
            continue
        for j, b in enumerate(samples):
            v.problems += compare(traj, j, want[b], label + (f" (sample {b})" if j != b else ""))
    if sampler:
        v.problems += check_sampler(alg, n, seed)
    if v.problems:
        v.status = "fail"
    return v


def check_sampler(alg, n: int, seed: int) -> list[str]:
    """`alg.sample` in one batch equals `alg.run` on each of its generated inputs alone."""
    out = []
    B = PRIME
    try:
        batch = alg.sample(n, B, seed)
    except RuntimeFault:
        return []
    inputs = alg.generate(n, B, seed)
    for b in range(B):
        single = alg.run({k: x[b:b + 1] for k, x in inputs.items()}, n)
        L = int(single.lengths[0])
        if int(batch.lengths[b]) != L:
            out.append(f"sample(): sample {b} has {int(batch.lengths[b])} frames alone {L}")
            continue
        for k in batch.outputs:
            if not np.array_equal(batch.outputs[k][b], single.outputs[k][0]):
                out.append(f"sample(): output {k} of sample {b} differs from its run alone")
        for k in batch.hints:
            if not np.array_equal(batch.hints[k][:L, b], single.hints[k][:L, 0]):
                out.append(f"sample(): hint {k} of sample {b} differs from its run alone")
    return out[:6]
