"""Figures of runs and grids (matplotlib, Agg backend, imported lazily).

- `plot_run`: loss and validation score over steps of one run.
- `plot_time_ratio`: the paper's Figure 4, time per training step of each
  sequential algorithm relative to its parallel counterpart.
- `plot_task_curves`: the paper's Figure 5, losses (solid) and validation
  scores (dashed) over steps, sequential in orange, parallel thicker in
  turquoise, one panel per processor.
- `plot_ood`: an out-of-distribution sweep, score against n per graph family;
  `plot_ood_pairs`: a grid task's sweeps, sequential beside parallel.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SEQ_COLOR = "#e69f00"  # orange
PAR_COLOR = "#1aa39a"  # turquoise


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def read_metrics(path: str | Path) -> list[dict[str, Any]]:
    """The records of a metrics.jsonl file (a torn last line is ignored)."""
    records = []
    with open(path) as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return records


def _val_curve(records: Sequence[dict[str, Any]]) -> tuple[str, list[float]]:
    """What the validation curve is and its values: micro-F1, or the MSE of a run whose
    outputs are all scalar (its score is minus the MSE; the plot shows the MSE itself)."""
    if records and all(r.get("val_metric") == "neg_mse" for r in records):
        return "MSE", [-float(r["val_score"]) for r in records]
    return "micro-F1", [float(r["val_score"]) for r in records]


def plot_run(metrics_path: str | Path, png: str | Path, title: str = "") -> None:
    """Loss (left axis, log scale) and validation score (right axis) of one run."""
    plt = _pyplot()
    records = read_metrics(metrics_path)
    steps = [r["step"] for r in records]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, [r["loss"] for r in records], color="tab:blue", label="training loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    if records and min(r["loss"] for r in records) > 0:
        ax.set_yscale("log")
    ax2 = ax.twinx()
    name, values = _val_curve(records)
    ax2.plot(steps, values, color="tab:red", linestyle="--", label=f"validation {name}")
    ax2.set_ylabel(f"validation {name}")
    if name == "micro-F1":
        ax2.set_ylim(0, 1.02)
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], loc="center right", fontsize=8)
    ax.set_title(title, fontsize=9)
    _save_whole(plt, fig, png)


def plot_time_ratio(
    ratios: Mapping[str, Mapping[str, float]], png: str | Path, title: str = ""
) -> None:
    """Grouped bars: task -> processor -> (seq time per step / par time per step)."""
    plt = _pyplot()
    tasks = list(ratios)
    procs = sorted({p for r in ratios.values() for p in r})
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * max(1, len(tasks)), 3.5))
    width = 0.8 / max(1, len(procs))
    for j, proc in enumerate(procs):
        xs = [i + (j - (len(procs) - 1) / 2) * width for i in range(len(tasks))]
        ys = [ratios[t].get(proc, float("nan")) for t in tasks]
        bars = ax.bar(xs, ys, width=width, label=proc)
        for x, y, _bar in zip(xs, ys, bars, strict=True):
            if not math.isnan(y):
                ax.text(x, y, f"{y:.1f}", ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(range(len(tasks)), tasks)
    ax.set_ylabel("time per step, sequential / parallel")
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    _save_whole(plt, fig, png)


def plot_task_curves(
    curves: Mapping[str, Mapping[str, Sequence[Sequence[dict[str, Any]]]]],
    labels: Mapping[str, str],
    png: str | Path,
    title: str = "",
) -> None:
    """One panel per processor; curves[processor][role] = metrics of each seed.

    `role` is "sequential" or "parallel"; the mean over seeds is drawn, loss
    on the left axis (solid), validation micro-F1 (or MSE, for all-scalar
    outputs: see `_val_curve`) on the right (dashed).
    """
    import numpy as np

    plt = _pyplot()
    procs = list(curves)
    fig, axes = plt.subplots(1, max(1, len(procs)), figsize=(4 * max(1, len(procs)), 3.2),
                             squeeze=False)
    for ax, proc in zip(axes[0], procs, strict=False):
        ax2 = ax.twinx()
        names = set()
        for role, color, lw in (("sequential", SEQ_COLOR, 1.2), ("parallel", PAR_COLOR, 2.0)):
            runs = [r for r in curves[proc].get(role, []) if r]
            if not runs:
                continue
            n = min(len(r) for r in runs)
            steps = [rec["step"] for rec in runs[0][:n]]
            loss = np.mean([[rec["loss"] for rec in r[:n]] for r in runs], axis=0)
            curves_ = [_val_curve(r[:n]) for r in runs]
            names |= {c[0] for c in curves_}
            val = np.mean([c[1] for c in curves_], axis=0)
            name = labels.get(role, role)
            ax.plot(steps, loss, color=color, linewidth=lw, label=f"{name} loss")
            ax2.plot(steps, val, color=color, linewidth=lw, linestyle="--",
                     label=f"{name} val")
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        if names <= {"micro-F1"}:
            ax2.set_ylim(0, 1.02)
        ax2.set_ylabel("validation " + " / ".join(sorted(names) or ["micro-F1"]))
        ax.set_title(proc, fontsize=9)
        lines = ax.get_lines() + ax2.get_lines()
        ax.legend(lines, [ln.get_label() for ln in lines], fontsize=6, loc="center right")
    fig.suptitle(title, fontsize=10)
    _save_whole(plt, fig, png)


def plot_ood(series: Mapping[str, Sequence[tuple[int, float]]], ylabel: str, title: str,
             png: str | Path) -> None:
    """An out-of-distribution sweep: score against n (log scale), one line per family."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for family, points in series.items():
        points = sorted(points)
        ax.plot([n for n, _ in points], [v for _, v in points], marker="o", label=family)
    _size_axis(ax, [n for points in series.values() for n, _ in points])
    ax.set_xlabel("n (test size)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save_whole(plt, fig, png)


def plot_ood_pairs(curves: Mapping[str, Mapping[tuple[str, str], Sequence[tuple[int, float]]]],
                   labels: Mapping[str, str], png: str | Path, title: str = "") -> None:
    """A grid task out of distribution: one panel per processor, score against n (log),
    sequential in orange and parallel in turquoise, one line style per graph family."""
    plt = _pyplot()
    procs = list(curves)
    fig, axes = plt.subplots(1, max(len(procs), 1), figsize=(max(5.0, 3.2 * len(procs)), 3.6),
                             squeeze=False, sharey=True)
    families = sorted({f for c in curves.values() for _, f in c})
    styles = ["-", "--", ":", "-."]
    for ax, p in zip(axes[0], procs):
        for (role, family), points in sorted(curves[p].items()):
            color = SEQ_COLOR if role == "sequential" else PAR_COLOR
            ax.plot([n for n, _ in points], [v for _, v in points], color=color, marker="o",
                    ms=3, linestyle=styles[families.index(family) % len(styles)],
                    linewidth=1.2 if role == "sequential" else 2.0,
                    label=f"{labels.get(role, role)}, {family}")
        _size_axis(ax, [n for points in curves[p].values() for n, _ in points])
        ax.set_title(p, fontsize=9)
        ax.set_xlabel("n")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("score")
    axes[0][-1].legend(fontsize=6)
    if title:
        fig.suptitle(title, fontsize=9)
    _save_whole(plt, fig, png)


def _size_axis(ax: Any, sizes: Sequence[int]) -> None:
    """A log-scale axis of test sizes, labelled at the sizes themselves."""
    ax.set_xscale("log")
    ticks = sorted(set(sizes))
    ax.set_xticks(ticks, [str(n) for n in ticks])
    ax.minorticks_off()


def _save_whole(plt: Any, fig: Any, png: str | Path) -> None:
    """Write the figure beside `png`, then move it into place: never half a file."""
    from algspec.process.output_files import atomic_path

    fig.tight_layout()
    png = Path(png)
    try:
        with atomic_path(png) as tmp:
            fig.savefig(tmp, dpi=120, format=png.suffix[1:].lower() or "png")
    finally:
        plt.close(fig)
