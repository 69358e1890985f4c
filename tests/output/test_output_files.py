"""`algspec.process.output_files`, the one way results are written: whole or nothing, the umask's
modes, only regular files replaced, temporaries of dead processes removed, one writer."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from algspec.process import output_files as of
from tests.output.helpers import dead_pid


@pytest.fixture()
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_files_and_folders_end_with_the_umask_mode(tmp_path: Path, umask_027) -> None:
    of.write_text(tmp_path / "a" / "f.txt", "x\n")
    assert stat.S_IMODE((tmp_path / "a" / "f.txt").stat().st_mode) == 0o640
    with of.temp_dir_for(tmp_path / "d") as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "g").write_text("y")
        os.chmod(tmp / "sub" / "g", 0o600)
        of.publish_dir(tmp, tmp_path / "d", overwrite=False)
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o750
    assert stat.S_IMODE((tmp_path / "d" / "sub").stat().st_mode) == 0o750
    assert stat.S_IMODE((tmp_path / "d" / "sub" / "g").stat().st_mode) == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), of.atomic_file(target) as f:
        f.write("half")
        raise RuntimeError("stopped")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["f.txt"]


@pytest.mark.parametrize("where,fragment", [
    ("/dev/full", "a device"), ("fifo", "a FIFO"), ("folder", "a folder"),
    ("plain/x", "a parent of it is a file"),
])
def test_only_regular_files_are_replaced(tmp_path: Path, where: str, fragment: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain").write_text("p")
    path = Path(where) if where.startswith("/") else tmp_path / where
    with pytest.raises(of.OutputError, match=fragment):
        of.write_text(path, "x")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)


def test_without_overwrite_a_file_that_appeared_meanwhile_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    with (pytest.raises(of.OutputError, match="another process meanwhile"),
          of.atomic_file(target, overwrite=False) as f):
        f.write("mine")
        target.write_text("theirs")  # another writer got there first
    assert target.read_text() == "theirs" and os.listdir(tmp_path) == ["f.txt"]


def test_a_link_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    of.write_text(tmp_path / "link.txt", "new")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"


def test_stale_temporaries_of_dead_processes_go_and_live_ones_stay(tmp_path: Path) -> None:
    target = tmp_path / "out"
    dead = tmp_path / f".out.{dead_pid()}.0a1b2c3d{of.TEMP_SUFFIX}"
    dead.mkdir()
    (dead / "samples.npz").write_bytes(b"partial")
    dead_file = tmp_path / f".out.{dead_pid()}.deadbeef{of.TEMP_SUFFIX}"
    dead_file.write_text("partial")
    live = tmp_path / f".out.1.0a1b2c3d{of.TEMP_SUFFIX}"  # pid 1 runs as long as we do
    live.write_text("in progress")
    other = tmp_path / f".outer.{dead_pid()}.0a1b2c3d{of.TEMP_SUFFIX}"  # another target's
    other.write_text("not ours")
    assert sorted(of.remove_stale_temporaries(target)) == sorted([dead, dead_file])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])


def test_publishing_never_replaces_a_folder_filled_meanwhile(tmp_path: Path) -> None:
    target = tmp_path / "ds"
    target.mkdir()  # empty: may be replaced
    with of.temp_dir_for(target) as tmp:
        (tmp / "a").write_text("mine")
        (target / "b").write_text("theirs")
        with pytest.raises(of.OutputError, match="another process meanwhile"):
            of.publish_dir(tmp, target, overwrite=False)
    assert sorted(os.listdir(tmp_path)) == ["ds"] and os.listdir(target) == ["b"]


def test_overwrite_swaps_the_folder_whole(tmp_path: Path) -> None:
    target = tmp_path / "ds"
    target.mkdir()
    (target / "old").write_text("old")
    with of.temp_dir_for(target) as tmp:
        (tmp / "new").write_text("new")
        of.publish_dir(tmp, target, overwrite=True)
    assert os.listdir(target) == ["new"] and os.listdir(tmp_path) == ["ds"]


def test_a_claim_holds_off_a_second_writer(tmp_path: Path) -> None:
    with of.claim(tmp_path / "ds"), pytest.raises(of.OutputBusy, match=f"pid {os.getpid()}"):
        of.acquire(tmp_path / "ds")
    with of.claim(tmp_path / "ds") as held:  # released: a second writer gets it now
        assert held.target == of.resolve(tmp_path / "ds")
    assert os.listdir(tmp_path) == []


def test_a_failed_claim_removes_the_folders_it_made(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), of.claim(tmp_path / "a" / "b" / "ds"):
        raise RuntimeError("stopped")
    assert os.listdir(tmp_path) == []


def test_a_location_that_refuses_files_is_found_before_writing(tmp_path: Path) -> None:
    with pytest.raises(of.OutputError, match="cannot create files in /proc"):
        of.check_target("/proc/algspec-nowhere/out", "dir")
