"""numba-cuda contraction and projection (seed 000 ch. 4.3.2 / 5.2.2): the GPU twins of
`_coarsen_kernels.labels_to_cmap`, `contract.contract_graph` and `contract.project_partition`, equal to them array
for array.

- `labels_to_cmap_cuda`: flag every label in use, prefix-sum the flags (`exclusive_scan`): coarse ids in order of
  the smallest label, as on the CPU.
- `contract_cuda`: one thread per fine vertex adds its weights, its degree and a member count to its coarse
  vertex (integer atomics: exact sums whatever the order); the prefix sums of the counts and degree bounds
  place each coarse vertex's members and a scratch segment; one thread per coarse vertex gathers its members'
  neighbour lists relabelled by the cmap (dropping edges inside the cluster), sorts the segment (Shell sort with
  the edge weight following its key), merges duplicate neighbours by summing their weights, and a last prefix
  sum over the merged lengths packs the coarse CSR. Sorting before merging makes the result independent of the
  order in which members were gathered (an atomic cursor lays them out), so it is deterministic and equals
  the CPU contraction (sorted neighbour lists, summed weights, no self-loops). A per-thread sort is simple but
  unbalanced for very high-degree coarse vertices (chapter 5's segmented sort over all edges would not be).
- `project_cuda`: part[v] = coarse_part[cmap[v]].

Imported only when the GPU partitioner runs (this module imports numba.cuda).
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from apportion.partitioning.vertex._gpu_scan_cuda import BLOCK, blocks_for, exclusive_scan

#: Ciura's gap sequence for the per-thread Shell sort
_GAPS = (701, 301, 132, 57, 23, 10, 4, 1)


@cuda.jit(cache=False)
def _flag_labels(labels, used):
    v = cuda.grid(1)
    if v < labels.shape[0]:
        used[labels[v]] = 1


@cuda.jit(cache=False)
def _relabel(labels, new_id, cmap):
    v = cuda.grid(1)
    if v < labels.shape[0]:
        cmap[v] = new_id[labels[v]]


def labels_to_cmap_cuda(labels, stream=0):
    """(cmap int32 device array, coarse n) from cluster labels (an int32 device array of vertex ids):
    `labels_to_cmap` on the device. The coarse n is read back (one scalar)."""
    n = labels.shape[0]
    used = cuda.to_device(np.zeros(max(n, 1), dtype=np.int64), stream=stream)
    grid = blocks_for(n)
    _flag_labels[grid, BLOCK, stream](labels, used)
    new_id = exclusive_scan(used, n, stream)
    cmap = cuda.device_array(max(n, 1), dtype=np.int32, stream=stream)
    _relabel[grid, BLOCK, stream](labels, new_id, cmap)
    coarse_n = int(new_id[n:n + 1].copy_to_host(stream=stream)[0])
    return cmap[:n], coarse_n


@cuda.jit(cache=False)
def _accumulate(indptr, vertex_weights, cmap, members, degree_bound, coarse_weights):
    v = cuda.grid(1)
    if v >= cmap.shape[0]:
        return
    c = cmap[v]
    cuda.atomic.add(members, c, 1)
    cuda.atomic.add(degree_bound, c, indptr[v + 1] - indptr[v])
    for j in range(vertex_weights.shape[1]):
        cuda.atomic.add(coarse_weights, (c, j), vertex_weights[v, j])


@cuda.jit(cache=False)
def _place_members(cmap, member_ptr, cursor, member_list):
    v = cuda.grid(1)
    if v >= cmap.shape[0]:
        return
    c = cmap[v]
    member_list[member_ptr[c] + cuda.atomic.add(cursor, c, 1)] = v


@cuda.jit(cache=False)
def _gather_sort_merge(indptr, indices, edge_weights, cmap, member_ptr, member_list, scratch_ptr, keys, weights,
                       merged):
    c = cuda.grid(1)
    if c >= member_ptr.shape[0] - 1:
        return
    lo = scratch_ptr[c]
    end = lo
    for i in range(member_ptr[c], member_ptr[c + 1]):
        v = member_list[i]
        for e in range(indptr[v], indptr[v + 1]):
            d = cmap[indices[e]]
            if d != c:
                keys[end] = d
                weights[end] = edge_weights[e]
                end += 1
    length = end - lo
    for gap in _GAPS:
        if gap >= length:
            continue
        for i in range(lo + gap, end):
            key = keys[i]
            w = weights[i]
            j = i
            while j - gap >= lo and keys[j - gap] > key:
                keys[j] = keys[j - gap]
                weights[j] = weights[j - gap]
                j -= gap
            keys[j] = key
            weights[j] = w
    out = lo
    for i in range(lo, end):
        if out > lo and keys[out - 1] == keys[i]:
            weights[out - 1] += weights[i]
        else:
            keys[out] = keys[i]
            weights[out] = weights[i]
            out += 1
    merged[c] = out - lo


@cuda.jit(cache=False)
def _pack(scratch_ptr, keys, weights, coarse_indptr, coarse_indices, coarse_edge_weights):
    c = cuda.grid(1)
    if c >= coarse_indptr.shape[0] - 1:
        return
    src = scratch_ptr[c]
    for i in range(coarse_indptr[c], coarse_indptr[c + 1]):
        coarse_indices[i] = keys[src]
        coarse_edge_weights[i] = weights[src]
        src += 1


def contract_cuda(indptr, indices, edge_weights, vertex_weights, cmap, coarse_n: int, stream=0):
    """The coarse graph of cmap (device arrays in, device arrays out: indptr int64 (nc + 1), indices int32,
    edge weights of the fine ones' dtype, vertex weights int64 (nc, ncon)); `contract.contract_graph` on the
    device."""
    n = cmap.shape[0]
    ncon = vertex_weights.shape[1]
    size = max(coarse_n, 1)
    members = cuda.to_device(np.zeros(size, dtype=np.int64), stream=stream)
    degree_bound = cuda.to_device(np.zeros(size, dtype=np.int64), stream=stream)
    coarse_weights = cuda.to_device(np.zeros((size, ncon), dtype=np.int64), stream=stream)
    _accumulate[blocks_for(n), BLOCK, stream](indptr, vertex_weights, cmap, members, degree_bound, coarse_weights)
    member_ptr = exclusive_scan(members, coarse_n, stream)
    scratch_ptr = exclusive_scan(degree_bound, coarse_n, stream)
    cursor = cuda.to_device(np.zeros(size, dtype=np.int64), stream=stream)
    member_list = cuda.device_array(max(n, 1), dtype=np.int32, stream=stream)
    _place_members[blocks_for(n), BLOCK, stream](cmap, member_ptr, cursor, member_list)
    scratch = max(int(indices.shape[0]), 1)
    keys = cuda.device_array(scratch, dtype=np.int32, stream=stream)
    weights = cuda.device_array(scratch, dtype=edge_weights.dtype, stream=stream)
    merged = cuda.device_array(size, dtype=np.int64, stream=stream)
    grid = blocks_for(coarse_n)
    _gather_sort_merge[grid, BLOCK, stream](indptr, indices, edge_weights, cmap, member_ptr, member_list,
                                            scratch_ptr, keys, weights, merged)
    coarse_indptr = exclusive_scan(merged, coarse_n, stream)
    coarse_m2 = int(coarse_indptr[coarse_n:coarse_n + 1].copy_to_host(stream=stream)[0])
    coarse_indices = cuda.device_array(max(coarse_m2, 1), dtype=np.int32, stream=stream)
    coarse_edge_weights = cuda.device_array(max(coarse_m2, 1), dtype=edge_weights.dtype, stream=stream)
    _pack[grid, BLOCK, stream](scratch_ptr, keys, weights, coarse_indptr, coarse_indices, coarse_edge_weights)
    return coarse_indptr, coarse_indices[:coarse_m2], coarse_edge_weights[:coarse_m2], coarse_weights[:coarse_n]


@cuda.jit(cache=False)
def _project(cmap, coarse_part, part):
    v = cuda.grid(1)
    if v < cmap.shape[0]:
        part[v] = coarse_part[cmap[v]]


def project_cuda(cmap, coarse_part, stream=0):
    """The fine partition (int32 device array) part[v] = coarse_part[cmap[v]] (seed 000 ch. 4.3.4)."""
    n = cmap.shape[0]
    part = cuda.device_array(max(n, 1), dtype=np.int32, stream=stream)
    _project[blocks_for(n), BLOCK, stream](cmap, coarse_part, part)
    return part[:n]


@cuda.jit(cache=False)
def _restrict(cmap, blocks, coarse_blocks):
    v = cuda.grid(1)
    if v < cmap.shape[0]:
        coarse_blocks[cmap[v]] = blocks[v]  # every member of a cluster is in one block: one value per slot


def restrict_cuda(cmap, blocks, coarse_n: int, stream=0):
    """A partition whose blocks no cluster crosses, carried to the coarse graph (V-cycles):
    coarse_blocks[cmap[v]] = blocks[v]."""
    coarse_blocks = cuda.device_array(max(coarse_n, 1), dtype=np.int32, stream=stream)
    _restrict[blocks_for(cmap.shape[0]), BLOCK, stream](cmap, blocks, coarse_blocks)
    return coarse_blocks[:coarse_n]
