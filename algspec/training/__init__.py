"""Training and evaluation of CLRS processors on compiled algorithms.

Nothing here is imported by the core: `algspec.cli` imports only
`algspec.cli.training`, which defers jax/haiku/clrs (and tensorflow)
to the commands that need them. Entry points: `trainer.train`,
`trainer.evaluate_run`, `experiment.run_grid`.
"""
