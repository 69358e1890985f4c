"""Text, markdown and plots of efficiency measurements (for `algspec efficiency`)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from algspec.efficiency.results import StaticEfficiency, format_static
from algspec.efficiency.worst_case import RANGED
from algspec.lint.measured import (
    LOG_TREND_TOLERANCE,
    QUANTITIES,
    SPREAD_TOLERANCE,
    Measurement,
    static_class_of,
)

_LABEL = {"T": "T", "work": "work", "active_edges": "act.edges", "c": "c", "eta": "eta",
          "epsilon": "epsilon"}


def _g(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.3g}"


def _slope(x: float) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:+.2f}"


def static_text(static: StaticEfficiency, show_range: bool = False) -> str:
    """The static classes in a few lines (what `algspec compile` prints); with
    `show_range`, one more line with both ends of each data-dependent class."""
    text = format_static(static)
    return text + "\n" + range_line(static) if show_range else text


def range_line(static: StaticEfficiency) -> str:
    """`  range (fewest .. most): work = n .. n^2   ...` (docs/efficiency.md, the worst case)."""
    cells = "   ".join(f"{_RANGE_LABEL[q]} = {static.range(q)}" for q in RANGED)
    return f"  range (fewest .. most): {cells}"


_RANGE_LABEL = {"work": "work", "active_edges": "active edges", "eta": "eta",
                "epsilon": "epsilon"}


def measurement_text(meas: Measurement, show_range: bool = False) -> str:
    """Per size means, then the fitted exponents beside the static classes; with
    `show_range`, measured against both ends of each data-dependent class."""
    lines = [f"== {meas.name} ({meas.path})", static_text(meas.static, show_range), ""]
    head = ["n", "N", "|E|", "T", "work", "act.edges", "c", "eta", "epsilon"]
    rows = [[str(s.n), str(s.N), _g(s.edges), _g(s.T), _g(s.work), _g(s.active_edges),
             _g(s.c), _g(s.eta), _g(s.epsilon)] for s in meas.sizes]
    lines += _table(head, rows)
    lines.append("")
    samples = meas.sizes[0].samples if meas.sizes else 0
    lines.append(f"measured / static class across sizes ({samples} samples per size): "
                 f"agrees when the ratio stays within a constant factor (log trend = slope "
                 f"of log ratio on log log n, |trend| <= {LOG_TREND_TOLERANCE} or spread <= "
                 f"{SPREAD_TOLERANCE}x); growth exponents (slope of log value on log n) "
                 f"beside it:")
    rows = []
    for q, f in meas.fits.items():
        good = [r for r in f.ratios if r > 0 and math.isfinite(r)]
        spread = f"{max(good) / min(good):.2f}x" if good else "-"
        rows.append([_LABEL[q], f.static_class, _g(good[0]) if good else "-",
                     _g(good[-1]) if good else "-", spread, _slope(f.log_trend),
                     _slope(f.measured_slope), _slope(f.static_slope), f.verdict])
    lines += _table(["quantity", "static class", "ratio@min", "ratio@max", "spread",
                     "log trend", "measured exp", "static exp", "verdict"], rows)
    if show_range and meas.most_fits:
        lines += ["", ("against both ends (the verdict above is against the fewest, the "
                       "worst case; work and active edges never exceed the most end):")]
        rows = []
        for q, f in meas.most_fits.items():
            good = [r for r in f.ratios if r > 0 and math.isfinite(r)]
            rng = meas.static.range(q)
            rows.append([_LABEL[q], str(rng.fewest), meas.fits[q].verdict, str(rng.most),
                         _g(good[0]) if good else "-", _g(good[-1]) if good else "-",
                         f.verdict])
        lines += _table(["quantity", "fewest", "vs fewest", "most", "ratio@min", "ratio@max",
                         "vs most"], rows)
    return "\n".join(lines)


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    return [fmt.format(*head)] + [fmt.format(*r) for r in rows]


# The paper's Table 1 column order (searching, sorting, SCC; sequential then parallel).
PAPER_ORDER = ("binary_search", "parallel_search", "bubble_sort", "oets",
               "strongly_connected_components", "kosaraju", "dcsc")


def paper_order(items: list, name=lambda x: x.name) -> list:
    """Sort the paper's algorithms into Table 1's order; others keep theirs, after them."""
    def key(ix):
        i, x = ix
        nm = name(x)
        return (PAPER_ORDER.index(nm), i) if nm in PAPER_ORDER else (len(PAPER_ORDER), i)
    return [x for _, x in sorted(enumerate(items), key=key)]


def markdown_table(measurements: list[Measurement], at: int = 64,
                   show_range: bool = False) -> str:
    """Table 1 of the paper: c, eta, epsilon per algorithm, static class (measured at n);
    with `show_range`, eta and epsilon as `fewest .. most`."""
    cols = []
    for meas in paper_order(measurements):
        st = meas.at(at) or (meas.sizes[-1] if meas.sizes else None)
        cols.append((meas, st))
    ns = sorted({st.n for _, st in cols if st is not None})
    where = ", ".join(map(str, ns)) if ns else str(at)
    out = [f"| (static class, measured mean at n = {where}) | "
           + " | ".join(m.name for m, _ in cols) + " |",
           "|---|" + "---|" * len(cols)]
    for label, q in (("c", "c"), ("η", "eta"), ("ε", "epsilon")):
        cells = []
        for meas, st in cols:
            cls = meas.static.range(q) if show_range else static_class_of(meas.static, q)
            val = st.get(q) if st is not None else float("nan")
            cells.append(f"{cls} ({_g(val)})")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def static_markdown_table(statics: list[StaticEfficiency], show_range: bool = False) -> str:
    """Table 1 with the static classes only (no sampling); with `show_range`, eta and
    epsilon as `fewest .. most`."""
    statics = paper_order(statics)
    out = ["| | " + " | ".join(s.name + (" (whp)" if s.whp else "") for s in statics) + " |",
           "|---|" + "---|" * len(statics)]
    for label, q in (("c", "c"), ("η", "eta"), ("ε", "epsilon")):
        cells = [str(s.range(q) if show_range else s.classes()[q]) for s in statics]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def plot(measurements: list[Measurement], path: str | Path) -> Path:
    """Per algorithm: active nodes/edges per round of one sample, and the growth curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(measurements)
    fig, axes = plt.subplots(k, 2, figsize=(12, 3.6 * k), squeeze=False)
    for row, meas in zip(axes, measurements):
        _plot_rounds(row[0], meas)
        _plot_growth(row[1], meas)
    fig.tight_layout()
    out = Path(path)
    from algspec.process.output_files import atomic_path
    try:  # a recognisable temporary renamed into place: a failed save leaves no file
        with atomic_path(out) as tmp:
            fig.savefig(tmp, dpi=110, format=out.suffix[1:].lower() or "png")
    finally:
        plt.close(fig)
    return out


def _plot_rounds(ax, meas: Measurement) -> None:
    act = meas.example
    st = meas.sizes[-1] if meas.sizes else None
    if act is None or st is None or not len(act.nodes_per_round):
        ax.set_axis_off()
        return
    nodes, edges = act.nodes_per_round[0], act.edges_per_round[0]
    t = np.arange(1, len(nodes) + 1)
    ax.step(t, nodes, where="mid", label="active nodes")
    ax.step(t, edges, where="mid", label="active edges")
    ax.axhline(act.num_nodes, ls=":", c="C0", lw=1, label=f"N = {act.num_nodes}")
    ax.axhline(act.edge_counts[0], ls=":", c="C1", lw=1,
               label=f"|E| = {act.edge_counts[0]:.0f}")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("round (hint frame)")
    ax.set_title(f"{meas.name}: one sample at n = {st.n}")
    ax.legend(fontsize=7)


def _plot_growth(ax, meas: Measurement) -> None:
    ns = np.array([s.n for s in meas.sizes], float)
    ms = [s.edges for s in meas.sizes]
    for i, q in enumerate(("T", "c", "eta", "epsilon")):
        ys = np.array([s.get(q) for s in meas.sizes])
        ok = ys > 0
        if not ok.any():
            continue
        f = meas.fits.get(q)
        lab = f"{q} ({_slope(f.measured_slope) if f else '-'})"
        ax.loglog(ns[ok], ys[ok], "o-", c=f"C{i}", label=lab)
        cls = static_class_of(meas.static, q)
        try:
            ref = np.array([cls.evaluate(x, mm) for x, mm in zip(ns, ms)])
        except (ValueError, ZeroDivisionError):
            continue
        j = int(np.argmax(ok))
        if ref[j] > 0:  # the static class, scaled through the first measured point
            ax.loglog(ns, ref * ys[j] / ref[j], "--", c=f"C{i}", lw=1,
                      label=f"static {cls}")
    ax.set_xlabel("n")
    ax.set_title("growth: measured (solid) vs static class (dashed)")
    ax.legend(fontsize=7, ncol=2)


__all__ = [
    "PAPER_ORDER",
    "QUANTITIES",
    "markdown_table",
    "measurement_text",
    "paper_order",
    "plot",
    "static_markdown_table",
    "static_text",
]
