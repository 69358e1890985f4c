"""Every sample of an exported dataset replays from its stored arrays alone
(`algspec.sampling.dataset.replay`): files with private draws, `as` names, rand() and padded nodes
included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.sampling.dataset import export, load_dataset, replay

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "algorithms").rglob("*.alg"))
FILES = [f for f in FILES if "lib" not in f.parts]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem if p.parent.name == "algorithms"
                         else f"{p.parent.name}/{p.stem}")
def test_every_shipped_file_replays_its_dataset(path, tmp_path):
    alg = algspec.load(path)
    out = export(alg, tmp_path / "d", 4, 3, seed=11)
    _, traj = load_dataset(out)
    for i in range(3):
        _, probes = replay(alg, out, i)
        T = int(traj.lengths[i])
        for name, (stage, loc, _) in alg.spec.items():
            got = np.asarray(probes[stage][loc][name]["data"])
            if stage == "hint":
                want = traj.hints[name][:T, i]
            else:
                want = (traj.inputs if stage == "input" else traj.outputs)[name][i]
            assert np.array_equal(got.astype(np.float32), want), (name, i)


def test_replay_refuses_another_spec_and_a_sample_out_of_range(tmp_path):
    oets = algspec.load(ROOT / "algorithms" / "oets.alg")
    out = export(oets, tmp_path / "d", 5, 2, seed=0)
    with pytest.raises(IndexError, match="0..1"):
        replay(oets, out, 2)
    bubble = algspec.load(ROOT / "algorithms" / "bubble_sort.alg")
    with pytest.raises(ValueError, match="spec hash"):
        replay(bubble, out, 0)
