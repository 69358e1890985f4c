"""The package layout follows the pipeline: every import goes to a stage above (earlier in
`LAYERS`) or to a module beside every stage, never back up, and there is no cycle.

Imports are read from the source (every `import`, module-level or inside a function),
so a lazy import that runs back up counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "algspec"

# Stages from first to last; a stage may import any stage before it.
LAYERS = [
    {"version", "codes", "diagnostics", "process", "feedback", "edge_lists"},  # beside every stage
    {"language"},
    {"ir"},
    {"generators"},
    {"lowering"},
    {"interp"},
    {"efficiency"},
    {"sampling"},
    {"clrs_bridge"},
    {"compiled"},
    {"lint"},
    {"text"},
    {"nn"},
    {"training"},
    {"cli"},
    {"console"},
]
RANK = {room: k for k, rooms in enumerate(LAYERS) for room in rooms}


def room_of(module: str) -> str:
    """`algspec.ir.ops` -> `ir`, `algspec.compiled` -> `compiled`."""
    return module.split(".")[1]


def module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imports(names: dict[str, Path]) -> list[tuple[str, str]]:
    """(importer, imported) module pairs inside algspec, the package face left out."""
    pairs = []
    for module, path in names.items():
        if module == "algspec":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from P import m` imports module P.m where m is one, else names of P
                subs = [f"{node.module}.{a.name}" for a in node.names]
                targets = [t for t in subs if t in names] or [node.module]
            else:
                continue
            for target in targets:
                while target not in names and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in names and target != "algspec":
                    pairs.append((module, target))
    return pairs


def test_every_room_has_a_stage() -> None:
    rooms = {room_of(m) for m in module_names() if m != "algspec"}
    assert rooms <= set(RANK), f"give these a stage in LAYERS: {sorted(rooms - set(RANK))}"


def test_no_import_runs_back_up() -> None:
    names = module_names()
    back = sorted({f"{a} -> {b}" for a, b in imports(names)
                   if RANK[room_of(b)] > RANK[room_of(a)]})
    assert not back, "\n".join(back)


def test_no_cycle_between_rooms() -> None:
    edges: dict[str, set[str]] = {}
    for a, b in imports(module_names()):
        if room_of(a) != room_of(b):
            edges.setdefault(room_of(a), set()).add(room_of(b))
    state: dict[str, int] = {}

    def visit(room: str, path: list[str]) -> None:
        state[room] = 1
        for nxt in sorted(edges.get(room, ())):
            assert state.get(nxt) != 1, " -> ".join([*path, room, nxt])
            if nxt not in state:
                visit(nxt, [*path, room])
        state[room] = 2

    for room in sorted(edges):
        if room not in state:
            visit(room, [])


def test_the_package_holds_at_most_eight_modules_of_its_own() -> None:
    own = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(own) <= 8, own


def test_no_cycle_between_modules() -> None:
    """Not inside a package either: a module never needs, however lazily, one that
    needs it."""
    edges: dict[str, set[str]] = {}
    for a, b in imports(module_names()):
        if a != b:
            edges.setdefault(a, set()).add(b)
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for nxt in sorted(edges.get(module, ())):
            assert state.get(nxt) != 1, " -> ".join([*path, module, nxt])
            if nxt not in state:
                visit(nxt, [*path, module])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [])
