"""Workloads as pools of equal chunks: the partitioner and the load bundler of seed 000 ch. 3.2.

A *workload* is one divisible load (ch. 3.2: a load from the task pool) cut into `n_chunks` independent
sub-loads (the *partitioner*, ch. 3.2.1). Schedulers only see chunk ids 0..n_chunks-1; a workload turns a set of
chunk ids into kernel arguments (`payload`), stores the result of a run (`store`), and says how much work a set
of chunks is (`work`, for performance models). Giving a device several chunks as one run is *load bundling*
(ch. 3.2.2): one transfer and one kernel launch for all of them; `contiguous_runs` and `RowWorkload.payload`
merge chunks into as few contiguous row ranges as possible.

`RowWorkload` is the generic case used by `run_divisible`: an array split by rows, a kernel mapping a block of
rows to the same number of result rows.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from apportion.errors import InputError
from apportion.platform.device import KernelSet, Work


def chunk_bounds(n_items: int, n_chunks: int) -> np.ndarray:
    """Boundaries (n_chunks + 1, int64) of `n_chunks` nearly equal contiguous ranges of `n_items` items."""
    if n_chunks < 1:
        raise InputError(f"chunks: must be >= 1, got {n_chunks}")
    if n_items < n_chunks:
        raise InputError(f"chunks: cannot cut {n_items} items into {n_chunks} non-empty chunks")
    return (np.arange(n_chunks + 1, dtype=np.int64) * n_items) // n_chunks


def contiguous_runs(chunk_ids: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted chunk ids grouped into half-open runs [first, last + 1)."""
    ids = np.sort(np.asarray(chunk_ids, dtype=np.int64))
    if ids.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [ids.size]))
    return [(int(ids[s]), int(ids[e - 1]) + 1) for s, e in zip(starts, ends)]


def makespan_counts(speeds: Sequence[float], total: int) -> np.ndarray:
    """Integer counts summing to `total` that minimise the makespan max_d counts[d] / speeds[d] of equal chunks
    (Jefferson's divisor rounding: each chunk beyond the floors of the exact shares goes to the device that
    would finish it first; ties to the lower index). Largest-remainder rounding can be a whole chunk worse:
    speeds 3:1:1 and 12 chunks give it 7/3/2 (a slow device finishes at 15 units) where 8/2/2 finishes at 13.3.
    Devices of speed 0 (or not finite) get nothing unless every device has 0 (then even)."""
    s = np.asarray(speeds, dtype=np.float64)
    s = np.where(np.isfinite(s) & (s > 0), s, 0.0)
    if s.sum() <= 0:
        s = np.ones_like(s)
    counts = np.floor(s / s.sum() * total).astype(np.int64)
    live = np.flatnonzero(s > 0)
    for _ in range(total - int(counts.sum())):
        finish = (counts[live] + 1) / s[live]
        counts[live[int(np.argmin(finish))]] += 1
    return counts


class Workload:
    """Base class: a load cut into chunks. Subclasses set `name`, `n_chunks`, `kernels` and implement
    `payload`, `store`, `work`, `result`; `materialized` is False for size-only loads (simulation without data).
    """

    name: str = "workload"
    n_chunks: int = 1
    kernels: KernelSet | None = None
    materialized: bool = True

    def payload(self, chunk_ids: Sequence[int]) -> tuple:
        """Kernel arguments for one run over `chunk_ids` (one bundle)."""
        raise NotImplementedError

    def store(self, chunk_ids: Sequence[int], result: Any) -> None:
        """Keep the result of a run over `chunk_ids` (called once per chunk set that completed)."""
        raise NotImplementedError

    def work(self, chunk_ids: Sequence[int]) -> Work:
        """FLOPs and bytes of a run over `chunk_ids` (what performance models charge)."""
        raise NotImplementedError

    def work_on(self, device, chunk_ids: Sequence[int]) -> Work:
        """What `device`'s model charges for a run over `chunk_ids`: `work(chunk_ids)`, unless the workload prices
        device kinds apart (apps/hass_spmm.py: a GPU's warps wait for their longest row, a host copies nothing)."""
        return self.work(chunk_ids)

    def reset(self) -> None:
        """Forget stored results (before a new round of the same load)."""

    def result(self) -> Any:
        """The assembled result once every chunk has been stored."""
        raise NotImplementedError


class RowWorkload(Workload):
    """An array cut by rows into `n_chunks` chunks; `kernels` map a block of rows to as many result rows.

    `flops_per_row`, `bytes_in_per_row`, `bytes_out_per_row` describe the work for simulated devices (defaults:
    one FLOP per element, the block's bytes in and out).
    """

    def __init__(self, data: np.ndarray | None, kernels, n_chunks: int, *, name: str = "rows",
                 n_rows: int | None = None, flops_per_row: float | None = None,
                 bytes_in_per_row: float | None = None, bytes_out_per_row: float | None = None,
                 extra_args: tuple = ()):
        self.data = None if data is None else np.asarray(data)
        if self.data is not None and self.data.ndim == 0:
            raise InputError("data: needs at least one dimension to be split into chunks")
        self.n_rows = int(self.data.shape[0]) if self.data is not None else int(n_rows or 0)
        self.bounds = chunk_bounds(self.n_rows, int(n_chunks))
        self.n_chunks = int(n_chunks)
        self.kernels = None if kernels is None else KernelSet.coerce(kernels)
        self.name = name
        self.materialized = self.data is not None
        row_elements = 1 if self.data is None else int(np.prod(self.data.shape[1:], dtype=np.int64))
        row_bytes = row_elements * (8 if self.data is None else self.data.itemsize)
        self.flops_per_row = float(row_elements if flops_per_row is None else flops_per_row)
        self.bytes_in_per_row = float(row_bytes if bytes_in_per_row is None else bytes_in_per_row)
        self.bytes_out_per_row = float(row_bytes if bytes_out_per_row is None else bytes_out_per_row)
        self.extra_args = tuple(extra_args)
        self._parts: dict[int, np.ndarray] = {}

    def rows_of(self, chunk_ids: Sequence[int]) -> int:
        return int(sum(self.bounds[e] - self.bounds[s] for s, e in contiguous_runs(chunk_ids)))

    def payload(self, chunk_ids):
        runs = contiguous_runs(chunk_ids)
        blocks = [self.data[self.bounds[s]:self.bounds[e]] for s, e in runs]
        block = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
        return (np.ascontiguousarray(block), *self.extra_args)

    def store(self, chunk_ids, result) -> None:
        result = np.asarray(result)
        offset = 0
        for s, e in contiguous_runs(chunk_ids):
            for c in range(s, e):
                rows = int(self.bounds[c + 1] - self.bounds[c])
                self._parts[c] = result[offset:offset + rows]
                offset += rows
        if offset != result.shape[0]:
            raise InputError(f"kernel returned {result.shape[0]} rows for {offset} input rows")

    def work(self, chunk_ids) -> Work:
        rows = self.rows_of(chunk_ids)
        return Work(flops=rows * self.flops_per_row, bytes_in=rows * self.bytes_in_per_row,
                    bytes_out=rows * self.bytes_out_per_row, chunks=len(chunk_ids), workload=self.name)

    def reset(self) -> None:
        self._parts = {}

    def result(self) -> np.ndarray:
        missing = [c for c in range(self.n_chunks) if c not in self._parts]
        if missing:
            raise RuntimeError(f"chunks never stored: {missing[:10]}")
        return np.concatenate([self._parts[c] for c in range(self.n_chunks)])
