"""Every documented code, reached from the mistake a newcomer would make.

For each code in `algspec/codes.py` at least one small, natural program that
triggers exactly that code, with the line and column of the offending token and
a message that names the thing at fault; several distinct mistakes per code
where the README lists them. E codes come from `algspec.load_source`, L/W codes
from `algspec.lint.lint_source`, R codes from `alg.trace(...)`. A coverage test
fails when a registered code has no program here. The second half feeds
mistakes that no one code describes to the CLI: each is one
`path:line:col: CODE` line, exit 1, no traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.codes import CODES
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.lint import lint_source

H = "algorithm t\nnodes n\ngraph complete\n"
GX = "state graph x: int = 0\n"
NA = "state node a: int = 0\n"
K = "input node key: scalar ~ uniform()\n"

# (code, source, line, column, fragments the message must contain)
E_CASES: list[tuple[str, str, int, int, tuple[str, ...]]] = [
    # ---- parser
    ("E001", H + GX + "x = 1 $ 2\n", 5, 7, ("'$'",)),
    ("E001", H + "state graph café: int = 0\n", 4, 16, ("'é'",)),          # non-ASCII name
    ("E001", H + GX + "x = 1\x00\n", 5, 6, ("unexpected character",)),
    ("E002", H + GX + "x = = 2\n", 5, 5, ("'='",)),
    ("E002", H + GX + "if x < 1:\n    x = 2\n", 5, 9, ("':'",)),                # Python colon
    ("E002", H + GX + "whlie x < 3 bound n { x += 1 }\n", 5, 7, ("'x'",)),     # keyword typo
    ("E002", H + GX + "x = 1\nstate graph y: int = 0\n", 6, 1, ("'state'", "declarations")),
    ("E003", "", 1, 1, ("empty file", "algorithm")),
    ("E003", "# only a comment\n", 1, 1, ("empty file",)),
    ("E004", H + GX + "x = " + "-" * 5000 + "1\n", 5, 1, ("nested too deeply",)),
    ("E004", H + GX + "x = " + " + ".join(["1"] * 3000) + "\n", 5, 1, ("nested too deeply",)),
    # ---- declarations
    ("E101", H + GX + "state node x: int = 0\n", 5, 12, ("`x`", "declared twice")),
    ("E101", H + K + "hint node key: mask\n", 5, 11, ("`key`", "declared twice")),  # across stages
    ("E101", H + "hint node a as z: mask\nhint node b as z: mask\n", 5, 16, ("`z`",)),
    ("E101", H + GX + NA + "forall x { a[x] = 1 }\n", 6, 8, ("`x`", "processor")),
    ("E101", H + GX + "proc f(q, q) { x = q }\nf(1, 2)\n", 5, 11, ("parameter `q`",)),
    ("E101", H + GX + "proc f(x) { let y = x }\nf(1)\n", 5, 8, ("parameter `x`",)),
    ("E102", H + "hint node h: banana\n", 4, 1, ("unknown type", "`banana`")),
    ("E102", H + "state graph x: integer = 0\n", 4, 1, ("`integer`",)),
    ("E103", H + "hint graph h: mask_one\n", 4, 1, ("mask_one", "node or edge")),
    ("E103", H + "hint node c: categorical\n", 4, 1, ("categorical(K)",)),
    ("E103", H + "state node s: scalar = 0.0\n", 4, 1, ("scalar",)),         # CLRS type on state
    ("E103", H + "hint node c: categorical(100000000000)\n", 4, 1, ("too many categories",)),
    ("E104", H + "input node k: scalar ~ gaussian(mu = 0)\n", 4, 22, ("`gaussian`",)),
    ("E104", H + "input graph k: scalar ~ uniform()\n", 4, 23, ("`uniform`", "node data")),
    ("E105", H + "input node k: scalar ~ uniform(lo = 0.0)\n", 4, 22, ("'lo'",)),
    ("E105", H + "input node k: scalar ~ uniform(low = 2.0, high = 1.0)\n", 4, 22, ("low < high",)),
    ("E105", H + "input node k: scalar ~ uniform(low = 0.0, low = 0.5)\n", 4, 22, ("low",)),
    ("E106", H + "input node k: scalar\n", 4, 1, ("`k`", "generator")),
    ("E106", H + "hint node k: scalar ~ uniform()\n", 4, 21, ("`k`", "only inputs")),
    ("E107", H + "state node s: float = 0.0\ninput node k: scalar = s\n", 5, 24,
     ("`k`", "`s`", "inputs may only depend on inputs")),
    ("E107", H + "input node k: scalar = rand()\n", 4, 24, ("`rand()`",)),
    ("E108", H.replace("complete", "input B") + "input edge A: scalar ~ erdos_renyi()\n", 3, 13,
     ("graph input B", "edge mask")),
    ("E109", H + "state graph n: int = 0\n", 4, 13, ("`n`", "reserved")),
    ("E109", H + GX + "let N = 1\n", 5, 1, ("`N`",)),
    ("E109", H + "n = 3\n", 4, 1, ("`n`", "built in")),                        # writing a size
    ("E109", H + NA + "forall v { v = 1 }\n", 5, 12, ("`v`", "processor variable")),
    ("E110", H + "input node s: mask_one ~ uniform()\n", 4, 24, ("`uniform`", "mask_one")),
    # ---- expressions
    ("E201", H + GX + NA + "x = a\n", 6, 5, ("`a` is node data", "index it")),
    ("E201", H + GX + NA + "if a { x = 1 }\n", 6, 4, ("`a` is node data",)),
    ("E202", H + GX + NA + "x = a[0, 1]\n", 6, 5, ("`a`", "1 index, not 2")),
    ("E202", H + GX + "x = x[0]\n", 5, 5, ("`x`", "0 indices")),
    ("E203", H + GX + NA + "x = a[0.5]\n", 6, 7, ("integer", "float")),
    ("E204", H + "hint node p: pointer\nstate graph y: float = 0.0\ny = p[0] * 0.5\n", 6, 5,
     ("`p` is a pointer",)),
    ("E204", H + "hint node p: pointer\nstate graph y: float = 0.0\ny = sqrt(p[0])\n", 6, 10,
     ("`p` is a pointer",)),
    ("E205", H + GX + "x = true\n", 5, 5, ("bool", "int")),
    ("E205", H + GX + "if x { x = 1 }\n", 5, 4, ("boolean",)),
    ("E205", H + GX + "x = 1.5\n", 5, 5, ("float",)),
    ("E206", H + GX + "x = y + 1\n", 5, 5, ("unknown name", "`y`")),
    ("E206", H + GX + "y = 1\n", 5, 1, ("`y`",)),
    ("E206", H + NA + "forall v { a[v] = a[w] }\n", 5, 21, ("`w`",)),
    ("E207", H + GX + "x = frob(1)\n", 5, 5, ("unknown function", "`frob`")),
    ("E207", H + GX + "proc f() { x = 1 }\nx = f()\n", 6, 5, ("`f`",)),       # a proc as a value
    ("E207", H + GX + "x = abs(1, 2)\n", 5, 5, ("`abs`",)),
    # ---- writes
    ("E301", H + K + "forall v { key[v] = 0.0 }\n", 5, 12, ("`key` is an input",)),
    ("E301", H + K + "key = pos\n", 5, 1, ("`key`",)),
    ("E302", H + GX + "hint node h: mask_one = onehot(x)\nforall v { h[v] = false }\n", 6, 12,
     ("`h`", "view")),
    ("E303", H + GX + "state graph y: int = 0\nx, y = 1\n", 6, 1, ("2 targets", "1 value")),
    ("E303", H + GX + "state graph y: int = 0\nx, y += 1, 2\n", 6, 1, ("`+=`",)),
    # ---- concurrency
    ("E401", H + GX + "forall v { x = v }\n", 5, 12, ("`x`", "concurrently")),
    ("E401", H + NA + "state node t: int = 0\nforall v { a[t[v]] = v }\n", 6, 12, ("`a`",)),
    ("E401", H + NA + "forall v, u { a[v] = u }\n", 5, 15, ("`a`",)),
    ("E402", H + GX + "forall v { x = v by first }\n", 5, 21, ("unknown combiner", "`first`")),
    ("E402", H + GX + "forall v { x = v by argmin }\n", 5, 21, ("`by argmin`", "key")),
    ("E403", H + GX + "x = 1 by min\n", 5, 10, ("`by min`",)),
    ("E403", H + NA + "for i in 0 .. n { a[i] = 1 by max }\n", 5, 31, ("`by max`",)),
    ("E404", H + GX + "round { forall v { x = v by sum }\n forall v { x = v by max } }\n", 6, 13,
     ("`x`", "`by sum` (line 5)", "`by max`")),
    # ---- rounds
    ("E501", H + GX + "round { record }\n", 5, 9, ("`record`", "round")),
    ("E501", H + NA + "forall v { a[v] = 1; record }\n", 5, 22, ("`record`",)),  # record in forall
    ("E501", H + GX + "round { while x < 1 bound n { x = 1 } }\n", 5, 9, ("loops",)),
    ("E501", H + GX + "round { round { x = 1 } }\n", 5, 9, ("nest",)),
    ("E501", H + NA + "for i in 0 .. n { forall v { break } }\n", 5, 30, ("`break`", "forall")),
    ("E501", H + NA + "forall v { a[v] = 1; break }\n", 5, 22, ("`break`", "forall")),
    ("E502", H + NA + "round { forall v { forall u { a[v] = 1 } } }\n", 5, 20, ("nested",)),
    ("E503", H + GX + "break\n", 5, 1, ("`break`", "outside a loop")),
    ("E503", H + GX + "if x > 0 { break }\n", 5, 12, ("`break`",)),
    # ---- loops
    ("E601", H + GX + "while x < 3 bound x { x += 1 }\n", 5, 19, ("bound", "n and m")),
    ("E601", "algorithm t\nnodes m\ngraph complete\n", 2, 7, ("n",)),
    ("E602", H + GX + "state graph y: int = 3\nfor i in 0 .. y { x += 1 }\n", 6, 15,
     ("end of a range",)),
    ("E602", H + GX + NA + "for i in 0 .. a[0] { x = i }\n", 6, 15, ("end of a range",)),
    ("E602", H + GX + "for i in 0 .. n step x { x += i }\n", 5, 22, ("step reads data",)),
    ("E604", H + GX + "while x < 3 { x += 1 }\n", 5, 1, ("`while`", "bound")),
    ("E604", H + GX + "while true { x += 1 }\n", 5, 1, ("`while`",)),
    ("E606", H + GX + "for i in 0 .. n step 0 { x += i }\n", 5, 22, ("`0` is 0",)),
    ("E606", H + GX + "for i in 0 .. n step -1 { x += i }\n", 5, 22,
     ("`step -1` counts down", "`0 .. n` runs up")),
    ("E606", H + GX + "for i in 0 .. n step n - 8 { x += i }\n", 5, 22, ("changes with n",)),
    ("E606", H + GX + "for i in reversed 0 .. n step 2 { x += i }\n", 5, 31, ("`reversed`",)),
    ("E607", H + GX + NA + "for (u, v) in edges(a) { x += u }\n", 6, 21,
     ("edge array", "`a` is node data")),
    ("E607", H + GX + "input edge A: mask ~ erdos_renyi()\nfor (u, v) in nodes(A) { x += u }\n",
     6, 15, ("`edges(A)`", "`nodes(...)`")),
    # ---- procedures
    ("E701", H + GX + "f(1)\n", 5, 1, ("unknown procedure", "`f`")),
    ("E702", H + GX + "proc f(a) { x = a }\nf(1, 2)\n", 6, 1, ("`f` takes 1 argument", "not 2")),
    ("E703", H + GX + "proc f(a) { if a > 0 { f(a - 1) } }\nf(3)\n", 5, 1, ("`f`", "depth")),
    ("E703", H + GX + "proc f(a) depth n { for i in 0 .. 2 { f(a) } }\nf(1)\n", 5, 1,
     ("`f`", "invocations")),
    ("E704", H + GX + 'include "no_such_file.alg"\n', 5, 1, ("`no_such_file.alg`",)),
    ("E705", H + GX + 'include "bad.alg"\n', 5, 1, ("include cycle",)),
    ("E706", H + GX + "if x > 0 { proc f() { x = 1 } }\n", 5, 12, ("top level",)),
    ("E706", "proc f() { let y = 1 }\n", 1, 1, ("library",)),                 # no header
    ("E707", H + GX + "proc f() { x = 1 }\nproc f() { x = 2 }\n", 6, 1, ("`f`", "twice")),
    ("E708", H + GX + "proc f() { record }\nround { f() }\n", 5, 12, ("`f`", "inside a round",
                                                                      "records a frame")),
    ("E708", H + GX + "proc f(a) {\n  record\n  return a\n}\nforall v { x = f(v) by max }\n", 6,
     3, ("`f`", "inside a round")),                                             # a value too
    ("E708", H + GX + "proc f(a) depth n { if a > 0 { f(a - 1) } }\nforall v { f(v) }\n", 6, 12,
     ("recursive procedure `f`", "inside a round")),
    ("E709", H + GX + "return x\n", 5, 1, ("`return` outside a procedure",)),
    ("E709", H + GX + "proc f(a) {\n  for i in 0 .. n { return i }\n  return a\n}\nx = f(1)\n",
     6, 21, ("inside a loop",)),
    ("E709", H + GX + "proc f(a) {\n  if a > 0 { return 1 }\n}\nx = f(1)\n", 5, 1,
     ("some paths only",)),
    ("E710", H + GX + "proc f(a) {\n  return a\n}\nif x > 0 and f(x) > 2 { x = 1 }\n", 8, 14,
     ("right of `and`",)),
    ("E710", H + GX + NA + "proc f(a) {\n  return a\n}\nx = sum(f(a[u]) for u in nodes)\n",
     9, 9, ("aggregation",)),
    ("E711", H + GX + "proc f(a) depth n {\n  if a > 0 { return f(a - 1) } else { return 0 }\n}\n"
     "x = f(3)\n", 5, 1, ("`f` returns a value and is recursive",)),
]


def _errors(src: str, tmp_path: Path) -> list:
    p = tmp_path / "bad.alg"
    p.write_text(src, encoding="utf-8")  # E705: `bad.alg` includes itself
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, str(p))
    return e.value.diagnostics


@pytest.mark.parametrize("case", E_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(E_CASES)])
def test_error_code(case, tmp_path: Path) -> None:
    code, src, line, col, fragments = case
    ds = _errors(src, tmp_path)
    assert len(ds) == 1 or code in ("E703",), [d.concise() for d in ds]
    d = ds[0]
    assert (d.code, d.span.line, d.span.column) == (code, line, col), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.message)
    assert d.severity.value == "error"


# ------------------------------------------------------------------ lint (L, W)
LINT_HEAD = H + K
LINT_BODY = "hint node a: scalar\nrecord\nforall v { a[v] = key[v] }\nrecord\n"
L_CASES: list[tuple[str, str, int, int, tuple[str, ...]]] = [
    ("L101", LINT_HEAD + "state graph unused: int = 0\n" + LINT_BODY, 5, 1, ("`unused`",)),
    ("L101", H + K + "input node other: scalar ~ uniform()\n" + LINT_BODY, 5, 1, ("`other`",)),
    ("L102", LINT_HEAD + "hint node c: scalar = key\n" + LINT_BODY, 5, 1, ("`c`",)),
    ("L102", LINT_HEAD + "hint node c: scalar := 0.0\nhint node a: scalar\nrecord\n"
     "forall v { a[v] = key[v] + c[v] }\nrecord\n", 5, 1, ("`c`",)),
    ("L103", LINT_HEAD + "output graph r: scalar\n" + LINT_BODY, 5, 1, ("`r`",)),
    ("L104", LINT_HEAD + "hint node a: scalar\nstate graph x: int = 0\nrecord\n"
     "while true bound n {\n  forall v { a[v] = key[v] + float(x) }\n  x += 1\n  record\n}\n",
     8, 1, ("`while true`",)),
    ("L105", LINT_HEAD + "hint node a: scalar\noutput node o: scalar\n"
     "forall v { a[v] = key[v] }\nforall v { o[v] = a[v] }\n", 5, 1, ("`a`", "record")),
    ("L106", LINT_HEAD + "hint edge e: mask_one\nrecord\nforall v, u { e[v, u] = v == 0 and u == 1 }\n"
     "record\n", 5, 1, ("`e`",)),
    ("L107", "algorithm t\nnodes n\ngraph path\n" + K + "hint node a: scalar\nrecord\n"
     "forall v where v >= 2 { a[v] = key[v - 2] }\nrecord\n", 7, 32,
     ("`key[v - 2]`", "graph path", "`graph complete`")),
    ("W201", LINT_HEAD + "state graph s: float = 0.0\noutput graph o: scalar\nrecord\n"
     "s = key[0]\no = s\nrecord\n", 1, 1, ("1/n",)),
    ("W202", H + K + "state graph i: int = 0\nhint graph h: scalar\nrecord\n"
     "while i < n bound 2 * log2(n) + 24 {\n  i = i + 1\n  h = key[0] + float(i)\n  record\n}\n",
     8, 1, ("2 * log2(n) + 24",)),
]


@pytest.fixture(autouse=True)
def _no_lint_cache(monkeypatch) -> None:
    monkeypatch.setenv("ALGSPEC_NO_CACHE", "1")


@pytest.mark.parametrize("case", L_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(L_CASES)])
def test_lint_code(case) -> None:
    code, src, line, col, fragments = case
    found = lint_source(src, "lint.alg", sample=code == "W202")
    ds = [d for d in found if d.code == code]
    assert len(ds) == 1, [d.concise() for d in found]
    d = ds[0]
    assert d.severity.value == "warning" and d.path == "lint.alg"
    if code != "W201":  # W201 names the program when it has no loop
        assert (d.span.line, d.span.column) == (line, col), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.message)
    assert not [x for x in found if x.severity.value == "error"], [x.concise() for x in found]


# ------------------------------------------------------------------ run time (R)
S = "input graph s: scalar ~ uniform_scalar()\n"
# (code, source, inputs for trace, line, fragments)
R_CASES: list[tuple[str, str, dict, int, tuple[str, ...]]] = [
    ("R101", H + K + S + "state graph x: float = 0.0\nx = key[int(s)]\n",
     {"key": [0.1, 0.2, 0.3], "s": 7.0}, 7, ("`key`",)),
    ("R101", H + K + S + "state node a: float\na[int(s) - 1] = 1.0\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.0}, 7, ("`a`",)),
    ("R101", H + K + S + "output graph p: pointer\np = int(s)\n",
     {"key": [0.1, 0.2, 0.3], "s": 5.0}, 6, ("`p`",)),
    ("R102", H + K + S + "state graph x: int = 0\nwhile x < int(s) bound n { x += 1 }\n",
     {"key": [0.1, 0.2, 0.3], "s": 5.0}, 7, ("3",)),
    ("R102", H + K + S + "state graph x: int = 0\nfor j in 0 .. int(s) bound 2 { x += 1 }\n",
     {"key": [0.1, 0.2, 0.3], "s": 5.0}, 7, ("bound",)),
    ("R103", H + K + S + "state graph x: float = 0.0\nx = min(key[u] for u in nodes if key[u] > s)\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.9}, 7, ("default",)),
    ("R104", H + K + S + "state graph x: int = 0\nx = 10 // int(s)\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.0}, 7, ("division",)),
    ("R104", H + K + S + "state graph x: int = 0\nx = 10 % int(s)\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.0}, 7, ("zero",)),
    ("R105", H + K + S + "hint node c: categorical(3)\nrecord\nforall v { c[v] = int(s) }\nrecord\n",
     {"key": [0.1, 0.2, 0.3], "s": 3.0}, 9, ("`c`", "3 categories")),
    ("R106", H + K + S + "hint node h: mask_one\nforall v { h[v] = key[v] >= s }\nrecord\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.0}, 8, ("`h`", "one-hot")),
    ("R106", H + K + S + "output node o: mask_one\nforall v { o[v] = key[v] >= s }\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.9}, None, ("`o`",)),
    ("R107", H + K + "state graph done: bool = false\n"
     "while not done bound 0 whp { done = rand() < 0.5 }\n",
     {"key": [0.1, 0.2, 0.3]}, 6, ("whp",)),
    ("R108", H + K + S + "state graph x: int = 0\n"
     "proc f(k) depth 2 { if k > 0 { x += 1; f(k - 1) } }\nf(int(s))\n",
     {"key": [0.1, 0.2, 0.3], "s": 5.0}, None, ("`f`",)),
    ("R109", H + K + "output node o: scalar = x\nstate node x: int\n"
     "forall v { x[v] = int(1.0 / (key[v] - 0.75)) }\n", {"key": [0.25, 0.75, 0.5]}, 7, ("int",)),
    ("R110", H + K + S + "hint node h: mask\nif key[0] > s { record }\n",
     {"key": [0.1, 0.2, 0.3], "s": 0.5}, 7, ("`record`", "frame")),
    ("R111", H + K + S + "state graph x: int = 0\nfor j in int(s) .. 0 step 1 bound n { x += 1 }\n",
     {"key": [0.1, 0.2, 0.3], "s": 2.0}, 7, ("2 .. 0 step 1", "away from its end")),
    ("R111", H + K + S + "state graph x: int = 0\nfor j in 0 .. n step n // 8 { x += j }\n",
     {"key": [0.1, 0.2, 0.3], "s": 2.0}, 7, ("`n // 8` is 0 at n = 3",)),
    ("R112", H + K + S + "state graph x: int = 0\nstate graph y: int = 0\nfor j in 0 .. n {\n"
     "  y = 0\n  while y < int(s) total bound n { y += 1; x += 1 }\n}\n",
     {"key": [0.1, 0.2, 0.3], "s": 2.0}, 10,
     ("more than 3 iterations over the run", "`total bound n` at n = 3")),
    ("R113", H + K + "output node o: scalar = float(a)\n" + NA
     + "forall v { a[v] = rand_int(v + 1, n) }\n", {"key": [0.1, 0.2, 0.3]}, 7,
     ("`rand_int(low, high)`", "high <= low")),
    ("R114", H + K + S + "state graph x: float = 0.0\nx = s // key[1]\n",
     {"key": [0.1, 0.25, 0.3], "s": 3.0}, 7, ("right operand of `//` holds 0.25",)),
    ("R102", H.replace("complete", "path") + "input edge W: mask ~ erdos_renyi()\n"
     "state graph x: int = 0\nfor (u, v) in edges(W) { x += 1 }\n",
     {"W": np.ones((3, 3))}, 6, ("more than 7 iterations", "`W` has 9 edges")),
]


# Faults of a whole batch, not of one sample: (code, source, inputs, line, fragments).
BATCH_CASES: list[tuple[str, str, dict, int, tuple[str, ...]]] = [
    ("R115", H.replace("nodes n", "nodes n + 10 ** 12") + "hint node h: scalar\n"
     "forall v { h[v] = 1.0 }\nrecord\n", {"n": 3}, 2,
     ("needs about", "of memory, more than the")),
    ("R116", H + "state graph x: int = 0\noutput graph y: scalar = float(x)\n"
     "for k in 0 .. 10 ** 12 { x += 1 }\n", {"n": 3}, 6,
     ("passed its time limit of 0.3 s in this `for` loop after",)),
]


@pytest.mark.parametrize("case", BATCH_CASES, ids=[c[0] for c in BATCH_CASES])
def test_batch_code(case) -> None:
    from algspec.interp.deadline import time_limit

    code, src, inputs, line, fragments = case
    alg = algspec.load_source(src, "rt.alg")
    with pytest.raises(RuntimeFault) as e, time_limit(0.3):  # as lint and compile run
        alg.trace(**inputs)
    d = e.value.diagnostic
    assert (d.code, d.path, d.span.line) == (code, "rt.alg", line), d.concise()
    assert "(sample" not in d.message
    for f in fragments:
        assert f in d.message, (f, d.message)


@pytest.mark.parametrize("case", R_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(R_CASES)])
def test_runtime_code(case) -> None:
    code, src, inputs, line, fragments = case
    alg = algspec.load_source(src, "rt.alg")
    with pytest.raises(RuntimeFault) as e:
        alg.trace(**{k: np.asarray(v) for k, v in inputs.items()})
    d = e.value.diagnostic
    assert d.code == code, d.concise()
    assert d.path == "rt.alg" and "(sample 0)" in d.message
    if line is not None:
        assert d.span.line == line, d.concise()
    assert 1 <= d.span.line <= src.count("\n") and d.span.column >= 1
    for f in fragments:
        assert f in d.message, (f, d.message)


def test_runtime_fault_through_the_sampler() -> None:
    src = H + K + "state graph x: int = 0\nwhile x < 100 bound n { x += 1 }\n"
    alg = algspec.load_source(src, "rt.alg")
    with pytest.raises(RuntimeFault) as e:
        alg.sampler(length=4, num_samples=2, seed=0).next(2)
    d = e.value.diagnostic
    assert (d.code, d.span.line, d.span.column) == ("R102", 6, 1), d.concise()


# ------------------------------------------------------------------ static analysis (E605)
# Files that load and run, but whose size expressions have no class: `static_efficiency()`
# raises the diagnostic, and lint reports it.
A_CASES: list[tuple[str, str, int, int, tuple[str, ...]]] = [
    ("E605", H + GX + "while x < 3 bound 2 ** n { x += 1 }\n", 5, 19,
     ("`2 ** n`", "faster than any power of n")),
    ("E605", "algorithm t\nnodes n + floor(2 ** sqrt(log2(n)))\ngraph complete\n", 2, 17,
     ("`2 ** sqrt(log2(n))`", "slower than n")),
]


@pytest.mark.parametrize("case", A_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(A_CASES)])
def test_analysis_code(case) -> None:
    code, src, line, col, fragments = case
    alg = algspec.load_source(src, "a.alg")
    with pytest.raises(AlgError) as e:
        alg.static_efficiency()
    (d,) = e.value.diagnostics
    assert (d.code, d.path, d.span.line, d.span.column) == (code, "a.alg", line, col), d.concise()
    for f in fragments:
        assert f in d.message, (f, d.message)
    assert d.severity.value == "error"
    assert [x.concise() for x in lint_source(src, "a.alg", sample=False)
            if x.code == code] == [d.concise()]


# ------------------------------------------------------------------ coverage
# The YAML form of a file (`t.yaml`): what a hand-written one gets wrong.
Y_CASES: list[tuple[str, str, int, int, tuple[str, ...]]] = [
    ("E005", "algorithm: t\nnodes: n\ngraph: complete\nbdy: |\n  record\n", 4, 1,
     ("unknown key 'bdy'",)),
    ("E005", "algorithm: t\nnodes: n\ngraph: complete\ndata:\n  - input: node k\n", 5, 5,
     ("one line of text",)),
    ("E005", "algorithm t\nnodes n\ngraph complete\n", 1, 1, ("expected a mapping",)),
]


@pytest.mark.parametrize("case", Y_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(Y_CASES)])
def test_yaml_form_code(case) -> None:
    code, src, line, col, fragments = case
    with pytest.raises(AlgError) as e:
        algspec.load_source(src, "t.yaml")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.column, d.path) == (code, line, col, "t.yaml")
    for f in fragments:
        assert f in d.message, (f, d.message)


# codes about the file itself, not its text: (code, make the file in a folder, fragment)
FILE_CASES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("E006", lambda d: (os.mkfifo(d / "pipe.alg"), d / "pipe.alg")[1], "named pipe"),
]


@pytest.mark.parametrize("case", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_file_code(case, tmp_path: Path) -> None:
    code, make, fragment = case
    path = make(tmp_path)
    with pytest.raises(AlgError) as e:
        algspec.load(path)
    (d,) = e.value.diagnostics
    assert (d.code, d.path) == (code, str(path)) and fragment in d.message


def test_every_registered_code_has_a_triggering_program() -> None:
    covered = {c[0] for c in E_CASES} | {c[0] for c in L_CASES} | {c[0] for c in R_CASES}
    covered |= {c[0] for c in BATCH_CASES}
    covered |= {c[0] for c in A_CASES} | {c[0] for c in Y_CASES} | {c[0] for c in FILE_CASES}
    assert set(CODES) - covered == set(), "add a program for each new code"
    assert covered - set(CODES) == set()


# ------------------------------------------------------- mistakes beyond one code
CRLF = (H + GX + "x = y\n").replace("\n", "\r\n")
MISTAKES: dict[str, tuple[str, str, int, int]] = {
    # name -> (source, code, line, column)
    "keyword_typo_forall": (H + NA + "foral v { a[v] = 1 }\n", "E002", 5, 7),
    "keyword_typo_header": ("algoritm t\nnodes n\ngraph complete\n", "E002", 1, 1),
    "missing_close_brace": (H + GX + "if x < 1 {\n x = 2\n", "E002", 6, 7),
    "missing_open_brace": (H + GX + "if x < 1\n x = 2\n}\n", "E002", 5, 9),
    "extra_close_brace": (H + GX + "x = 1\n}\n", "E002", 6, 1),
    "python_indentation": (H + GX + "if x < 1:\n    x = 2\n", "E002", 5, 9),
    "brace_on_next_line": (H + GX + "if x < 1\n{\n x = 2\n}\n", "E002", 5, 9),
    "elif": (H + GX + "if x < 1 { x = 2 } elif x < 2 { x = 3 }\n", "E002", 5, 25),
    "python_range": (H + GX + "for i in range(n) { x += i }\n", "E002", 5, 19),
    "unicode_identifier": (H + "state graph α: int = 0\n", "E001", 4, 13),
    "tab_indented_error": (H + GX + "if x < 1 {\n\tx = 2\n\ty = 3\n}\n", "E206", 7, 2),
    "windows_line_endings": (CRLF, "E206", 5, 5),
    "very_long_line": (H + GX + "x = 1;" * 2000 + " x = y\n", "E206", 5, 12006),
    "declaration_after_statements": (H + GX + "x = 1\nhint node h: mask\n", "E002", 6, 1),
    "duplicate_across_stages": (H + K + "output node key: scalar\n", "E101", 5, 13),
    "round_without_braces": (H + GX + "round x = 1\n", "E002", 5, 7),
    "record_inside_forall": (H + NA + "forall v { record }\n", "E501", 5, 12),
    "break_in_forall": (H + NA + "while true bound n { forall v { break } }\n", "E501", 5, 33),
    "recursion_without_bound": (H + GX + "proc f(a) { f(a) }\nf(1)\n", "E703", 5, 1),
    "include_missing": (H + GX + 'include "lib/none.alg"\n', "E704", 5, 1),
    "only_comments": ("# a file of comments\n# and nothing else\n", "E003", 1, 1),
    "header_only": ("algorithm t\n", "E002", 1, 12),
    "missing_graph_line": ("algorithm t\nnodes n\nstate graph x: int = 0\n", "E002", 3, 1),
    "string_literal": (H + GX + 'x = "one"\n', "E002", 5, 5),
    "keyword_argument": (H + GX + "x = min(1, b = 2)\n", "E002", 5, 14),
    "unclosed_paren": (H + GX + "x = (1 + 2\n", "E002", 5, 11),
    "trailing_operator": (H + GX + "x = 1 +\n", "E002", 5, 8),
    "number_typo": (H + GX + "x = 1.2.3\n", "E001", 5, 8),
    "assign_to_index": (H + NA + "forall v { index = 3 }\n", "E109", 5, 12),
    "whp_on_a_for": (H + GX + "for i in 0 .. n bound n whp { x += 1 }\n", "E002", 5, 25),
    "edge_loop_one_name": (H + GX + "input edge A: mask ~ erdos_renyi()\n"
                           "for e in edges(A) { x += 1 }\n", "E002", 6, 19),
    "bound_before_step": (H + GX + "for i in 0 .. n bound n step 2 { x += i }\n", "E002", 5, 25),
}


@pytest.fixture(scope="module")
def mistake_files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("mistakes")
    for name, (src, *_rest) in MISTAKES.items():
        (d / f"{name}.alg").write_bytes(src.encode("utf-8"))
    return d


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_mistake_in_process(name: str, tmp_path: Path) -> None:
    src, code, line, col = MISTAKES[name]
    p = tmp_path / f"{name}.alg"
    p.write_bytes(src.encode("utf-8"))
    with pytest.raises(AlgError) as e:
        algspec.load(p)
    d = e.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.column) == (code, line, col), d.concise()


def test_mistakes_through_the_cli(mistake_files: Path) -> None:
    """One process for all files: each gives its `path:line:col: CODE`, exit 1, no traceback."""
    paths = [str(mistake_files / f"{n}.alg") for n in sorted(MISTAKES)]
    r = subprocess.run([sys.executable, "-m", "algspec.cli", "lint", *paths],
                       check=False, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "ALGSPEC_NO_CACHE": "1"})
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "Traceback" not in out, out
    for name in sorted(MISTAKES):
        _, code, line, col = MISTAKES[name]
        want = f"{mistake_files / name}.alg:{line}:{col}: {code} "
        assert want in out, (want, out)
