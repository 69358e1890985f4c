"""The one spec hash: names an algorithm's semantics in `compile --json` and dataset manifests.

sha256 of the canonical JSON of the CLRS spec plus the IR with source spans
and paths dropped, so moving a file or adding a comment keeps the hash while
any change to what the algorithm computes changes it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from algspec.generators import HASH_NEUTRAL_DEFAULTS


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _strip_locations(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip_locations(v) for k, v in obj.items() if k not in ("span", "path")}
    if isinstance(obj, list):
        return [_strip_locations(v) for v in obj]
    return obj


def _without_neutral_defaults(ir_json: dict[str, Any]) -> dict[str, Any]:
    """Drop generator parameters at a default added after hashes were published."""
    for decl in ir_json.get("decls") or []:
        if isinstance(decl, dict) and decl.get("optional") is False:
            del decl["optional"]  # added after hashes were published: false is neutral
        gen = decl.get("generator") if isinstance(decl, dict) else None
        neutral = HASH_NEUTRAL_DEFAULTS.get(gen.get("name", "")) if gen else None
        if neutral:
            gen["params"] = {k: v for k, v in (gen.get("params") or {}).items()
                             if not (k in neutral and v == neutral[k])}
    return ir_json


def spec_hash(spec: dict[str, tuple[str, str, str]], program: BaseModel | None = None) -> str:
    """sha256 (hex) of the spec and, when given, the location-free IR (`ir.Program`)."""
    payload: dict[str, Any] = {"spec": {k: list(v) for k, v in spec.items()}}
    if program is not None:
        payload["ir"] = _without_neutral_defaults(
            _strip_locations(json.loads(program.model_dump_json())))
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()
