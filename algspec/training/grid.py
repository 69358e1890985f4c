"""A grid of training runs as data: the grid file's schema, its checks, and its plan.

`load_grid` reads and checks a grid file (the format is in
`algspec.training.experiment`'s docstring); `plan` crosses its tasks and
variants with processors, hidden sizes and seeds into `RunSpec`s, one run
folder each; `select_only` narrows them (`--only`). Running them is
`algspec.training.experiment.run_grid`, side by side `algspec.training.launch`.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from algspec.language.source_file import is_algorithm_file_name
from algspec.training.config import (
    BACKENDS,
    DEFAULT_BACKEND,
    GRAPH_MODES,
    TrainConfig,
    check_processor,
    option_names,
)
from algspec.training.runs import is_finished

ROLES = ("sequential", "parallel")
LAUNCHERS = ("local", "ray")


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
class Variant:
    """One hypothesis: an algorithm plus training overrides, compared with a reference."""

    name: str
    algorithm: str
    note: str = ""
    processors: list[str] | None = None
    train: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OodPlan:
    """The grid's `ood:` section: every finished run is tested at these sizes on these
    graph families (`algspec eval RUN --sizes ... --family ...`) into `RUN/ood/`."""

    sizes: tuple[int, ...]
    families: tuple[str, ...] = ("trained",)
    samples: int | None = None  # default: each run's test samples
    batch_size: int | None = None  # default: each run's eval batch size
    jobs: int | None = None  # processes drawing each test set (`sample --jobs`): same sets


@dataclass
class Grid:
    name: str
    tasks: list[Task]
    processors: list[str]
    hidden: list[int]
    seeds: list[int]
    train: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    variants: list[Variant] = field(default_factory=list)
    variants_title: str = "Variants"
    reference: dict[str, Any] | None = None
    notes: str = ""  # markdown written at the end of the report (analysis, what was not run)
    ood: OodPlan | None = None


@dataclass
class RunSpec:
    """One run of a grid: where it goes and its configuration."""

    task: str
    role: str  # "sequential", "parallel" or "variant"
    processor: str
    hidden: int
    seed: int
    config: TrainConfig
    dir: Path
    variant: str | None = None

    @property
    def done(self) -> bool:
        """A complete result.json (see `algspec.training.runs`): done, whatever else."""
        return is_finished(self.dir)


class _GridLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping (PyYAML keeps the
    last silently: `seeds:` written twice would train only the second list)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, list | dict) or key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice" if key in seen
                    else "a key must be a plain value", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _as_list(value: Any, key: str, kind: type) -> list:
    """A non-empty list without repeats of `kind` values (a single value is a list of one);
    no bool passes as an int nor a float is cut to one."""
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, kind) and not isinstance(v, bool) for v in items):
        raise GridError(f"{key}: expected {kind.__name__} values, got {value!r}")
    if not items:
        raise GridError(f"{key}: empty (the grid would have no runs)")
    repeated = sorted({str(v) for v in items if items.count(v) > 1})
    if repeated:
        raise GridError(f"{key}: {', '.join(repeated)} given twice (each run would be "
                        "trained into the same folder)")
    return list(items)


def _text(value: Any, key: str, *, name: bool = False) -> str:
    """A string value; `name`: one used in a folder name (letters, digits, - _ .)."""
    if not isinstance(value, str) or (name and not value.strip()):
        raise GridError(f"{key}: expected a{' non-empty' if name else ''} string, got "
                        f"{value!r}")
    if name and (value in (".", "..") or any(not (c.isalnum() or c in "-_. ") for c in value)):
        raise GridError(f"{key}: {value!r} must be letters, digits, spaces, - _ . (it names "
                        "a folder)")
    return value


def resolve_algorithm(entry: str, base: Path) -> str:
    """A path relative to the grid file (normalised), or a dm-clrs name unchanged.
    Anything else (a path to a file that is not an algorithm file, a name with characters
    no dm-clrs algorithm has) is a `GridError`: it would name the run's folder."""
    if not isinstance(entry, str) or not entry:
        raise GridError(f"expected an .alg file or a dm-clrs algorithm name, got {entry!r}")
    if not is_algorithm_file_name(entry) and not entry.isidentifier():
        raise GridError(f"{entry!r} is neither an algorithm file (.alg, .yaml) nor a dm-clrs "
                        "algorithm name such as bubble_sort")
    if is_algorithm_file_name(entry):
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
        raw = yaml.load(path.read_text(), Loader=_GridLoader)  # a SafeLoader: no objects
    except OSError as exc:
        raise GridError(f"{path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise GridError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                        f"{exc.start})") from exc
    except yaml.YAMLError as exc:  # one line: where, and what (PyYAML's text spans lines)
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        what = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise GridError(f"{where}: not valid YAML: {what}") from exc
    if not isinstance(raw, dict):
        raise GridError(f"{path}: expected a mapping at the top level")
    known = {"name", "tasks", "processors", "hidden", "seeds", "train", "variants",
             "variants_title", "reference", "notes", "backend", "graph", "ood"}
    unknown = set(raw) - known
    if unknown:
        raise GridError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    try:
        return _parse_grid(raw, path)
    except GridError as exc:
        text = str(exc)
        raise GridError(text if text.startswith(f"{path}:") else f"{path}: {text}") from exc


def _parse_grid(raw: dict[str, Any], path: Path) -> Grid:
    """The checked `Grid` of a grid file's top-level mapping (errors without the path)."""
    base = path.parent
    tasks = []
    raw_tasks = raw.get("tasks") or []
    if not isinstance(raw_tasks, list):
        raise GridError("tasks must be a list of {name, sequential, parallel}")
    keys = {"name", "sequential", "parallel"}
    for i, t in enumerate(raw_tasks):
        if not isinstance(t, dict) or set(t) != keys:
            extra = f" (unknown: {', '.join(sorted(map(str, set(t) - keys)))})" \
                if isinstance(t, dict) and set(t) - keys else ""
            raise GridError(f"tasks[{i}] needs name, sequential and parallel{extra}")
        name = _text(t["name"], f"tasks[{i}].name")
        if name in {x.name for x in tasks}:
            raise GridError(f"tasks[{i}]: duplicate name {name!r}")
        try:
            seq, par = (resolve_algorithm(t[role], base) for role in ROLES)
        except GridError as exc:
            raise GridError(f"tasks[{i}]: {exc}") from exc
        tasks.append(Task(name, seq, par))
    train = _check_train(raw.get("train") or {}, f"{path}: train")
    train = _with_backend(raw, dict(train), path)
    variants = _load_variants(raw.get("variants") or [], path, base, train)
    if not tasks and not variants:
        raise GridError("no tasks")
    processors = _check_processors(_as_list(raw.get("processors", ["mpnn"]), "processors", str),
                                   path, train)
    reference = raw.get("reference")
    if reference is not None and not (
            isinstance(reference, dict) and set(reference) <= {"score", "label"}
            and isinstance(reference.get("score"), int | float)
            and not isinstance(reference["score"], bool)
            and math.isfinite(reference["score"])):
        raise GridError("reference needs a numeric score (and optionally a label)")
    grid = Grid(
        name=_text(raw["name"], "name", name=True) if raw.get("name") is not None
        else path.stem,
        tasks=tasks,
        processors=processors,
        hidden=_as_list(raw.get("hidden", [128]), "hidden", int),
        seeds=_as_list(raw.get("seeds", [0]), "seeds", int),
        train=dict(train),
        path=path,
        variants=variants,
        variants_title=_text(raw.get("variants_title") or "Variants", "variants_title"),
        reference=dict(reference) if reference else None,
        notes=_text(raw.get("notes") or "", "notes"),
        ood=_load_ood(raw["ood"], path) if raw.get("ood") is not None else None,
    )
    _check_folders(grid)
    return grid


def _check_folders(grid: Grid) -> None:
    """Every option checked once (a run's `TrainConfig`), and no two runs sharing a folder:
    one would count twice in the report, or a variant take a task's finished run."""
    first: dict[str, str] = {}
    for r in plan(grid, Path(".")):
        what = f"variant {r.variant}" if r.variant else f"task {r.task} ({r.role})"
        if r.dir.name in first:
            raise GridError(f"{first[r.dir.name]} and {what} would both train into runs/"
                            f"{r.dir.name}; give each its own algorithm file or name")
        first[r.dir.name] = what


def _load_ood(raw: Any, path: Path) -> OodPlan:
    """`ood: {sizes: [16, 160], families: [er, delaunay], samples: 32, batch_size: 8,
    jobs: 2}`."""
    if not isinstance(raw, dict) or "sizes" not in raw:
        raise GridError(f"{path}: ood needs sizes (and optionally families, samples, "
                        "batch_size, jobs)")
    unknown = set(raw) - {"sizes", "families", "samples", "batch_size", "jobs"}
    if unknown:
        raise GridError(f"{path}: ood: unknown key(s) {', '.join(sorted(unknown))}")
    sizes = _as_list(raw["sizes"], "ood.sizes", int)
    families = _as_list(raw.get("families", ["trained"]), "ood.families", str)
    counts = {k: raw.get(k) for k in ("samples", "batch_size", "jobs")}
    if not sizes or min(sizes) < 1 or not families or any(
            v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1)
            for v in counts.values()):
        raise GridError(f"{path}: ood: sizes, samples, batch_size and jobs must be positive "
                        "integers and families a non-empty list")
    return OodPlan(tuple(sizes), tuple(families), counts["samples"], counts["batch_size"],
                   counts["jobs"])


def _with_backend(raw: dict[str, Any], train: dict[str, Any], path: Path) -> dict[str, Any]:
    """The grid's top-level `backend:` and `graph:` (shorthands for the same `train:`
    options), checked against the choices before any run is planned."""
    choices = {"backend": BACKENDS, "graph": GRAPH_MODES}
    for key, valid in choices.items():
        if key in raw:
            if key in train and train[key] != raw[key]:
                raise GridError(f"{path}: {key} is {raw[key]!r} at the top level but "
                                f"{train[key]!r} under train")
            train[key] = raw[key]
        if key in train and train[key] not in valid:
            raise GridError(f"{path}: {key} must be one of {', '.join(valid)}, not "
                            f"{train[key]!r}")
    if train.get("graph") == "sparse" and \
            train.get("backend", DEFAULT_BACKEND) != "algspec":
        raise GridError(f"{path}: graph sparse needs backend algspec")
    return train


def _check_processors(processors: list[str], path: Path, train: dict[str, Any]
                      ) -> list[str]:
    """Each processor, checked against the backend and graph mode its runs will use."""
    backend, graph = train.get("backend", DEFAULT_BACKEND), train.get("graph", "dense")
    for p in processors:
        try:
            check_processor(p, backend, graph)
        except ValueError as exc:
            raise GridError(f"{path}: {exc}") from exc
    return processors


def _check_train(train: Any, where: str) -> dict[str, Any]:
    if not isinstance(train, dict):
        raise GridError(f"{where} must be a mapping of training options")
    fixed = ("processor", "hidden", "seed")
    bad = set(train) - set(option_names()) | (set(fixed) & set(train))
    if bad:
        raise GridError(f"{where}: option(s) not allowed here: {', '.join(sorted(bad))} "
                        f"(allowed: {', '.join(o for o in option_names() if o not in fixed)})")
    return dict(train)


def _load_variants(raw: Any, path: Path, base: Path, grid_train: dict[str, Any]
                   ) -> list[Variant]:
    if not isinstance(raw, list):
        raise GridError(f"{path}: variants must be a list")
    out: list[Variant] = []
    for i, v in enumerate(raw):
        if not isinstance(v, dict) or not {"name", "algorithm"} <= set(v):
            raise GridError(f"{path}: variants[{i}] needs name and algorithm")
        unknown = set(v) - {"name", "algorithm", "note", "processors", "train"}
        if unknown:
            raise GridError(f"{path}: variants[{i}]: unknown key(s) {', '.join(sorted(unknown))}")
        name = _text(v["name"], f"variants[{i}].name")
        if not name or any(not (c.isalnum() or c in "-_.") for c in name):
            raise GridError(f"{path}: variants[{i}]: name {name!r} must be letters, digits, - _ .")
        if name in {x.name for x in out}:
            raise GridError(f"{path}: variants[{i}]: duplicate name {name!r}")
        procs = v.get("processors")
        if procs is not None and not procs:
            raise GridError(f"{path}: variants[{i}]: processors is empty (leave it out to "
                            "use the grid's)")
        train = _check_train(v.get("train") or {}, f"{path}: variants[{i}].train")
        try:
            algorithm = resolve_algorithm(v["algorithm"], base)
        except GridError as exc:
            raise GridError(f"{path}: variants[{i}]: {exc}") from exc
        out.append(Variant(
            name=name,
            algorithm=algorithm,
            note=_text(v.get("note") or "", f"variants[{i}].note"),
            processors=(_check_processors(_as_list(procs, "processors", str), path,
                                          {**grid_train, **train})
                        if procs is not None else None),
            train=train,
        ))
    return out


def _stem(source: str) -> str:
    return Path(source).stem if is_algorithm_file_name(source) else source


def _label(source: str) -> str:
    """What a report calls a task's algorithm: its `algorithm` name (two files may share a
    stem), the file stem if it does not load, or the dm-clrs name as given."""
    if not is_algorithm_file_name(source):
        return source
    from algspec.compiled import load
    from algspec.diagnostics import AlgError
    try:
        return load(source).name
    except (AlgError, OSError, ValueError):  # a file changed or gone since its runs
        return _stem(source)


def _run_stems(grid: Grid) -> dict[str, str]:
    """Run-folder stem of each task algorithm: its file stem, with its folder's name in front
    where two sources share a stem (clrs/bellman_ford.alg and parallel/bellman_ford.alg)."""
    by_stem: dict[str, set[str]] = {}
    for t in grid.tasks:
        for role in ROLES:
            by_stem.setdefault(_stem(t.source(role)), set()).add(t.source(role))
    return {src: stem if len(srcs) == 1 else f"{Path(src).parent.name or 'clrs'}-{stem}"
            for stem, srcs in by_stem.items() for src in srcs}


def plan(grid: Grid, out: Path) -> list[RunSpec]:
    """Every run of the grid, seeds outermost so that a partial grid covers all cells."""
    runs = []
    stems = _run_stems(grid)
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
                        name = f"{stems[src]}_{proc}_h{hidden}_s{seed}"
                        runs.append(RunSpec(task.name, role, proc, hidden, seed, cfg,
                                            out / "runs" / name))
        for hidden in grid.hidden:
            for v in grid.variants:
                for proc in v.processors or grid.processors:
                    try:
                        cfg = TrainConfig(algorithm=v.algorithm, processor=proc, hidden=hidden,
                                          seed=seed, **{**grid.train, **v.train})
                    except (TypeError, ValueError) as exc:
                        raise GridError(f"variant {v.name}: train: {exc}") from exc
                    runs.append(RunSpec(grid.variants_title, "variant", proc, hidden, seed, cfg,
                                        out / "runs" / f"{v.name}_{proc}_h{hidden}_s{seed}",
                                        variant=v.name))
    return runs


def _config_mismatch(run: RunSpec) -> list[str]:
    """Fields where a finished run's saved config differs from the grid's."""
    try:
        saved = json.loads((run.dir / "config.json").read_text())
    except (OSError, json.JSONDecodeError):
        return ["config.json unreadable"]
    want = run.config.to_dict()
    return [k for k in want if k != "algorithm"
            and saved.get(k, TrainConfig.default_of(k)) != want[k]]


def select_only(runs: list[RunSpec], only: list[str] | None,
                log: Callable[[str], None] = lambda s: None) -> list[RunSpec]:
    """The runs whose folder name matches one of the shell patterns `only` (all without).

    A pattern that matches no run is named in a note; when none matches any run, that is
    a `GridError` listing a few run names, since nothing would be trained.
    """
    if not only:
        return list(runs)
    chosen = [r for r in runs if any(fnmatch.fnmatchcase(r.dir.name, p) for p in only)]
    unmatched = [p for p in only if not any(fnmatch.fnmatchcase(r.dir.name, p) for r in runs)]
    names = [r.dir.name for r in runs]
    examples = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    if not chosen:
        raise GridError(f"--only {' '.join(repr(p) for p in only)} matches none of the grid's "
                        f"{len(runs)} runs (they are named like {examples})")
    for p in unmatched:
        log(f"note: --only {p!r} matches no run")
    return chosen
