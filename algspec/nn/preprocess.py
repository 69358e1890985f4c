"""CLRS's batch preprocessing (dm-clrs's run.py) on algspec's `Feedback`, without dm-clrs.

- `randomize_pos`: each `pos` row's segments get sorted uniform draws, drawn from
  the `RandomState` exactly as `clrs.process_random_pos` draws them
  (`random_pos`, which also keeps a declared `pos`'s shape).
- `permutations`: a `should_be_permutation` datum becomes a permutation pointer
  (the predecessor list closed into a cycle, as one-hot rows) plus a `mask_one`
  `<name>_mask` marking the first node (`clrs.process_permutations`).
- `pred_as_input`: the constant `pred_h` hint becomes a `pred` input
  (`clrs.process_pred_as_input`).

Each has a `*_spec` twin that rewrites the spec the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from algspec.feedback import DataPoint, Features, Feedback
from algspec.nn.types import Location, Stage, Type

Spec = Mapping[str, tuple[str, str, str]]


def random_pos(pos: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """`pos` [B, N] with each segment's positions replaced by sorted uniform draws.

    Equal to `clrs.process_random_pos` (same draws, same values) on rows that
    follow CLRS's convention, a 0 at the start of the row and of each segment
    (string matchers: needle and haystack). dm-clrs drops the nodes before a
    row's first 0, so a declared `pos = (n - 1 - index) / n` would shrink to
    `[B, 1]`; here such a row is one segment, and the sorted draws follow the
    order of its declared positions, so any `pos` keeps its shape and order.
    """
    pos = np.asarray(pos)
    unsorted = rng.uniform(size=pos.shape)
    out = np.empty(pos.shape, dtype=np.float64)
    for i, row in enumerate(pos):
        starts = np.flatnonzero(row == 0) if row[0] == 0 else np.zeros(1, np.int64)
        for lo, hi in zip(starts, np.append(starts[1:], row.shape[0]), strict=True):
            order = np.argsort(row[lo:hi], kind="stable")
            out[i, lo + order] = np.sort(unsorted[i, lo:hi])
    return out


def randomize_pos(feedback: Feedback, rng: np.random.RandomState) -> Feedback:
    """`feedback` with its `pos` input randomised (unchanged without one)."""
    f = feedback.features
    inputs = tuple(dp.replace(data=random_pos(dp.data, rng)) if dp.name == "pos" else dp
                   for dp in f.inputs)
    return feedback._replace(features=f._replace(inputs=inputs))


def cyclic_permutation(pointers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Predecessor pointers `[..., N]` of a linear order -> (`[..., N, N]` cycle, `[..., N]` first).

    The first node (the one pointing to itself) points instead to the last one (the
    one nobody points to); the mask marks the first node. Ties resolve to the
    lowest index, as in dm-clrs.
    """
    pointers = np.asarray(pointers)
    nb_nodes = pointers.shape[-1]
    eye = np.eye(nb_nodes, dtype=np.float32)
    matrix = (pointers[..., None] == np.arange(nb_nodes)).astype(np.float32)  # row i: pred of i
    last = np.argmin(matrix.sum(axis=-2), axis=-1)
    first = np.argmax(np.diagonal(matrix, axis1=-2, axis2=-1), axis=-1)
    mask = eye[first]
    matrix = matrix + mask[..., :, None] * eye[last][..., None, :]
    matrix = matrix - mask[..., :, None] * mask[..., None, :]
    return matrix, mask


def _permuted(points: tuple[DataPoint, ...], enforce: bool) -> tuple[DataPoint, ...]:
    out: list[DataPoint] = []
    for dp in points:
        if dp.type_ != Type.SHOULD_BE_PERMUTATION:
            out.append(dp)
            continue
        if dp.location != Location.NODE:
            raise ValueError(f"{dp.name}: a should_be_permutation must be node-located")
        if not enforce:
            out.append(dp.replace(type_=Type.POINTER))
            continue
        matrix, first = cyclic_permutation(dp.data)
        out.append(dp.replace(type_=Type.PERMUTATION_POINTER, data=matrix))
        out.append(DataPoint(f"{dp.name}_mask", dp.location, Type.MASK_ONE, first))
    return tuple(out)


def permutations(feedback: Feedback, enforce: bool = True) -> Feedback:
    """Rewrite `should_be_permutation` data (inputs, hints, outputs) as dm-clrs does.

    With `enforce` false they simply become pointers.
    """
    f = feedback.features
    features = Features(_permuted(tuple(f.inputs), enforce), _permuted(tuple(f.hints), enforce),
                        f.lengths)
    return Feedback(features, _permuted(tuple(feedback.outputs), enforce))


def permutations_spec(spec: Spec, enforce: bool = True) -> dict[str, tuple[str, str, str]]:
    """The spec after `permutations`: `<name>_mask` follows each rewritten datum."""
    out: dict[str, tuple[str, str, str]] = {}
    for name, (stage, loc, t) in spec.items():
        if loc == Location.NODE and t == Type.SHOULD_BE_PERMUTATION:
            if enforce:
                out[name] = (stage, loc, Type.PERMUTATION_POINTER)
                out[f"{name}_mask"] = (stage, loc, Type.MASK_ONE)
            else:
                out[name] = (stage, loc, Type.POINTER)
        else:
            out[name] = (stage, loc, t)
    return out


def pred_as_input(feedback: Feedback) -> Feedback:
    """Move the `pred_h` hint (constant along each trajectory) to a `pred` input.

    Raises `ValueError` if `pred_h` changes within a sample's length.
    """
    f = feedback.features
    found = [h for h in f.hints if h.name == "pred_h"]
    if not found:
        return feedback
    if len(found) > 1:
        raise ValueError("more than one pred_h hint")
    pred_h = found[0]
    data = np.asarray(pred_h.data)
    for b, length in enumerate(np.asarray(f.lengths)):
        if np.any(data[1:int(length), b] != data[0, b]):
            raise ValueError(f"pred_h changes along sample {b}'s trajectory")
    inputs = tuple(f.inputs) + (DataPoint("pred", pred_h.location, pred_h.type_, data[0]),)
    hints = tuple(h for h in f.hints if h.name != "pred_h")
    return feedback._replace(features=Features(inputs, hints, f.lengths))


def pred_as_input_spec(spec: Spec) -> dict[str, tuple[str, str, str]]:
    """The spec after `pred_as_input`: `pred_h` replaced, in place, by the input `pred`."""
    out: dict[str, tuple[str, str, str]] = {}
    for name, entry in spec.items():
        if name == "pred_h":
            if tuple(entry) != (Stage.HINT, Location.NODE, Type.POINTER):
                raise ValueError(f"pred_h must be a node pointer hint, not {entry}")
            out["pred"] = (Stage.INPUT, Location.NODE, Type.POINTER)
        else:
            out[name] = tuple(entry)
    return out
