"""The class algebra orders, multiplies, adds and prints log log n and log* n, and every
loop bound in n and m gets a class that bounds its value, or an E-code at the bound.

Values are computed here, with Python's `math` (and, beyond floats, `decimal`), not
with algspec's own evaluators: a class is right when value / class stays within a
constant factor across sizes. A missing log n factor moves that ratio 4x between n = 8
and 4096 and 10^17x by n = 2^(2^60), a missing log log n factor 3x between n = 2^(2^20)
and 2^(2^60).
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import algspec
from algspec import ir
from algspec.cli import app
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import (
    Asymptotic,
    log_log_n,
    log_n,
    log_star,
    log_star_n,
    m,
    n,
    one,
)
from algspec.efficiency.size_eval import size_class
from algspec.ir import ops

P = Asymptotic.parse
SIZES = (8, 64, 512, 4096)
LARGE = (2 ** 20, 2 ** 40)


def _log_star(x: float) -> int:
    """The iterated logarithm by its definition, with math.log2 (reference for the tests)."""
    k = 0
    while x > 1:
        x = math.log2(x)
        k += 1
    return k


def _lg(x: float) -> float:
    return max(math.log2(x), 1.0)


# ------------------------------------------------------------------ the algebra
def test_log_star_is_the_iterated_logarithm() -> None:
    assert [_log_star(x) for x in (0.5, 1, 2, 3, 4, 5, 16, 17, 65536, 65537)] == \
        [0, 0, 1, 2, 2, 3, 3, 4, 4, 5]
    for x in (1, 2, 3, 8, 64, 4096, 2 ** 16, 2 ** 16 + 1, 2.0 ** 64, 2.0 ** 1000):
        assert log_star(x) == _log_star(x)


def test_order_one_log_star_log_log_log_n_powers_of_n() -> None:
    chain = [one, log_star_n, log_log_n, log_n, log_n ** 3, n ** 0.5, n, n * log_star_n,
             n * log_log_n, n * log_n, n ** 2, n ** 2 * log_star_n]
    for k, small in enumerate(chain):
        for big in chain[k + 1:]:
            assert small.is_O(big) and not big.is_O(small), (str(small), str(big))
    # ... and numerically: at n = 2^64 the chain is non-decreasing
    values = [c.evaluate(2.0 ** 64) for c in chain]
    assert values == sorted(values)
    # any positive power of log log n outgrows every power of log* n
    assert (log_star_n ** 10).is_o(log_log_n ** Fraction(1, 100))


S = _log_star  # the formulas below, at n = size and m = edges


@pytest.mark.parametrize("cls,text,value", [
    (n * log_log_n, "n log log n", lambda x, e: x * _lg(_lg(x))),
    (log_n * log_star_n, "log n log* n", lambda x, e: _lg(x) * S(x)),
    (n * log_star_n, "n log* n", lambda x, e: x * S(x)),
    (log_star_n ** 2, "(log* n)^2", lambda x, e: S(x) ** 2),
    (log_star_n ** 0.5, "(log* n)^(1/2)", lambda x, e: S(x) ** 0.5),
    (one / log_star_n, "1/log* n", lambda x, e: 1 / S(x)),
    (n / (log_n * log_star_n), "n/(log n log* n)", lambda x, e: x / (_lg(x) * S(x))),
    (log_log_n * log_star_n, "log log n log* n", lambda x, e: _lg(_lg(x)) * S(x)),
    (m * log_star_n / n, "m log* n/n", lambda x, e: e * S(x) / x),
    (n * log_star_n + m, "n log* n + m", lambda x, e: x * S(x) + e),  # m >= n only
    (n * log_star_n + n * log_log_n, "n log log n", lambda x, e: x * _lg(_lg(x))),
    (n + log_star_n, "n", lambda x, e: x),
])
def test_prints_parses_back_and_evaluates(cls: Asymptotic, text: str, value) -> None:
    assert str(cls) == text
    assert P(text) == cls
    # the value is the formula with log2, log2(log2) and log* each at least 1
    for size in (8, 4096, 2.0 ** 40):
        assert cls.evaluate(size, size ** 1.5) == pytest.approx(value(size, size ** 1.5))


def test_products_sums_maxima_and_quotients() -> None:
    assert n * log_log_n * log_star_n / log_star_n == n * log_log_n
    assert (n * log_n) / (log_n * log_star_n) == n / log_star_n
    assert log_star_n + log_log_n == log_log_n          # a sum is its largest term
    assert log_star_n * log_star_n + log_n == log_n
    assert (log_n + log_star_n) * (n + log_star_n) == n * log_n
    assert (n * log_star_n).is_o(n * log_log_n) and (n * log_log_n).is_o(n * log_n)
    assert (log_star_n ** 3).at_most(log_log_n) == log_star_n ** 3
    assert log_log_n.at_most(log_star_n) == log_star_n
    # the class of the value: log* at n = 2^16 is 4, at n = 2^65536 it would be 5
    assert (n * log_star_n).evaluate(2.0 ** 16) == 2.0 ** 16 * 4


def test_log_of_a_class() -> None:
    assert (n * log_star_n).log() == log_n
    assert (log_n * log_star_n).log() == log_log_n
    assert (log_star_n ** 2).log(lower=True) == one
    with pytest.raises(ValueError, match="log log\\* n"):
        log_star_n.log()
    with pytest.raises(ValueError, match="log log log n"):
        (log_log_n * log_star_n).log()


# ------------------------------------------------------------------ log_star in the language
def test_log_star_rules_agree_with_math() -> None:
    op = ops.CALLS["log_star"]
    xs = [-3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 16.0, 17.0, 65536.0, 65537.0, 2.0 ** 64, 1e308]
    want = [float(_log_star(x)) for x in xs]
    assert [op.size(x) for x in xs] == want
    assert op.numpy(np.array(xs)).tolist() == want
    assert op.numpy(np.array([1, 2, 16, 17, 65536])).tolist() == [0.0, 1.0, 3.0, 4.0, 4.0]
    assert math.isnan(op.size(math.nan)) and op.size(math.inf) == math.inf
    assert op.size(-math.inf) == 0.0 and op.numpy(np.array([-math.inf])).tolist() == [0.0]


STAR = """algorithm star
nodes n
graph complete
input node key: scalar ~ uniform()
state graph x: float = 0.0
x = float(n)
record
while x > 1.0 and key[0] >= 0.0 bound BOUND {
    x = log2(x)
    record
}
"""


def test_a_loop_of_log_star_rounds() -> None:
    alg = algspec.load_source(STAR.replace("BOUND", "log_star(n)"), "star.alg")
    s = alg.static_efficiency()
    assert (str(s.rounds), str(s.capacity)) == ("log* n", "n log* n")
    for size in (8, 64, 512, 4096):  # the interpreter runs log*(n) trips under the bound
        traj = alg.sample(size, batch_size=2, seed=0)
        assert list(traj.lengths) == [1 + _log_star(size)] * 2
    # a bound one too small is the interpreter's fault (R102): it evaluates log_star too
    small = algspec.load_source(STAR.replace("BOUND", "log_star(n) - 1"), "star.alg")
    with pytest.raises(RuntimeFault, match="R102 loop bound exceeded: more than 3 iterations"):
        small.sample(64, batch_size=2, seed=0)


# ------------------------------------------------------------------ bounds: a class or an E-code
PREFIX = "while i < n and key[0] >= 0.0 bound "
TEMPLATE = ("algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
            "state graph i: int = 0\nrecord\n" + PREFIX + "BOUND {\n    i += 1\n    record\n}\n")
BOUND_LINE, BOUND_COL = 7, len(PREFIX) + 1


def _value(text: str, size: float) -> float:
    """The bound's value by Python's math (`log_star` is the reference above)."""
    env = {"n": size, "N": size, "m": size ** 1.5, "log2": math.log2, "sqrt": math.sqrt,
           "ceil": math.ceil, "floor": math.floor, "log_star": _log_star, "abs": abs,
           "max": max, "min": min, "float": float, "int": int,
           "pow2ceil": lambda x: 1 if x <= 1 else 2 ** math.ceil(math.log2(x))}
    return float(eval(text, {"__builtins__": {}}, env))  # test inputs only


def _ratios(cls: Asymptotic, text: str, sizes) -> list[float]:
    return [_value(text, s) / cls.evaluate(s, s ** 1.5) for s in sizes]


@pytest.mark.parametrize("bound,cls", [
    ("log2(log2(n))", "log log n"),              # not a constant
    ("2 ** ceil(log2(n))", "n"),                 # n .. 2n
    ("log_star(n)", "log* n"),
    ("n * log_star(n)", "n log* n"),
    ("log2(n) * log_star(n)", "log n log* n"),
    ("log_star(m)", "log* n"),                   # log*(n^1.5) = log* n + O(1)
    ("log_star(log2(log2(n)))", "log* n"),       # log* n - 2
    ("max(log_star(n), log2(log2(n)))", "log log n"),
    ("min(log_star(n), log2(log2(n)))", "log* n"),
    ("log_star(n) + log2(log2(n)) + 1", "log log n"),
    ("n // log_star(n)", "n/log* n"),
    ("n * log2(log2(n))", "n log log n"),
    ("n ** 2", "n^2"),
    ("sqrt(n) * log2(n)", "n^(1/2) log n"),
    ("n // 2", "n"),
    ("n / 2 + 3", "n"),
    ("n % 7", "1"),
    ("m % n", "n"),
    ("max(n, m)", "m"),
    ("min(n, m)", "n"),
    ("n - 1", "n"),
    ("abs(n - 2 * n)", "n"),
    ("floor(sqrt(m))", "m^(1/2)"),
    ("n ** (1 / log2(n))", "1"),                 # 2 ** (log2(n) / log2(n)) = 2
    ("log2(n) ** (1 / log2(log2(n)))", "1"),     # = 2
    ("n >> 3", "n"),
    ("pow2ceil(n) * 2", "n"),
    ("(n + 1) * (m + 1) // 2", "nm"),
    ("2 ** (2 * log2(log2(n)))", "log^2 n"),
    ("int(3.5) * n", "n"),
    ("n ** 1000", "n^1000"),
])
def test_bound_gets_the_class_of_its_value(bound: str, cls: str) -> None:
    alg = algspec.load_source(TEMPLATE.replace("BOUND", bound), "t.alg")
    want = P(cls)
    assert analyse(alg.ir).rounds == want + one, bound  # T: the loop and the first record
    if cls == "n^1000":
        return
    r = _ratios(want, bound, SIZES + LARGE)
    if "%" in bound:  # a remainder is only bounded above: m % n is 0 where n divides m
        assert 0 <= min(r) and max(r) <= 8, (bound, r)
    else:  # value / class within a constant factor from n = 8 to 2^40
        assert 0 < min(r) and max(r) <= 8 * min(r), (bound, r)


@pytest.mark.parametrize("bound,code,at,fragment", [
    ("log2(log2(log2(n)))", "E605", "log2(log2(log2(n)))", "log2(log2(n)) bounds it"),
    ("log_star(log_star(n))", "E605", "log_star(log_star(n))", "log_star(n) bounds it"),
    ("log2(log_star(n))", "E605", "log2(log_star(n))", "log_star(n) bounds it"),
    ("2 ** log_star(n)", "E605", "2 ** log_star(n)", "slower than any power of log n"),
    ("2 ** n", "E605", "2 ** n", "faster than any power of n"),
    ("n ** log2(n)", "E605", "n ** log2(n)", "faster than any power of n"),
    ("n ** (log2(log2(n)) / log2(n))", "E605", "n ** (log2(log2(n)) / log2(n))",
     "power of log n"),
    ("(n - n) ** n", "E605", "(n - n) ** n", "base may be 0"),
    ("2 ** 2 ** 2 ** 2 ** 2", "E605", "2 ** 2 ** 2 ** 2 ** 2", "beyond a float"),
    ("n * (1e308 * 10)", "E605", "1e+308 * 10", "infinite"),
    ("n < 3", "E605", "n < 3", "comparison"),
    ("atan2(n, 1)", "E605", "atan2(n, 1)", "atan2"),
    ("~n", "E605", "~n", "`~`"),
    ("n // (n % 3)", "E605", "n // (n % 3)", "divisor may be 0"),
    ("n ** sqrt(2)", "E605", "n ** sqrt(2)", "not a fraction k/d"),      # n^1.41421356...
    ("n * (0 / 0)", "E605", "n * (0 / 0)", "not a finite number"),       # nan
    ("(0 / 0) ** n", "E605", "(0 / 0) ** n", "not a finite number"),
    ("n ** (-1 / 0)", "E605", "n ** (-1 / 0)", "not a finite number"),   # -inf
    ("n if n > 3 else 1", "E601", None, "expression in n"),
    ("n << 1.5", "E205", None, "ints"),
])
def test_bound_without_a_class_is_an_e_code_at_the_bound(bound, code, at, fragment) -> None:
    try:
        alg = algspec.load_source(TEMPLATE.replace("BOUND", bound), "t.alg")
        analyse(alg.ir)
    except AlgError as err:
        d = err.diagnostics[0]
    else:
        pytest.fail(f"{bound}: no diagnostic")
    assert d.code == code and d.path == "t.alg" and d.span.line == BOUND_LINE, d.concise()
    if at is not None:
        assert d.span.column == BOUND_COL + bound.replace("1e308", "1e+308").index(at) and \
            f"`{at}` has no asymptotic class" in d.message, d.concise()
    assert fragment in d.message, d.concise()


@pytest.mark.parametrize("bound,out", [
    ("log2(log2(n))", "T = log log n"),
    ("log_star(n) * n", "T = n log* n"),
    ("2 ** ceil(log2(n))", "T = n"),
    ("log2(log2(log2(n)))", f"t.alg:{BOUND_LINE}:{BOUND_COL}: E605 `log2(log2(log2(n)))`"),
])
def test_cli_prints_the_class_or_the_diagnostic(tmp_path, bound: str, out: str) -> None:
    (tmp_path / "t.alg").write_text(TEMPLATE.replace("BOUND", bound))
    r = CliRunner().invoke(app, ["efficiency", "--static", str(tmp_path / "t.alg")],
                           env={"ALGSPEC_NO_CACHE": "1"})
    text = r.output.replace(str(tmp_path) + "/", "")
    assert out in text, text
    assert "internal error" not in text.lower() and "Traceback" not in text
    assert r.exit_code == (1 if "E605" in out else 0), text


# ------------------------------------------------------------------ random bounds
LEAVES = st.sampled_from(["n", "m", "N", "0", "1", "2", "3", "4", "0.5", "2.5"])
UNARY = ["-", "~"]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "<", "=="]
CALLS1 = ["abs", "floor", "ceil", "int", "float", "sqrt", "log2", "log_star", "pow2ceil"]
CALLS2 = ["min", "max", "atan2"]


def _node(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.just("un"), st.sampled_from(UNARY), children),
        st.tuples(st.just("bin"), st.sampled_from(BINARY), children, children),
        st.tuples(st.just("call1"), st.sampled_from(CALLS1), children),
        st.tuples(st.just("call2"), st.sampled_from(CALLS2), children, children),
        st.tuples(st.just("if"), children, children),
    )


EXPRS = st.recursive(LEAVES, _node, max_leaves=7)


def _text(e) -> str:
    if isinstance(e, str):
        return e
    kind = e[0]
    if kind == "un":
        return f"{e[1]}({_text(e[2])})"
    if kind == "bin":
        return f"({_text(e[2])} {e[1]} {_text(e[3])})"
    if kind == "call1":
        return f"{e[1]}({_text(e[2])})"
    if kind == "call2":
        return f"{e[1]}({_text(e[2])}, {_text(e[3])})"
    return f"({_text(e[1])} if n > 5 else {_text(e[2])})"


class Undefined(Exception):
    """The value at this size is undefined (a run-time fault, or beyond a float)."""


def _pyval(e, size: int):
    """The value with Python's semantics (ints stay ints) and math, as the language does."""
    if isinstance(e, str):
        if e in ("n", "N"):
            return size
        if e == "m":
            return round(size ** 1.5)
        return float(e) if "." in e else int(e)
    kind = e[0]
    if kind == "if":
        return _pyval(e[1] if size > 5 else e[2], size)
    args = [_pyval(a, size) for a in e[2:]]
    try:
        out = _apply(kind, e[1], args)
    except (ZeroDivisionError, OverflowError, ValueError) as err:
        raise Undefined(str(err)) from None
    if e[1] in "+-*" and isinstance(out, float) and math.isinf(out) and \
            all(isinstance(a, int) or math.isfinite(a) for a in args):
        raise Undefined("beyond a float")  # finite operands: an overflow, not a value
    return out


def _apply(kind: str, op: str, a: list):
    x = a[0]
    if kind == "un":
        return -x if op == "-" else ~x
    if kind == "call1":
        if op == "sqrt":
            return math.sqrt(x) if x >= 0 else math.nan
        if op == "log2":
            return math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)
        if op == "log_star":
            return float(_log_star(x)) if not math.isnan(x) else math.nan
        if op == "pow2ceil":
            return 1 if x <= 1 else 2 ** math.ceil(math.log2(x))
        return {"abs": abs, "floor": math.floor, "ceil": math.ceil, "int": math.trunc,
                "float": float}[op](x)
    y = a[1]
    if kind == "call2":
        return {"min": min, "max": max, "atan2": math.atan2}[op](x, y)
    if op == "/":
        if y == 0:
            return math.nan if x == 0 else math.copysign(math.inf, x) * math.copysign(1, y)
        return x / y
    if op == "**":
        if isinstance(x, int) and isinstance(y, int):
            if y >= 0:
                if abs(x) > 1 and y * math.log2(abs(x)) > 4000:
                    raise OverflowError("beyond a float")
                return x ** y
            return 1 if x == 1 else ((-1 if y % 2 else 1) if x == -1 else 0)
        if x == 0 and y < 0:
            return math.inf
        try:
            return math.pow(x, y)
        except ValueError:
            return math.nan
    if op in ("<<", ">>"):
        y = min(max(y, 0), 63)
        return x << y if op == "<<" else x >> y
    return {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
            "//": lambda: x // y, "%": lambda: x % y, "&": lambda: x & y,
            "|": lambda: x | y, "^": lambda: x ^ y, "<": lambda: x < y,
            "==": lambda: x == y}[op]()


def _constants(e) -> float:
    """A scale for the constant factor an expression can carry: its constants' product."""
    if isinstance(e, str):
        if e in ("n", "N", "m"):
            return 1.0
        c = float(e)
        return max(c, 1 / c, 1.0) if c else 1.0
    out = 1.0
    for a in e[2:] if e[0] != "if" else e[1:]:
        out *= _constants(a)
    return out


# Far beyond floats, in decimal arithmetic: n = 2^(2^20) and 2^(2^60), where a log n factor
# is 10^5 and 10^17 times its value at n = 4096 (and a log log n factor 5x and 17x).
HUGE_LOG2 = (2 ** 20, 2 ** 60)
DEC = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[])
D = Decimal


def _dlog2(x: Decimal) -> Decimal:
    if x.is_nan() or x < 0:
        return D("nan")
    if x == 0:
        return D("-inf")
    return DEC.divide(DEC.ln(x), DEC.ln(D(2)))


def _dlog_star(x: Decimal) -> Decimal:
    if x.is_nan() or x.is_infinite() and x > 0:
        return x
    k = 0
    while x > 1:
        x, k = _dlog2(x), k + 1
    return D(k)


def _dval(e, log2_size: int) -> tuple[Decimal, bool]:
    """(value, is an int) at n = 2^log2_size in 60-digit decimals, the language's semantics."""
    if isinstance(e, str):
        if e in ("n", "N", "m"):
            return DEC.power(D(2), D(log2_size) * (D("1.5") if e == "m" else 1)), True
        return D(e), "." not in e
    if e[0] == "if":
        raise Undefined("a conditional")  # E601: never classified
    args = [_dval(a, log2_size) for a in e[2:]]
    return _dapply(e[0], e[1], args)


def _int_of(x: Decimal) -> int:
    if not x.is_finite() or abs(x) >= D(2) ** 150:
        raise Undefined("bits of a value beyond exact integers here")
    return int(x)


def _dapply(kind: str, op: str, args) -> tuple[Decimal, bool]:
    (x, xi) = args[0]
    if kind == "un":
        return (DEC.minus(x), xi) if op == "-" else (D(~_int_of(x)), True)
    if kind == "call1":
        if op in ("floor", "ceil", "int", "pow2ceil") and not x.is_finite():
            raise Undefined(f"{op} of {x}")
        rounding = {"floor": decimal.ROUND_FLOOR, "ceil": decimal.ROUND_CEILING,
                    "int": decimal.ROUND_DOWN}
        if op in rounding:
            return x.to_integral_value(rounding[op], DEC), True
        if op == "pow2ceil":  # x is known to 60 digits: a power of two stays one
            if x <= 1:
                return D(1), True
            lg = _dlog2(x)
            near = lg.to_integral_value(decimal.ROUND_HALF_EVEN, DEC)
            lg = near if abs(lg - near) <= D(10) ** -40 * max(abs(lg), D(1)) else lg
            return DEC.power(D(2), lg.to_integral_value(decimal.ROUND_CEILING, DEC)), True
        if op == "abs":
            return DEC.abs(x), xi
        if op == "float":
            return x, False
        if op == "sqrt":
            return (DEC.sqrt(x) if x >= 0 else D("nan")), False
        if op == "log2":
            return _dlog2(x), False
        if op == "log_star":
            return _dlog_star(x), False
        raise Undefined(op)
    (y, yi) = args[1]
    both = xi and yi
    if kind == "call2":
        if op not in ("min", "max"):
            raise Undefined(op)
        return (min(x, y) if op == "min" else max(x, y)), both
    if op == "+":
        return DEC.add(x, y), both
    if op == "-":
        return DEC.subtract(x, y), both
    if op == "*":
        return DEC.multiply(x, y), both
    if op == "/":
        if y == 0:
            return (D("nan") if x == 0 else D("inf").copy_sign(x) * D(1).copy_sign(y)), False
        return DEC.divide(x, y), False
    if op in ("//", "%"):
        if y == 0:
            raise Undefined("division by zero: a run-time fault")
        q = DEC.divide(x, y).to_integral_value(decimal.ROUND_FLOOR, DEC)
        if op == "//":
            return q, both
        if q.is_finite() and abs(q) >= D(10) ** 40:
            raise Undefined("a remainder beyond 60 digits")
        return DEC.subtract(x, DEC.multiply(q, y)), both
    if op == "**":
        if both and y < 0:
            return (D(1) if x == 1 else (D(-1) ** int(y % 2) if x == -1 else D(0))), True
        if x == 0 and y < 0:
            return D("inf"), False
        return DEC.power(x, y), both
    if op in ("<<", ">>"):
        a, c = _int_of(x), min(max(_int_of(y), 0), 63)
        return D(a << c if op == "<<" else a >> c), True
    if op in ("&", "|", "^"):
        a, b = _int_of(x), _int_of(y)
        return D({"&": a & b, "|": a | b, "^": a ^ b}[op]), True
    raise Undefined(op)


def _dclass(cls: Asymptotic, log2_size: int) -> Decimal:
    """The class's value at n = 2^log2_size, m = n^1.5 (log n, log log n, log* n >= 1)."""
    size = DEC.power(D(2), D(log2_size))
    lg = max(D(log2_size), D(1))
    factors = (size, DEC.power(size, D("1.5")), lg, max(_dlog2(lg), D(1)),
               max(_dlog_star(size), D(1)))

    def total(terms) -> Decimal:
        out = D(0)
        for t in terms:
            v = D(1)
            for f, e in zip(factors, (t.n, t.m, t.log, t.loglog, t.logstar)):
                v = DEC.multiply(v, DEC.power(f, D(e.numerator) / D(e.denominator)))
            out = DEC.add(out, v)
        return out
    return DEC.divide(total(cls.num), total(cls.den))


def _check_bounds_value(e, cls: Asymptotic) -> None:
    """value / class (the value's positive part: a bound below 0 allows no trips) stays
    within a constant factor: at n = 8 .. 4096 by floats and `math`, beyond by decimals."""
    bound, ratios = _text(e), []
    for size in SIZES:
        try:
            v = float(_pyval(e, size))
        except (Undefined, OverflowError):
            continue
        c = cls.evaluate(size, round(size ** 1.5))
        if math.isfinite(v) and math.isfinite(c):  # else a division by zero at this size
            ratios.append((size, 0.0 if v <= 0 else math.inf if c == 0 else v / c))
    for k in HUGE_LOG2:
        DEC.clear_flags()
        with decimal.localcontext(DEC) as ctx:  # every operator in DEC's range (10^(10^18))
            try:
                v, _ = _dval(e, k)
            except Undefined:
                continue
            c = _dclass(cls, k)
            if any(f[x] for f in (DEC.flags, ctx.flags)
                   for x in (decimal.Overflow, decimal.Underflow, decimal.Subnormal)):
                continue  # some part is beyond 10^(+-10^18): the value is not known
            if v.is_finite() and c.is_finite():
                ratios.append((f"2^{k}", 0.0 if v <= 0 else math.inf if c == 0 else
                               float(min(v / c, D(10) ** 300))))
    small = [r for s, r in ratios if s in SIZES]
    limit = 16 * _constants(e) * max([1.0, *small])
    assert all(r <= limit for _, r in ratios), (bound, str(cls), ratios)
    # from n = 2^(2^20) on, lower-order terms are gone: a missing log log n factor triples
    # the ratio by 2^(2^60) (a missing log n factor multiplies it by 2^40)
    huge = dict(r for r in ratios if r[0] not in SIZES)
    if len(huge) == 2:
        first, last = huge.values()
        assert last <= 2 * max(_constants(e), first), (bound, str(cls), ratios)


def _classify(e):
    """The bound's class, or None after checking its diagnostic is an E-code at the bound."""
    bound = _text(e)
    try:
        alg = algspec.load_source(TEMPLATE.replace("BOUND", bound), "t.alg")
        loop = next(s for s, _ in ir.walk_statements(alg.ir.body) if isinstance(s, ir.While))
        cls = size_class(loop.bound, path="t.alg")
        assert analyse(alg.ir).rounds == (one if cls.is_o(one) else cls + one)  # + 1st record
        return cls
    except AlgError as err:
        d = err.diagnostics[0]
        assert d.code.startswith("E") and d.path == "t.alg", d.concise()
        assert d.span.line == BOUND_LINE and d.span.column >= BOUND_COL, (bound, d.concise())
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRS)
def test_random_bound_gets_a_class_that_bounds_its_value_or_an_e_code(e) -> None:
    """Any bound the grammar allows (conditionals, comparisons, bits, every builtin): no
    internal error, and a class that bounds the value, or an E-code at the bound."""
    cls = _classify(e)
    if cls is not None:
        _check_bounds_value(e, cls)


ARITH = st.recursive(
    st.sampled_from(["n", "m", "1", "2", "3", "0.5"]),
    lambda ch: st.one_of(
        st.tuples(st.just("bin"), st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]),
                  ch, ch),
        st.tuples(st.just("call1"), st.sampled_from(
            ["floor", "ceil", "sqrt", "log2", "log_star", "abs", "pow2ceil"]), ch),
        st.tuples(st.just("call2"), st.sampled_from(["min", "max"]), ch, ch)),
    max_leaves=10)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ARITH)
def test_random_arithmetic_bound_gets_a_class_that_bounds_its_value(e) -> None:
    """Arithmetic, logs, roots, powers, min and max: mostly classified, each class
    bounding the value up to n = 2^(2^60)."""
    cls = _classify(e)
    if cls is not None:
        _check_bounds_value(e, cls)
