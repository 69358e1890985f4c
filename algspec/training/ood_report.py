"""A grid's out-of-distribution part: every finished run swept over sizes and graph
families (`algspec.training.ood`), and the report's tables and figures that set each
task's sequential algorithm beside its parallel one as n grows."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from algspec.training.grid import ROLES, Grid, GridError, OodPlan, RunSpec, _label
from algspec.training.ood import cell_value, check_families, run_sweep

OOD_FOLDER = "ood"


def check_grid_families(plan: OodPlan, runs: list[RunSpec]) -> None:
    """Refuse, before anything trains, a family some run's file cannot draw."""
    seen: set[str] = set()
    for r in runs:
        if r.config.algorithm in seen:
            continue
        seen.add(r.config.algorithm)
        try:
            check_families(r.config, None, plan.families)
        except ValueError as exc:
            raise GridError(f"ood: {r.config.algorithm}: {exc}") from None


def sweep_runs(plan: OodPlan, runs: list[RunSpec], progress: bool,
               log: Callable[[str], None]) -> list[str]:
    """Sweep each finished run (cells already tested are kept); the failures, one line each.

    Runs of one file go one after another and share their test sets."""
    failures = []
    runs = sorted(runs, key=lambda r: (r.config.algorithm, r.seed))
    shared: dict[tuple, tuple] = {}
    current = None
    for k, r in enumerate(runs, 1):
        if (r.config.algorithm, r.seed) != current:
            current = (r.config.algorithm, r.seed)
            shared.clear()  # keep one file's test sets at a time
        log(f"[ood {k}/{len(runs)}] {r.dir.name}: n = {', '.join(map(str, plan.sizes))} on "
            f"{', '.join(plan.families)}")
        try:
            run_sweep(r.dir, plan.sizes, plan.families, plan.samples, r.dir / OOD_FOLDER,
                      plan.batch_size, progress=progress, log=lambda line: log(f"  {line}"),
                      shared=shared, **({"jobs": plan.jobs} if plan.jobs else {}))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one failed sweep must not stop the others
            failures.append(f"{r.dir.name} (ood): {type(exc).__name__}: {exc}")
    return failures


def collect_cells(rows: list[dict[str, Any]], plan: OodPlan) -> dict[tuple, list[float]]:
    """Scores of the finished sweeps by (hidden, task, processor, role, family, size)."""
    cells: dict[tuple, list[float]] = {}
    for x in rows:
        path = Path(x["dir"]) / OOD_FOLDER / "ood.json"
        if x["role"] not in ROLES or not path.is_file():
            continue
        for c in json.loads(path.read_text())["cells"]:
            if c["family"] in plan.families and c["size"] in plan.sizes:
                key = (x["hidden"], x["task"], x["processor"], x["role"], c["family"], c["size"])
                cells.setdefault(key, []).append(cell_value(c))
    return cells


def _text(values: list[float] | None) -> str:
    if not values:
        return "–"
    mean = statistics.fmean(values)
    if len(values) == 1:  # one seed: no spread to show
        return f"{100 * mean:.1f}"
    return f"{100 * mean:.1f} ± {100 * statistics.stdev(values):.1f}"


def ood_section(grid: Grid, rows: list[dict[str, Any]], out: Path
                ) -> tuple[list[str], dict[str, Any]]:
    """The report's lines, its JSON table and its figures for the grid's `ood:` plan."""
    from algspec.training.plots import plot_ood_pairs

    plan = grid.ood
    assert plan is not None
    cells = collect_cells(rows, plan)
    sizes = list(plan.sizes)
    lines = ["## Out of distribution", "",
             (f"Each finished run tested at n = {', '.join(map(str, sizes))} on "
             f"{', '.join(plan.families)} (`trained` is the run's own input distribution); "
             "micro-F1 (%), mean ± sample std over seeds where there are several; one test "
             "set per cell "
             "(`RUN/ood/`)."), ""]
    table: dict[str, Any] = {}
    figures: dict[str, str] = {}
    for h in grid.hidden:
        for t in grid.tasks:
            if not any(k[0] == h and k[1] == t.name for k in cells):
                continue
            lines += [f"### {t.name}, hidden {h}", "",
                      "| Arch. | algorithm | family | " + " | ".join(f"n={n}" for n in sizes)
                      + " |", "|---|---|---|" + "---:|" * len(sizes)]
            curves: dict[str, dict[tuple[str, str], list[tuple[int, float]]]] = {}
            for p in grid.processors:
                for role in ROLES:
                    for f in plan.families:
                        vals = [cells.get((h, t.name, p, role, f, n)) for n in sizes]
                        if not any(vals):
                            continue
                        lines.append(f"| {p} | {_label(t.source(role))} | {f} | "
                                     + " | ".join(_text(v) for v in vals) + " |")
                        means = {n: statistics.fmean(v) for n, v in zip(sizes, vals) if v}
                        table.setdefault(str(h), {}).setdefault(t.name, {}).setdefault(
                            p, {}).setdefault(role, {})[f] = {str(n): m for n, m in means.items()}
                        curves.setdefault(p, {})[(role, f)] = sorted(means.items())
            lines += ["", *_verdict(table.get(str(h), {}).get(t.name, {}), sizes), ""]
            png = out / f"ood_{_slug(t.name)}_h{h}.png"
            plot_ood_pairs(curves, {"sequential": _label(t.sequential),
                                    "parallel": _label(t.parallel)}, png,
                           title=f"{t.name}, hidden {h}: score against test size")
            figures[f"ood_{_slug(t.name)}_h{h}"] = png.name
            lines += [f"![{png.name}]({png.name})", ""]
    return lines, {"table": table, "figures": figures}


def _verdict(task_table: dict[str, Any], sizes: list[int]) -> list[str]:
    """Which role holds up further: at the largest size, how often parallel beats sequential
    (same processor and family), and each role's mean score at the smallest and largest n."""
    lo, hi = str(min(sizes)), str(max(sizes))
    wins = ties = pairs = 0
    ends: dict[str, dict[str, list[float]]] = {role: {lo: [], hi: []} for role in ROLES}
    for by_role in task_table.values():
        for f, par in by_role.get("parallel", {}).items():
            seq = by_role.get("sequential", {}).get(f)
            if seq and hi in seq and hi in par:
                pairs += 1
                wins += par[hi] > seq[hi] + 1e-9
                ties += abs(par[hi] - seq[hi]) <= 1e-9
        for role in ROLES:
            for scores in by_role.get(role, {}).values():
                for end in (lo, hi):
                    if end in scores:
                        ends[role][end].append(scores[end])
    if not pairs:
        return []
    means = "; ".join(
        f"{role} {100 * statistics.fmean(e[lo]):.1f} at n={lo} -> "
        f"{100 * statistics.fmean(e[hi]):.1f} at n={hi}"
        for role, e in ends.items() if e[lo] and e[hi])
    return [(f"At n={hi} the parallel algorithm scores higher in {wins} of {pairs} "
            f"(processor, family) pairs ({ties} equal). Mean over them: {means}.")]


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).strip("_").lower()
