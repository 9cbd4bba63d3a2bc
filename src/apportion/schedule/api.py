"""Public entry points: `run_schedule(workload, platform, policy, rounds)` and `run_divisible(data, kernels, ...)`.

A *schedule* runs the same divisible load `rounds` times (seed 000 ch. 3.4: "in each round the same amount of
load is scheduled") under one policy, which may learn between rounds (HASS adapts; static policies do not).
Simulated platforms run in the discrete-event simulator, real ones on threads (CPU, throttled, CUDA devices) or
Ray actors. The result, a `Schedule`, carries per-round makespans and shares, the Trace, the oracle makespan
(simulated platforms), training time of trained policies, and the assembled result of the last round.

On real platforms every device first runs the workload's kernel once, untimed, all devices at the same time
(`warm_up`): a first call compiles, and a timed compiling call made HASS's profile, min-min's table and Qilin's
lines describe the compiler instead of the device. The trace's events say so, and `Schedule.warmup_s` is its cost
(not in the makespans).
"""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from apportion.checks import integer
from apportion.errors import ApportionError, InputError
from apportion.platform.device import DeviceFailure
from apportion.platform.platform import Platform, resolve_platform
from apportion.schedule.execute import execute_round
from apportion.schedule.oracle import oracle_split
from apportion.schedule.policies import make_policy
from apportion.schedule.policies.base import Policy, RoundContext
from apportion.schedule.pool import RowWorkload, Workload
from apportion.schedule.simulate import simulate_round
from apportion.schedule.trace import Trace
from apportion.ui import track


@dataclass
class RoundRecord:
    """One round: makespan (s), shares (fraction of the load's work per device), chunks per device, scheduler
    overhead (real seconds spent in policy decisions and bookkeeping), decisions, failures, runs, and
    `dedicated_s`: per device, the seconds its runs would have taken on a device of its own (summed
    `Timing.dedicated_s`; None for a device that cannot tell, and on simulated platforms)."""

    index: int
    makespan: float
    shares: list[float]
    chunks: list[int]
    overhead_s: float
    decisions: int
    failures: list[dict] = field(default_factory=list)
    runs: list[tuple[int, tuple[int, ...]]] = field(default_factory=list, repr=False)
    dedicated_s: list[float | None] = field(default_factory=list, repr=False)

    @property
    def dedicated_makespan(self) -> float | None:
        """The round's makespan had every device had a core of its own (max over devices of `dedicated_s`);
        None when a device that ran something could not tell."""
        used = [t for t, c in zip(self.dedicated_s, self.chunks) if c > 0]
        if not used or any(t is None for t in used):
            return None
        return max(used)

    def to_dict(self) -> dict:
        return {"round": self.index, "makespan": self.makespan, "shares": self.shares, "chunks": self.chunks,
                "overhead_s": self.overhead_s, "decisions": self.decisions, "failures": self.failures}


@dataclass
class Schedule:
    """The outcome of a multi-round schedule (see module docstring). `makespans[r]`, `shares[r][d]`."""

    policy: str
    platform: str
    devices: list[str]
    workload: str
    n_chunks: int
    rounds: list[RoundRecord]
    trace: Trace
    simulated: bool
    oracle_makespan: float | None = None
    oracle_shares: list[float] | None = None
    training_s: float = 0.0
    warmup_s: float = 0.0
    converged_at: int | None = None
    policy_state: dict = field(default_factory=dict)
    result: Any = None

    @property
    def makespans(self) -> list[float]:
        return [r.makespan for r in self.rounds]

    @property
    def shares(self) -> list[list[float]]:
        return [r.shares for r in self.rounds]

    def to_dict(self) -> dict:
        """JSON-ready summary (the CLI's --json): see docs/cli.md for every key."""
        return {"policy": self.policy, "platform": self.platform, "devices": self.devices,
                "workload": self.workload, "chunks": self.n_chunks, "simulated": self.simulated,
                "makespans": self.makespans, "shares": self.shares,
                "oracle_makespan": self.oracle_makespan, "oracle_shares": self.oracle_shares,
                "training_s": self.training_s, "warmup_s": self.warmup_s, "converged_at": self.converged_at,
                "overhead_s": [r.overhead_s for r in self.rounds],
                "overhead_per_decision_us": [1e6 * r.overhead_s / max(1, r.decisions) for r in self.rounds],
                "failures": [f for r in self.rounds for f in r.failures],
                "events": list(self.trace.events), "policy_state": self.policy_state}


def _probe(platform: Platform, workload: Workload):
    """probe(d, k): seconds of one run of the first k chunks on device d (model time or measured)."""
    if platform.simulated:
        def probe(d: int, k: int) -> float:
            return platform[d].estimate(workload.work_on(platform[d], range(k))).total_s
    else:
        def probe(d: int, k: int) -> float:
            chunks = tuple(range(k))
            execution = platform[d].run(workload.kernels, *workload.payload(chunks))
            return execution.timing.total_s
    return probe


def _probe_together(platform: Platform, probe):
    """probe_together(sizes): every device runs its list of chunk counts, all devices at the same time (one
    thread each, as in a round), so a device is measured under the load of the others."""
    def probe_together(sizes):
        if platform.simulated:
            return [[probe(d, k) for k in device_sizes] for d, device_sizes in enumerate(sizes)]
        return _on_every_device(len(sizes), lambda d: [probe(d, k) for k in sizes[d]])
    return probe_together


def _on_every_device(n_devices: int, task) -> list:
    """[task(0), ..., task(n - 1)], each in its own thread, all at the same time; re-raises the first error."""
    with ThreadPoolExecutor(max_workers=max(1, n_devices), thread_name_prefix="apportion-probe") as pool:
        return list(pool.map(task, range(n_devices)))


def warm_up(platform: Platform, workload: Workload, trace: Trace | None = None) -> float:
    """Run every device's kernels once on one chunk, untimed and all devices at the same time, before any timed
    run (profiling, training, round 0): a first call compiles (Numba, CuPy) and cost HASS's profile and
    min-min's table 20x the steady time. Returns the wall seconds; the trace gets an event saying so.
    Simulated platforms have nothing to warm (0.0)."""
    if platform.simulated:
        return 0.0
    def warm(d: int) -> str:
        try:
            return f"{platform[d].name} {platform[d].warm_up(workload.kernels, *workload.payload((0,))):.3g} s"
        except DeviceFailure as exc:  # a dead device fails again in round 0, where its work is re-queued
            return f"{platform[d].name} failed ({exc})"

    started = time.perf_counter()
    per_device = _on_every_device(len(platform), warm)
    seconds = time.perf_counter() - started
    if trace is not None:
        trace.events.append(f"warm-up: every device ran its kernel once, untimed, before the first timed run "
                            f"({seconds:.3g} s; {', '.join(per_device)})")
    return seconds


def run_schedule(workload: Workload, platform, policy: str | Policy = "hass", rounds: int = 1, *,
                 compute: bool = True, policy_options: dict | None = None) -> Schedule:
    """Run `rounds` rounds of `workload` on `platform` under `policy`; return the Schedule.

    compute: on simulated platforms, also execute the kernels on the host so the result is real (needs a
    materialized workload); real platforms always compute. Raises ApportionError if every device dies.
    """
    platform = resolve_platform(platform)
    rounds = integer(rounds, "rounds", low=1)
    if not platform.simulated and not workload.materialized:
        raise InputError(f"workload {workload.name}: real devices need the data (size-only workloads are for "
                         "simulated platforms)")
    policy_object = make_policy(policy, **(policy_options or {}))
    devices = platform.devices
    trace = Trace(device_names=[d.name for d in devices])
    probe = _probe(platform, workload)
    probe_together = _probe_together(platform, probe)
    warmup_s = warm_up(platform, workload, trace)
    alive = [True] * len(devices)
    total_work = workload.work(range(workload.n_chunks))
    records: list[RoundRecord] = []
    offset = 0.0
    clock_zero = time.perf_counter()
    for r in track(range(rounds), "rounds"):
        workload.reset()
        ctx = RoundContext(round_index=r, n_chunks=workload.n_chunks, bundles=[d.bundles for d in devices],
                           peak_flops=[d.peak_flops for d in devices], probe=probe, alive=list(alive),
                           probe_together=probe_together)
        plan = policy_object.plan(ctx)
        if r == 0:
            training = float(getattr(policy_object, "training_s", 0.0))
            if platform.simulated:
                offset += training
        trace.round_starts.append(offset)
        if platform.simulated:
            outcome = simulate_round(plan, devices, workload, trace, r, offset, compute=compute)
        else:
            offset = time.perf_counter() - clock_zero
            trace.round_starts[-1] = offset
            outcome = execute_round(plan, devices, workload, trace, r, offset, clock_zero=clock_zero)
        _check_exactly_once(outcome.runs, workload.n_chunks, r)
        trace.fill_idle(r, offset, offset + outcome.makespan)
        for d, _ in outcome.failures:
            alive[d] = False
        policy_object.adapt(plan)
        records.append(_record(r, outcome, workload, total_work, len(devices), devices))
        offset += outcome.makespan
    oracle = None
    if platform.simulated and all(alive):
        oracle = oracle_split(devices, total_work)
    result = None
    if workload.materialized and (compute or not platform.simulated):
        result = workload.result()
    return Schedule(policy=policy_object.name, platform=platform.name, devices=[d.name for d in devices],
                    workload=workload.name, n_chunks=workload.n_chunks, rounds=records, trace=trace,
                    simulated=platform.simulated,
                    oracle_makespan=None if oracle is None else oracle.makespan,
                    oracle_shares=None if oracle is None else oracle.shares.tolist(),
                    training_s=float(getattr(policy_object, "training_s", 0.0)), warmup_s=warmup_s,
                    converged_at=getattr(policy_object, "converged_at", None),
                    policy_state=policy_object.describe(), result=result)


def _check_exactly_once(runs, n_chunks: int, round_index: int) -> None:
    counts = Counter(c for _, chunks in runs for c in chunks)
    if len(counts) != n_chunks or any(v != 1 for v in counts.values()):
        missing = n_chunks - len(counts)
        twice = sum(1 for v in counts.values() if v > 1)
        raise ApportionError(f"round {round_index}: {missing} chunk(s) never ran, {twice} ran twice (scheduler bug)")


def _record(r, outcome, workload, total_work, n_devices, devices) -> RoundRecord:
    flops = np.zeros(n_devices)
    chunks = np.zeros(n_devices, dtype=np.int64)
    for d, run in outcome.runs:
        flops[d] += workload.work(run).flops
        chunks[d] += len(run)
    shares = flops / flops.sum() if flops.sum() > 0 else chunks / max(1, chunks.sum())
    failures = [{"round": r, "device": devices[d].name, "chunks": len(c)} for d, c in outcome.failures]
    dedicated = [outcome.dedicated_s.get(d) for d in range(n_devices)]
    dedicated = [None if t is None or not np.isfinite(t) else float(t) for t in dedicated]
    return RoundRecord(index=r, makespan=outcome.makespan, shares=shares.tolist(), chunks=chunks.tolist(),
                       overhead_s=outcome.overhead_s, decisions=outcome.decisions, failures=failures,
                       runs=outcome.runs, dedicated_s=dedicated)


def run_divisible(data, kernels, platform, policy: str | Policy = "hass", rounds: int = 1, *,
                  chunks: int | None = None, flops_per_row: float | None = None, extra_args: Sequence = (),
                  **policy_options) -> Schedule:
    """Spread a user's kernel over a platform: `data` (an array) is cut by rows into `chunks` chunks and
    `kernels` (a callable CPU kernel, a {"cpu", "gpu"} mapping or a KernelSet) maps a block of rows (plus
    `extra_args`) to the same number of result rows. Runs `rounds` rounds under `policy` (seed 000 ch. 3) and
    returns the Schedule; `schedule.result` is the concatenated output of the last round.

    Example: `run_divisible(A, lambda block, B: block @ B, "auto", extra_args=(B,))`.
    """
    data = np.asarray(data)
    if data.ndim == 0 or data.shape[0] == 0:
        raise InputError("data: needs at least one row")
    resolved = resolve_platform(platform)
    n_chunks = int(chunks) if chunks is not None else int(min(data.shape[0], 16 * len(resolved)))
    workload = RowWorkload(data, kernels, n_chunks, name="rows", flops_per_row=flops_per_row,
                           extra_args=tuple(extra_args))
    return run_schedule(workload, resolved, policy, rounds, compute=True, policy_options=policy_options)
