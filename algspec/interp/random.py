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
  along the scope axes: every processor of a `forall` gets its own draw.

Values are `(h >> 11) * 2**-53`, uniform on [0, 1) with 53 random bits. An int
`ir.Rand` (the draw of `rand_int(low, high)`) is h itself, its 64 bits as an int64,
which `algspec.op_rand_int` makes an integer in [low, high) exactly.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.interp.env_protocol import EvalEnv

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 arrays (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x, dtype=np.uint64) + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def _words(x: np.ndarray, B: int) -> np.ndarray:
    """One sample's data as uint64 words, [B, K]: floats as float32 bits, the rest as ints."""
    x = np.asarray(x).reshape(B, -1)
    if x.dtype.kind == "f":
        return x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return x.astype(np.int64).view(np.uint64)


def sample_keys(prog: ir.Program, state: dict[str, np.ndarray], B: int) -> np.ndarray:
    """The key of each sample, [B] uint64: a hash of its primary inputs, in declaration order."""
    key = np.zeros(B, np.uint64)
    with np.errstate(over="ignore"):
        for k, d in enumerate(prog.decls):
            if d.stage != ir.Stage.INPUT or d.derived is not None or d.name not in state:
                continue
            w = _words(state[d.name], B)
            pos = mix(np.arange(w.shape[1], dtype=np.uint64) + np.uint64(k << 40))
            key = mix(key + (mix(w ^ pos[None, :]).sum(axis=1, dtype=np.uint64)))
    return key


def draw(env: EvalEnv, e: ir.Rand, rank: int, mask: np.ndarray) -> np.ndarray:
    """Uniform [0, 1) values of shape (B, N, ..., N) (one per lane) for one evaluation of `e`.

    The sample keys are computed at the first draw (programs without `rand()` never pay).
    """
    keys = getattr(env, "rand_keys", None)
    if keys is None:
        keys = sample_keys(env.prog, env.state, env.B)
        given = getattr(env, "given_rand_keys", None)
        if given is not None:
            with np.errstate(over="ignore"):
                keys = mix(keys ^ mix(given ^ _M2))
        env.rand_keys = keys
    counts = env.__dict__.setdefault("rand_counts", {})
    count = counts.get(e.site)
    if count is None:
        count = counts[e.site] = np.zeros(env.B, np.uint64)
    live = np.broadcast_to(mask, (env.B,) + np.shape(mask)[1:]).reshape(env.B, -1).any(axis=1)
    with np.errstate(over="ignore"):
        base = mix(keys ^ mix(np.uint64(e.site) * _M1 + mix(count)))  # [B]
        lanes = np.arange(env.N ** rank, dtype=np.uint64).reshape((1,) + (env.N,) * rank)
        h = mix(base.reshape((env.B,) + (1,) * rank) + mix(lanes ^ _M2))
    counts[e.site] = count + live.astype(np.uint64)
    if e.dtype == ir.DType.INT:
        return h.view(np.int64)
    return (h >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)
