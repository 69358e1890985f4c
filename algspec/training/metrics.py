"""Micro-F1 over the outputs of a CLRS model (numpy only).

The paper reports one number per run: the micro-F1 of all outputs pooled.
Every output element is classified as a true positive (TP), false positive
(FP) or false negative (FN); the per-output counts are summed and

    F1 = 2 TP / (2 TP + FP + FN)

is computed once from the sums ("micro" averaging). How elements count:

- ``mask``: one element per entry, thresholded at 0.5, positive class = 1.
  A predicted 1 on a true 1 is a TP, on a true 0 an FP; a predicted 0 on a
  true 1 is an FN. Entries whose truth is ``OutputClass.MASKED`` (-1) are
  skipped. This is CLRS's mask F1. No positives in truth nor prediction
  (0 / 0) scores 1.0, as CLRS does.
- ``pointer`` (node, edge or graph location): one element per pointer. A
  correct pointer is 1 TP; a wrong one is 1 FP (the node it points at) plus
  1 FN (the node it should point at). F1 of pointers alone is therefore
  exactly accuracy, CLRS's pointer score. Entries whose truth is ``MASKED``
  (a ``masked where`` pointer) are skipped, as CLRS's loss skips them.
- ``mask_one`` and ``categorical``: one element per one-hot row (last axis),
  compared by argmax: correct = 1 TP, wrong = 1 FP + 1 FN, so again accuracy.
  Rows whose truth contains ``MASKED`` are skipped, as in CLRS.
- ``permutation_pointer`` with its ``<name>_mask`` (what
  ``clrs.process_permutations`` makes of a ``should_be_permutation`` output):
  fused back into one node pointer, the mask's node pointing at itself,
  exactly as ``clrs.evaluate`` does, then counted as a pointer under the
  original name.
- ``scalar``: not a classification; it contributes no TP/FP/FN. Its mean
  squared error is reported in ``per_output`` (key ``"<name>"`` holds the
  MSE) and pooled over every scalar entry into ``mse``.

What each number is travels with it, so no figure is read in the wrong unit:
``per_output_metric`` names each output's figure (``f1`` for masks,
``accuracy`` for pointers, ``mask_one``, categorical and permutations, whose
F1 equals their accuracy, ``mse`` for scalars), and ``metric`` names
``score``:

- ``micro_f1``: the micro-F1 pooled over every non-scalar output (any file
  with at least one). Scalar outputs are not in it (an error is not a
  TP/FP/FN count); their pooled MSE is reported beside it as ``mse``.
- ``neg_mse``: a file whose outputs are all scalar has no F1; ``score`` is
  then minus the pooled MSE, so that "higher is better" holds for every score.

Model selection (`selection_key`) compares ``score`` first and, among equal
scores, the lower scalar MSE, so a mixed file's scalar outputs still decide
between checkpoints that classify equally well.

Counts are accumulated batch by batch (`Tally`), so a test set never has to
be concatenated in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, Self

import numpy as np

from algspec.edge_lists import EdgeLists

MASKED = -1.0  # clrs.specs.OutputClass.MASKED

__all__ = ["Counts", "Tally", "counts_for", "f1", "fuse_permutation", "micro_f1",
           "score_text", "selection_key"]

# What `per_output` holds for each CLRS output type, and what `score` is.
OUTPUT_METRIC = {"mask": "f1", "mask_one": "accuracy", "categorical": "accuracy",
                 "pointer": "accuracy", "should_be_permutation": "accuracy",
                 "permutation_pointer": "accuracy", "scalar": "mse"}
SCORE_NAMES = {"micro_f1": "micro-F1", "neg_mse": "MSE"}


class DataPointLike(Protocol):
    """What we read from a `clrs.DataPoint` (duck-typed: no clrs import here)."""

    name: str
    location: str
    type_: str
    data: Any


@dataclass
class Counts:
    """TP/FP/FN of one output, plus squared error for scalar outputs."""

    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    sse: float = 0.0
    n_scalar: int = 0

    def __iadd__(self, other: Counts) -> Self:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.sse += other.sse
        self.n_scalar += other.n_scalar
        return self

    @property
    def is_scalar(self) -> bool:
        return self.n_scalar > 0 and self.tp == self.fp == self.fn == 0


def f1(tp: float, fp: float, fn: float) -> float:
    """2TP / (2TP + FP + FN); 1.0 when there is nothing to find and nothing claimed."""
    denom = 2.0 * tp + fp + fn
    return 1.0 if denom == 0 else float(2.0 * tp / denom)


def _argmax_counts(pred: np.ndarray, truth: np.ndarray) -> Counts:
    valid = np.all(truth != MASKED, axis=-1)
    correct = (np.argmax(pred, axis=-1) == np.argmax(truth, axis=-1)) & valid
    n_valid = float(valid.sum())
    n_correct = float(correct.sum())
    wrong = n_valid - n_correct
    return Counts(tp=n_correct, fp=wrong, fn=wrong)


def counts_for(type_: str, pred: Any, truth: Any) -> Counts:
    """Counts of one output of CLRS type `type_` (pred and truth in CLRS encoding).

    A truth held as edge lists (`EdgeLists`, zero off its edges) counts as its dense
    array: a mask is read at its edges, and every predicted 1 elsewhere is a false
    positive; other types are made dense (one batch at a time)."""
    pred = np.asarray(pred, dtype=np.float64)
    if isinstance(truth, EdgeLists) and type_ == "mask" and not truth.frames \
            and truth.values.ndim == 1:
        return _edge_mask_counts(pred, truth)
    truth = np.asarray(truth, dtype=np.float64)
    if type_ == "mask":
        valid = truth != MASKED
        p = pred > 0.5
        t = truth > 0.5
        return Counts(
            tp=float(np.sum(p & t & valid)),
            fp=float(np.sum(p & ~t & valid)),
            fn=float(np.sum(~p & t & valid)),
        )
    if type_ in ("mask_one", "categorical"):
        return _argmax_counts(pred, truth)
    if type_ in ("pointer", "should_be_permutation"):
        valid = truth != MASKED  # `masked where`: dm-clrs's loss (one_hot(-1) = 0) skips it
        n = float(valid.sum())
        correct = float(np.sum((np.rint(pred) == np.rint(truth)) & valid))
        return Counts(tp=correct, fp=n - correct, fn=n - correct)
    if type_ == "permutation_pointer":  # without its mask: a pointer by argmax
        return counts_for("pointer", np.argmax(pred, -1), np.argmax(truth, -1))
    if type_ == "scalar":
        return Counts(sse=float(np.sum((pred - truth) ** 2)), n_scalar=int(truth.size))
    raise ValueError(f"cannot score an output of type {type_!r}")


def _edge_mask_counts(pred: np.ndarray, truth: EdgeLists) -> Counts:
    """`counts_for("mask", pred, truth)` with the truth at its edges: off them it is 0 (not
    masked), so there a predicted 1 is a false positive and nothing else counts."""
    g = truth.graph
    values = truth.values.astype(np.float64)
    valid = values != MASKED
    t = values > 0.5
    p = pred[g.sample, g.senders, g.receivers] > 0.5
    off_edges = float(np.sum(pred > 0.5)) - float(np.sum(p))
    return Counts(tp=float(np.sum(p & t & valid)),
                  fp=float(np.sum(p & ~t & valid)) + off_edges,
                  fn=float(np.sum(~p & t & valid)))


def fuse_permutation(perm: Any, mask: Any) -> np.ndarray:
    """Node pointer from a permutation pointer [.., N, N] and its mask_one [.., N].

    The node selected by the mask points at itself; every other node points
    at the argmax of its permutation row (CLRS's convention for the first
    element of a sorted order).
    """
    perm = np.asarray(perm)
    mask = np.asarray(mask)
    own = np.broadcast_to(np.arange(perm.shape[-1]), mask.shape)
    return np.where(mask > 0.5, own, np.argmax(perm, axis=-1))


def _pairs(
    outputs: Iterable[DataPointLike], preds: Mapping[str, DataPointLike]
) -> list[tuple[str, str, Any, Any]]:
    """(name, type, pred, truth) per scored output, permutations fused."""
    outputs = list(outputs)
    by_name = {o.name: o for o in outputs}
    result = []
    for out in outputs:
        name, type_ = out.name, out.type_
        if name not in preds:
            raise KeyError(f"no prediction for output {name!r}")
        if type_ == "mask_one" and name.endswith("_mask"):
            base = by_name.get(name[: -len("_mask")])
            if base is not None and base.type_ == "permutation_pointer":
                continue  # scored with its permutation
        pred = preds[name].data
        truth = out.data
        if type_ == "permutation_pointer" and name + "_mask" in by_name:
            pred = fuse_permutation(pred, preds[name + "_mask"].data)
            truth = fuse_permutation(truth, by_name[name + "_mask"].data)
            type_ = "pointer"
        result.append((name, type_, pred, truth))
    return result


@dataclass
class Tally:
    """Per-output counts accumulated over batches."""

    counts: dict[str, Counts] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)

    def add(self, outputs: Iterable[DataPointLike], preds: Mapping[str, DataPointLike]) -> None:
        """Add one batch: ground-truth output DataPoints and predicted ones by name."""
        for name, type_, pred, truth in _pairs(outputs, preds):
            self.counts.setdefault(name, Counts())
            self.counts[name] += counts_for(type_, pred, truth)
            self.metrics[name] = OUTPUT_METRIC.get(type_, "f1")

    def summary(self) -> dict[str, Any]:
        """The score, what it is, the scalar outputs' pooled MSE, and each output's figure
        with its metric name (see the module docstring)."""
        per_output: dict[str, float] = {}
        per_metric: dict[str, str] = {}
        pooled = Counts()
        scalar = Counts()
        for name, c in self.counts.items():
            if c.is_scalar:
                per_output[name] = c.sse / c.n_scalar
                per_metric[name] = "mse"
                scalar += c
            else:
                per_output[name] = f1(c.tp, c.fp, c.fn)
                per_metric[name] = self.metrics.get(name, "f1")
                pooled += Counts(tp=c.tp, fp=c.fp, fn=c.fn)
        mse = scalar.sse / scalar.n_scalar if scalar.n_scalar else None
        if mse is not None and all(m == "mse" for m in per_metric.values()):
            metric, score = "neg_mse", -mse  # nothing to classify: the error is the score
        else:
            metric = "micro_f1"
            score = f1(pooled.tp, pooled.fp, pooled.fn)
        return {"score": score, "metric": metric, "mse": mse,
                "per_output": per_output, "per_output_metric": per_metric}


def selection_key(summary: Mapping[str, Any]) -> tuple[float, float]:
    """What model selection maximises: the score, then the lower scalar MSE on ties."""
    mse = summary.get("mse")
    tie = -float(mse) if mse is not None and summary.get("metric") != "neg_mse" else 0.0
    return (float(summary["score"]), tie if np.isfinite(tie) else -np.inf)


def score_text(summary: Mapping[str, Any], digits: int = 4) -> str:
    """The score as a reader should see it, named: ``micro-F1 0.9123``,
    ``micro-F1 0.9123, scalar MSE 0.0120`` or ``MSE 1.7900`` (an all-scalar file).
    A summary without ``metric`` (written before it was recorded) is a micro-F1."""
    metric = summary.get("metric", "micro_f1")
    score = float(summary["score"])
    if metric == "neg_mse":
        return f"MSE {-score:.{digits}f}"
    text = f"{SCORE_NAMES.get(metric, metric)} {score:.{digits}f}"
    if summary.get("mse") is not None:
        text += f", scalar MSE {float(summary['mse']):.{digits}f}"
    return text


def per_output_lines(summary: Mapping[str, Any], digits: int = 4) -> list[str]:
    """One ``name (metric): value`` line per output, so F1, accuracy and MSE are told apart."""
    metrics = summary.get("per_output_metric") or {}
    return [f"{name} ({metrics.get(name, 'f1')}): {float(v):.{digits}f}"
            for name, v in (summary.get("per_output") or {}).items()]


def micro_f1(outputs: Iterable[DataPointLike], preds: Mapping[str, DataPointLike]) -> dict:
    """Score one batch: see the module docstring for how each type counts."""
    tally = Tally()
    tally.add(outputs, preds)
    return tally.summary()
