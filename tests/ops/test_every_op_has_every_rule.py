"""The semantics table (algspec/ir/ops.py): complete, self-consistent, and used by every pass."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import algspec
from algspec import ir
from algspec.diagnostics import AlgError
from algspec.efficiency.asymptotic import Asymptotic, log_n, n, one, zero
from algspec.efficiency.size_eval import size_class
from algspec.interp.runtime import _binop, _call
from algspec.ir import ops
from algspec.ir.size_values import eval_size
from algspec.lint.efficiency_rules import expr_str

D = ir.DType
SAMPLES = [-7, -3, -1, 0, 1, 2, 3, 5, 8, 17, 0.5, 2.5, -1.5, 3.75]
RULES = ("type_rule", "numpy", "size", "size_class", "text")


def _args(op: ops.Op):
    return list(itertools.product(SAMPLES, repeat=op.arity))


@pytest.mark.parametrize("op", ops.ALL, ids=lambda o: f"{o.kind}:{o.name}")
def test_every_op_has_every_rule(op):
    for rule in RULES:
        assert callable(getattr(op, rule)), (op.name, rule)
    assert op.doc and op.pointer in ("ok", "float", "never")
    assert op.arity == {"unary": 1, "binary": 2}.get(op.kind, op.arity)
    assert ops.lookup(op.kind, op.name) is op


@pytest.mark.parametrize("op", ops.ALL, ids=lambda o: f"{o.kind}:{o.name}")
def test_numpy_and_size_rules_agree(op):
    """The interpreter's rule on arrays equals the size rule on Python numbers, pointwise."""
    checked = 0
    for args in _args(op):
        if op.name in ("not", "and", "or"):
            args = tuple(bool(a) for a in args)
        try:
            op.type_rule(tuple(_dtype(a) for a in args))
        except ops.OpTypeError:
            continue  # well-typed sample points only
        try:
            want = op.size(*args)
        except ZeroDivisionError:
            continue  # integer division by zero: a run-time fault (R104), not a value
        if isinstance(want, int) and abs(want) >= 2 ** 63:
            continue  # int64 wraps in the interpreter (documented), Python ints do not
        got = op.numpy(*(np.asarray([a, a]) for a in args))
        assert np.shape(got) == (2,)
        for g in got:
            if isinstance(want, float) and math.isnan(want):
                assert np.isnan(g), (op.name, args)
            else:
                assert g == want, (op.name, args, g, want)
        checked += 1
    assert checked > 0


def _dtype(x) -> ir.DType:
    return D.BOOL if isinstance(x, bool) else D.INT if isinstance(x, int) else D.FLOAT


@pytest.mark.parametrize("op", ops.ALL, ids=lambda o: f"{o.kind}:{o.name}")
def test_numpy_result_dtype_matches_type_rule(op):
    """An int-typed result is an integer array, a float-typed one a float array."""
    for ts in itertools.product((D.INT, D.FLOAT, D.BOOL), repeat=op.arity):
        try:
            rt = op.type_rule(ts)
        except ops.OpTypeError:
            continue
        vals = {D.INT: np.array([3, 4]), D.FLOAT: np.array([2.5, 4.0]),
                D.BOOL: np.array([True, False])}
        out = np.asarray(op.numpy(*(vals[t] for t in ts)))
        kind = {D.INT: "iu", D.FLOAT: "f", D.BOOL: "b"}[rt]
        assert out.dtype.kind in kind, (op.name, ts, out.dtype)


@pytest.mark.parametrize("name,ts,arg", [
    ("+", (D.BOOL, D.INT), 0), ("*", (D.INT, D.BOOL), 1), ("<", (D.BOOL, D.BOOL), 0),
    ("and", (D.INT, D.BOOL), 0), ("or", (D.BOOL, D.FLOAT), 1), ("==", (D.BOOL, D.INT), None),
    ("//", (D.FLOAT, D.BOOL), 1),
])
def test_binary_type_rules_reject(name, ts, arg):
    with pytest.raises(ops.OpTypeError) as err:
        ops.BINARY[name].type_rule(ts)
    assert err.value.arg == arg


def test_type_rules_accept_and_widen():
    assert ops.BINARY["+"].type_rule((D.INT, D.INT)) == D.INT
    assert ops.BINARY["+"].type_rule((D.INT, D.FLOAT)) == D.FLOAT
    assert ops.BINARY["/"].type_rule((D.INT, D.INT)) == D.FLOAT
    assert ops.BINARY["=="].type_rule((D.BOOL, D.BOOL)) == D.BOOL
    assert ops.BINARY["=="].type_rule((D.INT, D.FLOAT)) == D.BOOL
    assert ops.CALLS["floor"].type_rule((D.FLOAT,)) == D.INT
    assert ops.CALLS["abs"].type_rule((D.FLOAT,)) == D.FLOAT
    assert ops.CALLS["max"].type_rule((D.INT, D.FLOAT)) == D.FLOAT
    for f in ops.CALLS.values():
        with pytest.raises(ops.OpTypeError):
            f.type_rule((D.BOOL,) * f.arity)
    with pytest.raises(ops.OpTypeError):
        ops.UNARY["not"].type_rule((D.INT,))
    with pytest.raises(ops.OpTypeError):
        ops.UNARY["-"].type_rule((D.BOOL,))


def test_log2_has_one_meaning():
    """log2 is unclamped everywhere: the interpreter, the size evaluators and the table."""
    f = ops.CALLS["log2"]
    assert f.size(8) == 3 and f.size(1) == 0 and f.size(0) == -math.inf
    assert f.size(0.5) == -1
    assert list(_call("log2", [np.array([0.5, 8.0])])) == [-1.0, 3.0]
    half = ir.Call(func="log2", dtype=D.FLOAT, args=[ir.Binary(
        op="/", dtype=D.FLOAT, left=ir.Size(which="n"), right=ir.Const(value=4, dtype=D.INT))])
    assert eval_size(half, n=2) == -1.0


def _prog(bound: str) -> str:
    return ("algorithm t\nnodes n\ngraph complete\nstate graph k: int = 0\n"
            f"while k < n bound {bound} {{\n  k = k + 1\n  record\n}}\n")


def test_negative_loop_bound_allows_no_iterations():
    """A bound below zero (log2 of a size below one) means no trips: R102 on the first."""
    alg = algspec.load_source(_prog("log2(n - 1)"))
    with pytest.raises(Exception, match="R102|bound"):
        alg.sample(n=1, batch_size=1, seed=0)


@pytest.mark.parametrize("text,cls", [
    ("log2(n) + 1", log_n), ("ceil(log2(n))", log_n), ("n * n - 1", n * n),
    ("sqrt(n)", n ** 0.5), ("max(n, 3)", n), ("min(n, 3)", one), ("n // 2 + n % 3", n),
    ("-1", zero), ("2 * n + m", n + Asymptotic.term(m=1)),
    ("n ** 2", n * n), ("n ** (1 + 1)", n * n), ("pow2ceil(n)", n), ("n << 1", n),
    ("n >> 1", n), ("n & m", n), ("(n | 1) + 1", n),
])
def test_size_class_rules(text, cls):
    alg = algspec.load_source(_prog(text))
    bound = next(s.bound for s, _ in ir.walk_statements(alg.ir.body) if isinstance(s, ir.While))
    assert size_class(bound) == cls


def test_size_class_rejects_what_is_not_a_size():
    from algspec.ir.size_values import EfficiencyError
    e = ir.Binary(op="<", left=ir.Size(which="n"), right=ir.Const(value=2, dtype=D.INT),
                  dtype=D.BOOL)
    with pytest.raises(EfficiencyError, match="comparison"):
        size_class(e)


def test_power_with_a_growing_exponent_is_not_a_size():
    from algspec.ir.size_values import EfficiencyError
    alg = algspec.load_source(_prog("2 ** n"))
    bound = next(s.bound for s, _ in ir.walk_statements(alg.ir.body) if isinstance(s, ir.While))
    with pytest.raises(EfficiencyError, match="exponent"):
        size_class(bound)
    assert eval_size(bound, n=5) == 32


def test_text_rule_parenthesises_by_precedence():
    nn, one_ = ir.Size(which="n"), ir.Const(value=1, dtype=D.INT)
    plus = ir.Binary(op="+", left=nn, right=one_, dtype=D.INT)
    times = ir.Binary(op="*", left=plus, right=ir.Const(value=2, dtype=D.INT), dtype=D.INT)
    assert expr_str(times) == "(n + 1) * 2"
    minus = ir.Binary(op="-", left=nn, right=plus, dtype=D.INT)
    assert expr_str(minus) == "n - (n + 1)"
    log = ir.Call(func="ceil", dtype=D.INT, args=[ir.Call(func="log2", args=[plus],
                                                          dtype=D.FLOAT)])
    assert expr_str(log) == "ceil(log2(n + 1))"
    two = ir.Const(value=2, dtype=D.INT)
    pw = ir.Binary(op="**", left=nn, right=ir.Binary(op="**", left=two, right=two, dtype=D.INT),
                   dtype=D.INT)
    assert expr_str(pw) == "n ** 2 ** 2"
    assert expr_str(pw.model_copy(update={"left": pw.right, "right": nn})) == "(2 ** 2) ** n"
    neg = ir.Unary(op="-", operand=ir.Binary(op="**", left=nn, right=two, dtype=D.INT),
                   dtype=D.INT)
    assert expr_str(neg) == "-n ** 2"


def test_runtime_helpers_read_the_table():
    a, b = np.array([7, -7]), np.array([2, 2])
    assert list(_binop("//", a, b)) == [3, -4] and list(_binop("%", a, b)) == [1, 1]
    assert list(_call("int", [np.array([-1.5, 1.5])])) == [-1, 1]


@pytest.mark.parametrize("expr", ["p[0] * 0.5", "-p[0]", "sqrt(p[0])", "abs(p[0])",
                                  "min(p[0], 1)"])
def test_pointer_rules(expr):
    src = ("algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
           "hint node p: pointer = index\nstate graph y: float = 0.0\n")
    with pytest.raises(AlgError) as err:
        algspec.load_source(src + f"y = {expr}\n")
    assert [d.code for d in err.value.diagnostics] == ["E204"]
    algspec.load_source(src + "y = float(p[0]) * 0.5\n")


@pytest.mark.parametrize("red", list(ops.REDUCTIONS.values()), ids=lambda r: r.name)
def test_reductions_are_complete_and_their_identity_is_neutral(red):
    assert red.doc and (red.aggregate or red.combiner)
    if red.ufunc is None:
        assert (red.name == "priority" or red.keyed) and red.identity is None
        return
    vals = [True, False] if red.name in ("any", "all", "count") else [3.0, -2.5, 7.0]
    for v in vals:
        assert red.ufunc(red.identity, v) == (int(v) if red.name == "count" else v)


def test_reduction_type_rules():
    assert ops.REDUCTIONS["count"].type_rule(D.BOOL) == D.INT
    assert ops.REDUCTIONS["min"].type_rule(D.INT) == D.INT
    assert ops.REDUCTIONS["priority"].type_rule(D.BOOL) == D.BOOL
    for name, t in (("sum", D.BOOL), ("any", D.INT), ("count", D.FLOAT), ("max", D.BOOL)):
        with pytest.raises(ops.OpTypeError):
            ops.REDUCTIONS[name].type_rule(t)
    assert {k for k, r in ops.COMBINERS.items() if not r.picks} == {"sum"}
