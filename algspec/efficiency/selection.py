"""Count what data-independent guards select, summed over the loops around them.

A guard that reads no input data (only `index`, loop variables, sizes and
graph-level values computed from them, such as a `step` doubled every round)
selects the same processors on every input. Its worst case is what it
actually selects, and that can change from round to round: a tree reduction's
`forall v where v % (2 * step) == 0` keeps n / 2^k processors in round k, so
the rounds together do n - 1 units of work, not n log n.

The selection is counted, not reasoned about: `measure_selections` runs the
program's data-independent skeleton (its graph-level clock values, its loops
run to their bound unless a data-independent condition stops them earlier,
both branches of a data-dependent `if`) at several sizes n, and for every
forall guard, and every `if` inside a forall, sums the processors selected
over the whole run. `fit_share` turns the mean selected share per execution
into a class `n^a log^b n` (a in {0, -1/2, ..., -2}, |b| <= 2) by the
candidate that makes share / class most nearly constant across the sizes.
The static analysis multiplies that share by the processors and by the loop
bounds around the statement, so geometric series come out as the textbook
classes (tree reduction: work n, eta 1/log n).

A sequential `if` on such values (and on node state the program computes from no
input, such as a sieve's marks) counts the share of its executions taking each branch.
The same run counts each loop's trips per execution against its declared bound
(site (loop id, "trips")): a loop whose data-independent range or condition stops
it early (a pass over a prefix that doubles each phase) gets its real trip count.

Anything the skeleton cannot evaluate (a guard reading node data, an input
graph's edges) is left to the worst-case rules of the cost pass
(`algspec.efficiency.cost`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import get_args

import numpy as np

from algspec import ir
from algspec.efficiency.asymptotic import Asymptotic
from algspec.efficiency.share_fit import constant_count, fit_share
from algspec.efficiency.skeleton_calls import Budget, Calls, Unknown
from algspec.ir import ops
from algspec.ir.graph_kinds import GRAPH_KINDS

# Sizes at which the skeleton runs; it stops early once a size costs too much.
SIZES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
STEP_BUDGET = 3000       # statement executions per size
TOTAL_BUDGET = 2500      # statement executions over all sizes (lint stays fast)
MIN_SIZES = 4            # fewer sizes than this: no fit (fall back to the static rules)
MAX_NODES = 4096         # larger N: its N x N masks would not fit the budget (`nodes n ** 3`)


_Unknown, _Budget = Unknown, Budget


class _Break(Exception):
    pass


@dataclass
class Selections:
    """Selected processors per site: (forall id, "guard") or (if id, "then"/"else")."""

    shares: dict[tuple[int, str], Asymptotic] = field(default_factory=dict)
    raw: dict[tuple[int, str], list[tuple[int, float]]] = field(default_factory=dict)
    # loops whose trips per execution are the same count at every size: O(1), whatever
    # the bound's variables (`while wc < 2 bound m` runs twice on any graph)
    constant_trips: set[int] = field(default_factory=set)

    def share(self, key: tuple[int, str]) -> Asymptotic | None:
        return self.shares.get(key)


def _edge_mask(kind: str, N: int) -> np.ndarray | None:
    """The built-in graph's pairs (`algspec.ir.graph_kinds`); None for an input graph."""
    return GRAPH_KINDS[kind].mask(N) if kind in GRAPH_KINDS else None


class _Skeleton(Calls):
    """Runs the data-independent part of a program at one size, counting selections."""

    def __init__(self, prog: ir.Program, tainted: Callable[[ir.Expr], bool],
                 names: set[str], n: int, size_of: Callable[..., float]):
        self.prog = prog
        self.tainted = tainted
        self.names = names
        self.n = n
        self.N = int(size_of(prog.nodes, n, None))
        self.emask = _edge_mask(prog.graph.kind, self.N)
        self.E = float(self.emask.sum()) if self.emask is not None else float(self.N) ** 1.5
        self.size_of = size_of
        self.steps = 0
        self.total: dict[tuple[int, str], float] = {}
        self.execs: dict[tuple[int, str], int] = {}
        self.procs: dict[tuple[int, str], float] = {}
        self.unknown: set[tuple[int, str]] = set()
        self.env: dict[str, object] = {}
        self.frames: dict[str, tuple] = {}  # recursive procedures running (`Calls`)
        for d in _tracked_arrays(prog, names):  # node state computed from no input
            self.env[d.name] = np.zeros(self.N, _NUMPY[d.dtype])
        for d in prog.decls:
            if d.loc == ir.Loc.GRAPH and d.derived is None and d.name not in names:
                src = d.initial
                try:
                    self.env[d.name] = self.ev(src, {}) if src is not None else 0
                except _Unknown:
                    pass

    # ------------------------------------------------------------ expressions
    def ev(self, e: ir.Expr, idx: dict[str, np.ndarray], env: dict | None = None):
        env = self.env if env is None else env
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Size):
            return {"n": self.n, "N": self.N, "m": self.E}[e.which]
        if isinstance(e, ir.IndexVar):
            if e.name not in idx:
                raise _Unknown
            return idx[e.name]
        if isinstance(e, ir.VarRef):
            if e.name in self.names or e.name not in env:
                raise _Unknown
            return env[e.name]
        if isinstance(e, ir.Read):
            return self._read(e, idx, env)
        if isinstance(e, ir.Cond):
            return np.where(self.ev(e.cond, idx, env), self.ev(e.then, idx, env),
                            self.ev(e.otherwise, idx, env))
        op = ops.op_of(e)
        if op is None:
            raise _Unknown  # reads of node/edge data, aggregations, chains
        args = [e.operand] if isinstance(e, ir.Unary) else (
            [e.left, e.right] if isinstance(e, ir.Binary) else list(e.args))
        vals = [np.asarray(self.ev(a, idx, env)) for a in args]
        try:
            return op.numpy(*vals)
        except (ZeroDivisionError, FloatingPointError, ValueError):
            raise _Unknown from None

    def _read(self, e: ir.Read, idx: dict, env: dict):
        """`x[i]` of node state the skeleton tracks (written only by sequential code)."""
        arr = env.get(e.name)
        if e.loc != ir.Loc.NODE or not isinstance(arr, np.ndarray) or len(e.indices) != 1:
            raise _Unknown
        i = np.asarray(self.ev(e.indices[0], idx, env))
        if i.shape != () or not 0 <= int(i) < len(arr):
            raise _Unknown
        return arr[int(i)]

    def _scalar(self, e: ir.Expr, env: dict | None = None):
        v = np.asarray(self.ev(e, {}, env))
        if v.shape != ():
            raise _Unknown
        return v.item()

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise _Budget

    # ------------------------------------------------------------ statements
    def block(self, stmts: list[ir.Statement], certain: bool = True) -> None:
        for s in stmts:
            self.stmt(s, certain)

    def _set(self, name: str, e: ir.Expr, env: dict) -> None:
        try:
            if name in self.names:
                raise _Unknown
            env[name] = self._scalar(e, env)
        except _Unknown:
            env.pop(name, None)

    def stmt(self, s: ir.Statement, certain: bool) -> None:
        """Run one sequential statement (its rule in `SKELETON_RULES`)."""
        self._tick()
        rule = SKELETON_RULES.get(type(s))
        if rule is None:
            raise TypeError(f"selection has no rule for {type(s).__name__}")
        rule(self, s, certain)

    def _assign(self, s: ir.Assign, certain: bool) -> None:
        for t, v in zip(s.targets, s.values):
            if t.loc == ir.Loc.GRAPH and not t.indices:
                self._set(t.name, v, self.env)
            elif isinstance(self.env.get(t.name), np.ndarray):
                arr = self.env.pop(t.name)
                try:
                    i, x = int(self._scalar(t.indices[0])), self._scalar(v)
                except (_Unknown, TypeError, ValueError):
                    continue  # forgotten: later reads are unknown
                if 0 <= i < len(arr):
                    arr = arr.copy()  # the branches of an `if` share what came before
                    arr[i] = x
                    self.env[t.name] = arr

    def _let(self, s: ir.Let, certain: bool) -> None:
        self._set(s.name, s.value, self.env)

    def _break(self, s: ir.Break, certain: bool) -> None:
        if certain:
            raise _Break

    def _nothing(self, s: ir.Record, certain: bool) -> None:
        return None  # a frame

    def _if(self, s: ir.If, certain: bool) -> None:
        """A data-independent condition runs one branch (counted per execution, so the
        cost pass charges a branch its share); otherwise both run, forgetting what
        they disagree on."""
        try:
            c = bool(self._scalar(s.cond)) if not self.tainted(s.cond) else None
        except _Unknown:
            c = None
            if not self.tainted(s.cond):
                self.unknown.update({(s.id, "then"), (s.id, "else")})
        if c is not None:
            self._count((s.id, "then"), float(c), 1.0)
            self._count((s.id, "else"), float(not c), 1.0)
            self.block(s.then if c else s.otherwise, certain)
            return
        before = dict(self.env)
        self.block(s.then, False)
        after_then, self.env = self.env, dict(before)
        self.block(s.otherwise, False)
        self.env = {k: v for k, v in self.env.items()
                    if k in after_then and _same(after_then[k], v)}

    def _round(self, s: ir.Round, certain: bool) -> None:
        """A round's graph writes land at its end: its statements read `snapshot`."""
        snapshot = dict(self.env)
        pending: dict[str, object] = {}
        gone: set[str] = set()
        for x in s.body:
            rule = ROUND_RULES.get(type(x))
            if rule is None:
                raise TypeError(f"selection has no rule for {type(x).__name__} in a round")
            rule(self, x, snapshot, pending, gone)
        for k in gone:
            self.env.pop(k, None)
        self.env.update(pending)

    def _round_forall(self, x: ir.Forall, snapshot: dict, pending: dict, gone: set) -> None:
        self.forall(x, snapshot)

    def _round_assign(self, x: ir.Assign, snapshot: dict, pending: dict, gone: set) -> None:
        for t, v in zip(x.targets, x.values):
            if t.loc == ir.Loc.GRAPH and not t.indices:
                try:
                    if t.name in self.names:
                        raise _Unknown
                    pending[t.name] = self._scalar(v, snapshot)
                except _Unknown:
                    gone.add(t.name)

    def _round_let(self, x: ir.Let, snapshot: dict, pending: dict, gone: set) -> None:
        self._set(x.name, x.value, snapshot)

    def _round_other(self, x: ir.Statement, snapshot: dict, pending: dict, gone: set) -> None:
        return None  # selects nothing the skeleton counts

    def _forall(self, s: ir.Forall, certain: bool) -> None:
        self.forall(s, dict(self.env))

    def loop(self, s: ir.Statement, certain: bool) -> None:
        try:
            bound = math.ceil(self.size_of(s.bound, self.n, self.E, self.N)) \
                if not isinstance(s, ir.ForNodes) else self.N
        except (ValueError, ArithmeticError):
            raise _Unknown from None
        # Lazily: a bound such as `2 ** n` is astronomically large; the step budget ends
        # the skeleton long before it (the trips are still counted against the whole bound).
        runs = max(min(bound, STEP_BUDGET + 1), 0)
        ks: Iterable
        var = getattr(s, "var", None)
        if isinstance(s, ir.ForRange):
            try:
                lo, hi = int(self._scalar(s.start)), int(self._scalar(s.stop))
                step = 1 if s.step is None else int(self._scalar(s.step))
                ks = range(hi - 1, lo - 1, -1) if s.reverse else range(lo, hi, step or 1)
                ks = itertools.islice(ks, runs)
            except _Unknown:
                ks = itertools.repeat(None, runs)
        else:
            ks = itertools.repeat(None, runs)
        for v in getattr(s, "vars", ()):  # an edge loop's ends are data
            self.env.pop(v, None)
        trips = 0
        if isinstance(s, ir.ForRange) and not isinstance(ks, itertools.repeat) and \
                self._opaque(s.body):
            # nothing in the body is counted or steers the skeleton: count, do not run
            trips = sum(1 for _ in ks)
            self._forget(s.body + [s])
            ks = ()
        for k in ks:
            if not s.body:
                self._tick()  # a body's statements tick themselves
            if isinstance(s, ir.While) and not self.tainted(s.cond):
                try:
                    if not bool(self._scalar(s.cond)):
                        break
                except _Unknown:
                    pass
            if var is not None:
                if k is None or var in self.names:
                    self.env.pop(var, None)
                else:
                    self.env[var] = k
            trips += 1
            try:
                self.block(s.body, certain)
            except _Break:
                break
        if bound > 0 and not isinstance(s, ir.ForNodes):
            # Trips per execution against the bound: a pass over a doubling prefix
            # (`for j in 0 .. len bound n`, len = 1, 2, 4, ...) runs 2n trips in all, not n log n.
            self._count((s.id, "trips"), float(trips), float(bound))

    def _opaque(self, body: list[ir.Statement]) -> bool:
        """A body of plain statements and `if`s on data, writing no state the skeleton
        follows: running it counts nothing and decides nothing later code reads."""
        for x, _ in ir.walk_statements(body):
            if isinstance(x, ir.If) and not self.tainted(x.cond):
                return False
            if not isinstance(x, (ir.Assign, ir.Let, ir.Record, ir.If)):
                return False
            if isinstance(x, ir.Assign) and any(
                    isinstance(self.env.get(t.name), np.ndarray) for t in x.targets):
                return False
        return True

    def _forget(self, stmts: list[ir.Statement]) -> None:
        """Forget the graph values and locals `stmts` may change."""
        for x, _ in ir.walk_statements(stmts):
            if isinstance(x, ir.Assign):
                for t in x.targets:
                    self.env.pop(t.name, None)
            elif isinstance(x, ir.Let):
                self.env.pop(x.name, None)
            elif isinstance(x, ir.ForRange):
                self.env.pop(x.var, None)

    # ------------------------------------------------------------ processors
    def forall(self, s: ir.Forall, env: dict) -> None:
        self.steps += 4  # processors cost more than a sequential statement
        N = self.N
        if len(s.vars) == 1:
            idx = {s.vars[0]: np.arange(N)}
            base = np.ones(N, bool)
        else:
            if self.emask is None:
                self.unknown.add((s.id, "guard"))
                return
            idx = {s.vars[0]: np.arange(N)[:, None], s.vars[1]: np.arange(N)[None, :]}
            base = self.emask
        procs = float(base.sum())
        mask = base
        key = (s.id, "guard")
        if s.guard is not None:
            try:
                if self.tainted(s.guard):
                    raise _Unknown
                mask = base & np.broadcast_to(self.ev(s.guard, idx, env), base.shape
                                              ).astype(bool)
                self._count(key, float(mask.sum()), procs)
            except _Unknown:
                self.unknown.add(key)
                return
        self.body(s.body, idx, mask, procs, dict(env))

    def body(self, stmts: list[ir.Statement], idx: dict, mask: np.ndarray, procs: float,
             env: dict) -> None:
        """Run a forall's body on the processors in `mask` (its rules in `PROCESSOR_RULES`)."""
        for x in stmts:
            rule = PROCESSOR_RULES.get(type(x))
            if rule is None:
                raise TypeError(f"selection has no rule for {type(x).__name__} in a forall")
            rule(self, x, idx, mask, procs, env)

    def _proc_let(self, x: ir.Let, idx: dict, mask: np.ndarray, procs: float,
                  env: dict) -> None:
        try:
            if self.tainted(x.value):
                raise _Unknown
            env[x.name] = self.ev(x.value, idx, env)
        except _Unknown:
            env.pop(x.name, None)

    def _proc_if(self, x: ir.If, idx: dict, mask: np.ndarray, procs: float, env: dict) -> None:
        try:
            if self.tainted(x.cond):
                raise _Unknown
            c = np.broadcast_to(self.ev(x.cond, idx, env), mask.shape).astype(bool)
        except _Unknown:
            self.unknown.update({(x.id, "then"), (x.id, "else")})
            return
        for side, sel, sub in (("then", mask & c, x.then), ("else", mask & ~c, x.otherwise)):
            self._count((x.id, side), float(sel.sum()), procs)
            self.body(sub, idx, sel, procs, dict(env))

    def _proc_other(self, x: ir.Statement, idx: dict, mask: np.ndarray, procs: float,
                    env: dict) -> None:
        return None  # selects nothing the skeleton counts

    def _count(self, key: tuple[int, str], selected: float, procs: float) -> None:
        self.total[key] = self.total.get(key, 0.0) + selected
        self.execs[key] = self.execs.get(key, 0) + 1
        self.procs[key] = procs


_STATEMENTS = tuple(get_args(ir.Statement))

# One rule per IR statement class, run sequentially: (skeleton, statement, certain).
SKELETON_RULES: dict[type, Callable[..., None]] = {
    ir.Assign: _Skeleton._assign, ir.Let: _Skeleton._let, ir.Break: _Skeleton._break,
    ir.Record: _Skeleton._nothing, ir.Recur: _Skeleton._recur, ir.If: _Skeleton._if,
    ir.While: _Skeleton.loop, ir.ForRange: _Skeleton.loop, ir.ForEdges: _Skeleton.loop,
    ir.ForNodes: _Skeleton.loop, ir.Round: _Skeleton._round, ir.Forall: _Skeleton._forall,
    ir.Proc: _Skeleton._proc,
}

# Inside a round: (skeleton, statement, snapshot, pending writes, forgotten names).
ROUND_RULES: dict[type, Callable[..., None]] = {
    **{k: _Skeleton._round_other for k in _STATEMENTS},
    ir.Forall: _Skeleton._round_forall, ir.Assign: _Skeleton._round_assign,
    ir.Let: _Skeleton._round_let,
}

# Inside a forall: (skeleton, statement, indices, processors, their count, locals).
PROCESSOR_RULES: dict[type, Callable[..., None]] = {
    **{k: _Skeleton._proc_other for k in _STATEMENTS},
    ir.Let: _Skeleton._proc_let, ir.If: _Skeleton._proc_if,
}


def _same(a, b) -> bool:
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b)))
    except (TypeError, ValueError):
        return False


def measure_selections(prog: ir.Program, tainted: Callable[[ir.Expr], bool], names: set[str],
                       size_of: Callable[..., float]) -> Selections:
    """Run the skeleton at growing sizes and fit each site's mean selected share."""
    memo: dict[int, tuple[ir.Expr, bool]] = {}
    raw_taint = tainted

    def cached(e: ir.Expr) -> bool:
        hit = memo.get(id(e))
        if hit is None or hit[0] is not e:
            hit = memo[id(e)] = (e, raw_taint(e))
        return hit[1]

    tainted = cached
    out = Selections()
    per_size: list[_Skeleton] = []
    spent = 0
    with np.errstate(all="ignore"):
        for n in SIZES:
            if not _nodes_fit(prog, n, size_of):
                break
            sk = _Skeleton(prog, tainted, names, n, size_of)
            try:
                sk.block(prog.body)
            except (_Budget, _Unknown, _Break):
                break
            per_size.append(sk)
            spent += sk.steps
            if spent > TOTAL_BUDGET:
                break
    if len(per_size) < MIN_SIZES:
        return out
    keys = set().union(*(sk.total.keys() for sk in per_size))
    unknown = set().union(*(sk.unknown for sk in per_size))
    for key in keys - unknown:
        pts = [(sk.n, sk.total[key] / (sk.execs[key] * sk.procs[key]))
               for sk in per_size if key in sk.total and sk.procs.get(key)]
        if len(pts) < MIN_SIZES:
            continue
        out.raw[key] = pts
        out.shares[key] = fit_share([p[0] for p in pts], [p[1] for p in pts])
        if key[1] == "trips" and constant_count(
                [sk.total[key] / sk.execs[key] for sk in per_size if key in sk.total]):
            out.constant_trips.add(key[0])
    return out


def _nodes_fit(prog: ir.Program, n: int, size_of: Callable[..., float]) -> bool:
    """Whether the skeleton's node count at n is one it can hold (N x N masks)."""
    try:
        N = float(size_of(prog.nodes, n, None))
    except (ArithmeticError, ValueError, TypeError):
        return False
    return 1 <= N <= MAX_NODES


def has_sites(prog: ir.Program, tainted: Callable[[ir.Expr], bool]) -> bool:
    """Whether any forall guard or `if` in a forall is data-independent (worth counting)."""
    for s, parents in ir.walk_statements(prog.body):
        if isinstance(s, ir.Forall) and s.guard is not None and not tainted(s.guard):
            return True
        if _ends_on_state(s, tainted):
            return True
        if isinstance(s, ir.If) and any(isinstance(p, ir.Forall) for p in parents) \
                and not tainted(s.cond):
            return True
        if isinstance(s, ir.If) and not tainted(s.cond) and _records(s):
            return True  # a sequential branch that records: T counts what runs
    return False


def _records(s: ir.If) -> bool:
    return any(isinstance(x, ir.Record) for x, _ in ir.walk_statements(s.then + s.otherwise))


_NUMPY = {ir.DType.BOOL: np.bool_, ir.DType.INT: np.int64, ir.DType.FLOAT: np.float64}


def _tracked_arrays(prog: ir.Program, names: set[str]) -> list[ir.DataDecl]:
    """Node state the skeleton can follow: no input, no initial value, written only by
    sequential `x[i] = e` (not by processors, rounds or recursion)."""
    decls = {d.name: d for d in prog.decls if d.loc == ir.Loc.NODE and d.derived is None and
             d.initial is None and d.generator is None and d.name not in names}
    cands = set(decls)
    for s, parents in ir.walk_statements(prog.body):
        if not isinstance(s, ir.Assign):
            continue
        inside = any(isinstance(p, (ir.Forall, ir.Round, ir.Proc)) for p in parents)
        for t in s.targets:
            if t.name in cands and (inside or t.whole or len(t.indices) != 1 or s.combiner):
                cands.discard(t.name)
    return [decls[k] for k in sorted(cands)]



def _ends_on_state(s: ir.Statement, tainted: Callable[[ir.Expr], bool]) -> bool:
    """A loop whose data-independent range ends or condition read graph state or locals.

    Such a loop may stop before its declared bound on every input (its trips are
    worth counting); a range over sizes only (`0 .. n`) runs exactly its bound.
    """
    if isinstance(s, ir.ForRange):
        ends = [s.start, s.stop] + ([s.step] if s.step is not None else [])
    elif isinstance(s, ir.While):
        ends = [s.cond]
    else:
        return False
    return not any(tainted(e) for e in ends) and any(
        isinstance(x, ir.VarRef) for e in ends for x in ir.walk_expr(e))


__all__ = ["PROCESSOR_RULES", "ROUND_RULES", "SIZES", "SKELETON_RULES", "Selections", "fit_share", "has_sites", "measure_selections"]
