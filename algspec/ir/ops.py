"""One table of semantics for every operator and pointwise builtin.

In the style of JAX's primitive rule tables: each `Op` carries every rule a
pass needs, so the passes never spell out what `+` or `log2` means themselves:

- `type_rule(dtypes) -> dtype`   the checker (raises `OpTypeError`)
- `numpy(*arrays) -> array`      the batched interpreter, elementwise
- `size(*numbers) -> number`     concrete sizes: node counts, loop bounds at n, m
- `size_class(*classes)`         worst-case asymptotic class of a size expression
                                 (on `algspec.efficiency.size_classes.SizeClass`: bounds on
                                 the value; raises `NotASize` where it has no class)
- `text(*operand_texts) -> str`  source-like text for lint/efficiency messages

`pointer` says how the op treats pointer-typed operands (pointers are node
indices, not numbers: E204): "ok" never complains, "float" complains when
combined with a float operand, "never" always complains.

Meanings fixed here, the same in every pass:
- `log2(x)` is the base-2 logarithm, unclamped, in every evaluator:
  `log2(1) = 0`, `log2(0) = -inf`, `log2(x < 0) = nan`. A loop bound that
  evaluates below zero (or to -inf/nan) allows no iterations.
- `log_star(x)` is the iterated logarithm, how often log2 takes x to 1 or below:
  0 for x <= 1, `log_star(16) = 3`, `log_star(65536) = 4`; inf and nan stay.
- `/` is true division (float result); `//` and `%` floor, as Python and numpy.
- `int(x)` truncates toward zero; `floor`/`ceil` round and give ints.
- `float(x)` converts; it is the one way to use a pointer as a number.

Aggregations (`min(... for u in nodes)`) and write combiners (`by sum`) are
`Reduction`s in `REDUCTIONS` (`reductions.py`, re-exported here): type rule,
neutral element, numpy ufunc, and whether the result is one of the inputs
(only those may combine pointers). The size and class rules live in
`op_sizes.py`; the dtypes, errors and shift cap every rule module shares in
`op_basics.py`.

Adding a builtin means adding one `Op` here; `tests/ops/test_every_op_has_every_rule.py` checks that
every op has every rule and that `numpy` and `size` agree.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from algspec.ir import DType, libm
from algspec.ir.op_basics import MAX_SHIFT, NUMERIC, NotASize, OpTypeError, join
from algspec.ir.op_int_floats import integral_floats
from algspec.ir.op_rand_int import rand_int_numpy, rand_int_python
from algspec.ir.op_sizes import (
    cls_abs,
    cls_and,
    cls_bits,
    cls_div,
    cls_floor_div,
    cls_lshift,
    cls_max,
    cls_min,
    cls_mod,
    cls_neg,
    cls_pow,
    cls_pow2ceil,
    cls_rshift,
    cls_same,
    cls_sub,
    ints,
    not_a_size,
    sz_div,
    sz_floor_div,
    sz_log2,
    sz_log_star,
    sz_lshift,
    sz_mod,
    sz_pow,
    sz_pow2ceil,
    sz_rshift,
    sz_sqrt,
)
from algspec.ir.reductions import AGGREGATIONS, COMBINERS, REDUCTIONS, Reduction


@dataclass(frozen=True)
class Op:
    """Every rule of one operator or builtin."""

    name: str
    kind: Literal["unary", "binary", "call"]
    arity: int
    type_rule: Callable[[tuple[DType, ...]], DType]
    numpy: Callable[..., Any]
    size: Callable[..., Any]
    size_class: Callable[..., Any]
    text: Callable[..., str]
    precedence: int  # for `text`: higher binds tighter (calls/atoms 100)
    pointer: Literal["ok", "float", "never"]
    doc: str
    assoc: Literal["left", "right", "none"] = "left"  # for `text` of binary operators
    class_uses_values: bool = False  # size_class also gets `values=` (constant args, else None)


# ------------------------------------------------------------------ type rules
def _need_numbers(name: str):
    def rule(ts: tuple[DType, ...]) -> None:
        for k, t in enumerate(ts):
            if t not in NUMERIC:
                raise OpTypeError(f"`{name}` needs numbers, not {t.value}", k)
    return rule


def _arith(name: str) -> Callable[[tuple[DType, ...]], DType]:
    check = _need_numbers(name)

    def rule(ts):
        check(ts)
        return join(*ts)
    return rule


def _to(name: str, result: DType, same: bool = False):
    check = _need_numbers(name)

    def rule(ts):
        check(ts)
        return ts[0] if same else result
    return rule


def _order_rule(name: str):
    check = _need_numbers(name)

    def rule(ts):
        check(ts)
        return DType.BOOL
    return rule


def _eq_rule(ts):
    if join(*ts) is None:
        raise OpTypeError(f"cannot compare {ts[0].value} with {ts[1].value}")
    return DType.BOOL


def _logic(name: str):
    def rule(ts):
        for k, t in enumerate(ts):
            if t != DType.BOOL:
                raise OpTypeError(f"`{name}` needs booleans", k)
        return DType.BOOL
    return rule


def _neg_rule(ts):
    if ts[0] not in NUMERIC:
        raise OpTypeError("`-` needs a number", 0)
    return ts[0]


def _min_max_rule(name: str):
    check = _need_numbers(name)

    def rule(ts):
        check(ts)
        return join(*ts)
    return rule


def _int_rule(name: str):
    def rule(ts):
        for k, t in enumerate(ts):
            if t != DType.INT:
                raise OpTypeError(f"`{name}` needs ints, not {t.value}", k)
        return DType.INT
    return rule


# ------------------------------------------------------------------ numpy rules
def _np_div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(a, b)


def _np_floor_divide(a, b):
    return integral_floats(np.floor_divide, a, b)


def _np_mod(a, b):
    return integral_floats(np.mod, a, b)


def _np_log2(x):
    return libm.log2(x)


def _np_log_star(x):
    """The iterated logarithm elementwise, as `sz_log_star` (a float: nan and inf stay)."""
    x = np.asarray(x)
    x = x if x.dtype.kind == "f" else x.astype(np.float64)
    out = np.zeros(x.shape, dtype=x.dtype)
    with np.errstate(invalid="ignore"):
        live = (x > 1) & np.isfinite(x)
        while live.any():  # at most 5 rounds for a float64
            x = np.where(live, libm.log2(np.where(live, x, 1)), x)
            out = out + live
            live = live & (x > 1)
    return np.where(np.isnan(x) | (x == np.inf), x, out)  # -inf is below 1: 0


def _np_sqrt(x):
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)  # IEEE 754 rounds sqrt exactly: the same bits on every CPU


def _to_int64(x) -> np.ndarray:
    """Integral values as int64. A float that does not fit (inf, nan, |x| >= 2 ** 63) gives 0:
    numpy's cast would warn and give a CPU-dependent integer. The interpreter faults such
    a value on a live lane (R109), so only lanes whose result is discarded see the 0."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return x.astype(np.int64)
    with np.errstate(invalid="ignore"):
        fits = np.abs(x) < 2.0 ** 63
    return np.where(fits, x, 0.0).astype(np.int64)


def _np_int(x):
    return _to_int64(np.trunc(x))


def _np_floor(x):
    return _to_int64(np.floor(x))


def _np_ceil(x):
    return _to_int64(np.ceil(x))


def _np_float(x):
    return np.asarray(x, dtype=np.float64)


def _np_lshift(a, b):
    return np.left_shift(a, np.clip(b, 0, MAX_SHIFT))


def _np_rshift(a, b):
    return np.right_shift(a, np.clip(b, 0, MAX_SHIFT))


def _int_power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a ** b for int64 arrays and b >= 0 by repeated squaring: exact, wrapping as int64."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.ones(shape, dtype=np.int64)
    base = np.array(np.broadcast_to(a, shape))
    e = np.array(np.broadcast_to(b, shape))
    while True:
        out = np.where((e & 1) == 1, out * base, out)
        e = e >> 1
        if not e.any():
            return out
        base = base * base


def _np_pow(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        a, b = a.astype(np.int64), b.astype(np.int64)
        neg = b < 0
        out = _int_power(a, np.where(neg, 0, b))
        if neg.any():  # an int to a negative power: truncated toward zero, as int(a ** b)
            odd = (np.abs(b) % 2) == 1
            small = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
            out = np.where(neg, small, out)
        return out
    return libm.pow(a.astype(np.float64), b)


def _np_pow2ceil(x):
    """The smallest power of two >= x by exact exponent arithmetic (no float log2 kernel).

    The exponent is clamped to 0..63 as `<<` clamps its count (int64 wraps at 2 ** 63);
    nan gives 1, +inf 2 ** 63.
    """
    x = np.asarray(x)
    if x.dtype.kind == "f":
        big = x > 1.0
        mant, e = np.frexp(np.where(big & np.isfinite(x), x, 2.0))
        e = np.where(mant == 0.5, e - 1, e)  # x is 2 ** (e - 1) itself
        e = np.where(x == np.inf, MAX_SHIFT, e)
    else:
        big = x > 1
        y = np.where(big, x, 2).astype(np.int64) - 1  # bit_length(y) is the exponent
        _, e = np.frexp(y.astype(np.float64))  # y rounded to float can reach 2 ** bit_length
        low = np.left_shift(np.uint64(1), (e - 1).astype(np.uint64))
        e = np.where(low > y.astype(np.uint64), e - 1, e)
    e = np.where(big, np.clip(e, 0, MAX_SHIFT), 0).astype(np.int64)
    return np.left_shift(np.int64(1), e)


def _rand_int_rule(ts: tuple[DType, ...]) -> DType:
    """Both bounds ints (a float bound would need a rounding rule; `int(...)` says which)."""
    for k, t in enumerate(ts):
        if t != DType.INT:
            raise OpTypeError(f"`rand_int` takes int bounds, got {t.value}" if k < 2 else
                              "`rand_int`'s draw is an int", k)
    return DType.INT


# ------------------------------------------------------------------ text rules
def _infix(op: str):
    return lambda a, b: f"{a} {op} {b}"


def _prefix(op: str):
    return lambda a: f"{op}{a}"


def _callf(name: str):
    return lambda *args: f"{name}({', '.join(args)})"


# ------------------------------------------------------------------ the table
def _binary(name, type_rule, np_f, size_f, cls_f, prec, pointer, doc, **kw) -> Op:
    return Op(name, "binary", 2, type_rule, np_f, size_f, cls_f, _infix(name), prec, pointer, doc,
              **kw)


def _call(name, arity, type_rule, np_f, size_f, cls_f, pointer, doc) -> Op:
    return Op(name, "call", arity, type_rule, np_f, size_f, cls_f, _callf(name), 100, pointer,
              doc)


_OPS = [
    # unary
    Op("-", "unary", 1, _neg_rule, np.negative, operator.neg, cls_neg,
       _prefix("-"), 90, "never", "negation"),
    Op("not", "unary", 1, _logic("not"), np.logical_not, operator.not_, not_a_size("`not`"),
       _prefix("not "), 30, "ok", "boolean negation"),
    Op("~", "unary", 1, _int_rule("~"), np.invert, ints(operator.invert), not_a_size("`~`"),
       _prefix("~"), 90, "never", "bitwise not of an int (-x - 1)"),
    # arithmetic
    _binary("+", _arith("+"), np.add, operator.add, lambda a, b: a + b, 60, "float", "addition"),
    _binary("-", _arith("-"), np.subtract, operator.sub, cls_sub, 60, "float",
            "subtraction; as a size class, a - b is O(a)"),
    _binary("*", _arith("*"), np.multiply, operator.mul, lambda a, b: a * b, 70, "float",
            "multiplication"),
    _binary("/", _to("/", DType.FLOAT), _np_div, sz_div, cls_div, 70, "float",
            "true division, always a float"),
    _binary("//", _arith("//"), _np_floor_divide, sz_floor_div, cls_floor_div, 70, "float",
            "floor division; floats compute on their integer values, exactly (a fraction is "
            "R114, by zero R104)"),
    _binary("%", _arith("%"), _np_mod, sz_mod, cls_mod, 70, "float",
            "floor modulo (sign of the divisor), floats on their integer values as `//`; as a "
            "size class, a % b is O(b)"),
    # comparisons
    *[_binary(o, _order_rule(o), f, f2, not_a_size(f"comparison `{o}`"), 50, "float",
              "numeric comparison", assoc="none")
      for o, f, f2 in (("<", np.less, operator.lt), ("<=", np.less_equal, operator.le),
                       (">", np.greater, operator.gt), (">=", np.greater_equal, operator.ge))],
    *[_binary(o, _eq_rule, f, f2, not_a_size(f"comparison `{o}`"), 50, "float",
              "equality of two values of one dtype (int and float compare as floats)",
              assoc="none")
      for o, f, f2 in (("==", np.equal, operator.eq), ("!=", np.not_equal, operator.ne))],
    # bits and powers (Python's precedence: | below ^ below & below shifts below + -)
    _binary("|", _int_rule("|"), np.bitwise_or, ints(operator.or_), cls_bits, 52, "never",
            "bitwise or of ints"),
    _binary("^", _int_rule("^"), np.bitwise_xor, ints(operator.xor), cls_bits, 54, "never",
            "bitwise exclusive or of ints"),
    _binary("&", _int_rule("&"), np.bitwise_and, ints(operator.and_), cls_and,
            56, "never", "bitwise and of ints; as a size class, the smaller operand"),
    _binary("<<", _int_rule("<<"), _np_lshift, sz_lshift, cls_lshift, 58, "never",
            f"left shift of ints; the count is clamped to 0..{MAX_SHIFT} (int64 wraps); as a "
            "size class x << c is x * 2 ** c", class_uses_values=True),
    _binary(">>", _int_rule(">>"), _np_rshift, sz_rshift, cls_rshift, 58, "never",
            f"arithmetic right shift of ints; the count is clamped to 0..{MAX_SHIFT}"),
    _binary("**", _arith("**"), _np_pow, sz_pow, cls_pow, 95, "never",
            "power; int ** int is an int (with a negative exponent: 1 and -1 give +-1, other "
            "bases 0); as a size class the exponent is a constant, or k * log2(size) + c "
            "under a constant base (2 ** ceil(log2(n)) is n)",
            assoc="right", class_uses_values=True),
    # logic (the interpreter short-circuits these lane by lane)
    _binary("and", _logic("and"), np.logical_and, lambda a, b: bool(a) and bool(b),
            not_a_size("`and`"), 20, "ok", "boolean and"),
    _binary("or", _logic("or"), np.logical_or, lambda a, b: bool(a) or bool(b),
            not_a_size("`or`"), 10, "ok", "boolean or"),
    # builtins
    _call("abs", 1, _to("abs", DType.INT, same=True), np.abs, abs, cls_abs, "never",
          "absolute value"),
    _call("floor", 1, _to("floor", DType.INT), _np_floor, math.floor, cls_same, "never",
          "round down to an int"),
    _call("ceil", 1, _to("ceil", DType.INT), _np_ceil, math.ceil, cls_same, "never",
          "round up to an int"),
    _call("int", 1, _to("int", DType.INT), _np_int, math.trunc, cls_same, "never",
          "truncate toward zero to an int"),
    _call("float", 1, _to("float", DType.FLOAT), _np_float, float, cls_same, "ok",
          "convert to float (the way to use a pointer as a number)"),
    _call("sqrt", 1, _to("sqrt", DType.FLOAT), _np_sqrt, sz_sqrt, lambda a: a ** 0.5, "never",
          "square root (nan below 0)"),
    _call("log2", 1, _to("log2", DType.FLOAT), _np_log2, sz_log2, lambda a: a.log(), "never",
          "base-2 logarithm, unclamped: log2(0) = -inf, nan below 0"),
    _call("log_star", 1, _to("log_star", DType.FLOAT), _np_log_star, sz_log_star,
          lambda a: a.log_star(), "never",
          "iterated logarithm: how often log2 takes x to 1 or below (0 for x <= 1, "
          "log_star(65536) = 4); as a size class log* n, e.g. `bound log_star(n)`"),
    _call("min", 2, _min_max_rule("min"), np.minimum, min, cls_min, "never",
          "the smaller of two numbers; as a class, the one that is O(the other)"),
    _call("max", 2, _min_max_rule("max"), np.maximum, max, cls_max, "never",
          "the larger of two numbers; as a class, their sum"),
    _call("atan2", 2, _to("atan2", DType.FLOAT), libm.atan2,
          lambda y, x: libm.scalar(libm.atan2, y, x),
          not_a_size("`atan2`"), "never",
          "atan2(y, x): the angle of the point (x, y) in radians, as math.atan2 (graham_scan)"),
    Op("rand_int", "call", 3, _rand_int_rule, rand_int_numpy, rand_int_python,
       not_a_size("`rand_int`"), lambda low, high, _bits: f"rand_int({low}, {high})", 100,
       "never", "rand_int(low, high): a uniform random int in [low, high) per processor, "
       "from the draw's 64-bit hash (algspec/ir/op_rand_int.py); the third operand is that "
       "hash, which the lowering supplies"),
    _call("pow2ceil", 1, _to("pow2ceil", DType.INT), _np_pow2ceil, sz_pow2ceil, cls_pow2ceil,
          "never", "the smallest power of two >= x (1 for x <= 1), e.g. `nodes pow2ceil(n)`"),
]

UNARY: dict[str, Op] = {o.name: o for o in _OPS if o.kind == "unary"}
BINARY: dict[str, Op] = {o.name: o for o in _OPS if o.kind == "binary"}
CALLS: dict[str, Op] = {o.name: o for o in _OPS if o.kind == "call"}
ALL: tuple[Op, ...] = tuple(_OPS)

# The size rules `efficiency/size_classes.py` evaluates constants with.
_sz_pow, _sz_log2, _sz_log_star = sz_pow, sz_log2, sz_log_star


def lookup(kind: str, name: str) -> Op:
    """The op of an IR node kind ("unary", "binary", "call") and name; KeyError if unknown."""
    return {"unary": UNARY, "binary": BINARY, "call": CALLS}[kind][name]


def op_of(e) -> Op | None:
    """The op an IR expression applies (Unary, Binary or Call), or None."""
    kind = getattr(e, "kind", None)
    if kind == "unary":
        return UNARY[e.op]
    if kind == "binary":
        return BINARY[e.op]
    if kind == "call":
        return CALLS[e.func]
    return None


def text(e, leaf: Callable[[Any], str]) -> str:
    """Source-like text of an expression tree, parenthesised by precedence.

    `leaf` renders what is not an op (constants, sizes, names).
    """
    op = op_of(e)
    if op is None:
        return leaf(e)
    subs = [e.operand] if op.kind == "unary" else (
        [e.left, e.right] if op.kind == "binary" else list(e.args))
    parts = []
    for k, sub in enumerate(subs):
        s = text(sub, leaf)
        inner = op_of(sub)
        if op.kind != "call" and inner is not None and inner.kind != "call" and (
                inner.precedence < op.precedence or
                (inner.precedence == op.precedence and op.kind == "binary" and (
                    op.assoc == "none" or (k == 1) == (op.assoc == "left")))):
            s = f"({s})"
        parts.append(s)
    return op.text(*parts)


__all__ = ["AGGREGATIONS", "ALL", "BINARY", "CALLS", "COMBINERS", "NUMERIC", "REDUCTIONS", "UNARY",
           "NotASize", "Op", "OpTypeError", "Reduction", "join", "lookup", "op_of", "text"]
