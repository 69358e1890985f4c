"""The YAML form of an algorithm: the same program as a `.alg` file, for tools that speak YAML.

    algorithm: bfs_sync
    nodes: n
    graph: input adj
    data:
      - 'input node s: mask_one ~ source_node()'    # comments stay comments
      - 'hint node pi_h: pointer := index'
    body: |
      record
      while grew bound n { ... }

The header is three keys; `data` is the declarations, one DSL line each, so a
program can add, drop or rewrite a hint as a list item; `body` is the
statements as a block of the DSL. Expressions and statements stay in the DSL
(a structured form of them would be longer than the code and no easier to
edit). `to_alg` writes the `.alg` text of a YAML form with a line map, and
the parser maps every position back, so diagnostics point into the YAML file.
`algspec.language.yaml_writer.to_yaml` writes the YAML form of `.alg` text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from algspec.diagnostics import AlgError, Diagnostic, Span

YAML_SUFFIXES = (".yaml", ".yml")
KEYS = ("algorithm", "nodes", "graph", "data", "body")


def is_yaml_path(path: str) -> bool:
    """Whether `path` names an algorithm in its YAML form."""
    return str(path).lower().endswith(YAML_SUFFIXES)


@dataclass(frozen=True)
class LineMap:
    """For each line of the generated `.alg` text: its line in the YAML file and the shift
    of its columns there."""

    lines: tuple[tuple[int, int], ...]

    def span(self, span: Span) -> Span:
        """`span` (in the generated text) in the YAML file."""
        if span == Span():
            return span
        line, shift = self._at(span.line)
        end_line, end_shift = self._at(span.end_line)
        return Span(line=line, column=span.column + shift, end_line=end_line,
                    end_column=span.end_column + end_shift)

    def _at(self, line: int) -> tuple[int, int]:
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return self.lines[-1] if self.lines else (1, 0)


def _error(path: str, message: str, line: int = 1, column: int = 1,
           help: str | None = None) -> AlgError:
    return AlgError([Diagnostic(code="E005", message=message, path=path,
                                span=Span(line=line, column=column, end_line=line,
                                          end_column=column + 1), help=help)])


def _scalar_start(node: Any) -> tuple[int, int]:
    """1-based (line, column) of a scalar's first character of content."""
    line, column = node.start_mark.line + 1, node.start_mark.column + 1
    if node.style in ("'", '"'):
        column += 1
    return line, column


# The deepest nesting of YAML collections read: the form needs two (the mapping and the
# `data` list); PyYAML builds nodes recursively, so deeper input is refused before that.
MAX_YAML_NESTING = 32


def _check_nesting(text: str, path: str) -> None:
    """E005 where collections nest deeper than `MAX_YAML_NESTING` (the event stream is
    read iteratively, so this check cannot overflow the stack itself), or at an alias."""
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_NESTING:
                mark = event.start_mark
                raise _error(path, f"nested too deeply (more than {MAX_YAML_NESTING} levels "
                             "of lists or mappings)", mark.line + 1, mark.column + 1,
                             help="the form is a mapping of one-line values, a list `data` "
                                  "and a `body` block")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):  # a copy per use: text could multiply
            mark = event.start_mark
            raise _error(path, "an alias (`*name`) is not part of the form", mark.line + 1,
                         mark.column + 1, help="write the value itself")


def to_alg(text: str, path: str) -> tuple[str, LineMap]:
    """The `.alg` text of a YAML form and its line map; `AlgError` (E005) if malformed."""
    generated, line_map, _ = _convert(text, path)
    return generated, line_map


def _convert(text: str, path: str) -> tuple[str, LineMap, list[tuple[int, int] | None]]:
    """`to_alg`, plus where each one-line value ends in the YAML file (None in the body)."""
    import yaml

    try:
        _check_nesting(text, path)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise _error(path, f"not YAML: {getattr(e, 'problem', None) or e}", *where) from None
    if not isinstance(root, yaml.MappingNode):
        raise _error(path, "expected a mapping with algorithm, nodes, graph, data and body",
                     help="write `algspec convert FILE.alg --to yaml` to see the form")
    fields: dict[str, Any] = {}
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode) or key.value not in KEYS:
            what = repr(key.value) if isinstance(key, yaml.ScalarNode) else "that is not text"
            raise _error(path, f"unknown key {what}; the keys are {', '.join(KEYS)}",
                         key.start_mark.line + 1, key.start_mark.column + 1)
        if key.value in fields:
            raise _error(path, f"duplicate key `{key.value}`", key.start_mark.line + 1,
                         key.start_mark.column + 1,
                         help=f"give `{key.value}` once (YAML keeps only one of them)")
        fields[key.value] = value
    for key in ("algorithm", "nodes", "graph"):
        if key not in fields or not isinstance(fields[key], yaml.ScalarNode):
            raise _error(path, f"`{key}` must be given as one line", *(
                (fields[key].start_mark.line + 1, fields[key].start_mark.column + 1)
                if key in fields else (1, 1)))
    out: list[str] = []
    lines: list[tuple[int, int]] = []
    ends: list[tuple[int, int] | None] = []  # where a one-line value ends (its comment after)

    def emit(prefix: str, node: Any) -> None:
        line, column = _scalar_start(node)
        if "\n" in node.value:
            raise _error(path, "expected one line", line, column)
        out.append(prefix + node.value)
        lines.append((line, column - 1 - len(prefix)))
        ends.append((node.end_mark.line + 1, node.end_mark.column))

    emit("algorithm ", fields["algorithm"])
    emit("nodes ", fields["nodes"])
    emit("graph ", fields["graph"])
    data = fields.get("data")
    if data is not None and not (isinstance(data, yaml.SequenceNode) or
                                 (isinstance(data, yaml.ScalarNode) and data.value == "")):
        raise _error(path, "`data` must be a list of declarations",
                     data.start_mark.line + 1, data.start_mark.column + 1)
    for item in (data.value if isinstance(data, yaml.SequenceNode) else []):
        if not isinstance(item, yaml.ScalarNode):
            raise _error(path, "each declaration is one line of text, e.g. "
                         "'hint node h: mask := false'",
                         item.start_mark.line + 1, item.start_mark.column + 1)
        emit("", item)
    body = fields.get("body")
    if body is not None:
        if not isinstance(body, yaml.ScalarNode):
            raise _error(path, "`body` must be a block of statements (`body: |`)",
                         body.start_mark.line + 1, body.start_mark.column + 1)
        first, indent = _block_start(text, body)
        for k, line in enumerate(body.value.split("\n")):
            out.append(line)
            lines.append((first + k, indent))
            ends.append(None)
    return "\n".join(out) + "\n", LineMap(tuple(lines)), ends


def to_alg_text(text: str, path: str = "<string>") -> str:
    """The `.alg` file of a YAML form, its comments kept: a comment after a value ends
    that line, a comment line stands before the next line (`algspec convert --to alg`)."""
    generated, line_map, ends = _convert(text, path)
    source = text.split("\n")
    used = {y for (y, _), end in zip(line_map.lines, ends, strict=True) if end is None}
    used |= {end[0] for end in ends if end is not None}
    out, seen = [], 0
    for code, (y, _), end in zip(generated.split("\n"), line_map.lines, ends, strict=False):
        if end is not None:
            for k in range(seen + 1, y):  # comment lines before this one
                stripped = source[k - 1].strip()
                if k not in used and (stripped.startswith("#") or not stripped):
                    out.append(stripped)
            seen = max(seen, end[0])
            tail = source[end[0] - 1][end[1]:].strip()
            code = with_comment(code, tail if tail.startswith("#") else "")
        else:
            seen = max(seen, y)
        out.append(code)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


def _block_start(text: str, node: Any) -> tuple[int, int]:
    """Where a body's first line is in the YAML file (the line after `body: |`), and the
    block's indentation (its indicator, `|2`, or its first non-blank line's)."""
    if node.style not in ("|", ">"):
        line, column = _scalar_start(node)
        return line, column - 1
    source = text.split("\n")
    first = node.start_mark.line + 1  # 0-based index of the line after the indicator
    indicator = source[node.start_mark.line][node.start_mark.column:].split("#")[0]
    digits = "".join(c for c in indicator if c.isdigit())
    if digits:
        return first + 1, int(digits)
    line = first
    while line < len(source) and not source[line].strip():
        line += 1
    content = source[line] if line < len(source) else ""
    return first + 1, len(content) - len(content.lstrip(" "))


def remap(tree: Any, mapping: Callable[[Span], Span]) -> Any:
    """A copy of a syntax tree (pydantic models, lists) with every `Span` mapped."""
    from pydantic import BaseModel

    if isinstance(tree, Span):
        return mapping(tree)
    if isinstance(tree, BaseModel):
        changes = {}
        for name in type(tree).model_fields:
            value = getattr(tree, name)
            new = remap(value, mapping)
            if new is not value:
                changes[name] = new
        return tree.model_copy(update=changes) if changes else tree
    if isinstance(tree, list):
        new = [remap(v, mapping) for v in tree]
        return new if any(a is not b for a, b in zip(new, tree, strict=True)) else tree
    if isinstance(tree, tuple):
        new_t = tuple(remap(v, mapping) for v in tree)
        return new_t if any(a is not b for a, b in zip(new_t, tree, strict=True)) else tree
    return tree


def remap_error(error: AlgError, line_map: LineMap) -> AlgError:
    """The error's diagnostics with positions in the YAML file."""
    return AlgError([d.model_copy(update={"span": line_map.span(d.span)})
                     for d in error.diagnostics])


def with_comment(text: str, comment: str) -> str:
    return f"{text}  {comment}" if comment else text
