"""`rand_int(low, high)`: an exactly uniform integer in [low, high) from a draw's 64-bit hash.

The draw is `rand()`'s (`algspec.interp.random`): the same counter-based hash of
the sample key, call site, count and lane, taken whole (64 bits) instead of its top
53 bits as a float. The integer is Lemire's multiply-high with rejection, in integer
arithmetic only (no float rounds, so every CPU gives the same value):

    s = high - low;  m = x * s  (128-bit);  while m mod 2^64 < 2^64 mod s: x = mix(x)
    value = low + m div 2^64

`mix` is splitmix64's finaliser; a rejection (probability below s / 2^64) re-mixes the
lane's own hash, so a value still depends on that lane's draw alone. An empty range
(high <= low) has no value: the interpreter faults (R113), the size rule raises.
"""

from __future__ import annotations

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_MASK64 = (1 << 64) - 1


def _mul_128(x: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(high, low) 64-bit words of x * s, uint64 arrays, exactly (32-bit limbs)."""
    xl, xh, sl, sh = x & _M32, x >> _S32, s & _M32, s >> _S32
    ll, lh, hl, hh = xl * sl, xl * sh, xh * sl, xh * sh
    mid = (ll >> _S32) + (lh & _M32) + (hl & _M32)
    low = ((mid & _M32) << _S32) | (ll & _M32)
    return hh + (lh >> _S32) + (hl >> _S32) + (mid >> _S32), low


def rand_int_numpy(low: np.ndarray, high: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Elementwise value (int64); lanes with an empty range hold `low`."""
    from algspec.ir.splitmix import mix
    low, high, bits = np.broadcast_arrays(np.asarray(low, np.int64), np.asarray(high, np.int64),
                                          np.asarray(bits, np.int64))
    with np.errstate(over="ignore"):
        empty = high <= low
        s = np.asarray(np.where(empty, 1, high - low), np.int64).view(np.uint64)
        x = np.array(bits, np.int64).view(np.uint64)
        threshold = (np.uint64(0) - s) % s  # 2^64 mod s
        hi, lo = _mul_128(x, s)
        redo = lo < threshold
        while redo.any():
            x = np.where(redo, mix(x), x)
            h2, l2 = _mul_128(x, s)
            hi, lo = np.where(redo, h2, hi), np.where(redo, l2, lo)
            redo = redo & (lo < threshold)
        out = (low.view(np.uint64) + hi).view(np.int64)
    return np.where(empty, low, out)


def _mix_py(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def rand_int_python(low: int, high: int, bits: int) -> int:
    """The same value on Python ints (the table's size rule; tests compare the two)."""
    s = high - low
    if s <= 0:
        raise ZeroDivisionError("rand_int of an empty range")
    x, threshold = bits & _MASK64, (1 << 64) % s
    while (x * s) & _MASK64 < threshold:
        x = _mix_py(x)
    return low + ((x * s) >> 64)
