"""Per-run overhead of a grid: wall time per run without and with the compile cache.

Every run of a grid is a fresh process that builds a CLRS model and compiles
one training step per training size, one `predict` for validation and one
for the test size. Seeds share all of those shapes, so with the persistent
XLA cache (`~/.cache/algspec/jax`, see `algspec.training.data`) only a
grid's first seed should pay for compiling. This script checks that the
cache really hits across processes and measures what it saves, all in one
invocation so that the ratio is not skewed by a machine that is busier at
one moment than another:

- "no cache": ALGSPEC_JAX_CACHE=off, seed 1 in a fresh process (what every
  run of a grid paid without the cache);
- "cache, cold" then "cache, warm": a fresh cache folder, seed 0 (fills it),
  then seed 1 in another process (the case of every later run of a grid).

    python benchmarks/run_overhead.py --algorithm algorithms/binary_search.alg --repeats 1

Prints a markdown table: wall time per run (process start to exit), the
run's own compile and training seconds, and the cache entries written/read.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one_run(config: dict, out: Path, cache: str) -> dict:
    """Train one run in a fresh worker process; wall time and what the run reports."""
    env = {**os.environ, "ALGSPEC_JAX_CACHE": cache}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "algspec.training.worker", "--out", str(out), json.dumps(config)],
        check=False, env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}):\n{proc.stdout[-2000:]}")
    res = json.loads((out / "result.json").read_text())
    return {"wall": wall, "compile": res["compile_seconds"], "train": res["train_seconds"],
            "test": res["test_seconds"]}


def entries(cache: Path) -> int:
    return sum(1 for _ in cache.rglob("*")) if cache.is_dir() else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithm", default="algorithms/binary_search.alg")
    ap.add_argument("--processor", default="mpnn")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=1, help="times each case is measured")
    args = ap.parse_args()

    # The paper's shapes (sizes 4..16, validation 16, test 64), few steps and
    # samples: what is measured is the overhead, not the learning.
    config = {"algorithm": args.algorithm, "processor": args.processor, "hidden": args.hidden,
              "steps": args.steps, "batch_size": 32, "train_sizes": [4, 7, 11, 13, 16],
              "val_size": 16, "test_size": 64, "train_samples": 64, "val_samples": 32,
              "test_samples": 32, "eval_batch_size": 32, "eval_every": args.steps}
    print(f"{Path(args.algorithm).stem} / {args.processor} h{args.hidden}, {args.steps} steps, "
          f"sizes 4..16, val 16, test 64; {args.repeats} repeat(s), one process per run")
    print()
    print("| case | seed | wall s/run | compile s (first step per size) | train s | test s "
          "| cache files after |")
    print("|---|---|---|---|---|---|---|", flush=True)
    walls: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="algspec-overhead-") as tmp:
        base = Path(tmp)
        for rep in range(args.repeats):
            cache = base / f"cache{rep}"
            # seed 1 without a cache is what every run of a grid paid before;
            # seed 0 fills a fresh cache; seed 1 then runs as a grid's later runs do.
            for case, seed, where in (("no cache", 1, "off"), ("cache, cold", 0, str(cache)),
                                      ("cache, warm", 1, str(cache))):
                r = one_run({**config, "seed": seed}, base / f"{rep}_{case[:8]}_{seed}", where)
                walls.setdefault(case, []).append(r["wall"])
                files = entries(cache) if where != "off" else "–"
                print(f"| {case} | {seed} | {r['wall']:.1f} | {r['compile']:.1f} | "
                      f"{r['train']:.1f} | {r['test']:.1f} | {files} |", flush=True)
    before = statistics.fmean(walls["no cache"])
    after = statistics.fmean(walls["cache, warm"])
    print()
    print(f"wall time per run: {before:.1f} s without the cache, {after:.1f} s with a warm one "
          f"({before / after:.2f}x faster)")


if __name__ == "__main__":
    main()
