"""`algspec sample --jobs K`: seconds to draw one fixed set in one process and in K, same run.

Times `algspec.sampling.dataset.sample_dataset` (what `algspec sample` draws before it writes), for
one process and for each `--jobs` value, interleaved `--repeats` times on a machine that
is usually shared and noisy; the best time of each is kept and the speed-up is best
one-process time / best K-process time. The K-process time includes starting the worker
processes (a fresh interpreter each) and the parent's walk through the seeded stream.
Every K-process set is checked to be the one-process set, byte for byte. The CPU
column adds the parent's and its workers' CPU seconds: it does not depend on what else
the machine runs, as the wall-clock time does.

A set of one chunk (up to 256 samples at n <= 512) is split inside the chunk, and a
batched interpreter's cost per step hardly falls with the batch, so each of K
processes costs more than 1/K of one; sets of several chunks split between chunks.

Usage: python benchmarks/sample_jobs.py [--file algorithms/clrs/quicksort.alg] [--length 48]
       [--samples 256 1024] [--jobs 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _fingerprint(traj) -> bytes:
    parts = [traj.lengths.tobytes()]
    for group in ("inputs", "outputs", "hints"):
        parts += [v.tobytes() for v in getattr(traj, group).values()]
    if traj.rand_keys is not None:
        parts.append(traj.rand_keys.tobytes())
    return b"".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", default=str(ROOT / "algorithms" / "clrs" / "quicksort.alg"))
    parser.add_argument("--length", type=int, default=48)
    parser.add_argument("--samples", type=int, nargs="+", default=[256])
    parser.add_argument("--jobs", type=int, nargs="+", default=[2])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import algspec
    from algspec.sampling.dataset import fitting_chunk, sample_dataset

    alg = algspec.load(args.file)
    chunk = fitting_chunk(args.length)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load "
          f"average {os.getloadavg()[0]:.1f}; {alg.name} at n={args.length} (chunk {chunk}), "
          f"best of {args.repeats}")
    print("| samples | jobs | seconds | CPU seconds | samples/s | speed-up vs 1 | same bytes |")
    print("|---|---|---|---|---|---|---|")
    for samples in args.samples:
        best: dict[int, tuple[float, float]] = {}
        reference = None
        for _ in range(args.repeats):
            for jobs in [1, *args.jobs]:
                cpu0 = _cpu()
                start = time.perf_counter()
                traj = sample_dataset(alg, args.length, samples, args.seed, {}, chunk,
                                      jobs=jobs)
                timed = (time.perf_counter() - start, _cpu() - cpu0)
                best[jobs] = min(best.get(jobs, timed), timed)
                if jobs == 1:
                    reference = _fingerprint(traj)
                elif _fingerprint(traj) != reference:
                    print(f"error: --jobs {jobs} drew another set", file=sys.stderr)
                    return 1
        for jobs in [1, *args.jobs]:
            seconds, cpu = best[jobs]
            print(f"| {samples} | {jobs} | {seconds:.2f} | {cpu:.2f} | {samples / seconds:.0f} "
                  f"| {best[1][0] / seconds:.2f}x | yes |", flush=True)
    print(f"# load average after: {os.getloadavg()[0]:.1f}")
    return 0


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
