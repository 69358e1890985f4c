"""The one Feedback/probe checker: a program's sampled Feedback against its spec, its
per-sample traces and an independent reference.

`compare(alg, name, n, B, seed, ref)` draws `sampler(length=n).next(B)` (the whole
dataset in order when the program uses `rand()`, so each sample's rand key is known),
checks the Feedback's names, shapes, dtypes and probe encodings against `alg.spec`
(`check_feedback`, `check_probe`), re-traces every sample alone (outputs and hints
equal the batch's bit for bit, padding zero) and compares the outputs and the listed
hints with `ref`. A reference takes the parameters it names among one sample's inputs
(CLRS probe arrays; categorical and mask_one one-hot, pointers as floats), `n` and `N`,
and returns the expected outputs by spec name (pointers/classes as ints, classes and
mask_one one-hot encoded here if given as indices, masks 0/1, scalars as floats); a key
`_hints` maps hint names to their expected frames [T, ...].

Used by tests/programs/test_sequential_match_references.py,
tests/programs/test_whole_language_match_references.py and
tests/clrs_bridge/test_clrs_types_at_every_location.py. Run alone for the wide sweep over a folder
(n in 1, 2, 3, 5, 16; B in 1, 2, n, n + 1, 7; two seeds):
`python -m tests.support.feedback_check tests/corpus/language [names...]`.
"""
from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import algspec

NOT_PRIMARY = {"pos", "adj"}
LOCATION = {"node": 1, "edge": 2, "graph": 0}


def by_name(probes) -> dict:
    return {p.name: p for p in probes}


def check_probe(name: str, spec: tuple, d: np.ndarray, lead: tuple, N: int, *,
                masked: bool = False) -> None:
    """Shape, dtype and value domain of one probe array, as `spec` promises. -1 (MASKED)
    is allowed only where the declaration is `masked`."""
    _, loc, typ = spec
    base = (N,) * LOCATION[loc]
    if typ.startswith("categorical"):
        assert d.ndim == len(lead) + len(base) + 1 and d.shape[-1] >= 2, (name, d.shape)
        base = base + (d.shape[-1],)
    assert d.shape == lead + base and d.dtype == np.float32, (name, d.shape, d.dtype, lead + base)
    low = -1 if masked else 0
    if typ in ("pointer", "permutation", "should_be_permutation"):
        assert np.all(d == np.round(d)) and d.min() >= low and d.max() < N, name
    if typ in ("mask", "categorical"):
        assert np.all(np.isin(d, (-1, 0, 1))), name
    if typ == "mask_one":
        assert np.all(np.isin(d, (low, 0, 1))), name


def check_feedback(alg, fb, B: int) -> tuple[dict, dict, dict, np.ndarray]:
    """Names (the spec's, by stage, in order), lengths, and every probe's shape, dtype and
    encoding; hints share one time axis, at least the longest sample; mask_one rows sum to 1
    (hints: on the frames every sample has)."""
    ins, hints, outs = (by_name(fb.features.inputs), by_name(fb.features.hints),
                        by_name(fb.outputs))
    for stage, group in (("input", ins), ("hint", hints), ("output", outs)):
        assert list(group) == [k for k, v in alg.spec.items() if v[0] == stage], stage
    lengths = np.asarray(fb.features.lengths)
    assert lengths.shape == (B,) and lengths.dtype == np.float64 and lengths.min() >= 1, lengths
    N = ins["pos"].data.shape[1]
    masked = {d.name for d in alg.ir.decls if getattr(d, "masked", None) is not None}
    # a `mask_one?` holding none is all zeros
    masked |= {d.spec_name for d in alg.ir.decls if getattr(d, "optional", False)}
    for group, lead in ((ins, (B,)), (outs, (B,))):
        for k, p in group.items():
            d = np.asarray(p.data)
            check_probe(k, alg.spec[k], d, lead, N, masked=k in masked)
            if alg.spec[k][2] == "mask_one" and k not in masked:
                assert np.all(d.sum(-1) == 1), (k, d.sum(-1))
    T = None
    for k, p in hints.items():
        d = np.asarray(p.data)
        T = d.shape[0] if T is None else T
        assert d.shape[0] == T and T >= lengths.max(), (k, d.shape, lengths)
        check_probe(k, alg.spec[k], d, (T, B), N, masked=k in masked)
        if alg.spec[k][2] == "mask_one" and k not in masked:
            assert np.all(d[: int(lengths.min())].sum(-1) == 1), k
    return ins, hints, outs, lengths


def encode(spec: tuple, want, got: np.ndarray) -> np.ndarray:
    """A reference value in probe encoding (one-hot for classes and mask_one; a mask_one
    of None, an optional one holding `none`, all zeros)."""
    if want is None and spec[2] == "mask_one":
        return np.zeros(got.shape)
    w = np.asarray(want, dtype=float)
    if spec[2].startswith("categorical") and w.shape != got.shape:
        w = np.eye(got.shape[-1])[w.astype(int)]
    if spec[2] == "mask_one" and w.shape != got.shape:
        w = np.eye(got.shape[-1])[int(w)]
    return w


def call_reference(ref: Callable, n: int, N: int, inputs: dict[str, np.ndarray]) -> dict:
    """`ref` called with the parameters it names among `inputs`, `n` and `N`."""
    given = {"n": n, "N": N, **inputs}
    params = inspect.signature(ref).parameters
    return ref(**{k: given[k] for k in params if k in given})


def compare(alg, name: str, n: int, B: int, seed: int | None = None,
            ref: Callable | None = None, *, sampler=None, **params):
    """Check one batch of `alg` at size n (see the module doc); returns the Feedback.
    `sampler`: draw the batch from this sampler of `alg` (at size n) instead of a new one
    (`seed` and `params` are then unused)."""
    if sampler is not None:
        fb = sampler.next(B)
    elif alg.uses_rand:  # the whole dataset in order
        sampler = alg.sampler(length=n, num_samples=B, seed=seed, **params)
        fb = sampler.next()
        assert np.array_equal(sampler.last_rand_keys, sampler.dataset.rand_keys)
    else:
        sampler = alg.sampler(length=n, num_samples=max(B, 4), seed=seed, **params)
        fb = sampler.next(B)
    keys = sampler.last_rand_keys  # each sample's rand key (None without `rand()`)
    ins, hints, outs, lengths = check_feedback(alg, fb, B)
    N = ins["pos"].data.shape[1]
    nouts = [k for k, v in alg.spec.items() if v[0] == "output"]
    masked = {d.name for d in alg.ir.decls if getattr(d, "masked", None) is not None}
    # private draws are not in the Feedback: pass the inputs defined from them instead
    private = any(k not in ins for k in alg.primary_inputs)
    for b in range(B):
        given = {k: np.asarray(p.data[b]) for k, p in ins.items() if k not in NOT_PRIMARY}
        kw = {k: v for k, v in given.items() if k in alg.primary_inputs or private}
        out, probes = alg.trace(n=n, rand_key=None if keys is None else int(keys[b]), **kw)
        if not isinstance(out, dict):
            out = {nouts[0]: out}
        T = int(lengths[b])
        for k, p in outs.items():
            got = np.asarray(p.data[b], float)
            # trace's outputs hold classes and mask_one as indices; where MASKED (-1, a class
            # as minus its one-hot), any value
            want = encode(alg.spec[k], out[k], got)
            live = got >= 0 if k in masked else np.ones(got.shape, bool)
            if alg.spec[k][2].startswith("categorical"):
                live = np.broadcast_to(live.all(-1, keepdims=True), got.shape)
            assert np.allclose(want[live], got[live], atol=1e-5), (name, n, b, k)
            single = probes["output"][alg.spec[k][1]][k]["data"]
            # trace's probes are squeezed as dm-clrs's `probing.finalize` (n = 1)
            assert np.array_equal(np.float32(single).reshape(got.shape), got), (name, n, b, k)
        for loc in probes["hint"].values():
            for k, h in loc.items():
                hd = np.asarray(h["data"], float)
                fbh = np.asarray(hints[k].data[:, b], float)
                assert hd.shape[0] == T, (name, n, b, k, hd.shape, T)
                assert np.array_equal(np.float32(hd).reshape(fbh[:T].shape), fbh[:T]), \
                    (name, n, b, k)
                assert np.all(fbh[T:] == 0), (name, k, "padding")
        if ref is None:
            continue
        want = call_reference(ref, n, N, {k: v.astype(float) for k, v in given.items()})
        for k, v in want.items():
            if k == "_hints":
                continue
            got = np.asarray(outs[k].data[b], float)
            assert np.allclose(got, encode(alg.spec[k], v, got), atol=1e-4), \
                (name, n, b, k, got, v, kw)
        for k, frames in want.get("_hints", {}).items():
            got = np.asarray(hints[k].data[:T, b], float)
            w = np.stack([encode(alg.spec[k], f, got[0]) for f in frames])
            assert got.shape == w.shape and np.allclose(got, w, atol=1e-4), (name, n, b, k)
    return fb


def main(folder: str, names: list[str]) -> None:
    from tests.support.corpus_expectations import reference_of
    for f in sorted(Path(folder).glob("*.alg")):
        if names and f.stem not in names:
            continue
        alg = algspec.load(f)
        ref = reference_of(f)
        for n in (1, 2, 3, 5, 16):
            for B in sorted({1, 2, n, n + 1, 7}):
                for seed in (0, 1):
                    try:
                        compare(alg, f.stem, n, B, seed, ref)
                    except Exception as e:  # noqa: BLE001
                        print(f"FAIL {f.stem} n={n} B={B} seed={seed}: {type(e).__name__}: "
                              f"{str(e)[:600]}")
                        break
        print("done", f.stem, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
