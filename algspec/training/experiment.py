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

A grid may also (or instead) list *variants*: single algorithms, each a
hypothesis tested against a reference score (the paper's), with its own
training overrides or processors, reported as one table per hidden size
under `variants_title`::

    variants_title: Parallel search
    reference: {label: "paper (Table 2)", score: 1.0}
    variants:
      - {name: frame0_mask, algorithm: parallel-search/ps_frame0_mask.alg,
         note: "mask in the first hint frame"}
      - {name: no_hints, algorithm: ../algorithms/parallel_search.alg,
         train: {hint_mode: none}}
      - {name: gat_full, algorithm: ../algorithms/parallel_search.alg,
         processors: [gat_full]}
    notes: |
      Markdown written at the end of the report (the analysis).

Variant runs go to `OUT/runs/<variant>_<processor>_h<hidden>_s<seed>/`.
Runs are trained here one after another, or side by side by
`algspec.training.launch` (`--jobs N`, `--launcher ray`).

Runs go to `OUT/runs/<algorithm>_<processor>_h<hidden>_s<seed>/` (`<algorithm>` is
the file stem; two files with one stem get their folder in front, as in
`clrs-bellman_ford` and `parallel-bellman_ford`). results.md also sets each
task's static eta and epsilon beside its scores (`efficiency_table`). A run
folder with `result.json` is done and skipped, so a killed grid resumes
where it stopped and loses at most the run in progress (result.json is
written atomically, last). The report (`results.md`, `results.json`,
figures) is rewritten from whatever runs are finished.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from algspec.language.source_file import is_algorithm_file_name
from algspec.training.grid import (  # noqa: F401 - the grid's data model, re-exported
    LAUNCHERS,
    ROLES,
    Grid,
    GridError,
    RunSpec,
    Task,
    Variant,
    _config_mismatch,
    _label,
    _stem,
    load_grid,
    plan,
    resolve_algorithm,
    select_only,
)
from algspec.training.grid_progress import GridProgress, outcome_line
from algspec.training.ood_report import (
    check_grid_families,
    ood_section,
    sweep_runs,
)
from algspec.training.runs import read_result


def run_grid(
    grid: Grid,
    out: Path,
    *,
    progress: bool = True,
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
    train_fn: Callable[..., dict] | None = None,
    jobs: int | None = None,
    launcher: str = "local",
    address: str | None = None,
    retries: int = 1,
    gpus_per_run: float = 0.0,
    worker_cmd: list[str] | None = None,
    only: list[str] | None = None,
    checkpoint_every: int | None = None,
) -> dict[str, Any]:
    """Run every unfinished run of the grid, then write the report.

    A run folder another process holds (a second grid on the same folder) is
    skipped, and said so (`report["skipped"]`); a run with a checkpoint resumes
    from it (`checkpoint_every`: see `trainer.train`; not with Ray's scratch folders).

    `jobs` = 1 (or None) with the local launcher trains in this process, one run
    after another (`train_fn` stands in for the trainer in tests); `jobs` > 1 runs
    that many worker processes side by side, and `launcher="ray"` sends the
    runs to a Ray cluster (`address`) or a local Ray instance (see
    `algspec.training.launch`), at most `jobs` in flight (None: as many as the
    cluster's resources allow). Either way a run is done only once its
    result.json exists, so an interrupted grid resumes where it stopped.
    `only` (shell patterns on run folder names) restricts which runs are
    trained now; the report still covers every finished run.
    """
    if launcher not in LAUNCHERS:
        raise GridError(f"unknown launcher {launcher!r}; valid: {', '.join(LAUNCHERS)}")
    if (jobs is not None and jobs < 1) or retries < 0:
        raise GridError("jobs must be at least 1 and retries at least 0")
    check_report_owner(grid, out)
    runs = plan(grid, out)
    missing = sorted({r.config.algorithm for r in runs
                      if is_algorithm_file_name(r.config.algorithm)
                      and not Path(r.config.algorithm).is_file()})
    if missing:
        raise GridError(f"missing algorithm file(s): {', '.join(missing)}")
    if grid.ood is not None:
        check_grid_families(grid.ood, runs)
    for r in runs:
        if r.done and (diff := _config_mismatch(r)):
            raise GridError(
                f"{r.dir} was trained with other options ({', '.join(diff)}); "
                "use another output folder or delete that run"
            )
    notes: list[str] = []
    chosen = select_only(runs, only, notes.append)
    unfinished = [r for r in runs if not r.done]
    todo = list({r.dir: r for r in chosen if not r.done}.values())  # one run per folder
    log(f"{grid.name}: {len(runs)} runs, {len(runs) - len(unfinished)} done, "
        f"{len(unfinished)} to go" + (f", {len(todo)} of them now" if only else "")
        + (f" ({launcher}, {jobs or 1} at a time)" if launcher == "local" and (jobs or 1) > 1
           else f" (ray, {jobs} at a time)" if launcher == "ray" and jobs
           else " (ray, as many at a time as the cluster allows)" if launcher == "ray"
           else ""))
    for note in notes:
        log(note)
    failures: list[str] = []
    skipped: list[str] = []
    if launcher == "ray" or (jobs or 1) > 1:
        from algspec.training import launch

        if launcher == "ray":
            outcomes = launch.run_ray(todo, log, address=address, jobs=jobs,
                                      retries=retries, gpus_per_run=gpus_per_run,
                                      train_fn=train_fn)
        else:
            outcomes = launch.run_local(todo, jobs or 1, log, retries=retries, worker_cmd=worker_cmd,
                                        checkpoint_every=checkpoint_every)
        failures = [f"{o.run.dir.name}: {o.error}" for o in outcomes if not o.ok and not o.busy]
        skipped = [f"{o.run.dir.name}: {o.error}" for o in outcomes if o.busy]
    else:
        failures, skipped = _run_here(todo, train_fn, progress, log, checkpoint_every)
    if grid.ood is not None:
        failures += sweep_runs(grid.ood, [r for r in chosen if r.done], progress, log)
    out.mkdir(parents=True, exist_ok=True)  # after the launcher started: a refused one leaves
    report = write_report(grid, out)        # no folder behind
    report["failures"] = failures
    report["skipped"] = skipped
    return report


def check_report_owner(grid: Grid, out: Path) -> None:
    """Refuse an output folder whose report (results.json) is another grid's: this grid's
    report would replace it. The same grid, edited (more seeds, say), may extend its own."""
    try:
        owner = json.loads((out / "results.json").read_text()).get("grid")
    except (OSError, ValueError, AttributeError):  # none yet, or not a report of ours
        return
    if isinstance(owner, str) and owner != grid.name:
        raise GridError(f"{out} holds the report of grid {owner!r}, not {grid.name!r}; "
                        "choose another output folder (-o)")


def _run_here(todo: list[RunSpec], train_fn: Callable[..., dict] | None, progress: bool,
              log: Callable[[str], None], checkpoint_every: int | None = None
              ) -> tuple[list[str], list[str]]:
    """Train `todo` in this process, one after another; the failures and the runs skipped
    because another process holds their folder, one line each. A run found finished when
    its turn comes (another process did it) is kept as it is. An exception raised because
    of a Ctrl-C (a compiler killed by it) stops the grid as the Ctrl-C does."""
    from algspec.process.interrupts import caused_by_interrupt
    from algspec.process.output_files import OutputBusy

    if train_fn is None:
        from algspec.training.trainer import train as train_fn
    extra = {} if checkpoint_every is None else {"checkpoint_every": checkpoint_every}
    tracker = GridProgress(len(todo))
    failures: list[str] = []
    skipped: list[str] = []
    for k, r in enumerate(todo, 1):
        if r.done:
            tracker.finished(True)
            log(outcome_line(k, len(todo), r.dir.name, read_result(r.dir), None,
                             tracker.status(0)))
            continue
        log(f"[{k}/{len(todo)}] {r.task} {r.role}: {_stem(r.config.algorithm)} "
            f"{r.processor} h{r.hidden} seed {r.seed} -> {r.dir}  ({tracker.status(1)})")
        error = None
        try:
            train_fn(r.config, r.dir, progress=progress, **extra)
        except KeyboardInterrupt:
            raise
        except OutputBusy as exc:  # another grid trains it now: not twice, not a failure
            skipped.append(f"{r.dir.name}: {exc}")
            tracker.finished(False, skipped=True)
            log(f"[{k}/{len(todo)}] skipped {r.dir.name}: {exc}  ({tracker.status(0)})")
            continue
        except Exception as exc:  # one failed run must not stop the grid
            if caused_by_interrupt(exc):
                raise KeyboardInterrupt from exc
            error = f"{type(exc).__name__}: {exc}"
            failures.append(f"{r.dir.name}: {error}")
        tracker.finished(error is None)
        log(outcome_line(k, len(todo), r.dir.name, read_result(r.dir) if error is None
                         else None, error, tracker.status(0)))
    return failures, skipped


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
                     "hidden": r.hidden, "seed": r.seed, "dir": str(r.dir), "result": res,
                     "variant": r.variant})
    return rows


SCORE_NOTE = ("Scores say what they are: micro-F1 (%) pools every output that is not a "
              "scalar; an algorithm whose outputs are all scalar is scored by their mean "
              "squared error (MSE, lower is better), and where a file has scalar outputs beside "
              "others their MSE follows its micro-F1. Mean ± sample std over seeds.")


def score_cell(splits: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean ± std of one split's scores over seeds, with the metric they share (`mixed`
    if runs disagree) and the mean scalar MSE where the runs report one."""
    mean, std = _mean_std([float(x["score"]) for x in splits])
    metrics = {x.get("metric", "micro_f1") for x in splits}
    mses = [float(x["mse"]) for x in splits if x.get("mse") is not None]
    return {"mean": mean, "std": std, "n": len(splits),
            "metric": metrics.pop() if len(metrics) == 1 else "mixed",
            "mse": statistics.fmean(mses) if mses else None}


def _fmt(cell: dict[str, Any] | None) -> str:
    """A score cell as the report prints it: `81.2% ± 3.1` (micro-F1, with `; MSE 0.012`
    when scalar outputs are beside it) or `MSE 0.012 ± 0.003` (all outputs scalar)."""
    if not cell:
        return "–"
    spread = cell.get("n", 2) > 1  # one seed has no spread to show
    if cell.get("metric") == "neg_mse":
        return f"MSE {-cell['mean']:.3g}" + (f" ± {cell['std']:.2g}" if spread else "")
    text = f"{100 * cell['mean']:.1f}%" + (f" ± {100 * cell['std']:.1f}" if spread else "")
    if cell.get("metric") == "mixed":
        text += " (mixed metrics)"
    if cell.get("mse") is not None:
        text += f"; MSE {cell['mse']:.3g}"
    return text


def write_report(grid: Grid, out: Path, *, keep_record: bool = False) -> dict[str, Any]:
    """results.md, results.json and the figures from the finished runs, written holding the
    grid's report (a second grid on the same folder waits for it, then writes its own).

    `keep_record` (`--report-only`): an existing results.json is kept byte for byte when
    the finished runs give every value it holds (only fields added since it was written
    would differ), so re-rendering a committed report does not rewrite its data record."""
    from algspec.process import output_files

    check_report_owner(grid, out)
    with output_files.claim(out / "results.json", wait_s=REPORT_WAIT_S):
        return _write_report(grid, out, keep_record)


def _holds_same_values(old: Any, new: Any) -> bool:
    """Whether `new` has every key and value of `old` (keys `new` adds are ignored)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(
            k in new and _holds_same_values(v, new[k]) for k, v in old.items())
    if isinstance(old, list):
        return isinstance(new, list) and len(old) == len(new) and all(
            _holds_same_values(a, b) for a, b in zip(old, new, strict=True))
    return old == new and isinstance(old, bool) == isinstance(new, bool)


def _kept_record(path: Path, report: dict[str, Any]) -> bool:
    """Whether results.json at `path` already records `report`'s values (see `write_report`)."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return _holds_same_values(old, json.loads(json.dumps(report)))


REPORT_WAIT_S = 60.0  # how long a grid waits for another one writing the same report


def _write_report(grid: Grid, out: Path, keep_record: bool = False) -> dict[str, Any]:
    from algspec.process import output_files
    from algspec.training.efficiency_table import efficiency_section

    rows = collect(grid, out)
    table = _score_table(grid, rows)
    n_done, n_all = len(rows), len(plan(grid, out))
    lines = _header_lines(grid, rows, n_done, n_all)
    eff_lines, eff_table = efficiency_section(grid.tasks, table, _stem)
    lines += eff_lines
    figures: dict[str, str] = {}
    time_ratios: dict[int, dict[str, dict[str, float]]] = {}
    for h in grid.hidden if grid.tasks else []:
        lines += _scores_lines(grid, table[h], h)
        time_lines, time_ratios[h] = _time_lines(grid, table[h], h)
        lines += time_lines
        figures.update(_hidden_figures(grid, rows, out, h, time_ratios[h]))
        figs = [f for k, f in figures.items() if k.endswith(f"_h{h}")]
        if figs:
            lines += [f"![{f}]({f})" for f in figs] + [""]
    ood_lines, ood_table = ood_section(grid, rows, out) if grid.ood else ([], {})
    lines += ood_lines
    figures.update(ood_table.get("figures", {}))
    variant_lines, variant_table = _variants_section(grid, rows)
    lines += variant_lines
    if grid.notes.strip():
        lines += [grid.notes.strip(), ""]
    output_files.write_text(out / "results.md", "\n".join(lines) + "\n")
    report = {
        "grid": grid.name,
        "finished": n_done,
        "total": n_all,
        "table": {str(h): v for h, v in table.items()},
        "time_ratio": {str(h): v for h, v in time_ratios.items()},
        "figures": figures,
        "variants": variant_table,
        "efficiency": eff_table,
        "ood": ood_table.get("table", {}),
        "runs": rows,
    }
    if not (keep_record and _kept_record(out / "results.json", report)):
        output_files.write_text(out / "results.json", json.dumps(report, indent=2) + "\n")
    return report


def _score_table(grid: Grid, rows: list[dict[str, Any]]
                 ) -> dict[int, dict[str, dict[str, dict[str, Any]]]]:
    """hidden -> processor -> "task/role" -> the test score cell and seconds per step."""
    table: dict[int, dict[str, dict[str, dict[str, Any]]]] = {}
    for h in grid.hidden:
        table[h] = {}
        for p in grid.processors:
            table[h][p] = {}
            for t in grid.tasks:
                for role in ROLES:
                    sel = [x["result"] for x in rows if x["hidden"] == h and
                           x["processor"] == p and x["task"] == t.name and x["role"] == role]
                    if not sel:
                        continue
                    steps = [st for s in sel if (st := _step_time(s)) is not None]
                    table[h][p][f"{t.name}/{role}"] = {
                        **score_cell([s["test"] for s in sel]),
                        "seconds_per_step": statistics.fmean(steps) if steps else None,
                    }
    return table


def _header_lines(grid: Grid, rows: list[dict[str, Any]], n_done: int, n_all: int) -> list[str]:
    """The title, how many runs finished, and the setting they share (sizes, device, model)."""
    lines = [f"# {grid.name}: out-of-distribution test scores", "", SCORE_NOTE, ""]
    first = rows[0]["result"] if rows else {}
    # runs saved before result.json named its backend were dm-clrs's model
    models = sorted({(x["result"].get("backend", "clrs"), x["result"].get("graph", "dense"))
                     for x in rows})
    model_text = ", ".join(f"backend {b}" + (f" ({g})" if b != "clrs" else "")
                           for b, g in models) or "-"
    lines.append(f"{n_done} of {n_all} runs finished. Test at n = {first.get('test', {}).get('size', '?')}"
                 + (f", mean ± sample std over seeds {grid.seeds}; " if len(grid.seeds) > 1
                    else f", one seed ({grid.seeds[0]}): no spread; ")
                 + f"device: {first.get('device', '?')}; model: {model_text}.")
    if first:
        wall = sum(x["result"].get("train_seconds", 0.0) + x["result"].get("test_seconds", 0.0)
                   for x in rows)
        lines.append(f"Training: {first.get('steps')} steps of batch {first.get('batch_size')} "
                     f"on sizes {first.get('train_sizes')}; best-by-validation parameters tested. "
                     f"Train + test time of the finished runs: {wall / 60:.1f} min.")
    lines.append("")
    return lines


def _scores_lines(grid: Grid, table: dict[str, dict[str, dict[str, Any]]], h: int) -> list[str]:
    """The scores table of one hidden size: the better of sequential and parallel in bold."""
    lines = [f"## Hidden size {h}", ""]
    head1 = "| Arch. | " + " | ".join(f"{t.name} seq. | {t.name} par." for t in grid.tasks) + " |"
    head2 = "|---|" + "---|---|" * len(grid.tasks)
    sub = "| | " + " | ".join(f"{_label(t.sequential)} | {_label(t.parallel)}"
                              for t in grid.tasks) + " |"
    lines += [head1, head2, sub]
    for p in grid.processors:
        cells = []
        for t in grid.tasks:
            seq = table[p].get(f"{t.name}/sequential")
            par = table[p].get(f"{t.name}/parallel")
            s, q = _fmt(seq), _fmt(par)
            if (seq and par and seq["metric"] == par["metric"]
                    and not math.isclose(seq["mean"], par["mean"])):
                if seq["mean"] > par["mean"]:
                    s = f"**{s}**"
                else:
                    q = f"**{q}**"
            cells += [s, q]
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _time_lines(grid: Grid, table: dict[str, dict[str, dict[str, Any]]], h: int
                ) -> tuple[list[str], dict[str, dict[str, float]]]:
    """Time per step (the paper's Figure 4) of one hidden size, and task -> processor ->
    sequential / parallel ratio."""
    lines = [f"Seconds per training step at the largest training size (hidden {h}):", "",
             "| Arch. | " + " | ".join(f"{t.name} seq. | {t.name} par. | ratio"
                                      for t in grid.tasks) + " |",
             "|---|" + "---|---|---|" * len(grid.tasks)]
    ratios: dict[str, dict[str, float]] = {t.name: {} for t in grid.tasks}
    for p in grid.processors:
        cells = []
        for t in grid.tasks:
            seq = (table[p].get(f"{t.name}/sequential") or {}).get("seconds_per_step")
            par = (table[p].get(f"{t.name}/parallel") or {}).get("seconds_per_step")
            ratio = seq / par if seq and par else None
            if ratio is not None:
                ratios[t.name][p] = ratio
            cells += [f"{seq:.4f}" if seq else "–", f"{par:.4f}" if par else "–",
                      f"{ratio:.2f}×" if ratio else "–"]
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines, ratios


def _hidden_figures(grid: Grid, rows: list[dict[str, Any]], out: Path, h: int,
                    ratios: dict[str, dict[str, float]]) -> dict[str, str]:
    """The figures of one hidden size: the time ratio, and the loss and validation
    curves per task (the paper's Figure 5); figure key -> file name."""
    from algspec.training.plots import plot_task_curves, plot_time_ratio, read_metrics

    figures: dict[str, str] = {}
    if any(ratios.values()):
        png = out / f"time_ratio_h{h}.png"
        plot_time_ratio(ratios, png,
                        title=f"{grid.name}: time per step, sequential / parallel (hidden {h})")
        figures[f"time_ratio_h{h}"] = png.name
    for t in grid.tasks:
        curves: dict[str, dict[str, list]] = {}
        for p in grid.processors:
            for role in ROLES:
                for x in rows:
                    if (x["hidden"], x["processor"], x["task"], x["role"]) == (h, p, t.name, role):
                        m = Path(x["dir"]) / "metrics.jsonl"
                        if m.is_file():
                            curves.setdefault(p, {}).setdefault(role, []).append(
                                read_metrics(m))
        if curves:
            png = out / f"curves_{_slug(t.name)}_h{h}.png"
            plot_task_curves(curves, {"sequential": _label(t.sequential),
                                      "parallel": _label(t.parallel)}, png,
                             title=f"{t.name}, hidden {h}: loss (solid), validation (dashed)")
            figures[f"curves_{_slug(t.name)}_h{h}"] = png.name
    return figures


def _variants_section(grid: Grid, rows: list[dict[str, Any]]
                      ) -> tuple[list[str], dict[str, Any]]:
    """The variants' table (one per hidden size): test score per processor beside the reference.

    Each cell is the out-of-distribution test score (mean ± sample std over
    the finished seeds, their count as `n=`; micro-F1, or MSE for all-scalar
    outputs, see `_fmt`), then the validation score in brackets, so a variant
    that fails in distribution is told apart from one that fails to generalise.
    """
    if not grid.variants:
        return [], {}
    procs: list[str] = []
    for v in grid.variants:
        for p in v.processors or grid.processors:
            if p not in procs:
                procs.append(p)
    ref = grid.reference
    ref_label = str(ref.get("label", "reference")) if ref else None
    lines = [f"## {grid.variants_title}", ""]
    if ref:
        lines += [(f"Reference: {ref_label}, {100 * float(ref['score']):.1f}% for every processor. "
                  "Cells: test micro-F1, mean ± std over seeds (n = finished seeds), "
                  "validation in brackets; Δ is the best processor's mean minus the reference "
                  "(micro-F1 cells only)."),
                  ""]
    data: dict[str, Any] = {}
    for h in grid.hidden:
        lines += [f"### {grid.variants_title}, hidden {h}", "",
                  "| Variant | " + " | ".join(procs) + (" | Δ best |" if ref else " |")
                  + " What changes |",
                  "|---|" + "---|" * len(procs) + ("---|" if ref else "") + "---|"]
        data[str(h)] = {}
        for v in grid.variants:
            cells, best = [], None
            data[str(h)][v.name] = {}
            for p in procs:
                sel = [x["result"] for x in rows if x.get("variant") == v.name
                       and x["hidden"] == h and x["processor"] == p]
                if not sel:
                    cells.append("–" if p in (v.processors or grid.processors) else "")
                    continue
                cell = score_cell([s["test"] for s in sel])
                val = score_cell([s["val"] for s in sel])
                data[str(h)][v.name][p] = {**cell, "val": val["mean"], "val_metric": val["metric"]}
                if cell["metric"] == "micro_f1":
                    best = cell["mean"] if best is None else max(best, cell["mean"])
                val_text = (f"MSE {-val['mean']:.3g}" if val["metric"] == "neg_mse"
                            else f"{100 * val['mean']:.1f}")
                cells.append(f"{_fmt(cell)} (n={len(sel)}) [{val_text}]")
            delta = ([f"{100 * (best - float(ref['score'])):+.1f}" if best is not None else "–"]
                     if ref else [])
            lines.append(f"| {v.name} | " + " | ".join(cells + delta) + f" | {v.note} |")
        lines.append("")
    return lines, data


def _slug(name: str) -> str:
    return "".join(c.lower() if c.isalnum() else "_" for c in name).strip("_")
