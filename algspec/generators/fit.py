"""Does a generator's output fit the declared location and CLRS type?

Used by the lowering at load time, so `input node s: mask ~ uniform()` is an
error with a position instead of an all-true mask at sampling time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from algspec.generators.base import Domain, Generator

# Which domains each CLRS type can hold, beyond the range checks below.
_FITS: dict[str, set[str]] = {
    "scalar": {"real", "int", "bool", "one_hot", "categorical", "pointer", "bijection", "list"},
    "mask": {"bool", "one_hot", "int"},
    "mask_one": {"one_hot"},
    "categorical": {"categorical", "bool", "int"},
    "pointer": {"pointer", "bijection", "list", "int"},
    "should_be_permutation": {"list"},
}

_NEEDS = {
    "scalar": "numbers",
    "mask": "0/1 values",
    "mask_one": "exactly one node set per sample",
    "categorical": "integer categories",
    "pointer": "node indices",
    "should_be_permutation": "linked-list predecessor pointers (CLRS's permutation encoding)",
}


def _int_fits(dom: Domain, low: int, high: int) -> bool:
    """Whether a known integer range lies in [low, high]."""
    return (dom.low is not None and dom.high is not None
            and dom.low >= low and dom.high <= high)


def _fits(dom: Domain, clrs_type: str, categories: int | None, checked_at_n: bool) -> bool:
    if dom.kind not in _FITS.get(clrs_type, set()):
        return False
    if clrs_type == "pointer" and dom.kind == "int":
        # a range in n (`high = n`) is checked at each n before its draw is used
        # (`pointer_range_problem`); a constant one lies in [0, n) for every n only if it
        # is {0}
        if not checked_at_n:
            return False
        if not dom.known or dom.high is None:
            return dom.low is None or dom.low >= 0
        return dom.low is not None and dom.low >= 0 and dom.high <= 0
    if not dom.known:  # bounds depend on n: the kind fits, the range is checked when sampling
        return True
    if clrs_type == "mask" and dom.kind == "int":
        return _int_fits(dom, 0, 1)
    if clrs_type == "categorical":
        k = categories or 0
        if dom.kind == "categorical":
            return dom.k is not None and dom.k <= k
        if dom.kind == "bool":
            return k >= 2
        return _int_fits(dom, 0, k - 1)
    return True


_SUGGEST = {
    "scalar": {"real"},
    "mask": {"bool", "one_hot"},
    "mask_one": {"one_hot"},
    "categorical": {"categorical"},
    "pointer": {"pointer", "bijection", "list"},
    "should_be_permutation": {"list"},
}


def _suggest(clrs_type: str, location: str, generators: Mapping[str, Generator]) -> list[str]:
    """Generators at `location` whose kind of output suits `clrs_type` (parameters aside)."""
    return [name for name, g in generators.items()
            if g.location == location and g.domain_of().kind in _SUGGEST.get(clrs_type, ())]


def _drawn(gen: Generator, dom: Domain, params: Mapping[str, Any]) -> str:
    """What a generator draws, for a message: a known range as it is; a range in n with its
    bounds as written where the generator can say (`integers in [-1, n)`), else the kind
    and the parameters in n (`integers whose range depends on n (max_deadline = n)`)."""
    if dom.known:
        return str(dom)
    if gen.shown is not None:
        return gen.shown(params)
    from algspec.generators.params import is_expr, jsonable
    given = ", ".join(f"{k} = {jsonable(v)}" for k, v in params.items() if is_expr(v))
    kind = {"real": "real numbers", "int": "integers", "categorical": "categories"}.get(
        dom.kind) or str(Domain(dom.kind))
    return f"{kind} whose range depends on n ({given})" if given else kind


def check_declared_type(gen: Generator, loc: str, clrs_type: str | None,
                        categories: int | None = None,
                        params: Mapping[str, Any] | None = None,
                        generators: Mapping[str, Generator] | None = None) -> list[str]:
    """Why `gen` (with `params`) cannot produce a `loc` input of `clrs_type`; [] if it can.

    `clrs_type` is dm-clrs's spelling (`should_be_permutation`); `categories`
    is K of `categorical(K)`.  `generators` (the registry) is used to suggest
    generators that fit.
    """
    if gen.location != loc:
        return [f"generator `{gen.name}` makes {gen.location} data but the input is {loc} data"]
    if clrs_type is None:
        return []
    dom = gen.domain_of(params)
    if _fits(dom, clrs_type, categories, gen.bounds is not None):
        return []
    what = f"categorical({categories})" if clrs_type == "categorical" else clrs_type
    if clrs_type == "should_be_permutation":
        what = "permutation"
    article = "an" if str(loc)[:1] in "aeiou" else "a"  # "an edge"
    # integers are not pointers or one-hot masks, in whatever range: say so
    whatever = " whatever their range" if dom.kind == "int" and \
        (dom.kind not in _FITS.get(clrs_type, set()) or gen.bounds is None) else ""
    needs = _NEEDS.get(clrs_type, clrs_type)
    if clrs_type == "pointer" and dom.kind == "int" and not whatever:
        needs += (" in [0, n) at every n; a range written in n, e.g. `high = n`, is checked "
                  "at each n")
    msg = (f"generator `{gen.name}` draws {_drawn(gen, dom, {**gen.defaults, **(params or {})})}, "
           f"which {article} {loc} `{what}` input cannot hold{whatever} (it needs {needs})")
    if generators:
        fit = _suggest(clrs_type, loc, generators)
        if fit:
            msg += "; generators that fit: " + ", ".join(f"{g}()" for g in fit)
    return [msg]


def pointer_range_problem(gen: Generator, loc: str, params: Mapping[str, Any], n: int,
                          nodes: int) -> str | None:
    """Why integers drawn at size n cannot be node pointers of `nodes` nodes; None if they can.

    Decided from the range the parameters give at n (`uniform_int(low = 0, high = n)` is
    [0, n - 1]), not from the values drawn, so it does not depend on the seed.
    """
    if gen.bounds is None:
        return None
    resolved = gen.resolve_at(params, 1, n)
    low, high = gen.bounds(n, resolved)
    if low >= 0 and high <= nodes - 1:
        return None
    written = {**gen.defaults, **params}
    drawn = gen.shown(written) if gen.shown else _drawn(gen, gen.domain_of(params), written)
    return (f"generator `{gen.name}` draws {drawn} = "
            f"integers in [{low}, {high}] at n = {n}, which a {loc} `pointer` input of "
            f"{nodes} nodes cannot hold (it needs node indices in [0, {nodes - 1}])")
