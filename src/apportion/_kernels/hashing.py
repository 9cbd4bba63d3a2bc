"""The one seeded hash of the project: SplitMix64's finaliser (Steele, Lea & Flood 2014) over a key plus a salt.

`hash64(key, salt)` is the kernel. Its callers differ only in how they make key and salt, and each keeps the
function it always computed (same values, bit for bit):

- `mix_hash(x, seed)`: the seeded pseudo-random priority of an item (every tie-break and random order of the
  vertex partitioner): key x · 0x9E3779B97F4A7C15, salt seed · 0xBF58476D1CE4E5B9 + 0x632BE59BD9B4E019.
- `pair_hash(a, b, seed)`: the symmetric tie key of an unordered pair (heavy-edge matching, Borůvka's MST via
  `graph._segmented_kernels.edge_hash`): key min(a, b) · 2^32 + max(a, b), salt (seed + 1) · 0x9E3779B97F4A7C15.

All arithmetic is modulo 2^64; results are non-negative int64 (the top bit shifted out) and depend on the
arguments only, never on the thread or the run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_OFFSET = np.uint64(0x632BE59BD9B4E019)


# Helpers called from several kernels declare their argument types: Numba then converts int32 ids and literal
# constants to them instead of compiling one more copy per argument type (seconds on a cold cache).
@njit("int64(uint64, uint64)", cache=True, nogil=True)
def hash64(key, salt):
    """SplitMix64's finaliser of key + salt (mod 2^64), shifted right one bit: a non-negative int64."""
    z = key + salt
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(1))


@njit("int64(int64, int64)", cache=True, nogil=True)
def mix_hash(x, seed):
    """A seeded pseudo-random priority of x (non-negative int64): hash64 of x · golden ratio, salted by seed."""
    return hash64(np.uint64(x) * _GOLDEN, np.uint64(seed) * _MIX1 + _OFFSET)


@njit("int64(int64, int64, int64)", cache=True, nogil=True)
def pair_hash(a, b, seed):
    """A 63-bit pseudo-random key of the unordered pair {a, b} for a non-negative seed: symmetric
    (pair_hash(a, b, s) == pair_hash(b, a, s)); ids below 2^32 give distinct keys before hashing."""
    lo = np.uint64(min(a, b))
    hi = np.uint64(max(a, b))
    return hash64((lo << np.uint64(32)) + hi, (np.uint64(seed) + np.uint64(1)) * _GOLDEN)
