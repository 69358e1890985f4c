"""Messages that tell the writer what is wrong and what to write instead: E110 on a
generator whose range is an expression in n, E205 on a mask compared with 0 or 1, E401 and E708
in a procedure called per processor, and R112 saying its size once."""

from __future__ import annotations

import pytest

from algspec.lint import lint_source

HEAD = "algorithm t\nnodes n\ngraph complete\n"


def _only(src: str, code: str):
    found = [d for d in lint_source(HEAD + src, "t.alg") if d.code == code]
    assert len(found) == 1, [d.concise() for d in lint_source(HEAD + src, "t.alg")]
    return found[0]


def test_e110_on_an_n_dependent_range_says_what_is_drawn_and_what_fits() -> None:
    d = _only("input node f: mask_one ~ uniform_int(low = 0, high = n)\n"
              "output node o: mask\nforall v { o[v] = f[v] }\n", "E110")
    assert "?" not in d.message and "n-dependent" not in d.message
    assert "draws integers in [0, n)" in d.message, d.message
    assert "node `mask_one` input cannot hold whatever their range" in d.message
    assert "source_node()" in d.message


def test_an_n_dependent_integer_range_within_the_nodes_feeds_a_pointer() -> None:
    src = "input node f: pointer ~ uniform_int(low = 0, high = n)\n" \
          "output node o: pointer\nforall v { o[v] = f[v] }\n"
    assert not [d for d in lint_source(HEAD + src, "t.alg") if d.severity == "error"]


def test_e110_with_a_known_range_keeps_it() -> None:
    d = _only("input node c: mask ~ uniform_int(low = 0, high = 5)\n"
              "output node o: mask\nforall v { o[v] = c[v] }\n", "E110")
    assert "draws integers in [0, 4]" in d.message and "whatever" not in d.message


@pytest.mark.parametrize(("test", "use"), [
    ("A[u, v] != 0", "use `A[u, v]` itself"),
    ("0 != A[u, v]", "use `A[u, v]` itself"),
    ("A[u, v] == 1", "use `A[u, v]` itself"),
    ("A[u, v] == 0", "use `not A[u, v]`"),
    ("A[u, v] != 1.0", "use `not A[u, v]`"),
])
def test_e205_on_a_mask_compared_with_a_number_says_to_use_the_mask(test: str, use: str) -> None:
    d = _only("input edge A: mask ~ erdos_renyi()\noutput node deg: scalar\nrecord\n"
              f"forall v {{ deg[v] = sum(1.0 for u in nodes if {test}) }}\n", "E205")
    assert d.help is not None and use in d.help, d.help
    assert "is a boolean (a mask)" in d.help


def test_e205_between_other_types_has_no_mask_help() -> None:
    d = _only("input node k: scalar ~ uniform()\ninput node c: mask ~ uniform_int()\n"
              "output node o: mask\nrecord\nforall v { o[v] = c[v] == k[v] }\n", "E205")
    assert "mask" not in (d.help or "")


PROC = ("input node key: scalar ~ uniform()\noutput node out: scalar\n"
        "proc sq(x) { return x * x }\nrecord\n")


def test_e401_in_a_procedure_called_per_processor_says_why() -> None:
    d = _only(PROC + "proc put(x) { out[0] = x }\nforall v { put(key[v]) }\n", "E401")
    assert d.span.line == HEAD.count("\n") + 5  # the write in the procedure, not the call
    assert "runs once per processor of the round" in d.help
    assert "each processor writes only its own cells" in d.help and "by priority" in d.help


def test_e708_on_a_recursive_procedure_in_a_round_says_to_loop_instead() -> None:
    d = _only(PROC + "proc r(x) depth n { if x > 0 { r(x - 1) } }\nforall v { r(v) }\n",
              "E708")
    assert "one call stack per sample" in d.help and "`while` loop" in d.help


def test_r112_says_the_size_once() -> None:
    d = _only("hint node seen: mask\noutput node out: mask = seen\nstate graph i: int = 0\n"
              "record\nwhile i < n bound n total bound n // 4 {\n    seen[i] = true\n"
              "    i = i + 1\n    record\n}\n", "R112")
    assert d.message.count("at n = 4") == 1, d.message
    assert "(`total bound n // 4` at n = 4)" in d.message
