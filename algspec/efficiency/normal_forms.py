"""Normal forms: equivalent spellings reach the cost rules as one form (docs/efficiency.md).

`normal_program(program)` is an IR-to-IR rewrite the cost pass
(`algspec.efficiency.cost`) reads instead of the program as written, so
equivalent programs get equal classes:

* a filter is a guarded body: `op(b if c else identity ...)` is `op(b ... if c)`;
* `forall v { if c { B } }` (one `if`, no `else`) is `forall v where c { B }`;

and the queries on tests the rules share: a guard less its conjuncts that test the
interconnection graph itself (`adj[v, u]`, or `A[v, u] != 0` under
`adj = adjacency(A)`) selects every edge; a test's conjuncts on the candidate's own
state come first (`split_test`); whether a forall's processors read data at all
(resets are free). The measured side's rewrite (`algspec.lint.observed`)
reads the same queries.
"""

from __future__ import annotations

from dataclasses import dataclass

from algspec import ir
from algspec.efficiency.conjuncts import conjoin, conjuncts, const_value
from algspec.efficiency.worst_case import reads_messages
from algspec.ir import ops

_IDENTITY = {k: r.identity for k, r in ops.AGGREGATIONS.items()}  # neutral elements


def normal_aggregate(e: ir.Aggregate) -> ir.Aggregate:
    """A filter is a guarded body: `op(b if c else identity ...)` -> `op(b ... if c)`.

    The identity is the operator's neutral element (inf for min, -inf for max,
    0 for sum, false for count/any, true for all), so both forms reduce the same
    elements; the analysis sees one form.
    """
    body = e.body
    if not isinstance(body, ir.Cond):
        return e
    ident = _IDENTITY[e.op]
    then_v, else_v = const_value(body.then), const_value(body.otherwise)
    if else_v is not None and else_v == ident and \
            isinstance(else_v, bool) == isinstance(ident, bool):
        cond, kept = body.cond, body.then
    elif then_v is not None and then_v == ident and \
            isinstance(then_v, bool) == isinstance(ident, bool):
        cond = ir.Unary(op="not", operand=body.cond, dtype=ir.DType.BOOL)
        kept = body.otherwise
    else:
        return e
    filt = cond if e.filter is None else ir.Binary(op="and", left=e.filter, right=cond,
                                                   dtype=ir.DType.BOOL)
    return e.model_copy(update={"body": kept, "filter": filt})


def normal_forall(s: ir.Forall) -> tuple[ir.Forall, tuple[int, str]]:
    """`forall v { if c { B } }` (one `if`, no `else`) is `forall v where c { B }`.

    The processors c leaves out run nothing, exactly as those a guard leaves out,
    whether c reads data or not: the worst-case rule (`algspec.efficiency.worst_case`)
    resolves a guard and an `if` alike. A condition that draws (`rand()`) stays an
    `if`: every processor draws, an operation. Returns the normal form and the key under which
    `algspec.efficiency.selection` counted its selection.
    """
    if len(s.body) == 1 and isinstance(s.body[0], ir.If) and not s.body[0].otherwise \
            and not any(isinstance(x, ir.Rand) for x in ir.walk_expr(s.body[0].cond)):
        inner = s.body[0]
        guard = inner.cond if s.guard is None else ir.Binary(
            op="and", left=s.guard, right=inner.cond, dtype=ir.DType.BOOL)
        return s.model_copy(update={"guard": guard, "body": inner.then}), (inner.id, "then")
    return s, (s.id, "guard")


def _ivar_names(indices: list[ir.Expr]) -> list[str | None]:
    return [x.name if isinstance(x, ir.IndexVar) else None for x in indices]


def _edge_test(e: ir.Expr) -> ir.Read | None:
    """The edge read `X[a, b]` that `e` tests for an edge: `X[a, b] != 0` or a bool `X[a, b]`."""
    if isinstance(e, ir.Read) and e.loc == ir.Loc.EDGE and e.dtype == ir.DType.BOOL:
        return e
    if isinstance(e, ir.Binary) and e.op == "!=":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            c = const_value(b)
            if isinstance(a, ir.Read) and a.loc == ir.Loc.EDGE and c is not None and c == 0:
                return a
    return None


def graph_edge_tests(prog: ir.Program) -> frozenset[tuple[str, bool]]:
    """The tests `X[i, j] != 0` (name, transposed) whose union, with self-loops, is the graph.

    An input graph's mask is usually `adjacency(A)` (`A[i, j] != 0 or i == j`), or
    DCSC's `adjacency(A) or adjacency(transpose(A))`; a guard `A[v, u] != 0` on an
    edge forall then keeps every edge but the n self-loops, a constant share of |E|.
    A mask that is anything else (a conjunction, a threshold) gives no tests.
    """
    if prog.graph.kind != "input":
        return frozenset()
    decl = next((d for d in prog.decls if d.name == prog.graph.mask_name), None)
    out: set[tuple[str, bool]] = set()

    def leaves(e: ir.Expr) -> bool:
        if isinstance(e, ir.Binary) and e.op == "or":
            return leaves(e.left) and leaves(e.right)
        if isinstance(e, ir.Binary) and e.op == "==" and \
                sorted(_ivar_names([e.left, e.right]), key=str) == ["@i", "@j"]:
            return True  # the self-loops adjacency() adds
        r = _edge_test(e)
        names = _ivar_names(r.indices) if r is not None else []
        if names in (["@i", "@j"], ["@j", "@i"]):
            out.add((r.name, names[0] == "@j"))
            return True
        return False

    if decl is None or decl.derived is None or not leaves(decl.derived):
        return frozenset()
    return frozenset(out)


def _is_graph_test(e: ir.Expr, vars: list[str], graph: ir.Graph,
                   tests: frozenset[tuple[str, bool]]) -> bool:
    """Whether `e` tests edge processor (vars[0], vars[1]) for being a graph edge."""
    if isinstance(e, ir.Read) and e.name == graph.mask_name and \
            _ivar_names(e.indices) == list(vars):
        return True
    r = _edge_test(e)
    if r is None:
        return False
    names = _ivar_names(r.indices)
    return names == list(vars) and (r.name, False) in tests or \
        names == list(vars)[::-1] and (r.name, True) in tests


def without_graph_mask(e: ir.Expr | None, vars: list[str], graph: ir.Graph,
                        tests: frozenset[tuple[str, bool]] = frozenset()) -> ir.Expr | None:
    """A guard less its conjuncts that test the interconnection graph itself.

    An edge forall's processors are the graph's edges, so `forall v, u where adj[v, u]`
    selects every one of them, as `forall v, u` does (not a data-dependent O(1)); so
    does the README's `where A[v, u] != 0` when the mask is `adjacency(A)` (every
    edge but the self-loops: `graph_edge_tests`).
    """
    if e is None or len(vars) != 2 or graph.mask_name is None:
        return e
    if _is_graph_test(e, vars, graph, tests):
        return None
    if isinstance(e, ir.Binary) and e.op == "and":
        left = without_graph_mask(e.left, vars, graph, tests)
        right = without_graph_mask(e.right, vars, graph, tests)
        if left is None or right is None:
            return right if left is None else left
        return e.model_copy(update={"left": left, "right": right})
    return e


def neighbour_test(e: ir.Expr, var: str, graph: ir.Graph,
                   tests: frozenset[tuple[str, bool]]) -> bool:
    """Whether `e` tests node processor `var` for being a neighbour of a shared node `c`:
    `A[c, v] != 0` or `adj[v, c]` with `A` the graph's own edge test (its mask or
    `graph_edge_tests`). Like `v in outgoing(c)`, it chooses the processors by the
    graph's structure, without reading across an edge."""
    if graph.mask_name is None:
        return False
    r = e if isinstance(e, ir.Read) and e.name == graph.mask_name else _edge_test(e)
    if r is None or len(r.indices) != 2:
        return False
    names = _ivar_names(r.indices)
    other = [i for i, nm in zip(r.indices, names) if nm != var]
    return names.count(var) == 1 and len(other) == 1 and not ir.free_ivars(other[0]) and \
        (r.name == graph.mask_name or any(r.name == t for t, _ in tests))


def split_test(e: ir.Expr | None, vars: list[str], graph: ir.Graph,
               tests: frozenset[tuple[str, bool]] = frozenset()
               ) -> tuple[ir.Expr | None, ir.Expr | None]:
    """(local, remote) conjuncts of a forall's test: those a candidate evaluates on its own
    state (and the graph's structure), and those that read across an edge
    (`worst_case.reads_messages`). A candidate checks the local ones first: only those
    they keep evaluate the remote ones (Dijkstra's relaxation `A[cur, v] != 0 and
    d[cur] + A[cur, v] < d[v]` reads `d[cur]` at cur's neighbours only)."""
    local, remote = [], []
    for c in conjuncts(e):
        if without_graph_mask(c, vars, graph, tests) is None or \
                len(vars) == 1 and neighbour_test(c, vars[0], graph, tests) or \
                not reads_messages(c, vars):
            local.append(c)
        else:
            remote.append(c)
    return conjoin(local), conjoin(remote)


def zero_pins(e: ir.Expr | None, vars) -> frozenset[str]:
    """The processor variables a selection's conjunct `v == 0` fixes to node 0."""
    if isinstance(e, ir.Binary) and e.op == "and":
        return zero_pins(e.left, vars) | zero_pins(e.right, vars)
    if isinstance(e, ir.Binary) and e.op == "==":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if isinstance(a, ir.IndexVar) and a.name in vars and const_value(b) == 0 and \
                    not isinstance(const_value(b), bool):
                return frozenset([a.name])
    return frozenset()


def _reads_data(e: ir.Expr | None) -> bool:
    return e is not None and ir.reads_state(e)


def forall_reads_data(s: ir.Forall, input_graph: bool = False) -> bool:
    """Whether a forall's processors read any data (guard, values, indices, conditions).

    On an input graph, edge processors exist where the input has edges, so what they
    write to a node (`deg[u] = 1 by sum`, `first[u] = v by min`) is the graph itself.
    """
    if _reads_data(s.guard):
        return True
    if input_graph and len(s.vars) == 2 and any(
            isinstance(st, ir.Assign) and any(t.loc == ir.Loc.NODE for t in st.targets)
            for st, _ in ir.walk_statements(s.body)):
        return True
    for st, _ in ir.walk_statements(s.body):
        if any(_reads_data(x) for x in ir.statement_exprs(st)):
            return True
        if isinstance(st, ir.Assign) and st.accumulate:
            return True  # `x[v] += 1 by sum` adds to the value it holds: it reads x
        if isinstance(st, ir.Assign) and any(t.loc == ir.Loc.GRAPH for t in st.targets):
            return True  # a write to shared memory (e.g. a priority write of the index)
    return False


# ---------------------------------------------------------------- the program rewrite
@dataclass(frozen=True)
class ForallOrigin:
    """What a forall of the normal form was as written: its own guard (before an `if`
    was merged into it), whether one was, and the key `selection` counted it under."""

    guard: ir.Expr | None
    merged: bool
    key: tuple[int, str]


@dataclass(frozen=True)
class NormalProgram:
    """A program in normal form, and where each of its foralls came from (by id)."""

    program: ir.Program
    foralls: dict[int, ForallOrigin]

    def origin(self, s: ir.Forall) -> ForallOrigin:
        """The origin of forall `s` of the normal form (itself when it was not rewritten)."""
        return self.foralls.get(s.id) or ForallOrigin(s.guard, False, (s.id, "guard"))


def normal_program(prog: ir.Program) -> NormalProgram:
    """`prog` with every aggregation and forall in normal form (top down, each once).

    Nodes that nothing rewrites are kept as they are (the same objects).
    """
    foralls: dict[int, ForallOrigin] = {}

    def node(x: ir.IRNode) -> ir.IRNode:
        if isinstance(x, ir.Aggregate):
            x = normal_aggregate(x)
        merged = False
        if isinstance(x, ir.Forall):
            before = x
            x, key = normal_forall(x)
            merged = x is not before
        update = {}
        for name in type(x).model_fields:
            v = getattr(x, name)
            nv = value(v)
            if nv is not v:
                update[name] = nv
        out = x.model_copy(update=update) if update else x
        if isinstance(out, ir.Forall):
            own = out.guard.left if merged and before.guard is not None else \
                None if merged else out.guard
            foralls[out.id] = ForallOrigin(own, merged, key)
        return out

    def value(v):
        if isinstance(v, ir.IRNode):
            return node(v)
        if isinstance(v, list) and v and any(isinstance(i, ir.IRNode) for i in v):
            new = [value(i) for i in v]
            return v if all(a is b for a, b in zip(new, v)) else new
        return v

    body = value(prog.body)
    program = prog if body is prog.body else prog.model_copy(update={"body": body})
    return NormalProgram(program, foralls)
