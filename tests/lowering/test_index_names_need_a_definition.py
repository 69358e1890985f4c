"""E107 for index names (`h[u, v]`) on a datum without `=` or `:=` says how to fix it.

The help is the user's own declaration with the initial value its type starts
from anyway (`:= false` for a mask, `:= 0.0` for a scalar, `:= 0` for a pointer),
and that fixed declaration compiles.
"""

from __future__ import annotations

import pytest

import algspec
from algspec.diagnostics import AlgError, Diagnostic

H = "algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"


def e107(decl: str) -> Diagnostic:
    with pytest.raises(AlgError) as e:
        algspec.load_source(H + decl + "\nrecord\n", "t.alg")
    (d,) = e.value.diagnostics
    assert d.code == "E107", d.concise_block()
    return d


@pytest.mark.parametrize("decl, fixed", [
    ("hint edge h[u, v]: mask masked where u == v",
     "hint edge h[u, v]: mask := false masked where"),
    ("hint node c[v] as cc: categorical(3) masked where v == 0",
     "hint node c[v] as cc: categorical(3) := 0 masked where"),
    ("hint node d[v]: scalar masked where key[v] > 0.5",
     "hint node d[v]: scalar := 0.0 masked where"),
    ("output node p[v]: pointer masked where v == 0",
     "output node p[v]: pointer := 0 masked where"),
])
def test_masked_where_without_an_initial_value(decl: str, fixed: str) -> None:
    d = e107(decl)
    name = decl.split()[2].split("[")[0]
    assert (d.span.line, d.span.column) == (5, decl.index("[") + 1)
    assert f"`{name}` has none" in d.message
    assert f"`{fixed} ...`" in d.help and "initial value" in d.help
    # the suggested declaration, with the user's condition, compiles
    algspec.load_source(H + fixed + decl.split("masked where", 1)[1] + "\nrecord\n")


def test_without_masked_where_the_help_offers_a_definition_or_dropping_the_names() -> None:
    d = e107("hint node h[v]: mask")
    assert "`hint node h[v]: mask := false`" in d.help and "drop `[v]`" in d.help


def test_an_input_is_told_to_define_it() -> None:
    d = e107("input node y[v]: scalar")
    assert "`input node y[v]: scalar = ...`" in d.help and ":=" not in d.help
