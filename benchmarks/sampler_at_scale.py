"""Sampling at SALSA-CLRS's scale: algspec against dm-clrs's own sampler, and the parallel files.

One run prints three tables and the goal lines of the sparse-sampling work:

1. For each SALSA-CLRS file (algorithms/salsa/: bfs, dijkstra, mst_prim, fast_mis,
   eccentricity, dfs), family and size: the seconds, samples/s and peak resident
   memory of drawing one fixed set of `--samples` samples with algspec
   (`BatchSampler(alg, alg.spec, S, seed=0, length=n, family=F, edges="sparse")
   .next()`) and with dm-clrs's own sampler
   (`clrs.build_sampler(name, num_samples=S, length=n, seed=0, p=(p,)).next()`)
   where dm-clrs has one (bfs, dijkstra, mst_prim, dfs; "-" for the others), and the
   ratios. dm-clrs draws its own G(n, p) whatever the family, with p set so that
   its graphs have the mean degree of algspec's at that family and size: its
   undirected samplers keep an edge when two Bernoulli(p) draws both hit
   (`mat *= mat.T`), so p = sqrt(q), its directed `dfs` p = q, where q = algspec's
   mean degree / (n - 1), measured on 4 of the file's graphs. Each table row says
   which graphs each side drew, and the mean degree dm-clrs's really had.
2. Seconds per sample of the synchronous parallel files (algorithms/parallel/
   bellman_ford, bfs_sync, boruvka) at `--parallel-sizes`.
3. The goals, from this run's own numbers: BFS at n = 1600 against dm-clrs, peak
   memory of 32 BFS samples at n = 1600, synchronous Bellman-Ford at n = 800, and
   SALSA-CLRS's test protocol (3 families x n in 16, 80, 160, 800, 1600 x 1,000
   samples) estimated for each file from the measured seconds per sample, in one
   process and with `algspec sample --jobs` (at best one process / min(jobs, cores)).

Each draw runs in a fresh interpreter, so that its peak resident memory (VmHWM) is
its own; dm-clrs is imported on both sides, and `algspec.load` and one untimed draw
of one sample at n = 8 (lazy imports such as scipy's Delaunay) done before the timer,
so both peaks include the imports (about 0.75 GB for dm-clrs, TensorFlow and JAX),
printed apart in the "imports GB" columns. `--clrs-p literal` gives dm-clrs
algspec's edge probability q itself (so its undirected graphs have q^2: the
comparison as first measured, on far sparser graphs with fewer BFS levels). `--max-seconds X` kills a draw after X
seconds (the imports not counted) and prints "> X s". `--quick` (n = 64 and 160, 4
samples, a smoke run) forks each draw from one process that has done the imports
(`--fork`), which saves the imports' seconds per draw; a forked child's peak is then
the imports' resident memory at the fork plus the child's own growth. `--baseline`
also draws each algspec set in one interpreter batch of all S samples (no fitted
chunks) and prints the two peaks.

Usage: nice python benchmarks/sampler_at_scale.py [--quick] [--samples 32]
       [--sizes 64 160 800 1600] [--parallel-sizes 160 800 1600]
       [--families sparse_er ws delaunay] [--files algorithms/salsa/bfs.alg ...]
       [--parallel-files algorithms/parallel/bellman_ford.alg ...] [--max-seconds 600]
       [--jobs 2] [--fork] [--baseline]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from algspec.training.grid_progress import duration_text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # dm-clrs imports TensorFlow

SALSA = ["bfs", "dijkstra", "mst_prim", "fast_mis", "eccentricity", "dfs"]
PARALLEL = ["bellman_ford", "bfs_sync", "boruvka"]
CLRS_NAME = {"bfs": "bfs", "dijkstra": "dijkstra", "mst_prim": "mst_prim", "dfs": "dfs"}
CLRS_DIRECTED = {"dfs"}  # dm-clrs's DfsSampler draws directed graphs; the others mat * mat.T
PROTOCOL_SIZES = (16, 80, 160, 800, 1600)
PROTOCOL_SAMPLES = 1000
PROTOCOL_FAMILIES = 3
DEGREE_PROBE = 4  # graphs the mean degree is measured on
WARM_N = 8  # the size of the untimed warm-up draw before each timed one

GOAL_SPEEDUP = 10.0
GOAL_PEAK_GB = 1.5
GOAL_BF_SECONDS = 1.0
GOAL_PROTOCOL_SECONDS = 3600.0


# ---------------------------------------------------------------- in the child


def _status_gb(key: str) -> float:
    """VmHWM / VmRSS of this process in GB (ru_maxrss where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 2**20
    except OSError:  # no /proc: the peak is all getrusage knows
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _edge_input(arrays: dict) -> object:
    """The graph among a sample's inputs: `adj` if there, else the first [B, N, N] one."""
    import numpy as np

    if "adj" in arrays:
        return arrays["adj"]
    return next(v for v in arrays.values() if np.ndim(v) == 3)


def mean_degree(mask: object) -> float:
    """Mean number of other nodes a node points to in a [B, N, N] array (self-loops aside)."""
    import numpy as np

    mask = np.asarray(mask)  # densifies edge lists
    total, b_count, n = 0, 0, 0
    for b in range(mask.shape[0]):
        a = mask[b] != 0
        n = a.shape[0]
        total += int(a.sum()) - int(np.trace(a))
        b_count += 1
    return total / max(b_count * n, 1)


def edge_storage(fb: object) -> str:
    """How a Feedback holds its edge data: sparse (all as edge lists), dense, or k/m sparse."""
    from algspec.edge_lists import EdgeLists

    data = [*fb.features.inputs, *fb.features.hints, *fb.outputs]  # type: ignore[attr-defined]
    edge = [isinstance(dp.data, EdgeLists) for dp in data
            if getattr(dp, "location", "") == "edge"]
    held = sum(edge)
    return "sparse" if edge and held == len(edge) else "dense" if not held else \
        f"{held}/{len(edge)} sparse"


def run_task(task: dict, import_gb: float | None = None) -> dict:
    """One measurement, in its own process with the imports done.

    `import_gb` (forked children): the forking process's resident memory, which
    stands for the imports' share of the peak, as the child's VmHWM only counts what
    it touches.
    """
    import numpy as np

    if task["kind"] == "degree":
        import algspec

        alg = algspec.load(task["path"])
        inputs = alg.generate(task["n"], DEGREE_PROBE, np.random.default_rng(12345),
                              family=task["family"])
        return {"degree": mean_degree(_edge_input(inputs))}

    if task["kind"] == "algspec":
        import algspec
        from algspec.sampling import BatchSampler

        alg = algspec.load(task["path"])
        kwargs: dict[str, object] = {"edges": "sparse"}
        if task.get("chunk"):
            kwargs["chunk_size"] = task["chunk"]

        def draw(samples: int = task["samples"], n: int = task["n"], seed: int = 0) -> object:
            return BatchSampler(alg, alg.spec, samples, seed=seed, length=n,
                                family=task["family"], **kwargs).next()
    else:
        import clrs

        def draw(samples: int = task["samples"], n: int = task["n"], seed: int = 0) -> object:
            sampler, _ = clrs.build_sampler(task["name"], num_samples=samples, length=n,
                                            seed=seed, p=(task["p"],))
            return sampler.next()

    draw(1, WARM_N, 1)  # one-off lazy imports and caches (scipy's Delaunay), not timed
    rss0 = _status_gb("VmRSS")
    base = _status_gb("VmHWM") if import_gb is None else import_gb
    if task.get("max_seconds"):
        signal.setitimer(signal.ITIMER_REAL, task["max_seconds"])  # default action: die
    start = time.perf_counter()
    fb = draw()
    seconds = time.perf_counter() - start
    signal.setitimer(signal.ITIMER_REAL, 0)
    hwm = _status_gb("VmHWM")
    peak = hwm if import_gb is None else import_gb + max(hwm - rss0, 0.0)
    out = {"seconds": seconds, "frames": int(np.max(fb.features.lengths)),  # type: ignore
           "peak_gb": peak, "import_gb": base}
    if task["kind"] == "algspec":
        out["storage"] = edge_storage(fb)
    else:
        out["degree"] = mean_degree({dp.name: dp.data for dp in fb.features.inputs}["adj"])
    return out


def child_main(task_json: str) -> None:
    """`--child`: a fresh interpreter's one measurement, as one JSON line on stdout."""
    task = json.loads(task_json)
    if task["kind"] != "degree":
        import clrs  # noqa: F401  (imported before the timer on both sides)
    import algspec  # noqa: F401

    print(json.dumps(run_task(task)), flush=True)


# ---------------------------------------------------------------- in the parent


@dataclass
class Result:
    """One cell: its numbers, or why there are none (`timed_out` after `max_seconds`)."""

    data: dict | None = None
    timed_out: bool = False
    error: str = ""

    def get(self, key: str) -> float:
        return self.data[key] if self.data else math.nan


class Launcher:
    """Runs tasks in fresh interpreters, or in children forked after the imports."""

    def __init__(self, fork: bool, max_seconds: float | None, warm: list[tuple[str, str]]
                 ) -> None:
        self.fork = fork
        self.max_seconds = max_seconds
        if fork:  # the imports, and the lazy ones of each (file, family) drawn at n = 8
            import clrs  # noqa: F401

            import algspec
            from algspec.sampling import BatchSampler

            for path, family in warm:
                alg = algspec.load(path)
                BatchSampler(alg, alg.spec, 1, seed=1, length=WARM_N, family=family,
                             edges="sparse").next()

    def __call__(self, task: dict) -> Result:
        if task["kind"] != "degree" and self.max_seconds:
            task = {**task, "max_seconds": self.max_seconds}
        return self._forked(task) if self.fork else self._spawned(task)

    def _spawned(self, task: dict) -> Result:
        proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(task)],
                              check=False, capture_output=True, text=True, cwd=ROOT)
        if proc.returncode == -signal.SIGALRM:
            return Result(timed_out=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["killed"])[-1]
            return Result(error=f"exit {proc.returncode}: {last[:120]}")
        return Result(json.loads(proc.stdout.strip().splitlines()[-1]))

    def _forked(self, task: dict) -> Result:
        sys.stdout.flush()
        sys.stderr.flush()
        import_gb = _status_gb("VmRSS")
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: measure, write one JSON line, leave without cleanup
            os.close(r)
            try:
                out = json.dumps(run_task(task, import_gb))
            except BaseException as e:  # noqa: BLE001  (reported by the parent)
                out = json.dumps({"error": f"{type(e).__name__}: {e}"[:160]})
            with os.fdopen(w, "w") as f:
                f.write(out)
            os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            text = f.read()
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            return Result(timed_out=True) if sig == signal.SIGALRM else \
                Result(error=f"killed by signal {sig}")
        data = json.loads(text) if text else {"error": "no result"}
        return Result(error=data["error"]) if "error" in data else Result(data)


def _secs(res: Result, max_seconds: float | None) -> str:
    if res.timed_out:
        return f"> {max_seconds:g} s"
    return f"{res.get('seconds'):.2f}" if res.data else "failed"


def _rate(res: Result, samples: int) -> str:
    return f"{samples / res.get('seconds'):.2f}" if res.data else "-"


def _gb(res: Result, key: str = "peak_gb") -> str:
    return f"{res.get(key):.2f}" if res.data else "-"


def _per_sample(res: Result, samples: int, max_seconds: float | None) -> str:
    if res.timed_out:
        return f"> {max_seconds / samples:.3g}"
    return f"{res.get('seconds') / samples:.3g}" if res.data else "failed"


def _note(res: Result) -> str:
    return f" ({res.error})" if res.error else ""


def clrs_p(stem: str, degree: float, n: int, literal: bool = False) -> float:
    """The p that gives dm-clrs's graphs `degree` neighbours per node on average
    (`literal`: algspec's edge probability itself, which dm-clrs's undirected
    samplers square)."""
    q = min(degree / max(n - 1, 1), 1.0)
    return q if literal or stem in CLRS_DIRECTED else math.sqrt(q)


def machine_line(args: argparse.Namespace) -> str:
    import numpy

    try:
        from importlib.metadata import version

        clrs_version = version("dm-clrs")
    except Exception:  # noqa: BLE001  (not installed: say so)
        clrs_version = "not installed"
    return (f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f}), Python "
            f"{platform.python_version()}, numpy {numpy.__version__}, dm-clrs {clrs_version}; "
            f"{args.samples} samples per set, seed 0")


def compare(args: argparse.Namespace, run: Launcher, results: dict) -> None:
    """Section 1: algspec against dm-clrs's sampler."""
    s = args.samples
    print("\n## 1. algspec against dm-clrs's own sampler\n")
    print("| algorithm | family | n | algspec graphs | dm-clrs graphs | frames (a / c) | edges "
          "| algspec s | samples/s | peak GB | imports GB | dm-clrs s | samples/s | peak GB "
          "| imports GB | speed-up | memory c / a |")
    print("|---|---|---:|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        stem = Path(path).stem
        name = CLRS_NAME.get(stem)
        for family in args.families:
            for n in args.sizes:
                ours = run({"kind": "algspec", "path": path, "n": n, "family": family,
                            "samples": s})
                results[("salsa", stem, family, n)] = ours
                a_graphs, c_graphs, theirs = family, "-", Result()
                if name is not None:
                    probe = run({"kind": "degree", "path": path, "n": n, "family": family})
                    if probe.data:
                        degree = probe.data["degree"]
                        p = clrs_p(stem, degree, n, args.clrs_p == "literal")
                        a_graphs = f"{family}, degree {degree:.2f}"
                        theirs = run({"kind": "clrs", "name": name, "n": n, "samples": s,
                                      "p": p})
                        kind = "directed G(n, p)" if stem in CLRS_DIRECTED else "G(n, p)^sym"
                        got = f", degree {theirs.data['degree']:.2f}" if theirs.data else ""
                        c_graphs = f"{kind}, p = {p:.4g}{got}"
                    else:
                        c_graphs = f"not drawn{_note(probe)}"
                    results[("clrs", stem, family, n)] = theirs
                frames = (f"{ours.data['frames'] if ours.data else '-'} / "
                          f"{theirs.data['frames'] if theirs.data else '-'}")
                both = ours.data and theirs.data
                speed = f"{theirs.get('seconds') / ours.get('seconds'):.1f}x" if both else "-"
                if both:
                    memory = f"{theirs.get('peak_gb') / ours.get('peak_gb'):.2f}x"
                else:
                    memory = "-"
                print(f"| {stem} | {family} | {n} | {a_graphs} | {c_graphs} | {frames} | "
                      f"{ours.data['storage'] if ours.data else '-'} | "
                      f"{_secs(ours, args.max_seconds)}{_note(ours)} | {_rate(ours, s)} | "
                      f"{_gb(ours)} | {_gb(ours, 'import_gb')} | "
                      + (f"{_secs(theirs, args.max_seconds)}{_note(theirs)} | "
                         f"{_rate(theirs, s)} | {_gb(theirs)} | {_gb(theirs, 'import_gb')} | "
                         if name else "- | - | - | - | ")
                      + f"{speed} | {memory} |", flush=True)


def parallel(args: argparse.Namespace, run: Launcher, results: dict) -> None:
    """Section 2: seconds per sample of the synchronous parallel files."""
    s = args.samples
    print("\n## 2. synchronous parallel files\n")
    print("| file | family | n | frames | edges | seconds | s/sample | peak GB | imports GB |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|")
    for path in args.parallel_files:
        stem = Path(path).stem
        for family in args.families:
            for n in args.parallel_sizes:
                res = run({"kind": "algspec", "path": path, "n": n, "family": family,
                           "samples": s})
                results[("parallel", stem, family, n)] = res
                print(f"| {stem} | {family} | {n} | {res.data['frames'] if res.data else '-'} "
                      f"| {res.data['storage'] if res.data else '-'} | "
                      f"{_secs(res, args.max_seconds)}{_note(res)} | "
                      f"{_per_sample(res, s, args.max_seconds)} | {_gb(res)} | "
                      f"{_gb(res, 'import_gb')} |", flush=True)


def one_batch(args: argparse.Namespace, run: Launcher) -> None:
    """`--baseline`: fitted chunks against one interpreter batch of all S samples."""
    print("\n## fitted chunks against one batch (algspec)\n")
    print("| file | family | n | fitted chunks: s | peak GB | one batch: s | peak GB | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        for family in args.families:
            for n in args.sizes:
                task = {"kind": "algspec", "path": path, "n": n, "family": family,
                        "samples": args.samples}
                fit, one = run(task), run({**task, "chunk": args.samples})
                ratio = f"{one.get('peak_gb') / fit.get('peak_gb'):.2f}x" \
                    if fit.data and one.data else "-"
                print(f"| {Path(path).stem} | {family} | {n} | {_secs(fit, args.max_seconds)} "
                      f"| {_gb(fit)} | {_secs(one, args.max_seconds)} | {_gb(one)} | {ratio} |",
                      flush=True)


def _verdict(ok: bool | None) -> str:
    return {True: "met", False: "**not met**", None: "not measured"}[ok]


def _protocol_verdict(seconds: float, lower: bool) -> str:
    """Under an hour? A lower bound (a cell timed out) only decides when it is over."""
    if seconds >= GOAL_PROTOCOL_SECONDS:
        return "**not met**"
    return "unknown (a cell timed out)" if lower else "met"


def _pick_family(args: argparse.Namespace) -> str:
    return "sparse_er" if "sparse_er" in args.families else args.families[0]


def protocol_estimate(args: argparse.Namespace, results: dict, part: str, stem: str,
                      sizes: list[int]) -> tuple[float, bool, str] | None:
    """SALSA-CLRS's test protocol for one file, in one process's seconds.

    Each protocol size is costed at the smallest measured size >= it (an upper
    bound per sample); the families measured stand for the protocol's three (their
    mean, times 3). Returns (seconds, a lower bound because a cell timed out, how)
    or None where no measured size reaches 1600.
    """
    s = args.samples
    per_family = []
    lower = False
    for family in args.families:
        total = 0.0
        for size in PROTOCOL_SIZES:
            above = [m for m in sorted(sizes) if m >= size]
            if not above:
                return None
            res = results.get((part, stem, family, above[0]))
            if res is None or not (res.data or res.timed_out):
                return None
            if res.timed_out:
                lower = True
                per_sample = args.max_seconds / s
            else:
                per_sample = res.data["seconds"] / s
            total += per_sample * PROTOCOL_SAMPLES
        per_family.append(total)
    seconds = sum(per_family) / len(per_family) * PROTOCOL_FAMILIES
    used = ", ".join(f"{size}->{min(m for m in sizes if m >= size)}" for size in PROTOCOL_SIZES)
    return seconds, lower, used


def goals(args: argparse.Namespace, results: dict, storage: str) -> None:
    """Section 3: each goal against this run's numbers."""
    s, fam = args.samples, _pick_family(args)
    cores = os.cpu_count() or 1
    speedup_of = min(args.jobs, cores)
    rows = []

    ours, theirs = results.get(("salsa", "bfs", fam, 1600)), results.get(("clrs", "bfs", fam,
                                                                              1600))
    if ours and theirs and ours.data and theirs.data:
        ratio = theirs.data["seconds"] / ours.data["seconds"]
        rows.append(("BFS at n = 1600 vs dm-clrs's sampler", f"{fam}, {s} samples",
                     f"{ratio:.1f}x", f">= {GOAL_SPEEDUP:g}x", _verdict(ratio >= GOAL_SPEEDUP)))
    else:
        rows.append(("BFS at n = 1600 vs dm-clrs's sampler", fam, "-", f">= {GOAL_SPEEDUP:g}x",
                     _verdict(None)))

    if ours and ours.data:
        peak = ours.data["peak_gb"]
        judged = _verdict(peak <= GOAL_PEAK_GB) if s == 32 else "not judged (needs --samples 32)"
        on = f"{fam}, {s} samples, {storage}; imports {ours.data['import_gb']:.2f} GB"
        rows.append(("peak memory, 32 BFS samples at n = 1600", on, f"{peak:.2f} GB",
                     f"<= {GOAL_PEAK_GB:g} GB", judged))
    else:
        rows.append(("peak memory, 32 BFS samples at n = 1600", fam, "-",
                     f"<= {GOAL_PEAK_GB:g} GB", _verdict(None)))

    bf = {f: results[k] for f in args.families
          if (k := ("parallel", "bellman_ford", f, 800)) in results}
    if bf:
        worst, worst_family = -1.0, ""
        for f, res in bf.items():
            value = math.inf if res.timed_out else res.get("seconds") / s
            if not math.isnan(value) and value > worst:
                worst, worst_family = value, f
        if worst < 0:
            rows.append(("sync Bellman-Ford at n = 800", "failed", "-",
                         f"<= {GOAL_BF_SECONDS:g} s/sample", _verdict(None)))
        else:
            text = f"> {args.max_seconds / s:.3g}" if math.isinf(worst) else f"{worst:.3g}"
            rows.append(("sync Bellman-Ford at n = 800", f"worst family: {worst_family}",
                         f"{text} s/sample", f"<= {GOAL_BF_SECONDS:g} s/sample",
                         _verdict(worst <= GOAL_BF_SECONDS)))
    else:
        rows.append(("sync Bellman-Ford at n = 800", "-", "-", f"<= {GOAL_BF_SECONDS:g} s/sample",
                     _verdict(None)))

    estimates = []
    for part, paths, sizes in (("salsa", args.files, args.sizes),
                               ("parallel", args.parallel_files, args.parallel_sizes)):
        for path in paths:
            stem = Path(path).stem
            est = protocol_estimate(args, results, part, stem, sizes)
            estimates.append((stem, est))
            if stem == "bfs" and part == "salsa":
                if est is None:
                    rows.append(("SALSA test protocol, bfs.alg", "-", "-",
                                 f"< {duration_text(GOAL_PROTOCOL_SECONDS)} on 2 cores",
                                 _verdict(None)))
                else:
                    at_best = est[0] / speedup_of
                    mark = "> " if est[1] else ""
                    on = (f"one process {mark}{duration_text(est[0])}; --jobs {args.jobs} on "
                          f"{cores} cores: / {speedup_of}")
                    rows.append(("SALSA test protocol, bfs.alg", on,
                                 f"{mark}{duration_text(at_best)} at best",
                                 f"< {duration_text(GOAL_PROTOCOL_SECONDS)} on 2 cores",
                                 _protocol_verdict(at_best, est[1])))

    print("\n## 3. goals\n")
    print("| goal | measured on | measured | goal | |")
    print("|---|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")

    print(f"\nSALSA-CLRS's test protocol per file ({PROTOCOL_FAMILIES} families x n in "
          f"{', '.join(map(str, PROTOCOL_SIZES))} x {PROTOCOL_SAMPLES} samples) from this run's "
          f"s/sample: each protocol size costed at the smallest measured size >= it (an upper "
          f"bound), the measured families' mean x {PROTOCOL_FAMILIES}; `algspec sample --jobs "
          f"{args.jobs}` on {cores} cores divides it by {speedup_of} at best.\n")
    print(f"| file | sizes used | one process | --jobs {args.jobs}, at best | under an hour |")
    print("|---|---|---:|---:|---|")
    for stem, est in estimates:
        if est is None:
            print(f"| {stem} | needs a measured size >= {max(PROTOCOL_SIZES)} | - | - | "
                  f"{_verdict(None)} |")
            continue
        seconds, lower, used = est
        mark = "> " if lower else ""
        ok = _protocol_verdict(seconds / speedup_of, lower)
        print(f"| {stem} | {used} | {mark}{duration_text(seconds)} | "
              f"{mark}{duration_text(seconds / speedup_of)} | {ok} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", nargs="+",
                    default=[f"algorithms/salsa/{s}.alg" for s in SALSA])
    ap.add_argument("--parallel-files", nargs="+",
                    default=[f"algorithms/parallel/{s}.alg" for s in PARALLEL])
    ap.add_argument("--sizes", nargs="+", type=int, default=[64, 160, 800, 1600])
    ap.add_argument("--parallel-sizes", nargs="+", type=int, default=[160, 800, 1600])
    ap.add_argument("--families", nargs="+", default=["sparse_er", "ws", "delaunay"])
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="kill a draw after this many seconds and print '> X s'")
    ap.add_argument("--jobs", type=int, default=2,
                    help="`algspec sample --jobs` of the protocol estimate (default 2)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: n = 64 and 160, 4 samples, forked draws")
    ap.add_argument("--fork", action="store_true",
                    help="fork each draw from one process that has done the imports")
    ap.add_argument("--baseline", action="store_true",
                    help="also draw each algspec set in one batch and print the two peaks")
    ap.add_argument("--no-parallel", action="store_true", help="skip section 2")
    ap.add_argument("--no-compare", action="store_true", help="skip section 1")
    ap.add_argument("--clrs-p", choices=["degree", "literal"], default="degree",
                    help="dm-clrs's p: matching algspec's mean degree (default), or algspec's "
                         "edge probability as given (dm-clrs's undirected graphs then have "
                         "p^2, far sparser)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        child_main(args.child)
        return 0
    if args.quick:
        args.sizes, args.parallel_sizes, args.samples, args.fork = [64, 160], [64, 160], 4, True
    if args.samples < 1 or args.jobs < 1 or (args.max_seconds is not None and
                                             args.max_seconds <= 0):
        ap.error("--samples, --jobs and --max-seconds must be positive")

    first = [*args.files, *args.parallel_files][:1]
    run = Launcher(args.fork, args.max_seconds, [(f, fam) for f in first for fam in args.families])
    print("# Sampling at SALSA-CLRS's scale: algspec against dm-clrs\n")
    print(machine_line(args) + "\n")
    print("- algspec edge storage asked for: sparse edge lists (edges=\"sparse\"); the `edges` "
          "columns say how the "
          "Feedback held its edge data (sparse: all as edge lists, k/m: k of its m edge data).")
    how = ("each draw in a child forked from one process after the imports; peak = that "
           "process's resident memory (imports GB) + the child's own growth" if args.fork else
           "each draw in a fresh interpreter; peak = its VmHWM, imports GB = its VmHWM before "
           "the timer")
    print(f"- {how}. dm-clrs imported, `algspec.load` done and one sample drawn at n = "
          f"{WARM_N} (lazy imports) before the timer on both sides; timed: constructing the "
          "sampler of the fixed set and its `next()`.")
    matched = ("p matched to algspec's mean degree d (4 graphs), q = d / (n - 1): "
               "`G(n, p)^sym` is `mat * mat.T` of two Bernoulli(p) draws (edge probability "
               "p^2, so p = sqrt(q)); dfs's is directed (p = q)" if args.clrs_p == "degree" else
               "p = algspec's edge probability q = d / (n - 1) as given (--clrs-p literal): "
               "`G(n, p)^sym`, `mat * mat.T`, has edge probability q^2, far sparser than "
               "algspec's; dfs's is directed (p = q)")
    print("- graphs: algspec draws each file's own generator with `family=F` (its "
          "defaults; sparse_er: G(n, 3 / (n - 1)) plus a random tree). dm-clrs draws its own "
          f"G(n, p) for every family, {matched}. `degree`: mean neighbours per node, "
          "self-loops aside; dm-clrs's is measured on the set it drew.")
    results: dict = {}
    if not args.no_compare:
        compare(args, run, results)
    if not args.no_parallel:
        parallel(args, run, results)
    if args.baseline:
        one_batch(args, run)
    goals(args, results, "sparse edge lists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
