"""The CLI's rough edges: help printed once with its defaults, `-p` in `train`, `train`
keeping finished runs, `compile --json`'s static keys, grids whose files or `--only`
patterns match nothing, and `--address` without a Ray cluster."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
SEARCH = ROOT / "algorithms" / "parallel_search.alg"


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_error_line(r, *fragments: str, code: int = 2) -> str:
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = [x for x in r.stderr.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def test_bare_algspec_prints_its_help_once() -> None:
    r = invoke()
    assert r.exit_code == 2 and r.output.count("Usage: ") == 1, r.output
    p = subprocess.run([sys.executable, "-m", "algspec.cli"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120, check=False)
    both = p.stdout + p.stderr
    assert p.returncode == 2 and both.count("Usage: ") == 1 and both.count("Commands") == 1


@pytest.mark.parametrize(("command", "defaults"), [
    ("train", ["[default: runs/ALG_PROC_hH_sSEED_DIGEST", "[default: 2000]", "[default: mpnn]",
               "[default: 4,7,11,13,16]"]),
    ("sample", ["[default: out/dataset]", "[default: 100]"]),
    ("eval", ["[default: the run's]"]),
    ("experiment", ["[default: runs/GRID_NAME]", "[default: local]",
                    "[default: start a local one]"]),
])
def test_help_shows_defaults(command: str, defaults: list[str]) -> None:
    r = invoke(command, "--help")
    text = " ".join(r.stdout.split())  # help wraps lines
    assert r.exit_code == 0
    for d in defaults:
        assert d in text, (d, r.stdout)


@pytest.fixture()
def captured_train(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Stand in for the trainer: record what `algspec train` asks for."""
    calls: list[dict] = []

    def fake(config, out, **kwargs):
        calls.append({"config": config, "out": Path(out), **kwargs})
        split = {"score": 0.5, "metric": "micro_f1", "mse": None}
        return {"algorithm": "parallel_search", "val": split, "test": split,
                "seconds_per_step": 0.01, "device": "fake"}

    monkeypatch.setattr("algspec.training.trainer.train", fake)
    return calls


def test_p_is_param_in_train_and_still_selects_a_processor(
        tmp_path: Path, captured_train: list[dict]) -> None:
    r = invoke("train", SEARCH, "-p", "key.high=2", "--param", "target.low=0.5",
               "--out", tmp_path / "a")
    assert r.exit_code == 0, r.stderr
    config = captured_train[-1]["config"]
    assert config.processor == "mpnn"
    assert config.generator_params == {"key.high": 2, "target.low": 0.5}
    r = invoke("train", SEARCH, "-p", "gat", "-p", "key.high=2", "--out", tmp_path / "b")
    assert r.exit_code == 0, r.stderr
    config = captured_train[-1]["config"]
    assert config.processor == "gat" and config.generator_params == {"key.high": 2}
    assert "note: '-p gat' selects the processor" in r.stderr and "--processor gat" in r.stderr
    r = invoke("train", SEARCH, "--processor", "gat", "--out", tmp_path / "c")
    assert r.exit_code == 0 and captured_train[-1]["config"].processor == "gat"
    one_error_line(invoke("train", SEARCH, "-p", "gat", "--processor", "pgn",
                          "--out", tmp_path / "d"), "two processors given")
    one_error_line(invoke("train", SEARCH, "-p", "nonsense", "--out", tmp_path / "e"),
                   "NAME=VALUE")
    assert len(captured_train) == 3


def test_train_refuses_a_finished_run_unless_overwrite(tmp_path: Path,
                                                       captured_train: list[dict]) -> None:
    out = tmp_path / "run"
    out.mkdir()
    result = {"val": {"score": 0.9}, "test": {"score": 0.75, "metric": "micro_f1"}}
    (out / "result.json").write_text(json.dumps(result))
    one_error_line(invoke("train", SEARCH, "--out", out), f"{out} holds a finished run",
                   "micro-F1 0.7500", "--overwrite")
    assert not captured_train and json.loads((out / "result.json").read_text()) == result
    r = invoke("train", SEARCH, "--out", out, "--overwrite")
    assert r.exit_code == 0 and captured_train[-1]["overwrite"] is True

    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    one_error_line(invoke("train", SEARCH, "--out", other), "not empty and holds no run")
    unfinished = tmp_path / "unfinished"  # an interrupted run of the same options resumes
    unfinished.mkdir()
    r = invoke("train", SEARCH, "--out", unfinished)
    assert r.exit_code == 0
    config = captured_train[-1]["config"]
    (unfinished / "config.json").write_text(json.dumps(config.to_dict()))
    r = invoke("train", SEARCH, "--out", unfinished)
    assert r.exit_code == 0 and captured_train[-1]["overwrite"] is False
    # ... and one of other options is refused, naming what differs
    one_error_line(invoke("train", SEARCH, "--out", unfinished, "--steps", "7"),
                   "holds an unfinished run of other options", "steps")


def test_compile_json_static_has_the_efficiency_keys(tmp_path: Path) -> None:
    r = invoke("compile", SEARCH, "--json", "--samples", 2)
    assert r.exit_code == 0, r.stderr
    static = json.loads(r.stdout)["static"]
    r = invoke("efficiency", SEARCH, "--static", "--json")
    assert r.exit_code == 0, r.stderr
    eff = json.loads(r.stdout)["parallel_search"]
    assert {k: static[k] for k in eff} == eff
    aliases = {"rounds": "T", "capacity": "c", "node_efficiency": "eta",
               "edge_efficiency": "epsilon"}
    assert {old: static[old] for old in aliases} == {old: eff[new]
                                                     for old, new in aliases.items()}


def _grid(tmp_path: Path, **over) -> Path:
    grid = {"name": "g", "processors": ["mpnn"], "hidden": [8], "seeds": [0],
            "tasks": [{"name": "T", "sequential": "binary_search",
                       "parallel": "gone/missing.alg"}]}
    grid.update(over)
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(grid))
    return path


def test_dry_run_marks_runs_whose_file_is_missing(tmp_path: Path) -> None:
    r = invoke("experiment", _grid(tmp_path), "-o", tmp_path / "out", "--dry-run")
    one_error_line(r, "missing algorithm file(s)", "missing.alg", "1 runs cannot start")
    todo, missing = r.stdout.splitlines()
    assert todo == f"todo  {tmp_path / 'out' / 'runs' / 'binary_search_mpnn_h8_s0'}"
    assert missing.startswith(f"missing  {tmp_path / 'out' / 'runs' / 'missing_mpnn_h8_s0'}  "
                              "(no such file: ") and missing.endswith("gone/missing.alg)")
    assert "1 todo, 1 missing" in r.stderr and not (tmp_path / "out").exists()


def test_only_that_matches_nothing_says_so(tmp_path: Path) -> None:
    grid = _grid(tmp_path, tasks=[{"name": "T", "sequential": "binary_search",
                                   "parallel": "minimum"}])
    for extra in (["--dry-run"], []):
        r = invoke("experiment", grid, "-o", tmp_path / "out", "--only", "bubble*", *extra)
        one_error_line(r, "--only 'bubble*' matches none of the grid's 2 runs",
                       "binary_search_mpnn_h8_s0", "minimum_mpnn_h8_s0")
    r = invoke("experiment", grid, "-o", tmp_path / "out", "--only", "min*", "--only", "x*",
               "--dry-run")
    assert r.exit_code == 0 and "note: --only 'x*' matches no run" in r.stderr
    assert [x.split()[-1] for x in r.stdout.splitlines()] == [
        str(tmp_path / "out" / "runs" / "minimum_mpnn_h8_s0")]


def _free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("address", ["auto", "unused-port"])
def test_ray_address_without_a_cluster_is_one_error_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray instance is running in this process")
    if address == "auto":
        import psutil
        if any(p.info["name"] == "gcs_server" for p in psutil.process_iter(["name"])):
            pytest.skip("a Ray cluster runs on this machine: `auto` would find it")
    else:  # an address where nothing listens, whatever else runs here
        address = f"127.0.0.1:{_free_port()}"
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    grid = _grid(tmp_path, tasks=[{"name": "T", "sequential": "binary_search",
                                   "parallel": "minimum"}])
    out = tmp_path / "out"
    r = invoke("experiment", grid, "-o", out, "--launcher", "ray", "--address", address)
    one_error_line(r, f"--address {address}: no Ray cluster could be reached",
                   "ray start --head", "leave out --address")
    assert not out.exists()
