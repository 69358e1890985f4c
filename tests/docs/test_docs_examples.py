"""Every code block of README.md and docs/*.md works as written.

Users copy these blocks, so each one is run the way a user would: `.alg` programs
and fragments are loaded and linted, Python snippets executed (every value a
`# comment` states is asserted), `algspec` commands run through the real entry
point in a scratch folder. Blocks are found and classified by content, so a new
or edited block that no rule recognises fails `test_every_block_is_covered`
instead of silently dropping out of the tests.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.lint import lint_source

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]


# --------------------------------------------------------------------------- blocks

@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # for messages only; blocks are identified by content
    lang: str
    text: str

    @property
    def id(self) -> str:
        lines = [ln for ln in self.text.splitlines() if ln.strip()]
        first = next((ln for ln in lines if not re.match(r"(import|from) ", ln)), lines[0])
        return f"{self.doc}:{re.sub(r'[^A-Za-z0-9_.]+', '_', first.strip())[:48]}"


def doc_blocks() -> list[Block]:
    """Fenced blocks and indented (4-space) code blocks of every doc."""
    out: list[Block] = []
    for doc in DOCS:
        lines = (ROOT / doc).read_text().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^(```+)(\S*)\s*$", lines[i])
            if m:
                j = i + 1
                while not lines[j].startswith(m.group(1)):
                    j += 1
                out.append(Block(doc, i + 1, m.group(2), "\n".join(lines[i + 1:j]) + "\n"))
                i = j + 1
                continue
            prev = lines[i - 1] if i else ""
            if lines[i].startswith("    ") and lines[i].strip() and not prev.strip():
                j = i
                while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                    j += 1
                text = textwrap.dedent("\n".join(lines[i:j]).rstrip("\n")) + "\n"
                out.append(Block(doc, i + 1, "indented", text))
                i = j
                continue
            i += 1
    return out


DECL = re.compile(r"^(input|output|hint|state|private)\s+(node|edge|graph)\s+(\w+)", re.MULTILINE)
STMT = re.compile(r"^(proc|forall|while|for|if|round|record|let|include)\b")
DIAG = re.compile(r"^(\S+):(\d+):(\d+): ([ELWR]\d{3}) (.*)$")
ENV = re.compile(r"^(?:[A-Z_]+=\S*\s+)+")  # `NAME=value ` before a command


def classify(b: Block) -> str:
    """The kind of a block, from its content alone; 'unknown' fails the coverage test."""
    code = [ln for ln in b.text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    joined = [ln for ln in re.sub(r"\\\n\s*", " ", b.text).splitlines()
              if ln.strip() and not ln.lstrip().startswith("#")]  # `\` continuations joined
    if b.lang in ("bash", "sh", "shell", "console") or all(
            re.match(r"^(\$ |algspec |scripts/|nice |python )", ENV.sub("", ln)) for ln in joined):
        return "shell"
    if b.lang == "json":
        return "text-record"
    if re.match(r"^ood:\s*$", code[0]):
        return "grid-ood"
    if code[0].startswith("plan ") and len(code) == 1:
        return "plan-line"
    if b.lang == "yaml" and re.search(r"^algorithm: ", b.text, re.MULTILINE):
        return "alg-yaml-excerpt" if re.search(r"^\s*\.\.\.\s*$", b.text, re.MULTILINE) else "alg-yaml"
    if b.lang == "python" and code[0].startswith("@dataclass"):
        return "contract"
    if b.lang == "python":
        return "python"
    if any("->" in ln for ln in code) and ".alg" in b.text:
        return "diagram"
    if re.search(r"^algorithm\s+\w+", b.text, re.MULTILINE):
        return "alg-program"
    if DECL.match(code[0]):
        return "alg-declarations"
    if STMT.match(code[0]):
        return "alg-statements"
    if all(re.match(r"^(any|all|min|max|sum|count|argmin|argmax)\(", ln) for ln in code):
        return "alg-expressions"
    return "unknown"


BLOCKS = doc_blocks()


def of_kind(kind: str) -> list[Block]:
    return [b for b in BLOCKS if classify(b) == kind]


def params(kind: str):
    return [pytest.param(b, id=b.id) for b in of_kind(kind)]


# --------------------------------------------------------------------------- .alg fragments

HEADER = "algorithm doc_example\nnodes n\ngraph input adj\n"
# The data the docs' fragments read, with CLRS's conventions (A a scalar adjacency,
# masks, keys); a fragment gets only the declarations it refers to.
CONTEXT = {
    "A": "input edge A: scalar ~ clrs_erdos_renyi(directed = true)",
    "adj": "input edge adj: mask = adjacency(A)",
    "key": "input node key: scalar ~ uniform()",
    "x": "input node x: scalar ~ uniform()",
    "w": "input edge w: scalar ~ clrs_erdos_renyi(weighted = true)",
    "fwd": "input node fwd: mask ~ uniform_int()",
    "undiscovered": "input node undiscovered: mask ~ uniform_int()",
    "below": "input node below: mask ~ uniform_int()",
    "c": "input node c: mask ~ uniform_int()",
    "active": "input node active: mask ~ uniform_int()",
    "a": "hint node a: scalar := key",
    "r": "hint node r: scalar := 0.0",
}
IDENT = re.compile(r"[A-Za-z_]\w*")
BINDER = re.compile(r"\b(?:let|for|forall)\s+(\w+(?:\s*,\s*\w+)*)|\bproc\s+\w+\s*\(([^)]*)\)")


def free_names(text: str) -> set[str]:
    """Identifiers a fragment uses minus those it binds (`let`, loop and proc variables)."""
    text = re.sub(r"#.*", "", text)
    bound: set[str] = set()
    for m in BINDER.finditer(text):
        for g in m.groups():
            bound |= set(IDENT.findall(g or ""))
    return set(IDENT.findall(text)) - bound


def embed(decls: str = "", body: str = "") -> str:
    """The one minimal program a fragment is checked in.

    The fragment's own declarations come first (line 4, as the docs' `bad.alg`), then
    the CONTEXT data the fragment reads (closed under the definitions' own reads) and
    the interconnection graph, then the body. A `{ ... }` elision is an empty block
    (`{ break }` for a loop's, so the loop ends). The body records a frame first, as
    every run of a program with hints must (R110).
    """
    own = {m.group(3) for m in DECL.finditer(decls)}
    need = {"A", "adj"} | (free_names(decls + body) & CONTEXT.keys())
    while more := {k for d in need for k in free_names(CONTEXT[d].split(":", 1)[1])
                   if k in CONTEXT} - need:
        need |= more
    context = "".join(CONTEXT[k] + "\n" for k in CONTEXT if k in need - own)
    body = re.sub(r"^(\s*(?:while|for)\b.*)\{ \.\.\. \}", r"\1{ break }", body, flags=re.MULTILINE)
    return HEADER + decls + context + "record\n" + body.replace("{ ... }", "{ }")


def errors(source: str, path: str = "doc_example.alg") -> list[str]:
    return [d.concise() for d in lint_source(source, path) if d.severity.value == "error"]


@pytest.mark.parametrize("block", params("alg-program"))
def test_alg_program_loads_and_lints_clean(block: Block) -> None:
    """A complete program in the docs compiles and lint finds no error in it."""
    alg = algspec.load_source(block.text, "doc.alg")
    assert errors(block.text) == []
    shipped = ROOT / "algorithms" / f"{alg.name}.alg"
    if shipped.exists():  # the README's program is the shipped file's, comments aside
        assert alg.spec == algspec.load(shipped).spec


@pytest.mark.parametrize("block", params("alg-yaml"))
def test_alg_yaml_form_is_the_shipped_program(block: Block) -> None:
    """An algorithm shown in its YAML form is the shipped file's program (same spec hash)."""
    from algspec.sampling.identity import spec_hash

    alg = algspec.load_source(block.text, "doc.yaml")
    shipped = algspec.load(ROOT / "algorithms" / f"{alg.name}.alg")
    assert spec_hash(alg.spec, alg.ir) == spec_hash(shipped.spec, shipped.ir)


@pytest.mark.parametrize("block", params("alg-yaml-excerpt"))
def test_alg_yaml_excerpt_is_the_shipped_files_form(block: Block, tmp_path: Path) -> None:
    """An excerpt of a YAML form (`...` marks elided lines) has only lines of the shipped
    file's form, as `algspec convert` writes it, in their order."""
    name = re.search(r"^algorithm: (\w+)", block.text, re.MULTILINE).group(1)
    (src,) = [p for p in (ROOT / "algorithms").rglob(f"{name}.alg")]
    r = algspec_cli(["convert", str(src), "--out", str(tmp_path / "f.yaml")], ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    written = [ln.strip() for ln in (tmp_path / "f.yaml").read_text().splitlines()]
    k = 0
    for ln in (x.strip() for x in block.text.splitlines()):
        if ln and ln != "...":
            shown = (ln.split("  # ")[0] if ln.startswith("- '") else ln).removesuffix("...").rstrip()
            while k < len(written) and not written[k].startswith(shown):
                k += 1
            assert k < len(written), ln


@pytest.mark.parametrize("block", params("alg-declarations"))
def test_alg_declarations(block: Block) -> None:
    """Declarations shown alone are accepted; one followed by a diagnostic line gives exactly it."""
    decls = "".join(ln + "\n" for ln in block.text.splitlines() if DECL.match(ln))
    stated = [m for ln in block.text.splitlines() if (m := DIAG.match(ln))]
    source = embed(decls)
    if not stated:
        assert errors(source) == []
        algspec.load_source(source)
        return
    for m in stated:  # e.g. `bad.alg:4:24: E110 ...`: the file is named and numbered as stated
        found = [d.concise() for d in lint_source(source, m.group(1))]
        assert m.group(0) in found, found
        with pytest.raises(algspec.AlgError, match=m.group(4)):
            algspec.load_source(source, m.group(1))


@pytest.mark.parametrize("block", params("alg-statements"))
def test_alg_statements(block: Block) -> None:
    """Statements (and procedures) shown alone compile, lint clean and run."""
    source = embed(body=block.text)
    assert errors(source) == [], source
    algspec.load_source(source).sample(8, batch_size=4, seed=0)


@pytest.mark.parametrize("block", params("alg-expressions"))
def test_alg_expressions(block: Block) -> None:
    """Each expression of a listing is valid in a node processor (`...` marks elided ones)."""
    exprs = [e.strip() for ln in block.text.splitlines() for e in re.split(r"\s{3,}", ln)
             if e.strip() and "..." not in e]
    assert len(exprs) >= 4
    for e in exprs:
        source = embed(body=f"forall v {{ let t = {e} }}\n")
        assert errors(source) == [], (e, source)


def test_procedure_example_sorts() -> None:
    """The README's quicksort procedure sorts `a` (recursion within its declared bounds)."""
    block = next(b for b in of_kind("alg-statements") if "proc qsort" in b.text)
    alg = algspec.load_source(embed(body=block.text).replace(
        "hint node a: scalar := key", "hint node a: scalar := key\noutput node s: scalar = a"))
    key = np.random.default_rng(0).random(9)
    out, _ = alg.trace(key=key, A=np.zeros((9, 9)))
    np.testing.assert_array_equal(out, np.sort(key).astype(out.dtype))


# --------------------------------------------------------------------------- diagrams, contracts

@pytest.mark.parametrize("block", params("diagram"))
def test_diagram_names_existing_modules(block: Block) -> None:
    """Every module a layer diagram names exists (`dir/` then `file.py` lines under it)."""
    base = None
    for ln in block.text.splitlines():
        m = re.match(r"^\s+([a-z_]+\.(?:py|lark))\s", ln)
        if m and base is not None:
            assert (base / m.group(1)).exists(), (base, m.group(1))
        for k, p in enumerate(re.findall(r"algspec/[\w/]+(?:\.\w+)?", ln)):
            assert (ROOT / p).exists(), p
            if k == 0 and re.match(r"^\s*(->\s*)?algspec/", ln):  # the layer this line opens
                base = ROOT / p if (ROOT / p).is_dir() else (ROOT / p).parent


def test_trajectories_contract(monkeypatch) -> None:
    """ARCHITECTURE's `Trajectories` is the real dataclass, with the stated shapes."""
    import dataclasses
    import typing

    from algspec.interp import Trajectories
    block = next(b for b in of_kind("contract") if "class Trajectories" in b.text)
    import types
    module = types.ModuleType("docs_contract")  # dataclass looks its module up
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec("from dataclasses import dataclass\nimport numpy as np\n" + block.text, module.__dict__)  # noqa: S102
    ns = module.__dict__
    assert ([f.name for f in dataclasses.fields(ns["Trajectories"])]
            == [f.name for f in dataclasses.fields(Trajectories)])
    assert typing.get_type_hints(ns["Trajectories"]) == typing.get_type_hints(Trajectories)
    t = algspec.load(ROOT / "algorithms" / "oets.alg").sample(8, batch_size=3, seed=0)
    assert list(t.spec) == ["pos", "key", "pred", "pred_h", "swap", "odd"]
    assert all(v.dtype == np.float32 and v.shape == (3, 8) for v in t.inputs.values())
    T = int(t.lengths.max())
    assert t.hints["swap"].shape == (T, 3, 8, 8) and t.hints["odd"].shape == (T, 3)
    assert t.lengths.shape == (3,) and t.lengths.dtype.kind == "f"


# --------------------------------------------------------------------------- shown data

@pytest.mark.parametrize("block", params("text-record"))
def test_text_record_has_the_written_form(block: Block, tmp_path: Path) -> None:
    """A CLRS-Text record shown is what `algspec text` writes for its algorithm and length:
    the same keys, auxiliary fields and prompt layout (the drawn numbers aside)."""
    shown = json.loads(block.text)
    aux = shown["auxiliary"]
    r = algspec_cli(["text", f"algorithms/clrs/{aux['algorithm']}.alg", "--length", str(aux["length"]),
                     "--num", "1", "--seed", str(aux["seed"]), "--out", str(tmp_path / "t")], ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    written = json.loads((tmp_path / "t" / "data.jsonl").read_text().splitlines()[0])
    assert written.keys() == shown.keys() and written["auxiliary"] == aux
    numbers = re.compile(r"-?\d+\.\d+")
    assert numbers.sub("X", written["prompt"]) == numbers.sub("X", shown["prompt"])


@pytest.mark.parametrize("block", params("grid-ood"))
def test_grid_ood_section_is_accepted(block: Block) -> None:
    """A grid's `ood:` section shown is one the grid loader accepts, with the values shown."""
    import yaml

    from algspec.training.grid import _load_ood

    raw = yaml.safe_load(block.text)["ood"]
    plan = _load_ood(raw, Path("doc.yaml"))
    assert list(plan.sizes) == raw["sizes"] and list(plan.families) == raw["families"]


@pytest.mark.parametrize("block", params("plan-line"))
def test_memory_plan_line_is_the_printed_form(block: Block) -> None:
    """A memory-plan line shown is the form `plan_line` prints for the plan it describes."""
    from algspec.nn.memory import MemoryPlan
    from algspec.training.grid_progress import plan_line

    m = re.match(r"^plan (\S+ h\d+): (\d+) seeds: (\d+) per program \(\d+ programs\), "
                 r"remat (on|off), ([\d.]+) GB of ([\d.]+) GB$", block.text.strip())
    assert m, block.text
    plan = MemoryPlan(seeds=int(m[2]), per_program=int(m[3]), remat=m[4] == "on",
                      nbytes=int(float(m[5]) * 1e9), budget=int(float(m[6]) * 1e9))
    assert plan_line(m[1], plan) == block.text.strip()


# --------------------------------------------------------------------------- Python snippets

RUNNER = r"""
import ast, contextlib, io, json, sys
src, checks = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
ns, _v, _out = {"__name__": "__main__"}, {}, {}
ns["_v"], ns["_out"] = _v, _out
for node in ast.parse(src).body:
    key = " ".join(ast.get_source_segment(src, node).split())
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        if isinstance(node, ast.Expr):
            _v[key] = eval(compile(ast.Expression(node.value), "<doc>", "eval"), ns)
        else:
            exec(compile(ast.Module([node], []), "<doc>", "exec"), ns)
    _out[key] = buf.getvalue()
for key, check in checks.items():
    exec(check, ns)
print("ALL CHECKS RAN", len(checks))
"""

# Per snippet (found by a line it contains): statement -> the check of what its
# `# comment` (or the text around it) states. Every commented statement needs one.
PY_CHECKS: dict[str, dict[str, str]] = {
    'alg = algspec.load("algorithms/parallel_search.alg")': {
        "alg.spec": """
v = _v["alg.spec"]
assert list(v)[:2] == ["pos", "key"] and list(v)[-1] == "rank", v
assert v["pos"] == ("input", "node", "scalar") and v["rank"] == ("output", "graph", "pointer")
""",
        "out, probes = alg.trace(key=np.sort(np.random.rand(8)), target=0.5)": """
key = probes["input"]["node"]["key"]["data"]
assert set(probes) == {"input", "output", "hint"} and key.shape == (9,)  # nodes n + 1
assert out == int(np.argmax(np.append(key[:8], 1.0) >= 0.5))
assert probes["output"]["graph"]["rank"]["data"] == out
""",
        "sampler = alg.sampler(length=16, num_samples=1000, seed=0)": """
import clrs
assert isinstance(sampler, clrs.Sampler)
""",
        "feedback = sampler.next(32)": """
assert isinstance(feedback, clrs.Feedback)
h = feedback.features.hints[0].data
assert h.shape[1:] == (32, 17) and h.dtype == np.float32
assert feedback.features.lengths.dtype == np.float64
""",
        "algspec.register(alg)": """
s, spec = clrs.build_sampler("parallel_search", num_samples=8, length=16, seed=0)
assert spec == alg.spec and s.next(4).features.lengths.shape == (4,)
""",
        "alg.static_efficiency().capacity": 'assert str(_v["alg.static_efficiency().capacity"]) == "n"',
    },
    's = algspec.load("algorithms/kosaraju.alg").static_efficiency()': {
        "print(s.capacity, s.node_efficiency, s.edge_efficiency)": """
assert _out["print(s.capacity, s.node_efficiency, s.edge_efficiency)"] == "nm 1/n 1/m\\n"
""",
        "s.capacity.evaluate(n=64, m=500)": 'assert repr(_v["s.capacity.evaluate(n=64, m=500)"]) == "32000.0"',
        'print(s.ranges["eta"])': 'assert _out[\'print(s.ranges["eta"])\'] == "1/n .. 1\\n"',
    },
    # docs/api.md
    "digest = alg.spec_hash()": {
        "alg.name": 'assert _v["alg.name"] == "oets"',
        "alg.primary_inputs": 'assert _v["alg.primary_inputs"] == ["key"]',
        'alg.spec["pred"]': 'assert _v[\'alg.spec["pred"]\'] == ("output", "node", "should_be_permutation")',
        "digest = alg.spec_hash()": """
import re
assert callable(alg.spec_hash) and re.fullmatch(r"[0-9a-f]{64}", digest)
""",
        'digest == algspec.load("algorithms/oets.alg").spec_hash()':
            'assert _v[\'digest == algspec.load("algorithms/oets.alg").spec_hash()\'] is True',
    },
    "out, probes = minimum.trace(key=[0.5, 0.2, 0.9])": {
        "out": 'assert _v["out"] == 1 and isinstance(_v["out"], int)',
        'probes["output"]["node"]["min"]["data"]': """
import numpy as np
np.testing.assert_array_equal(_v['probes["output"]["node"]["min"]["data"]'], [0.0, 1.0, 0.0])
""",
    },
    "pos=[0.0, 0.25, 0.5]": {
        "message": 'assert _v["message"].startswith("minimum.trace: unexpected `pos`: it is '
                   'computed from the problem size")',
    },
    "pairs.stand_in_inputs": {
        "pairs.primary_inputs": 'assert _v["pairs.primary_inputs"] == ["a", "b"]',
        "pairs.stand_in_inputs": 'assert _v["pairs.stand_in_inputs"] == ["s", "f"]',
        "pairs.trace(s=[0.1, 0.2], f=[0.5, 0.9])[0]": """
import numpy as np
np.testing.assert_allclose(_v["pairs.trace(s=[0.1, 0.2], f=[0.5, 0.9])[0]"], [0.4, 0.7])
""",
    },
    'z = np.load(folder / "samples.npz")': {
        "sorted(stored_trace_inputs(alg, z, 2))":
            'assert _v["sorted(stored_trace_inputs(alg, z, 2))"] == ["A", "adj"]',
        'bool((out == z["outputs/mis"][2]).all())':
            'assert _v[\'bool((out == z["outputs/mis"][2]).all())\'] is True',
    },
    "keys = sampler.last_rand_keys": {
        "keys = sampler.last_rand_keys": """
assert str(keys.dtype) == "uint64" and keys.shape == (4,)
""",
        "bool((out == feedback.outputs[0].data[3]).all())":
            'assert _v["bool((out == feedback.outputs[0].data[3]).all())"] is True',
    },
    's = algspec.load("algorithms/parallel/luby_mis.alg").static_efficiency()': {
        'print(s.T, "|", s.rounds, "|", s.c, "|", s.eta, "|", s.epsilon)': """
assert _out['print(s.T, "|", s.rounds, "|", s.c, "|", s.eta, "|", s.epsilon)'] == \\
    "log n | log n | n log n | 1 | 1\\n"
""",
        "s.whp": 'assert _v["s.whp"] is True',
        "s.T.evaluate(n=64)": 'assert _v["s.T.evaluate(n=64)"] == 6.0',
    },
    "first = algspec.load_source(": {
        "first.trace(key=[0.1, 0.7, 0.3])[0]": 'assert _v["first.trace(key=[0.1, 0.7, 0.3])[0]"] == 1.0',
        "first.trace(key=[0.1, 0.2, 0.3])[0]": 'assert _v["first.trace(key=[0.1, 0.2, 0.3])[0]"] == 3.0',
    },
    "rec = ActivityRecorder.for_program(alg.ir)": {
        "act.rounds, act.work, act.eta, act.epsilon, act.nodes_per_round[0]": """
rounds, work, eta, eps, first = _v["act.rounds, act.work, act.eta, act.epsilon, act.nodes_per_round[0]"]
assert rounds.shape == work.shape == eta.shape == eps.shape == (16,)
# oets at n = 32: n + 1 frames, n^2 work, and the node recording the first frame
assert (rounds == 33).all() and (work == 32 * 32 + 1).all()
assert ((0 < eta) & (eta <= 1) & (0 < eps) & (eps <= 1)).all()
assert len(first) == 33
""",
    },
}


def commented_statements(text: str) -> set[str]:
    """Top-level statements with a trailing `# comment` (a claim to check)."""
    import ast
    lines = text.splitlines()
    return {" ".join(ast.get_source_segment(text, node).split()) for node in ast.parse(text).body
            if "#" in lines[node.end_lineno - 1][node.end_col_offset:]}


def checks_for(block: Block) -> dict[str, str]:
    found = [v for k, v in PY_CHECKS.items() if k in block.text]
    assert len(found) == 1, f"no checks registered for the Python block at {block.doc}:{block.line}"
    return found[0]


@pytest.mark.parametrize("block", params("python"))
def test_python_snippet(block: Block, tmp_path: Path) -> None:
    """The snippet runs as written from the repository root, and what its comments say holds."""
    checks = checks_for(block)
    (tmp_path / "snippet.py").write_text(block.text)
    (tmp_path / "checks.json").write_text(json.dumps(checks))
    (tmp_path / "runner.py").write_text(RUNNER)
    r = subprocess.run([sys.executable, str(tmp_path / "runner.py"), str(tmp_path / "snippet.py"),
                        str(tmp_path / "checks.json")], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-4000:]
    assert f"ALL CHECKS RAN {len(checks)}" in r.stdout


# --------------------------------------------------------------------------- shell commands

def shell_commands(b: Block) -> list[str]:
    """Commands of a shell block: `$ ` prompts and trailing comments dropped, `\\` lines joined."""
    text = re.sub(r"\\\n\s*", " ", b.text)
    cmds = []
    for ln in text.splitlines():
        ln = ln.strip().removeprefix("$ ")
        if ln and not ln.startswith("#"):
            cmds.append(" ".join(shlex.split(ln, comments=True)) if "'" in ln else
                        " ".join(re.sub(r"\s+#.*$", "", ln).split()))
    return cmds


TINY_TRAIN = ["--hidden", "8", "--steps", "2", "--batch-size", "4", "--train-sizes", "4",
              "--val-size", "4", "--test-size", "5", "--train-samples", "8", "--val-samples", "8",
              "--test-samples", "8", "--eval-every", "1", "--no-progress"]

# (pattern, action) for every command the docs show; the first match decides.
# Actions: "run" as written; "tiny" with small sizes; "dry-run" (a grid: list its
# runs); "steps" (run the script's steps after its setup); "skip: reason".
SHELL_RULES: list[tuple[str, str]] = [
    (r"^scripts/run\b", "steps"),
    (r"^scripts/test\b", "skip: runs ruff and the whole test suite, this file included"),
    (r"^nice python benchmarks/", "skip: a benchmark that times 30 samplers against dm-clrs for minutes"),
    (r"^algspec train \S+ --processor gat$", ("skip: the paper's protocol (hidden 128, 2000 steps); "
                                              "the README's other train command is run at tiny size")),
    (r"^algspec eval \S+ --sizes ", ("skip: a sweep to n = 1600 on three families, minutes; "
                                      "tests/training/test_ood_sweep.py runs sweeps at small sizes")),
    (r"^algspec train ", "tiny"),
    (r"^algspec eval ", "tiny"),
    (r"^([A-Z_]+=\S* )*(nohup )?algspec experiment ", "dry-run"),
    (r"^algspec (lint|compile|sample|text|efficiency|explain|demo)\b", "run"),
]


def rule_for(cmd: str) -> str:
    for pat, action in SHELL_RULES:
        if re.search(pat, cmd):
            return action
    raise AssertionError(f"no rule for the documented command {cmd!r}")


ALL_COMMANDS = list(dict.fromkeys(c for b in of_kind("shell") for c in shell_commands(b)))


def scratch(ws: Path) -> Path:
    """`ws` made to look like the repository to relative paths (read-only parts linked)."""
    for name in ("algorithms", "experiments", "benchmarks", "scripts"):
        (ws / name).symlink_to(ROOT / name)
    return ws


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A scratch folder shared by the commands of this module."""
    return scratch(tmp_path_factory.mktemp("docs_ws"))


def algspec_cli(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "algspec.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)


def argv(cmd: str, cwd: Path) -> list[str]:
    """The arguments the shell would pass, globs expanded in `cwd`."""
    out = []
    for a in shlex.split(cmd)[1:]:
        out += sorted(str(p.relative_to(cwd)) for p in cwd.glob(a)) if "*" in a and "/" in a else [a]
    return out


def md_table(text: str, header_has: str) -> dict[str, list[str]]:
    """Rows (first cell -> other cells; header: "") of the markdown table whose header has `header_has`."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("|") and header_has in ln)
    rows = {}
    for ln in lines[start:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        rows["" if not rows else cells[0]] = cells[1:]  # the header row under ""
    return rows


def readme_section(doc: str, after: str) -> str:
    text = (ROOT / doc).read_text()
    return text[text.index(after):]


def check_output(cmd: str, r: subprocess.CompletedProcess, ws: Path) -> None:
    """What the docs say the command prints or writes."""
    out = r.stdout
    if cmd == "algspec lint algorithms/*.alg":
        assert (out + r.stderr).strip() == "all clean: 6 files"
    elif cmd.startswith("algspec compile algorithms/oets.alg"):
        assert re.search(r"^  pred\s+output\s+node\s+should_be_permutation$", out, re.MULTILINE)
        assert "capacity c = n^2   node efficiency eta = 1   edge efficiency epsilon = 1/n" in out
    elif cmd.startswith("algspec sample"):
        check_sample_folder(cmd, ws)
    elif cmd.startswith("algspec text"):
        folder = ws / cmd.split("--out ")[1].split()[0]
        records = [json.loads(x) for x in (folder / "data.jsonl").read_text().splitlines()]
        assert len(records) == int(cmd.split("--num ")[1].split()[0])
        assert all(r["prompt"].startswith("oets:\nkey: [") for r in records)
        assert all("trace | pred:" in r["prompt"] for r in records) == ("--hints" in cmd)
    elif cmd == "algspec efficiency algorithms/*.alg --table":
        got = md_table(out, "binary_search")
        for doc, after in [("docs/reproduction.md", "For the six shipped algorithms"),
                           ("docs/efficiency.md", "For the six shipped algorithms")]:
            want = md_table(readme_section(doc, after), "binary_search")
            for row in ("c", "η", "ε"):
                assert got[row] == want[row], (doc, row)
    elif cmd == "algspec efficiency algorithms/parallel/*.alg --static --table":
        check_textbook_table(out)
    elif cmd == "algspec efficiency algorithms/*.alg --static --table":
        got = md_table(out, "binary_search")
        want = md_table(readme_section("docs/reproduction.md", "For the six shipped algorithms"),
                        "binary_search")
        for row in ("c", "η", "ε"):
            assert got[row] == [re.sub(r" \(.*\)$", "", c) for c in want[row]]
    elif "--json" in cmd:
        (entry,) = json.loads(out)
        assert set(entry) == {"name", "path", "static", "sizes", "fits", "range", "tolerance"}
        assert entry["static"]["c"] == "n^3" and entry["static"]["epsilon"] == "1/m"
    if "--plot" in cmd:
        png = ws / cmd.split("--plot ")[1].split()[0]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def check_sample_folder(cmd: str, ws: Path) -> None:
    """`samples.npz` + `manifest.json`; a stored sample replays bit for bit; no overwrite."""
    folder = ws / cmd.split("--out ")[1].split()[0]
    manifest = json.loads((folder / "manifest.json").read_text())
    for key in ("algorithm", "spec_hash", "length", "seed"):
        assert key in manifest
    alg = algspec.load(ws / argv(cmd, ws)[1])
    num = int(cmd.split("--num ")[1].split()[0])
    assert manifest["algorithm"] == alg.name
    assert manifest["length"] == int(cmd.split("--length ")[1].split()[0])
    z = np.load(folder / "samples.npz")
    for i in (0, num - 1):
        out, probes = alg.trace(n=manifest["length"],
                                **{k: z[f"inputs/{k}"][i] for k in alg.primary_inputs})
        hints = {k: v["data"] for loc in probes["hint"].values() for k, v in loc.items()}
        if alg.name == "oets":
            assert set(hints) == {"pred_h", "swap", "odd"}
        for name, arr in hints.items():
            np.testing.assert_array_equal(arr, z[f"hints/{name}"][: arr.shape[0], i])
        (output,) = [k for k, v in alg.spec.items() if v[0] == "output"]
        np.testing.assert_array_equal(out, z[f"outputs/{output}"][i])
    again = algspec_cli(argv(cmd, ws), ws)
    assert again.returncode == 2
    lines = [ln for ln in again.stderr.splitlines() + again.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")


def check_textbook_table(out: str) -> None:
    """docs/reproduction.md's textbook-classes table is exactly what the command prints; the
    T table under it is `static_efficiency`'s rounds."""
    got = md_table(out, "all_pairs_min")
    section = readme_section("docs/reproduction.md", "Textbook parallel algorithms")
    want = md_table(section, "all_pairs_min")
    assert want == got
    rounds = md_table(section[section.index("Their rounds T"):], "all_pairs_min")
    assert rounds[""] == got[""] and set(rounds) == {"", "---", "T"}
    names = {algspec.load(p).name: algspec.load(p) for p in (ROOT / "algorithms/parallel").glob("*.alg")}
    for header, t in zip(rounds[""], rounds["T"]):
        s = names[header.removesuffix(" (whp)")].static_efficiency()
        assert t == str(s.rounds) and header.endswith(" (whp)") == bool(s.whp), header


@pytest.fixture(scope="module")
def trained_run(workspace: Path) -> dict[str, Path]:
    """Each train command of the docs, run once at the tiniest size (JAX compile is the cost)."""
    runs = {}
    for k, cmd in enumerate(ALL_COMMANDS):
        if rule_for(cmd) == "tiny" and cmd.startswith("algspec train"):
            args = argv(cmd, workspace)
            if "--out" not in args:  # the default folder is named by a digest: name one
                args += ["--out", f"runs/doc-{k}"]
            for flag in ("--hidden", "--steps"):  # the documented sizes, replaced by tiny ones
                if flag in args:
                    k = args.index(flag)
                    del args[k:k + 2]
            r = algspec_cli(args + TINY_TRAIN, workspace, timeout=600)
            assert r.returncode == 0, r.stderr[-3000:]
            folder = workspace / args[args.index("--out") + 1]
            runs[cmd] = folder
    return runs


def test_every_block_is_covered() -> None:
    """Every block has a kind, every command a rule, every commented Python statement a check."""
    kinds = [classify(b) for b in BLOCKS]
    assert [b.id for b, k in zip(BLOCKS, kinds) if k == "unknown"] == []
    counts = {k: kinds.count(k) for k in set(kinds)}
    assert counts.get("shell", 0) >= 7 and counts.get("python", 0) >= 3 and counts.get("alg-program", 0) >= 1
    assert counts.get("alg-statements", 0) >= 2 and counts.get("alg-declarations", 0) >= 2
    assert {"text-record", "grid-ood", "plan-line"} <= set(counts)
    for cmd in ALL_COMMANDS:
        rule_for(cmd)
    for b in of_kind("python"):
        assert commented_statements(b.text) <= set(checks_for(b)), b.id


def _shell_param(cmd: str):
    """A documented command as a test case; the ones that train are slow."""
    if rule_for(cmd) == "tiny":
        return pytest.param(cmd, id=cmd, marks=pytest.mark.slow)
    return pytest.param(cmd, id=cmd)


@pytest.mark.parametrize("cmd", [_shell_param(c) for c in ALL_COMMANDS])
def test_shell_command(cmd: str, workspace: Path, request) -> None:
    """The command works as documented (small sizes where it trains; grids listed, not run)."""
    action = rule_for(cmd)
    if action.startswith("skip: "):
        pytest.skip(action[6:])
    if action == "steps":  # scripts/run: what it does after setting up .venv
        script = (ROOT / cmd.split()[0]).read_text().splitlines()
        steps = [ln.split(".venv/bin/algspec ")[1] for ln in script if ".venv/bin/algspec " in ln]
        assert "scripts/setup" in script and steps
        for step in steps:
            r = algspec_cli(shlex.split(step), workspace)
            assert r.returncode == 0, (step, r.stderr[-3000:])
        assert "parallel_search" in r.stdout
        return
    if action == "tiny" and cmd.startswith("algspec train"):
        run = request.getfixturevalue("trained_run")[cmd]
        for f in ("config.json", "metrics.jsonl", "result.json", "curves.png", "checkpoint.pkl"):
            assert (run / f).exists(), f
        res = json.loads((run / "result.json").read_text())
        for key in ("val", "test", "seconds_per_step", "train_seconds", "device"):
            assert key in res, key
        return
    args = argv(ENV.sub("", cmd).removeprefix("nohup ").removesuffix(" &"), workspace)
    if cmd.startswith("algspec sample"):  # a folder of its own: `--out` must be new
        workspace = scratch(request.getfixturevalue("tmp_path"))
    if action == "tiny":  # algspec eval RUN --test-size K: re-test a trained run
        request.getfixturevalue("trained_run")
        args[args.index("--test-size") + 1] = "5"
        args += ["--test-samples", "8"]
    if action == "dry-run":
        args.append("--dry-run")
    r = algspec_cli(args, workspace)
    assert r.returncode == 0, r.stderr[-3000:]
    if action == "dry-run":
        todo = [ln.split()[-1] for ln in r.stdout.splitlines() if ln.startswith("todo")]
        assert todo
        pats = [args[k + 1] for k, a in enumerate(args) if a == "--only"]  # any of them
        assert not pats or all(any(fnmatch.fnmatch(Path(t).name, p) for p in pats) for t in todo)
        assert not (workspace / "results").exists() or "-o" in args
    elif action == "tiny":
        assert "test micro-F1" in r.stdout and "at n=5" in r.stdout
    else:
        check_output(cmd, r, workspace)


def test_efficiency_md_textbook_table(workspace: Path) -> None:
    """docs/efficiency.md's textbook table is what the command named above it prints."""
    text = readme_section("docs/efficiency.md", "The textbook parallel")
    cmd = re.search(r"`(algspec efficiency [^`]*--worst-case)`", text).group(1)
    r = algspec_cli(argv(cmd, workspace), workspace)
    assert r.returncode == 0, r.stderr[-3000:]
    got, want = md_table(r.stdout, "all_pairs_min"), md_table(text, "all_pairs_min")
    for row in ("c", "η", "ε"):
        for name, cell in zip(want[""], want[row]):
            assert cell == got[row][got[""].index(name)], (row, name)
    for name, t in zip(want[""], want["T"]):
        s = algspec.load(next(p for p in (ROOT / "algorithms/parallel").glob("*.alg")
                              if algspec.load(p).name == name)).static_efficiency()
        assert t.replace("²", "^2") == str(s.rounds), name
