"""Grids of training runs and their report (the paper's Table 2, Figures 4 and 5).

A grid file (YAML) names tasks, each a pair of a sequential and a parallel
algorithm, and the processors, hidden sizes and seeds to cross them with;
`train:` holds training options shared by every run (any `TrainConfig` field)::

    name: paper
    tasks:
      - {name: Searching, sequential: ../algorithms/binary_search.alg,
         parallel: ../algorithms/parallel_search.alg}
    processors: [deepsets, gat, mpnn, pgn]
    hidden: [128]
    seeds: [0, 1, 2]
    train: {steps: 2000}

An algorithm ending in `.alg` or containing `/` is a path relative to the
grid file; any other string is a dm-clrs algorithm name (`bubble_sort`).

Runs go to `OUT/runs/<algorithm>_<processor>_h<hidden>_s<seed>/`. A run
folder with `result.json` is done and skipped, so a killed grid resumes
where it stopped and loses at most the run in progress (result.json is
written atomically, last). The report (`results.md`, `results.json`,
figures) is rewritten from whatever runs are finished.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from algspec.training.config import TrainConfig, check_processor, option_names

ROLES = ("sequential", "parallel")


class GridError(ValueError):
    """A malformed grid file (reported as one line)."""


@dataclass
class Task:
    name: str
    sequential: str
    parallel: str

    def source(self, role: str) -> str:
        return self.sequential if role == "sequential" else self.parallel


@dataclass
class Grid:
    name: str
    tasks: list[Task]
    processors: list[str]
    hidden: list[int]
    seeds: list[int]
    train: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


@dataclass
class RunSpec:
    """One run of a grid: where it goes and its configuration."""

    task: str
    role: str
    processor: str
    hidden: int
    seed: int
    config: TrainConfig
    dir: Path

    @property
    def done(self) -> bool:
        return (self.dir / "result.json").is_file()


def _as_list(value: Any, key: str, kind: type) -> list:
    items = value if isinstance(value, list) else [value]
    try:
        return [kind(v) for v in items]
    except (TypeError, ValueError) as exc:
        raise GridError(f"{key}: expected {kind.__name__} values, got {value!r}") from exc


def resolve_algorithm(entry: str, base: Path) -> str:
    """A path relative to the grid file (normalised), or a dm-clrs name unchanged."""
    if entry.endswith(".alg") or "/" in entry:
        p = Path(entry)
        if not p.is_absolute():
            p = base / p
        try:
            return os.path.normpath(os.path.relpath(p))
        except ValueError:  # another drive (Windows)
            return os.path.normpath(p)
    return entry


def load_grid(path: str | Path) -> Grid:
    """Parse and validate a grid file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise GridError(f"{path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise GridError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise GridError(f"{path}: expected a mapping at the top level")
    known = {"name", "tasks", "processors", "hidden", "seeds", "train"}
    unknown = set(raw) - known
    if unknown:
        raise GridError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    base = path.parent
    tasks = []
    for i, t in enumerate(raw.get("tasks") or []):
        if not isinstance(t, dict) or not {"name", "sequential", "parallel"} <= set(t):
            raise GridError(f"{path}: tasks[{i}] needs name, sequential and parallel")
        tasks.append(Task(str(t["name"]), resolve_algorithm(str(t["sequential"]), base),
                          resolve_algorithm(str(t["parallel"]), base)))
    if not tasks:
        raise GridError(f"{path}: no tasks")
    processors = _as_list(raw.get("processors", ["mpnn"]), "processors", str)
    for p in processors:
        try:
            check_processor(p)
        except ValueError as exc:
            raise GridError(f"{path}: {exc}") from exc
    train = raw.get("train") or {}
    if not isinstance(train, dict):
        raise GridError(f"{path}: train must be a mapping of training options")
    bad = set(train) - set(option_names()) | ({"processor", "hidden", "seed"} & set(train))
    if bad:
        raise GridError(f"{path}: train: option(s) not allowed here: {', '.join(sorted(bad))} "
                        f"(allowed: {', '.join(o for o in option_names() if o not in ('processor', 'hidden', 'seed'))})")
    return Grid(
        name=str(raw.get("name") or path.stem),
        tasks=tasks,
        processors=processors,
        hidden=_as_list(raw.get("hidden", [128]), "hidden", int),
        seeds=_as_list(raw.get("seeds", [0]), "seeds", int),
        train=dict(train),
        path=path,
    )


def _stem(source: str) -> str:
    return Path(source).stem if source.endswith(".alg") else source


def plan(grid: Grid, out: Path) -> list[RunSpec]:
    """Every run of the grid, seeds outermost so that a partial grid covers all cells."""
    runs = []
    for seed in grid.seeds:
        for hidden in grid.hidden:
            for proc in grid.processors:
                for task in grid.tasks:
                    for role in ROLES:
                        src = task.source(role)
                        try:
                            cfg = TrainConfig(algorithm=src, processor=proc, hidden=hidden,
                                              seed=seed, **grid.train)
                        except (TypeError, ValueError) as exc:
                            raise GridError(f"train: {exc}") from exc
                        name = f"{_stem(src)}_{proc}_h{hidden}_s{seed}"
                        runs.append(RunSpec(task.name, role, proc, hidden, seed, cfg,
                                            out / "runs" / name))
    return runs


def _config_mismatch(run: RunSpec) -> list[str]:
    """Fields where a finished run's saved config differs from the grid's."""
    try:
        saved = json.loads((run.dir / "config.json").read_text())
    except (OSError, json.JSONDecodeError):
        return ["config.json unreadable"]
    want = run.config.to_dict()
    return [k for k in want if k != "algorithm" and saved.get(k) != want[k]]


def run_grid(
    grid: Grid,
    out: Path,
    *,
    progress: bool = True,
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
    train_fn: Callable[..., dict] | None = None,
) -> dict[str, Any]:
    """Run every unfinished run of the grid, then write the report."""
    if train_fn is None:
        from algspec.training.trainer import train as train_fn
    runs = plan(grid, out)
    missing = sorted({r.config.algorithm for r in runs
                      if r.config.algorithm.endswith(".alg")
                      and not Path(r.config.algorithm).is_file()})
    if missing:
        raise GridError(f"missing algorithm file(s): {', '.join(missing)}")
    for r in runs:
        if r.done and (diff := _config_mismatch(r)):
            raise GridError(
                f"{r.dir} was trained with other options ({', '.join(diff)}); "
                "use another output folder or delete that run"
            )
    out.mkdir(parents=True, exist_ok=True)
    todo = [r for r in runs if not r.done]
    log(f"{grid.name}: {len(runs)} runs, {len(runs) - len(todo)} done, {len(todo)} to go")
    failures = []
    for k, r in enumerate(todo, 1):
        log(f"[{k}/{len(todo)}] {r.task} {r.role}: {_stem(r.config.algorithm)} "
            f"{r.processor} h{r.hidden} seed {r.seed} -> {r.dir}")
        try:
            train_fn(r.config, r.dir, progress=progress)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one failed run must not stop the grid
            failures.append(f"{r.dir.name}: {type(exc).__name__}: {exc}")
            log(f"  failed: {type(exc).__name__}: {exc}")
    report = write_report(grid, out)
    report["failures"] = failures
    return report


def _mean_std(xs: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(xs)
    std = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return mean, std


def _step_time(result: dict[str, Any]) -> float | None:
    """Seconds per step at the largest training size (the paper's n = 16), else overall."""
    by_size = result.get("seconds_per_step_by_size") or {}
    sizes = sorted((int(k) for k, v in by_size.items() if v is not None), reverse=True)
    if sizes:
        return float(by_size[str(sizes[0])])
    return result.get("seconds_per_step")


def collect(grid: Grid, out: Path) -> list[dict[str, Any]]:
    """Finished runs of the grid, each its result.json plus grid coordinates."""
    rows = []
    for r in plan(grid, out):
        if not r.done:
            continue
        res = json.loads((r.dir / "result.json").read_text())
        rows.append({"task": r.task, "role": r.role, "processor": r.processor,
                     "hidden": r.hidden, "seed": r.seed, "dir": str(r.dir), "result": res})
    return rows


def _fmt(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "–"
    return f"{100 * cell['mean']:.1f}% ± {100 * cell['std']:.1f}"


def write_report(grid: Grid, out: Path) -> dict[str, Any]:
    """results.md, results.json and the figures from the finished runs."""
    from algspec.training.plots import plot_task_curves, plot_time_ratio, read_metrics

    rows = collect(grid, out)
    table: dict[int, dict[str, dict[str, dict[str, Any]]]] = {}
    times: dict[int, dict[str, dict[str, dict[str, float]]]] = {}
    for h in grid.hidden:
        table[h], times[h] = {}, {}
        for p in grid.processors:
            table[h][p] = {}
            for t in grid.tasks:
                for role in ROLES:
                    sel = [x["result"] for x in rows if x["hidden"] == h and
                           x["processor"] == p and x["task"] == t.name and x["role"] == role]
                    if not sel:
                        continue
                    mean, std = _mean_std([s["test"]["score"] for s in sel])
                    steps = [st for s in sel if (st := _step_time(s)) is not None]
                    table[h][p][f"{t.name}/{role}"] = {
                        "mean": mean, "std": std, "n": len(sel),
                        "seconds_per_step": statistics.fmean(steps) if steps else None,
                    }

    lines = [f"# {grid.name}: out-of-distribution micro-F1", ""]
    n_done, n_all = len(rows), len(plan(grid, out))
    first = rows[0]["result"] if rows else {}
    lines.append(f"{n_done} of {n_all} runs finished. Test at n = {first.get('test', {}).get('size', '?')}"
                 f", mean ± sample std over seeds {grid.seeds}; "
                 f"device: {first.get('device', '?')}.")
    if first:
        wall = sum(x["result"].get("train_seconds", 0.0) + x["result"].get("test_seconds", 0.0)
                   for x in rows)
        lines.append(f"Training: {first.get('steps')} steps of batch {first.get('batch_size')} "
                     f"on sizes {first.get('train_sizes')}; best-by-validation parameters tested. "
                     f"Train + test time of the finished runs: {wall / 60:.1f} min.")
    lines.append("")
    figures: dict[str, str] = {}
    time_ratios: dict[int, dict[str, dict[str, float]]] = {}
    for h in grid.hidden:
        lines += [f"## Hidden size {h}", ""]
        head1 = "| Arch. | " + " | ".join(f"{t.name} seq. | {t.name} par." for t in grid.tasks) + " |"
        head2 = "|---|" + "---|---|" * len(grid.tasks)
        sub = "| | " + " | ".join(f"{_stem(t.sequential)} | {_stem(t.parallel)}"
                                  for t in grid.tasks) + " |"
        lines += [head1, head2, sub]
        for p in grid.processors:
            cells = []
            for t in grid.tasks:
                seq = table[h][p].get(f"{t.name}/sequential")
                par = table[h][p].get(f"{t.name}/parallel")
                s, q = _fmt(seq), _fmt(par)
                if seq and par and not math.isclose(seq["mean"], par["mean"]):
                    if seq["mean"] > par["mean"]:
                        s = f"**{s}**"
                    else:
                        q = f"**{q}**"
                cells += [s, q]
            lines.append(f"| {p} | " + " | ".join(cells) + " |")
        lines.append("")
        # Time per step (paper's Figure 4).
        lines += [f"Seconds per training step at the largest training size (hidden {h}):", "",
                  "| Arch. | " + " | ".join(f"{t.name} seq. | {t.name} par. | ratio"
                                           for t in grid.tasks) + " |",
                  "|---|" + "---|---|---|" * len(grid.tasks)]
        time_ratios[h] = {t.name: {} for t in grid.tasks}
        for p in grid.processors:
            cells = []
            for t in grid.tasks:
                seq = (table[h][p].get(f"{t.name}/sequential") or {}).get("seconds_per_step")
                par = (table[h][p].get(f"{t.name}/parallel") or {}).get("seconds_per_step")
                ratio = seq / par if seq and par else None
                if ratio is not None:
                    time_ratios[h][t.name][p] = ratio
                cells += [f"{seq:.4f}" if seq else "–", f"{par:.4f}" if par else "–",
                          f"{ratio:.2f}×" if ratio else "–"]
            lines.append(f"| {p} | " + " | ".join(cells) + " |")
        lines.append("")
        if any(time_ratios[h].values()):
            png = out / f"time_ratio_h{h}.png"
            plot_time_ratio(time_ratios[h], png,
                            title=f"{grid.name}: time per step, sequential / parallel (hidden {h})")
            figures[f"time_ratio_h{h}"] = png.name
        # Loss and validation curves per task (paper's Figure 5).
        for t in grid.tasks:
            curves: dict[str, dict[str, list]] = {}
            for p in grid.processors:
                for role in ROLES:
                    for x in rows:
                        if (x["hidden"], x["processor"], x["task"], x["role"]) == (h, p, t.name,
                                                                                   role):
                            m = Path(x["dir"]) / "metrics.jsonl"
                            if m.is_file():
                                curves.setdefault(p, {}).setdefault(role, []).append(
                                    read_metrics(m))
            if curves:
                png = out / f"curves_{_slug(t.name)}_h{h}.png"
                plot_task_curves(curves, {"sequential": _stem(t.sequential),
                                          "parallel": _stem(t.parallel)}, png,
                                 title=f"{t.name}, hidden {h}: loss (solid), validation (dashed)")
                figures[f"curves_{_slug(t.name)}_h{h}"] = png.name
        figs = [f for k, f in figures.items() if k.endswith(f"_h{h}")]
        if figs:
            lines += [f"![{f}]({f})" for f in figs] + [""]
    (out / "results.md").write_text("\n".join(lines) + "\n")
    report = {
        "grid": grid.name,
        "finished": n_done,
        "total": n_all,
        "table": {str(h): v for h, v in table.items()},
        "time_ratio": {str(h): v for h, v in time_ratios.items()},
        "figures": figures,
        "runs": rows,
    }
    tmp = out / "results.json.tmp"
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    os.replace(tmp, out / "results.json")
    return report


def _slug(name: str) -> str:
    return "".join(c.lower() if c.isalnum() else "_" for c in name).strip("_")
