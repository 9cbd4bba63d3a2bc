"""Min-min (seed 000 ch. 3.4, after [78]): a static list heuristic over an expected-time-to-compute table.

Before the first round every device runs one chunk TRAINING_RUNS times (training, reported as training time; all
devices at the same time, on warm kernels); the median fills the ETC entry etc[d] (seconds per chunk). One run
was too few on real devices: three device threads on two cores overlap their first runs, and that one contended
run set the fast device's entry at twice its steady time (0.034-0.044 s against 0.019 s for a matmul 1600^2 chunk),
so min-min split 6/3/3 where 8/2/2 is best. Then, repeatedly, among all unassigned chunks and all devices, the
pair with the minimum completion time ready[d] + etc[d] is fixed (with equal chunks this is: the next chunk goes
to the device that would finish it first). Each chunk is its own task: one run per chunk, no bundling, no
stealing.
"""

from __future__ import annotations

import numpy as np

from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan


#: one-chunk training runs per device; the ETC entry is their median (module docstring)
TRAINING_RUNS = 3


class MinMinPolicy(Policy):
    name = "minmin"

    def __init__(self):
        self.etc: np.ndarray | None = None
        self.training_s = 0.0

    def train(self, ctx: RoundContext) -> None:
        runs = ctx.probe_devices([[1] * TRAINING_RUNS] * ctx.n_devices)
        self.training_s = float(max(sum(r) for r in runs))  # devices are probed at the same time
        self.etc = np.asarray([np.median(r) for r in runs], dtype=np.float64)

    def plan(self, ctx: RoundContext) -> RoundPlan:
        if self.etc is None:
            self.train(ctx)
        plan = OneChunkPlan(ctx)
        ready = np.zeros(ctx.n_devices)
        alive = np.asarray(ctx.alive, dtype=bool) if ctx.alive else np.ones(ctx.n_devices, dtype=bool)
        for chunk in range(ctx.n_chunks):
            completion = np.where(alive, ready + self.etc, np.inf)
            d = int(np.argmin(completion))
            ready[d] = completion[d]
            plan.queues[d].append(chunk)
        return plan

    def describe(self) -> dict:
        return {"name": self.name, "etc_s": None if self.etc is None else self.etc.tolist()}




class OneChunkPlan(RoundPlan):
    """Every device, GPU or not, runs its queue one chunk per run (each chunk is a task)."""

    def assign(self, device, now):
        queue = self.queues[device]
        return (queue.popleft(),) if queue else None
