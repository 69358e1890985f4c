"""The expectations a `.alg` fixture states in its header, machine-readable.

A fixture's header is its leading run of comment and blank lines (before `algorithm`,
`include` or `proc`). Prose derivations stay there for people; a line

    # expect KEY: VALUE

states one fact the tests check (tests/corpus/test_corpus_expectations.py, and the suites that
read their folder's facts through this module instead of Python tables). Keys:

    reference: TABLE/NAME      the program's outputs (and listed hints) equal the
                               independent reference NAME of TABLE (`reference_tables`:
                               sequential, language, parallel, textbook), batched and
                               per sample
    sizes: 3 5 16              the sizes n its reference is checked at (default the suite's)
    classes: T=n c=n^2 eta=1/n eps=1/n^2
                               the static classes (rounds, capacity, node and edge
                               efficiency), as `Asymptotic.parse` reads them
    xfail classes: T=... c=... eta=... eps=...
                               textbook classes algspec does not give yet (a known
                               mismatch: the static classes must differ, strict xfail)
    xfail reason: TEXT         why algspec gives other classes than `xfail classes` (the
                               strict xfail's reason; only with `xfail classes`)
    ranges: eta=1/n .. 1 epsilon=1/n^2 .. 1/n
                               the worst case's `fewest .. most` of some of work,
                               active_edges, eta and epsilon (`StaticEfficiency.range`,
                               as printed; a single class where both ends agree)
    group: NAME                every file of group NAME gets the same static classes
                               (equivalent spellings of one program)
    same classes as: FOLDER/STEM
                               the same static classes as that file (FOLDER: its
                               folder under tests/corpus)
    diagnostics: E401 W202     the codes `algspec lint` reports, in order (the file is
                               deliberately wrong; nothing else is checked)
    fault: R108                sampling at a small size faults with this code
    bound too small: R102      a declared bound (loop, recursion depth, total) too small
                               by design: sampling faults with this code once the bound
                               is exceeded (R102 loop, R108 recursion, R112 total bound),
                               or, at sizes still within it, measured T or c exceeds the
                               static class (tests/efficiency/test_worst_case_contract.py)
    role: include              a fragment other files include; not a program of its own
    replaces: FOLDER/STEM      this file is the kept copy of a merged duplicate: tests
                               that named FOLDER/STEM run this file

A file without an `expect` line must load and sample at a small size.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "corpus"
CLASS_KEYS = ("T", "c", "eta", "eps")  # rounds, capacity, node and edge efficiency
RANGE_KEYS = ("work", "active_edges", "eta", "epsilon")  # algspec's RANGED quantities
KEYS = ("reference", "sizes", "classes", "xfail classes", "xfail reason", "ranges", "group",
        "same classes as", "diagnostics", "fault", "bound too small", "role", "replaces")
_EXPECT = re.compile(r"#\s*expect\s+([a-z][a-z ]*?)\s*:\s*(.*?)\s*$")
_CLASS = re.compile(r"(?:^|\s)(T|c|eta|eps)=")
_RANGE = re.compile(r"(?:^|\s)(work|active_edges|eta|epsilon)=")
_CODE = re.compile(r"[ELWR]\d{3}")


class HeaderError(ValueError):
    """A malformed `# expect` line (the file and line are in the message)."""


@dataclass
class Expectations:
    path: Path
    reference: str | None = None
    sizes: tuple[int, ...] | None = None
    classes: tuple[str, str, str, str] | None = None
    xfail_classes: tuple[str, str, str, str] | None = None
    xfail_reason: str | None = None
    ranges: dict[str, str] | None = None
    group: str | None = None
    same_classes_as: str | None = None
    diagnostics: tuple[str, ...] | None = None
    fault: str | None = None
    bound_too_small: str | None = None
    role: str | None = None
    replaces: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)  # key -> line number

    @property
    def name(self) -> str:
        """FOLDER/STEM, FOLDER under tests/corpus (as `same classes as` names files)."""
        return corpus_name(self.path)

    @property
    def stated(self) -> bool:
        return bool(self.lines)

    @property
    def broken(self) -> bool:
        """Deliberately wrong: it states the diagnostics `lint` must report."""
        return self.diagnostics is not None


def corpus_name(path: Path) -> str:
    rel = path.resolve().relative_to(TESTS)
    return str(rel.with_suffix(""))


def parse_classes(text: str, where: str = "") -> tuple[str, str, str, str]:
    """`T=n c=n^2 eta=1/n eps=1/n^2` -> ("n", "n^2", "1/n", "1/n^2")."""
    parts = _CLASS.split(text)
    if parts[0].strip():
        raise HeaderError(f"{where}: classes start with T=: {text!r}")
    got = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    if list(got) != list(CLASS_KEYS) or not all(got.values()):
        raise HeaderError(f"{where}: classes are T=... c=... eta=... eps=..., got {text!r}")
    return tuple(got[k] for k in CLASS_KEYS)  # type: ignore[return-value]


def parse_ranges(text: str, where: str = "") -> dict[str, str]:
    """`eta=1/n .. 1 epsilon=1/n^2 .. 1/n` -> {"eta": "1/n .. 1", "epsilon": "1/n^2 .. 1/n"}."""
    parts = _RANGE.split(text)
    if parts[0].strip() or len(parts) < 3:
        raise HeaderError(f"{where}: ranges are QUANTITY=FEWEST .. MOST, QUANTITY one of "
                          f"{', '.join(RANGE_KEYS)}: {text!r}")
    got = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    order = [k for k in RANGE_KEYS if k in got]
    if list(got) != order or len(got) != len(parts) // 2 or not all(got.values()):
        raise HeaderError(f"{where}: ranges name each of {', '.join(RANGE_KEYS)} at most "
                          f"once, in that order: {text!r}")
    return got


def format_classes(classes: tuple[str, ...]) -> str:
    return " ".join(f"{k}={v}" for k, v in zip(CLASS_KEYS, classes, strict=True))


def header_lines(text: str) -> list[tuple[int, str]]:
    """The leading comment and blank lines, numbered from 1."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip().lstrip("\ufeff")
        if s and not s.startswith("#"):
            break
        out.append((i, s))
    return out


def parse(path: Path, text: str | None = None) -> Expectations:
    text = path.read_text(encoding="utf-8") if text is None else text
    e = Expectations(path)
    for i, line in header_lines(text):
        if not re.match(r"#\s*expect\b", line):
            continue
        m = _EXPECT.fullmatch(line)
        where = f"{path}:{i}"
        if m is None:
            raise HeaderError(f"{where}: an expectation is `# expect KEY: VALUE`: {line!r}")
        key, value = m.groups()
        if key not in KEYS:
            raise HeaderError(f"{where}: unknown expectation {key!r} (known: {', '.join(KEYS)})")
        if key in e.lines and key != "replaces":
            raise HeaderError(f"{where}: {key!r} stated twice")
        e.lines[key] = i
        if key == "classes":
            e.classes = parse_classes(value, where)
        elif key == "xfail classes":
            e.xfail_classes = parse_classes(value, where)
        elif key == "ranges":
            e.ranges = parse_ranges(value, where)
        elif key == "diagnostics":
            codes = tuple(value.split())
            if not codes or not all(_CODE.fullmatch(c) for c in codes):
                raise HeaderError(f"{where}: diagnostics are codes such as E401: {value!r}")
            e.diagnostics = codes
        elif key in ("fault", "bound too small"):
            if not re.fullmatch(r"R\d{3}", value):
                raise HeaderError(f"{where}: a fault is a run-time code such as R108: {value!r}")
            setattr(e, key.replace(" ", "_"), value)
        elif key == "sizes":
            e.sizes = tuple(int(x) for x in value.split())
        elif key == "replaces":
            e.replaces.append(value)
        elif key == "role":
            if value != "include":
                raise HeaderError(f"{where}: the one role is `include`: {value!r}")
            e.role = value
        else:
            setattr(e, key.replace(" ", "_"), value)
    if e.xfail_reason is not None and e.xfail_classes is None:
        raise HeaderError(f"{path}: an `xfail reason` is the reason of `xfail classes`")
    return e


def corpus_files() -> list[Path]:
    """Every `.alg` fixture under tests/corpus/ (include fragments too)."""
    return sorted(TESTS.glob("*/**/*.alg"))


@cache
def corpus() -> dict[str, Expectations]:
    """FOLDER/STEM -> the file's expectations, for the whole corpus."""
    return {corpus_name(p): parse(p) for p in corpus_files()}


def resolve(name: str) -> Expectations:
    """The file a FOLDER/STEM names: the file itself, or the kept copy that `replaces` it."""
    files = corpus()
    if name in files:
        return files[name]
    (kept,) = [e for e in files.values() if name in e.replaces] or [None]
    if kept is None:
        raise KeyError(f"no fixture {name!r} in tests/corpus/")
    return kept


def folder(name: str) -> dict[str, Expectations]:
    """One folder's fixtures by stem, with the merged duplicates it had by their old stem
    (mapped to the kept copy), as a suite over that folder named them."""
    prefix = name + "/"
    out = {k[len(prefix):]: e for k, e in corpus().items()
           if k.startswith(prefix) and "/" not in k[len(prefix):]}
    for e in corpus().values():
        for old in e.replaces:
            if old.startswith(prefix):
                out[old[len(prefix):]] = e
    return dict(sorted(out.items()))


def groups(files: dict[str, Expectations]) -> dict[str, list[str]]:
    """Group name -> the stems of `files` in it, in file order."""
    out: dict[str, list[str]] = {}
    for stem, e in files.items():
        if e.group is not None:
            out.setdefault(e.group, []).append(stem)
    return out


# ------------------------------------------------------------------ references
def reference_tables() -> dict[str, dict[str, Callable | tuple | None]]:
    """TABLE -> NAME -> reference, the independent references the headers key into (a
    textbook reference is (reference, the inputs it takes): tests/support/textbook_refs.py)."""
    from tests.programs.test_parallel_match_references import REFERENCES as parallel
    from tests.support.language_refs import REFERENCES as language
    from tests.support.sequential_refs import REFERENCES as sequential
    from tests.support.textbook_refs import REFERENCES as textbook
    return {"sequential": sequential, "language": language, "parallel": parallel,
            "textbook": textbook}


def reference_of(path: Path) -> Callable | tuple | None:
    """The reference a file's header names (None if it names none)."""
    e = parse(path)
    if e.reference is None:
        return None
    table, name = e.reference.split("/", 1)
    return reference_tables()[table][name]


def check_reference(e: Expectations, n: int) -> None:
    """One small check of a file against the reference its header names, by its table's
    checker (sequential, language: tests/support/feedback_check.py; parallel: its suite's;
    textbook: tests/support/textbook_refs.py)."""
    import algspec
    table, name = e.reference.split("/", 1)
    alg = algspec.load(e.path)
    if table == "textbook":
        from tests.support.textbook_refs import check as check_textbook
        check_textbook(alg, name, ((n, 0),))
        return
    if table == "parallel":
        from tests.programs.test_parallel_match_references import check_reference as check
        check(alg, name, (n,))
        return
    from tests.support.feedback_check import compare
    compare(alg, corpus_name(e.path), n, 2, 0, reference_tables()[table][name])
