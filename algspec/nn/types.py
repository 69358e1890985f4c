"""CLRS's vocabulary of stages, locations and types, as the strings dm-clrs uses.

A spec maps a datum's name to `(stage, location, type)`; algspec's own model
reads the same strings, so a spec from `algspec.load(...).spec` or from
dm-clrs's `clrs.SPECS` works unchanged.
"""

from __future__ import annotations


class Stage:
    INPUT = "input"
    OUTPUT = "output"
    HINT = "hint"


class Location:
    NODE = "node"
    EDGE = "edge"
    GRAPH = "graph"


class Type:
    SCALAR = "scalar"
    CATEGORICAL = "categorical"
    MASK = "mask"
    MASK_ONE = "mask_one"
    POINTER = "pointer"
    SHOULD_BE_PERMUTATION = "should_be_permutation"
    PERMUTATION_POINTER = "permutation_pointer"
    SOFT_POINTER = "soft_pointer"


# The value of entries that are not scored (`clrs.OutputClass.MASKED`).
MASKED = -1.0
# Below this, a log-probability is treated as zero probability (dm-clrs's `_BIG_NUMBER`
# plays the same role: masked logits are pushed this far down).
BIG_NUMBER = 1e6

STAGES = (Stage.INPUT, Stage.OUTPUT, Stage.HINT)
LOCATIONS = (Location.NODE, Location.EDGE, Location.GRAPH)
TYPES = (Type.SCALAR, Type.CATEGORICAL, Type.MASK, Type.MASK_ONE, Type.POINTER,
         Type.SHOULD_BE_PERMUTATION, Type.PERMUTATION_POINTER, Type.SOFT_POINTER)
POINTERS = (Type.POINTER, Type.PERMUTATION_POINTER)
