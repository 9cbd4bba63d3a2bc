"""Static splits: even (every device the same number of chunks) and by peak FLOPS (seed 004's NaiveStatic).

Baselines for HASS (seed 000 ch. 3.4) and for sampling (seed 004 sec. IV): the split is fixed before the round
and never corrected; GPUs get their share as one bundle, CPUs take their chunks one by one, nobody steals.
"Peak" is each device's `peak_flops`: measured for CPU devices (apportion.platform.calibrate; a throttled device
gets its inner device's ÷ its factor), the model's peak for simulated ones, nominal for GPUs. A device whose
figure is unknown counts as the mean of the known ones.
"""

from __future__ import annotations

import numpy as np

from apportion.errors import InputError
from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan, alive_counts


class StaticPolicy(Policy):
    """`mode="even"` or `mode="peak"` (shares proportional to `peak_flops`); `shares` fixes them explicitly."""

    def __init__(self, mode: str = "even", shares=None):
        if mode not in ("even", "peak", "fixed"):
            raise InputError(f"static policy: mode must be even, peak or fixed, got {mode!r}")
        self.mode = "fixed" if shares is not None else mode
        self.shares = None if shares is None else np.asarray(shares, dtype=np.float64)
        self.name = {"even": "static-even", "peak": "static-peak", "fixed": "static"}[self.mode]

    def ratios(self, ctx: RoundContext) -> np.ndarray:
        if self.mode == "fixed":
            return self.shares
        if self.mode == "even":
            return np.ones(ctx.n_devices)
        peaks = np.array([np.nan if p is None else float(p) for p in ctx.peak_flops])
        known = peaks[np.isfinite(peaks)]
        return np.where(np.isfinite(peaks), peaks, known.mean() if known.size else 1.0)

    def plan(self, ctx: RoundContext) -> RoundPlan:
        plan = RoundPlan(ctx)
        plan.fill_queues(alive_counts(self.ratios(ctx), ctx.n_chunks, ctx.alive))
        return plan

    def describe(self) -> dict:
        out = {"name": self.name, "mode": self.mode}
        if self.shares is not None:
            out["shares"] = self.shares.tolist()
        return out
