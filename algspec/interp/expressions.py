"""Expression evaluation over an environment (`algspec.interp.env.Env`), batched.

Every function takes the environment first and returns an array of shape
`(B or 1, *scope)` (see `env.py`). Operators and builtins take their numpy
rule from the one semantics table, `algspec.ir.ops`.
"""

from __future__ import annotations

import numpy as np

from algspec import ir
from algspec.interp import random
from algspec.interp.dtypes import NP_DTYPE
from algspec.interp.empty_sets import fill_empty
from algspec.interp.env_protocol import EvalEnv
from algspec.interp.observe import observe_aggregate, observe_read
from algspec.ir import ops
from algspec.ir.op_int_floats import fault

_BIG = np.iinfo(np.int64).max // 4


def evaluate(env: EvalEnv, e: ir.Expr, rank: int, mask: np.ndarray) -> np.ndarray:
    """Evaluate `e` in a scope of `rank` index axes; `mask` marks the lanes that matter
    (its rule in `EXPRESSION_RULES`, keyed by the IR node's class)."""
    return EXPRESSION_RULES[type(e)](env, e, rank, mask)


def _const(env: EvalEnv, e: ir.Const, rank: int, mask: np.ndarray) -> np.ndarray:
    return np.asarray(e.value, dtype=NP_DTYPE[e.dtype]).reshape((1,) * (rank + 1))


def _size(env: EvalEnv, e: ir.Size, rank: int, mask: np.ndarray) -> np.ndarray:
    if e.which == "m":
        return env.lift(env.m, rank)
    return np.asarray(env.n if e.which == "n" else env.N).reshape((1,) * (rank + 1))


def _index(env: EvalEnv, e: ir.IndexVar, rank: int, mask: np.ndarray) -> np.ndarray:
    shape = [1] * (rank + 1)
    shape[e.axis + 1] = env.N
    return np.arange(env.N).reshape(shape)


def _var(env: EvalEnv, e: ir.VarRef, rank: int, mask: np.ndarray) -> np.ndarray:
    if e.local:
        return env.lift(env.locals[e.name], rank)
    v = env.state.get(e.name)
    if v is None:  # a graph-level view: evaluate it now
        v = env.view(env.decl(e.name).derived, ir.Loc.GRAPH)
    return env.lift(v, rank)


def _unary(env: EvalEnv, e: ir.Unary, rank: int, mask: np.ndarray) -> np.ndarray:
    x = evaluate(env, e.operand, rank, mask)
    return ops.UNARY[e.op].numpy(x)  # the numpy rule in algspec.ir.ops


def _binary(env: EvalEnv, e: ir.Binary, rank: int, mask: np.ndarray) -> np.ndarray:
    left = evaluate(env, e.left, rank, mask)
    if e.op == "and":  # short-circuit, lane by lane; skip the right side if no lane needs it
        live = mask & left
        return left & evaluate(env, e.right, rank, live) if live.any() else left
    if e.op == "or":
        live = mask & ~left
        return left | evaluate(env, e.right, rank, live) if live.any() else left
    right = evaluate(env, e.right, rank, mask)
    if e.op in ("//", "%") and e.dtype == ir.DType.INT:
        zero = (right == 0) & mask
        if zero.any():
            env.fault("R104", "integer division by zero", zero)
        right = np.where(right == 0, 1, right)
    elif e.op in ("//", "%"):  # floats: integer arithmetic on integer values
        _check_integral(env, e, left, right, mask)
    return _binop(e.op, left, right)


def _cond(env: EvalEnv, e: ir.Cond, rank: int, mask: np.ndarray) -> np.ndarray:
    c = evaluate(env, e.cond, rank, mask)
    yes, no = mask & c, mask & ~c
    if not no.any():  # every lane that matters takes one branch: evaluate only it
        return evaluate(env, e.then, rank, yes)
    if not yes.any():
        return evaluate(env, e.otherwise, rank, no)
    return np.where(c, evaluate(env, e.then, rank, yes), evaluate(env, e.otherwise, rank, no))


def _call_expr(env: EvalEnv, e: ir.Call, rank: int, mask: np.ndarray) -> np.ndarray:
    args = [evaluate(env, a, rank, mask) for a in e.args]
    if e.func in TO_INT and e.args[0].dtype == ir.DType.FLOAT:
        _check_fits_int(env, e, args[0], mask)
    if e.func == "rand_int":
        _check_range(env, e, args[0], args[1], mask)
    return _call(e.func, args)


def _rand(env: EvalEnv, e: ir.Rand, rank: int, mask: np.ndarray) -> np.ndarray:
    pair = None if e.pair is None else [evaluate(env, x, 0, mask) for x in e.pair]
    return random.draw(env, e, rank, mask, pair)


def read(env: EvalEnv, e: ir.Read, rank: int, mask: np.ndarray) -> np.ndarray:
    """An indexed read `x[i]` / `A[i, j]`, gathered without copies where the indices allow."""
    arr = env.state.get(e.name)
    if arr is None:  # a derived hint/output read in the body: evaluate its view now
        d = env.decl(e.name)
        arr = np.ascontiguousarray(env.view(d.derived, d.loc))
    # Fast path: indices are distinct scope variables (own reads, transposes).
    if all(x.kind == "ivar" for x in e.indices) and \
            len({x.axis for x in e.indices}) == len(e.indices):
        axes = [x.axis for x in e.indices]
        order = np.argsort(axes)
        a = arr if list(order) == list(range(len(axes))) else \
            np.transpose(arr, [0] + [int(o) + 1 for o in order])
        shape = [env.B] + [1] * rank
        for ax in sorted(axes):
            shape[ax + 1] = env.N
        return a.reshape(shape)
    idx = [evaluate(env, x, rank, mask) for x in e.indices]
    shape = np.broadcast_shapes((env.B,) + (1,) * rank, *(i.shape for i in idx))
    if any(i.min() < 0 or i.max() >= env.N for i in idx):
        bad = np.zeros(shape, bool)
        for i in idx:
            bad = bad | (i < 0) | (i >= env.N)
        bad = bad & mask
        if bad.any():
            env.fault("R101", f"index out of range reading `{e.name}`", bad, e.span)
        idx = [np.clip(i, 0, env.N - 1) for i in idx]
    if len(idx) == 2 and env.obs is None:  # a row or column of an edge array
        for k_var, k_val in ((1, 0), (0, 1)):
            iv, other = e.indices[k_var], idx[k_val]
            # Decided by axis position, never by comparing sizes: the other index
            # must be constant along every scope axis (it may vary per sample).
            if iv.kind == "ivar" and scope_invariant(other):
                g = np.broadcast_to(other.reshape(other.shape[0]), (env.B,))
                rows = np.arange(env.B)
                line = arr[rows, g] if k_var == 1 else arr[rows, :, g]
                out_shape = [env.B] + [1] * rank
                out_shape[iv.axis + 1] = env.N
                return line.reshape(out_shape)
    if rank == 0 and env.obs is None:  # one element per sample: plain fancy indexing
        rows = np.arange(env.B)  # fancy indexing broadcasts (1,) indices against the rows
        return arr[(rows, *(i.reshape(i.shape[0]) for i in idx))]
    idx = [np.broadcast_to(i, shape) for i in idx]
    flat = idx[0] if len(idx) == 1 else idx[0] * env.N + idx[1]
    out = np.take_along_axis(arr.reshape(env.B, -1), flat.reshape(env.B, -1), axis=1)
    if env.obs is not None:
        observe_read(env, e, rank, idx, mask, shape)
    return out.reshape(shape)


def chain(env: EvalEnv, e: ir.Chain, rank: int) -> np.ndarray:
    """`chain(order)`: each node's predecessor in the list `order` (CLRS's `pred`)."""
    order = env.state[e.order]
    if order.size and (order.min() < 0 or order.max() >= env.N):
        bad = (order < 0) | (order >= env.N)
        env.fault("R101", f"`{e.order}` holds a node index out of range", bad, e.span)
    prev = np.empty_like(order)
    prev[:, 1:] = order[:, :-1]
    prev[:, 0] = order[:, 0]
    pred = np.full(order.shape, -1, dtype=order.dtype)
    np.put_along_axis(pred, order, prev, axis=1)
    missing = pred < 0  # not a permutation: unlisted nodes point to themselves
    if missing.any():
        pred = np.where(missing, np.arange(env.N)[None, :], pred)
    shape = [env.B] + [1] * rank
    shape[e.axis + 1] = env.N
    return pred.reshape(shape)


def aggregate(env: EvalEnv, e: ir.Aggregate, rank: int, mask: np.ndarray) -> np.ndarray:
    """min/max/sum/any/all/count over nodes or neighbours, on a new innermost axis."""
    if e.domain != "nodes" and env.sparse is not None:
        out = env.sparse.aggregate(env, e, rank, mask)  # over the edge list: O(n + m)
        if out is not None:
            return out
    inner = rank + 1
    outer_mask = env.lift(mask, inner)
    if e.domain == "nodes":
        dom = np.ones((1,) * (inner + 1), bool)
        of = None
    else:
        of = env.lift(evaluate(env, e.of, rank, mask), inner)
        bad = ((of < 0) | (of >= env.N)) & outer_mask
        if bad.any():
            env.fault("R101", "neighbourhood of a node index out of range", bad, e.span)
        u_shape = [1] * (inner + 1)
        u_shape[inner] = env.N
        u = np.arange(env.N).reshape(u_shape)
        b = np.arange(env.B).reshape((env.B,) + (1,) * inner)
        ofc = np.clip(of, 0, env.N - 1)
        dom = env.adj[b, u, ofc] if e.domain == "incoming" else env.adj[b, ofc, u]
    # The lane mask only decides where faults count; leaving it out of the
    # selection keeps loop-invariant aggregations at their own (small) shape.
    live = dom & outer_mask
    sel = dom
    if e.filter is not None:
        sel = sel & evaluate(env, e.filter, inner, live)
    if e.op in ("argmin", "argmax"):
        # an unstable argmin sorts the key of every node, selected or not
        return arg_aggregate(env, e, rank, mask, sel, live if e.unstable else live & sel, of,
                             dom)
    body = evaluate(env, e.body, inner, live & sel)
    # The innermost axis is always N wide: a body and filter that do not use
    # the aggregation variable still count once per node, not once.
    full = np.broadcast_shapes(sel.shape, body.shape, (env.B,) + (1,) * rank + (env.N,))
    sel = np.broadcast_to(sel, full)
    body = np.broadcast_to(body, full)
    if env.obs is not None:
        observe_aggregate(env, e, rank, sel & outer_mask, of,
                          evaluated=np.broadcast_to(dom, full) & outer_mask, body=body)
    op = e.op
    if op == "any":
        return (sel & body).any(axis=-1)
    if op == "all":
        return (~sel | body).all(axis=-1)
    if op == "count":
        return (sel & body).sum(axis=-1)
    if op == "sum":
        return np.where(sel, body, 0).sum(axis=-1)
    empty = ~sel.any(axis=-1)
    is_int = body.dtype.kind in "iub"
    fill = (_BIG if op == "min" else -_BIG) if is_int else (np.inf if op == "min" else -np.inf)
    red = np.where(sel, body, fill)
    out = red.min(axis=-1) if op == "min" else red.max(axis=-1)
    return fill_empty(env, e, empty, out, rank, mask,
                      lambda x, r, m: evaluate(env, x, r, m))


def key_parts(e: ir.Expr) -> list[ir.Expr]:
    """The components of an argmin/argmax key: a tuple's items, or the one value."""
    return list(e.args) if isinstance(e, ir.Tuple) else [e]


def narrow(cand: np.ndarray, key: np.ndarray, largest: bool) -> np.ndarray:
    """Keep, along the last axis, the candidates whose key is the smallest (largest)."""
    key = np.broadcast_to(key, cand.shape)
    if key.dtype.kind == "b":
        key = key.astype(np.int64)
    if key.dtype.kind in "iu":
        fill = -_BIG if largest else _BIG
    else:
        fill = -np.inf if largest else np.inf
    masked = np.where(cand, key, fill)
    best = masked.max(axis=-1, keepdims=True) if largest else masked.min(axis=-1, keepdims=True)
    return cand & (masked == best)


def arg_aggregate(env: EvalEnv, e: ir.Aggregate, rank: int, mask: np.ndarray, sel: np.ndarray,
                  live: np.ndarray, of, dom: np.ndarray | None = None) -> np.ndarray:
    """argmin/argmax: the element whose key is lexicographically smallest (largest).

    Keys narrow the candidates one component at a time; what remains ties, and
    the lowest node index wins. An empty selection takes `default` (else R103).
    """
    inner = rank + 1
    keys = [evaluate(env, k, inner, live) for k in key_parts(e.body)]
    full = np.broadcast_shapes(sel.shape, (env.B,) + (1,) * rank + (env.N,),
                               *(k.shape for k in keys))
    sel = np.broadcast_to(sel, full)
    if env.obs is not None:
        evaluated = None if dom is None else np.broadcast_to(dom, full) & env.lift(mask, inner)
        observe_aggregate(env, e, rank, sel & env.lift(mask, inner), of, evaluated=evaluated)
    if e.unstable:  # the first selected node in numpy's default argsort of the float64 key row
        row = np.ascontiguousarray(np.broadcast_to(keys[0], full), np.float64)
        order = np.argsort(row, axis=-1)
        first = np.argmax(np.take_along_axis(sel, order, axis=-1), axis=-1)
        out = np.take_along_axis(order, first[..., None], axis=-1)[..., 0].astype(np.int64)
    else:
        cand = sel
        for k in keys:
            cand = narrow(cand, k, e.op == "argmax")
        out = np.argmax(cand, axis=-1).astype(np.int64)
    empty = ~sel.any(axis=-1)
    if empty.any():
        if e.default is None:
            bad = empty & env.lift(mask, rank)
            if bad.any():
                env.fault("R103", f"`{e.op}` over an empty set has no `default`", bad, e.span)
        else:
            out = np.where(empty, evaluate(env, e.default, rank, mask), out)
    return out


def scope_invariant(x: np.ndarray) -> bool:
    """Whether a value is constant along every scope axis (axes 1..rank; axis 0 is the batch).

    Decided by axis position, never by comparing sizes (B may equal N).
    """
    return all(d == 1 for d in x.shape[1:])


TO_INT = frozenset({"int", "floor", "ceil"})


def _check_fits_int(env: EvalEnv, e: ir.Call, x: np.ndarray, mask: np.ndarray) -> None:
    """R109 where a live lane converts inf, nan or a huge float to an int (numpy casts it to
    an arbitrary integer without a word)."""
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(x) < 2.0 ** 63) & mask
    if bad.any():
        env.fault("R109", f"`{e.func}` of a float that is not a finite 64-bit integer value "
                  "(inf or nan)", bad, e.span)


def _check_integral(env: EvalEnv, e: ir.Binary, left: np.ndarray, right: np.ndarray,
                    mask: np.ndarray) -> None:
    """R114 / R104 where a live lane's float `%`/`//` has an operand that is not an integer
    or a zero divisor (`algspec.ir.op_int_floats.fault`)."""
    bad = fault(e.op, left, right, mask)
    if bad is not None:
        env.fault(*bad, e.span)


def _check_range(env: EvalEnv, e: ir.Call, low: np.ndarray, high: np.ndarray,
                 mask: np.ndarray) -> None:
    """R113 where a live lane asks `rand_int(low, high)` for an empty range (high <= low)."""
    bad = (np.asarray(high) <= np.asarray(low)) & mask
    if bad.any():
        env.fault("R113", "`rand_int(low, high)` with high <= low: the range is empty", bad,
                  e.span)


def _binop(op: str, a, b):
    """Apply a binary operator elementwise: its numpy rule in `algspec.ir.ops`."""
    return ops.BINARY[op].numpy(a, b)


def _call(func: str, args):
    """Apply a pointwise builtin elementwise: its numpy rule in `algspec.ir.ops`."""
    return ops.CALLS[func].numpy(*args)


def _chain(env: EvalEnv, e: ir.Chain, rank: int, mask: np.ndarray) -> np.ndarray:
    return chain(env, e, rank)


# One rule per expression class (tests/efficiency/test_rules_cover_every_statement.py
# checks that every class of `ir.Expr` has one, as it does for the efficiency passes).
EXPRESSION_RULES = {
    ir.Const: _const,
    ir.Size: _size,
    ir.IndexVar: _index,
    ir.VarRef: _var,
    ir.Read: read,
    ir.Unary: _unary,
    ir.Binary: _binary,
    ir.Cond: _cond,
    ir.Call: _call_expr,
    ir.Chain: _chain,
    ir.Aggregate: aggregate,
    ir.Rand: _rand,
}
