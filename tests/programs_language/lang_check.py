"""Checks one tests/programs_language program against its reference, batched and one at a time.

`compare(alg, name, n, B, seed)` draws `sampler(length=n).next(B)`, checks the
Feedback's names, shapes, dtypes and probe encodings against `alg.spec`,
re-traces every sample alone (outputs and hints equal the batch's, padding
zero) and compares outputs and listed hints with `lang_refs.REFERENCES[name]`.
Run alone for a wider sweep: `python tests/programs_language/lang_check.py [names...]`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from lang_refs import REFERENCES

import algspec

NOT_PRIMARY = {"pos", "adj"}


def by_name(probes) -> dict:
    return {p.name: p for p in probes}


def check_probe(name: str, spec: tuple, d: np.ndarray, lead: tuple, N: int) -> None:
    """Shape, dtype and value domain of one probe array, as `spec` promises."""
    _, loc, typ = spec
    base = {"node": (N,), "edge": (N, N), "graph": ()}[loc]
    if typ == "categorical":
        assert d.ndim == len(lead) + len(base) + 1, (name, d.shape)
        base = base + (d.shape[-1],)
    assert d.shape == lead + base and d.dtype == np.float32, (name, d.shape, d.dtype, lead + base)
    if typ in ("pointer", "permutation"):
        assert np.all(d == np.round(d)) and d.min() >= -1 and d.max() < N, name
    if typ in ("mask", "mask_one", "categorical"):
        assert np.all(np.isin(d, (-1, 0, 1))), name


def check_feedback(alg, fb, B: int) -> tuple[dict, dict, dict, np.ndarray]:
    ins, hints, outs = (by_name(fb.features.inputs), by_name(fb.features.hints),
                        by_name(fb.outputs))
    for stage, group in (("input", ins), ("hint", hints), ("output", outs)):
        assert list(group) == [k for k, v in alg.spec.items() if v[0] == stage], stage
    lengths = np.asarray(fb.features.lengths)
    assert lengths.shape == (B,) and lengths.dtype == np.float64 and lengths.min() >= 1
    N = ins["pos"].data.shape[1]
    for group, lead in ((ins, (B,)), (outs, (B,))):
        for k, p in group.items():
            check_probe(k, alg.spec[k], np.asarray(p.data), lead, N)
    for k, p in hints.items():
        d = np.asarray(p.data)
        assert d.shape[0] >= lengths.max(), (k, d.shape, lengths)
        check_probe(k, alg.spec[k], d, (d.shape[0], B), N)
        if alg.spec[k][2] == "mask_one":
            T = int(lengths.min())
            assert np.all(d[:T].sum(-1) == 1), k
    return ins, hints, outs, lengths


def encode(spec: tuple, want, got: np.ndarray) -> np.ndarray:
    """A reference value in probe encoding (one-hot for classes and mask_one)."""
    w = np.asarray(want, dtype=float)
    if spec[2] == "categorical" and w.shape != got.shape:
        w = np.eye(got.shape[-1])[w.astype(int)]
    if spec[2] == "mask_one" and w.shape != got.shape:
        w = np.eye(got.shape[-1])[int(w)]
    return w


def compare(alg, name: str, n: int, B: int, seed: int, **params) -> None:
    if alg.uses_rand:  # the whole dataset in order, so each sample's rand key is known
        sampler = alg.sampler(length=n, num_samples=B, seed=seed, **params)
        fb, keys = sampler.next(), sampler.dataset.rand_keys
    else:
        fb = alg.sampler(length=n, num_samples=max(B, 4), seed=seed, **params).next(B)
        keys = None
    ins, hints, outs, lengths = check_feedback(alg, fb, B)
    N = ins["pos"].data.shape[1]
    ref = REFERENCES[name]
    for b in range(B):
        # private draws are not in the Feedback: pass the inputs defined from them instead
        private = any(k not in ins for k in alg.primary_inputs)
        kw = {k: np.asarray(p.data[b]) for k, p in ins.items() if k not in NOT_PRIMARY
              and (k in alg.primary_inputs or private)}
        out, probes = alg.trace(n=n, rand_key=None if keys is None else int(keys[b]), **kw)
        if not isinstance(out, dict):
            out = {next(k for k, v in alg.spec.items() if v[0] == "output"): out}
        T = int(lengths[b])
        for k, p in outs.items():
            got = np.asarray(p.data[b], float)
            single = probes["output"][alg.spec[k][1]][k]["data"]
            # trace's probes are squeezed as dm-clrs's `probing.finalize` (n = 1)
            assert np.array_equal(np.float32(single).reshape(got.shape), got), \
                (name, n, b, k)
        for loc in probes["hint"].values():
            for k, h in loc.items():
                hd = np.asarray(h["data"], float)
                fbh = np.asarray(hints[k].data[:, b], float)
                assert hd.shape[0] == T, (name, n, b, k)
                assert np.array_equal(np.float32(hd).reshape(fbh[:T].shape), fbh[:T]), (name, n, b, k)
                assert np.all(fbh[T:] == 0), (name, k, "padding")
        want = ref(n=n, N=N, **{k: v.astype(float) for k, v in kw.items()})
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


def main(names: list[str]) -> None:
    for f in sorted(HERE.glob("*.alg")):
        if names and f.stem not in names:
            continue
        alg = algspec.load(f)
        for n in (1, 2, 3, 5, 16):
            for B in (1, 2, 7):
                try:
                    compare(alg, f.stem, n, B, seed=n * 10 + B)
                except Exception as e:  # noqa: BLE001
                    print(f"FAIL {f.stem} n={n} B={B}: {type(e).__name__}: {str(e)[:400]}")
                    break
        print("done", f.stem, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
