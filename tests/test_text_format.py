"""Text traces: CLRS-30 files give CLRS-Text's strings character for character; the same
rules write any file, and the command writes whole JSON Lines records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.text.format import permutation_order, value_text
from algspec.text.records import one_sample, text_records

ROOT = Path(__file__).resolve().parents[1]
CLRS_FILES = sorted((ROOT / "algorithms" / "clrs").glob("*.alg"))


@pytest.mark.parametrize("path", CLRS_FILES, ids=lambda p: p.stem)
def test_clrs_files_give_clrs_text_strings(path: Path) -> None:
    clrs_utils = pytest.importorskip("clrs._src.clrs_text.clrs_utils")
    from algspec.feedback import to_clrs
    from algspec.sampling import BatchSampler

    alg = algspec.load(path)
    for decimals in (None, 3):
        batch = BatchSampler(alg, alg.spec, -1, seed=3, length=6,
                             truncate_decimals=decimals).next(3)
        records = {hints: list(text_records(alg, 6, 3, 3, hints=hints, decimals=decimals))
                   for hints in (False, True)}
        for i in range(3):
            sample = to_clrs(one_sample(batch, i))
            for hints in (False, True):
                want = clrs_utils.format_clrs_example(alg.name, sample, use_hints=hints)
                got = records[hints][i]
                assert (got["prompt"], got["references"][0]) == want, (decimals, i, hints)


def test_a_should_be_permutation_lists_the_keys_in_order_or_the_nodes() -> None:
    pred = np.array([2, 0, 2, 1])  # order 2 -> 0 -> 1 -> 3 (2 points to itself)
    assert permutation_order(pred).tolist() == [2, 0, 1, 3]
    key = np.array([0.5, 0.7, 0.1, 0.9])
    assert value_text(pred, "node", "should_be_permutation", key) == "[0.1 0.5 0.7 0.9]"
    assert value_text(pred, "node", "should_be_permutation") == "[2 0 1 3]"


def test_values_print_by_location_and_type() -> None:
    assert value_text(np.array([0, 1, 0.0]), "node", "mask_one") == "1"
    assert value_text(np.array([[0, 1], [1, 0.0]]), "node", "categorical") == "[1 0]"
    edges = np.zeros((2, 2, 3))
    edges[0, 0, 1] = edges[1, 1, 2] = 1
    edges[0, 1] = -1  # a masked pair
    assert value_text(edges, "edge", "categorical") == "[[1 -1], [0 2]]"
    assert value_text(np.float32(0.25), "graph", "scalar") == "0.25"
    assert value_text(np.array([0.0, 1.0]), "graph", "mask_one") == "[0 1]"


def test_a_trace_leads_the_answer_for_an_output_with_a_hint() -> None:
    alg = algspec.load(ROOT / "algorithms" / "oets.alg")  # pred with hint pred_h
    traced = next(text_records(alg, 5, 1, 0, hints=True))
    plain = next(text_records(alg, 5, 1, 0))
    prompt, answer = traced["prompt"], traced["references"][0]
    assert plain["prompt"].startswith("oets:\nkey: [") and plain["prompt"].endswith("\npred:\n")
    assert prompt == plain["prompt"].replace("\npred:\n", ", initial_trace: ") \
        + prompt.split("initial_trace: ")[1].split("\n")[0] + "\ntrace | pred:\n"
    frames, final = answer.rstrip("\n").split(" | ")
    assert final + "\n\n" == plain["references"][0]  # the same sample, the same answer
    batch = alg.batch_sampler(length=5, num_samples=-1, seed=0).next(1)
    assert frames.count("[") == int(batch.features.lengths[0]) - 2  # middle frames only


def test_the_command_writes_one_record_per_sample(tmp_path: Path) -> None:
    out = tmp_path / "text"
    cmd = [sys.executable, "-m", "algspec.cli", "text", str(ROOT / "algorithms" / "clrs" /
                                                          "insertion_sort.alg"),
           "-n", "5", "-k", "4", "--seed", "2", "--out", str(out), "--decimals", "3"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = (out / "data.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 4 and len({r["prompt"] for r in records}) == 4
    assert records[0]["auxiliary"] == {"length": 5, "seed": 2, "use_hints": False,
                                       "algorithm": "insertion_sort"}
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 2 and again.stderr.startswith("error: ")
    assert "--overwrite" in again.stderr
