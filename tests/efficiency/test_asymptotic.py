"""The asymptotic-class algebra: simplification, printing, parsing, evaluation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from algspec.efficiency.asymptotic import Asymptotic, fit_slope, log_n, m, n, one, zero

P = Asymptotic.parse


@pytest.mark.parametrize(("cls", "text"), [
    (n * log_n, "n log n"),
    (1 / n, "1/n"),
    (n ** -2, "1/n^2"),
    (1 / m, "1/m"),
    (n ** 3, "n^3"),
    (n * (n + m), "nm"),                        # n <= m <= n^2: n(n+m) is nm
    (n ** 2 + n * m, "nm"),
    (n + m, "m"),
    (n ** 2 + m * log_n, "n^2 + m log n"),       # neither wins for every m in [n, n^2]
    (n * m, "nm"),
    (n ** 2 * m, "n^2 m"),
    (n * log_n ** 2, "n log^2 n"),
    (n ** 0.5, "n^(1/2)"),
    (1 / (n * m), "1/(nm)"),
    (log_n / n, "log n/n"),
    (n / m, "n/m"),
    ((n + m) / (n ** 2 + m), "m/n^2"),
    ((n + m * log_n) / (n ** 2 + m * log_n), "m log n/(n^2+m log n)"),
    (one, "1"),
    (zero, "0"),
])
def test_printing(cls: Asymptotic, text: str) -> None:
    assert str(cls) == text
    assert P(text) == cls  # what is printed parses back to the same class


@pytest.mark.parametrize(("cls", "simplified"), [
    (n ** 2 + n * log_n + n + 1, "n^2"),         # dominated terms dropped
    (n * log_n + n, "n log n"),                   # log factor dominates at equal power
    (n ** 2 / n, "n"),
    ((n + m) / (n * (n + m)), "1/n"),             # Kosaraju's eta: exact cancellation
    ((n ** 3 + n ** 2 * m) / ((n + m) * m), "n^2/m"),
    (log_n / (log_n * n ** 2), "1/n^2"),          # binary search's epsilon
    ((n + m) ** 2, "n^2 + nm + m^2"),             # integer powers multiply out
    ((n + m) ** 0.5, "n^(1/2) + m^(1/2)"),        # (a+b)^p ~ a^p + b^p
])
def test_simplification(cls: Asymptotic, simplified: str) -> None:
    assert str(cls) == simplified or cls == P(simplified)


def test_m_plus_nm_keeps_only_nm_when_it_dominates() -> None:
    # nm dominates m (and n) componentwise, so m + nm + n simplifies to nm.
    assert str(m + n * m + n) == "nm"


def test_equality_is_asymptotic() -> None:
    assert n * (n + m) == n ** 2 + n * m
    assert 3 * n == n          # constants dropped
    assert n + 1 == n
    assert n != n * log_n
    assert n ** 2 != n * m     # m is independent of n
    assert one == 1 and zero == 0


def test_is_O_partial_order() -> None:
    assert (n * log_n).is_O(n ** 2)
    assert not (n ** 2).is_O(n * log_n)
    assert (n + m).is_O(n * m + n)
    assert n.is_O(m) and not m.is_O(n)        # n <= m <= n^2
    assert m.is_O(n ** 2) and not (n ** 2).is_O(m)
    assert not (n ** 2).is_O(m * log_n) and not (m * log_n).is_O(n ** 2)   # incomparable
    assert (1 / n ** 2).is_O(1 / n)
    assert log_n.is_O(n ** 0.5)


def test_evaluate_drops_constants_uses_log2() -> None:
    assert (n * log_n).evaluate(n=64) == 64 * 6
    assert (n * (n + m)).evaluate(n=64, m=500) == 64 * 500   # the class nm
    assert (1 / n ** 2).evaluate(n=8) == 1 / 64
    assert P("log^2 n").evaluate(n=16) == 16.0
    with pytest.raises(ValueError, match="depends on m"):
        (1 / m).evaluate(n=8)


def test_log_of_classes() -> None:
    assert (n ** 2).log() == log_n
    assert (n + m).log() == log_n
    assert one.log() == one


def test_division_by_zero_class() -> None:
    with pytest.raises(ZeroDivisionError):
        _ = n / zero


def test_parse_errors() -> None:
    with pytest.raises(ValueError):
        P("n +")
    with pytest.raises(ValueError):
        P("x^2")


def test_local_slope_sees_log_factors() -> None:
    sizes = [8, 16, 32, 64]
    assert n.local_slope(sizes) == pytest.approx(1.0)
    # n log n: slope 1 + 1/ln(n) locally, about 1.33 between 8 and 64 (log2 3 -> 6).
    s = (n * log_n).local_slope(sizes)
    assert 1.25 < s < 1.4
    # with m given per size, n + m is the class m: slope 2 when m = n^2
    assert (n + m).local_slope(sizes, [x * x for x in sizes]) == pytest.approx(2.0, abs=0.01)


def test_fit_slope() -> None:
    assert fit_slope([2, 4, 8], [4, 16, 64]) == pytest.approx(2.0)
    assert math.isnan(fit_slope([2], [4]))
    assert math.isnan(fit_slope([2, 4], [0, 0]))


# ------------------------------------------------------------ properties
_terms = st.builds(lambda a, b, c: Asymptotic.term(a, b, c),
                   st.integers(-3, 3), st.integers(-2, 2), st.integers(0, 2))
_classes = st.lists(_terms, min_size=1, max_size=3).map(lambda ts: sum(ts[1:], ts[0]))


@given(_classes, _classes)
def test_quotient_times_divisor_is_dividend(a: Asymptotic, b: Asymptotic) -> None:
    assert (a / b) * b == a


@given(_classes, _classes)
def test_sum_dominates_both(a: Asymptotic, b: Asymptotic) -> None:
    s = a + b
    assert a.is_O(s) and b.is_O(s)
    assert P(str(s)) == s


@given(_terms, _terms, st.integers(2, 4096), st.integers(2, 4096))
def test_evaluate_is_multiplicative_on_terms(a: Asymptotic, b: Asymptotic, nv: int,
                                             mv: int) -> None:
    assert (a * b).evaluate(n=nv, m=mv) == pytest.approx(a.evaluate(n=nv, m=mv)
                                                         * b.evaluate(n=nv, m=mv))
    assert (a / b).evaluate(n=nv, m=mv) == pytest.approx(a.evaluate(n=nv, m=mv)
                                                         / b.evaluate(n=nv, m=mv))
