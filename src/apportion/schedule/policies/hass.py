"""HASS, the Heterogeneous Architecture Scheduling Strategy (seed 000 ch. 3.3, Algorithm 3.1).

Per round:

1. *Initialization* (round 0 only, ch. 3.3.1): **profiling** — every device runs `profile_chunks` chunks of
   the load; its speed is S_d = chunks / seconds (eq. 3.2-3.3) and ratio_d = S_d / sum(S) (eq. 3.4-3.5). The
   profiled chunks are real chunks of the load (they count as done). Devices that finish profiling early wait
   for the others, as in the thesis, where each device is measured on its own sample.
2. *Execution* (ch. 3.3.2): ratio_d x m chunks go into each device's buffer (PRT, eq. 3.6-3.7), rounded so the
   devices finish together (`pool.makespan_counts`). A bundling device (GPU) receives its whole buffer as ONE
   run (load bundler: one transfer, one launch); a host device (CPU) takes chunks from its buffer one at a time.
   A device whose buffer is empty **steals** `steal_chunks` chunks from the tail of the fullest host buffer (push
   model: the host hands them over) — but only when, at the current ratios (relative speeds), it would finish
   them before the owner of that buffer reaches them.
3. *Adaptation* (ch. 3.3.3): the split of the next round comes from what each device actually did. The thesis
   records the executed fractions; this implementation (`adaptation="rate"`, the default) uses each device's
   observed rate, executed chunks / busy seconds, which equals the executed fraction when devices finish
   together and, unlike it, also corrects a round where a GPU got too much (stealing only moves work *to* GPUs;
   with executed fractions such a split would never change). `adaptation="executed"` is the thesis's rule.
   **Convergence**: when every device's chunk count changes by at most `tolerance_chunks` for
   `stable_rounds` rounds in a row, the split is final and adaptation stops.

Exactly-once: every chunk is in exactly one buffer; a steal moves it; a dead device's chunks go to the orphan
queue (base class) and are re-run by the survivors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.errors import InputError
from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan, alive_counts


@dataclass(frozen=True)
class HassOptions:
    """HASS knobs. profile_chunks: chunks per device in the profiling step; steal_chunks: chunks per steal;
    tolerance_chunks: count change still "the same" (None: max(1, n/200)); stable_rounds: rounds of unchanged
    split before it is final; adaptation: "rate" or "executed" (see the module docstring)."""

    profile_chunks: int = 1
    steal_chunks: int = 1
    tolerance_chunks: int | None = None
    stable_rounds: int = 2
    adaptation: str = "rate"

    def __post_init__(self):
        if self.profile_chunks < 1 or self.steal_chunks < 1 or self.stable_rounds < 1:
            raise InputError("hass: profile_chunks, steal_chunks and stable_rounds must be >= 1")
        if self.adaptation not in ("rate", "executed"):
            raise InputError(f"hass: adaptation must be 'rate' or 'executed', got {self.adaptation!r}")


class HassPlan(RoundPlan):
    def __init__(self, ctx: RoundContext, policy: "HassPolicy"):
        super().__init__(ctx)
        self.policy = policy
        options = policy.options
        alive = np.asarray(ctx.alive if ctx.alive else [True] * ctx.n_devices, dtype=bool)
        self.profiling = policy.ratios is None
        self.profile_chunk_ids: set[int] = set()
        if self.profiling:
            per = options.profile_chunks
            while per > 1 and per * int(alive.sum()) > ctx.n_chunks:
                per -= 1
            next_id = 0
            self.profile_pending = set()
            for d in range(ctx.n_devices):
                if alive[d] and next_id < ctx.n_chunks:
                    take = min(per, ctx.n_chunks - next_id)
                    self.queues[d].extend(range(next_id, next_id + take))
                    self.profile_chunk_ids.update(range(next_id, next_id + take))
                    self.profile_pending.add(d)
                    next_id += take
            self.rest = list(range(next_id, ctx.n_chunks))
            self.profile_seconds = np.zeros(ctx.n_devices)
            self.profile_done = np.zeros(ctx.n_devices, dtype=np.int64)
            if not self.profile_pending:
                self._end_profiling()
        else:
            self.fill_queues(alive_counts(policy.ratios, ctx.n_chunks, list(alive)))

    def is_profile_run(self, device, chunks) -> bool:
        return bool(chunks) and chunks[0] in self.profile_chunk_ids

    def assign(self, device, now):
        if self.profiling:
            queue = self.queues[device]
            return tuple(queue.popleft() for _ in range(len(queue))) if queue else None
        own = self.take_own(device)
        if own is not None:
            return own
        return self._steal(device)

    def _steal(self, device):
        hosts = [d for d in range(self.n_devices) if d != device and not self.ctx.bundles[d] and self.queues[d]]
        if not hosts:
            return None
        victim = max(hosts, key=lambda d: (len(self.queues[d]), -d))
        queue = self.queues[victim]
        take = min(self.policy.options.steal_chunks, len(queue))
        ratios = self.policy.ratios
        if ratios is not None and ratios[device] > 0 and ratios[victim] > 0:
            # steal only when the thief finishes the stolen chunks before the victim would reach them
            # (the thesis's thieves are GPUs, faster than the CPU they rob; a slower thief would only add a tail)
            if take / ratios[device] >= len(queue) / ratios[victim]:
                return None
        stolen = [queue.pop() for _ in range(take)]
        return tuple(reversed(stolen))

    def on_completed(self, device, chunks, timing, now):
        if self.profiling and device in self.profile_pending:
            self.profile_seconds[device] += timing.total_s
            self.profile_done[device] += len(chunks)
            if not self.queues[device]:
                self.profile_pending.discard(device)
            if not self.profile_pending:
                self._end_profiling()

    def on_failed(self, device, chunks):
        if self.profiling:
            self.profile_pending.discard(device)
            if not self.profile_pending:
                self._end_profiling()

    def _end_profiling(self):
        """Eq. 3.2-3.7: speeds from the profile runs, ratios, then the rest of the load into the buffers."""
        speeds = np.where(self.profile_seconds > 0, self.profile_done / np.maximum(self.profile_seconds, 1e-300),
                          0.0)
        alive = [not d for d in self.dead]
        if speeds.sum() <= 0:
            speeds = np.asarray(alive, dtype=np.float64)
        self.policy.profile_speeds = speeds.copy()
        self.policy.ratios = speeds / speeds.sum()
        counts = alive_counts(self.policy.ratios, len(self.rest), alive)
        self.fill_queues(counts, self.rest)
        self.profiling = False


class HassPolicy(Policy):
    """HASS across rounds: holds the ratios (None until profiled), the history of splits, convergence."""

    name = "hass"
    dynamic = True

    def __init__(self, options: HassOptions | None = None, **overrides):
        base = options or HassOptions()
        if overrides:
            base = HassOptions(**{**base.__dict__, **overrides})
        self.options = base
        self.ratios: np.ndarray | None = None
        self.profile_speeds: np.ndarray | None = None
        self.history: list[np.ndarray] = []
        self._stable = 0
        self._converged_at: int | None = None

    def plan(self, ctx: RoundContext) -> RoundPlan:
        return HassPlan(ctx, self)

    def adapt(self, plan: RoundPlan) -> None:
        """Adaptation phase (ch. 3.3.3) + convergence detection."""
        counts = plan.executed.copy()
        tolerance = self.options.tolerance_chunks
        if tolerance is None:
            tolerance = max(1, plan.ctx.n_chunks // 200)
        if self.history and np.all(np.abs(counts - self.history[-1]) <= tolerance):
            self._stable += 1
        else:
            self._stable = 0
        self.history.append(counts)
        if self._converged_at is None and self._stable >= self.options.stable_rounds - 1 and len(self.history) > 1:
            self._converged_at = plan.ctx.round_index
        if self._converged_at is not None:
            return  # the split is final
        alive = ~np.asarray(plan.dead, dtype=bool)
        if self.options.adaptation == "executed":
            new = counts.astype(np.float64)
        else:
            new = np.where(plan.busy_s > 0, counts / np.maximum(plan.busy_s, 1e-300), 0.0)
            # a live device that got nothing keeps its previous speed estimate (relative to the others)
            previous = self.ratios if self.ratios is not None else np.ones(len(counts)) / len(counts)
            missing = alive & (counts == 0)
            if missing.any() and new[~missing & alive].sum() > 0:
                scale = new[~missing & alive].sum() / max(previous[~missing & alive].sum(), 1e-300)
                new[missing] = previous[missing] * scale
        new = np.where(alive, new, 0.0)
        if new.sum() > 0:
            self.ratios = new / new.sum()

    @property
    def converged(self) -> bool:
        return self._converged_at is not None

    @property
    def converged_at(self) -> int | None:
        """Round index at which the split became final (None: not yet)."""
        return self._converged_at

    def describe(self) -> dict:
        return {"name": self.name, "options": dict(self.options.__dict__), "converged_at": self._converged_at,
                "ratios": None if self.ratios is None else self.ratios.tolist()}
