"""Batched numpy interpreter of the IR."""

from algspec.interp.runtime import ActivityObserver, Machine, Trajectories, run

__all__ = ["ActivityObserver", "Machine", "Trajectories", "run"]
