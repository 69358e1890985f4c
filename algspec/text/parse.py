"""CLRS-Text records back to arrays, and a scorer for a model's answers.

`parse_record(alg, prompt, answer)` inverts `format_sample` (docs/text.md):
the shown inputs, the answer's data and, with hints, the traced frames, as
arrays of one sample (no batch axis; float32 as the sampler gives them).
What the text does not hold comes back as its nearest array: a categorical
is a one-hot row (a masked pair, printed -1, is -1 in every class); a
`should_be_permutation` printed as keys is matched to the `key` input (equal
keys in index order).

`score_answer(alg, prompt, answer, truth)` grades a model's answer against
the reference: exact match of the text, and per datum the fraction of its
entries equal to the truth's (0 for a datum that does not parse), as CLRS
scores outputs per node and per edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algspec.text.format import (
    INITIAL_TRACE,
    PARENTHESISED,
    SEPARATOR,
    TRACE,
    TRACE_SEPARATOR,
    TRACED_INSTEAD,
    answer_names,
    shown_inputs,
    traced_hints,
)


class TextFormatError(ValueError):
    """Text that is not in the form `format_sample` writes."""


@dataclass
class ParsedRecord:
    """One record's data: inputs shown in the prompt, the answer's data, the trace."""

    inputs: dict[str, np.ndarray]
    answer: dict[str, np.ndarray]
    initial_trace: list[np.ndarray] = field(default_factory=list)
    trace: list[list[np.ndarray]] = field(default_factory=list)  # per middle frame


def split_top(text: str, sep: str = SEPARATOR) -> list[str]:
    """`text` split at each `sep` outside brackets and parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _numbers(text: str) -> list[str]:
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise TextFormatError(f"expected [...], got {text[:40]!r}")
    return text[1:-1].split()


def _one_hot(classes: np.ndarray, count: int) -> np.ndarray:
    out = np.zeros(classes.shape + (count,), np.float32)
    masked = classes < 0
    out[~masked] = np.eye(count, dtype=np.float32)[classes[~masked]]
    out[masked] = -1.0
    return out


def _entries(tokens: list[str], type_: str, categories: int | None) -> np.ndarray:
    if type_ == "scalar":
        return np.asarray([np.float32(t) for t in tokens], np.float32)
    ints = np.asarray([int(t) for t in tokens], np.int64)
    if type_ == "categorical":
        return _one_hot(ints, int(categories or ints.max(initial=0) + 1))
    return ints.astype(np.float32)


def _predecessors(order: np.ndarray) -> np.ndarray:
    pred = np.empty(len(order), np.float32)
    pred[order[0]] = order[0]
    pred[order[1:]] = order[:-1]
    return pred


def parse_value(text: str, location: str, type_: str, *, nodes: int | None = None,
                categories: int | None = None, key: np.ndarray | None = None) -> np.ndarray:
    """One datum's text (`value_text`'s) as an array of one sample."""
    try:
        if location == "node":
            if type_ == "mask_one":
                if nodes is None:
                    raise TextFormatError("a node mask_one needs the node count")
                out = np.zeros(nodes, np.float32)
                if text.strip() != "none":  # `none`: a `mask_one?` marking no node
                    out[int(text)] = 1.0
                return out
            tokens = _numbers(text)
            if type_ == "should_be_permutation":
                if key is None:
                    return _predecessors(np.asarray([int(t) for t in tokens]))
                return _predecessors(_match_keys([np.float32(t) for t in tokens], key))
            return _entries(tokens, type_, categories)
        if location == "edge":
            rows = split_top(text.strip()[1:-1]) if text.strip() != "[]" else []
            return np.stack([_entries(_numbers(r), type_, categories) for r in rows])
        if location == "graph":
            if type_ == "scalar":
                return np.float32(text)
            if type_ == "categorical":
                return _one_hot(np.asarray(int(text)), int(categories or int(text) + 1))
            if text.strip().startswith("["):
                return np.asarray([int(t) for t in _numbers(text)], np.float32)
            return np.float32(int(text))
    except (ValueError, IndexError) as e:
        raise TextFormatError(f"cannot read a {location} {type_} from {text[:60]!r}: {e}"
                              ) from None
    raise TextFormatError(f"no text form for a {location} {type_}")


def _match_keys(values: list[np.float32], key: np.ndarray) -> np.ndarray:
    """Node indices whose keys, in this order, are `values` (equal keys: lowest first)."""
    used = np.zeros(len(key), bool)
    order = []
    for v in values:
        free = np.flatnonzero((key.astype(np.float32) == v) & ~used)
        if not len(free):
            raise TextFormatError(f"{v} is not a key left to place")
        used[free[0]] = True
        order.append(int(free[0]))
    return np.asarray(order)


def _categories(alg: Any) -> dict[str, int]:
    return {d.name: d.categories for d in getattr(alg.ir, "decls", [])
            if getattr(d, "categories", None)}


class _Reader:
    """Reads one datum's text with the algorithm's spec, sizes and keys."""

    def __init__(self, alg: Any, nodes: int | None, key: np.ndarray | None) -> None:
        self.spec, self.categories = alg.spec, _categories(alg)
        self.nodes, self.key = nodes, key

    def __call__(self, datum: str, text: str) -> np.ndarray:
        _, location, type_ = self.spec[datum]
        return parse_value(text, location, type_, nodes=self.nodes,
                           categories=self.categories.get(datum), key=self.key)


def _strip(text: str, prefix: str, suffix: str) -> str:
    if not (text.startswith(prefix) and text.endswith(suffix)):
        raise TextFormatError(f"expected {prefix!r} ... {suffix!r}")
    return text[len(prefix):len(text) - len(suffix)]


def parse_record(alg: Any, prompt: str, answer: str) -> ParsedRecord:
    """A record's arrays (see the module docstring); `TextFormatError` if malformed."""
    spec, name = alg.spec, alg.name
    body = _strip(prompt, f"{name}:\n", ":\n")
    inputs_text, _, names_line = body.rpartition("\n")
    hints = names_line.startswith(f"{TRACE}{TRACE_SEPARATOR}")
    inputs_text, _, initial_text = inputs_text.partition(f"{SEPARATOR}{INITIAL_TRACE} ")
    shown = shown_inputs(spec)
    texts: dict[str, str] = {}
    rest = inputs_text
    for i, datum in enumerate(shown):
        rest = _strip(rest, f"{datum}: ", "")
        if i + 1 < len(shown):
            cut = rest.find(f"{SEPARATOR}{shown[i + 1]}: ")
            if cut < 0:
                raise TextFormatError(f"input {shown[i + 1]!r} not found")
            texts[datum], rest = rest[:cut], rest[cut + len(SEPARATOR):]
        else:
            texts[datum] = rest
    nodes = _node_count(spec, texts)
    key_text = texts.get("key")
    key = parse_value(key_text, *spec["key"][1:]) if key_text and \
        spec["key"][1:] == ("node", "scalar") else None
    read = _Reader(alg, nodes, key)
    inputs = {d: read(d, t) for d, t in texts.items()}
    answer_text = answer.removesuffix("\n\n")
    names = answer_names(name, spec, hints)
    instead, from_trace = TRACED_INSTEAD.get(name, ((), False)) if hints else ((), False)
    # the data the answer's values print (a string matcher names `s` but shows its output)
    value_names = list(instead) if from_trace else \
        [d for d, (stage, _, _) in spec.items() if stage == "output"]
    final_text = answer_text
    parsed = ParsedRecord(inputs, {})
    if hints and initial_text:
        hint_names = [h for h, (stage, _, _) in spec.items() if stage == "hint"]
        traced = [shown for _, shown in traced_hints(name, spec, names, hint_names)]
        steps_text, _, final_text = answer_text.rpartition(TRACE_SEPARATOR)
        parsed.initial_trace = _frame(read, traced, _unwrap(name, initial_text))
        items = split_top(steps_text) if steps_text else []
        per = len(traced) if name not in PARENTHESISED else 1
        for j in range(0, len(items), per):
            group = SEPARATOR.join(items[j:j + per])
            parsed.trace.append(_frame(read, traced, _unwrap(name, group)))
    if hints:
        final_text = _unwrap(name, final_text)
    values = split_top(final_text) if final_text.strip() or value_names else []
    if len(values) != len(value_names):
        raise TextFormatError(f"the answer has {len(values)} values for "
                              f"{len(value_names)} data")
    parsed.answer = {d: read(d, t) for d, t in zip(value_names, values, strict=True)}
    return parsed


def _frame(read: _Reader, traced: list[str], text: str) -> list[np.ndarray]:
    parts = split_top(text)
    if len(parts) != len(traced):
        raise TextFormatError(f"a frame has {len(parts)} values for {len(traced)} traces")
    return [read(d, t) for d, t in zip(traced, parts, strict=True)]


def _unwrap(name: str, text: str) -> str:
    if name in PARENTHESISED:
        return _strip(text.strip(), "(", ")")
    return text


def _node_count(spec: Any, texts: dict[str, str]) -> int | None:
    for datum, text in texts.items():
        _, location, type_ = spec[datum]
        if location == "node" and type_ != "mask_one":
            return len(_numbers(text))
        if location == "edge":
            return len(split_top(text.strip()[1:-1]))
    return None


def score_answer(alg: Any, prompt: str, answer: str, truth: str) -> dict[str, Any]:
    """`{"exact", "per_output", "score"}`: the model's `answer` against the reference
    `truth` for `prompt`; a datum that does not parse scores 0."""
    reference = parse_record(alg, prompt, truth).answer
    exact = answer.strip() == truth.strip()
    try:
        got = parse_record(alg, prompt, answer).answer
    except TextFormatError:
        got = {}
    per_output = {}
    for datum, want in reference.items():
        have = got.get(datum)
        if have is None or np.shape(have) != np.shape(want):
            per_output[datum] = 0.0
            continue
        w, h = np.asarray(want), np.asarray(have)
        if w.ndim and spec_type(alg, datum) == "categorical":  # per entry: its class
            w, h = w.argmax(-1), h.argmax(-1)
        per_output[datum] = float(np.mean(w == h)) if w.ndim else float(w == h)
    score = float(np.mean(list(per_output.values()))) if per_output else 0.0
    return {"exact": exact, "per_output": per_output, "score": score}


def spec_type(alg: Any, datum: str) -> str:
    return alg.spec[datum][2]
