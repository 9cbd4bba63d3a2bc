"""A device's part of a distributed-worklist run kept on a CUDA device: the GPU worker of BFS, SSSP, worklist CC
and PageRank (seed 003 §4.3, §4.5; issue 17).

The graph, the owner map, the device's vertex values (its own and its halo copies) and its worklist live on the
GPU for the whole run; only the items of a batch cross the bus. The worklist is a device-side circular buffer of
n slots, a vertex in it at most once (a flag claimed by atomic compare-and-swap), so it never overflows; head and
tail are ever-growing counters taken modulo n. One batch (`DeviceWorklist.step`):

1. the incoming items (from the router) are copied in and applied, one thread each: `atomic.min` on the value,
   and the vertex queued when it was lowered;
2. the queued vertices (all of them: a GPU wants the whole frontier) are copied out of the circular buffer
   into a frontier array, their flags cleared, then relaxed, one thread per vertex: for every edge the
   neighbour's value is lowered with `atomic.min` to value + weight (SSSP), value + 1 (BFS levels) or the value
   itself (CC labels); a lowered
   neighbour this device owns is queued, any other is written to the out buffers (the item for its owner) after
   its halo copy was lowered — the halo copy filter of §4.5;
3. the counters (items pushed, items out, edges) and the new tail are copied back, then the out items.

The counts follow the CPU kernels' contract (apps/_bfs_kernels.py), so the threads transport counts work the
same way for both kinds of device. A GPU worker does not defer items under soft priority: it processes its
whole queue every batch (soft priority is a hint for how much to do at once; the fixpoint is the same), and
reports no deferred items. The relaxation is label-correcting and monotone, so the values reached do not depend
on the order of the atomics.

Imported only when a CUDA device runs a worklist program (this module imports numba.cuda). Runs under the CUDA
simulator (NUMBA_ENABLE_CUDASIM=1) in the tests.
"""

from __future__ import annotations

import time

import numpy as np
from numba import cuda

#: threads per block
BLOCK = 128
# counters on the device
PUSHED, OUT, EDGES = 0, 1, 2
# what crossing an edge does to a value
LEVELS, DISTANCES, LABELS = 0, 1, 2


@cuda.jit(device=True)
def _push(v, flags, queue, tail, counters):
    """Queue v unless it is queued already (flag 0 -> 1 by compare-and-swap); count the new item."""
    if cuda.atomic.cas(flags, v, 0, 1) == 0:
        slot = cuda.atomic.add(tail, 0, 1)
        queue[slot % queue.shape[0]] = v
        cuda.atomic.add(counters, PUSHED, 1)


@cuda.jit(cache=False)
def _apply_incoming(in_v, in_d, values, flags, queue, tail, counters):
    i = cuda.grid(1)
    if i < in_v.shape[0]:
        v = in_v[i]
        value = in_d[i]
        if value < cuda.atomic.min(values, v, value):
            _push(v, flags, queue, tail, counters)


@cuda.jit(cache=False)
def _take_frontier(queue, head, count, flags, frontier):
    i = cuda.grid(1)
    if i < count:
        v = queue[(head + i) % queue.shape[0]]
        frontier[i] = v
        flags[v] = 0  # from now on a lowering of v queues it again


@cuda.jit(cache=False)
def _relax(frontier, count, indptr, indices, weights, mode, owner, me, values, flags, queue, tail, out_v, out_d,
           out_dest, counters):
    i = cuda.grid(1)
    if i < count:
        v = frontier[i]
        base = values[v]
        begin = indptr[v]
        end = indptr[v + 1]
        for e in range(begin, end):
            u = indices[e]
            if mode == LEVELS:
                candidate = base + 1
            elif mode == DISTANCES:
                candidate = base + weights[e]
            else:
                candidate = base
            if candidate < cuda.atomic.min(values, u, candidate):
                if owner[u] == me:
                    _push(u, flags, queue, tail, counters)
                else:
                    slot = cuda.atomic.add(counters, OUT, 1)
                    out_v[slot] = u
                    out_d[slot] = candidate
                    out_dest[slot] = owner[u]
        cuda.atomic.add(counters, EDGES, end - begin)


@cuda.jit(cache=False)
def _add_incoming(in_v, in_r, residual, epsilon, flags, queue, tail, counters):
    i = cuda.grid(1)
    if i < in_v.shape[0]:
        v = in_v[i]
        if abs(cuda.atomic.add(residual, v, in_r[i]) + in_r[i]) >= epsilon:
            _push(v, flags, queue, tail, counters)


@cuda.jit(cache=False)
def _push_residuals(frontier, count, indptr, indices, share, owner, me, residual, ranks, epsilon, flags, queue, tail,
                    out_v, out_dest, counters):
    i = cuda.grid(1)
    if i < count:
        v = frontier[i]
        mass = residual[v]
        cuda.atomic.add(residual, v, -mass)  # what neighbours add meanwhile stays
        ranks[v] += mass  # v is in the frontier once: no other thread writes its rank
        give = mass * share[v]
        begin = indptr[v]
        end = indptr[v + 1]
        for e in range(begin, end):
            u = indices[e]
            before = cuda.atomic.add(residual, u, give)
            if owner[u] == me:
                if abs(before + give) >= epsilon:
                    _push(u, flags, queue, tail, counters)
            elif before == 0.0:  # the first touch of this halo entry in the batch lists it, once
                slot = cuda.atomic.add(counters, OUT, 1)
                out_v[slot] = u
                out_dest[slot] = owner[u]
        cuda.atomic.add(counters, EDGES, end - begin)


@cuda.jit(cache=False)
def _flush_halo(out_v, n_out, residual, out_d):
    i = cuda.grid(1)
    if i < n_out:
        u = out_v[i]
        out_d[i] = residual[u]
        residual[u] = 0.0


def _launch(count: int, stream) -> tuple:
    """The launch configuration (blocks, threads per block, stream) for `count` threads: whole warps, at most
    BLOCK per block (a batch of a few items launches one warp, not a full block)."""
    threads = min(BLOCK, 32 * ((count + 31) // 32)) or 32
    return (count + threads - 1) // threads, threads, stream


class DeviceWorklist:
    """One device's values and worklist on a CUDA device for a BFS (`mode` LEVELS), SSSP (DISTANCES) or CC
    (LABELS) run.

    `device` is a `CUDADevice`; `values` the host array of the device's values (its initial state; `download`
    writes the final state back into it)."""

    def __init__(self, device, indptr, indices, weights, owner, me: int, values: np.ndarray, mode: int):
        self.device = device
        self.me = int(me)
        self.mode = int(mode)
        self.n = values.shape[0]
        self.host_values = values
        with cuda.gpus[device.index]:
            self.stream = cuda.stream()
            s = self.stream
            self.indptr = cuda.to_device(np.ascontiguousarray(indptr, dtype=np.int64), stream=s)
            self.indices = cuda.to_device(np.ascontiguousarray(indices, dtype=np.int64), stream=s)
            arcs = weights if weights.shape[0] else np.zeros(1, dtype=values.dtype)
            self.weights = cuda.to_device(np.ascontiguousarray(arcs, dtype=values.dtype), stream=s)
            self.owner = cuda.to_device(np.ascontiguousarray(owner, dtype=np.int32), stream=s)
            self.values = cuda.to_device(values, stream=s)
            self.flags = cuda.to_device(np.zeros(max(self.n, 1), dtype=np.int32), stream=s)
            self.queue = cuda.device_array(max(self.n, 1), dtype=np.int64, stream=s)
            self.frontier = cuda.device_array(max(self.n, 1), dtype=np.int64, stream=s)
            self.tail = cuda.to_device(np.zeros(1, dtype=np.int64), stream=s)
            self.counters = cuda.to_device(np.zeros(3, dtype=np.int64), stream=s)
            # every edge of every vertex at most once per batch: the out buffers never overflow
            capacity = max(int(indptr[-1]), 1)
            self.out_v = cuda.device_array(capacity, dtype=np.int64, stream=s)
            self.out_d = cuda.device_array(capacity, dtype=values.dtype, stream=s)
            self.out_dest = cuda.device_array(capacity, dtype=np.int32, stream=s)
            s.synchronize()
        self.head = 0
        self.queued = 0

    def step(self, in_v, in_d, budget: int, counts: np.ndarray):
        """One batch: apply `in_v`/`in_d`, then (when `budget` > 0) relax every queued vertex. Fills
        counts[:5] (processed, pushed, consumed, out, edges) as the CPU kernels do and returns (out_v, out_d,
        out_dest, started, finished): the items for other devices, host arrays, and the perf_counter span."""
        s = self.stream
        started = time.perf_counter()
        with cuda.gpus[self.device.index]:
            self.counters.copy_to_device(np.zeros(3, dtype=np.int64), stream=s)
            if in_v.shape[0]:
                d_v = cuda.to_device(np.ascontiguousarray(in_v, dtype=np.int64), stream=s)
                d_d = cuda.to_device(np.ascontiguousarray(in_d, dtype=self.host_values.dtype), stream=s)
                self._apply(d_v, d_d)
            tail = int(self.tail.copy_to_host(stream=s)[0])
            count = tail - self.head if budget > 0 else 0
            if count:
                _take_frontier[_launch(count, s)](self.queue, self.head, count, self.flags, self.frontier)
                self.head += count
                self._process(count)
            counters = self.counters.copy_to_host(stream=s)
            tail = int(self.tail.copy_to_host(stream=s)[0])
            n_out = int(counters[OUT])
            if n_out:
                self._flush(n_out)
            out = (self.out_v[:n_out].copy_to_host(stream=s), self.out_d[:n_out].copy_to_host(stream=s),
                   self.out_dest[:n_out].copy_to_host(stream=s)) if n_out else (None, None, None)
            s.synchronize()
        self.queued = tail - self.head
        counts[0] = count
        counts[1] = counters[PUSHED]
        counts[2] = in_v.shape[0]
        counts[3] = n_out
        counts[4] = counters[EDGES]
        return (*out, started, time.perf_counter())

    def _apply(self, d_v, d_d) -> None:
        """Apply incoming items (device arrays) to the values, queueing the vertices they lower."""
        _apply_incoming[_launch(d_v.shape[0], self.stream)](d_v, d_d, self.values, self.flags, self.queue,
                                                            self.tail, self.counters)

    def _process(self, count: int) -> None:
        """Process the `count` vertices of the frontier."""
        _relax[_launch(count, self.stream)](self.frontier, count, self.indptr, self.indices, self.weights,
                                            self.mode, self.owner, self.me, self.values, self.flags, self.queue,
                                            self.tail, self.out_v, self.out_d, self.out_dest, self.counters)

    def _flush(self, n_out: int) -> None:
        """Fill in the out items' values when the processing only listed their vertices (nothing to do here)."""

    def download(self) -> np.ndarray:
        """The device's values copied back into the host array given at construction (returned)."""
        with cuda.gpus[self.device.index]:
            self.values.copy_to_host(self.host_values, stream=self.stream)
            self.stream.synchronize()
        return self.host_values


def bfs_worklist(device, indptr, indices, weights, owner, me, values, extra) -> DeviceWorklist:
    """The GPU worker state of a BFS run (levels: value + 1 per edge; `weights` unused)."""
    return DeviceWorklist(device, indptr, indices, weights[:0], owner, me, values, LEVELS)


def sssp_worklist(device, indptr, indices, weights, owner, me, values, extra) -> DeviceWorklist:
    """The GPU worker state of an SSSP run (distances: value + the arc's weight)."""
    return DeviceWorklist(device, indptr, indices, weights, owner, me, values, DISTANCES)


def cc_worklist(device, indptr, indices, weights, owner, me, values, extra) -> DeviceWorklist:
    """The GPU worker state of a worklist CC run (labels: the least vertex id reaching a vertex)."""
    return DeviceWorklist(device, indptr, indices, weights[:0], owner, me, values, LABELS)


class PageRankWorklist(DeviceWorklist):
    """PageRank by residual push on a CUDA device (the contract of `_pagerank_kernels.pagerank_step`): the values
    are (signed) residuals, `weights[v]` = α / deg(v), `extra[:n]` the ranks and `extra[n]` the threshold ε. An
    incoming (v, r) adds r to v's residual; processing v moves its residual to its rank (an atomic subtraction of
    what was read, so additions by other threads meanwhile stay) and adds its share to every neighbour: owned ones
    are queued when their residual reaches ε in absolute value, other devices' accumulate in their halo entry,
    listed on its first touch in the batch, and sent to the owner (and reset) once at the end of the batch. A
    queued vertex is processed even if a negative share took it back under ε meanwhile (it pushes what it has:
    correct, and every queued item is consumed once)."""

    def __init__(self, device, indptr, indices, weights, owner, me, values, extra):
        super().__init__(device, indptr, indices, weights, owner, me, values, DISTANCES)
        self.host_extra = extra
        self.epsilon = float(extra[values.shape[0]])
        with cuda.gpus[device.index]:
            self.ranks = cuda.to_device(np.ascontiguousarray(extra[:values.shape[0]]), stream=self.stream)
            self.stream.synchronize()

    def _apply(self, d_v, d_d) -> None:
        _add_incoming[_launch(d_v.shape[0], self.stream)](d_v, d_d, self.values, self.epsilon, self.flags,
                                                          self.queue, self.tail, self.counters)

    def _process(self, count: int) -> None:
        _push_residuals[_launch(count, self.stream)](self.frontier, count, self.indptr, self.indices, self.weights,
                                                     self.owner, self.me, self.values, self.ranks, self.epsilon,
                                                     self.flags, self.queue, self.tail, self.out_v, self.out_dest,
                                                     self.counters)

    def _flush(self, n_out: int) -> None:
        _flush_halo[_launch(n_out, self.stream)](self.out_v, n_out, self.values, self.out_d)

    def download(self) -> np.ndarray:
        with cuda.gpus[self.device.index]:
            self.ranks.copy_to_host(self.host_extra[:self.n], stream=self.stream)
        return super().download()


def pagerank_worklist(device, indptr, indices, weights, owner, me, values, extra) -> PageRankWorklist:
    """The GPU worker state of a PageRank run (see PageRankWorklist)."""
    return PageRankWorklist(device, indptr, indices, weights, owner, me, values, extra)
