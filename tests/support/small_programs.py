"""Small `.alg` programs (none of them shipped in algorithms/) that several test modules
run: one copy of each text, so a change to the language updates them all."""

from __future__ import annotations

# Hillis-Steele prefix maximum: round k reads the node 2^k places to the left, so it needs
# `graph complete`; `{graph}` is the declared interconnection graph (str.format).
HILLIS_STEELE = """algorithm prefix_max
nodes n
graph {graph}

input  node  x: scalar ~ uniform(low = 0.0, high = 1.0)
hint   node  cur: scalar := x
output node  best: scalar = cur
state  graph d: int = 1

record
while d < n bound ceil(log2(n)) {{
    forall v where v >= d {{ cur[v] = max(cur[v], cur[v - d]) }}
    d = d * 2
    record
}}
"""

# Every item above a shared cut: one round, no hints; trains and runs in a blink.
FIRST_ABOVE = """\
algorithm first_above
nodes n
graph empty

input  node  key: scalar ~ sorted_uniform(low = 0.0, high = 1.0)
input  graph cut: scalar ~ uniform_scalar(low = 0.0, high = 1.0)
output node  above: mask

record
forall v { above[v] = key[v] > cut }
"""

# Two inputs that are views of private draws (dm-clrs's `s`/`f`): they read nothing recorded.
STAND_IN_HEAD = """nodes n
graph complete
private node a: float ~ uniform()
private node b: float ~ uniform()
input node s: scalar = min(a, b)
input node f: scalar = max(a, b)
"""

# The smallest trainable program: a graph maximum and its one-hot owner, no hints
# (model parity and the nn graph-ops tests train it).
HINT_FREE_MAX = """\
algorithm hint_free_max
nodes n
graph complete
input  node  key: scalar ~ uniform(low = 0.0, high = 1.0)
output graph best: scalar
output node  top: mask_one
best = max(key[v] for v in nodes)
forall v { top[v] = key[v] == best }
"""

# Edge hints and an edge output that are zero off the graph: marks and weights of the
# edges a search crosses.
EDGE_FLOW = """\
algorithm edge_flow
nodes n
graph input adj

input  node s: mask_one ~ source_node()
input  edge A: scalar ~ erdos_renyi(p = 0.3, weighted = true, low = 0.1, high = 1.0)
input  edge adj: mask = adjacency(A)
hint   node reach: mask := s
hint   edge used: mask := false
hint   edge w: scalar := 0.0
output edge flow: scalar = w

record
while any(not reach[v] and any(reach[u] and A[u, v] > 0 for u in incoming(v))  # allow: W201
          for v in nodes) bound n {
    forall v, u where A[v, u] != 0 and reach[v] and not reach[u] {
        used[v, u] = true
        w[v, u] = A[v, u] + 1.0
        reach[u] = true by any
    }
    record
}
"""

# A prefix maximum by doubling (not a shipped file): few frames, a quick compile.
PREFIX_MAX = """\
algorithm prefix_max_doubling
nodes n
graph complete

input  node  x: scalar ~ uniform(low = -1.0, high = 1.0)
hint   node  best: scalar := x
output node  prefix_max: scalar = best
state  graph step: int = 1

record
while step < n bound ceil(log2(n)) {
    forall v where v >= step { best[v] = max(best[v], best[v - step]) }
    step = step << 1
    record
}
"""
