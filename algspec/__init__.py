"""algspec: write a neural algorithmic reasoning task once, as a `.alg` file.

The core (parse, check, lint, compile, sample, efficiency) imports neither
jax nor tensorflow; `register` and `.sampler` import dm-clrs on demand.

Importing the package is cheap: its names (`load`, `load_source`, ...) and
submodules are imported on first use, so the console script can catch a
Ctrl-C during its own start-up (`algspec.console`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from algspec.process import moved_modules as _moved_modules
from algspec.version import __version__

_moved_modules.install()  # old module paths, for one release

_NAMES = {
    "CompiledAlgorithm": "algspec.compiled",
    "load": "algspec.compiled",
    "load_source": "algspec.compiled",
    "AlgError": "algspec.diagnostics",
    "Diagnostic": "algspec.diagnostics",
    "RuntimeFault": "algspec.diagnostics",
}

if TYPE_CHECKING:  # for type checkers and editors; at run time these load on first use
    from algspec.compiled import CompiledAlgorithm, load, load_source
    from algspec.diagnostics import AlgError, Diagnostic, RuntimeFault


def register(alg: CompiledAlgorithm, name: str | None = None, replace: bool = False) -> str:
    """Make `clrs.build_sampler(alg.name, ...)` build this algorithm's sampler."""
    from algspec.clrs_bridge.register import register as _register
    return _register(alg, name=name, replace=replace)


def __getattr__(name: str) -> Any:
    """`algspec.load` and the other public names, and submodules (`algspec.sampling.dataset`),
    imported on first use."""
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
        globals()[name] = value
        return value
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))


__all__ = [
    "AlgError",
    "CompiledAlgorithm",
    "Diagnostic",
    "RuntimeFault",
    "__version__",
    "load",
    "load_source",
    "register",
]
