"""What the threshold estimators of seed 004 share: the estimate, the searches, the paper's metrics.

Seed 004 (§II) finds the threshold of a heterogeneous split algorithm in three steps: **Sample** a small input,
**Identify** the best threshold on it by running the real algorithm many times, **Extrapolate** to the full
input. The estimators (`threshold_cc`, `threshold_spmm`, `threshold_hh`) and the baselines
(`threshold_baselines`) never import the algorithms (they live in `apportion.apps`, a layer above): they get
`evaluate(sample, threshold) -> seconds`, which runs the split algorithm on the sample and returns its time.

Time spent: on real devices the wall time of sampling plus searching; on simulated devices the model seconds of
the runs on the sample plus the host steps (sampling, extrapolating) at the simulated CPU's speed of one thread
(their operation count × `host_seconds_per_operation`), or of all its threads for the steps that are chunk
kernels here (`_threshold_kernels`: spmm's sample, hh's share extrapolation), so that this machine's Python
speed is not mixed into a simulated machine's time (`Stopwatch`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from apportion.errors import InputError
from apportion.schedule._threshold_kernels import principal_submatrix

#: runs the split algorithm on an input at a threshold and returns its time (seconds), or the pair
#: (its time, the score the search minimises), e.g. the time predicted for the whole input (`scaled_time`), or
#: the triple (time, score, parts) with parts = (CPU side, GPU side, merge) on the score's scale, which
#: `balance_search` needs
Evaluate = Callable[[Any, float], "float | tuple[float, float] | tuple[float, float, tuple]"]


@dataclass
class ThresholdEstimate:
    """A threshold and what finding it cost.

    threshold: the estimate (CPU share in percent for cc and spmm; a row length for hh).
    seconds: time spent estimating (module docstring). method: how it was found. runs: runs of the algorithm.
    tried: every threshold run and its time (on the sample for the samplers, on the input for exhaustive).
    sample: statistics of the sample (vertices, edges, average degree, …), empty for the baselines.
    """

    threshold: float
    seconds: float
    method: str
    runs: int = 0
    tried: dict[float, float] = field(default_factory=dict)
    sample: dict = field(default_factory=dict)


#: how an estimator searches the sample for a percentage threshold: the paper's scan (cc: every 8 then every 1;
#: spmm: every 2 within 8 of the race's split, then ±1), or `balance_search` (ours)
SEARCHES = ("scan", "balance")


class Stopwatch:
    """Adds up the time an estimator spends (module docstring): wall time of host steps, and the runs' seconds
    (model seconds when `simulated`, else their wall time)."""

    def __init__(self, simulated: bool, host_seconds_per_operation: float | None = None, host_threads: int = 1):
        self.simulated = simulated
        self.host_seconds_per_operation = host_seconds_per_operation
        self.host_threads = max(1, int(host_threads))
        self.seconds = 0.0
        self.runs = 0
        self.tried: dict[float, float] = {}
        #: (CPU side, GPU side, merge) of each threshold run, where `evaluate` reports them
        self.parts: dict[float, tuple[float, float, float]] = {}

    def host(self, step: Callable[..., Any], *args, operations: Callable[[Any], float] | None = None,
             parallel: bool = False) -> Any:
        """Run a host step (sampling), counting its wall time, or on a simulated platform (when the rate is
        known) `operations(result)` × host_seconds_per_operation, divided by `host_threads` for a step that
        runs on every thread (`parallel`: a chunk kernel, `_threshold_kernels`)."""
        started = time.perf_counter()
        result = step(*args)
        if self.simulated and self.host_seconds_per_operation is not None and operations is not None:
            threads = self.host_threads if parallel else 1
            self.seconds += float(operations(result)) * self.host_seconds_per_operation / threads
        else:
            self.seconds += time.perf_counter() - started
        return result

    def run(self, evaluate: Evaluate, sample: Any, threshold: float) -> float:
        """Run the algorithm on the sample (memoised per threshold); returns its time."""
        if threshold in self.tried:
            return self.tried[threshold]
        started = time.perf_counter()
        outcome = evaluate(sample, threshold)
        seconds, score = (float(outcome[0]), float(outcome[1])) if isinstance(outcome, tuple) else \
            (float(outcome), float(outcome))
        self.seconds += seconds if self.simulated else time.perf_counter() - started
        self.runs += 1
        self.tried[threshold] = score
        if isinstance(outcome, tuple) and len(outcome) > 2:
            self.parts[threshold] = tuple(float(x) for x in outcome[2])
        return score


def scaled_time(side_seconds: Sequence[float], fixed_seconds: Sequence[float], factor: float) -> float:
    """The time a run on the whole input would take, predicted from a run on the sample: each part's (CPU side,
    GPU side, merge) size-dependent time (its time less its fixed cost: launches, transfer latency, calls)
    times `factor` (input size / sample size), plus the fixed cost; the slower side plus the merge. A part
    that had no work stays at 0. Without it, a sample's run is dominated by what does not shrink with the
    input (a GPU's launch and transfer latencies), and the sample's best split is "all on the CPU"."""
    return run_time(scaled_parts(side_seconds, fixed_seconds, factor))


def run_time(parts: Sequence[float]) -> float:
    """A split run's time from its parts (CPU side, GPU side, merge): the slower side, then the merge."""
    cpu, gpu, merge = parts
    return max(cpu, gpu) + merge


def scaled_parts(side_seconds: Sequence[float], fixed_seconds: Sequence[float], factor: float,
                 transfer_seconds: Sequence[float] | None = None,
                 transfer_factor: float | None = None,
                 rounds: Sequence[float] | None = None) -> tuple[float, float, float]:
    """Each part's (CPU side, GPU side, merge) predicted time for the whole input (`scaled_time`). Where a
    part's link transfers are known (`transfer_seconds`, less their latencies), they grow by `transfer_factor`
    (the input's bytes over the sample's) and the rest of its size-dependent time by `factor`: a principal
    submatrix keeps 1/16 of the nonzeros that a GPU copies but 1/64 of the products it computes. A part that
    runs in rounds which the whole input needs more of (`rounds`, each part's growth: `rounds_growth`) has its
    time but the transfers — each round's work and its launches — multiplied by that growth."""
    transfers = transfer_seconds if transfer_seconds is not None else (0.0, 0.0, 0.0)
    growths = rounds if rounds is not None else (1.0, 1.0, 1.0)
    moved = factor if transfer_factor is None else transfer_factor
    cpu, gpu, merge = (0.0 if seconds <= 0 else
                       growth * (fixed + factor * max(0.0, seconds - fixed - transfer)) + moved * min(transfer, seconds)
                       for seconds, fixed, transfer, growth in zip(side_seconds, fixed_seconds, transfers, growths))
    return cpu, gpu, merge


def rounds_growth(whole_vertices: int, sample_vertices: int) -> float:
    """How many times the rounds of an algorithm whose rounds grow with the logarithm of the vertex count
    (Shiloach–Vishkin: hook and pointer-jump until nothing changes, O(log n) rounds) on the whole input exceed
    those on a sample: log n / log n_s, 2 for the paper's √n sample. A sample of √n vertices has nothing of the
    input's diameter, so its runs need 2–3 rounds where the whole needs 2–7 (docs/threshold.md)."""
    return math.log(max(whole_vertices, 2)) / math.log(max(min(sample_vertices, whole_vertices), 2))


def best_of(tried: dict[float, float], among: Iterable[float] | None = None) -> float:
    """The threshold of the smallest time (ties: the smallest threshold)."""
    keys = list(tried) if among is None else [t for t in among if t in tried]
    return min(keys, key=lambda t: (tried[t], t))


def coarse_to_fine(watch: Stopwatch, evaluate: Evaluate, sample: Any, *, low: int = 0, high: int = 100,
                   coarse_step: int = 8, fine_step: int = 1) -> float:
    """Seed 004 §III-A.2: run every `coarse_step` from low to high (and high), then every `fine_step` within
    a coarse step of the best; returns the best threshold."""
    coarse = list(range(low, high + 1, coarse_step))
    if coarse[-1] != high:
        coarse.append(high)
    for t in coarse:
        watch.run(evaluate, sample, float(t))
    centre = int(best_of(watch.tried, [float(t) for t in coarse]))
    fine = range(max(low, centre - coarse_step + fine_step), min(high, centre + coarse_step - fine_step) + 1,
                 fine_step)
    for t in fine:
        watch.run(evaluate, sample, float(t))
    return best_of(watch.tried)


def local_search(watch: Stopwatch, evaluate: Evaluate, sample: Any, start: float, *, low: int = 0,
                 high: int = 100, radius: int = 8, step: int = 2) -> float:
    """Seed 004 §IV-A.b's finer search: every `step` within `radius` of `start`, then ±1 around the best."""
    centre = int(round(start))
    for t in range(max(low, centre - radius), min(high, centre + radius) + 1, step):
        watch.run(evaluate, sample, float(t))
    best = int(best_of(watch.tried))
    for t in (best - 1, best + 1):
        if low <= t <= high:
            watch.run(evaluate, sample, float(t))
    return best_of(watch.tried)


def balance_search(watch: Stopwatch, evaluate: Evaluate, sample: Any, start: float = 50.0, *, low: int = 0,
                   high: int = 100, most_runs: int = 8) -> float:
    """Ours: the whole-percent threshold where the CPU side and the GPU side finish together, found in a few
    runs instead of a scan, then the ends `low` and `high` (one device alone: no merge, no other side's fixed
    cost), and the best of all runs is returned.

    A larger CPU share makes the CPU side slower and the GPU side faster, so d(t) = CPU side − GPU side grows
    with t. The search keeps a bracket [lo, hi] with d(lo) ≤ 0 ≤ d(hi) (the ends hold it: at `low` the CPU has
    no work, at `high` the GPU has none) and runs, in turn: `start`; then the zero of the line through the
    bracket's two measured d (regula falsi, with Illinois halving when one end stays put), or, after the
    first point, the split that balances the sides if each side's time is proportional to its share (after
    that, while one end is still unmeasured, the bracket's middle); a guess that falls on a measured threshold
    or outside the open bracket is replaced by the threshold inside the bracket next to the end it is nearer
    (the zero is there: a bracket [2, 5] whose line crosses at 4.94 tries 4 next, not 3), or by the middle. It
    stops when the bracket is two adjacent thresholds or after `most_runs` runs. Needs `evaluate` to report the
    parts (`Evaluate`); a run without them counts as balanced."""
    def difference(t: int) -> float:
        watch.run(evaluate, sample, float(t))
        cpu, gpu, _merge = watch.parts.get(float(t), (0.0, 0.0, 0.0))
        return cpu - gpu

    lo, hi = low, high
    d_lo = d_hi = None  # d at the bracket's ends where measured
    t = int(min(high, max(low, round(start))))
    kept = 0  # which end stayed put last time (Illinois)
    guessed_alone = False  # the proportional guess (one measured point) is made once
    for _ in range(most_runs):
        d = difference(t)
        if d == 0.0:
            lo = hi = t
            break
        if d < 0:
            lo, d_lo = t, d
            if kept == -1 and d_hi is not None:
                d_hi /= 2.0
            kept = -1
        else:
            hi, d_hi = t, d
            if kept == 1 and d_lo is not None:
                d_lo /= 2.0
            kept = 1
        if hi - lo <= 1:
            break
        if d_lo is not None and d_hi is not None:
            guess = lo + (hi - lo) * (-d_lo) / (d_hi - d_lo)
        elif guessed_alone:  # the proportional guess fell on the same side: halve toward the unmeasured end
            guess = (lo + hi) / 2.0
        else:
            guessed_alone = True
            cpu, gpu, _merge = watch.parts.get(float(t), (0.0, 0.0, 0.0))
            cpu_rate = cpu / max(t - low, 1e-9)  # seconds per percent on each side
            gpu_rate = gpu / max(high - t, 1e-9)
            guess = low + (high - low) * gpu_rate / (cpu_rate + gpu_rate) if cpu_rate + gpu_rate > 0 else \
                (lo + hi) / 2.0
        t = int(round(guess))
        if not lo < t < hi or float(t) in watch.tried:
            # the guess rounds onto a measured end: the zero lies next to it, so try its neighbour inside
            t = hi - 1 if abs(guess - hi) < abs(guess - lo) else lo + 1
            if not lo < t < hi or float(t) in watch.tried:
                t = (lo + hi) // 2
    for end in (low, high):
        watch.run(evaluate, sample, float(end))
    return best_of(watch.tried)


def hill_climb(watch: Stopwatch, evaluate: Evaluate, sample: Any, candidates: Sequence[float],
               start_index: int | None = None) -> float:
    """Seed 004 §V-A.2's descent over sorted `candidates`: from `start_index` (default the middle) move to
    the better neighbour while one is better; returns the candidate reached."""
    candidates = [float(c) for c in candidates]
    if not candidates:
        raise InputError("hill climb: no candidate thresholds")
    i = len(candidates) // 2 if start_index is None else int(start_index)
    current = watch.run(evaluate, sample, candidates[i])
    while True:
        options = [j for j in (i - 1, i + 1) if 0 <= j < len(candidates)]
        times = {j: watch.run(evaluate, sample, candidates[j]) for j in options}
        j = min(times, key=lambda k: times[k]) if times else i
        if not times or times[j] >= current:
            return candidates[i]
        i, current = j, times[j]


def induced_subgraph(indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, indices) of the subgraph induced by the sorted distinct `vertices`, renumbered 0..k-1 in
    their order; costs the sampled vertices' degrees (plus one n-entry map), not the whole graph (the chunk
    kernel of spmm's principal submatrix, without values)."""
    sub_indptr, sub_indices, _ = principal_submatrix(indptr, indices, indices, indptr.shape[0] - 1, vertices)
    return sub_indptr, sub_indices


def sample_size(n: int, scale: float = 1.0, *, exponent: float = 0.5, minimum: int = 16) -> int:
    """⌈scale · n^exponent⌉ clamped to [min(minimum, n), n]: √n for cc and hh, n/4 is spmm's own rule."""
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise InputError(f"sample scale must be a positive number, got {scale!r}")
    size = int(math.ceil(scale * n ** exponent))
    return max(min(minimum, n), min(n, size))


def paper_metrics(threshold: float, best_threshold: float, time_at_threshold: float, best_time: float,
                  estimate_s: float, *, relative_threshold: bool = False) -> dict:
    """Table I's three metrics (seed 004 §I): threshold difference (percentage points of the CPU share, or
    for a row-length threshold |t - t_best| / t_best in percent), time difference (slowdown against the best
    threshold's run, percent) and overhead (estimation time / (estimation + run time), percent)."""
    if relative_threshold:
        difference = abs(threshold - best_threshold) / max(abs(best_threshold), 1.0) * 100.0
    else:
        difference = abs(threshold - best_threshold)
    slowdown = (time_at_threshold - best_time) / best_time * 100.0 if best_time > 0 else 0.0
    total = estimate_s + time_at_threshold
    return {"threshold": threshold, "best_threshold": best_threshold, "threshold_difference_pct": difference,
            "time_difference_pct": slowdown, "overhead_pct": estimate_s / total * 100.0 if total > 0 else 0.0,
            "estimate_s": estimate_s, "run_s": time_at_threshold, "best_run_s": best_time}
