"""Micro-F1 (algspec.training.metrics) on hand-computed cases, and against clrs.evaluate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from algspec.training.metrics import Tally, counts_for, f1, fuse_permutation, micro_f1


@dataclass
class DP:
    """Stand-in for clrs.DataPoint (the metric is duck-typed)."""

    name: str
    location: str
    type_: str
    data: Any


def onehot(idx: list[int], k: int) -> np.ndarray:
    return np.eye(k)[idx]


# ---------------------------------------------------------------- hand-computed


def test_mask_counts_and_f1() -> None:
    truth = np.array([[1, 0, 1, 1], [0, 0, 1, 0]], float)
    pred = np.array([[0.9, 0.7, 0.2, 0.6], [0.1, 0.4, 0.8, 0.3]])
    c = counts_for("mask", pred, truth)
    # positions: (0,0) TP, (0,1) FP, (0,2) FN, (0,3) TP, (1,2) TP
    assert (c.tp, c.fp, c.fn) == (3, 1, 1)
    assert f1(c.tp, c.fp, c.fn) == pytest.approx(6 / 8)


def test_mask_skips_masked_entries_and_empty_is_perfect() -> None:
    truth = np.array([1, -1, 0, -1], float)
    pred = np.array([1, 1, 0, 1], float)
    c = counts_for("mask", pred, truth)
    assert (c.tp, c.fp, c.fn) == (1, 0, 0)
    nothing = counts_for("mask", np.zeros(3), np.zeros(3))
    assert f1(nothing.tp, nothing.fp, nothing.fn) == 1.0
    missed = counts_for("mask", np.zeros(3), np.array([0, 1, 0.0]))
    assert f1(missed.tp, missed.fp, missed.fn) == 0.0


def test_pointer_correct_is_tp_wrong_is_fp_plus_fn() -> None:
    truth = np.array([[0, 0, 1, 2], [3, 3, 3, 3]], float)
    pred = np.array([[0, 1, 1, 2], [3, 0, 0, 3]], float)
    c = counts_for("pointer", pred, truth)
    assert (c.tp, c.fp, c.fn) == (5, 3, 3)
    assert f1(c.tp, c.fp, c.fn) == pytest.approx(5 / 8)  # = accuracy


def test_categorical_and_mask_one_by_argmax_skip_masked_rows() -> None:
    truth = onehot([0, 2, 1], 3)
    truth[1] = -1  # masked row
    pred = onehot([0, 0, 2], 3)
    c = counts_for("categorical", pred, truth)
    assert (c.tp, c.fp, c.fn) == (1, 1, 1)
    c1 = counts_for("mask_one", onehot([1, 3], 4), onehot([1, 2], 4))
    assert (c1.tp, c1.fp, c1.fn) == (1, 1, 1)


def test_pooled_micro_f1_over_outputs() -> None:
    """Pool TP/FP/FN of a mask output and a pointer output, then one F1."""
    outputs = [
        DP("m", "node", "mask", np.array([[1, 1, 0, 0]], float)),
        DP("p", "graph", "pointer", np.array([2.0, 1.0, 0.0])),
    ]
    preds = {
        "m": DP("m", "node", "mask", np.array([[1, 0, 1, 0]], float)),  # TP 1, FP 1, FN 1
        "p": DP("p", "graph", "pointer", np.array([2.0, 1.0, 1.0])),  # TP 2, FP 1, FN 1
    }
    res = micro_f1(outputs, preds)
    assert res["per_output"]["m"] == pytest.approx(2 / 4)
    assert res["per_output"]["p"] == pytest.approx(2 / 3)
    # pooled: TP 3, FP 2, FN 2 -> 6 / 10; not the mean of the two (0.5833)
    assert res["score"] == pytest.approx(0.6)


def test_tally_accumulates_like_one_big_batch() -> None:
    rng = np.random.default_rng(0)
    truth = (rng.random((10, 6)) > 0.5).astype(float)
    pred = rng.random((10, 6))
    whole = micro_f1([DP("m", "node", "mask", truth)], {"m": DP("m", "node", "mask", pred)})
    t = Tally()
    for lo in (0, 3, 7):
        hi = {0: 3, 3: 7, 7: 10}[lo]
        t.add([DP("m", "node", "mask", truth[lo:hi])], {"m": DP("m", "node", "mask", pred[lo:hi])})
    assert t.summary()["score"] == pytest.approx(whole["score"])


def test_permutation_fused_with_its_mask() -> None:
    # sorted order 2 -> 0 -> 1: pred pointers [2, 0, 2] (node 2 is first, points at itself)
    perm = np.zeros((1, 3, 3))
    perm[0, 0, 2] = perm[0, 1, 0] = perm[0, 2, 1] = 1  # cyclic predecessor
    mask = onehot([2], 3)
    assert fuse_permutation(perm, mask).tolist() == [[2, 0, 2]]
    outputs = [DP("pred", "node", "permutation_pointer", perm),
               DP("pred_mask", "node", "mask_one", mask)]
    wrong = perm.copy()
    wrong[0, 1] = [0, 0, 1]  # node 1 now points at 2
    res = micro_f1(outputs, {"pred": DP("pred", "node", "permutation_pointer", wrong),
                             "pred_mask": DP("pred_mask", "node", "mask_one", mask)})
    assert list(res["per_output"]) == ["pred"]
    assert res["score"] == pytest.approx(2 / 3)


def test_scalar_outputs_report_mse_and_are_not_pooled() -> None:
    outputs = [DP("s", "node", "scalar", np.array([1.0, 2.0])),
               DP("p", "node", "pointer", np.array([0.0, 1.0]))]
    preds = {"s": DP("s", "node", "scalar", np.array([1.0, 4.0])),
             "p": DP("p", "node", "pointer", np.array([0.0, 0.0]))}
    res = micro_f1(outputs, preds)
    assert res["per_output"]["s"] == pytest.approx(2.0)
    assert res["score"] == pytest.approx(0.5)
    only_scalar = micro_f1(outputs[:1], preds)
    assert only_scalar["score"] == pytest.approx(-2.0)


def test_unknown_type_raises() -> None:
    with pytest.raises(ValueError, match="cannot score"):
        counts_for("banana", np.zeros(2), np.zeros(2))


# ---------------------------------------------------------------- against CLRS


@pytest.fixture(scope="module")
def clrs():
    from algspec.training.data import import_clrs

    return import_clrs()


def _clrs_dp(clrs, name: str, loc: str, t: str, data: np.ndarray):
    return clrs.DataPoint(name=name, location=loc, type_=t, data=data)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_output_scores_equal_clrs_evaluate(clrs, seed: int) -> None:
    """Pointer, mask_one, categorical: accuracy; mask: F1; permutation: fused pointer."""
    rng = np.random.default_rng(seed)
    b, n, k = 16, 7, 3
    cases = {
        "pointer": ("node", rng.integers(0, n, (b, n)).astype(float),
                    rng.integers(0, n, (b, n)).astype(float)),
        "mask_one": ("node", onehot(rng.integers(0, n, b), n), onehot(rng.integers(0, n, b), n)),
        "categorical": ("node", onehot(rng.integers(0, k, (b, n)), k),
                        onehot(rng.integers(0, k, (b, n)), k)),
        "mask": ("node", (rng.random((b, n)) > 0.6).astype(float),
                 (rng.random((b, n)) > 0.4).astype(float)),
    }
    for t, (loc, truth, pred) in cases.items():
        # truth agrees with pred on half the batch so scores are not trivial
        truth[: b // 2] = pred[: b // 2]
        ours = micro_f1([_clrs_dp(clrs, "x", loc, t, truth)], {"x": _clrs_dp(clrs, "x", loc, t, pred)})
        theirs = clrs.evaluate([_clrs_dp(clrs, "x", loc, t, truth)],
                               {"x": _clrs_dp(clrs, "x", loc, t, pred)})
        assert ours["score"] == pytest.approx(theirs["score"]), t

    # permutation pointer + mask (as clrs.process_permutations writes sorting outputs)
    def perm_and_mask(order):
        pred = np.zeros(n)
        pred[order] = np.concatenate([[order[0]], order[:-1]])
        pp, mask = clrs.predecessor_to_cyclic_predecessor_and_first(pred[None])
        return pp[0], mask[0]

    truths, preds = [], []
    for i in range(b):
        order = rng.permutation(n)
        truths.append(perm_and_mask(order))
        if i % 2:
            order[[1, 2]] = order[[2, 1]]
        preds.append(perm_and_mask(order))
    tp, tm = (np.stack(x) for x in zip(*truths, strict=True))
    pp, pm = (np.stack(x) for x in zip(*preds, strict=True))
    outs = [_clrs_dp(clrs, "pred", "node", "permutation_pointer", tp),
            _clrs_dp(clrs, "pred_mask", "node", "mask_one", tm)]
    pr = {"pred": _clrs_dp(clrs, "pred", "node", "permutation_pointer", pp),
          "pred_mask": _clrs_dp(clrs, "pred_mask", "node", "mask_one", pm)}
    ours = micro_f1(outs, pr)
    assert 0 < ours["score"] < 1
    assert ours["score"] == pytest.approx(clrs.evaluate(outs, pr)["score"])
