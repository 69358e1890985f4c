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

import json
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from algspec.training.config import TrainConfig
from algspec.training.data import batches, derive_seed
from algspec.training.metrics import SCORE_NAMES, score_text
from algspec.training.plots import plot_ood
from algspec.training.runs import DeferredInterrupt

TRAINED = "trained"  # the run's own input distribution: no family override
CELLS = "cells"
# A test set is kept for the next run of its file only below this size: a file with edge
# hints holds N x N per frame (Boruvka at n = 800: about 1 GB for 16 samples).
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
    from algspec.source_file import is_algorithm_file_name

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


def device_peak_gb() -> float | None:
    """The accelerator's peak memory in use, in GB, where JAX reports it (not on CPU)."""
    import jax

    stats = jax.devices()[0].memory_stats() or {}
    peak = stats.get("peak_bytes_in_use")
    return None if peak is None else peak / 2**30


def _mean_edges(feedback: Any) -> float | None:
    """Mean edge count per sample of the edge-mask inputs (the declared graph), if any."""
    counts = [np.count_nonzero(np.asarray(dp.data) > 0, axis=(1, 2))
              for dp in feedback.features.inputs
              if dp.location == "edge" and dp.type_ == "mask"]
    return float(np.mean(np.max(counts, axis=0))) if counts else None


def _nbytes(feedback: Any) -> int:
    """The bytes a Feedback's arrays hold."""
    f = feedback.features
    return int(sum(np.asarray(dp.data).nbytes for dp in (*f.inputs, *f.hints,
                                                          *feedback.outputs)))


def _test_set_key(config: TrainConfig, source_path: str | None, cell: Cell) -> tuple:
    """What a cell's test set depends on: runs that agree on it share one draw."""
    path = Path(_file_of(config, source_path))
    text = path.read_bytes() if path.is_file() else config.algorithm.encode()
    params = json.dumps(family_params(config, cell.family), sort_keys=True, default=str)
    return (text, params, cell.size, cell.samples, config.seed, config.test_random_pos,
            config.pred_as_input)


def test_cell(run_dir: Path, ckpt: dict[str, Any], config: TrainConfig, cell: Cell,
              batch_size: int, *, progress: bool, guard: DeferredInterrupt,
              shared: dict[tuple, tuple] | None = None) -> dict[str, Any]:
    """The scores of one cell, with what it cost (sampling and testing seconds, memory).

    `shared` keeps test sets (up to SHARED_BYTES each) between calls: the runs of one
    file and seed that differ only in processor or hidden size are tested on one draw
    (sampling at n = 800 can take minutes)."""
    from algspec.training.backends import get_backend
    from algspec.training.trainer import (
        evaluate,
        fixed_test_set,
        scores_of,
        source_for_run,
    )

    t0 = time.perf_counter()
    key = _test_set_key(config, ckpt.get("source_path"), cell)
    if shared is not None and key in shared:
        spec, test_set = shared[key]
    else:
        source = source_for_run(config, ckpt.get("source_path"),
                                family_params(config, cell.family))
        spec, test_set = fixed_test_set(source, config, cell.size, cell.samples)
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
        "peak_host_memory_gb": round(peak_memory_gb(), 3),
        "peak_device_memory_gb": device_peak_gb(),
    }


def run_sweep(
    run_dir: str | Path, sizes: Sequence[int], families: Sequence[str],
    samples: int | None = None, out: str | Path | None = None,
    batch_size: int | None = None, *, progress: bool = False,
    log: Callable[[str], None] | None = None,
    on_interrupt: Callable[[], str] | None = None,
    shared: dict[tuple, tuple] | None = None,
) -> dict[str, Any]:
    """Test a run in every (family, size) cell, resuming after the cells already written.

    Returns the summary written to `OUT/ood.json`; `log` gets one line per cell.
    A Ctrl-C stops after the cell in flight (finished cells are kept). `shared`
    holds test sets for the next sweep of the same file (see `test_cell`)."""
    from algspec.training.trainer import device_description, load_checkpoint

    run_dir = Path(run_dir)
    ckpt = load_checkpoint(run_dir)
    config = TrainConfig.from_dict(ckpt["config"])
    samples = int(samples or config.test_samples)
    batch_size = int(batch_size or config.eval_batch_size)
    families = list(dict.fromkeys(families or [TRAINED]))
    sizes = list(dict.fromkeys(int(s) for s in sizes))
    check_families(config, ckpt.get("source_path"), families)
    out = Path(out) if out is not None else run_dir / "ood"
    (out / CELLS).mkdir(parents=True, exist_ok=True)
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    cells = [Cell(f, n, samples) for f in families for n in sizes]
    todo = [c for c in cells if not (out / CELLS / c.file_name).is_file()]
    if len(todo) < len(cells):
        say(f"{len(cells) - len(todo)} of {len(cells)} cells already tested in {out}; "
            f"testing the other {len(todo)}")
    guard = DeferredInterrupt("this batch", on_force=on_interrupt)
    from algspec.training.trainer import write_json_atomic

    for i, cell in enumerate(todo, 1):
        say(f"[{i}/{len(todo)}] {cell.family} n={cell.size}: sampling {cell.samples} "
            "test samples")
        rec = test_cell(run_dir, ckpt, config, cell, batch_size, progress=progress, guard=guard,
                        shared=shared)
        write_json_atomic(out / CELLS / cell.file_name, rec)
        say(f"[{i}/{len(todo)}] {cell.family} n={cell.size}: {score_text(rec)} (sampled in "
            f"{rec['sample_seconds']:.1f} s, tested in {rec['test_seconds']:.1f} s, peak host "
            f"memory {rec['peak_host_memory_gb']:.2f} GB)")
    records = [json.loads((out / CELLS / c.file_name).read_text()) for c in cells]
    summary = {
        "run": str(run_dir), "algorithm": ckpt["algorithm"], "backend": config.backend,
        "graph": config.graph, "processor": config.processor, "hidden": config.hidden,
        "seed": config.seed, "train_sizes": list(config.train_sizes),
        "families": families, "sizes": sizes, "samples": samples,
        "device": device_description(), "cells": records,
    }
    write_json_atomic(out / "ood.json", summary)
    _write_text_atomic(out / "ood.md", markdown_table(summary))
    plot_ood({f: [(r["size"], cell_value(r)) for r in records if r["family"] == f]
              for f in families}, metric_name(summary),
             f"{summary['algorithm']} / {config.processor} h{config.hidden}, trained at "
             f"n <= {max(config.train_sizes)}", out / "ood.png")
    return summary


def _write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


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
        lines.append(f"| {f} | " + " | ".join(f"{cell_value(by[f, n]):.4f}" for n in sizes)
                     + " |")
    cost = ["", "| family | n | mean edges | sampling s | testing s | peak host GB |",
            "|---|---:|---:|---:|---:|---:|"]
    for f in families:
        for n in sizes:
            r = by[f, n]
            edges = "-" if r.get("mean_edges") is None else f"{r['mean_edges']:.0f}"
            cost.append(f"| {f} | {n} | {edges} | {r['sample_seconds']:.1f} | "
                        f"{r['test_seconds']:.1f} | {r['peak_host_memory_gb']:.2f} |")
    return head + "\n".join(lines + cost) + "\n"
