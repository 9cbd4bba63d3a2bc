"""Compile every numba-cuda kernel of the GPU partitioner to PTX for sm_80, without a GPU (maintainers only).

    PYTHONPATH=src .venv/bin/python tools/gpu_partitioner_ptx.py      (simulator OFF; needs numba-cuda's NVVM)

The CUDA simulator runs the kernels' Python source, not their compilation, so this checks that they also type
and compile for a real device (docs/gpu.md). Device functions ask numba-cuda for the current GPU's compute
capability; without a GPU the dispatcher is told sm_80.
"""

from __future__ import annotations

import types

import numba.cuda.dispatcher as dispatcher
from numba import cuda
from numba import types as t

from apportion.partitioning.vertex import _gpu_clustering_cuda as C
from apportion.partitioning.vertex import _gpu_contract_cuda as K
from apportion.partitioning.vertex import _gpu_matching_cuda as M
from apportion.partitioning.vertex import _gpu_rebalance_cuda as B
from apportion.partitioning.vertex import _gpu_refine_cuda as R
from apportion.partitioning.vertex import _gpu_scan_cuda as S

dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(8, 0))

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
 (C._choose, (a64, a32, a64, m64, a64, i64, i64, i64, i64, a32, m64, b, a32, b, a32, a64, i64, a32)),
 (C._request, (a32, a32, m64, m64, a32)), (C._accept, (a32, a32, m64, m64, a64, m64, a32)),
 (C._apply, (a32, a32, m64, m64, m64, a32, a64)),
 (K._flag_labels, (a32, a64)), (K._relabel, (a32, a64, a32)),
 (K._accumulate, (a64, m64, a32, a64, a64, m64)), (K._place_members, (a32, a64, a64, a32)),
 (K._gather_sort_merge, (a64, a32, a64, a32, a64, a32, a64, a32, a64, a64)),
 (K._pack, (a64, a32, a64, a64, a32, a64)), (K._project, (a32, a32, a32)), (K._restrict, (a32, a32, a32)),
 (R._candidates, (a64, a32, a64, a32, a8, f64, a32, a64, i64, a32, a64)), (R._afterburner, (a64, a32, a64, a32, a32, a64, a8)),
 (R._apply, (a32, m64, a32, a8, a64, a8)), (R._cut_twice, (a64, a32, a64, a32, a64)),
 (R._block_weights, (a32, m64, a64)),
 (B._emptiest, (a64, a64, a32)),
 (B._choose, (a64, a32, a64, m64, a32, a64, a64, a32, a32, a64, i64, a32, a32, a64)),
 (B._source_cutoff, (a64, a64, a64, a32)), (B._request, (a32, m64, a32, a32, a32, a64, a32)),
 (B._destination_cutoff, (a64, a64, a64, a32, a64)),
 (B._apply, (a32, m64, a32, a32, a32, a64, a32, a64, a64)),
]


def main() -> None:
    for kernel, sig in sigs:
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(8, 0))
        print("ok", kernel.py_func.__module__.split(".")[-1], kernel.py_func.__name__, f"{len(ptx)} bytes of PTX")


if __name__ == "__main__":
    main()
