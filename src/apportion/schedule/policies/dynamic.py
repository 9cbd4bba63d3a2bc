"""Dynamic availability routing (seed 003, Groute's PBF router: "first available device").

The host cuts the load into fixed-size *segments* of `segment_chunks` chunks and a router hands each segment to
the first device that is available (idle), in the router's device order; a segment is one run (one transfer,
one launch) on any device. Unlike greedy, work moves in segments, so GPUs pay their launch and transfer latency
once per segment, and slow devices simply receive fewer segments. Default segment: n_chunks / (4 x devices).
(Groute also double-buffers each link so a transfer overlaps the previous segment's compute; this simulation
runs one segment per device at a time.)
"""

from __future__ import annotations

from collections import deque

from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan


class DynamicPlan(RoundPlan):
    def __init__(self, ctx: RoundContext, segment_chunks: int):
        super().__init__(ctx)
        ids = list(range(ctx.n_chunks))
        self.segments = deque(tuple(ids[i:i + segment_chunks]) for i in range(0, len(ids), segment_chunks))

    def assign(self, device, now):
        return self.segments.popleft() if self.segments else None


class DynamicPolicy(Policy):
    name = "dynamic"
    dynamic = True

    def __init__(self, segment_chunks: int | None = None):
        self.segment_chunks = segment_chunks

    def plan(self, ctx: RoundContext) -> RoundPlan:
        segment = self.segment_chunks or max(1, ctx.n_chunks // (4 * ctx.n_devices))
        return DynamicPlan(ctx, int(segment))

    def describe(self) -> dict:
        return {"name": self.name, "segment_chunks": self.segment_chunks}
