"""`rand()` is keyed by the sampler's seed and the sample's place in its stream, not only by
the sample's inputs: a program without inputs still draws independently per sample."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

import algspec
from algspec.sampling.dataset import export

SHUFFLE = """
# Fisher-Yates: a uniform permutation of the nodes, from rand() alone
algorithm shuffle
nodes n
graph complete
hint node p: pointer := index
output node out: pointer = p
state graph j: int = 0
record
for i in 0 .. n - 1 {
    j = i + int(rand() * float(n - i))
    p[i], p[j] = p[j], p[i]
    record
}
"""

COIN = """
# one coin per node, with an input that takes few values
algorithm coin
nodes n
graph complete
input node c: scalar ~ uniform_int(low = 0, high = 1)
hint node h: scalar
output node o: scalar = h
record
forall v { h[v] = rand() + c[v] }
record
"""


@pytest.fixture(scope="module")
def shuffle():
    return algspec.load_source(SHUFFLE)


def _perms(traj) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in row) for row in traj.outputs["out"]]


def test_a_program_without_inputs_draws_a_new_stream_per_sample(shuffle):
    perms = _perms(shuffle.sample(3, 600, seed=0))
    counts = Counter(perms)
    assert set(counts) == set(itertools.permutations(range(3)))
    # uniform over 6 permutations: each about 100 of 600 (binomial sd ~9)
    assert all(60 < c < 140 for c in counts.values()), counts


def test_seeds_give_other_draws_and_the_same_seed_the_same_bytes(shuffle):
    a, b, c = (shuffle.sample(6, 32, seed=s) for s in (0, 0, 1))
    assert np.array_equal(a.rand_keys, b.rand_keys)
    for name in a.hints:
        assert np.array_equal(a.hints[name], b.hints[name])
    assert _perms(a) != _perms(c)


def test_equal_inputs_in_one_batch_still_draw_independently():
    coin = algspec.load_source(COIN)
    traj = coin.sample(1, 64, seed=3)  # n = 1: the input takes two values over 64 samples
    assert len(np.unique(traj.outputs["o"])) == 64


def test_a_sample_replays_alone_from_its_rand_key(shuffle):
    traj = shuffle.sample(5, 12, seed=7)
    for i in (0, 5, 11):
        out, probes = shuffle.trace(n=5, rand_key=int(traj.rand_keys[i]))
        assert out.tolist() == traj.outputs["out"][i].astype(int).tolist()
        T = int(traj.lengths[i])
        assert np.array_equal(probes["hint"]["node"]["p"]["data"],
                              traj.hints["p"][:T, i].astype(np.float64))


def test_a_dataset_stores_the_keys_and_replays_bit_for_bit(shuffle, tmp_path):
    out = export(shuffle, tmp_path / "d", 4, 10, seed=2)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["arrays"]["rand_keys"]["dtype"] == np.dtype(np.uint64).str
    with np.load(out / "samples.npz") as z:
        keys, hints, lengths = z["rand_keys"], z["hints/p"], z["lengths"]
    for i in range(10):
        _, probes = shuffle.trace(n=4, rand_key=int(keys[i]))
        T = int(lengths[i])
        assert np.array_equal(probes["hint"]["node"]["p"]["data"].astype(np.float32),
                              hints[:T, i])


def test_programs_without_rand_carry_no_keys():
    alg = algspec.load("algorithms/oets.alg")
    assert not alg.uses_rand
    assert alg.sample(4, 3, seed=0).rand_keys is None


def test_the_sampler_and_its_feedback_follow_the_seed(shuffle):
    pytest.importorskip("clrs")
    s1 = shuffle.sampler(length=4, num_samples=40, seed=5)
    s2 = shuffle.sampler(length=4, num_samples=40, seed=5)
    assert np.array_equal(s1.dataset.rand_keys, s2.dataset.rand_keys)
    assert len({tuple(r) for r in s1.dataset.outputs["out"]}) > 6
