"""`CompiledAlgorithm`: the Python API object for one checked `.alg` file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from algspec import ir
from algspec.diagnostics import RuntimeFault
from algspec.edge_lists import EdgeLists
from algspec.generators import GENERATORS, draw_inputs, pointer_range_problem
from algspec.interp import ActivityObserver, Trajectories
from algspec.interp import run as run_program
from algspec.interp.runtime import check_input_values, check_node_count


class CompiledAlgorithm:
    """A compiled algorithm: its IR, CLRS spec, sampler and efficiency figures."""

    def __init__(self, program: ir.Program, source: str):
        self.ir = program
        self.source = source
        self.name = program.name
        self.path = program.path
        self.spec: dict[str, tuple[str, str, str]] = program.spec()

    def __repr__(self) -> str:
        return f"CompiledAlgorithm({self.name!r}, path={self.path!r})"

    # ------------------------------------------------------------ identity
    def spec_hash(self) -> str:
        """The one spec hash (`algspec.sampling.identity`): changes with the semantics, not the spans."""
        from algspec.sampling.identity import spec_hash
        return spec_hash(self.spec, self.ir)

    @property
    def generated_inputs(self) -> list[ir.DataDecl]:
        return [d for d in self.ir.decls if d.generator is not None]

    @property
    def primary_inputs(self) -> list[str]:
        """Names of the inputs `trace` takes: the generated ones."""
        return [d.name for d in self.generated_inputs]

    @property
    def stand_in_inputs(self) -> list[str]:
        """Derived inputs `trace` takes in place of their definitions (dm-clrs's `s`, `f` for
        `min(a, b)`, `max(a, b)` of private draws): those whose definition reads nothing
        recorded, so that a given value cannot disagree with a recorded probe."""
        return [d.name for d in self.ir.decls if d.stage == ir.Stage.INPUT and
                d.derived is not None and not d.implicit and not self.recorded_sources(d.name)]

    def recorded_sources(self, name: str) -> list[str]:
        """The recorded data (inputs in the spec) the definition of `name` reads, directly
        or through unrecorded derived data, in declaration order: what to give instead."""
        seen: set[str] = set()
        found: set[str] = set()
        todo = list(ir.reads(self.ir.decl(name).derived))
        while todo:
            d = self.ir.decl(todo.pop())
            if d.name in seen:
                continue
            seen.add(d.name)
            if d.probed:
                found.add(d.name)
            elif d.derived is not None:
                todo.extend(ir.reads(d.derived))
        return [d.name for d in self.ir.decls if d.name in found]

    def generator_params(self, **overrides: Any) -> dict[str, dict[str, Any]]:
        """Per-input generator parameters after overrides.

        An override `param=value` applies to every generator with that
        parameter; `input.param=value` (or `input__param`) to one input only.
        All overrides are applied before validation, so their order does not
        matter. Unknown names or bad values raise `ValueError`.
        """
        base = {d.name: dict(d.generator.params) for d in self.generated_inputs}
        pending: dict[str, dict[str, Any]] = {name: {} for name in base}
        for key, value in overrides.items():
            target, _, param = key.replace("__", ".").rpartition(".")
            hits = [name for name, ps in base.items()
                    if param in ps and (not target or target == name)]
            if not hits:
                known = sorted({f"{n}.{p}" for n, ps in base.items() for p in ps})
                raise ValueError(f"unknown generator parameter `{key}` for {self.name}; "
                                 f"known: {', '.join(known) or 'none'}")
            for name in hits:
                pending[name][param] = value
        out = {}
        for name, ps in base.items():
            gen = GENERATORS[self.ir.decl(name).generator.name]
            out[name] = gen.resolve({**ps, **pending[name]}) if pending[name] else ps
        return out

    # ------------------------------------------------------------ execution
    def generate(self, n: int, batch_size: int, rng: np.random.Generator | int | None = None,
                 edges: str = "dense", **params: Any) -> dict[str, np.ndarray]:
        """Draw the primary inputs of `batch_size` samples of size n.

        `edges="sparse"`: edge inputs whose generators draw edge lists come as
        `edge_lists.EdgeLists` (the same values and random stream as the dense draw).
        """
        rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
        check_node_count(self.ir, n)  # before any size is computed from it
        requests = {name: (self.ir.decl(name).generator.name, ps)
                    for name, ps in self.generator_params(**params).items()}
        try:
            drawn = draw_inputs(requests, rng, batch_size, n, edges)  # joint ones share a draw
        except ValueError as e:
            name = getattr(e, "input_name", None)
            if name is None:
                raise
            known = sorted(requests[name][1]) if name in requests else []
            how = (f"; try a larger n or other parameters of `{name}` ({', '.join(known)}): "
                   f"sampler(..., {name}__PARAM=...), --param {name}.PARAM=...") if known else ""
            raise GeneratorFault("E105", f"{e} (at n = {n}{how})", self.ir.decl(name).span, 0,
                                 path=self.ir.path) from None
        self._check_pointer_ranges(requests, n)
        self._check_drawn_shapes(drawn, n, batch_size)
        return drawn

    def _check_pointer_ranges(self, requests: dict[str, tuple[str, Any]], n: int) -> None:
        """Integers drawn for a `pointer` (`uniform_int(high = n + 1)`) whose range at this n
        leaves the nodes: R101 from the range itself, whatever values the seed drew."""
        from algspec.ir.size_values import eval_size
        for name, (gen_name, ps) in requests.items():
            d = self.ir.decl(name)
            if d.clrs_type != "pointer":
                continue
            problem = pointer_range_problem(GENERATORS[gen_name], d.loc.value, ps, n,
                                            int(eval_size(self.ir.nodes, n)))
            if problem is not None:
                raise GeneratorFault("R101", problem, d.span, 0, path=self.ir.path)

    def _check_drawn_shapes(self, drawn: dict[str, np.ndarray], n: int, B: int) -> None:
        """A draw the nodes cannot hold (`bst_q`'s n + 1 values on `nodes n`) is a file error."""
        from algspec.ir.size_values import eval_size
        N = int(eval_size(self.ir.nodes, n))
        for name, x in drawn.items():
            d = self.ir.decl(name)
            r = ir.rank(d.loc)
            fits = [(B,) + (N,) * r] + ([(B,) + (n,) * r] if 0 < r and n <= N else [])
            if np.shape(x) not in fits:
                per = np.shape(x)[1] if np.ndim(x) > 1 else 1
                need = "declare at least `nodes n`" if per == n else \
                    "see docs/generators.md for the node count it needs"
                raise GeneratorFault(
                    "R101", f"generator `{d.generator.name}` draws {per} values per "
                    f"{d.loc.value} axis at n = {n}, but the file has N = {N} nodes; {need}",
                    d.span, 0, path=self.ir.path)
            try:  # an override (`--param c.high=5` on categorical(3)) may draw what cannot fit
                check_input_values(d, x.values if isinstance(x, EdgeLists) else np.asarray(x), N)
            except ValueError as e:
                raise GeneratorFault("E110", f"generator `{d.generator.name}` (with these "
                                     f"parameters) drew a value the type cannot hold: {e}",
                                     d.span, 0, path=self.ir.path) from None

    def run(self, inputs: dict[str, np.ndarray], n: int | None = None,
            observer: ActivityObserver | None = None, dtype=np.float32,
            batch_size: int | None = None, rand_keys: np.ndarray | None = None,
            edges: str = "dense") -> Trajectories:
        """Execute on a batch of primary inputs (leading batch axis).

        `batch_size` is only needed when the algorithm has no generated inputs;
        `rand_keys` (one uint64 per sample) key `rand()` besides the inputs;
        `edges="sparse"` stores edge probes as `edge_lists.EdgeLists` where they are zero
        off the interconnection graph (`interp.edge_storage`).
        """
        if n is None:
            n = self._infer_n(inputs, batched=True)
        return run_program(self.ir, inputs, n, observer, dtype, batch_size, rand_keys,
                           edges=edges)

    @property
    def uses_rand(self) -> bool:
        """Whether the body draws `rand()` (then samples carry rand keys)."""
        return any(isinstance(x, ir.Rand) for s, _ in ir.walk_statements(self.ir.body)
                   for e in ir.statement_exprs(s) for x in ir.walk_expr(e))

    def sample(self, n: int, batch_size: int, seed: np.random.Generator | int | None = None,
               observer: ActivityObserver | None = None, edges: str = "dense",
               **params: Any) -> Trajectories:
        """Generate inputs and run them: a batch of trajectories in CLRS encoding.

        A program that draws `rand()` gets one rand key per sample, drawn from the
        same stream after the inputs (so the inputs are those of a program without
        `rand()`): its draws depend on the seed and the sample's place in the stream,
        not on its inputs alone. The keys travel in `Trajectories.rand_keys`.
        `edges="sparse"`: edge data drawn and stored as edge lists (`run`, `generate`).
        """
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        inputs = self.generate(n, batch_size, rng, edges=edges, **params)
        return self.run(inputs, n, observer, batch_size=batch_size,
                        rand_keys=self.draw_rand_keys(rng, batch_size), edges=edges)

    def draw_rand_keys(self, rng: np.random.Generator, batch_size: int) -> np.ndarray | None:
        """One rand key per sample from `rng` (None for a program without `rand()`)."""
        if not self.uses_rand:
            return None
        return rng.integers(0, 2 ** 64, size=batch_size, dtype=np.uint64, endpoint=False)

    def _infer_n(self, inputs: dict[str, np.ndarray], batched: bool) -> int:
        """The problem size n that every given node and edge input fits (see `infer_n`)."""
        from algspec.ir.sizes import infer_n
        lead = 1 if batched else 0
        given_views = [d for d in self.ir.decls if d.stage == ir.Stage.INPUT and
                       d.derived is not None]
        lengths: dict[str, int] = {}
        for d in self.generated_inputs + given_views:
            if d.name in inputs and d.loc != ir.Loc.GRAPH:
                shape = np.shape(inputs[d.name])
                rank = ir.rank(d.loc)
                if len(shape) != lead + rank or (rank == 2 and shape[lead] != shape[lead + 1]):
                    # say which input, not IndexError or a bad n
                    want = "one entry per node" if rank == 1 else "an n x n array"
                    raise ValueError(f"input `{d.name}` is {d.loc.value} data and needs "
                                     f"{want}{' per sample' if lead else ''}, got shape {shape}")
                lengths[d.name] = int(shape[lead])
        if not lengths:
            raise ValueError(f"{self.name}: cannot infer n from inputs {sorted(inputs)} (no node "
                             "or edge data among them); pass the problem size, e.g. n=4")
        return infer_n(self.ir, lengths, self._drawn_count)

    def _drawn_count(self, name: str, n: int) -> int | None:
        """How many entries per axis input `name` may be given at size n besides N: what its
        generator draws, for an input with `pad` or on edges (padded nodes have no edges);
        None when only N fits (a node input without `pad`, a derived input)."""
        d = self.ir.decl(name)
        if d.generator is None or (d.loc == ir.Loc.NODE and d.pad is None):
            return None
        return GENERATORS[d.generator.name].count(n, dict(d.generator.params))

    def trace(self, n: int | None = None, *, rand_key: int | None = None,
              **inputs: Any) -> tuple[Any, dict]:
        """Run one sample given its primary inputs; return `(output, probes)` like dm-clrs.

        `n` is inferred from the inputs (`algspec.ir.sizes`); give it for an algorithm without
        node or edge inputs. A derived input whose definition reads nothing recorded may be
        given too (`stand_in_inputs`: dm-clrs's `s`, `f` for `min(a, b)`, `max(a, b)` of
        private draws): its values replace its definition, and draws nothing else reads may
        be left out. A datum computed from recorded inputs (`adj = adjacency(A)`) is taken
        only with those inputs and only where it is what its definition computes at the
        stored float32 precision (so stored samples replay exactly); otherwise, and always
        for `pos`, it is refused, naming the inputs to give instead. `rand_key` is a sample's
        rand key (a dataset's `rand_keys[i]`) for a program that draws `rand()`; without it
        the draws are keyed by the inputs alone. (An input named `rand_key` is passed in
        `inputs` instead.)
        """
        if rand_key is not None and "rand_key" in self.primary_inputs:
            inputs["rand_key"], rand_key = rand_key, None
        computed = self._computed_given(inputs)  # held to their definitions below
        views = set(self.stand_in_inputs)  # may be given: replace their definitions
        missing = set(self.primary_inputs) - set(inputs) - ir.unread_inputs(self.ir, set(inputs))
        extra = set(inputs) - set(self.primary_inputs) - views - set(computed)
        if missing or extra:
            also = (f" (or the derived inputs {sorted(views)}, which stand in for the "
                    "private draws they are defined from)") if views else ""
            raise TypeError(f"{self.name}.trace takes inputs {self.primary_inputs}{also}; "
                            f"missing {sorted(missing)}, unexpected {sorted(extra)}")
        arrays = {k: self._class_indices(k, _as_float_array(k, v)) for k, v in inputs.items()}
        if n is None:
            n = self._infer_n(arrays, batched=False)
        elif isinstance(n, bool) or not isinstance(n, (int, np.integer, float, np.floating)) \
                or not float(n).is_integer():
            raise ValueError(f"{self.name}.trace: n must be an integer problem size, got {n!r}")
        batch = {k: v[None] for k, v in arrays.items()}
        n = int(n)
        if computed:
            self._check_computed(batch, computed, n)
        keys = None if rand_key is None else np.array([_rand_key(self.name, rand_key)],
                                                      dtype=np.uint64)
        traj = self.run(batch, n, dtype=np.float64, batch_size=1, rand_keys=keys)
        return self._output_value(traj), to_probes(traj)

    def _computed_given(self, inputs: dict[str, Any]) -> list[str]:
        """The given derived inputs that do not stand in for their definitions (they read
        recorded data): each is accepted only with the inputs its definition reads, so that
        `_check_computed` can hold it to that definition. `pos` and other data the compiler
        adds are refused outright. Raises `TypeError` naming the inputs to give instead."""
        stand_ins = set(self.stand_in_inputs)
        out = []
        for name in inputs:
            d = next((x for x in self.ir.decls if x.name == name), None)
            if d is None or d.stage != ir.Stage.INPUT or d.derived is None or name in stand_ins:
                continue
            sources = [x for x in self.recorded_sources(name) if not self.ir.decl(x).implicit]
            lacking = [x for x in self._definition_inputs(name, set(inputs)) if x not in inputs]
            if not sources and d.implicit:
                raise TypeError(f"{self.name}.trace: unexpected `{name}`: it is computed from "
                                "the problem size (pass n, or the inputs it is inferred from)")
            if d.implicit or lacking:
                listed = ", ".join(f"`{x}`" for x in (lacking or sources))
                raise TypeError(f"{self.name}.trace: unexpected `{name}`: it is computed from "
                                f"{_and_list(sources, 'the recorded input')}, whose probes a "
                                f"value given for it alone could contradict; give {listed} "
                                "instead")
            out.append(name)
        return out

    def _definition_inputs(self, name: str, given: set[str]) -> list[str]:
        """The generated inputs the definition of `name` reads, directly or through other
        derived data (a given stand-in input ends the search), in declaration order."""
        seen: set[str] = set()
        todo = list(ir.reads(self.ir.decl(name).derived))
        stand_ins = set(self.stand_in_inputs) & given
        while todo:
            d = self.ir.decl(todo.pop())
            if d.name in seen:
                continue
            seen.add(d.name)
            if d.derived is not None and d.name not in stand_ins:
                todo.extend(ir.reads(d.derived))
        return [d.name for d in self.ir.decls if d.name in seen and d.generator is not None]

    def _check_computed(self, batch: dict[str, np.ndarray], computed: list[str], n: int) -> None:
        """Each given value of a datum computed from recorded inputs must be what its
        definition gives at the precision datasets store (float32): the stored values of a
        sample replay it exactly, and a value that contradicts the recorded inputs is refused
        (`ValueError`) instead of silently run."""
        from algspec.interp.runtime import Machine
        given = Machine(self.ir, batch, n, dtype=np.float32, batch_size=1)
        derived = Machine(self.ir, {k: v for k, v in batch.items() if k not in computed}, n,
                          dtype=np.float32, batch_size=1)
        for name in computed:
            got, want = given.state[name], derived.state[name]
            same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" \
                else got == want
            if not same.all():
                bad = int(np.sum(~same))
                raise ValueError(
                    f"{self.name}.trace: the given `{name}` is not what its definition "
                    f"computes from {_and_list(self.recorded_sources(name), 'the input')} "
                    f"({bad} of its {got.size} entries differ); leave `{name}` out (it is "
                    "computed), or give the value its definition gives")

    def _class_indices(self, name: str, x: np.ndarray) -> np.ndarray:
        """A categorical input given one-hot, as the Feedback holds it, as its class indices."""
        d = self.ir.decl(name)
        if d.clrs_type != "categorical" or x.ndim != ir.rank(d.loc) + 1:
            return x
        k = x.shape[-1]
        if (d.categories is not None and k > d.categories) or \
                not (np.isin(x, (0.0, 1.0)).all() and (x.sum(axis=-1) == 1).all()):
            raise ValueError(f"input `{name}` is categorical: give class indices (one per "
                             f"{d.loc.value}) or one-hot rows, got shape {x.shape} that is "
                             "not one-hot")
        return np.argmax(x, axis=-1).astype(np.float64)

    def _output_value(self, traj: Trajectories) -> Any:
        outs = {}
        for name, data in traj.outputs.items():
            t = self.spec[name][2]
            x = data[0]
            if t == "mask_one" or t == "categorical":
                x = (int(np.argmax(x)) if x.any() else None) if t == "mask_one" else \
                    np.argmax(x, axis=-1)  # None: a `mask_one?` holding none (all zeros)
            elif t in ("pointer", "should_be_permutation"):
                x = x.astype(np.int64)
            outs[name] = x
        return next(iter(outs.values())) if len(outs) == 1 else outs

    # ------------------------------------------------------------ consumers
    def sampler(self, length: int, num_samples: int = -1, seed: int | None = None,
                *, jobs: int = 1, edges: str = "dense", **params: Any):
        """A `clrs.Sampler`-compatible sampler whose `next(B)` is a `clrs.Feedback`
        (imports dm-clrs, hence tensorflow). Where dm-clrs is not installed, the same
        sampler (same seed, same batches) returning algspec's own `Feedback`
        (`algspec.sampling.BatchSampler`, `algspec.feedback`). `jobs` > 1 draws a
        fixed dataset (`num_samples` > 0) in that many processes: the same samples.
        `edges="sparse"` holds edge data as edge lists (large sparse graphs); the
        batches are the same (dm-clrs's densified, algspec's as `EdgeLists`)."""
        self.generator_params(**params)  # fail early on unknown parameters
        try:
            from algspec.clrs_bridge.sampler import AlgspecSampler as cls
        except ImportError:  # no dm-clrs (or no TensorFlow under it)
            from algspec.sampling import BatchSampler as cls
        return cls(self, self.spec, num_samples, seed=seed, length=length, jobs=jobs,
                   edges=edges, **params)

    def batch_sampler(self, length: int, num_samples: int = -1, seed: int | None = None,
                      *, jobs: int = 1, edges: str = "dense", **params: Any):
        """The sampler of `sampler`, returning algspec's own `Feedback`, never importing
        dm-clrs or TensorFlow (what algspec's training backend reads); `edges="sparse"`:
        edge data as `EdgeLists` in its data points."""
        from algspec.sampling import BatchSampler
        self.generator_params(**params)
        return BatchSampler(self, self.spec, num_samples, seed=seed, length=length, jobs=jobs,
                            edges=edges, **params)

    def static_efficiency(self):
        from algspec.efficiency.analysis import analyse
        return analyse(self.ir)


class GeneratorFault(RuntimeFault, ValueError):
    """Inputs that cannot be drawn at this n: a diagnostic at the input (and a ValueError)."""

    def __init__(self, code: str, message: str, span, sample: int, path: str = "<string>"):
        super().__init__(code, message, span, sample, path)
        self.diagnostic = self.diagnostic.model_copy(update={"message": message})  # no sample
        self.args = (self.diagnostic.concise(),)


def _and_list(names: list[str], what: str) -> str:
    """`the recorded input `a``, `the recorded inputs `a`, `b``: names in a message."""
    listed = ", ".join(f"`{x}`" for x in names)
    return f"{what}{'s' if len(names) > 1 else ''} {listed}"


def _as_float_array(name: str, value: Any) -> np.ndarray:
    """One input as float64, or a ValueError that names it (ragged lists, strings, None,
    complex numbers: casting would drop their imaginary part; None entries become NaN,
    which `check_input_values` refuses)."""
    try:
        if value is None or np.iscomplexobj(value):
            raise ValueError(f"got {value!r:.80}")
        x = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"input `{name}` is not an array of numbers: {e}") from None
    return x


def _rand_key(name: str, key: Any) -> int:
    """A sample's rand key: an integer that fits the uint64 it is stored as."""
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or \
            not 0 <= int(key) < 2 ** 64:
        raise ValueError(f"{name}.trace: rand_key must be an integer in 0..2**64 - 1 (a "
                         f"dataset's `rand_keys[i]`), got {key!r}")
    return int(key)


def to_probes(traj: Trajectories) -> dict:
    """Single-sample trajectories as dm-clrs's finalized `ProbesDict` (shapes kept at n = 1)."""
    probes: dict = {s: {loc: {} for loc in ("node", "edge", "graph")}
                    for s in ("input", "output", "hint")}
    length = int(traj.lengths[0])
    for name, (stage, loc, t) in traj.spec.items():
        if stage == "hint":
            data = traj.hints[name][:length, 0]
        else:
            src = traj.inputs if stage == "input" else traj.outputs
            # An ndarray, 0-d for graph data (never a numpy scalar: dm-clrs checks
            # `isinstance(data, np.ndarray)`). Unlike `clrs.probing.finalize`, nothing is
            # squeezed: at n = 1 node data keeps its node axis and edge data both axes,
            # so a probe's shape depends on its location only, never on n.
            data = np.array(src[name][0])
        probes[stage][loc][name] = {"data": data, "type_": t}
    return probes


def load_source(source: str, path: str = "<string>") -> CompiledAlgorithm:
    """Parse, check and compile `.alg` source; raises `AlgError` with diagnostics."""
    from algspec.diagnostics import AlgError, Diagnostic, Span
    from algspec.language.parser import deepest_ast_span, parse
    from algspec.lowering import lower
    tree = parse(source, path)
    try:
        return CompiledAlgorithm(lower(tree, path), source)
    except RecursionError:
        raise AlgError([Diagnostic(code="E004", message="expression nested too deeply", path=path,
                                   span=deepest_ast_span(tree) or Span(),
                                   help="split it with `let`")]) from None


def load(path: str | Path) -> CompiledAlgorithm:
    """Compile a `.alg` file."""
    from algspec.language.source_file import read_source
    return load_source(read_source(path), str(path))
