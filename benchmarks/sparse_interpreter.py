"""The interpreter's two execution modes, dense and sparse, timed in the same run.

For each file and size it draws `--samples` samples (one batch, SALSA's sparse
Erdos-Renyi family) once per mode, each in a fresh process so that peak resident
memory is the draw's own, and prints seconds per sample, peak memory and the
speed-up. Both modes give the same bytes (tests/interp/test_sparse_mode_matches_dense.py);
the stored Feedback is dense in both.

Usage: nice python benchmarks/sparse_interpreter.py [--runs algorithms/salsa/bfs.alg:800 ...]
       [--samples 4] [--family sparse_er]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = ["algorithms/salsa/bfs.alg:800", "algorithms/salsa/bfs.alg:1600",
        "algorithms/parallel/bellman_ford.alg:800"]

CHILD = r"""
import json, os, resource, sys, time
import numpy as np
import algspec
from algspec.sampling import BatchSampler
path, n, family, samples, mode = sys.argv[1:6]
os.environ["ALGSPEC_INTERP_MODE"] = mode
alg = algspec.load(path)
t = time.perf_counter()
fb = BatchSampler(alg, alg.spec, int(samples), seed=0, length=int(n), family=family).next()
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "frames": int(np.max(fb.features.lengths)),
                  "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def measure(path: str, n: int, family: str, samples: int, mode: str) -> dict | None:
    """One draw in a fresh process; None if it failed (its stderr is printed)."""
    proc = subprocess.run([sys.executable, "-c", CHILD, path, str(n), family, str(samples),
                           mode], check=False, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", nargs="+", default=RUNS, help="FILE:N pairs")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--family", default="sparse_er")
    args = ap.parse_args()
    print(f"# dense vs sparse interpreter ({platform.machine()}, {args.samples} samples, "
          f"family {args.family})\n")
    print("| file | n | frames | dense s/sample | dense peak GB | sparse s/sample | "
          "sparse peak GB | speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for run in args.runs:
        path, n = run.rsplit(":", 1)
        got = {m: measure(path, int(n), args.family, args.samples, m)
               for m in ("dense", "sparse")}
        cells = []
        for m in ("dense", "sparse"):
            r = got[m]
            cells += ["failed", "-"] if r is None else \
                [f"{r['seconds'] / args.samples:.3f}", f"{r['peak_gb']:.2f}"]
        d, s = got["dense"], got["sparse"]
        speed = "-" if d is None or s is None else f"{d['seconds'] / s['seconds']:.1f}x"
        frames = next((r["frames"] for r in (d, s) if r is not None), "-")
        print(f"| {Path(path).stem} | {n} | {frames} | {' | '.join(cells)} | {speed} |",
              flush=True)


if __name__ == "__main__":
    main()
