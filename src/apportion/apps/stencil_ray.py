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
"""

from __future__ import annotations

import time

import numpy as np

from apportion.apps.stencil_runtime import StencilTrace, gather, make_blocks
from apportion.errors import InputError, UnavailableError
from apportion.partitioning.grid.rectangles import Rectangles

_WORKER_CLASS = None


def _worker_class():
    global _WORKER_CLASS
    if _WORKER_CLASS is None:
        import ray

        @ray.remote(num_cpus=1)
        class StencilWorker:
            """Holds blocks {index: padded array} of one device and their halo plans."""

            def __init__(self, blocks, local_copies, outgoing, incoming_order, factor, p):
                from apportion.platform.cpu import CPUDevice
                from apportion.platform.throttled import ThrottledDevice

                self.blocks = {index: np.array(data) for index, data in blocks.items()}
                self.scratch = {index: np.empty((d.shape[0] - 2, d.shape[1] - 2)) for index, d in self.blocks.items()}
                self.local_copies = local_copies      # (src block, src slices, dst block, dst slices)
                self.outgoing = outgoing              # per destination: [(src block, src slices)]
                self.incoming = incoming_order        # per source: [(dst block, dst slices)]
                self.p = p
                device = CPUDevice(name="worker")
                self.device = ThrottledDevice(device, factor) if factor > 1 else device

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
                from apportion.platform.device import KernelSet

                kernel = KernelSet.coerce(kernels).cpu
                for index, data in self.blocks.items():
                    kernel(data.copy(), np.empty_like(self.scratch[index]), *params)
                return True

            def values(self):
                return {index: data[1:-1, 1:-1].copy() for index, data in self.blocks.items()}

        _WORKER_CLASS = StencilWorker
    return _WORKER_CLASS


def _throttle(device) -> float:
    from apportion.perfmodel.clock import throttle_factor

    return throttle_factor(device)


class RayStencilRuntime:
    """Same contract as `StencilRuntime` (run → StencilTrace, values, close), with one Ray actor per device.

    Joins the cluster at `address` (or RAY_ADDRESS), else starts a local one with `local_cpus` CPUs, unless Ray
    is already initialised. Only real host devices can be placed on actors (a throttled device keeps its
    factor); simulated devices raise InputError."""

    def __init__(self, devices, rect: Rectangles, values: np.ndarray, boundary: float = 0.0, *,
                 address: str | None = None, local_cpus: int | None = None):
        from apportion.platform.ray import connect

        self.devices = list(devices)
        if len(self.devices) != rect.p:
            raise InputError(f"{len(self.devices)} devices but the partition has {rect.p} processors")
        if any(getattr(d, "is_simulated", False) for d in self.devices):
            raise InputError("the Ray stencil runtime runs real devices only (simulated platforms run locally)")
        connect(address, local_cpus=local_cpus or max(2, len(self.devices)))
        import ray

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
        worker = _worker_class()
        # several devices may share a small cluster's CPUs: reserve a fair fraction each, never more than one
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        worker = worker.options(num_cpus=min(1.0, cpus / p))
        try:
            self.workers = [worker.remote({b.index: b.data for b in by_owner[i]}, local[i], outgoing[i], incoming[i],
                                          _throttle(self.devices[i]), p) for i in range(p)]
            ray.get([w.values.remote() for w in self.workers], timeout=300)
        except Exception as exc:
            raise UnavailableError(f"Ray stencil workers did not start: {str(exc).splitlines()[0]}") from None
        self.blocks = blocks

    def run(self, kernels, params, steps: int) -> StencilTrace:
        """`steps` bulk-synchronous iterations of `kernels(padded, out, *params)` on every block."""
        ray = self._ray
        p = len(self.workers)
        compute = np.zeros((steps, p))
        communication = np.zeros((steps, p))
        ray.get([w.warm_up.remote(kernels, tuple(params)) for w in self.workers])
        wall = time.perf_counter()
        for step in range(steps):
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
        for w in getattr(self, "workers", []):
            try:
                self._ray.kill(w)
            except Exception:  # pragma: no cover - already gone
                pass
        self.workers = []
