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
from algspec.text.format import format_sample, permutation_order, value_text
from algspec.text.records import one_sample, text_records

ROOT = Path(__file__).resolve().parents[2]
CLRS_FILES = sorted((ROOT / "algorithms" / "clrs").glob("*.alg"))


def hint_choices(alg) -> tuple[bool, ...]:
    """(False, True), or (False,) for a file with no hint to trace: `hints=True` refuses it."""
    from algspec.text.errors import NothingToTrace
    from algspec.text.request import check_hints

    try:
        check_hints(alg.name, alg.spec)
    except NothingToTrace:
        return (False,)
    return (False, True)


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
                   for hints in hint_choices(alg)}
        for i in range(3):
            sample = to_clrs(one_sample(batch, i))
            for hints in (False, True):
                want = clrs_utils.format_clrs_example(alg.name, sample, use_hints=hints)
                got = records[hints if hints in records else False]  # no trace: as without
                got = got[i]
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


# ------------------------------------------------------------------ text back to arrays
SHIPPED = sorted(p for p in (ROOT / "algorithms").rglob("*.alg") if "lib" not in p.parts)


def _reformatted(alg, parsed, hints: bool) -> tuple[str, str]:
    """`format_sample` of the parsed arrays (a batch of one rebuilt from them)."""
    from algspec.feedback import DataPoint, Features, Feedback
    from algspec.text.format import TRACED_INSTEAD, traced_hints

    spec = alg.spec

    def point(name, data):
        return DataPoint(name, spec[name][1], spec[name][2], np.asarray(data)[None])

    inputs = [point(d, v) for d, v in parsed.inputs.items()]
    outputs = [point(d, v) for d, v in parsed.answer.items() if spec[d][0] == "output"]
    hint_points = []
    if parsed.initial_trace:
        names = [h for h, _ in traced_hints(alg.name, spec, [d for d, s in spec.items()
                                                        if s[0] == "output"], list(spec))]
        for k, hint in enumerate(names):
            frames = [parsed.initial_trace[k]] + [f[k] for f in parsed.trace]
            from_trace = TRACED_INSTEAD.get(alg.name, ((), False))[1]
            # the last frame prints only where the answer is read from it
            last = parsed.answer[hint] if from_trace else parsed.answer.get(hint[:-2], frames[0])
            data = np.stack([np.asarray(f, np.float32) for f in frames + [last]])
            hint_points.append(DataPoint(hint, spec[hint][1], spec[hint][2], data[:, None]))
    sample = Feedback(Features(tuple(inputs), tuple(hint_points), np.ones(1)), tuple(outputs))
    optional = frozenset(d.spec_name for d in alg.ir.decls if d.optional)  # `mask_one?`
    return format_sample(alg.name, spec, sample, hints, optional)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_text_reads_back_into_the_arrays_it_was_written_from(path: Path) -> None:
    from algspec.text.parse import parse_record

    alg = algspec.load(path)
    batch = alg.batch_sampler(length=6, num_samples=-1, seed=1).next(2)
    for hints in hint_choices(alg):
        for i, record in enumerate(text_records(alg, 6, 2, 1, hints=hints)):
            prompt, answer = record["prompt"], record["references"][0]
            parsed = parse_record(alg, prompt, answer)
            assert _reformatted(alg, parsed, hints) == (prompt, answer)
            sample = one_sample(batch, i)
            lossless = ("scalar", "mask", "mask_one", "pointer")
            for dp in list(sample.features.inputs) + list(sample.outputs):
                got = parsed.inputs.get(dp.name, parsed.answer.get(dp.name))
                if got is not None and dp.type_ in lossless:
                    np.testing.assert_array_equal(got, np.asarray(dp.data)[0], err_msg=dp.name)


def test_a_model_answer_scores_per_output_and_exactly() -> None:
    from algspec.text.parse import score_answer

    alg = algspec.load(ROOT / "algorithms" / "clrs" / "bfs.alg")
    record = next(text_records(alg, 5, 1, 4))
    prompt, truth = record["prompt"], record["references"][0]
    assert score_answer(alg, prompt, truth, truth) == {"exact": True, "per_output": {"pi": 1.0},
                                                       "score": 1.0}
    values = truth.strip()[1:-1].split()
    wrong = list(values)
    wrong[0] = str((int(values[0]) + 1) % 5)
    graded = score_answer(alg, prompt, "[" + " ".join(wrong) + "]\n\n", truth)
    assert not graded["exact"] and graded["per_output"]["pi"] == pytest.approx(4 / 5)
    assert score_answer(alg, prompt, "no idea", truth)["score"] == 0.0


def test_the_hugging_face_dataset_holds_the_jsonl_records(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    from algspec.text.records import write_hf, write_jsonl

    alg = algspec.load(ROOT / "algorithms" / "clrs" / "dfs.alg")
    write_jsonl(text_records(alg, 5, 3, 7, hints=True), tmp_path)
    write_hf(text_records(alg, 5, 3, 7, hints=True), tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "data.jsonl").read_text().splitlines()]
    assert list(datasets.load_from_disk(str(tmp_path / "hf"))) == lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.jsonl", "hf"]  # no leftovers


def _fixture_programs() -> list[Path]:
    """Test programs written apart from the shipped files (their folders under tests/)."""
    return sorted(p for p in (ROOT / "tests").rglob("*.alg")
                  if "lib" not in p.parts and "bad" not in p.parts)


@pytest.mark.parametrize("path", _fixture_programs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_text_of_any_program_reads_back(path: Path) -> None:
    """Beyond the shipped files: every test program that samples writes text that reads back
    into arrays printing the same text, in batches of 1, 2 and n records."""
    from algspec.diagnostics import AlgError, RuntimeFault
    from algspec.text.parse import parse_record

    try:
        alg = algspec.load(path)
        alg.batch_sampler(length=5, num_samples=-1, seed=0).next(1)
    except (AlgError, RuntimeFault, ValueError, TypeError):
        pytest.skip("a program made to fail or to need inputs given")
    num = (1, 2, 5)[len(path.stem) % 3]
    for hints in hint_choices(alg):
        records = list(text_records(alg, 5, num, 0, hints=hints))
        assert len(records) == num
        for record in records:
            prompt, answer = record["prompt"], record["references"][0]
            assert _reformatted(alg, parse_record(alg, prompt, answer), hints) == (prompt, answer)
