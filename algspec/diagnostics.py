"""One diagnostic type for the parser, the checks, lint and run-time faults.

Every user-facing problem with a `.alg` file is a `Diagnostic`, so the CLI can
render all of them the same way (`path:line:col: CODE message`, a full view
with the source line and a caret, or JSON) and never shows a traceback.

The concise format is one line per diagnostic, `path:line:col: CODE message`,
followed by an indented `  help: ...` line when the diagnostic has help: the
first line stays the same for tools that read it (a line that does not start
with the path is a continuation), and the help, often the fix, is not lost.
"""

from __future__ import annotations

import json
from enum import Enum

from pydantic import BaseModel, model_validator


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Span(BaseModel, frozen=True):
    """1-based line/column range in a source file."""

    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1


class Diagnostic(BaseModel):
    code: str
    severity: Severity = Severity.ERROR
    message: str
    span: Span = Span()
    help: str | None = None
    path: str = "<string>"

    @model_validator(mode="before")
    @classmethod
    def _registered(cls, data):
        """Only codes of `algspec.codes` exist; the severity defaults to the registered one."""
        if isinstance(data, dict) and "code" in data:
            from algspec import codes
            c = codes.get(data["code"])
            if data.get("severity") is None:
                data = {**data, "severity": c.severity}
        return data

    def concise(self) -> str:
        """The identifying line, `path:line:col: CODE message` (no help)."""
        return f"{self.path}:{self.span.line}:{self.span.column}: {self.code} {self.message}"

    def concise_block(self) -> str:
        """The concise format: the identifying line, then `  help: ...` when there is help."""
        if not self.help:
            return self.concise()
        return self.concise() + "\n" + "\n".join(
            f"  help: {line}" if k == 0 else f"        {line}"
            for k, line in enumerate(self.help.split("\n")))

    def full(self, source: str | None) -> str:
        lines = [f"{self.severity.value}[{self.code}]: {self.message}",
                 f"  --> {self.path}:{self.span.line}:{self.span.column}"]
        if source is not None:
            src_lines = source.split("\n")
            if 1 <= self.span.line <= len(src_lines):
                text = src_lines[self.span.line - 1]
                width = (self.span.end_column - self.span.column
                         if self.span.end_line == self.span.line else len(text) - self.span.column + 1)
                lines.append(f"   | {text}")
                lines.append("   | " + " " * (self.span.column - 1) + "^" * max(1, width))
        if self.help:
            lines.append(f"   = help: {self.help}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return json.loads(self.model_dump_json())


class AlgError(Exception):
    """Raised with the diagnostics that stop compilation of a file."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__(render(diagnostics, "concise"))


class RuntimeFault(Exception):
    """A fault while executing a compiled algorithm: names the statement and the sample."""

    def __init__(self, code: str, message: str, span: Span, sample: int, path: str = "<string>",
                 help: str | None = None):
        self.diagnostic = Diagnostic(code=code, message=f"{message} (sample {sample})", span=span,
                                     path=path, **({"help": help} if help else {}))
        self.sample = sample
        super().__init__(self.diagnostic.concise_block())


def render(diags: list[Diagnostic], fmt: str, sources: dict[str, str] | None = None) -> str:
    """Render diagnostics as `concise`, `full` or `json`."""
    if fmt == "json":
        return json.dumps([d.as_dict() for d in diags], indent=2)
    if fmt == "full":
        sources = sources or {}
        return "\n\n".join(d.full(sources.get(d.path)) for d in diags)
    return "\n".join(d.concise_block() for d in diags)
