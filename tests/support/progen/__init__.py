"""Random well-typed `.alg` programs and a simple reference evaluator (tests only).

`model` (the program model and its rendering to source), `generate` (random
programs and inputs, for hypothesis or seeded runs), `reference` (scalar
Python, one sample and one processor at a time) and `check` (algspec's batched
and single-sample runs against the reference). Used by
`tests/programs/test_differential_random_programs.py` and `benchmarks/differential_programs.py`.
"""
