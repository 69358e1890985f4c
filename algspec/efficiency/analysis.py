"""The static analysis as a pipeline of passes (paper section 3; docs/efficiency.md).

`analyse(program)` derives, as worst-case asymptotic classes in n and m: the rounds
T (hint frames), the processors N, the interconnection graph's edges |E|, the work
(active nodes summed over rounds), the active edges summed over rounds, the
capacity c = N T, the node efficiency eta = work / c and the edge efficiency
epsilon = active edges / (T |E|), |E| counting the edges the program's reads travel
(the declared graph's, and a larger graph's where it reads a node the declared one
does not join: `algspec.efficiency.graph_reads`). Each step is one module:

    sizes         size_eval      N and |E| as classes (loop bounds, later, likewise)
    dependence    dependence     which data and locals depend on the input data
    normal forms  normal_forms   equivalent spellings rewritten to one IR
    selection     selection      what data-independent tests select, counted
    cost          cost           rounds, work and edges per statement, at one end
    summary       (here)         T, c, eta, epsilon and both ends of each (`results`)

The worst case is one definition (`worst_case`): T is a maximum; work and active
edges are counted on the inputs that attain it, every data-dependent choice taking
the fewest or the most of what it selects, so the cost pass runs once per end; the
fields take each quantity's headline end (`worst_case.HEADLINE`: the fewest, the
paper's worst case), `.ranges` both. Shares are bounded by construction: one
statement touches at most
N nodes and |E| edges per round and every round at least one node, so
0 < eta <= 1 and 0 < epsilon <= 1; classes simplify under n <= m <= n^2.
"""

from __future__ import annotations

from algspec import ir
from algspec.efficiency import selection, worst_case
from algspec.efficiency.asymptotic import Asymptotic, Share, one, zero
from algspec.efficiency.cost import CostPass
from algspec.efficiency.cost_terms import Binder, Cost, plus
from algspec.efficiency.dependence import Taint
from algspec.efficiency.graph_reads import used_edge_kinds
from algspec.efficiency.normal_forms import normal_program
from algspec.efficiency.results import StaticEfficiency
from algspec.efficiency.selection import Selections
from algspec.efficiency.size_eval import edge_class, size_class
from algspec.ir.size_values import eval_size


def analyse(program: ir.Program) -> StaticEfficiency:
    """Worst-case rounds, work, active edges, capacity and efficiencies of `program`, each
    ranged one at its headline end (`worst_case.HEADLINE`: the fewest, the worst case),
    with both ends of each in `.ranges`."""
    nodes = size_class(program.nodes, path=program.path)
    edges = edge_class(program.graph, nodes)
    beyond = used_edge_kinds(program)
    used = sum((edge_class(ir.Graph(kind=k), nodes) for k in beyond), edges)
    taint = Taint(program)
    normal = normal_program(program)
    sel = selections(program, taint)
    fewest = summarise(program, CostPass(normal, worst_case.FEWEST, taint, sel, nodes, edges,
                                         used), beyond)
    most = summarise(program, CostPass(normal, worst_case.MOST, taint, sel, nodes, edges, used),
                     beyond)
    return worst_case.headline(fewest, most)


def selections(prog: ir.Program, taint: Taint) -> Selections:
    """What the program's data-independent tests select (`algspec.efficiency.selection`)."""
    if not selection.has_sites(prog, taint.expr):
        return Selections()
    return selection.measure_selections(prog, taint.expr, taint.names, eval_size)


def summarise(program: ir.Program, a: CostPass,
              beyond: list[str] | None = None) -> StaticEfficiency:
    """Run the cost pass `a` over the whole program and derive T, c, eta and epsilon.

    |E| is the edges the program's reads travel (`a.E_used`): the declared graph's, plus
    those of `beyond`, the built-in graphs that carry the reads it does not."""
    top = a.block(a.prog.body, [Binder(frozenset(), one, "seq")])
    cost = (plus(top.cont, top.brk) or Cost()).whole_run()
    T = cost.frames
    # Every round has at least one active node (shares > 0), and at most N nodes and
    # |E| edges (shares <= 1): both hold by construction.
    cap = a.N * T
    work = (cost.work + T).at_most(cap)
    active = (work + cost.derefs).at_most(T * a.E_used)
    eta: Asymptotic
    eps: Asymptotic
    if T.is_zero:
        eta = eps = Share.of(zero)
    else:
        eta = Share.of(work / cap)
        eps = Share.of(active / (T * a.E_used))
    loops = {lp.stmt.id: lp for lp in a.loops}
    for rid, lid in a.innermost.items():
        if lid is not None and lid in loops:
            loops[lid].record_ids.append(rid)
    return StaticEfficiency(
        name=program.name, nodes=a.N, edges=a.E_used, rounds=T, work=work,
        active_edges=active, capacity=cap, node_efficiency=eta, edge_efficiency=eps,
        graph=program.graph.kind, reads_beyond_graph=tuple(beyond or ()),
        record_counts=dict(cost.records), loops=a.loops,
        records=a.records, innermost_loop=a.innermost,
        whp=any(isinstance(st, ir.While) and st.whp for st, _ in ir.walk_statements(program.body)))


__all__ = ["analyse", "selections", "summarise"]
