"""Greedy (seed 000 ch. 3.4, after [95]): every chunk goes to the first device that is idle.

One shared queue; an idle device takes the next single chunk (no bundling, no model). Ties at the same instant
go to the lower device index (deterministic).
"""

from __future__ import annotations

from collections import deque

from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan


class GreedyPlan(RoundPlan):
    def __init__(self, ctx: RoundContext):
        super().__init__(ctx)
        self.shared = deque(range(ctx.n_chunks))

    def assign(self, device, now):
        return (self.shared.popleft(),) if self.shared else None


class GreedyPolicy(Policy):
    name = "greedy"
    dynamic = True

    def plan(self, ctx: RoundContext) -> RoundPlan:
        return GreedyPlan(ctx)
