"""The "with high probability" mark of a `bound ... whp` loop reaches every output that
prints the static classes: text, `static_efficiency().whp`, `efficiency --static --json`
and `compile --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import algspec
from algspec.cli import app

HALVING = """algorithm halving
nodes n
graph complete
hint node alive: mask := true
output node out: mask = alive
record
while any(alive[u] for u in nodes) bound {bound} {{
    round {{ forall v {{ alive[v] = alive[v] and rand() < 0.5 }} }}
    record
}}
"""


@pytest.mark.parametrize("whp", [True, False])
def test_static_json_outputs_carry_whp(whp: bool, tmp_path: Path) -> None:
    src = HALVING.format(bound="4 * log2(n) + 4" + (" whp" if whp else ""))
    path = tmp_path / "halving.alg"
    path.write_text(src)
    assert algspec.load(path).static_efficiency().whp is whp
    runner = CliRunner()
    r = runner.invoke(app, ["efficiency", str(path), "--static"])
    assert r.exit_code == 0 and ("(whp)" in r.stdout) is whp, r.output
    r = runner.invoke(app, ["efficiency", str(path), "--static", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["halving"]["whp"] is whp
    r = runner.invoke(app, ["compile", str(path), "--json", "--samples", "2"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["static"]["whp"] is whp
