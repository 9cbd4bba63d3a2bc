"""Numba kernels of the parallel Borůvka minimum spanning forest (seed 000, section 5.4).

They live in the graph layer (not beside `apps/mst.py`) because the road-like generator (`graph/generate.py`,
kind `road`) builds its spanning tree with `boruvka_serial` too, and a lower layer may not import `apps`.

Edges are ordered strictly by the pair (weight, canonical edge key), where the canonical key of {u, v} is
min(u, v) * n + max(u, v): the order of the canonical edge ids (u < v, by u then v). Under a strict total order
the minimum spanning forest is unique, so every round's choices are independent of thread count and scheduling,
and the only cycles the hooking step can create are 2-cycles (two components choosing the same edge), which
`_collapse` resolves.

An edge whose two ends are equal lies inside one component and is skipped everywhere; its ids are never looked
up (they may be stale), so components whose trees are finished can drop out of the numbering.

On graphs large enough for threads, round 1 runs straight on the CSR arrays: every vertex's lightest incident
edge is a segmented arg-min over its neighbour list (the shared `graph._segmented_kernels.best_in_row`,
conflict-free). Later rounds work on a contracted edge list whose ends are component ids, kept in the pieces
round 1 wrote it in and compacted in place piece by piece (no allocation after round 1); the per-component
arg-min there is a scatter-min that each thread does into its own row, then a reduction, so no atomics are
needed. Parallel kernels take pieces (vertex or edge ranges) that Numba hands to threads dynamically.

Smaller graphs (and one thread) take `boruvka_serial`: one kernel call that starts on the edge list with every
vertex its own component and runs every round with the serial edge-list helpers — no parallel kernel is
compiled or launched (a parallel launch costs more than the work on small inputs and on shared cores).
No kernel calls a NumPy sort or assigns slices: their generic code and error paths cost seconds to compile.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from apportion.graph._segmented_kernels import TIE_EDGE_ID, best_in_row, precedes, sort_segment


def _prange_only() -> dict:
    """Parallel options with only explicit prange loops parallel: NumPy calls such as np.zeros/np.full would
    otherwise become parallel regions of their own, each a thread-pool launch even on the serial (chunks == 1)
    path. A fresh dict each time: Numba consumes the one it is given."""
    return {"prange": True, "numpy": False, "setitem": False, "reduction": False, "comprehension": False,
            "stencil": False, "fusion": False, "inplace_binop": False}



@njit(cache=True, nogil=True)
def _lighter(w_a, key_a, w_b, key_b):
    """True when edge a precedes edge b in the (weight, canonical key) order (the shared segmented order)."""
    return precedes(w_a, key_a, w_b, key_b, 1)


@njit(cache=True, nogil=True)
def _canonical_key(u, v, n):
    """min(u, v) * n + max(u, v) as int64."""
    u = np.int64(u)
    v = np.int64(v)
    return u * n + v if u < v else v * n + u


def vertex_chunks(indptr: np.ndarray, chunks: int) -> np.ndarray:
    """Vertex boundaries cutting the CSR entries into `chunks` pieces of about equal size (chunks + 1 values;
    NumPy, no kernel)."""
    n = indptr.shape[0] - 1
    targets = (int(indptr[n]) * np.arange(chunks + 1, dtype=np.int64)) // max(chunks, 1)
    bounds = np.minimum(np.searchsorted(indptr, targets), n).astype(np.int64)
    bounds = np.maximum.accumulate(bounds)
    bounds[0] = 0
    bounds[chunks] = n
    return bounds


# ------------------------------------------------------------------------------------------------ round 1 (CSR)
@njit(cache=True, nogil=True)
def _lightest_incident_range(indptr, indices, weights, best, first, last):
    """best[u] = CSR position of u's lightest incident edge by (weight, canonical edge id), -1 if none, for
    u in first..last-1: the shared segmented arg-best (`best_in_row`) in its minimum, edge-id-tie mode."""
    n = indptr.shape[0] - 1
    no_labels = np.empty(0, dtype=np.int64)
    no_weights = np.empty((0, 0), dtype=np.int64)
    for u in range(first, last):
        best[u] = best_in_row(u, indptr[u], indptr[u + 1], indices, weights, 1, TIE_EDGE_ID, n, no_labels, 0,
                              no_weights, no_labels)


@njit(cache=True, nogil=True, parallel=_prange_only())
def lightest_incident_edge(indptr, indices, weights, bounds):
    """Segmented arg-min over every neighbour list, in parallel over the vertex pieces of `bounds` (from
    `vertex_chunks`): the CSR position of each vertex's lightest edge (-1: none). `weights` is aligned with
    `indices`, or empty (every edge weighs 1)."""
    n = indptr.shape[0] - 1
    best = np.empty(n, dtype=np.int64)
    for t in prange(bounds.shape[0] - 1):
        _lightest_incident_range(indptr, indices, weights, best, bounds[t], bounds[t + 1])
    return best


@njit(cache=True, nogil=True)
def _collapse(parent, keys, ws, edge_key, edge_w):
    """The merge phase on parent pointers (serial, O(count)): break 2-cycles, record the hooked components'
    edges into (keys, ws), collapse every tree onto its root (find with path halving) and number the roots.

    `edge_key[c]`, `edge_w[c]` are the canonical key and weight of the edge component c chose (ignored where
    parent[c] == c). Returns (label, roots, recorded): label[c] is the new id (0..roots-1) of c's tree, or -1
    for a component that chose no edge (it has none leaving it, so its tree is final and drops out).
    """
    count = parent.shape[0]
    label = np.empty(count, dtype=parent.dtype)
    for c in range(count):
        # a component that chose no edge has no edge to any other: its tree is finished, nothing hooks to it
        label[c] = -1 if parent[c] == c else 0
    recorded = 0
    for c in range(count):
        p = parent[c]
        if p == c:
            continue
        if parent[p] == c and c < p:
            # both ends chose the same edge: the smaller becomes the root, the larger records the edge
            parent[c] = c
            continue
        keys[recorded] = edge_key[c]
        ws[recorded] = edge_w[c]
        recorded += 1
    roots = 0
    for c in range(count):
        if parent[c] == c and label[c] == 0:
            label[c] = roots
            roots += 1
    for c in range(count):
        if label[c] < 0:
            continue
        r = c
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        label[c] = label[r]
    return label, roots, recorded


@njit(cache=True, nogil=True)
def merge_vertices(indices, weights, best):
    """Round-1 merge: hook every vertex to the far end of its lightest edge, record the forest edges, collapse.

    Returns (label, components, forest_keys, forest_weights).
    """
    n = best.shape[0]
    has_weights = weights.shape[0] > 0
    parent = np.empty(n, dtype=indices.dtype)
    edge_key = np.empty(n, dtype=np.int64)
    edge_w = np.empty(n, dtype=np.int64)
    for u in range(n):
        p = best[u]
        if p < 0:
            parent[u] = u
        else:
            parent[u] = indices[p]
            edge_key[u] = _canonical_key(u, indices[p], n)
            edge_w[u] = weights[p] if has_weights else np.int64(1)
    keys = np.empty(n, dtype=np.int64)
    ws = np.empty(n, dtype=np.int64)
    label, roots, recorded = _collapse(parent, keys, ws, edge_key, edge_w)
    return label, roots, keys[:recorded].copy(), ws[:recorded].copy()


@njit(cache=True, nogil=True)
def _count_cross_upper(indptr, indices, label, first, last):
    kept = 0
    for u in range(first, last):
        lu = label[u]
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v > u and label[v] != lu:
                kept += 1
    return kept


@njit(cache=True, nogil=True)
def _fill_cross_upper(indptr, indices, weights, label, first, last, k, end_a, end_b, ws, keys):
    n = indptr.shape[0] - 1
    has_weights = weights.shape[0] > 0
    for u in range(first, last):
        lu = label[u]
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v > u and label[v] != lu:
                end_a[k] = lu
                end_b[k] = label[v]
                ws[k] = weights[p] if has_weights else np.int64(1)
                keys[k] = np.int64(u) * n + v
                k += 1


@njit(cache=True, nogil=True, parallel=_prange_only())
def contract_csr_edges(indptr, indices, weights, label, bounds):
    """Edges of the graph between different components after round 1, with ends renamed to components
    (parallel over the vertex pieces of `bounds`: a count, a prefix sum, a fill).

    Returns (end_a, end_b, weight, key, offsets): each undirected edge once (from its smaller end), in CSR
    order, keyed by its canonical key so that ties still break by the original edge id; piece t of `bounds`
    wrote positions offsets[t]..offsets[t+1]-1 (the pieces of the edge list in later rounds).
    """
    chunks = bounds.shape[0] - 1
    offsets = np.zeros(chunks + 1, dtype=np.int64)
    for t in prange(chunks):
        offsets[t + 1] = _count_cross_upper(indptr, indices, label, bounds[t], bounds[t + 1])
    for t in range(chunks):
        offsets[t + 1] += offsets[t]
    total = offsets[chunks]
    end_a = np.empty(total, dtype=label.dtype)
    end_b = np.empty(total, dtype=label.dtype)
    ws = np.empty(total, dtype=np.int64)
    keys = np.empty(total, dtype=np.int64)
    for t in prange(chunks):
        _fill_cross_upper(indptr, indices, weights, label, bounds[t], bounds[t + 1], offsets[t], end_a, end_b, ws,
                          keys)
    return end_a, end_b, ws, keys, offsets


# ------------------------------------------------------------------------------------ later rounds (edge list)
@njit(cache=True, nogil=True)
def _scatter_lightest(end_a, end_b, ws, keys, row, first, last):
    """row[c] = index of the lightest edge among first..last-1 with one end in component c and the other end
    elsewhere (row starts at -1)."""
    for i in range(first, last):
        w = ws[i]
        key = keys[i]
        a = end_a[i]
        b = end_b[i]
        if a == b:  # inside one component since the last relabelling
            continue
        j = row[a]
        if j < 0 or _lighter(w, key, ws[j], keys[j]):
            row[a] = i
        j = row[b]
        if j < 0 or _lighter(w, key, ws[j], keys[j]):
            row[b] = i


@njit(cache=True, nogil=True, parallel=_prange_only())
def lightest_edge_per_component(end_a, end_b, ws, keys, piece_start, piece_length, components, threads):
    """Scatter arg-min: for every component the index of its lightest outgoing edge (-1 if none).

    The edge list is cut into pieces; piece t holds its live edges at piece_start[t] .. + piece_length[t].
    Pieces are handed to threads dynamically and each thread scatters into its own row; the rows are then
    reduced per component. No atomics, and the strict (weight, key) order makes the answer independent of which
    thread took which piece. `threads` must be Numba's current thread count.
    """
    pieces = piece_length.shape[0]
    rows = np.full((threads, components), -1, dtype=np.int64)
    if threads == 1:
        for t in range(pieces):
            _scatter_lightest(end_a, end_b, ws, keys, rows[0], piece_start[t], piece_start[t] + piece_length[t])
        return rows[0]
    for t in prange(pieces):
        _scatter_lightest(end_a, end_b, ws, keys, rows[numba.get_thread_id()], piece_start[t],
                          piece_start[t] + piece_length[t])
    best = rows[0].copy()
    for c in range(components):  # serial reduction of the threads' rows (threads · components steps)
        chosen = best[c]
        for r in range(1, threads):
            j = rows[r, c]
            if j >= 0 and (chosen < 0 or _lighter(ws[j], keys[j], ws[chosen], keys[chosen])):
                chosen = j
        best[c] = chosen
    return best


@njit(cache=True, nogil=True)
def merge_components(end_a, end_b, ws, keys, best):
    """Later-round merge: hook every component along its lightest edge, record the forest edges, collapse.

    Returns (label, components, forest_keys, forest_weights).
    """
    count = best.shape[0]
    parent = np.empty(count, dtype=end_a.dtype)
    edge_key = np.empty(count, dtype=np.int64)
    edge_w = np.empty(count, dtype=np.int64)
    for c in range(count):
        i = best[c]
        if i < 0:
            parent[c] = c
        else:
            parent[c] = end_b[i] if end_a[i] == c else end_a[i]
            edge_key[c] = keys[i]
            edge_w[c] = ws[i]
    out_keys = np.empty(count, dtype=np.int64)
    out_ws = np.empty(count, dtype=np.int64)
    label, roots, recorded = _collapse(parent, out_keys, out_ws, edge_key, edge_w)
    return label, roots, out_keys[:recorded].copy(), out_ws[:recorded].copy()


@njit(cache=True, nogil=True)
def _fill_cross(end_a, end_b, ws, keys, label, first, last, k, new_a, new_b, new_ws, new_keys):
    """Copy the edges of first..last-1 that cross components, renamed, to positions k, k+1, ...; returns the
    next free position. May run in place (new_* the same arrays as the inputs, k <= first)."""
    for i in range(first, last):
        if end_a[i] == end_b[i]:  # already internal (its ids may be stale: never look them up)
            continue
        a = label[end_a[i]]
        b = label[end_b[i]]
        if a != b:
            new_a[k] = a
            new_b[k] = b
            new_ws[k] = ws[i]
            new_keys[k] = keys[i]
            k += 1
    return k


@njit(cache=True, nogil=True, parallel=_prange_only())
def contract_pieces(end_a, end_b, ws, keys, piece_start, piece_length, label):
    """Rename edge ends to the new components and drop the edges that now lie inside one, each piece compacted
    in place (parallel over pieces, no allocation, order kept). Updates piece_length; returns the edges left."""
    pieces = piece_length.shape[0]
    for t in prange(pieces):
        first = piece_start[t]
        piece_length[t] = _fill_cross(end_a, end_b, ws, keys, label, first, first + piece_length[t], first,
                                      end_a, end_b, ws, keys) - first
    total = 0
    for t in range(pieces):
        total += piece_length[t]
    return total


@njit(cache=True, nogil=True)
def gather_pieces(end_a, end_b, ws, keys, piece_start, piece_length):
    """Move the pieces' live edges to the front of the arrays (in order); returns their number."""
    k = 0
    for t in range(piece_length.shape[0]):
        first = piece_start[t]
        for i in range(first, first + piece_length[t]):
            end_a[k] = end_a[i]
            end_b[k] = end_b[i]
            ws[k] = ws[i]
            keys[k] = keys[i]
            k += 1
    return k


@njit(cache=True, nogil=True)
def finish_serially(end_a, end_b, ws, keys, components):
    """The remaining Borůvka rounds on a short edge list in one serial call (no parallel-region launches).

    The arrays must be private to the caller: they are compacted in place. Returns (forest_keys,
    forest_weights, rounds).
    """
    out_keys = np.empty(components, dtype=np.int64)
    out_ws = np.empty(components, dtype=np.int64)
    found = 0
    rounds = 0
    count = end_a.shape[0]
    while count > 0:
        row = np.full(components, -1, dtype=np.int64)
        _scatter_lightest(end_a, end_b, ws, keys, row, 0, count)
        label, components, round_keys, round_ws = merge_components(end_a, end_b, ws, keys, row)
        for i in range(round_keys.shape[0]):  # element loops: a slice assignment compiles its error path
            out_keys[found + i] = round_keys[i]
            out_ws[found + i] = round_ws[i]
        found += round_keys.shape[0]
        count = _fill_cross(end_a, end_b, ws, keys, label, 0, count, 0, end_a, end_b, ws, keys)
        rounds += 1
    return out_keys[:found].copy(), out_ws[:found].copy(), rounds


# ------------------------------------------------------------------------------------------------ output
@njit(cache=True, nogil=True)
def sort_by_key(keys, ws, n):
    """Forest edges in canonical order (u < v, by u then v); returns (u, v, w) int64 arrays.

    One counting pass buckets the edges by their smaller end; each bucket (a vertex's forest edges to larger
    ids, few as a rule) is then sorted by the larger end with the shared hand-written `sort_segment`.
    """
    count = keys.shape[0]
    starts = np.zeros(n + 1, dtype=np.int64)
    for i in range(count):
        starts[keys[i] // n + 1] += 1
    for x in range(n):
        starts[x + 1] += starts[x]
    fill = starts[:n].copy()
    u_out = np.empty(count, dtype=np.int64)
    v_out = np.empty(count, dtype=np.int64)
    w_out = np.empty(count, dtype=np.int64)
    for i in range(count):
        low = keys[i] // n
        slot = fill[low]
        fill[low] = slot + 1
        u_out[slot] = low
        v_out[slot] = keys[i] - low * n
        w_out[slot] = ws[i]
    for x in range(n):
        if starts[x + 1] - starts[x] > 1:
            sort_segment(v_out, w_out, np.bool_(True), starts[x], starts[x + 1])  # not a literal: one compiled copy
    return u_out, v_out, w_out


# ------------------------------------------------------------------------------------------------ serial whole
@njit(cache=True, nogil=True)
def boruvka_serial(indptr, indices, weights):
    """The whole Borůvka on one thread in one call, for graphs too small to pay for parallel launches: every
    vertex starts as its own component on the edge list of the graph (each edge once, from its smaller end,
    keyed by its canonical id), `finish_serially` runs every round on it, and `sort_by_key` puts the forest
    in canonical order. `weights` is aligned with `indices`, or empty (every edge weighs 1). Returns
    (u, v, w, rounds). Same order and tie-break as the parallel path, so both give the identical forest;
    fewer helpers than the parallel path's CSR round 1, so a first call compiles quickly.
    """
    n = indptr.shape[0] - 1
    has_weights = weights.shape[0] > 0
    total = indptr[n] // 2  # a simple undirected graph stores every edge twice
    end_a = np.empty(total, dtype=indices.dtype)
    end_b = np.empty(total, dtype=indices.dtype)
    edge_ws = np.empty(total, dtype=np.int64)
    edge_keys = np.empty(total, dtype=np.int64)
    k = 0
    for u in range(n):
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if v > u:
                end_a[k] = u
                end_b[k] = v
                edge_ws[k] = weights[p] if has_weights else np.int64(1)
                edge_keys[k] = np.int64(u) * n + v
                k += 1
    keys, ws, rounds = finish_serially(end_a[:k], end_b[:k], edge_ws[:k], edge_keys[:k], n)
    u_out, v_out, w_out = sort_by_key(keys, ws, max(n, 1))
    return u_out, v_out, w_out, rounds
