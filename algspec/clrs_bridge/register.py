"""Register a compiled algorithm with dm-clrs so `clrs.build_sampler(name, ...)` finds it.

`clrs.build_sampler` looks the name up in three places: `specs.SPECS[name]`
(a read-only `MappingProxyType`, so it is replaced by an extended copy, also
re-exported as `clrs.SPECS`), `getattr(clrs._src.algorithms, name)` (the
algorithm function it hands to the sampler; here a runner wrapping
`alg.trace`) and `samplers.SAMPLERS[name]` (the sampler class; here a subclass
of `AlgspecSampler` bound to the algorithm).  It keeps only the keyword
arguments named in the class's `_sample_data` signature, so that signature
lists `length` and the algorithm's generator parameters.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Mapping
from typing import Any

import clrs
from clrs._src import algorithms as clrs_algorithms
from clrs._src import samplers as clrs_samplers
from clrs._src import specs as clrs_specs

from algspec.clrs_bridge.sampler import AlgspecSampler

__all__ = ["is_registered", "register", "unregister"]

# dm-clrs's own algorithms, as shipped (snapshot before anyone registers).
CLRS_ALGORITHMS: frozenset[str] = frozenset(clrs_specs.SPECS) & frozenset(clrs_samplers.SAMPLERS)

_REGISTERED: dict[str, Any] = {}
_MISSING = object()
# Originals displaced by `replace=True`, restored by `unregister`.
_DISPLACED: dict[str, tuple[Any, Any, Any]] = {}


class AlgorithmRunner:
    """Stands in for a dm-clrs algorithm function: `runner(**inputs) -> (output, probes)`."""

    def __init__(self, compiled: Any) -> None:
        self.compiled = compiled
        self.__name__ = compiled.name
        self.__doc__ = f"algspec algorithm '{compiled.name}' (CompiledAlgorithm.trace)."

    def __call__(self, *args: Any, **inputs: Any) -> Any:
        if args:
            names = getattr(self.compiled, "primary_inputs", None)
            if names is None:
                raise TypeError(f"{self.__name__}: pass the inputs by name, e.g. key=...")
            inputs = {**dict(zip(names, args, strict=True)), **inputs}
        return self.compiled.trace(**inputs)


def _param_defaults(alg: Any) -> dict[str, Any]:
    """Generator parameters the algorithm accepts as `sample(**params)` overrides.

    From `alg.param_defaults` if it has one, else from `alg.generator_params()`
    (input -> parameters): each parameter by its own name (applies to every
    input that has it) and as `input__param` (one input only).
    """
    defaults = getattr(alg, "param_defaults", None)
    if isinstance(defaults, Mapping):
        return dict(defaults)
    resolve = getattr(alg, "generator_params", None)
    out: dict[str, Any] = {}
    if callable(resolve):
        for name, params in resolve().items():
            for key, value in params.items():
                out.setdefault(key, value)
                out[f"{name}__{key}"] = value
    return out


def _sampler_class(name: str, alg: Any) -> type[AlgspecSampler]:
    """An `AlgspecSampler` subclass whose `_sample_data` signature names its kwargs."""
    params = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("length", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    ]
    params += [
        inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v)
        for k, v in _param_defaults(alg).items()
        if k.isidentifier() and k != "length"
    ]

    def _sample_data(self: AlgspecSampler, length: int, **kwargs: Any) -> list[Any]:
        return AlgspecSampler._sample_data(self, length, **kwargs)

    _sample_data.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return type(
        f"AlgspecSampler_{name}",
        (AlgspecSampler,),
        {"_sample_data": _sample_data, "CAN_TRUNCATE_INPUT_DATA": True, "compiled": alg,
         "__doc__": f"AlgspecSampler bound to the algspec algorithm '{name}'."},
    )


def _set_specs(new: Mapping[str, Any]) -> None:
    proxy = types.MappingProxyType(dict(new))
    clrs_specs.SPECS = proxy
    clrs.SPECS = proxy


def is_registered(name: str) -> bool:
    """Whether `name` is currently served by algspec."""
    return name in _REGISTERED


def register(alg: Any, name: str | None = None, replace: bool = False) -> str:
    """Make `clrs.build_sampler(name, ...)` build an `AlgspecSampler` for `alg`.

    `name` defaults to `alg.name`.  Registering again (the same or an edited
    algorithm) updates the registration.  Taking over one of dm-clrs's own
    algorithms needs `replace=True`; `unregister` gives it back.  Returns the name.
    """
    if not (hasattr(alg, "spec") and hasattr(alg, "name") and hasattr(alg, "sample")):
        raise TypeError(f"register takes a compiled algorithm, e.g. "
                        f"algspec.register(algspec.load('file.alg')), not {alg!r}")
    name = name or alg.name
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"cannot register '{name}': not a Python identifier")
    if name in CLRS_ALGORITHMS and name not in _REGISTERED:
        if not replace:
            raise ValueError(
                f"'{name}' is one of dm-clrs's own algorithms; pass replace=True to "
                "take it over, or register under another name"
            )
        _DISPLACED[name] = (
            clrs_specs.SPECS[name],
            getattr(clrs_algorithms, name, _MISSING),
            clrs_samplers.SAMPLERS[name],
        )
    spec = {k: tuple(v) for k, v in alg.spec.items()}
    _set_specs({**clrs_specs.SPECS, name: spec})
    setattr(clrs_algorithms, name, AlgorithmRunner(alg))
    clrs_samplers.SAMPLERS[name] = _sampler_class(name, alg)
    _REGISTERED[name] = alg
    return name


def unregister(name: str) -> None:
    """Undo `register(…, name)`, restoring a displaced dm-clrs algorithm."""
    if name not in _REGISTERED:
        raise KeyError(f"'{name}' is not registered by algspec")
    del _REGISTERED[name]
    specs_now = dict(clrs_specs.SPECS)
    if name in _DISPLACED:
        spec, fn, sampler_cls = _DISPLACED.pop(name)
        specs_now[name] = spec
        if fn is not _MISSING:
            setattr(clrs_algorithms, name, fn)
        clrs_samplers.SAMPLERS[name] = sampler_cls
    else:
        specs_now.pop(name, None)
        if hasattr(clrs_algorithms, name):
            delattr(clrs_algorithms, name)
        clrs_samplers.SAMPLERS.pop(name, None)
    _set_specs(specs_now)
