"""Predicate-based filtering (seed 003, Groute's PBF): keep the elements of a large array with low <= v < high.

Two drivers share one compiled kernel (`_pbf_kernels.filter_range`):

- `FilterWorkload` (here) is the algorithm as a *scheduler* workload (seed 000 ch. 3): the array is cut into
  `n_chunks` segments; a run over a bundle of segments returns the kept elements (in order) and how many each
  segment kept, so results are reassembled in the input order whatever device ran what. Work: 2 comparisons
  per element; bytes in = the segment, out = kept part (estimated with `selectivity`).
- `apps.pbf_runtime.pbf(values, low, high, devices=2)` runs it on the asynchronous runtime (seed 003): segments
  to whichever device is free.

Reference: NumPy boolean masking (`pbf_reference`).
"""

from __future__ import annotations

import numpy as np

from apportion.errors import InputError
from apportion.platform.cuda import CudaKernel
from apportion.platform.device import KernelSet, Work
from apportion.schedule.pool import Workload, chunk_bounds, contiguous_runs


def _cpu_filter(values, chunk_lengths, low, high):
    from apportion.apps._pbf_kernels import filter_range

    return filter_range(values, chunk_lengths, low, high)


# the GPU implementation: numba-cuda kernels (apps/_pbf_cuda.py; the CUDA simulator runs them in CI)
PBF_KERNELS = KernelSet(cpu=_cpu_filter, gpu=CudaKernel("apportion.apps._pbf_cuda", "filter_range_cuda"), name="pbf")


def pbf_reference(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Sequential reference."""
    values = np.asarray(values)
    return values[(values >= low) & (values < high)]


class FilterWorkload(Workload):
    """Filter `values` (1-D) by low <= v < high in `n_chunks` segments (values None + size: size-only)."""

    def __init__(self, values: np.ndarray | None, low: float, high: float, n_chunks: int, *,
                 size: int | None = None, itemsize: int = 4, selectivity: float = 0.5):
        self.name = "pbf"
        self.low, self.high = low, high
        if values is None:
            self.values = None
            self.size = int(size or 0)
            self.itemsize = itemsize
            self.materialized = False
        else:
            self.values = np.ascontiguousarray(values)
            if self.values.ndim != 1:
                raise InputError("pbf: values must be one-dimensional")
            self.size = int(self.values.size)
            self.itemsize = self.values.itemsize
            self.materialized = True
            self.low = self.values.dtype.type(low)
            self.high = self.values.dtype.type(high)
        self.selectivity = float(selectivity)
        self.bounds = chunk_bounds(self.size, int(n_chunks))
        self.n_chunks = int(n_chunks)
        self.kernels = PBF_KERNELS
        self._parts: dict[int, np.ndarray] = {}

    def _chunks(self, chunk_ids):
        return [c for s, e in contiguous_runs(chunk_ids) for c in range(s, e)]

    def payload(self, chunk_ids):
        chunks = self._chunks(chunk_ids)
        pieces = [self.values[self.bounds[c]:self.bounds[c + 1]] for c in chunks]
        lengths = np.array([p.size for p in pieces], dtype=np.int64)
        values = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        return np.ascontiguousarray(values), lengths, self.low, self.high

    def store(self, chunk_ids, result) -> None:
        kept_values, kept = result
        kept_values = np.asarray(kept_values)
        position = 0
        for c, k in zip(self._chunks(chunk_ids), np.asarray(kept)):
            self._parts[c] = kept_values[position:position + int(k)]
            position += int(k)

    def work(self, chunk_ids) -> Work:
        elements = float(sum(self.bounds[e] - self.bounds[s] for s, e in contiguous_runs(chunk_ids)))
        return Work(flops=2.0 * elements, bytes_in=elements * self.itemsize,
                    bytes_out=elements * self.itemsize * self.selectivity, chunks=len(chunk_ids),
                    workload=self.name)

    def reset(self) -> None:
        self._parts = {}

    def result(self) -> np.ndarray:
        return np.concatenate([self._parts[c] for c in range(self.n_chunks)])
