"""The by-hand replay recipe of docs/commands.md works as written: `algspec sample` to a folder, then
`alg.trace(n=manifest["length"], **algspec.sampling.dataset.stored_trace_inputs(alg, z, i))` with
`z = np.load(".../samples.npz")` gives every stored sample back: on a file with private
draws, views that stand in for them and data computed from recorded inputs, and on a file
that draws `rand()` (whose draws are keyed by its generated inputs, so it has no private
ones)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app
from tests.support.small_programs import STAND_IN_HEAD

ROOT = Path(__file__).resolve().parents[2]

MIXED = """algorithm mixed_inputs
""" + STAND_IN_HEAD + """input node flag: mask ~ uniform_int()
input node twice: scalar = f * 2.0 if flag else s
private graph zeros: int = count(not flag[u] for u in nodes)
hint node h: scalar
output node w: scalar
record
forall v { h[v] = f[v] - s[v] + twice[v] + float(zeros) }
record
forall v { w[v] = h[v] }
"""

COINS = """algorithm coins
nodes n
graph complete
input node key: scalar ~ uniform()
input node flag: mask ~ uniform_int()
input node twice: scalar = key * 2.0 if flag else key
hint node h: scalar
output node w: scalar
record
forall v { h[v] = twice[v] * rand() }
record
forall v { w[v] = h[v] + rand() }
"""


def _recipe() -> tuple[str, str, str]:
    """The recipe's three pieces: how `z` is opened, the trace call, the rand key."""
    text = (ROOT / "docs" / "commands.md").read_text()
    call = re.search(r"`(alg\.trace\([^`]*stored_trace_inputs\(alg, z, i\)\))`", text)
    load = re.search(r"z = `?(np\.load\(\"\.\.\./samples\.npz\"\))`?", text)
    key = re.search(r"`(rand_key=int\(z\[\"rand_keys\"\]\[i\]\))`", text)
    assert call and load and key, "the replay recipe moved from docs/commands.md; update this test"
    return load.group(1), call.group(1), key.group(1)


@pytest.mark.parametrize("source", [MIXED, COINS], ids=["private_draws", "rand"])
def test_the_readme_recipe_replays_every_sample(source: str, tmp_path: Path) -> None:
    (tmp_path / "prog.alg").write_text(source)
    folder = tmp_path / "data"
    r = CliRunner().invoke(app, ["sample", str(tmp_path / "prog.alg"), "--length", "5",
                                 "--num", "6", "--seed", "3", "--out", str(folder)])
    assert r.exit_code == 0, r.output
    load, call, key = _recipe()
    alg = algspec.load(tmp_path / "prog.alg")
    manifest = json.loads((folder / "manifest.json").read_text())
    z = eval(load.replace(".../samples.npz", str(folder / "samples.npz")),
             {"np": np})
    assert ("rand_keys" in z.files) == alg.uses_rand
    if alg.uses_rand:  # "a file that draws rand() also needs" its key
        call = call[:-1] + ", " + key + ")"
    for i in range(manifest["num_samples"]):
        out, probes = eval(call, {"alg": alg, "algspec": algspec, "manifest": manifest,
                                  "z": z, "i": i})
        T = int(z["lengths"][i])
        for name, (stage, loc, _) in alg.spec.items():
            got = np.asarray(probes[stage][loc][name]["data"]).astype(np.float32)
            want = (z[f"hints/{name}"][:T, i] if stage == "hint" else
                    z[f"{stage}s/{name}"][i])
            np.testing.assert_array_equal(got, want, err_msg=f"{name}, sample {i}")
        np.testing.assert_array_equal(np.float32(out), z["outputs/w"][i])


def test_stored_inputs_from_the_npz_a_mapping_or_trajectories_agree(tmp_path: Path) -> None:
    alg = algspec.load_source(MIXED)
    t = alg.sample(4, 2, seed=0)
    arrays = {f"inputs/{k}": v for k, v in t.inputs.items()}
    np.savez(tmp_path / "s.npz", **arrays)
    with np.load(tmp_path / "s.npz") as z:
        from_npz = algspec.sampling.dataset.stored_trace_inputs(alg, z, 1)
    from_map = algspec.sampling.dataset.stored_trace_inputs(alg, t.inputs, 1)
    from_traj = algspec.sampling.dataset.stored_trace_inputs(alg, t, 1)
    assert sorted(from_npz) == sorted(from_map) == sorted(from_traj) == \
        ["f", "flag", "s", "twice"]
    for k in from_npz:
        np.testing.assert_array_equal(from_npz[k], from_map[k])
        np.testing.assert_array_equal(from_traj[k], from_map[k])
