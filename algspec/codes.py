"""The one registry of diagnostic codes: E (parser, checks), L/W (lint), R (run time).

Every `Diagnostic` is built with a code from `CODES` (an unknown code is a
`ValueError` when the diagnostic is made, and `tests/diagnostics/test_diagnostics.py`
checks that every code written in the sources is registered). The code table
of docs/diagnostics.md is `markdown_table()`, tested to agree; `algspec explain CODE`
prints one entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SeverityName = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Code:
    code: str
    severity: SeverityName
    source: Literal["parser", "yaml", "checks", "lint", "efficiency", "runtime"]
    title: str
    doc: str


def _c(code: str, severity: SeverityName, source, title: str, doc: str) -> Code:
    return Code(code, severity, source, title, doc)


_E, _W = "error", "warning"

_ALL = [
    # ---------------------------------------------------------------- parser
    _c("E001", _E, "parser", "unexpected character",
       "A character that no token starts with (e.g. `$`), or a byte that is not UTF-8 text "
       "(a file saved in another encoding)."),
    _c("E002", _E, "parser", "syntax error",
       "The parser expected something else here; the message lists what it expected."),
    _c("E003", _E, "parser", "empty file", "A file must start with `algorithm NAME`."),
    _c("E004", _E, "parser", "expression nested too deeply",
       "Nesting deeper than the parser and checks support; split the expression with `let`."),
    _c("E005", _E, "yaml", "malformed YAML form",
       "A `.yaml` algorithm that is not YAML, or not the form `algspec convert` writes: "
       "a mapping with `algorithm`, `nodes`, `graph`, a list `data` of declarations and a "
       "`body` block (docs/yaml.md)."),
    _c("E006", _E, "parser", "source file refused",
       "A source file (or an include) that is not a regular file (a named pipe, a device), "
       "is larger than 16 MiB, or holds more tokens than the parser takes (far more than "
       "any real program); split a huge program into files."),
    # ---------------------------------------------------------------- declarations
    _c("E101", _E, "checks", "duplicate declaration",
       "A name declared twice, two probes with one CLRS spec name (`as`), or a "
       "processor/loop/aggregation/index variable that shadows a name."),
    _c("E102", _E, "checks", "unknown type",
       "Not a CLRS type (scalar, mask, mask_one, pointer, categorical(K), permutation) nor a "
       "state type (int, float, bool)."),
    _c("E103", _E, "checks", "type not allowed for this stage or location",
       "E.g. a CLRS type on state, `mask_one` at graph level, a permutation off nodes, "
       "categorical without K, a `pos` that is not a node scalar input, `as` on data outside "
       "the spec."),
    _c("E104", _E, "checks", "unknown generator",
       "No generator of that name, or it makes data at another location."),
    _c("E105", _E, "checks", "bad generator parameters",
       "Unknown, repeated, non-constant or out-of-range generator parameters, a name outside "
       "its parameter's table (`erdos_renyi(family = delanay)`), or a misplaced `pad`."),
    _c("E106", _E, "checks", "input without a generator or a definition",
       "Every input needs `~ generator(...)` or `= expr`; only inputs are generated."),
    _c("E107", _E, "checks", "derived data refers to something it cannot",
       "Views defined from each other in a circle, an input defined from non-inputs, an "
       "initial value reading later state."),
    _c("E108", _E, "checks", "bad interconnection graph",
       "`graph input A` needs an edge mask input `A`; `adj` is reserved for built-in graphs."),
    _c("E109", _E, "checks", "reserved name",
       "n, N, m, index, inf, nodes, true and false are built in. A probe whose CLRS name is "
       "one of them keeps it with `as` (`hint node m_ as m: mask_one`); `pos` may be declared "
       "(`input node pos: scalar = ...`)."),
    _c("E110", _E, "checks", "generator output does not fit the declared type",
       "The generator draws values the input's type cannot hold (`mask_one ~ uniform()`, "
       "`categorical(3) ~ random_string()`); docs/generators.md lists what each draws."),
    # ---------------------------------------------------------------- expressions
    _c("E201", _E, "checks", "location mismatch (array used as a value or vice versa)",
       "A node/edge array used without an index where one value is needed, or an array value "
       "assigned to one place."),
    _c("E202", _E, "checks", "wrong number of indices",
       "Node data takes one index, edge data two, graph data none."),
    _c("E203", _E, "checks", "index is not an integer",
       "Indices, range ends and neighbourhood nodes must be ints."),
    _c("E204", _E, "checks", "pointer used as a scalar",
       "Pointers (and permutations, categories) are node indices: compare them or index with "
       "them; arithmetic with floats, `sqrt`, `-p` or combining writes `by sum` treat them as "
       "numbers. `float(p)` converts explicitly."),
    _c("E205", _E, "checks", "type mismatch",
       "An operator, builtin, condition or store got a dtype its rule in `algspec/ir/ops.py` "
       "rejects."),
    _c("E206", _E, "checks", "unknown name", "Not declared, not a local, not built in."),
    _c("E207", _E, "checks", "unknown function or wrong arguments",
       "Not a builtin of `algspec/ir/ops.py` nor a whole-array function (onehot, adjacency, "
       "transpose, chain), or the wrong number of arguments."),
    # ---------------------------------------------------------------- writes
    _c("E301", _E, "checks", "write to an input", "Inputs are read-only; copy them into state."),
    _c("E302", _E, "checks", "write to derived data",
       "A view (`= expr`) is recomputed from what it reads; write that instead."),
    _c("E303", _E, "checks", "assignment shape mismatch",
       "Different numbers of targets and values, or `+=` with several targets."),
    _c("E401", _E, "checks", "concurrent write without a combiner",
       "Several processors of a `forall` may write one place: say how the writes combine "
       "(`by priority|min|max|sum|any|all|argmin K|argmax K`). A write is conflict-free "
       "when its indices determine every processor variable: `v`, `v + c`, `c - v`, "
       "`v ^ c`, `(v + c) % n` on `nodes n`, or a guard `v == e`."),
    _c("E402", _E, "checks", "unknown combiner",
       "Combiners: min, max, sum, any, all, priority, argmin KEY, argmax KEY."),
    _c("E403", _E, "checks", "combiner outside a parallel update",
       "`by ...` only applies to the writes of a `forall`."),
    _c("E404", _E, "checks", "one datum combined two ways in one round",
       "Combined writes to one datum from several statements of a round combine together "
       "(two `by sum` writes add up); they must use the same combiner."),
    # ---------------------------------------------------------------- control
    _c("E501", _E, "checks", "statement not allowed inside a round",
       "Rounds hold `forall`s and single writes; loops, `record` and nested rounds go outside."),
    _c("E502", _E, "checks", "forall outside a round body or nested",
       "Use `forall v, u` for edges instead of nesting."),
    _c("E503", _E, "checks", "break outside a loop", "`break` leaves the innermost loop."),
    _c("E601", _E, "checks", "loop bound is not an expression in n and m",
       "Bounds and node counts may use constants, n, N, m and the builtins only."),
    _c("E602", _E, "checks", "range is not statically bounded",
       "The end of a `for` range must be an expression in n and m (the start, when a `step` "
       "counts down), and so must a `step`, unless the loop declares its worst-case trips: "
       "`for x in a .. b bound EXPR`, `for x in a .. b step s bound EXPR` (checked at run "
       "time, R102)."),
    _c("E604", _E, "checks", "loop without a bound",
       "`while` needs `bound EXPR` (worst-case trips in n and m) or `total bound EXPR` (its "
       "trips summed over the whole run)."),
    _c("E606", _E, "checks", "bad range step",
       "`for x in a .. b step s` visits a, a + s, ... before b (Python's `range(a, b, s)`); "
       "the step's sign is its direction. A step that is 0 at every size, whose sign changes "
       "with n, or that counts away from the end of a range whose ends are expressions in n "
       "(`0 .. n step -1`) is an error; so is `reversed` with `step` (count down with a "
       "negative step). Where the ends read data the run time checks it (R111)."),
    _c("E607", _E, "checks", "edge loop over something other than edges(A)",
       "`for (u, v) in edges(A)` loops over the pairs with A[u, v] != 0 of a declared edge "
       "array A; node or graph data, a local, or another function than `edges` is an error."),
    _c("E605", _E, "efficiency", "size expression without an asymptotic class",
       "The static efficiency analysis needs the class of every loop bound, `calls` bound and "
       "node count, as n^a m^b log^c n (log log n)^d (log* n)^e (`log2(log2(n))` is log "
       "log n, `log_star(n)` is log* n, `2 ** (k * log2(n) + c)` and `1 << ceil(log2(n))` are "
       "n^k). Sizes that grow faster than any power of n (`2 ** n`, `n ** log2(n)`), between "
       "the powers of log n and of n (`2 ** sqrt(log2(n))`), like log log log n or log* log* "
       "n, or that cannot be bounded (a divisor that may be 0, `n / (n - n)`) have none; the "
       "message says why and what bounds it. The file still runs and samples; `algspec lint`, "
       "`compile` and `efficiency` report this instead of classes, and "
       "`static_efficiency()` raises `EfficiencyError` (an `AlgError`) with it."),
    # ---------------------------------------------------------------- procedures
    _c("E701", _E, "checks", "unknown procedure",
       "A call statement `f(...)` names no `proc` of this file or of its includes."),
    _c("E702", _E, "checks", "wrong number of arguments to a procedure",
       "A call passes a different number of arguments than the `proc` has parameters."),
    _c("E703", _E, "checks", "recursion without a bound",
       "A procedure on a cycle of calls needs `depth D` (its stack depth, in n and m), and "
       "`calls C` (invocations per outside call) unless it calls itself once, outside loops."),
    _c("E704", _E, "checks", "include file missing",
       "`include \"path.alg\"` names a file (relative to the including file) that cannot be read."),
    _c("E705", _E, "checks", "include cycle", "A file includes itself, directly or through others."),
    _c("E706", _E, "checks", "procedure or include out of place",
       "`proc` and `include` belong at the top level; an included file holds only those."),
    _c("E707", _E, "checks", "duplicate procedure",
       "Two procedures of one name, in this file or its includes."),
    _c("E708", _E, "checks", "procedure that cannot run per processor inside a round",
       "A procedure called in a round runs once per processor, inlined on its lane: it may "
       "not `record`, hold a round or `forall`, or `break` out of the round, and a recursive "
       "procedure (one call stack per sample) is called outside rounds."),
    _c("E709", _E, "checks", "misplaced `return`",
       "`return EXPR` ends a procedure's path with its value: the last statement of the body, "
       "or of each branch of an `if`/`else` that ends it; not inside a loop or a round, not at "
       "the top level, and once a procedure returns a value every path must."),
    _c("E710", _E, "checks", "procedure value where its statements cannot run first",
       "The calls of value procedures in a statement run before it, in order. A call where "
       "that would change what runs is an error: on the right of `and`/`or`, in a branch of "
       "`a if c else b`, in a `while` condition, inside an aggregation, in a whole-array "
       "expression, a declaration or a size expression. Compute it first: `let y = f(x)`."),
    _c("E711", _E, "checks", "recursive procedure that returns a value",
       "Value procedures are inlined where they are used, so they cannot be on a cycle of "
       "calls; a recursive procedure writes its results to declared state instead."),
    # ---------------------------------------------------------------- lint
    _c("L101", _W, "lint", "declared but never used", "An input or state nothing reads."),
    _c("L102", _W, "lint", "hint never changes (CLRS would make it an input)",
       "A hint that is never written and not a view of written data."),
    _c("L103", _W, "lint", "output never written", "An output with no definition, initial value "
       "or write."),
    _c("L104", _W, "lint", "loop only stopped by its bound",
       "`while true` without `break`: the interpreter faults (R102) when the bound is hit."),
    _c("L105", _W, "lint", "hints but no `record`",
       "Hints are recorded at each `record`; without one every trajectory has 0 frames and "
       "the static rounds T are 0."),
    _c("L106", _W, "lint", "edge `mask_one` (dm-clrs reads it per row)",
       "dm-clrs's decoder, loss and `split_stages` read an edge `mask_one` as one-hot per row "
       "(its last axis); algspec's, one 1 in the whole matrix, trains only the row that holds "
       "it. An edge `mask` or a pointer says the same to dm-clrs."),
    _c("L107", _W, "lint", "read of another processor that the interconnection graph does not "
       "join", "Inside a `forall` (or a whole-array assignment) a processor v reads its own node, "
       "shared (graph-level) data, a node that every processor reads alike (`x[s]`, `x[0]`), "
       "or another node along an edge of the declared graph: an aggregation over "
       "`incoming(v)`/`outgoing(v)` or over `nodes` filtered by the graph's edges "
       "(`A[v, u] != 0`), an offset the graph joins (`x[v + 1]` on `graph path`), or a node "
       "pointer input or hint (`x[p[v]]`: CLRS's adjacency holds its edges). Any other read "
       "of node data (`cur[v - d]` on `graph path` or `graph empty`) travels an edge the "
       "graph lacks: the message names the smallest graph that joins it. The efficiency "
       "figures count that graph's edges too, so epsilon is never better than under the graph "
       "the reads need, and `--graph sparse` training would pass messages only along the "
       "declared edges. Sequential statements are the PRAM controller's and read any node."),
    _c("W201", _W, "efficiency", "node efficiency O(1/n) or worse",
       "Most processors idle in the rounds named; see docs/efficiency.md."),
    _c("W202", _W, "efficiency", "sampling outgrows a declared loop bound",
       "A prediction: lint samples small sizes (n = 4 to 32), and a loop's largest trip count "
       "(per execution, or over the run for a `total bound`) grows clearly faster than its "
       "bound, counted in the bound's own units (more than one "
       "trip per unit of bound; trips approaching the bound with an offset, as a heap's "
       "sift-down under `ceil(log2(n)) + 1`, are not flagged), so that sampling will exceed it "
       "at the size named. A bound already exceeded while sampling is reported as the fault "
       "itself, an error (R102, R107, R108, R112)."),
    # ---------------------------------------------------------------- run time
    _c("R101", _E, "runtime", "index or pointer out of range",
       "A read, write, pointer probe or neighbourhood used a node index outside 0..N-1, or "
       "an integer generator feeding a `pointer` draws a range that leaves the nodes at this "
       "n (`uniform_int(high = n + 1)`)."),
    _c("R102", _E, "runtime", "loop bound exceeded",
       "A loop ran more iterations than its declared bound (a bound below 0 allows none). "
       "Lint reports it, as an error with the size, when an input it samples does so: the "
       "declared bound is wrong and sampling at that size fails."),
    _c("R103", _E, "runtime", "empty aggregation without a default",
       "`min`/`max` over an empty set needs `default`."),
    _c("R104", _E, "runtime", "integer division by zero",
       "`//` or `%` by 0, of ints or of floats holding integers."),
    _c("R105", _E, "runtime", "categorical out of range",
       "A categorical value outside its K categories."),
    _c("R106", _E, "runtime", "mask_one is not one-hot",
       "A mask_one probe with zero or several true entries (or its node out of range). A "
       "one-hot that may be empty is declared `mask_one?`: `onehot(none)` is then an all-zero "
       "mask (several entries stay an error)."),
    _c("R107", _E, "runtime", "high-probability loop bound exceeded",
       "A `while ... bound EXPR whp` loop ran more iterations than its bound, which holds only "
       "with high probability. The sample's random draws are a pure function of its inputs, so "
       "the fault is reproducible; choose a larger constant (e.g. `4 * log2(n) + 4`)."),
    _c("R108", _E, "runtime", "recursion bound exceeded",
       "A recursive procedure went deeper than its `depth` or made more invocations than its "
       "`calls` bound for one outside call. Lint reports it, as an error with the size, when "
       "an input it samples does so, as it reports R102 for loops."),
    _c("R109", _E, "runtime", "float does not fit an int",
       "`int`, `floor` or `ceil` of inf, nan or a float beyond the 64-bit integer range "
       "(e.g. `int(d[v])` of an unreached `inf` distance)."),
    _c("R110", _E, "runtime", "no hint frame recorded",
       "A sample of a program with hints ended without reaching a `record`. CLRS trajectories "
       "start with a frame that models read as the initial hints; record once where every "
       "run passes. Lint samples small inputs, so it reports this fault too."),
    _c("R111", _E, "runtime", "range step is 0 or points away from its end",
       "A `for x in a .. b step s` whose step is 0 at this size (`step n // 8` at n = 4), or "
       "counts away from its end (a > b with s > 0, a < b with s < 0). Equal ends run no "
       "trips; a range without `step` is simply empty when a >= b."),
    _c("R112", _E, "runtime", "total loop bound exceeded",
       "A loop with `total bound T` ran more than T trips summed over the sample's whole run: "
       "every execution of the loop counts (inside outer loops, procedure calls and "
       "recursion; the copies of a procedure's loop at its call sites share one count). The "
       "amortised bound (e.g. union-find's path compression, the Z-algorithm's scans) is "
       "wrong for this input; the message gives T and the size."),
    _c("R113", _E, "runtime", "rand_int of an empty range",
       "`rand_int(low, high)` draws from low, low + 1, ..., high - 1; a processor asked it "
       "for a range with high <= low, which has no value (e.g. `rand_int(v + 1, n)` at the "
       "last node, v = n - 1)."),
    _c("R114", _E, "runtime", "`%` or `//` of a float that is not an integer",
       "`%` and `//` of floats compute on their integer values, Python's integer arithmetic "
       "(`scalar` inputs drawn by `uniform_int` need no `int(...)`); an operand held a "
       "fraction, inf, nan or a value beyond 2^63 (e.g. `x % 2` after `x = x / 2`). Round "
       "first (`floor(x) % 2`) where a fraction is meant to be dropped."),
    _c("R115", _E, "runtime", "run beyond this machine's memory",
       "A run would hold more than the memory available: the batch's node and edge data at "
       "this node count (`nodes n + 10 ** 9`), or the hint frames a loop records (`for k in "
       "0 .. 10 ** 12 { record }`). It is refused before anything is allocated, at the "
       "`nodes` line, with the estimate; try a smaller size or batch, or check the node "
       "count and the loop bounds."),
    _c("R116", _E, "runtime", "run past its time limit",
       "`algspec lint` and `algspec compile` run small instances of a file to describe it, "
       "each within a time limit; this run passed it, in the loop (or recursive call) the "
       "message names, after the trips it gives. A loop whose bound is astronomically large "
       "at small n (`for k in 0 .. 10 ** 12`) is the usual cause. `algspec sample` and "
       "training set no limit."),
]

CODES: dict[str, Code] = {c.code: c for c in _ALL}
assert len(CODES) == len(_ALL), "duplicate code"


def get(code: str) -> Code:
    """The registered code; `ValueError` for an unknown one (a bug in the emitter)."""
    try:
        return CODES[code]
    except KeyError:
        raise ValueError(f"unregistered diagnostic code {code!r}: add it to algspec/codes.py") \
            from None


def titles(prefix: str) -> dict[str, str]:
    """code -> title for the codes starting with `prefix` (e.g. "E", "L", "W")."""
    return {k: c.title for k, c in CODES.items() if k.startswith(prefix)}


def markdown_table() -> str:
    """The table of codes in docs/diagnostics.md (tests/diagnostics/test_diagnostics.py checks it is there)."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    rows += [f"| {c.code} | {c.severity} | {c.title} |" for c in _ALL]
    return "\n".join(rows)


def explain(code: str) -> str:
    """A code's full entry, for `algspec explain CODE`."""
    c = get(code.upper())
    return f"{c.code} ({c.severity}, {c.source}): {c.title}\n\n{c.doc}"


if __name__ == "__main__":  # python -m algspec.codes > table, for docs/diagnostics.md
    print(markdown_table())
