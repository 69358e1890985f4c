"""Declarations for spec fidelity and helper inputs.

A file can declare its own `pos` (and so place it in the spec), name a probe
as CLRS does even when that name is reserved (`as m`), keep inputs out of the
spec (`private`), define edge data from both endpoints (`w[u, v] = ...`), and
pad its node count to a power of two (`nodes pow2ceil(n)`). References are
numpy recomputations of the intended arrays and, where it matters, dm-clrs's
own specs.
"""

from __future__ import annotations

import numpy as np
import pytest

import algspec
from algspec.diagnostics import AlgError

H = "algorithm t\nnodes n\ngraph complete\n"


def load(src: str):
    return algspec.load_source(src, "t.alg")


def diag(src: str):
    with pytest.raises(AlgError) as e:
        load(src)
    return e.value.diagnostics[0]


# ---------------------------------------------------------------- pos and order
STRINGS = H + """
input  node string: mask ~ matcher_split()
input  node pos: scalar = (index - tn) / (n - tn) if string else index / tn
input  node key: categorical(4) ~ matcher_string()
private graph tn: int = count(not string[u] for u in nodes)   # |T|
output node first: mask_one = onehot(tn)
record
"""


def test_declared_pos_gives_per_string_positions() -> None:
    """dm-clrs's `strings_pos`: i / |T| on the haystack, j / |P| on the needle."""
    alg = load(STRINGS)
    for n in (3, 5, 8, 13):
        t = alg.sample(n, 16, seed=n)
        for b in range(16):
            second = t.inputs["string"][b].astype(bool)
            nt, npat = int((~second).sum()), int(second.sum())
            assert nt >= 1 and npat >= 1 and not second[:nt].any()  # T first, then P
            ref = np.concatenate([np.arange(nt) / nt, np.arange(npat) / npat])
            np.testing.assert_allclose(t.inputs["pos"][b], ref, rtol=1e-6)


def test_declaration_order_is_spec_order() -> None:
    assert list(load(STRINGS).spec)[:3] == ["string", "pos", "key"]
    default = load(H + "input node key: scalar ~ uniform()\noutput node o: scalar = key\n")
    assert list(default.spec) == ["pos", "key", "o"]  # the implicit pos stays first
    t = default.sample(6, 2, seed=0)
    np.testing.assert_allclose(t.inputs["pos"][0], np.arange(6) / 6)
    late = load(H + "input node key: scalar ~ uniform()\ninput node pos: scalar = index / N\n"
                "output node o: scalar = key\n")
    assert list(late.spec) == ["key", "pos", "o"]


def test_spec_order_matches_dm_clrs_string_matchers() -> None:
    specs = pytest.importorskip("clrs._src.specs")
    for name in ("naive_string_matcher", "kmp_matcher", "lcs_length"):
        ref = [k for k, v in specs.SPECS[name].items() if v[0] == "input"]
        ours = [k for k, v in load(STRINGS).spec.items() if v[0] == "input"]
        assert ours == ref, name
        assert load(STRINGS).spec["pos"] == specs.SPECS[name]["pos"]


@pytest.mark.parametrize("decl, col", [("hint node pos: mask", 11),
                                       ("input graph pos: scalar = 0.5", 13),
                                       ("private node pos: float ~ uniform()", 14)])
def test_pos_must_be_a_node_scalar_input(decl: str, col: int) -> None:
    d = diag(H + decl + "\n")
    assert (d.code, d.span.line, d.span.column) == ("E103", 4, col), d.concise()


# ------------------------------------------------------------ names: `as`
RENAMED = H + """
input  node key: scalar ~ uniform()
output node sel: mask
hint   node cur as m: mask_one = onehot(c)
hint   node last as "k": mask_one = onehot(c // 2)
state  graph c: int
for i in 0 .. n {
  c = i
  sel[i] = key[i] < 0.5
  record
}
"""


def test_as_names_a_probe_with_a_reserved_word() -> None:
    alg = load(RENAMED)
    assert list(alg.spec) == ["pos", "key", "sel", "m", "k"]
    assert alg.spec["m"] == ("hint", "node", "mask_one")
    key = np.array([0.9, 0.1, 0.4, 0.7])
    out, probes = alg.trace(key=key)
    np.testing.assert_array_equal(out, key < 0.5)
    np.testing.assert_array_equal(probes["hint"]["node"]["m"]["data"], np.eye(4))
    np.testing.assert_array_equal(probes["hint"]["node"]["k"]["data"],
                                  np.eye(4)[[0, 0, 1, 1]])
    t = alg.sample(5, 3, seed=1)
    assert set(t.hints) == {"m", "k"} and t.hints["m"].shape == (5, 3, 5)


def test_as_matches_dm_clrs_hint_m() -> None:
    specs = pytest.importorskip("clrs._src.specs")
    assert load(RENAMED).spec["m"] == specs.SPECS["activity_selector"]["m"]


def test_reserved_name_suggests_as() -> None:
    d = diag(H + "hint node m: mask_one = onehot(0)\n")
    assert (d.code, d.span.column) == ("E109", 11)
    assert "as m" in d.help


@pytest.mark.parametrize("decl, code, col", [
    ("hint node x as key: mask_one = onehot(0)", "E101", 16),  # a second probe `key`
    ("input node y as pos: scalar = key", "E101", 17),          # the implicit pos
    ("state graph q as r: int", "E103", 18),                    # not in the spec
    ("private node p as p2: float ~ uniform()", "E103", 19),
])
def test_bad_spec_names(decl: str, code: str, col: int) -> None:
    d = diag(H + "input node key: scalar ~ uniform()\n" + decl + "\n")
    assert (d.code, d.span.line, d.span.column) == (code, 5, col), d.concise()


# ------------------------------------------------------------- private inputs
INTERVALS = H + """
private node a: float ~ uniform()
private node b: float ~ uniform()
input  node s: scalar = min(a, b)
input  node f: scalar = max(a, b)
output node longest: mask_one = onehot(best)
state  graph best: int = 0
for i in 0 .. n {
  if f[i] - s[i] > f[best] - s[best] { best = i }
}
"""


def test_private_inputs_feed_views_but_stay_out_of_the_spec() -> None:
    alg = load(INTERVALS)
    assert list(alg.spec) == ["pos", "s", "f", "longest"]
    assert alg.primary_inputs == ["a", "b"]
    t = alg.sample(8, 500, seed=3)
    assert set(t.inputs) == {"pos", "s", "f"}
    s, f = t.inputs["s"], t.inputs["f"]
    assert (s <= f).all()
    # min and max of two U[0, 1): means 1/3 and 2/3 (4000 draws each: sd ~0.004)
    assert abs(s.mean() - 1 / 3) < 0.02 and abs(f.mean() - 2 / 3) < 0.02
    np.testing.assert_array_equal(t.outputs["longest"].argmax(-1), (f - s).argmax(-1))


def test_private_inputs_trace_and_parameters() -> None:
    alg = load(INTERVALS)
    a, b = np.array([0.2, 0.9, 0.5]), np.array([0.6, 0.1, 0.55])
    out, probes = alg.trace(a=a, b=b)
    assert out == 1  # [0.2, 0.6], [0.1, 0.9], [0.5, 0.55]
    assert set(probes["input"]["node"]) == {"pos", "s", "f"}
    np.testing.assert_allclose(probes["input"]["node"]["f"]["data"], np.maximum(a, b))
    t = alg.sample(6, 50, seed=0, **{"a.low": 2.0, "a.high": 3.0})  # a is drawn above b
    np.testing.assert_array_equal(t.inputs["s"] < 1.0, np.ones_like(t.inputs["s"], bool))


def test_private_inputs_can_be_read_by_the_body_and_take_clrs_types() -> None:
    alg = load(H + "private node p: pointer ~ random_permutation()\n"
               "output node q: pointer\nforall v { q[v] = p[p[v]] }\n")
    t = alg.sample(7, 4, seed=2)
    assert list(alg.spec) == ["pos", "q"] and set(t.inputs) == {"pos"}
    p = alg.generate(7, 4, rng=2)["p"].astype(int)
    np.testing.assert_array_equal(t.outputs["q"], np.take_along_axis(p, p, axis=1))


def test_private_inputs_are_not_in_the_feedback() -> None:
    pytest.importorskip("clrs")
    alg = load(INTERVALS.replace("state  graph best: int = 0",
                                 "hint node cur as m: mask_one = onehot(best)\n"
                                 "state  graph best: int = 0") + "record\n")
    fb = alg.sampler(length=6, num_samples=8, seed=0).next(4)
    assert [d.name for d in fb.features.inputs] == ["pos", "s", "f"]
    assert [d.name for d in fb.features.hints] == ["m"]
    assert [d.name for d in fb.outputs] == ["longest"]


# ------------------------------------------------------------ both endpoints
def test_edge_views_read_both_endpoints() -> None:
    alg = load(H + """
input  node x: scalar ~ uniform()
input  edge w[u, v]: scalar = abs(x[u] - x[v])
input  edge src: scalar = x
input  edge dst[u, v]: scalar = x[v] + 0.0 * x[u]
input  node deg[v]: scalar = sum(w[v, u] for u in nodes if u != v)
output node o: scalar = deg
""")
    t = alg.sample(6, 3, seed=5)
    x = t.inputs["x"].astype(np.float64)
    np.testing.assert_allclose(t.inputs["w"], np.abs(x[:, :, None] - x[:, None, :]), atol=1e-6)
    np.testing.assert_allclose(t.inputs["src"], np.broadcast_to(x[:, :, None], (3, 6, 6)))
    np.testing.assert_allclose(t.inputs["dst"], np.broadcast_to(x[:, None, :], (3, 6, 6)))
    np.testing.assert_allclose(t.inputs["deg"], np.abs(x[:, :, None] - x[:, None, :]).sum(-1),
                               rtol=1e-5)


def test_named_indices_in_initial_values() -> None:
    alg = load(H + "input node x: scalar ~ uniform()\n"
               "output edge e: mask\nhint edge closer[i, j] as c: mask := x[j] < x[i]\n"
               "record\nforall v, u { e[v, u] = closer[u, v] }\n")
    t = alg.sample(5, 2, seed=1)
    x = t.inputs["x"]
    np.testing.assert_array_equal(t.hints["c"][0], x[:, None, :] < x[:, :, None])
    np.testing.assert_array_equal(t.outputs["e"], x[:, :, None] < x[:, None, :])


@pytest.mark.parametrize("decl, code, col", [
    ("input edge w[u]: scalar = 1.0", "E202", 13),
    ("input graph g[u]: scalar = 1.0", "E202", 14),
    ("hint node h[v]: mask", "E107", 12),
    ("input node y[key]: scalar = 1.0", "E101", 13),
    ("input edge y[u, u]: scalar = 1.0", "E101", 13),
    ("input edge y[u, n]: scalar = 1.0", "E101", 13),
])
def test_bad_index_names(decl: str, code: str, col: int) -> None:
    d = diag(H + "input node key: scalar ~ uniform()\n" + decl + "\n")
    assert (d.code, d.span.line, d.span.column) == (code, 5, col), d.concise()


# ------------------------------------------------------------ power-of-two nodes
def test_pow2ceil_nodes_pad_the_generated_values() -> None:
    alg = load("algorithm t\nnodes pow2ceil(n)\ngraph complete\n"
               "input node key: scalar ~ uniform() pad 2.0\noutput node o: scalar = key\n")
    for n in range(1, 10):
        N = 1 << (n - 1).bit_length()
        t = alg.sample(n, 3, seed=n)
        assert t.inputs["key"].shape == (3, N)
        assert (t.inputs["key"][:, :n] < 1.0).all() and (t.inputs["key"][:, n:] == 2.0).all()
        np.testing.assert_allclose(t.inputs["pos"][0], np.arange(N) / N)


def test_trace_takes_a_view_in_place_of_its_private_draws() -> None:
    """dm-clrs's own `s` and `f` can be fed to a file that draws them from private inputs."""
    alg = load(INTERVALS)
    s, f = np.array([0.1, 0.3, 0.2, 0.5]), np.array([0.4, 0.9, 0.3, 0.6])
    out, probes = alg.trace(s=s, f=f)
    assert out == int(np.argmax(f - s))
    np.testing.assert_array_equal(probes["input"]["node"]["s"]["data"], s)
    with pytest.raises(TypeError, match="missing"):
        alg.trace(s=s)  # `a` still feeds `f`... and `b` too
    with pytest.raises(TypeError, match="unexpected"):
        alg.trace(a=s, b=f, pos=s)  # the implicit pos is not an input one gives
    body_reads = load(INTERVALS.replace("if f[i] - s[i]", "if f[i] - s[i] + 0.0 * a[i]"))
    with pytest.raises(TypeError, match="missing"):
        body_reads.trace(s=s, f=f)  # the body reads `a` itself


def test_private_draws_take_parameters_in_n() -> None:
    alg = load(H + "private node a: float ~ uniform(low = 0.0, high = 1.0 / n)\n"
               "input node x: scalar = a * n\noutput node o: scalar = x\n")
    for n in (2, 5, 9):
        x = alg.sample(n, 40, seed=n).inputs["x"]
        assert (x >= 0).all() and (x < 1).all() and x.max() > 0.5


def test_a_declared_pos_is_not_an_unused_input() -> None:
    from algspec.lint import ir_rules
    findings = ir_rules(load(STRINGS).ir)
    assert not [f for f in findings if f.code == "L101" and "pos" in f.message]
    assert [f for f in findings if f.code == "L101" and "`key`" in f.message]  # still reported
