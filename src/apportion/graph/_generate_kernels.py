"""Numba kernels behind `apportion.graph.generate`: a symmetric CSR builder and the Barabási–Albert process.

Python in `generate.py` validates and draws the random numbers; these kernels do the per-edge work.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def _count_endpoints(lo, hi, n):
    degree = np.zeros(n, dtype=np.int64)
    for e in range(lo.shape[0]):
        a = lo[e]
        b = hi[e]
        if a != b:
            degree[a] += 1
            degree[b] += 1
    return degree


@njit(cache=True, nogil=True)
def _scatter_both_directions(lo, hi, indptr, out):
    cursor = indptr[:-1].copy()
    for e in range(lo.shape[0]):
        a = lo[e]
        b = hi[e]
        if a != b:
            out[cursor[a]] = b
            cursor[a] += 1
            out[cursor[b]] = a
            cursor[b] += 1


@njit(cache=True, nogil=True, parallel=True)
def _sort_and_dedup_rows(indptr, neighbours, kept):
    n = indptr.shape[0] - 1
    for v in prange(n):
        start = indptr[v]
        stop = indptr[v + 1]
        if stop - start > 32:
            neighbours[start:stop] = np.sort(neighbours[start:stop])
        else:  # short rows: insertion sort in place (no allocation per row)
            for p in range(start + 1, stop):
                w = neighbours[p]
                q = p - 1
                while q >= start and neighbours[q] > w:
                    neighbours[q + 1] = neighbours[q]
                    q -= 1
                neighbours[q + 1] = w
        count = 0
        previous = -1
        for p in range(start, stop):
            w = neighbours[p]
            if w != previous:
                neighbours[start + count] = w
                count += 1
                previous = w
        kept[v] = count


@njit(cache=True, nogil=True, parallel=True)
def _compact_rows(indptr, neighbours, new_indptr, out):
    n = indptr.shape[0] - 1
    for v in prange(n):
        start = indptr[v]
        target = new_indptr[v]
        for p in range(new_indptr[v + 1] - target):
            out[target + p] = neighbours[start + p]


def symmetric_csr(lo: np.ndarray, hi: np.ndarray, n: int, index_dtype) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr int64, sorted neighbour ids) of the undirected simple graph on the pairs (lo[e], hi[e]).

    Self-loops are dropped and repeated pairs (in either direction) become one edge. O(m) plus per-row sorts.
    """
    lo = np.ascontiguousarray(lo, dtype=np.int64)
    hi = np.ascontiguousarray(hi, dtype=np.int64)
    degree = _count_endpoints(lo, hi, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    neighbours = np.empty(int(indptr[-1]), dtype=index_dtype)
    _scatter_both_directions(lo, hi, indptr, neighbours)
    kept = np.empty(n, dtype=np.int64)
    _sort_and_dedup_rows(indptr, neighbours, kept)
    if int(kept.sum()) == neighbours.shape[0]:
        return indptr, neighbours
    new_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(kept, out=new_indptr[1:])
    out = np.empty(int(new_indptr[-1]), dtype=index_dtype)
    _compact_rows(indptr, neighbours, new_indptr, out)
    return new_indptr, out


@njit(cache=True, nogil=True)
def barabasi_albert_pairs(n, m_attach, seed):
    """Edges (lo, hi) of a Barabási–Albert graph grown from a clique on m_attach + 1 vertices.

    Each new vertex v joins m_attach distinct earlier vertices, each drawn with probability proportional to its
    current degree (uniform draws from the list of edge endpoints so far; a repeated draw is redrawn).
    Deterministic for a given seed (Numba's own generator, seeded here).
    """
    np.random.seed(seed)
    first = m_attach + 1
    clique_edges = first * (first - 1) // 2
    total = clique_edges + (n - first) * m_attach
    lo = np.empty(total, dtype=np.int64)
    hi = np.empty(total, dtype=np.int64)
    endpoints = np.empty(2 * total, dtype=np.int64)
    e = 0
    for i in range(first):
        for j in range(i + 1, first):
            lo[e] = i
            hi[e] = j
            endpoints[2 * e] = i
            endpoints[2 * e + 1] = j
            e += 1
    chosen = np.empty(m_attach, dtype=np.int64)
    for v in range(first, n):
        count = 0
        filled = 2 * e
        while count < m_attach:
            t = endpoints[np.random.randint(0, filled)]
            repeated = False
            for q in range(count):
                if chosen[q] == t:
                    repeated = True
                    break
            if not repeated:
                chosen[count] = t
                count += 1
        for q in range(m_attach):
            lo[e] = chosen[q]
            hi[e] = v
            endpoints[2 * e] = chosen[q]
            endpoints[2 * e + 1] = v
            e += 1
    return lo, hi


@njit(cache=True, nogil=True, inline="always")
def _splitmix64(state):
    """One step of SplitMix64 (Steele, Lea & Flood 2014): (new state, 64 random bits)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, parallel=True)
def kronecker_pairs(scale, total, a, b, c, chunk_seeds, chunk):
    """Graph500 Kronecker edge list: `total` pairs of `scale`-bit vertex ids, before any clean-up.

    Edge e lies in chunk e // chunk; each chunk runs its own SplitMix64 stream from its own seed, so the result
    does not depend on how chunks are spread over threads. At each bit level one uniform draw (32 bits of a
    64-bit output) picks the quadrant: (0,0) below a, (0,1) below a + b, (1,0) below a + b + c, else (1,1).
    """
    src = np.zeros(total, dtype=np.int64)
    dst = np.zeros(total, dtype=np.int64)
    scale32 = 2.0 ** 32
    ta = np.uint64(min(a * scale32, scale32))
    tab = np.uint64(min((a + b) * scale32, scale32))
    tabc = np.uint64(min((a + b + c) * scale32, scale32))
    low = np.uint64(0xFFFFFFFF)
    for ci in prange(chunk_seeds.shape[0]):
        state = np.uint64(chunk_seeds[ci])
        start = ci * chunk
        stop = min(total, start + chunk)
        for e in range(start, stop):
            s = 0
            d = 0
            bits = np.uint64(0)
            for bit in range(scale):
                if bit % 2 == 0:
                    state, bits = _splitmix64(state)
                    r = bits >> np.uint64(32)
                else:
                    r = bits & low
                # branch-free: the quadrant is random, so branches would mispredict half the time
                row = np.int64(r >= tab)
                col = np.int64(r >= tabc) | (np.int64(r >= ta) & (1 - row))
                s |= row << bit
                d |= col << bit
            src[e] = s
            dst[e] = d
    return src, dst
