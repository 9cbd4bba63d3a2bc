"""Numba kernels of the parallel Borůvka minimum spanning forest (seed 000, section 5.4).

Edges are ordered strictly by the pair (weight, canonical edge key), where the canonical key of {u, v} is
min(u, v) * n + max(u, v): the order of the canonical edge ids (u < v, by u then v). Under a strict total order
the minimum spanning forest is unique, so every round's choices are independent of thread count and scheduling,
and the only cycles the hooking step can create are 2-cycles (two components choosing the same edge), which
`break_two_cycles` resolves.

Round 1 runs straight on the CSR arrays: every vertex's lightest incident edge is a segmented arg-min over its
neighbour list (conflict-free, parallel over vertices). Later rounds work on a contracted edge list whose
endpoints are component ids; the per-component arg-min there is a scatter-min done by each thread into its own
row and then reduced, so no atomics are needed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True, inline="always")
def _lighter(w_a, key_a, w_b, key_b):
    """True when edge a precedes edge b in the (weight, canonical key) order."""
    return w_a < w_b or (w_a == w_b and key_a < key_b)


@njit(cache=True, nogil=True, parallel=True)
def lightest_incident_edge(indptr, indices, weights, has_weights):
    """Segmented arg-min over every neighbour list: the CSR position of each vertex's lightest edge (-1: none).

    `weights` is aligned with `indices` when `has_weights`, otherwise ignored (every edge weighs 1).
    """
    n = indptr.shape[0] - 1
    best = np.empty(n, dtype=np.int64)
    for u in prange(n):
        chosen = -1
        chosen_w = np.int64(0)
        chosen_key = np.int64(0)
        for p in range(indptr[u], indptr[u + 1]):
            v = np.int64(indices[p])
            w = weights[p] if has_weights else np.int64(1)
            key = np.int64(u) * n + v if u < v else v * n + u
            if chosen < 0 or _lighter(w, key, chosen_w, chosen_key):
                chosen = p
                chosen_w = w
                chosen_key = key
        best[u] = chosen
    return best


@njit(cache=True, nogil=True, parallel=True)
def hook_vertices(indptr, indices, best):
    """Round-1 parent pointers: each vertex points to the other end of its lightest edge (isolated: itself)."""
    n = best.shape[0]
    parent = np.empty(n, dtype=np.int64)
    for u in prange(n):
        parent[u] = u if best[u] < 0 else np.int64(indices[best[u]])
    return parent


@njit(cache=True, nogil=True, parallel=True)
def break_two_cycles(parent):
    """Make the smaller end of every mutual choice a root; returns whether each component hooked.

    Only the smaller vertex of a 2-cycle writes, and its partner's test (`w < parent[w]`) fails whatever it
    reads, so the in-place update is race-free.
    """
    count = parent.shape[0]
    hooked = np.empty(count, dtype=np.bool_)
    for c in prange(count):
        p = parent[c]
        if p == c:
            hooked[c] = False
        elif parent[p] == c and c < p:
            parent[c] = c
            hooked[c] = False
        else:
            hooked[c] = True
    return hooked


@njit(cache=True, nogil=True, parallel=True)
def jump_to_roots(parent):
    """Pointer jumping until every entry points at its tree's root (O(log depth) parallel sweeps)."""
    count = parent.shape[0]
    changed = 1
    while changed > 0:
        changed = 0
        for c in prange(count):
            p = parent[c]
            grand = parent[p]
            if p != grand:
                parent[c] = grand
                changed += 1
    return parent


@njit(cache=True, nogil=True)
def relabel_roots(parent):
    """Dense new ids 0..roots-1 for the components: label[c] = new id of c's root. Returns (label, roots)."""
    count = parent.shape[0]
    new_id = np.empty(count, dtype=np.int64)
    roots = 0
    for c in range(count):
        if parent[c] == c:
            new_id[c] = roots
            roots += 1
    label = np.empty(count, dtype=np.int64)
    for c in range(count):
        label[c] = new_id[parent[c]]
    return label, roots


@njit(cache=True, nogil=True, parallel=True)
def forest_edges_of_vertices(indptr, indices, weights, has_weights, best, hooked):
    """The edges chosen by hooked vertices in round 1 as (canonical key, weight) arrays, in vertex order."""
    n = best.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        offsets[u + 1] = offsets[u] + (1 if hooked[u] else 0)
    total = offsets[n]
    keys = np.empty(total, dtype=np.int64)
    ws = np.empty(total, dtype=np.int64)
    for u in prange(n):
        if hooked[u]:
            p = best[u]
            v = np.int64(indices[p])
            k = offsets[u]
            keys[k] = np.int64(u) * n + v if u < v else v * n + u
            ws[k] = weights[p] if has_weights else np.int64(1)
    return keys, ws


@njit(cache=True, nogil=True, parallel=True)
def contract_csr_edges(indptr, indices, weights, has_weights, label, chunks):
    """Edges of the graph between different components after round 1, with endpoints renamed to components.

    Returns (end_a, end_b, weight, key) arrays: each undirected edge once (from its smaller endpoint), in CSR
    order, keyed by its canonical key so ties still break by the original edge id.
    """
    n = indptr.shape[0] - 1
    bounds = np.empty(chunks + 1, dtype=np.int64)
    for t in range(chunks + 1):
        bounds[t] = (n * t) // chunks
    counts = np.zeros(chunks + 1, dtype=np.int64)
    for t in prange(chunks):
        kept = 0
        for u in range(bounds[t], bounds[t + 1]):
            lu = label[u]
            for p in range(indptr[u], indptr[u + 1]):
                v = indices[p]
                if v > u and label[v] != lu:
                    kept += 1
        counts[t + 1] = kept
    for t in range(chunks):
        counts[t + 1] += counts[t]
    total = counts[chunks]
    end_a = np.empty(total, dtype=np.int64)
    end_b = np.empty(total, dtype=np.int64)
    ws = np.empty(total, dtype=np.int64)
    keys = np.empty(total, dtype=np.int64)
    for t in prange(chunks):
        k = counts[t]
        for u in range(bounds[t], bounds[t + 1]):
            lu = label[u]
            for p in range(indptr[u], indptr[u + 1]):
                v = np.int64(indices[p])
                if v > u and label[v] != lu:
                    end_a[k] = lu
                    end_b[k] = label[v]
                    ws[k] = weights[p] if has_weights else np.int64(1)
                    keys[k] = np.int64(u) * n + v
                    k += 1
    return end_a, end_b, ws, keys


@njit(cache=True, nogil=True, parallel=True)
def lightest_edge_per_component(end_a, end_b, ws, keys, components, chunks):
    """Scatter arg-min: for every component the index of its lightest outgoing edge (-1 if none).

    Each chunk of edges writes into its own row, then rows are reduced per component; no atomics, and the
    strict (weight, key) order makes the answer independent of the chunking.
    """
    count = end_a.shape[0]
    rows = np.full((chunks, components), -1, dtype=np.int64)
    for t in prange(chunks):
        row = rows[t]
        for i in range((count * t) // chunks, (count * (t + 1)) // chunks):
            w = ws[i]
            key = keys[i]
            a = end_a[i]
            j = row[a]
            if j < 0 or _lighter(w, key, ws[j], keys[j]):
                row[a] = i
            b = end_b[i]
            j = row[b]
            if j < 0 or _lighter(w, key, ws[j], keys[j]):
                row[b] = i
    best = np.empty(components, dtype=np.int64)
    for c in prange(components):
        chosen = rows[0, c]
        for t in range(1, chunks):
            j = rows[t, c]
            if j >= 0 and (chosen < 0 or _lighter(ws[j], keys[j], ws[chosen], keys[chosen])):
                chosen = j
        best[c] = chosen
    return best


@njit(cache=True, nogil=True, parallel=True)
def hook_components(end_a, end_b, best):
    """Parent pointers of a later round: each component points to the far component of its lightest edge."""
    components = best.shape[0]
    parent = np.empty(components, dtype=np.int64)
    for c in prange(components):
        i = best[c]
        if i < 0:
            parent[c] = c
        else:
            parent[c] = end_b[i] if end_a[i] == c else end_a[i]
    return parent


@njit(cache=True, nogil=True)
def forest_edges_of_components(ws, keys, best, hooked):
    """The (canonical key, weight) of the edges chosen by hooked components, in component order."""
    total = 0
    for c in range(best.shape[0]):
        if hooked[c]:
            total += 1
    out_keys = np.empty(total, dtype=np.int64)
    out_ws = np.empty(total, dtype=np.int64)
    k = 0
    for c in range(best.shape[0]):
        if hooked[c]:
            out_keys[k] = keys[best[c]]
            out_ws[k] = ws[best[c]]
            k += 1
    return out_keys, out_ws


@njit(cache=True, nogil=True, parallel=True)
def contract_edge_list(end_a, end_b, ws, keys, label, chunks):
    """Rename edge ends to the new components and drop edges that now lie inside one (order kept)."""
    count = end_a.shape[0]
    counts = np.zeros(chunks + 1, dtype=np.int64)
    for t in prange(chunks):
        kept = 0
        for i in range((count * t) // chunks, (count * (t + 1)) // chunks):
            if label[end_a[i]] != label[end_b[i]]:
                kept += 1
        counts[t + 1] = kept
    for t in range(chunks):
        counts[t + 1] += counts[t]
    total = counts[chunks]
    new_a = np.empty(total, dtype=np.int64)
    new_b = np.empty(total, dtype=np.int64)
    new_ws = np.empty(total, dtype=np.int64)
    new_keys = np.empty(total, dtype=np.int64)
    for t in prange(chunks):
        k = counts[t]
        for i in range((count * t) // chunks, (count * (t + 1)) // chunks):
            a = label[end_a[i]]
            b = label[end_b[i]]
            if a != b:
                new_a[k] = a
                new_b[k] = b
                new_ws[k] = ws[i]
                new_keys[k] = keys[i]
                k += 1
    return new_a, new_b, new_ws, new_keys


@njit(cache=True, nogil=True)
def sort_by_key(keys, ws, n):
    """Forest edges in canonical order (u < v, by u then v) by two stable counting passes; returns (u, v, w)."""
    count = keys.shape[0]
    low = np.empty(count, dtype=np.int64)
    high = np.empty(count, dtype=np.int64)
    for i in range(count):
        low[i] = keys[i] // n
        high[i] = keys[i] % n
    # pass 1: by the larger endpoint
    starts = np.zeros(n + 1, dtype=np.int64)
    for i in range(count):
        starts[high[i] + 1] += 1
    for v in range(n):
        starts[v + 1] += starts[v]
    order = np.empty(count, dtype=np.int64)
    for i in range(count):
        order[starts[high[i]]] = i
        starts[high[i]] += 1
    # pass 2 (stable): by the smaller endpoint
    starts[:] = 0
    for i in range(count):
        starts[low[i] + 1] += 1
    for v in range(n):
        starts[v + 1] += starts[v]
    u_out = np.empty(count, dtype=np.int64)
    v_out = np.empty(count, dtype=np.int64)
    w_out = np.empty(count, dtype=np.int64)
    for j in range(count):
        i = order[j]
        slot = starts[low[i]]
        starts[low[i]] += 1
        u_out[slot] = low[i]
        v_out[slot] = high[i]
        w_out[slot] = ws[i]
    return u_out, v_out, w_out
