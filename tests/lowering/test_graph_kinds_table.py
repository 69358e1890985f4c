"""The table of built-in interconnection graphs: every entry complete, the grammar and the
IR name the same kinds, and each kind's numpy mask is the `adj` input its IR mask gives."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import numpy as np
import pytest

import algspec
from algspec import ir
from algspec.ir.graph_kinds import GRAPH_KINDS, INPUT_KIND, joins_offset

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_is_complete() -> None:
    for name, kind in GRAPH_KINDS.items():
        assert kind.name == name and kind.doc and kind.edges in ("N^2", "N")
        assert (kind.ir_mask is None) == (name == "complete")
        for N in (1, 2, 5, 9):
            mask = kind.mask(N)
            assert mask.shape == (N, N) and mask.dtype == bool
            assert (mask == mask.T).all() != (kind.directed and N > 2)
            assert mask.diagonal().all()
            assert mask.sum() == N * N if kind.edges == "N^2" else mask.sum() <= 3 * N
            if kind.hub is not None:
                assert mask[kind.hub].all()


def test_the_grammar_and_the_ir_name_the_table_kinds() -> None:
    grammar = (ROOT / "algspec" / "language" / "grammar.lark").read_text()
    line = next(ln for ln in grammar.splitlines() if ln.startswith("!graph_kind:"))
    spelled = {" ".join(re.findall(r'"(\w+)"', alt)) for alt in line.split(":", 1)[1].split("|")}
    assert spelled == set(GRAPH_KINDS)
    literal = typing.get_args(ir.Graph.model_fields["kind"].annotation)
    assert set(literal) == set(GRAPH_KINDS) | {INPUT_KIND}


@pytest.mark.parametrize("name", [k for k, v in GRAPH_KINDS.items() if v.ir_mask is not None])
def test_the_numpy_mask_is_the_adj_input_the_ir_mask_gives(name: str) -> None:
    alg = algspec.load_source(f"algorithm g\nnodes n + 1\ngraph {name}\n"
                              "input node k: scalar ~ uniform()\noutput node o: scalar = k\n"
                              "record\n", "g.alg")
    for n in (1, 4, 7):
        batch = alg.batch_sampler(length=n, num_samples=-1, seed=0).next(2)
        (adj,) = [dp for dp in batch.features.inputs if dp.name == "adj"]
        for sample in np.asarray(adj.data):
            np.testing.assert_array_equal(sample.astype(bool), GRAPH_KINDS[name].mask(n + 1))


def test_each_kind_joins_the_offsets_its_mask_joins() -> None:
    """`joins_offset(c)` (lint's L107, the edges efficiency counts) is the mask's word on
    whether every node v is joined to v + c (in either direction: a processor reads over
    `incoming` and `outgoing`), at every size from 3 nodes on."""
    for kind in GRAPH_KINDS.values():
        for c in range(-9, 10):
            joined = [all((kind.mask(N) | kind.mask(N).T)[v, v + c]
                          for v in range(N) if 0 <= v + c < N)
                      for N in range(max(3, abs(c) + 2), 12)]
            assert set(joined) == {kind.joins_offset(c)}, (kind.name, c)


def test_each_kind_joins_the_offsets_mod_n_its_mask_joins() -> None:
    """`joins_offset(c, modular=True)` (a read at `(v + c) % N`) is the mask's word on
    whether every node v is joined to (v + c) mod N, either way, from 3 nodes on."""
    for kind in GRAPH_KINDS.values():
        for c in range(-3, 4):
            joined = [all((kind.mask(N) | kind.mask(N).T)[v, (v + c) % N] for v in range(N))
                      for N in range(max(3, 2 * abs(c) + 1), 12)]
            assert set(joined) == {joins_offset(kind.name, c, modular=True)}, (kind.name, c)


@pytest.mark.parametrize("N", [1, 2, 3, 6])
def test_the_ring_joins_each_node_to_its_successor_mod_n(N: int) -> None:
    """`ring directed` has the edges i -> i + 1 mod N (N of them, plus self-loops as every
    kind); `ring` has them both ways (2N, where N > 2)."""
    directed, ring = GRAPH_KINDS["ring directed"].mask(N), GRAPH_KINDS["ring"].mask(N)
    i = np.arange(N)
    succ = np.zeros((N, N), bool)
    succ[i, (i + 1) % N] = True
    np.testing.assert_array_equal(directed, succ | np.eye(N, dtype=bool))
    np.testing.assert_array_equal(ring, succ | succ.T | np.eye(N, dtype=bool))
    if N > 2:
        assert (directed & ~np.eye(N, dtype=bool)).sum() == N
        assert (ring & ~np.eye(N, dtype=bool)).sum() == 2 * N
