"""Locality-aware SpMV: y = A·x executed part by part over an edge partition (seed 001 §4–5).

The matrix is the bipartite row/column graph of A (one edge {row i, column j} per nonzero). Every part of an
edge partition of that graph is one parallel task — a GPU thread block, or a CPU core — which first gathers
the distinct x_j and y_i it touches into private buffers (shared memory, or a cache-sized working set),
multiplies, and then its y buffer is reduced into y. The loads a part makes are its distinct x and y
entries, so the total loads are Σ_v p_v = vertex copies + touched vertices: fewer copies, fewer loads.

`spmv` reports the loads per part (max and total) and times the partitioned kernel against SciPy's CSR SpMV
and against the same kernel over the unpartitioned order (k consecutive chunks of the CSR nonzeros).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from apportion.apps._spmv_kernels import partitioned_spmv_kernel
from apportion.errors import InputError
from apportion.graph.csr import Graph
from apportion.graph.io import names_matrix_market, read_graph
from apportion.graph.io.mtx import read_matrix
from apportion.partitioning.edge.api import partition_edges
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet


def _partitioned_spmv(part_ptr, local_row, local_col, values, x_ptr, x_ids, y_ptr, y_ids, x, row_ptr,
                      row_partials):
    """The CPU kernel with its buffers allocated: returns y (the signature of the GPU launcher)."""
    y = np.empty(row_ptr.shape[0] - 1, dtype=np.float64)
    partial = np.empty(y_ids.shape[0], dtype=np.float64)
    partitioned_spmv_kernel(part_ptr, local_row, local_col, values, x_ptr, x_ids, y_ptr, y_ids, x, partial,
                            row_ptr, row_partials, y)
    return y


# one parallel task per part: a CPU core (Numba prange) or a GPU thread block (apps/_spmv_cuda.py)
SPMV_KERNELS = KernelSet(cpu=_partitioned_spmv, gpu=CudaKernel("apportion.apps._spmv_cuda", "partitioned_spmv_cuda"),
                         name="partitioned_spmv")


@dataclass(frozen=True)
class SpmvPlan:
    """Nonzeros grouped by part with part-local row/column numbers (the preload lists of every part)."""

    k: int
    part_ptr: np.ndarray
    local_row: np.ndarray
    local_col: np.ndarray
    values: np.ndarray
    x_ptr: np.ndarray
    x_ids: np.ndarray
    y_ptr: np.ndarray
    y_ids: np.ndarray
    row_ptr: np.ndarray
    row_partials: np.ndarray
    rows: int

    @property
    def loads_per_part(self) -> np.ndarray:
        """Distinct x entries + distinct y entries each part loads."""
        return np.diff(self.x_ptr) + np.diff(self.y_ptr)

    def kernel_args(self, x: np.ndarray) -> tuple:
        """The arguments of `SPMV_KERNELS` for input vector x (for `Device.run`)."""
        return (self.part_ptr, self.local_row, self.local_col, self.values, self.x_ptr, self.x_ids, self.y_ptr,
                self.y_ids, np.ascontiguousarray(x, dtype=np.float64), self.row_ptr, self.row_partials)

    def multiply(self, x: np.ndarray, device=None) -> np.ndarray:
        """y = A·x on the calling thread (the CPU kernel), or on `device` (a CUDA device runs one thread block
        per part)."""
        if device is None:
            return _partitioned_spmv(*self.kernel_args(x))
        return device.run(SPMV_KERNELS, *self.kernel_args(x)).result


def _group(part: np.ndarray, ids: np.ndarray, k: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ids per part: (ptr (k+1), ids sorted by part then id, local index of every input entry)."""
    keys = part.astype(np.int64) * size + ids
    distinct, inverse = np.unique(keys, return_inverse=True)
    owner = distinct // size
    ptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=k), out=ptr[1:])
    local = inverse - ptr[part]
    return ptr, distinct % size, local


def build_plan(matrix: sp.csr_array, assignment: np.ndarray, k: int) -> SpmvPlan:
    """Group the CSR nonzeros of `matrix` (canonical order) by their part in `assignment`."""
    rows, cols = matrix.shape
    row_of = np.repeat(np.arange(rows, dtype=np.int64), np.diff(matrix.indptr))
    col_of = matrix.indices.astype(np.int64)
    order = np.argsort(assignment, kind="stable")
    part = np.asarray(assignment, dtype=np.int64)[order]
    r, c = row_of[order], col_of[order]
    part_ptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(part, minlength=k), out=part_ptr[1:])
    x_ptr, x_ids, local_col = _group(part, c, k, cols)
    y_ptr, y_ids, local_row = _group(part, r, k, rows)
    by_row = np.argsort(y_ids, kind="stable")
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(y_ids, minlength=rows), out=row_ptr[1:])
    return SpmvPlan(k, part_ptr, local_row.astype(np.int64), local_col.astype(np.int64),
                    np.ascontiguousarray(matrix.data[order], dtype=np.float64), x_ptr, x_ids, y_ptr, y_ids,
                    row_ptr, by_row.astype(np.int64), rows)


def bipartite_graph(matrix: sp.csr_array):
    """The bipartite row/column graph: vertex i = row i, vertex rows + j = column j, one edge per nonzero.

    Its canonical edge order (graph.edges()) is the CSR order of `matrix`, so an edge partition's assignment
    is directly a part per stored nonzero.
    """
    rows, cols = matrix.shape
    row_of = np.repeat(np.arange(rows, dtype=np.int64), np.diff(matrix.indptr))
    return Graph.from_edges(row_of, matrix.indices.astype(np.int64) + rows, n=rows + cols,
                            merge_duplicates=False)


def as_csr(matrix) -> sp.csr_array:
    """Canonical CSR (float64, summed duplicates, sorted indices) of a SciPy sparse matrix or of a path: a Matrix
    Market file (`.mtx`, `.mm`, compressed or not) with its values, or any other graph input `read_graph` takes
    (a graph file, `dataset:NAME`) as its adjacency matrix (edge weights as values)."""
    if isinstance(matrix, bytes):
        matrix = matrix.decode()
    if isinstance(matrix, str) or hasattr(matrix, "__fspath__"):
        matrix = _read_matrix_argument(str(matrix))
    if not sp.issparse(matrix):
        matrix = sp.csr_array(np.asarray(matrix))
    if np.iscomplexobj(matrix.data):
        raise InputError("complex matrices are not supported")
    csr = sp.csr_array(matrix, dtype=np.float64)
    csr.sum_duplicates()
    csr.sort_indices()
    return csr


def _read_matrix_argument(path: str):
    return read_matrix(path) if names_matrix_market(path) else read_graph(path).to_scipy()


@dataclass(frozen=True)
class SpmvReport:
    """What `spmv` measured (times are the best of `repeats` runs)."""

    k: int
    method: str
    rows: int
    cols: int
    nonzeros: int
    loads_per_part: np.ndarray
    max_loads: int
    total_loads: int
    unpartitioned_max_loads: int
    unpartitioned_total_loads: int
    vertex_copies: int
    time_partitioned_s: float
    time_unpartitioned_s: float
    time_scipy_s: float
    partition_time_s: float
    max_abs_error: float
    y: np.ndarray = field(repr=False)

    def to_dict(self) -> dict:
        """Plain-JSON summary (without y); ratios are scipy / partitioned and unpartitioned / partitioned."""
        return {
            "k": self.k, "method": self.method, "rows": self.rows, "cols": self.cols,
            "nonzeros": self.nonzeros, "max_loads": self.max_loads, "total_loads": self.total_loads,
            "unpartitioned_max_loads": self.unpartitioned_max_loads,
            "unpartitioned_total_loads": self.unpartitioned_total_loads,
            "vertex_copies": self.vertex_copies,
            "time_partitioned_s": self.time_partitioned_s, "time_unpartitioned_s": self.time_unpartitioned_s,
            "time_scipy_s": self.time_scipy_s, "partition_time_s": self.partition_time_s,
            "speedup_vs_scipy": self.time_scipy_s / self.time_partitioned_s if self.time_partitioned_s else None,
            "speedup_vs_unpartitioned": (self.time_unpartitioned_s / self.time_partitioned_s
                                         if self.time_partitioned_s else None),
            "max_abs_error": self.max_abs_error,
        }


def _best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def spmv(matrix, k: int, *, method: str = "spac", imbalance: float = 0.0, seed: int = 0, repeats: int = 5,
         x: np.ndarray | None = None, **options) -> SpmvReport:
    """Run y = A·x part by part over a k-way edge partition of A's bipartite graph, and measure it.

    Args:
        matrix: a SciPy sparse matrix (any shape) or a path to a Matrix Market file.
        k, method, imbalance, seed, options: passed to `apportion.partition_edges`.
        repeats: timing repetitions (best time kept), ≥ 1.
        x: the input vector (default: seeded uniform values in [0, 1)).
    Returns an SpmvReport; y agrees with SciPy's `A @ x` to floating-point rounding (max_abs_error).
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InputError(f"repeats must be a positive integer, got {repeats!r}")
    csr = as_csr(matrix)
    rows, cols = csr.shape
    if csr.nnz == 0:
        raise InputError("the matrix has no nonzeros")
    graph = bipartite_graph(csr)
    result = partition_edges(graph, k, method=method, imbalance=imbalance, seed=seed, **options)
    plan = build_plan(csr, result.assignment, k)
    chunks = (np.arange(csr.nnz, dtype=np.int64) * k // csr.nnz).astype(np.int32)
    plain = build_plan(csr, chunks, k)
    if x is None:
        x = np.random.default_rng(seed).random(cols)
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.shape != (cols,):
        raise InputError(f"x must have length {cols}, got shape {x.shape}")
    y = plan.multiply(x)          # also compiles the kernel before timing
    plain.multiply(x)
    reference = csr @ x
    error = float(np.max(np.abs(y - reference))) if rows else 0.0
    loads = plan.loads_per_part
    plain_loads = plain.loads_per_part
    return SpmvReport(
        k=int(k), method=method, rows=rows, cols=cols, nonzeros=int(csr.nnz), loads_per_part=loads,
        max_loads=int(loads.max()), total_loads=int(loads.sum()),
        unpartitioned_max_loads=int(plain_loads.max()), unpartitioned_total_loads=int(plain_loads.sum()),
        vertex_copies=result.vertex_copies,
        time_partitioned_s=_best_time(lambda: plan.multiply(x), repeats),
        time_unpartitioned_s=_best_time(lambda: plain.multiply(x), repeats),
        time_scipy_s=_best_time(lambda: csr @ x, repeats),
        partition_time_s=result.time_s, max_abs_error=error, y=y,
    )
