"""The project's seeded hash (`apportion._kernels.hashing`) as numba-cuda device functions, bit for bit.

The GPU coarsening breaks ties with the same hashes as the CPU kernels, so a GPU matching round or label
propagation choice equals the CPU one for the same seed (the tests compare them). All arithmetic stays in
uint64 (a mixed int64/uint64 expression would be promoted to float64 by Numba).

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_OFFSET = np.uint64(0x632BE59BD9B4E019)
_ONE = np.uint64(1)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


def kernel_seed(value: int) -> np.int64:
    """A seed as the kernels take it: value modulo 2^64 as a NumPy int64 (the CPU kernels' seed arithmetic wraps
    the same way). A NumPy scalar, not a Python int: the simulator would refuse a negative Python int in the
    uint64 conversion, and a real GPU would type a Python int above 2^63 as uint64."""
    return np.int64((int(value) + (1 << 63)) % (1 << 64) - (1 << 63))


@cuda.jit(device=True, cache=False)
def hash64_device(key, salt):
    """`hashing.hash64` (SplitMix64's finaliser of key + salt, shifted right one bit) on uint64 arguments."""
    z = np.uint64(key + salt)
    z = np.uint64((z ^ (z >> _S30)) * _MIX1)
    z = np.uint64((z ^ (z >> _S27)) * _MIX2)
    z = np.uint64(z ^ (z >> _S31))
    return np.int64(z >> _ONE)


@cuda.jit(device=True, cache=False)
def mix_hash_device(x, seed):
    """`hashing.mix_hash(x, seed)` for x, seed >= 0."""
    return hash64_device(np.uint64(np.uint64(x) * _GOLDEN), np.uint64(np.uint64(seed) * _MIX1 + _OFFSET))


@cuda.jit(device=True, cache=False)
def pair_hash_device(a, b, seed):
    """`hashing.pair_hash(a, b, seed)`: the symmetric key of the pair {a, b} for seed >= 0."""
    lo = np.uint64(min(a, b))
    hi = np.uint64(max(a, b))
    return hash64_device(np.uint64((lo << _S32) + hi), np.uint64((np.uint64(seed) + _ONE) * _GOLDEN))


@cuda.jit(device=True, cache=False)
def row_table(indptr, indices, edge_weights, label, v, table_keys, table_vals):
    """Sum v's edge weights per label[neighbour] in v's own open-addressing table in scratch memory: the slots
    [2 indptr[v], 2 indptr[v + 1]) of table_keys (-1 = empty) and table_vals, twice v's degree, so at most half
    full (O(degree) for a row of any length). Returns (base, size) of the table; a caller reads the slots whose
    key is not -1 (in slot order, which callers must not depend on)."""
    lo = indptr[v]
    hi = indptr[v + 1]
    base = 2 * lo
    size = 2 * (hi - lo)
    for slot in range(base, base + size):
        table_keys[slot] = -1
    for e in range(lo, hi):
        a = label[indices[e]]
        slot = (np.int64(a) * 40503) % size
        while table_keys[base + slot] != -1 and table_keys[base + slot] != a:
            slot = (slot + 1) % size
        if table_keys[base + slot] == -1:
            table_keys[base + slot] = a
            table_vals[base + slot] = 0
        table_vals[base + slot] += edge_weights[e]
    return base, size


@cuda.jit(device=True, cache=False)
def first_connection(indices, edge_weights, label, lo, e, hi):
    """For a short row [lo, hi) (no hash table): the summed weight of the arcs [e, hi) into label[indices[e]] when
    arc e is the row's first arc into that label, else -1 (counted at its first arc already). O(degree) per arc."""
    a = label[indices[e]]
    for f in range(lo, e):
        if label[indices[f]] == a:
            return np.int64(-1)
    conn = np.int64(0)
    for f in range(e, hi):
        if label[indices[f]] == a:
            conn += edge_weights[f]
    return conn
