"""The project's HASS scheduler (seed 000 ch. 3) as a baseline of seed 004's spmm threshold.

A×A by rows is divisible: `SpMMRowsWorkload` cuts it into chunks of rows of nearly equal work (products, §IV's
L_AB), and HASS (`schedule.policies.hass`, unchanged) runs rounds of the whole product on the pair's two
devices: profiling, proportional buffers, stealing, adaptation (by default from each device's fitted per-run and
per-chunk costs). The split it settles on is a threshold: the CPU's share of the work, in percent. Finding it
costs every round it ran, each a whole product (the estimate's `seconds`: their makespans), which is why the
paper's sampling exists.

On a simulated pair HASS sees the devices priced as the split run prices them (`SpMMRowsWorkload.work_on`): the
GPU's lane operations (a warp waits for its longest row, `split_spmm.gpu_operations`) and a copy of B every run,
the CPU's products plus rows — as a real scheduler timing real devices would see whatever they do inside. (Before,
HASS saw one FLOP count for both and the B copy charged to the CPU's memory too: a different pair from the one
its threshold was judged on.)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from apportion.apps._split_spmm_kernels import gustavson_rows
from apportion.apps.split_common import DevicePair
from apportion.apps.split_spmm import (NONZERO_BYTES, POINTER_BYTES, WORKLOAD, gpu_operations, split_row,
                                       work_per_row)
from apportion.errors import InputError
from apportion.platform.device import KIND_CPU, KIND_GPU, KernelSet, Work
from apportion.platform.platform import Platform
from apportion.schedule.api import run_schedule
from apportion.schedule.pool import Workload, contiguous_runs
from apportion.schedule.threshold_common import ThresholdEstimate

#: chunks of the product (HASS's split moves by 1/CHUNKS of the work)
CHUNKS = 50
#: rounds HASS runs (issue 14 measures HASS at round 6)
ROUNDS = 6


def _row_ranges_product(ptr, idx, val, n, ranges):
    """The rows of each [lo, hi) of `ranges` of A×A (one `gustavson_rows` call per range)."""
    keep = np.ones(n, np.uint8)
    return [gustavson_rows(ptr, idx, val, ptr, idx, val, n, int(lo), int(hi), keep) for lo, hi in ranges]


ROW_RANGES_KERNELS = KernelSet(cpu=_row_ranges_product, name="gustavson_row_ranges")


class SpMMRowsWorkload(Workload):
    """A×A cut into `n_chunks` row ranges of nearly equal work (fewer when single rows outweigh a chunk)."""

    def __init__(self, matrix: sp.csr_matrix, n_chunks: int = CHUNKS):
        self.matrix = matrix
        n = matrix.shape[0]
        self.row_work = work_per_row(matrix)
        bounds = np.unique([split_row(self.row_work, 100.0 * k / n_chunks) for k in range(n_chunks + 1)])
        bounds[0], bounds[-1] = 0, n
        self.bounds = np.unique(bounds)
        if self.bounds.shape[0] < 3:
            raise InputError("spmm hass: the product needs at least two rows with work to be split")
        self.n_chunks = int(self.bounds.shape[0] - 1)
        self.prefix = np.concatenate(([0], np.cumsum(self.row_work)))
        self.kernels = ROW_RANGES_KERNELS
        self.name = WORKLOAD
        self._parts: dict[int, tuple] = {}

    def _ranges(self, chunk_ids: Sequence[int]) -> list[tuple[int, int]]:
        return [(int(self.bounds[s]), int(self.bounds[e])) for s, e in contiguous_runs(chunk_ids)]

    def payload(self, chunk_ids):
        m = self.matrix
        return m.indptr, m.indices, m.data, m.shape[0], self._ranges(chunk_ids)

    def store(self, chunk_ids, result) -> None:
        for (s, e), part in zip(contiguous_runs(chunk_ids), result):
            self._parts[s] = (e, part)

    def work(self, chunk_ids) -> Work:
        ptr = self.matrix.indptr
        products = rows = nonzeros = 0
        for lo, hi in self._ranges(chunk_ids):
            products += int(self.prefix[hi] - self.prefix[lo])
            rows += hi - lo
            nonzeros += int(ptr[hi] - ptr[lo])
        return Work(flops=float(products + rows),
                    bytes_in=NONZERO_BYTES * (nonzeros + int(ptr[-1])) + POINTER_BYTES * rows,
                    bytes_out=NONZERO_BYTES * products + POINTER_BYTES * rows,
                    chunks=len(chunk_ids), workload=self.name)

    def work_on(self, device, chunk_ids) -> Work:
        """What the split run charges each side (`split_spmm`), so that HASS and the threshold it is compared
        with see the same devices: a simulated GPU counts lane operations (a warp waits for its longest row;
        `split_spmm.gpu_operations` per contiguous range) and copies all of B every run; a host device counts
        products plus rows and copies nothing. Other devices (real ones time themselves): `work`."""
        role = getattr(device, "role", None)
        if role not in (KIND_GPU, KIND_CPU):
            return self.work(chunk_ids)
        ranges = self._ranges(chunk_ids)
        rows = sum(hi - lo for lo, hi in ranges)
        if role == KIND_CPU:
            products = sum(int(self.prefix[hi] - self.prefix[lo]) for lo, hi in ranges)
            return Work(flops=float(products + rows), chunks=len(chunk_ids), workload=self.name)
        ptr = self.matrix.indptr
        n = self.matrix.shape[0]
        lanes = sum(gpu_operations(self.row_work[lo:hi]) for lo, hi in ranges)
        nonzeros = sum(int(ptr[hi] - ptr[lo]) for lo, hi in ranges)
        products = sum(int(self.prefix[hi] - self.prefix[lo]) for lo, hi in ranges)
        return Work(flops=float(lanes), bytes_in=NONZERO_BYTES * (nonzeros + int(ptr[-1])) + 2 * POINTER_BYTES * n,
                    bytes_out=NONZERO_BYTES * products + POINTER_BYTES * rows, chunks=len(chunk_ids),
                    workload=self.name)

    def reset(self) -> None:
        self._parts = {}

    def products_share(self, chunk_ids: Sequence[int]) -> float:
        """The percentage of the product's work (products) in `chunk_ids`, to one decimal."""
        done = sum(int(self.prefix[hi] - self.prefix[lo]) for lo, hi in self._ranges(sorted(set(chunk_ids))))
        return float(round(100.0 * done / max(int(self.prefix[-1]), 1), 1))

    def result(self) -> sp.csr_matrix:
        """A×A from the stored row ranges (in row order)."""
        n = self.matrix.shape[0]
        pointers, indices, values, at = [np.zeros(1, np.int64)], [], [], 0
        start = 0
        while start < self.n_chunks:
            if start not in self._parts:
                raise RuntimeError(f"chunk {start} never stored")
            end, (ptr, idx, val, _products) = self._parts[start]
            pointers.append(ptr[1:] + at)
            at += int(ptr[-1])
            indices.append(idx)
            values.append(val)
            start = end
        return sp.csr_matrix((np.concatenate(values), np.concatenate(indices), np.concatenate(pointers)),
                             shape=(n, n))


def hass_spmm_threshold(matrix: sp.csr_matrix, pair: DevicePair, *, rounds: int = ROUNDS,
                        chunks: int = CHUNKS) -> ThresholdEstimate:
    """HASS's split of A×A after `rounds` rounds on the pair: threshold = the CPU's share of the work in the last
    round (percent); seconds = the rounds' makespans together (each a whole product)."""
    platform = Platform(devices=[pair.cpu, pair.gpu], name=pair.platform_name)
    workload = SpMMRowsWorkload(matrix, chunks)
    schedule = run_schedule(workload, platform, "hass", rounds, compute=not pair.simulated)
    seconds = float(sum(schedule.makespans)) + float(schedule.training_s)
    shares = [workload.products_share([c for d, run in record.runs if d == 0 for c in run])
              for record in schedule.rounds]
    return ThresholdEstimate(threshold=shares[-1], seconds=seconds, method="hass", runs=len(schedule.makespans),
                             tried={share: float(t) for share, t in zip(shares, schedule.makespans)},
                             sample={"rounds": len(schedule.makespans), "chunks": workload.n_chunks,
                                     "converged_at": schedule.converged_at})
