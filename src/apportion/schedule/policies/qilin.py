"""Qilin (seed 000 ch. 3.4, after [62]): linear time models trained on a fraction of the input.

Training (before the first round, reported as training time, not in the makespans; both devices train at the
same time, on warm kernels): each device runs the first `fraction` of the chunks at four sizes (1/4, 1/2, 3/4 and all of the training set, each as one run); a
least-squares line T_d(x) = a_d + b_d x (x in chunks) is fitted per device. The split solves
T_cpu(beta n) = T_gpu((1 - beta) n), clipped to [0, 1]. Static afterwards: the GPU gets its share as one bundle,
the CPU takes its chunks one by one, nobody steals. Qilin is defined for exactly one CPU and one GPU.

Because real (and simulated) GPUs are not linear at small sizes (launch latency, unsaturated cores), a model
trained on a small fraction mis-predicts the full load: the thesis's "< 30 %" sensitivity.
"""

from __future__ import annotations

import numpy as np

from apportion.errors import InputError
from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan


class QilinPolicy(Policy):
    name = "qilin"

    def __init__(self, fraction: float = 0.3):
        if not 0 < fraction <= 1:
            raise InputError(f"qilin: training fraction must be in (0, 1], got {fraction}")
        self.fraction = float(fraction)
        self.lines: list[tuple[float, float]] | None = None
        self.beta: float | None = None
        self.training_s = 0.0

    def train(self, ctx: RoundContext) -> None:
        if ctx.n_devices != 2:
            raise InputError(f"qilin: needs exactly one CPU and one GPU (2 devices), the platform has "
                             f"{ctx.n_devices}")
        training = max(1, int(round(self.fraction * ctx.n_chunks)))
        sizes = sorted({max(1, int(round(training * j / 4))) for j in (1, 2, 3, 4)})
        lines, per_device = [], []
        measured = ctx.probe_devices([sizes, sizes])  # both devices train at the same time
        for d in range(2):
            times = np.array(measured[d], dtype=np.float64)
            per_device.append(float(times.sum()))
            x = np.asarray(sizes, dtype=np.float64)
            if len(sizes) >= 2:
                b, a = np.polyfit(x, times, 1)
            else:
                a, b = 0.0, times[0] / x[0]
            lines.append((float(a), max(float(b), 1e-30)))
        self.training_s = max(per_device)
        self.lines = lines
        (a0, b0), (a1, b1) = lines
        n = ctx.n_chunks
        # a0 + b0 x = a1 + b1 (n - x)  ->  x = (a1 - a0 + b1 n) / (b0 + b1)
        x0 = (a1 - a0 + b1 * n) / (b0 + b1)
        self.beta = float(np.clip(x0 / n, 0.0, 1.0))

    def plan(self, ctx: RoundContext) -> RoundPlan:
        if self.beta is None:
            self.train(ctx)
        first = int(round(self.beta * ctx.n_chunks))
        counts = [first, ctx.n_chunks - first]
        if ctx.alive and not all(ctx.alive):
            counts = [ctx.n_chunks if a else 0 for a in ctx.alive]
        plan = RoundPlan(ctx)
        plan.fill_queues(counts)
        return plan

    def describe(self) -> dict:
        return {"name": self.name, "fraction": self.fraction, "beta": self.beta,
                "lines": None if self.lines is None else [{"a_s": a, "b_s_per_chunk": b} for a, b in self.lines]}
