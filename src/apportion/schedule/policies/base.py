"""What every policy shares: per-device chunk queues, re-running the chunks of dead devices, round reports.

A *policy* lives across rounds (it learns); each round it builds a `RoundPlan`, the state of that round. Both
executors (the discrete-event simulator and the real thread executor) drive a plan the same way:

    chunks = plan.next_assignment(d, now)   # a tuple of chunk ids to run on device d as ONE run, or None
    plan.completed(d, chunks, timing, now)  # the run finished
    plan.failed(d, chunks)                  # device d died during the run: its chunks go back

A device that gets None waits until the next completion or failure and asks again; the round ends when every
chunk has completed. Chunks handed back by a dead device (`orphans`) are taken first by any device that asks,
before its own queue, so no chunk is lost and none runs twice to completion.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from apportion.platform.device import Timing
from apportion.schedule.pool import makespan_counts


@dataclass
class RoundContext:
    """What a policy may know when it plans a round: device count and kinds, chunk count, and `probe`, a
    callable `probe(device_index, n_chunks) -> seconds` that measures (or, simulated, predicts) one run of the
    first `n_chunks` chunks outside the round (training; its cost is reported as training time), and
    `probe_together`, `probe_together(sizes) -> times` with `sizes[d]` a list of chunk counts for device d:
    every device runs its list (in order) at the same time as the others, as they will run in the rounds,
    and `times[d][i]` is the seconds of run i of device d. Every device's kernels are warm before either is
    called (real platforms run a warm-up first)."""

    round_index: int
    n_chunks: int
    bundles: list[bool]
    peak_flops: list[float | None]
    probe: object = None
    alive: list[bool] = field(default_factory=list)
    probe_together: object = None

    @property
    def n_devices(self) -> int:
        return len(self.bundles)

    def probe_devices(self, sizes: Sequence[Sequence[int]]) -> list[list[float]]:
        """`probe_together(sizes)` when given, else every device probed in turn with `probe`."""
        if self.probe_together is not None:
            return self.probe_together(sizes)
        return [[self.probe(d, k) for k in device_sizes] for d, device_sizes in enumerate(sizes)]


class RoundPlan:
    """Base plan: `queues[d]` (chunks assigned to device d, in order), `orphans` (chunks of dead devices)."""

    def __init__(self, ctx: RoundContext):
        self.ctx = ctx
        self.n_devices = ctx.n_devices
        self.queues: list[deque[int]] = [deque() for _ in range(self.n_devices)]
        self.orphans: deque[int] = deque()
        self.dead = [not a for a in ctx.alive] if ctx.alive else [False] * self.n_devices
        self.remaining = ctx.n_chunks
        self.executed = np.zeros(self.n_devices, dtype=np.int64)
        self.busy_s = np.zeros(self.n_devices, dtype=np.float64)
        self.finish_s = np.zeros(self.n_devices, dtype=np.float64)
        self.runs = np.zeros(self.n_devices, dtype=np.int64)
        self.profile_runs: list[tuple[int, int, float]] = []  # (device, chunks, seconds)

    # ----------------------------------------------------------- executor interface
    def next_assignment(self, device: int, now: float) -> tuple[int, ...] | None:
        if self.dead[device]:
            return None
        if self.orphans:
            return self._take_orphans(device)
        return self.assign(device, now)

    def completed(self, device: int, chunks: Sequence[int], timing: Timing, now: float) -> None:
        self.remaining -= len(chunks)
        self.executed[device] += len(chunks)
        self.busy_s[device] += timing.total_s
        self.finish_s[device] = max(self.finish_s[device], now)
        self.runs[device] += 1
        self.on_completed(device, chunks, timing, now)

    def failed(self, device: int, chunks: Sequence[int]) -> None:
        self.dead[device] = True
        self.orphans.extend(chunks)
        # everything still queued for the dead device is orphaned as well
        self.orphans.extend(self.queues[device])
        self.queues[device].clear()
        self.on_failed(device, chunks)

    @property
    def done(self) -> bool:
        return self.remaining == 0

    def is_profile_run(self, device: int, chunks: Sequence[int]) -> bool:
        """True when this run is a profiling run (drawn as 'profile' in traces)."""
        return False

    # ----------------------------------------------------------- for subclasses
    def assign(self, device: int, now: float) -> tuple[int, ...] | None:
        """Default: a bundling device takes its whole queue as one run, others one chunk at a time."""
        return self.take_own(device)

    def take_own(self, device: int) -> tuple[int, ...] | None:
        queue = self.queues[device]
        if not queue:
            return None
        if self.ctx.bundles[device]:
            chunks = tuple(queue)
            queue.clear()
            return chunks
        return (queue.popleft(),)

    def _take_orphans(self, device: int) -> tuple[int, ...]:
        alive = max(1, sum(not d for d in self.dead))
        count = 1 if not self.ctx.bundles[device] else max(1, -(-len(self.orphans) // alive))
        return tuple(self.orphans.popleft() for _ in range(min(count, len(self.orphans))))

    def on_completed(self, device: int, chunks, timing: Timing, now: float) -> None:
        pass

    def on_failed(self, device: int, chunks) -> None:
        pass

    def fill_queues(self, counts: Sequence[int], chunk_ids: Sequence[int] | None = None) -> None:
        """Give device d the next counts[d] chunks (contiguous, in device order)."""
        ids = list(range(self.ctx.n_chunks)) if chunk_ids is None else list(chunk_ids)
        position = 0
        for d, count in enumerate(counts):
            self.queues[d].extend(ids[position:position + int(count)])
            position += int(count)
        assert position == len(ids), (position, len(ids))


class Policy:
    """A scheduling policy: `plan(ctx) -> RoundPlan` per round, `adapt(plan)` after it (learning)."""

    name = "policy"
    dynamic = False  # True when devices take work as they become idle (greedy, dynamic, HASS stealing)

    def plan(self, ctx: RoundContext) -> RoundPlan:  # pragma: no cover - abstract
        raise NotImplementedError

    def adapt(self, plan: RoundPlan) -> None:
        """Learn from a finished round (default: nothing)."""

    @property
    def converged(self) -> bool:
        return False

    def describe(self) -> dict:
        return {"name": self.name}


def alive_counts(ratios: Sequence[float], total: int, alive: Sequence[bool]) -> np.ndarray:
    """`makespan_counts` restricted to live devices: the chunk counts that finish first at these relative
    speeds (the split every proportional policy hands out)."""
    r = np.asarray(ratios, dtype=np.float64).copy()
    if alive:
        r[~np.asarray(alive, dtype=bool)] = 0.0
    return makespan_counts(r, total)
