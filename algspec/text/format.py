"""One sample as CLRS-Text's prompt and answer.

The rules are CLRS-Text's (dm-clrs `clrs_text`), so the CLRS-30 files give its
strings character for character, and they apply to any `.alg` file:

- Prompt: `NAME:\\n`, the inputs in spec order as `name: value` joined by
  `, ` (without `pos`, and without `adj` when an `A` input exists), a line
  with the answer's names, and `:`. The answer is the outputs' values joined
  by `, `, then a blank line.
- Values (numbers print as numpy prints the sampler's dtype; `--decimals`
  truncates inputs as CLRS-Text's samplers do): a node array is `[v0 v1 ...]`
  (scalars as numbers, masks and pointers as integers, categoricals as the
  class index); a node mask_one is the index of its one node (`none` for a
  `mask_one?` that marks none, which CLRS-Text never has); a
  `should_be_permutation` output lists the `key` input in that order (node
  indices when there is no `key`); an edge array is its rows `[[r0], [r1]]`,
  categorical entries of a masked pair as -1; a graph scalar is a number, a
  graph categorical its class, a graph mask/mask_one/pointer numpy's integer
  print of it.
- With hints, each output `x` with a hint `x_h` is traced: the hint's first
  frame joins the inputs as `initial_trace: ...`, its middle frames (not the
  first, not the last, which equals the output) lead the answer as
  `f1, f2, ... | output`, and the answer's names line reads `trace | names`.
  Several traced outputs are joined per frame by `, `. Frames print with
  their output's type where the hint has that type, or is a pointer hint of a
  permutation (a sort's `pred_h` as the keys in order); otherwise with the
  hint's own type (`prints_as_output`).
- A value not of its type's form (a mask_one marking no node, unless optional, or several, a
  permutation that is not one chain) has no text: `NoTextForm`, a user error.
- CLRS-30's own exceptions, by algorithm name (`TRACED_INSTEAD`): the
  string matchers trace their hint `s`; binary search, Kadane's maximum
  subarray and quickselect trace named hints and answer with their last
  frame; binary search and Kadane wrap traces in parentheses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from algspec.text.errors import NoTextForm

SEPARATOR = ", "
INITIAL_TRACE = "initial_trace:"
TRACE_SEPARATOR = " | "
TRACE = "trace"
MASKED_CLASS = -1  # CLRS's class value of a pair with no category (lcs_length)

# CLRS-Text's per-algorithm conventions for CLRS-30 names, used with hints:
# the hints traced instead of `<output>_h`, and whether the answer is their last frame.
TRACED_INSTEAD: dict[str, tuple[tuple[str, ...], bool]] = {
    "naive_string_matcher": (("s",), False),
    "kmp_matcher": (("s",), False),
    "binary_search": (("low", "high"), True),
    "find_maximum_subarray_kadane": (("best_low", "best_high"), True),
    "quickselect": (("pivot",), True),
}
PARENTHESISED = frozenset({"binary_search", "find_maximum_subarray_kadane"})

Spec = Mapping[str, Sequence[str]]


def format_sample(name: str, spec: Spec, sample: Any, hints: bool = False,
                  optional: frozenset[str] = frozenset()) -> tuple[str, str]:
    """`(prompt, answer)` of one sample: a Feedback-like object of batch 1 whose hints
    are the sample's own frames (see `one_sample`); `optional` names the `mask_one?`
    data, whose all-zero value prints `none`."""
    inputs = {dp.name: np.asarray(dp.data)[0] for dp in sample.features.inputs}
    outputs = {dp.name: np.asarray(dp.data)[0] for dp in sample.outputs}
    frames = {dp.name: np.asarray(dp.data)[:, 0] for dp in sample.features.hints}
    key = inputs.get("key")

    def text(datum: str, x: np.ndarray, where: str = "") -> str:
        try:
            return value_text(x, spec[datum][1], spec[datum][2], key,
                              optional=datum in optional)
        except NoTextForm as e:
            raise NoTextForm(f"{where or datum} has no text form as a {spec[datum][1]} "
                             f"{spec[datum][2]}: {e}") from None

    prompt_inputs = SEPARATOR.join(f"{d}: {text(d, inputs[d])}" for d in shown_inputs(spec))
    output_names = [d for d, (stage, _, _) in _items(spec) if stage == "output"]
    instead, answer_from_trace = TRACED_INSTEAD.get(name, ((), False)) if hints else ((), False)
    names = answer_names(name, spec, hints)
    if answer_from_trace:
        answer = SEPARATOR.join(text(h, frames[h][-1]) for h in instead)
    else:
        answer = SEPARATOR.join(text(d, outputs[d]) for d in output_names)
    names_line = SEPARATOR.join(names)
    if hints:
        traced = traced_hints(name, spec, output_names, [dp.name for dp in
                                                          sample.features.hints])
        firsts, middles = [], []
        for hint, shown_as in traced:
            why = "" if shown_as == hint else f", printed as {shown_as}'s type"
            shown = [text(shown_as, f, f"hint {hint} (frame {k}{why})")
                     for k, f in enumerate(frames[hint][:max(len(frames[hint]) - 1, 1)])]
            firsts.append(shown[0])
            middles.append(shown[1:])
        if len({len(m) for m in middles}) > 1:
            raise ValueError(f"{name}: traced hints have different numbers of frames")
        answer = _wrap(name, [answer])
        names_line = _wrap(name, [names_line])
        initial = _wrap(name, firsts)
        if initial:
            prompt_inputs = SEPARATOR.join([prompt_inputs, f"{INITIAL_TRACE} {initial}"])
            steps = SEPARATOR.join(_wrap(name, list(step)) for step in zip(*middles))
            answer = TRACE_SEPARATOR.join([steps, answer])
        if traced:
            names_line = TRACE_SEPARATOR.join([TRACE, names_line])
    return f"{name}:\n{prompt_inputs}\n{names_line}:\n", f"{answer}\n\n"


def shown_inputs(spec: Spec) -> list[str]:
    """The inputs a prompt shows, in spec order."""
    return [d for d, (stage, _, _) in _items(spec) if stage == "input"
            and d != "pos" and not (d == "adj" and "A" in spec)]


def answer_names(name: str, spec: Spec, hints: bool) -> list[str]:
    """The data the answer holds: the outputs, or CLRS-30's traced hints instead."""
    traced = TRACED_INSTEAD.get(name, ((), False))[0] if hints else ()
    return list(traced) or [d for d, (stage, _, _) in _items(spec) if stage == "output"]


def _items(spec: Spec) -> list[tuple[str, Sequence[str]]]:
    return list(spec.items())


def traced_hints(name: str, spec: Spec, output_names: list[str], hint_names: list[str]
            ) -> list[tuple[str, str]]:
    """The traced hints in the sample's order: (hint, the datum whose type prints it)."""
    instead, _ = TRACED_INSTEAD.get(name, ((), False))
    if instead:
        return [(h, h) for h in hint_names if h in instead]
    return [(h, h[:-2] if prints_as_output(spec[h], spec[h[:-2]]) else h)
            for h in hint_names if h.endswith("_h") and h[:-2] in output_names]


def prints_as_output(hint: Sequence[str], output: Sequence[str]) -> bool:
    """Whether a traced hint's frames print with its output's type: when the types are
    the same, and for a pointer hint of a permutation output (CLRS's sorts, whose `pred_h`
    frames are chains); any other hint prints with its own type (a mask hint of a mask_one
    output as a mask, since its frames need not mark one node)."""
    if tuple(hint[1:]) == tuple(output[1:]):
        return True
    return hint[1] == output[1] and (hint[2], output[2]) == ("pointer",
                                                              "should_be_permutation")


def _wrap(name: str, parts: list[str]) -> str:
    joined = SEPARATOR.join(parts)
    return f"({joined})" if name in PARENTHESISED else joined


def _row(values: Any) -> str:
    return "[" + " ".join(str(v) for v in values) + "]"


def permutation_order(predecessors: np.ndarray) -> np.ndarray:
    """Node indices in the order a `should_be_permutation` pointer array describes
    (each node points to the one before it; the first points to itself, so at n = 1
    the one node is both ends). `NoTextForm` if the pointers are not one such chain."""
    pred = np.asarray(predecessors).astype(int)
    n = len(pred)
    if n and (pred.min() < 0 or pred.max() >= n):
        raise NoTextForm(f"a permutation's pointers must be node indices; got {_shown(pred)}")
    pointed_to = np.zeros(n, bool)
    pointed_to[pred[pred != np.arange(n)]] = True  # the first node's self-pointer follows no one
    ends = np.flatnonzero(~pointed_to)
    if n and len(ends) != 1:
        raise NoTextForm(f"a permutation must be one chain of predecessor pointers (the first "
                         f"node points to itself); got {_shown(pred)}")
    order: list[int] = [int(ends[0])] if n else []
    placed = np.zeros(n, bool)
    placed[order] = True
    while len(order) < n:
        before = int(pred[order[-1]])
        if placed[before]:
            raise NoTextForm(f"a permutation must be one chain of predecessor pointers (the "
                             f"first node points to itself); got {_shown(pred)}")
        placed[before] = True
        order.append(before)
    return np.asarray(order[::-1], dtype=int)


def _shown(x: np.ndarray) -> str:
    return np.array2string(np.asarray(x), threshold=20, separator=" ")


def value_text(x: np.ndarray, location: str, type_: str, key: np.ndarray | None = None,
               *, optional: bool = False) -> str:
    """One datum of one sample (no batch axis) as text. A graph datum stays the numpy
    scalar it is: numpy prints scalars and arrays alike, but only the scalar is CLRS's.
    `optional`: a `mask_one?`, whose all-zero value (`none`) prints `none`."""
    if location == "node":
        x = np.asarray(x)
        if type_ == "should_be_permutation":
            order = permutation_order(x)
            return _row(key[order] if key is not None else order)
        if type_ == "mask_one":
            marked = np.flatnonzero(x)
            if len(marked) == 0 and optional:  # a `mask_one?` holding none
                return "none"
            if len(marked) != 1:
                raise NoTextForm(f"a mask_one marks exactly one node; this marks "
                                 f"{len(marked)}: {_shown(x.astype(int))}")
            return f"{marked[0]}"
        if type_ == "scalar":
            return _row(x)
        return _row(_integers(x, type_))
    if location == "edge":
        x = np.asarray(x)
        rows = x if type_ == "scalar" else _integers(x, type_)
        return "[" + SEPARATOR.join(_row(r) for r in rows) + "]"
    if location == "graph":
        if type_ == "scalar":
            return str(x)
        if type_ == "categorical":
            return f"{np.argmax(x, axis=-1)}"
        return f"{x.astype(int)}"
    raise NoTextForm(f"no text form for a {location} {type_}")


def _integers(x: np.ndarray, type_: str) -> np.ndarray:
    """Masks and pointers as integers; categoricals as class indices (-1 where masked)."""
    if type_ != "categorical":
        return x.astype(int)
    classes = np.argmax(x, axis=-1)
    classes[np.any(x == MASKED_CLASS, axis=-1)] = -1
    return classes
