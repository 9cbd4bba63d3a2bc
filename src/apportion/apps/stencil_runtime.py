"""The stencil runtime ("HG", seed 002 ch. 5): each device owns rectangles of the grid with a one-cell ghost
zone, exchanges halos with its neighbours every iteration, then runs its kernel; a per-iteration trace records
compute and communication seconds per device.

Local devices run as one Python thread each (Numba kernels release the GIL). Kernels go through the platform's
`device.run`, so throttled devices are slowed down and remote (Ray) devices receive the block and return the new
interior. Simulated devices (a platform of models) produce the numbers with the CPU kernel when asked to and
their times from their model: compute from `Work(flops)`, communication from their link (halo out and in).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from apportion.errors import InputError
from apportion.partitioning.grid.rectangles import Rectangles
from apportion.perfmodel.clock import check_clock, timed_run
from apportion.platform.device import KernelSet
from apportion.ui import track


@dataclass
class Block:
    """One rectangle of the grid held by a device: `data` is (h+2, w+2) with the ghost ring around the interior."""

    index: int
    owner: int
    row: int
    col: int
    height: int
    width: int
    data: np.ndarray
    # halo copies: (source block, source rows, source cols, destination rows, destination cols)
    receives: list = field(default_factory=list)
    items_received: int = 0
    scratch: np.ndarray | None = None  # (h, w) output buffer of the kernel


@dataclass
class StencilTrace:
    """Per-iteration, per-device seconds of compute and communication, plus halo items per device."""

    device_names: list
    compute_s: np.ndarray      # (steps, p)
    communication_s: np.ndarray  # (steps, p)
    halo_items: np.ndarray     # (p,) items each device receives per iteration
    wall_s: float = 0.0
    simulated: bool = False

    def busy_s(self) -> np.ndarray:
        """(p,) total compute + communication seconds of each device."""
        return self.compute_s.sum(axis=0) + self.communication_s.sum(axis=0)

    def makespan_s(self) -> float:
        """Bulk-synchronous makespan: Σ over iterations of the slowest device's compute + communication."""
        return float((self.compute_s + self.communication_s).max(axis=1).sum())

    def imbalance(self) -> float:
        """max_i busy_i / mean_i busy_i − 1 (0 when every device is equally busy, or none did anything)."""
        busy = self.busy_s()
        mean = busy.mean() if busy.size else 0.0
        return float(busy.max() / mean - 1.0) if mean > 0 else 0.0

    def to_dict(self) -> dict:
        return {"devices": list(self.device_names), "simulated": self.simulated, "wall_s": self.wall_s,
                "makespan_s": self.makespan_s(), "imbalance": self.imbalance(),
                "compute_s_per_device": self.compute_s.sum(axis=0).tolist(),
                "communication_s_per_device": self.communication_s.sum(axis=0).tolist(),
                "halo_items_per_iteration": self.halo_items.tolist(),
                "per_iteration": {"compute_s": self.compute_s.tolist(),
                                  "communication_s": self.communication_s.tolist()}}


def _overlap(a0: int, a1: int, b0: int, b1: int) -> tuple[int, int]:
    return max(a0, b0), min(a1, b1)


def make_blocks(rect: Rectangles, values: np.ndarray, boundary: float) -> list[Block]:
    """Blocks for every piece of `rect`, filled from `values`, ghost rings set to `boundary`, with halo plans."""
    blocks = []
    for j in range(rect.pieces):
        r, c, h, w = int(rect.row[j]), int(rect.col[j]), int(rect.height[j]), int(rect.width[j])
        data = np.full((h + 2, w + 2), boundary, dtype=np.float64)
        data[1:-1, 1:-1] = values[r:r + h, c:c + w]
        blocks.append(Block(j, int(rect.owner[j]), r, c, h, w, data, scratch=np.empty((h, w))))
    for b in blocks:
        for other in blocks:
            if other is b:
                continue
            o_r1, o_c1 = other.row + other.height, other.col + other.width
            sides = (  # (global row range, global col range) of each ghost side
                ((b.row - 1, b.row), (b.col, b.col + b.width)),
                ((b.row + b.height, b.row + b.height + 1), (b.col, b.col + b.width)),
                ((b.row, b.row + b.height), (b.col - 1, b.col)),
                ((b.row, b.row + b.height), (b.col + b.width, b.col + b.width + 1)),
            )
            for (gr0, gr1), (gc0, gc1) in sides:
                rr0, rr1 = _overlap(gr0, gr1, other.row, o_r1)
                cc0, cc1 = _overlap(gc0, gc1, other.col, o_c1)
                if rr0 < rr1 and cc0 < cc1:
                    src = (slice(rr0 - other.row + 1, rr1 - other.row + 1), slice(cc0 - other.col + 1, cc1 - other.col + 1))
                    dst = (slice(rr0 - b.row + 1, rr1 - b.row + 1), slice(cc0 - b.col + 1, cc1 - b.col + 1))
                    b.receives.append((other, src, dst))
                    if other.owner != b.owner:
                        b.items_received += (rr1 - rr0) * (cc1 - cc0)
    return blocks


def gather(blocks: list[Block], rows: int, cols: int) -> np.ndarray:
    out = np.empty((rows, cols), dtype=np.float64)
    for b in blocks:
        out[b.row:b.row + b.height, b.col:b.col + b.width] = b.data[1:-1, 1:-1]
    return out


class StencilRuntime:
    """Runs a 5-point stencil kernel over a platform's devices, one thread per device (bulk synchronous)."""

    def __init__(self, devices, rect: Rectangles, values: np.ndarray, boundary: float = 0.0, *,
                 compute_values: bool = True, item_bytes: int = 8, clock: str = "wall"):
        self.devices = list(devices)
        if len(self.devices) != rect.p:
            raise InputError(f"{len(self.devices)} devices but the partition has {rect.p} processors")
        self.rect = rect
        self.simulated = bool(getattr(self.devices[0], "is_simulated", False))
        self.compute_values = compute_values or not self.simulated
        self.item_bytes = item_bytes
        self.clock = check_clock(clock)
        self.blocks = make_blocks(rect, values, boundary) if self.compute_values else []
        self.by_device = [[b for b in self.blocks if b.owner == i] for i in range(rect.p)]
        items = np.zeros(rect.p, dtype=np.int64)
        for b in self.blocks:
            items[b.owner] += b.items_received
        if not self.compute_values:
            items = rect.metrics.items_sent if rect.metrics is not None else rect.with_metrics().metrics.items_sent
        self.halo_items = items
        self.pool = ThreadPoolExecutor(max_workers=len(self.devices)) if not self.simulated else None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)

    # ------------------------------------------------------------------ phases
    def _exchange(self, i: int) -> float:
        now = time.thread_time if self.clock == "cpu" else time.perf_counter
        start = now()
        for b in self.by_device[i]:
            for other, src, dst in b.receives:
                b.data[dst] = other.data[src]
        return now() - start

    def _compute(self, i: int, kernels, make_args) -> tuple[float, list]:
        device = self.devices[i]
        seconds = 0.0
        results = []
        for b in self.by_device[i]:
            execution, elapsed = timed_run(device, kernels, make_args(b), self.clock)
            seconds += elapsed
            results.append((b, execution.result))
        return seconds, results

    def run(self, kernels, make_args, steps: int, work_of=None) -> StencilTrace:
        """`steps` iterations: exchange halos, then `device.run(kernels, *make_args(block))` whose result is the
        block's new interior. `work_of(i)` gives device i's `Work` per iteration (simulated platforms)."""
        p = len(self.devices)
        compute = np.zeros((steps, p))
        communication = np.zeros((steps, p))
        if not self.simulated and self.blocks and steps > 0:
            # compile (or load from Numba's cache) outside the timed iterations, on a copy, unthrottled
            first = self.blocks[0]
            copy = Block(first.index, first.owner, first.row, first.col, first.height, first.width,
                         first.data.copy(), scratch=np.empty_like(first.scratch))
            KernelSet.coerce(kernels).cpu(*make_args(copy))
        wall = time.perf_counter()
        for step in track(range(steps), "iterations"):
            if self.simulated:
                for i, device in enumerate(self.devices):
                    link = device.link
                    nbytes = float(self.halo_items[i]) * self.item_bytes
                    communication[step, i] = 0.0 if link is None else 2 * link.transfer_time(nbytes)
                    compute[step, i] = device.estimate(work_of(i)).total_s
                if self.compute_values:
                    for i in range(p):
                        self._exchange(i)
                    for b in self.blocks:
                        b.data[1:-1, 1:-1] = kernels.cpu(*make_args(b))
                continue
            communication[step] = list(self.pool.map(self._exchange, range(p)))
            outcomes = list(self.pool.map(lambda i: self._compute(i, kernels, make_args), range(p)))
            for i, (seconds, results) in enumerate(outcomes):
                compute[step, i] = seconds
                for b, new in results:
                    b.data[1:-1, 1:-1] = new
        return StencilTrace([d.name for d in self.devices], compute, communication, self.halo_items,
                            wall_s=time.perf_counter() - wall, simulated=self.simulated)

    def values(self) -> np.ndarray:
        return gather(self.blocks, self.rect.rows, self.rect.cols)
