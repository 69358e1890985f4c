"""Every `.alg` fixture under tests/corpus/ meets what its header states.

One parametrised suite over the whole corpus (as tracr's test_cases.py drives its
tests): each file's `# expect KEY: VALUE` lines (tests/support/corpus_expectations.py) are
checked here: static classes, groups of equivalent spellings, diagnostics, faults and
references (one small batch through the one Feedback checker, tests/support/feedback_check.py;
the folders' own suites sweep more sizes). A file that states nothing must load and
sample at a small size; a deliberately broken file states its diagnostics.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import algspec
from algspec.diagnostics import AlgError, RuntimeFault
from algspec.efficiency.asymptotic import Asymptotic
from tests.support import corpus_expectations as corpus

FILES = corpus.corpus()
NAMES = sorted(FILES)
SMALL = 4  # the size a file is sampled at when it states nothing else


def _load(e: corpus.Expectations) -> algspec.CompiledAlgorithm:
    return algspec.load(e.path)


def _classes(path: Path) -> tuple[Asymptotic, ...]:
    s = algspec.load(path).static_efficiency()
    return s.rounds, s.capacity, s.node_efficiency, s.edge_efficiency


def _lint_codes(path: Path) -> list[str]:
    from algspec.lint import lint_source
    return [d.code for d in lint_source(path.read_text(encoding="utf-8"), str(path))]


# ------------------------------------------------------------------ the headers
def test_the_corpus_is_every_fixture() -> None:
    assert len(FILES) >= 250
    folders = {Path(name).parts[0] for name in FILES}
    assert folders >= {"efficiency", "sequential", "sequential_efficiency", "language",
                       "parallel", "clrs_types", "textbook", "worst_case", "loop_bounds"}


def test_headers_parse_and_reject_what_they_should(tmp_path: Path) -> None:
    e = corpus.parse(tmp_path / "x.alg", "# expect classes: T=log n c=n log n eta=1 "
                     "eps=1/(n log n)\n# prose\n# expect diagnostics: E401 W202\n"
                     "algorithm x\n# expect fault: R101\n")
    assert e.classes == ("log n", "n log n", "1", "1/(n log n)")
    assert e.diagnostics == ("E401", "W202") and e.fault is None  # only the header counts
    e = corpus.parse(tmp_path / "x.alg", "# expect xfail classes: T=n c=n eta=1 eps=1\n"
                     "# expect xfail reason: a gap: T n^2\n# expect bound too small: R102\n"
                     "# expect ranges: active_edges=n .. n^2 epsilon=1/m .. n/m\n")
    assert (e.xfail_classes, e.xfail_reason) == (("n", "n", "1", "1"), "a gap: T n^2")
    assert e.bound_too_small == "R102"
    assert e.ranges == {"active_edges": "n .. n^2", "epsilon": "1/m .. n/m"}
    for bad in ("# expect classes: T=n c=n^2 eta=1/n\n", "# expect colour: red\n",
                "# expect diagnostics: oops\n", "# expect fault: E101\n",
                "# expect classes: T=n c=n eta=1 eps=1\n# expect classes: T=n c=n eta=1 eps=1\n",
                "# expect role: main\n", "# expect the worst\n",
                "# expect xfail reason: no classes\n", "# expect bound too small: 4n\n",
                "# expect ranges: eta 1/n\n", "# expect ranges: eps=1/n .. 1\n",
                "# expect ranges: epsilon=1 eta=1\n", "# expect ranges: eta=1 eta=1\n"):
        with pytest.raises(corpus.HeaderError):
            corpus.parse(tmp_path / "x.alg", bad + "algorithm x\n")


def test_every_reference_key_exists_and_every_reference_is_used() -> None:
    tables = corpus.reference_tables()
    used = {e.reference for e in FILES.values() if e.reference is not None}
    for key in used:
        table, name = key.split("/", 1)
        assert table in tables and name in tables[table], key
    every = {f"{table}/{name}" for table, refs in tables.items() for name in refs}
    assert every == used, sorted(every ^ used)


def test_named_files_exist() -> None:
    for e in FILES.values():
        if e.same_classes_as is not None:
            assert corpus.resolve(e.same_classes_as).path.exists(), e.path
        for old in e.replaces:  # a merged duplicate's old name is free
            assert old not in FILES, (e.path, old)


def test_include_fragments_are_included() -> None:
    fragments = [e for e in FILES.values() if e.role == "include"]
    assert fragments
    text = "\n".join(p.read_text() for p in corpus.corpus_files())
    for e in fragments:
        assert f'include "{e.path.name}"' in text or f'"lib/{e.path.name}"' in text, e.path


# ------------------------------------------------------------------ each file
@pytest.mark.parametrize("name", NAMES)
def test_fixture_meets_its_header(name: str) -> None:
    e = FILES[name]
    if e.role == "include":
        assert set(e.lines) == {"role"}, e.path
        return
    if e.broken:  # deliberately wrong: exactly the stated codes, nothing else claimed
        assert set(e.lines) == {"diagnostics"}, e.path
        assert _lint_codes(e.path) == list(e.diagnostics), e.path
        return
    alg = _load(e)
    n = (e.sizes or (SMALL,))[0]
    if e.fault is not None:
        with pytest.raises(RuntimeFault) as f:
            for size in (SMALL, 8, 16):
                alg.sample(size, 2, seed=0)
        assert f.value.diagnostic.code == e.fault
    elif e.reference is None:
        traj = alg.sample(n, 2, seed=0)
        assert len(traj.lengths) == 2  # no hints: no frames
    if e.reference is not None:
        corpus.check_reference(e, n)
    if e.ranges is not None:  # the worst case's ends, as printed
        s = algspec.load(e.path).static_efficiency()
        assert {q: str(s.range(q)) for q in e.ranges} == e.ranges, e.path
    if e.classes is not None or e.xfail_classes is not None or e.same_classes_as:
        got = _classes(e.path)
        if e.classes is not None:
            assert got == tuple(Asymptotic.parse(x) for x in e.classes), [str(x) for x in got]
        if e.xfail_classes is not None:  # a known mismatch, still there
            assert got != tuple(Asymptotic.parse(x) for x in e.xfail_classes)
        if e.same_classes_as is not None:
            assert got == _classes(corpus.resolve(e.same_classes_as).path)


GROUPS = corpus.groups(FILES)


def test_groups_state_one_set_of_classes() -> None:
    assert GROUPS
    for group, names in GROUPS.items():
        assert len({FILES[name].classes for name in names}) == 1, (group, names)


@pytest.mark.parametrize("group", sorted(g for g, names in GROUPS.items() if len(names) > 1))
def test_equivalent_spellings_get_equal_classes(group: str) -> None:
    names = GROUPS[group]
    first = [str(x) for x in _classes(FILES[names[0]].path)]
    for other in names[1:]:
        assert [str(x) for x in _classes(FILES[other].path)] == first, (group, other)


def test_a_broken_file_does_not_load() -> None:
    for e in FILES.values():
        if e.broken and any(c.startswith("E") for c in e.diagnostics):
            with pytest.raises(AlgError):
                algspec.load(e.path)
