"""Argument helpers shared by every `algspec` command: one-line errors, generator overrides."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error (no traceback) and return the Exit to raise."""
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """`--param key=value` generator overrides; values parsed as JSON when they can be.

    Raises ValueError on an item without `=`.
    """
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param: expected NAME=VALUE (key=value), got {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out
