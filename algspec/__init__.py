"""algspec: write a neural algorithmic reasoning task once, as a `.alg` file.

The core (parse, check, lint, compile, sample, efficiency) imports neither
jax nor tensorflow; `register` and `.sampler` import dm-clrs on demand.
"""

from algspec.compiled import CompiledAlgorithm, load, load_source
from algspec.diagnostics import AlgError, Diagnostic, RuntimeFault

__version__ = "0.1.0"


def register(alg: CompiledAlgorithm, name: str | None = None, replace: bool = False) -> str:
    """Make `clrs.build_sampler(alg.name, ...)` build this algorithm's sampler."""
    from algspec.clrs_bridge.register import register as _register
    return _register(alg, name=name, replace=replace)


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
