"""The text path's user errors: what a file or a request asks that has no CLRS-Text form.

They are said in one line (`error: ...`, no traceback) by `algspec text`; anything
else raised while formatting is a bug in algspec and goes through the internal-error
report. They subclass ValueError, which the Python API raised before they existed.
"""

from __future__ import annotations


class TextError(ValueError):
    """A user's file or request that cannot be written as CLRS-Text."""


class NoTextForm(TextError):
    """A value that is not of its declared type's form (a mask_one with no node or
    several, a permutation pointer that is not one chain), so it has no text."""


class NothingToTrace(TextError):
    """`--hints` on a file where no output has an `<output>_h` hint to trace."""


class BadDecimals(TextError):
    """A `--decimals` outside the range a float can be truncated to."""
