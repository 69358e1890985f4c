"""A tour of the Python API on prefix sums (algorithms/parallel/prefix_sums.alg).

    python examples/api_tour.py
"""

from pathlib import Path

import numpy as np

import algspec

HERE = Path(__file__).resolve().parents[1] / "algorithms" / "parallel"

alg = algspec.load(HERE / "prefix_sums.alg")
print("spec:", alg.spec)

# One sample, as dm-clrs's algorithm functions return it: (output, probes).
x = np.random.default_rng(0).random(8)
out, probes = alg.trace(x=x)
print("output equals numpy's cumsum:", np.allclose(out, np.cumsum(x)))
print("hint frames:", probes["hint"]["node"]["partial"]["data"].shape[0])

# A batch of trajectories in CLRS's encoding (inputs, outputs, padded hints, lengths).
traj = alg.sample(n=16, batch_size=4, seed=0)
print("lengths:", traj.lengths, "hint shape:", traj.hints["partial"].shape)

# Static efficiency (paper, section 3): capacity, node and edge efficiency.
eff = alg.static_efficiency()
print("c =", eff.capacity, " eta =", eff.node_efficiency, " epsilon =", eff.edge_efficiency)

# The CLRS objects (imports dm-clrs and tensorflow): a clrs.Sampler and a Feedback.
sampler = alg.sampler(length=16, num_samples=100, seed=0)
feedback = sampler.next(8)
print("feedback inputs:", [dp.name for dp in feedback.features.inputs])
