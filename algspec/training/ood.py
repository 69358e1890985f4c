"""Testing a trained run out of distribution: many sizes and graph families in one call.

`run_sweep` tests a run's best parameters in every (family, size) cell. A cell's
test set is drawn as `algspec eval`'s is (seeded by the run's seed and the size),
with the graph family switched through the generators' `family` parameter
(`--param A.family=ws` in every other command); the family `trained` is the
run's own input distribution. Each finished cell is written at once
(`OUT/cells/<family>_n<size>_s<samples>.json`), so a stopped sweep resumes where
it stopped; the table (`ood.md`, `ood.json`) and the figure (`ood.png`) are
written from the cells at the end.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.process import output_files
from algspec.training.config import TrainConfig
from algspec.training.data import batches, derive_seed, edge_storage
from algspec.training.metrics import SCORE_NAMES, score_text
from algspec.training.plots import plot_ood
from algspec.training.runs import DeferredInterrupt

TRAINED = "trained"  # the run's own input distribution: no family override
CELLS = "cells"
# A test set is kept for the next run of its file only below this size: a dense run's
# file with edge hints holds N x N per frame (Boruvka at n = 800: about 1 GB for 16
# samples); a sparse run's holds its edge data as edge lists, O(m) per frame.
SHARED_BYTES = 2**28


@dataclass(frozen=True)
class Cell:
    """One test of a sweep: a graph family at one size."""

    family: str
    size: int
    samples: int

    @property
    def file_name(self) -> str:
        return f"{self.family}_n{self.size}_s{self.samples}.json"


def family_params(config: TrainConfig, family: str) -> dict[str, Any]:
    """The run's generator parameters with every graph input switched to `family`.

    A plain `family` key reaches every input whose generator takes one; a
    family the run itself named (`A.family=...`) is replaced."""
    base = {k: v for k, v in config.generator_params.items()
            if k != "family" and not k.endswith(".family")}
    return base if family == TRAINED else {**base, "family": family}


def check_families(config: TrainConfig, source_path: str | None,
                   families: Sequence[str]) -> None:
    """Raise ValueError naming a family no graph input of the run's file can draw."""
    others = [f for f in families if f != TRAINED]
    if not others:
        return
    from algspec.compiled import load
    from algspec.language.source_file import is_algorithm_file_name

    path = _file_of(config, source_path)
    if not is_algorithm_file_name(path):
        raise ValueError(f"--family {others[0]}: {path} is a dm-clrs algorithm; graph "
                         "families switch the generators of an .alg file")
    alg = load(path)
    for family in others:
        try:
            alg.generator_params(**family_params(config, family))
        except ValueError as exc:
            raise ValueError(f"--family {family}: {exc}") from None


def _file_of(config: TrainConfig, source_path: str | None) -> str:
    """The run's `.alg` file (the saved path when the working directory moved)."""
    if source_path and not Path(config.algorithm).exists() and Path(source_path).exists():
        return source_path
    return config.algorithm


def peak_memory_gb() -> float:
    """This process's peak resident memory so far, in GB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**30 if sys.platform == "darwin" else 2**20)


def reset_peak_rss() -> bool:
    """Start a new resident-memory peak (Linux: `5` in /proc/self/clear_refs resets
    VmHWM to the current size), so that the next `peak_rss_gb` is one cell's own peak and
    not that of a larger cell before it. False where the peak cannot be reset."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return peak_rss_gb() is not None


def _host_peak(resettable: bool) -> dict[str, Any]:
    """The cell's peak resident memory (`scope` "cell": since `reset_peak_rss` at its
    start), or where the peak cannot be reset the process's peak so far ("process")."""
    cell_peak = peak_rss_gb() if resettable else None
    if cell_peak is not None:
        return {"peak_host_memory_gb": round(cell_peak, 3), "peak_host_memory_scope": "cell"}
    return {"peak_host_memory_gb": round(peak_memory_gb(), 3),
            "peak_host_memory_scope": "process"}


def peak_rss_gb() -> float | None:
    """The resident-memory peak since the last `reset_peak_rss` (VmHWM), in GB; None
    where /proc does not report it."""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**20  # kB
    return None


def device_peak_gb() -> float | None:
    """The accelerator's peak memory in use, in GB, where JAX reports it (not on CPU)."""
    import jax

    stats = jax.devices()[0].memory_stats() or {}
    peak = stats.get("peak_bytes_in_use")
    return None if peak is None else peak / 2**30


def _mean_edges(feedback: Any) -> float | None:
    """Mean edge count per sample of the edge-mask inputs (the declared graph), if any."""
    counts = _edge_counts(feedback)
    return float(np.mean(counts)) if counts is not None else None


def _edge_counts(feedback: Any) -> np.ndarray | None:
    """Each sample's edge count of the edge-mask inputs (the declared graph), if any."""
    counts = [_edges_per_sample(dp.data) for dp in feedback.features.inputs
              if dp.location == "edge" and dp.type_ == "mask"]
    return np.max(counts, axis=0) if counts else None


def _edges_per_sample(mask: Any) -> np.ndarray:
    """The entries above 0 of each sample of a `[B, N, N]` mask (edge lists: at its edges)."""
    if isinstance(mask, EdgeLists):
        g = mask.graph
        return np.bincount(g.sample, weights=mask.values > 0,
                           minlength=g.batch_size).astype(np.int64)
    return np.count_nonzero(np.asarray(mask) > 0, axis=(1, 2))


def _nbytes(feedback: Any) -> int:
    """The bytes a Feedback's data hold (edge lists: their values, and each edge graph
    once, however many data share it)."""
    f = feedback.features
    graphs: dict[int, int] = {}
    total = 0
    for dp in (*f.inputs, *f.hints, *feedback.outputs):
        if isinstance(dp.data, EdgeLists):
            total += dp.data.values.nbytes
            graphs[id(dp.data.graph)] = dp.data.graph.nbytes
        else:
            total += np.asarray(dp.data).nbytes
    return int(total + sum(graphs.values()))


def _test_set_key(config: TrainConfig, source_path: str | None, cell: Cell) -> tuple:
    """What a cell's test set depends on: runs that agree on it share one draw."""
    path = Path(_file_of(config, source_path))
    text = path.read_bytes() if path.is_file() else config.algorithm.encode()
    params = json.dumps(family_params(config, cell.family), sort_keys=True, default=str)
    return (text, params, cell.size, cell.samples, config.seed, config.test_random_pos,
            config.pred_as_input, edge_storage(config.graph))


def test_cell(run_dir: Path, ckpt: dict[str, Any], config: TrainConfig, cell: Cell,
              batch_size: int, *, progress: bool, guard: DeferredInterrupt,
              shared: dict[tuple, tuple] | None = None, jobs: int = 1) -> dict[str, Any]:
    """The scores of one cell, with what it cost (sampling and testing seconds, memory).

    `shared` keeps test sets (up to SHARED_BYTES each) between calls: the runs of one
    file and seed that differ only in processor or hidden size are tested on one draw
    (sampling at n = 800 can take minutes). `jobs` processes draw a test set
    (`algspec.sampling.jobs`: the same set for any number)."""
    from algspec.training.backends import get_backend
    from algspec.training.trainer import (
        evaluate,
        fixed_test_set,
        scores_of,
        source_for_run,
        streams_test_set,
    )

    resettable = reset_peak_rss()
    t0 = time.perf_counter()
    key = _test_set_key(config, ckpt.get("source_path"), cell)
    if shared is not None and key in shared:
        spec, test_set = shared[key]
    else:
        source = source_for_run(config, ckpt.get("source_path"),
                                family_params(config, cell.family))
        if streams_test_set(source, cell.size, cell.samples, jobs):
            return _streamed_cell(run_dir, ckpt, config, cell, batch_size, source,
                                  progress=progress, guard=guard, resettable=resettable)
        spec, test_set = fixed_test_set(source, config, cell.size, cell.samples,
                                        **({"jobs": jobs} if jobs != 1 else {}))
        if shared is not None and _nbytes(test_set) <= SHARED_BYTES:
            shared[key] = (spec, test_set)
    sampled = time.perf_counter() - t0
    saved_spec = {k: tuple(v) for k, v in ckpt["spec"].items()}
    if {k: tuple(v) for k, v in spec.items()} != saved_spec:
        raise ValueError(f"{config.algorithm}: its spec changed since the run was trained")
    with guard.hold():
        model = get_backend(config.backend).restore(
            spec, next(batches(test_set, batch_size)), config, run_dir, ckpt["params"])
    t1 = time.perf_counter()
    scores = evaluate(model, test_set, batch_size, derive_seed(config.seed, "val", 0),
                      progress=progress, interrupt=guard,
                      desc=f"{cell.family} n={cell.size} (the first batch compiles)")
    return {
        "family": cell.family, "size": cell.size, "samples": cell.samples,
        **scores_of(scores),
        "mean_edges": _mean_edges(test_set),
        "sample_seconds": round(sampled, 3),
        "test_seconds": round(time.perf_counter() - t1, 3),
        "batch_size": batch_size,
        **_host_peak(resettable),
        "peak_device_memory_gb": device_peak_gb(),
    }


def _streamed_cell(run_dir: Path, ckpt: dict[str, Any], config: TrainConfig, cell: Cell,
                   batch_size: int, source: Any, *, progress: bool,
                   guard: DeferredInterrupt, resettable: bool) -> dict[str, Any]:
    """`test_cell` on a set drawn and tested a chunk at a time (`trainer.test_as_drawn`)."""
    from algspec.training.trainer import scores_of, test_as_drawn

    edges = {"sum": 0.0, "count": 0}

    def count_edges(fb: Any) -> None:
        counts = _edge_counts(fb)
        edges["sum"] += float(np.sum(counts)) if counts is not None else 0.0
        edges["count"] += 0 if counts is None else len(counts)

    scores, sampling, tested = test_as_drawn(
        run_dir, ckpt, config, source, cell.size, cell.samples, batch_size,
        progress=progress, guard=guard, seen=count_edges,
        desc=f"{cell.family} n={cell.size} (the first batch compiles)")
    return {
        "family": cell.family, "size": cell.size, "samples": cell.samples,
        **scores_of(scores),
        "mean_edges": edges["sum"] / edges["count"] if edges["count"] else None,
        "sample_seconds": round(sampling, 3),
        "test_seconds": round(tested, 3),
        "batch_size": batch_size,
        "streamed": True,
        **_host_peak(resettable),
        "peak_device_memory_gb": device_peak_gb(),
    }


def run_sweep(
    run_dir: str | Path, sizes: Sequence[int], families: Sequence[str],
    samples: int | None = None, out: str | Path | None = None,
    batch_size: int | None = None, *, progress: bool = False,
    log: Callable[[str], None] | None = None,
    on_interrupt: Callable[[], str] | None = None,
    shared: dict[tuple, tuple] | None = None,
    jobs: int = 1,
    tested_only: bool = False,
) -> dict[str, Any]:
    """Test a run in every (family, size) cell, resuming after the cells already written.

    Returns the summary written to `OUT/ood.json`; `log` gets one line per cell.
    A Ctrl-C stops after the cell in flight (finished cells are kept). `shared`
    holds test sets for the next sweep of the same file (see `test_cell`); `jobs`
    processes draw each test set (the same sets for any number)."""
    from algspec.training.trainer import load_checkpoint

    run_dir = Path(run_dir)
    ckpt = load_checkpoint(run_dir)
    config = TrainConfig.from_dict(ckpt["config"])
    samples = int(samples or config.test_samples)
    batch_size = int(batch_size or config.eval_batch_size)
    families = list(dict.fromkeys(families or [TRAINED]))
    sizes = list(dict.fromkeys(int(s) for s in sizes))
    check_families(config, ckpt.get("source_path"), families)
    out = Path(out) if out is not None else run_dir / "ood"
    output_files.check_target(out, "dir", allow_nonempty_dir=True)
    with output_files.claim(out, inside=True):  # one sweep at a time writes into `out`
        return _sweep_cells(run_dir, ckpt, config, families, sizes, samples, batch_size, out,
                            progress, log, on_interrupt, shared, jobs, tested_only)


def _sweep_cells(run_dir: Path, ckpt: dict[str, Any], config: TrainConfig,
                 families: list[str], sizes: list[int], samples: int, batch_size: int,
                 out: Path, progress: bool, log: Callable[[str], None] | None,
                 on_interrupt: Callable[[], str] | None,
                 shared: dict[tuple, tuple] | None, jobs: int = 1,
                 tested_only: bool = False) -> dict[str, Any]:
    """`run_sweep`'s cells, summary, table and plot, written into `out` (held);
    `tested_only`: no cell is tested, the table holds those written so far (`-` for the
    others: a sweep whose large cells need another machine)."""
    from algspec.training.trainer import device_description

    output_files.make_parents(out / CELLS / "x")
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    cells = [Cell(f, n, samples) for f in families for n in sizes]
    todo = [c for c in cells if not (out / CELLS / c.file_name).is_file()]
    if tested_only:
        say(f"{len(cells) - len(todo)} of {len(cells)} cells tested in {out}; the table "
            f"shows those ({len(todo)} not tested)")
        cells, todo = [c for c in cells if c not in todo], []
    elif len(todo) < len(cells):
        say(f"{len(cells) - len(todo)} of {len(cells)} cells already tested in {out}; "
            f"testing the other {len(todo)}")
    guard = DeferredInterrupt("this batch", on_force=on_interrupt)
    for i, cell in enumerate(todo, 1):
        say(f"[{i}/{len(todo)}] {cell.family} n={cell.size}: sampling {cell.samples} "
            "test samples")
        rec = test_cell(run_dir, ckpt, config, cell, batch_size, progress=progress, guard=guard,
                        shared=shared, jobs=jobs)
        _write_json(out / CELLS / cell.file_name, rec)
        say(f"[{i}/{len(todo)}] {cell.family} n={cell.size}: {score_text(rec)} (sampled in "
            f"{rec['sample_seconds']:.1f} s, tested in {rec['test_seconds']:.1f} s, "
            + _memory_text(rec) + ")")
    records = [json.loads((out / CELLS / c.file_name).read_text()) for c in cells]
    summary = {
        "run": str(run_dir), "algorithm": ckpt["algorithm"], "backend": config.backend,
        "graph": config.graph, "processor": config.processor, "hidden": config.hidden,
        "seed": config.seed, "train_sizes": list(config.train_sizes),
        "families": families, "sizes": sizes, "samples": samples,
        "device": device_description(), "cells": records,
    }
    _write_json(out / "ood.json", summary)
    output_files.write_text(out / "ood.md", markdown_table(summary))
    plot_ood({f: [(r["size"], cell_value(r)) for r in records if r["family"] == f]
              for f in families}, metric_name(summary),
             f"{summary['algorithm']} / {config.processor} h{config.hidden}, trained at "
             f"n <= {max(config.train_sizes)}", out / "ood.png")
    return summary


def _write_json(path: Path, obj: Any) -> None:
    """JSON in the run files' layout (indented, keys in order), whole or not at all."""
    output_files.write_text(path, json.dumps(obj, indent=2) + "\n")


def metric_name(summary: dict[str, Any]) -> str:
    """The metric every cell reports (micro-F1, or MSE for an all-scalar file)."""
    metric = summary["cells"][0].get("metric", "micro_f1") if summary["cells"] else "micro_f1"
    return "MSE" if metric == "neg_mse" else SCORE_NAMES.get(metric, metric)


def cell_value(rec: dict[str, Any]) -> float:
    """A cell's figure as the table shows it (the MSE itself for an all-scalar file)."""
    return -float(rec["score"]) if rec.get("metric") == "neg_mse" else float(rec["score"])


def markdown_table(summary: dict[str, Any]) -> str:
    """Score by family (rows) and size (columns), then what each cell cost."""
    by = {(r["family"], r["size"]): r for r in summary["cells"]}
    sizes, families = summary["sizes"], summary["families"]
    head = (f"# {summary['algorithm']} out of distribution\n\n"
            f"{summary['processor']} h{summary['hidden']} seed {summary['seed']}, "
            f"{summary['backend']} backend ({summary['graph']} graph), trained at n in "
            f"{summary['train_sizes']}; {summary['samples']} test samples per cell; "
            f"{summary['device']}.\n\n")
    lines = [f"| {metric_name(summary)} | " + " | ".join(f"n={n}" for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for f in families:
        lines.append(f"| {f} | " + " | ".join(
            f"{cell_value(by[f, n]):.4f}" if (f, n) in by else "-" for n in sizes) + " |")
    cost = ["", "| family | n | mean edges | sampling s | testing s | peak host GB |",
            "|---|---:|---:|---:|---:|---:|"]
    whole = False
    for f in families:
        for n in sizes:
            if (f, n) not in by:
                continue
            r = by[f, n]
            edges = "-" if r.get("mean_edges") is None else f"{r['mean_edges']:.0f}"
            mark = "" if r.get("peak_host_memory_scope") == "cell" else " *"
            whole = whole or bool(mark)
            cost.append(f"| {f} | {n} | {edges} | {r['sample_seconds']:.1f} | "
                        f"{r['test_seconds']:.1f} | {r['peak_host_memory_gb']:.2f}{mark} |")
    cost += ["", ("Peak host GB: the process's peak resident memory while the cell was "
                  "sampled and tested (what it held before the cell included).")]
    if whole:
        cost.append("\\* the process's peak over the whole sweep so far (this system cannot "
                    "start a new peak per cell), so it may be a larger cell's.")
    return head + "\n".join(lines + cost) + "\n"


def _memory_text(rec: dict[str, Any]) -> str:
    """A cell's host memory for its log line: its own peak where measured."""
    if rec.get("peak_host_memory_scope") == "cell":
        return f"peak host memory {rec['peak_host_memory_gb']:.2f} GB"
    return f"process peak host memory so far {rec['peak_host_memory_gb']:.2f} GB"
