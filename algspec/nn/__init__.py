"""algspec's own neural executor, in JAX + dm-haiku + optax: no TensorFlow, no dm-clrs.

The encode-process-decode model of the CLRS benchmark (Veličković et al. 2022)
with the triplet messages and gating of Ibarz et al. (2022), written for
algspec: the data structures (`data`), CLRS's type vocabulary (`types`), the
graphs messages travel on, dense (N x N) or sparse (an edge list: the
`.alg` file's interconnection graph plus pointer edges) (`graph`), encoders,
processors, decoders and losses, the net that runs them over a trajectory,
and the training model. `algspec.nn.convert` maps a dm-clrs `BaselineModel`'s
parameters onto this tree, for parity tests and for comparing results.

Nothing here imports `clrs` or `tensorflow`; conversion to and from dm-clrs's
Feedback happens only where dm-clrs is installed and asked for.
"""
