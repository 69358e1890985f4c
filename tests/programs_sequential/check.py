"""Batched-vs-single checker for tests/programs_sequential (used by tests/test_programs_sequential_match_references.py).

Run alone for the heavy sweep (n in 1, 2, 3, 5, 16; B in 1, 2, n, n + 1, 7; two seeds):
`python tests/programs_sequential/check.py [names...]`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from refs import REFERENCES

import algspec

SKIP_INPUTS = {"pos", "adj"}


def probe_dict(fb_list):
    return {p.name: p for p in fb_list}


def check_feedback(alg, fb, n, B):
    spec = alg.spec
    N = None
    ins = probe_dict(fb.features.inputs)
    hints = probe_dict(fb.features.hints)
    outs = probe_dict(fb.outputs)
    assert [k for k, v in spec.items() if v[0] == "input"] == list(ins), (list(ins),)
    assert [k for k, v in spec.items() if v[0] == "hint"] == list(hints)
    assert [k for k, v in spec.items() if v[0] == "output"] == list(outs)
    N = ins["pos"].data.shape[1]
    T = None
    lengths = np.asarray(fb.features.lengths)
    assert lengths.shape == (B,), lengths.shape
    for stage, group in (("input", ins), ("output", outs), ("hint", hints)):
        for name, p in group.items():
            _, loc, typ = spec[name]
            d = np.asarray(p.data)
            lead = (B,) if stage != "hint" else (d.shape[0], B)
            if stage == "hint":
                T = d.shape[0] if T is None else T
                assert d.shape[0] == T and T >= lengths.max(), (name, d.shape, lengths)
            base = {"node": (N,), "edge": (N, N), "graph": ()}[loc]
            if typ.startswith("categorical"):
                base = base + (d.shape[-1],)
            assert d.shape == lead + base, (name, d.shape, lead + base)
            assert d.dtype == np.float32, (name, d.dtype)
            if typ in ("pointer", "permutation"):
                assert np.all(d == np.round(d)) and d.min() >= 0 and d.max() < N, name
            if typ == "mask_one":
                assert np.all((d == 0) | (d == 1)), name
                rows = d if stage != "hint" else d[: int(lengths.min())]
                assert np.all(rows.sum(-1) == 1), (name, rows.sum(-1))
            if typ == "mask":
                assert np.all((d == 0) | (d == 1) | (d == -1)), name
    # masked-probe values are OK for scalars.
    return ins, hints, outs, lengths


def trace_sample(alg, ins, b):
    kw = {k: np.asarray(p.data[b]) for k, p in ins.items() if k not in SKIP_INPUTS}
    return kw, alg.trace(**kw)


def compare(alg, name, n, B, seed, ref):
    sampler = alg.sampler(length=n, num_samples=max(B, 4), seed=seed)
    fb = sampler.next(B)
    ins, hints, outs, lengths = check_feedback(alg, fb, n, B)
    nouts = [k for k, v in alg.spec.items() if v[0] == "output"]
    for b in range(B):
        kw, (out, probes) = trace_sample(alg, ins, b)
        if len(nouts) == 1:
            out = {nouts[0]: out}
        for k in nouts:
            got_b = np.asarray(outs[k].data[b])
            assert np.allclose(np.asarray(out[k], float), got_b, atol=1e-5), (name, n, b, k, out[k], got_b)
        Tb = int(lengths[b])
        for hs in probes["hint"].values():
            for k, h in hs.items():
                hd = np.asarray(h["data"])
                assert hd.shape[0] == Tb, (name, k, hd.shape, Tb)
                fbh = np.asarray(hints[k].data[:, b])
                assert np.allclose(hd, fbh[:Tb], atol=1e-5), (name, n, b, k)
                assert np.all(fbh[Tb:] == 0), (name, k, "padding")
        if ref is not None:
            refin = {k: v for k, v in kw.items()}
            want = ref(**refin)
            for k, v in want.items():
                got = np.asarray(out[k], float)
                assert np.allclose(got, np.asarray(v, float), atol=1e-4), (name, n, b, k, got, v, kw)
    return fb


def main(names):
    files = sorted(HERE.glob("*.alg"))
    for f in files:
        if names and f.stem not in names:
            continue
        alg = algspec.load(f)
        ref = REFERENCES.get(f.stem)
        for n in (1, 2, 3, 5, 16):
            for B in sorted({1, 2, n, n + 1, 7}):
                for seed in (0, 1):
                    try:
                        compare(alg, f.stem, n, B, seed, ref)
                    except Exception as e:  # noqa: BLE001
                        print(f"FAIL {f.stem} n={n} B={B} seed={seed}: {type(e).__name__}: {str(e)[:600]}")
                        break
        print("done", f.stem, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
