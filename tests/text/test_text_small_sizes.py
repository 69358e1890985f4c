"""Text at the smallest sizes: every shipped file writes text at n = 1 and n = 2 (a
one-node permutation is the node itself), and a traced hint whose type differs from its
output's prints with its own type."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec.diagnostics import RuntimeFault
from algspec.text import parse_record
from algspec.text.errors import NoTextForm, NothingToTrace
from algspec.text.format import permutation_order, value_text
from algspec.text.records import text_records
from tests.text.test_text_format import SHIPPED, _reformatted, hint_choices


def _refused_by_sampler(alg, n: int) -> bool:
    """The sampler itself refuses size n with a diagnostic (a generator that needs more
    nodes): then `text` reports the same diagnostic, and there is nothing to format."""
    try:
        alg.sample(n, 2, 0)
    except RuntimeFault:
        return True
    return False


def test_every_shipped_file_writes_text_at_n_1_and_2_that_reads_back() -> None:
    formatted = 0
    for path in SHIPPED:
        alg = algspec.load(path)
        for n in (1, 2):
            if _refused_by_sampler(alg, n):
                with pytest.raises(RuntimeFault):
                    list(text_records(alg, n, 2, 0))
                continue
            if hint_choices(alg) == (False,):
                with pytest.raises(NothingToTrace):
                    next(text_records(alg, n, 2, 0, hints=True))
            for hints in hint_choices(alg):
                records = list(text_records(alg, n, 2, 0, hints=hints))
                assert len(records) == 2, (path, n, hints)
                for r in records:
                    prompt, answer = r["prompt"], r["references"][0]
                    assert _reformatted(alg, parse_record(alg, prompt, answer), hints) == \
                        (prompt, answer), (path.name, n, hints)
                    formatted += 1
    assert formatted >= 3 * len(SHIPPED)  # most files, both sizes, with and without hints


def test_a_one_node_permutation_is_that_node() -> None:
    assert permutation_order(np.array([0])).tolist() == [0]
    assert permutation_order(np.array([0, 0])).tolist() == [0, 1]
    assert permutation_order(np.array([1, 1])).tolist() == [1, 0]
    assert value_text(np.array([0.0]), "node", "should_be_permutation",
                      np.array([0.25])) == "[0.25]"


@pytest.mark.parametrize("pred", [[0, 0, 0], [1, 2, 0], [0, 5, 1], [1, 0]])
def test_pointers_that_are_not_one_chain_have_no_permutation_text(pred) -> None:
    with pytest.raises(NoTextForm, match="one chain|node indices"):
        permutation_order(np.array(pred))


@pytest.mark.parametrize("mask", [[0, 0, 0], [1, 0, 1]])
def test_a_mask_one_that_marks_no_node_or_several_has_no_text(mask) -> None:
    with pytest.raises(NoTextForm, match="exactly one node"):
        value_text(np.array(mask, float), "node", "mask_one")


SORT_OF_ONE = """\
algorithm keep_order
nodes n
graph complete

input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
output node pred: permutation = chain(order)
hint   node pred_h: pointer = chain(order)

state  node order: int = index

record
round { forall p { order[p] = order[p] } }
record
"""


def test_a_permutation_output_of_a_new_program_writes_text_at_n_1(tmp_path: Path) -> None:
    path = tmp_path / "keep_order.alg"
    path.write_text(SORT_OF_ONE)
    alg = algspec.load(path)
    for hints in (False, True):
        (record,) = text_records(alg, 1, 1, 3, hints=hints)
        key = record["prompt"].split("key: ")[1].split("]")[0] + "]"
        assert record["references"][0].endswith(f"{key}\n\n")  # the one key, in order
        assert _reformatted(alg, parse_record(alg, record["prompt"], record["references"][0]),
                            hints) == (record["prompt"], record["references"][0])


LATE_WINNER = """\
algorithm late_winner
nodes n
graph complete

input  node key: scalar ~ uniform(low = 0.0, high = 1.0)
output node top: mask_one = onehot(best)
hint   node top_h: mask = done and index == best

state  graph best: int = 0
state  graph done: bool = false

record
for cur in 1 .. n {
    if key[best] > key[cur] { best = cur }
    record
}
done = true
record
"""


def test_a_mask_hint_of_a_mask_one_output_prints_its_frames_as_masks(tmp_path: Path) -> None:
    """`top_h` marks no node until its last frame: its frames print as masks, as CLRS-Text
    prints a mask, while the answer prints `top` as the index of its one node."""
    path = tmp_path / "late_winner.alg"
    path.write_text(LATE_WINNER)
    alg = algspec.load(path)
    (record,) = text_records(alg, 3, 1, 0, hints=True)
    prompt, answer = record["prompt"], record["references"][0]
    assert prompt.endswith(", initial_trace: [0 0 0]\ntrace | top:\n")
    frames, final = answer.removesuffix("\n\n").split(" | ")
    assert frames == "[0 0 0], [0 0 0]" and final.isdigit()
    parsed = parse_record(alg, prompt, answer)
    np.testing.assert_array_equal(parsed.initial_trace[0], np.zeros(3))
    assert int(np.flatnonzero(parsed.answer["top"])[0]) == int(final)
    assert _reformatted(alg, parsed, True) == (prompt, answer)
    plain = next(text_records(alg, 3, 1, 0))
    assert plain["references"][0] == f"{final}\n\n"
    assert json.dumps(record)  # a JSON Lines record as written
