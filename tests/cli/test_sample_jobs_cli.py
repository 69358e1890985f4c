"""`algspec sample --jobs K [--launcher ray]`: the same files as one process, one `error:`
line for a bad value, and a Ctrl-C that leaves nothing half written and stops its workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from algspec.cli import app
from tests.sampling.test_sample_jobs import GRAPH, SORT


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_error_line(r, *fragments: str, code: int = 2) -> None:
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.output
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "reach.alg"
    path.write_text(GRAPH)
    return path


@pytest.mark.parametrize("jobs", ["0", "-1", "-8"])
def test_jobs_below_one_is_one_error_line(tmp_path: Path, graph_file: Path, jobs: str) -> None:
    out = tmp_path / "out"
    one_error_line(invoke("sample", graph_file, "--out", out, "--jobs", jobs),
                   "--jobs", "greater than or equal to 1")
    assert not out.exists()


def test_launcher_mistakes_are_one_error_line(tmp_path: Path, graph_file: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    one_error_line(invoke("sample", graph_file, "--out", out, "--launcher", "mpi"),
                   "unknown launcher 'mpi'")
    one_error_line(invoke("sample", graph_file, "--out", out, "--address", "auto"),
                   "--address needs --launcher ray")
    monkeypatch.setitem(sys.modules, "ray", None)  # as where ray is not installed
    one_error_line(invoke("sample", graph_file, "--out", out, "--launcher", "ray",
                          "--jobs", "2"), "--launcher ray needs ray", "pip install")
    assert not out.exists()


def test_two_and_three_jobs_write_the_same_files(tmp_path: Path, graph_file: Path) -> None:
    """A `graph input` drawn from another family, 11 samples: K = 2, 3 divide nothing."""
    args = ["sample", graph_file, "-n", "7", "-k", "11", "--seed", "3",
            "--param", "A.family=ws", "--no-progress"]
    folders = {}
    for jobs in (1, 2, 3):
        folders[jobs] = tmp_path / f"j{jobs}"
        r = invoke(*args, "--out", folders[jobs], "--jobs", jobs)
        assert r.exit_code == 0, r.output
        assert r.stdout.strip() == f"wrote 11 samples of jobs_reach at n=7 to {folders[jobs]}"
    for name in ("samples.npz", "manifest.json"):
        first = (folders[1] / name).read_bytes()
        assert (folders[2] / name).read_bytes() == first == (folders[3] / name).read_bytes()


def test_ctrl_c_in_process_says_what_was_drawn_and_the_rerun(
        tmp_path: Path, graph_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    # the memory check after the first piece: a stand-in for Ctrl-C while pieces arrive
    monkeypatch.setattr("algspec.sampling.jobs.check_samples_fit", stop)
    out = tmp_path / "out"
    r = invoke("sample", graph_file, "-n", "4", "-k", "300", "--out", out, "--jobs", "2",
               "--no-progress")
    assert r.exit_code == 130, r.output
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), r.stderr
    assert "stopped after 0 of 300 were drawn" in lines[0]
    assert f"nothing was written to {out}" in lines[0]
    assert f"--out {out} --jobs 2` again to start over" in lines[0]
    assert not out.exists() and not list(tmp_path.glob(".*algspec-tmp*"))


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text() if (task / "children").exists() else ""
        kids += [int(x) for x in text.split()]
    return kids


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the worker processes through /proc, which this system lacks")
def test_ctrl_c_stops_the_workers_and_leaves_no_half_written_file(tmp_path: Path) -> None:
    """A real SIGINT, as a terminal sends it to the command's process group, while two
    workers draw: exit 130, one line, no `--out` folder, no temporary, no worker left."""
    source = tmp_path / "sort.alg"
    source.write_text(SORT)
    out = tmp_path / "out"
    algspec = Path(sys.executable).with_name("algspec")
    proc = subprocess.Popen(
        [str(algspec), "sample", str(source), "-n", "48", "-k", "4000", "--out", str(out),
         "--jobs", "2", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        workers = _children(proc.pid)
    assert len(workers) == 2, "the two workers did not start"
    time.sleep(1.0)  # drawing now
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    lines = [x for x in stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: sampling 4000 samples"), stderr
    assert "--jobs 2` again to start over" in lines[0]
    assert not out.exists() and not list(tmp_path.glob(".*algspec-tmp*"))
    for pid in workers:  # ours, stopped by the command itself
        deadline = time.monotonic() + 10
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            status = Path(f"/proc/{pid}/status").read_text() if Path(
                f"/proc/{pid}/status").exists() else ""
            if "State:\tZ" in status:
                break
            time.sleep(0.1)
        status = Path(f"/proc/{pid}/status")
        assert not status.exists() or "State:\tZ" in status.read_text(), pid


@pytest.mark.slow
def test_launcher_ray_writes_the_same_files(tmp_path: Path, graph_file: Path,
                                            ray_cluster: str) -> None:
    """`--launcher ray --address` on a private local cluster (conftest's `ray_cluster`;
    skipped where ray is not installed)."""
    args = ["sample", graph_file, "-n", "6", "-k", "5", "--seed", "1", "--no-progress"]
    assert invoke(*args, "--out", tmp_path / "one").exit_code == 0
    r = invoke(*args, "--out", tmp_path / "ray", "--jobs", "2", "--launcher", "ray",
               "--address", ray_cluster)
    assert r.exit_code == 0, r.output
    for name in ("samples.npz", "manifest.json"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_two_jobs_write_the_one_process_sparse_files(tmp_path: Path, graph_file: Path) -> None:
    """`--edges sparse`: the same bytes for any --jobs; the manifest says the storage."""
    args = ["sample", graph_file, "-n", "9", "-k", "11", "--seed", "3", "--no-progress"]
    folders = {}
    for jobs, edges in ((1, "sparse"), (2, "sparse"), (1, "dense")):
        folders[jobs, edges] = tmp_path / f"j{jobs}{edges}"
        r = invoke(*args, "--out", folders[jobs, edges], "--jobs", jobs, "--edges", edges)
        assert r.exit_code == 0, r.output
    for name in ("samples.npz", "manifest.json"):
        assert (folders[1, "sparse"] / name).read_bytes() == \
            (folders[2, "sparse"] / name).read_bytes()
    assert '"edges": "sparse"' in (folders[1, "sparse"] / "manifest.json").read_text()
    assert '"edges"' not in (folders[1, "dense"] / "manifest.json").read_text()


def test_an_unknown_edge_storage_is_one_error_line(tmp_path: Path, graph_file: Path) -> None:
    out = tmp_path / "out"
    one_error_line(invoke("sample", graph_file, "--out", out, "--edges", "csr"),
                   "unknown --edges 'csr'", "dense or sparse")
    assert not out.exists()
