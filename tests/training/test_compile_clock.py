"""The compile clock counts every program XLA compiles while it is open, and only those."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

from algspec.training.compile_clock import CompileClock


def test_the_clock_counts_programs_compiled_while_open_and_only_those() -> None:
    import jax.numpy as jnp

    three, five, matrix, seven = jnp.ones(3), jnp.ones(5), jnp.ones((4, 2)), jnp.ones(7)
    before = jax.jit(lambda x: jnp.sin(x) * 3.0)
    before(three)  # compiled before the clock opens
    with CompileClock() as clock:
        before(three)  # already compiled: nothing new
        assert clock.programs == 0
        jax.jit(lambda x: jnp.cos(x) + 1.0)(five)  # a fresh program
        jax.jit(lambda x: x @ x.T)(matrix)
    after = clock.programs
    jax.jit(lambda x: jnp.tanh(x) - 2.0)(seven)  # after closing: not counted
    assert after == clock.programs
    # a persistent compilation cache hit costs no compile: at most two programs counted
    assert 0 <= clock.programs <= 2 and clock.compile_seconds >= 0.0
    if clock.programs == 2:
        assert clock.compile_seconds > 0.0
