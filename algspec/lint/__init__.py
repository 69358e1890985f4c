"""`algspec lint`: checks plus findings that are legal but probably wrong.

Lint runs the checks (errors), then rules over the IR (warnings), then
samples a few small instances to catch probes that break their CLRS type and
loops that outgrow their declared bounds. A finding can be allowed on its
line with a comment `# allow: L102` (several codes separated by commas).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from algspec import codes, ir
from algspec.diagnostics import AlgError, Diagnostic, RuntimeFault, Severity, Span

RULES = {**codes.titles("L"), **codes.titles("W")}  # the registry is algspec/codes.py
_ALLOW = re.compile(r"#.*\ballow:\s*([A-Z]\d{3}(?:\s*,\s*[A-Z]\d{3})*)")


def _reads_and_writes(prog: ir.Program) -> tuple[set[str], set[str]]:
    reads: set[str] = set()
    writes: set[str] = set()
    for d in prog.decls:
        for e in (d.derived, d.initial, d.pad, d.masked):
            reads |= ir.reads(e)
    if prog.graph.mask_name:
        reads.add(prog.graph.mask_name)
    reads |= ir.reads(prog.body)
    for s, _ in ir.walk_statements(prog.body):
        if isinstance(s, ir.Assign):
            writes.update(t.name for t in s.targets if not t.local)
        if isinstance(s, (ir.ForRange, ir.ForNodes)) and not s.var_local:
            writes.add(s.var)
        if isinstance(s, ir.ForEdges):
            writes.update(v for v, local in zip(s.vars, s.vars_local) if not local)
    return reads, writes


def _has_break(stmts: list[ir.Statement]) -> bool:
    for s, parents in ir.walk_statements(stmts):
        inner_loops = [p for p in parents
                       if isinstance(p, (ir.While, ir.ForRange, ir.ForEdges, ir.ForNodes))]
        if isinstance(s, ir.Break) and not inner_loops:
            return True
    return False


Finding = tuple[str, Span, str | None]  # message, where, help


@dataclass(frozen=True)
class _Facts:
    """What several rules read: data read and written, the inputs."""

    reads: set[str]
    writes: set[str]
    inputs: set[str]


@dataclass(frozen=True)
class LintRule:
    """A rule over the IR: its code (registered in `algspec.codes`) and its check."""

    code: str
    check: Callable[[ir.Program, _Facts], Iterator[Finding]]


# code -> rule, in the order they report; `rule` registers each check below.
LINT_RULES: dict[str, LintRule] = {}


def rule(code: str) -> Callable[[Callable[[ir.Program, _Facts], Iterator[Finding]]],
                                 Callable[[ir.Program, _Facts], Iterator[Finding]]]:
    """Register a check as the rule for `code`."""
    def register(check: Callable[[ir.Program, _Facts], Iterator[Finding]]
                 ) -> Callable[[ir.Program, _Facts], Iterator[Finding]]:
        if code in LINT_RULES or code not in RULES:
            raise ValueError(f"lint rule {code}: registered twice or not in algspec/codes.py")
        LINT_RULES[code] = LintRule(code, check)
        return check
    return register


def _probes(prog: ir.Program) -> Iterator[ir.DataDecl]:
    """Declarations a user wrote (not the implicit `adj`, not CLRS's `pos`)."""
    return (d for d in prog.decls if not d.implicit and d.name != "pos")


@rule("L101")
def _never_read(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    for d in _probes(prog):
        if d.stage in (ir.Stage.STATE, ir.Stage.INPUT) and d.name not in facts.reads:
            yield f"{d.stage.value} `{d.name}` is never read", d.span, "remove it, or use it"


@rule("L102")
def _constant_hint(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    for d in _probes(prog):
        if d.stage != ir.Stage.HINT:
            continue
        if d.derived is not None:
            deps = ir.reads(d.derived)
            constant = deps <= facts.inputs or not (deps & facts.writes)
        else:
            constant = d.name not in facts.writes
        if constant:
            yield (f"hint `{d.name}` never changes; CLRS treats such data as an input", d.span,
                   "declare it as an input, or allow it with `# allow: L102`")


@rule("L103")
def _output_never_written(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    for d in _probes(prog):
        if d.stage == ir.Stage.OUTPUT and d.derived is None and d.initial is None \
                and d.name not in facts.writes:
            yield f"output `{d.name}` is never written", d.span, None


@rule("L104")
def _while_true(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    for s, _ in ir.walk_statements(prog.body):
        if isinstance(s, ir.While) and isinstance(s.cond, ir.Const) and s.cond.value is True \
                and not _has_break(s.body):
            yield "`while true` without a `break`: only its bound stops it", s.span, None


@rule("L105")
def _no_record(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    hints = [d for d in prog.decls if d.stage == ir.Stage.HINT]
    if hints and not any(isinstance(s, ir.Record) for s, _ in ir.walk_statements(prog.body)):
        yield ((f"hint `{hints[0].name}` is never recorded: the program has no `record`, "
               "so every trajectory has 0 frames"), hints[0].span,
               "add `record` where a frame ends (e.g. at the start and after each round)")


@rule("L106")
def _edge_mask_one(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    for d in prog.decls:
        if d.clrs_type == "mask_one" and d.loc == ir.Loc.EDGE and d.stage != ir.Stage.STATE:
            yield ((f"edge `mask_one` `{d.name}`: dm-clrs reads it one-hot per row, so "
                   "training sees only the row that holds the 1"), d.span,
                   "declare an edge `mask`, or a node/graph `pointer` to the chosen edge's end")


def _keeps_edges(carrier: str, declared: str) -> bool:
    """Whether built-in graph `carrier` joins every pair `declared` joins (`path` within
    `ring`), checked on small node counts."""
    import numpy as np

    from algspec.ir.graph_kinds import GRAPH_KINDS
    big, small = GRAPH_KINDS.get(carrier), GRAPH_KINDS.get(declared)
    if big is None or small is None:
        return declared == carrier
    return all(not np.any(small.mask(N) & ~big.mask(N)) for N in range(1, 9))


@rule("L107")
def _read_off_graph(prog: ir.Program, facts: _Facts) -> Iterator[Finding]:
    from algspec.efficiency.graph_reads import graph_name, remote_reads
    from algspec.ir.graph_kinds import GRAPH_KINDS
    declared = prog.graph.kind
    seen: set[tuple] = set()
    for r in remote_reads(prog):
        # the smallest built-in graph that joins this read and keeps the declared edges
        fits = r.carrier if _keeps_edges(r.carrier, declared) else "complete"
        where = (r.read.span.line, r.read.span.column, r.read.name, r.index)
        if where in seen or fits not in GRAPH_KINDS:
            continue
        seen.add(where)
        message = (f"`{r.read.name}[{r.index}]` reads processor {r.index}, which graph "
                   f"{graph_name(prog)} does not connect to {r.processor}; "
                   f"declare `graph {fits}`")
        help = (f"read it along the graph (an aggregation over `incoming({r.processor})`, a "
                "pointer input or hint) or through graph-level data (`let y = ...` before "
                "the round)")
        yield message, r.read.span, help


def ir_rules(prog: ir.Program) -> list[Diagnostic]:
    """The findings of every registered rule over the IR (`LINT_RULES`)."""
    reads, writes = _reads_and_writes(prog)
    facts = _Facts(reads, writes, {d.name for d in prog.decls if d.stage == ir.Stage.INPUT})
    return [Diagnostic(code=r.code, severity=Severity.WARNING, message=message, span=span,
                       path=prog.path, help=help)
            for r in LINT_RULES.values() for message, span, help in r.check(prog, facts)]


# The analysis rules live with the efficiency analysis; lint runs them after the IR rules:
# W201 from the static classes, W202 from sampling small sizes (`_lint_source`).
ANALYSIS_RULES = ("W201", "W202")


def _allowed(source: str) -> dict[int, set[str]]:
    allowed: dict[int, set[str]] = {}
    for k, line in enumerate(source.splitlines(), start=1):
        m = _ALLOW.search(line)
        if m:
            allowed[k] = {c.strip() for c in m.group(1).split(",")}
    return allowed


def lint_source(source: str, path: str = "<string>", sample: bool = True) -> list[Diagnostic]:
    """All findings for one file: check errors, IR rules, efficiency and sampled rules.

    Cached per source, includes and algspec version (`algspec.lint.cache`).
    """
    from algspec.lint import cache as lint_cache
    k = lint_cache.key(source, path, sample)
    hit = lint_cache.get(k)
    if hit is not None:
        return hit
    diags = _lint_source(source, path, sample)
    lint_cache.put(k, diags)
    return diags


def lint_files(paths: list[str], sample: bool = True,
               jobs: int | None = None) -> tuple[list[Diagnostic], dict[str, str]]:
    """Findings for many files, in path order, plus their sources (for rendering).

    Cache hits are read here; the misses are linted by a pool of forked
    processes (one per core, `jobs` to override) when there are several, since
    a cold `algspec lint algorithms/` is CPU-bound file by file.
    """
    import os

    from algspec.language.source_file import read_source, read_source_bytes
    from algspec.lint import cache as lint_cache
    sources: dict[str, str] = {}
    found: dict[str, list[Diagnostic]] = {}
    for p in paths:
        try:
            sources[p] = read_source(p)
        except AlgError as e:  # not UTF-8 (E001), not a regular file or too large (E006)
            found[p] = e.diagnostics
            sources[p] = ""
            if e.diagnostics[0].code == "E001":  # a regular file of bounded size: for `full`
                text = read_source_bytes(p).decode("utf-8", "replace")
                sources[p] = text.replace("\r\n", "\n").replace("\r", "\n")
    misses: list[str] = []
    for p in paths:
        if p in found:
            continue
        hit = lint_cache.get(lint_cache.key(sources[p], p, sample))
        if hit is None:
            misses.append(p)
        else:
            found[p] = hit
    jobs = jobs if jobs is not None else min(len(misses), os.cpu_count() or 1)
    if jobs > 1 and len(misses) >= 3 and _fork_is_safe():
        found.update(_lint_in_pool(misses, sources, sample, jobs))
    for p in misses:
        if p not in found:
            found[p] = lint_source(sources[p], p, sample)
    return [d for p in paths for d in found[p]], sources


def _fork_is_safe() -> bool:
    """Forking copies only the calling thread: never fork a process that runs other
    threads (a test session or notebook that has started JAX's or Ray's)."""
    import sys
    import threading
    return threading.active_count() == 1 and not {"jaxlib", "ray", "tensorflow"} & set(sys.modules)


def _lint_in_pool(paths: list[str], sources: dict[str, str], sample: bool,
                  jobs: int) -> dict[str, list[Diagnostic]]:
    """Lint `paths` in forked workers; an empty result (no fork here) lints in-process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: lint in this process
        return {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        # the slowest first, so no worker is left with a long file at the end
        order = sorted(paths, key=lambda p: -len(sources[p]))
        results = pool.map(lint_source, [sources[p] for p in order], order,
                           [sample] * len(order))
        return dict(zip(order, results))


# CPU seconds of sampling per file before the sizes after the third are skipped.
SAMPLE_TIME_BUDGET = 0.1
RUN_TIME_LIMIT = 20.0  # seconds for all of a file's sampled runs: past it, R116 at its loop


def _lint_source(source: str, path: str, sample: bool) -> list[Diagnostic]:
    from algspec.compiled import load_source
    from algspec.language.parser import is_library
    if is_library(source):  # procedures to include: checked on their own and where called
        from algspec.lowering import check_library
        return check_library(source, path)
    try:
        alg = load_source(source, path)
    except AlgError as e:
        return e.diagnostics
    diags = ir_rules(alg.ir)
    from algspec.interp.deadline import time_limit
    from algspec.lint.efficiency_rules import efficiency_lints, sampled_bound_lints
    try:
        diags += efficiency_lints(alg.ir)
    except AlgError as e:  # a size with no class (E605): the file still samples
        diags += e.diagnostics
    if sample:
        try:
            # sizes 4..32, 8 samples (frame and time budgets)
            with time_limit(RUN_TIME_LIMIT):
                diags += sampled_bound_lints(alg, time_budget=SAMPLE_TIME_BUDGET)
        except RuntimeFault as f:
            if not (f.diagnostic.code == "R110" and any(d.code == "L105" for d in diags)):
                diags.append(f.diagnostic)  # (no `record` at all is L105's finding already)
    allowed = {path: _allowed(source)}  # `# allow:` comments of the file a finding is in

    def allows(d: Diagnostic) -> bool:
        if d.path not in allowed:  # an included file's procedure
            try:
                allowed[d.path] = _allowed(Path(d.path).read_text())
            except (OSError, UnicodeDecodeError):
                allowed[d.path] = {}
        return d.code in allowed[d.path].get(d.span.line, set())

    return sorted((d for d in diags if not allows(d)),
                  key=lambda d: (d.span.line, d.span.column, d.code))


def lint_path(path: Path, sample: bool = True) -> list[Diagnostic]:
    from algspec.language.source_file import read_source
    try:
        source = read_source(path)
    except AlgError as e:
        return e.diagnostics
    return lint_source(source, str(path), sample)
