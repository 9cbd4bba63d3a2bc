"""Segmented arg-best over CSR rows: the edge-discovery step shared by Borůvka's MST and heavy-edge matching.

Seed 000, section 5.4 (*Extending the coarsening techniques to MST*): the lightest-incident-edge search of a
Borůvka round is the heavy-edge matching's "heaviest eligible neighbour" search turned around — one scan of a
vertex's neighbour list that keeps the best entry under a strict order. This module holds that scan once, as
plain `@njit(cache=True, nogil=True)` functions meant to be called from other kernels (serial loops or the
body of a `prange`), so both algorithms compare entries the same way:

- Borůvka (apportion.apps.mst): smallest (weight, canonical edge id) — ``direction=+1, tie_seed=-1``, entries
  to a vertex of the same component skipped with ``skip_label=label, skip_value=label[u]``.
- Heavy-edge matching: largest weight, ties by a seeded symmetric hash — ``direction=-1, tie_seed=seed``,
  matched neighbours skipped with ``skip_label=state, skip_value=<matched state>``, too-heavy pairs skipped
  with ``vertex_weight``/``weight_limit = cap − w(u)`` per constraint
  (apportion.partitioning.vertex._coarsen_kernels.mutual_choices).

`sort_segment` sorts one segment (a CSR row, a bucket) in place, with a second array following.

Nothing here allocates beyond a small stack; arrays must be contiguous; no Python objects.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from apportion._kernels.hashing import pair_hash

#: Tie key mode: canonical edge id min(u, v) · n + max(u, v) (ascending). Any negative tie_seed selects it.
TIE_EDGE_ID = -1


#: A 63-bit pseudo-random tie key of the unordered pair {a, b} (symmetric) for a non-negative seed: the
#: project's one seeded hash, `apportion._kernels.hashing.pair_hash` (SplitMix64's finaliser of
#: min(a, b) · 2^32 + max(a, b) salted by (seed + 1) · 0x9E3779B97F4A7C15). Deterministic on every run and thread.
edge_hash = pair_hash


@njit(cache=True, nogil=True)
def tie_key(u, v, tie_seed, n):
    """The secondary key of the entry u→v: with ``tie_seed < 0`` the canonical edge id
    min(u, v) · n + max(u, v) (int64; n = number of vertices), else ``edge_hash(u, v, tie_seed)``. Symmetric in
    u and v in both modes, so both ends of an edge see the same key."""
    if tie_seed < 0:
        a = np.int64(u)
        b = np.int64(v)
        return a * n + b if a < b else b * n + a
    return edge_hash(u, v, tie_seed)


@njit(cache=True, nogil=True)
def precedes(key_a, tie_a, key_b, tie_b, direction):
    """True when entry a beats entry b: a better primary key (smaller when ``direction > 0``, larger when
    ``direction < 0``), or an equal primary key and a smaller tie key. A strict order whenever tie keys
    differ."""
    if key_a != key_b:
        return key_a < key_b if direction > 0 else key_a > key_b
    return tie_a < tie_b


@njit(cache=True, nogil=True)
def _exceeds(vertex_weight, v, weight_limit):
    """True when vertex v is heavier than `weight_limit` in some constraint."""
    for c in range(vertex_weight.shape[1]):
        if vertex_weight[v, c] > weight_limit[c]:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def best_in_row(u, lo, hi, neighbours, primary, direction, tie_seed, n, skip_label, skip_value,
                vertex_weight, weight_limit):
    """The CSR position of the best entry of vertex u's row, or -1 when every entry is skipped (or the row is
    empty).

    Contract:
        u: the row's vertex; lo, hi: its entry range (indptr[u], indptr[u + 1]).
        neighbours: the CSR column array (int32 or int64); entry p is the edge u → neighbours[p].
        primary: int64 per-entry keys aligned with `neighbours` (edge weights), or an EMPTY array, meaning
            every entry has primary key 1.
        direction: +1 keeps the smallest primary key (Borůvka), -1 the largest (heavy-edge matching).
        tie_seed, n: equal primary keys are ordered by ``tie_key(u, v, tie_seed, n)``, smaller first:
            the canonical edge id for tie_seed < 0 (`TIE_EDGE_ID`), a seeded symmetric hash otherwise.
        skip_label, skip_value: if `skip_label` is not empty (one int64 per vertex), entry p is skipped when
            ``skip_label[neighbours[p]] == skip_value`` (same component; an already matched neighbour).
        vertex_weight, weight_limit: if `vertex_weight` is not empty (int64, shape (n, ncon): one row of
            constraint weights per vertex; shape (0, 0) turns the filter off), entry p is skipped when
            ``vertex_weight[neighbours[p], c] > weight_limit[c]`` for some constraint c (`weight_limit`: int64,
            shape (ncon,)) — a size cap on merged pairs.

    Returns the position p in [lo, hi) of the entry that `precedes` every other non-skipped entry; the
    result does not depend on the order of the row's entries when tie keys are distinct (always true for
    the canonical edge id in a simple graph). O(hi − lo), no allocation, no writes.
    """
    has_primary = primary.shape[0] > 0
    check_label = skip_label.shape[0] > 0
    check_weight = vertex_weight.shape[0] > 0
    chosen = np.int64(-1)
    chosen_key = np.int64(0)
    chosen_tie = np.int64(0)
    if direction > 0 and tie_seed < 0 and has_primary and not check_label and not check_weight:
        # Borůvka's case without filters, specialised (the same order as the general loop below): in u's
        # row the canonical edge id grows with the neighbour id, so ties go to the smaller neighbour
        for p in range(lo, hi):
            key = primary[p]
            if chosen < 0 or key < chosen_key or (key == chosen_key and neighbours[p] < chosen_tie):
                chosen = p
                chosen_key = key
                chosen_tie = neighbours[p]
        return chosen
    for p in range(lo, hi):
        v = neighbours[p]
        if check_label and skip_label[v] == skip_value:
            continue
        if check_weight and _exceeds(vertex_weight, v, weight_limit):
            continue
        key = primary[p] if has_primary else np.int64(1)
        tie = tie_key(u, v, tie_seed, n)
        if chosen < 0 or precedes(key, tie, chosen_key, chosen_tie, direction):
            chosen = p
            chosen_key = key
            chosen_tie = tie
    return chosen


# ------------------------------------------------------------------------------------- segmented sort
@njit(cache=True, nogil=True)
def _insertion_sort(keys, weights, has_w, lo, hi):
    for p in range(lo + 1, hi):
        key = keys[p]
        w = weights[p] if has_w else 0
        q = p - 1
        while q >= lo and keys[q] > key:
            keys[q + 1] = keys[q]
            if has_w:
                weights[q + 1] = weights[q]
            q -= 1
        keys[q + 1] = key
        if has_w:
            weights[q + 1] = w


@njit(cache=True, nogil=True)
def sort_segment(keys, weights, has_w, lo, hi):
    """Sort keys[lo:hi] in place, ascending (weights[lo:hi] follow when `has_w`).

    Quicksort (median-of-three pivot, Hoare partition, the smaller side first so the explicit stack stays
    below 2·log2(k) entries) down to runs of 16, which insertion sort finishes. Hand-written so that no
    kernel compiles NumPy's generic sort (seconds of compilation per call site). Used for CSR rows by the
    readers and for the forest's buckets by the MST.
    """
    if hi - lo <= 16:
        _insertion_sort(keys, weights, has_w, lo, hi)
        return
    stack = np.empty(128, dtype=np.int64)
    top = 0
    stack[0] = lo
    stack[1] = hi
    top = 2
    while top > 0:
        top -= 2
        a = stack[top]
        b = stack[top + 1]
        while b - a > 16:
            mid = a + ((b - a) >> 1)
            x, y, z = keys[a], keys[mid], keys[b - 1]
            pivot = max(min(x, y), min(max(x, y), z))
            i = a - 1
            j = b
            while True:
                i += 1
                while keys[i] < pivot:
                    i += 1
                j -= 1
                while keys[j] > pivot:
                    j -= 1
                if i >= j:
                    break
                keys[i], keys[j] = keys[j], keys[i]
                if has_w:
                    weights[i], weights[j] = weights[j], weights[i]
            # keys[a:j+1] <= pivot <= keys[j+1:b]
            if j + 1 - a < b - (j + 1):
                stack[top] = j + 1
                stack[top + 1] = b
                b = j + 1
            else:
                stack[top] = a
                stack[top + 1] = j + 1
                a = j + 1
            top += 2
        _insertion_sort(keys, weights, has_w, a, b)
