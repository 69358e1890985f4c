"""Recursion in the selection skeleton (`selection._Skeleton`): calls it can follow run.

A recursive procedure whose calls, arguments and the tests that choose them read no
input data (a merge sort's `msort(lo, mid)` under `if hi - lo > 1`) makes the same
calls on every input, so the skeleton runs them with their concrete arguments, each in
a frame of its own locals, up to the declared `depth` and `calls`. The loops and tests
in its body are then counted like any others (a merge's `lo .. hi` trips over one level
of the recursion partition the n items). Anything else is forgotten, as before.
"""

from __future__ import annotations

from algspec import ir


class Unknown(Exception):
    """The skeleton cannot evaluate this expression (it reads data)."""


class Budget(Exception):
    """This size costs too many steps."""


class Calls:
    """The skeleton's rules for `Proc` and `Recur` (mixed into `selection._Skeleton`)."""

    def _followable(self, s: ir.Proc) -> bool:
        """Arguments and the tests around each call read no data, and no loop repeats one."""
        if any(self.tainted(a) for a in s.args):
            return False
        for x, parents in ir.walk_statements(s.body):
            if not isinstance(x, ir.Recur):
                continue
            if any(self.tainted(a) for a in x.args) or any(
                    not isinstance(p, ir.If) or self.tainted(p.cond) for p in parents):
                return False
        return True

    def _proc(self, s: ir.Proc, certain: bool) -> None:
        """Run the calls when they can be followed (`_followable`); else forget what
        the procedure may change. A call that cannot be evaluated after all undoes the
        run (nothing it counted stays)."""
        saved = (dict(self.env), dict(self.total), dict(self.execs), dict(self.procs),
                 set(self.unknown))
        try:
            if not self._followable(s):
                raise Unknown
            frame = {"calls": 0, "depth": 0,
                     "max_calls": self.size_of(s.calls, self.n, self.E, self.N),
                     "max_depth": self.size_of(s.depth, self.n, self.E, self.N)}
            self.frames[s.name] = (s, frame)
            self._invoke(s, [self._scalar(a) for a in s.args], certain)
            self._count((s.id, "trips"), float(frame["calls"]), float(frame["max_calls"]))
        except (Unknown, ValueError, ArithmeticError):
            self.env, self.total, self.execs, self.procs, self.unknown = saved
            self._forget_proc(s)
        finally:
            self.frames.pop(s.name, None)
        for k in s.locals:
            self.env.pop(k, None)

    def _invoke(self, s: ir.Proc, args: list, certain: bool) -> None:
        _, frame = self.frames[s.name]
        frame["calls"] += 1
        frame["depth"] += 1
        if frame["calls"] > frame["max_calls"] or frame["depth"] > frame["max_depth"]:
            raise Unknown  # the program faults (R108): nothing to count
        outer = {k: self.env.pop(k) for k in s.locals if k in self.env}
        self.env.update(zip(s.params, args))
        try:
            self.block(s.body, certain)
        finally:
            for k in s.locals:
                self.env.pop(k, None)
            self.env.update(outer)
            frame["depth"] -= 1

    def _recur(self, s: ir.Recur, certain: bool) -> None:
        if s.name in self.frames:
            proc, _ = self.frames[s.name]
            self._invoke(proc, [self._scalar(a) for a in s.args], certain)

    def _forget_proc(self, s: ir.Proc) -> None:
        """Forget what a procedure the skeleton does not run may change."""
        for x, _ in ir.walk_statements([s]):
            if isinstance(x, ir.Assign):
                for t in x.targets:
                    self.env.pop(t.name, None)
            elif isinstance(x, (ir.Let, ir.Proc)):
                for name in [x.name] if isinstance(x, ir.Let) else x.params:
                    self.env.pop(name, None)
            elif isinstance(x, (ir.ForRange, ir.ForNodes)):
                self.env.pop(x.var, None)
            elif isinstance(x, ir.ForEdges):
                for v in x.vars:
                    self.env.pop(v, None)
            elif isinstance(x, ir.Forall):
                self.unknown.add((x.id, "guard"))
            elif isinstance(x, ir.If):
                self.unknown.update({(x.id, "then"), (x.id, "else")})


__all__ = ["Budget", "Calls", "Unknown"]
