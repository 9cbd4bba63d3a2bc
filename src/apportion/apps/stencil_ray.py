"""The distributed stencil runtime on Ray (seed 002 ch. 5, HG's master/worker over a cluster).

One Ray actor per device holds that device's rectangles (blocks with a one-cell ghost ring) for the whole run;
the grid values never return to the driver until the end. Each iteration, for every actor:

1. `send_zones()` copies the cells other actors need (its *send zones*) into one message per destination
   actor (`num_returns = p`: destination j receives only the object reference addressed to it);
2. `step(params, *incoming)` writes the incoming halos into its *ghost zones*, copies halos between its own
   blocks, and runs the kernel (through a `CPUDevice`, wrapped in a `ThrottledDevice` when the platform's
   device was throttled) on each block.

The driver only passes object references: halo arrays go from actor to actor through Ray's object store. Calls
on one actor run in submission order, so iteration k+1's send zones are read after iteration k's update; the
driver waits for every actor's step before starting the next iteration (bulk synchronous), which also gives
the per-iteration trace. `communication_s` is the actor's own halo work (send-zone copies and ghost fills);
the transport between actors is part of `wall_s`. Kernels take `(padded_block, out, *params)` and return the
new interior, like the threaded runtime's; they must be importable on the workers (apportion's are).

`RayGaussRuntime` runs Gaussian elimination with partial pivoting (seed 002 §5.5, Algorithm 5-2) on the same
kind of actors: each holds its device's blocks (no ghost ring) and, per elimination step k, the driver passes
references through three bulk-synchronous phases — every actor's `column(k)` (its segments of column k), every
actor's `rows(k, *columns)` (each actor assembles column k, picks the pivot — first largest |a_ik| — itself and
returns its segments of rows k and pivot), every actor's `update(k, *columns, *rows)` (assemble those rows, swap
them in its own blocks, form the pivot row and the multipliers, run the elimination kernel on each block).
"""

from __future__ import annotations

import time

import numpy as np

from apportion.apps.stencil_runtime import StencilTrace, gather, make_blocks
from apportion.errors import InputError
from apportion.partitioning.grid.rectangles import Rectangles
from apportion.perfmodel.clock import throttle_factor
from apportion.platform.cpu import CPUDevice
from apportion.platform.device import KernelSet
from apportion.platform.ray import connect, kill_actors, start_actors
from apportion.platform.throttled import ThrottledDevice
from apportion.ui import track


class StencilWorker:
    """Holds blocks {index: padded array} of one device and their halo plans."""

    def __init__(self, blocks, local_copies, outgoing, incoming_order, factor, p):
        self.blocks = {index: np.array(data) for index, data in blocks.items()}
        self.scratch = {index: np.empty((d.shape[0] - 2, d.shape[1] - 2)) for index, d in self.blocks.items()}
        self.local_copies = local_copies      # (src block, src slices, dst block, dst slices)
        self.outgoing = outgoing              # per destination: [(src block, src slices)]
        self.incoming = incoming_order        # per source: [(dst block, dst slices)]
        self.p = p
        device = CPUDevice(name="worker")
        self.device = ThrottledDevice(device, factor) if factor > 1 else device

    def ready(self):
        return True

    def send_zones(self):
        messages = [[self.blocks[b][src].copy() for b, src in self.outgoing[d]] for d in range(self.p)]
        return messages[0] if self.p == 1 else tuple(messages)

    def step(self, kernels, params, *incoming):
        start = time.perf_counter()
        for source, arrays in enumerate(incoming):
            for (b, dst), values in zip(self.incoming[source], arrays):
                self.blocks[b][dst] = values
        for src_block, src, dst_block, dst in self.local_copies:
            self.blocks[dst_block][dst] = self.blocks[src_block][src]
        communication = time.perf_counter() - start
        compute = 0.0
        for index, data in self.blocks.items():
            execution = self.device.run(kernels, data, self.scratch[index], *params)
            compute += execution.timing.total_s
            data[1:-1, 1:-1] = execution.result
        return compute, communication

    def warm_up(self, kernels, params):
        """Compile (or load from Numba's cache) the kernel outside the timed iterations, unthrottled,
        on copies of the blocks."""
        kernel = KernelSet.coerce(kernels).cpu
        for index, data in self.blocks.items():
            kernel(data.copy(), np.empty_like(self.scratch[index]), *params)
        return True

    def values(self):
        return {index: data[1:-1, 1:-1].copy() for index, data in self.blocks.items()}


def _throttle(device) -> float:
    return throttle_factor(device)


def _connect_real_devices(devices, p: int, address, local_cpus):
    """Check the devices (one per processor, real only) and connect to Ray; returns the ray module."""
    if len(devices) != p:
        raise InputError(f"{len(devices)} devices but the partition has {p} processors")
    if any(getattr(d, "is_simulated", False) for d in devices):
        raise InputError("the Ray stencil runtime runs real devices only (simulated platforms run locally)")
    connect(address, local_cpus=local_cpus or max(2, len(devices)))
    import ray

    return ray


def _start_workers(ray, worker: type, arguments: list[tuple]) -> list:
    """One actor of class `worker` per argument tuple; waits until all are up (UnavailableError otherwise)."""
    # several devices may share a small cluster's CPUs: reserve a fair fraction each, never more than one
    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    return start_actors(worker, arguments, num_cpus=min(1.0, cpus / max(1, len(arguments))), timeout_s=300,
                        what="Ray stencil workers")


class GaussWorker:
    """Holds the blocks [(row0, col0, array)] of one device of an n × n elimination."""

    def __init__(self, blocks, n, factor):
        self.blocks = [(int(r0), int(c0), np.array(data, dtype=np.float64)) for r0, c0, data in blocks]
        self.n = int(n)
        device = CPUDevice(name="worker")
        self.device = ThrottledDevice(device, factor) if factor > 1 else device
        self.halo_s = 0.0  # this step's own communication work so far

    def ready(self):
        return True

    def column(self, k):
        """This actor's segments of column k, rows ≥ k: [(first row, values)]."""
        start = time.perf_counter()
        out = [(max(r0, k), data[max(0, k - r0):, k - c0].copy()) for r0, c0, data in self.blocks
               if c0 <= k < c0 + data.shape[1] and r0 + data.shape[0] > k]
        self.halo_s = time.perf_counter() - start
        return out

    def _assemble_column(self, k, columns):
        column = np.zeros(self.n)
        for segments in columns:
            for first, values in segments:
                column[first:first + values.shape[0]] = values
        return column

    def _pivot(self, k, column):
        return k + int(np.argmax(np.abs(column[k:])))

    def rows(self, k, *columns):
        """Pick the pivot from the gathered column k; return this actor's segments of rows k and pivot:
        (pivot, [(col0, row k values)], [(col0, pivot row values)])."""
        start = time.perf_counter()
        pivot = self._pivot(k, self._assemble_column(k, columns))
        mine_k = [(c0, data[k - r0].copy()) for r0, c0, data in self.blocks if r0 <= k < r0 + data.shape[0]]
        mine_p = [(c0, data[pivot - r0].copy()) for r0, c0, data in self.blocks
                  if r0 <= pivot < r0 + data.shape[0]] if pivot != k else []
        self.halo_s += time.perf_counter() - start
        return pivot, mine_k, mine_p

    def update(self, kernels, k, p, *parts):
        """Swap rows k and pivot in this actor's blocks, form the pivot row and the multipliers, and
        eliminate step k on every block. Returns (compute s, communication s, pivot)."""
        start = time.perf_counter()
        columns, rows = parts[:p], parts[p:]
        column = self._assemble_column(k, columns)
        pivot = rows[0][0]
        row_k = np.zeros(self.n)
        row_p = np.zeros(self.n)
        for _, segments_k, segments_p in rows:
            for c0, values in segments_k:
                row_k[c0:c0 + values.shape[0]] = values
            for c0, values in segments_p:
                row_p[c0:c0 + values.shape[0]] = values
        if pivot != k:
            for r0, c0, data in self.blocks:
                w = data.shape[1]
                if r0 <= k < r0 + data.shape[0]:
                    data[k - r0] = row_p[c0:c0 + w]
                if r0 <= pivot < r0 + data.shape[0]:
                    data[pivot - r0] = row_k[c0:c0 + w]
            column[[k, pivot]] = column[[pivot, k]]
            pivot_row = row_p
        else:
            pivot_row = row_k
        multipliers = np.zeros(self.n)
        if pivot_row[k] != 0:
            multipliers[k + 1:] = column[k + 1:] / pivot_row[k]
        communication = self.halo_s + time.perf_counter() - start
        compute = 0.0
        for r0, c0, data in self.blocks:
            done = self.device.run(kernels, data, r0, c0, k, multipliers, pivot_row)
            if done.result is not data:  # a GPU updated its copy of the block
                data[...] = done.result
            compute += done.timing.total_s
        return compute, communication, pivot

    def warm_up(self, kernels):
        """Compile (or load from Numba's cache) the kernel outside the timed steps, on copies."""
        kernel = KernelSet.coerce(kernels).cpu
        for r0, c0, data in self.blocks:
            kernel(data.copy(), r0, c0, 0, np.zeros(self.n), np.zeros(self.n))
        return True

    def values(self):
        return [(r0, c0, data.copy()) for r0, c0, data in self.blocks]


class RayStencilRuntime:
    """Same contract as `StencilRuntime` (run → StencilTrace, values, close), with one Ray actor per device.

    Joins the cluster at `address` (or RAY_ADDRESS), else starts a local one with `local_cpus` CPUs, unless Ray
    is already initialised. Only real host devices can be placed on actors (a throttled device keeps its
    factor); simulated devices raise InputError."""

    def __init__(self, devices, rect: Rectangles, values: np.ndarray, boundary: float = 0.0, *,
                 address: str | None = None, local_cpus: int | None = None):
        self.devices = list(devices)
        ray = _connect_real_devices(self.devices, rect.p, address, local_cpus)
        self._ray = ray
        self.rect = rect
        p = rect.p
        blocks = make_blocks(rect, values, boundary)
        by_owner = [[b for b in blocks if b.owner == i] for i in range(p)]
        outgoing = [[[] for _ in range(p)] for _ in range(p)]   # [source][destination] -> [(src block, slices)]
        incoming = [[[] for _ in range(p)] for _ in range(p)]   # [destination][source] -> [(dst block, slices)]
        local = [[] for _ in range(p)]
        for b in blocks:
            for other, src, dst in b.receives:
                if other.owner == b.owner:
                    local[b.owner].append((other.index, src, b.index, dst))
                else:
                    outgoing[other.owner][b.owner].append((other.index, src))
                    incoming[b.owner][other.owner].append((b.index, dst))
        self.workers = _start_workers(ray, StencilWorker, [
            ({b.index: b.data for b in by_owner[i]}, local[i], outgoing[i], incoming[i], _throttle(self.devices[i]), p)
            for i in range(p)])
        self.blocks = blocks

    def run(self, kernels, params, steps: int) -> StencilTrace:
        """`steps` bulk-synchronous iterations of `kernels(padded, out, *params)` on every block."""
        ray = self._ray
        p = len(self.workers)
        compute = np.zeros((steps, p))
        communication = np.zeros((steps, p))
        ray.get([w.warm_up.remote(kernels, tuple(params)) for w in self.workers])
        wall = time.perf_counter()
        for step in track(range(steps), "iterations"):
            zones = [w.send_zones.options(num_returns=p).remote() if p > 1 else [w.send_zones.remote()]
                     for w in self.workers]
            results = ray.get([w.step.remote(kernels, tuple(params), *[zones[source][destination]
                                                                       for source in range(p)])
                               for destination, w in enumerate(self.workers)])
            for i, (seconds, halo) in enumerate(results):
                compute[step, i] = seconds
                communication[step, i] = halo
        halo_items = np.zeros(p, dtype=np.int64)
        for b in self.blocks:
            halo_items[b.owner] += b.items_received
        return StencilTrace([d.name for d in self.devices], compute, communication, halo_items,
                            wall_s=time.perf_counter() - wall, simulated=False)

    def values(self) -> np.ndarray:
        parts = self._ray.get([w.values.remote() for w in self.workers])
        for part in parts:
            for b in self.blocks:
                if b.index in part:
                    b.data[1:-1, 1:-1] = part[b.index]
        return gather(self.blocks, self.rect.rows, self.rect.cols)

    def close(self) -> None:
        kill_actors(getattr(self, "workers", []))
        self.workers = []


class RayGaussRuntime:
    """Gaussian elimination with partial pivoting (seed 002 §5.5, Algorithm 5-2) with one Ray actor per device
    holding its blocks of the n × n matrix; see the module docstring for the three phases of a step.

    `run(steps)` → (StencilTrace, row permutation); `values()` → the packed LU so far; `close()` ends the actors.
    Connection and device rules as `RayStencilRuntime` (simulated devices raise InputError)."""

    def __init__(self, devices, rect: Rectangles, matrix: np.ndarray, *, address: str | None = None,
                 local_cpus: int | None = None):
        self.devices = list(devices)
        ray = _connect_real_devices(self.devices, rect.p, address, local_cpus)
        self._ray = ray
        self.rect = rect
        self.n = int(matrix.shape[0])
        p = rect.p
        self.blocks = [(int(rect.owner[j]), int(rect.row[j]), int(rect.col[j]), int(rect.height[j]),
                        int(rect.width[j])) for j in range(rect.pieces)]
        arguments = []
        for i in range(p):
            mine = [(r0, c0, matrix[r0:r0 + h, c0:c0 + w].copy()) for owner, r0, c0, h, w in self.blocks
                    if owner == i]
            arguments.append((mine, self.n, _throttle(self.devices[i])))
        self.workers = _start_workers(ray, GaussWorker, arguments)

    def received_items(self, k: int) -> np.ndarray:
        """Values each device receives at step k: its columns of the pivot row and its rows of the multipliers
        (the same count as the threaded runtime's)."""
        items = np.zeros(len(self.workers), dtype=np.int64)
        for owner, r0, c0, h, w in self.blocks:
            items[owner] += max(0, c0 + w - max(c0, k + 1)) + max(0, r0 + h - max(r0, k + 1))
        return items

    def run(self, kernels, steps: int):
        """`steps` elimination steps (bulk synchronous: the driver waits for every update before the next)."""
        ray = self._ray
        p = len(self.workers)
        compute = np.zeros((steps, p))
        communication = np.zeros((steps, p))
        halo = np.zeros(p, dtype=np.int64)
        perm = np.arange(self.n)
        ray.get([w.warm_up.remote(kernels) for w in self.workers])
        wall = time.perf_counter()
        for k in track(range(steps), "elimination steps"):
            columns = [w.column.remote(k) for w in self.workers]
            rows = [w.rows.remote(k, *columns) for w in self.workers]
            results = ray.get([w.update.remote(kernels, k, p, *columns, *rows) for w in self.workers])
            pivots = {pivot for _, _, pivot in results}
            if len(pivots) != 1:  # pragma: no cover - every actor sees the same column
                raise RuntimeError(f"actors disagree on the pivot of step {k}: {sorted(pivots)}")
            pivot = pivots.pop()
            if pivot != k:
                perm[[k, pivot]] = perm[[pivot, k]]
            for i, (seconds, halo_s, _) in enumerate(results):
                compute[k, i] = seconds
                communication[k, i] = halo_s
            halo = np.maximum(halo, self.received_items(k))
        trace = StencilTrace([d.name for d in self.devices], compute, communication, halo,
                             wall_s=time.perf_counter() - wall, simulated=False)
        return trace, perm

    def values(self) -> np.ndarray:
        lu = np.empty((self.n, self.n))
        for part in self._ray.get([w.values.remote() for w in self.workers]):
            for r0, c0, data in part:
                lu[r0:r0 + data.shape[0], c0:c0 + data.shape[1]] = data
        return lu

    def close(self) -> None:
        kill_actors(getattr(self, "workers", []))
        self.workers = []
