"""Old import paths of the modules that moved into packages by pipeline stage.

`import algspec.ops` keeps working for one release, with a DeprecationWarning naming
the new path (`algspec.ir.ops`). The old name is bound to the very same module object,
so code that patches or reads either name sees one module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

MOVED = {
    "algspec.cli_args": "algspec.cli.args",
    "algspec.dataset": "algspec.sampling.dataset",
    "algspec.efficiency.commands": "algspec.cli.efficiency",
    "algspec.efficiency.lint_rules": "algspec.lint.efficiency_rules",
    "algspec.efficiency.measured": "algspec.lint.measured",
    "algspec.efficiency.observed": "algspec.lint.observed",
    "algspec.efficiency.report": "algspec.cli.efficiency_report",
    "algspec.graph_kinds": "algspec.ir.graph_kinds",
    "algspec.graph_reads": "algspec.efficiency.graph_reads",
    "algspec.identity": "algspec.sampling.identity",
    "algspec.internal_error": "algspec.process.internal_error",
    "algspec.interrupts": "algspec.process.interrupts",
    "algspec.ir_expr": "algspec.ir.expr",
    "algspec.libm": "algspec.ir.libm",
    "algspec.lint_cache": "algspec.lint.cache",
    "algspec.memory_budget": "algspec.process.memory_budget",
    "algspec.op_basics": "algspec.ir.op_basics",
    "algspec.op_int_floats": "algspec.ir.op_int_floats",
    "algspec.op_rand_int": "algspec.ir.op_rand_int",
    "algspec.op_sizes": "algspec.ir.op_sizes",
    "algspec.ops": "algspec.ir.ops",
    "algspec.output_files": "algspec.process.output_files",
    "algspec.ray_cluster": "algspec.process.ray_cluster",
    "algspec.reductions": "algspec.ir.reductions",
    "algspec.sample_jobs": "algspec.sampling.jobs",
    "algspec.size_text": "algspec.ir.size_text",
    "algspec.size_values": "algspec.ir.size_values",
    "algspec.sizes": "algspec.ir.sizes",
    "algspec.source_file": "algspec.language.source_file",
    "algspec.splitmix": "algspec.ir.splitmix",
    "algspec.text.commands": "algspec.cli.text",
    "algspec.training.commands": "algspec.cli.training",
    "algspec.trajectory_batches": "algspec.sampling.trajectory_batches",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path and loads the module from its new path."""

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} has moved to {new}; import it from there (the old path "
                      "goes in a later release)", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module ran at its new path already."""


def install() -> None:
    """Let the old paths be imported (once per process)."""
    if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedModules())
