"""What the README and the docs state as facts about the repository agree with the
repository: the algorithm counts of the README's opening and its table of what ships, the
file count docs/diagnostics.md gives for `lint algorithms/`, the keys of `algspec text`'s
records (docs/commands.md), and what `scripts/run` does."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from algspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
DIAGNOSTICS = (ROOT / "docs" / "diagnostics.md").read_text()
COMMANDS = (ROOT / "docs" / "commands.md").read_text()
ALGS = ROOT / "algorithms"


def _opening() -> str:
    return README[:README.index("## Quick start")]


def test_opening_counts_what_ships() -> None:
    opening = " ".join(_opening().split())
    clrs, parallel = len(list((ALGS / "clrs").glob("*.alg"))), len(list((ALGS / "parallel").glob("*.alg")))
    salsa, paper = len(list((ALGS / "salsa").glob("*.alg"))), len(list(ALGS.glob("*.alg")))
    assert f"all of CLRS-30 ([`algorithms/clrs/`](algorithms/clrs), {clrs} files)" in opening
    assert clrs == 30
    assert f"{parallel} textbook parallel algorithms" in opening
    assert f"([`algorithms/salsa/`](algorithms/salsa), {salsa} files)" in opening
    assert paper == 6 and "the paper's six" in opening
    assert f"ships {clrs + parallel + salsa + paper} algorithms" in opening
    assert "ships the paper's six" not in opening


def test_lint_file_count_is_current() -> None:
    stated = re.search(r"`algspec lint\s+algorithms/` \((\d+) files\)", DIAGNOSTICS)
    assert stated, "docs/diagnostics.md gives the file count of `lint algorithms/`"
    r = CliRunner().invoke(app, ["lint", str(ALGS), "--no-sample"])
    assert f"all clean: {stated.group(1)} files" in r.stderr


def test_text_record_keys_are_the_documented_ones(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["text", str(ALGS / "parallel_search.alg"), "--length", "4",
                                 "--num", "1", "--out", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    record = json.loads((tmp_path / "t" / "data.jsonl").read_text().splitlines()[0])
    para = " ".join(COMMANDS[COMMANDS.index("`algspec text` writes"):].split())[:400]
    for key in record:
        assert f"`{key}`" in para, key
    assert "prompt, answer" not in para


def test_scripts_run_says_what_it_runs() -> None:
    script = (ROOT / "scripts" / "run").read_text()
    comment = " ".join(x.lstrip("# ") for x in script.splitlines()[1:3])
    assert "algspec demo" in script and "`algspec demo`" in comment
    assert "sample every shipped" not in comment
    line = next(x for x in README.splitlines() if x.startswith("scripts/run "))
    assert "`algspec demo`" in line and "every shipped algorithm" not in line


def test_what_ships_table_counts_are_current() -> None:
    """The README's table of what ships: each count is the repository's."""
    from algspec.codes import CODES
    from algspec.generators import GENERATORS
    from algspec.nn.processor_table import PROCESSOR_TABLE

    rows = {cells[0]: cells[1] for ln in _opening().splitlines() if ln.startswith("| ")
            if (cells := [c.strip() for c in ln.strip("|").split("|")])}
    assert rows["CLRS-30 algorithms"] == str(len(list((ALGS / "clrs").glob("*.alg"))))
    assert rows["textbook parallel algorithms"] == str(len(list((ALGS / "parallel").glob("*.alg"))))
    assert rows["SALSA-CLRS algorithms"] == str(len(list((ALGS / "salsa").glob("*.alg"))))
    assert rows["the paper's algorithms"] == str(len(list(ALGS.glob("*.alg"))))
    assert rows["processors (dm-clrs's names)"] == str(len(PROCESSOR_TABLE))
    assert rows["named input generators"] == str(len(GENERATORS))
    assert rows["diagnostic codes"] == str(len(CODES))


def test_readme_is_for_newcomers() -> None:
    """At most 300 lines, and every doc under docs/ is linked from it."""
    assert len(README.splitlines()) <= 300
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{doc.name})" in README, doc.name
