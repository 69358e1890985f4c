"""Sampling at n up to 1600: seconds and peak memory per family, chunked against unchunked.

For each file, size and graph family it draws a fixed test set of `--samples`
samples as `algspec eval` does (`alg.batch_sampler(length=n, num_samples=S)`),
each in a fresh process so that peak resident memory is the draw's own, and
prints seconds, seconds per sample, frames and peak memory. With `--baseline`
each draw is repeated in one interpreter batch of all S samples (the chunk size
before samplers fitted their chunks to n), and the ratio of the two peaks is
printed: the memory the fitted chunks save, measured in the same run.

The samplers' edge arrays are dense N x N (float32 in a Feedback), so a set of S
samples holds S * N^2 entries per edge input whatever the family; the interpreter
runs each round over those arrays.

Usage: nice python benchmarks/sampler_at_scale.py [--files algorithms/salsa/bfs.alg]
       [--sizes 160 1600] [--families delaunay ws] [--samples 32] [--baseline]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
import numpy as np
import algspec
from algspec.sampling import BatchSampler
path, n, family, samples, chunk = sys.argv[1:6]
alg = algspec.load(path)
t = time.perf_counter()
kwargs = {} if chunk == "fit" else {"chunk_size": int(chunk)}
fb = BatchSampler(alg, alg.spec, int(samples), seed=0, length=int(n), family=family,
                  **kwargs).next()
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "frames": int(np.max(fb.features.lengths)),
                  "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def measure(path: str, n: int, family: str, samples: int, chunk: str) -> dict | None:
    """One draw in a fresh process; None if it was killed (out of memory)."""
    proc = subprocess.run([sys.executable, "-c", CHILD, path, str(n), family, str(samples),
                           chunk], check=False, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", nargs="+", default=["algorithms/salsa/bfs.alg"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[160, 1600])
    ap.add_argument("--families", nargs="+", default=["delaunay", "ws"])
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--baseline", action="store_true",
                    help="also draw all samples in one batch and print the memory ratio")
    args = ap.parse_args()
    print(f"# sampling at scale ({platform.machine()}, {args.samples} samples per set)\n")
    print("| file | family | n | frames | seconds | s/sample | peak GB | one batch GB | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        for family in args.families:
            for n in args.sizes:
                fit = measure(path, n, family, args.samples, "fit")
                if fit is None:
                    print(f"| {Path(path).stem} | {family} | {n} | failed | | | | | |")
                    continue
                one = measure(path, n, family, args.samples, str(args.samples)) \
                    if args.baseline else None
                base = "-" if one is None else f"{one['peak_gb']:.2f}"
                ratio = "-" if one is None else f"{one['peak_gb'] / fit['peak_gb']:.2f}x"
                print(f"| {Path(path).stem} | {family} | {n} | {fit['frames']} | "
                      f"{fit['seconds']:.1f} | {fit['seconds'] / args.samples:.2f} | "
                      f"{fit['peak_gb']:.2f} | {base} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
