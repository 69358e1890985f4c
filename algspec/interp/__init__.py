"""Batched numpy interpreter of the IR.

`runtime.Machine` runs a program; see its docstring for the modules it is made of.
"""

from algspec.interp.env import Env
from algspec.interp.observe import ActivityObserver
from algspec.interp.recording import Trajectories
from algspec.interp.runtime import Machine, run

__all__ = ["ActivityObserver", "Env", "Machine", "Trajectories", "run"]
