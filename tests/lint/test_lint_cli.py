"""`algspec lint`, `compile` and `sample` on the command line.

Exit codes as ruff: 0 clean, 1 findings (or a malformed file), 2 usage error.
Commands run in-process through typer's CliRunner; two subprocess calls check
the real console script and that the core never imports tensorflow or jax.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
ALGORITHMS = sorted((ROOT / "algorithms").glob("*.alg"))
HEAD = "algorithm t\nnodes n\ngraph complete\ninput node key: scalar ~ uniform()\n"
CLEAN = HEAD + "hint node a: scalar\nrecord\nforall v { a[v] = key[v] }\nrecord\n"

# name -> (source, code, line, column, fragment of the message)
FINDINGS = {
    "l101": (HEAD + "state graph unused: int = 0\nhint node a: scalar\nrecord\n"
             "forall v { a[v] = key[v] }\nrecord\n", "L101", 5, 1, "`unused` is never read"),
    "l102": (HEAD + "hint node a: scalar\nhint node c: scalar = key\nrecord\n"
             "forall v { a[v] = key[v] }\nrecord\n", "L102", 6, 1, "`c` never changes"),
    "l103": (HEAD + "hint node a: scalar\noutput graph r: scalar\nrecord\n"
             "forall v { a[v] = key[v] }\nrecord\n", "L103", 6, 1, "`r` is never written"),
    "l104": (HEAD + "hint node a: scalar\nstate graph x: int = 0\nrecord\n"
             "while true bound n {\n    forall v { a[v] = key[v] + float(x) }\n    x += 1\n"
             "    record\n}\n", "L104", 8, 1, "`while true` without a `break`"),
    "l105": (HEAD + "hint node a: scalar\noutput node o: scalar\n"
             "forall v { a[v] = key[v] }\nforall v { o[v] = a[v] }\n", "L105", 5, 1,
             "hint `a` is never recorded"),
}

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def no_traceback(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}")
    assert "Traceback" not in result.output


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.alg"
    p.write_text(text)
    return p


# ====================================================================== lint
def test_lint_shipped_algorithms_is_clean() -> None:
    r = invoke("lint", ROOT / "algorithms")
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    count = len(list((ROOT / "algorithms").rglob("*.alg")))  # folders are linted recursively
    assert f"all clean: {count} files" in r.stderr


@pytest.mark.parametrize("path", ALGORITHMS, ids=lambda p: p.stem)
def test_lint_each_shipped_algorithm_json_is_empty(path: Path) -> None:
    r = invoke("lint", "--output-format", "json", path)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == []


def test_lint_clean_file(tmp_path: Path) -> None:
    r = invoke("lint", write(tmp_path, "clean", CLEAN))
    assert r.exit_code == 0 and "all clean: 1 file" in r.stderr


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_lint_findings_exit_1(tmp_path: Path, name: str) -> None:
    src, code, line, col, fragment = FINDINGS[name]
    path = write(tmp_path, name, src)
    r = invoke("lint", path)
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    hit = [x for x in lines if f" {code} " in x]
    assert hit == [f"{path}:{line}:{col}: {code} " + hit[0].split(f" {code} ", 1)[1]]
    assert fragment in hit[0]
    findings = [x for x in lines if x.startswith(f"{path}:")]  # help lines are indented
    # the while-true loop runs into its bound when sampled: that fault (R102) is an error
    errors = "(1 error)" if name == "l104" else "(0 errors)"
    assert f"{len(findings)} finding" in r.stderr and errors in r.stderr


def test_lint_no_sample_skips_sampled_rules(tmp_path: Path) -> None:
    path = write(tmp_path, "l104", FINDINGS["l104"][0])
    sampled = invoke("lint", path).stdout
    assert " R102 " in sampled  # the while-true loop runs into its bound when sampled
    r = invoke("lint", "--no-sample", path)
    assert r.exit_code == 1
    assert [x.split(": ")[1].split()[0] for x in r.stdout.splitlines()] == ["L104"]


def test_lint_allow_comment_suppresses_on_its_line(tmp_path: Path) -> None:
    src = FINDINGS["l101"][0].replace("unused: int = 0", "unused: int = 0  # allow: L101")
    r = invoke("lint", write(tmp_path, "allowed", src))
    assert r.exit_code == 0, r.output
    src = FINDINGS["l101"][0].replace("unused: int = 0", "unused: int = 0  # allow: L102")
    r = invoke("lint", write(tmp_path, "other", src))
    assert r.exit_code == 1 and " L101 " in r.stdout


def test_lint_json_output(tmp_path: Path) -> None:
    for name in FINDINGS:
        write(tmp_path, name, FINDINGS[name][0])
    write(tmp_path, "clean", CLEAN)
    r = invoke("lint", "--output-format", "json", tmp_path)
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    found = {(Path(d["path"]).stem, d["code"]) for d in data}
    assert {(n, c) for n, (_, c, *_rest) in FINDINGS.items()} <= found
    assert not any(stem == "clean" for stem, _ in found)
    for d in data:
        assert set(d) >= {"code", "severity", "span", "message", "path"}
        # l104's loop runs into its bound when sampled: that fault (R102) is an error
        assert d["severity"] == ("error" if d["code"] == "R102" else "warning")
        assert d["span"]["line"] >= 1


def test_lint_full_output_has_source_and_caret(tmp_path: Path) -> None:
    path = write(tmp_path, "l103", FINDINGS["l103"][0])
    r = invoke("lint", "--output-format", "full", path)
    assert r.exit_code == 1
    out = r.stdout.splitlines()
    assert out[0] == "warning[L103]: output `r` is never written"
    assert out[1] == f"  --> {path}:6:1"
    assert out[2] == "   | output graph r: scalar"
    assert out[3].startswith("   | ^")


def test_lint_reports_check_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "bad", HEAD + "state graph x: int = 0\nx = y\n")
    r = invoke("lint", path)
    assert r.exit_code == 1
    assert r.stdout.strip() == f"{path}:6:5: E206 unknown name `y`"
    assert "(1 error)" in r.stderr
    r = invoke("lint", "--output-format", "json", path)
    (d,) = json.loads(r.stdout)
    assert (d["code"], d["severity"], d["span"]["line"], d["span"]["column"]) == (
        "E206", "error", 6, 5)


def test_lint_usage_errors_exit_2(tmp_path: Path) -> None:
    r = invoke("lint", "--output-format", "xml", ROOT / "algorithms")
    assert r.exit_code == 2 and "--output-format" in r.stderr and r.stdout == ""
    r = invoke("lint", tmp_path / "missing.alg")
    assert r.exit_code == 2 and "missing.alg" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = invoke("lint")
    assert r.exit_code == 2
    no_traceback(r)


def test_lint_does_not_crash_on_a_checked_file(tmp_path: Path) -> None:
    """A file that passes the checks but trips the interpreter must not show a traceback."""
    src = HEAD + ("state graph s: float = 0.0\nhint graph g: scalar = s\n"
                  "hint graph h: scalar = g\nrecord\ns = 1.0\nrecord\n")
    r = invoke("lint", write(tmp_path, "views", src))
    no_traceback(r)
    assert r.exit_code in (0, 1, 2)


# =================================================================== compile
@pytest.mark.parametrize("path", ALGORITHMS, ids=lambda p: p.stem)
def test_compile_json_spec_matches_the_api(path: Path) -> None:
    r = invoke("compile", path, "--json", "--samples", "2")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    alg = algspec.load(path)
    assert {k: tuple(v) for k, v in data["spec"].items()} == alg.spec
    assert list(data["spec"]) == list(alg.spec)  # CLRS data point order
    assert data["name"] == alg.name and data["spec_hash"] == alg.spec_hash()
    assert data["graph"]["kind"] == alg.ir.graph.kind
    assert [x["n"] for x in data["lengths"]] == [16, 64]
    assert all(1 <= x["min"] <= x["max"] for x in data["lengths"])


def test_compile_text_output() -> None:
    r = invoke("compile", ROOT / "algorithms" / "parallel_search.alg", "--samples", "2")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("algorithm parallel_search")
    assert "interconnection graph: empty" in r.stdout and "edge-mask input `adj`" in r.stdout
    assert "trajectory length at n=16: min 2, mean 2.0, max 2" in r.stdout


@pytest.mark.parametrize("text, where", [
    ("algorithm t\nnodes n\ngraph complete\nx = \n", ":4:5: E002"),
    (HEAD + "state graph x: int = 0\nx = y\n", ":6:5: E206"),
    (HEAD + "forall v { key[v] = 1.0 }\n", ":5:12: E301"),
    ("", ":1:1: E003"),
])
def test_compile_malformed_file(tmp_path: Path, text: str, where: str) -> None:
    path = write(tmp_path, "bad", text)
    r = invoke("compile", path)
    assert r.exit_code == 1
    no_traceback(r)
    assert r.stdout == ""
    assert r.stderr.splitlines()[0].startswith(f"{path}{where} ")


def test_compile_missing_file_and_bad_param() -> None:
    r = invoke("compile", ROOT / "algorithms" / "nope.alg")
    assert r.exit_code == 2 and r.stderr.startswith("error: no such file")
    r = invoke("compile", ROOT / "algorithms" / "oets.alg", "--param", "bogus=1")
    assert r.exit_code == 2 and "bogus" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_compile_program_without_generated_inputs(tmp_path: Path) -> None:
    src = "algorithm t\nnodes n\ngraph complete\nhint node a: scalar\nforall v { a[v] = pos[v] }\n" \
          "record\n"
    r = invoke("compile", write(tmp_path, "noinput", src), "--json", "--samples", "2")
    no_traceback(r)
    assert r.exit_code == 0
    assert json.loads(r.stdout)["lengths"][0]["max"] == 1


# ==================================================================== sample
def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_sample_is_byte_reproducible_with_a_manifest(tmp_path: Path) -> None:
    path = ROOT / "algorithms" / "binary_search.alg"
    args = ("sample", path, "--length", "8", "--num", "5", "--seed", "3", "--out")
    r1 = invoke(*args, tmp_path / "a")
    r2 = invoke(*args, tmp_path / "b")
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output + r2.output
    assert "wrote 5 samples of binary_search at n=8" in r1.stdout
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert set(a) == {"manifest.json", "samples.npz"}
    assert a == b
    manifest = json.loads(a["manifest.json"])
    alg = algspec.load(path)
    assert (manifest["algorithm"], manifest["seed"], manifest["length"],
            manifest["num_samples"]) == ("binary_search", 3, 8, 5)
    assert [tuple(x) for x in manifest["spec"]] == [(k, *v) for k, v in alg.spec.items()]
    r3 = invoke("sample", path, "--length", "8", "--num", "5", "--seed", "4", "--out",
                tmp_path / "c")
    assert r3.exit_code == 0 and _files(tmp_path / "c")["samples.npz"] != a["samples.npz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "c"]  # no temp dirs left


def test_sample_refuses_to_overwrite(tmp_path: Path) -> None:
    path = ROOT / "algorithms" / "oets.alg"
    args = ("sample", path, "--length", "4", "--num", "2", "--out", tmp_path / "d")
    assert invoke(*args).exit_code == 0
    before = _files(tmp_path / "d")
    r = invoke(*args, "--seed", "9")
    assert r.exit_code == 2 and "--overwrite" in r.stderr
    assert _files(tmp_path / "d") == before
    assert invoke(*args, "--seed", "9", "--overwrite").exit_code == 0
    assert _files(tmp_path / "d") != before


@pytest.mark.parametrize("param, fragment", [
    ("bogus=1", "unknown generator parameter `bogus`"),
    ("low", "NAME=VALUE"),
    ("low=abc", "finite number"),
    ("low=5.0", "low < high"),
    ("key.p=0.5", "unknown generator parameter"),
])
def test_sample_bad_param(tmp_path: Path, param: str, fragment: str) -> None:
    out = tmp_path / "ds"
    r = invoke("sample", ROOT / "algorithms" / "oets.alg", "--length", "4", "--num", "2",
               "--param", param, "--out", out)
    assert r.exit_code == 2
    no_traceback(r)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
    assert r.stdout == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_sample_bad_sizes_and_missing_file(tmp_path: Path) -> None:
    r = invoke("sample", ROOT / "algorithms" / "oets.alg", "--length", "0", "--out", tmp_path / "x")
    assert r.exit_code == 2 and "positive" in r.stderr and not (tmp_path / "x").exists()
    r = invoke("sample", tmp_path / "none.alg", "--out", tmp_path / "y")
    assert r.exit_code == 2 and not (tmp_path / "y").exists()


def test_sample_param_override_reaches_the_data(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    r = invoke("sample", ROOT / "algorithms" / "oets.alg", "--length", "6", "--num", "3",
               "--param", "key.high=3.0", "--param", "low=2.0", "--out", out)
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["generators"]["key"] == {"generator": "uniform",
                                             "params": {"low": 2.0, "high": 3.0}}
    assert manifest["params"] == {"key.high": 3.0, "low": 2.0}
    from algspec.sampling.dataset import load_dataset
    _, traj = load_dataset(out)
    key = traj.inputs["key"]
    assert key.shape == (3, 6) and key.min() >= 2.0 and key.max() < 3.0


def test_sample_param_overrides_are_validated_together(tmp_path: Path) -> None:
    """`low=2 high=3` is valid whatever order the two overrides are given in."""
    out = tmp_path / "ds"
    r = invoke("sample", ROOT / "algorithms" / "oets.alg", "--length", "6", "--num", "3",
               "--param", "low=2.0", "--param", "key.high=3.0", "--out", out)
    assert r.exit_code == 0, r.output
    assert json.loads((out / "manifest.json").read_text())["generators"]["key"]["params"] == {
        "low": 2.0, "high": 3.0}


# ================================================================ subprocess
def test_core_imports_neither_tensorflow_nor_jax() -> None:
    code = ("import algspec.cli, algspec.lint, sys; "
            "bad = [m for m in ('tensorflow', 'jax', 'clrs') if m in sys.modules]; "
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr


def test_console_script_lints_a_file() -> None:
    exe = Path(sys.executable).with_name("algspec")
    assert exe.exists()
    r = subprocess.run([str(exe), "lint", str(ROOT / "algorithms" / "oets.alg")],
                       check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == "all clean: 1 file"


# ============================================================ internal errors
def _crash(monkeypatch, tmp_path: Path, capsys, debug: str | None):
    import tempfile

    from algspec import cli

    def boom() -> None:
        raise ValueError("boom in the compiler")

    monkeypatch.setattr(cli, "app", boom)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    if debug is None:
        monkeypatch.delenv("ALGSPEC_DEBUG", raising=False)
    else:
        monkeypatch.setenv("ALGSPEC_DEBUG", debug)
    with pytest.raises(SystemExit) as e:
        cli.main()
    return e.value.code, capsys.readouterr().err


def test_internal_error_is_a_bug_report_with_a_log(monkeypatch, tmp_path: Path, capsys) -> None:
    code, err = _crash(monkeypatch, tmp_path, capsys, None)
    assert code == 2
    assert "internal error: ValueError: boom in the compiler" in err
    assert "bug in algspec" in err and "report" in err and "ALGSPEC_DEBUG=1" in err
    assert "Traceback" not in err
    logs = list(tmp_path.glob("algspec-internal-error-*.log"))
    assert len(logs) == 1 and str(logs[0]) in err
    text = logs[0].read_text()
    assert "Traceback" in text and "boom in the compiler" in text and "def boom" not in err


def test_internal_error_traceback_under_algspec_debug(monkeypatch, tmp_path: Path,
                                                      capsys) -> None:
    code, err = _crash(monkeypatch, tmp_path, capsys, "1")
    assert code == 2
    assert "Traceback" in err and "boom in the compiler" in err and "bug in algspec" in err


def test_explain_prints_a_registered_code() -> None:
    r = invoke("explain", "e401")
    assert r.exit_code == 0 and "E401 (error, checks)" in r.output
    r = invoke("explain", "E999")
    assert r.exit_code == 2 and "unknown code" in r.output


def test_compile_json_and_dataset_manifest_share_one_spec_hash(tmp_path: Path) -> None:
    """`compile --json` and the dataset manifest used to hash differently."""
    from algspec.sampling.dataset import spec_hash
    path = ALGORITHMS[0]
    r = invoke("compile", path, "--json")
    assert r.exit_code == 0, r.output
    compiled = json.loads(r.output)["spec_hash"]
    alg = algspec.load(path)
    assert compiled == alg.spec_hash() == spec_hash(alg)
    moved = tmp_path / "moved.alg"
    moved.write_text("# a comment moves every span\n" + path.read_text())
    assert algspec.load(moved).spec_hash() == compiled


def test_lint_files_pool_matches_one_by_one(tmp_path: Path, monkeypatch) -> None:
    """The forked pool (cold cache, a fresh process) gives each file's findings in path order."""
    monkeypatch.setenv("ALGSPEC_NO_CACHE", "1")
    from algspec.lint import lint_source
    paths = []
    for name, src in [("a_clean", CLEAN), *((k, v[0]) for k, v in FINDINGS.items())]:
        p = tmp_path / f"{name}.alg"
        p.write_text(src)
        paths.append(str(p))
    paths.reverse()  # not the pool's order (longest first), nor alphabetical
    code = ("import json, sys; from algspec import lint; "
            "calls = []; real = lint._lint_in_pool; "
            "lint._lint_in_pool = lambda *a: calls.append(1) or real(*a); "
            "d, _ = lint.lint_files(sys.argv[1:], jobs=2); "
            "print(json.dumps([len(calls), [x.concise() for x in d]]))")
    r = subprocess.run([sys.executable, "-c", code, *paths], check=False, capture_output=True,
                       text=True, timeout=120, env={**os.environ, "ALGSPEC_NO_CACHE": "1"})
    assert r.returncode == 0, r.stderr
    pooled_calls, pooled = json.loads(r.stdout)
    one_by_one = [d.concise() for p in paths for d in lint_source(Path(p).read_text(), p)]
    assert pooled_calls == 1 and pooled == one_by_one and len(pooled) >= 4
