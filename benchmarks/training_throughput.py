"""Training throughput: dm-clrs's BaselineModel vs algspec's model, dense and sparse.

Three measurements, each model in a fresh process (so compile times are cold,
the persistent compilation cache off, and peak memory is the process's own),
the backends interleaved and each figure the best of `--repeats`:

1. Training step at size `--train-size` (batch `--batch-size`, hidden
   `--hidden`): compile seconds (the first step: tracing, compiling, running
   once) and seconds per step (the best of the next `--steps` steps), for
   parallel_search, oets, bubble_sort and bfs.
2. Prediction at `--predict-sizes` on sparse interconnection graphs
   (parallel_search: `graph empty`; bfs_sync on an Erdos-Renyi graph with
   mean degree about 4): seconds per predict call after compiling, and the
   process's peak resident memory. A model that fails (out of memory, too
   slow for `--predict-timeout`) is reported as such.
3. A cell of three seeds (`--cell-steps` steps): wall time of one
   `train_seeds` program against three `train` processes one after another.
4. A whole short run (`--run-steps` steps at the protocol's sizes 4, 7, 11,
   13 and 16, validation at 16, test at 32) for `--run-algorithms`: the
   seconds XLA spent compiling every program of the run (result.json's
   `compile_seconds`, from `jax.monitoring`), how many programs, and the
   run's wall time. dm-clrs compiles its step again for each new trajectory
   length; algspec pads lengths to buckets and skips the padded steps.

Ratios are printed against dm-clrs (clrs / algspec: above 1 means algspec is
faster) and, for predict, dense / sparse.

Usage: python benchmarks/training_throughput.py [--hidden 32] [--repeats 3]
       [--predict-sizes 64 256 1024] [--skip-step] [--skip-predict] [--skip-run]
       [--skip-cell]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEP_ALGORITHMS = {
    "parallel_search": "algorithms/parallel_search.alg",
    "oets": "algorithms/oets.alg",
    "bubble_sort": "algorithms/bubble_sort.alg",
    "bfs": "algorithms/clrs/bfs.alg",
}
PREDICT_ALGORITHMS = {
    "parallel_search": ("algorithms/parallel_search.alg", {}),
    "bfs_sync": ("algorithms/parallel/bfs_sync.alg", {"A.p": "degree4"}),
}
BACKENDS = {  # label: (backend, graph)
    "clrs": ("clrs", "dense"),
    "algspec-dense": ("algspec", "dense"),
    "algspec-sparse": ("algspec", "sparse"),
}


# ------------------------------------------------------------------ one measurement
def _params(params: dict, n: int) -> dict:
    return {k: (min(1.0, 4.0 / n) if v == "degree4" else v) for k, v in params.items()}


def _model(algorithm: str, label: str, n: int, batch: int, hidden: int, params: dict,
           samples: int):
    from algspec.training.backends import get_backend
    from algspec.training.config import TrainConfig
    from algspec.training.data import fixed_set, resolve_source

    backend, graph = BACKENDS[label]
    source = resolve_source(str(ROOT / algorithm), _params(params, n))
    spec, data = fixed_set(source, n, samples, 7, random_pos=True, pred_as_input=False)
    config = TrainConfig(algorithm=algorithm, processor="mpnn", hidden=hidden,
                         train_sizes=(n,), backend=backend, graph=graph)
    example = next(_batches(data, batch))
    return get_backend(backend).build(spec, example, config, Path(tempfile.mkdtemp())), \
        data


def _batches(data, batch: int):
    from algspec.training.data import batches

    return batches(data, batch)


def measure_step(a: dict) -> dict:
    import jax

    model, data = _model(a["algorithm"], a["label"], a["n"], a["batch"], a["hidden"], {},
                         a["batch"])
    fb = next(_batches(data, a["batch"]))
    key = jax.random.PRNGKey(0)
    t0 = time.perf_counter()
    jax.block_until_ready(model.feedback(key, fb))
    compile_s = time.perf_counter() - t0
    times = []
    for _ in range(a["steps"]):
        t0 = time.perf_counter()
        jax.block_until_ready(model.feedback(key, fb))
        times.append(time.perf_counter() - t0)
    return {"compile_s": compile_s, "step_s": min(times)}


def measure_predict(a: dict) -> dict:
    import jax

    model, data = _model(a["algorithm"], a["label"], a["n"], a["batch"], a["hidden"],
                         a["params"], a["batch"])
    features = next(_batches(data, a["batch"])).features
    key = jax.random.PRNGKey(0)
    jax.block_until_ready(model.predict(key, features)[0])
    t0 = time.perf_counter()
    jax.block_until_ready(model.predict(key, features)[0])
    return {"predict_s": time.perf_counter() - t0}


def measure_cell(a: dict) -> dict:
    from algspec.training.config import TrainConfig
    from algspec.training.trainer import train, train_seeds

    configs = [TrainConfig(algorithm=str(ROOT / a["algorithm"]), processor="mpnn",
                           hidden=a["hidden"], steps=a["steps"], batch_size=a["batch"],
                           train_samples=64, val_samples=32, test_samples=32, test_size=16,
                           eval_every=max(1, a["steps"] // 4), seed=s, backend="algspec",
                           graph="sparse") for s in (0, 1, 2)]
    out = Path(tempfile.mkdtemp())
    t0 = time.perf_counter()
    if a["together"]:
        train_seeds(configs, [out / str(c.seed) for c in configs], progress=False)
    else:
        train(configs[a["seed"]], out / "run", progress=False)
    return {"wall_s": time.perf_counter() - t0}


def measure_run(a: dict) -> dict:
    from algspec.training.config import TrainConfig
    from algspec.training.trainer import train

    backend, graph = BACKENDS[a["label"]]
    config = TrainConfig(algorithm=str(ROOT / a["algorithm"]), processor="mpnn",
                         hidden=a["hidden"], steps=a["steps"], batch_size=a["batch"],
                         train_sizes=(4, 7, 11, 13, 16), val_size=16, test_size=32,
                         train_samples=160, val_samples=32, test_samples=32,
                         eval_every=a["steps"], seed=0, backend=backend, graph=graph)
    t0 = time.perf_counter()
    result = train(config, Path(tempfile.mkdtemp()) / "run", progress=False)
    return {"wall_s": time.perf_counter() - t0, "compile_s": result["compile_seconds"],
            "programs": result["compiled_programs"],
            "step_s": result["seconds_per_step"]}


MEASURES = {"step": measure_step, "predict": measure_predict, "cell": measure_cell,
            "run": measure_run}


def _one(kind: str, args: dict, timeout: float) -> dict:
    """Run one measurement in a fresh process: its figures, wall time and peak memory."""
    env = {**os.environ, "ALGSPEC_JAX_CACHE": "off", "TF_CPP_MIN_LOG_LEVEL": "3"}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, __file__, "--one", kind, json.dumps(args)],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:80]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def _best(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if key in r]
    return min(values) if values else None


def _fmt(x: float | None, unit: str = "") -> str:
    return "-" if x is None else (f"{x:.3g}{unit}")


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


# ------------------------------------------------------------------ the report
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--train-size", type=int, default=16)
    ap.add_argument("--steps", type=int, default=3, help="timed steps after the first")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--algorithms", nargs="*", default=list(STEP_ALGORITHMS))
    ap.add_argument("--predict-sizes", nargs="*", type=int, default=[64, 256, 1024])
    ap.add_argument("--predict-batch", type=int, default=4)
    ap.add_argument("--predict-timeout", type=float, default=600)
    ap.add_argument("--cell-steps", type=int, default=40)
    ap.add_argument("--skip-step", action="store_true")
    ap.add_argument("--skip-predict", action="store_true")
    ap.add_argument("--skip-cell", action="store_true")
    ap.add_argument("--run-steps", type=int, default=30)
    ap.add_argument("--run-algorithms", nargs="*", default=["oets", "bubble_sort"])
    ap.add_argument("--skip-run", action="store_true")
    ap.add_argument("--labels", nargs="*", default=list(BACKENDS),
                    help="the models to measure (default: all)")
    ap.add_argument("--no-skip", action="store_true",
                    help="algspec runs padded hint steps, never skips them (tuning.py)")
    args = ap.parse_args()
    labels = [label for label in BACKENDS if label in args.labels]
    if args.no_skip:
        os.environ["ALGSPEC_BENCH_NO_SKIP"] = "1"
    if args.one:
        if os.environ.get("ALGSPEC_BENCH_NO_SKIP"):
            import algspec.nn.tuning

            algspec.nn.tuning.SKIP_PADDED_STEPS = False
        result = MEASURES[args.one[0]](json.loads(args.one[1]))
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return

    print(f"# training throughput on {platform.machine()}, {os.cpu_count()} CPUs; "
          f"hidden {args.hidden}, best of {args.repeats}"
          + (" (padded steps run, not skipped)" if args.no_skip else "") + "\n")
    if not args.skip_step:
        print(f"## training step, n = {args.train_size}, batch {args.batch_size}\n")
        print("| algorithm | model | compile s | s/step | clrs/this compile | "
              "clrs/this step |")
        print("|---|---|---|---|---|---|")
        for name in args.algorithms:
            runs: dict[str, list[dict]] = {label: [] for label in labels}
            for _ in range(args.repeats):
                for label in labels:  # interleaved
                    runs[label].append(_one("step", {
                        "algorithm": STEP_ALGORITHMS[name], "label": label,
                        "n": args.train_size, "batch": args.batch_size,
                        "hidden": args.hidden, "steps": args.steps}, 1800))
            base_c, base_s = _best(runs.get("clrs", []), "compile_s"), _best(runs.get("clrs", []), "step_s")
            for label, rs in runs.items():
                c, st = _best(rs, "compile_s"), _best(rs, "step_s")
                err = next((r["error"] for r in rs if "error" in r), "")
                print(f"| {name} | {label} | {_fmt(c)} | {_fmt(st)} | {_ratio(base_c, c)} | "
                      f"{_ratio(base_s, st)} |" + (f" {err}" if c is None else ""), flush=True)
        print()
    if not args.skip_predict:
        print(f"## predict, batch {args.predict_batch} (after compiling)\n")
        print("| algorithm | n | model | s/predict | peak MB | dense/sparse time |")
        print("|---|---|---|---|---|---|")
        for name, (path, params) in PREDICT_ALGORITHMS.items():
            for n in args.predict_sizes:
                runs = {label: [] for label in labels}
                for _ in range(args.repeats):
                    for label in labels:
                        if runs[label] and "error" in runs[label][-1]:
                            continue  # failed once (memory, time): not again
                        runs[label].append(_one("predict", {
                            "algorithm": path, "label": label, "n": n,
                            "batch": args.predict_batch, "hidden": args.hidden,
                            "params": params}, args.predict_timeout))
                dense = _best(runs.get("algspec-dense", []), "predict_s")
                for label, rs in runs.items():
                    t, mem = _best(rs, "predict_s"), _best(rs, "peak_mb")
                    err = next((r["error"] for r in rs if "error" in r), "")
                    ratio = _ratio(dense, t) if label == "algspec-sparse" else ""
                    print(f"| {name} | {n} | {label} | {_fmt(t)} | {_fmt(mem)} | {ratio} |"
                          + (f" {err}" if t is None else ""), flush=True)
        print()
    if not args.skip_run:
        print(f"## a run at sizes 4..16 ({args.run_steps} steps, batch {args.batch_size}), "
              "compile per run\n")
        print("| algorithm | model | compile s | programs | run wall s | s/step | "
              "clrs/this compile |")
        print("|---|---|---|---|---|---|---|")
        for name in args.run_algorithms:
            runs = {label: [] for label in labels}
            for _ in range(args.repeats):
                for label in labels:
                    runs[label].append(_one("run", {
                        "algorithm": STEP_ALGORITHMS[name], "label": label,
                        "hidden": args.hidden, "steps": args.run_steps,
                        "batch": args.batch_size}, 3600))
            base = _best(runs.get("clrs", []), "compile_s")
            for label, rs in runs.items():
                c = _best(rs, "compile_s")
                good = [r for r in rs if "compile_s" in r]
                programs = min((r["programs"] for r in good), default=None)
                err = next((r["error"] for r in rs if "error" in r), "")
                print(f"| {name} | {label} | {_fmt(c)} | {programs if good else '-'} | "
                      f"{_fmt(_best(rs, 'wall_s'))} | {_fmt(_best(rs, 'step_s'))} | "
                      f"{_ratio(base, c)} |" + (f" {err}" if c is None else ""), flush=True)
        print()
    if not args.skip_cell:
        print(f"## a cell of 3 seeds (bfs_sync, sparse, {args.cell_steps} steps), wall time\n")
        cell = {"algorithm": "algorithms/parallel/bfs_sync.alg", "hidden": args.hidden,
                "steps": args.cell_steps, "batch": args.batch_size}
        one, three = [], []
        for _ in range(args.repeats):
            one.append(_one("cell", {**cell, "together": True}, 3600))
            runs = [_one("cell", {**cell, "together": False, "seed": s}, 3600)
                    for s in range(3)]
            if all("process_s" in r for r in runs):
                three.append({"process_s": sum(r["process_s"] for r in runs)})
        t1, t3 = _best(one, "process_s"), _best(three, "process_s")
        print("| how | wall s | three runs / this |")
        print("|---|---|---|")
        print(f"| three processes | {_fmt(t3)} | 1.00x |")
        print(f"| one program (train_seeds) | {_fmt(t1)} | {_ratio(t3, t1)} |")


if __name__ == "__main__":
    main()
