"""`rand()`: a counter-based random stream that batching cannot change.

A draw is a pure function of four numbers, hashed with splitmix64:

    hash(sample key, call site, how often the site ran for this sample, lane)

- the *sample key* is a hash of the sample's primary inputs (float inputs as
  float32, the precision samplers store) and of the sample's *rand key*: a
  uint64 that samplers draw per sample from their seeded stream after its
  inputs (`CompiledAlgorithm.sample`), so samples with equal inputs, or of a
  program without inputs, still draw independently, and another seed draws
  otherwise. A sample gets the same draws when it is traced alone with its
  rand key (`trace(rand_key=...)`), sampled in a batch of any size or at any
  position, and re-run from a stored dataset (which stores the keys);
- the *site* is the `rand()` call's number in the program (`ir.Rand.site`);
- the *count* advances for a sample each time the site is evaluated with any
  live lane of that sample (a statement or branch that does not run for the
  sample draws nothing), so it depends on that sample's own execution only;
- the *lane* is the flat index of the processor (and aggregation element)
  along the scope axes: every processor of a `forall` gets its own draw (an edge
  round's processor (v, u) is the lane v * N + u). A draw in an edges loop
  (`ir.Rand.pair`) puts the edge's a * N + b first, and its trips restart the
  count (`EdgeTrips`); `symmetric` orders the pair (min, max), so both
  directions of an edge draw alike.

Values are `(h >> 11) * 2**-53`, uniform on [0, 1) with 53 random bits. An int
`ir.Rand` (the draw of `rand_int(low, high)`) is h itself, its 64 bits as an int64,
which `algspec.ir.op_rand_int` makes an integer in [low, high) exactly.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.interp.env_protocol import EvalEnv
from algspec.ir.splitmix import _M1, _M2, mix


def _words(x: np.ndarray, B: int) -> np.ndarray:
    """One sample's data as uint64 words, [B, K]: floats as float32 bits, the rest as ints."""
    x = np.asarray(x).reshape(B, -1)
    if x.dtype.kind == "f":
        return x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return x.astype(np.int64).view(np.uint64)


def sample_keys(prog: ir.Program, state: dict[str, np.ndarray], B: int) -> np.ndarray:
    """The key of each sample, [B] uint64: a hash of its primary inputs, in declaration order.

    An input held at its edges (`edge_values`) hashes to the same key without being built
    N x N: the sum over every pair is the sum for an all-zero array (the same for every
    sample) plus, at each edge, its value's term minus the zero's (uint64 sums wrap, so
    the order does not matter)."""
    key = np.zeros(B, np.uint64)
    with np.errstate(over="ignore"):
        for k, d in enumerate(prog.decls):
            if d.stage != ir.Stage.INPUT or d.derived is not None or d.name not in state:
                continue
            held = state.edge_valued(d.name) if hasattr(state, "edge_valued") else None
            if held is not None:
                key = mix(key + _edge_sums(held, np.uint64(k << 40)))
                continue
            w = _words(state[d.name], B)
            pos = mix(np.arange(w.shape[1], dtype=np.uint64) + np.uint64(k << 40))
            key = mix(key + (mix(w ^ pos[None, :]).sum(axis=1, dtype=np.uint64)))
    return key


def _edge_sums(held, salt: np.uint64) -> np.ndarray:
    """`sample_keys`'s per-sample sum for an [B, N, N] input held at its edges, [B]."""
    g = held.graph
    n2 = g.n * g.n
    zero = mix(mix(np.arange(n2, dtype=np.uint64) + salt)).sum(dtype=np.uint64)  # w = 0
    p = g.senders.astype(np.uint64) * np.uint64(g.n) + g.receivers.astype(np.uint64)
    pos = mix(p + salt)
    w = _words(held.values, g.num_edges).reshape(-1)
    terms = mix(w ^ pos) - mix(pos)
    total = np.concatenate([np.zeros(1, np.uint64), np.cumsum(terms, dtype=np.uint64)])
    return zero + (total[g.offsets[1:]] - total[g.offsets[:-1]])


def _lanes(env: EvalEnv, e: ir.Rand, rank: int, pair: list[np.ndarray] | None) -> np.ndarray:
    """The lane numbers keying a draw: the flat index along the scope axes; an edges loop's
    edge (a, b) comes first as a * N + b; `symmetric` orders each pair (min, max) first."""
    N = env.N
    lanes = np.arange(N ** rank, dtype=np.uint64).reshape((1,) + (N,) * rank)
    if pair is None and e.symmetric:  # an edge round: axes 0 and 1 are the processors
        more = (1,) * (rank - 2)
        i = np.arange(N, dtype=np.uint64).reshape((1, N, 1) + more)
        j = i.reshape((1, 1, N) + more)
        rest = np.arange(N ** (rank - 2), dtype=np.uint64).reshape((1, 1, 1) + (N,) * (rank - 2))
        lanes = (np.minimum(i, j) * np.uint64(N) + np.maximum(i, j)) * \
            np.uint64(N ** (rank - 2)) + rest
    if pair is not None:
        a, b = (np.asarray(x, np.int64).reshape((env.B,) + (1,) * rank).astype(np.uint64)
                for x in pair)
        if e.symmetric:
            a, b = np.minimum(a, b), np.maximum(a, b)
        lanes = (a * np.uint64(N) + b) * np.uint64(N ** rank) + lanes
    return lanes


def draw(env: EvalEnv, e: ir.Rand, rank: int, mask: np.ndarray,
         pair: list[np.ndarray] | None = None) -> np.ndarray:
    """Uniform [0, 1) values of shape (B, N, ..., N) (one per lane) for one evaluation of `e`.

    `pair`: the values of `e.pair` (an edges loop's ends, per sample) for a per-edge draw.
    The sample keys are computed at the first draw (programs without `rand()` never pay).
    """
    keys = env.rand_keys
    if keys is None:
        keys = sample_keys(env.prog, env.state, env.B)
        given = env.given_rand_keys
        if given is not None:
            with np.errstate(over="ignore"):
                keys = mix(keys ^ mix(given ^ _M2))
        env.rand_keys = keys
    counts = env.rand_counts
    count = counts.get(e.site)
    if count is None:
        count = counts[e.site] = np.zeros(env.B, np.uint64)
    live = np.broadcast_to(mask, (env.B,) + np.shape(mask)[1:]).reshape(env.B, -1).any(axis=1)
    with np.errstate(over="ignore"):
        base = mix(keys ^ mix(np.uint64(e.site) * _M1 + mix(count)))  # [B]
        lanes = _lanes(env, e, rank, pair)
        h = mix(base.reshape((env.B,) + (1,) * rank) + mix(lanes ^ _M2))
    counts[e.site] = count + live.astype(np.uint64)
    if e.dtype == ir.DType.INT:
        return h.view(np.int64)
    return (h >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)


class EdgeTrips:
    """The counts of an edges loop's per-edge draws (`ir.Rand.pair`): each trip starts from
    the counts the loop started with, so the edge, not the trip number, tells the trips'
    draws apart ((u, v) and (v, u) of a symmetric draw meet the same count); after the loop
    a site's count is the most any trip reached."""

    def __init__(self, env: EvalEnv, sites: list[int]) -> None:
        self.env, self.sites = env, sites
        counts = env.rand_counts
        self.start = {k: counts.get(k) for k in sites}
        self.most = dict(self.start)

    @staticmethod
    def of(env: EvalEnv, loop: ir.ForEdges) -> EdgeTrips | None:
        """The loop's bookkeeping, None when its body draws nothing per edge."""
        cache = env.edge_draw_sites
        sites = cache.get(loop.id)
        if sites is None:
            sites = cache[loop.id] = _edge_sites(loop)
        return EdgeTrips(env, sites) if sites else None

    def _note(self) -> None:
        counts = self.env.rand_counts
        for k in self.sites:
            now, most = counts.get(k), self.most[k]
            self.most[k] = now if most is None or now is None else np.maximum(most, now)

    def trip(self) -> None:
        """Before each trip: the counts go back to the loop's start."""
        self._note()
        for k in self.sites:
            if self.start[k] is None:
                self.env.rand_counts.pop(k, None)
            else:
                self.env.rand_counts[k] = self.start[k]

    def end(self) -> None:
        self._note()
        for k in self.sites:
            if self.most[k] is not None:
                self.env.rand_counts[k] = self.most[k]


def _edge_sites(loop: ir.ForEdges) -> list[int]:
    """The sites of the per-edge draws of this loop: in its body, not in a nested edges loop."""
    out: set[int] = set()
    for s, enclosing in ir.walk_statements(loop.body):
        if isinstance(s, ir.ForEdges) or any(isinstance(x, ir.ForEdges) for x in enclosing):
            continue
        for x in ir.statement_exprs(s):
            out.update(r.site for r in ir.walk_expr(x)
                       if isinstance(r, ir.Rand) and r.pair is not None)
    return sorted(out)
