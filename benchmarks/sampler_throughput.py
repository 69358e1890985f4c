"""Sampler throughput: algspec's batched sampler vs dm-clrs's own, same run, same work.

For each algorithm and size n, both samplers build a fixed dataset of
`--samples` samples with `num_samples > 0` and then serve it in batches of
`--batch-size` until every sample has been drawn once on average.  dm-clrs
generates its whole dataset in the sampler's constructor (one Python call of
the algorithm per sample), so what is timed, for both, is

    construction (dataset generation, padding) + ceil(samples / batch) next() calls

i.e. the time to hand a training loop its first epoch of `clrs.Feedback`
batches.  Compiling the `.alg` file and importing dm-clrs are excluded (both
one-off); the compile time is printed separately.  dm-clrs draws samples with
its own RNG and algspec with its generators: same distributions, different
streams, so the trajectories (and bubble sort's fixed / SCC's variable lengths)
are comparable but not identical.

The machine this runs on is usually shared and noisy, so each pair is timed
`--repeats` times (default 5), dm-clrs and algspec alternating, and the best
time of each is kept. The speed-up is best dm-clrs time / best algspec time;
the median of the per-repeat ratios is printed beside it as a check.

Usage: python benchmarks/sampler_throughput.py [--samples 256] [--batch-size 32]
       [--sizes 16 64] [--algorithms binary_search bubble_sort kosaraju] [--repeats 5]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# .alg file -> dm-clrs algorithm of which it is an exact reproduction.
PAIRS = {
    "binary_search": "binary_search",
    "bubble_sort": "bubble_sort",
    "kosaraju": "strongly_connected_components",
}


def _drain(sampler, samples: int, batch_size: int) -> None:
    for _ in range(math.ceil(samples / batch_size)):
        sampler.next(batch_size)


def time_clrs(name: str, n: int, samples: int, batch_size: int, seed: int) -> float:
    import clrs

    start = time.perf_counter()
    sampler, _ = clrs.build_sampler(name, num_samples=samples, length=n, seed=seed)
    _drain(sampler, samples, batch_size)
    return time.perf_counter() - start


def time_algspec(alg, n: int, samples: int, batch_size: int, seed: int) -> float:
    start = time.perf_counter()
    sampler = alg.sampler(length=n, num_samples=samples, seed=seed)
    _drain(sampler, samples, batch_size)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=256, help="dataset size (default 256)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--algorithms", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5,
                        help="time each sampler this many times, interleaved, and keep the "
                             "fastest (default 5)")
    args = parser.parse_args(argv)
    if args.batch_size > args.samples:
        parser.error("--batch-size must not exceed --samples")

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import clrs  # imported here so its cost is excluded from the timings
    import numpy as np

    import algspec

    print(f"# Sampler throughput: {args.samples} samples, batch {args.batch_size}, "
          f"best of {args.repeats}")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"python {platform.python_version()}, numpy {np.__version__}, dm-clrs {clrs.__version__}")
    print("# timed: sampler construction (dataset generation) + "
          f"{math.ceil(args.samples / args.batch_size)} next() calls\n")
    print("| algorithm | n | max T | dm-clrs samples/s | algspec samples/s | speed-up "
          "| median ratio |")
    print("|---|---|---|---|---|---|---|")
    summary = []
    for fname in args.algorithms:
        start = time.perf_counter()
        alg = algspec.load(ROOT / "algorithms" / f"{fname}.alg")
        compile_ms = (time.perf_counter() - start) * 1e3
        for n in args.sizes:
            clrs_times, our_times = [], []
            for _ in range(args.repeats):  # interleaved, so both see the same load
                gc.collect()
                clrs_times.append(time_clrs(PAIRS[fname], n, args.samples, args.batch_size,
                                            args.seed))
                gc.collect()
                our_times.append(time_algspec(alg, n, args.samples, args.batch_size,
                                              args.seed))
            t_clrs, t_ours = min(clrs_times), min(our_times)
            median = statistics.median(c / o for c, o in zip(clrs_times, our_times))
            steps = alg.sampler(length=n, num_samples=min(args.samples, 64),
                                seed=args.seed).max_steps
            print(f"| {fname} (compile {compile_ms:.0f} ms) | {n} | {steps} | "
                  f"{args.samples / t_clrs:,.0f} | {args.samples / t_ours:,.0f} | "
                  f"{t_clrs / t_ours:.1f}x | {median:.1f}x |", flush=True)
            summary.append((fname, PAIRS[fname], n, t_clrs / t_ours))
    print()
    for fname, clrs_name, n, ratio in summary:
        print(f"ratio {fname} vs dm-clrs {clrs_name} at n={n}: {ratio:.1f}x "
              f"(best of {args.repeats})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
