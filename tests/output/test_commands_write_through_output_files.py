"""What the commands leave on disk: the umask's modes (not 0600), no temporaries of a
killed run once the next run on the same target is done, one writer per `--out`, and
`convert --overwrite` replacing only regular files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from algspec.process import output_files as of
from tests.output.helpers import dead_pid, invoke, one_error_line, program


@pytest.fixture()
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def _modes(root: Path) -> set[tuple[str, int]]:
    return {("dir" if p.is_dir() else "file", stat.S_IMODE(p.stat().st_mode))
            for p in [root, *root.rglob("*")]}


def test_every_written_file_has_the_umask_mode(tmp_path: Path, umask_027) -> None:
    alg = program(tmp_path)
    for args in (["sample", alg, "-n", 3, "-k", 2, "--out", tmp_path / "ds"],
                 ["text", alg, "-n", 3, "-k", 2, "--out", tmp_path / "txt"],
                 ["text", alg, "-n", 3, "-k", 2, "--out", tmp_path / "txt", "--format", "hf"],
                 ["convert", alg, "--out", tmp_path / "yaml" / "t.yaml"]):
        r = invoke(*args)
        assert r.exit_code == 0, r.output
    for folder in ("ds", "txt", "yaml"):
        assert _modes(tmp_path / folder) <= {("dir", 0o750), ("file", 0o640)}, folder


@pytest.mark.parametrize("command,target", [
    (["sample", "{alg}", "-n", 3, "-k", 2, "--out", "{out}"], "ds"),
    (["text", "{alg}", "-n", 3, "-k", 2, "--out", "{out}"], "data.jsonl"),
    (["text", "{alg}", "-n", 3, "-k", 2, "--out", "{out}", "--format", "hf"], "hf"),
    (["convert", "{alg}", "--out", "{out}"], "t.yaml"),
])
def test_the_next_run_removes_what_a_killed_run_left(tmp_path: Path, command: list,
                                                     target: str) -> None:
    alg = program(tmp_path)
    where = tmp_path / "out"
    where.mkdir()
    out = where / "ds" if target == "ds" else where / "t.yaml" if target == "t.yaml" else where
    name = out.name if target in ("ds", "t.yaml") else target
    killed = where / f".{name}.{dead_pid()}.0a1b2c3d{of.TEMP_SUFFIX}"
    killed.write_bytes(b"partial, from kill -9")
    running = where / f".{name}.1.0a1b2c3d{of.TEMP_SUFFIX}"  # a live process's: kept
    running.write_bytes(b"in progress")
    r = invoke(*[str(a).format(alg=alg, out=out) for a in command])
    assert r.exit_code == 0, r.output
    assert not killed.exists() and running.read_bytes() == b"in progress"
    assert (where / name).exists()
    assert not [p for p in where.iterdir() if p.name.endswith(of.LOCK_SUFFIX)]


@pytest.mark.parametrize("command", [
    ["sample", "{alg}", "-n", 3, "-k", 2, "--out", "{out}"],
    ["text", "{alg}", "-n", 3, "-k", 2, "--out", "{out}"],
])
def test_a_second_writer_of_the_same_out_fails_in_one_line(tmp_path: Path,
                                                           command: list) -> None:
    alg = program(tmp_path)
    out = tmp_path / "new"
    held = out if command[0] == "sample" else out / "data.jsonl"
    with of.claim(held):  # another algspec run is writing there
        line = one_error_line(invoke(*[str(a).format(alg=alg, out=out) for a in command]))
    assert "being written by another algspec process" in line and str(os.getpid()) in line
    assert not (held.exists() and held.name == "data.jsonl")


def test_two_samples_racing_into_one_new_out_leave_one_result(tmp_path: Path) -> None:
    """The loser of the race publishes nothing over the winner's folder."""
    import algspec
    from algspec.sampling import dataset
    alg = program(tmp_path)
    compiled = algspec.load(alg)
    out = tmp_path / "ds"
    real_write = dataset._write_npz

    def winner_publishes_first(path, arrays, progress=None):
        real_write(path, arrays, progress)
        if not racing:
            racing.append(True)
            dataset.export(compiled, out, 3, 2, seed=1)  # the other process, finishing first

    racing: list[bool] = []

    dataset._write_npz = winner_publishes_first
    try:
        with pytest.raises(of.OutputError, match="another process meanwhile"):
            dataset.export(compiled, out, 3, 5, seed=2)
    finally:
        dataset._write_npz = real_write
    manifest, _ = dataset.load_dataset(out)
    assert manifest["seed"] == 1 and sorted(os.listdir(tmp_path)) == ["ds", "threshold.alg"]


def test_convert_overwrite_replaces_only_regular_files(tmp_path: Path) -> None:
    alg = program(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    for out, fragment in (("/dev/full", "a device"), (tmp_path / "fifo", "a FIFO"),
                          (tmp_path / "folder", "a folder")):
        line = one_error_line(invoke("convert", alg, "--out", out, "--overwrite"))
        assert fragment in line
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)
    (tmp_path / "old.yaml").write_text("old")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "old.yaml")
    r = invoke("convert", alg, "--out", tmp_path / "link.yaml", "--overwrite")
    assert r.exit_code == 0 and "through the link" in r.stdout
    assert (tmp_path / "link.yaml").is_symlink()
    assert "threshold_mark" in (tmp_path / "old.yaml").read_text()
