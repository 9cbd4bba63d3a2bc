"""Compiled kernel of the multi-device connected components by label propagation on the distributed worklist
(a data-driven variant; seed 003 §5.1.4's topology-driven hook + compress over edge segments is not built yet).

`cc_step` follows the kernel contract of `_bfs_kernels.bfs_step`: the value of a vertex is its component label,
the least vertex id seen so far; a processed vertex lowers its neighbours' labels to its own, queueing owned
neighbours and sending the others to their owners. Labels only decrease, so the fixpoint (every vertex labelled
with the least id of its component) does not depend on the order. With soft priority (the label is the
priority) a popped vertex whose label is at or above `threshold` is deferred, so low labels sweep first and
higher ones are not spread only to be overwritten. `weights` and `extra` are unused.
"""

from __future__ import annotations

from numba import njit

from apportion._kernels.atomics import compare_and_swap
from apportion.runtime.worklist import NOT_QUEUED, wl_defer, wl_pop, wl_promote, wl_push


@njit(cache=True, nogil=True)
def cc_step(indptr, indices, weights, owner, me, labels, flags, queue, qstate, deferred, dstate, in_v, in_d,
            threshold, budget, promote, out_v, out_d, out_dest, counts, extra):
    if promote:
        wl_promote(flags, queue, qstate, deferred, dstate, labels, threshold)
    pushed = 0
    for i in range(in_v.shape[0]):
        v = in_v[i]
        if in_d[i] < labels[v]:
            labels[v] = in_d[i]
            pushed += wl_push(flags, queue, qstate, dstate, v)
    processed = 0
    n_out = 0
    edges = 0
    capacity = out_v.shape[0]
    while processed < budget and qstate[2] > 0:
        v = queue[qstate[0]]
        begin = indptr[v]
        end = indptr[v + 1]
        if labels[v] >= threshold:
            wl_pop(flags, queue, qstate)
            wl_defer(flags, deferred, dstate, v)  # still counted: it waits for the threshold to rise
            continue
        if n_out + (end - begin) > capacity:
            break  # the out buffers are full: send them first
        wl_pop(flags, queue, qstate)
        flags[v] = NOT_QUEUED
        processed += 1
        label = labels[v]
        for e in range(begin, end):
            u = indices[e]
            if label < labels[u]:
                labels[u] = label
                if owner[u] == me:
                    pushed += wl_push(flags, queue, qstate, dstate, u)
                else:
                    out_v[n_out] = u
                    out_d[n_out] = label
                    out_dest[n_out] = owner[u]
                    n_out += 1
        edges += end - begin
    counts[0] = processed
    counts[1] = pushed
    counts[2] = in_v.shape[0]
    counts[3] = n_out
    counts[4] = edges


# -- topology-driven CC (seed 003 §5.1.4): hook + compress on edge segments, forests merged ------------------------
@njit(cache=True, nogil=True)
def forest_root(parent, v):
    """The root of v's tree, halving the path on the way (every other vertex points to its grandparent)."""
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


@njit(cache=True, nogil=True)
def forest_link(parent, u, v):
    """Join the trees of u and v under the smaller root, so a root is always its tree's least vertex id."""
    ru = forest_root(parent, u)
    rv = forest_root(parent, v)
    if ru < rv:
        parent[rv] = ru
    elif rv < ru:
        parent[ru] = rv


@njit(cache=True, nogil=True)
def hook_segment(parent, sources, targets):
    """Hook + compress every edge of one segment into this device's forest (a union-find over all n ids)."""
    for i in range(sources.shape[0]):
        forest_link(parent, sources[i], targets[i])


@njit(cache=True, nogil=True)
def compress_forest(parent):
    """Point every vertex at its root, in one pass in increasing id order: every non-root points to a smaller
    id (`forest_link` hooks the larger root under the smaller, and halving only moves a vertex to a smaller
    ancestor; the CUDA forest keeps the same rule), so when v is reached its parent already points at its root."""
    for v in range(parent.shape[0]):
        parent[v] = parent[parent[v]]


@njit(cache=True, nogil=True, inline="always")
def forest_root_shared(parent, v):
    """`forest_root` for a forest other threads write too: a vertex is halved only where that changes its
    parent (storing the same value again would still take its cache line from the other threads). The GPU's
    hooking threads walk their forest the same way (`_cc_hook_cuda._root`: a CUDA device function cannot call
    this one)."""
    while True:
        p = parent[v]
        if p == v:
            return v
        grand = parent[p]
        if grand != p:
            parent[v] = grand
        v = grand


@njit(cache=True, nogil=True)
def forest_link_shared(parent, u, v):
    """`forest_link` where other threads link into the same forest at the same time: the larger root is hooked
    under the smaller with a compare-and-swap that succeeds only while it is still a root, and the link starts
    over from the two roots when another thread hooked it first. Halving's plain stores stay safe: they only
    write non-roots, always an ancestor (a vertex's ancestors only grow), so every non-root still points to a
    smaller id and each tree's root is its least id, whatever the interleaving."""
    while True:
        ru = forest_root_shared(parent, u)
        rv = forest_root_shared(parent, v)
        if ru == rv:
            return
        low, high = (ru, rv) if ru < rv else (rv, ru)
        if compare_and_swap(parent, high, high, low) == high:
            return
        u, v = low, high  # high was hooked meanwhile: link the two trees from where they are now


@njit(cache=True, nogil=True)
def merge_forest_chunk(first, stride, chunks, parent, other, shared):
    """Chunks first, first + stride, ... of `chunks` vertex ranges: fold another device's forest into `parent`
    for those vertices, the link of every (v, other's parent of v): with `shared`, on several threads at once
    (`forest_link_shared`), else alone (`forest_link`, no atomic operations; `cc.merge_forests`)."""
    n = other.shape[0]
    for chunk in range(first, chunks, stride):
        for v in range(chunk * n // chunks, (chunk + 1) * n // chunks):
            if other[v] != v:
                if shared:
                    forest_link_shared(parent, v, other[v])
                else:
                    forest_link(parent, v, other[v])


@njit(cache=True, nogil=True)
def forest_labels(parent, labels):
    """labels[v] = the root of v = the least vertex id of v's component, in one pass in increasing id order
    (every non-root points to a smaller id, whose label is already known: `compress_forest`; road 2^20:
    1.3 -> 0.5 ms against following each vertex to its root)."""
    for v in range(parent.shape[0]):
        p = parent[v]
        labels[v] = v if p == v else labels[p]
