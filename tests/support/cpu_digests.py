"""sha256 digests of everything algspec draws from a seed, printed as JSON.

`python -m tests.support.cpu_digests` (from the repository root) digests a small
seeded batch of every shipped `.alg` file, seeded draws of every named generator
(every graph family, weighted and edge-list draws, joint draws), CLRS-Text
records of a few files and a program that calls every transcendental op in a
round, and the trainer's preprocessed data. `tests/sampling/test_same_bytes_without_simd.py` runs it once with
numpy's default SIMD kernels and once with the wide ones disabled
(`NPY_DISABLE_CPU_FEATURES`) and compares: reproducible bytes must not depend
on the kernels a CPU offers.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ALGORITHMS = ROOT / "algorithms"
N = 8  # small: each file runs a couple of samples at n = 8
SAMPLER_FILES = ("clrs/graham_scan.alg", "salsa/dijkstra.alg", "parallel/boruvka.alg")
TRAIN_FILES = ("clrs/jarvis_march.alg", "clrs/insertion_sort.alg", "salsa/dijkstra.alg")
TEXT_FILES = ("bubble_sort.alg", "clrs/graham_scan.alg", "clrs/dijkstra.alg",
              "salsa/mst_prim.alg", "parallel/luby_mis.alg")

# Every op whose value is not one IEEE 754 operation, in a round over node and edge data.
# `bits` keeps the low 12 bits of the float64 fraction of `h` (exact: a power-of-two
# scaling and integer arithmetic), so a last-bit difference shows through the float32
# that samples store.
TRANSCENDENTAL = """\
algorithm transcendental_ops
nodes n
graph complete

input  node key: scalar ~ uniform(low = -3.0, high = 3.0)
input  edge W: scalar ~ erdos_renyi(p = 0.5, weighted = true, low = 0.5, high = 4.0)
output node out: scalar := 0.0
hint   node h: scalar := 0.0
hint   node bits: scalar := 0.0
state  graph t: int = 0

record
while t < 3 bound 3 {
    forall v {
        let a = (atan2(key[v], key[(v + 1) % n]) + log2(abs(key[v]) + 0.25)
            + (abs(key[v]) + 0.5) ** (key[v] / 3.0) + float(log_star(abs(key[v]) * 40.0))
            + sum((W[u, v] + 0.5) ** key[u] + atan2(W[u, v], key[u]) for u in incoming(v))
            + rand() ** 0.37 + log2(rand() + 0.001))
        h[v] = a
        bits[v] = float(int((a - floor(a)) * 4503599627370496.0) % 4096)
        out[v] = out[v] + a
    }
    t += 1
    record
}
"""


def digest(*parts: Any) -> str:
    """sha256 of arrays (dtype, shape and bytes), edge lists, strings and nested lists."""
    h = hashlib.sha256()

    def add(x: Any) -> None:
        if isinstance(x, (list, tuple)):
            h.update(b"[%d" % len(x))
            for y in x:
                add(y)
        elif isinstance(x, dict):
            add(sorted(x.items()))
        elif isinstance(x, (str, bytes)):
            h.update(x.encode() if isinstance(x, str) else x)
        elif x is None or isinstance(x, (bool, int, float)):
            h.update(repr(x).encode())
        elif hasattr(x, "dense"):  # EdgeLists: the dense array's bytes
            add(np.asarray(x.dense()))
        else:
            a = np.ascontiguousarray(np.asarray(x))
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())

    add(list(parts))
    return h.hexdigest()


def _feedback_digest(fb: Any) -> str:
    f = fb.features
    return digest([(dp.name, dp.data) for dp in f.inputs],
                  [(dp.name, dp.data) for dp in f.hints], f.lengths,
                  [(dp.name, dp.data) for dp in fb.outputs])


def _guarded(out: dict[str, str], key: str, compute: Any, *args: Any, **kwargs: Any) -> None:
    """`out[key] = compute(*args, **kwargs)`; a failure is recorded as its message (the
    test requires none)."""
    try:
        out[key] = compute(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - recorded, compared across runs
        out[key] = f"error: {type(e).__name__}: {e}"


def shipped_files() -> list[Path]:
    """Every runnable `.alg` under algorithms/ (include-only files under lib/ excluded)."""
    return sorted(p for p in ALGORITHMS.rglob("*.alg") if "lib" not in p.parts)


def _sample_digest(alg: Any, edges: str = "dense") -> str:
    traj = alg.sample(N, 2, 7, edges=edges)
    return digest(traj.inputs, traj.hints, traj.outputs, traj.lengths, traj.rand_keys)


def _sampler_digest(alg: Any, count: int = 2) -> str:
    return _feedback_digest(alg.batch_sampler(length=N, num_samples=-1, seed=7).next(count))


def file_digests(out: dict[str, str]) -> None:
    """Every shipped file's batch at n = N (edge-list storage too for salsa/); a few
    through the batch sampler, the path of datasets and training."""
    import algspec

    for path in shipped_files():
        name = str(path.relative_to(ALGORITHMS))
        alg = algspec.load(path)
        _guarded(out, f"file:{name}", _sample_digest, alg)
        if path.parent.name == "salsa":
            _guarded(out, f"sparse:{name}", _sample_digest, alg, edges="sparse")
        if name in SAMPLER_FILES:
            _guarded(out, f"sampler:{name}", _sampler_digest, alg)


def _draw_digest(draw: Any, seed: list[int], params: dict[str, Any], n: int) -> str:
    return digest(draw(np.random.default_rng(seed), 3, n, **params))


def generator_digests(out: dict[str, str]) -> None:
    from algspec.generators import GENERATORS

    for seed, (name, gen) in enumerate(GENERATORS.items()):
        variants: list[dict[str, Any]] = [{}]
        if "weighted" in gen.defaults:
            variants.append({"weighted": True})
        for param, choices in gen.names.items():
            for choice in choices[1:]:
                variants += [{param: choice}, {param: choice, "weighted": True}]
        for k, params in enumerate(variants):
            key = f"gen:{name}:{json.dumps(params, sort_keys=True)}"
            n = 12 if gen.location == "edge" else 500  # float64 draws, many values: cheap
            _guarded(out, key, _draw_digest, gen.sample, [seed, k], params, n)
            if gen.location == "edge" and gen.group is None:
                _guarded(out, key + ":sparse", _draw_digest, gen.sample_sparse, [seed, k],
                         params, n)


def text_digests(out: dict[str, str]) -> None:
    import algspec
    from algspec.text import text_records

    for name in TEXT_FILES:
        records = text_records(algspec.load(ALGORITHMS / name), 6, 2, 11)
        _guarded(out, f"text:{name}", lambda r: digest(json.dumps(list(r), sort_keys=True)),
                 records)


def _training_digest(alg: Any) -> str:
    from algspec.training.data import PRED_AS_INPUT_ALGOS, derive_seed, pad_time, preprocess

    pos_rng = np.random.RandomState(derive_seed(3, "train", N))
    spec, fb = preprocess(alg.batch_sampler(length=N, num_samples=4, seed=3).next(),
                          alg.spec, pos_rng=pos_rng, pred_as_input=alg.name in PRED_AS_INPUT_ALGOS)
    return digest(json.dumps(spec, sort_keys=True), _feedback_digest(pad_time(fb, 8)))


def training_digests(out: dict[str, str]) -> None:
    """The trainer's data path (fixed set, randomised `pos`, `pred_h` as input, padding)."""
    import algspec

    for name in TRAIN_FILES:
        _guarded(out, f"train:{name}", _training_digest, algspec.load(ALGORITHMS / name))


def op_digests(out: dict[str, str]) -> None:
    import algspec

    alg = algspec.load_source(TRANSCENDENTAL)
    _guarded(out, "ops:transcendental", _sampler_digest, alg, 32)


def all_digests() -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (file_digests, generator_digests, text_digests, training_digests, op_digests):
        part(out)
    return out


def kernel_digest() -> str:
    """numpy's own transcendental kernels on fixed points: this digest *does* change
    when the SIMD kernels change, which shows the features really were disabled."""
    x = np.random.default_rng(3).uniform(-30.0, 30.0, 20000)
    with np.errstate(all="ignore"):
        return digest([f(x) for f in (np.exp, np.log, np.log2, np.sin, np.cos, np.tanh,
                                      np.arctan, np.expm1, np.log1p)],
                      np.arctan2(x, x[::-1]), np.power(np.abs(x), x / 7.0))


def libc_digest() -> str:
    """The C library's own functions on fixed points: changes when glibc runs other code."""
    import math

    xs = np.random.default_rng(4).uniform(0.1, 30.0, 20000).tolist()
    return digest([f(x) for x in xs for f in (math.exp, math.log, math.sin, math.atan)],
                  [math.pow(x, 1.0 / y) for x, y in zip(xs, reversed(xs))])


def main() -> None:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    enabled = sorted(f for f in __cpu_dispatch__ if __cpu_features__.get(f))
    json.dump({"dispatch_enabled": enabled, "kernels": kernel_digest(), "libc": libc_digest(),
               "digests": all_digests()}, sys.stdout)


if __name__ == "__main__":
    main()
