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
   records the executed fractions (`adaptation="executed"`); stealing only moves work *to* GPUs, so under that
   rule a round where a GPU got too much never changes the split. `adaptation="rate"` uses each device's observed
   rate, executed chunks / busy seconds, which equals the executed fraction when devices finish together and
   also corrects that round. Both read a device's fixed cost per run (a GPU's transfer latency and launch, a
   copy of an operand every run needs) as slowness: a GPU that got few chunks looks slow, gets fewer, and the
   split creeps towards the best one a little per round or stalls before it (seed004's K40c, A×A of the power
   graph in 50 chunks: 47 / 3 chunks and 1.40x the makespan of the 33 / 17 that the rule below finds). The
   default, `adaptation="affine"`, fits every device's busy seconds = runs · a + chunks · b by non-negative
   least squares over everything observed so far (the profiling runs are a point of their own, so one round
   already gives a bundling device its line; a host device, one run per chunk, keeps a = 0 and its rate) and
   hands out the counts with the least predicted makespan (`affine_counts`: a bundling device costs a + b·c for
   one run of c chunks and nothing for none, so a device whose per-run cost outweighs what it saves gets
   nothing). With fitted costs a steal is priced as the run of its own that it is (a + b · stolen against the
   victim's time to reach them).
   **Convergence**: when every device's chunk count changes by at most `tolerance_chunks` for
   `stable_rounds` rounds in a row, the split is final and adaptation stops. A live device that has not run a
   chunk yet (profiling hands one chunk per device in index order, so with fewer chunks than devices the last
   ones wait) gets one in the next round and holds convergence off until it has been measured.

Exactly-once: every chunk is in exactly one buffer; a steal moves it; a dead device's chunks go to the orphan
queue (base class) and are re-run by the survivors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apportion.errors import InputError
from apportion.schedule.policies.base import Policy, RoundContext, RoundPlan, alive_counts


#: the adaptation rules (module docstring); the first is the default
ADAPTATIONS = ("affine", "rate", "executed")


@dataclass(frozen=True)
class HassOptions:
    """HASS knobs. profile_chunks: chunks per device in the profiling step; steal_chunks: chunks per steal;
    tolerance_chunks: count change still "the same" (None: max(1, n/200)); stable_rounds: rounds of unchanged
    split before it is final; adaptation: "affine", "rate" or "executed" (see the module docstring)."""

    profile_chunks: int = 1
    steal_chunks: int = 1
    tolerance_chunks: int | None = None
    stable_rounds: int = 2
    adaptation: str = "affine"

    def __post_init__(self):
        if self.profile_chunks < 1 or self.steal_chunks < 1 or self.stable_rounds < 1:
            raise InputError("hass: profile_chunks, steal_chunks and stable_rounds must be >= 1")
        if self.adaptation not in ADAPTATIONS:
            raise InputError(f"hass: adaptation must be one of {', '.join(ADAPTATIONS)}, got {self.adaptation!r}")


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
            self.profile_run_count = np.zeros(ctx.n_devices, dtype=np.int64)
            if not self.profile_pending:
                self._end_profiling()
        else:
            self.fill_queues(policy.split(ctx.n_chunks, list(alive), ctx.bundles))

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
        # steal only when the thief finishes the stolen chunks before the victim would reach them (the thesis's
        # thieves are GPUs, faster than the CPU they rob; a slower thief would only add a tail)
        if self.policy.costs is not None:
            # the fitted costs: a steal is a run of its own, so a bundling thief pays its per-run cost again
            costs = self.policy.costs
            thief = costs[device, 0] + costs[device, 1] * take
            reach = len(queue) * (costs[victim, 0] + costs[victim, 1])  # the victim's end of them
            if thief >= reach:
                return None
        else:
            ratios = self.policy.ratios
            if ratios is not None and ratios[device] > 0 and ratios[victim] > 0:
                if take / ratios[device] >= len(queue) / ratios[victim]:
                    return None
        stolen = [queue.pop() for _ in range(take)]
        return tuple(reversed(stolen))

    def on_completed(self, device, chunks, timing, now):
        if self.profiling and device in self.profile_pending:
            self.profile_seconds[device] += timing.total_s
            self.profile_done[device] += len(chunks)
            self.profile_run_count[device] += 1
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
        counts = alive_counts(self.policy.ratios, len(self.rest), alive)  # one point per device: no line yet
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
        #: "affine": per device (seconds per run, seconds per chunk) fitted to every round so far, or None
        self.costs: np.ndarray | None = None
        #: (runs, chunks, busy seconds) per device: the profiling runs, then each round's other runs
        self._observed: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.history: list[np.ndarray] = []
        #: per device: has it run a chunk yet (profiling hands out one chunk per device in index order, so with
        #: fewer chunks than devices the last devices are never measured)
        self._ever_ran: np.ndarray | None = None
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
        alive = ~np.asarray(plan.dead, dtype=bool)
        ran = counts > 0
        first = ran if self._ever_ran is None else ran & ~self._ever_ran  # measured for the first time
        self._ever_ran = ran if self._ever_ran is None else self._ever_ran | ran
        # a device not measured yet gets a chunk next round (`split`), one measured for the first time changes
        # the split the round after: in neither case is the split final yet
        learning = (alive & ~self._ever_ran).any() or (len(self.history) > 0 and first.any())
        if self.history and np.all(np.abs(counts - self.history[-1]) <= tolerance) and not learning:
            self._stable += 1
        else:
            self._stable = 0
        self.history.append(counts)
        if self._converged_at is None and self._stable >= self.options.stable_rounds - 1 and len(self.history) > 1:
            self._converged_at = plan.ctx.round_index
        if self._converged_at is not None:
            return  # the split is final
        if self.options.adaptation == "affine":
            runs, chunks, busy = plan.runs.copy(), plan.executed.copy(), plan.busy_s.copy()
            if getattr(plan, "profile_done", None) is not None:  # the profiling runs: a point of their own
                profiled = (plan.profile_run_count, plan.profile_done, plan.profile_seconds)
                self._observed.append(profiled)
                runs, chunks, busy = runs - profiled[0], chunks - profiled[1], busy - profiled[2]
            self._observed.append((runs, chunks, busy))
            self.costs = fit_costs(self._observed)
        if self.options.adaptation == "executed":
            new = counts.astype(np.float64)
        else:
            new = np.where(plan.busy_s > 0, counts / np.maximum(plan.busy_s, 1e-300), 0.0)
            # a live device that got nothing keeps its previous speed estimate (relative to the others)
            previous = self.ratios if self.ratios is not None else np.ones(len(counts)) / len(counts)
            missing = alive & (counts == 0)
            # the scale from devices with an estimate in both rounds (a device measured for the first time has
            # none before: counting it inflated the scale, and the idle device's estimate with it)
            both = ~missing & alive & (previous > 0)
            if missing.any() and new[both].sum() > 0:
                scale = new[both].sum() / max(previous[both].sum(), 1e-300)
                new[missing] = previous[missing] * scale
        new = np.where(alive, new, 0.0)
        if new.sum() > 0:
            self.ratios = new / new.sum()

    def split(self, n_chunks: int, alive: list[bool], bundles: list[bool]) -> np.ndarray:
        """The chunk counts of the next round: from the fitted costs ("affine", once fitted), else proportional
        to the ratios; a live device that has never run gets one chunk (from the device with the most) so that it
        is measured."""
        if self.costs is not None:
            counts = affine_counts(self.costs, n_chunks, alive, bundles)
        else:
            counts = alive_counts(self.ratios, n_chunks, alive)
        if self._ever_ran is not None:
            for d in np.flatnonzero(np.asarray(alive, dtype=bool) & ~self._ever_ran):
                donor = int(np.argmax(counts))
                if counts[d] == 0 and counts[donor] > 0:
                    counts[donor] -= 1
                    counts[d] += 1
        return counts

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


def fit_costs(observed: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """Per device (seconds per run, seconds per chunk), fitted by non-negative least squares to every round's
    busy seconds = runs · a + chunks · b. A device whose rounds never vary runs against chunks (a host device,
    one run per chunk; or one round only) cannot tell a from b: it gets a = 0 and b = busy / chunks, its
    observed rate, which predicts its rounds the same way."""
    from scipy.optimize import nnls

    runs = np.array([o[0] for o in observed], dtype=np.float64)
    chunks = np.array([o[1] for o in observed], dtype=np.float64)
    busy = np.array([o[2] for o in observed], dtype=np.float64)
    costs = np.zeros((runs.shape[1], 2))
    for d in range(runs.shape[1]):
        seen = chunks[:, d] > 0
        if not seen.any():
            costs[d] = (0.0, np.inf)  # never ran: nothing to predict from (dead, or starved from round 0)
            continue
        rate = busy[seen, d].sum() / chunks[seen, d].sum()
        costs[d] = (0.0, rate)
        per_chunk = runs[seen, d] / chunks[seen, d]
        if np.ptp(per_chunk) > 1e-12:
            (a, b), _ = nnls(np.column_stack((runs[seen, d], chunks[seen, d])), busy[seen, d])
            if b > 0:
                costs[d] = (a, b)
    return costs


def affine_counts(costs: np.ndarray, n_chunks: int, alive: list[bool], bundles: list[bool]) -> np.ndarray:
    """Chunk counts with the least predicted makespan under the fitted costs: a bundling device runs its count
    c as one run (a + b·c, nothing when c = 0), a host device one run per chunk (c·(a + b)). Every set of
    bundling devices that get work is tried (a device whose per-run cost outweighs what it saves gets nothing);
    within a set, chunks go one by one to the device that would finish it first."""
    k = costs.shape[0]
    usable = [d for d in range(k) if (not alive or alive[d]) and np.isfinite(costs[d, 1])]
    if not usable:
        usable = [d for d in range(k) if not alive or alive[d]]
        return alive_counts(np.isin(np.arange(k), usable).astype(float), n_chunks, alive)
    hosts = [d for d in usable if not bundles[d]]
    bundlers = [d for d in usable if bundles[d]]
    best_counts, best_time = None, np.inf
    for mask in range(1 << len(bundlers)):
        members = hosts + [d for i, d in enumerate(bundlers) if mask >> i & 1]
        if not members:
            continue
        finish = [float(costs[d, 0]) if bundles[d] else 0.0 for d in members]
        step = [float(costs[d, 1]) if bundles[d] else float(costs[d, 0] + costs[d, 1]) for d in members]
        counts = [0] * len(members)
        places = range(len(members))
        for _ in range(n_chunks):
            i = min(places, key=lambda j: finish[j] + step[j])
            finish[i] += step[i]
            counts[i] += 1
        makespan = max([finish[i] for i in places if counts[i] > 0], default=0.0)
        if makespan < best_time * (1 - 1e-12):
            best_time = makespan
            best_counts = np.zeros(k, dtype=np.int64)
            best_counts[members] = counts
    return best_counts
