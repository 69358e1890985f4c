"""The YAML form of `.alg` text (`algspec convert --to yaml`): header keys, one list item per
declaration, the body as a block; comments kept as YAML comments (the form:
`algspec.language.yaml_form`)."""

from __future__ import annotations

import contextlib

from algspec.language.parser import parse
from algspec.language.yaml_form import with_comment


def _code_and_comment(line: str) -> tuple[str, str]:
    """A `.alg` line split at its comment (a `#` outside double quotes)."""
    quoted = False
    for i, c in enumerate(line):
        if c == '"':
            quoted = not quoted
        elif c == "#" and not quoted:
            return line[:i].rstrip(), line[i:]
    return line.rstrip(), ""


def _plain_or_quoted(value: str) -> str:
    """`value` as a YAML scalar: plain where YAML reads it back as that string."""
    import yaml

    with contextlib.suppress(yaml.YAMLError):  # not YAML as it stands: quote it
        if value and yaml.safe_load(f"k: {value}") == {"k": value}:
            return value
    return "'" + value.replace("'", "''") + "'"


def to_yaml(source: str, path: str = "<string>") -> str:
    """The YAML form of `.alg` source (see the module docstring); comments are kept as
    YAML comments, the body verbatim. `AlgError` if the source does not parse."""
    program = parse(source, path)
    lines = source.removeprefix("\ufeff").split("\n")
    header = {"algorithm": program.name_span.line, "nodes": program.nodes.span.line,
              "graph": program.graph_span.line}
    out = [line for line in lines[:header["algorithm"] - 1]]  # the file's opening comments
    for key, number in header.items():
        code, comment = _code_and_comment(lines[number - 1])
        value = code.strip().split(None, 1)[1] if len(code.split(None, 1)) > 1 else ""
        out.append(with_comment(f"{key}: {_plain_or_quoted(value)}", comment))
    last = header["graph"]
    decls = []
    for decl in program.decls:
        end = decl.span.end_line - (1 if decl.span.end_column == 1 else 0)
        decls.append((decl.span.line, max(end, decl.span.line)))
    for i, (start, end) in enumerate(decls):
        for between in lines[last:start - 1]:  # comments between declarations
            out.append(f"{'  ' if i else ''}{between.strip()}" if between.strip() else "")
        if i == 0:
            out.append("data:")
        parts = [_code_and_comment(lines[k - 1]) for k in range(start, end + 1)]
        code = " ".join(p[0].strip() for p in parts if p[0].strip())
        comment = " ".join(p[1] for p in parts if p[1])
        out.append(with_comment("  - '" + code.replace("'", "''") + "'", comment))
        last = end
    body = lines[last:]
    while body and not body[-1].strip():
        body.pop()
    while body and not body[0].strip():
        out.append("")
        body.pop(0)
    if body:
        out.append("body: |2")
        out.extend(f"  {line}" if line.strip() else "" for line in body)
    return "\n".join(out) + "\n"
