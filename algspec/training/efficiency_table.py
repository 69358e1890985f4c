"""Static efficiency beside a grid's scores: does better alignment predict better scores?

The paper's claim is that an algorithm whose rounds keep more nodes (eta) and
edges (epsilon) busy aligns better with a GNN and so scores better. For every
task of a grid this module reads both algorithms' static classes (from their
.alg files; dm-clrs names have none) and sets the side the classes favour
beside the side the scores favour, so the report says where the hypothesis
holds and where it does not. Pure Python: no jax, no clrs.
"""

from __future__ import annotations

import statistics
from typing import Any

from algspec.language.source_file import is_algorithm_file_name

ROLES = ("sequential", "parallel")


def static_classes(source: str) -> dict[str, Any] | None:
    """Name and T, c, eta, epsilon of an .alg file (Asymptotic classes); None for a dm-clrs name
    or a file that does not load (its runs report that failure themselves)."""
    if not is_algorithm_file_name(source):
        return None
    from algspec.compiled import load
    from algspec.diagnostics import AlgError
    from algspec.ir.size_values import EfficiencyError

    try:
        alg = load(source)
        s = alg.static_efficiency()
    except (OSError, ValueError, AlgError, EfficiencyError):
        return None
    return {"name": alg.name, "T": s.rounds, "c": s.capacity, "eta": s.node_efficiency,
            "epsilon": s.edge_efficiency, "whp": bool(getattr(s, "whp", False))}


def favoured(seq: dict[str, Any] | None, par: dict[str, Any] | None) -> str:
    """Which side eta and epsilon favour: `parallel`, `sequential`, `equal` or `mixed`
    (one better, the other worse); `?` without both classes."""
    if not seq or not par:
        return "?"
    par_ge = all(seq[q].is_O(par[q]) for q in ("eta", "epsilon"))
    seq_ge = all(par[q].is_O(seq[q]) for q in ("eta", "epsilon"))
    if par_ge and seq_ge:
        return "equal"
    if par_ge:
        return "parallel"
    if seq_ge:
        return "sequential"
    return "mixed"


def score_gap(table: dict[int, dict[str, dict[str, dict[str, Any]]]], task: str) -> float | None:
    """Mean over (hidden, processor) cells that have both sides of parallel minus sequential
    test micro-F1; None while no cell has both. Cells scored otherwise (an all-scalar file's
    MSE) are left out: a difference of an F1 and an error means nothing."""
    gaps = []
    for by_proc in table.values():
        for cells in by_proc.values():
            seq, par = cells.get(f"{task}/sequential"), cells.get(f"{task}/parallel")
            if seq and par and all(c.get("metric", "micro_f1") == "micro_f1" for c in (seq, par)):
                gaps.append(par["mean"] - seq["mean"])
    return statistics.fmean(gaps) if gaps else None


def _cls(c: dict[str, Any] | None, q: str) -> str:
    if not c:
        return "–"
    return f"{c[q]} (whp)" if q == "T" and c["whp"] else str(c[q])


def efficiency_section(tasks: list, table: dict, stem) -> tuple[list[str], dict[str, Any]]:
    """Markdown lines of the static-efficiency table and its data for results.json.

    `tasks` are the grid's tasks (name, sequential, parallel), `table` the report's
    score cells (hidden -> processor -> "task/role" -> {"mean", ...}), `stem` names
    an algorithm source in the table.
    """
    if not tasks:
        return [], {}
    lines = ["## Static efficiency beside the scores", "",
             ("Static classes of each pair (worst case; `algspec efficiency FILE --static`). "
             "*Favours*: the side whose η and ε are both at least the other's. "
             "*Par. − seq.*: mean over processors and hidden sizes of the difference in "
             "test micro-F1. *Holds*: the side with better alignment scores better."), "",
             ("| Task | sequential | T | η | ε | parallel | T | η | ε | favours | par. − seq. "
             "| holds |"),
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    data: dict[str, Any] = {}
    for t in tasks:
        cls = {r: static_classes(t.source(r)) for r in ROLES}
        side = favoured(cls["sequential"], cls["parallel"])
        gap = score_gap(table, t.name)
        if gap is None or side in ("?", "mixed", "equal"):
            holds = "–"
        else:
            holds = "yes" if (gap > 0) == (side == "parallel") and gap != 0 else "no"
        row = [t.name]
        for r in ROLES:
            row += [cls[r]["name"] if cls[r] else stem(t.source(r))] + [_cls(cls[r], q) for q in ("T", "eta", "epsilon")]
        row += [side, f"{100 * gap:+.1f}" if gap is not None else "–", holds]
        lines.append("| " + " | ".join(row) + " |")
        data[t.name] = {
            **{r: ({q: str(cls[r][q]) for q in ("T", "c", "eta", "epsilon")} | {"whp": cls[r]["whp"]}
                   if cls[r] else None) for r in ROLES},
            "favours": side, "score_gap": gap, "holds": holds,
        }
    return lines + [""], data
