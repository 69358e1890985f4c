"""The CLRS-30 table: per algorithm, .alg lines, static classes, samples/s vs dm-clrs.

For every file of `algorithms/clrs/` (the 30 algorithms of `clrs.CLRS_30_ALGS`)
it prints the number of non-blank, non-comment lines of the `.alg` file, the
static classes of `alg.static_efficiency()` (rounds T, capacity c, node
efficiency eta, edge efficiency epsilon) and the sampler throughput of dm-clrs
and algspec at each size.

What is timed, for both, is the first epoch as a training loop sees it:
sampler construction with `num_samples = --samples` (dm-clrs generates the whole
dataset in its constructor) plus `ceil(samples / batch)` `next()` calls. Compiling
the `.alg` file and importing dm-clrs are excluded. Each measurement runs under
a wall-clock cap (`--cap` seconds, SIGALRM): a sampler that has not finished by
then is reported as "> X/s" (fewer than samples / cap samples per second), so
dm-clrs's slow ones (matrix_chain_order, optimal_bst at n = 64) end. Each pair is
timed `--repeats` times, dm-clrs and algspec alternating, and the best kept.

Usage: nice python benchmarks/clrs30_table.py [--samples 64] [--batch-size 32]
       [--sizes 16 64] [--repeats 2] [--cap 30] [--algorithms bfs dfs ...]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import platform
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CLRS_DIR = ROOT / "algorithms" / "clrs"


class _Capped(Exception):
    """A measurement ran past its cap."""


def _on_alarm(signum, frame):
    raise _Capped


def _timed(fn, cap: float) -> float | None:
    """Seconds `fn()` took, or None when it ran past `cap` seconds (then interrupted)."""
    signal.signal(signal.SIGALRM, _on_alarm)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, cap)
    try:
        fn()
    except _Capped:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - start


def _epoch(make, samples: int, batch_size: int):
    """A thunk: build a sampler, then draw one epoch of batches from it."""
    def run() -> None:
        sampler = make()
        for _ in range(math.ceil(samples / batch_size)):
            sampler.next(batch_size)
    return run


def alg_lines(path: Path) -> int:
    """Lines of the file that are not blank and not only a comment."""
    return sum(1 for ln in path.read_text().splitlines()
               if ln.strip() and not ln.strip().startswith("#"))


def rate(times: list[float | None], samples: int, cap: float) -> str:
    done = [t for t in times if t is not None]
    if not done:
        return f"< {samples / cap:,.1f} (cap)"
    return f"{samples / min(done):,.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=64, help="dataset size (default 64)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cap", type=float, default=30.0,
                        help="seconds one measurement may take (default 30)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--algorithms", nargs="+", default=None,
                        help="CLRS names (default: all of clrs._src.specs.CLRS_30_ALGS)")
    args = parser.parse_args(argv)
    batch = min(args.batch_size, args.samples)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import clrs  # imported here so its cost is excluded from the timings
    import numpy as np
    from clrs._src.specs import CLRS_30_ALGS

    import algspec

    names = args.algorithms or list(CLRS_30_ALGS)
    print(f"# CLRS-30: {args.samples} samples, batch {batch}, best of {args.repeats}, "
          f"cap {args.cap:g} s per measurement")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.1f}, python {platform.python_version()}, "
          f"numpy {np.__version__}, dm-clrs {clrs.__version__}")
    print("# timed: sampler construction + one epoch of next() calls; "
          "'< x' = did not finish within the cap (fewer than x samples/s)\n")
    head = "| algorithm | lines | T | c | eta | epsilon |"
    rule = "|---|---|---|---|---|---|"
    for n in args.sizes:
        head += f" dm-clrs n={n} | algspec n={n} |"
        rule += "---|---|"
    print(head)
    print(rule, flush=True)
    for name in names:
        path = CLRS_DIR / f"{name}.alg"
        alg = algspec.load(path)
        eff = alg.static_efficiency()
        row = (f"| {name} | {alg_lines(path)} | {eff.T} | {eff.capacity} | "
               f"{eff.node_efficiency} | {eff.edge_efficiency} |")
        for n in args.sizes:
            ours: list[float | None] = []
            theirs: list[float | None] = []
            for _ in range(args.repeats):  # interleaved, so both see the same load
                gc.collect()
                if None not in theirs:  # once capped, it would only cap again
                    theirs.append(_timed(_epoch(lambda n=n, name=name: clrs.build_sampler(
                        name, num_samples=args.samples, length=n, seed=args.seed)[0],
                        args.samples, batch), args.cap))
                gc.collect()
                ours.append(_timed(_epoch(lambda n=n, alg=alg: alg.sampler(
                    length=n, num_samples=args.samples, seed=args.seed),
                    args.samples, batch), args.cap))
                if ours[-1] is None:
                    break
            row += f" {rate(theirs, args.samples, args.cap)} | {rate(ours, args.samples, args.cap)} |"
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
