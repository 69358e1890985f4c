"""Grid throughput: the paper's grid (experiments/paper.yaml) projected in device-minutes.

Trains a fixed slice of the grid for a few steps, as `algspec experiment
--jobs N` runs it (`backend: algspec`, a cell's seeds as one vmapped
program: `trainer.train_seeds`, one worker's job, with its memory plan):
every task's cells at hidden 128, the grid's 4 processors and 3 seeds. Per
cell it reads the run's own timing (result.json: compile seconds of every
program, steady seconds per step, test seconds; metrics.jsonl: the time
between the last two validations, less their steps, is one validation of
every seed). It prints
the device's training steps per second (seed-steps: one step of one seed)
and projects every run of the paper's grid (216 runs: 72 cells, the hidden
8 and 32 cells costed as hidden 128's, an upper bound) at the protocol:

    cell = compile + steps x s/step + validations x seeds x s/validation + test

summed over cells one at a time (side-by-side jobs only lower it). The
baseline, where dm-clrs imports, is dm-clrs's model one run at a time: one
seed per cell at the same settings, each of the grid's runs costed alone.
The persistent compilation cache is off (`ALGSPEC_JAX_CACHE=off`): a fresh
machine compiles everything.

Usage: python benchmarks/grid_throughput.py [--steps 10] [--no-baseline]
       python benchmarks/grid_throughput.py --smoke      # tiny, on a CPU, < 3 minutes

CPU smoke figure (2-core CPU shared with other work, jax 0.10.2; hidden 8,
size 4, mpnn, 2 seeds, 4 steps; 2 min 54 s of CPU time): "projected paper grid:
116.8 device-minutes (dm-clrs one run at a time: 86.8)", compile-dominated and
not a figure of the grid (results/benchmarks/grid_throughput_cpu.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ALGSPEC_JAX_CACHE", "off")

PAPER = ROOT / "experiments" / "paper.yaml"
PAPER_RUNS = 216  # 3 tasks x 2 roles x 4 processors x 3 hidden sizes x 3 seeds
SMOKE = {"hidden": 8, "steps": 4, "batch_size": 4, "train_sizes": (4,), "val_size": 4,
         "test_size": 4, "train_samples": 8, "val_samples": 8, "test_samples": 8,
         "eval_every": 2}


@dataclass
class Cell:
    """One measured cell: its name, seeds and per-program timing."""

    name: str
    seeds: int
    compile_s: float
    step_s: float
    val_s: float   # one validation of one seed
    test_s: float  # every seed's test
    plan: str

    def projected(self, steps: int, validations: int) -> float:
        return (self.compile_s + steps * self.step_s + validations * self.seeds * self.val_s
                + self.test_s)


def _slice(args: argparse.Namespace) -> tuple[list[list[Any]], dict[str, Any]]:
    """The benchmarked cells (each a list of RunSpecs differing in seed) and the protocol."""
    from algspec.training.grid import load_grid, plan
    from algspec.training.launch import seed_units

    grid = load_grid(PAPER)
    protocol = dict(grid.train)
    out = Path(tempfile.mkdtemp(prefix="grid-throughput-"))
    runs = [r for r in plan(grid, out) if r.hidden == 128]
    if args.smoke:
        runs = [r for r in runs if r.processor == "mpnn" and r.seed < 2]
    else:
        runs = [r for r in runs if r.processor in args.processors]
    # Validations after every size's step compiled, two of them steady (see `_measure`).
    over = {**SMOKE} if args.smoke else {"steps": args.steps,
                                         "eval_every": max(1, args.steps // 2)}
    for r in runs:
        r.config = replace(r.config, backend="algspec", graph="dense", **over)
        if args.smoke:
            r.config = replace(r.config, hidden=SMOKE["hidden"])
    return seed_units(runs), protocol


def _measure(unit: list[Any], seeds_per_program: bool) -> Cell:
    """Train a cell as a grid worker does (all its seeds in one program, or one seed)."""
    from algspec.training.trainer import train_seeds

    config = unit[0].config
    name = f"{Path(config.algorithm).stem}/{config.processor} h{config.hidden} ({config.backend})"
    runs = unit if seeds_per_program else unit[:1]
    results = train_seeds([r.config for r in runs], [r.dir for r in runs], progress=False)
    res = results[0]
    # One validation of one seed: between the last two validations of the first seed lie
    # `gap` steady steps and every seed's validation (the loop validates them in turn).
    lines = (runs[0].dir / "metrics.jsonl").read_text().splitlines()
    prev, last = (json.loads(line) for line in lines[-2:])
    gap = last["step"] - prev["step"]
    val_s = max(0.0, last["elapsed"] - prev["elapsed"] - gap * float(res["seconds_per_step"]))

    plan = res.get("memory_plan") or {}
    plan_text = (f"{plan.get('seeds_per_program', len(runs))}/program, "
                 f"remat {'on' if plan.get('remat') else 'off'}")
    return Cell(name, len(runs), float(res["compile_seconds"]), float(res["seconds_per_step"]),
                val_s / len(runs), sum(float(r["test_seconds"]) for r in results), plan_text)


def _table(cells: list[Cell], steps: int, validations: int) -> list[str]:
    lines = [("| cell | seeds | plan | compile s | s/step | s/validation | test s | "
             "projected s |"), "|---|---|---|---|---|---|---|---|"]
    for c in cells:
        lines.append(f"| {c.name} | {c.seeds} | {c.plan} | {c.compile_s:.1f} | "
                     f"{c.step_s:.4f} | {c.val_s:.3f} | {c.test_s:.2f} | "
                     f"{c.projected(steps, validations):.0f} |")
    return lines


def _device() -> str:
    from algspec.training.trainer import device_description

    return device_description()


def _jax_version() -> str:
    import jax

    return jax.__version__


def _clrs_available() -> bool:
    try:
        from algspec.training.data import import_clrs

        import_clrs()
    except Exception:  # noqa: BLE001 - no dm-clrs (or no TensorFlow): no baseline
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10, help="training steps per cell")
    parser.add_argument("--processors", nargs="+", default=["deepsets", "gat", "mpnn", "pgn"])
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip dm-clrs one run at a time")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny version for a CPU: hidden 8, mpnn, 2 seeds, a few steps")
    args = parser.parse_args(argv)

    units, protocol = _slice(args)
    steps, every = int(protocol["steps"]), int(protocol["eval_every"])
    validations = len(range(0, steps, every)) + (0 if (steps - 1) % every == 0 else 1)
    cells_per_slice = len(units)
    print(f"device: {_device()}; jax {_jax_version()}; {cells_per_slice} cells, "
          f"{sum(len(u) for u in units)} runs; protocol: {steps} steps, "
          f"{validations} validations", flush=True)

    t0 = time.perf_counter()
    cells = []
    for unit in units:
        cells.append(_measure(unit, True))
        print(f"  {cells[-1].name}: {cells[-1].seeds} seeds, {cells[-1].plan}, "
              f"{cells[-1].step_s:.4f} s/step", flush=True)
    wall = time.perf_counter() - t0
    seed_steps = sum(c.seeds for c in cells) / sum(c.step_s for c in cells)

    baseline: list[Cell] = []
    # --smoke: dm-clrs on the Searching cells only (its OETS prediction alone compiles
    # for minutes on a CPU), scaled to the grid by algspec's cost on the same cells.
    base_units = [u for u in units if not args.smoke or u[0].task == "Searching"]
    if not args.no_baseline and _clrs_available():
        for unit in base_units:
            clrs_unit = [replace(r, config=replace(r.config, backend="clrs"),
                                 dir=r.dir.with_name(r.dir.name + "_clrs")) for r in unit]
            baseline.append(_measure(clrs_unit, False))
            print(f"  {baseline[-1].name}: {baseline[-1].step_s:.4f} s/step", flush=True)

    # The paper's grid: every measured cell stands for the cells of its algorithm and
    # processor at each hidden size (hidden 128's cost for all three: an upper bound).
    scale = (PAPER_RUNS / 3) / cells_per_slice  # grid cells per measured cell
    seeds_grid = 3
    ours = sum(c.projected(steps, validations) * seeds_grid / c.seeds for c in cells) \
        * scale / 60
    print()
    print("\n".join(_table(cells, steps, validations)))
    if baseline:
        print()
        print("\n".join(_table(baseline, steps, validations)))
    print()
    print(f"measured in {wall:.0f} s: {seed_steps:.1f} training steps per second "
          f"(seed-steps, {sum(c.seeds for c in cells)} seeds over {len(cells)} cells, "
          f"one cell at a time)")
    alone = sum(c.projected(steps, validations) for c in baseline) * seeds_grid * scale / 60
    if baseline and len(base_units) < len(units):
        same = {id(u) for u in base_units}
        ours_same = sum(c.projected(steps, validations) * seeds_grid / c.seeds
                        for c, u in zip(cells, units, strict=True) if id(u) in same)
        alone *= ours * 60 / scale / ours_same
        print(f"dm-clrs measured on {len(base_units)} of {len(units)} cells, scaled to the "
              "grid by algspec's cost on the same cells")
    theirs = f"{alone:.1f}" if baseline else "not measured"
    print(f"projected paper grid: {ours:.1f} device-minutes (dm-clrs one run at a time: "
          f"{theirs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
