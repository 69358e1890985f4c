"""The CLI driven as the README describes: user mistakes give one line, exit 2
(arguments) or `path:line:col: CODE message`, exit 1 (files), never a traceback, and a failed
command leaves no file or folder behind.

In-process through typer's CliRunner; one subprocess runs the real entry point.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from algspec.sampling import dataset

ROOT = Path(__file__).resolve().parents[2]
SEARCH = ROOT / "algorithms" / "parallel_search.alg"
runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def one_line_usage_error(r, *fragments: str) -> None:
    """Exit 2, a single `error: ...` line on stderr naming `fragments`, nothing on stdout."""
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert r.stdout == ""
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.fixture()
def ok_alg(tmp_path: Path) -> Path:
    p = tmp_path / "ps.alg"
    p.write_text(SEARCH.read_text())
    return p


@pytest.mark.parametrize("args,fragments", [
    (["lint", "--bogus", "{f}"], ["No such option: --bogus", "algspec lint --help"]),
    (["lint"], ["Missing argument"]),
    (["nosuchcommand"], ["No such command"]),
    (["compile", "{f}", "--samples", "abc"], ["--samples"]),
    (["compile", "{f}", "--samples", "0"], ["--samples"]),
    (["compile", "{f}", "--seed", "-1"], ["--seed"]),
    (["sample", "{f}", "--seed", "-1", "--out", "{d}/x"], ["--seed"]),
    (["sample", "{f}", "--length", "1.5", "--out", "{d}/x"], ["--length"]),
    (["efficiency", "{f}", "--seed", "-1"], ["--seed"]),
    (["train", "{f}", "--seed", "-1", "--out", "{d}/x"], ["--seed"]),
    (["train", "{f}", "--lr", "-1", "--out", "{d}/x"], ["learning_rate"]),
    (["eval", "{d}", "--test-size", "0"], ["--test-size"]),
    (["experiment", "{f}", "--jobs", "0", "--dry-run"], ["--jobs"]),
    (["explain", "E401", "extra"], ["unexpected extra argument"]),
    (["lint", "{f}", "--output-format"], ["requires an argument"]),
])
def test_bad_arguments_are_one_line_exit_2(ok_alg: Path, args, fragments) -> None:
    d = ok_alg.parent
    r = invoke(*(a.format(f=ok_alg, d=d) for a in args))
    one_line_usage_error(r, *fragments)
    assert sorted(p.name for p in d.iterdir()) == ["ps.alg"]  # nothing written


def test_help_still_works() -> None:
    for cmd in ("lint", "compile", "sample", "efficiency", "demo", "explain", "train", "eval",
                "experiment"):
        r = invoke(cmd, "--help")
        assert r.exit_code == 0 and "Usage" in r.stdout, cmd
    r = invoke()  # bare `algspec`: the help, exit 2 as click does
    assert r.exit_code == 2 and "lint" in r.output


def _not_utf8(tmp_path: Path) -> Path:
    p = tmp_path / "latin1.alg"
    p.write_bytes(b"algorithm t\nnodes n\n# caf\xe9\ngraph complete\n")
    return p


def test_non_utf8_file_is_e001_at_the_byte(tmp_path: Path, ok_alg: Path) -> None:
    bad = _not_utf8(tmp_path)
    where = f"{bad}:3:6: E001"
    r = invoke("lint", ok_alg, bad, "--no-sample")
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert r.stdout.strip().splitlines() == [f"{where} the file is not UTF-8 text (byte 0xe9)",
                                             "  help: save the file as UTF-8"]
    assert "1 finding (1 error) in 2 files" in r.stderr
    r = invoke("lint", bad, "--output-format", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)[0]["code"] == "E001"
    for args in (["compile", bad], ["sample", bad, "--out", tmp_path / "o"],
                 ["efficiency", bad, "--static"], ["demo", bad],
                 ["train", bad, "--out", tmp_path / "run"]):
        r = invoke(*args)
        assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (args, r.output)
        assert r.stderr.strip().splitlines() == [f"{where} the file is not UTF-8 text (byte 0xe9)",
                                                 "  help: save the file as UTF-8"]
    assert not (tmp_path / "o").exists() and not (tmp_path / "run").exists()
    with pytest.raises(algspec.diagnostics.AlgError, match="E001"):
        algspec.load(bad)


@pytest.mark.parametrize("cmd", ["compile", "sample", "efficiency", "demo", "train"])
def test_a_folder_or_unreadable_file_is_a_usage_error(tmp_path: Path, ok_alg: Path, cmd,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "dir.alg"
    folder.mkdir()
    # `efficiency` and `demo` read a folder as `lint` does (every *.alg under it): none here
    expect = f"no .alg files in folder {folder}" if cmd in ("efficiency", "demo") \
        else f"{folder} is a folder"
    one_line_usage_error(invoke(cmd, folder), expect)
    from algspec.language import source_file

    def denied(path):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(source_file, "_open_readonly", denied)
    one_line_usage_error(invoke(cmd, ok_alg, *(["--static"] if cmd == "efficiency" else [])),
                         f"cannot read {ok_alg}: Permission denied")
    if cmd == "compile":
        one_line_usage_error(invoke("lint", ok_alg), f"cannot read {ok_alg}: Permission denied")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.alg", "ps.alg"]


def test_line_ends_bom_tabs_and_long_lines_read_as_plain_text(tmp_path: Path) -> None:
    text = SEARCH.read_text()
    variants = {"crlf": text.replace("\n", "\r\n").encode(),
                "cr": text.replace("\n", "\r").encode(),
                "bom": b"\xef\xbb\xbf" + text.encode(),
                "tabs": text.replace("  ", "\t").encode(),
                "long": ("# " + "x" * 50_000 + "\n" + text).encode()}
    for name, data in variants.items():
        (tmp_path / f"{name}.alg").write_bytes(data)
    r = invoke("lint", tmp_path, "--no-sample")
    assert r.exit_code == 0 and "all clean: 5 files" in r.stderr, r.output
    want = algspec.load(SEARCH).spec
    assert all(algspec.load(tmp_path / f"{k}.alg").spec == want for k in variants)
    bad = tmp_path / "bad.alg"  # positions count lines as the parser does, \r\n or \r
    bad.write_bytes(b"algorithm t\r\nnodes n\rgraph complete\r\n  \xff\n")
    r = invoke("lint", bad)
    assert r.stdout.strip().splitlines()[0] == \
        f"{bad}:4:3: E001 the file is not UTF-8 text (byte 0xff)"


def test_lint_names_each_file_once(tmp_path: Path) -> None:
    bad = tmp_path / "bad.alg"
    bad.write_text("algorithm t\nnodes n\ngraph complete\noutput node o: maskk\nrecord\n")
    r = invoke("lint", bad, tmp_path, tmp_path / "." / "bad.alg", "--no-sample")
    assert r.exit_code == 1 and [x for x in r.stdout.splitlines() if x.startswith(str(bad))] \
        == [f"{bad}:4:1: E102 unknown type `maskk`"]
    assert "1 finding (1 error) in 1 file" in r.stderr


def test_sample_out_problems_leave_nothing(tmp_path: Path, ok_alg: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    before = ok_alg.read_bytes()
    for overwrite in ([], ["--overwrite"]):  # a file is never replaced by a dataset folder
        r = invoke("sample", ok_alg, "-n", 4, "-k", 2, "--out", ok_alg, *overwrite)
        one_line_usage_error(r, "not a folder")
    one_line_usage_error(invoke("sample", ok_alg, "-n", 4, "-k", 2, "--out", ok_alg / "x"),
                         "is not a folder")
    assert ok_alg.read_bytes() == before

    def disk_full(path: Path, arrays, *progress) -> None:
        path.write_bytes(b"partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(dataset, "_write_npz", disk_full)
    r = invoke("sample", ok_alg, "-n", 4, "-k", 2, "--out", tmp_path / "new" / "deeper" / "ds")
    one_line_usage_error(r, "cannot write", "No space left")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ps.alg"]  # no parents, no temp


def test_sample_never_replaces_the_working_folder(tmp_path: Path, ok_alg: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    for out in (".", "sub/.."):
        r = invoke("sample", ok_alg, "-n", 4, "-k", 2, "--out", out, "--overwrite")
        one_line_usage_error(r, "working folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ps.alg", "sub"]


def test_overwrite_replaces_a_dataset_without_leftovers(tmp_path: Path, ok_alg: Path) -> None:
    out = tmp_path / "data" / "ds"  # missing parents are created on success
    assert invoke("sample", ok_alg, "-n", 6, "-k", 3, "--seed", 1, "--out", out).exit_code == 0
    one_line_usage_error(invoke("sample", ok_alg, "-n", 6, "-k", 3, "--out", out), "--overwrite")
    r = invoke("sample", ok_alg, "-n", 6, "-k", 5, "--seed", 2, "--out", out, "--overwrite")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.parent.iterdir()) == ["ds"]
    manifest, traj = dataset.load_dataset(out)
    assert manifest["num_samples"] == 5 and manifest["seed"] == 2
    assert {"algorithm", "spec", "spec_hash", "seed", "length", "params"} <= set(manifest)
    # the stored inputs reproduce the stored hints frame for frame
    alg = algspec.load(ok_alg)
    for b in range(5):
        inputs = {k: v[b] for k, v in traj.inputs.items() if k not in ("pos", "adj")}
        _, probes = alg.trace(n=manifest["length"], **inputs)  # stored inputs hold N values
        frames = int(traj.lengths[b])
        for name, stored in traj.hints.items():
            loc = alg.spec[name][1]
            got = np.asarray(probes["hint"][loc][name]["data"])
            np.testing.assert_array_equal(got, stored[:frames, b])


@pytest.mark.parametrize("plot,static,fragment", [
    ("missing/p.png", False, "does not exist"),
    ("folder", False, "is a folder"),
    ("p.txt", False, "unknown image format .txt"),
    ("p.png", True, "--static"),
])
def test_efficiency_plot_path_checked_before_sampling(tmp_path: Path, plot, static,
                                                      fragment) -> None:
    (tmp_path / "folder").mkdir()
    r = invoke("efficiency", SEARCH, "--sizes", "4,8", "--samples", 1,
               "--plot", tmp_path / plot, *(["--static"] if static else []))
    one_line_usage_error(r, fragment)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


def test_efficiency_static_json_keeps_every_file(ok_alg: Path) -> None:
    r = invoke("efficiency", SEARCH, ok_alg, ok_alg, ROOT / "algorithms" / "oets.alg",
               "--static", "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)  # two files named parallel_search: keyed by path
    assert list(got) == [str(SEARCH), str(ok_alg), "oets"]
    assert all({"c", "eta", "epsilon", "T"} <= set(v) for v in got.values())


def test_efficiency_plot_failure_leaves_no_file(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.figure import Figure

    def broken(self, fname, **kw):
        Path(fname).write_bytes(b"partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Figure, "savefig", broken)
    r = invoke("efficiency", SEARCH, "--sizes", "4,8", "--samples", 1,
               "--plot", tmp_path / "p.png")
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit)
    want = f"error: cannot write {tmp_path / 'p.png'}: No space left on device"
    assert r.stderr.strip().splitlines() == [want]
    assert list(tmp_path.iterdir()) == []


def test_train_rejects_bad_sources_before_making_the_run_folder(tmp_path: Path,
                                                                ok_alg: Path) -> None:
    bad = tmp_path / "bad.alg"
    bad.write_text("algorithm t\nnodes n\ngraph complete\noutput node o: maskk\nrecord\n")
    r = invoke("train", bad, "--out", tmp_path / "run")
    assert r.exit_code == 1 and r.stderr.startswith(f"{bad}:4:1: E102 ")
    one_line_usage_error(invoke("train", ok_alg, "--param", "nope=1", "--out", tmp_path / "run"),
                         "unknown generator parameter `nope`")
    one_line_usage_error(invoke("train", ok_alg, "--out", ok_alg), "not a folder")
    one_line_usage_error(invoke("train", ok_alg, "--out", ok_alg / "run"),
                         f"{ok_alg} is not a folder")
    assert not (tmp_path / "run").exists()


def test_experiment_grid_errors_are_one_line(tmp_path: Path) -> None:
    grid = tmp_path / "g.yaml"
    grid.write_text("name: g\ntasks: [\n")
    one_line_usage_error(invoke("experiment", grid, "--dry-run"), f"{grid}:3:1: not valid YAML")
    grid.write_bytes(b"name: caf\xe9\n")
    one_line_usage_error(invoke("experiment", grid, "--dry-run"), "not UTF-8")


def test_eval_of_a_corrupt_checkpoint_is_one_line(tmp_path: Path) -> None:
    import pickle

    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.pkl").write_bytes(b"garbage")
    one_line_usage_error(invoke("eval", run), "not a checkpoint written by `algspec train`")
    (run / "checkpoint.pkl").write_bytes(pickle.dumps([1, 2]))
    one_line_usage_error(invoke("eval", run), "unknown checkpoint format 'list'")


@pytest.mark.slow
def test_eval_of_a_run_whose_file_no_longer_compiles_is_its_diagnostics(
        tmp_path: Path, ok_alg: Path) -> None:
    """A run's `.alg` file edited into an error since training: its diagnostics, exit 1, as
    for any command given a file with an error (not a usage error)."""
    run = tmp_path / "run"
    r = invoke("train", ok_alg, "--hidden", "4", "--steps", "1", "--batch-size", "2",
               "--train-sizes", "4", "--val-size", "4", "--test-size", "4",
               "--train-samples", "2", "--val-samples", "2", "--test-samples", "2",
               "--eval-every", "1", "--out", run, "--no-progress")
    assert r.exit_code == 0, r.output
    ok_alg.write_text(ok_alg.read_text() + "forall v { x = }\n")
    r = invoke("eval", run, "--no-progress")
    line = ok_alg.read_text().count("\n")
    assert r.exit_code == 1 and r.stderr.startswith(f"{ok_alg}:{line}:"), r.output
    assert " E002 " in r.stderr.splitlines()[0]


def test_out_of_memory_is_one_line(ok_alg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from algspec import cli

    def huge(*args, **kwargs):
        raise MemoryError("Unable to allocate 9 TiB")

    monkeypatch.setattr(cli, "_length_summary", huge)
    r = invoke("compile", ok_alg)
    assert r.exit_code == 1 and r.stderr.strip().splitlines() == [
        "error: out of memory (Unable to allocate 9 TiB); try smaller sizes or fewer samples"]


def test_real_entry_point_prints_one_line(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "algspec.cli", "lint", "--bogus", str(SEARCH)],
                       check=False, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "ALGSPEC_DEBUG": ""})
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "error: No such option: --bogus (see 'algspec lint --help')"]


def test_demo_takes_folders_and_shows_every_file_that_compiles(tmp_path: Path,
                                                               ok_alg: Path) -> None:
    """`algspec demo FOLDER`: every *.alg under it; a file with an error is its diagnostics
    and the others are still in the table; exit 1 when any file failed."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "a.alg").write_text(ok_alg.read_text())
    (folder / "b.alg").write_text("algorithm b\nnodes n\ngraph complete\nforall v { x = }\n")
    r = invoke("demo", folder)
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith(f"{folder / 'b.alg'}:4:16: E002 ")
    rows = [line for line in r.stdout.splitlines() if line.startswith("| parallel_search ")]
    assert len(rows) == 1 and "| a.alg |" in rows[0]
    (folder / "b.alg").unlink()
    assert invoke("demo", folder).exit_code == 0
    one_line_usage_error(invoke("demo", tmp_path / "none"), "no such file or folder")
