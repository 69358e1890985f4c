"""A cache of lint findings per file, so `algspec lint` on an unchanged tree is instant.

Sampling small instances is the slow part of lint (tens to hundreds of ms per
file). Findings are a pure function of the source, its path (diagnostics name
it), the files it includes, the sampling switch and algspec's own code, so the
key hashes all of these; algspec's code enters by the size and mtime of its
modules, so editing a rule invalidates every entry. Entries live under
`$ALGSPEC_CACHE_DIR` (default `~/.cache/algspec`) in `lint/`; `ALGSPEC_NO_CACHE=1`
turns the cache off. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from contextlib import suppress
from functools import lru_cache
from pathlib import Path

from algspec.diagnostics import Diagnostic

# Line by line: `^\s*` would run across blank lines from every line start (quadratic).
_INCLUDE = re.compile(r'^[^\S\n]*include[^\S\n]+"([^"\n]+)"', re.MULTILINE)
_FORMAT = "1"


def enabled() -> bool:
    return os.environ.get("ALGSPEC_NO_CACHE", "") in ("", "0")


def cache_dir() -> Path:
    root = os.environ.get("ALGSPEC_CACHE_DIR") or Path.home() / ".cache" / "algspec"
    return Path(root) / "lint"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """algspec's own modules (name, size, mtime): any edit changes the key."""
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parents[1]  # the algspec package, not just lint/
    for p in sorted(pkg.rglob("*")):
        if p.suffix in (".py", ".lark"):
            st = p.stat()
            h.update(f"{p.relative_to(pkg)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _includes(source: str, path: str, h, seen: set[str]) -> None:
    """Hash the files `source` includes, transitively (a missing one hashes as missing),
    without recursion (a chain of includes may be long)."""
    from algspec.diagnostics import AlgError
    from algspec.language.source_file import read_source

    stack = [iter([(source, path)])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        text, where = item
        base = Path(where).parent
        found = []
        for rel in _INCLUDE.findall(text):
            p = str((base / rel).resolve())
            if p in seen:
                continue
            seen.add(p)
            try:  # a regular file of bounded size (never a FIFO or a device)
                included = read_source(p)
            except (OSError, AlgError):  # linted as E704 at the include
                h.update(f"missing {p}\n".encode())
                continue
            found.append((included, p))
            h.update(f"include {p}\n".encode() + included.encode() + b"\0")
        stack.append(iter(found))


def key(source: str, path: str, sample: bool) -> str:
    h = hashlib.sha256(f"{_FORMAT}\0{code_fingerprint()}\0{path}\0{sample}\0".encode())
    h.update(source.encode())
    _includes(source, path, h, set())
    return h.hexdigest()


def get(k: str) -> list[Diagnostic] | None:
    """The cached findings for key `k`, or None."""
    if not enabled():
        return None
    try:
        data = json.loads((cache_dir() / f"{k}.json").read_text())
        return [Diagnostic.model_validate(d) for d in data]
    except (OSError, ValueError, TypeError):
        return None


def put(k: str, diags: list[Diagnostic]) -> None:
    """Store findings atomically (write a temporary file, then rename)."""
    if not enabled():
        return
    with suppress(OSError):
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f"{k}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps([x.model_dump(mode="json") for x in diags]))
        os.replace(tmp, d / f"{k}.json")
