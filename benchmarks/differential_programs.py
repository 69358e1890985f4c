"""Run many random `.alg` programs through the differential check.

Each program (seeded, from `tests/support/progen`) runs batched at batch sizes 1, 2,
n, n+1 and a prime, sample by sample, and with the efficiency observer, and
is compared with the reference evaluator; optionally `alg.sample` batched vs
alone too. Prints the counts of passes, rejections (outside the range where
numpy and Python agree exactly) and failures, with the kinds of failure, and
saves every failing program with its problems to `--out`.

    python benchmarks/differential_programs.py --programs 2000 --out failures/
    python benchmarks/differential_programs.py --programs 500 --avoid const-agg --sampler
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.support

from tests.support.progen.check import check_program
from tests.support.progen.generate import RandomChooser, gen_program


def kind_of(problem: str) -> str:
    """A failure's kind: its first line without numbers and names."""
    line = problem.splitlines()[0].split(": ", 1)[-1]  # without the run's label
    line = re.sub(r"(got|want) .*|\[.*", "", line)
    line = re.sub(r"`[^`]*`", "X", line)
    line = re.sub(r"\b(input|output|hint) \w+", r"\1 X", line)
    return re.sub(r"\d+(\.\d+)?", "#", line)[:100]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=200, help="how many programs")
    ap.add_argument("--seed", type=int, default=0, help="first program seed")
    ap.add_argument("--sizes", default="3,4,5,6", help="problem sizes n, cycled")
    ap.add_argument("--max-stmts", type=int, default=14, help="statement budget per program")
    ap.add_argument("--avoid", action="append", default=[],
                    help="a known bug whose trigger to steer around (e.g. const-agg)")
    ap.add_argument("--sampler", action="store_true", help="also check alg.sample")
    ap.add_argument("--faults", action="store_true",
                    help="leave some indices, divisors and defaults unguarded: faults must agree")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "progen-failures",
                    help="folder for failing programs")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    first: dict[str, int] = {}
    t0 = time.perf_counter()
    for k in range(args.programs):
        seed = args.seed + k
        n = sizes[k % len(sizes)]
        prog = gen_program(RandomChooser(seed), args.max_stmts, frozenset(args.avoid),
                           args.faults)
        v = check_program(prog, n, seed, singles=None, observer=True, sampler=args.sampler)
        counts[v.status] += 1
        counts["faulted"] += v.faulted > 0
        if v.status != "fail":
            continue
        for kd in {kind_of(p) for p in v.problems}:
            kinds[kd] += 1
            first.setdefault(kd, seed)
        args.out.mkdir(parents=True, exist_ok=True)
        notes = "\n".join("# " + line for p in v.problems[:8] for line in p.splitlines())
        (args.out / f"seed{seed}_n{n}.alg").write_text(
            f"# progen seed {seed}, n = {n}, input seed {seed}\n{notes}\n{v.source}")
    dt = time.perf_counter() - t0
    print(f"{args.programs} programs in {dt:.1f} s: {counts['ok']} passed, "
          f"{counts['rejected']} rejected (inexact), {counts['fail']} failed; "
          f"{counts['faulted']} programs fault on some sample (both sides must)")
    for kd, c in kinds.most_common():
        print(f"  {c:5d}  {kd}   (first: seed {first[kd]})")
    if counts["fail"]:
        print(f"failing programs saved to {args.out}/")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
