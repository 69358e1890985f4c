"""Lint rules are registered, one per code: every L and W code of the registry has a rule
(over the IR, or the efficiency analysis's), and no rule lacks a registered code."""

from __future__ import annotations

import pytest

from algspec import codes
from algspec.lint import ANALYSIS_RULES, LINT_RULES, rule


def test_every_lint_code_has_one_rule() -> None:
    registered = set(codes.titles("L")) | set(codes.titles("W"))
    assert set(LINT_RULES) | set(ANALYSIS_RULES) == registered
    assert not set(LINT_RULES) & set(ANALYSIS_RULES)
    assert all(r.code == code for code, r in LINT_RULES.items())


def test_a_rule_needs_a_registered_code_and_only_one_check() -> None:
    with pytest.raises(ValueError, match="not in algspec/codes.py"):
        rule("L999")(lambda prog, facts: iter(()))
    with pytest.raises(ValueError, match="registered twice"):
        rule("L101")(lambda prog, facts: iter(()))
