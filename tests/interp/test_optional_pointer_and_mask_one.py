"""`pointer?` and `mask_one?`: data that may hold `none`, encoded as CLRS encodes an absent
value (a node's self-pointer, an all-zero mask); non-optional data keep R101/R106, with a
help line naming the optional form."""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.sampling.identity import spec_hash
from algspec.text.format import value_text
from algspec.text.parse import parse_value

# The first node to the right holding a larger key, or none; and the first node holding a
# key above 0.5, or none, as a one-hot.
SOURCE = """algorithm right_larger
nodes n
graph complete
input  node key: scalar ~ uniform()
output node nxt: {ptr} = nxt_h
output node big: {one} = onehot(first)
hint   node nxt_h: {ptr} := none
state  graph first: int = none
record
for v in 0 .. n {{
    nxt_h[v] = min(u for u in nodes if u > v and key[u] > key[v], default = none)
    if first == none and key[v] > 0.5 {{ first = v }}
    record
}}
"""
OPTIONAL = SOURCE.format(ptr="pointer?", one="mask_one?")
KEY = np.array([0.3, 0.9, 0.1, 0.4, 0.2])   # no key above 0.9, none above 0.5 but 0.9


def _load(src: str = OPTIONAL, name: str = "right_larger.alg"):
    return algspec.load_source(src, name)


def test_an_absent_pointer_is_a_self_pointer() -> None:
    out, probes = _load().trace(key=KEY)
    # 0 -> 1; 1 has none (itself); 2 -> 3; 3 and 4 have none (themselves)
    np.testing.assert_array_equal(out["nxt"], [1, 1, 3, 3, 4])
    first = probes["hint"]["node"]["nxt_h"]["data"][0]
    np.testing.assert_array_equal(first, np.arange(5))   # `:= none` everywhere


def test_an_absent_mask_one_is_all_zeros() -> None:
    out, _ = _load().trace(key=np.array([0.3, 0.2, 0.1, 0.4, 0.2]))
    assert out["big"] is None                              # trace: no node
    traj = _load().run({"key": np.array([[0.3, 0.2, 0.1, 0.4, 0.2],
                                         [0.3, 0.9, 0.1, 0.4, 0.2]])}, 5)
    np.testing.assert_array_equal(traj.outputs["big"], [[0, 0, 0, 0, 0], [0, 1, 0, 0, 0]])


def test_the_spec_keeps_the_clrs_types() -> None:
    spec = _load().spec
    assert spec["nxt"] == ("output", "node", "pointer")
    assert spec["big"] == ("output", "node", "mask_one")


def test_none_compares_in_bodies_and_is_the_default_of_an_aggregation() -> None:
    src = OPTIONAL.replace("record\nfor", "hint node gone: mask = nxt_h[index] == none\n"
                           "record\nfor", 1)
    _, probes = _load(src).trace(key=KEY)
    gone = probes["hint"]["node"]["gone"]["data"][-1]
    np.testing.assert_array_equal(gone, [0, 1, 0, 1, 1])


def test_optional_is_in_the_hash_only_where_declared() -> None:
    import json

    from algspec.sampling.identity import _strip_locations, _without_neutral_defaults
    plain = _load(SOURCE.format(ptr="pointer", one="mask_one"))
    hashed = _without_neutral_defaults(_strip_locations(json.loads(plain.ir.model_dump_json())))
    assert all("optional" not in d for d in hashed["decls"])  # files before `?` keep hashes
    assert spec_hash(plain.spec, plain.ir) != spec_hash(_load().spec, _load().ir)


@pytest.mark.parametrize(("ptr", "one", "code", "fragment"), [
    ("pointer", "mask_one?", "R101", "pointer?"),
    ("pointer?", "mask_one", "R106", "mask_one?"),
])
def test_none_in_data_that_is_not_optional_is_a_fault_naming_the_optional_form(
        ptr: str, one: str, code: str, fragment: str) -> None:
    alg = _load(SOURCE.format(ptr=ptr, one=one))
    with pytest.raises(RuntimeFault) as e:
        alg.trace(key=np.array([0.3, 0.2, 0.1, 0.4, 0.2]))
    d = e.value.diagnostic
    assert d.code == code and fragment in (d.help or ""), d.concise_block()


def test_onehot_of_minus_one_stays_r106() -> None:
    src = SOURCE.format(ptr="pointer?", one="mask_one").replace(
        "= onehot(first)", "= onehot(first - 1)").replace("state  graph first: int = none",
                                                          "state  graph first: int = 0")
    with pytest.raises(RuntimeFault) as e:
        _load(src).trace(key=np.array([0.3, 0.2, 0.1, 0.4, 0.2]))
    assert e.value.diagnostic.code == "R106"
    assert "mask_one?" in e.value.diagnostic.help


@pytest.mark.parametrize("decl", ["hint edge w: pointer?", "hint graph g: pointer?",
                                  "hint node s: scalar?", "hint node c: categorical(3)?"])
def test_only_node_pointers_and_mask_ones_are_optional(decl: str) -> None:
    src = OPTIONAL.replace("state  graph first", f"{decl}\nstate  graph first", 1)
    with pytest.raises(AlgError) as e:
        _load(src)
    d = e.value.diagnostics[0]
    assert d.code == "E103" and "?" in d.message and d.span.line == 8


def test_data_named_none_keep_their_name() -> None:
    # files that declare data called `none` (before `none` existed) read their datum
    src = OPTIONAL.replace("state  graph first: int = none", "state  graph first: int = 0")
    src = src.replace("output node nxt:", "state  graph none: int = 2\noutput node nxt:")
    out, _ = _load(src).trace(key=KEY)
    np.testing.assert_array_equal(out["nxt"], [1, 2, 3, 2, 2])   # `default = none` is 2


def test_an_all_zero_mask_one_prints_and_parses_as_none() -> None:
    assert value_text(np.zeros(4, np.float32), "node", "mask_one", optional=True) == "none"
    np.testing.assert_array_equal(parse_value("none", "node", "mask_one", nodes=4), np.zeros(4))
    assert value_text(np.eye(4, dtype=np.float32)[2], "node", "mask_one") == "2"


def test_text_records_print_an_absent_mask_one_as_none() -> None:
    from algspec.text.records import text_records

    alg = _load(OPTIONAL.replace("key[v] > 0.5", "key[v] > 0.95"))  # mostly none
    answers = [r["references"][0] for r in text_records(alg, 5, 6, 0)]
    assert any(a.strip().endswith(", none") for a in answers), answers
