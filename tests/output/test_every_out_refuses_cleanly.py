"""Every command's `--out` (and `--plot`) walked through the places a result cannot go:
under a file, a file where a folder is meant (and the reverse), a device, a location that
refuses new files, and a link to a device. Each is one `error:` line, exit 1 or 2, before
any sampling or training, and nothing there changes. A link to a usable place is followed:
its target gets the result and the link stays."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.output.helpers import invoke, one_error_line, program

DIR_COMMANDS = {
    "sample": lambda alg, out: ["sample", alg, "-n", 3, "-k", 2, "--out", out, "--overwrite"],
    "text-jsonl": lambda alg, out: ["text", alg, "-n", 3, "-k", 2, "--out", out,
                                    "--overwrite"],
    "text-hf": lambda alg, out: ["text", alg, "-n", 3, "-k", 2, "--out", out,
                                 "--format", "hf", "--overwrite"],
    "eval": lambda alg, out: ["eval", alg.parent / "no-run", "--sizes", 4, "--out", out],
    "train": lambda alg, out: ["train", alg, "--steps", 1, "--out", out],
    "experiment": lambda alg, out: ["experiment", alg.parent / "grid.yaml", "--out", out],
}
FILE_COMMANDS = {
    "convert": lambda alg, out: ["convert", alg, "--out", out, "--overwrite"],
    "efficiency": lambda alg, out: ["efficiency", alg, "--sizes", "3,4", "--samples", 1,
                                    "--plot", out],
}


def _places(tmp: Path, kind: str) -> dict[str, Path]:
    regular = tmp / "regular.txt"
    regular.write_text("keep me\n")
    folder = tmp / "folder"
    folder.mkdir(exist_ok=True)
    (folder / "keep").write_text("keep me\n")
    device = Path("/dev/null" if kind == "dir" else "/dev/full")
    link = tmp / "link-to-device"
    if not link.is_symlink():
        link.symlink_to(device)
    places = {
        "under a file": regular / "x.png",
        "a device": device,
        "a location refusing new files": Path("/proc/algspec-nowhere/x.png"),
        "a link to a device": link,
        ("a file" if kind == "dir" else "a folder"): regular if kind == "dir" else folder,
    }
    if os.geteuid() != 0:  # root writes into a mode-0555 folder: the other cases cover it
        locked = tmp / "locked"
        locked.mkdir(exist_ok=True)
        locked.chmod(0o555)
        places["a read-only folder"] = locked / "x.png"
    return places


@pytest.fixture()
def alg(tmp_path: Path) -> Path:
    p = program(tmp_path)
    twin = tmp_path / "twin.alg"  # a grid's two sides are two runs: two files
    twin.write_text(p.read_text())
    (tmp_path / "grid.yaml").write_text(json.dumps({
        "name": "g", "tasks": [{"name": "T", "sequential": str(p), "parallel": str(twin)}],
        "processors": ["mpnn"], "hidden": [8], "seeds": [0],
        "train": {"steps": 1, "batch_size": 2, "train_sizes": [3], "val_size": 3,
                  "test_size": 3, "train_samples": 2, "val_samples": 2, "test_samples": 2}}))
    return p


@pytest.mark.parametrize("command", [*DIR_COMMANDS, *FILE_COMMANDS])
def test_every_unusable_out_is_one_error_line(tmp_path: Path, alg: Path, command: str) -> None:
    kind = "dir" if command in DIR_COMMANDS else "file"
    build = {**DIR_COMMANDS, **FILE_COMMANDS}[command]
    before = sorted(p.name for p in tmp_path.iterdir())
    for case, out in _places(tmp_path, kind).items():
        r = invoke(*build(alg, out))
        line = one_error_line(r)
        assert str(out) in line or "--out" in line or "--plot" in line, (case, line)
        assert (tmp_path / "regular.txt").read_text() == "keep me\n", case
        assert sorted(p.name for p in (tmp_path / "folder").iterdir()) == ["keep"], case
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode), case
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode), case
        assert not Path("/proc/algspec-nowhere").exists()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert set(left) - set(before) <= {"regular.txt", "folder", "link-to-device", "locked"}
    assert not [p for p in tmp_path.rglob("*algspec-*")]  # no temporaries, no locks


@pytest.mark.parametrize("command", ["sample", "text-jsonl", "convert"])
def test_a_link_is_followed_and_kept(tmp_path: Path, alg: Path, command: str) -> None:
    kind = "dir" if command in DIR_COMMANDS else "file"
    real = tmp_path / ("real" if kind == "dir" else "real.yaml")
    if kind == "dir":
        real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    r = invoke(*{**DIR_COMMANDS, **FILE_COMMANDS}[command](alg, link))
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and link.resolve() == real.resolve()
    if kind == "dir":
        assert sorted(p.name for p in real.iterdir()) in (["manifest.json", "samples.npz"],
                                                          ["data.jsonl"])
    else:
        assert real.read_text().startswith("algorithm: threshold_mark") or real.stat().st_size
        assert f"through the link {link}" in r.stdout
