"""The class algebra holds log log n factors: printing, parsing, values, logs."""

from __future__ import annotations

import math

import pytest

from algspec.efficiency.asymptotic import Asymptotic, log_n, m, n, one

loglog = Asymptotic.term(loglog=1)


@pytest.mark.parametrize("cls,text", [
    (n * loglog, "n log log n"),
    (log_n * loglog, "log n log log n"),
    (loglog ** 2, "(log log n)^2"),
    (one / loglog, "1/log log n"),
    (n / (log_n * loglog), "n/(log n log log n)"),
    (m * loglog, "m log log n"),
])
def test_prints_and_parses_back(cls: Asymptotic, text: str) -> None:
    assert str(cls) == text
    assert Asymptotic.parse(text) == cls


def test_order_between_one_and_log_n() -> None:
    # 1 = o(log log n) = o(log n): sums keep the larger, quotients keep the factor.
    assert one.is_o(loglog) and loglog.is_o(log_n) and not log_n.is_O(loglog)
    assert str(n * loglog + n) == "n log log n"
    assert str(n * log_n + n * loglog) == "n log n"
    assert (n * log_n * loglog) / (n * loglog) == log_n


def test_value_is_log2_of_log2_at_least_one() -> None:
    # at n = 2^16: log2(16) = 4, so n log log n = 2^16 * 4
    assert (n * loglog).evaluate(2.0 ** 16) == pytest.approx(2.0 ** 16 * 4)
    assert loglog.evaluate(2.0 ** 256) == pytest.approx(8.0)
    assert loglog.evaluate(2.0) == 1.0  # log log 2 = 0 counts as 1, like log n at n = 1


def test_log_of_a_class() -> None:
    # log of a power of n is log n, of a power of log n is log log n (log(log^3 n) = 3 log
    # log n), of a constant is a constant, of a class tending to 0 is negative (class 0).
    assert (n ** 2 * loglog).log() == log_n
    assert (log_n ** 3).log() == loglog
    assert (log_n / loglog).log() == loglog
    assert one.log() == one
    assert (one / n).log().is_zero
    with pytest.raises(ValueError, match="log log log n"):
        loglog.log()
    # a lower bound over every m: m/n is 1 at m = n, so its log has no growing lower bound
    assert (m / n).log() == log_n and (m / n).log(lower=True) == one


def test_numbers_agree_with_the_class() -> None:
    # n log2(log2(n)) / class value is constant across sizes (both log base 2)
    for k in (8, 16, 32, 64):
        size = 2.0 ** k
        assert (n * loglog).evaluate(size) == pytest.approx(size * math.log2(k))
