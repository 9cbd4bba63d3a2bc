"""Compile every GPU-partitioner kernel to PTX for sm_80 (no GPU needed)."""
import types as _t
import numba.cuda.dispatcher as _d
_d.get_current_device = lambda: _t.SimpleNamespace(compute_capability=(8, 0))  # device functions: no GPU here
from numba import cuda, types as t
from apportion.partitioning.vertex import (_gpu_scan_cuda as S, _gpu_matching_cuda as M, _gpu_clustering_cuda as C,
    _gpu_contract_cuda as K, _gpu_refine_cuda as R, _gpu_rebalance_cuda as B)
i64, i32, i8 = t.int64, t.int32, t.int8
a64, a32, a8 = i64[::1], i32[::1], i8[::1]
m64 = i64[:, ::1]
b = t.boolean
f64 = t.float64
sigs = [
 (S._scan_chunks, (a64, i64, a64, a64)), (S._add_chunk_offsets, (a64, i64, a64)),
 (S._sum_kernel, (a64, i64, a64)), (S._max_kernel, (i64[:], i64, a64)), (S._fill_kernel, (a64, i64)),
 (S._fill_kernel, (a32, i32)), (S._fill_kernel, (a8, i64)),
 (M._choose, (a64, a32, a64, m64, a64, a8, i64, a32)), (M._pair, (a32, a32, a8, a64)), (M._labels, (a32, a32)),
 (C._choose, (a64, a32, a64, m64, a64, i64, i64, i64, i64, a32, m64, b, a32, b, a32)),
 (C._request, (a32, a32, m64, m64, a32)), (C._accept, (a32, a32, m64, m64, a64, m64, a32)),
 (C._apply, (a32, a32, m64, m64, m64, a32, a64)),
 (K._flag_labels, (a32, a64)), (K._relabel, (a32, a64, a32)),
 (K._accumulate, (a64, m64, a32, a64, a64, m64)), (K._place_members, (a32, a64, a64, a32)),
 (K._gather_sort_merge, (a64, a32, a64, a32, a64, a32, a64, a32, a64, a64)),
 (K._pack, (a64, a32, a64, a64, a32, a64)), (K._project, (a32, a32, a32)), (K._restrict, (a32, a32, a32)),
 (R._candidates, (a64, a32, a64, a32, a8, f64, a32, a64)), (R._afterburner, (a64, a32, a64, a32, a32, a64, a8)),
 (R._apply, (a32, m64, a32, a8, a64, a8)), (R._cut_twice, (a64, a32, a64, a32, a64)),
 (R._block_weights, (a32, m64, a64)),
 (B._emptiest, (a64, a64, a32)), (B._choose, (a64, a32, a64, m64, a32, a64, a64, a32, a32, a32, a64)),
 (B._source_cutoff, (a64, a64, a64, a32)), (B._request, (a32, m64, a32, a32, a32, a64, a32)),
 (B._destination_cutoff, (a64, a64, a64, a32, a64)),
 (B._apply, (a32, m64, a32, a32, a32, a64, a32, a64, a64)),
]
for kernel, sig in sigs:
    ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(8, 0))
    print("ok", kernel.py_func.__module__.split(".")[-1], kernel.py_func.__name__, len(ptx))
